// The stripe locks both striped engines share (detail/stripe_locks.hpp): the sorted,
// deduplicated lock order, the guards of some and of all stripes, the seqlock versions,
// the optimistic read, the per-stripe payload, and the map's bucket view of them
// (detail/concurrent_map_locks.hpp).
#include "cuckoo/detail/stripe_locks.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <thread>
#include <vector>

#include "cuckoo/detail/concurrent_map_locks.hpp"
#include "support/watchdog.hpp"

namespace {

using cuckoo::test::current_test_name;
using cuckoo::test::Watchdog;

using cuckoo::detail::AllStripesGuard;
using cuckoo::detail::BasicLockStripes;
using cuckoo::detail::kAllStripes;
using cuckoo::detail::kBucketStripes;
using cuckoo::detail::LockStripes;
using cuckoo::detail::MapLockStripes;
using cuckoo::detail::MapStripeGuard;
using cuckoo::detail::OptimisticRead;
using cuckoo::detail::StripeGuard;
using cuckoo::detail::StripeSet;

TEST(LockStripes, StripeSetSortsAndDeduplicates) {
  const StripeSet<3> set({7, 2, 7});
  ASSERT_EQ(set.size(), 2U);
  EXPECT_EQ(set[0], 2U);
  EXPECT_EQ(set[1], 7U);
  const StripeSet<3> all({5, 1, 3});
  ASSERT_EQ(all.size(), 3U);
  EXPECT_EQ(all[0], 1U);
  EXPECT_EQ(all[1], 3U);
  EXPECT_EQ(all[2], 5U);
}

TEST(LockStripes, GuardHoldsAndReleasesAndVersionsAdvance) {
  const LockStripes stripes(4);
  const std::uint64_t v1 = stripes[1].version();
  {
    const StripeGuard<3> held(stripes, {3, 1, 1});
    EXPECT_TRUE(held.holds(1));
    EXPECT_TRUE(held.holds(3));
    EXPECT_FALSE(held.holds(0));
    EXPECT_TRUE(stripes[1].is_locked());
    EXPECT_TRUE(stripes[3].is_locked());
    EXPECT_FALSE(stripes[2].is_locked());
    const OptimisticRead<2> read(stripes, {1, 2});
    EXPECT_FALSE(read.started()) << "a held stripe cannot be read optimistically";
  }
  EXPECT_FALSE(stripes[1].is_locked());
  EXPECT_EQ(stripes[1].version(), v1 + 2) << "one critical section advances the version by 2";
}

TEST(LockStripes, OptimisticReadSeesAnOverlappingCriticalSection) {
  const LockStripes stripes(2);
  const OptimisticRead<2> untouched(stripes, {0, 1});
  EXPECT_TRUE(untouched.started());
  EXPECT_TRUE(untouched.valid());
  const OptimisticRead<2> overlapped(stripes, {0, 1});
  { const StripeGuard<1> writer(stripes, {1}); }
  EXPECT_FALSE(overlapped.valid());
  const OptimisticRead<2> after(stripes, {0, 1});
  EXPECT_TRUE(after.valid());
}

TEST(LockStripes, MutualExclusionUnderContention) {
  const Watchdog watchdog(current_test_name());
  const LockStripes stripes(2);
  std::uint64_t counter = 0;  // plain: guarded by the stripes {0, 1} taken together
  std::vector<std::thread> threads;
  for (unsigned t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 20000; ++i) {
        // Both orders of listing: the guard sorts, so no deadlock.
        const StripeGuard<2> held(stripes, {t % 2 == 0 ? 0U : 1U, t % 2 == 0 ? 1U : 0U});
        ++counter;
      }
    });
  }
  for (std::thread& th : threads) th.join();
  EXPECT_EQ(counter, 4U * 20000U);
}

