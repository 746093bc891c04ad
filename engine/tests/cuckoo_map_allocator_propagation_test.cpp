// CuckooMap's move assignment and swap follow std::allocator_traits as the standard
// containers do: with propagate_on_container_move_assignment false a map keeps its own
// allocator (taking the source's memory when the allocators compare equal, moving the
// items one by one into its own memory when they do not); with
// propagate_on_container_swap false swap exchanges the contents and not the allocators
// (REQUIRES equal allocators, asserted in debug builds); with the traits true the
// allocators travel with the memory.
//
// The allocator here carries a pool (what operator== compares: memory of one pool may be
// freed through any allocator of that pool) and a label that only identifies the object,
// so a test sees which allocator object each map holds even when they compare equal.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>

#include "cuckoo/cuckoo_map.hpp"

namespace {

using cuckoo::CuckooMapConfig;
using cuckoo::InsertResult;

struct Pool {
  std::size_t live_bytes = 0;
};

template <class T, bool PropagateOnMove, bool PropagateOnSwap>
struct LabelledAllocator {
  using value_type = T;
  using propagate_on_container_move_assignment = std::bool_constant<PropagateOnMove>;
  using propagate_on_container_swap = std::bool_constant<PropagateOnSwap>;
  using propagate_on_container_copy_assignment = std::false_type;
  using is_always_equal = std::false_type;
  template <class U>
  struct rebind {
    using other = LabelledAllocator<U, PropagateOnMove, PropagateOnSwap>;
  };

  std::shared_ptr<Pool> pool;
  int label = 0;

