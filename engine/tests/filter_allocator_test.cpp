// CuckooFilter's table takes its memory from the Allocator template parameter:
// every byte comes from it and returns to it; copies and deserialized filters use it too.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "cuckoo/cuckoo_filter.hpp"

namespace {

struct Ledger {
  std::size_t live_bytes = 0;
  std::size_t allocations = 0;
};

template <class T>
struct LedgerAllocator {
  using value_type = T;
  std::shared_ptr<Ledger> ledger = std::make_shared<Ledger>();
  LedgerAllocator() = default;
  template <class U>
  LedgerAllocator(const LedgerAllocator<U>& o) : ledger(o.ledger) {}  // NOLINT
  T* allocate(std::size_t n) {
    ++ledger->allocations;
    ledger->live_bytes += n * sizeof(T);
    return std::allocator<T>{}.allocate(n);
  }
  void deallocate(T* p, std::size_t n) {
    ledger->live_bytes -= n * sizeof(T);
    std::allocator<T>{}.deallocate(p, n);
  }
  template <class U>
  bool operator==(const LedgerAllocator<U>& o) const { return ledger == o.ledger; }
};

using Filter = cuckoo::BasicCuckooFilter<cuckoo::DefaultHasher, LedgerAllocator<std::uint8_t>>;

TEST(FilterAllocator, TheTableComesFromTheAllocatorAndReturnsToIt) {
  LedgerAllocator<std::uint8_t> alloc;
  cuckoo::CuckooFilterConfig c;
  c.capacity = 10'000;
  c.seed = 4;
  {
    Filter f(c, {}, alloc);
    EXPECT_EQ(alloc.ledger->allocations, 1U);
    EXPECT_GT(alloc.ledger->live_bytes, 0U);
    // The table's allocation is what the allocator holds (data and padding, in lines).
    EXPECT_GE(alloc.ledger->live_bytes + sizeof(Filter), f.memory_bytes());
    EXPECT_TRUE(f.get_allocator() == alloc);
    for (std::uint64_t k = 0; k < 5000; ++k) ASSERT_EQ(f.insert(k), cuckoo::InsertResult::kInserted);
    Filter copy = f;  // select_on_container_copy_construction: the same allocator
    EXPECT_EQ(alloc.ledger->allocations, 2U);
    EXPECT_TRUE(copy == f);
    const std::vector<std::uint8_t> bytes = f.serialize();
    Filter restored = Filter::deserialize(bytes, {}, alloc);
    EXPECT_EQ(alloc.ledger->allocations, 3U);
    EXPECT_TRUE(restored == f);
    for (std::uint64_t k = 0; k < 5000; ++k) ASSERT_TRUE(restored.contains(k));
  }
  EXPECT_EQ(alloc.ledger->live_bytes, 0U) << "every byte the filters allocated is returned";
}

}  // namespace
