// The scheduler on scenarios whose schedules are known: each strategy finds a lost
// update that needs one preemption, no strategy reports one where there is none, a
// bounded search with no preemptions explores exactly the serial orders and says it is
// complete, failures replay from their schedule and shrink to one preemption, and
// deadlocks and runaway spins are reported.
#include <gtest/gtest.h>

#include <array>
#include <memory>
#include <stdexcept>
#include <string>

#include "cuckoo/explore/scheduler.hpp"
#include "cuckoo/explore/sync.hpp"

namespace {

namespace ex = cuckoo::explore;

// Two threads increment one counter by a load and a store: a preemption between the
// two loses an update. atomic_increment uses fetch_add instead (no bug).
ex::Scenario counter_scenario(bool atomic_increment, unsigned threads = 2) {
  return [=] {
    auto counter = std::make_shared<ex::Atomic<int>>(0);
    ex::Execution e;
    e.state = counter;
    for (unsigned t = 0; t < threads; ++t) {
      e.threads.push_back([counter, atomic_increment] {
        if (atomic_increment) {
          counter->fetch_add(1);
        } else {
          const int v = counter->load();
          counter->store(v + 1);
        }
      });
    }
    e.check = [counter, threads]() -> std::string {
      const int v = counter->load();
      return v == static_cast<int>(threads) ? "" : "lost update: counter is " + std::to_string(v);
    };
    return e;
  };
}

TEST(Scheduler, EveryStrategyFindsTheLostUpdate) {
  const ex::Scenario racy = counter_scenario(false);
  const ex::Result b = ex::bounded(racy, 1, 1000);
  EXPECT_TRUE(b.failed) << b.summary();
  EXPECT_NE(b.message.find("lost update"), std::string::npos) << b.message;
  const ex::Result r = ex::random_walk(racy, 7, 200);
  EXPECT_TRUE(r.failed) << r.summary();
  const ex::Result p = ex::pct(racy, 7, 2, 200);
  EXPECT_TRUE(p.failed) << p.summary();
}

TEST(Scheduler, NoStrategyReportsACorrectScenario) {
  const ex::Scenario correct = counter_scenario(true, 3);
  const ex::Result b = ex::bounded(correct, 3, 100000);
  EXPECT_FALSE(b.failed) << b.summary();
  EXPECT_TRUE(b.complete) << b.summary();
  EXPECT_FALSE(ex::random_walk(correct, 1, 300).failed);
  EXPECT_FALSE(ex::pct(correct, 1, 3, 300).failed);
}

TEST(Scheduler, WithoutPreemptionsOnlyTheSerialOrdersRun) {
  // Bound 0: the first thread is a free choice, then each runs to its end: 2 orders for
  // 2 threads, 6 for 3; and the lost update needs a preemption, so none fails.
  const ex::Result two = ex::bounded(counter_scenario(false, 2), 0, 1000);
  EXPECT_FALSE(two.failed) << two.summary();
  EXPECT_TRUE(two.complete);
  EXPECT_EQ(two.executions, 2U);
  const ex::Result three = ex::bounded(counter_scenario(false, 3), 0, 1000);
  EXPECT_TRUE(three.complete);
  EXPECT_EQ(three.executions, 6U);
  // More preemptions allowed: more schedules, until the bound no longer binds.
  const ex::Result one = ex::bounded(counter_scenario(true, 2), 1, 100000);
  const ex::Result many = ex::bounded(counter_scenario(true, 2), 8, 100000);
  const ex::Result more = ex::bounded(counter_scenario(true, 2), 9, 100000);
  EXPECT_TRUE(one.complete && many.complete && more.complete);
  EXPECT_GT(one.executions, 2U);
  EXPECT_GT(many.executions, one.executions);
  EXPECT_EQ(more.executions, many.executions);
}

TEST(Scheduler, AFailureReplaysFromItsScheduleShrunkToOnePreemption) {
  const ex::Scenario racy = counter_scenario(false, 3);
  const ex::Result found = ex::random_walk(racy, 11, 500);
  ASSERT_TRUE(found.failed) << found.summary();
  EXPECT_EQ(found.preemptions, 1U) << found.message;
  const ex::Result again = ex::replay(racy, found.schedule);
  ASSERT_TRUE(again.failed) << "schedule " << found.schedule << " did not fail again";
  EXPECT_EQ(again.schedule, found.schedule);
  EXPECT_EQ(again.message, found.message);
  // A serial schedule passes.
  EXPECT_FALSE(ex::replay(racy, "").failed);
}

TEST(Scheduler, MalformedSchedulesAreRejected) {
  EXPECT_THROW(ex::replay(counter_scenario(true), "0..1"), std::invalid_argument);
  EXPECT_THROW(ex::replay(counter_scenario(true), "0.x"), std::invalid_argument);
}

TEST(Scheduler, ADeadlockInSpinsIsReported) {
  // Each thread waits for a flag only the other sets after its own wait.
  const ex::Scenario crossed = [] {
    auto flags = std::make_shared<std::array<ex::Atomic<bool>, 2>>();
    ex::Execution e;
    e.state = flags;
    for (unsigned t = 0; t < 2; ++t) {
      e.threads.push_back([flags, t] {
        ex::Sync::SpinWait spin;
        while (!(*flags)[1 - t].load()) spin.wait();
        (*flags)[t].store(true);
      });
    }
    return e;
  };
  const ex::Result r = ex::bounded(crossed, 0, 10);
  ASSERT_TRUE(r.failed);
  EXPECT_NE(r.message.find("deadlock"), std::string::npos) << r.message;
}

TEST(Scheduler, ASpinAfterAFailedCasOnFreeMemoryIsRetriedNotADeadlock) {
  // A spin loop that backs off after a failed CAS: the value it failed on is already
  // current, so no later write will come; re-running the loop would succeed. The
  // scheduler lets a thread spin once per write epoch before it blocks it.
  const ex::Scenario backoff = [] {
    auto word = std::make_shared<ex::Atomic<int>>(2);
    ex::Execution e;
    e.state = word;
    e.threads.push_back([word] {
      ex::Sync::SpinWait spin;
      int expected = 0;  // stale: the word is 2
      while (!word->compare_exchange_strong(expected, expected + 1)) spin.wait();
    });
    e.check = [word]() -> std::string { return word->load() == 3 ? "" : "the CAS loop did not finish"; };
    return e;
  };
  const ex::Result r = ex::bounded(backoff, 0, 10);
  EXPECT_FALSE(r.failed) << r.message;
}

TEST(Scheduler, ASpinWithoutTheSpinHintHitsTheStepBound) {
  const ex::Scenario runaway = [] {
    auto flag = std::make_shared<ex::Atomic<bool>>(false);
    ex::Execution e;
    e.state = flag;
    e.threads.push_back([flag] {
      while (!flag->load()) {
      }
    });
    return e;
  };
  ex::Options options;
  options.max_steps = 1000;
  const ex::Result r = ex::bounded(runaway, 0, 1, options);
  ASSERT_TRUE(r.failed);
  EXPECT_NE(r.message.find("step bound"), std::string::npos) << r.message;
}

TEST(Scheduler, PerThreadObjectsArePerLogicalThread) {
  struct Slot {
    int value = 0;
  };
  const ex::Scenario s = [] {
    auto seen = std::make_shared<std::array<int, 2>>();
    ex::Execution e;
    e.state = seen;
    for (unsigned t = 0; t < 2; ++t) {
      e.threads.push_back([seen, t] {
        Slot& mine = ex::Sync::thread_local_object<Slot>();
        mine.value += static_cast<int>(t) + 1;
        ex::hooks::point();
        (*seen)[t] = ex::Sync::thread_local_object<Slot>().value;
      });
    }
    e.check = [seen]() -> std::string {
      return (*seen)[0] == 1 && (*seen)[1] == 2 ? "" : "a logical thread saw another's object";
    };
    return e;
  };
  EXPECT_FALSE(ex::bounded(s, 2, 1000).failed);
}

}  // namespace
