// The standard forms of CuckooMap's inserts on a map that is full and may not grow: each
// throws CapacityError (a std::length_error naming the call, the size and max_capacity),
// having changed nothing and consumed none of its arguments; the outcome forms answer
// kFull instead; merge moves what fits and throws nothing. And erase by iterator (so
// erase_if) with items in the stash: it moves nothing, so erasing while iterating visits
// every item once.
#include <cstdint>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "cuckoo/cuckoo_map.hpp"
#include "support/placed_hasher.hpp"

namespace {

using cuckoo::CapacityError;
using cuckoo::CuckooMap;
using cuckoo::CuckooMapConfig;
using cuckoo::InsertResult;

CuckooMapConfig capped(std::size_t slots) {
  CuckooMapConfig c;
  c.initial_capacity = slots;
  c.max_capacity = slots;
  c.seed = 7;
  return c;
}

// Long enough that a moved-from string is visibly empty (no small-string buffer).
std::string long_key(int i) { return "key-" + std::to_string(i) + std::string(40, 'k'); }
std::string long_value(int i) { return "value-" + std::to_string(i) + std::string(40, 'v'); }

using StringMap = CuckooMap<std::string, std::string>;

// A map at max_capacity, filled until inserts are refused, and a key it refuses.
struct FullMap {
  StringMap map{capped(8)};
  std::string refused_key;
};

FullMap full_map() {
  FullMap f;
  for (int i = 0; i < 200; ++i) {
    const InsertResult r = f.map.insert_outcome(long_key(i), long_value(i));
    if (r == InsertResult::kFull && f.refused_key.empty()) f.refused_key = long_key(i);
  }
  EXPECT_FALSE(f.refused_key.empty()) << "the capped map never refused an insert";
  EXPECT_EQ(f.map.insert_outcome(f.refused_key, "x"), InsertResult::kFull);
  return f;
}

std::map<std::string, std::string> contents(const StringMap& m) {
  std::map<std::string, std::string> out;
  for (const auto& [k, v] : m) out.emplace(k, v);
  return out;
}

TEST(CuckooMapCapacityError, EveryStandardInsertFormThrowsAndConsumesNothing) {
  FullMap f = full_map();
  StringMap& m = f.map;
  const auto before = contents(m);
  const std::string key0 = f.refused_key;
  const std::string value0 = long_value(-1);
  std::string key = key0;
  std::string value = value0;
  const auto unchanged = [&](const char* form) {
    EXPECT_EQ(key, key0) << form << " consumed the key";
    EXPECT_EQ(value, value0) << form << " consumed the value";
    EXPECT_EQ(contents(m), before) << form << " changed the map";
    EXPECT_EQ(m.check_invariants(), "") << form;
  };
  EXPECT_THROW(m.insert(std::move(key), std::move(value)), CapacityError);
  unchanged("insert(K&&, V&&)");
  EXPECT_THROW(m.insert(std::as_const(key), std::move(value)), CapacityError);
  unchanged("insert(const K&, V&&)");
  EXPECT_THROW(m.emplace(std::move(key), std::move(value)), CapacityError);
  unchanged("emplace(K&&, V&&)");
  EXPECT_THROW(m.try_emplace(std::move(key), std::move(value)), CapacityError);
  unchanged("try_emplace(K&&, V&&)");
  EXPECT_THROW(m.insert_or_assign(std::move(key), std::move(value)), CapacityError);
  unchanged("insert_or_assign(K&&, V&&)");
  EXPECT_THROW(m[std::move(key)], CapacityError);
  unchanged("operator[](K&&)");
  EXPECT_THROW(m.emplace_hint(m.begin(), std::move(key), std::move(value)), CapacityError);
  unchanged("emplace_hint");
  EXPECT_THROW(m.try_emplace(m.begin(), std::move(key), std::move(value)), CapacityError);
  unchanged("try_emplace(hint, ...)");
  std::pair<std::string, std::string> pair{key0, value0};
  EXPECT_THROW(m.insert(std::move(pair)), CapacityError);
  EXPECT_EQ(pair.first, key0) << "insert(pair&&) consumed the pair's key";
  EXPECT_EQ(pair.second, value0) << "insert(pair&&) consumed the pair's value";
  StringMap::value_type item{key0, value0};
  EXPECT_THROW(m.insert(std::move(item)), CapacityError);
  EXPECT_EQ(item.second, value0) << "insert(value_type&&) consumed the value";
  unchanged("insert(pair)");
  // The outcome forms answer instead of throwing.
  EXPECT_EQ(m.insert_outcome(std::move(key), std::move(value)), InsertResult::kFull);
  EXPECT_EQ(m.try_emplace_outcome(std::move(key), std::move(value)), InsertResult::kFull);
  EXPECT_EQ(m.emplace_outcome(std::move(key), std::move(value)), InsertResult::kFull);
  EXPECT_EQ(m.insert_or_assign_outcome(std::move(key), std::move(value)), InsertResult::kFull);
  unchanged("the outcome forms");
  // A present key is no insert: the standard forms answer as usual on a full map.
  const std::string present = m.begin()->first;
  EXPECT_FALSE(m.insert(present, value0).second);
  EXPECT_FALSE(m.insert_or_assign(present, value0).second);
  EXPECT_EQ(m.at(present), value0);
}

TEST(CuckooMapCapacityError, TheExceptionNamesTheCallAndTheLimit) {
  FullMap f = full_map();
  try {
    f.map.try_emplace(f.refused_key, "v");
    ADD_FAILURE() << "no exception";
  } catch (const std::length_error& e) {  // CapacityError is a std::length_error
    const auto* capacity = dynamic_cast<const CapacityError*>(&e);
    ASSERT_NE(capacity, nullptr) << e.what();
    EXPECT_EQ(capacity->size(), f.map.size());
    EXPECT_EQ(capacity->max_capacity(), 8U);
    const std::string what = e.what();
    EXPECT_NE(what.find("CuckooMap::try_emplace"), std::string::npos) << what;
    EXPECT_NE(what.find("max_capacity 8"), std::string::npos) << what;
    EXPECT_NE(what.find("size " + std::to_string(f.map.size())), std::string::npos) << what;
  }
  EXPECT_THROW(f.map.rehash(9), CapacityError) << "rehash beyond max_capacity";
  EXPECT_FALSE(f.map.reserve(9)) << "reserve beyond max_capacity";
}

TEST(CuckooMapCapacityError, MoveOnlyValuesSurviveARefusedInsert) {
  CuckooMap<int, std::unique_ptr<int>> m(capped(4));
  int refused = -1;
  for (int k = 0; k < 100 && refused < 0; ++k) {
    auto p = std::make_unique<int>(k);
    if (m.insert_outcome(k, std::move(p)) == InsertResult::kFull) {
      refused = k;
      EXPECT_NE(p, nullptr) << "kFull took the value";
    }
  }
  ASSERT_GE(refused, 0);
  auto p = std::make_unique<int>(42);
  EXPECT_THROW(m.insert(refused, std::move(p)), CapacityError);
  ASSERT_NE(p, nullptr);
  EXPECT_THROW(m.try_emplace(refused, std::move(p)), CapacityError);
  ASSERT_NE(p, nullptr);
  EXPECT_THROW(m.insert_or_assign(refused, std::move(p)), CapacityError);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(*p, 42);
  // A node handle keeps its item.
  CuckooMap<int, std::unique_ptr<int>> other;
  other.emplace(refused, std::make_unique<int>(7));
  auto node = other.extract(refused);
  EXPECT_THROW(m.insert(std::move(node)), CapacityError);
  ASSERT_FALSE(node.empty());
  EXPECT_EQ(*node.mapped(), 7);
}

TEST(CuckooMapCapacityError, RangeInsertKeepsWhatFitAndMergeThrowsNothing) {
  StringMap m(capped(8));
  std::vector<std::pair<std::string, std::string>> items;
  for (int i = 0; i < 100; ++i) items.emplace_back(long_key(i), long_value(i));
  EXPECT_THROW(m.insert(items.begin(), items.end()), CapacityError);
  const std::size_t kept = m.size();
  EXPECT_GT(kept, 0U);
  for (const auto& [k, v] : m) EXPECT_EQ(v, long_value(std::stoi(k.substr(4))));
  StringMap target(capped(8));
  StringMap source;
  for (int i = 0; i < 100; ++i) source.emplace(long_key(i), long_value(i));
  target.merge(source);
  EXPECT_GT(target.size(), 0U);
  EXPECT_EQ(target.size() + source.size(), 100U) << "merge lost or duplicated items";
  for (const auto& [k, v] : target) EXPECT_FALSE(source.contains(k)) << k;
  EXPECT_EQ(target.check_invariants(), "");
  EXPECT_EQ(source.check_invariants(), "");
}

TEST(CuckooMapCapacityError, AMapThatMayGrowNeverThrows) {
  CuckooMap<std::uint64_t, std::uint64_t> m;
  for (std::uint64_t k = 0; k < 50'000; ++k) ASSERT_TRUE(m.insert({k, k}).second);
  EXPECT_EQ(m.size(), 50'000U);
  EXPECT_GT(m.stats().growths, 0U);
}

// Keys placed in buckets 0 and 1 (with room for 2 * B) until the stash holds items.
using PlacedMap = CuckooMap<std::uint64_t, std::uint64_t, 4, cuckoo::test::PlacedHasher>;

PlacedMap map_with_stash() {
  cuckoo::test::PlacedHasher hasher;
  PlacedMap m(capped(64), hasher);
  for (std::uint64_t k = 1000; k < 1014; ++k) {
    hasher.place(k, PlacedMap::hash_for_buckets(0, 1, m.bucket_count()));
  }
  for (std::uint64_t k = 1000; k < 1014; ++k) {
    EXPECT_EQ(m.insert_outcome(k, k), InsertResult::kInserted) << k;
  }
  for (std::uint64_t k = 0; k < 30; ++k) EXPECT_EQ(m.insert_outcome(k, k), InsertResult::kInserted);
  EXPECT_EQ(m.stash_size(), 6U);
  EXPECT_EQ(m.check_invariants(), "");
  return m;
}

TEST(CuckooMapEraseByIterator, MovesNothingSoIterationVisitsEveryItemOnce) {
  PlacedMap m = map_with_stash();
  const std::size_t items = m.size();
  std::size_t visited = 0;
  for (auto it = m.begin(); it != m.end();) {
    ++visited;
    it = m.erase(it);
  }
  EXPECT_EQ(visited, items);
  EXPECT_TRUE(m.empty());
  EXPECT_EQ(m.stash_size(), 0U);
  EXPECT_EQ(m.check_invariants(), "");
}

TEST(CuckooMapEraseByIterator, EraseIfRemovesEveryMatchAndDrainsTheStash) {
  PlacedMap m = map_with_stash();
  // Every placed key (buckets 0, 1 and the stash) but the first two.
  EXPECT_EQ(erase_if(m, [](const auto& kv) { return kv.first >= 1002; }), 12U);
  EXPECT_EQ(m.size(), 32U);
  EXPECT_TRUE(m.contains(1000));
  EXPECT_TRUE(m.contains(1001));
  for (std::uint64_t k = 1002; k < 1014; ++k) EXPECT_FALSE(m.contains(k)) << k;
  EXPECT_EQ(m.check_invariants(), "");

  PlacedMap n = map_with_stash();
  // Keep the stashed keys (inserted last): they move back into buckets 0 and 1.
  EXPECT_EQ(erase_if(n, [](const auto& kv) { return kv.first >= 1000 && kv.first < 1008; }), 8U);
  EXPECT_EQ(n.stash_size(), 0U) << "erase_if left stashed items with room in their buckets";
  for (std::uint64_t k = 1008; k < 1014; ++k) EXPECT_EQ(n.at(k), k);
  EXPECT_EQ(n.check_invariants(), "");
}

TEST(CuckooMapEraseByIterator, ExtractFromTableAndStash) {
  PlacedMap m = map_with_stash();
  const std::size_t items = m.size();
  for (std::uint64_t k = 1008; k < 1014; ++k) {  // the stashed keys, then two table keys
    auto node = m.extract(k);
    ASSERT_FALSE(node.empty()) << k;
    EXPECT_EQ(node.key(), k);
    EXPECT_EQ(node.mapped(), k);
    EXPECT_EQ(m.check_invariants(), "") << "after extracting " << k;
  }
  EXPECT_EQ(m.stash_size(), 0U);
  auto first = m.extract(m.begin());
  EXPECT_FALSE(first.empty());
  EXPECT_EQ(m.size(), items - 7);
  EXPECT_EQ(m.check_invariants(), "");
  EXPECT_TRUE(m.insert(std::move(first)).inserted);
  EXPECT_EQ(m.size(), items - 6);
}

TEST(CuckooMapEraseByIterator, EraseRangeRemovesExactlyTheRange) {
  PlacedMap m = map_with_stash();
  std::vector<std::uint64_t> order;
  for (const auto& [k, v] : m) order.push_back(k);
  auto first = m.begin();
  std::advance(first, 5);
  auto last = first;
  std::advance(last, 30);  // into the stash
  const auto after = m.erase(first, last);
  ASSERT_TRUE(after != m.end());
  EXPECT_EQ(after->first, order[35]);
  EXPECT_EQ(m.size(), order.size() - 30);
  for (std::size_t i = 0; i < order.size(); ++i) {
    EXPECT_EQ(m.contains(order[i]), i < 5 || i >= 35) << "item " << i;
  }
  EXPECT_EQ(m.check_invariants(), "");
}

}  // namespace
