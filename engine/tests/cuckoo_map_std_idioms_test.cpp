// Code written for std::unordered_map and absl::flat_hash_map, compiled unchanged against
// CuckooMap: each test is an idiom a user reported not compiling (or behaving
// differently), written as it is written for the standard containers, with its answers
// checked. docs/map-api.md has the parity table these idioms come from.
#include <algorithm>
#include <cstdint>
#include <functional>
#include <iterator>
#include <map>
#include <memory>
#include <ranges>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "cuckoo/cuckoo_map.hpp"

namespace {

using cuckoo::CuckooMap;

// The map types the idioms run on, and the concepts the standard algorithms need.
using IntMap = CuckooMap<int, int>;
using StringMap = CuckooMap<std::string, int>;
static_assert(std::forward_iterator<IntMap::iterator>);
static_assert(std::forward_iterator<IntMap::const_iterator>);
static_assert(std::ranges::forward_range<IntMap>);
static_assert(std::ranges::forward_range<const IntMap>);
static_assert(std::is_same_v<IntMap::value_type, std::pair<const int, int>>);
static_assert(std::is_same_v<std::iter_reference_t<IntMap::iterator>, std::pair<const int, int>&>);
static_assert(std::is_same_v<std::iter_reference_t<IntMap::const_iterator>,
                             const std::pair<const int, int>&>);
static_assert(std::is_convertible_v<IntMap::iterator, IntMap::const_iterator>);

IntMap make_empty() { return {}; }

TEST(CuckooMapStdIdioms, DefaultConstructionIsNotExplicit) {
  IntMap m = {};
  EXPECT_TRUE(m.empty());
  EXPECT_TRUE(make_empty().empty());
  struct Holder {
    StringMap map = {};
  } holder;
  EXPECT_TRUE(holder.map.empty());
}

TEST(CuckooMapStdIdioms, InitializerListsAndRanges) {
  IntMap m = {{1, 10}, {2, 20}, {1, 99}};  // a repeated key keeps its first value
  EXPECT_EQ(m.size(), 2U);
  EXPECT_EQ(m.at(1), 10);
  m.insert({{3, 30}, {4, 40}});
  EXPECT_EQ(m.size(), 4U);
  const std::vector<std::pair<int, int>> items{{5, 50}, {6, 60}};
  m.insert(items.begin(), items.end());
  EXPECT_EQ(m.at(6), 60);
  IntMap from_iterators(items.begin(), items.end());
  EXPECT_EQ(from_iterators.size(), 2U);
  IntMap from_range(cuckoo::from_range, items);
  EXPECT_EQ(from_range.size(), 2U);
  from_range.insert_range(std::vector<std::pair<int, int>>{{7, 70}});
  EXPECT_EQ(from_range.at(7), 70);
  m = {{8, 80}};
  EXPECT_EQ(m.size(), 1U);
  EXPECT_EQ(m.at(8), 80);
  IntMap sized(1000);  // the bucket-count constructor: room for about that many
  EXPECT_GE(sized.capacity(), 1000U);
}

TEST(CuckooMapStdIdioms, InsertReturnsIteratorAndBool) {
  StringMap m;
  auto [it, inserted] = m.insert({"a", 1});
  EXPECT_TRUE(inserted);
  EXPECT_EQ(it->first, "a");
  EXPECT_EQ(it->second, 1);
  auto again = m.insert(std::make_pair(std::string("a"), 2));
  EXPECT_FALSE(again.second);
  EXPECT_EQ(again.first->second, 1);
  EXPECT_TRUE(m.emplace("b", 2).second);
  EXPECT_TRUE(m.try_emplace("c", 3).second);
  EXPECT_FALSE(m.try_emplace("c", 4).second);
  auto assigned = m.insert_or_assign("c", 5);
  EXPECT_FALSE(assigned.second);
  EXPECT_EQ(assigned.first->second, 5);
  EXPECT_EQ(m.emplace_hint(m.end(), "d", 4)->second, 4);
  EXPECT_EQ(m.insert(m.begin(), {"e", 5})->first, "e");
  EXPECT_EQ(m.size(), 5U);
}

TEST(CuckooMapStdIdioms, StdInserterAndCopy) {
  const std::map<int, int> source{{1, 1}, {2, 4}, {3, 9}};
  IntMap m;
  std::copy(source.begin(), source.end(), std::inserter(m, m.end()));
  EXPECT_EQ(m.size(), 3U);
  EXPECT_EQ(m.at(3), 9);
  std::vector<std::pair<int, int>> out;
  std::ranges::copy(m, std::back_inserter(out));
  std::ranges::sort(out);
  EXPECT_EQ(out, (std::vector<std::pair<int, int>>{{1, 1}, {2, 4}, {3, 9}}));
}

TEST(CuckooMapStdIdioms, FindComparesWithEnd) {
  IntMap m{{1, 10}};
  auto it = m.find(1);
  ASSERT_TRUE(it != m.end());
  it->second = 11;
  EXPECT_EQ(m.at(1), 11);
  EXPECT_TRUE(m.find(2) == m.end());
  const IntMap& cm = m;
  EXPECT_TRUE(cm.find(2) == cm.end());
  EXPECT_EQ(cm.find(1)->second, 11);
  auto [first, last] = m.equal_range(1);
  EXPECT_EQ(std::distance(first, last), 1);
  auto [none, none_end] = m.equal_range(2);
  EXPECT_TRUE(none == none_end);
  EXPECT_EQ(m.count(1), 1U);
  EXPECT_TRUE(m.contains(1));
}

TEST(CuckooMapStdIdioms, RangesAlgorithmsOnANonConstMap) {
  IntMap m;
  for (int k = 0; k < 100; ++k) m[k] = k * k;
  EXPECT_EQ(std::ranges::count_if(m, [](const auto& kv) { return kv.second % 2 == 0; }), 50);
  std::ranges::for_each(m, [](auto& kv) { kv.second += 1; });
  EXPECT_EQ(m.at(3), 10);
  auto found = std::ranges::find_if(m, [](const auto& kv) { return kv.first == 7; });
  ASSERT_NE(found, m.end());
  EXPECT_EQ(found->second, 50);
#if !defined(__clang__) || __clang_major__ >= 15
  // clang 14 with libstdc++ 12 rejects std::views::keys on std::unordered_map too.
  int key_sum = 0;
  for (int k : m | std::views::keys) key_sum += k;
  EXPECT_EQ(key_sum, 99 * 100 / 2);
  for (int& v : m | std::views::values) v = 0;
  EXPECT_TRUE(std::ranges::all_of(m, [](const auto& kv) { return kv.second == 0; }));
#endif
}

TEST(CuckooMapStdIdioms, StructuredBindingsBindOrCopy) {
  StringMap m{{"a", 1}, {"b", 2}};
  for (auto& [k, v] : m) v *= 10;  // binds: changes the map
  EXPECT_EQ(m.at("a"), 10);
  for (auto [k, v] : m) v = -1;  // copies, as with std::unordered_map
  EXPECT_EQ(m.at("a"), 10);
  EXPECT_EQ(m.at("b"), 20);
  for (const auto& [k, v] : m) EXPECT_EQ(v, k == "a" ? 10 : 20);
  for (auto&& [k, v] : m) v += 1;
  EXPECT_EQ(m.at("b"), 21);
}

TEST(CuckooMapStdIdioms, EraseForms) {
  IntMap m;
  for (int k = 0; k < 50; ++k) m.emplace(k, k);
  EXPECT_EQ(m.erase(3), 1U);
  EXPECT_EQ(m.erase(3), 0U);
  EXPECT_EQ(erase_if(m, [](const auto& kv) { return kv.first % 2 == 0; }), 25U);
  EXPECT_EQ(m.size(), 24U);
  for (auto it = m.begin(); it != m.end();) {  // the erase-while-iterating idiom
    if (it->first > 40) {
      it = m.erase(it);
    } else {
      ++it;
    }
  }
  EXPECT_EQ(m.size(), 19U);  // the odd keys up to 39 but 3
  m.erase(m.begin(), m.end());
  EXPECT_TRUE(m.empty());
}

TEST(CuckooMapStdIdioms, StringViewAndLiteralLookupOnStringKeys) {
  StringMap m{{"alpha", 1}};
  const std::string_view view = "alpha";
  EXPECT_TRUE(m.find(view) != m.end());
  EXPECT_TRUE(m.contains("alpha"));
  EXPECT_EQ(m.count(view), 1U);
  EXPECT_EQ(m.at(view), 1);
  EXPECT_EQ(m["alpha"], 1);
  EXPECT_EQ(m.erase(view), 1U);
  EXPECT_TRUE(m.empty());
  static_assert(std::is_same_v<StringMap::key_equal, std::equal_to<>>);
}

TEST(CuckooMapStdIdioms, MoveOnlyValues) {
  CuckooMap<int, std::unique_ptr<int>> m;
  const int key = 1;  // an lvalue key with an rvalue move-only value
  EXPECT_TRUE(m.insert(key, std::make_unique<int>(10)).second);
  EXPECT_TRUE(m.emplace(2, std::make_unique<int>(20)).second);
  EXPECT_TRUE(m.try_emplace(key + 2, std::make_unique<int>(30)).second);
  m[4] = std::make_unique<int>(40);
  EXPECT_FALSE(m.insert_or_assign(key, std::make_unique<int>(11)).second);
  EXPECT_EQ(*m.at(1), 11);
  auto node = m.extract(2);
  ASSERT_FALSE(node.empty());
  EXPECT_EQ(*node.mapped(), 20);
  node.key() = 5;
  auto result = m.insert(std::move(node));
  EXPECT_TRUE(result.inserted);
  EXPECT_EQ(*result.position->second, 20);
  CuckooMap<int, std::unique_ptr<int>> moved = std::move(m);
  EXPECT_EQ(moved.size(), 4U);
  EXPECT_EQ(*moved.at(5), 20);
}

struct Point {
  int x = 0;
  int y = 0;
  friend bool operator==(const Point&, const Point&) = default;
};

}  // namespace

