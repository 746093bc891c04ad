// CuckooMap as a C++ container user expects it: standard hashers with the
// seed mixed in, enum keys, heterogeneous lookup without building a key, allocators and
// their propagation, emplace / try_emplace / operator[] / at / count, mutable iteration.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "cuckoo/cuckoo_map.hpp"

namespace {

using cuckoo::CuckooMap;
using cuckoo::CuckooMapConfig;
using cuckoo::InsertResult;

CuckooMapConfig seeded(std::uint64_t seed, std::size_t initial = 64) {
  CuckooMapConfig c;
  c.seed = seed;
  c.initial_capacity = initial;
  return c;
}

// ---- Hashers ----------------------------------------------------------------------------

TEST(CuckooMapHashing, StandardHasherGetsTheSeedMixedIn) {
  // std::hash<uint64_t> is the identity on libstdc++: the engine's mix must spread it.
  static_assert(cuckoo::StandardHasherFor<std::hash<std::uint64_t>, std::uint64_t>);
  static_assert(!cuckoo::SeededHasherFor<std::hash<std::uint64_t>, std::uint64_t>);
  const std::hash<std::uint64_t> h;
  EXPECT_NE(cuckoo::seeded_hash(h, std::uint64_t{1}, 1), cuckoo::seeded_hash(h, std::uint64_t{1}, 2))
      << "the seed must change the hash";
  EXPECT_NE(cuckoo::seeded_hash(h, std::uint64_t{1}, 1) >> 32,
            cuckoo::seeded_hash(h, std::uint64_t{2}, 1) >> 32)
      << "neighbouring keys must differ in the high half (the first bucket's bits)";
  // A seeded hasher is called as it is.
  const cuckoo::DefaultHasher d;
  EXPECT_EQ(cuckoo::seeded_hash(d, std::uint64_t{5}, 9), d(std::uint64_t{5}, 9));

  CuckooMap<std::uint64_t, int, 4, std::hash<std::uint64_t>> map(seeded(3));
  for (std::uint64_t k = 0; k < 5000; ++k) ASSERT_EQ(map.insert_outcome(k, static_cast<int>(k)), InsertResult::kInserted);
  for (std::uint64_t k = 0; k < 5000; ++k) ASSERT_EQ(*map.find_value(k), static_cast<int>(k));
  EXPECT_EQ(map.check_invariants(), "");
  // Sequential keys under an identity hash would pile into few buckets without the mix:
  // the map would have needed many more doublings than the load requires.
  EXPECT_GT(map.load_factor(), 0.3);
}

// The absl::Hash shape: a callable template (absl is not a dependency of the tests).
struct AbslShapedHash {
  template <class T>
  std::size_t operator()(const T& v) const {
    return std::hash<T>{}(v) * 0x9e3779b97f4a7c15ULL;
  }
};

TEST(CuckooMapHashing, AbslShapedHasherAndStringKeys) {
  CuckooMap<std::string, int, 4, AbslShapedHash> map(seeded(5));
  for (int i = 0; i < 1000; ++i) ASSERT_EQ(map.insert_outcome("key" + std::to_string(i), i), InsertResult::kInserted);
  for (int i = 0; i < 1000; ++i) ASSERT_EQ(*map.find_value("key" + std::to_string(i)), i);
  EXPECT_FALSE(map.contains("absent"));
}

enum class Color : std::uint8_t { kRed, kGreen, kBlue };
enum Plain { kOne = 1, kTwo = 2 };

TEST(CuckooMapHashing, EnumKeys) {
  CuckooMap<Color, std::string> colors(seeded(1));
  EXPECT_EQ(colors.insert_outcome(Color::kRed, "red"), InsertResult::kInserted);
  EXPECT_EQ(colors.insert_outcome(Color::kBlue, "blue"), InsertResult::kInserted);
  EXPECT_EQ(*colors.find_value(Color::kBlue), "blue");
  EXPECT_FALSE(colors.contains(Color::kGreen));
  CuckooMap<Plain, int> plain(seeded(1));
  EXPECT_EQ(plain.insert_outcome(kTwo, 2), InsertResult::kInserted);
  EXPECT_TRUE(plain.contains(kTwo));
  EXPECT_EQ(cuckoo::DefaultHasher{}(Color::kBlue, 7), cuckoo::DefaultHasher{}(std::uint8_t{2}, 7));
}

// ---- Heterogeneous lookup ---------------------------------------------------------------

// Counts std::string constructions by the map's lookups: a key type that counts.
struct CountingString {
  static inline int constructions = 0;
  std::string s;
  CountingString(std::string v) : s(std::move(v)) { ++constructions; }  // NOLINT
  CountingString(const CountingString& o) : s(o.s) { ++constructions; }
  CountingString(CountingString&& o) noexcept : s(std::move(o.s)) {}
  CountingString& operator=(const CountingString&) = default;
  CountingString& operator=(CountingString&&) noexcept = default;
};
struct CountingHash {
  using is_transparent = void;
  std::uint64_t operator()(const CountingString& k, std::uint64_t seed) const {
    return cuckoo::DefaultHasher{}(std::string_view(k.s), seed);
  }
  std::uint64_t operator()(std::string_view k, std::uint64_t seed) const {
    return cuckoo::DefaultHasher{}(k, seed);
  }
};
struct CountingEq {
  using is_transparent = void;
  bool operator()(const CountingString& a, const CountingString& b) const { return a.s == b.s; }
  bool operator()(const CountingString& a, std::string_view b) const { return a.s == b; }
};

TEST(CuckooMapHeterogeneous, StringViewLookupBuildsNoKey) {
  CuckooMap<CountingString, int, 4, CountingHash, CountingEq> map(seeded(2));
  for (int i = 0; i < 100; ++i) {
    ASSERT_EQ(map.insert_outcome(CountingString("k" + std::to_string(i)), i), InsertResult::kInserted);
  }
  CountingString::constructions = 0;
  const std::string probe = "k42";
  EXPECT_EQ(*map.find_value(std::string_view(probe)), 42);
  EXPECT_TRUE(map.contains(std::string_view("k7")));
  EXPECT_FALSE(map.contains(std::string_view("nope")));
  EXPECT_EQ(map.count(std::string_view("k9")), 1U);
  EXPECT_EQ(map.at(std::string_view("k8")), 8);
  EXPECT_TRUE(map.erase(std::string_view("k3")));
  EXPECT_FALSE(map.contains(std::string_view("k3")));
  EXPECT_EQ(CountingString::constructions, 0) << "a heterogeneous lookup constructed a key";
}

template <class M, class Q>
concept CanFind = requires(M& m, const Q& q) { m.find_value(q); };

TEST(CuckooMapHeterogeneous, DefaultHasherWithTransparentEquality) {
  CuckooMap<std::string, int, 4, cuckoo::DefaultHasher, std::equal_to<>> map(seeded(4));
  ASSERT_EQ(map.insert_outcome("alpha", 1), InsertResult::kInserted);
  const std::string_view view = "alpha";
  ASSERT_NE(map.find_value(view), nullptr);
  EXPECT_EQ(*map.find_value(view), 1);
  EXPECT_TRUE(map.contains("alpha"));  // const char*
  // Without a transparent equality, only K is accepted (the standard containers' rule).
  using Opaque = CuckooMap<std::string, int, 4, cuckoo::DefaultHasher, std::equal_to<std::string>>;
  static_assert(!CanFind<Opaque, std::string_view>);
  static_assert(CanFind<Opaque, std::string>);
  static_assert(CanFind<Opaque, const char*>);  // converts to std::string, as in std maps
}

// ---- Allocators -------------------------------------------------------------------------

struct AllocationLog {
  std::size_t allocations = 0;
  std::size_t live_bytes = 0;
  std::size_t peak_bytes = 0;
};

template <class T, bool Propagate = false>
struct CountingAllocator {
  using value_type = T;
  using propagate_on_container_copy_assignment = std::bool_constant<Propagate>;
  using propagate_on_container_move_assignment = std::bool_constant<Propagate>;
  using propagate_on_container_swap = std::bool_constant<Propagate>;
  using is_always_equal = std::false_type;
  template <class U>
  struct rebind {
    using other = CountingAllocator<U, Propagate>;
  };

