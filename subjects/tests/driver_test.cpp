// The stress driver against correct subjects (a std::mutex-protected std::multiset and
// std::map, a lock-free map of atomic words), which must come out linearizable over many
// short histories, and against deliberately broken ones (a filter that lies about present
// keys, a map with check-then-act windows), which the checker must catch. Plus the
// driver's options, its validation and its watchdog.
//
// Reproduce a failing history: every failure prints its seed; rerun the test with
//   CUCKOO_STRESS_SEED=<seed> ./stress_driver_test --gtest_filter=<Suite.Test>
// which runs that one history configuration (threads, op count and key range are derived
// from the seed). The interleaving is the scheduler's, so a rare failure may need a few
// reruns; the failure message also holds the failing sub-history in text form, which
// parse_history reads back for a deterministic re-check.
#include "cuckoo/subjects/driver.hpp"

#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "cuckoo/subjects/history.hpp"
#include "cuckoo/subjects/linearizability.hpp"

namespace cuckoo::subjects {
namespace {

constexpr std::uint64_t kMultisetSeed = 0x3b1a'0000ULL;
constexpr std::uint64_t kMapSeed = 0x3b1b'0000ULL;
constexpr std::uint64_t kAtomicMapSeed = 0x3b1c'0000ULL;
constexpr std::uint64_t kBrokenSeed = 0x3b1d'0000ULL;
constexpr int kCorrectHistories = 200;
// Keys of the fixed-size subjects; every driver config below stays under it.
constexpr std::uint64_t kMaxKeys = 16;
// Copy limit of the LockedMultiset standing in for a filter (a real filter's is 2b).
constexpr std::uint64_t kFilterMaxCopies = 2;

// ------------------------------------------------------------------------ subjects

// The correct subjects' lock. It yields while held, so that other threads' calls queue
// behind it and overlap this one: short runs on a loaded two-core machine otherwise
// seldom overlap on one key, and a history without overlap tests nothing.
class HeldLock {
 public:
  explicit HeldLock(std::mutex& mutex) : lock_(mutex) { std::this_thread::yield(); }

 private:
  std::lock_guard<std::mutex> lock_;
};

// Correct: an exact multiset under one mutex; with a copy limit it answers
// duplicate_limit like a filter does.
class LockedMultiset {
 public:
  explicit LockedMultiset(std::optional<std::uint64_t> max_copies = std::nullopt)
      : max_copies_(max_copies) {}
  InsertOutcome insert(std::uint64_t key) {
    const HeldLock lock(mutex_);
    if (max_copies_ && items_.count(key) >= *max_copies_) return InsertOutcome::kDuplicateLimit;
    items_.insert(key);
    return InsertOutcome::kInserted;
  }
  bool erase(std::uint64_t key) {
    const HeldLock lock(mutex_);
    const auto it = items_.find(key);
    if (it == items_.end()) return false;
    items_.erase(it);
    return true;
  }
  bool contains(std::uint64_t key) const {
    const HeldLock lock(mutex_);
    return items_.count(key) > 0;
  }
  std::uint64_t size() const {
    const HeldLock lock(mutex_);
    return items_.size();
  }

 private:
  mutable std::mutex mutex_;
  std::multiset<std::uint64_t> items_;
  std::optional<std::uint64_t> max_copies_;
};

// Correct: an exact map under one mutex.
class LockedMap {
 public:
  InsertOutcome insert(std::uint64_t key, std::uint64_t value) {
    const HeldLock lock(mutex_);
    return map_.emplace(key, value).second ? InsertOutcome::kInserted : InsertOutcome::kExists;
  }
  InsertOutcome insert_or_assign(std::uint64_t key, std::uint64_t value) {
    const HeldLock lock(mutex_);
    return map_.insert_or_assign(key, value).second ? InsertOutcome::kInserted
                                                    : InsertOutcome::kUpdated;
  }
  bool erase(std::uint64_t key) {
    const HeldLock lock(mutex_);
    return map_.erase(key) > 0;
  }
  std::optional<std::uint64_t> find(std::uint64_t key) const {
    const HeldLock lock(mutex_);
    const auto it = map_.find(key);
    return it == map_.end() ? std::nullopt : std::optional<std::uint64_t>{it->second};
  }
  bool contains(std::uint64_t key) const {
    const HeldLock lock(mutex_);
    return map_.count(key) > 0;
  }
  std::uint64_t size() const {
    const HeldLock lock(mutex_);
    return map_.size();
  }

