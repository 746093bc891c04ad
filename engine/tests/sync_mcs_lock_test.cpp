// Tests of cuckoo::sync::McsLock and McsGuard: mutual exclusion, FIFO hand-off,
// try_lock, is_locked, thread-local node pool (nesting, std::scoped_lock), guards on
// exceptions, layout. Multithreaded tests run under a watchdog that turns a deadlock
// into a failure with a message.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <latch>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "cuckoo/sync/mcs_lock.hpp"
#include "support/watchdog.hpp"

namespace {

using cuckoo::test::current_test_name;
using cuckoo::test::Watchdog;

using cuckoo::sync::McsGuard;
using cuckoo::sync::McsLock;

constexpr int kThreads = 4;  // on 2 cores: oversubscribed on purpose
constexpr int kIterationsPerThread = 5000;

// Spin (with yield) until pred() holds. Documented spin, bounded by the watchdog.
template <class Pred>
void wait_until(Pred pred) {
  while (!pred()) std::this_thread::yield();
}

// Several threads increment a plain counter under the lock; the total must be exact
// and no two threads may be inside at once.
template <class LockOnce>
void run_mutual_exclusion(LockOnce lock_once) {
  std::uint64_t counter = 0;  // deliberately not atomic: the lock protects it
  int inside = 0;             // ditto; >1 would mean two holders
  std::atomic<int> overlaps{0};
  std::latch start(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      start.arrive_and_wait();
      for (int i = 0; i < kIterationsPerThread; ++i) {
        lock_once([&] {
          if (++inside != 1) overlaps.fetch_add(1, std::memory_order_relaxed);
          ++counter;
          --inside;
        });
      }
    });
  }
  for (std::thread& th : threads) th.join();
  EXPECT_EQ(counter, std::uint64_t{kThreads} * kIterationsPerThread);
  EXPECT_EQ(overlaps.load(), 0);
}

TEST(McsLock, MutualExclusionWithThreadLocalNodes) {
  const Watchdog watchdog(current_test_name());
  McsLock lock;
  run_mutual_exclusion([&](auto&& critical_section) {
    const McsGuard guard(lock);
    critical_section();
  });
  EXPECT_FALSE(lock.is_locked());
}

TEST(McsLock, MutualExclusionWithCallerOwnedNodes) {
  const Watchdog watchdog(current_test_name());
  McsLock lock;
  run_mutual_exclusion([&](auto&& critical_section) {
    McsLock::Node node;
    const McsGuard guard(lock, node);
    critical_section();
  });
  EXPECT_FALSE(lock.is_locked());
}

TEST(McsLock, MutualExclusionWithRawLockUnlock) {
  const Watchdog watchdog(current_test_name());
  McsLock lock;
  run_mutual_exclusion([&](auto&& critical_section) {
    lock.lock();
    critical_section();
    lock.unlock();
  });
}

// Waiters enqueue in a known order while the lock is held: waiter i starts only after
// waiter i-1 has linked itself into the queue (its predecessor's successor() is its
// node). When the holder releases, the lock must pass through the waiters in exactly
// that order.
TEST(McsLock, HandsOffInFifoOrder) {
  const Watchdog watchdog(current_test_name());
  constexpr int kWaiters = 3;
  constexpr int kRounds = 20;
  for (int round = 0; round < kRounds; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    McsLock lock;
    McsLock::Node holder_node;
    std::vector<std::unique_ptr<McsLock::Node>> nodes;
    for (int i = 0; i < kWaiters; ++i) nodes.push_back(std::make_unique<McsLock::Node>());
    std::vector<int> order;  // appended inside the critical section
    std::vector<std::thread> waiters;

    lock.lock(holder_node);
    const McsLock::Node* behind = &holder_node;
    for (int i = 0; i < kWaiters; ++i) {
      McsLock::Node* node = nodes[static_cast<std::size_t>(i)].get();
      waiters.emplace_back([&lock, &order, node, i] {
        const McsGuard guard(lock, *node);
        order.push_back(i);
      });
      // Published "queued": the waiter's swap hit the tail and it linked itself behind
      // its predecessor.
      wait_until([&] { return behind->successor() == node; });
      behind = node;
    }
    lock.unlock(holder_node);
    for (std::thread& th : waiters) th.join();

    std::vector<int> expected;
    for (int i = 0; i < kWaiters; ++i) expected.push_back(i);
    EXPECT_EQ(order, expected);
    EXPECT_FALSE(lock.is_locked());
  }
}

TEST(McsLock, TryLockSemantics) {
  const Watchdog watchdog(current_test_name());
  McsLock lock;
  McsLock::Node mine;
  EXPECT_FALSE(lock.is_locked());
  ASSERT_TRUE(lock.try_lock(mine));
  EXPECT_TRUE(lock.is_locked());

  // Another thread cannot take it, with either kind of node. A failed try_lock must
  // not consume a thread-local node: fail more often than the pool has nodes.
  std::thread other([&] {
    McsLock::Node node;
    EXPECT_FALSE(lock.try_lock(node));
    for (std::size_t i = 0; i < 2 * McsLock::kThreadLocalNodes; ++i) {
      EXPECT_FALSE(lock.try_lock());
    }
    const McsGuard guard(lock, std::try_to_lock);
    EXPECT_FALSE(guard.owns_lock());
  });
  other.join();

  lock.unlock(mine);
  EXPECT_FALSE(lock.is_locked());
  {
    const McsGuard guard(lock, std::try_to_lock);
    EXPECT_TRUE(guard.owns_lock());
    EXPECT_TRUE(lock.is_locked());
  }
  EXPECT_FALSE(lock.is_locked());
}