TEST(LockStripes, AllStripesGuardTakesEveryStripeOnceAndReleasesThem) {
  const LockStripes stripes(8);
  {
    const AllStripesGuard all(stripes, kAllStripes);
    EXPECT_TRUE(all.holds_all());
    for (std::uint32_t s = 0; s < 8; ++s) {
      EXPECT_TRUE(stripes[s].is_locked()) << s;
      EXPECT_TRUE(all.holds(s)) << s;
    }
  }
  for (std::uint32_t s = 0; s < 8; ++s) {
    EXPECT_FALSE(stripes[s].is_locked()) << s;
    EXPECT_EQ(stripes[s].version(), 2U) << "stripe " << s << " taken once, released once";
  }
}

// A guard of some stripes and a guard of all exclude each other and never deadlock:
// both take stripes in ascending order.
TEST(LockStripes, SomeAndAllGuardsExcludeEachOther) {
  const Watchdog watchdog(current_test_name());
  const LockStripes stripes(4);
  std::uint64_t a = 0;  // plain: written under stripe 3 (or all)
  std::uint64_t b = 0;  // plain: written under stripe 1 (or all)
  std::vector<std::thread> threads;
  for (unsigned t = 0; t < 3; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 20000; ++i) {
        if (t == 0) {
          const AllStripesGuard all(stripes, kAllStripes);
          EXPECT_EQ(a, b);
        } else {
          const StripeGuard<2> held(stripes, {3, 1});
          ++a;
          ++b;
        }
      }
    });
  }
  for (std::thread& th : threads) th.join();
  EXPECT_EQ(a, 2U * 20000U);
  EXPECT_EQ(b, a);
}

// The payload shares its stripe's cache line, one line a stripe.
TEST(LockStripes, PayloadLivesOnItsStripesLine) {
  struct Counter {
    std::atomic<std::int64_t> n{0};
  };
  const BasicLockStripes<Counter> stripes(4);
  EXPECT_EQ(stripes.memory_bytes(), 4U * 64U);
  const auto line = [](const void* p) { return reinterpret_cast<std::uintptr_t>(p) / 64; };
  for (std::size_t s = 0; s < 4; ++s) {
    EXPECT_EQ(line(&stripes[s]), line(&stripes.payload(s))) << s;
    if (s > 0) {
      EXPECT_NE(line(&stripes[s]), line(&stripes[s - 1])) << s;
    }
  }
  stripes.payload(2).n = 5;
  EXPECT_EQ(stripes.payload(2).n.load(), 5);
  EXPECT_EQ(stripes.payload(1).n.load(), 0);
}

// The map's view: bucket b under stripe b & (S - 1); a guard of buckets that share a
// stripe takes it once; item counters sum across stripes.
TEST(MapLockStripes, BucketsMapToStripesAndCountersSum) {
  const MapLockStripes stripes(4);
  EXPECT_EQ(stripes.stripe_of(6), 2U);
  EXPECT_EQ(MapLockStripes::count_for(3), 4U);
  EXPECT_EQ(MapLockStripes::count_for(1U << 20), MapLockStripes::kMaxStripes);
  {
    const MapStripeGuard guard(stripes, kBucketStripes, 2, 6, 5);  // stripes 2, 2, 1
    EXPECT_TRUE(guard.covers(10));
    EXPECT_TRUE(guard.covers(1));
    EXPECT_FALSE(guard.covers(3));
    EXPECT_FALSE(guard.holds_all());
    EXPECT_TRUE(stripes.locks()[2].is_locked());
    EXPECT_TRUE(stripes.locks()[1].is_locked());
    EXPECT_FALSE(stripes.locks()[0].is_locked());
  }
  EXPECT_EQ(stripes.locks()[2].version(), 2U) << "a shared stripe is taken once";
  MapLockStripes counted(4);
  counted.add_items(0, 3);
  counted.add_items(3, 2);
  counted.add_items(1, -1);
  EXPECT_EQ(counted.item_count(), 4U);
  {
    const MapStripeGuard all(counted, kAllStripes);
    EXPECT_TRUE(all.holds_all());
    EXPECT_TRUE(all.covers(123));
    counted.reset_items();
  }
  EXPECT_EQ(counted.item_count(), 0U);
}

}  // namespace