 private:
  mutable std::mutex mutex_;
  std::map<std::uint64_t, std::uint64_t> map_;
};

// Correct without locks: one atomic word per key, 0 for absent, value + 1 for present;
// every operation is one atomic read-modify-write or load, hence linearizable. No size():
// a sum of per-key loads is not an atomic snapshot.
class AtomicWordMap {
 public:
  InsertOutcome insert(std::uint64_t key, std::uint64_t value) {
    std::uint64_t expected = 0;
    return slot(key).compare_exchange_strong(expected, value + 1, std::memory_order_acq_rel)
               ? InsertOutcome::kInserted
               : InsertOutcome::kExists;
  }
  InsertOutcome insert_or_assign(std::uint64_t key, std::uint64_t value) {
    return slot(key).exchange(value + 1, std::memory_order_acq_rel) == 0 ? InsertOutcome::kInserted
                                                                         : InsertOutcome::kUpdated;
  }
  bool erase(std::uint64_t key) { return slot(key).exchange(0, std::memory_order_acq_rel) != 0; }
  std::optional<std::uint64_t> find(std::uint64_t key) const {
    const std::uint64_t word = slot(key).load(std::memory_order_acquire);
    return word == 0 ? std::nullopt : std::optional<std::uint64_t>{word - 1};
  }
  bool contains(std::uint64_t key) const { return slot(key).load(std::memory_order_acquire) != 0; }

 private:
  // Every call goes through here and yields first, widening the call as HeldLock does.
  std::atomic<std::uint64_t>& slot(std::uint64_t key) {
    std::this_thread::yield();
    return slots_.at(key);
  }
  const std::atomic<std::uint64_t>& slot(std::uint64_t key) const {
    std::this_thread::yield();
    return slots_.at(key);
  }
  std::array<std::atomic<std::uint64_t>, kMaxKeys> slots_{};
};

// Broken: a filter that answers "no" for a present key on every kLieEvery-th contains. Not
// a concurrency bug; the checker must still see it (a false negative, claim C1).
class LyingFilter {
 public:
  static constexpr std::uint64_t kLieEvery = 5;
  InsertOutcome insert(std::uint64_t key) { return inner_.insert(key); }
  bool erase(std::uint64_t key) { return inner_.erase(key); }
  bool contains(std::uint64_t key) const {
    const bool present = inner_.contains(key);
    if (present && calls_.fetch_add(1, std::memory_order_relaxed) % kLieEvery == 0) return false;
    return present;
  }

 private:
  LockedMultiset inner_;
  mutable std::atomic<std::uint64_t> calls_{0};
};

// Broken under concurrency only: every update checks, yields, then acts, and a value and
// its presence flag are separate words. Alone it is a correct map; two threads on one key
// can both insert, both erase, or lose an update. Every access is atomic, so there is no
// data race for ThreadSanitizer to report: the bug is purely one of atomicity, which is
// what the linearizability checker is for.
class CheckThenActMap {
 public:
  InsertOutcome insert(std::uint64_t key, std::uint64_t value) {
    Slot& s = slots_.at(key);
    if (s.present.load()) return InsertOutcome::kExists;
    window();
    s.value.store(value);
    s.present.store(true);
    return InsertOutcome::kInserted;
  }
  InsertOutcome insert_or_assign(std::uint64_t key, std::uint64_t value) {
    Slot& s = slots_.at(key);
    const bool was_present = s.present.load();
    window();
    s.value.store(value);
    s.present.store(true);
    return was_present ? InsertOutcome::kUpdated : InsertOutcome::kInserted;
  }
  bool erase(std::uint64_t key) {
    Slot& s = slots_.at(key);
    if (!s.present.load()) return false;
    window();
    s.present.store(false);
    return true;
  }
  std::optional<std::uint64_t> find(std::uint64_t key) const {
    const Slot& s = slots_.at(key);
    if (!s.present.load()) return std::nullopt;
    return s.value.load();
  }
  bool contains(std::uint64_t key) const { return slots_.at(key).present.load(); }

