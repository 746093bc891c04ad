// Concurrent designs against the single-threaded engine doing the same operations
// (the striped and coarse designs, and the lock-free filter), and the striped map
// against libcuckoo, in two workloads:
//
//   hot keys (names rR-wW):
//   concurrent/filter/{single,coarse,striped,lockfree}/rR-wW/threads:T
//   concurrent/filter/{single,striped,lockfree}/rR-wW/L/threads:T        (large size L)
//   concurrent/map/{single,coarse,striped,libcuckoo}/rR-wW/threads:T
//   random updates (names rR-wW-random; 90/10 and 50/50):
//   concurrent/filter/{single,striped,lockfree}/rR-wW-random[/L]/threads:T
//   concurrent/filter/{striped_f8,lockfree_f8}/rR-wW-random[/L]/threads:T   (f = 8)
//   concurrent/map/{single,striped,libcuckoo}/rR-wW-random[/L]/threads:T
//   negative lookups:
//   concurrent/filter_negative/{single,single_same_bytes,striped,lockfree}[/L]/threads:T
// A filter of 2N slots (f = 12, b = 4; f = 8 for the *_f8 designs) or a map reserved for 2N items is prefilled with N
// keys (N = CUCKOO_BENCH_CONCURRENT_ITEMS, default 2M), so the load is about 50%; both
// workloads of a size share the structure. Some designs run again at a large N
// (CUCKOO_BENCH_CONCURRENT_LARGE_ITEMS, default 10M, 0 or "off" for none), whose names
// carry its label L ("10M"): the filters single, striped and lockfree (LockFreeFilter)
// in both workloads and the maps single, striped and libcuckoo in random updates, at the
// mixes 90/10 and 50/50; lockfree runs only those two mixes at the default N too. Each
// thread replays its own precomputed stream, and every pass over it leaves the structure
// as it found it.
// - Hot keys: reads (R percent) look up random prefilled keys; writes (W percent) insert
//   a fresh key of the thread's own stream and erase it a few ops later, so the keys
//   written are a handful that stay in cache: the writes measure the synchronization
//   more than the memory.
// - Random updates (the usual workload of concurrent hash table benchmarks): reads look up
//   random keys present at that point (all hits); writes are half inserts of random
//   absent keys and half erases of random present keys, so the structure stays near N
//   items and every write goes to a random bucket (most often a cache miss, as the
//   reads). Each thread owns a disjoint slice of the key set (prefilled and absent keys
//   of index i with i % 2 == t) and its stream follows its own model of which of them
//   are present, so it is valid whatever the other threads do. A pass is 1M ops: the
//   first half erases prefilled keys and inserts absent ones, the second half undoes
//   those writes in a new random order, at the same mix (exact: W % of each half).
// Every op expects the answer yes (found, inserted, erased); a run in which any op
// answered otherwise ends as an error instead of a figure. "single" is CuckooFilter /
// CuckooMap running thread 0's stream alone. Throughput is ops per second
// of wall time over all threads (UseRealTime); bench/report.py divides each design's
// figure by "single" at the same mix, and the striped map's by libcuckoo's
// cuckoohash_map (the peer it replaces) at the same mix, workload, size and thread count.
// filter_negative: each thread looks up 64K keys never inserted, one at a time, in the
// same prefilled filter as the mixes (same size, same load); its counters give the load,
// the false positive rate and the filter's memory_bytes() (and, for the lock-free
// filter, the bytes its bucket versions take), which report.py compares with
// CuckooFilter's. single_same_bytes is CuckooFilter given the lock-free filter's table
// bytes (4/3 of the slots, same items): the cost of the larger table alone.
//
// This file builds two programs, one per family: bench_concurrent_filter and, with
// CUCKOO_BENCH_CONCURRENT_MAP=1, bench_concurrent_map.
#ifndef CUCKOO_BENCH_CONCURRENT_MAP
#define CUCKOO_BENCH_CONCURRENT_MAP 0
#endif
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <initializer_list>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include <benchmark/benchmark.h>

#include "cuckoo/sync/htm.hpp"

#include "bench_common.hpp"
#if CUCKOO_BENCH_CONCURRENT_MAP
#include <libcuckoo/cuckoohash_map.hh>

