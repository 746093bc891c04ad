// CuckooMap::find_many, the batched find: the same answer as find() for every
// key, across groups, growth, the stash, an empty and a moved-from map, heterogeneous
// keys, and the result ranges a user passes; too few results is an error that writes
// nothing.
//
// The randomized test takes CUCKOO_TEST_SEED from the environment to replay another seed
// and prints the one it used on failure.
#include <gtest/gtest.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <deque>
#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cuckoo/cuckoo_map.hpp"
#include "cuckoo/detail/rng.hpp"
#include "support/placed_hasher.hpp"
#include "support/test_seed.hpp"

namespace {

using cuckoo::test::test_seed;
std::string seed_note(std::uint64_t seed) { return cuckoo::test::seed_note(seed, "cuckoo_map_find_many_test"); }

using cuckoo::CuckooMap;
using cuckoo::CuckooMapConfig;
using cuckoo::InsertResult;

template <class Map, class Key>
void expect_same_as_find(const Map& map, const std::vector<Key>& keys) {
  using V = typename Map::mapped_type;
  std::vector<const V*> results(keys.size(), reinterpret_cast<const V*>(&keys));  // junk
  map.find_many(keys, results);
  for (std::size_t i = 0; i < keys.size(); ++i) {
    ASSERT_EQ(results[i], map.find_value(keys[i])) << "key #" << i;
  }
}

// Random present and absent keys, more than one group, at several fills: every answer is
// find()'s (the same address, or nullptr).
TEST(CuckooMapFindMany, AgreesWithFindThroughGrowth) {
  const std::uint64_t seed = test_seed(0xf1d0'0001);
  SCOPED_TRACE(seed_note(seed));
  CuckooMapConfig config;
  config.initial_capacity = 8;
  config.seed = seed;
  CuckooMap<std::uint64_t, std::uint64_t> map(config);
  cuckoo::detail::Rng rng(seed);
  std::vector<std::uint64_t> keys;
  for (std::uint64_t round = 0; round < 6; ++round) {
    for (int i = 0; i < 700; ++i) {
      const std::uint64_t k = rng.below(5000);
      (void)map.insert_outcome(k, k * 3 + 1);
    }
    keys.clear();
    // Lengths around the pipeline's stage distance D: shorter than one stage, than two,
    // exactly at them, and a long run whose end is not a multiple of D.
    constexpr std::size_t D = decltype(map)::kFindAhead;
    for (std::size_t i = 0; i < 5 * D + 7; ++i) keys.push_back(rng.below(10000));
    for (const std::size_t n :
         {std::size_t{1}, D - 1, D, D + 1, 2 * D - 1, 2 * D, 2 * D + 1, 5 * D + 7}) {
      SCOPED_TRACE("keys: " + std::to_string(n));
      const auto end = keys.begin() + static_cast<std::ptrdiff_t>(n);
      expect_same_as_find(map, std::vector<std::uint64_t>(keys.begin(), end));
      if (HasFailure()) return;
    }
  }
  EXPECT_GT(map.size(), 1000U);
}

// Stashed items are found (a key whose buckets are full sits in the stash).
TEST(CuckooMapFindMany, FindsStashedItems) {
  // One-slot buckets and a table that may not grow: the stash fills.
  CuckooMapConfig config;
  config.initial_capacity = 16;
  config.max_capacity = 16;
  config.seed = 11;
  CuckooMap<std::uint64_t, std::uint64_t, 1> map(config);
  std::vector<std::uint64_t> keys;
  for (std::uint64_t k = 0; k < 400; ++k) {
    if (map.insert_outcome(k, k) == InsertResult::kInserted) keys.push_back(k);
  }
  ASSERT_GT(map.stats().stash_high_water, 0U) << "the scenario needs items in the stash";
  keys.push_back(100000);  // absent
  expect_same_as_find(map, keys);
}

// A key in its second bucket, whose first bucket holds a foreign item with the same tag:
// find_many's second stage finds a tag match in the first bucket and so does not match
// the second; its third stage must match the second bucket itself.
TEST(CuckooMapFindMany, FindsAKeyInItsSecondBucketBehindAForeignTagMatch) {
  using Map = CuckooMap<std::uint64_t, std::uint64_t, 4, cuckoo::test::PlacedHasher>;
  constexpr std::uint32_t kBuckets = 4;
  cuckoo::test::PlacedHasher hasher;
  CuckooMapConfig config;
  config.initial_capacity = 4 * kBuckets;
  config.max_capacity = 4 * kBuckets;
  Map map(config, hasher);
  ASSERT_EQ(map.bucket_count(), kBuckets);
  // hash_for_buckets gives a hash whose halves are multiples of 2^30 for 4 buckets, so
  // the low byte of its low half is free: it sets the tag (low byte of lo ^ hi).
  const auto hash_with_tag = [](std::uint32_t first, std::uint32_t second, std::uint8_t tag) {
    const std::uint64_t h = Map::hash_for_buckets(first, second, kBuckets);
    return h | static_cast<std::uint8_t>(tag ^ static_cast<std::uint8_t>(h >> 32));
  };
  constexpr std::uint8_t kTag = 0x5a;
  constexpr std::uint64_t kForeign = 1, kKey = 10;
  hasher.place(kForeign, hash_with_tag(0, 2, kTag));
  hasher.place(kKey, hash_with_tag(0, 1, kTag));
  for (std::uint64_t k = 2; k < 5; ++k) hasher.place(k, hash_with_tag(0, 3, kTag + k));
  // Bucket 0 fills with the foreign key and three others; kKey then goes to bucket 1.
  for (std::uint64_t k = 1; k < 5; ++k) ASSERT_EQ(map.insert_outcome(k, k), InsertResult::kInserted);
  ASSERT_EQ(map.insert_outcome(kKey, 99), InsertResult::kInserted);
  ASSERT_EQ(map.stash_size(), 0U);
  ASSERT_NE(map.find_value(kKey), nullptr);
  // kKey first, then again after more keys than the ring holds, so that its ring entry
  // was used by another key before.
  std::vector<std::uint64_t> keys = {kKey};
  for (std::uint64_t i = 0; i < 3 * Map::kFindAhead; ++i) keys.push_back(1000 + i);
  keys.push_back(kKey);
  expect_same_as_find(map, keys);
}

TEST(CuckooMapFindMany, EmptyAndMovedFromMapsFindNothing) {
  CuckooMap<std::uint64_t, int> map;
  const std::vector<std::uint64_t> keys = {1, 2, 3};
  std::vector<const int*> results(3, reinterpret_cast<const int*>(&keys));
  map.find_many(keys, results);
  for (const int* r : results) EXPECT_EQ(r, nullptr);
  (void)map.insert_outcome(2, 20);
  CuckooMap<std::uint64_t, int> taken(std::move(map));
  std::fill(results.begin(), results.end(), reinterpret_cast<const int*>(&keys));
  map.find_many(keys, results);  // NOLINT(bugprone-use-after-move): moved-from is valid
  for (const int* r : results) EXPECT_EQ(r, nullptr);
  taken.find_many(keys, results);
  EXPECT_EQ(results[0], nullptr);
  ASSERT_NE(results[1], nullptr);
  EXPECT_EQ(*results[1], 20);
  // No keys: nothing written, nothing thrown.
  map.find_many(std::vector<std::uint64_t>{}, results);
}

// std::string_view keys on a std::string map with a transparent hasher and equality,
// from a std::array, into a std::deque of results.
TEST(CuckooMapFindMany, TakesHeterogeneousKeysAndAnyResultRange) {
  CuckooMap<std::string, int, 4, cuckoo::DefaultHasher, std::equal_to<>> map;
  (void)map.insert_outcome("alpha", 1);
  (void)map.insert_outcome("gamma", 3);
  const std::array<std::string_view, 3> keys = {"alpha", "beta", "gamma"};
  std::deque<const int*> results(3);
  map.find_many(keys, results);
  ASSERT_NE(results[0], nullptr);
  EXPECT_EQ(*results[0], 1);
  EXPECT_EQ(results[1], nullptr);
  ASSERT_NE(results[2], nullptr);
  EXPECT_EQ(*results[2], 3);
}

TEST(CuckooMapFindMany, TooFewResultsThrowsAndWritesNothing) {
  CuckooMap<std::uint64_t, int> map;
  (void)map.insert_outcome(1, 10);
  const std::vector<std::uint64_t> keys = {1, 2, 3};
  const int sentinel = 0;
  std::vector<const int*> results(2, &sentinel);
  try {
    map.find_many(keys, results);
    FAIL() << "find_many accepted 2 results for 3 keys";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("results has 2 entries, fewer than the 3 keys"),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(results[0], &sentinel);
  EXPECT_EQ(results[1], &sentinel);
}

}  // namespace

// The results range is checked before anything else: too few results throws on an
// empty map and on a moved-from map (no buckets) as on a filled one, writing nothing.
TEST(CuckooMapFindMany, TooFewResultsThrowsOnEmptyAndMovedFromMapsToo) {
  CuckooMap<std::uint64_t, int> empty;
  CuckooMap<std::uint64_t, int> filled;
  (void)filled.insert_outcome(1, 10);
  CuckooMap<std::uint64_t, int> moved_from;
  (void)moved_from.insert_outcome(2, 20);
  const CuckooMap<std::uint64_t, int> taken(std::move(moved_from));
  ASSERT_EQ(moved_from.capacity(), 0U);  // NOLINT(bugprone-use-after-move): moved-from is valid
  const std::vector<std::uint64_t> keys = {1, 2, 3};
  const int sentinel = 0;
  const std::pair<const char*, const CuckooMap<std::uint64_t, int>*> maps[] = {
      {"empty", &empty}, {"moved-from", &moved_from}, {"filled", &filled}};
  for (const auto& [what, map] : maps) {
    std::vector<const int*> results(2, &sentinel);
    EXPECT_THROW(map->find_many(keys, results), std::invalid_argument) << what;
    EXPECT_EQ(results[0], &sentinel) << what << ": written before the throw";
    EXPECT_EQ(results[1], &sentinel) << what << ": written before the throw";
    std::vector<const int*> none;
    EXPECT_THROW(map->find_many(keys, none), std::invalid_argument) << what;
  }
  EXPECT_EQ(*taken.find_value(2), 20);
}
