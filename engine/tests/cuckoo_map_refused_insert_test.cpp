// CuckooMap: an insert that is refused (kFull) or finds its key present (kExists) leaves
// the caller's arguments as they were, in every form that takes them (insert and
// insert_or_assign by rvalue, try_emplace with the key by reference or by rvalue,
// emplace in its decomposable forms) and in every way an insert can be refused: the
// table and stash full at max_capacity, growth tried at the growth load and impossible
// (no rebuild places the keys), std::bad_alloc from the allocator during growth, and a
// moved-from map whose first table cannot be allocated. The value is a std::unique_ptr
// (move-only: a consumed one is null) and the key records whether it was moved from.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <new>
#include <string>
#include <tuple>
#include <utility>

#include "cuckoo/cuckoo_map.hpp"

namespace {

using cuckoo::CuckooMapConfig;
using cuckoo::InsertResult;

// A key that records whether it was moved from.
struct TrackedKey {
  std::uint64_t id = 0;
  bool moved_from = false;

  explicit TrackedKey(std::uint64_t i) : id(i) {}
  TrackedKey(const TrackedKey& other) : id(other.id) {}
  TrackedKey(TrackedKey&& other) noexcept : id(other.id) { other.moved_from = true; }
  TrackedKey& operator=(const TrackedKey& other) {
    id = other.id;
    return *this;
  }
  TrackedKey& operator=(TrackedKey&& other) noexcept {
    id = other.id;
    other.moved_from = true;
    return *this;
  }
  friend bool operator==(const TrackedKey& a, const TrackedKey& b) { return a.id == b.id; }
};

// Keys from kColliding on all hash alike: at every size and seed they share two buckets,
// so no growth can separate them. Other keys hash as DefaultHasher hashes their id.
constexpr std::uint64_t kColliding = 1'000'000;
struct TrackedHasher {
  std::uint64_t operator()(const TrackedKey& key, std::uint64_t seed) const {
    return key.id >= kColliding ? 0x0123456789abcdefULL : cuckoo::DefaultHasher{}(key.id, seed);
  }
};

// An allocator that throws std::bad_alloc while its shared switch is on.
struct AllocationSwitch {
  bool fail = false;
  std::size_t refusals = 0;
};
template <class T>
struct SwitchedAllocator {
  using value_type = T;
  std::shared_ptr<AllocationSwitch> state = std::make_shared<AllocationSwitch>();