  std::shared_ptr<AllocationLog> log = std::make_shared<AllocationLog>();

  CountingAllocator() = default;
  template <class U>
  CountingAllocator(const CountingAllocator<U, Propagate>& o) : log(o.log) {}  // NOLINT

  T* allocate(std::size_t n) {
    ++log->allocations;
    log->live_bytes += n * sizeof(T);
    log->peak_bytes = std::max(log->peak_bytes, log->live_bytes);
    return std::allocator<T>{}.allocate(n);
  }
  void deallocate(T* p, std::size_t n) {
    log->live_bytes -= n * sizeof(T);
    std::allocator<T>{}.deallocate(p, n);
  }
  template <class U>
  bool operator==(const CountingAllocator<U, Propagate>& o) const {
    return log == o.log;
  }
};

TEST(CuckooMapAllocator, AllMemoryComesFromTheAllocatorAndReturnsToIt) {
  using Alloc = CountingAllocator<std::pair<const std::uint64_t, std::uint64_t>>;
  Alloc alloc;
  {
    CuckooMap<std::uint64_t, std::uint64_t, 4, cuckoo::DefaultHasher, std::equal_to<std::uint64_t>,
              Alloc>
        map(seeded(8), {}, {}, alloc);
    EXPECT_GT(alloc.log->allocations, 0U);
    for (std::uint64_t k = 0; k < 20'000; ++k) ASSERT_EQ(map.insert_outcome(k, k), InsertResult::kInserted);
    EXPECT_GT(map.stats().growths, 0U);
    EXPECT_EQ(alloc.log->live_bytes, map.memory_bytes())
        << "the slot array and occupancy bytes are the allocator's live bytes";
    EXPECT_GE(map.memory_bytes(), map.capacity() * sizeof(std::pair<std::uint64_t, std::uint64_t>));
    EXPECT_TRUE(map.get_allocator() == alloc);
    auto copy = map;  // select_on_container_copy_construction: the same allocator
    EXPECT_TRUE(copy.get_allocator() == alloc);
    EXPECT_EQ(alloc.log->live_bytes, 2 * map.memory_bytes());
  }
  EXPECT_EQ(alloc.log->live_bytes, 0U) << "every byte the map allocated is returned";
}

template <bool Propagate>
using PMap = CuckooMap<std::string, std::string, 4, cuckoo::DefaultHasher, std::equal_to<std::string>,
                       CountingAllocator<std::pair<const std::string, std::string>, Propagate>>;

TEST(CuckooMapAllocator, PropagationFollowsTheTraits) {
  using A0 = CountingAllocator<std::pair<const std::string, std::string>, false>;
  using A1 = CountingAllocator<std::pair<const std::string, std::string>, true>;
  {  // not propagating: assignments keep the target's allocator; a move between
     // unequal allocators moves the items one by one into the target's memory
    A0 a, b;
    PMap<false> x(seeded(1), {}, {}, a), y(seeded(2), {}, {}, b);
    for (int i = 0; i < 100; ++i) ASSERT_EQ(x.insert_outcome("k" + std::to_string(i), std::string(30, 'v')), InsertResult::kInserted);
    y = x;
    EXPECT_TRUE(y.get_allocator() == b);
    EXPECT_TRUE(y == x);
    PMap<false> z(seeded(3), {}, {}, b);
    z = std::move(x);
    EXPECT_TRUE(z.get_allocator() == b);
    EXPECT_EQ(z.size(), 100U);
    EXPECT_EQ(*z.find_value("k5"), std::string(30, 'v'));
    EXPECT_EQ(z.check_invariants(), "");
    EXPECT_EQ(x.size(), 0U);
    PMap<false> v(seeded(5), {}, {}, b);
    v = std::move(x);  // a moved-from source, unequal allocators: v ends empty and valid
    EXPECT_EQ(v.size(), 0U);
    EXPECT_EQ(v.check_invariants(), "");
    EXPECT_EQ(v.insert_outcome("k", "v"), InsertResult::kInserted);
    EXPECT_EQ(x.insert_outcome("again", "v"), InsertResult::kInserted);  // moved-from: usable
  }
  {  // propagating: the source's allocator comes along
    A1 a, b;
    PMap<true> x(seeded(1), {}, {}, a), y(seeded(2), {}, {}, b);
    ASSERT_EQ(x.insert_outcome("k", "v"), InsertResult::kInserted);
    y = x;
    EXPECT_TRUE(y.get_allocator() == a);
    PMap<true> z(seeded(3), {}, {}, b);
    z = std::move(y);
    EXPECT_TRUE(z.get_allocator() == a);
    EXPECT_EQ(*z.find_value("k"), "v");
    PMap<true> w(seeded(4), {}, {}, b);
    swap(w, z);
    EXPECT_TRUE(w.get_allocator() == a);
    EXPECT_TRUE(z.get_allocator() == b);
    EXPECT_EQ(*w.find_value("k"), "v");
  }
}

// ---- The container API ------------------------------------------------------------------

// A value that counts its constructions, to see try_emplace construct only when needed.
struct Tally {
  static inline int constructed = 0;
  int n;
  Tally(int a, int b) : n(a + b) { ++constructed; }
  Tally(Tally&& o) noexcept : n(o.n) {}
  Tally& operator=(Tally&&) noexcept = default;
};

TEST(CuckooMapApi, EmplaceTryEmplace) {
  CuckooMap<std::string, Tally> map(seeded(6));
  EXPECT_EQ(map.emplace_outcome(std::piecewise_construct, std::forward_as_tuple("a"),
                        std::forward_as_tuple(1, 2)),
            InsertResult::kInserted);
  EXPECT_EQ(map.find_value("a")->n, 3);
  Tally::constructed = 0;
  EXPECT_EQ(map.try_emplace_outcome("a", 10, 20), InsertResult::kExists);
  EXPECT_EQ(Tally::constructed, 0) << "try_emplace built a value for a present key";
  EXPECT_EQ(map.find_value("a")->n, 3);
  std::string key(40, 'k');
  EXPECT_EQ(map.try_emplace_outcome(std::move(key), 4, 5), InsertResult::kInserted);
  EXPECT_EQ(Tally::constructed, 1);
  EXPECT_EQ(map.find_value(std::string(40, 'k'))->n, 9);
}

TEST(CuckooMapApi, SubscriptAtCount) {
  CuckooMap<std::string, int> words(seeded(9));
  const char* text[] = {"a", "b", "a", "c", "a", "b"};
  for (const char* w : text) ++words[w];
  EXPECT_EQ(words["a"], 3);
  EXPECT_EQ(words.at("b"), 2);
  EXPECT_EQ(words.count("c"), 1U);
  EXPECT_EQ(words.count("z"), 0U);
  EXPECT_THROW(static_cast<void>(words.at("z")), std::out_of_range);
  const auto& cwords = words;
  EXPECT_EQ(cwords.at("c"), 1);
  // operator[] on a full map with an absent key has no result code: it throws.
  struct Same {
    std::uint64_t operator()(const std::string&, std::uint64_t) const { return 0; }
  };
  CuckooMapConfig one_bucket = seeded(1, 4);
  one_bucket.max_capacity = 4;
  CuckooMap<std::string, int, 4, Same> full(one_bucket);
  for (int i = 0; i < 12; ++i) ++full[std::to_string(i)];  // 4 slots + 8 stash
  EXPECT_THROW(++full["overflow"], std::length_error);
  EXPECT_EQ(full.size(), 12U);
  EXPECT_EQ(full.check_invariants(), "");
  // Through growth, stash and path inserts, operator[] returns the new item's value.
  CuckooMap<std::uint64_t, std::uint64_t> grow(seeded(2, 8));
  for (std::uint64_t k = 0; k < 3000; ++k) grow[k] = k * 3;
  for (std::uint64_t k = 0; k < 3000; ++k) ASSERT_EQ(*grow.find_value(k), k * 3) << k;
}

TEST(CuckooMapApi, MutableIteration) {
  CuckooMap<std::uint64_t, std::string> map(seeded(12));
  std::map<std::uint64_t, std::string> model;
  for (std::uint64_t k = 0; k < 500; ++k) {
    ASSERT_EQ(map.insert_outcome(k, "v"), InsertResult::kInserted);
    model[k] = "v";
  }
  for (auto& [k, v] : map) v += std::to_string(k);  // binds the stored pair
  for (auto&& [k, v] : map) v += "!";
  for (auto [k, v] : map) v += "lost";  // a copy, as with std::unordered_map
  for (auto it = map.begin(); it != map.end(); ++it) it->second += "?";
  for (auto& [k, v] : model) v += std::to_string(k) + "!?";
  std::size_t visited = 0;
  for (const auto& item : std::as_const(map)) {
    EXPECT_EQ(item.second, model.at(item.first));
    ++visited;
  }
  EXPECT_EQ(visited, model.size());
  // Keys are read-only through the iterator.
  static_assert(std::is_same_v<decltype(((*map.begin()).first)), const std::uint64_t&>);
  static_assert(std::is_same_v<decltype(((*map.begin()).second)), std::string&>);
  static_assert(std::is_same_v<decltype(*map.begin()), std::pair<const std::uint64_t, std::string>&>);
  // iterator converts to const_iterator.
  decltype(map)::const_iterator c = map.begin();
  EXPECT_TRUE(c == std::as_const(map).begin());
}

}  // namespace
