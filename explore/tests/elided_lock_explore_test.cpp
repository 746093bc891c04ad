// The elided lock (sync/elided_lock.hpp) and the coarse designs built on it, under the
// deterministic scheduler with emulated transactions (explore::Htm): transactions
// overlap, abort on conflicting accesses and, at the explorer's choice, at any
// scheduling point inside the critical section, with every effect discarded. So the
// transactional path, the retry policy and the MCS fallback are explored on any machine,
// RTM or not.
//
// Claims checked in every explored execution:
//   - atomicity: a critical section of two explore atomics (x += 1, y -= 1) is never seen
//     half done by another section (x + y == 0 in every read section), and the final
//     values count each committed write section exactly once (aborted runs left nothing);
//   - ordering: the same sections on Plain data (explore::Plain, race-checked with the
//     explorer's memory model) never race: a transaction's accesses happen after the last
//     fallback holder's through is_locked()'s acquire read of the lock word, a fallback
//     holder's after committed transactions through their conflict on that word;
//   - the coarse filter and the coarse map: the history of their operations is
//     linearizable against the multiset (filter relaxations) and map specifications of
//     the subject layer, checked by its linearizability checker.
// And over each exploration: transactions committed, were aborted by the explorer
// inside their sections and by conflicts, and the fallback lock ran sections.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "cuckoo/concurrent_filter.hpp"
#include "cuckoo/concurrent_map.hpp"
#include "cuckoo/explore/plain.hpp"
#include "cuckoo/explore/scheduler.hpp"
#include "cuckoo/explore/sync.hpp"
#include "cuckoo/hash.hpp"
#include "cuckoo/subjects/history.hpp"
#include "cuckoo/subjects/linearizability.hpp"
#include "cuckoo/subjects/run_and_check.hpp"
#include "cuckoo/sync/elided_lock.hpp"
#include "cuckoo/sync/mcs_lock.hpp"

#if defined(__SANITIZE_THREAD__)
#define CUCKOO_TEST_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define CUCKOO_TEST_TSAN 1
#endif
#endif

