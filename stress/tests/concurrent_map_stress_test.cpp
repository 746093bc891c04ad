// Linearizability stress tests of the concurrent maps (claim C10): many short recorded
// histories from 2-4 threads over a handful of keys (so operations on one key overlap),
// each checked against the exact map specification with check_map. Both designs; the
// coarse design under every HTM backend; tables that start tiny, so that growth runs
// inside the histories; and tables held near full, so that concurrent cuckoo paths run.
// Deliberately broken variants of the striped design (a path insert that places the key
// under the lock of one of its buckets only, re-checking only that bucket; path hops
// moved without validation) must be caught by the same checker.
//
// Every test prints how many histories and operations it checked. Reproduce a failing
// history: the failure prints its seed; rerun with
//   CUCKOO_STRESS_SEED=<seed> ./stress_concurrent_map_stress_test --gtest_filter=<Suite.Test>
// which runs that one history configuration (threads, op count and key range derive from
// the seed; the interleaving is the scheduler's, so a rare failure may need a few reruns).
// The failure message also holds the failing key's sub-history in text form.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "cuckoo/concurrent_map.hpp"
#include "cuckoo/subjects/driver.hpp"
#include "cuckoo/subjects/history.hpp"
#include "cuckoo/subjects/linearizability.hpp"
#include "cuckoo/subjects/run_and_check.hpp"
#include "cuckoo/sync/htm.hpp"

namespace {

using cuckoo::CoarseConcurrentMap;
using cuckoo::CuckooMapConfig;
using cuckoo::StripedConcurrentMap;
using cuckoo::detail::StripedMapFault;
using cuckoo::subjects::CheckedHistory;
using cuckoo::subjects::CheckResult;
using cuckoo::subjects::History;
using cuckoo::subjects::OpMix;
using cuckoo::subjects::RunResult;
using cuckoo::subjects::Subject;
using cuckoo::sync::HtmPolicy;
using cuckoo::sync::HtmStatus;
using cuckoo::sync::ScriptEnd;

using U64 = std::uint64_t;

// Histories per configuration of the correct maps, and the most a broken variant may
// need before the checker must have caught it.
constexpr int kHistories = 150;
constexpr int kBackendHistories = 100;
constexpr int kBrokenHistoryLimit = 2000;

template <unsigned B, StripedMapFault Fault>
using FaultyStripedMap =
    cuckoo::detail::StripedMapWithFault<U64, U64, B, cuckoo::DefaultHasher, std::equal_to<U64>,
                                        Fault>;

// ---- Helpers --------------------------------------------------------------------------

// The driver's view of a map (the engine answers cuckoo::InsertResult).
//
// For the coarse map every call yields first, inside its recorded interval: its callers
// queue on one lock (or on the serial HTM emulation's mutex), and on two shared cores a
// queue tends to drain in long solo bursts of one thread, so that without the yield few
// calls on one key overlap (none at all under ThreadSanitizer with the emulation), and a
// history without overlap checks nothing concurrent. The striped map's calls overlap
// without help, and a yield there would only make its threads take turns.
template <class Map>
Subject subject_of(Map& map) {
  constexpr bool kYield = requires { map.lock_stats(); };
  return cuckoo::subjects::map_subject(map, [] {
    if constexpr (kYield) std::this_thread::yield();
  });
}

// The seeds to run: `count` seeds from `base`, or only the one in CUCKOO_STRESS_SEED.
std::vector<std::uint64_t> history_seeds(std::uint64_t base, int count) {
  if (const char* forced = std::getenv("CUCKOO_STRESS_SEED");
      forced != nullptr && *forced != '\0') {
    return {std::strtoull(forced, nullptr, 0)};
  }
  std::vector<std::uint64_t> seeds;
  for (int i = 0; i < count; ++i) seeds.push_back(base + static_cast<std::uint64_t>(i));
  return seeds;
}

// For the broken variants: mostly inserts and erases, so that a full table churns and
// inserts of one key race each other, and finds that expose a key stored twice.
OpMix churn_mix() { return OpMix{35, 30, 5, 15, 15, 0}; }

std::string reproduce_hint(const RunResult& run) {
  const ::testing::TestInfo* test = ::testing::UnitTest::GetInstance()->current_test_info();
  char seed[32];
  std::snprintf(seed, sizeof seed, "0x%llx", static_cast<unsigned long long>(run.config.seed));
  return std::string("run: ") + run.reproduce() +
         "\nreproduce: CUCKOO_STRESS_SEED=" + seed +
         " ./stress_concurrent_map_stress_test --gtest_filter=" + test->test_suite_name() + "." +
         test->name() + "\n";
}

struct Totals {
  std::uint64_t histories = 0;
  std::uint64_t ops = 0;
  std::uint64_t concurrent = 0;  // histories with two ops on one key open at once
  std::uint64_t max_concurrency = 0;
  std::uint64_t growths = 0;         // histories whose table grew
  std::uint64_t path_inserts = 0;    // striped: inserts placed by a concurrently moved path
  std::uint64_t path_retries = 0;    // striped: path attempts abandoned by validation
  std::uint64_t transactions = 0;    // coarse: critical sections committed as transactions
  std::uint64_t fallbacks = 0;       // coarse: critical sections under the fallback lock
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();