 private:
  struct Slot {
    std::atomic<bool> present{false};
    std::atomic<std::uint64_t> value{0};
  };
  static void window() { std::this_thread::yield(); }
  std::array<Slot, kMaxKeys> slots_{};
};

// -------------------------------------------------------------------------- helpers

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

// One short history's configuration, derived from its seed alone: 2-4 threads, 50-200
// ops per thread, 4-8 keys.
DriverConfig short_history_config(std::uint64_t seed, const OpMix& mix) {
  SplitMix64 rng(seed);
  DriverConfig config;
  config.seed = seed;
  config.threads = static_cast<std::uint32_t>(2 + rng.below(3));
  config.ops_per_thread = 50 + rng.below(151);
  config.key_range = 4 + rng.below(5);
  config.mix = mix;
  return config;
}

std::string reproduce_hint(const RunResult& run) {
  const ::testing::TestInfo* test = ::testing::UnitTest::GetInstance()->current_test_info();
  char seed[32];
  std::snprintf(seed, sizeof seed, "0x%llx", static_cast<unsigned long long>(run.config.seed));
  return std::string("run: ") + run.reproduce() + "\nreproduce: CUCKOO_STRESS_SEED=" + seed +
         " ./stress_driver_test --gtest_filter=" + test->test_suite_name() + "." + test->name() +
         "\n";
}

struct Totals {
  std::uint64_t histories = 0;
  std::uint64_t ops = 0;
  std::uint64_t partitions = 0;
  std::uint64_t steps = 0;
  std::uint64_t cache_hits = 0;
  std::uint64_t not_linearizable = 0;
  std::uint64_t concurrent = 0;  // histories with two ops on one key open at once
  void add(const CheckResult& result) {
    concurrent += result.stats.max_concurrency >= 2 ? 1 : 0;
    ++histories;
    ops += result.stats.ops_checked;
    partitions += result.stats.partitions;
    steps += result.stats.steps;
    cache_hits += result.stats.cache_hits;
    not_linearizable += result.not_linearizable() ? 1 : 0;
  }
  void print(const std::string& what) const {
    std::cout << "[ checked  ] " << what << ": " << histories << " histories, " << ops << " ops, "
              << partitions << " key partitions, " << steps << " search steps, " << cache_hits
              << " cache hits, " << concurrent << " with overlapping ops on a key, "
              << not_linearizable << " not linearizable\n";
  }
};

// Runs `histories` short histories against a fresh subject each and expects every one to
// be linearizable.
template <class MakeSubject, class Check>
void expect_all_linearizable(const std::string& what, std::uint64_t base_seed, int histories,
                             const OpMix& mix, MakeSubject make, Check check) {
  Totals totals;
  for (std::uint64_t seed : history_seeds(base_seed, histories)) {
    auto target = make();
    const RunResult run = run_stress(make_subject(*target), short_history_config(seed, mix));
    const CheckResult result = check(run.history);
    totals.add(result);
    ASSERT_TRUE(result.linearizable()) << reproduce_hint(run) << result.describe();
  }
  totals.print(what);
  // The runs must exercise concurrency for the verdict to mean anything.
  EXPECT_GE(totals.concurrent * 2, totals.histories) << "too few histories overlap on a key";
}

// ------------------------------------------------------------- correct subjects pass

TEST(StressCorrectSubjects, LockedMultisetIsLinearizable) {
  expect_all_linearizable(
      "locked std::multiset", kMultisetSeed, kCorrectHistories, OpMix::multiset(),
      [] { return std::make_unique<LockedMultiset>(); },
      [](const History& h) { return check_multiset(h, MultisetSpec::exact()); });
}

TEST(StressCorrectSubjects, LockedMultisetWithCopyLimitMatchesTheFilterSpec) {
  OpMix mix = OpMix::multiset();
  mix.erase = 10;  // keep keys near their copy limit
  expect_all_linearizable(
      "locked std::multiset, 2 copies at most", kMultisetSeed + 0x1000, 50, mix,
      [] { return std::make_unique<LockedMultiset>(kFilterMaxCopies); },
      [](const History& h) { return check_multiset(h, MultisetSpec::filter(kFilterMaxCopies)); });
}

TEST(StressCorrectSubjects, LockedMapIsLinearizable) {
  expect_all_linearizable(
      "locked std::map", kMapSeed, kCorrectHistories, OpMix::map(),
      [] { return std::make_unique<LockedMap>(); }, [](const History& h) { return check_map(h); });
}

TEST(StressCorrectSubjects, LockFreeAtomicWordMapIsLinearizable) {
  OpMix mix = OpMix::map();
  mix.size = 0;
  expect_all_linearizable(
      "atomic-word map", kAtomicMapSeed, 100, mix, [] { return std::make_unique<AtomicWordMap>(); },
      [](const History& h) { return check_map(h); });
}

// ---------------------------------------------------------- broken subjects caught

TEST(StressBrokenSubjects, LyingFilterIsCaught) {
  Totals totals;
  std::optional<CheckResult> first;
  for (std::uint64_t seed : history_seeds(kBrokenSeed, 30)) {
    LyingFilter filter;
    OpMix mix = OpMix::multiset();
    mix.size = 0;
    const RunResult run = run_stress(make_subject(filter), short_history_config(seed, mix));
    const CheckResult result = check_multiset(run.history, MultisetSpec::filter());
    ASSERT_FALSE(result.undecided()) << reproduce_hint(run) << result.describe();
    totals.add(result);
    if (result.not_linearizable() && !first) first = result;
  }
  totals.print("lying filter");
  ASSERT_TRUE(first.has_value()) << "no history caught the false negatives";
  EXPECT_GE(totals.not_linearizable * 2, totals.histories)
      << "caught in at least half the histories";
  const auto& violation = std::get<NotLinearizable>(first->verdict);
  EXPECT_NE(violation.explanation.find("contains returned false (a false negative)"),
            std::string::npos)
      << first->describe();
}

TEST(StressBrokenSubjects, CheckThenActMapIsCaughtOnlyUnderConcurrency) {
  OpMix mix = OpMix::map();
  mix.size = 0;
  // Alone, the map is correct.
  for (std::uint64_t seed : history_seeds(kBrokenSeed + 0x100, 20)) {
    CheckThenActMap map;
    DriverConfig config = short_history_config(seed, mix);
    config.threads = 1;
    const RunResult run = run_stress(make_subject(map), config);
    const CheckResult result = check_map(run.history);
    ASSERT_TRUE(result.linearizable()) << reproduce_hint(run) << result.describe();
  }
  // Concurrently, its windows show.
  Totals totals;
  std::optional<CheckResult> first;
  for (std::uint64_t seed : history_seeds(kBrokenSeed + 0x200, 60)) {
    CheckThenActMap map;
    const RunResult run = run_stress(make_subject(map), short_history_config(seed, mix));
    const CheckResult result = check_map(run.history);
    ASSERT_FALSE(result.undecided()) << reproduce_hint(run) << result.describe();
    totals.add(result);
    if (result.not_linearizable() && !first) first = result;
  }
  totals.print("check-then-act map");
  ASSERT_TRUE(first.has_value()) << "no history caught the check-then-act windows";
  EXPECT_GE(totals.not_linearizable * 4, totals.histories)
      << "caught in at least a quarter of the histories";
  // The failing sub-history stands on its own: saved as text and re-checked, it fails again.
  const auto& violation = std::get<NotLinearizable>(first->verdict);
  ASSERT_TRUE(violation.key.has_value());
  for (const Operation& op : violation.ops) EXPECT_EQ(op.key, *violation.key);
  const History reparsed = parse_history(dump_history(violation.ops));
  EXPECT_TRUE(check_map(reparsed).not_linearizable()) << first->describe();
}

// -------------------------------------- the partitioned check agrees with the whole

TEST(StressCrossCheck, PartitionedAndWholeHistorySearchAgreeOnDriverHistories) {
  OpMix mix = OpMix::map();
  mix.size = 0;  // the partitioned check handles size() by bounds only
  int disagreements = 0;
  int violations = 0;
  for (std::uint64_t seed : history_seeds(kBrokenSeed + 0x300, 60)) {
    DriverConfig config;
    config.seed = seed;
    config.threads = 2;
    config.ops_per_thread = 12;
    config.key_range = 3;
    config.mix = mix;
    LockedMap correct;
    CheckThenActMap broken;
    for (const Subject& subject : {make_subject(correct), make_subject(broken)}) {
      const RunResult run = run_stress(subject, config);
      const CheckResult partitioned = check_map(run.history);
      const CheckResult whole = check_map(run.history, {.partition_by_key = false});
      ASSERT_FALSE(whole.undecided()) << reproduce_hint(run);
      disagreements += partitioned.linearizable() != whole.linearizable() ? 1 : 0;
      violations += whole.not_linearizable() ? 1 : 0;
      EXPECT_EQ(partitioned.linearizable(), whole.linearizable())
          << reproduce_hint(run) << dump_history(run.history) << partitioned.describe()
          << whole.describe();
    }
  }
  EXPECT_EQ(disagreements, 0);
  std::cout << "[ checked  ] " << violations << " of 120 small histories not linearizable\n";
}

// ----------------------------------------------------------------- driver options

TEST(StressDriver, KeyOwnershipRestrictsWritesToOwnedKeys) {
  LockedMap map;
  DriverConfig config;
  config.seed = 7;
  config.threads = 3;
  config.key_range = 9;
  config.ops_per_thread = 300;
  config.mix = OpMix::map();
  config.key_ownership = true;
  const RunResult run = run_stress(make_subject(map), config);
  ASSERT_EQ(run.history.size(), 900U);
  bool foreign_read = false;
  for (const Operation& op : run.history) {
    const bool writes = op.kind == OpKind::kInsert || op.kind == OpKind::kErase ||
                        op.kind == OpKind::kInsertOrAssign;
    if (writes) {
      EXPECT_EQ(op.key % config.threads, op.thread) << format_operation(op);
    } else if (op.kind != OpKind::kSize && op.key % config.threads != op.thread) {
      foreign_read = true;
    }
  }
  EXPECT_TRUE(foreign_read) << "reads still range over every key";
  EXPECT_TRUE(check_map(run.history).linearizable());
}

TEST(StressDriver, EraseOnlyPresentErasesOwnedPresentKeys) {
  LockedMultiset filter;
  DriverConfig config;
  config.seed = 11;
  config.threads = 4;
  config.key_range = 8;
  config.ops_per_thread = 200;
  config.mix = OpMix{30, 40, 30, 0, 0, 0};
  config.key_ownership = true;
  config.erase_only_present = true;
  const RunResult run = run_stress(make_subject(filter), config);
  std::uint64_t erases = 0;
  for (const Operation& op : run.history) {
    if (op.kind != OpKind::kErase) continue;
    ++erases;
    EXPECT_TRUE(std::get<bool>(op.result)) << format_operation(op);
  }
  EXPECT_GT(erases, 100U);
  EXPECT_TRUE(check_multiset(run.history, MultisetSpec::exact()).linearizable());
}

TEST(StressDriver, SameSeedGivesSameOperationSequences) {
  auto sequences = [](std::uint64_t seed) {
    LockedMap map;
    DriverConfig config;
    config.seed = seed;
    config.threads = 3;
    config.ops_per_thread = 100;
    config.mix = OpMix::map();
    const RunResult run = run_stress(make_subject(map), config);
    std::vector<std::vector<std::string>> calls(config.threads);
    for (const Operation& op : run.history) calls[op.thread].push_back(format_call(op));
    return calls;
  };
  const auto first = sequences(0xabc);
  EXPECT_EQ(first, sequences(0xabc));
  EXPECT_NE(first, sequences(0xabd));
  EXPECT_EQ(first[0].size(), 100U);
  EXPECT_NE(first[0], first[1]) << "threads draw from different streams";
}

TEST(StressDriver, DurationModeRunsUntilTheDeadlineOrTheOpBound) {
  // A slow subject (each contains sleeps) is stopped by the deadline...
  LockedMultiset set;
  Subject slow = make_subject(set);
  slow.contains = [&set](std::uint64_t key) {
    std::this_thread::sleep_for(std::chrono::microseconds(200));
    return set.contains(key);
  };
  DriverConfig config;
  config.seed = 5;
  config.threads = 2;
  config.ops_per_thread = 0;
  config.duration = std::chrono::milliseconds(40);
  config.max_ops_per_thread = 100'000;
  const RunResult run = run_stress(slow, config);
  EXPECT_GE(run.elapsed, config.duration);
  ASSERT_FALSE(run.history.empty());
  for (std::uint64_t ops : run.ops_per_thread) EXPECT_LT(ops, config.max_ops_per_thread);
  const CheckResult result = check_multiset(run.history, MultisetSpec::exact());
  EXPECT_TRUE(result.linearizable()) << reproduce_hint(run) << result.describe();

  // ...a fast one by max_ops_per_thread.
  LockedMultiset fast;
  config.duration = std::chrono::milliseconds(20'000);
  config.max_ops_per_thread = 500;
  const RunResult bounded = run_stress(make_subject(fast), config);
  EXPECT_LT(bounded.elapsed, config.duration);
  for (std::uint64_t ops : bounded.ops_per_thread) EXPECT_EQ(ops, 500U);
}

TEST(StressDriver, WrittenValuesAreUniquePerRun) {
  LockedMap map;
  DriverConfig config;
  config.seed = 3;
  config.threads = 4;
  config.mix = OpMix::map();
  const RunResult run = run_stress(make_subject(map), config);
  std::set<std::uint64_t> values;
  for (const Operation& op : run.history) {
    if (kind_has_value(op.kind)) {
      EXPECT_TRUE(values.insert(op.value).second) << format_operation(op);
    }
  }
  EXPECT_FALSE(values.empty());
}

TEST(StressDriver, InvalidConfigurationsNameTheField) {
  LockedMultiset set;
  const Subject subject = make_subject(set);
  auto expect_rejected = [&subject](const DriverConfig& config, const std::string& fragment) {
    try {
      (void)run_stress(subject, config);
      ADD_FAILURE() << "accepted; expected an error naming " << fragment;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
    }
  };
  DriverConfig config;
  config.mix = OpMix::map();
  expect_rejected(config, "mix.find = 20 but Subject::find is empty");
  config = DriverConfig{};
  config.threads = 0;
  expect_rejected(config, "threads = 0");
  config = DriverConfig{};
  config.key_ownership = true;
  config.threads = 4;
  config.key_range = 3;
  expect_rejected(config, "key_ownership with key_range = 3 < threads = 4");
  config = DriverConfig{};
  config.erase_only_present = true;
  expect_rejected(config, "erase_only_present requires key_ownership");
  config = DriverConfig{};
  config.duration = std::chrono::milliseconds(10);
  expect_rejected(config, "both set");
  config = DriverConfig{};
  config.mix = OpMix{0, 0, 0, 0, 0, 0};
  expect_rejected(config, "every weight is 0");
}

TEST(StressDriver, SubjectExceptionsAreReportedWithTheSeed) {
  Subject subject;
  subject.insert = [](std::uint64_t, std::uint64_t) -> InsertOutcome {
    throw std::runtime_error("boom");
  };
  subject.erase = [](std::uint64_t) { return false; };
  subject.contains = [](std::uint64_t) { return false; };
  DriverConfig config;
  config.seed = 0x51;
  try {
    (void)run_stress(subject, config);
    ADD_FAILURE() << "no exception";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("boom"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("seed=0x51"), std::string::npos) << e.what();
  }
}

// A subject whose insert never returns: a stand-in for a deadlocked engine.
InsertOutcome stuck_insert(std::uint64_t, std::uint64_t) {
  static std::atomic<bool> released{false};  // never set
  while (!released.load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  return InsertOutcome::kInserted;
}

TEST(StressDriverDeathTest, WatchdogReportsDeadlockWithSeedAndAborts) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  Subject subject;
  subject.insert = stuck_insert;
  subject.erase = [](std::uint64_t) { return false; };
  subject.contains = [](std::uint64_t) { return false; };
  DriverConfig config;
  config.seed = 0xdead;
  config.threads = 2;
  config.time_limit = std::chrono::milliseconds(200);
  EXPECT_DEATH((void)run_stress(subject, config),
               "deadlock or livelock suspected.*seed=0xdead.*inside insert\\(");
}

}  // namespace
}  // namespace cuckoo::subjects
