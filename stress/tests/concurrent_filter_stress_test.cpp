// Linearizability stress of the concurrent cuckoo filters (claim C10): many short
// multithreaded histories per configuration, recorded by the stress driver and checked
// against the multiset specification with the filter relaxations (false positives
// allowed; the copy limit of each key known exactly). Configurations: the coarse design
// under every HTM backend, the striped design with automatic, 1 and 2 lock stripes (few
// stripes force unrelated buckets to share locks), the striped design with the schedule
// perturbed at its race windows, the lock-free design (K-CAS relocations, lookups by
// double collect) as it is and with a yield before some of its atomic steps, and all
// three designs with keys shared between writers (the aliasing relaxation on). The
// lock-free filter's check_invariants() must also hold after every (quiescent) history.
// Then deliberately broken striped variants (path hops not re-validated; lookups not
// re-validated), which the same checker must catch.
//
// Tiny tables (2-16 buckets) and 4-8 keys with up to 2b copies each keep the filters full:
// every history goes through cuckoo paths (or kicks), the stash (the designs that have
// one; the lock-free filter has none), kFull and kDuplicateLimit while other threads look
// the moving items up.
//
// Reproduce: every failure prints its seed and a line
//   CUCKOO_STRESS_SEED=<seed> ./stress_concurrent_filter_stress_test --gtest_filter=<test>
// which reruns that one history configuration (threads, ops, keys, filter shape and seed
// all derive from it; the interleaving is the scheduler's, so a rare failure may need a
// few reruns). The failing key's sub-history is printed in text form too.
// Longer runs: CUCKOO_STRESS_HISTORIES=<k> multiplies every history count by k.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "cuckoo/concurrent_filter.hpp"
#include "cuckoo/cuckoo_filter.hpp"
#include "cuckoo/lock_free_filter.hpp"
#include "cuckoo/subjects/driver.hpp"
#include "cuckoo/subjects/history.hpp"
#include "cuckoo/subjects/linearizability.hpp"
#include "cuckoo/subjects/run_and_check.hpp"
#include "cuckoo/sync/htm.hpp"
#include "cuckoo/sync/policy.hpp"

