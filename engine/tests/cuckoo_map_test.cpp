// Tests of CuckooMap: exact semantics against std::unordered_map (C7), the cuckoo path
// search, stash and growth, the growth limit (C6), serialization and its rejection of
// damaged input (C11), configuration errors, determinism.
//
// Every randomized test uses a fixed seed, prints it on failure, and takes
// CUCKOO_TEST_SEED from the environment to replay another one.
#include <gtest/gtest.h>

#include <cctype>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <iterator>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <span>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#include "cuckoo/cuckoo_map.hpp"
#include "cuckoo/detail/rng.hpp"
#include "support/test_seed.hpp"
#include "cuckoo/detail/serial.hpp"

namespace {

using cuckoo::test::test_seed;
std::string seed_note(std::uint64_t seed) { return cuckoo::test::seed_note(seed, "cuckoo_map_test"); }

using cuckoo::CuckooMap;
using cuckoo::CuckooMapConfig;
using cuckoo::DeserializeErrc;
using cuckoo::DeserializeError;
using cuckoo::InsertResult;
using U64Map = CuckooMap<std::uint64_t, std::uint64_t>;
using StringMap = CuckooMap<std::string, std::string>;

// ---- Helpers --------------------------------------------------------------------------

CuckooMapConfig config_of(std::uint64_t seed, std::size_t initial_capacity = 64,
                          std::size_t max_capacity = CuckooMapConfig::kDefaultMaxCapacity,
                          unsigned max_path_length = 5) {
  CuckooMapConfig config;
  config.initial_capacity = initial_capacity;
  config.max_capacity = max_capacity;
  config.max_path_length = max_path_length;
  config.seed = seed;
  return config;
}

// Full comparison with a model: same size, every model item found with its value,
// iteration visits each stored item exactly once, invariants hold.
template <class Map, class Model>
void expect_matches(const Map& map, const Model& model) {
  EXPECT_EQ(map.check_invariants(), "");
  ASSERT_EQ(map.size(), model.size());
  EXPECT_EQ(map.empty(), model.empty());
  for (const auto& [key, value] : model) {
    const auto* got = map.find_value(key);
    ASSERT_NE(got, nullptr) << "missing key " << key;
    EXPECT_EQ(*got, value) << "key " << key;
    EXPECT_TRUE(map.contains(key));
  }
  std::set<typename Map::key_type> seen;
  for (const auto& [key, value] : map) {
    EXPECT_TRUE(seen.insert(key).second) << "key visited twice: " << key;
    const auto it = model.find(key);
    ASSERT_NE(it, model.end()) << "unexpected key " << key;
    EXPECT_EQ(value, it->second);
  }
  EXPECT_EQ(seen.size(), model.size());
}

// Runs a random workload on map, checking every answer against std::unordered_map and
// the whole map every check_every ops.
template <class Map>
void run_workload(Map& map, std::uint64_t seed, int ops, std::uint64_t key_range,
                  int check_every) {
  SCOPED_TRACE(seed_note(seed));
  cuckoo::detail::Rng rng(seed);
  std::unordered_map<std::uint64_t, std::uint64_t> model;
  for (int op = 0; op < ops; ++op) {
    const std::uint64_t key = rng.below(key_range);
    const std::uint64_t value = rng.next();
    const std::uint64_t kind = rng.below(100);
    const bool present = model.count(key) != 0;
    if (kind < 40) {
      const InsertResult r = map.insert_outcome(key, value);
      ASSERT_EQ(r, present ? InsertResult::kExists : InsertResult::kInserted)
          << "op " << op << " insert " << key;
      if (!present) model[key] = value;
    } else if (kind < 55) {
      const InsertResult r = map.insert_or_assign_outcome(key, value);
      ASSERT_EQ(r, present ? InsertResult::kUpdated : InsertResult::kInserted)
          << "op " << op << " insert_or_assign " << key;
      model[key] = value;
    } else if (kind < 80) {
      ASSERT_EQ(map.erase(key), present) << "op " << op << " erase " << key;
      model.erase(key);
    } else {
      const std::uint64_t* got = map.find_value(key);
      ASSERT_EQ(got != nullptr, present) << "op " << op << " find " << key;
      if (present) {
        ASSERT_EQ(*got, model[key]) << "op " << op << " find " << key;
      }
    }
    ASSERT_EQ(map.size(), model.size()) << "op " << op;
    if (op % check_every == 0) {
      expect_matches(map, model);
      if (::testing::Test::HasFailure()) return;
    }
  }
  expect_matches(map, model);
}

// Keys from kHotBase on all get the same hash, so they share the same two buckets at
// every size and seed; other keys hash normally.
constexpr std::uint64_t kHotBase = 1'000'000'000;
constexpr std::uint64_t kHotHash = 0x0123456789abcdefULL;
struct HotHasher {
  std::uint64_t operator()(std::uint64_t key, std::uint64_t seed) const {
    return key >= kHotBase ? kHotHash : cuckoo::DefaultHasher{}(key, seed);
  }
};

// Puts chosen keys at chosen hashes (see CuckooMap::hash_for_buckets); other keys hash
// normally. Copies share the table.
struct PlacementHasher {
  std::shared_ptr<std::unordered_map<std::uint64_t, std::uint64_t>> placed =
      std::make_shared<std::unordered_map<std::uint64_t, std::uint64_t>>();
  std::uint64_t operator()(std::uint64_t key, std::uint64_t seed) const {
    const auto it = placed->find(key);
    return it != placed->end() ? it->second : cuckoo::DefaultHasher{}(key, seed);
  }
};

// The value stored for key, or nullopt: find() is never dereferenced unchecked.
template <class Map, class Key>
std::optional<typename Map::mapped_type> value_of(const Map& map, const Key& key) {
  const auto* value = map.find_value(key);
  if (value == nullptr) return std::nullopt;
  return *value;
}

template <class Map, class Key, class Value>
void assign_in_place(Map& map, const Key& key, const Value& value) {
  auto* slot = map.find_value(key);
  ASSERT_NE(slot, nullptr) << "key " << key;
  *slot = value;  // values change in place through find()
}

template <class Map>
std::vector<typename Map::key_type> keys_in_order(const Map& map) {
  std::vector<typename Map::key_type> keys;
  for (const auto& item : map) keys.push_back(item.first);
  return keys;
}

// ---- Basics ---------------------------------------------------------------------------

TEST(CuckooMap, EmptyMap) {
  const U64Map map(config_of(1));
  EXPECT_TRUE(map.empty());
  EXPECT_EQ(map.size(), 0U);
  EXPECT_EQ(map.capacity(), 64U);
  EXPECT_EQ(map.bucket_count(), 16U);
  EXPECT_EQ(map.load_factor(), 0.0);
  EXPECT_EQ(map.seed(), 1U);
  EXPECT_EQ(map.find_value(7), nullptr);
  EXPECT_FALSE(map.contains(0));
  EXPECT_EQ(map.begin(), map.end());
  EXPECT_EQ(map.stash_size(), 0U);
  EXPECT_EQ(map.check_invariants(), "");
}

TEST(CuckooMap, OneItem) {
  U64Map map(config_of(2));
  EXPECT_EQ(map.insert_outcome(42, 4200), InsertResult::kInserted);
  EXPECT_EQ(map.check_invariants(), "");
  EXPECT_EQ(map.size(), 1U);
  EXPECT_FALSE(map.empty());
  ASSERT_NE(map.find_value(42), nullptr);
  EXPECT_EQ(value_of(map, 42), 4200U);
  EXPECT_EQ(map.find_value(43), nullptr);
  EXPECT_DOUBLE_EQ(map.load_factor(), 1.0 / 64.0);
  int visits = 0;
  for (const auto& [key, value] : map) {
    EXPECT_EQ(key, 42U);
    EXPECT_EQ(value, 4200U);
    ++visits;
  }
  EXPECT_EQ(visits, 1);
  const auto [first, second] = map.buckets_of(42);
  EXPECT_LT(first, map.bucket_count());
  EXPECT_LT(second, map.bucket_count());
  EXPECT_EQ(map.stats().inserts, 1U);
}

TEST(CuckooMap, InsertFindErase) {
  U64Map map(config_of(3));
  for (std::uint64_t k = 0; k < 40; ++k) {
    ASSERT_EQ(map.insert_outcome(k, k * 10), InsertResult::kInserted);
    ASSERT_EQ(map.check_invariants(), "");
  }
  for (std::uint64_t k = 0; k < 40; ++k) {
    ASSERT_NE(map.find_value(k), nullptr);
    EXPECT_EQ(value_of(map, k), k * 10);
  }
  assign_in_place(map, 5, 555);
  EXPECT_EQ(value_of(map, 5), 555U);
  for (std::uint64_t k = 0; k < 40; k += 2) {
    EXPECT_TRUE(map.erase(k));
    ASSERT_EQ(map.check_invariants(), "");
  }
  EXPECT_EQ(map.size(), 20U);
  for (std::uint64_t k = 0; k < 40; ++k) EXPECT_EQ(map.contains(k), k % 2 == 1) << k;
  EXPECT_EQ(map.stats().erases, 20U);
}

TEST(CuckooMap, InsertReportsExistsAndInsertOrAssignUpdates) {
  U64Map map(config_of(4));
  EXPECT_EQ(map.insert_outcome(1, 10), InsertResult::kInserted);
  EXPECT_EQ(map.insert_outcome(1, 11), InsertResult::kExists);
  EXPECT_EQ(value_of(map, 1), 10U) << "insert of a present key must not change its value";
  EXPECT_EQ(map.insert_or_assign_outcome(1, 12), InsertResult::kUpdated);
  EXPECT_EQ(value_of(map, 1), 12U);
  EXPECT_EQ(map.insert_or_assign_outcome(2, 20), InsertResult::kInserted);
  EXPECT_EQ(map.size(), 2U);
  EXPECT_EQ(map.stats().inserts, 2U);
  EXPECT_EQ(map.stats().updates, 1U);
  EXPECT_EQ(map.check_invariants(), "");
}

TEST(CuckooMap, EraseOfAbsentKey) {
  U64Map map(config_of(5));
  EXPECT_FALSE(map.erase(9));
  map.insert(1, 1);
  EXPECT_FALSE(map.erase(9));
  EXPECT_TRUE(map.erase(1));
  EXPECT_FALSE(map.erase(1));
  EXPECT_EQ(map.size(), 0U);
  EXPECT_EQ(map.check_invariants(), "");
}

TEST(CuckooMap, ClearKeepsShapeAndSeed) {
  U64Map map(config_of(6, 8));
  for (std::uint64_t k = 0; k < 100; ++k) map.insert(k, k);
  const auto buckets = map.bucket_count();
  map.clear();
  EXPECT_TRUE(map.empty());
  EXPECT_EQ(map.bucket_count(), buckets);
  EXPECT_EQ(map.seed(), 6U);
  EXPECT_EQ(map.begin(), map.end());
  EXPECT_EQ(map.find_value(3), nullptr);
  EXPECT_EQ(map.check_invariants(), "");
  EXPECT_EQ(map.insert_outcome(3, 4), InsertResult::kInserted);
}

TEST(CuckooMap, StringKeysAndValues) {
  StringMap map(config_of(7, 8));
  std::map<std::string, std::string> model;
  for (int i = 0; i < 600; ++i) {
    // Long values defeat the small-string buffer, so moves of heap strings are checked.
    std::string key = "key-" + std::to_string(i);
    std::string value = std::string(40, static_cast<char>('a' + i % 26)) + std::to_string(i);
    ASSERT_EQ(map.insert_outcome(key, value), InsertResult::kInserted);
    model[key] = value;
  }
  expect_matches(map, model);
  EXPECT_GT(map.stats().growths, 0U);
  EXPECT_EQ(map.insert_outcome("key-5", "other"), InsertResult::kExists);
  EXPECT_EQ(map.insert_or_assign_outcome(std::string("key-5"), std::string("new")),
            InsertResult::kUpdated);
  model["key-5"] = "new";
  for (int i = 0; i < 600; i += 3) {
    ASSERT_TRUE(map.erase("key-" + std::to_string(i)));
    model.erase("key-" + std::to_string(i));
  }
  EXPECT_FALSE(map.erase("no such key"));
  EXPECT_FALSE(map.contains(""));
  EXPECT_EQ(map.insert_outcome("", "empty key"), InsertResult::kInserted);
  model[""] = "empty key";
  expect_matches(map, model);
}

// ---- Growth ---------------------------------------------------------------------------

TEST(CuckooMap, RandomWorkloadGrowsThroughManyDoublingsAndMatchesModel) {
  const std::uint64_t seed = test_seed(20240611);
  U64Map map(config_of(seed, 4));
  run_workload(map, seed, 20'000, 12'000, 500);
  SCOPED_TRACE(seed_note(seed));
  EXPECT_GE(map.stats().growths, 8U) << "from 1 bucket to thousands of slots";
  EXPECT_GT(map.stats().bfs_searches, 0U);
  EXPECT_GE(map.stats().longest_path, 1U);
  EXPECT_LE(map.stats().longest_path, 5U);
}

TEST(CuckooMap, GrowthLimitAnswersFullAndKeepsEveryItem) {
  const std::uint64_t seed = test_seed(77);
  SCOPED_TRACE(seed_note(seed));
  U64Map map(config_of(seed, 64, 64));
  cuckoo::detail::Rng rng(seed);
  std::unordered_map<std::uint64_t, std::uint64_t> model;
  std::uint64_t refused = 0;
  for (int i = 0; i < 1000; ++i) {  // bounded: the table holds at most 64 + 8 items
    const std::uint64_t key = rng.next();
    const InsertResult r = map.insert_outcome(key, i);
    ASSERT_EQ(map.check_invariants(), "");
    if (r == InsertResult::kFull) {
      refused = key;
      break;
    }
    ASSERT_EQ(r, InsertResult::kInserted);
    model[key] = static_cast<std::uint64_t>(i);
  }
  ASSERT_NE(refused, 0U) << "a 64-slot map must refuse an insert";
  EXPECT_FALSE(map.contains(refused)) << "a refused key must not be stored";
  EXPECT_EQ(map.capacity(), 64U) << "max_capacity bounds growth";
  EXPECT_GE(map.load_factor(), 0.85) << "b = 4 with BFS fills most of the table first";
  EXPECT_EQ(map.stats().growths, 0U);
  EXPECT_EQ(map.stats().full_rejections, 1U);
  expect_matches(map, model);
  // insert_or_assign of a new key is refused the same way; of a present key it updates.
  EXPECT_EQ(map.insert_or_assign_outcome(refused, 1), InsertResult::kFull);
  EXPECT_FALSE(map.contains(refused));
  const std::uint64_t present = model.begin()->first;
  EXPECT_EQ(map.insert_or_assign_outcome(present, 99), InsertResult::kUpdated);
  model[present] = 99;
  expect_matches(map, model);
  // Room made by erasing is usable again.
  const std::uint64_t victim = std::next(model.begin())->first;
  ASSERT_TRUE(map.erase(victim));
  model.erase(victim);
  EXPECT_EQ(map.insert_outcome(victim, 5), InsertResult::kInserted);
  model[victim] = 5;
  expect_matches(map, model);
}

TEST(CuckooMap, GrowthIsClampedToMaxCapacity) {
  const std::uint64_t seed = test_seed(78);
  SCOPED_TRACE(seed_note(seed));
  U64Map map(config_of(seed, 64, 100));  // at most 25 buckets
  cuckoo::detail::Rng rng(seed);
  int inserted = 0;
  for (int i = 0; i < 1000; ++i) {
    const InsertResult r = map.insert_outcome(rng.next(), 0);
    if (r == InsertResult::kFull) break;
    ASSERT_EQ(r, InsertResult::kInserted);
    ++inserted;
  }
  EXPECT_EQ(map.bucket_count(), 25U);
  EXPECT_EQ(map.capacity(), 100U);
  EXPECT_EQ(map.size(), static_cast<std::size_t>(inserted));
  EXPECT_GT(inserted, 85);
  EXPECT_EQ(map.check_invariants(), "");
}

TEST(CuckooMap, CollidingKeysUseSearchStashAndGrowthAndAreNeverStoredTwice) {
  const std::uint64_t seed = test_seed(99);
  SCOPED_TRACE(seed_note(seed));
  using HotMap = CuckooMap<std::uint64_t, std::uint64_t, 4, HotHasher>;
  HotMap map(config_of(seed, 64));
  std::unordered_map<std::uint64_t, std::uint64_t> model;
  const auto insert = [&](std::uint64_t key) {
    const InsertResult r = map.insert_outcome(key, key + 1);
    EXPECT_EQ(map.check_invariants(), "");
    if (r == InsertResult::kInserted) model[key] = key + 1;
    return r;
  };
  // 12 hot keys: both hot buckets fill (8), the rest go to the stash.
  for (std::uint64_t i = 0; i < 12; ++i) ASSERT_EQ(insert(kHotBase + i), InsertResult::kInserted);
  EXPECT_EQ(map.stash_size(), 4U);
  EXPECT_GT(map.stats().bfs_failures, 0U);
  // Normal keys fill the table: paths, then growth (which keeps the hot keys in place).
  cuckoo::detail::Rng rng(seed);
  for (int i = 0; i < 1500; ++i) ASSERT_EQ(insert(rng.below(kHotBase)), InsertResult::kInserted);
  EXPECT_GT(map.stats().growths, 0U);
  EXPECT_GT(map.stats().bfs_searches, 0U);
  EXPECT_GE(map.stats().stash_high_water, 4U);
  expect_matches(map, model);
  // Hot keys until the stash is full: then growth cannot help and the answer is kFull.
  std::uint64_t next_hot = kHotBase + 12;
  InsertResult r = InsertResult::kInserted;
  for (int i = 0; i < 20 && r == InsertResult::kInserted; ++i) r = insert(next_hot++);
  ASSERT_EQ(r, InsertResult::kFull);
  EXPECT_EQ(map.stash_size(), HotMap::kStashSlots);
  EXPECT_FALSE(map.contains(next_hot - 1));
  expect_matches(map, model);
  // Updating a stashed key changes its value in place; it is still stored once.
  EXPECT_EQ(map.insert_or_assign_outcome(kHotBase + 11, 7), InsertResult::kUpdated);
  model[kHotBase + 11] = 7;
  EXPECT_EQ(map.insert_outcome(kHotBase + 11, 8), InsertResult::kExists);
  // Erasing a hot key from its bucket pulls a stashed one back into the table. Iteration
  // visits the stash last, so the last stash_size() keys are the stashed ones.
  const auto stash_keys = [&] {
    const auto order = keys_in_order(map);
    return std::set<std::uint64_t>(order.end() - static_cast<long>(map.stash_size()),
                                   order.end());
  };
  const std::set<std::uint64_t> stashed_before = stash_keys();
  std::uint64_t in_table = 0;
  for (std::uint64_t i = 0; i < 12 && in_table == 0; ++i) {
    if (stashed_before.count(kHotBase + i) == 0) in_table = kHotBase + i;
  }
  ASSERT_NE(in_table, 0U);
  ASSERT_TRUE(map.erase(in_table));
  model.erase(in_table);
  EXPECT_EQ(map.stash_size(), stashed_before.size() - 1);
  const std::set<std::uint64_t> stashed_after = stash_keys();
  EXPECT_TRUE(std::includes(stashed_before.begin(), stashed_before.end(), stashed_after.begin(),
                            stashed_after.end()));
  expect_matches(map, model);
  // Every key once: iteration counts size() distinct keys.
  std::set<std::uint64_t> keys;
  std::size_t visits = 0;
  for (const auto& item : map) {
    keys.insert(item.first);
    ++visits;
  }
  EXPECT_EQ(visits, map.size());
  EXPECT_EQ(keys.size(), map.size());
}

TEST(CuckooMap, DegenerateHasherDoesNotGrowANearlyEmptyTable) {
  using HotMap = CuckooMap<std::uint64_t, std::uint64_t, 4, HotHasher>;
  HotMap map(config_of(12, 4096));
  for (std::uint64_t i = 0; i < 16; ++i) {  // two buckets of 4, then the 8 stash slots
    ASSERT_EQ(map.insert_outcome(kHotBase + i, i), InsertResult::kInserted) << i;
  }
  const auto before = map.stats();
  // 16 items in 4096 slots is below kMinGrowthLoadPercent: doubling cannot separate keys
  // with one hash, so the insert is refused without any rebuild attempt.
  EXPECT_EQ(map.insert_outcome(kHotBase + 16, 0), InsertResult::kFull);
  EXPECT_EQ(map.stats().bfs_searches, before.bfs_searches + 1) << "no rebuild was tried";
  EXPECT_EQ(map.stats().growths, 0U);
  EXPECT_EQ(map.stats().full_rejections, 1U);
  EXPECT_EQ(map.capacity(), 4096U);
  EXPECT_EQ(map.size(), 16U);
  EXPECT_FALSE(map.contains(kHotBase + 16));
  EXPECT_EQ(map.check_invariants(), "");
  EXPECT_EQ(map.insert_outcome(7, 7), InsertResult::kInserted) << "other keys still fit";
}

TEST(CuckooMap, KeyWhoseBucketsCoincideStillFits) {
  // hi == lo half: both candidate buckets are the same one.
  struct SameBucketHasher {
    std::uint64_t operator()(std::uint64_t key, std::uint64_t seed) const {
      return key >= kHotBase ? 0x4000000040000000ULL : cuckoo::DefaultHasher{}(key, seed);
    }
  };
  CuckooMap<std::uint64_t, std::uint64_t, 2, SameBucketHasher> map(config_of(11, 64));
  const auto [first, second] = map.buckets_of(kHotBase);
  EXPECT_EQ(first, second);
  for (std::uint64_t i = 0; i < 10; ++i) {
    ASSERT_EQ(map.insert_outcome(kHotBase + i, i), InsertResult::kInserted) << i;  // 2 + 8 stash
    ASSERT_EQ(map.check_invariants(), "");
  }
  EXPECT_EQ(map.insert_outcome(kHotBase + 10, 0), InsertResult::kFull);
  EXPECT_EQ(map.size(), 10U);
  for (std::uint64_t i = 0; i < 10; ++i) EXPECT_TRUE(map.contains(kHotBase + i));
}

// Keys placed at chosen buckets with B = 1, 8 buckets: a0 {0,1}, a1 {1,2}, a2 {2,3}, then
// x with both buckets 0 needs the path a2 -> 3, a1 -> 2, a0 -> 1, x -> 0.
TEST(CuckooMap, CuckooPathMovesItemsFromTheEndBackwards) {
  using PlacedMap = CuckooMap<std::uint64_t, std::uint64_t, 1, PlacementHasher>;
  for (unsigned max_path : {3U, 2U}) {
    SCOPED_TRACE("max_path_length=" + std::to_string(max_path));
    PlacementHasher hasher;
    for (std::uint32_t i = 0; i < 3; ++i) {
      (*hasher.placed)[100 + i] = PlacedMap::hash_for_buckets(i, i + 1, 8);
    }
    (*hasher.placed)[200] = PlacedMap::hash_for_buckets(0, 0, 8);
    PlacedMap map(config_of(1, 8, 8, max_path), hasher);
    for (std::uint64_t k = 100; k < 103; ++k) ASSERT_EQ(map.insert_outcome(k, k), InsertResult::kInserted);
    EXPECT_EQ(map.buckets_of(101), (std::pair<std::uint32_t, std::uint32_t>(1, 2)));
    EXPECT_EQ(keys_in_order(map), (std::vector<std::uint64_t>{100, 101, 102}));
    ASSERT_EQ(map.insert_outcome(200, 0), InsertResult::kInserted);
    EXPECT_EQ(map.check_invariants(), "");
    if (max_path == 3) {
      EXPECT_EQ(keys_in_order(map), (std::vector<std::uint64_t>{200, 100, 101, 102}));
      EXPECT_EQ(map.stats().longest_path, 3U);
      EXPECT_EQ(map.stash_size(), 0U);
    } else {
      // The path is longer than allowed: the stash takes the key, nothing moves.
      EXPECT_EQ(keys_in_order(map), (std::vector<std::uint64_t>{100, 101, 102, 200}));
      EXPECT_EQ(map.stats().longest_path, 0U);
      EXPECT_EQ(map.stash_size(), 1U);
    }
    for (std::uint64_t k : {100, 101, 102, 200}) EXPECT_TRUE(map.contains(k)) << k;
  }
}

// Doubling with the same seed moves each item once (rebuild_doubled): the items of
// bucket i go to 2i or 2i + 1, as their hash says, with no path search, and stashed items
// move into the table where one of their new buckets has room. Hot keys j = 0..10 share
// the buckets {0, 1} at 4 buckets; at 8 buckets their first bucket is 0 or 1 (bit 0 of j)
// and their second 2 or 3 (bit 1). Eight fill buckets 0 and 1, three are stashed.
TEST(CuckooMap, DoublingMovesEachItemToTheBucketItsHashNames) {
  using PlacedMap = CuckooMap<std::uint64_t, std::uint64_t, 4, PlacementHasher>;
  PlacementHasher hasher;
  for (std::uint32_t j = 0; j < 11; ++j) {
    // Placed at 8 buckets; the smallest such hash halves to buckets 0 and 1 at 4.
    (*hasher.placed)[1000 + j] = PlacedMap::hash_for_buckets(j & 1U, 2 + ((j >> 1) & 1U), 8);
  }
  PlacedMap map(config_of(31, 16, 1 << 12), hasher);
  ASSERT_EQ(map.bucket_count(), 4U);
  for (std::uint64_t k = 1000; k < 1011; ++k) {
    ASSERT_EQ(map.insert_outcome(k, k + 7), InsertResult::kInserted);
  }
  for (std::uint64_t k = 1000; k < 1011; ++k) {
    ASSERT_EQ(map.buckets_of(k), (std::pair<std::uint32_t, std::uint32_t>(0, 1))) << k;
  }
  ASSERT_EQ(map.stash_size(), 3U) << "buckets 0 and 1 hold eight; three had no path";
  const std::uint64_t searches = map.stats().bfs_searches;
  ASSERT_TRUE(map.reserve(28)) << "28 items at 90 % need 8 buckets: an exact doubling";
  EXPECT_EQ(map.bucket_count(), 8U);
  EXPECT_EQ(map.stats().growths, 1U);
  EXPECT_EQ(map.stats().bfs_searches, searches) << "a doubling searches nothing";
  EXPECT_EQ(map.stash_size(), 0U) << "each stashed item has room in one of its new buckets";
  EXPECT_EQ(map.size(), 11U);
  EXPECT_EQ(map.check_invariants(), "");
  for (std::uint64_t k = 1000; k < 1011; ++k) {
    const std::uint64_t j = k - 1000;
    EXPECT_EQ(map.buckets_of(k),
              (std::pair<std::uint32_t, std::uint32_t>(j & 1U, 2 + ((j >> 1) & 1U))))
        << k;
    EXPECT_EQ(value_of(map, k), k + 7) << k;
  }
}

// The new key of an insert that doubles needs room in one of its new buckets beside the
// items that move there. Buckets at 4 -> 8: a0..a3 fill bucket 0 and all move to 0; b0..b3
// fill bucket 1 and all move to 2; c fills 2 and d three slots of 3 (93.75 % load, so the
// next insert grows). p (new buckets 0 and 3) fits in 3 by a single pass; q (new buckets 0
// and 2, both refilled by the items that move there) fits once one of b0..b3, bound for
// 2, goes to its other new bucket, 3, which keeps free slots: still a single pass, no
// search (before that, q cost a searching rebuild of the whole table).
TEST(CuckooMap, DoublingPlacesTheNewKeyBesideTheItemsThatMove) {
  using PlacedMap = CuckooMap<std::uint64_t, std::uint64_t, 4, PlacementHasher>;
  // Buckets at 8 (the hash halves them at 4).
  const auto hash8 = [](std::uint32_t first8, std::uint32_t second8) {
    return PlacedMap::hash_for_buckets(first8, second8, 8);
  };
  for (const bool single_pass : {true, false}) {
    SCOPED_TRACE(single_pass ? "p: a single pass" : "q: a single pass, one item moved aside");
    PlacementHasher hasher;
    for (std::uint64_t j = 0; j < 4; ++j) {
      (*hasher.placed)[100 + j] = hash8(0, 2);
      (*hasher.placed)[200 + j] = hash8(2, 3);
      (*hasher.placed)[300 + j] = hash8(4, 4);
      if (j < 3) (*hasher.placed)[400 + j] = hash8(6, 6);
    }
    const std::uint64_t key = single_pass ? 500 : 600;
    (*hasher.placed)[500] = hash8(0, 3);
    (*hasher.placed)[600] = hash8(0, 2);
    PlacedMap map(config_of(41, 16, 1 << 12), hasher);
    for (std::uint64_t base : {100, 200, 300, 400}) {
      for (std::uint64_t k = base; k < base + 4 && hasher.placed->count(k) != 0; ++k) {
        ASSERT_EQ(map.insert_outcome(k, k), InsertResult::kInserted);
      }
    }
    ASSERT_EQ(map.size(), 15U);
    ASSERT_EQ(map.buckets_of(key), (std::pair<std::uint32_t, std::uint32_t>(0, 1)));
    const std::uint64_t searches = map.stats().bfs_searches;
    ASSERT_EQ(map.insert_outcome(key, 9), InsertResult::kInserted);
    EXPECT_EQ(map.bucket_count(), 8U);
    EXPECT_EQ(map.stats().growths, 1U);
    EXPECT_EQ(map.stash_size(), 0U);
    if (single_pass) {
      EXPECT_EQ(map.stats().bfs_searches, searches) << "p fits bucket 3 without a search";
    } else {
      EXPECT_EQ(map.stats().bfs_searches, searches)
          << "q fits bucket 2 once one of b0..b3 goes to its other new bucket, 3, first";
    }
    EXPECT_EQ(map.check_invariants(), "");
    EXPECT_EQ(value_of(map, key), 9U);
    for (const auto& [k, h] : *hasher.placed) {
      if (k < 500) {
        EXPECT_EQ(value_of(map, k), k) << k;
      }
    }
  }
}

// A map that may grow grows once it is kGrowLoadPercent full rather than search for a
// cuckoo path; a map at its max_capacity searches on and fills further (C3).
TEST(CuckooMap, GrowsInsteadOfSearchingAboveTheGrowLoad) {
  const std::uint64_t seed = test_seed(37);
  SCOPED_TRACE(seed_note(seed));
  cuckoo::detail::Rng rng(seed);
  U64Map growing(config_of(seed, 4096));
  std::size_t growths_at_high_load = 0;
  for (int i = 0; i < 40000; ++i) {
    const std::size_t size = growing.size();
    const std::size_t capacity = growing.capacity();
    const std::uint64_t searches = growing.stats().bfs_searches;
    ASSERT_EQ(growing.insert_outcome(rng.next(), 0), InsertResult::kInserted);
    const bool high = size * 100 >= U64Map::kGrowLoadPercent * capacity;
    if (high && growing.stats().bfs_searches != searches) {
      FAIL() << "insert " << i << " searched at load " << size << "/" << capacity;
    }
    if (growing.capacity() != capacity) {
      EXPECT_TRUE(high) << "insert " << i << " grew at load " << size << "/" << capacity;
      ++growths_at_high_load;
    }
  }
  EXPECT_GE(growths_at_high_load, 3U);
  EXPECT_EQ(growing.check_invariants(), "");
  U64Map capped(config_of(seed, 4096, 4096));
  while (capped.insert_outcome(rng.next(), 0) == InsertResult::kInserted) {
  }
  EXPECT_EQ(capped.capacity(), 4096U);
  EXPECT_GT(capped.size() * 100, U64Map::kGrowLoadPercent * capped.capacity())
      << "a capped map searches above the grow load";
}

TEST(CuckooMap, NonPowerOfTwoBucketCounts) {
  const std::uint64_t seed = test_seed(13);
  U64Map map(config_of(seed, 50));  // 13 buckets of 4
  EXPECT_EQ(map.bucket_count(), 13U);
  EXPECT_EQ(map.capacity(), 52U);
  run_workload(map, seed, 4000, 3000, 250);
  EXPECT_EQ(map.bucket_count() % 13, 0U) << "doubling keeps the factor 13";
  CuckooMap<std::uint64_t, std::uint64_t, 8> eight(config_of(seed, 3 * 8 * 7));  // 21 buckets
  EXPECT_EQ(eight.bucket_count(), 21U);
  run_workload(eight, seed + 1, 3000, 2000, 250);
}

TEST(CuckooMap, Reserve) {
  const std::uint64_t seed = test_seed(17);
  SCOPED_TRACE(seed_note(seed));
  U64Map map(config_of(seed, 8, 1 << 16));
  map.insert(1, 1);
  ASSERT_TRUE(map.reserve(1000));
  EXPECT_GE(map.capacity() * U64Map::kReserveLoadPercent, 1000U * 100);
  EXPECT_EQ(map.stats().growths, 1U);
  EXPECT_EQ(value_of(map, 1), 1U);
  const auto buckets = map.bucket_count();
  cuckoo::detail::Rng rng(seed);
  for (int i = 1; i < 1000; ++i) ASSERT_EQ(map.insert_outcome(rng.next(), 0), InsertResult::kInserted);
  EXPECT_EQ(map.bucket_count(), buckets) << "1000 reserved items fit without growth";
  EXPECT_TRUE(map.reserve(10)) << "reserve never shrinks and succeeds when it fits";
  EXPECT_EQ(map.bucket_count(), buckets);
  // Just above what the table holds at the reserve load: it must grow, a little.
  const std::size_t just_above = map.capacity() * U64Map::kReserveLoadPercent / 100 + 4;
  ASSERT_TRUE(map.reserve(just_above));
  EXPECT_GE(map.capacity() * U64Map::kReserveLoadPercent, just_above * 100);
  EXPECT_GT(map.bucket_count(), buckets);
  EXPECT_LT(map.bucket_count(), buckets + 3) << "reserve grows to what is needed, not x2";
  const auto reserved = map.bucket_count();
  EXPECT_FALSE(map.reserve((1 << 16) + 1)) << "beyond max_capacity";
  EXPECT_FALSE(map.reserve(1 << 16)) << "fits max_capacity only above the reserve load";
  EXPECT_EQ(map.bucket_count(), reserved) << "a refused reserve changes nothing";
  EXPECT_EQ(map.size(), 1000U);
  EXPECT_EQ(map.check_invariants(), "");
}

TEST(CuckooMap, IterationVisitsEachItemOnceIncludingTheStash) {
  using HotMap = CuckooMap<std::uint64_t, std::uint64_t, 4, HotHasher>;
  HotMap map(config_of(21, 64));
  std::map<std::uint64_t, std::uint64_t> model;
  for (std::uint64_t i = 0; i < 14; ++i) {
    map.insert(kHotBase + i, i);
    model[kHotBase + i] = i;
  }
  for (std::uint64_t k = 0; k < 20; ++k) {
    map.insert(k, k);
    model[k] = k;
  }
  // 6 hot keys at least: 8 of the 14 fit their two buckets. A normal key may join them.
  ASSERT_GE(map.stash_size(), 6U);
  std::map<std::uint64_t, std::uint64_t> visited;
  for (auto it = map.begin(); it != map.end(); it++) {
    EXPECT_TRUE(visited.emplace(it->first, it->second).second) << it->first;
  }
  EXPECT_EQ(visited, model);
  static_assert(std::forward_iterator<HotMap::const_iterator>);
}

// ---- Every SlotsPerBucket -------------------------------------------------------------

template <class T>
class CuckooMapSlots : public ::testing::Test {};
using SlotCounts =
    ::testing::Types<std::integral_constant<unsigned, 1>, std::integral_constant<unsigned, 2>,
                     std::integral_constant<unsigned, 4>, std::integral_constant<unsigned, 8>>;
TYPED_TEST_SUITE(CuckooMapSlots, SlotCounts);

TYPED_TEST(CuckooMapSlots, WorkloadMatchesModel) {
  using Map = CuckooMap<std::uint64_t, std::uint64_t, TypeParam::value>;
  const std::uint64_t seed = test_seed(1000 + TypeParam::value);
  Map map(config_of(seed, 8));
  run_workload(map, seed, 6000, 3000, 300);
}

TYPED_TEST(CuckooMapSlots, FillsToTheExpectedLoadBeforeTheFirstFailure) {
  constexpr unsigned kB = TypeParam::value;
  using Map = CuckooMap<std::uint64_t, std::uint64_t, kB>;
  const std::uint64_t seed = test_seed(2000 + kB);
  SCOPED_TRACE(seed_note(seed));
  Map map(config_of(seed, 2048, 2048));
  cuckoo::detail::Rng rng(seed);
  for (int i = 0; i < 4000; ++i) {
    if (map.insert_outcome(rng.next(), 0) == InsertResult::kFull) break;
  }
  const double table_load =
      static_cast<double>(map.size() - map.stash_size()) / static_cast<double>(map.capacity());
  // C3 for two hash functions and a path search: ~50% (b=1), 84% (b=2), 95% (b=4), 98% (b=8).
  const double expected = kB == 1 ? 0.48 : kB == 2 ? 0.84 : kB == 4 ? 0.95 : 0.98;
  EXPECT_GE(table_load, expected);
  ::testing::Test::RecordProperty("table_load", std::to_string(table_load));
  EXPECT_EQ(map.stash_size(), Map::kStashSlots);
  EXPECT_EQ(map.check_invariants(), "");
}

TYPED_TEST(CuckooMapSlots, SerializationRoundTrip) {
  using Map = CuckooMap<std::uint64_t, std::uint64_t, TypeParam::value>;
  Map map(config_of(31, 8));
  for (std::uint64_t k = 0; k < 500; ++k) map.insert(k * 7, k);
  for (std::uint64_t k = 0; k < 500; k += 5) map.erase(k * 7);
  const auto bytes = map.serialize();
  const Map copy = Map::deserialize(bytes);
  EXPECT_EQ(copy, map);
  EXPECT_EQ(copy.serialize(), bytes);
  EXPECT_EQ(keys_in_order(copy), keys_in_order(map));
  EXPECT_EQ(copy.check_invariants(), "");
}

// ---- Serialization --------------------------------------------------------------------

TEST(CuckooMapSerialization, RoundTripU64WithStash) {
  using HotMap = CuckooMap<std::uint64_t, std::uint64_t, 4, HotHasher>;
  HotMap map(config_of(41, 16));
  for (std::uint64_t i = 0; i < 12; ++i) map.insert(kHotBase + i, i);
  for (std::uint64_t k = 0; k < 300; ++k) map.insert(k, ~k);
  ASSERT_GT(map.stash_size(), 0U);
  const auto bytes = map.serialize();
  const HotMap copy = HotMap::deserialize(bytes);
  EXPECT_EQ(copy.check_invariants(), "");
  EXPECT_EQ(copy, map);
  EXPECT_EQ(copy.size(), map.size());
  EXPECT_EQ(copy.stash_size(), map.stash_size());
  EXPECT_EQ(copy.bucket_count(), map.bucket_count());
  EXPECT_EQ(copy.seed(), map.seed());
  EXPECT_EQ(copy.config(), map.config());
  EXPECT_EQ(keys_in_order(copy), keys_in_order(map));
  EXPECT_EQ(copy.serialize(), bytes);
  for (std::uint64_t k = 0; k < 300; ++k) EXPECT_EQ(value_of(copy, k), ~k);
  EXPECT_FALSE(copy.contains(301));
}

TEST(CuckooMapSerialization, RoundTripStrings) {
  StringMap map(config_of(42, 8));
  for (int i = 0; i < 200; ++i) {
    std::string key = "k";  // not "k" + ...: GCC 12 -O3 reports a false -Wrestrict there
    key += std::to_string(i);
    map.insert(key, std::string(static_cast<std::size_t>(i % 50), 'v'));
  }
  map.insert("", "");
  const auto bytes = map.serialize();
  const StringMap copy = StringMap::deserialize(bytes);
  EXPECT_EQ(copy, map);
  EXPECT_EQ(copy.serialize(), bytes);
  ASSERT_NE(copy.find_value("k17"), nullptr);
  EXPECT_EQ(value_of(copy, "k17"), std::string(17, 'v'));
  ASSERT_NE(copy.find_value(""), nullptr);
  EXPECT_EQ(copy.check_invariants(), "");
}

TEST(CuckooMapSerialization, EmptyAndOtherIntegerTypes) {
  const U64Map empty(config_of(43));
  EXPECT_EQ(U64Map::deserialize(empty.serialize()), empty);
  using Signed = CuckooMap<std::int32_t, bool, 2>;
  Signed map(config_of(44, 8));
  for (std::int32_t k = -50; k < 50; ++k) map.insert(k, k % 3 == 0);
  const Signed copy = Signed::deserialize(map.serialize());
  EXPECT_EQ(copy, map);
  EXPECT_EQ(value_of(copy, -3), true);
  EXPECT_EQ(value_of(copy, -2), false);
}

TEST(CuckooMapSerialization, EqualityIgnoresLayout) {
  U64Map a(config_of(50, 8));
  U64Map b(config_of(51, 1024));
  for (std::uint64_t k = 0; k < 100; ++k) a.insert(k, k);
  for (std::uint64_t k = 100; k-- > 0;) b.insert(k, k);
  EXPECT_EQ(a, b);
  EXPECT_NE(a.serialize(), b.serialize());
  assign_in_place(b, 3, 4);
  EXPECT_NE(a, b);
  assign_in_place(b, 3, 3);
  b.erase(3);
  EXPECT_NE(a, b);
  b.insert(1000, 3);
  EXPECT_NE(a, b) << "same size, different keys";
}

// Builds payloads field by field, valid except where a test changes one field.
struct Forge {
  std::uint8_t version = U64Map::kFormatVersion;
  std::uint8_t slots_per_bucket = 4;
  std::uint8_t key_hash = 2;  // written from version 2 on; 2, the product rule, from version 3
  std::uint64_t initial_capacity = 64;
  std::uint64_t max_capacity = 1024;
  std::uint32_t max_path_length = 5;
  std::uint64_t seed = 60;
  std::uint32_t bucket_count = 16;
  std::optional<std::uint64_t> item_count;  // default: items.size()
  std::vector<std::pair<std::uint64_t, std::pair<std::uint64_t, std::uint64_t>>> items;
  std::vector<std::uint8_t> extra;

