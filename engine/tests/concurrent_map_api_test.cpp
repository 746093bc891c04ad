// The concurrent maps' defects found in review and their read-modify-write API:
//   - a refused insert (kFull) moved from the caller's key and value;
//   - update_fn, erase_fn, upsert and uprase_fn: semantics, and a two-thread word count
//     whose totals are exact with no outside lock.
// The striped map's memory bound (retired tables): concurrent_map_memory_test.cpp.
// Allocation failures: cuckoo_map_alloc_failure_test.cpp. Linearizability of the
// read-modify-write operations: stress/tests/concurrent_map_stress_test.cpp.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include "cuckoo/concurrent_map.hpp"
#include "cuckoo/detail/rng.hpp"
#include "support/watchdog.hpp"

namespace {

using cuckoo::CoarseConcurrentMap;
using cuckoo::CuckooMapConfig;
using cuckoo::InsertResult;
using cuckoo::StripedConcurrentMap;

CuckooMapConfig config(std::size_t initial, std::size_t max_capacity = std::size_t{1} << 24) {
  CuckooMapConfig c;
  c.initial_capacity = initial;
  c.max_capacity = max_capacity;
  c.seed = 17;
  return c;
}

// Every key in the same bucket pair (the only bucket of a one-bucket map).
struct OneBucketHasher {
  std::uint64_t operator()(const std::string&, std::uint64_t) const { return 0; }
};

std::string long_text(const char* tag, int i) {
  return std::string(tag) + std::to_string(i) + std::string(40, 'x');
}

template <class Map>
void refused_insert_keeps_arguments(Map& map) {
  int i = 0;
  InsertResult r = InsertResult::kInserted;
  for (; i < 64 && r == InsertResult::kInserted; ++i) r = map.insert(long_text("k", i), long_text("v", i));
  ASSERT_EQ(r, InsertResult::kFull) << "the map never filled";
  std::string key = long_text("k", 1000);
  std::string value = long_text("v", 1000);
  ASSERT_EQ(map.insert(std::move(key), std::move(value)), InsertResult::kFull);
  EXPECT_EQ(key, long_text("k", 1000)) << "a refused insert took the key";
  EXPECT_EQ(value, long_text("v", 1000)) << "a refused insert took the value";
  ASSERT_EQ(map.insert_or_assign(std::move(key), std::move(value)), InsertResult::kFull);
  EXPECT_EQ(key, long_text("k", 1000)) << "a refused insert_or_assign took the key";
  EXPECT_EQ(value, long_text("v", 1000)) << "a refused insert_or_assign took the value";
  EXPECT_EQ(map.check_invariants(), "");
}

TEST(ConcurrentMapRefusedInsert, StripedKeepsTheCallersArguments) {
  StripedConcurrentMap<std::string, std::string, 4, OneBucketHasher> map(config(4, 4));
  refused_insert_keeps_arguments(map);
}

TEST(ConcurrentMapRefusedInsert, CoarseKeepsTheCallersArguments) {
  CoarseConcurrentMap<std::string, std::string, 4, OneBucketHasher> map(config(4, 4));
  refused_insert_keeps_arguments(map);
}

// ---- Read-modify-write ------------------------------------------------------------------

template <class Map>
class ConcurrentMapRmw : public ::testing::Test {};
using Designs = ::testing::Types<StripedConcurrentMap<std::string, int>,
                                 CoarseConcurrentMap<std::string, int>>;
TYPED_TEST_SUITE(ConcurrentMapRmw, Designs);

TYPED_TEST(ConcurrentMapRmw, Semantics) {
  TypeParam map(config(64));
  const auto bump = [](int& n) { ++n; };
  EXPECT_FALSE(map.update_fn("a", bump));
  EXPECT_FALSE(map.contains("a"));
  EXPECT_EQ(map.upsert("a", bump, 10), InsertResult::kInserted);
  EXPECT_EQ(map.find("a"), 10);
  EXPECT_EQ(map.upsert("a", bump, 10), InsertResult::kUpdated);
  EXPECT_EQ(map.find("a"), 11);
  EXPECT_TRUE(map.update_fn("a", [](int& n) { n *= 2; }));
  EXPECT_EQ(map.find("a"), 22);
  // erase_fn: present -> true; erases only when fn says so.
  EXPECT_TRUE(map.erase_fn("a", [](int& n) { return n > 100; }));
  EXPECT_EQ(map.find("a"), 22);
  EXPECT_TRUE(map.erase_fn("a", [](int& n) { return n == 22; }));
  EXPECT_FALSE(map.contains("a"));
  EXPECT_FALSE(map.erase_fn("a", [](int&) { return true; }));
  // uprase_fn: absent inserts; present runs fn and erases when it returns true.
  EXPECT_EQ(map.uprase_fn("b", [](int&) { return true; }, 5), InsertResult::kInserted);
  EXPECT_EQ(map.find("b"), 5);
  EXPECT_EQ(map.uprase_fn("b", [](int& n) { return --n == 0; }, 99), InsertResult::kUpdated);
  EXPECT_EQ(map.find("b"), 4);
  for (int i = 0; i < 4; ++i) map.uprase_fn("b", [](int& n) { return --n == 0; }, 99);
  EXPECT_FALSE(map.contains("b")) << "uprase_fn must erase when fn returns true";
  EXPECT_EQ(map.size(), 0U);
  // A key type convertible to K (const char*) and an rvalue K.
  std::string c = "c";
  EXPECT_EQ(map.upsert(std::move(c), bump, 1), InsertResult::kInserted);
  EXPECT_EQ(map.size(), 1U);
  EXPECT_EQ(map.check_invariants(), "");
}

// Many upserts of a few keys through growth (the striped insert takes every stripe to
// grow): fn runs exactly once per present key.
TYPED_TEST(ConcurrentMapRmw, UpsertCountsThroughGrowth) {
  TypeParam map(config(8));
  std::unordered_map<std::string, int> model;
  cuckoo::detail::Rng rng(5);
  for (int i = 0; i < 20'000; ++i) {
    const std::string key = "w" + std::to_string(rng.below(3000));
    ASSERT_NE(map.upsert(key, [](int& n) { ++n; }, 1), InsertResult::kFull);
    ++model[key];
  }
  EXPECT_EQ(map.size(), model.size());
  for (const auto& [key, n] : model) ASSERT_EQ(map.find(key), n) << key;
}

TYPED_TEST(ConcurrentMapRmw, TwoThreadWordCountIsExact) {
  cuckoo::test::Watchdog watchdog("TwoThreadWordCountIsExact");
  TypeParam map(config(16));
  constexpr int kWords = 500;
  constexpr int kRounds = 40;
  const auto count_words = [&](int offset) {
    for (int round = 0; round < kRounds; ++round) {
      for (int w = 0; w < kWords; ++w) {
        const std::string word = "word" + std::to_string((w + offset) % kWords);
        map.upsert(word, [](int& n) { ++n; }, 1);
        // Every third word also goes through update_fn (+10) and back (erase_fn -10,
        // never erasing): the totals stay exact only if each is atomic.
        if (w % 3 == 0) {
          map.update_fn(word, [](int& n) { n += 10; });
          map.erase_fn(word, [](int& n) {
            n -= 10;
            return false;
          });
        }
      }
    }
  };
  std::thread a(count_words, 0), b(count_words, kWords / 2);
  a.join();
  b.join();
  EXPECT_EQ(map.size(), static_cast<std::size_t>(kWords));
  for (int w = 0; w < kWords; ++w) {
    ASSERT_EQ(map.find("word" + std::to_string(w)), 2 * kRounds) << "word" << w;
  }
}

// ---- Atomic items: lookups without locks -------------------------------------------------

using AtomicMap = StripedConcurrentMap<std::uint64_t, std::uint64_t>;
static_assert(AtomicMap::kAtomicItems);
static_assert(!StripedConcurrentMap<std::string, int>::kAtomicItems);
static_assert(!StripedConcurrentMap<std::uint64_t, std::string>::kAtomicItems);

TEST(StripedMapAtomicItems, LookupsTakeNoLockWhenNoWriterRuns) {
  AtomicMap map(config(1024));
  for (std::uint64_t k = 0; k < 600; ++k) ASSERT_EQ(map.insert(k, 3 * k), InsertResult::kInserted);
  for (std::uint64_t k = 0; k < 1200; ++k) {
    const std::optional<std::uint64_t> found = map.find(k);
    if (k < 600) {
      ASSERT_EQ(found, 3 * k) << k;
      ASSERT_TRUE(map.contains(k)) << k;
    } else {
      ASSERT_EQ(found, std::nullopt) << k;
      ASSERT_FALSE(map.contains(k)) << k;
    }
  }
  EXPECT_EQ(map.stats().locked_reads, 0U) << "a lookup with no writer running took the stripes";
}

// The read-modify-write members change an atomic item's value through a copy that they
// store back: every change must be in the map afterwards.
TEST(StripedMapAtomicItems, ReadModifyWriteStoresTheChangedValue) {
  AtomicMap map(config(64));
  ASSERT_EQ(map.insert(1, 10), InsertResult::kInserted);
  EXPECT_TRUE(map.update_fn(1, [](std::uint64_t& n) { n += 5; }));
  EXPECT_EQ(map.find(1), 15U);
  EXPECT_TRUE(map.erase_fn(1, [](std::uint64_t& n) {
    n *= 2;
    return false;
  }));
  EXPECT_EQ(map.find(1), 30U) << "erase_fn's change must stay when it does not erase";
  EXPECT_TRUE(map.erase_fn(1, [](std::uint64_t& n) { return n == 30; }));
  EXPECT_FALSE(map.contains(1));
  EXPECT_EQ(map.upsert(2, [](std::uint64_t& n) { ++n; }, 7U), InsertResult::kInserted);
  EXPECT_EQ(map.upsert(2, [](std::uint64_t& n) { ++n; }, 7U), InsertResult::kUpdated);
  EXPECT_EQ(map.find(2), 8U);
  EXPECT_EQ(map.uprase_fn(2, [](std::uint64_t& n) { return --n == 7; }, 0U), InsertResult::kUpdated);
  EXPECT_FALSE(map.contains(2));
  EXPECT_EQ(map.insert_or_assign(3, 1), InsertResult::kInserted);
  EXPECT_EQ(map.insert_or_assign(3, 2), InsertResult::kUpdated);
  EXPECT_EQ(map.find(3), 2U);
  EXPECT_EQ(map.size(), 1U);
  EXPECT_EQ(map.check_invariants(), "");
}

// Lock-free lookups of keys that stay present, while another thread grows the table and
// fills it to kFull (cuckoo paths move items between the keys' buckets) and empties it
// again: every lookup must find its key with its value, none may miss it mid-move or
// read it from a replaced table.
TEST(StripedMapAtomicItems, LookupsDuringMovesAndGrowthFindEveryPresentKey) {
  cuckoo::test::Watchdog watchdog("LookupsDuringMovesAndGrowthFindEveryPresentKey");
  AtomicMap map(config(8, 4096));
  constexpr std::uint64_t kStable = 64;
  for (std::uint64_t k = 0; k < kStable; ++k) ASSERT_EQ(map.insert(k, k + 1), InsertResult::kInserted);
  std::atomic<bool> done{false};
  std::thread writer([&] {
    for (int round = 0; round < 12; ++round) {
      std::vector<std::uint64_t> churn;
      for (std::uint64_t i = 0; i < 4096; ++i) {
        const std::uint64_t key = 1'000'000 * (round + 1) + i;
        if (map.insert(key, i) != InsertResult::kInserted) break;
        churn.push_back(key);
      }
      for (const std::uint64_t key : churn) map.erase(key);
    }
    done.store(true);
  });
  std::uint64_t lookups = 0;
  std::string failure;
  while (!done.load() && failure.empty()) {
    for (std::uint64_t k = 0; k < kStable && failure.empty(); ++k, ++lookups) {
      const std::optional<std::uint64_t> found = map.find(k);
      if (found != k + 1) {
        failure = "find(" + std::to_string(k) + ") gave " +
                  (found ? std::to_string(*found) : std::string("nothing")) + " after " +
                  std::to_string(lookups) + " lookups";
      }
    }
  }
  writer.join();
  EXPECT_EQ(failure, "");
  EXPECT_GT(map.stats().growths, 5U) << "the writer did not grow the table";
  EXPECT_GT(map.stats().path_inserts, 0U) << "the writer moved no path";
  EXPECT_EQ(map.size(), kStable);
  EXPECT_EQ(map.check_invariants(), "");
  std::printf("[ lookups ] %llu lock-free lookups, %llu took the stripes\n",
              static_cast<unsigned long long>(lookups),
              static_cast<unsigned long long>(map.stats().locked_reads));
}

}  // namespace