template <>
struct std::hash<Point> {
  std::size_t operator()(const Point& p) const noexcept {
    return std::hash<int>{}(p.x) * 31 + std::hash<int>{}(p.y);
  }
};

namespace {

TEST(CuckooMapStdIdioms, StdHashSpecializationIsTheDefault) {
  CuckooMap<Point, int> m;
  for (int i = 0; i < 500; ++i) m[Point{i, -i}] = i;
  EXPECT_EQ(m.size(), 500U);
  EXPECT_EQ(m.at(Point{7, -7}), 7);
  EXPECT_EQ(m.check_invariants(), "");
  // The user's hash, with the seed mixed in exactly as for any standard-shaped hasher.
  const Point p{3, 4};
  EXPECT_EQ(cuckoo::DefaultHasher{}(p, 99),
            cuckoo::seeded_hash(std::hash<Point>{}, p, 99));
  EXPECT_NE(cuckoo::DefaultHasher{}(p, 99), cuckoo::DefaultHasher{}(p, 100));
}

#if CUCKOO_HAS_ABSL_HASH
struct Color {
  int r = 0;
  int g = 0;
  friend bool operator==(const Color&, const Color&) = default;
  template <class H>
  friend H AbslHashValue(H h, const Color& c) {
    return H::combine(std::move(h), c.r, c.g);
  }
};

TEST(CuckooMapStdIdioms, AbslHashValueIsTheDefaultWhenAbseilIsAvailable) {
  CuckooMap<Color, int> m;
  for (int i = 0; i < 300; ++i) m[Color{i, i + 1}] = i;
  EXPECT_EQ(m.size(), 300U);
  EXPECT_EQ(m.at(Color{5, 6}), 5);
  EXPECT_EQ(cuckoo::DefaultHasher{}(Color{1, 2}, 7),
            cuckoo::seeded_hash(absl::Hash<Color>{}, Color{1, 2}, 7));
}
#endif

TEST(CuckooMapStdIdioms, KnownTypesKeepTheirHashValues) {
  // Serialized maps and filters depend on these: integers through the 64-bit mixer,
  // strings through XXH3 with the seed.
  EXPECT_EQ(cuckoo::DefaultHasher{}(std::uint64_t{5}, 9),
            cuckoo::detail::mix64(cuckoo::detail::mix64(std::uint64_t{5} ^ 9) +
                                  0x9e3779b97f4a7c15ULL));
  EXPECT_EQ(cuckoo::DefaultHasher{}(std::string("abc"), 9),
            XXH3_64bits_withSeed("abc", 3, 9));
}

TEST(CuckooMapStdIdioms, BucketInterfaceAndLoad) {
  IntMap m;
  for (int k = 0; k < 100; ++k) m.emplace(k, k);
  EXPECT_GT(m.bucket_count(), 0U);
  EXPECT_GT(m.load_factor(), 0.0);
  EXPECT_LE(m.load_factor(), m.max_load_factor());
  EXPECT_FLOAT_EQ(m.max_load_factor(), 0.9F);
  m.max_load_factor(0.5F);  // the load reserve() and growth plan for from now on
  EXPECT_FLOAT_EQ(m.max_load_factor(), 0.5F);
  m.rehash(4096);
  EXPECT_GE(m.capacity(), 4096U);
  m.reserve(10'000);
  EXPECT_GE(m.capacity(), 10'000U);
  m.rehash(0);  // shrink to fit what is stored
  EXPECT_LT(m.capacity(), 4096U);
  EXPECT_GE(m.capacity() * IntMap::kReserveLoadPercent, m.size() * 100);
  EXPECT_EQ(m.size(), 100U);
  for (int k = 0; k < 100; ++k) EXPECT_EQ(m.at(k), k);
  EXPECT_GE(m.max_size(), m.capacity());
}

TEST(CuckooMapStdIdioms, MergeMovesWhatIsAbsent) {
  IntMap a{{1, 1}, {2, 2}};
  IntMap b{{2, 20}, {3, 30}};
  a.merge(b);
  EXPECT_EQ(a.size(), 3U);
  EXPECT_EQ(a.at(2), 2);
  EXPECT_EQ(a.at(3), 30);
  ASSERT_EQ(b.size(), 1U);  // the present key stays in the source
  EXPECT_EQ(b.at(2), 20);
}

}  // namespace
