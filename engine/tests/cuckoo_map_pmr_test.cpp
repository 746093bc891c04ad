// CuckooMap and CuckooFilter with std::pmr::polymorphic_allocator: insert, find, erase,
// copy, move and swap compile and work, and the memory comes from the memory resource the
// container was given (a std::pmr::monotonic_buffer_resource behind a counting resource).
// polymorphic_allocator propagates on no container operation and cannot be assigned, so
// the containers must keep their own allocator on assignment and swap; a copy takes the
// default resource (select_on_container_copy_construction), as std::pmr containers do.
#include <gtest/gtest.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory_resource>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include "cuckoo/cuckoo_filter.hpp"
#include "cuckoo/cuckoo_map.hpp"

namespace {

using cuckoo::InsertResult;

// Counts what passes through it to its upstream resource.
class CountingResource : public std::pmr::memory_resource {
 public:
  explicit CountingResource(std::pmr::memory_resource* upstream) : upstream_(upstream) {}
  std::size_t allocations() const { return allocations_; }
  std::size_t bytes_allocated() const { return bytes_allocated_; }
  std::size_t live_bytes() const { return live_bytes_; }
  bool fail = false;  // allocations throw std::bad_alloc while set

 private:
  void* do_allocate(std::size_t bytes, std::size_t alignment) override {
    if (fail) throw std::bad_alloc();
    void* p = upstream_->allocate(bytes, alignment);
    ++allocations_;
    bytes_allocated_ += bytes;
    live_bytes_ += bytes;
    return p;
  }
  void do_deallocate(void* p, std::size_t bytes, std::size_t alignment) override {
    live_bytes_ -= bytes;
    upstream_->deallocate(p, bytes, alignment);
  }
  bool do_is_equal(const std::pmr::memory_resource& other) const noexcept override {
    return this == &other;
  }

  std::pmr::memory_resource* upstream_;
  std::size_t allocations_ = 0;
  std::size_t bytes_allocated_ = 0;
  std::size_t live_bytes_ = 0;
};

// Makes `resource` the default resource for one scope, so that a test sees every
// allocation that does not come from the resource it named.
class DefaultResourceScope {
 public:
  explicit DefaultResourceScope(std::pmr::memory_resource* resource)
      : previous_(std::pmr::set_default_resource(resource)) {}
  ~DefaultResourceScope() { std::pmr::set_default_resource(previous_); }
  DefaultResourceScope(const DefaultResourceScope&) = delete;
  DefaultResourceScope& operator=(const DefaultResourceScope&) = delete;