  void add(const CheckResult& result) {
    ++histories;
    ops += result.stats.ops_checked;
    concurrent += result.stats.max_concurrency >= 2 ? 1 : 0;
    max_concurrency = std::max(max_concurrency, result.stats.max_concurrency);
  }
  void print(const std::string& what) const {
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                        std::chrono::steady_clock::now() - start)
                        .count();
    std::cout << "[ checked  ] " << what << ": " << histories << " histories, " << ops
              << " ops, " << concurrent << " with overlapping ops on a key (up to "
              << max_concurrency << " open at once), " << growths << " grew";
    if (path_inserts + path_retries > 0) {
      std::cout << ", " << path_inserts << " path inserts, " << path_retries << " path retries";
    }
    if (transactions + fallbacks > 0) {
      std::cout << ", " << transactions << " transactions, " << fallbacks << " fallbacks";
    }
    std::cout << ", " << ms << " ms\n";
  }
};

template <class Map>
void note_map(Totals& totals, const Map& map, std::uint32_t initial_buckets) {
  totals.growths += map.bucket_count() > initial_buckets ? 1 : 0;
  if constexpr (requires { map.lock_stats(); }) {
    const auto stats = map.lock_stats();
    totals.transactions += stats.transactions();
    totals.fallbacks += stats.fallbacks();
  } else {
    const auto stats = map.stats();
    totals.path_inserts += stats.path_inserts;
    totals.path_retries += stats.path_retries;
  }
}

// Runs short histories against a fresh map each (make(seed) builds it) and expects every
// one to be linearizable and the map's invariants to hold after it. Adds to *totals.
template <class Make>
void expect_all_linearizable(const std::string& what, std::uint64_t base_seed, int histories,
                             std::uint64_t key_range_min, Make make, Totals* totals_out = nullptr,
                             const OpMix& mix = OpMix::map()) {
  Totals local;
  Totals& totals = totals_out != nullptr ? *totals_out : local;
  const std::uint64_t concurrent_before = totals.concurrent;
  auto run_one = [&](std::uint64_t seed) {
    auto map = make(seed);
    const std::uint32_t initial_buckets = map->bucket_count();
    const CheckedHistory h =
        run_and_check_map(subject_of(*map), map_history_config(seed, key_range_min, mix));
    const RunResult& run = h.run;
    const CheckResult& result = h.check;
    totals.add(result);
    note_map(totals, *map, initial_buckets);
    EXPECT_FALSE(result.undecided()) << reproduce_hint(run) << result.describe();
    ASSERT_FALSE(result.not_linearizable()) << what << "\n" << reproduce_hint(run) << result.describe();
    ASSERT_EQ(map->check_invariants(), "") << what << "\n" << reproduce_hint(run);
  };
  const std::vector<std::uint64_t> seeds = history_seeds(base_seed, histories);
  for (const std::uint64_t seed : seeds) {
    run_one(seed);
    if (testing::Test::HasFatalFailure()) return;
  }
  // The runs must exercise concurrency for the verdict to mean anything: at least a tenth
  // of `histories` must have overlapping ops on a key. On two quiet cores the striped
  // map's calls of a few hundred nanoseconds overlap in a quarter to a half of the
  // histories (the coarse map's, which yield first, in nearly all); when the machine is
  // oversubscribed they overlap less often, so more histories (further seeds, each one
  // checked like the others) are run until enough overlap, up to kMaxExtraFactor times
  // as many. The bound itself does not move. A forced single seed skips this.
  constexpr int kMaxExtraFactor = 4;
  const std::uint64_t wanted = static_cast<std::uint64_t>(histories + 9) / 10;
  if (seeds.size() > 1) {
    for (int i = 0; i < histories * kMaxExtraFactor && totals.concurrent - concurrent_before < wanted;
         ++i) {
      run_one(base_seed + static_cast<std::uint64_t>(histories + i));
      if (testing::Test::HasFatalFailure()) return;
    }
  }
  totals.print(what);
  if (seeds.size() > 1) {
    EXPECT_GE(totals.concurrent - concurrent_before, wanted) << "too few histories overlap on a key";
  }
}