#include "cuckoo/concurrent_map.hpp"
#include "cuckoo/cuckoo_map.hpp"
#else
#include "cuckoo/concurrent_filter.hpp"
#include "cuckoo/cuckoo_filter.hpp"
#include "cuckoo/lock_free_filter.hpp"
#endif
#include "structure_cache.hpp"
#include "workload.hpp"

namespace cuckoo::bench {
namespace {

constexpr std::size_t kOpsPerPass = std::size_t{1} << 16;
constexpr int kMaxThreads = 2;

struct Mix {
  unsigned read_pct;
  const char* name;
};
constexpr Mix kMixes[] = {{90, "r90-w10"}, {50, "r50-w50"}, {10, "r10-w90"}};

std::uint64_t prefill_items() { return env_count("CUCKOO_BENCH_CONCURRENT_ITEMS", 2'000'000); }

// The large size: CUCKOO_BENCH_CONCURRENT_LARGE_ITEMS [10M]; "0" or "off": none.
std::uint64_t large_items() {
  const char* value = std::getenv("CUCKOO_BENCH_CONCURRENT_LARGE_ITEMS");
  if (value == nullptr || *value == '\0') return 10'000'000;
  if (std::string_view(value) == "off") return 0;
  return parse_count(value);
}

// The structure sizes: index 0 is prefill_items() (names without a size), index 1 the
// large size (names carry its label), if any and different. The filters run the large
// size in both workloads, the maps in kRandom only.
constexpr std::size_t kMaxSizes = 2;

std::size_t size_count() {
  const std::uint64_t large = large_items();
  return large != 0 && large != prefill_items() ? 2 : 1;
}

std::uint64_t items_of(std::size_t size_index) {
  return size_index == 0 ? prefill_items() : large_items();
}

// The two workloads of the mixes.
//   kHotKeys (names rR-wW): reads look up random prefilled keys; writes insert a fresh
//     key and erase it a few ops later, so the keys written are few and stay in cache.
//   kRandom (names rR-wW-random): reads look up random keys present at that point of
//     the stream; writes are half inserts of random absent keys and half erases of
//     random present keys, so the structure stays near N items and the keys written are
//     random (as likely out of cache as the reads').
enum class Workload : std::uint8_t { kHotKeys, kRandom };
constexpr std::size_t kWorkloads = 2;

// Thread t's kHotKeys stream for a mix: reads of prefilled keys (of `items`); writes in
// pairs, insert of a fresh key of stream 2 + t, then (a few ops later) its erase. An even
// number of writes.
std::vector<Op> thread_stream(const Mix& mix, int thread, std::uint64_t items) {
  SplitMix rng(bench_seed() * 0x9e37 + static_cast<std::uint64_t>(thread) * 131 + mix.read_pct);
  std::vector<Op> ops;
  ops.reserve(kOpsPerPass);
  std::vector<std::uint64_t> pending;  // inserted, not yet erased
  std::uint64_t fresh = 0;
  const auto own_stream = 2 + static_cast<std::uint64_t>(thread);
  while (ops.size() < kOpsPerPass) {  // bound: kOpsPerPass
    const bool read = rng.below(100) < mix.read_pct;
    if (read) {
      ops.push_back({OpKind::kLookup, key_at(kInsertedStream, rng.below(items))});
    } else if (pending.size() < 8 && (pending.empty() || (rng.next() & 1))) {
      pending.push_back(key_at(own_stream, fresh++));
      ops.push_back({OpKind::kInsert, pending.back()});
    } else {
      ops.push_back({OpKind::kErase, pending.front()});
      pending.erase(pending.begin());
    }
  }
  for (const std::uint64_t k : pending) ops.push_back({OpKind::kErase, k});
  return ops;
}

// The kRandom workload. The key set is the N prefilled keys (key_at(kInsertedStream,
// i), i < N) and as many absent ones (key_at(kRandomAbsentStream, i), i < N); thread t
// owns the keys of both with i % kMaxThreads == t, whatever the number of threads that
// run, so no thread ever writes or reads another's keys and each thread's stream is valid
// whatever the others do. A pass is 1M ops (fewer when a thread's slice is small), so
// the keys a pass touches are spread over the whole table.
constexpr std::uint64_t kRandomAbsentStream = 64;  // clear of 0, 1, 2 + t and 97 + t
constexpr std::size_t kRandomOpsPerPass = std::size_t{1} << 20;

// A Fisher-Yates shuffle driven by the stream's generator.
template <class T>
void shuffle(std::vector<T>& v, SplitMix& rng) {
  for (std::size_t i = v.size(); i > 1; --i) {  // bound: v.size()
    std::swap(v[i - 1], v[rng.below(i)]);
  }
}

// Thread t's kRandom stream. Each half of the pass has exactly the mix's share of
// writes, at random positions: the first half erases random prefilled keys of the slice
// and inserts random absent ones (each key written at most once), the second half
// re-inserts the keys the first half erased and erases the ones it inserted, in a new
// random order; so the pass leaves the structure as it found it and the mix is exact in
// each half (W % of the ops, half of them inserts). Every read looks up a key of the
// slice that is present at that point (drawn uniformly from the prefilled keys not
// erased and the keys inserted so far): 100 % hits, as in kHotKeys. Every op's expected
// answer is "yes": found, inserted, erased.
std::vector<Op> random_stream(const Mix& mix, int thread, std::uint64_t items) {
  SplitMix rng(bench_seed() * 0x2545f491 + static_cast<std::uint64_t>(thread) * 131 +
               mix.read_pct);
  // present[0, live): prefilled keys not erased in this pass; present[live, end): the
  // ones erased. absent[0, avail): absent keys not inserted; absent[avail, end): inserted.
  std::vector<std::uint64_t> present;
  std::vector<std::uint64_t> absent;
  for (std::uint64_t i = static_cast<std::uint64_t>(thread); i < items; i += kMaxThreads) {
    present.push_back(key_at(kInsertedStream, i));
    absent.push_back(key_at(kRandomAbsentStream, i));
  }
  std::size_t live = present.size();
  std::size_t avail = absent.size();
  // A half writes at most half of its ops' W % <= 90 % of each kind: at most
  // 0.45 * half keys, so half <= 2 * slice leaves keys to spare.
  const std::size_t half = std::min(kRandomOpsPerPass / 2, 2 * present.size());
  const std::size_t writes_per_kind = half * (100 - mix.read_pct) / 200;
  const auto read = [&] {
    const std::size_t r = rng.below(live + (absent.size() - avail));
    return r < live ? present[r] : absent[avail + (r - live)];
  };
  std::vector<OpKind> pattern(half, OpKind::kLookup);
  std::fill_n(pattern.begin(), writes_per_kind, OpKind::kInsert);
  std::fill_n(pattern.begin() + static_cast<std::ptrdiff_t>(writes_per_kind), writes_per_kind,
              OpKind::kErase);
  std::vector<Op> ops;
  ops.reserve(2 * half);
  shuffle(pattern, rng);
  for (const OpKind kind : pattern) {  // the first half
    if (kind == OpKind::kInsert) {  // a random absent key, not inserted yet
      std::swap(absent[rng.below(avail)], absent[avail - 1]);
      ops.push_back({kind, absent[--avail]});
    } else if (kind == OpKind::kErase) {  // a random prefilled key, not erased yet
      std::swap(present[rng.below(live)], present[live - 1]);
      ops.push_back({kind, present[--live]});
    } else {
      ops.push_back({kind, read()});
    }
  }
  shuffle(pattern, rng);
  for (const OpKind kind : pattern) {  // the second half: the inverse writes
    if (kind == OpKind::kInsert) {  // re-insert a random key the first half erased
      std::swap(present[live + rng.below(present.size() - live)], present[live]);
      ops.push_back({kind, present[live++]});
    } else if (kind == OpKind::kErase) {  // erase a random key the first half inserted
      std::swap(absent[avail + rng.below(absent.size() - avail)], absent[avail]);
      ops.push_back({kind, absent[avail++]});
    } else {
      ops.push_back({kind, read()});
    }
  }
  return ops;
}

const std::vector<Op>& stream_for(Workload workload, std::size_t mix_index, int thread,
                                  std::size_t size_index) {
  static std::mutex mutex;
  static std::vector<std::unique_ptr<std::vector<Op>>> streams(
      kWorkloads * kMaxSizes * std::size(kMixes) * kMaxThreads);
  const std::lock_guard<std::mutex> lock(mutex);
  auto& slot = streams[((static_cast<std::size_t>(workload) * kMaxSizes + size_index) *
                            std::size(kMixes) +
                        mix_index) *
                           kMaxThreads +
                       static_cast<std::size_t>(thread)];
  if (!slot) {
    const Mix& mix = kMixes[mix_index];
    const std::uint64_t items = items_of(size_index);
    slot = std::make_unique<std::vector<Op>>(workload == Workload::kRandom
                                                 ? random_stream(mix, thread, items)
                                                 : thread_stream(mix, thread, items));
  }
  return *slot;
}

// ---- The structures, behind one small adapter each.

#if !CUCKOO_BENCH_CONCURRENT_MAP
CuckooFilterConfig filter_config(std::uint64_t items) {
  CuckooFilterConfig c;
  c.capacity = 2 * items;
  c.fingerprint_bits = 12;
  c.slots_per_bucket = 4;
  c.seed = bench_seed();
  c.huge_pages = true;  // as bench_filter's filters: every design's table (2 MiB and up)
  return c;
}

#else
CuckooMapConfig map_config(std::uint64_t items) {
  CuckooMapConfig c;
  c.initial_capacity = static_cast<std::size_t>(2 * items);
  c.seed = bench_seed();
  return c;
}

#endif

#if !CUCKOO_BENCH_CONCURRENT_MAP
// A filter design at f = 8 (every other filter here has f = 12): its own type, so that
// prefilled() keeps its structure apart from the f = 12 one. The K-CAS peer's figures
// are for 8-bit tags.
template <class F>
struct Fingerprint8 : F {
  using F::F;
};

template <class F>
constexpr bool kIsFingerprint8 = false;
template <class F>
constexpr bool kIsFingerprint8<Fingerprint8<F>> = true;

// CuckooFilter with 4/3 of the slots: the table bytes of the lock-free filter (64-bit
// buckets against 48-bit ones) holding the same items, at three quarters of the load.
// Its negative lookups against CuckooFilter's show what the larger table alone costs.
struct SameBytesCuckooFilter : CuckooFilter {
  using CuckooFilter::CuckooFilter;
};

template <class F>
std::unique_ptr<F> make_structure(std::uint64_t items) {
  CuckooFilterConfig c = filter_config(items);
  if constexpr (std::is_same_v<F, SameBytesCuckooFilter>) c.capacity = c.capacity * 4 / 3;
  if constexpr (kIsFingerprint8<F>) c.fingerprint_bits = 8;
  auto f = std::make_unique<F>(c);
  for (std::uint64_t i = 0; i < items; ++i) f->insert(key_at(kInsertedStream, i));
  return f;
}

#else
using LibcuckooMap = libcuckoo::cuckoohash_map<std::uint64_t, std::uint64_t>;

template <class M>
std::unique_ptr<M> make_structure(std::uint64_t items) {
  std::unique_ptr<M> m;
  if constexpr (std::is_same_v<M, LibcuckooMap>) {
    m = std::make_unique<M>();
    m->reserve(2 * items);  // sized for 2N items, as map_config() sizes ours
  } else {
    m = std::make_unique<M>(map_config(items));
  }
  for (std::uint64_t i = 0; i < items; ++i) {
    const std::uint64_t k = key_at(kInsertedStream, i);
    m->insert(k, k);
  }
  return m;
}

#endif

#if !CUCKOO_BENCH_CONCURRENT_MAP
template <class F>
std::uint64_t apply_filter(F& f, const Op& op) {
  switch (op.kind) {
    case OpKind::kLookup: return f.contains(op.key) ? 1 : 0;
    case OpKind::kInsert: return f.insert(op.key) == InsertResult::kInserted ? 1 : 0;
    case OpKind::kErase: return f.erase(op.key) ? 1 : 0;
    case OpKind::kUpdate: break;
  }
  return 0;
}

#else
std::uint64_t apply_map(LibcuckooMap& m, const Op& op) {
  switch (op.kind) {
    case OpKind::kLookup: {
      std::uint64_t v = 0;
      return m.find(op.key, v) ? 1 : 0;
    }
    case OpKind::kInsert: return m.insert(op.key, op.key) ? 1 : 0;
    case OpKind::kErase: return m.erase(op.key) ? 1 : 0;
    case OpKind::kUpdate: break;
  }
  return 0;
}

template <class M>
std::uint64_t apply_map(M& m, const Op& op) {
  switch (op.kind) {
    case OpKind::kLookup:
      if constexpr (requires { m.find_value(op.key) != nullptr; }) {  // CuckooMap
        return m.find_value(op.key) != nullptr ? 1 : 0;
      } else if constexpr (requires { m.find(op.key) != nullptr; }) {
        return m.find(op.key) != nullptr ? 1 : 0;
      } else {
        return m.find(op.key).has_value() ? 1 : 0;
      }
    case OpKind::kInsert:
      if constexpr (requires { m.insert_outcome(op.key, op.key); }) {  // CuckooMap
        return m.insert_outcome(op.key, op.key) == InsertResult::kInserted ? 1 : 0;
      } else {
        return m.insert(op.key, op.key) == InsertResult::kInserted ? 1 : 0;
      }
    case OpKind::kErase: return m.erase(op.key) ? 1 : 0;
    case OpKind::kUpdate: break;
  }
  return 0;
}

#endif

// One shared structure per type (and tag), built (untimed) by the first thread that asks.
template <class T, int Tag = 0, class Make>
T& shared(Make&& make) {
  static std::mutex mutex;
  static std::unique_ptr<T> value;
  const std::lock_guard<std::mutex> lock(mutex);
  if (!value) value = make();
  return *value;
}

// The prefilled structure of type T at size index i (make_structure(items_of(i))), one
// per type and size, shared by every benchmark of that type and size (the mixes leave
// it as they found it), built (untimed) by the first thread that asks.
template <class T>
T& prefilled(std::size_t size_index) {
  static std::mutex mutex;
  static std::array<std::unique_ptr<T>, kMaxSizes> values;
  const std::lock_guard<std::mutex> lock(mutex);
  auto& value = values[size_index];
  if (!value) value = make_structure<T>(items_of(size_index));
  return *value;
}

// Every op of both workloads' streams expects the answer 1 (a read finds its present key,
// an insert inserts, an erase erases), whatever the other threads do: the run is an error
// unless every op of every pass answered so. The count costs one add per op, in the
// timed loop, the same for every design.
//
// For the striped map, thread 0 also reports what its statistics counted during the run
// (all threads; every thread's loop starts after thread 0's first snapshot and ends
// before its second, at the benchmark's barriers): locked_reads_per_lookup (lookups whose
// lock-free reads all overlapped a writer, so that they took the stripes) and
// path_inserts_per_insert (inserts that found both buckets full and moved a cuckoo path).
template <class T, class Apply>
void run_mix(benchmark::State& state, Workload workload, std::size_t mix_index,
             std::size_t size_index, Apply&& apply) {
  T& target = prefilled<T>(size_index);
  const std::vector<Op>& ops = stream_for(workload, mix_index, state.thread_index(), size_index);
  constexpr bool kHasStats = requires {  // StripedConcurrentMap's StripedMapStats
    target.stats().locked_reads;
    target.stats().path_inserts;
    target.stats().erases;
  };
  const auto before = [&] {
    if constexpr (kHasStats) return target.stats();
    else return 0;
  }();
  std::uint64_t ok = 0;
  for (auto _ : state) {
    for (const Op& op : ops) ok += apply(target, op);
    benchmark::DoNotOptimize(ok);
  }
  const auto done = static_cast<std::uint64_t>(state.iterations()) * ops.size();
  state.SetItemsProcessed(static_cast<std::int64_t>(done));
  if (ok != done) {
    state.SkipWithError("an op answered wrong: a lookup missed a present key, an insert did "
                        "not insert or an erase did not erase");
  }
  if constexpr (kHasStats) {
    if (state.thread_index() == 0) {
      const auto after = target.stats();
      const std::uint64_t inserts = after.inserts - before.inserts;
      const std::uint64_t erases = after.erases - before.erases;
      // Every thread ran as many passes of a stream as long as thread 0's.
      const std::uint64_t all_ops = done * static_cast<std::uint64_t>(state.threads());
      const std::uint64_t lookups = all_ops - std::min(all_ops, inserts + erases);
      const auto share = [](std::uint64_t part, std::uint64_t whole) {
        return whole == 0 ? 0.0 : static_cast<double>(part) / static_cast<double>(whole);
      };
      state.counters["locked_reads_per_lookup"] =
          share(after.locked_reads - before.locked_reads, lookups);
      state.counters["path_inserts_per_insert"] =
          share(after.path_inserts - before.path_inserts, inserts);
    }
  }
}

// The parts joined by '/', empty parts left out.
std::string bench_name(std::initializer_list<std::string_view> parts) {
  std::string name;
  for (const std::string_view p : parts) {
    if (p.empty()) continue;
    if (!name.empty()) name += '/';
    name.append(p);
  }
  return name;
}

// The mixes a design runs: every one, or 90/10 and 50/50 only.
enum class Mixes : std::uint8_t { kAll, kReadHeavyAndHalf };

// The mix part of a name: "r90-w10" (kHotKeys) or "r90-w10-random" (kRandom).
std::string mix_name(const Mix& mix, Workload workload) {
  return std::string(mix.name) + (workload == Workload::kRandom ? "-random" : "");
}

template <class T, class Apply>
void register_design(std::string_view kind, std::string_view design, bool threaded, Apply apply,
                     std::size_t size_index = 0, Mixes mixes = Mixes::kAll,
                     Workload workload = Workload::kHotKeys) {
  const std::string size = size_index == 0 ? "" : size_label(items_of(size_index));
  for (std::size_t m = 0; m < std::size(kMixes); ++m) {
    if (mixes == Mixes::kReadHeavyAndHalf && kMixes[m].read_pct < 50) continue;
    auto* b = benchmark::RegisterBenchmark(
        bench_name({"concurrent", kind, design, mix_name(kMixes[m], workload), size}).c_str(),
        [=](benchmark::State& s) { run_mix<T>(s, workload, m, size_index, apply); });
    b->UseRealTime()->Unit(benchmark::kMillisecond);
    if (threaded) {
      b->Threads(1)->Threads(kMaxThreads);
    } else {
      b->Threads(1);
    }
  }
}

#if !CUCKOO_BENCH_CONCURRENT_MAP
// Negative lookups near full load with the stash empty or holding items:
// lookups write nothing shared, so a non-empty stash must not make them serialize on the
// stash lock. Both filters hold prefill_items() slots filled to 95 %; max_kicks 500 leaves
// the stash empty, max_kicks 8 fills it on the way (its counter "stash" shows how many
// entries it held). Each thread looks up keys of a stream never inserted.
constexpr std::uint64_t kNegativeStream = 97;

std::unique_ptr<StripedConcurrentFilter> make_stash_filter(bool with_stash) {
  CuckooFilterConfig c;
  c.capacity = prefill_items();
  c.fingerprint_bits = 12;
  c.slots_per_bucket = 4;
  c.max_kicks = with_stash ? 8 : 500;
  c.seed = bench_seed();
  auto f = std::make_unique<StripedConcurrentFilter>(c);
  const auto target = static_cast<std::uint64_t>(0.95 * static_cast<double>(prefill_items()));
  for (std::uint64_t i = 0; f->size() < target && i < 2 * target; ++i) {
    f->insert(key_at(kInsertedStream, i));
  }
  return f;
}

void negative_lookups_at_95(benchmark::State& state, bool with_stash) {
  StripedConcurrentFilter& f =
      with_stash ? shared<StripedConcurrentFilter, 1>([] { return make_stash_filter(true); })
                 : shared<StripedConcurrentFilter, 0>([] { return make_stash_filter(false); });
  std::vector<std::uint64_t> keys(kOpsPerPass);
  for (std::size_t i = 0; i < keys.size(); ++i) {
    keys[i] = key_at(kNegativeStream + static_cast<std::uint64_t>(state.thread_index()), i);
  }
  std::uint64_t hits = 0;
  for (auto _ : state) {
    for (const std::uint64_t k : keys) hits += f.contains(k) ? 1 : 0;
    benchmark::DoNotOptimize(hits);
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(keys.size()));
  // Per-filter figures: averaged over the threads, not summed.
  state.counters["stash"] = benchmark::Counter(f.stash_size(), benchmark::Counter::kAvgThreads);
  state.counters["load"] = benchmark::Counter(
      static_cast<double>(f.size()) /
          static_cast<double>(std::uint64_t{f.bucket_count()} * f.slots_per_bucket()),
      benchmark::Counter::kAvgThreads);
}

// Negative lookups one key at a time in the prefilled filter of the mixes (the
// lock-free filter's double-collect lookup against CuckooFilter's at the same load).
// Each thread looks up its own 64K keys of a stream never inserted. Counters, per filter
// (averaged over the threads): load, fpr (hits / lookups), memory_bytes and, for the
// lock-free filter, version_bytes: the bits of its bucket words that hold the version
// (version_bits() per bucket), which report.py takes out for the memory target.
template <class F>
void negative_lookups(benchmark::State& state, std::size_t size_index) {
  const F& f = prefilled<F>(size_index);
  std::vector<std::uint64_t> keys(kOpsPerPass);
  for (std::size_t i = 0; i < keys.size(); ++i) {
    keys[i] = key_at(kNegativeStream + static_cast<std::uint64_t>(state.thread_index()), i);
  }
  std::uint64_t hits = 0;
  for (auto _ : state) {
    for (const std::uint64_t k : keys) hits += f.contains(k) ? 1 : 0;
    benchmark::DoNotOptimize(hits);
  }
  const auto lookups = state.iterations() * static_cast<std::int64_t>(keys.size());
  state.SetItemsProcessed(lookups);
  const auto slots = static_cast<double>(std::uint64_t{f.bucket_count()} * f.slots_per_bucket());
  state.counters["load"] = benchmark::Counter(static_cast<double>(f.size()) / slots,
                                              benchmark::Counter::kAvgThreads);
  state.counters["fpr"] = benchmark::Counter(
      lookups > 0 ? static_cast<double>(hits) / static_cast<double>(lookups) : 0.0,
      benchmark::Counter::kAvgThreads);
  state.counters["items"] =
      benchmark::Counter(static_cast<double>(f.size()), benchmark::Counter::kAvgThreads);
  state.counters["memory_bytes"] =
      benchmark::Counter(static_cast<double>(f.memory_bytes()), benchmark::Counter::kAvgThreads);
  if constexpr (std::is_same_v<F, LockFreeFilter>) {
    state.counters["version_bytes"] = benchmark::Counter(
        static_cast<double>(std::uint64_t{f.bucket_count()} * f.version_bits()) / 8.0,
        benchmark::Counter::kAvgThreads);
    state.counters["version_bits"] =
        benchmark::Counter(f.version_bits(), benchmark::Counter::kAvgThreads);
  }
}

template <class F>
void register_negative(std::string_view design, bool threaded, std::size_t size_index) {
  const std::string size = size_index == 0 ? "" : size_label(items_of(size_index));
  auto* b = benchmark::RegisterBenchmark(
      bench_name({"concurrent", "filter_negative", design, size}).c_str(),
      [size_index](benchmark::State& s) { negative_lookups<F>(s, size_index); });
  b->UseRealTime()->Unit(benchmark::kMillisecond);
  if (threaded) {
    b->Threads(1)->Threads(kMaxThreads);
  } else {
    b->Threads(1);
  }
}
#endif

void register_all() {
#if !CUCKOO_BENCH_CONCURRENT_MAP
  for (const bool with_stash : {false, true}) {
    benchmark::RegisterBenchmark(
        with_stash ? "concurrent/filter_negative95/striped/stash_nonempty"
                   : "concurrent/filter_negative95/striped/stash_empty",
        [with_stash](benchmark::State& s) { negative_lookups_at_95(s, with_stash); })
        ->UseRealTime()
        ->Unit(benchmark::kMillisecond)
        ->Threads(kMaxThreads);
  }
  const auto filter_op = [](auto& f, const Op& op) { return apply_filter(f, op); };
  register_design<CuckooFilter>("filter", "single", false, filter_op);
  register_design<CoarseConcurrentFilter>("filter", "coarse", true, filter_op);
  register_design<StripedConcurrentFilter>("filter", "striped", true, filter_op);
  register_design<LockFreeFilter>("filter", "lockfree", true, filter_op, 0,
                                  Mixes::kReadHeavyAndHalf);
  for (std::size_t size = 0; size < size_count(); ++size) {
    // The large size's kHotKeys mixes, then both sizes' kRandom mixes: single, striped
    // and lockfree at 90/10 and 50/50.
    for (const Workload w : {Workload::kHotKeys, Workload::kRandom}) {
      if (size == 0 && w == Workload::kHotKeys) continue;  // registered above
      register_design<CuckooFilter>("filter", "single", false, filter_op, size,
                                    Mixes::kReadHeavyAndHalf, w);
      register_design<StripedConcurrentFilter>("filter", "striped", true, filter_op, size,
                                               Mixes::kReadHeavyAndHalf, w);
      register_design<LockFreeFilter>("filter", "lockfree", true, filter_op, size,
                                      Mixes::kReadHeavyAndHalf, w);
    }
    // Random updates at f = 8 too (the K-CAS peer's tag width).
    register_design<Fingerprint8<StripedConcurrentFilter>>("filter", "striped_f8", true,
                                                           filter_op, size,
                                                           Mixes::kReadHeavyAndHalf,
                                                           Workload::kRandom);
    register_design<Fingerprint8<LockFreeFilter>>("filter", "lockfree_f8", true, filter_op,
                                                  size, Mixes::kReadHeavyAndHalf,
                                                  Workload::kRandom);
    register_negative<CuckooFilter>("single", false, size);
    register_negative<SameBytesCuckooFilter>("single_same_bytes", false, size);
    register_negative<LockFreeFilter>("lockfree", true, size);
    register_negative<StripedConcurrentFilter>("striped", true, size);
  }
#else
  const auto map_op = [](auto& m, const Op& op) { return apply_map(m, op); };
  using Map = CuckooMap<std::uint64_t, std::uint64_t>;
  using Coarse = CoarseConcurrentMap<std::uint64_t, std::uint64_t>;
  using Striped = StripedConcurrentMap<std::uint64_t, std::uint64_t>;
  register_design<Map>("map", "single", false, map_op);
  register_design<Coarse>("map", "coarse", true, map_op);
  register_design<Striped>("map", "striped", true, map_op);
  register_design<LibcuckooMap>("map", "libcuckoo", true, map_op);
  // The kRandom workload at both sizes: single, striped and libcuckoo, 90/10 and 50/50.
  for (std::size_t size = 0; size < size_count(); ++size) {
    register_design<Map>("map", "single", false, map_op, size, Mixes::kReadHeavyAndHalf,
                         Workload::kRandom);
    register_design<Striped>("map", "striped", true, map_op, size, Mixes::kReadHeavyAndHalf,
                             Workload::kRandom);
    register_design<LibcuckooMap>("map", "libcuckoo", true, map_op, size,
                                  Mixes::kReadHeavyAndHalf, Workload::kRandom);
  }
#endif
}

}  // namespace
}  // namespace cuckoo::bench

int main(int argc, char** argv) {
  using namespace cuckoo::bench;
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  register_all();
  benchmark::AddCustomContext("seed", std::to_string(bench_seed()));
  benchmark::AddCustomContext("prefill_items", std::to_string(prefill_items()));
  benchmark::AddCustomContext("large_items",
                              size_count() > 1 ? std::to_string(large_items()) : "off");
  // The backend the coarse designs' automatic HTM policy really runs: real RTM only where
  // the CPU has it (CPUID leaf 7), otherwise the MCS fallback lock alone.
  benchmark::AddCustomContext(
      "htm_backend",
      std::string(cuckoo::sync::to_string(
          cuckoo::sync::Htm(cuckoo::sync::HtmPolicy::automatic()).effective_backend())) +
          (cuckoo::sync::hardware_rtm_available() ? " (hardware RTM present)"
                                                  : " (no hardware RTM on this CPU or build)"));
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