  LabelledAllocator(std::shared_ptr<Pool> p, int l) : pool(std::move(p)), label(l) {}
  LabelledAllocator(const LabelledAllocator&) = default;  // copies only: see below
  LabelledAllocator& operator=(const LabelledAllocator&) = default;
  template <class U>
  LabelledAllocator(const LabelledAllocator<U, PropagateOnMove, PropagateOnSwap>& other)  // NOLINT
      : pool(other.pool), label(other.label) {}
  T* allocate(std::size_t n) {
    pool->live_bytes += n * sizeof(T);
    return std::allocator<T>{}.allocate(n);
  }
  void deallocate(T* p, std::size_t n) {
    pool->live_bytes -= n * sizeof(T);
    std::allocator<T>{}.deallocate(p, n);
  }
  template <class U>
  bool operator==(const LabelledAllocator<U, PropagateOnMove, PropagateOnSwap>& other) const {
    return pool == other.pool;
  }
};

template <bool PropagateOnMove, bool PropagateOnSwap>
using Map = cuckoo::CuckooMap<std::string, std::string, 4, cuckoo::DefaultHasher,
                              std::equal_to<std::string>,
                              LabelledAllocator<std::pair<const std::string, std::string>,
                                                PropagateOnMove, PropagateOnSwap>>;

CuckooMapConfig seeded(std::uint64_t seed) {
  CuckooMapConfig c;
  c.seed = seed;
  c.initial_capacity = 16;
  return c;
}

std::string key_of(int i) { return "key-" + std::to_string(i); }
std::string value_of(int i) { return std::to_string(i) + std::string(40, 'v'); }

// n items with keys first..first+n-1 (enough to grow the 16-slot table, and a stash
// entry or two is possible: every key is checked through find()).
template <class M>
void fill(M& map, int first, int n) {
  for (int i = first; i < first + n; ++i) {
    ASSERT_EQ(map.insert_outcome(key_of(i), value_of(i)), InsertResult::kInserted) << i;
  }
}
template <class M>
void expect_holds(const M& map, int first, int n, const std::string& what) {
  EXPECT_EQ(map.size(), static_cast<std::size_t>(n)) << what;
  EXPECT_EQ(map.check_invariants(), "") << what;
  for (int i = first; i < first + n; ++i) {
    const std::string* v = map.find_value(key_of(i));
    ASSERT_NE(v, nullptr) << what << ": " << key_of(i) << " lost";
    EXPECT_EQ(*v, value_of(i)) << what;
  }
}

TEST(CuckooMapAllocatorPropagation, MoveAssignWithoutPropagationEqualAllocatorsKeepsOwn) {
  using M = Map<false, false>;
  const auto pool = std::make_shared<Pool>();
  M source(seeded(1), {}, {}, {pool, 1});
  M target(seeded(2), {}, {}, {pool, 2});
  fill(source, 0, 300);
  fill(target, 1000, 10);
  target = std::move(source);
  EXPECT_EQ(target.get_allocator().label, 2) << "the target took the source's allocator";
  EXPECT_EQ(source.get_allocator().label, 1);  // NOLINT(bugprone-use-after-move)
  expect_holds(target, 0, 300, "after move assignment");
  EXPECT_EQ(source.size(), 0U);
  EXPECT_EQ(source.capacity(), 0U);
  EXPECT_EQ(source.insert_outcome("again", "v"), InsertResult::kInserted);  // moved-from: usable
  EXPECT_EQ(source.get_allocator().label, 1);
}

TEST(CuckooMapAllocatorPropagation, MoveAssignWithoutPropagationUnequalAllocatorsMovesItems) {
  using M = Map<false, false>;
  const auto source_pool = std::make_shared<Pool>();
  const auto target_pool = std::make_shared<Pool>();
  {
    M source(seeded(1), {}, {}, {source_pool, 1});
    M target(seeded(2), {}, {}, {target_pool, 2});
    fill(source, 0, 300);
    fill(target, 1000, 10);
    target = std::move(source);
    EXPECT_EQ(target.get_allocator().label, 2);
    EXPECT_TRUE(target.get_allocator().pool == target_pool);
    EXPECT_EQ(source.get_allocator().label, 1);  // NOLINT(bugprone-use-after-move)
    expect_holds(target, 0, 300, "after move assignment between unequal allocators");
    EXPECT_EQ(target_pool->live_bytes, target.memory_bytes())
        << "the target's items are in its own allocator's memory";
    EXPECT_EQ(source_pool->live_bytes, 0U) << "the source kept memory after the move";
    EXPECT_EQ(source.capacity(), 0U);
    EXPECT_EQ(source.insert_outcome("again", "v"), InsertResult::kInserted);
    EXPECT_EQ(*source.find_value("again"), "v");
  }
  EXPECT_EQ(source_pool->live_bytes, 0U);
  EXPECT_EQ(target_pool->live_bytes, 0U);
}

TEST(CuckooMapAllocatorPropagation, SwapWithoutPropagationKeepsEachAllocator) {
  using M = Map<false, false>;
  const auto pool = std::make_shared<Pool>();
  {
    M x(seeded(1), {}, {}, {pool, 1});
    M y(seeded(2), {}, {}, {pool, 2});
    fill(x, 0, 200);
    fill(y, 1000, 30);
    swap(x, y);
    EXPECT_EQ(x.get_allocator().label, 1) << "swap exchanged the allocators";
    EXPECT_EQ(y.get_allocator().label, 2) << "swap exchanged the allocators";
    expect_holds(x, 1000, 30, "x after swap");
    expect_holds(y, 0, 200, "y after swap");
    x.swap(y);
    EXPECT_EQ(x.get_allocator().label, 1);
    expect_holds(x, 0, 200, "x swapped back");
  }
  EXPECT_EQ(pool->live_bytes, 0U);
}

#ifndef NDEBUG
TEST(CuckooMapAllocatorPropagationDeathTest, SwapWithoutPropagationUnequalAllocatorsAsserts) {
  using M = Map<false, false>;
  M x(seeded(1), {}, {}, {std::make_shared<Pool>(), 1});
  M y(seeded(2), {}, {}, {std::make_shared<Pool>(), 2});
  EXPECT_DEATH(swap(x, y), "") << "swap between unequal non-propagating allocators";
}
#endif

TEST(CuckooMapAllocatorPropagation, PropagatingAllocatorsTravelWithTheMemory) {
  using M = Map<true, true>;
  const auto pool_a = std::make_shared<Pool>();
  const auto pool_b = std::make_shared<Pool>();
  M x(seeded(1), {}, {}, {pool_a, 1});
  M y(seeded(2), {}, {}, {pool_b, 2});
  fill(x, 0, 200);
  fill(y, 1000, 30);
  swap(x, y);
  EXPECT_EQ(x.get_allocator().label, 2);
  EXPECT_EQ(y.get_allocator().label, 1);
  expect_holds(x, 1000, 30, "x after swap");
  expect_holds(y, 0, 200, "y after swap");
  M z(seeded(3), {}, {}, {pool_b, 3});
  z = std::move(y);
  EXPECT_EQ(z.get_allocator().label, 1);
  expect_holds(z, 0, 200, "z after move assignment");
}

}  // namespace
