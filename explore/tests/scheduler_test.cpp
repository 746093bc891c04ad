// The scheduler on scenarios whose schedules are known: each strategy finds a lost
// update that needs one preemption, no strategy reports one where there is none, a
// bounded search with no preemptions explores exactly the serial orders and says it is
// complete, failures replay from their schedule and shrink to one preemption, and
// deadlocks and runaway spins are reported. Stalls: a lock-free counter finishes with
// any thread stalled anywhere; a spinlock does not, and the failure names the stall and
// replays.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
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

// ---- Stalls: the lock-freedom claim.

// Each thread adds 1 to a counter `rounds` times: by a CAS loop (lock-free), or under a
// test-and-test-and-set spinlock (with the spin hint, or a bare busy loop). The check: every
// increment landed, so a stalled thread that resumed finished its own.
enum class Increment { kCasLoop, kSpinlock, kBusySpinlock };

ex::Scenario increments(Increment how, unsigned threads, unsigned rounds = 1) {
  return [=] {
    struct Shared {
      ex::Atomic<int> counter{0};
      ex::Atomic<bool> locked{false};
      ex::Plain<int> guarded{0, "guarded"};
    };
    auto s = std::make_shared<Shared>();
    ex::Execution e;
    e.state = s;
    for (unsigned t = 0; t < threads; ++t) {
      e.threads.push_back([s, how, rounds] {
        for (unsigned r = 0; r < rounds; ++r) {
          if (how == Increment::kCasLoop) {
            int v = s->counter.load(std::memory_order_relaxed);
            while (!s->counter.compare_exchange_strong(v, v + 1, std::memory_order_relaxed)) {
            }
            continue;
          }
          ex::Sync::SpinWait spin;
          for (;;) {  // test and test-and-set; bound: the holder's critical section
            while (s->locked.load(std::memory_order_relaxed)) {
              if (how == Increment::kSpinlock) spin.wait();
            }
            if (!s->locked.exchange(true, std::memory_order_acquire)) break;
          }
          ++s->guarded;
          s->counter.store(s->counter.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
          s->locked.store(false, std::memory_order_release);
        }
      });
    }
    e.check = [s, threads, rounds]() -> std::string {
      const int want = static_cast<int>(threads * rounds);
      return s->counter.load() == want ? "" : "counter " + std::to_string(s->counter.load()) + ", expected " +
                                                   std::to_string(want);
    };
    return e;
  };
}

void report(const std::string& what, const ex::Result& r) {
  std::printf("[explore] %s: %s\n", what.c_str(), r.summary().c_str());
}

TEST(SchedulerStalls, ALockFreeCounterFinishesWithAnyThreadStalledAnywhere) {
  const ex::Scenario counter = increments(Increment::kCasLoop, 2, 2);
  const ex::Result plain = ex::bounded(counter, 2, 1'000'000);
  const ex::Result sweep = ex::stall_sweep(counter, 0, 2, 1'000'000);
  report("CAS counter stall_sweep(thread 0, 2 preemptions)", sweep);
  EXPECT_FALSE(sweep.failed) << sweep.message;
  EXPECT_TRUE(sweep.complete) << sweep.summary();
  EXPECT_GT(sweep.executions, plain.executions) << "the sweep explored no stall";
  ex::Options stalls;
  stalls.max_stalls = 2;
  const ex::Result b = ex::bounded(increments(Increment::kCasLoop, 3), 0, 1'000'000, stalls);
  report("CAS counter x3 bounded(0), 2 stalls", b);
  EXPECT_FALSE(b.failed) << b.message;
  EXPECT_TRUE(b.complete) << b.summary();
  EXPECT_GT(b.executions, 6U) << "no stall explored";  // 6: the serial orders alone
  const ex::Result w = ex::random_walk(increments(Increment::kCasLoop, 3, 2), 0x57a11, 300, stalls);
  report("CAS counter x3 random_walk(seed 0x57a11), 2 stalls", w);
  EXPECT_FALSE(w.failed) << w.message;
  const ex::Result p = ex::pct(increments(Increment::kCasLoop, 3, 2), 0x57a11, 3, 300, stalls);
  report("CAS counter x3 pct(seed 0x57a11), 2 stalls", p);
  EXPECT_FALSE(p.failed) << p.message;
}

TEST(SchedulerStalls, ASpinlockIsNotLockFreeAndTheFailureReplays) {
  const ex::Scenario spinlock = increments(Increment::kSpinlock, 2);
  // Without stalls it is a correct lock (the Plain it guards never races).
  const ex::Result fine = ex::bounded(spinlock, 2, 1'000'000);
  EXPECT_FALSE(fine.failed) << fine.message;
  EXPECT_TRUE(fine.complete) << fine.summary();
  const ex::Result sweep = ex::stall_sweep(spinlock, 0, 1, 1'000'000);
  report("spinlock stall_sweep(thread 0, 1 preemption)", sweep);
  ASSERT_TRUE(sweep.failed) << sweep.summary();
  EXPECT_NE(sweep.message.find("lock-freedom (obstruction) violated: thread 0 stalled at its step "),
            std::string::npos)
      << sweep.message;
  EXPECT_NE(sweep.message.find("thread 1 did not finish"), std::string::npos) << sweep.message;
  EXPECT_EQ(sweep.stalls, 1U);
  EXPECT_NE(sweep.schedule.find("0s"), std::string::npos) << sweep.schedule;
  const ex::Result again = ex::replay(spinlock, sweep.schedule);
  ASSERT_TRUE(again.failed) << "schedule " << sweep.schedule << " did not fail again";
  EXPECT_EQ(again.message, sweep.message);
  // bounded() with a stall budget and the random strategies (seeded) find it too.
  ex::Options stalls;
  stalls.max_stalls = 1;
  const ex::Result b = ex::bounded(spinlock, 1, 1'000'000, stalls);
  EXPECT_TRUE(b.failed) << b.summary();
  const ex::Result w = ex::random_walk(increments(Increment::kSpinlock, 3, 2), 0x57a11, 300, stalls);
  report("spinlock x3 random_walk(seed 0x57a11), 1 stall", w);
  ASSERT_TRUE(w.failed) << w.summary();
  EXPECT_NE(w.message.find("lock-freedom"), std::string::npos) << w.message;
  EXPECT_TRUE(ex::replay(increments(Increment::kSpinlock, 3, 2), w.schedule).failed) << w.schedule;
}

TEST(SchedulerStalls, OthersRunningPastTheStepBoundAreALockFreedomViolation) {
  ex::Options options;
  options.max_steps = 2'000;
  const ex::Result r = ex::stall_sweep(increments(Increment::kBusySpinlock, 2), 0, 0, 1'000, options);
  ASSERT_TRUE(r.failed) << r.summary();
  EXPECT_NE(r.message.find("lock-freedom (obstruction) violated"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("running past Options::max_steps = 2000"), std::string::npos) << r.message;
  EXPECT_TRUE(ex::replay(increments(Increment::kBusySpinlock, 2), r.schedule, options).failed) << r.schedule;
}

}  // namespace
