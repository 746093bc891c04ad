// Exact-table benchmarks: CuckooMap, SmartCuckoo and ClassicCuckoo against their peers.
//
//   map/{cuckoo_map,absl_flat_hash_map,libcuckoo,unordered_map}/
//       {insert_presized,insert_growing,find_hit,find_miss,erase}/N
//       CuckooMap<uint64_t, uint64_t> against absl::flat_hash_map, libcuckoo's
//       cuckoohash_map (one thread) and std::unordered_map, each reserved for N items
//       (presized) or grown from empty; erase removes every key of a presized, full map
//       (the fill untimed); N = CUCKOO_BENCH_MAP_ITEMS (default 10M)
//   map/cuckoo_map/{find_many_hit,find_many_miss}/N
//       the same finds through CuckooMap::find_many, one call a pass
//   map/cuckoo_map/insert_presized_load60/N
//       insert_presized into a CuckooMap planned for 60 % load (max_load_percent) and
//       reserved for N, so that it ends at the 60 % load the peers' reserve(N) ends at
//       (CuckooMap's default reserve(N): 90 %)
//   map/cuckoo_map/insert_growing_load60/N
//       insert_growing into a CuckooMap planned for 60 % load, which doubles once it is
//       60 % full instead of 90 % (for N = 10M it ends in the same table as the default)
//   map/cuckoo_map/{find_hit_huge_pages,find_miss_huge_pages}/N
//       find_hit and find_miss in a CuckooMap reserved as the default rows' with
//       CuckooMapConfig::huge_pages (its arrays advised to transparent huge pages; the
//       peers' arrays are not)
//   ycsb/{classic,smart}/I-L-U/C
//       ClassicCuckoo against SmartCuckoo on the YCSB-style mixes of the SmartCuckoo paper
//       (insert/lookup/update percent), Zipf(0.99) lookups and updates, in a table of
//       C = CUCKOO_BENCH_YCSB_CAPACITY one-slot buckets (default 2M) preloaded to load 0.1
//       whose inserts take it to load 0.5 (the read-only mix 0/95/5 runs at load 0.5):
//       throughput and kicks per insert
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#include <absl/container/flat_hash_map.h>
#include <benchmark/benchmark.h>
#include <libcuckoo/cuckoohash_map.hh>

#include "bench_common.hpp"
#include "cuckoo/classic_cuckoo.hpp"
#include "cuckoo/cuckoo_map.hpp"
#include "cuckoo/smart_cuckoo.hpp"
#include "structure_cache.hpp"
#include "workload.hpp"