namespace {

using cuckoo::CoarseConcurrentFilter;
using cuckoo::ConcurrentFilterDesign;
using cuckoo::CuckooFilter;
using cuckoo::CuckooFilterConfig;
using cuckoo::DefaultHasher;
using cuckoo::LockFreeFilter;
using cuckoo::StripedFilterOptions;
using cuckoo::BasicLockFreeFilter;
using cuckoo::detail::BasicStripedConcurrentFilter;
using cuckoo::detail::StripedFilterPolicy;
using cuckoo::detail::StripedWindow;
using cuckoo::subjects::CheckedHistory;
using cuckoo::subjects::CheckResult;
using cuckoo::subjects::DriverConfig;
using cuckoo::subjects::History;
using cuckoo::subjects::OpMix;
using cuckoo::subjects::RunResult;
using cuckoo::subjects::SplitMix64;
using cuckoo::sync::HtmPolicy;
using cuckoo::sync::HtmStatus;
using cuckoo::sync::ScriptEnd;

// Histories per workload and configuration (each configuration runs both workloads).
constexpr int kHistoriesPerConfig = 100;
// Histories a broken variant may take to be caught before the test fails.
constexpr int kBrokenHistoryLimit = 400;

// ------------------------------------------------------------------ configuration

int history_multiplier() {
  if (const char* env = std::getenv("CUCKOO_STRESS_HISTORIES"); env != nullptr && *env != '\0') {
    const long k = std::strtol(env, nullptr, 10);
    if (k >= 1) return static_cast<int>(k);
  }
  return 1;
}

// The seeds to run: `count` (times the multiplier) seeds from `base`, or only the one in
// CUCKOO_STRESS_SEED.
std::vector<std::uint64_t> history_seeds(std::uint64_t base, int count) {
  if (const char* forced = std::getenv("CUCKOO_STRESS_SEED"); forced != nullptr && *forced != '\0') {
    return {std::strtoull(forced, nullptr, 0)};
  }
  std::vector<std::uint64_t> seeds;
  const int total = count * history_multiplier();
  for (int i = 0; i < total; ++i) seeds.push_back(base + static_cast<std::uint64_t>(i));
  return seeds;
}

// Everything one history runs with, derived from its seed alone.
struct HistoryShape {
  DriverConfig driver;
  CuckooFilterConfig filter;
  std::string describe() const {
    return "filter: buckets=" + std::to_string(filter.capacity / filter.slots_per_bucket) +
           " b=" + std::to_string(filter.slots_per_bucket) +
           " f=" + std::to_string(filter.fingerprint_bits) +
           " max_kicks=" + std::to_string(filter.max_kicks) +
           " seed=" + std::to_string(filter.seed.value_or(0));
  }
};

// The two workloads. kDuplicates: 4-8 keys, inserts outweigh erases, so keys climb to
// their copy limit; tables from far too small to about the demand: kDuplicateLimit,
// kFull, the stash, and kicks among copies. kPaths: 12-24 keys, erases slightly
// outweigh inserts, so most keys hold one or two copies of distinct fingerprints in a
// table loaded to 80-100%: cuckoo paths through full buckets while other threads look
// the moving items up.
enum class Workload : std::uint8_t { kDuplicates, kPaths };

// 2-4 threads, 50-200 ops each, keys (at least one a thread) and buckets by workload,
// buckets of 1, 2 or 4 slots, f of 8, 12 or 16 bits, max_kicks 4, 20 or 500, and the
// first filter seed (searched from the history seed) under which no two keys are one
// item.
HistoryShape history_shape(std::uint64_t seed, bool key_ownership, Workload workload) {
  SplitMix64 rng(seed);
  HistoryShape shape;
  shape.driver = cuckoo::subjects::short_history_config(seed, rng);
  DriverConfig& d = shape.driver;
  d.key_ownership = key_ownership;
  d.erase_only_present = key_ownership;
  d.time_limit = std::chrono::milliseconds(60'000);
  CuckooFilterConfig& c = shape.filter;
  cuckoo::subjects::draw_filter_shape(c, rng);
  if (workload == Workload::kDuplicates) {
    d.key_range = std::max<std::uint64_t>(d.threads, 4 + rng.below(5));
    d.mix = OpMix::multiset();  // insert 40, erase 25, contains 30, size 5
    // 2 .. 2 * key_range buckets: from far too small to about the demand of key_range
    // keys with up to 2b copies each.
    c.capacity = (2 + rng.below(2 * d.key_range - 1)) * c.slots_per_bucket;
  } else {
    d.key_range = 12 + rng.below(13);
    d.mix = OpMix{30, 35, 30, 0, 0, 5};
    // About 1.2 copies a key in steady state; 100-125% of that many slots, so that
    // the table runs at 80-100% load, where most inserts into full buckets need and
    // find a path.
    const std::uint64_t slots = d.key_range * 6 / 5;
    c.capacity = std::max<std::uint64_t>(2 * c.slots_per_bucket,
                                         slots * (100 + rng.below(26)) / 100);
    if (c.max_kicks == 4) c.max_kicks = 64;
  }
  // Keys that are one item to the filter (equal fingerprint and bucket pair, see
  // concurrent_filter_test.cpp) must not share a history, or the per-key specification
  // would not describe the filter. At least 39% of seeds leave <= 24 keys alias-free
  // (measured: f = 8, 24 keys, two buckets; over 90% with 8 keys or f = 12), so a few
  // candidates do; kMaxSeedCandidates is the checked bound. CuckooFilter has the same
  // placement rule as both concurrent designs.
  cuckoo::subjects::choose_alias_free_seed<CuckooFilter>(c, d.key_range, rng, seed);
  return shape;
}

// Coverage counters summed over a configuration's histories: evidence that the runs
// went through the paths that can go wrong.
struct Coverage {
  std::uint64_t moves = 0;       // items moved (striped, lock-free: path hops; coarse: kicks)
  std::uint64_t stashed = 0;     // items put in the stash
  std::uint64_t fulls = 0;       // inserts refused with kFull
  std::uint64_t duplicates = 0;  // inserts refused with kDuplicateLimit
  std::uint64_t retries = 0;     // striped, lock-free: paths and optimistic reads re-done
  std::uint64_t transactions = 0;  // coarse: critical sections run as transactions
  std::uint64_t fallbacks = 0;     // coarse: critical sections under the MCS lock
  bool lock_free = false;          // the lock-free design: the two counters below
  std::uint64_t lost_cas = 0;    // lock-free: single-bucket CASes that lost a race
  std::uint64_t invariant_checks = 0;  // lock-free: check_invariants() after a history

  void add(const CoarseConcurrentFilter& f) {
    const cuckoo::CuckooFilterStats s = f.filter_stats();
    const cuckoo::sync::ElisionStats e = f.elision_stats();
    moves += s.kicks;
    stashed += s.kick_failures;
    fulls += s.full_rejections;
    duplicates += s.duplicate_rejections;
    transactions += e.transactions();
    fallbacks += e.fallbacks();
  }
  template <class Hasher, class Policy>
  void add(const BasicStripedConcurrentFilter<Hasher, Policy>& f) {
    const cuckoo::StripedFilterStats s = f.stats();
    moves += s.path_hops;
    stashed += s.stash_inserts;
    fulls += s.full_rejections;
    duplicates += s.duplicate_rejections;
    retries += s.path_retries + s.optimistic_retries;
  }
  template <class Hasher, class Sync>
  void add(const BasicLockFreeFilter<Hasher, Sync>& f) {
    const cuckoo::LockFreeFilterStats s = f.stats();
    lock_free = true;
    moves += s.path_hops;
    fulls += s.full_rejections;
    duplicates += s.duplicate_rejections;
    retries += s.path_retries + s.lookup_retries;
    lost_cas += s.update_retries;
  }
  std::string describe() const {
    std::string text = std::to_string(moves) + " items moved, " + std::to_string(stashed) +
                       " stashed, " + std::to_string(fulls) + " kFull, " +
                       std::to_string(duplicates) + " kDuplicateLimit, " +
                       std::to_string(retries) + " path/read retries, ";
    if (lock_free) {
      return text + std::to_string(lost_cas) + " lost single-bucket CASes, " +
             std::to_string(invariant_checks) + " invariant checks";
    }
    return text + std::to_string(transactions) + " transactions, " + std::to_string(fallbacks) +
           " fallback-lock sections";
  }
};

struct Totals {
  std::uint64_t histories = 0;
  std::uint64_t ops = 0;
  std::uint64_t partitions = 0;
  std::uint64_t steps = 0;
  std::uint64_t overlapping = 0;  // histories with two ops on one key open at once
  std::uint64_t caught = 0;       // histories found not linearizable
  Coverage coverage;
  void add(const CheckResult& r) {
    ++histories;
    ops += r.stats.ops_checked;
    partitions += r.stats.partitions;
    steps += r.stats.steps;
    overlapping += r.stats.max_concurrency >= 2 ? 1 : 0;
    caught += r.not_linearizable() ? 1 : 0;
  }
  void print(const std::string& what, std::chrono::steady_clock::duration elapsed) const {
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(elapsed).count();
    std::cout << "[ checked  ] " << what << ": " << histories << " histories, " << ops
              << " ops checked, " << partitions << " key partitions, " << steps
              << " search steps, " << overlapping << " with overlapping ops on a key, " << caught
              << " not linearizable; " << coverage.describe() << "; " << ms << " ms\n";
  }
};

std::string reproduce_hint(const RunResult& run, const HistoryShape& shape) {
  const ::testing::TestInfo* test = ::testing::UnitTest::GetInstance()->current_test_info();
  char seed[32];
  std::snprintf(seed, sizeof seed, "0x%llx", static_cast<unsigned long long>(run.config.seed));
  return "run: " + run.reproduce() + "\n" + shape.describe() +
         "\nreproduce: CUCKOO_STRESS_SEED=" + seed +
         " ./stress_concurrent_filter_stress_test --gtest_filter=" + test->test_suite_name() + "." +
         test->name() + "\n";
}

// Runs one history against a fresh filter from `make`; returns the check.
template <class Filter, class Make>
CheckResult run_one(std::uint64_t seed, bool key_ownership, Workload workload, const Make& make,
                    Totals& totals, std::string* failure) {
  const HistoryShape shape = history_shape(seed, key_ownership, workload);
  const std::unique_ptr<Filter> filter = make(shape.filter);
  const CheckedHistory h = cuckoo::subjects::run_and_check_filter(
      *filter, shape.driver, /*erase_absent_may_succeed=*/!key_ownership);
  totals.add(h.check);
  totals.coverage.add(*filter);
  if (!h.check.linearizable() && failure != nullptr) {
    *failure = reproduce_hint(h.run, shape) + h.check.describe();
  }
  // The driver has joined its threads: the filter is quiescent, so a design that can
  // check its invariants must pass them (a linearizable history that leaves a broken
  // table is still a failure).
  if constexpr (requires { filter->check_invariants(); }) {
    EXPECT_EQ(filter->check_invariants(), "")
        << "check_invariants() after the history\n" << reproduce_hint(h.run, shape);
    ++totals.coverage.invariant_checks;
  }
  return h.check;
}

// Every history of the configuration must be linearizable.
template <class Filter, class Make>
void expect_all_linearizable(const std::string& what, std::uint64_t base_seed, int histories,
                             bool key_ownership, Workload workload, const Make& make) {
  const auto start = std::chrono::steady_clock::now();
  Totals totals;
  for (const std::uint64_t seed : history_seeds(base_seed, histories)) {
    std::string failure;
    const CheckResult result =
        run_one<Filter>(seed, key_ownership, workload, make, totals, &failure);
    ASSERT_TRUE(result.linearizable()) << what << "\n" << failure;
  }
  totals.print(what, std::chrono::steady_clock::now() - start);
  // The verdicts mean something only if the runs overlapped and moved items around.
  EXPECT_GE(totals.overlapping * 2, totals.histories) << "too few histories overlap on a key";
  if (totals.histories >= 20) {
    EXPECT_GT(totals.coverage.moves, 0U) << "no item was ever moved";
    if (workload == Workload::kPaths) {
      EXPECT_GE(totals.coverage.moves, totals.histories) << "too few items moved";
    } else {
      if constexpr (Filter::kStashSlots > 0) {
        EXPECT_GT(totals.coverage.stashed, 0U) << "the stash was never used";
      }
      EXPECT_GT(totals.coverage.fulls, 0U) << "no insert was ever refused as full";
      EXPECT_GT(totals.coverage.duplicates, 0U) << "the copy limit was never reached";
    }
  }
}


// Both workloads, `histories` each.
template <class Filter, class Make>
void expect_both_workloads_linearizable(const std::string& what, std::uint64_t base_seed,
                                        int histories, bool key_ownership, const Make& make) {
  expect_all_linearizable<Filter>(what + " [duplicates workload]", base_seed, histories,
                                  key_ownership, Workload::kDuplicates, make);
  expect_all_linearizable<Filter>(what + " [paths workload]", base_seed + 0x8000, histories,
                                  key_ownership, Workload::kPaths, make);
}

// ---------------------------------------------------------------- coarse design

struct BackendCase {
  std::string name;
  std::function<HtmPolicy()> make;
};

void PrintTo(const BackendCase& c, std::ostream* os) { *os << c.name; }

std::vector<HtmStatus> mixed_script() {
  return {HtmStatus::make_started(),    HtmStatus::make_conflict(true),
          HtmStatus::make_started(),    HtmStatus::make_capacity(),
          HtmStatus(HtmStatus::kRetry), HtmStatus::make_started(),
          HtmStatus::make_conflict(false)};
}

std::vector<BackendCase> all_backends() {
  return {
      {"hardware", [] { return HtmPolicy::hardware(); }},
      {"disabled", [] { return HtmPolicy::disabled(); }},
      {"always_abort", [] { return HtmPolicy::always_abort(HtmStatus::make_conflict(true)); }},
      {"scripted", [] { return HtmPolicy::scripted(mixed_script(), ScriptEnd::kRepeat); }},
      {"random", [] { return HtmPolicy::random(0.3, 0xabad1deaULL); }},
      {"serial_emulation", [] { return HtmPolicy::serial_emulation(); }},
  };
}

class CoarseFilterStress : public ::testing::TestWithParam<BackendCase> {};

TEST_P(CoarseFilterStress, OwnedKeysAreLinearizable) {
  const BackendCase& backend = GetParam();
  if (backend.name == "hardware" && !cuckoo::sync::hardware_rtm_available()) {
    GTEST_SKIP() << "no hardware RTM in this build or on this CPU; the disabled and emulated "
                    "backends cover the fallback path";
  }
  expect_both_workloads_linearizable<CoarseConcurrentFilter>(
      "coarse filter, backend " + backend.name + " (effective " +
          std::string(to_string(cuckoo::sync::Htm(backend.make()).effective_backend())) + ")",
      0xcf00'0000ULL, kHistoriesPerConfig, /*key_ownership=*/true,
      [&backend](const CuckooFilterConfig& c) {
        return std::make_unique<CoarseConcurrentFilter>(c, backend.make());
      });
}

INSTANTIATE_TEST_SUITE_P(EveryHtmBackend, CoarseFilterStress, ::testing::ValuesIn(all_backends()),
                         [](const ::testing::TestParamInfo<BackendCase>& param) {
                           return param.param.name;
                         });

TEST(CoarseFilterStressShared, SharedKeysAreLinearizable) {
  expect_both_workloads_linearizable<CoarseConcurrentFilter>(
      "coarse filter, automatic backend, keys shared by all writers", 0xcf01'0000ULL,
      kHistoriesPerConfig, /*key_ownership=*/false, [](const CuckooFilterConfig& c) {
        return std::make_unique<CoarseConcurrentFilter>(c, HtmPolicy::automatic());
      });
}

// --------------------------------------------------------------- striped design

template <class Policy = StripedFilterPolicy>
auto make_striped(std::size_t stripes) {
  return [stripes](const CuckooFilterConfig& c) {
    StripedFilterOptions options;
    options.stripes = stripes;
    return std::make_unique<BasicStripedConcurrentFilter<DefaultHasher, Policy>>(c, options);
  };
}

using StripedFilter = BasicStripedConcurrentFilter<DefaultHasher, StripedFilterPolicy>;

TEST(StripedFilterStress, AutomaticStripesAreLinearizable) {
  expect_both_workloads_linearizable<StripedFilter>(
      "striped filter, automatic stripes", 0x5f00'0000ULL, kHistoriesPerConfig, true,
      make_striped(0));
}

TEST(StripedFilterStress, OneStripeIsLinearizable) {
  expect_both_workloads_linearizable<StripedFilter>("striped filter, 1 stripe", 0x5f01'0000ULL,
                                                    kHistoriesPerConfig, true, make_striped(1));
}

TEST(StripedFilterStress, TwoStripesAreLinearizable) {
  expect_both_workloads_linearizable<StripedFilter>("striped filter, 2 stripes", 0x5f02'0000ULL,
                                                    kHistoriesPerConfig, true, make_striped(2));
}

TEST(StripedFilterStress, SharedKeysAreLinearizable) {
  expect_both_workloads_linearizable<StripedFilter>(
      "striped filter, keys shared by all writers", 0x5f03'0000ULL, kHistoriesPerConfig, false,
      make_striped(0));
}

// The correct design with the schedule perturbed where the broken variants below break:
// the perturbation alone must not make a history fail.
struct PerturbedPolicy : StripedFilterPolicy {
  static void window(StripedWindow) noexcept { std::this_thread::yield(); }
};
using PerturbedFilter = BasicStripedConcurrentFilter<DefaultHasher, PerturbedPolicy>;

TEST(StripedFilterStress, PerturbedScheduleIsLinearizable) {
  expect_both_workloads_linearizable<PerturbedFilter>(
      "striped filter, yields in the race windows", 0x5f04'0000ULL, kHistoriesPerConfig, true,
      make_striped<PerturbedPolicy>(0));
}

// ------------------------------------------------------------- lock-free design

auto make_lock_free() {
  return [](const CuckooFilterConfig& c) { return std::make_unique<LockFreeFilter>(c); };
}

TEST(LockFreeFilterStress, OwnedKeysAreLinearizable) {
  expect_both_workloads_linearizable<LockFreeFilter>("lock-free filter", 0x1f00'0000ULL,
                                                     kHistoriesPerConfig, true, make_lock_free());
}

TEST(LockFreeFilterStress, SharedKeysAreLinearizable) {
  expect_both_workloads_linearizable<LockFreeFilter>(
      "lock-free filter, keys shared by all writers", 0x1f01'0000ULL, kHistoriesPerConfig, false,
      make_lock_free());
}

// The lock-free filter has no race-window hook like the striped design's; its sync policy
// is the seam instead. YieldingSync is StdSync whose atomics yield before every
// kYieldEveryAtomic-th load, store or CAS of a thread (K-CAS words, descriptors, thread
// ids): a thread is descheduled between the reads of a lookup's double collect, between
// a path search and its hops, and in the middle of a K-CAS (its installs, decision and
// release), where other threads then meet and help its descriptor.
constexpr unsigned kYieldEveryAtomic = 5;

inline void maybe_yield() noexcept {
  thread_local unsigned calls = 0;
  if (++calls % kYieldEveryAtomic == 0) std::this_thread::yield();
}

template <class T>
struct YieldingAtomic : std::atomic<T> {
  using std::atomic<T>::atomic;
  T load(std::memory_order order = std::memory_order_seq_cst) const noexcept {
    maybe_yield();
    return std::atomic<T>::load(order);
  }
  void store(T value, std::memory_order order = std::memory_order_seq_cst) noexcept {
    maybe_yield();
    std::atomic<T>::store(value, order);
  }
  bool compare_exchange_strong(T& expected, T desired,
                               std::memory_order order = std::memory_order_seq_cst) noexcept {
    maybe_yield();
    return std::atomic<T>::compare_exchange_strong(expected, desired, order);
  }
  bool compare_exchange_strong(T& expected, T desired, std::memory_order success,
                               std::memory_order failure) noexcept {
    maybe_yield();
    return std::atomic<T>::compare_exchange_strong(expected, desired, success, failure);
  }
};

struct YieldingSync : cuckoo::sync::StdSync {
  template <class T>
  using Atomic = YieldingAtomic<T>;
};
using YieldingLockFreeFilter = BasicLockFreeFilter<DefaultHasher, YieldingSync>;

TEST(LockFreeFilterStress, PerturbedScheduleIsLinearizable) {
  expect_both_workloads_linearizable<YieldingLockFreeFilter>(
      "lock-free filter, yields before every " + std::to_string(kYieldEveryAtomic) +
          "th atomic step",
      0x1f02'0000ULL,
      kHistoriesPerConfig, true, [](const CuckooFilterConfig& c) {
        return std::make_unique<YieldingLockFreeFilter>(c);
      });
}

// ------------------------------------------------------------- broken variants

// Runs histories until the checker reports one as not linearizable; fails if none is
// within kBrokenHistoryLimit (times the multiplier).
template <class Filter, class Make>
void expect_caught(const std::string& what, std::uint64_t base_seed, Workload workload,
                   const Make& make) {
  const auto start = std::chrono::steady_clock::now();
  Totals totals;
  std::string first_failure;
  for (const std::uint64_t seed : history_seeds(base_seed, kBrokenHistoryLimit)) {
    std::string failure;
    const CheckResult result = run_one<Filter>(seed, true, workload, make, totals, &failure);
    ASSERT_FALSE(result.undecided()) << failure;
    if (result.not_linearizable()) {
      first_failure = failure;
      break;
    }
  }
  totals.print(what, std::chrono::steady_clock::now() - start);
  ASSERT_EQ(totals.caught, 1U) << what << ": the checker did not catch the bug in "
                               << totals.histories << " histories";
  // Show what was caught: the run, the verdict and the start of its explanation.
  std::cout << "[ caught   ] " << what << " after " << totals.histories << " histories:\n"
            << first_failure.substr(0, std::min<std::size_t>(first_failure.size(), 1500)) << "\n";
}

// Bug: a path hop moves the fingerprint the lock-free search saw without re-checking,
// under the locks, that its slot still holds it. Whatever item took the slot since is
// overwritten (lost: a false negative), or an erased item is copied back (an extra
// copy: kDuplicateLimit too early).
struct UnvalidatedHopsPolicy : StripedFilterPolicy {
  static constexpr bool kValidatePathHops = false;
  static void window(StripedWindow) noexcept { std::this_thread::yield(); }
};

TEST(StripedFilterBroken, UnvalidatedPathHopsAreCaught) {
  expect_caught<BasicStripedConcurrentFilter<DefaultHasher, UnvalidatedHopsPolicy>>(
      "BROKEN striped filter: path hops not re-validated", 0xbad0'0000ULL, Workload::kPaths,
      make_striped<UnvalidatedHopsPolicy>(0));
}

// Bug: a lookup answers "absent" from its optimistic read without re-checking the stripe
// versions, so an item moved from bucket2 to bucket1 between its two bucket reads is
// missed (a false negative).
struct UnvalidatedReadsPolicy : StripedFilterPolicy {
  static constexpr bool kValidateOptimisticReads = false;
  static void window(StripedWindow) noexcept { std::this_thread::yield(); }
};

TEST(StripedFilterBroken, UnvalidatedOptimisticReadsAreCaught) {
  expect_caught<BasicStripedConcurrentFilter<DefaultHasher, UnvalidatedReadsPolicy>>(
      "BROKEN striped filter: lookups not re-validated", 0xbad1'0000ULL, Workload::kPaths,
      make_striped<UnvalidatedReadsPolicy>(0));
}

}  // namespace