CuckooMapConfig config_of(std::uint64_t seed, std::size_t initial_capacity,
                          std::size_t max_capacity = CuckooMapConfig::kDefaultMaxCapacity) {
  CuckooMapConfig config;
  config.initial_capacity = initial_capacity;
  config.max_capacity = max_capacity;
  config.seed = seed;
  return config;
}

// ---- The striped design -------------------------------------------------------------------

// The read-modify-write operations (upsert, update_fn, erase_fn, uprase_fn, with the
// deterministic functions of stress/history.hpp) mixed with every other map operation,
// through growth, on both designs.
TEST(ConcurrentMapStress, StripedReadModifyWrite) {
  Totals totals;
  expect_all_linearizable(
      "striped b=2, from 4 slots, read-modify-write mix", 0x5e3a'0000, kHistories, 4,
      [](std::uint64_t seed) {
        return std::make_unique<StripedConcurrentMap<U64, U64, 2>>(config_of(seed, 4));
      },
      &totals, OpMix::map_rmw());
  totals.print("striped, read-modify-write");
}

TEST(ConcurrentMapStress, CoarseReadModifyWrite) {
  Totals totals;
  expect_all_linearizable(
      "coarse b=2, from 4 slots, read-modify-write mix, HTM random", 0xc0a3'0000, kHistories, 4,
      [](std::uint64_t seed) {
        return std::make_unique<CoarseConcurrentMap<U64, U64, 2>>(config_of(seed, 4),
                                                                   HtmPolicy::random(0.3, seed));
      },
      &totals, OpMix::map_rmw());
  totals.print("coarse, read-modify-write");
}

TEST(ConcurrentMapStress, StripedRoomyTable) {
  expect_all_linearizable("striped b=4, 64 slots", 0x57a1'0000, kHistories, 4,
                          [](std::uint64_t seed) {
                            return std::make_unique<StripedConcurrentMap<U64, U64>>(
                                config_of(seed, 64));
                          });
}

// From one slot: the table grows several times inside each history.
TEST(ConcurrentMapStress, StripedGrowsDuringHistories) {
  Totals totals;
  expect_all_linearizable(
      "striped b=1, from 1 slot", 0x57a2'0000, kHistories, 8,
      [](std::uint64_t seed) {
        return std::make_unique<StripedConcurrentMap<U64, U64, 1>>(config_of(seed, 1));
      },
      &totals);
  EXPECT_GE(totals.growths * 2, totals.histories);
}

TEST(ConcurrentMapStress, StripedB2GrowsDuringHistories) {
  expect_all_linearizable("striped b=2, from 2 slots", 0x57a3'0000, kHistories, 6,
                          [](std::uint64_t seed) {
                            return std::make_unique<StripedConcurrentMap<U64, U64, 2>>(
                                config_of(seed, 2));
                          });
}

// Held near full at max_capacity (more keys than a one-slot-per-bucket table places):
// cuckoo paths are searched and moved concurrently all the time, and kFull happens.
TEST(ConcurrentMapStress, StripedNearFullConcurrentPaths) {
  Totals totals;
  expect_all_linearizable(
      "striped b=1, 8 slots max, 8-12 keys", 0x57a4'0000, kHistories, 8,
      [](std::uint64_t seed) {
        return std::make_unique<StripedConcurrentMap<U64, U64, 1>>(config_of(seed, 8, 8));
      },
      &totals);
  EXPECT_GT(totals.path_inserts, 0U);
}