namespace cuckoo::bench {
namespace {

using Map = CuckooMap<std::uint64_t, std::uint64_t>;
using StdMap = std::unordered_map<std::uint64_t, std::uint64_t>;
using AbslMap = absl::flat_hash_map<std::uint64_t, std::uint64_t>;
using LibcuckooMap = libcuckoo::cuckoohash_map<std::uint64_t, std::uint64_t>;

std::string bench_name(std::initializer_list<std::string_view> parts) {
  std::string name;
  for (const std::string_view p : parts) {
    if (!name.empty()) name += '/';
    name.append(p);
  }
  return name;
}

// ---- CuckooMap against std::unordered_map.

// kPresizedAtPeerLoad (CuckooMap only): planned for 60 % load
// (CuckooMapConfig::max_load_percent) and reserved for the items, so that the filled table
// ends at 60 % load, the load absl's and libcuckoo's reserve(items) end at here (a power of
// two of slots); by default reserve(items) plans for 90 % (kReserveLoadPercent).
// kGrowingAtPeerLoad (CuckooMap only): planned for 60 % load and grown from empty.
// kPresizedHugePages (CuckooMap only): as kPresized, with CuckooMapConfig::huge_pages.
enum class Sizing { kPresized, kGrowing, kPresizedAtPeerLoad, kGrowingAtPeerLoad, kPresizedHugePages };
constexpr unsigned kPeerLoadPercent = 60;

// Adapters so one fill and one lookup loop serve both maps.
std::unique_ptr<Map> make_map(std::uint64_t items, Sizing sizing) {
  CuckooMapConfig c;
  c.seed = bench_seed();
  const bool growing = sizing == Sizing::kGrowing || sizing == Sizing::kGrowingAtPeerLoad;
  if (sizing == Sizing::kPresizedAtPeerLoad || sizing == Sizing::kGrowingAtPeerLoad) {
    c.max_load_percent = kPeerLoadPercent;
  }
  c.huge_pages = sizing == Sizing::kPresizedHugePages;
  auto m = std::make_unique<Map>(c);
  if (!growing && !m->reserve(items)) throw std::bad_alloc();
  return m;
}
std::unique_ptr<StdMap> make_std_map(std::uint64_t items, Sizing sizing) {
  auto m = std::make_unique<StdMap>();
  if (sizing == Sizing::kPresized) m->reserve(items);
  return m;
}
bool map_insert(Map& m, std::uint64_t k) {
  return m.insert_outcome(k, k) == InsertResult::kInserted;
}
bool map_insert(StdMap& m, std::uint64_t k) { return m.emplace(k, k).second; }
bool map_insert(AbslMap& m, std::uint64_t k) { return m.emplace(k, k).second; }
bool map_insert(LibcuckooMap& m, std::uint64_t k) { return m.insert(k, k); }
std::uint64_t map_find(const Map& m, std::uint64_t k) {
  const std::uint64_t* v = m.find_value(k);
  return v != nullptr ? *v | 1 : 0;
}
// The standard-shaped maps (std::unordered_map, absl::flat_hash_map).
template <class M>
std::uint64_t map_find(const M& m, std::uint64_t k) {
  const auto it = m.find(k);
  return it != m.end() ? it->second | 1 : 0;
}
std::uint64_t map_find(const LibcuckooMap& m, std::uint64_t k) {
  std::uint64_t v = 0;
  return m.find(k, v) ? v | 1 : 0;
}
bool map_erase(Map& m, std::uint64_t k) { return m.erase(k) == 1; }
bool map_erase(StdMap& m, std::uint64_t k) { return m.erase(k) == 1; }
bool map_erase(AbslMap& m, std::uint64_t k) { return m.erase(k) == 1; }
bool map_erase(LibcuckooMap& m, std::uint64_t k) { return m.erase(k); }
std::unique_ptr<Map> make_for(const Map*, std::uint64_t items, Sizing sizing) {
  return make_map(items, sizing);
}
std::unique_ptr<StdMap> make_for(const StdMap*, std::uint64_t items, Sizing sizing) {
  return make_std_map(items, sizing);
}
std::unique_ptr<AbslMap> make_for(const AbslMap*, std::uint64_t items, Sizing sizing) {
  auto m = std::make_unique<AbslMap>();
  if (sizing == Sizing::kPresized) m->reserve(items);
  return m;
}
// libcuckoo, used from one thread (its locks uncontended): the single-threaded peer the
// performance targets compare against. reserve(n) sizes it for n items at its own load
// factor.
std::unique_ptr<LibcuckooMap> make_for(const LibcuckooMap*, std::uint64_t items, Sizing sizing) {
  auto m = std::make_unique<LibcuckooMap>();
  if (sizing == Sizing::kPresized) m->reserve(items);
  return m;
}

template <class M>
StructureCache<M>& map_cache() {
  static StructureCache<M> cache;
  return cache;
}

template <class M>
void map_insert_bench(benchmark::State& state, std::uint64_t items, Sizing sizing) {
  map_cache<M>().drop(items, 0);
  std::vector<std::uint64_t> samples;
  double seconds = 0.0;
  std::uint64_t inserted = 0;
  std::unique_ptr<M> m;
  for (auto _ : state) {
    m.reset();  // outside the timed fill
    m = make_for(static_cast<const M*>(nullptr), items, sizing);
    const FillTiming t = timed_fill(items, samples, [&](std::uint64_t k) { return map_insert(*m, k); });
    state.SetIterationTime(t.seconds);
    seconds += t.seconds;
    inserted += t.inserted;
  }
  report_fill(state, seconds, inserted, samples);
  if (inserted != items * static_cast<std::uint64_t>(state.iterations())) {
    state.SkipWithError("an insert failed");
  }
  if (sizing == Sizing::kPresized) map_cache<M>().put(items, 0, std::move(m));
}

// sizing: kPresized, or kPresizedAtPeerLoad or kPresizedHugePages (CuckooMap only: the
// lookups at the load absl's reserve(items) ends at, or in huge pages; each cached apart).
template <class M>
void map_find_bench(benchmark::State& state, std::uint64_t items, bool hit,
                    Sizing sizing = Sizing::kPresized) {
  const unsigned variant = sizing == Sizing::kPresizedAtPeerLoad   ? 1
                           : sizing == Sizing::kPresizedHugePages ? 2
                                                                   : 0;
  const M& m = map_cache<M>().get(items, variant, [&] {
    auto built = make_for(static_cast<const M*>(nullptr), items, sizing);
    for (std::uint64_t i = 0; i < items; ++i) map_insert(*built, key_at(kInsertedStream, i));
    return built;
  });
  static std::vector<std::uint64_t> present;
  static std::vector<std::uint64_t> absent;
  if (present.size() != std::min(items, kMaxQueries)) {
    present = present_queries(items, 3);
    absent = absent_queries(items);
  }
  const std::vector<std::uint64_t>& keys = hit ? present : absent;
  std::uint64_t found = 0;
  for (auto _ : state) {
    found = 0;
    for (const std::uint64_t k : keys) found += map_find(m, k) != 0 ? 1 : 0;
    benchmark::DoNotOptimize(found);
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(keys.size()));
  if (found != (hit ? keys.size() : 0)) state.SkipWithError("wrong find answers");
}

// CuckooMap::find_many over the same keys as map_find_bench, in one call per pass.
void map_find_many_bench(benchmark::State& state, std::uint64_t items, bool hit) {
  const Map& m = map_cache<Map>().get(items, 0, [&] {
    auto built = make_for(static_cast<const Map*>(nullptr), items, Sizing::kPresized);
    for (std::uint64_t i = 0; i < items; ++i) map_insert(*built, key_at(kInsertedStream, i));
    return built;
  });
  const std::vector<std::uint64_t> keys =
      hit ? present_queries(items, 3) : absent_queries(items);
  std::vector<const std::uint64_t*> results(keys.size());
  std::uint64_t found = 0;
  for (auto _ : state) {
    m.find_many(keys, results);
    found = 0;
    for (const std::uint64_t* r : results) found += r != nullptr ? 1 : 0;
    benchmark::DoNotOptimize(found);
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(keys.size()));
  if (found != (hit ? keys.size() : 0)) state.SkipWithError("wrong find_many answers");
}

// Erases every key of a presized map holding `items` keys, in insertion-stream order; the
// fill before each pass is not timed.
template <class M>
void map_erase_bench(benchmark::State& state, std::uint64_t items) {
  map_cache<M>().drop(items, 0);
  double seconds = 0.0;
  std::uint64_t erased = 0;
  for (auto _ : state) {
    auto m = make_for(static_cast<const M*>(nullptr), items, Sizing::kPresized);
    for (std::uint64_t i = 0; i < items; ++i) map_insert(*m, key_at(kInsertedStream, i));
    const double start = thread_seconds();
    for (std::uint64_t i = 0; i < items; ++i) {
      erased += map_erase(*m, key_at(kInsertedStream, i)) ? 1 : 0;
    }
    const double elapsed = thread_seconds() - start;
    state.SetIterationTime(elapsed);
    seconds += elapsed;
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(items));
  if (erased != items * static_cast<std::uint64_t>(state.iterations())) {
    state.SkipWithError("an erase missed a present key");
  }
  benchmark::DoNotOptimize(seconds);
}

void register_maps(std::uint64_t items) {
  const std::string size = size_label(items);
  const int fills = fills_for(items);
  const auto register_one = [&](std::string_view name, auto insert_presized, auto insert_growing,
                                auto find, auto erase) {
    benchmark::RegisterBenchmark(bench_name({"map", name, "insert_presized", size}).c_str(),
                                 insert_presized)
        ->Iterations(fills)
        ->UseManualTime()
        ->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(bench_name({"map", name, "insert_growing", size}).c_str(),
                                 insert_growing)
        ->Iterations(fills)
        ->UseManualTime()
        ->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(bench_name({"map", name, "find_hit", size}).c_str(),
                                 [=](benchmark::State& s) { find(s, true); })
        ->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(bench_name({"map", name, "find_miss", size}).c_str(),
                                 [=](benchmark::State& s) { find(s, false); })
        ->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(bench_name({"map", name, "erase", size}).c_str(), erase)
        ->Iterations(fills)
        ->UseManualTime()
        ->Unit(benchmark::kMillisecond);
  };
  const auto register_map = [&](std::string_view name, auto* tag) {
    using M = std::remove_pointer_t<decltype(tag)>;
    register_one(
        name, [=](benchmark::State& s) { map_insert_bench<M>(s, items, Sizing::kPresized); },
        [=](benchmark::State& s) { map_insert_bench<M>(s, items, Sizing::kGrowing); },
        [=](benchmark::State& s, bool hit) { map_find_bench<M>(s, items, hit); },
        [=](benchmark::State& s) { map_erase_bench<M>(s, items); });
  };
  register_map("cuckoo_map", static_cast<Map*>(nullptr));
  for (const auto& [op, sizing] : {std::pair{"insert_presized_load60", Sizing::kPresizedAtPeerLoad},
                                   std::pair{"insert_growing_load60", Sizing::kGrowingAtPeerLoad}}) {
    const Sizing planned = sizing;
    benchmark::RegisterBenchmark(bench_name({"map", "cuckoo_map", op, size}).c_str(),
                                 [=](benchmark::State& s) { map_insert_bench<Map>(s, items, planned); })
        ->Iterations(fills)
        ->UseManualTime()
        ->Unit(benchmark::kMillisecond);
  }
  for (const bool hit : {true, false}) {
    benchmark::RegisterBenchmark(
        bench_name({"map", "cuckoo_map", hit ? "find_hit_load60" : "find_miss_load60", size})
            .c_str(),
        [=](benchmark::State& s) {
          map_find_bench<Map>(s, items, hit, Sizing::kPresizedAtPeerLoad);
        })
        ->Unit(benchmark::kMillisecond);
  }
  for (const bool hit : {true, false}) {
    benchmark::RegisterBenchmark(
        bench_name({"map", "cuckoo_map", hit ? "find_hit_huge_pages" : "find_miss_huge_pages",
                    size})
            .c_str(),
        [=](benchmark::State& s) {
          map_find_bench<Map>(s, items, hit, Sizing::kPresizedHugePages);
        })
        ->Unit(benchmark::kMillisecond);
  }
  for (const bool hit : {true, false}) {
    benchmark::RegisterBenchmark(
        bench_name({"map", "cuckoo_map", hit ? "find_many_hit" : "find_many_miss", size}).c_str(),
        [=](benchmark::State& s) { map_find_many_bench(s, items, hit); })
        ->Unit(benchmark::kMillisecond);
  }
  register_map("absl_flat_hash_map", static_cast<AbslMap*>(nullptr));
  register_map("libcuckoo", static_cast<LibcuckooMap*>(nullptr));
  register_map("unordered_map", static_cast<StdMap*>(nullptr));
}

// ---- ClassicCuckoo against SmartCuckoo, YCSB mixes.

constexpr double kYcsbPreloadLoad = 0.1;
constexpr double kYcsbFinalLoad = 0.5;

const YcsbStream& ycsb_stream(std::uint64_t capacity, std::size_t mix_index) {
  static StructureCache<YcsbStream> cache;
  return cache.get(capacity, static_cast<unsigned>(mix_index), [&] {
    const auto preload = static_cast<std::uint64_t>(kYcsbPreloadLoad * static_cast<double>(capacity));
    const auto final_items = static_cast<std::uint64_t>(kYcsbFinalLoad * static_cast<double>(capacity));
    return std::make_unique<YcsbStream>(make_ycsb_stream(ycsb_mixes()[mix_index], preload,
                                                         final_items, final_items - preload,
                                                         bench_seed() + mix_index));
  });
}

std::uint64_t kicks_of(const ClassicCuckoo<>& t) { return t.stats().total_kicks; }
std::uint64_t kicks_of(const SmartCuckoo<>& t) { return t.stats().total_kicks; }

void engine_counters(benchmark::State& state, const ClassicCuckoo<>& t) {
  state.counters["rehashes"] = static_cast<double>(t.stats().rehashes);
  state.counters["grows"] = static_cast<double>(t.stats().grows);
  state.counters["failed_walks"] = static_cast<double>(t.stats().failures);
}
void engine_counters(benchmark::State& state, const SmartCuckoo<>& t) {
  state.counters["predicted_failures"] = static_cast<double>(t.stats().predicted_failures);
  state.counters["stash"] = static_cast<double>(t.stash_size());
}

std::unique_ptr<ClassicCuckoo<>> make_table(const ClassicCuckoo<>*, std::uint64_t capacity) {
  ClassicCuckooConfig c;
  c.capacity = static_cast<std::size_t>(capacity);
  c.seed = bench_seed();
  return std::make_unique<ClassicCuckoo<>>(c);
}
std::unique_ptr<SmartCuckoo<>> make_table(const SmartCuckoo<>*, std::uint64_t capacity) {
  SmartCuckooConfig c;
  c.capacity = static_cast<std::size_t>(capacity);
  c.stash_capacity = SmartCuckooConfig::kMaxStashCapacity;
  c.seed = bench_seed();
  return std::make_unique<SmartCuckoo<>>(c);
}

template <class Table>
void ycsb_bench(benchmark::State& state, std::uint64_t capacity, std::size_t mix_index) {
  const YcsbStream& stream = ycsb_stream(capacity, mix_index);
  std::unique_ptr<Table> table;
  std::uint64_t kicks = 0;
  std::uint64_t inserted = 0;
  std::uint64_t failed = 0;
  std::uint64_t found = 0;
  for (auto _ : state) {
    table.reset();
    table = make_table(static_cast<const Table*>(nullptr), capacity);
    for (std::uint64_t i = 0; i < stream.preload; ++i) {
      const std::uint64_t k = key_at(kInsertedStream, i);
      table->insert(k, k);
    }
    const std::uint64_t kicks_before = kicks_of(*table);
    const double start = thread_seconds();
    for (const Op& op : stream.ops) {
      switch (op.kind) {
        case OpKind::kInsert:
          if (table->insert(op.key, op.key) == InsertResult::kInserted) {
            ++inserted;
          } else {
            ++failed;
          }
          break;
        case OpKind::kLookup: found += table->find(op.key) != nullptr ? 1 : 0; break;
        case OpKind::kUpdate: table->insert_or_assign(op.key, op.key + 1); break;
        case OpKind::kErase: table->erase(op.key); break;
      }
    }
    state.SetIterationTime(thread_seconds() - start);
    kicks += kicks_of(*table) - kicks_before;
  }
  benchmark::DoNotOptimize(found);
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(stream.ops.size()));
  state.counters["kicks_per_insert"] =
      static_cast<double>(kicks) / static_cast<double>(std::max<std::uint64_t>(inserted, 1));
  state.counters["failed_inserts"] = static_cast<double>(failed);
  state.counters["load"] = table->load_factor();
  engine_counters(state, *table);
}

void register_ycsb(std::uint64_t capacity) {
  const std::string size = size_label(capacity);
  const int fills = fills_for(capacity);
  for (std::size_t m = 0; m < ycsb_mixes().size(); ++m) {
    std::string mix = ycsb_mixes()[m].name();
    std::replace(mix.begin(), mix.end(), '/', '-');
    benchmark::RegisterBenchmark(bench_name({"ycsb", "classic", mix, size}).c_str(),
                                 [=](benchmark::State& s) { ycsb_bench<ClassicCuckoo<>>(s, capacity, m); })
        ->Iterations(fills)
        ->UseManualTime()
        ->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(bench_name({"ycsb", "smart", mix, size}).c_str(),
                                 [=](benchmark::State& s) { ycsb_bench<SmartCuckoo<>>(s, capacity, m); })
        ->Iterations(fills)
        ->UseManualTime()
        ->Unit(benchmark::kMillisecond);
  }
}

}  // namespace
}  // namespace cuckoo::bench

int main(int argc, char** argv) {
  using namespace cuckoo::bench;
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  const std::uint64_t map_items = env_count("CUCKOO_BENCH_MAP_ITEMS", 10'000'000);
  const std::uint64_t ycsb_capacity = env_count("CUCKOO_BENCH_YCSB_CAPACITY", 2'000'000);
  register_maps(map_items);
  register_ycsb(ycsb_capacity);
  benchmark::AddCustomContext("seed", std::to_string(bench_seed()));
  benchmark::AddCustomContext("zipf_theta", std::to_string(kYcsbZipfTheta));
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
