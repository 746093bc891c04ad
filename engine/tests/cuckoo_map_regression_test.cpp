// Regression tests of CuckooMap defects found in review. Each one failed on
// the code before its fix:
//   - a refused insert (kFull) moved from the caller's key and value;
//   - the branch-free key comparison called a class key's operator== on empty slots;
//   - an item in the stash moved back into the table only when a slot freed in one of
//     its buckets (a planted bug the suite did not notice; ci/mutants has it).
// Allocation failures in every insert path: cuckoo_map_alloc_failure_test.cpp.
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "cuckoo/cuckoo_map.hpp"
#include "support/placed_hasher.hpp"

namespace {

using cuckoo::CuckooMap;
using cuckoo::CuckooMapConfig;
using cuckoo::InsertResult;

// Every key hashes to the same two buckets (the first and only bucket of a one-bucket
// map), so a map of one bucket fills its 4 slots, then its stash, then is full.
struct OneBucketHasher {
  std::uint64_t operator()(const std::string&, std::uint64_t) const { return 0; }
};

CuckooMapConfig fixed_config(std::size_t initial_capacity, std::size_t max_capacity) {
  CuckooMapConfig config;
  config.initial_capacity = initial_capacity;
  config.max_capacity = max_capacity;
  config.seed = 7;
  return config;
}

// Long enough that std::string keeps it on the heap: a moved-from copy is empty.
std::string long_text(const char* tag, int i) {
  return std::string(tag) + "-" + std::to_string(i) + std::string(40, 'x');
}

TEST(CuckooMapRegression, RefusedInsertLeavesTheCallersArgumentsUntouched) {
  using Map = CuckooMap<std::string, std::string, 4, OneBucketHasher>;
  Map map(fixed_config(4, 4));  // one bucket, no growth: 4 slots + the stash
  int i = 0;
  for (; map.size() < 4 + Map::kStashSlots; ++i) {
    ASSERT_EQ(map.insert_outcome(long_text("k", i), long_text("v", i)), InsertResult::kInserted) << i;
  }
  std::string key = long_text("k", i);
  std::string value = long_text("v", i);
  ASSERT_EQ(map.insert_outcome(std::move(key), std::move(value)), InsertResult::kFull);
  EXPECT_EQ(key, long_text("k", i)) << "insert(K&&, V&&) answered kFull but took the key";
  EXPECT_EQ(value, long_text("v", i)) << "insert(K&&, V&&) answered kFull but took the value";
  ASSERT_EQ(map.insert_or_assign_outcome(std::move(key), std::move(value)), InsertResult::kFull);
  EXPECT_EQ(key, long_text("k", i)) << "insert_or_assign answered kFull but took the key";
  EXPECT_EQ(value, long_text("v", i)) << "insert_or_assign answered kFull but took the value";
  // The caller can put the item elsewhere: it is whole.
  std::unordered_map<std::string, std::string> elsewhere;
  elsewhere.emplace(std::move(key), std::move(value));
  EXPECT_EQ(elsewhere.at(long_text("k", i)), long_text("v", i));
  // kExists takes nothing either.
  std::string present = long_text("k", 0);
  std::string other_value = long_text("other", 0);
  ASSERT_EQ(map.insert_outcome(std::move(present), std::move(other_value)), InsertResult::kExists);
  EXPECT_EQ(present, long_text("k", 0));
  EXPECT_EQ(other_value, long_text("other", 0));
  EXPECT_EQ(map.check_invariants(), "");
}

// A trivially copyable key whose equality reads through a pointer. An empty slot's key
// is all zero bytes: a null pointer, which operator== must never see.
struct BoxedKey {
  const int* value;
  friend bool operator==(const BoxedKey& a, const BoxedKey& b) { return *a.value == *b.value; }
};
struct BoxedKeyHasher {
  std::uint64_t operator()(const BoxedKey& key, std::uint64_t seed) const {
    return cuckoo::DefaultHasher{}(*key.value, seed);
  }
};

TEST(CuckooMapRegression, KeyEqualityNeverSeesAnEmptySlot) {
  static_assert(std::is_trivially_copyable_v<BoxedKey>);
  static const int numbers[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  CuckooMap<BoxedKey, int, 4, BoxedKeyHasher> map(fixed_config(64, 1024));
  // Sparse: almost every bucket a lookup reads has empty slots.
  for (int i = 0; i < 5; ++i) {
    ASSERT_EQ(map.insert_outcome(BoxedKey{&numbers[i]}, i), InsertResult::kInserted);
  }
  for (int i = 0; i < 10; ++i) {
    EXPECT_EQ(map.contains(BoxedKey{&numbers[i]}), i < 5) << numbers[i];
  }
  const int probe = 3;  // another address, an equal value
  ASSERT_NE(map.find_value(BoxedKey{&probe}), nullptr);
  EXPECT_EQ(*map.find_value(BoxedKey{&probe}), 2);
  EXPECT_TRUE(map.erase(BoxedKey{&probe}));
  EXPECT_FALSE(map.contains(BoxedKey{&numbers[2]}));
}

using cuckoo::test::PlacedHasher;

// A 2-slot-bucket map of 4 buckets that cannot grow. Buckets 0 and 1 are filled with
// keys that can live nowhere else, so an item whose candidates are {0, 1} has no cuckoo
// path and waits in the stash. `stashed_first` picks the stashed items' first bucket.
struct StashScenario {
  using Map = CuckooMap<std::uint64_t, std::uint64_t, 2, PlacedHasher>;
  static constexpr std::uint32_t kBuckets = 4;
  PlacedHasher hasher;
  Map map;
  std::vector<std::uint64_t> pinned0, pinned1, stashed;

  explicit StashScenario(std::uint32_t stashed_first)
      : map(fixed_config(2 * kBuckets, 2 * kBuckets), hasher) {
    const auto place = [&](std::uint64_t key, std::uint32_t a, std::uint32_t b) {
      (*hasher.placed)[key] = Map::hash_for_buckets(a, b, kBuckets);
    };
    for (std::uint64_t k = 0; k < 2; ++k) {
      place(100 + k, 0, 0);
      place(200 + k, 1, 1);
      pinned0.push_back(100 + k);
      pinned1.push_back(200 + k);
    }
    for (std::uint64_t k = 0; k < Map::kStashSlots + 2; ++k) {
      place(300 + k, stashed_first, 1 - stashed_first);
    }
    for (std::uint64_t key : pinned0) EXPECT_EQ(map.insert_outcome(key, key), InsertResult::kInserted);
    for (std::uint64_t key : pinned1) EXPECT_EQ(map.insert_outcome(key, key), InsertResult::kInserted);
    for (std::uint64_t k = 0; k < Map::kStashSlots; ++k) {
      EXPECT_EQ(map.insert_outcome(300 + k, k), InsertResult::kInserted) << k;
      stashed.push_back(300 + k);
    }
    EXPECT_EQ(map.stash_size(), Map::kStashSlots);
    // The stash is full and the table may not grow: one more such item is refused.
    EXPECT_EQ(map.insert_outcome(300 + Map::kStashSlots, 0), InsertResult::kFull);
  }

  // Erases a pinned key of bucket `bucket`; checks one stashed item moved into the freed
  // slot, and that the next {0, 1} item is accepted (the stash has room again).
  void free_slot_and_check(std::uint32_t bucket) {
    const std::size_t stash_before = map.stash_size();
    const std::uint64_t victim = bucket == 0 ? pinned0.back() : pinned1.back();
    ASSERT_TRUE(map.erase(victim));
    EXPECT_EQ(map.stash_size(), stash_before - 1)
        << "a slot freed in bucket " << bucket << ", a candidate of every stashed item, "
        << "but no stashed item moved back into the table";
    EXPECT_EQ(map.check_invariants(), "");
    for (std::uint64_t key : stashed) EXPECT_TRUE(map.contains(key)) << key;
    EXPECT_EQ(map.insert_outcome(300 + Map::kStashSlots, 0), InsertResult::kInserted)
        << "refused while the stash had room";
    EXPECT_EQ(map.check_invariants(), "");
  }
};

TEST(CuckooMapRegression, StashDrainsWhenTheItemsFirstBucketFrees) {
  StashScenario s(/*stashed_first=*/0);
  s.free_slot_and_check(0);
}

TEST(CuckooMapRegression, StashDrainsWhenTheItemsSecondBucketFrees) {
  StashScenario s(/*stashed_first=*/0);
  s.free_slot_and_check(1);
}

TEST(CuckooMapRegression, StashDrainsCompletelyAsTheLoadFalls) {
  StashScenario s(/*stashed_first=*/1);
  // Erase every pinned key and every table item: each erase from a table bucket pulls one
  // stashed item in, until the stash is empty.
  std::size_t guard = 0;
  while (s.map.stash_size() != 0 && guard++ < 64) {
    std::uint64_t table_key = 0;
    bool found = false;
    const std::size_t table_items = s.map.size() - s.map.stash_size();
    std::size_t index = 0;
    for (const auto& item : s.map) {  // the table's items come before the stash's
      if (index++ < table_items) {
        table_key = item.first;
        found = true;
        break;
      }
    }
    ASSERT_TRUE(found);
    const std::size_t before = s.map.stash_size();
    ASSERT_TRUE(s.map.erase(table_key));
    ASSERT_EQ(s.map.stash_size(), before - 1) << "erasing " << table_key;
    ASSERT_EQ(s.map.check_invariants(), "");
  }
  EXPECT_EQ(s.map.stash_size(), 0U);
}

}  // namespace