namespace {

namespace ex = cuckoo::explore;
namespace sub = cuckoo::subjects;
using cuckoo::sync::HtmPolicy;
using cuckoo::sync::HtmStats;

using Lock = cuckoo::sync::BasicElidedLock<cuckoo::sync::BasicMcsLock<ex::Sync>, ex::Sync>;

bool long_lane() {
  const char* env = std::getenv("CUCKOO_EXPLORE_LONG");
  return env != nullptr && std::string(env) == "1";
}

void report(const std::string& what, const ex::Result& r) {
  std::printf("[explore] %s: %s\n", what.c_str(), r.summary().c_str());
}

#define SKIP_UNDER_TSAN()                                                                          \
  do {                                                                                             \
    if (kTsan) GTEST_SKIP() << "emulated transactions are not explored under ThreadSanitizer "     \
                               "(its shadow call stack cannot follow an abort's jump into begin)"; \
  } while (false)
#ifdef CUCKOO_TEST_TSAN
constexpr bool kTsan = true;
#else
constexpr bool kTsan = false;
#endif

// What the lock's statistics add up to over an exploration.
struct Totals {
  std::uint64_t commits = 0;
  std::uint64_t chosen_aborts = 0;    // by the explorer: no reason bit
  std::uint64_t conflict_aborts = 0;  // by another thread's access
  std::uint64_t lock_busy_aborts = 0;
  std::uint64_t fallbacks = 0;
  std::uint64_t retries = 0;
  void add(const cuckoo::sync::ElisionStats& s) {
    commits += s.htm.commits;
    chosen_aborts += s.htm.abort_other;
    conflict_aborts += s.htm.abort_conflict;
    lock_busy_aborts += s.lock_busy_aborts;
    fallbacks += s.fallbacks();
    retries += s.retries;
  }
  std::string describe() const {
    return std::to_string(commits) + " commits, " + std::to_string(chosen_aborts) + " chosen aborts, " +
           std::to_string(conflict_aborts) + " conflict aborts, " + std::to_string(lock_busy_aborts) +
           " lock-busy aborts, " + std::to_string(fallbacks) + " fallback sections";
  }
};

// Two write sections per writer (x += 1 then y -= 1, each a load and a store), and
// read sections that see x + y == 0.
struct Pair {
  explicit Pair(HtmPolicy policy) : lock(std::move(policy)) {}
  Lock lock;
  ex::Atomic<int> x{0};
  ex::Atomic<int> y{0};
};

ex::Scenario transfers(HtmPolicy policy, unsigned writers, unsigned sections, unsigned readers,
                       std::shared_ptr<Totals> totals) {
  return [=] {
    auto s = std::make_shared<Pair>(policy);
    ex::Execution e;
    e.state = s;
    for (unsigned w = 0; w < writers; ++w) {
      e.threads.push_back([s, sections] {
        for (unsigned k = 0; k < sections; ++k) {
          s->lock.with_write([&] {
            s->x.store(s->x.load() + 1);
            s->y.store(s->y.load() - 1);
          });
        }
      });
    }
    for (unsigned r = 0; r < readers; ++r) {
      e.threads.push_back([s, sections] {
        for (unsigned k = 0; k < sections; ++k) {
          const int sum = s->lock.with_read([&] { return s->x.load() + s->y.load(); });
          ex::require(sum == 0, "a read section saw a write section half done: x + y = " + std::to_string(sum));
        }
      });
    }
    e.check = [s, totals, expected = static_cast<int>(writers * sections)]() -> std::string {
      totals->add(s->lock.stats());
      const int x = s->x.load();
      const int y = s->y.load();
      if (x != expected || y != -expected) {
        return "after the threads x = " + std::to_string(x) + ", y = " + std::to_string(y) + ", expected " +
               std::to_string(expected) + " and " + std::to_string(-expected) +
               " (a section lost, or an aborted run left its writes)";
      }
      return {};
    };
    return e;
  };
}

// The same sections on Plain data: x += 1, y -= 1 in write sections, x + y == 0 in read
// sections. Plain accesses are race-checked, join the transactions' read and write sets
// and are undone when a transaction aborts.
struct PlainPair {
  explicit PlainPair(HtmPolicy policy) : lock(std::move(policy)) {}
  Lock lock;
  ex::Plain<int> x{0, "x"};
  ex::Plain<int> y{0, "y"};
};

ex::Scenario plain_transfers(HtmPolicy policy, unsigned writers, unsigned sections, unsigned readers,
                             std::shared_ptr<Totals> totals) {
  return [=] {
    auto s = std::make_shared<PlainPair>(policy);
    ex::Execution e;
    e.state = s;
    for (unsigned w = 0; w < writers; ++w) {
      e.threads.push_back([s, sections] {
        for (unsigned k = 0; k < sections; ++k) {
          s->lock.with_write([&] {
            s->x += 1;
            s->y -= 1;
          });
        }
      });
    }
    for (unsigned r = 0; r < readers; ++r) {
      e.threads.push_back([s, sections] {
        for (unsigned k = 0; k < sections; ++k) {
          const int sum = s->lock.with_read([&] { return s->x.get() + s->y.get(); });
          ex::require(sum == 0, "a read section saw a write section half done: x + y = " + std::to_string(sum));
        }
      });
    }
    e.check = [s, totals, expected = static_cast<int>(writers * sections)]() -> std::string {
      totals->add(s->lock.stats());
      if (s->x.get() != expected || s->y.get() != -expected) {
        return "after the threads x = " + std::to_string(s->x.get()) + ", y = " + std::to_string(s->y.get()) +
               ", expected " + std::to_string(expected) + " and " + std::to_string(-expected);
      }
      return {};
    };
    return e;
  };
}

struct NamedPolicy {
  std::string name;
  HtmPolicy policy;
};

std::vector<NamedPolicy> policies() {
  return {{"emulated", HtmPolicy::serial_emulation()},
          {"random(0.3)", HtmPolicy::random(0.3, 0xe11de)},
          {"scripted", HtmPolicy::scripted({cuckoo::sync::HtmStatus::make_conflict(true),
                                            cuckoo::sync::HtmStatus::make_started(),
                                            cuckoo::sync::HtmStatus::make_capacity()},
                                           cuckoo::sync::ScriptEnd::kRepeat)}};
}

TEST(ElidedLockExplored, SectionsAreAtomicUnderMidSectionAborts) {
  SKIP_UNDER_TSAN();
  const std::uint64_t runs = long_lane() ? 10'000 : 1'500;
  for (const NamedPolicy& p : policies()) {
    SCOPED_TRACE(p.name);
    auto totals = std::make_shared<Totals>();
    const ex::Result w = ex::random_walk(transfers(p.policy, 2, 2, 1, totals), 0xe1, runs);
    report("elided lock 2w+1r random, " + p.name, w);
    EXPECT_FALSE(w.failed) << w.message;
    const ex::Result c = ex::pct(transfers(p.policy, 2, 2, 1, totals), 0xe1, 3, runs);
    report("elided lock 2w+1r pct(3), " + p.name, c);
    EXPECT_FALSE(c.failed) << c.message;
    std::printf("[explore]   %s\n", totals->describe().c_str());
    EXPECT_GT(totals->commits, 0U) << totals->describe();
    EXPECT_GT(totals->chosen_aborts, 0U) << totals->describe();
    EXPECT_GT(totals->conflict_aborts, 0U) << totals->describe();
    EXPECT_GT(totals->fallbacks, 0U) << totals->describe();
  }
}

TEST(ElidedLockExplored, EveryScheduleWithinTheBoundIsAtomic) {
  SKIP_UNDER_TSAN();
  auto totals = std::make_shared<Totals>();
  const unsigned bound = long_lane() ? 3 : 2;
  const ex::Result b = ex::bounded(transfers(HtmPolicy::serial_emulation(), 1, 1, 1, totals), bound, 2'000'000);
  report("elided lock 1w+1r bounded(" + std::to_string(bound) + ")", b);
  std::printf("[explore]   %s\n", totals->describe().c_str());
  EXPECT_FALSE(b.failed) << b.message;
  EXPECT_TRUE(b.complete) << b.summary();
  EXPECT_GT(totals->chosen_aborts, 0U) << totals->describe();
  EXPECT_GT(totals->conflict_aborts, 0U) << totals->describe();
  EXPECT_GT(totals->lock_busy_aborts, 0U) << totals->describe();
}

TEST(ElidedLockExplored, PlainDataUnderTheLockNeverRaces) {
  SKIP_UNDER_TSAN();
  auto totals = std::make_shared<Totals>();
  const unsigned bound = long_lane() ? 4 : 3;
  const ex::Result b =
      ex::bounded(plain_transfers(HtmPolicy::serial_emulation(), 1, 1, 1, totals), bound, 2'000'000);
  report("elided lock on Plain data 1w+1r bounded(" + std::to_string(bound) + ")", b);
  EXPECT_FALSE(b.failed) << b.message;
  EXPECT_TRUE(b.complete) << b.summary();
  ex::Options stale;  // and loads that read older stores than the newest
  stale.max_stale_reads = long_lane() ? 2 : 1;
  const ex::Result s =
      ex::bounded(plain_transfers(HtmPolicy::serial_emulation(), 1, 1, 1, totals), bound, 2'000'000, stale);
  report("elided lock on Plain data 1w+1r bounded(" + std::to_string(bound) + "), stale reads", s);
  EXPECT_FALSE(s.failed) << s.message;
  EXPECT_TRUE(s.complete) << s.summary();
  const std::uint64_t runs = long_lane() ? 10'000 : 1'500;
  ex::Options stale_random;  // loads may read older stores than the newest, one in four
  stale_random.stale_read_one_in = 4;
  const ex::Result w =
      ex::random_walk(plain_transfers(HtmPolicy::serial_emulation(), 2, 2, 1, totals), 0xe12, runs, stale_random);
  report("elided lock on Plain data 2w+1r random (seed 0xe12)", w);
  EXPECT_FALSE(w.failed) << w.message;
  const ex::Result c =
      ex::pct(plain_transfers(HtmPolicy::serial_emulation(), 2, 2, 1, totals), 0xe12, 3, runs, stale_random);
  report("elided lock on Plain data 2w+1r pct(3) (seed 0xe12)", c);
  EXPECT_FALSE(c.failed) << c.message;
  std::printf("[explore]   %s\n", totals->describe().c_str());
  // Both paths ran, and handed over to each other.
  EXPECT_GT(totals->commits, 0U) << totals->describe();
  EXPECT_GT(totals->fallbacks, 0U) << totals->describe();
  EXPECT_GT(totals->conflict_aborts, 0U) << totals->describe();
}

// Every transaction aborts with "conflict, retry": each section retries
// kMaxTransactionRetries times and then runs under the fallback lock, in every schedule.
TEST(ElidedLockExplored, RetriesEndInTheFallback) {
  SKIP_UNDER_TSAN();
  auto totals = std::make_shared<Totals>();
  const HtmPolicy always = HtmPolicy::always_abort(cuckoo::sync::HtmStatus::make_conflict(true));
  const ex::Result b = ex::bounded(transfers(always, 1, 2, 1, totals), 1, 200'000);
  report("elided lock, every attempt aborts, bounded(1)", b);
  EXPECT_FALSE(b.failed) << b.message;
  EXPECT_TRUE(b.complete) << b.summary();
  EXPECT_EQ(totals->commits, 0U) << totals->describe();
  EXPECT_EQ(totals->fallbacks, 4 * b.executions) << totals->describe();
  EXPECT_EQ(totals->retries, 4 * Lock::kMaxTransactionRetries * b.executions) << totals->describe();
}

// A schedule with an abort replays to the same execution.
TEST(ElidedLockExplored, AnAbortInTheScheduleReplays) {
  SKIP_UNDER_TSAN();
  auto totals = std::make_shared<Totals>();
  const ex::Scenario scenario = transfers(HtmPolicy::serial_emulation(), 1, 1, 1, totals);
  // Thread 0's first decision inside its transaction: abort it there.
  const ex::Result r = ex::replay(scenario, "0.0a");
  EXPECT_FALSE(r.failed) << r.message;
  EXPECT_NE(r.schedule.find('a'), std::string::npos) << r.schedule;
  EXPECT_EQ(totals->chosen_aborts, 1U) << totals->describe();
  const ex::Result again = ex::replay(scenario, r.schedule);
  EXPECT_EQ(again.schedule, r.schedule);
  EXPECT_EQ(again.steps, r.steps);
  EXPECT_EQ(totals->chosen_aborts, 2U) << totals->describe();
  EXPECT_THROW((void)ex::replay(scenario, "0.1b"), std::invalid_argument);
}

// ---- The coarse designs, their histories judged by the linearizability checker.

using ExploredFilter = cuckoo::BasicCoarseConcurrentFilter<cuckoo::DefaultHasher, ex::Sync>;
using ExploredMap = cuckoo::CoarseConcurrentMap<std::uint64_t, std::uint64_t, 2, cuckoo::DefaultHasher,
                                                std::equal_to<std::uint64_t>, ex::Sync>;

cuckoo::CuckooFilterConfig small_filter() {
  cuckoo::CuckooFilterConfig c;
  c.capacity = 8;
  c.slots_per_bucket = 2;
  c.fingerprint_bits = 8;
  c.seed = 0x5eed;
  return c;
}

// Three threads on keys 1..3 (thread t owns key t + 1): each inserts its key, and then
// thread 0 erases its key, thread 1 looks up keys 1 and 2, thread 2 asks size(). Every
// call is recorded (stamps from a counter that is not a scheduling point, so they follow
// the explored order; each call is wrapped in real-time points, so that the stamps'
// order is happens-before for the memory model too), and the history must be
// linearizable.
template <class Subject>
struct Recorded {
  explicit Recorded(std::unique_ptr<Subject> made) : subject(std::move(made)), recorder(3, 8) {}
  std::unique_ptr<Subject> subject;
  sub::HistoryRecorder recorder;
};

template <class Subject, class Insert, class Stats>
ex::Scenario recorded(std::function<std::unique_ptr<Subject>()> make, Insert insert, Stats stats,
                      std::function<sub::CheckResult(const sub::History&)> check, std::shared_ptr<Totals> totals) {
  return [=] {
    auto s = std::make_shared<Recorded<Subject>>(make());
    ex::Execution e;
    e.state = s;
    for (std::uint32_t t = 0; t < 3; ++t) {
      e.threads.push_back([s, t, insert] {
        Subject& m = *s->subject;
        sub::HistoryRecorder::ThreadLog& log = s->recorder.thread(t);
        const std::uint64_t key = t + 1;
        const auto timed = [](auto call) {
          ex::real_time_point();
          auto result = call();
          ex::real_time_point();
          return result;
        };
        (void)log.record(sub::OpKind::kInsert, key, 10 * key,
                         [&] { return timed([&] { return insert(m, key, 10 * key); }); });
        if (t == 0) (void)log.record(sub::OpKind::kErase, key, 0, [&] { return timed([&] { return m.erase(key); }); });
        if (t == 1) {
          for (std::uint64_t k = 1; k <= 2; ++k) {
            (void)log.record(sub::OpKind::kContains, k, 0, [&] { return timed([&] { return m.contains(k); }); });
          }
        }
        if (t == 2) {
          (void)log.record(sub::OpKind::kSize, 0, 0,
                           [&] { return timed([&] { return static_cast<std::uint64_t>(m.size()); }); });
        }
      });
    }
    e.check = [s, stats, check, totals]() -> std::string {
      totals->add(stats(*s->subject));
      const sub::CheckResult verdict = check(s->recorder.take_history());
      return verdict.linearizable() ? std::string() : verdict.describe();
    };
    return e;
  };
}


ex::Scenario coarse_filter(std::shared_ptr<Totals> totals) {
  return recorded<ExploredFilter>(
      [] { return std::make_unique<ExploredFilter>(small_filter(), HtmPolicy::serial_emulation()); },
      [](ExploredFilter& f, std::uint64_t key, std::uint64_t) { return sub::outcome_of(f.insert(key)); },
      [](const ExploredFilter& f) { return f.elision_stats(); },
      [](const sub::History& h) { return sub::check_multiset(h, sub::MultisetSpec::filter(4)); }, totals);
}

ex::Scenario coarse_map(std::shared_ptr<Totals> totals) {
  return recorded<ExploredMap>(
      [] {
        cuckoo::CuckooMapConfig c;
        c.initial_capacity = 4;
        c.seed = 0x5eed;
        return std::make_unique<ExploredMap>(c, HtmPolicy::serial_emulation());
      },
      [](ExploredMap& m, std::uint64_t key, std::uint64_t value) { return sub::outcome_of(m.insert(key, value)); },
      [](const ExploredMap& m) { return m.lock_stats(); },
      [](const sub::History& h) { return sub::check_map(h); }, totals);
}

TEST(CoarseDesignsExplored, HistoriesAreLinearizable) {
  SKIP_UNDER_TSAN();
  const std::uint64_t runs = long_lane() ? 10'000 : 400;
  for (const bool map : {false, true}) {
    const std::string name = map ? "coarse map" : "coarse filter";
    SCOPED_TRACE(name);
    auto totals = std::make_shared<Totals>();
    auto scenario = [&] { return map ? coarse_map(totals) : coarse_filter(totals); };
    ex::Options stale;  // loads may read older stores than the newest, one in four
    stale.stale_read_one_in = 4;
    const ex::Result w = ex::random_walk(scenario(), 0xc0a, runs, stale);
    report(name + " random", w);
    EXPECT_FALSE(w.failed) << w.message;
    const ex::Result c = ex::pct(scenario(), 0xc0a, 3, runs, stale);
    report(name + " pct(3)", c);
    EXPECT_FALSE(c.failed) << c.message;
    const ex::Result b = ex::bounded(scenario(), long_lane() ? 2 : 1, long_lane() ? 1'000'000 : 3'000);
    report(name + " bounded(" + std::to_string(long_lane() ? 2 : 1) + ")", b);
    EXPECT_FALSE(b.failed) << b.message;
    if (!long_lane()) {
      EXPECT_TRUE(b.complete) << b.summary();  // the long budget may end first
    }
    std::printf("[explore]   %s\n", totals->describe().c_str());
    EXPECT_GT(totals->commits, 0U) << totals->describe();
    EXPECT_GT(totals->chosen_aborts, 0U) << totals->describe();
    EXPECT_GT(totals->conflict_aborts, 0U) << totals->describe();
  }
}

}  // namespace