// ---- The coarse design, under every HTM backend -------------------------------------------

struct Backend {
  const char* name;
  std::function<HtmPolicy()> policy;
};

std::vector<Backend> backends() {
  return {
      {"disabled", [] { return HtmPolicy::disabled(); }},
      {"always_abort", [] { return HtmPolicy::always_abort(HtmStatus::make_conflict(true)); }},
      {"scripted",
       [] {
         return HtmPolicy::scripted({HtmStatus::make_conflict(true), HtmStatus::make_started(),
                                     HtmStatus::make_capacity(), HtmStatus::make_started(),
                                     HtmStatus(HtmStatus::kRetry), HtmStatus()},
                                    ScriptEnd::kRepeat);
       }},
      {"random", [] { return HtmPolicy::random(0.3, 0x5eed); }},
      {"serial_emulation", [] { return HtmPolicy::serial_emulation(); }},
      {"hardware", [] { return HtmPolicy::hardware(); }},
  };
}

TEST(ConcurrentMapStress, CoarseEveryHtmBackend) {
  std::uint64_t base = 0xc0a1'0000;
  for (const Backend& backend : backends()) {
    if (std::string(backend.name) == "hardware") continue;  // its own test, below
    Totals totals;
    expect_all_linearizable(
        std::string("coarse b=4, 8 slots, HTM ") + backend.name, base, kBackendHistories, 4,
        [&](std::uint64_t seed) {
          return std::make_unique<CoarseConcurrentMap<U64, U64>>(config_of(seed, 8),
                                                                  backend.policy());
        },
        &totals);
    if (HasFatalFailure()) return;
    if (std::string(backend.name) == "serial_emulation") {
      EXPECT_GT(totals.transactions, 0U) << backend.name;
    }
    base += 0x1000;
  }
}

// Real RTM transactions, where the CPU has them; skipped (visibly) elsewhere, where the
// emulated backends above cover the transactional and fallback paths.
TEST(ConcurrentMapStress, CoarseHardwareRtm) {
  if (!cuckoo::sync::hardware_rtm_available()) {
    GTEST_SKIP() << "no hardware RTM in this build or on this CPU (CPUID leaf 7)";
  }
  Totals totals;
  expect_all_linearizable(
      "coarse b=4, 8 slots, HTM hardware", 0xc0a1'f000, kBackendHistories, 4,
      [&](std::uint64_t seed) {
        return std::make_unique<CoarseConcurrentMap<U64, U64>>(config_of(seed, 8),
                                                                HtmPolicy::hardware());
      },
      &totals);
  EXPECT_GT(totals.transactions, 0U) << "RTM present, but no section committed a transaction";
}

// From one slot (plus CuckooMap's 8 stash slots, hence 16-20 keys), under emulated
// transactions that abort at random: growth inside the write section, on both paths of
// the elided lock.
TEST(ConcurrentMapStress, CoarseGrowsDuringHistories) {
  Totals totals;
  expect_all_linearizable(
      "coarse b=1, from 1 slot, HTM random", 0xc0a2'0000, kHistories, 16,
      [](std::uint64_t seed) {
        return std::make_unique<CoarseConcurrentMap<U64, U64, 1>>(config_of(seed, 1),
                                                                   HtmPolicy::random(0.3, seed));
      },
      &totals);
  EXPECT_GE(totals.growths * 2, totals.histories);
}

// ---- Broken variants must be caught -----------------------------------------------------

