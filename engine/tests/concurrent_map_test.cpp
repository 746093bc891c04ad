// Tests of the concurrent maps (cuckoo/concurrent_map.hpp), both designs:
//   - single-threaded agreement with std::unordered_map on a random workload that grows
//     the table many times (C7), for every design and slot count, and for the coarse
//     design under every HTM backend (disabled, always-abort, scripted, random, serial
//     emulation, hardware where the CPU has RTM);
//   - configuration errors, kFull at max_capacity (nothing lost, C6), failed growth,
//     string keys and values, for_each / snapshot / clear / reserve;
//   - small multithreaded tests: disjoint key sets, threads racing to insert the SAME
//     keys (exactly one kInserted per key, size exact), growth while lookups run (each
//     thread's own keys always found), and owned-key random workloads where every answer
//     is checked against the thread's own model. Under a watchdog that names the test
//     and seed if a thread hangs.
// The linearizability stress tests are in stress/tests/concurrent_map_stress_test.cpp.
//
// Every randomized test uses a fixed seed, prints it on failure, and takes
// CUCKOO_TEST_SEED from the environment to replay another one.
#include "cuckoo/concurrent_map.hpp"
// Regression: both concurrent headers in one translation unit. They once defined two
// different cuckoo::detail::LockStripes (a compile error here, an ODR violation across
// translation units).
#include "cuckoo/concurrent_filter.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <latch>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include "cuckoo/cuckoo_map.hpp"
#include "cuckoo/detail/rng.hpp"
#include "cuckoo/error.hpp"
#include "cuckoo/status.hpp"
#include "cuckoo/sync/htm.hpp"
#include "support/test_seed.hpp"
#include "support/watchdog.hpp"