  SwitchedAllocator() = default;
  // Copies only: a moved-from allocator must still equal the one it was moved to.
  SwitchedAllocator(const SwitchedAllocator&) = default;
  SwitchedAllocator& operator=(const SwitchedAllocator&) = default;
  template <class U>
  SwitchedAllocator(const SwitchedAllocator<U>& other) : state(other.state) {}  // NOLINT
  T* allocate(std::size_t n) {
    if (state->fail) {
      ++state->refusals;
      throw std::bad_alloc();
    }
    return std::allocator<T>{}.allocate(n);
  }
  void deallocate(T* p, std::size_t n) { std::allocator<T>{}.deallocate(p, n); }
  template <class U>
  bool operator==(const SwitchedAllocator<U>& other) const {
    return state == other.state;
  }
};

using Value = std::unique_ptr<std::uint64_t>;
using Alloc = SwitchedAllocator<std::pair<const TrackedKey, Value>>;
template <unsigned B>
using Map =
    cuckoo::CuckooMap<TrackedKey, Value, B, TrackedHasher, std::equal_to<TrackedKey>, Alloc>;

CuckooMapConfig config(std::size_t initial, std::size_t max_capacity) {
  CuckooMapConfig c;
  c.initial_capacity = initial;
  c.max_capacity = max_capacity;
  c.seed = 17;
  return c;
}

Value value_of(std::uint64_t id) { return std::make_unique<std::uint64_t>(id); }

// The arguments of one insert call, checked after it.
struct Arguments {
  TrackedKey key;
  Value value;
  explicit Arguments(std::uint64_t id) : key(id), value(value_of(id)) {}
};

void expect_untouched(const Arguments& args, std::uint64_t id, const std::string& form) {
  EXPECT_FALSE(args.key.moved_from) << form << " moved from the key";
  EXPECT_EQ(args.key.id, id) << form;
  ASSERT_NE(args.value, nullptr) << form << " took the value";
  EXPECT_EQ(*args.value, id) << form;
}

// Every insert form that takes a value, called for key `id` on map; each must answer
// `expected` (kFull or kExists) and leave its arguments and the map as they were.
template <class M>
void expect_every_form_changes_nothing(M& map, std::uint64_t id, InsertResult expected) {
  const std::size_t size = map.size();
  const bool present = map.contains(TrackedKey(id));
  const auto check = [&](InsertResult result, const Arguments& args, const std::string& form) {
    EXPECT_EQ(result, expected) << form;
    expect_untouched(args, id, form);
    EXPECT_EQ(map.size(), size) << form;
    EXPECT_EQ(map.contains(TrackedKey(id)), present) << form;
  };
  {
    Arguments a(id);
    check(map.insert_outcome(std::move(a.key), std::move(a.value)), a, "insert(K&&, V&&)");
  }
  if (expected == InsertResult::kFull) {  // insert_or_assign updates a present key
    Arguments a(id);
    check(map.insert_or_assign_outcome(std::move(a.key), std::move(a.value)), a,
          "insert_or_assign(K&&, V&&)");
  }
  {
    Arguments a(id);
    check(map.try_emplace_outcome(std::move(a.key), std::move(a.value)), a, "try_emplace(K&&, V&&)");
  }
  {
    Arguments a(id);
    check(map.try_emplace_outcome(std::as_const(a.key), std::move(a.value)), a,
          "try_emplace(const K&, V&&)");
  }
  {
    Arguments a(id);
    check(map.emplace_outcome(std::move(a.key), std::move(a.value)), a, "emplace(K&&, V&&)");
  }
  {
    std::pair<TrackedKey, Value> item(TrackedKey(id), value_of(id));
    Arguments a(id);
    const InsertResult r = map.emplace_outcome(std::move(item));
    a.key.moved_from = item.first.moved_from;
    a.value = std::move(item.second);
    check(r, a, "emplace(std::pair&&)");
  }
  {
    Arguments a(id);
    check(map.emplace_outcome(std::piecewise_construct, std::forward_as_tuple(std::move(a.key)),
                      std::forward_as_tuple(std::move(a.value))),
          a, "emplace(piecewise_construct, ...)");
  }
  EXPECT_EQ(map.check_invariants(), "");
}

// A successful insert still takes its arguments (and stores the value).
template <class M>
void expect_try_emplace_stores(M& map, std::uint64_t id) {
  Arguments a(id);
  ASSERT_EQ(map.try_emplace_outcome(std::move(a.key), std::move(a.value)), InsertResult::kInserted);
  EXPECT_TRUE(a.key.moved_from);
  EXPECT_EQ(a.value, nullptr);
  const Value* stored = map.find_value(TrackedKey(id));
  ASSERT_NE(stored, nullptr);
  ASSERT_NE(*stored, nullptr);
  EXPECT_EQ(**stored, id);
}

// The table and its stash full at max_capacity: one bucket of 4 slots, 8 stash slots.
TEST(CuckooMapRefusedInsert, FullAtMaxCapacityTakesNoArgument) {
  Map<4> map(config(4, 4));
  std::uint64_t id = kColliding;
  for (; map.size() < 4 + Map<4>::kStashSlots; ++id) expect_try_emplace_stores(map, id);
  ASSERT_GE(map.load_factor() * 100, Map<4>::kGrowLoadPercent);
  expect_every_form_changes_nothing(map, id, InsertResult::kFull);
  expect_every_form_changes_nothing(map, 7, InsertResult::kFull);  // an ordinary key
  // Present keys: kExists, nothing taken either.
  expect_every_form_changes_nothing(map, kColliding, InsertResult::kExists);
  EXPECT_GT(map.stats().full_rejections, 0U);
}

// At the growth load with room to grow, a key whose two buckets and the stash are full
// of keys hashing alike: growth is tried first, no rebuild can place those keys, and
// the search and the stash find no room either, so the insert is refused.
template <unsigned B>
void growth_impossible() {
  SCOPED_TRACE("SlotsPerBucket=" + std::to_string(B));
  Map<B> map(config(8 * B, 1 << 12));
  std::uint64_t id = kColliding;
  // The two shared buckets, then the stash (growing on the way: a rebuild places them).
  while (map.size() < 2 * B + Map<B>::kStashSlots) expect_try_emplace_stores(map, id++);
  // Other keys fill the rest of the table up to the growth load.
  for (std::uint64_t k = 1; map.load_factor() * 100 < Map<B>::kGrowLoadPercent; ++k) {
    ASSERT_LT(k, 100'000U) << "the table never reached the growth load";
    expect_try_emplace_stores(map, k);
  }
  ASSERT_EQ(map.stash_size(), Map<B>::kStashSlots);
  ASSERT_LT(map.capacity(), map.config().max_capacity);
  const cuckoo::CuckooMapStats before = map.stats();
  {
    Arguments a(id);
    EXPECT_EQ(map.try_emplace_outcome(std::move(a.key), std::move(a.value)), InsertResult::kFull);
    expect_untouched(a, id, "try_emplace(K&&, V&&) with growth impossible");
  }
  // The insert's own search fails once; each rebuild it tried failed a search too.
  EXPECT_GT(map.stats().bfs_failures, before.bfs_failures + 1) << "growth was not tried";
  EXPECT_EQ(map.stats().growths, before.growths);
  expect_every_form_changes_nothing(map, id, InsertResult::kFull);
}
TEST(CuckooMapRefusedInsert, GrowthImpossibleTakesNoArgumentB4) { growth_impossible<4>(); }
TEST(CuckooMapRefusedInsert, GrowthImpossibleTakesNoArgumentB1) { growth_impossible<1>(); }

// std::bad_alloc from the allocator whenever the map tries to grow: inserts go on while
// a bucket, a cuckoo path or the stash has room; the first refused one keeps its
// arguments, and so does every form after it.
template <unsigned B>
void allocation_fails_during_growth() {
  SCOPED_TRACE("SlotsPerBucket=" + std::to_string(B));
  Alloc alloc;
  Map<B> map(config(8 * B, 1 << 14), {}, {}, alloc);
  alloc.state->fail = true;
  std::uint64_t id = 1;
  for (;; ++id) {
    ASSERT_LT(id, 10'000U) << "no insert was refused with the allocator failing";
    Arguments a(id);
    const InsertResult r = map.try_emplace_outcome(std::move(a.key), std::move(a.value));
    if (r == InsertResult::kInserted) continue;
    ASSERT_EQ(r, InsertResult::kFull);
    expect_untouched(a, id, "try_emplace(K&&, V&&) refused on std::bad_alloc");
    break;
  }
  EXPECT_GT(alloc.state->refusals, 0U) << "the refusal was not an allocation failure";
  EXPECT_EQ(map.stats().growths, 0U);
  expect_every_form_changes_nothing(map, id, InsertResult::kFull);
  // With memory back, the same key goes in (growing), and every earlier item is there.
  alloc.state->fail = false;
  expect_try_emplace_stores(map, id);
  EXPECT_GT(map.stats().growths, 0U);
  for (std::uint64_t k = 1; k <= id; ++k) {
    const Value* v = map.find_value(TrackedKey(k));
    ASSERT_NE(v, nullptr) << k;
    EXPECT_EQ(**v, k);
  }
}
TEST(CuckooMapRefusedInsert, AllocationFailureDuringGrowthTakesNoArgumentB4) {
  allocation_fails_during_growth<4>();
}
TEST(CuckooMapRefusedInsert, AllocationFailureDuringGrowthTakesNoArgumentB1) {
  allocation_fails_during_growth<1>();
}

// A moved-from map allocates its first table on the next insert; when that allocation
// fails the insert is refused and takes nothing.
TEST(CuckooMapRefusedInsert, MovedFromMapThatCannotAllocateTakesNoArgument) {
  Alloc alloc;
  Map<4> map(config(64, 1 << 12), {}, {}, alloc);
  expect_try_emplace_stores(map, 1);
  Map<4> taken(std::move(map));
  ASSERT_EQ(map.capacity(), 0U);  // NOLINT(bugprone-use-after-move): moved-from is valid
  alloc.state->fail = true;
  expect_every_form_changes_nothing(map, 2, InsertResult::kFull);
  EXPECT_GT(alloc.state->refusals, 0U);
  alloc.state->fail = false;
  expect_try_emplace_stores(map, 2);
  EXPECT_EQ(**taken.find_value(TrackedKey(1)), 1U);
}

// A value whose constructor from its arguments can throw is built only once the insert
// has a place, so a refused try_emplace does not consume an rvalue argument either.
struct Labelled {
  Value value;
  std::string label;
  Labelled(Value&& v, const char* text) : value(std::move(v)), label(text) {}
};
TEST(CuckooMapRefusedInsert, ThrowingValueConstructorTakesNoArgumentWhenFull) {
  using LMap = cuckoo::CuckooMap<TrackedKey, Labelled, 4, TrackedHasher>;
  static_assert(!std::is_nothrow_constructible_v<Labelled, Value&&, const char*>);
  LMap map(config(4, 4));
  std::uint64_t id = kColliding;
  for (; map.size() < 4 + LMap::kStashSlots; ++id) {
    ASSERT_EQ(map.try_emplace_outcome(TrackedKey(id), value_of(id), "stored"), InsertResult::kInserted);
  }
  Arguments a(id);
  ASSERT_EQ(map.try_emplace_outcome(std::move(a.key), std::move(a.value), "refused"), InsertResult::kFull);
  expect_untouched(a, id, "try_emplace(K&&, Value&&, const char*)");
  // With room (a map that grows), the same call stores it, through the slow paths too.
  LMap grows(config(4, 1 << 12));
  for (std::uint64_t k = kColliding; k < kColliding + 12; ++k) {
    ASSERT_EQ(grows.try_emplace_outcome(TrackedKey(k), value_of(k), "x"), InsertResult::kInserted);
  }
  for (std::uint64_t k = 0; k < 300; ++k) {
    ASSERT_EQ(grows.try_emplace_outcome(TrackedKey(k), value_of(k), "y"), InsertResult::kInserted);
  }
  EXPECT_EQ(grows.check_invariants(), "");
  for (std::uint64_t k = 0; k < 300; ++k) ASSERT_EQ(*grows.find_value(TrackedKey(k))->value, k);
}

// A value whose construction throws std::bad_alloc while `fail` is set: the insert is
// refused (kFull) on every path it takes (fast path, cuckoo path, stash, growth) and the
// caller's key, an rvalue, is not moved from (std::pair builds its key first, so the map
// must build such a value before it moves the key).
struct Fragile {
  static inline bool fail = false;
  std::uint64_t n;
  explicit Fragile(std::uint64_t v) : n(v) {
    if (fail) throw std::bad_alloc();
  }
  Fragile(Fragile&&) noexcept = default;
  Fragile& operator=(Fragile&&) noexcept = default;
};
TEST(CuckooMapRefusedInsert, ValueConstructorBadAllocLeavesTheKeyOnEveryPath) {
  using FMap = cuckoo::CuckooMap<TrackedKey, Fragile, 4, TrackedHasher>;
  FMap map(config(8, 1 << 14));
  std::uint64_t refusals = 0;
  // Ordinary keys, and now and then one of the colliding keys, which need the stash and
  // cuckoo paths and make the map grow.
  for (std::uint64_t n = 1; n <= 600; ++n) {
    const std::uint64_t id = n % 50 == 0 && n / 50 <= 12 ? kColliding + n / 50 : n;
    const FMap::size_type size = map.size();
    Fragile::fail = true;
    TrackedKey key(id);
    const InsertResult refused = map.try_emplace_outcome(std::move(key), id);
    TrackedKey other(id);
    const InsertResult emplaced = map.emplace_outcome(std::move(other), id);
    Fragile::fail = false;
    ASSERT_EQ(refused, InsertResult::kFull) << id;
    ASSERT_EQ(emplaced, InsertResult::kFull) << id;
    EXPECT_FALSE(key.moved_from) << "try_emplace took the key of a value that threw, " << id;
    EXPECT_FALSE(other.moved_from) << "emplace took the key of a value that threw, " << id;
    ASSERT_EQ(map.size(), size);
    refusals += 2;
    ASSERT_EQ(map.try_emplace_outcome(std::move(key), id), InsertResult::kInserted) << id;
  }
  EXPECT_EQ(map.stats().full_rejections, refusals);
  EXPECT_GT(map.stats().growths, 0U);
  EXPECT_GT(map.stash_size() + map.stats().longest_path, 0U);
  EXPECT_EQ(map.check_invariants(), "");
  for (std::uint64_t n = 1; n <= 600; ++n) {
    const std::uint64_t id = n % 50 == 0 && n / 50 <= 12 ? kColliding + n / 50 : n;
    const Fragile* v = map.find_value(TrackedKey(id));
    ASSERT_NE(v, nullptr) << id;
    EXPECT_EQ(v->n, id);
  }
}

}  // namespace
