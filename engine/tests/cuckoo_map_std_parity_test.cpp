// One typed suite, run against std::unordered_map, CuckooMap (B = 4 and B = 1) and, when
// abseil is installed, absl::flat_hash_map: the same calls must give the same observable
// answers (return values, sizes, contents, exceptions). Where the peers differ among
// themselves (absl's erase(iterator) returns void) the case uses the form all accept.
// The randomized case is seeded and prints its seed and the line that reproduces it.
#include <algorithm>
#include <cstdint>
#include <map>
#include <random>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "cuckoo/cuckoo_map.hpp"
#include "support/test_seed.hpp"

#if CUCKOO_TEST_HAVE_ABSL
#include <absl/container/flat_hash_map.h>
#endif

namespace {

template <class M>
class MapParity : public ::testing::Test {};

using Maps = ::testing::Types<std::unordered_map<std::string, int>,
                              cuckoo::CuckooMap<std::string, int>,
                              cuckoo::CuckooMap<std::string, int, 1>
#if CUCKOO_TEST_HAVE_ABSL
                              ,
                              absl::flat_hash_map<std::string, int>
#endif
                              >;
TYPED_TEST_SUITE(MapParity, Maps);

// The contents, sorted: the peers iterate in different orders.
template <class M>
std::map<std::string, int> contents(const M& m) {
  std::map<std::string, int> out;
  for (const auto& [k, v] : m) {
    EXPECT_TRUE(out.emplace(k, v).second) << "key " << k << " visited twice";
  }
  EXPECT_EQ(out.size(), m.size());
  return out;
}

TYPED_TEST(MapParity, InsertFormsReturnTheItemAndWhetherInserted) {
  TypeParam m;
  auto r1 = m.insert({"a", 1});
  EXPECT_TRUE(r1.second);
  EXPECT_EQ(r1.first->first, "a");
  auto r2 = m.insert(std::make_pair(std::string("a"), 2));
  EXPECT_FALSE(r2.second);
  EXPECT_EQ(r2.first->second, 1);
  const typename TypeParam::value_type item{"b", 2};
  EXPECT_TRUE(m.insert(item).second);
  EXPECT_FALSE(m.emplace("b", 3).second);
  EXPECT_TRUE(m.try_emplace("c", 3).second);
  EXPECT_FALSE(m.try_emplace("c", 4).second);
  auto assigned = m.insert_or_assign("c", 5);
  EXPECT_FALSE(assigned.second);
  EXPECT_EQ(assigned.first->second, 5);
  auto fresh = m.insert_or_assign("d", 6);
  EXPECT_TRUE(fresh.second);
  EXPECT_EQ(m.emplace_hint(m.end(), "e", 7)->second, 7);
  EXPECT_EQ(m.insert(m.end(), {"e", 8})->second, 7);
  EXPECT_EQ(contents(m),
            (std::map<std::string, int>{{"a", 1}, {"b", 2}, {"c", 5}, {"d", 6}, {"e", 7}}));
}

TYPED_TEST(MapParity, SubscriptAtFindCount) {
  TypeParam m;
  EXPECT_EQ(m["x"], 0);
  m["x"] += 2;
  EXPECT_EQ(m.at("x"), 2);
  EXPECT_THROW((void)m.at("y"), std::out_of_range);
  EXPECT_TRUE(m.find("y") == m.end());
  EXPECT_TRUE(m.find("x") != m.end());
  EXPECT_EQ(m.count("x"), 1U);
  EXPECT_EQ(m.count("y"), 0U);
  EXPECT_TRUE(m.contains("x"));
  auto [first, last] = m.equal_range("x");
  EXPECT_EQ(std::distance(first, last), 1);
  auto [none, none_end] = m.equal_range("y");
  EXPECT_TRUE(none == none_end);
  EXPECT_EQ(m.size(), 1U);
}

TYPED_TEST(MapParity, RangeAndListConstructionKeepTheFirstOfRepeatedKeys) {
  const std::vector<std::pair<std::string, int>> items{{"a", 1}, {"b", 2}, {"a", 3}};
  TypeParam from_range(items.begin(), items.end());
  EXPECT_EQ(contents(from_range), (std::map<std::string, int>{{"a", 1}, {"b", 2}}));
  TypeParam from_list{{"k", 1}, {"k", 2}, {"j", 3}};
  EXPECT_EQ(contents(from_list), (std::map<std::string, int>{{"j", 3}, {"k", 1}}));
  from_list.insert({{"z", 26}, {"k", 9}});
  EXPECT_EQ(contents(from_list), (std::map<std::string, int>{{"j", 3}, {"k", 1}, {"z", 26}}));
  from_list = {{"only", 1}};
  EXPECT_EQ(contents(from_list), (std::map<std::string, int>{{"only", 1}}));
}

TYPED_TEST(MapParity, EraseFormsAndEraseIf) {
  TypeParam m;
  for (int i = 0; i < 200; ++i) m.emplace("k" + std::to_string(i), i);
  EXPECT_EQ(m.erase("k0"), 1U);
  EXPECT_EQ(m.erase("k0"), 0U);
  EXPECT_EQ(erase_if(m, [](const auto& kv) { return kv.second % 3 == 0; }), 66U);
  std::size_t visited = 0;
  for (auto it = m.begin(); it != m.end();) {  // erase(it++): the form all peers accept
    ++visited;
    if (it->second % 2 == 0) {
      m.erase(it++);
    } else {
      ++it;
    }
  }
  EXPECT_EQ(visited, 133U) << "erasing while iterating visits every item once";
  std::map<std::string, int> expected;
  for (int i = 1; i < 200; ++i) {
    if (i % 3 != 0 && i % 2 != 0) expected.emplace("k" + std::to_string(i), i);
  }
  EXPECT_EQ(contents(m), expected);
  auto last = m.erase(m.begin(), m.end());
  EXPECT_TRUE(last == m.end());
  EXPECT_TRUE(m.empty());
}

TYPED_TEST(MapParity, NodeHandlesAndMerge) {
  TypeParam m{{"a", 1}, {"b", 2}};
  auto node = m.extract("a");
  ASSERT_FALSE(node.empty());
  EXPECT_EQ(node.key(), "a");
  EXPECT_EQ(node.mapped(), 1);
  EXPECT_EQ(m.size(), 1U);
  EXPECT_TRUE(m.extract("absent").empty());
  node.key() = "b";  // present: the node keeps its item
  auto refused = m.insert(std::move(node));
  EXPECT_FALSE(refused.inserted);
  ASSERT_FALSE(refused.node.empty());
  EXPECT_EQ(refused.position->second, 2);
  refused.node.key() = "c";
  auto accepted = m.insert(std::move(refused.node));
  EXPECT_TRUE(accepted.inserted);
  EXPECT_TRUE(accepted.node.empty());
  EXPECT_EQ(accepted.position->second, 1);
  TypeParam other{{"b", 20}, {"d", 4}};
  m.merge(other);
  EXPECT_EQ(contents(m), (std::map<std::string, int>{{"b", 2}, {"c", 1}, {"d", 4}}));
  EXPECT_EQ(contents(other), (std::map<std::string, int>{{"b", 20}}));
}

TYPED_TEST(MapParity, CopiesMovesSwapsAndEquality) {
  TypeParam a{{"a", 1}, {"b", 2}};
  TypeParam b = a;
  EXPECT_TRUE(a == b);
  b["a"] = 5;
  EXPECT_FALSE(a == b);
  TypeParam c = std::move(b);
  EXPECT_EQ(c.at("a"), 5);
  swap(a, c);
  EXPECT_EQ(a.at("a"), 5);
  EXPECT_EQ(c.at("a"), 1);
  for (auto [k, v] : c) v = 100;  // a copy: the map keeps its values
  EXPECT_EQ(c.at("a"), 1);
  c.clear();
  EXPECT_TRUE(c.empty());
  EXPECT_TRUE(c.begin() == c.end());
}

// A seeded random sequence of the standard calls, the answers compared with std::map's.
TYPED_TEST(MapParity, RandomCallsAnswerAsAnOrderedMap) {
  const std::uint64_t seed = cuckoo::test::test_seed(20260127);
  SCOPED_TRACE(cuckoo::test::seed_note(seed, "cuckoo_map_std_parity_test"));
  std::mt19937_64 rng(seed);
  TypeParam m;
  std::map<std::string, int> model;
  for (int step = 0; step < 20'000; ++step) {
    const std::string key = "k" + std::to_string(rng() % 500);
    const int value = static_cast<int>(rng() % 1000);
    switch (rng() % 8) {
      case 0:
        ASSERT_EQ(m.insert({key, value}).second, model.insert({key, value}).second) << step;
        break;
      case 1:
        ASSERT_EQ(m.try_emplace(key, value).second, model.try_emplace(key, value).second);
        break;
      case 2:
        ASSERT_EQ(m.insert_or_assign(key, value).second,
                  model.insert_or_assign(key, value).second);
        break;
      case 3: ASSERT_EQ(m.erase(key), model.erase(key)) << step; break;
      case 4: {
        const auto it = m.find(key);
        const auto mit = model.find(key);
        ASSERT_EQ(it == m.end(), mit == model.end()) << step;
        if (mit != model.end()) {
          ASSERT_EQ(it->second, mit->second) << step;
        }
        break;
      }
      case 5: m[key] += value; model[key] += value; break;
      case 6: ASSERT_EQ(m.count(key), model.count(key)) << step; break;
      default: {
        const int cut = static_cast<int>(rng() % 1000);
        ASSERT_EQ(erase_if(m, [&](const auto& kv) { return kv.second < cut / 50; }),
                  std::erase_if(model, [&](const auto& kv) { return kv.second < cut / 50; }));
      }
    }
    ASSERT_EQ(m.size(), model.size()) << step;
    if (step % 1000 == 0) {
      ASSERT_EQ(contents(m), model) << step;
    }
  }
  EXPECT_EQ(contents(m), model);
}

}  // namespace
