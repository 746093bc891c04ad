// Filter benchmarks (inserts, lookups, bits per item, against Bloom and std::unordered_set)
// and the memory floor they are measured against.
//
// For every size n of CUCKOO_BENCH_SIZES and f in {12, 16} (b = 4), in one process run:
//   filter/insert/fF/N           insert n keys into a filter of ceil(n / 0.95) slots
//                                (95% load): mean ns per insert, p50/p99/p99.9 of the
//                                inserts timed one by one (every 64th), load reached,
//                                bits per item, kicks per insert
//   filter/lookup_{positive,negative,mixed}/fF/N   one contains() at a time
//   filter/batched_{positive,negative}/fF/N        contains_many(), when the filter has it
//   floor/{chase1,chase8,chase16,two_lines,two_lines_prefetched}/{huge,4k}/fF/N
//                                random 64-byte reads from a region the size of that
//                                filter's table: one dependent chain, 8 or 16 chains in
//                                flight, "hash a key, read two random lines" per op, and
//                                the same with the lines prefetched 24 ops ahead
//   bloom/{insert,lookup_positive,lookup_negative}/fF/N
//                                BloomFilter with the filter's bits (same bits per item)
//   unordered_set/{insert,lookup_positive,lookup_negative}/N   reserved; n <= 10M only
//   peer_shape/{lookup_negative,lookup_positive,floor_two_lines}/f12/2^22buckets
//                                one-key lookups (and their scalar floor) at the shape the
//                                reference code's published figures are for: 2^22
//                                buckets of 4 at 95 % load (CUCKOO_BENCH_PEER_SHAPE=off: none)
// Figures are read as ratios against each other (bench/report.py); see bench/README.md.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <numeric>
#include <span>
#include <initializer_list>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include <benchmark/benchmark.h>

#include "bench_common.hpp"
#include "cuckoo/bloom_filter.hpp"
#include "cuckoo/cuckoo_filter.hpp"
#include "fixed_shape.hpp"
#include "structure_cache.hpp"