namespace {

using cuckoo::test::test_seed;
std::string seed_note(std::uint64_t seed) { return cuckoo::test::seed_note(seed, "concurrent_map_test"); }

using cuckoo::test::current_test_name;
using cuckoo::test::Watchdog;

using cuckoo::CoarseConcurrentMap;
using cuckoo::ConfigError;
using cuckoo::CuckooMapConfig;
using cuckoo::InsertResult;
using cuckoo::StripedConcurrentMap;
using cuckoo::sync::HtmPolicy;
using cuckoo::sync::HtmStatus;
using cuckoo::sync::ScriptEnd;

// ---- Helpers --------------------------------------------------------------------------

CuckooMapConfig config_of(std::uint64_t seed, std::size_t initial_capacity = 64,
                          std::size_t max_capacity = CuckooMapConfig::kDefaultMaxCapacity) {
  CuckooMapConfig config;
  config.initial_capacity = initial_capacity;
  config.max_capacity = max_capacity;
  config.seed = seed;
  return config;
}

// Runs body(t) on `threads` threads that start together; joins them; under a watchdog.
void run_threads(unsigned threads, const std::string& what,
                 const std::function<void(unsigned)>& body) {
  const Watchdog watchdog(what);
  std::latch start(threads);
  std::vector<std::thread> workers;
  workers.reserve(threads);
  for (unsigned t = 0; t < threads; ++t) {
    workers.emplace_back([&, t] {
      start.arrive_and_wait();
      body(t);
    });
  }
  for (std::thread& w : workers) w.join();
}

// How each design is built from a configuration (and, for the coarse one, a policy).
template <class Map>
std::unique_ptr<Map> make_map(const CuckooMapConfig& config,
                              const HtmPolicy& policy = HtmPolicy::automatic()) {
  if constexpr (requires { typename Map::lock_type; }) {
    return std::make_unique<Map>(config, policy);
  } else {
    (void)policy;
    return std::make_unique<Map>(config);
  }
}

// Compares the whole map with the model: size, every key's value, the snapshot, the
// invariants.
template <class Map>
void expect_matches(const Map& map, const std::unordered_map<std::uint64_t, std::uint64_t>& model) {
  EXPECT_EQ(map.check_invariants(), "");
  ASSERT_EQ(map.size(), model.size());
  EXPECT_EQ(map.empty(), model.empty());
  for (const auto& [key, value] : model) {
    const std::optional<std::uint64_t> got = map.find(key);
    ASSERT_TRUE(got.has_value()) << "missing key " << key;
    EXPECT_EQ(*got, value) << "key " << key;
  }
  const auto items = map.snapshot();
  EXPECT_EQ(items.size(), model.size());
  for (const auto& [key, value] : items) {
    const auto it = model.find(key);
    ASSERT_NE(it, model.end()) << "unexpected key " << key;
    EXPECT_EQ(value, it->second);
  }
}

// A random single-threaded workload checked op by op against std::unordered_map, and
// whole every check_every ops.
template <class Map>
void run_workload(Map& map, std::uint64_t seed, int ops, std::uint64_t key_range,
                  int check_every) {
  SCOPED_TRACE(seed_note(seed));
  cuckoo::detail::Rng rng(seed);
  std::unordered_map<std::uint64_t, std::uint64_t> model;
  for (int op = 0; op < ops; ++op) {
    const std::uint64_t key = rng.below(key_range);
    const std::uint64_t value = rng.next();
    const std::uint64_t kind = rng.below(100);
    const bool present = model.count(key) != 0;
    if (kind < 40) {
      ASSERT_EQ(map.insert(key, value), present ? InsertResult::kExists : InsertResult::kInserted)
          << "op " << op << " insert " << key;
      if (!present) model[key] = value;
    } else if (kind < 55) {
      ASSERT_EQ(map.insert_or_assign(key, value),
                present ? InsertResult::kUpdated : InsertResult::kInserted)
          << "op " << op << " insert_or_assign " << key;
      model[key] = value;
    } else if (kind < 75) {
      ASSERT_EQ(map.erase(key), present) << "op " << op << " erase " << key;
      model.erase(key);
    } else if (kind < 90) {
      const std::optional<std::uint64_t> got = map.find(key);
      ASSERT_EQ(got.has_value(), present) << "op " << op << " find " << key;
      if (present) {
        ASSERT_EQ(*got, model[key]) << "op " << op << " find " << key;
      }
    } else {
      ASSERT_EQ(map.contains(key), present) << "op " << op << " contains " << key;
    }
    ASSERT_EQ(map.size(), model.size()) << "op " << op;
    if (op % check_every == 0) {
      expect_matches(map, model);
      if (::testing::Test::HasFailure()) return;
    }
  }
  expect_matches(map, model);
}

// ---- Every design ---------------------------------------------------------------------

template <class Map>
class ConcurrentMapDesigns : public ::testing::Test {};

using U64 = std::uint64_t;
using Designs = ::testing::Types<CoarseConcurrentMap<U64, U64>, CoarseConcurrentMap<U64, U64, 1>,
                                 StripedConcurrentMap<U64, U64>, StripedConcurrentMap<U64, U64, 1>,
                                 StripedConcurrentMap<U64, U64, 2>, StripedConcurrentMap<U64, U64, 8>>;

class DesignNames {
 public:
  template <class Map>
  static std::string GetName(int) {
    const std::string design =
        requires { typename Map::lock_type; } ? "Coarse" : "Striped";
    return design + "B" + std::to_string(Map::kSlotsPerBucket);
  }
};
TYPED_TEST_SUITE(ConcurrentMapDesigns, Designs, DesignNames);

TYPED_TEST(ConcurrentMapDesigns, AgreesWithUnorderedMapThroughGrowth) {
  const std::uint64_t seed = test_seed(0xc0c0'0001);
  // From 8 slots to thousands: many growths, cuckoo paths and (coarse) stash use.
  auto map = make_map<TypeParam>(config_of(seed, 8));
  run_workload(*map, seed, 15'000, 2'500, 3'000);
  EXPECT_GT(map->capacity(), 1'000U);
}

TYPED_TEST(ConcurrentMapDesigns, SmallKeyRangeManyErases) {
  const std::uint64_t seed = test_seed(0xc0c0'0002);
  auto map = make_map<TypeParam>(config_of(seed, 4));
  run_workload(*map, seed, 8'000, 40, 500);
}

TYPED_TEST(ConcurrentMapDesigns, ConfigErrorsNameTheField) {
  const auto field_of = [](const CuckooMapConfig& config) -> std::string {
    try {
      (void)make_map<TypeParam>(config);
    } catch (const ConfigError& e) {
      return e.field();
    }
    return "none";
  };
  CuckooMapConfig config;
  config.initial_capacity = 0;
  EXPECT_EQ(field_of(config), "initial_capacity");
  config = {};
  config.max_capacity = 0;
  EXPECT_EQ(field_of(config), "max_capacity");
  config = {};
  config.initial_capacity = 128;
  config.max_capacity = 64;
  EXPECT_EQ(field_of(config), "initial_capacity");
  config = {};
  config.max_path_length = 0;
  EXPECT_EQ(field_of(config), "max_path_length");
  config.max_path_length = CuckooMapConfig::kMaxPathLengthLimit + 1;
  EXPECT_EQ(field_of(config), "max_path_length");
  config = {};
  EXPECT_EQ(field_of(config), "none");
  // The seed drawn when none is given is kept and readable.
  auto map = make_map<TypeParam>(CuckooMapConfig{});
  ASSERT_TRUE(map->config().seed.has_value());
  EXPECT_EQ(map->seed(), *map->config().seed);
}

// The single-threaded and the striped map check a configuration with one rule
// (detail/map_config.hpp): on every boundary of it, both accept or both refuse with the
// same message, for b = 1 and b = 4.
template <unsigned B>
void expect_one_config_rule() {
  using Single = cuckoo::CuckooMap<std::uint64_t, std::uint64_t, B>;
  using Striped = StripedConcurrentMap<std::uint64_t, std::uint64_t, B>;
  const auto outcome = [](auto make) -> std::string {
    try {
      make();
    } catch (const ConfigError& e) {
      return e.what();
    }
    return "accepted";
  };
  std::vector<CuckooMapConfig> configs;
  const auto with = [&](auto change) {
    CuckooMapConfig c;
    c.initial_capacity = 16;
    c.max_capacity = 4096;
    c.seed = 7;
    change(c);
    configs.push_back(c);
  };
  with([](CuckooMapConfig&) {});
  with([](CuckooMapConfig& c) { c.initial_capacity = 0; });
  with([](CuckooMapConfig& c) { c.initial_capacity = 1; });
  with([](CuckooMapConfig& c) { c.max_capacity = B - 1; c.initial_capacity = 1; });
  with([](CuckooMapConfig& c) { c.max_capacity = B; c.initial_capacity = B; });
  with([](CuckooMapConfig& c) { c.initial_capacity = 4097; });
  with([](CuckooMapConfig& c) { c.initial_capacity = 4096; });
  // Rounded up to whole buckets, 9 slots need 12 (b = 4) of a max_capacity of 10.
  with([](CuckooMapConfig& c) { c.initial_capacity = 9; c.max_capacity = 10; });
  with([](CuckooMapConfig& c) { c.max_capacity = Single::kMaxCapacity + 1; });
  with([](CuckooMapConfig& c) { c.max_path_length = 0; });
  with([](CuckooMapConfig& c) { c.max_path_length = CuckooMapConfig::kMaxPathLengthLimit; });
  with([](CuckooMapConfig& c) { c.max_path_length = CuckooMapConfig::kMaxPathLengthLimit + 1; });
  std::size_t refused = 0;
  for (std::size_t i = 0; i < configs.size(); ++i) {
    const CuckooMapConfig& c = configs[i];
    const std::string single = outcome([&] { Single map(c); });
    const std::string striped = outcome([&] { Striped map(c); });
    EXPECT_EQ(single, striped) << "b=" << B << " config #" << i;
    if (single != "accepted") ++refused;
  }
  EXPECT_EQ(refused, B == 1 ? 6U : 7U) << "b=" << B;
}

TEST(ConcurrentMapConfig, SingleThreadedAndStripedMapsApplyOneRule) {
  expect_one_config_rule<1>();
  expect_one_config_rule<4>();
}

TYPED_TEST(ConcurrentMapDesigns, FullAtMaxCapacityLosesNothing) {
  const std::uint64_t seed = test_seed(0xc0c0'0003);
  SCOPED_TRACE(seed_note(seed));
  auto map = make_map<TypeParam>(config_of(seed, 16, 64));
  std::unordered_map<std::uint64_t, std::uint64_t> model;
  std::uint64_t fulls = 0;
  for (std::uint64_t key = 0; key < 200; ++key) {  // far more keys than 64 slots
    const InsertResult r = map->insert(key, key * 7);
    if (r == InsertResult::kFull) {
      ++fulls;
      EXPECT_FALSE(map->contains(key)) << "a failed insert stored key " << key;
      EXPECT_EQ(map->insert_or_assign(key, 1), InsertResult::kFull);
    } else {
      ASSERT_EQ(r, InsertResult::kInserted) << "key " << key;
      model[key] = key * 7;
    }
    ASSERT_EQ(map->size(), model.size());
  }
  EXPECT_GT(fulls, 0U);
  EXPECT_LE(map->capacity(), 64U);
  EXPECT_GE(model.size(), 40U) << "load at the first kFull far too low";
  expect_matches(*map, model);
  // Present keys still answer kExists / kUpdated, not kFull.
  for (const auto& [key, value] : model) {
    EXPECT_EQ(map->insert(key, 0), InsertResult::kExists);
    EXPECT_EQ(map->insert_or_assign(key, value), InsertResult::kUpdated);
  }
  // Erasing makes room again.
  const std::uint64_t victim = model.begin()->first;
  EXPECT_TRUE(map->erase(victim));
  model.erase(victim);
  expect_matches(*map, model);
}

TYPED_TEST(ConcurrentMapDesigns, ClearReserveAndSnapshot) {
  const std::uint64_t seed = test_seed(0xc0c0'0004);
  auto map = make_map<TypeParam>(config_of(seed, 8));
  EXPECT_TRUE(map->empty());
  EXPECT_TRUE(map->reserve(1'000));
  EXPECT_GE(map->capacity(), 1'000U);
  const std::uint32_t buckets = map->bucket_count();
  std::unordered_map<std::uint64_t, std::uint64_t> model;
  for (std::uint64_t key = 0; key < 800; ++key) {
    ASSERT_EQ(map->insert(key, ~key), InsertResult::kInserted);
    model[key] = ~key;
  }
  EXPECT_EQ(map->bucket_count(), buckets) << "reserve(1000) did not make room for 800";
  expect_matches(*map, model);
  std::uint64_t visited = 0;
  map->for_each([&](const std::uint64_t& key, const std::uint64_t& value) {
    EXPECT_EQ(value, ~key);
    ++visited;
  });
  EXPECT_EQ(visited, 800U);
  map->clear();
  EXPECT_TRUE(map->empty());
  EXPECT_EQ(map->size(), 0U);
  EXPECT_EQ(map->bucket_count(), buckets);
  EXPECT_FALSE(map->contains(5));
  EXPECT_EQ(map->check_invariants(), "");
  EXPECT_FALSE(map->reserve(std::size_t{1} << 40)) << "beyond max_capacity";
}

// ---- Multithreaded, every design --------------------------------------------------------

constexpr unsigned kThreads = 4;

TYPED_TEST(ConcurrentMapDesigns, DisjointKeySetsAllFound) {
  const std::uint64_t seed = test_seed(0xc0c0'0010);
  SCOPED_TRACE(seed_note(seed));
  constexpr std::uint64_t kPerThread = 3'000;
  auto map = make_map<TypeParam>(config_of(seed, 4));  // grows while the threads insert
  std::atomic<std::uint64_t> wrong{0};
  run_threads(kThreads, current_test_name() + " " + seed_note(seed), [&](unsigned t) {
    for (std::uint64_t i = 0; i < kPerThread; ++i) {
      const std::uint64_t key = i * kThreads + t;
      if (map->insert(key, key ^ seed) != InsertResult::kInserted) wrong.fetch_add(1);
    }
  });
  EXPECT_EQ(wrong.load(), 0U);
  ASSERT_EQ(map->size(), kThreads * kPerThread);
  for (std::uint64_t key = 0; key < kThreads * kPerThread; ++key) {
    const std::optional<std::uint64_t> got = map->find(key);
    ASSERT_TRUE(got.has_value()) << "key " << key;
    ASSERT_EQ(*got, key ^ seed) << "key " << key;
  }
  EXPECT_EQ(map->check_invariants(), "");
}

// Threads race to insert the same keys: each key exactly once kInserted, every other
// attempt kExists, the stored value the winner's, size exact. Tiny tables, so that the
// races also meet cuckoo paths and growth.
TYPED_TEST(ConcurrentMapDesigns, RacingInsertsOfTheSameKeys) {
  const std::uint64_t seed = test_seed(0xc0c0'0011);
  SCOPED_TRACE(seed_note(seed));
  constexpr int kRounds = 20;
  constexpr std::uint64_t kKeys = 300;
  for (int round = 0; round < kRounds; ++round) {
    auto map = make_map<TypeParam>(config_of(seed + round, 4));
    // results[t][k]: what thread t's insert of key k returned.
    std::vector<std::vector<InsertResult>> results(kThreads,
                                                   std::vector<InsertResult>(kKeys));
    const bool assign = round % 2 == 1;  // odd rounds race insert_or_assign instead
    run_threads(kThreads, current_test_name() + " " + seed_note(seed), [&](unsigned t) {
      cuckoo::detail::Rng rng(seed * 31 + round * kThreads + t);
      std::vector<std::uint64_t> order(kKeys);
      for (std::uint64_t k = 0; k < kKeys; ++k) order[k] = k;
      for (std::uint64_t i = kKeys; i > 1; --i) std::swap(order[i - 1], order[rng.below(i)]);
      for (const std::uint64_t key : order) {
        const std::uint64_t value = (std::uint64_t{t} << 32) | key;
        results[t][key] = assign ? map->insert_or_assign(key, value) : map->insert(key, value);
      }
    });
    ASSERT_EQ(map->size(), kKeys) << "round " << round;
    for (std::uint64_t key = 0; key < kKeys; ++key) {
      unsigned inserted = 0;
      unsigned winner = 0;
      for (unsigned t = 0; t < kThreads; ++t) {
        const InsertResult r = results[t][key];
        if (r == InsertResult::kInserted) {
          ++inserted;
          winner = t;
        } else {
          ASSERT_EQ(r, assign ? InsertResult::kUpdated : InsertResult::kExists)
              << "round " << round << " key " << key << " thread " << t;
        }
      }
      ASSERT_EQ(inserted, 1U) << "round " << round << " key " << key;
      const std::optional<std::uint64_t> got = map->find(key);
      ASSERT_TRUE(got.has_value());
      if (!assign) {
        EXPECT_EQ(*got, (std::uint64_t{winner} << 32) | key) << "round " << round;
      } else {
        EXPECT_EQ(*got & 0xffffffffU, key);
        EXPECT_LT(*got >> 32, kThreads);
      }
    }
    ASSERT_EQ(map->check_invariants(), "") << "round " << round;
  }
}

// The table grows from one bucket while every thread inserts its own keys and keeps
// looking up the ones it inserted before: none may ever be missing, and keys that were
// present before the threads started (read by all) must be found throughout.
TYPED_TEST(ConcurrentMapDesigns, GrowthWhileLookupsRun) {
  const std::uint64_t seed = test_seed(0xc0c0'0012);
  SCOPED_TRACE(seed_note(seed));
  constexpr std::uint64_t kPerThread = 2'000;
  constexpr std::uint64_t kShared = 64;
  constexpr std::uint64_t kSharedBase = std::uint64_t{1} << 40;
  auto map = make_map<TypeParam>(config_of(seed, 1));
  for (std::uint64_t i = 0; i < kShared; ++i) {
    ASSERT_EQ(map->insert(kSharedBase + i, i), InsertResult::kInserted);
  }
  const std::uint32_t buckets_before = map->bucket_count();
  std::atomic<std::uint64_t> missing{0};
  run_threads(kThreads, current_test_name() + " " + seed_note(seed), [&](unsigned t) {
    cuckoo::detail::Rng rng(seed + t);
    for (std::uint64_t i = 0; i < kPerThread; ++i) {
      const std::uint64_t key = i * kThreads + t;
      if (map->insert(key, key + 1) != InsertResult::kInserted) missing.fetch_add(1);
      const std::uint64_t earlier = rng.below(i + 1) * kThreads + t;
      if (map->find(earlier) != std::optional<std::uint64_t>(earlier + 1)) missing.fetch_add(1);
      const std::uint64_t shared = rng.below(kShared);
      if (!map->contains(kSharedBase + shared)) missing.fetch_add(1);
    }
  });
  EXPECT_EQ(missing.load(), 0U);
  EXPECT_GT(map->bucket_count(), buckets_before * 64) << "the table barely grew";
  EXPECT_EQ(map->size(), kShared + kThreads * kPerThread);
  EXPECT_EQ(map->check_invariants(), "");
}

// Each thread owns the keys k with k % threads == t and runs a random mix on them,
// checking every answer against its own model (it is their only writer, so the model is
// exact); all threads also read other threads' keys. Small key ranges and a tiny table,
// so that paths, growth and erases of neighbours interleave.
TYPED_TEST(ConcurrentMapDesigns, OwnedKeyWorkloadsAgreeWithModels) {
  const std::uint64_t seed = test_seed(0xc0c0'0013);
  SCOPED_TRACE(seed_note(seed));
  constexpr std::uint64_t kKeyRange = 256;
  constexpr int kOps = 8'000;
  auto map = make_map<TypeParam>(config_of(seed, 2));
  std::vector<std::unordered_map<std::uint64_t, std::uint64_t>> models(kThreads);
  std::vector<std::string> errors(kThreads);
  run_threads(kThreads, current_test_name() + " " + seed_note(seed), [&](unsigned t) {
    cuckoo::detail::Rng rng(seed ^ (0x9e37 * (t + 1)));
    auto& model = models[t];
    const auto fail = [&](int op, const std::string& what) {
      if (errors[t].empty()) errors[t] = "thread " + std::to_string(t) + " op " + std::to_string(op) + ": " + what;
    };
    for (int op = 0; op < kOps && errors[t].empty(); ++op) {
      const std::uint64_t key = rng.below(kKeyRange / kThreads) * kThreads + t;
      const std::uint64_t value = rng.next();
      const bool present = model.count(key) != 0;
      const std::uint64_t kind = rng.below(100);
      if (kind < 30) {
        if (map->insert(key, value) != (present ? InsertResult::kExists : InsertResult::kInserted))
          fail(op, "insert " + std::to_string(key));
        if (!present) model[key] = value;
      } else if (kind < 45) {
        if (map->insert_or_assign(key, value) !=
            (present ? InsertResult::kUpdated : InsertResult::kInserted))
          fail(op, "insert_or_assign " + std::to_string(key));
        model[key] = value;
      } else if (kind < 70) {
        if (map->erase(key) != present) fail(op, "erase " + std::to_string(key));
        model.erase(key);
      } else if (kind < 90) {
        const std::optional<std::uint64_t> expected =
            present ? std::optional<std::uint64_t>(model[key]) : std::nullopt;
        if (map->find(key) != expected) fail(op, "find " + std::to_string(key));
      } else {
        (void)map->contains(rng.below(kKeyRange));  // another thread's key: any answer
      }
    }
  });
  for (const std::string& e : errors) EXPECT_EQ(e, "");
  std::unordered_map<std::uint64_t, std::uint64_t> all;
  for (const auto& model : models) all.insert(model.begin(), model.end());
  expect_matches(*map, all);
}

// ---- Generic keys and values ----------------------------------------------------------

template <class Map>
void string_round_trip(Map& map) {
  for (int i = 0; i < 2'000; ++i) {
    ASSERT_EQ(map.insert("key-" + std::to_string(i), std::string(i % 50, 'v')),
              InsertResult::kInserted);
  }
  EXPECT_EQ(map.insert("key-7", "other"), InsertResult::kExists);
  EXPECT_EQ(map.insert_or_assign("key-7", "seven"), InsertResult::kUpdated);
  EXPECT_EQ(map.find("key-7"), std::optional<std::string>("seven"));
  EXPECT_EQ(map.find("key-3"), std::optional<std::string>("vvv"));
  EXPECT_TRUE(map.erase("key-3"));
  EXPECT_FALSE(map.contains("key-3"));
  EXPECT_EQ(map.size(), 1'999U);
  EXPECT_EQ(map.check_invariants(), "");
}

TEST(ConcurrentMapStrings, StripedStringKeysAndValues) {
  StripedConcurrentMap<std::string, std::string> map(config_of(test_seed(0xc0c0'0020), 4));
  string_round_trip(map);
}

TEST(ConcurrentMapStrings, CoarseStringKeysAndValues) {
  CoarseConcurrentMap<std::string, std::string> map(config_of(test_seed(0xc0c0'0021), 4));
  string_round_trip(map);
}

// ---- Striped-only -----------------------------------------------------------------------

// Keys from kHotBase on all hash alike: their two buckets coincide at every size. Only
// SlotsPerBucket of them fit; growth cannot help and must fail cleanly (all or nothing).
constexpr std::uint64_t kHotBase = 1'000'000'000;
struct HotHasher {
  std::uint64_t operator()(std::uint64_t key, std::uint64_t seed) const {
    return key >= kHotBase ? 0x9abcdef09abcdef0ULL : cuckoo::DefaultHasher{}(key, seed);
  }
};

TEST(StripedConcurrentMap, FailedGrowthChangesNothing) {
  const std::uint64_t seed = test_seed(0xc0c0'0030);
  SCOPED_TRACE(seed_note(seed));
  StripedConcurrentMap<std::uint64_t, std::uint64_t, 4, HotHasher> map(config_of(seed, 16));
  std::unordered_map<std::uint64_t, std::uint64_t> model;
  for (std::uint64_t key = 0; key < 6; ++key) {  // some ordinary keys
    ASSERT_EQ(map.insert(key, key), InsertResult::kInserted);
    model[key] = key;
  }
  for (std::uint64_t i = 0; i < 4; ++i) {  // one bucket's worth of hot keys fit
    ASSERT_EQ(map.insert(kHotBase + i, i), InsertResult::kInserted);
    model[kHotBase + i] = i;
  }
  const std::uint32_t buckets = map.bucket_count();
  EXPECT_EQ(map.insert(kHotBase + 4, 4), InsertResult::kFull);
  EXPECT_EQ(map.bucket_count(), buckets) << "a failed growth must not publish a table";
  expect_matches(map, model);
  EXPECT_GE(map.stats().full_rejections, 1U);
  EXPECT_GE(map.stats().exclusive_inserts, 1U);
}

TEST(StripedConcurrentMap, StripeCountFollowsMaxCapacity) {
  const StripedConcurrentMap<std::uint64_t, std::uint64_t> small(config_of(1, 4, 64));
  EXPECT_EQ(small.stripe_count(), 16U);  // 16 buckets at most: one stripe each
  const StripedConcurrentMap<std::uint64_t, std::uint64_t> big(config_of(1));
  EXPECT_EQ(big.stripe_count(), cuckoo::detail::MapLockStripes::kMaxStripes);
}

// Multithreaded inserts into nearly full buckets must move cuckoo paths concurrently
// (the optimistic path) and grow; the statistics show both happened.
TEST(StripedConcurrentMap, ConcurrentPathsAndGrowthAreExercised) {
  const std::uint64_t seed = test_seed(0xc0c0'0031);
  SCOPED_TRACE(seed_note(seed));
  StripedConcurrentMap<std::uint64_t, std::uint64_t, 2> map(config_of(seed, 2));
  run_threads(kThreads, current_test_name() + " " + seed_note(seed), [&](unsigned t) {
    for (std::uint64_t i = 0; i < 5'000; ++i) (void)map.insert(i * kThreads + t, i);
  });
  const cuckoo::StripedMapStats stats = map.stats();
  std::printf("[ stats    ] inserts=%llu path_inserts=%llu path_retries=%llu exclusive=%llu "
              "growths=%llu table_retries=%llu\n",
              static_cast<unsigned long long>(stats.inserts),
              static_cast<unsigned long long>(stats.path_inserts),
              static_cast<unsigned long long>(stats.path_retries),
              static_cast<unsigned long long>(stats.exclusive_inserts),
              static_cast<unsigned long long>(stats.growths),
              static_cast<unsigned long long>(stats.table_retries));
  EXPECT_EQ(stats.inserts, 4 * 5'000U);
  EXPECT_GT(stats.path_inserts, 0U);
  EXPECT_GT(stats.growths, 5U);
  EXPECT_EQ(map.size(), 4 * 5'000U);
  EXPECT_EQ(map.check_invariants(), "");
}

// ---- The coarse design under every HTM backend -------------------------------------------

struct BackendCase {
  std::string name;
  std::function<HtmPolicy()> policy;
};

std::vector<BackendCase> all_backends() {
  return {
      {"Disabled", [] { return HtmPolicy::disabled(); }},
      {"AlwaysAbortConflict", [] { return HtmPolicy::always_abort(HtmStatus::make_conflict(true)); }},
      {"AlwaysAbortCapacity", [] { return HtmPolicy::always_abort(HtmStatus::make_capacity()); }},
      {"Scripted",
       [] {
         return HtmPolicy::scripted({HtmStatus::make_conflict(true), HtmStatus::make_started(),
                                     HtmStatus::make_capacity(), HtmStatus::make_started(),
                                     HtmStatus(HtmStatus::kRetry), HtmStatus::make_started(),
                                     HtmStatus()},
                                    ScriptEnd::kRepeat);
       }},
      {"Random", [] { return HtmPolicy::random(0.3, 0xabcdef); }},
      {"SerialEmulation", [] { return HtmPolicy::serial_emulation(); }},
      {"Hardware", [] { return HtmPolicy::hardware(); }},
  };
}

class CoarseBackends : public ::testing::TestWithParam<BackendCase> {
 protected:
  HtmPolicy policy() const { return GetParam().policy(); }
  std::string context(std::uint64_t seed) const {
    return current_test_name() + " backend=" + policy().describe() + " " + seed_note(seed);
  }
};

TEST_P(CoarseBackends, AgreesWithUnorderedMap) {
  if (GetParam().name == "Hardware" && !cuckoo::sync::hardware_rtm_available()) {
    GTEST_SKIP() << "no hardware RTM in this build or on this CPU (the Hardware backend "
                    "would run as Disabled, which has its own case)";
  }
  const std::uint64_t seed = test_seed(0xc0c0'0040);
  SCOPED_TRACE(context(seed));
  CoarseConcurrentMap<std::uint64_t, std::uint64_t> map(config_of(seed, 8), policy());
  run_workload(map, seed, 8'000, 1'000, 1'000);
  const auto stats = map.lock_stats();
  EXPECT_EQ(stats.htm.commits, stats.transactions());
}

TEST_P(CoarseBackends, RacingInsertsAndOwnedKeys) {
  if (GetParam().name == "Hardware" && !cuckoo::sync::hardware_rtm_available()) {
    GTEST_SKIP() << "no hardware RTM";
  }
  const std::uint64_t seed = test_seed(0xc0c0'0041);
  SCOPED_TRACE(context(seed));
  constexpr std::uint64_t kKeys = 400;
  CoarseConcurrentMap<std::uint64_t, std::uint64_t> map(config_of(seed, 4), policy());
  std::vector<std::vector<InsertResult>> results(kThreads, std::vector<InsertResult>(kKeys));
  std::atomic<std::uint64_t> wrong{0};
  run_threads(kThreads, context(seed), [&](unsigned t) {
    for (std::uint64_t k = 0; k < kKeys; ++k) {
      const std::uint64_t key = (k * 7 + t * 13) % kKeys;  // different orders
      results[t][key] = map.insert(key, t);
      // Own keys: insert, find, erase, find again.
      const std::uint64_t own = (std::uint64_t{1} << 40) + k * kThreads + t;
      if (map.insert(own, k) != InsertResult::kInserted) wrong.fetch_add(1);
      if (map.find(own) != std::optional<std::uint64_t>(k)) wrong.fetch_add(1);
      if (k % 2 == 0 && !map.erase(own)) wrong.fetch_add(1);
      if (k % 2 == 0 && map.contains(own)) wrong.fetch_add(1);
    }
  });
  EXPECT_EQ(wrong.load(), 0U);
  for (std::uint64_t key = 0; key < kKeys; ++key) {
    unsigned inserted = 0;
    for (unsigned t = 0; t < kThreads; ++t) {
      if (results[t][key] == InsertResult::kInserted) {
        ++inserted;
      } else {
        EXPECT_EQ(results[t][key], InsertResult::kExists);
      }
    }
    EXPECT_EQ(inserted, 1U) << "key " << key;
  }
  EXPECT_EQ(map.size(), kKeys + kThreads * kKeys / 2);
  EXPECT_EQ(map.check_invariants(), "");
  const auto stats = map.lock_stats();
  std::printf("[ lock     ] %s: tx reads=%llu writes=%llu, fallback reads=%llu writes=%llu\n",
              policy().describe().c_str(),
              static_cast<unsigned long long>(stats.transactional_reads),
              static_cast<unsigned long long>(stats.transactional_writes),
              static_cast<unsigned long long>(stats.fallback_reads),
              static_cast<unsigned long long>(stats.fallback_writes));
  if (GetParam().name == "Disabled" || GetParam().name.starts_with("AlwaysAbort")) {
    EXPECT_EQ(stats.transactions(), 0U);
  }
  if (GetParam().name == "SerialEmulation") {
    EXPECT_GT(stats.transactions(), 0U);
  }
}

TEST(CoarseConcurrentMap, InvalidPolicyIsAConfigError) {
  try {
    CoarseConcurrentMap<std::uint64_t, std::uint64_t> map(config_of(1),
                                                          HtmPolicy::random(1.5, 1));
    FAIL() << "accepted abort_probability 1.5";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.field(), "abort_probability");
  }
}

INSTANTIATE_TEST_SUITE_P(AllBackends, CoarseBackends, ::testing::ValuesIn(all_backends()),
                         [](const ::testing::TestParamInfo<BackendCase>& param_info) {
                           return param_info.param.name;
                         });

}  // namespace
