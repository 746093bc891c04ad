// Tests of CuckooMap's per-bucket summaries of displaced items (detail/map_slots.hpp):
// a lookup reads a key's second bucket only when its first bucket's summary names the
// key's tag, so every write that moves an item into or out of its second bucket must keep
// that summary (the invariant check recomputes it from the items). Keys are placed at
// chosen buckets and tags with a placing hasher, so that items are displaced on purpose,
// then moved by erases, cuckoo paths, growth, copies, moves and serialization.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <memory_resource>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "cuckoo/cuckoo_map.hpp"
#include "support/placed_hasher.hpp"
#include "support/test_seed.hpp"

namespace {

using cuckoo::CuckooMap;
using cuckoo::CuckooMapConfig;
using cuckoo::InsertResult;
using cuckoo::test::PlacedHasher;
using Map = CuckooMap<std::uint64_t, std::uint64_t, 4, PlacedHasher>;

CuckooMapConfig fixed_config(std::size_t capacity) {
  CuckooMapConfig config;
  config.initial_capacity = capacity;
  config.max_capacity = capacity;
  config.seed = 1;
  return config;
}

// A hash whose buckets are {first, second} at n buckets and whose tag varies with
// `variant`: adding less than 2^32 / n to the low half keeps its bucket (n <= 2^16 here).
std::uint64_t placed_hash(std::uint32_t first, std::uint32_t second, std::uint32_t n,
                          std::uint32_t variant) {
  return Map::hash_for_buckets(first, second, n) + (variant & 0xffffU);
}

// Keys 1000 + i: first bucket 0, second bucket 1 + i, tags varying with i.
constexpr std::uint64_t kBase = 1000;
constexpr std::uint32_t kBuckets = 64;

Map map_with_displaced_keys(PlacedHasher& hasher, unsigned keys) {
  for (unsigned i = 0; i < keys; ++i) {
    hasher.place(kBase + i, placed_hash(0, 1 + i, kBuckets, 37 * i + 5));
  }
  Map map(fixed_config(kBuckets * 4), hasher);
  for (unsigned i = 0; i < keys; ++i) {
    EXPECT_EQ(map.insert_outcome(kBase + i, i), InsertResult::kInserted) << i;
  }
  return map;
}

void expect_holds(const Map& map, unsigned from, unsigned to) {
  for (unsigned i = from; i < to; ++i) {
    const std::uint64_t* v = map.find_value(kBase + i);
    ASSERT_NE(v, nullptr) << "key " << kBase + i << " lost";
    EXPECT_EQ(*v, i);
  }
}

TEST(CuckooMapSummary, DisplacedItemsAreFoundAndErasesKeepTheSummary) {
  PlacedHasher hasher;
  Map map = map_with_displaced_keys(hasher, 12);  // 4 in bucket 0, 8 displaced
  ASSERT_EQ(map.check_invariants(), "");
  expect_holds(map, 0, 12);
  // Absent keys sharing the first bucket and a displaced key's tag: still absent.
  for (unsigned i = 0; i < 12; ++i) {
    hasher.place(5000 + i, placed_hash(0, 40 + i, kBuckets, 37 * i + 5));
    EXPECT_FALSE(map.contains(5000 + i));
  }
  // Erase by key, by iterator and by extract; each keeps the summary exact.
  EXPECT_EQ(map.erase(kBase + 11), 1U);
  ASSERT_EQ(map.check_invariants(), "");
  map.erase(map.find(kBase + 10));
  ASSERT_EQ(map.check_invariants(), "");
  auto node = map.extract(kBase + 9);
  ASSERT_FALSE(node.empty());
  ASSERT_EQ(map.check_invariants(), "");
  expect_holds(map, 0, 9);
  // Erasing the items in bucket 0 leaves the displaced ones displaced and found.
  for (unsigned i = 0; i < 4; ++i) ASSERT_EQ(map.erase(kBase + i), 1U);
  ASSERT_EQ(map.check_invariants(), "");
  expect_holds(map, 4, 9);
  // Erasing every displaced item empties the summary (the check: count 0, no filter).
  for (unsigned i = 4; i < 9; ++i) ASSERT_EQ(map.erase(kBase + i), 1U);
  ASSERT_EQ(map.check_invariants(), "");
  EXPECT_TRUE(map.empty());
  // And the keys come back.
  for (unsigned i = 0; i < 12; ++i) ASSERT_EQ(map.insert_outcome(kBase + i, i), InsertResult::kInserted);
  ASSERT_EQ(map.check_invariants(), "");
  expect_holds(map, 0, 12);
}

TEST(CuckooMapSummary, CuckooPathsMoveItemsIntoAndOutOfTheirSecondBucket) {
  // B = 1: every second item of a bucket pair is displaced, and an insert into two full
  // buckets moves items along a path, some home, some away.
  using Map1 = CuckooMap<std::uint64_t, std::uint64_t, 1, PlacedHasher>;
  PlacedHasher hasher;
  constexpr std::uint32_t n = 16;
  for (std::uint32_t i = 0; i < 8; ++i) {
    hasher.place(100 + i, Map1::hash_for_buckets(i, (i + 1) % n, n) + i);
    hasher.place(200 + i, Map1::hash_for_buckets((i + 1) % n, i, n) + 3 * i);
  }
  Map1 map(fixed_config(n), hasher);
  for (std::uint32_t i = 0; i < 8; ++i) {
    ASSERT_EQ(map.insert_outcome(100 + i, i), InsertResult::kInserted);
    ASSERT_EQ(map.check_invariants(), "") << "after key " << 100 + i;
    ASSERT_EQ(map.insert_outcome(200 + i, i), InsertResult::kInserted);
    ASSERT_EQ(map.check_invariants(), "") << "after key " << 200 + i;
  }
  EXPECT_GT(map.stats().bfs_searches, 0U);
  for (std::uint32_t i = 0; i < 8; ++i) {
    EXPECT_TRUE(map.contains(100 + i)) << 100 + i;
    EXPECT_TRUE(map.contains(200 + i)) << 200 + i;
  }
}

TEST(CuckooMapSummary, GrowthCopiesMovesAndSerializationRebuildTheSummary) {
  const std::uint64_t seed = cuckoo::test::test_seed(1);
  SCOPED_TRACE(cuckoo::test::seed_note(seed, "cuckoo_map_summary_test"));
  std::mt19937_64 rng(seed);
  CuckooMapConfig config;
  config.seed = seed;
  config.initial_capacity = 64;
  CuckooMap<std::uint64_t, std::uint64_t> map(config);
  std::vector<std::uint64_t> keys;
  for (int i = 0; i < 20000; ++i) {  // through many doublings, at up to 90 % load
    keys.push_back(rng());
    map.insert_or_assign(keys.back(), keys.size());
    if (i % 2500 == 0) {
      ASSERT_EQ(map.check_invariants(), "") << "after " << i << " inserts";
    }
  }
  ASSERT_EQ(map.check_invariants(), "");
  for (std::size_t i = 0; i < keys.size(); i += 3) ASSERT_EQ(map.erase(keys[i]), 1U);
  ASSERT_EQ(map.check_invariants(), "");
  const auto holds_the_rest = [&](const auto& m) {
    for (std::size_t i = 0; i < keys.size(); ++i) {
      if (m.contains(keys[i]) != (i % 3 != 0)) return false;
    }
    return m.size() == keys.size() - (keys.size() + 2) / 3;
  };
  ASSERT_TRUE(holds_the_rest(map));

  auto copy = map;
  EXPECT_EQ(copy.check_invariants(), "");
  EXPECT_TRUE(holds_the_rest(copy));
  auto moved = std::move(copy);
  EXPECT_EQ(moved.check_invariants(), "");
  EXPECT_TRUE(holds_the_rest(moved));
  ASSERT_TRUE(map.reserve(map.size() * 4));  // a rebuild at another bucket count
  EXPECT_EQ(map.check_invariants(), "");
  EXPECT_TRUE(holds_the_rest(map));
  const auto restored = decltype(map)::deserialize(moved.serialize());
  EXPECT_EQ(restored.check_invariants(), "");
  EXPECT_TRUE(holds_the_rest(restored));
}

TEST(CuckooMapSummary, MoveAssignmentBetweenUnequalAllocatorsMovesTheSummary) {
  // Item by item, into new storage of the same shape (relocate_all).
  using PmrMap = CuckooMap<std::uint64_t, std::uint64_t, 4, PlacedHasher,
                           std::equal_to<std::uint64_t>,
                           std::pmr::polymorphic_allocator<std::pair<const std::uint64_t, std::uint64_t>>>;
  std::pmr::monotonic_buffer_resource a_memory;
  std::pmr::monotonic_buffer_resource b_memory;
  PlacedHasher hasher;
  for (unsigned i = 0; i < 12; ++i) {
    hasher.place(kBase + i, placed_hash(0, 1 + i, kBuckets, 37 * i + 5));
  }
  PmrMap a(fixed_config(kBuckets * 4), hasher, {}, &a_memory);
  for (unsigned i = 0; i < 12; ++i) ASSERT_EQ(a.insert_outcome(kBase + i, i), InsertResult::kInserted);
  PmrMap b(fixed_config(kBuckets * 4), hasher, {}, &b_memory);
  b = std::move(a);
  EXPECT_EQ(b.check_invariants(), "");
  for (unsigned i = 0; i < 12; ++i) EXPECT_TRUE(b.contains(kBase + i)) << kBase + i;
  ASSERT_EQ(b.erase(kBase + 11), 1U);
  EXPECT_EQ(b.check_invariants(), "");
}

// String keys: a key moved from (extract, merge) is empty, so the first bucket whose
// summary counts its item must be found from the key before it moves.
struct StringPlacedHasher {
  PlacedHasher numbers;
  std::uint64_t operator()(const std::string& key, std::uint64_t seed) const {
    return numbers(std::stoull(key), seed);
  }
};
using StringMap = CuckooMap<std::string, std::string, 4, StringPlacedHasher>;

TEST(CuckooMapSummary, DisplacedStringItemsLeaveByExtractAndMergeWithTheSummaryKept) {
  StringPlacedHasher hasher;
  for (unsigned i = 0; i < 12; ++i) {
    hasher.numbers.place(kBase + i, placed_hash(0, 1 + i, kBuckets, 37 * i + 5));
  }
  StringMap source(fixed_config(kBuckets * 4), hasher);
  for (unsigned i = 0; i < 12; ++i) {
    ASSERT_EQ(source.insert_outcome(std::to_string(kBase + i), std::string(40, 'a' + i)),
              InsertResult::kInserted);
  }
  auto node = source.extract(std::to_string(kBase + 11));  // displaced
  ASSERT_FALSE(node.empty());
  ASSERT_EQ(source.check_invariants(), "");
  ASSERT_EQ(source.erase(std::to_string(kBase + 10)), 1U);
  ASSERT_EQ(source.check_invariants(), "");
  StringMap target(fixed_config(kBuckets * 4), hasher);
  target.merge(source);  // every item moves: the displaced ones leave source's summary
  EXPECT_TRUE(source.empty());
  EXPECT_EQ(source.check_invariants(), "");
  EXPECT_EQ(target.check_invariants(), "");
  for (unsigned i = 0; i < 10; ++i) {
    const std::string* v = target.find_value(std::to_string(kBase + i));
    ASSERT_NE(v, nullptr) << kBase + i;
    EXPECT_EQ(*v, std::string(40, 'a' + i));
  }
  // And the summary lets source take the keys again.
  for (unsigned i = 0; i < 12; ++i) {
    ASSERT_EQ(source.insert_outcome(std::to_string(kBase + i), "x"), InsertResult::kInserted);
  }
  EXPECT_EQ(source.check_invariants(), "");
}

TEST(CuckooMapSummary, ASaturatedCountKeepsEveryDisplacedItemFound) {
  // 65,540 keys whose first bucket is 0, each with its own second bucket: the count of
  // bucket 0's displaced items saturates (at 65,535) and then stays, so erasing some
  // never clears the filter while others are still displaced.
  constexpr std::uint32_t n = 1U << 17;
  constexpr unsigned kKeys = 65540;
  PlacedHasher hasher;
  for (unsigned i = 0; i < kKeys; ++i) hasher.place(kBase + i, placed_hash(0, 1 + i, n, i));
  Map map(fixed_config(std::size_t{n} * 4), hasher);
  for (unsigned i = 0; i < kKeys; ++i) {
    ASSERT_EQ(map.insert_outcome(kBase + i, i), InsertResult::kInserted) << i;
  }
  ASSERT_EQ(map.check_invariants(), "");
  for (unsigned i = 4; i < kKeys - 3; ++i) ASSERT_EQ(map.erase(kBase + i), 1U) << i;
  ASSERT_EQ(map.check_invariants(), "");
  expect_holds(map, 0, 4);
  expect_holds(map, kKeys - 3, kKeys);
}

// The portable tag compare (SWAR, for targets without SSE2) agrees with the SSE2 one that
// x86-64 builds use, on random tag words.
template <unsigned B>
void expect_forms_agree(std::mt19937_64& rng) {
  using Slots = cuckoo::detail::MapSlots<std::uint64_t, std::uint64_t, B, B * 2>;
  constexpr unsigned kSlotBits = (1U << B) - 1;
  for (int round = 0; round < 20000; ++round) {
    std::uint8_t bytes[8];
    std::uint64_t word = rng();
    // Many zero bytes (empty slots) and repeated tags, as buckets have.
    for (unsigned i = 0; i < 8; ++i) {
      bytes[i] = (word >> (8 * i) & 3) == 0 ? 0 : static_cast<std::uint8_t>(word >> (8 * i) & 0x0f);
    }
    std::uint64_t tags = 0;
    std::memcpy(&tags, bytes, 8);
    if constexpr (B < 8) tags &= (std::uint64_t{1} << (8 * B)) - 1;
    const auto tag = static_cast<std::uint8_t>(1 + rng() % 15);
#if defined(__SSE2__)
    ASSERT_EQ(Slots::matches_swar(tags, tag), Slots::equal_bytes_sse2(bytes, tag) & kSlotBits)
        << "B=" << B << " tags=" << std::hex << tags << " tag=" << unsigned{tag};
    ASSERT_EQ(Slots::mask_swar(tags), ~Slots::equal_bytes_sse2(bytes, 0) & kSlotBits)
        << "B=" << B << " tags=" << std::hex << tags;
#else
    GTEST_SKIP() << "no SSE2 on this target: only the portable form is compiled";
#endif
  }
}

TEST(CuckooMapSummary, PortableAndSse2TagComparesAgree) {
  std::mt19937_64 rng(cuckoo::test::test_seed(2));
  expect_forms_agree<1>(rng);
  expect_forms_agree<2>(rng);
  expect_forms_agree<4>(rng);
  expect_forms_agree<8>(rng);
}

}  // namespace