// try_lock fails while the lock is free of holders' work but a waiter is queued, and
// is_locked() reports the queue, not just the holder.
TEST(McsLock, TryLockFailsAndIsLockedWhileAWaiterIsQueued) {
  const Watchdog watchdog(current_test_name());
  McsLock lock;
  McsLock::Node holder;
  McsLock::Node waiter_node;
  lock.lock(holder);
  std::thread waiter([&] { const McsGuard guard(lock, waiter_node); });
  wait_until([&] { return holder.successor() == &waiter_node; });
  EXPECT_TRUE(lock.is_locked());
  std::thread other([&] { EXPECT_FALSE(lock.try_lock()); });
  other.join();
  lock.unlock(holder);
  waiter.join();
  EXPECT_FALSE(lock.is_locked());
}

// One thread holds every node of its pool at once (different locks, nested), releases
// them in an order that is not LIFO, and does it again: the pool is reusable.
TEST(McsLock, NestedDifferentLocksWithThreadLocalNodes) {
  const Watchdog watchdog(current_test_name());
  constexpr std::size_t kLocks = McsLock::kThreadLocalNodes;
  std::vector<std::unique_ptr<McsLock>> locks;
  for (std::size_t i = 0; i < kLocks; ++i) locks.push_back(std::make_unique<McsLock>());
  for (int round = 0; round < 3; ++round) {
    for (auto& l : locks) l->lock();
    for (auto& l : locks) EXPECT_TRUE(l->is_locked());
    for (std::size_t i = 0; i < kLocks; i += 2) locks[i]->unlock();  // even first
    for (std::size_t i = 1; i < kLocks; i += 2) locks[i]->unlock();
    for (auto& l : locks) EXPECT_FALSE(l->is_locked());
  }
  // Scoped guards nest too.
  {
    const McsGuard outer(*locks[0]);
    const McsGuard middle(*locks[1]);
    const McsGuard inner(*locks[2]);
    EXPECT_TRUE(locks[2]->is_locked());
  }
  for (auto& l : locks) EXPECT_FALSE(l->is_locked());
}

// Two locks taken in opposite orders by different threads through std::scoped_lock
// (std::lock's deadlock avoidance: lock one, try_lock the others, back off). Uses the
// thread-local nodes for two locks at once and exercises try_lock/unlock under
// contention.
TEST(McsLock, ScopedLockOfTwoLocksInOppositeOrders) {
  const Watchdog watchdog(current_test_name());
  McsLock a;
  McsLock b;
  std::uint64_t x = 0;
  std::uint64_t y = 0;
  constexpr int kIterations = 5000;
  std::latch start(2);
  std::thread t1([&] {
    start.arrive_and_wait();
    for (int i = 0; i < kIterations; ++i) {
      const std::scoped_lock both(a, b);
      ++x;
      ++y;
    }
  });
  std::thread t2([&] {
    start.arrive_and_wait();
    for (int i = 0; i < kIterations; ++i) {
      const std::scoped_lock both(b, a);
      ++x;
      ++y;
    }
  });
  t1.join();
  t2.join();
  EXPECT_EQ(x, std::uint64_t{2} * kIterations);
  EXPECT_EQ(y, x);
  EXPECT_FALSE(a.is_locked());
  EXPECT_FALSE(b.is_locked());
}

TEST(McsLock, GuardReleasesOnException) {
  const Watchdog watchdog(current_test_name());
  McsLock lock;
  McsLock::Node node;
  EXPECT_THROW(
      {
        const McsGuard guard(lock);
        throw std::runtime_error("inside the critical section");
      },
      std::runtime_error);
  EXPECT_FALSE(lock.is_locked());
  EXPECT_THROW(
      {
        const McsGuard guard(lock, node);
        throw std::runtime_error("inside the critical section");
      },
      std::runtime_error);
  EXPECT_FALSE(lock.is_locked());
  // And another thread can take it.
  std::thread other([&] {
    const McsGuard guard(lock, std::try_to_lock);
    EXPECT_TRUE(guard.owns_lock());
  });
  other.join();
}

TEST(McsLock, LayoutIsCacheLinePadded) {
  EXPECT_EQ(alignof(McsLock), cuckoo::sync::detail::kLockAlignment);
  EXPECT_EQ(sizeof(McsLock), cuckoo::sync::detail::kLockAlignment);
  EXPECT_EQ(alignof(McsLock::Node), cuckoo::sync::detail::kCacheLineSize);
  McsLock::Node nodes[2];
  const auto distance = reinterpret_cast<std::uintptr_t>(&nodes[1]) -
                        reinterpret_cast<std::uintptr_t>(&nodes[0]);
  EXPECT_EQ(distance, cuckoo::sync::detail::kCacheLineSize);
  McsLock locks[2];
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(&locks[0]) % cuckoo::sync::detail::kLockAlignment,
            0u);
}

// Holding more McsLocks through thread-local nodes than the pool has is a caller bug;
// it must stop the program with a message, not corrupt a queue.
TEST(McsLockDeathTest, ThreadLocalPoolOverflowTerminatesWithMessage) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(
      {
        std::vector<std::unique_ptr<McsLock>> locks;
        for (std::size_t i = 0; i <= McsLock::kThreadLocalNodes; ++i) {
          locks.push_back(std::make_unique<McsLock>());
          locks.back()->lock();
        }
      },
      "kThreadLocalNodes");
}

}  // namespace