namespace cuckoo::bench {
namespace {

constexpr double kTargetLoad = 0.95;
constexpr unsigned kSlotsPerBucket = 4;
constexpr unsigned kFingerprintBits[] = {12, 16};
// The largest size at which std::unordered_set runs (100M nodes would take ~5 GB).
constexpr std::uint64_t kUnorderedSetMaxItems = 10'000'000;
// Keys per contains_many() call.
constexpr std::size_t kBatchKeys = 1024;
// Loads per iteration of a memory-floor benchmark.
constexpr std::uint64_t kFloorLoadsPerIteration = std::uint64_t{1} << 20;

// ---- Features another change adds to the filter; detected, so this builds before and
// after it lands.

template <class Config>
concept HasHugePagesOption = requires(Config c) { c.huge_pages = true; };

template <class Filter>
concept HasContainsMany = requires(const Filter& f, std::span<const std::uint64_t> keys,
                                   std::span<bool> results) { f.contains_many(keys, results); };

template <class Config>
void request_huge_pages(Config& config) {
  if constexpr (HasHugePagesOption<Config>) config.huge_pages = true;
}

template <class Config>
concept HasSemiSortedOption = requires(Config c) { c.semi_sorted = true; };

constexpr bool kFilterHasHugePages = HasHugePagesOption<CuckooFilterConfig>;
constexpr bool kFilterHasSemiSorted = HasSemiSortedOption<CuckooFilterConfig>;
// The structure caches' key for a semi-sorted filter of f bits: f + kSemiKey.
constexpr unsigned kSemiKey = 0x100;
constexpr bool kFilterHasContainsMany = HasContainsMany<CuckooFilter>;

// ---- Sizing.

std::uint64_t slots_for(std::uint64_t items) {
  return static_cast<std::uint64_t>(std::ceil(static_cast<double>(items) / kTargetLoad));
}

// key: f, or f + kSemiKey for semi-sorted buckets.
CuckooFilterConfig filter_config(unsigned key, std::uint64_t items) {
  CuckooFilterConfig c;
  c.capacity = slots_for(items);
  c.fingerprint_bits = key % kSemiKey;
  c.slots_per_bucket = kSlotsPerBucket;
  c.seed = bench_seed();
  request_huge_pages(c);
  if constexpr (HasSemiSortedOption<CuckooFilterConfig>) c.semi_sorted = key >= kSemiKey;
  return c;
}

// The filter's table bits: the Bloom filter gets the same, and the memory floor a region
// of the same bytes.
std::uint64_t filter_table_bits(unsigned bits, std::uint64_t items) {
  const std::uint64_t buckets = (slots_for(items) + kSlotsPerBucket - 1) / kSlotsPerBucket;
  return buckets * kSlotsPerBucket * bits;
}

std::size_t filter_table_bytes(unsigned bits, std::uint64_t items) {
  const std::uint64_t buckets = (slots_for(items) + kSlotsPerBucket - 1) / kSlotsPerBucket;
  return static_cast<std::size_t>(detail::cuckoo_filter_table_bytes(buckets, kSlotsPerBucket, bits));
}

// ---- Query arrays, one set per size.

struct Queries {
  std::vector<std::uint64_t> present;
  std::vector<std::uint64_t> absent;
  std::vector<std::uint64_t> mixed;
};

StructureCache<Queries>& query_cache() {
  static StructureCache<Queries> cache;
  return cache;
}

// Queries for a structure that holds key_at(kInsertedStream, 0 .. inserted-1).
const Queries& queries_for(std::uint64_t items, std::uint64_t inserted) {
  return query_cache().get(items, static_cast<unsigned>(items - inserted), [&] {
    auto q = std::make_unique<Queries>();
    q->present = present_queries(inserted, 1);
    q->absent = absent_queries(items);
    q->mixed = mixed_queries(inserted, 2);
    return q;
  });
}

enum class QueryKind { kPositive, kNegative, kMixed };

const std::vector<std::uint64_t>& pick(const Queries& q, QueryKind kind) {
  switch (kind) {
    case QueryKind::kPositive: return q.present;
    case QueryKind::kNegative: return q.absent;
    case QueryKind::kMixed: return q.mixed;
  }
  return q.present;
}

const char* kind_name(QueryKind kind) {
  switch (kind) {
    case QueryKind::kPositive: return "positive";
    case QueryKind::kNegative: return "negative";
    case QueryKind::kMixed: return "mixed";
  }
  return "?";
}

// Runs contains() over the queries once per iteration; returns the hits of the last pass.
template <class Contains>
std::uint64_t lookup_loop(benchmark::State& state, const std::vector<std::uint64_t>& keys,
                          Contains&& contains) {
  std::uint64_t hits = 0;
  for (auto _ : state) {
    hits = 0;
    for (const std::uint64_t k : keys) hits += contains(k) ? 1 : 0;
    benchmark::DoNotOptimize(hits);
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(keys.size()));
  return hits;
}

void report_hits(benchmark::State& state, QueryKind kind, std::uint64_t hits,
                 std::size_t queries) {
  const double rate = static_cast<double>(hits) / static_cast<double>(queries);
  if (kind == QueryKind::kNegative) state.counters["fpr"] = rate;
  if (kind == QueryKind::kPositive) {
    state.counters["hit_rate"] = rate;
    if (hits != queries) state.SkipWithError("a present key was reported absent");
  }
}

// ---- The cuckoo filter.

struct FilledFilter {
  CuckooFilter filter;
  std::uint64_t inserted = 0;
};

StructureCache<FilledFilter>& filter_cache() {
  static StructureCache<FilledFilter> cache;
  return cache;
}

std::unique_ptr<FilledFilter> build_filter(unsigned bits, std::uint64_t items) {
  auto f = std::make_unique<FilledFilter>(FilledFilter{CuckooFilter(filter_config(bits, items)), 0});
  std::vector<std::uint64_t> unused;
  f->inserted = timed_fill(items, unused, [&](std::uint64_t k) {
                  return f->filter.insert(k) == InsertResult::kInserted;
                }).inserted;
  return f;
}

const FilledFilter& filled_filter(unsigned bits, std::uint64_t items) {
  return filter_cache().get(items, bits, [&] { return build_filter(bits, items); });
}

void filter_insert(benchmark::State& state, unsigned bits, std::uint64_t items) {
  filter_cache().drop(items, bits);
  auto filled = std::make_unique<FilledFilter>(FilledFilter{CuckooFilter(filter_config(bits, items)), 0});
  CuckooFilter& filter = filled->filter;
  std::vector<std::uint64_t> samples;
  samples.reserve(static_cast<std::size_t>(items / kSampleEvery + 1) * static_cast<std::size_t>(fills_for(items)));
  double seconds = 0.0;
  std::uint64_t inserted = 0;
  std::uint64_t kicks = 0;
  for (auto _ : state) {
    filter.clear();
    const FillTiming t = timed_fill(items, samples, [&](std::uint64_t k) {
      return filter.insert(k) == InsertResult::kInserted;
    });
    state.SetIterationTime(t.seconds);
    seconds += t.seconds;
    inserted += t.inserted;
    kicks += filter.stats().kicks;
    filled->inserted = t.inserted;
  }
  report_fill(state, seconds, inserted, samples);
  state.counters["load"] = filter.load_factor();
  // Measured from what the filter allocated (table data, padding and the object), not
  // from bits_per_item(), which is f / load by definition.
  state.counters["bits_per_item"] =
      static_cast<double>(filter.memory_bytes()) * 8.0 /
      static_cast<double>(std::max<std::uint64_t>(filter.size(), 1));
  state.counters["fingerprint_bits"] = bits % kSemiKey;
  state.counters["kicks_per_insert"] = static_cast<double>(kicks) / static_cast<double>(std::max<std::uint64_t>(inserted, 1));
  state.counters["stash"] = filter.stash_size();
  state.counters["reached_target"] = filled->inserted == items ? 1 : 0;
  filter_cache().put(items, bits, std::move(filled));
}

void filter_lookup(benchmark::State& state, unsigned bits, std::uint64_t items, QueryKind kind) {
  const FilledFilter& f = filled_filter(bits, items);
  const std::vector<std::uint64_t>& keys = pick(queries_for(items, f.inserted), kind);
  const std::uint64_t hits =
      lookup_loop(state, keys, [&](std::uint64_t k) { return f.filter.contains(k); });
  report_hits(state, kind, hits, keys.size());
  state.counters["bits_per_item"] = static_cast<double>(f.filter.memory_bytes()) * 8.0 /
                                    static_cast<double>(std::max<std::uint64_t>(f.filter.size(), 1));
}

// The fixed-shape experiment (fixed_shape.hpp), timed: the default shape's lookup with f
// and b as constants over a copy of the filled filter's table (huge pages, as the
// filter's), in the same loop as filter_lookup. form 0: the engine's hash and placement
// (positive queries must all hit, negative ones give the filter's false-positive rate);
// 1: one mix round (only timed: its answers are not the filter's). The power-of-two
// form is counted by bench_instructions only (these tables are not a power of two).
// Context for docs/performance.md's account of the one-key targets, no target.
void filter_fixed_lookup(benchmark::State& state, std::uint64_t items, QueryKind kind, int form) {
  const FilledFilter& f = filled_filter(12, items);
  const cuckoo::bench::FixedShapeTable fixed(f.filter, /*huge_pages=*/true);
  if (f.filter.stash_size() != 0) {
    state.SkipWithError("the fixed-shape copy has no stash; the filter's is not empty");
    return;
  }
  const std::vector<std::uint64_t>& keys = pick(queries_for(items, f.inserted), kind);
  const std::uint64_t seed = f.filter.seed();
  std::uint64_t hits = 0;
  if (form == 0) {
    hits = lookup_loop(state, keys,
                       [&](std::uint64_t k) { return fixed.contains_hash(f.filter.hash_of(k)); });
    report_hits(state, kind, hits, keys.size());
  } else {
    hits = lookup_loop(state, keys, [&](std::uint64_t k) {
      return fixed.contains_hash(cuckoo::bench::one_mix(k, seed));
    });
  }
  benchmark::DoNotOptimize(hits);
}

template <class Filter>
void batched_lookup(benchmark::State& state, const Filter& filter,
                    const std::vector<std::uint64_t>& keys, QueryKind kind) {
  if constexpr (HasContainsMany<Filter>) {
    std::unique_ptr<bool[]> results(new bool[kBatchKeys]);
    std::uint64_t hits = 0;
    for (auto _ : state) {
      hits = 0;
      for (std::size_t at = 0; at < keys.size(); at += kBatchKeys) {  // bound: keys.size()
        const std::size_t count = std::min(kBatchKeys, keys.size() - at);
        filter.contains_many(std::span<const std::uint64_t>(keys.data() + at, count),
                             std::span<bool>(results.get(), count));
        for (std::size_t j = 0; j < count; ++j) hits += results[j] ? 1 : 0;
      }
      benchmark::DoNotOptimize(hits);
    }
    state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(keys.size()));
    report_hits(state, kind, hits, keys.size());
    state.counters["batch"] = static_cast<double>(kBatchKeys);
  } else {
    state.SkipWithError("CuckooFilter has no contains_many");
  }
}

void filter_batched(benchmark::State& state, unsigned bits, std::uint64_t items, QueryKind kind) {
  const FilledFilter& f = filled_filter(bits, items);
  batched_lookup(state, f.filter, pick(queries_for(items, f.inserted), kind), kind);
}

// ---- The memory floor.

enum class FloorKind { kChase1, kChase8, kChase16, kTwoLines, kTwoLinesPrefetched };

struct FloorRegion {
  FloorRegion(std::size_t bytes, bool huge) : region(bytes, huge) {}
  Region region;
};

StructureCache<FloorRegion>& floor_cache() {
  static StructureCache<FloorRegion> cache;
  return cache;
}

std::uint64_t* line_word(const Region& r, std::size_t line) {
  return reinterpret_cast<std::uint64_t*>(r.data() + line * kLineBytes);
}

// Writes into each line's first word the index of the next line of one random cycle
// through every line (Sattolo's algorithm), so a chase touches every line once per lap.
void link_random_cycle(const Region& r) {
  const std::size_t lines = r.lines();
  std::vector<std::uint32_t> next(lines);
  std::iota(next.begin(), next.end(), 0U);
  SplitMix rng(bench_seed() ^ 0x5a77010ULL);
  for (std::size_t i = lines - 1; i > 0; --i) {  // bound: lines
    std::swap(next[i], next[static_cast<std::size_t>(rng.below(i))]);
  }
  for (std::size_t i = 0; i < lines; ++i) *line_word(r, i) = next[i];
}

const Region& floor_region(unsigned bits, std::uint64_t items, bool huge) {
  // One region at a time: the variant key changes with (bits, huge).
  const unsigned variant = bits * 2 + (huge ? 1 : 0);
  if (!floor_cache().has(items, variant)) {
    for (const unsigned b : kFingerprintBits) {
      floor_cache().drop(items, b * 2);
      floor_cache().drop(items, b * 2 + 1);
    }
  }
  return floor_cache()
      .get(items, variant,
           [&] {
             auto f = std::make_unique<FloorRegion>(filter_table_bytes(bits, items), huge);
             link_random_cycle(f->region);
             return f;
           })
      .region;
}

template <std::size_t kChains>
void chase(benchmark::State& state, const Region& r) {
  std::array<std::uint64_t, kChains> at{};
  SplitMix rng(bench_seed() + kChains);
  for (auto& p : at) p = rng.below(r.lines());
  const std::byte* base = r.data();
  constexpr std::uint64_t kSteps = kFloorLoadsPerIteration / kChains;
  for (auto _ : state) {
    for (std::uint64_t s = 0; s < kSteps; ++s) {
      for (std::size_t c = 0; c < kChains; ++c) {
        std::uint64_t next;
        std::memcpy(&next, base + at[c] * kLineBytes, sizeof next);
        at[c] = next;
      }
    }
    benchmark::DoNotOptimize(at);
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(kSteps * kChains));
}

// Per op: hash a counter, read one word of each of two lines picked by the hash (as a
// filter lookup derives two buckets), combine. Ops are independent, so the core overlaps
// as many as its out-of-order window holds: the floor a two-bucket lookup can approach.
void two_lines(benchmark::State& state, const Region& r) {
  const std::byte* base = r.data();
  const auto lines = static_cast<std::uint32_t>(r.lines());
  std::uint64_t counter = bench_key_offset();
  std::uint64_t acc = 0;
  for (auto _ : state) {
    for (std::uint64_t i = 0; i < kFloorLoadsPerIteration; ++i) {
      const std::uint64_t h = detail::mix64(counter++);
      const std::uint32_t a = detail::reduce32(static_cast<std::uint32_t>(h >> 32), lines);
      const std::uint32_t b = detail::reduce32(static_cast<std::uint32_t>(h), lines);
      std::uint64_t wa;
      std::uint64_t wb;
      std::memcpy(&wa, base + std::size_t{a} * kLineBytes, sizeof wa);
      std::memcpy(&wb, base + std::size_t{b} * kLineBytes, sizeof wb);
      acc += (wa ^ wb) & 1;
    }
    benchmark::DoNotOptimize(acc);
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(kFloorLoadsPerIteration));
}

// two_lines with the loads issued as prefetches a group ahead, as contains_many() does:
// per group of kPrefetchGroup ops, hash each op's counter and prefetch its two lines,
// then read one word of each and combine. The floor a batched two-bucket lookup can
// approach.
constexpr std::size_t kPrefetchGroup = 24;  // CuckooFilter::kBatchGroup
void two_lines_prefetched(benchmark::State& state, const Region& r) {
  const std::byte* base = r.data();
  const auto lines = static_cast<std::uint32_t>(r.lines());
  std::uint64_t counter = bench_key_offset();
  std::uint64_t acc = 0;
  std::array<std::uint32_t, 2 * kPrefetchGroup> at{};
  for (auto _ : state) {
    for (std::uint64_t i = 0; i < kFloorLoadsPerIteration; i += kPrefetchGroup) {
      const auto count =
          static_cast<std::size_t>(std::min<std::uint64_t>(kPrefetchGroup, kFloorLoadsPerIteration - i));
      for (std::size_t k = 0; k < count; ++k) {
        const std::uint64_t h = detail::mix64(counter++);
        at[2 * k] = detail::reduce32(static_cast<std::uint32_t>(h >> 32), lines);
        at[2 * k + 1] = detail::reduce32(static_cast<std::uint32_t>(h), lines);
        __builtin_prefetch(base + std::size_t{at[2 * k]} * kLineBytes);
        __builtin_prefetch(base + std::size_t{at[2 * k + 1]} * kLineBytes);
      }
      for (std::size_t k = 0; k < count; ++k) {
        std::uint64_t wa;
        std::uint64_t wb;
        std::memcpy(&wa, base + std::size_t{at[2 * k]} * kLineBytes, sizeof wa);
        std::memcpy(&wb, base + std::size_t{at[2 * k + 1]} * kLineBytes, sizeof wb);
        acc += (wa ^ wb) & 1;
      }
    }
    benchmark::DoNotOptimize(acc);
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(kFloorLoadsPerIteration));
}

void memory_floor(benchmark::State& state, unsigned bits, std::uint64_t items, bool huge,
                  FloorKind kind) {
  const Region& r = floor_region(bits, items, huge);
  state.counters["region_mib"] = static_cast<double>(r.bytes()) / (1 << 20);
  state.counters["madvise_ok"] = r.advised() ? 1 : 0;
  switch (kind) {
    case FloorKind::kChase1: chase<1>(state, r); break;
    case FloorKind::kChase8: chase<8>(state, r); break;
    case FloorKind::kChase16: chase<16>(state, r); break;
    case FloorKind::kTwoLines: two_lines(state, r); break;
    case FloorKind::kTwoLinesPrefetched: two_lines_prefetched(state, r); break;
  }
}

// ---- Baseline: BloomFilter with the filter's bits.

struct FilledBloom {
  BloomFilter bloom;
};

StructureCache<FilledBloom>& bloom_cache() {
  static StructureCache<FilledBloom> cache;
  return cache;
}

BloomFilterConfig bloom_config(unsigned bits, std::uint64_t items) {
  BloomFilterConfig c;
  c.bits = filter_table_bits(bits, items);
  c.hashes = optimal_k(c.bits, items);
  c.seed = bench_seed();
  return c;
}

std::unique_ptr<FilledBloom> build_bloom(unsigned bits, std::uint64_t items) {
  auto b = std::make_unique<FilledBloom>(FilledBloom{BloomFilter(bloom_config(bits, items))});
  for (std::uint64_t i = 0; i < items; ++i) b->bloom.insert(key_at(kInsertedStream, i));
  return b;
}

void bloom_insert(benchmark::State& state, unsigned bits, std::uint64_t items) {
  bloom_cache().drop(items, bits);
  auto filled = std::make_unique<FilledBloom>(FilledBloom{BloomFilter(bloom_config(bits, items))});
  std::vector<std::uint64_t> samples;
  double seconds = 0.0;
  std::uint64_t inserted = 0;
  for (auto _ : state) {
    filled->bloom.clear();
    const FillTiming t = timed_fill(items, samples, [&](std::uint64_t k) {
      filled->bloom.insert(k);
      return true;
    });
    state.SetIterationTime(t.seconds);
    seconds += t.seconds;
    inserted += t.inserted;
  }
  report_fill(state, seconds, inserted, samples);
  state.counters["bits_per_item"] = filled->bloom.bits_per_item();
  state.counters["hashes"] = filled->bloom.hash_count();
  bloom_cache().put(items, bits, std::move(filled));
}

void bloom_lookup(benchmark::State& state, unsigned bits, std::uint64_t items, QueryKind kind) {
  const BloomFilter& bloom =
      bloom_cache().get(items, bits, [&] { return build_bloom(bits, items); }).bloom;
  const std::vector<std::uint64_t>& keys = pick(queries_for(items, items), kind);
  const std::uint64_t hits = lookup_loop(state, keys, [&](std::uint64_t k) { return bloom.contains(k); });
  report_hits(state, kind, hits, keys.size());
  state.counters["bits_per_item"] = bloom.bits_per_item();
}

// ---- Baseline: std::unordered_set, reserved.

using UnorderedSet = std::unordered_set<std::uint64_t>;

StructureCache<UnorderedSet>& set_cache() {
  static StructureCache<UnorderedSet> cache;
  return cache;
}

void set_insert(benchmark::State& state, std::uint64_t items) {
  set_cache().drop(items, 0);
  std::vector<std::uint64_t> samples;
  double seconds = 0.0;
  std::uint64_t inserted = 0;
  auto set = std::make_unique<UnorderedSet>();
  for (auto _ : state) {
    set = std::make_unique<UnorderedSet>();  // the old one is freed outside the timed fill
    set->reserve(items);
    const FillTiming t = timed_fill(items, samples, [&](std::uint64_t k) {
      set->insert(k);
      return true;
    });
    state.SetIterationTime(t.seconds);
    seconds += t.seconds;
    inserted += t.inserted;
  }
  report_fill(state, seconds, inserted, samples);
  set_cache().put(items, 0, std::move(set));
}

void set_lookup(benchmark::State& state, std::uint64_t items, QueryKind kind) {
  const UnorderedSet& set = set_cache().get(items, 0, [&] {
    auto s = std::make_unique<UnorderedSet>();
    s->reserve(items);
    for (std::uint64_t i = 0; i < items; ++i) s->insert(key_at(kInsertedStream, i));
    return s;
  });
  const std::vector<std::uint64_t>& keys = pick(queries_for(items, items), kind);
  const std::uint64_t hits = lookup_loop(state, keys, [&](std::uint64_t k) { return set.contains(k); });
  report_hits(state, kind, hits, keys.size());
}

// ---- Registration.

// Joins parts with '/' (appending, which also keeps GCC 12's -Wrestrict false positive on
// std::string operator+ away).
std::string bench_name(std::initializer_list<std::string_view> parts) {
  std::string name;
  for (const std::string_view p : parts) {
    if (!name.empty()) name += '/';
    name.append(p);
  }
  return name;
}

void register_size(std::uint64_t n) {
  const std::string size = size_label(n);
  const int fills = fills_for(n);
  for (const unsigned bits : kFingerprintBits) {
    const std::string f = std::string("f").append(std::to_string(bits));
    benchmark::RegisterBenchmark(bench_name({"filter", "insert", f, size}).c_str(),
                                 [=](benchmark::State& s) { filter_insert(s, bits, n); })
        ->Iterations(fills)
        ->UseManualTime()
        ->Unit(benchmark::kMillisecond);
    for (const QueryKind kind : {QueryKind::kPositive, QueryKind::kNegative, QueryKind::kMixed}) {
      const std::string op = std::string("lookup_").append(kind_name(kind));
      benchmark::RegisterBenchmark(bench_name({"filter", op, f, size}).c_str(),
                                   [=](benchmark::State& s) { filter_lookup(s, bits, n, kind); })
          ->Unit(benchmark::kMillisecond);
    }
    if constexpr (kFilterHasSemiSorted) {
      // Semi-sorted buckets, same f: the space/time trade (target: lookups within 1.5x).
      const unsigned key = bits + kSemiKey;
      benchmark::RegisterBenchmark(bench_name({"filter_semi", "insert", f, size}).c_str(),
                                   [=](benchmark::State& s) { filter_insert(s, key, n); })
          ->Iterations(fills)
          ->UseManualTime()
          ->Unit(benchmark::kMillisecond);
      for (const QueryKind kind : {QueryKind::kPositive, QueryKind::kNegative}) {
        const std::string op = std::string("lookup_").append(kind_name(kind));
        benchmark::RegisterBenchmark(bench_name({"filter_semi", op, f, size}).c_str(),
                                     [=](benchmark::State& s) { filter_lookup(s, key, n, kind); })
            ->Unit(benchmark::kMillisecond);
      }
    }
    if (bits == 12) {
      // The fixed-shape experiment (fixed_shape.hpp): context, no target.
      const std::pair<int, const char*> forms[] = {{0, "filter_fixed"},
                                                   {1, "filter_fixed_one_mix"}};
      for (const auto& [form, name] : forms) {
        for (const QueryKind kind : {QueryKind::kPositive, QueryKind::kNegative}) {
          if (form != 0 && kind == QueryKind::kPositive) continue;  // answers not the filter's
          const std::string op = std::string("lookup_").append(kind_name(kind));
          benchmark::RegisterBenchmark(
              bench_name({name, op, f, size}).c_str(),
              [=](benchmark::State& s) { filter_fixed_lookup(s, n, kind, form); })
              ->Unit(benchmark::kMillisecond);
        }
      }
    }
    if constexpr (kFilterHasContainsMany) {
      for (const QueryKind kind : {QueryKind::kPositive, QueryKind::kNegative}) {
        const std::string op = std::string("batched_").append(kind_name(kind));
        benchmark::RegisterBenchmark(bench_name({"filter", op, f, size}).c_str(),
                                     [=](benchmark::State& s) { filter_batched(s, bits, n, kind); })
            ->Unit(benchmark::kMillisecond);
      }
    }
    for (const bool huge : {true, false}) {
      const std::pair<FloorKind, const char*> kinds[] = {{FloorKind::kChase1, "chase1"},
                                                          {FloorKind::kChase8, "chase8"},
                                                          {FloorKind::kChase16, "chase16"},
                                                          {FloorKind::kTwoLines, "two_lines"},
                                                          {FloorKind::kTwoLinesPrefetched,
                                                           "two_lines_prefetched"}};
      for (const auto& [kind, name] : kinds) {
        benchmark::RegisterBenchmark(
            bench_name({"floor", name, huge ? "huge" : "4k", f, size}).c_str(),
            [=](benchmark::State& s) { memory_floor(s, bits, n, huge, kind); })
            ->Unit(benchmark::kMillisecond);
      }
    }
    benchmark::RegisterBenchmark(bench_name({"bloom", "insert", f, size}).c_str(),
                                 [=](benchmark::State& s) { bloom_insert(s, bits, n); })
        ->Iterations(fills)
        ->UseManualTime()
        ->Unit(benchmark::kMillisecond);
    for (const QueryKind kind : {QueryKind::kPositive, QueryKind::kNegative}) {
      const std::string op = std::string("lookup_").append(kind_name(kind));
      benchmark::RegisterBenchmark(bench_name({"bloom", op, f, size}).c_str(),
                                   [=](benchmark::State& s) { bloom_lookup(s, bits, n, kind); })
          ->Unit(benchmark::kMillisecond);
    }
  }
  if (n <= kUnorderedSetMaxItems) {
    benchmark::RegisterBenchmark(bench_name({"unordered_set", "insert", size}).c_str(),
                                 [=](benchmark::State& s) { set_insert(s, n); })
        ->Iterations(fills)
        ->UseManualTime()
        ->Unit(benchmark::kMillisecond);
    for (const QueryKind kind : {QueryKind::kPositive, QueryKind::kNegative}) {
      const std::string op = std::string("lookup_").append(kind_name(kind));
      benchmark::RegisterBenchmark(bench_name({"unordered_set", op, size}).c_str(),
                                   [=](benchmark::State& s) { set_lookup(s, n, kind); })
          ->Unit(benchmark::kMillisecond);
    }
  }
}

// The shape the reference code's figures were measured at (f = 12, b = 4, 2^22 buckets
// filled to 95 %: 0.95 x 2^24 keys, for which slots_for() gives exactly 2^24 slots): one-key
// lookups and their scalar floor, for bench/report.py's comparison with those figures.
// CUCKOO_BENCH_PEER_SHAPE=off leaves it out.
constexpr std::uint64_t kPeerShapeItems = 15'938'355;  // floor(0.95 * 2^24)

void register_peer_shape() {
  for (const QueryKind kind : {QueryKind::kNegative, QueryKind::kPositive}) {
    const std::string op = std::string("lookup_").append(kind_name(kind));
    benchmark::RegisterBenchmark(
        bench_name({"peer_shape", op, "f12", "2^22buckets"}).c_str(),
        [=](benchmark::State& s) { filter_lookup(s, 12, kPeerShapeItems, kind); })
        ->Unit(benchmark::kMillisecond);
  }
  benchmark::RegisterBenchmark(
      "peer_shape/floor_two_lines/f12/2^22buckets",
      [](benchmark::State& s) { memory_floor(s, 12, kPeerShapeItems, true, FloorKind::kTwoLines); })
      ->Unit(benchmark::kMillisecond);
}

}  // namespace
}  // namespace cuckoo::bench

int main(int argc, char** argv) {
  using namespace cuckoo::bench;
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  std::string sizes;
  for (const std::uint64_t n : env_sizes("CUCKOO_BENCH_SIZES", "1M,10M,100M")) {
    if (!sizes.empty()) sizes += ',';
    sizes.append(size_label(n));
    register_size(n);
  }
  const char* peer_shape = std::getenv("CUCKOO_BENCH_PEER_SHAPE");
  const bool with_peer_shape = peer_shape == nullptr || std::string_view(peer_shape) != "off";
  if (with_peer_shape) register_peer_shape();
  benchmark::AddCustomContext("peer_shape", with_peer_shape ? "2^22 buckets, 95 % load" : "off");
  benchmark::AddCustomContext("sizes", sizes);
  benchmark::AddCustomContext("seed", std::to_string(bench_seed()));
  benchmark::AddCustomContext("transparent_hugepage", transparent_hugepage_mode());
  benchmark::AddCustomContext("filter_huge_pages_option", kFilterHasHugePages ? "yes (set)" : "no");
  benchmark::AddCustomContext("filter_contains_many", kFilterHasContainsMany ? "yes" : "no");
  benchmark::AddCustomContext("ns_per_tick", std::to_string(ns_per_tick()));
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