  // (position, key, value) for key in its first candidate bucket, slot `slot`.
  void add(std::uint64_t key, std::uint64_t value, unsigned slot = 0) {
    const U64Map probe(config_of(seed, initial_capacity, max_capacity, max_path_length));
    items.push_back({probe.buckets_of(key).first * 4ULL + slot, {key, value}});
    std::sort(items.begin(), items.end());
  }

  std::vector<std::uint8_t> bytes() const {
    cuckoo::detail::ByteWriter w;
    w.u8(slots_per_bucket);
    if (version >= 2) w.u8(key_hash);
    w.u64(initial_capacity);
    w.u64(max_capacity);
    w.u32(max_path_length);
    w.u64(seed);
    w.u64(seed);
    w.u32(bucket_count);
    w.u64(item_count.value_or(items.size()));
    for (const auto& [pos, item] : items) {
      w.u64(pos);
      w.u64(item.first);
      w.u64(item.second);
    }
    w.raw(extra.data(), extra.size());
    return cuckoo::detail::seal_envelope(cuckoo::detail::StructureKind::kCuckooMap, version, w);
  }
};

template <class Map = U64Map>
DeserializeErrc rejection(const std::vector<std::uint8_t>& bytes, std::string* what = nullptr,
                          std::size_t max_table_bytes = Map::kTableBudgetFromInput) {
  try {
    const Map map = Map::deserialize(bytes, {}, {}, max_table_bytes);
    ADD_FAILURE() << "accepted " << bytes.size() << " bytes, size " << map.size();
  } catch (const DeserializeError& e) {
    if (what != nullptr) *what = e.what();
    return e.code();
  }
  return DeserializeErrc::kInconsistent;
}

// Regression (found by fuzz_deserialize_map): a 73-byte header announcing a large bucket
// count made deserialize() allocate 185 MiB under the former fixed 256 MiB default.
TEST(CuckooMapSerialization, TableAllocationIsBoundedByTheInputSize) {
  CuckooMapConfig config;
  config.initial_capacity = std::size_t{1} << 22;  // a sparse map: 4M slots, no items
  config.seed = 11;
  const U64Map sparse(config);
  const std::vector<std::uint8_t> bytes = sparse.serialize();
  ASSERT_LT(bytes.size(), 200U);
  std::string what;
  EXPECT_EQ(rejection(bytes, &what), DeserializeErrc::kBadConfig);
  EXPECT_NE(what.find("max_table_bytes"), std::string::npos) << what;
  // With an explicit budget the same bytes are accepted.
  const U64Map back = U64Map::deserialize(bytes, {}, {}, std::size_t{1} << 30);
  EXPECT_EQ(back.capacity(), sparse.capacity());

  // A map that grew by inserting stays within the default budget.
  CuckooMapConfig small;
  small.initial_capacity = 8;
  small.seed = 12;
  U64Map grown(small);
  for (std::uint64_t k = 0; k < 50'000; ++k) ASSERT_EQ(grown.insert_outcome(k, k), InsertResult::kInserted);
  EXPECT_EQ(U64Map::deserialize(grown.serialize()), grown);
}

TEST(CuckooMapSerialization, ForgeBuildsAcceptedPayloads) {
  Forge forge;
  forge.add(5, 50);
  forge.add(6, 60, 1);
  const U64Map map = U64Map::deserialize(forge.bytes());
  EXPECT_EQ(map.size(), 2U);
  EXPECT_EQ(value_of(map, 6), 60U);
}

TEST(CuckooMapSerialization, RejectsDamagedEnvelopes) {
  U64Map map(config_of(61));
  for (std::uint64_t k = 0; k < 30; ++k) map.insert(k, k);
  const auto bytes = map.serialize();
  const auto cut = [&](std::size_t n) {
    return std::vector<std::uint8_t>(bytes.begin(), bytes.begin() + static_cast<long>(n));
  };
  EXPECT_EQ(rejection({}), DeserializeErrc::kTruncated);
  EXPECT_EQ(rejection(cut(3)), DeserializeErrc::kTruncated);
  EXPECT_EQ(rejection(cut(12)), DeserializeErrc::kTruncated);
  EXPECT_EQ(rejection(cut(40)), DeserializeErrc::kTruncated);
  EXPECT_EQ(rejection(cut(bytes.size() / 2)), DeserializeErrc::kTruncated);
  EXPECT_EQ(rejection(cut(bytes.size() - 1)), DeserializeErrc::kTruncated);
  auto magic = bytes;
  magic[1] = 'X';
  EXPECT_EQ(rejection(magic), DeserializeErrc::kBadMagic);
  auto kind = bytes;
  kind[4] = static_cast<std::uint8_t>(cuckoo::detail::StructureKind::kCuckooFilter);
  EXPECT_EQ(rejection(kind), DeserializeErrc::kWrongKind);
  auto version = bytes;
  version[5] = U64Map::kFormatVersion + 1;
  EXPECT_EQ(rejection(version), DeserializeErrc::kUnsupportedVersion);
  auto trailing = bytes;
  trailing.push_back(0);
  EXPECT_EQ(rejection(trailing), DeserializeErrc::kTrailingBytes);
  for (std::size_t i : {std::size_t{16}, std::size_t{30}, bytes.size() / 2, bytes.size() - 9}) {
    auto flipped = bytes;
    flipped[i] ^= 0x10;
    EXPECT_EQ(rejection(flipped), DeserializeErrc::kChecksumMismatch) << "byte " << i;
  }
}

TEST(CuckooMapSerialization, RejectsForgedPayloads) {
  std::string what;
  {
    Forge forge;
    forge.slots_per_bucket = 8;
    EXPECT_EQ(rejection(forge.bytes(), &what), DeserializeErrc::kBadConfig);
    EXPECT_NE(what.find("slots_per_bucket"), std::string::npos) << what;
  }
  {
    Forge forge;
    forge.bucket_count = 0;
    EXPECT_EQ(rejection(forge.bytes(), &what), DeserializeErrc::kBadConfig);
    EXPECT_NE(what.find("bucket_count"), std::string::npos) << what;
  }
  {
    Forge forge;
    forge.max_path_length = 0;
    EXPECT_EQ(rejection(forge.bytes(), &what), DeserializeErrc::kBadConfig);
    EXPECT_NE(what.find("max_path_length"), std::string::npos) << what;
  }
  {
    Forge forge;
    forge.initial_capacity = 2048;  // above max_capacity
    EXPECT_EQ(rejection(forge.bytes(), &what), DeserializeErrc::kBadConfig);
    EXPECT_NE(what.find("initial_capacity"), std::string::npos) << what;
  }
  {
    Forge forge;
    forge.bucket_count = 257;  // max_capacity 1024 allows 256 buckets
    EXPECT_EQ(rejection(forge.bytes()), DeserializeErrc::kInconsistent);
  }
  {
    Forge forge;
    forge.max_capacity = std::uint64_t{1} << 32;
    forge.bucket_count = 1U << 28;  // 2^30 slots: refused before allocating
    EXPECT_EQ(rejection(forge.bytes(), &what), DeserializeErrc::kBadConfig);
    EXPECT_NE(what.find("bucket_count"), std::string::npos) << what;
  }
  {
    Forge forge;
    forge.bucket_count = 256;
    EXPECT_EQ(rejection(forge.bytes(), nullptr, 4096), DeserializeErrc::kBadConfig)
        << "a caller's smaller limit";
  }
  {
    Forge forge;
    forge.add(5, 50);
    forge.item_count = 2;  // one item's bytes
    EXPECT_EQ(rejection(forge.bytes()), DeserializeErrc::kTruncated);
    forge.item_count = std::uint64_t{1} << 60;  // hostile count: no huge reservation
    EXPECT_EQ(rejection(forge.bytes()), DeserializeErrc::kTruncated);
  }
  {
    Forge forge;
    const U64Map probe(config_of(forge.seed, 64, 1024));
    const auto [first, second] = probe.buckets_of(5);
    std::uint32_t wrong = 0;
    while (wrong == first || wrong == second) ++wrong;
    forge.items.push_back({wrong * 4ULL, {5, 50}});
    EXPECT_EQ(rejection(forge.bytes(), &what), DeserializeErrc::kInconsistent);
    EXPECT_NE(what.find("bucket"), std::string::npos) << what;
  }
  {
    Forge forge;
    forge.add(5, 50, 0);
    forge.add(5, 51, 1);
    EXPECT_EQ(rejection(forge.bytes(), &what), DeserializeErrc::kInconsistent);
    EXPECT_NE(what.find("repeats a key"), std::string::npos) << what;
  }
  {
    Forge forge;  // the same key once in the table and once in the stash
    forge.add(5, 50, 0);
    forge.items.push_back({64 + 3, {5, 51}});
    EXPECT_EQ(rejection(forge.bytes()), DeserializeErrc::kInconsistent);
  }
  {
    Forge forge;  // positions must increase (two items in one slot otherwise)
    forge.add(6, 60, 2);
    forge.add(5, 50, 2);
    if (forge.items[0].first < forge.items[1].first) std::swap(forge.items[0], forge.items[1]);
    EXPECT_EQ(rejection(forge.bytes()), DeserializeErrc::kInconsistent);
  }
  {
    Forge forge;  // position past the stash
    forge.items.push_back({64 + U64Map::kStashSlots, {5, 50}});
    EXPECT_EQ(rejection(forge.bytes()), DeserializeErrc::kInconsistent);
  }
  {
    Forge forge;
    forge.add(5, 50);
    forge.extra = {0};
    EXPECT_EQ(rejection(forge.bytes()), DeserializeErrc::kTrailingBytes);
  }
  {
    Forge forge;  // the last item's value is cut short (caught by the item count check)
    forge.item_count = 1;
    forge.extra.resize(8 + 8 + 4);  // position, key, half a value
    EXPECT_EQ(rejection(forge.bytes()), DeserializeErrc::kTruncated);
  }
}

TEST(CuckooMapSerialization, RejectsStringLengthPastTheEnd) {
  StringMap map(config_of(70));
  map.insert("abc", "defgh");
  auto good = map.serialize();
  // Payload: 1 + 1 + 8 + 8 + 4 + 8 + 8 + 4 + 8 = 50 bytes of header fields, then the
  // position (8) and the key length (8).
  constexpr std::size_t kKeyLength = cuckoo::detail::kEnvelopeHeaderSize + 50 + 8;
  cuckoo::detail::ByteReader reader(std::span<const std::uint8_t>(good).subspan(kKeyLength, 8));
  ASSERT_EQ(reader.u64("key length"), 3U);
  // Re-seal with a length far past the end: the checksum is valid, the length is not.
  std::vector<std::uint8_t> payload(good.begin() + cuckoo::detail::kEnvelopeHeaderSize,
                                    good.end() - cuckoo::detail::kEnvelopeTrailerSize);
  const auto reseal = [](const std::vector<std::uint8_t>& p) {
    cuckoo::detail::ByteWriter w;
    w.raw(p.data(), p.size());
    return cuckoo::detail::seal_envelope(cuckoo::detail::StructureKind::kCuckooMap,
                                         StringMap::kFormatVersion, w);
  };
  ASSERT_EQ(reseal(payload), good);
  std::string what;
  for (std::uint64_t length : {std::uint64_t{1000}, std::uint64_t{1} << 62}) {
    auto forged = payload;
    for (int i = 0; i < 8; ++i) {
      forged[kKeyLength - cuckoo::detail::kEnvelopeHeaderSize + static_cast<std::size_t>(i)] =
          static_cast<std::uint8_t>(length >> (8 * i));
    }
    EXPECT_EQ(rejection<StringMap>(reseal(forged), &what), DeserializeErrc::kTruncated);
    EXPECT_NE(what.find("item key"), std::string::npos) << what;
  }
}

// ---- Configuration ----------------------------------------------------------------------

template <class Map = U64Map>
std::string rejected_field(const CuckooMapConfig& config) {
  try {
    const Map map(config);
    ADD_FAILURE() << "accepted a map of capacity " << map.capacity();
  } catch (const cuckoo::ConfigError& e) {
    return e.field();
  }
  return {};
}

TEST(CuckooMapConfig, InvalidConfigurationsNameTheField) {
  EXPECT_EQ(rejected_field(config_of(1, 0)), "initial_capacity");
  EXPECT_EQ(rejected_field(config_of(1, 128, 64)), "initial_capacity");
  EXPECT_EQ(rejected_field(config_of(1, 65, 66)), "initial_capacity")
      << "65 slots round up to 17 buckets, 68 slots > 66";
  EXPECT_EQ(rejected_field(config_of(1, std::numeric_limits<std::size_t>::max())),
            "initial_capacity");
  EXPECT_EQ(rejected_field(config_of(1, 2, 3)), "max_capacity") << "less than one bucket";
  EXPECT_EQ(rejected_field(config_of(1, 64, U64Map::kMaxCapacity + 1)), "max_capacity");
  EXPECT_EQ(rejected_field(config_of(1, 64, std::numeric_limits<std::size_t>::max())),
            "max_capacity");
  EXPECT_EQ(rejected_field(config_of(1, 64, 1024, 0)), "max_path_length");
  EXPECT_EQ(rejected_field(config_of(1, 64, 1024, CuckooMapConfig::kMaxPathLengthLimit + 1)),
            "max_path_length");
  EXPECT_EQ((rejected_field<CuckooMap<std::uint64_t, std::uint64_t, 8>>(config_of(1, 4, 7))),
            "max_capacity");
  // The limits themselves are accepted (max_capacity is a limit, not an allocation).
  const U64Map edge(config_of(1, 1, U64Map::kMaxCapacity, CuckooMapConfig::kMaxPathLengthLimit));
  EXPECT_EQ(edge.bucket_count(), 1U);
  const U64Map odd(config_of(1, 65, 68));
  EXPECT_EQ(odd.capacity(), 68U);
  try {
    const U64Map bad(config_of(1, 64, 1024, 99));
    ADD_FAILURE() << "accepted max_path_length 99";
  } catch (const cuckoo::ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("99"), std::string::npos) << e.what();
  }
}

TEST(CuckooMapConfig, DefaultSeedIsRandomAndRecorded) {
  const U64Map a;
  const U64Map b;
  ASSERT_TRUE(a.config().seed.has_value());
  EXPECT_EQ(*a.config().seed, a.seed());
  EXPECT_NE(a.seed(), b.seed()) << "two draws from random_seed()";
  EXPECT_EQ(a.capacity(), 64U);
  EXPECT_EQ(a.config().max_capacity, CuckooMapConfig::kDefaultMaxCapacity);
}

// ---- Determinism, copies, moves ---------------------------------------------------------

TEST(CuckooMap, SameSeedSameOrderAndBytes) {
  const auto build = [](std::uint64_t seed) {
    U64Map map(config_of(seed, 8));
    cuckoo::detail::Rng rng(5);
    for (int i = 0; i < 3000; ++i) {
      const std::uint64_t key = rng.below(2000);
      if (rng.below(4) == 0) {
        map.erase(key);
      } else {
        map.insert_or_assign(key, rng.next());
      }
    }
    return map;
  };
  const U64Map a = build(123);
  const U64Map b = build(123);
  const U64Map c = build(124);
  EXPECT_EQ(keys_in_order(a), keys_in_order(b));
  EXPECT_EQ(a.serialize(), b.serialize());
  EXPECT_EQ(a, c);
  EXPECT_NE(keys_in_order(a), keys_in_order(c));
  EXPECT_NE(a.serialize(), c.serialize());
}

TEST(CuckooMap, CopiesAreIndependent) {
  U64Map a(config_of(80, 8));
  for (std::uint64_t k = 0; k < 100; ++k) a.insert(k, k);
  U64Map b = a;
  EXPECT_EQ(a, b);
  b.insert(1000, 1);
  assign_in_place(b, 1, 7);
  EXPECT_FALSE(a.contains(1000));
  EXPECT_EQ(value_of(a, 1), 1U);
  a = b;
  EXPECT_EQ(a, b);
  EXPECT_EQ(a.check_invariants(), "");
}

TEST(CuckooMap, MovedFromMapIsEmptyAndUsable) {
  U64Map a(config_of(81, 8));
  for (std::uint64_t k = 0; k < 100; ++k) a.insert(k, k);
  U64Map b = std::move(a);
  EXPECT_EQ(b.size(), 100U);
  EXPECT_EQ(b.check_invariants(), "");
  // NOLINTBEGIN(bugprone-use-after-move): the moved-from state is specified.
  EXPECT_TRUE(a.empty());
  EXPECT_EQ(a.capacity(), 0U);
  EXPECT_EQ(a.find_value(1), nullptr);
  EXPECT_FALSE(a.erase(1));
  EXPECT_EQ(a.begin(), a.end());
  EXPECT_EQ(a.check_invariants(), "");
  EXPECT_EQ(U64Map::deserialize(a.serialize()).size(), 0U);
  EXPECT_EQ(a.insert_outcome(5, 6), InsertResult::kInserted);
  EXPECT_EQ(a.capacity(), 8U);
  EXPECT_EQ(value_of(a, 5), 6U);
  EXPECT_EQ(a.check_invariants(), "");
  U64Map c(config_of(82));
  c = std::move(b);
  EXPECT_EQ(c.size(), 100U);
  EXPECT_TRUE(b.empty());
  EXPECT_TRUE(b.reserve(100));
  EXPECT_EQ(b.check_invariants(), "");
  // NOLINTEND(bugprone-use-after-move)
}


// ---- Flat slot storage (detail/map_slots.hpp) and huge pages ---------------------------

// Non-trivial items (strings) through copies, moves, erase, clear and rebuilds: every
// constructed item is destroyed exactly once (ASan/LSan runs catch a leak or a double
// destruction), and copies are deep.
TEST(CuckooMapStorage, StringItemsSurviveCopiesRebuildsAndClear) {
  const std::uint64_t seed = test_seed(90);
  StringMap a(config_of(seed, 8));
  std::map<std::string, std::string> model;
  for (int i = 0; i < 600; ++i) {
    const std::string key = "key/" + std::to_string(i * 7919 % 1000);
    const std::string value(static_cast<std::size_t>(20 + i % 50), static_cast<char>('a' + i % 26));
    a.insert_or_assign(key, value);
    model[key] = value;
    if (i % 5 == 0) {
      const std::string gone = "key/" + std::to_string(i * 31 % 1000);
      EXPECT_EQ(a.erase(gone), model.erase(gone) == 1) << seed_note(seed);
    }
  }
  expect_matches(a, model);
  StringMap b = a;
  expect_matches(b, model);
  b.insert_or_assign(model.begin()->first, "changed");
  EXPECT_EQ(*a.find_value(model.begin()->first), model.begin()->second) << seed_note(seed);
  StringMap c = std::move(b);
  EXPECT_EQ(c.size(), model.size());
  a.clear();
  EXPECT_TRUE(a.empty());
  EXPECT_EQ(a.begin(), a.end());
  EXPECT_EQ(a.insert_outcome("x", "y"), InsertResult::kInserted);
  EXPECT_EQ(a.check_invariants(), "");
}

// A value that counts its live objects: construction of any kind adds one, destruction
// takes one away.
struct Tracked {
  static inline long live = 0;
  std::uint64_t v = 0;
  Tracked() noexcept { ++live; }
  explicit Tracked(std::uint64_t x) noexcept : v(x) { ++live; }
  Tracked(const Tracked& o) noexcept : v(o.v) { ++live; }
  Tracked(Tracked&& o) noexcept : v(o.v) { ++live; }
  Tracked& operator=(const Tracked&) noexcept = default;
  Tracked& operator=(Tracked&&) noexcept = default;
  ~Tracked() { --live; }
};

// The same lifetime guarantee counted, not left to a sanitizer (the mutation lane builds
// without one): after inserts, path moves, doublings, a copy, a move, erase, clear and
// destruction, the live objects are exactly the stored ones, and none once the maps are
// gone.
TEST(CuckooMapStorage, EveryItemIsDestroyedOnce) {
  const std::uint64_t seed = test_seed(93);
  Tracked::live = 0;
  {
    CuckooMap<std::uint64_t, Tracked> a(config_of(seed, 8));
    std::mt19937_64 rng(seed);
    for (int i = 0; i < 3000; ++i) a.try_emplace(rng() % 5000, static_cast<std::uint64_t>(i));
    EXPECT_GT(a.stats().growths, 2U);
    EXPECT_EQ(Tracked::live, static_cast<long>(a.size())) << seed_note(seed);
    for (int i = 0; i < 1000; ++i) a.erase(rng() % 5000);
    EXPECT_EQ(Tracked::live, static_cast<long>(a.size())) << seed_note(seed);
    {
      CuckooMap<std::uint64_t, Tracked> b = a;
      EXPECT_EQ(Tracked::live, static_cast<long>(2 * a.size())) << seed_note(seed);
      CuckooMap<std::uint64_t, Tracked> c = std::move(b);
      EXPECT_EQ(Tracked::live, static_cast<long>(a.size() + c.size())) << seed_note(seed);
      c.rehash(4 * c.bucket_count() * 4);
      EXPECT_EQ(Tracked::live, static_cast<long>(a.size() + c.size())) << seed_note(seed);
      c.clear();
      EXPECT_EQ(Tracked::live, static_cast<long>(a.size())) << seed_note(seed);
    }
    EXPECT_EQ(Tracked::live, static_cast<long>(a.size())) << seed_note(seed);
  }
  EXPECT_EQ(Tracked::live, 0) << seed_note(seed);
}

// A key equality that is not std::equal_to takes the branching lookup; same answers.
struct CaseInsensitiveEqual {
  bool operator()(const std::string& x, const std::string& y) const noexcept {
    if (x.size() != y.size()) return false;
    for (std::size_t i = 0; i < x.size(); ++i) {
      if (std::tolower(static_cast<unsigned char>(x[i])) !=
          std::tolower(static_cast<unsigned char>(y[i]))) {
        return false;
      }
    }
    return true;
  }
};
struct CaseInsensitiveHash {
  std::uint64_t operator()(const std::string& x, std::uint64_t seed) const noexcept {
    std::string lower = x;
    for (char& ch : lower) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    return cuckoo::DefaultHasher{}(lower, seed);
  }
};

TEST(CuckooMapStorage, CustomKeyEqualIsHonoured) {
  CuckooMap<std::string, int, 4, CaseInsensitiveHash, CaseInsensitiveEqual> map(config_of(91));
  EXPECT_EQ(map.insert_outcome("Hello", 1), InsertResult::kInserted);
  EXPECT_EQ(map.insert_outcome("HELLO", 2), InsertResult::kExists);
  ASSERT_NE(map.find_value("hello"), nullptr);
  EXPECT_EQ(*map.find_value("hello"), 1);
  EXPECT_TRUE(map.erase("hELLo"));
  EXPECT_TRUE(map.empty());
}

// A moved-from map has no table: its lookups take no test for that and read a static
// empty group instead (MapSlots' kNoGroups). Each of them must find nothing, whatever
// the key (every tag, both buckets' summaries), and the maps the storage went to, by
// move construction, move assignment and swap, must answer from their own tables.
TEST(CuckooMapStorage, AMovedFromMapFindsNothingAndTheTablesItLeftStillAnswer) {
  constexpr std::uint64_t kKeys = 3000;
  U64Map source(config_of(93));
  for (std::uint64_t k = 0; k < kKeys; ++k) ASSERT_EQ(source.insert_outcome(k, k + 1), InsertResult::kInserted);
  const auto finds_nothing = [&](const U64Map& m, const char* what) {
    ASSERT_EQ(m.capacity(), 0U) << what;
    for (std::uint64_t k = 0; k < 2 * kKeys; ++k) {
      ASSERT_FALSE(m.contains(k)) << what << ", key " << k;
      ASSERT_EQ(m.find(k), m.end()) << what << ", key " << k;
      ASSERT_EQ(m.find_value(k), nullptr) << what << ", key " << k;
      ASSERT_EQ(m.count(k), 0U) << what << ", key " << k;
    }
  };
  const auto holds_every_key = [&](const U64Map& m, const char* what) {
    ASSERT_EQ(m.size(), kKeys) << what;
    for (std::uint64_t k = 0; k < kKeys; ++k) {
      const std::uint64_t* v = m.find_value(k);
      ASSERT_NE(v, nullptr) << what << ", key " << k;
      ASSERT_EQ(*v, k + 1) << what << ", key " << k;
    }
    ASSERT_FALSE(m.contains(kKeys)) << what;
  };
  U64Map constructed(std::move(source));
  finds_nothing(source, "moved-from by construction");  // NOLINT(bugprone-use-after-move)
  holds_every_key(constructed, "move-constructed");
  U64Map assigned(config_of(94));
  assigned = std::move(constructed);
  finds_nothing(constructed, "moved-from by assignment");  // NOLINT(bugprone-use-after-move)
  holds_every_key(assigned, "move-assigned");
  U64Map swapped(config_of(95));
  swapped.swap(constructed);  // two maps without tables
  finds_nothing(swapped, "swapped with a moved-from map");
  swapped.swap(assigned);
  holds_every_key(swapped, "swapped");
  finds_nothing(assigned, "swapped with a moved-from map, then back");
  // Buckets of 8 items span two cache lines: the lookup prefetches both, from the null
  // item array of a moved-from map too (no pointer arithmetic on null: clang's UBSan,
  // in the fuzz lane, reports it).
  CuckooMap<std::uint64_t, std::uint64_t, 8> wide(config_of(96));
  for (std::uint64_t k = 0; k < kKeys; ++k) ASSERT_EQ(wide.insert_outcome(k, k), InsertResult::kInserted);
  const CuckooMap<std::uint64_t, std::uint64_t, 8> wide_to(std::move(wide));
  ASSERT_EQ(wide.capacity(), 0U);  // NOLINT(bugprone-use-after-move): moved-from is valid
  for (std::uint64_t k = 0; k < 2 * kKeys; ++k) {
    ASSERT_FALSE(wide.contains(k)) << "8-slot buckets, moved-from, key " << k;
    ASSERT_EQ(wide_to.contains(k), k < kKeys) << "8-slot buckets, key " << k;
  }
  // A moved-from map is usable: its next insert allocates a table.
  EXPECT_EQ(source.insert_outcome(7, 8), InsertResult::kInserted);
  ASSERT_NE(source.find_value(7), nullptr);
  EXPECT_EQ(*source.find_value(7), 8U);
  EXPECT_EQ(source.check_invariants(), "");
}

// Key 0 and value 0 are ordinary items: the zero bytes of an empty slot never count.
TEST(CuckooMapStorage, ZeroKeyIsNotConfusedWithEmptySlots) {
  U64Map map(config_of(92, 8));
  EXPECT_FALSE(map.contains(0));
  EXPECT_EQ(map.insert_outcome(1, 0), InsertResult::kInserted);
  EXPECT_FALSE(map.contains(0));
  EXPECT_EQ(map.insert_outcome(0, 0), InsertResult::kInserted);
  EXPECT_TRUE(map.contains(0));
  EXPECT_TRUE(map.erase(0));
  EXPECT_FALSE(map.contains(0));
  EXPECT_EQ(map.size(), 1U);
  EXPECT_EQ(map.check_invariants(), "");
}

// huge_pages changes no answer, layout or byte of the serialization.
TEST(CuckooMapStorage, HugePagesOnAndOffGiveEqualMaps) {
  const std::uint64_t seed = test_seed(93);
  CuckooMapConfig plain_config = config_of(seed, 8);
  CuckooMapConfig huge_config = plain_config;
  huge_config.huge_pages = true;
  U64Map plain(plain_config);
  U64Map huge(huge_config);
  // Reserve past 2 MiB of slots so that the huge-page path is taken.
  ASSERT_TRUE(plain.reserve(200'000));
  ASSERT_TRUE(huge.reserve(200'000));
  cuckoo::detail::Rng rng(seed);
  for (int i = 0; i < 150'000; ++i) {
    const std::uint64_t key = rng.next();
    ASSERT_EQ(plain.insert_outcome(key, key + 1), huge.insert_outcome(key, key + 1)) << seed_note(seed);
  }
  EXPECT_EQ(plain, huge);
  EXPECT_EQ(plain.serialize(), huge.serialize()) << seed_note(seed);
  EXPECT_EQ(huge.check_invariants(), "");
  const U64Map copy = huge;
  EXPECT_EQ(copy, plain);
  EXPECT_TRUE(copy.config().huge_pages);
  EXPECT_FALSE(U64Map::deserialize(huge.serialize(), {}, {}, std::size_t{1} << 30).config().huge_pages);
}

}  // namespace