 private:
  std::pmr::memory_resource* previous_;
};

using MapAlloc = std::pmr::polymorphic_allocator<std::pair<const std::uint64_t, std::uint64_t>>;
using Map = cuckoo::CuckooMap<std::uint64_t, std::uint64_t, 4, cuckoo::DefaultHasher,
                              std::equal_to<std::uint64_t>, MapAlloc>;

cuckoo::CuckooMapConfig map_config(std::uint64_t seed) {
  cuckoo::CuckooMapConfig c;
  c.seed = seed;
  c.initial_capacity = 16;
  return c;
}

void fill(Map& map, std::uint64_t first, std::uint64_t n) {
  for (std::uint64_t k = first; k < first + n; ++k) {
    ASSERT_EQ(map.insert_outcome(k, k * 3), InsertResult::kInserted) << k;
  }
}
void expect_holds(const Map& map, std::uint64_t first, std::uint64_t n, const char* what) {
  EXPECT_EQ(map.size(), n) << what;
  EXPECT_EQ(map.check_invariants(), "") << what;
  for (std::uint64_t k = first; k < first + n; ++k) {
    const std::uint64_t* v = map.find_value(k);
    ASSERT_NE(v, nullptr) << what << ": key " << k << " lost";
    EXPECT_EQ(*v, k * 3) << what;
  }
}

TEST(CuckooMapPmr, MemoryComesFromTheResource) {
  CountingResource elsewhere(std::pmr::new_delete_resource());
  DefaultResourceScope scope(&elsewhere);
  std::pmr::monotonic_buffer_resource arena(std::pmr::new_delete_resource());
  CountingResource counted(&arena);
  std::pmr::monotonic_buffer_resource other_arena(std::pmr::new_delete_resource());
  CountingResource other_counted(&other_arena);

  Map map(map_config(1), {}, {}, MapAlloc(&counted));
  EXPECT_EQ(map.get_allocator().resource(), &counted);
  fill(map, 0, 2000);  // grows several times
  EXPECT_GT(map.stats().growths, 0U);
  for (std::uint64_t k = 0; k < 2000; k += 2) ASSERT_TRUE(map.erase(k)) << k;
  for (std::uint64_t k = 1; k < 2000; k += 2) ASSERT_EQ(*map.find_value(k), k * 3) << k;
  EXPECT_FALSE(map.contains(0));
  for (std::uint64_t k = 0; k < 2000; k += 2) {
    ASSERT_EQ(map.insert_outcome(k, k * 3), InsertResult::kInserted) << k;
  }
  expect_holds(map, 0, 2000, "after erase and insert");
  EXPECT_GT(counted.allocations(), 1U);
  EXPECT_EQ(counted.live_bytes(), map.memory_bytes())
      << "the map's memory is what the resource handed out and did not get back";
  EXPECT_EQ(elsewhere.bytes_allocated(), 0U) << "the slot array came from the default resource";

  // A copy uses select_on_container_copy_construction: the default resource.
  const Map copy = map;
  EXPECT_EQ(copy.get_allocator().resource(), &elsewhere);
  EXPECT_EQ(elsewhere.live_bytes(), copy.memory_bytes());
  expect_holds(copy, 0, 2000, "copy");

  // Copy assignment keeps the target's resource.
  Map assigned(map_config(2), {}, {}, MapAlloc(&other_counted));
  fill(assigned, 5000, 10);
  const std::size_t before = other_counted.bytes_allocated();
  assigned = copy;
  EXPECT_EQ(assigned.get_allocator().resource(), &other_counted);
  EXPECT_GT(other_counted.bytes_allocated(), before);
  EXPECT_EQ(other_counted.live_bytes(), assigned.memory_bytes());
  expect_holds(assigned, 0, 2000, "copy assigned");

  // Move construction takes the memory and the allocator; nothing is allocated.
  const std::size_t allocations = counted.allocations();
  Map moved(std::move(map));
  EXPECT_EQ(moved.get_allocator().resource(), &counted);
  EXPECT_EQ(counted.allocations(), allocations);
  expect_holds(moved, 0, 2000, "move constructed");
  EXPECT_EQ(map.capacity(), 0U);  // NOLINT(bugprone-use-after-move)

  // Move assignment between maps of one resource takes the memory.
  Map same(map_config(3), {}, {}, MapAlloc(&counted));
  same = std::move(moved);
  EXPECT_EQ(same.get_allocator().resource(), &counted);
  expect_holds(same, 0, 2000, "move assigned, same resource");

  // Between resources: the items move into the target's resource; each keeps its own.
  Map across(map_config(4), {}, {}, MapAlloc(&other_counted));
  const std::size_t other_before = other_counted.bytes_allocated();
  across = std::move(same);
  EXPECT_EQ(across.get_allocator().resource(), &other_counted);
  EXPECT_EQ(same.get_allocator().resource(), &counted);  // NOLINT(bugprone-use-after-move)
  EXPECT_GT(other_counted.bytes_allocated(), other_before);
  expect_holds(across, 0, 2000, "move assigned across resources");

  // Swap within one resource exchanges the contents.
  Map a(map_config(5), {}, {}, MapAlloc(&other_counted));
  fill(a, 9000, 7);
  swap(a, across);
  EXPECT_EQ(a.get_allocator().resource(), &other_counted);
  expect_holds(a, 0, 2000, "swapped");
  expect_holds(across, 9000, 7, "swapped");

  // The moved-from maps are usable, on their own resource.
  ASSERT_EQ(map.insert_outcome(1, 3), InsertResult::kInserted);
  EXPECT_EQ(map.get_allocator().resource(), &counted);
  EXPECT_EQ(elsewhere.live_bytes(), copy.memory_bytes())
      << "only the copy took memory from the default resource";
}

using FilterAlloc = std::pmr::polymorphic_allocator<std::uint8_t>;
using Filter = cuckoo::BasicCuckooFilter<cuckoo::DefaultHasher, FilterAlloc>;

cuckoo::CuckooFilterConfig filter_config(std::uint64_t seed) {
  cuckoo::CuckooFilterConfig c;
  c.capacity = 4096;
  c.seed = seed;
  return c;
}

void expect_contains_all(const Filter& f, std::uint64_t first, std::uint64_t n, const char* what) {
  for (std::uint64_t k = first; k < first + n; ++k) ASSERT_TRUE(f.contains(k)) << what << ": " << k;
}

TEST(CuckooFilterPmr, MemoryComesFromTheResource) {
  CountingResource elsewhere(std::pmr::new_delete_resource());
  DefaultResourceScope scope(&elsewhere);
  std::pmr::monotonic_buffer_resource arena(std::pmr::new_delete_resource());
  CountingResource counted(&arena);
  std::pmr::monotonic_buffer_resource other_arena(std::pmr::new_delete_resource());
  CountingResource other_counted(&other_arena);

  Filter f(filter_config(1), {}, FilterAlloc(&counted));
  EXPECT_EQ(f.get_allocator().resource(), &counted);
  EXPECT_EQ(counted.allocations(), 1U);
  for (std::uint64_t k = 0; k < 3000; ++k) ASSERT_EQ(f.insert(k), InsertResult::kInserted) << k;
  expect_contains_all(f, 0, 3000, "inserted");
  for (std::uint64_t k = 0; k < 1000; ++k) ASSERT_TRUE(f.erase(k)) << k;
  expect_contains_all(f, 1000, 2000, "after erase");
  EXPECT_EQ(f.size(), 2000U);
  // memory_bytes() counts the table's allocation and the filter object.
  EXPECT_GE(counted.live_bytes() + sizeof(Filter), f.memory_bytes());
  EXPECT_EQ(elsewhere.bytes_allocated(), 0U) << "the table came from the default resource";

  const Filter copy = f;  // select_on_container_copy_construction: the default resource
  EXPECT_EQ(copy.get_allocator().resource(), &elsewhere);
  EXPECT_TRUE(copy == f);
  const std::size_t copy_bytes = elsewhere.live_bytes();
  EXPECT_GE(copy_bytes + sizeof(Filter), copy.memory_bytes());

  Filter assigned(filter_config(2), {}, FilterAlloc(&other_counted));
  const std::size_t other_allocations = other_counted.allocations();
  assigned = f;
  EXPECT_EQ(assigned.get_allocator().resource(), &other_counted);
  EXPECT_GT(other_counted.allocations(), other_allocations);
  EXPECT_TRUE(assigned == f);

  const std::size_t allocations = counted.allocations();
  Filter moved(std::move(f));
  EXPECT_EQ(moved.get_allocator().resource(), &counted);
  EXPECT_EQ(counted.allocations(), allocations);
  expect_contains_all(moved, 1000, 2000, "move constructed");

  Filter same(filter_config(3), {}, FilterAlloc(&counted));
  same = std::move(moved);
  EXPECT_EQ(same.get_allocator().resource(), &counted);
  expect_contains_all(same, 1000, 2000, "move assigned, same resource");

  Filter across(filter_config(4), {}, FilterAlloc(&other_counted));
  const std::size_t before = other_counted.bytes_allocated();
  across = std::move(same);
  EXPECT_EQ(across.get_allocator().resource(), &other_counted);
  EXPECT_EQ(same.get_allocator().resource(), &counted);  // NOLINT(bugprone-use-after-move)
  EXPECT_GT(other_counted.bytes_allocated(), before);
  EXPECT_TRUE(across == assigned);
  expect_contains_all(across, 1000, 2000, "move assigned across resources");

  Filter swapped(filter_config(5), {}, FilterAlloc(&other_counted));
  ASSERT_EQ(swapped.insert(std::uint64_t{77'777}), InsertResult::kInserted);
  using std::swap;
  swap(swapped, across);
  EXPECT_EQ(swapped.get_allocator().resource(), &other_counted);
  expect_contains_all(swapped, 1000, 2000, "swapped");
  EXPECT_TRUE(across.contains(std::uint64_t{77'777}));
  EXPECT_EQ(across.size(), 1U);

  const std::vector<std::uint8_t> bytes = assigned.serialize();
  const std::size_t before_restore = counted.allocations();
  const Filter restored = Filter::deserialize(bytes, {}, FilterAlloc(&counted));
  EXPECT_EQ(restored.get_allocator().resource(), &counted);
  EXPECT_GT(counted.allocations(), before_restore);
  EXPECT_TRUE(restored == assigned);
  EXPECT_EQ(elsewhere.live_bytes(), copy_bytes)
      << "only the copy took memory from the default resource";
}

// A move assignment between resources copies the table into the target's resource; when
// that allocation fails the target is left as it was (not with the source's seed and
// size over its own old table).
TEST(CuckooFilterPmr, MoveAssignmentThatCannotAllocateChangesNothing) {
  CountingResource source_resource(std::pmr::new_delete_resource());
  CountingResource target_resource(std::pmr::new_delete_resource());
  Filter source(filter_config(1), {}, FilterAlloc(&source_resource));
  for (std::uint64_t k = 0; k < 1000; ++k) ASSERT_EQ(source.insert(k), InsertResult::kInserted);
  Filter target(filter_config(2), {}, FilterAlloc(&target_resource));
  for (std::uint64_t k = 5000; k < 5100; ++k) ASSERT_EQ(target.insert(k), InsertResult::kInserted);
  const std::vector<std::uint8_t> before = target.serialize();
  target_resource.fail = true;
  EXPECT_THROW(target = std::move(source), std::bad_alloc);
  EXPECT_THROW(target = source, std::bad_alloc);  // NOLINT(bugprone-use-after-move)
  target_resource.fail = false;
  EXPECT_EQ(target.serialize(), before) << "a failed assignment changed the filter";
  expect_contains_all(target, 5000, 100, "after the failed assignments");
  expect_contains_all(source, 0, 1000, "the source of the failed move");
  target = std::move(source);
  EXPECT_EQ(target.get_allocator().resource(), &target_resource);
  expect_contains_all(target, 0, 1000, "after the move assignment");
}

}  // namespace