// The workloads the broken variants are run with (and, for comparison, the correct map).
struct BrokenCase {
  std::uint64_t base_seed;
  std::uint64_t key_range_min;
  std::size_t max_capacity;  // also the initial capacity: the table is held full
};
// Path placement: 4 one-slot buckets, 5-9 keys.
constexpr BrokenCase kPathPlacementCase{0xbad3'0000, 5, 4};
// Unvalidated hops: 8 one-slot buckets, 8-12 keys.
constexpr BrokenCase kUnvalidatedHopCase{0xbad2'0000, 8, 8};

// Runs histories against a broken map until the checker reports a violation and prints
// the report; fails the test if none is caught within kBrokenHistoryLimit histories.
template <class Map>
void expect_caught(const std::string& what, const BrokenCase& broken,
                   const OpMix& mix = churn_mix()) {
  Totals totals;
  for (const std::uint64_t seed : history_seeds(broken.base_seed, kBrokenHistoryLimit)) {
    Map map(config_of(seed, broken.max_capacity, broken.max_capacity));
    const CheckedHistory h = run_and_check_map(
        subject_of(map), map_history_config(seed, broken.key_range_min, mix));
    const RunResult& run = h.run;
    const CheckResult& result = h.check;
    totals.add(result);
    if (result.not_linearizable()) {
      totals.print(what + " (caught)");
      std::string report = result.describe();
      if (report.size() > 1500) report = report.substr(0, 1500) + "...\n";
      std::cout << "[ caught   ] after " << totals.histories << " histories: "
                << reproduce_hint(run) << report;
      return;
    }
  }
  totals.print(what + " (NOT caught)");
  ADD_FAILURE() << what << ": " << totals.histories
                << " histories, none found not linearizable: the checker missed a known bug";
}

TEST(ConcurrentMapStressBroken, PathPlacementUnderOneBucketIsCaught) {
  expect_caught<FaultyStripedMap<1, StripedMapFault::kPathPlacesUnderOneBucket>>(
      "broken striped (path places under one bucket)", kPathPlacementCase);
}

TEST(ConcurrentMapStressBroken, UnvalidatedPathHopIsCaught) {
  expect_caught<FaultyStripedMap<1, StripedMapFault::kUnvalidatedHop>>(
      "broken striped (hops not validated)", kUnvalidatedHopCase);
}

// A read-modify-write written the naive way, as separate calls: read the value, change
// it, write it back (and insert when absent). Another thread's change between the read
// and the write is lost. The yield stands for a preemption there.
class RacyRmwMap : public StripedConcurrentMap<U64, U64, 2> {
 public:
  using StripedConcurrentMap<U64, U64, 2>::StripedConcurrentMap;
  template <class F>
  bool update_fn(U64 key, F&& fn) {
    std::optional<U64> value = find(key);
    if (!value) return false;
    fn(*value);
    std::this_thread::yield();
    insert_or_assign(key, *value);
    return true;
  }
  template <class F>
  cuckoo::InsertResult upsert(U64 key, F&& fn, U64 initial) {
    if (update_fn(key, std::forward<F>(fn))) return cuckoo::InsertResult::kUpdated;
    return insert(key, initial);
  }
};
// Read-modify-write race: 16 slots, 4-8 keys, the read-modify-write mix.
constexpr BrokenCase kRacyRmwCase{0xbad4'0000, 4, 16};

TEST(ConcurrentMapStressBroken, NonAtomicReadModifyWriteIsCaught) {
  expect_caught<RacyRmwMap>("broken read-modify-write (read, then write back)", kRacyRmwCase,
                            OpMix::map_rmw());
}

// The same workloads and seeds with the correct map pass (so the catches above are the
// faults', not the workloads').
TEST(ConcurrentMapStressBroken, SameWorkloadsPassWhenCorrect) {
  for (const BrokenCase& broken : {kPathPlacementCase, kUnvalidatedHopCase}) {
    expect_all_linearizable(
        "correct striped, b=1, " + std::to_string(broken.max_capacity) + " slots held full",
        broken.base_seed, kHistories, broken.key_range_min,
        [&](std::uint64_t seed) {
          return std::make_unique<StripedConcurrentMap<U64, U64, 1>>(
              config_of(seed, broken.max_capacity, broken.max_capacity));
        },
        nullptr, churn_mix());
  }
  expect_all_linearizable(
      "correct striped, b=2, read-modify-write mix", kRacyRmwCase.base_seed, kHistories,
      kRacyRmwCase.key_range_min,
      [](std::uint64_t seed) {
        return std::make_unique<StripedConcurrentMap<U64, U64, 2>>(
            config_of(seed, kRacyRmwCase.max_capacity, kRacyRmwCase.max_capacity));
      },
      nullptr, OpMix::map_rmw());
}

}  // namespace
