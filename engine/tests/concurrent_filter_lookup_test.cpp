// StripedConcurrentFilter lookups write nothing shared. Near full load the
// stash is not empty, and every negative lookup used to take the single stash lock, so
// all misses serialized on one cache line. Lookups now read the stash as seqlock readers
// of that lock; these tests watch the lock's version (it moves on every acquisition),
// and check that the lock-free stash read still finds stashed items (C1).
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <thread>
#include <vector>

#include "cuckoo/concurrent_filter.hpp"
#include "support/watchdog.hpp"

namespace {

using cuckoo::CuckooFilterConfig;
using cuckoo::InsertResult;
using cuckoo::StripedConcurrentFilter;

CuckooFilterConfig small_config(std::uint64_t seed) {
  CuckooFilterConfig c;
  c.capacity = 256;
  c.fingerprint_bits = 12;
  c.slots_per_bucket = 4;
  c.max_kicks = 16;  // gives up early, so the stash fills below full load
  c.seed = seed;
  return c;
}

// Fills the filter until the stash holds `entries` items; returns the keys stored.
std::vector<std::uint64_t> fill_until_stashed(StripedConcurrentFilter& filter,
                                              unsigned entries = 2) {
  std::vector<std::uint64_t> stored;
  for (std::uint64_t k = 1; k < 100'000 && filter.stash_size() < entries; ++k) {
    if (filter.insert(k) == InsertResult::kInserted) stored.push_back(k);
  }
  return stored;
}

TEST(StripedFilterLookup, NegativeLookupsTakeNoLockWithAStash) {
  StripedConcurrentFilter filter(small_config(3));
  const std::vector<std::uint64_t> stored = fill_until_stashed(filter);
  ASSERT_GE(filter.stash_size(), 2U) << "the stash never filled";
  const std::uint64_t version = filter.engine().stash_lock_version();
  std::uint64_t false_positives = 0;
  for (std::uint64_t k = 1'000'000; k < 1'010'000; ++k) false_positives += filter.contains(k);
  EXPECT_EQ(filter.engine().stash_lock_version(), version)
      << "negative lookups took the stash lock (" << false_positives << " false positives)";
  for (std::uint64_t k : stored) ASSERT_TRUE(filter.contains(k)) << "false negative for " << k;
  EXPECT_EQ(filter.engine().stash_lock_version(), version) << "positive lookups took the stash lock";
}

// Items in the stash are found by the lock-free read, also while other threads keep
// changing the stash (inserting and erasing their own keys, which moves entries in and
// out of it and shifts the others).
TEST(StripedFilterLookup, StashedItemsAreFoundWhileTheStashChanges) {
  cuckoo::test::Watchdog watchdog("StashedItemsAreFoundWhileTheStashChanges");
  StripedConcurrentFilter filter(small_config(5));
  const std::vector<std::uint64_t> stored = fill_until_stashed(filter);
  ASSERT_GT(filter.stash_size(), 0U);
  std::atomic<bool> stop{false};
  std::thread churn([&] {
    std::uint64_t next = 2'000'000;
    while (!stop.load(std::memory_order_relaxed)) {
      const std::uint64_t k = next++;
      if (filter.insert(k) == InsertResult::kInserted) filter.erase(k);
    }
  });
  for (int round = 0; round < 200; ++round) {
    for (std::uint64_t k : stored) {
      if (!filter.contains(k)) {
        stop = true;
        churn.join();
        FAIL() << "false negative for " << k << " in round " << round;
      }
    }
  }
  stop = true;
  churn.join();
}

// size() while updates run: at least the smallest size the call overlapped, at most the
// size when it began plus the inserts that complete during it (the documented bounds).
// Stable keys are never erased, so the size never drops below their count; a churn
// thread inserts and erases its own keys, at most one of them stored at a time, and
// counts each insert before it starts, so inserts that complete during a size() call
// are counted by the reader's second read of the counter.
TEST(StripedFilterSize, StaysWithinTheDocumentedBoundsUnderChurn) {
  cuckoo::test::Watchdog watchdog("StaysWithinTheDocumentedBoundsUnderChurn");
  CuckooFilterConfig c = small_config(9);
  c.capacity = 1 << 12;
  c.max_kicks = 500;
  StripedConcurrentFilter filter(c);
  std::uint64_t stable = 0;
  for (std::uint64_t k = 1; k <= 1000; ++k) stable += filter.insert(k) == InsertResult::kInserted;
  ASSERT_EQ(filter.size(), stable);
  std::atomic<std::uint64_t> inserts_started{0};
  std::atomic<bool> stop{false};
  std::thread churn([&] {
    std::uint64_t next = 5'000'000;
    while (!stop.load(std::memory_order_relaxed)) {
      const std::uint64_t k = next++;
      inserts_started.fetch_add(1, std::memory_order_seq_cst);
      if (filter.insert(k) == InsertResult::kInserted) filter.erase(k);
    }
  });
  for (int i = 0; i < 20'000; ++i) {
    const std::uint64_t before = inserts_started.load(std::memory_order_seq_cst);
    const std::uint64_t size = filter.size();
    const std::uint64_t after = inserts_started.load(std::memory_order_seq_cst);
    if (size < stable || size > stable + 1 + (after - before)) {
      stop = true;
      churn.join();
      FAIL() << "size() = " << size << " outside [" << stable << ", " << stable + 1 + (after - before)
             << "] (read " << i << ")";
    }
  }
  stop = true;
  churn.join();
  EXPECT_EQ(filter.size(), stable) << "exact once no update runs";
}

}  // namespace
