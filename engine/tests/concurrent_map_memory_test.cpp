// The striped map's memory claims (detail/striped_map.hpp, "Retired tables"; README,
// "Memory of the striped map"), checked exactly from the public API:
//
//   memory_bytes()  == capacity() * live_bytes_per_slot() + retired_bytes()
//   retired_bytes() == retained_bytes_per_slot() * (slots of every table replaced so far)
//   retired_bytes() <  retained_bytes_per_slot() * capacity()
//
// and the per-slot figures the README gives (atomic items uint64 -> uint64: 24 bytes a
// slot, live or retired; other items: the 8-byte slot word retired, the word and the
// std::optional item live). Checked after the steps of: growth by inserts up to
// max_capacity, for bucket limits that are powers of two and not (the last growth is
// clamped there); reserve loops that ask one bucket more each time, 10 % more each time,
// and random sizes mixed with inserts and clear(). The slots replaced are counted by the
// test from bucket_count() alone (single-threaded, each change is one replaced table).
// Randomized cases use a fixed seed, print it on failure and take CUCKOO_TEST_SEED to
// replay another one.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "cuckoo/concurrent_map.hpp"
#include "cuckoo/detail/rng.hpp"
#include "support/test_seed.hpp"

namespace {

using cuckoo::CuckooMapConfig;
using cuckoo::InsertResult;
using cuckoo::StripedConcurrentMap;

std::string seed_note(std::uint64_t seed) {
  return cuckoo::test::seed_note(seed, "concurrent_map_memory_test");
}

// Both slot layouts, and a two-slot bucket shape whose reserve load (80 %) and bucket
// counts differ from the default's.
template <class Map>
class StripedMapMemory : public ::testing::Test {};
using StripedMapLayouts =
    ::testing::Types<StripedConcurrentMap<std::uint64_t, std::uint64_t>,
                     StripedConcurrentMap<std::uint64_t, std::string>,
                     StripedConcurrentMap<std::uint64_t, std::uint64_t, 2>>;
TYPED_TEST_SUITE(StripedMapMemory, StripedMapLayouts);

template <class V>
V value_of(std::uint64_t k) {
  if constexpr (std::is_same_v<V, std::string>) {
    return std::to_string(k);
  } else {
    return k;
  }
}

template <class Map>
CuckooMapConfig config_for(std::uint64_t initial_buckets, std::uint64_t max_buckets) {
  CuckooMapConfig c;
  c.initial_capacity = initial_buckets * Map::kSlotsPerBucket;
  c.max_capacity = max_buckets * Map::kSlotsPerBucket;
  c.seed = 17;
  return c;
}

// The largest n that reserve(n) serves with `buckets` buckets (kReserveLoadPercent of
// their slots).
template <class Map>
std::size_t items_for(std::uint64_t buckets) {
  return buckets * Map::kSlotsPerBucket * Map::kReserveLoadPercent / 100;
}

// What the README states per slot, computed independently of the map's accessors.
template <class Map>
constexpr std::size_t stated_retained_per_slot() {
  if constexpr (Map::kAtomicItems) {
    return sizeof(std::uint64_t) + sizeof(typename Map::key_type) + sizeof(typename Map::mapped_type);
  } else {
    return sizeof(std::uint64_t);  // the slot word
  }
}
template <class Map>
constexpr std::size_t stated_live_per_slot() {
  if constexpr (Map::kAtomicItems) {
    return stated_retained_per_slot<Map>();
  } else {
    return sizeof(std::uint64_t) + sizeof(std::optional<typename Map::value_type>);
  }
}

// Follows one map through a single-threaded sequence of calls and checks the claims at
// the top of this file after each step it is shown.
//
// The full check reads retired_bytes() and memory_bytes(), each under every stripe (up to
// 1,024 locks, slow in sanitizer builds), so it runs when the tables may have changed:
// when bucket_count() or stats().growths moved (a growth changes both; either one
// moving alone is itself a failure), and on every 256th step anyway. In between, the
// lock-free figures say that the memory figures are those of the last full check.
template <class Map>
class MemoryLedger {
 public:
  explicit MemoryLedger(const Map& map) : map_(map), buckets_(map.bucket_count()) {}

  // REQUIRES: called after every call that may grow the map (a missed growth would be
  // counted as one replacement of the last table seen). full: run the full check even
  // if nothing moved.
  ::testing::AssertionResult check(bool full = false) {
    const std::uint32_t now = map_.bucket_count();
    const bool changed = now != buckets_ || map_.stats().growths != growths_;
    if (!changed && !full && ++steps_ % 256 != 0) return ::testing::AssertionSuccess();
    if (now != buckets_) {
      if (now < buckets_) {
        return ::testing::AssertionFailure() << "bucket_count() shrank from " << buckets_ << " to " << now;
      }
      replaced_slots_ += std::uint64_t{buckets_} * Map::kSlotsPerBucket;
      ++growths_;
      buckets_ = now;
    }
    const std::uint64_t capacity = map_.capacity();
    const std::uint64_t retired = map_.retired_bytes();
    const std::uint64_t memory = map_.memory_bytes();
    const std::uint64_t retained_per_slot = stated_retained_per_slot<Map>();
    const std::uint64_t bound = retained_per_slot * capacity;
    if (retired >= bound) {
      return ::testing::AssertionFailure()
             << "retired_bytes() " << retired << " >= the bound retained_bytes_per_slot() * capacity() = "
             << retained_per_slot << " * " << capacity << " = " << bound << " (after " << growths_
             << " growths; " << map_.bucket_count() << " buckets)";
    }
    if (retired != retained_per_slot * replaced_slots_) {
      return ::testing::AssertionFailure() << "retired_bytes() " << retired << ", but " << growths_
                                           << " growths replaced " << replaced_slots_ << " slots of "
                                           << retained_per_slot << " bytes";
    }
    if (memory != capacity * stated_live_per_slot<Map>() + retired) {
      return ::testing::AssertionFailure()
             << "memory_bytes() " << memory << " != capacity() " << capacity << " * "
             << stated_live_per_slot<Map>() << " + retired_bytes() " << retired;
    }
    if (map_.stats().growths != growths_) {
      return ::testing::AssertionFailure() << "stats().growths " << map_.stats().growths << ", but "
                                           << growths_ << " bucket count changes were seen";
    }
    return ::testing::AssertionSuccess();
  }

  std::uint64_t growths() const { return growths_; }

 private:
  const Map& map_;
  std::uint32_t buckets_;
  std::uint64_t replaced_slots_ = 0;
  std::uint64_t growths_ = 0;
  std::uint64_t steps_ = 0;
};

// Bucket limits: a power of two and its successor, sizes a user would pick, and one past
// the stripe count (1,024) so that buckets share stripes.
constexpr std::uint64_t kMaxBuckets[] = {300, 1000, 1024, 1025, 4097};
// First tables: one bucket (the longest growth sequence), a size that is no power of
// two, and 64 buckets (256 slots with four-slot buckets).
constexpr std::uint64_t kInitialBuckets[] = {1, 48, 64};

TYPED_TEST(StripedMapMemory, PerSlotFiguresAreTheStatedOnes) {
  using Map = TypeParam;
  EXPECT_EQ(Map::retained_bytes_per_slot(), stated_retained_per_slot<Map>());
  EXPECT_EQ(Map::live_bytes_per_slot(), stated_live_per_slot<Map>());
  if constexpr (Map::kAtomicItems) {
    EXPECT_EQ(Map::retained_bytes_per_slot(), 24U) << "README: 24 bytes a slot for uint64 keys and values";
  } else {
    EXPECT_EQ(Map::retained_bytes_per_slot(), 8U) << "README: a retired table keeps its 8-byte slot words";
  }
  Map map(config_for<Map>(5, 64));
  EXPECT_EQ(map.retired_bytes(), 0U);
  EXPECT_EQ(map.memory_bytes(), map.capacity() * Map::live_bytes_per_slot());
}

// Inserts until the table is at max_capacity and refuses: the growth into the last
// table is clamped to max_capacity, so it is not a doubling unless the limit is the
// first table times a power of two.
TYPED_TEST(StripedMapMemory, GrowthByInsertsToMaxCapacityKeepsTheBound) {
  using Map = TypeParam;
  for (const std::uint64_t initial : kInitialBuckets) {
    for (const std::uint64_t max_buckets : kMaxBuckets) {
      SCOPED_TRACE("initial buckets " + std::to_string(initial) + ", max buckets " +
                   std::to_string(max_buckets));
      Map map(config_for<Map>(initial, max_buckets));
      MemoryLedger<Map> ledger(map);
      ASSERT_TRUE(ledger.check());
      bool full_at_max = false;
      // Bound: twice the slots the map may have; every insert stores a new key or is
      // refused, and only refusals at max_capacity end the loop early.
      for (std::uint64_t k = 0; k < 2 * max_buckets * Map::kSlotsPerBucket && !full_at_max; ++k) {
        const InsertResult r = map.insert(k, value_of<typename Map::mapped_type>(k));
        ASSERT_NE(r, InsertResult::kExists);
        full_at_max = r == InsertResult::kFull && map.bucket_count() == max_buckets;
        ASSERT_TRUE(ledger.check()) << "after inserting key " << k;
      }
      ASSERT_TRUE(ledger.check(true));
      EXPECT_TRUE(full_at_max) << "the inserts never filled the table at max_capacity";
      EXPECT_EQ(map.bucket_count(), max_buckets);
      EXPECT_GT(ledger.growths(), 0U);
      std::printf("[memory] initial %llu, max %llu buckets: %llu growths, retired %zu bytes, bound %zu\n",
                  static_cast<unsigned long long>(initial), static_cast<unsigned long long>(max_buckets),
                  static_cast<unsigned long long>(ledger.growths()), map.retired_bytes(),
                  map.capacity() * Map::retained_bytes_per_slot());
      EXPECT_EQ(map.check_invariants(), "");
    }
  }
}

// reserve(n) for the most items each bucket count serves, one bucket more each time, up
// to max_capacity.
TYPED_TEST(StripedMapMemory, ReserveOneBucketMoreEachTimeKeepsTheBound) {
  using Map = TypeParam;
  for (const std::uint64_t max_buckets : kMaxBuckets) {
    SCOPED_TRACE("max buckets " + std::to_string(max_buckets));
    Map map(config_for<Map>(1, max_buckets));
    MemoryLedger<Map> ledger(map);
    for (std::uint64_t buckets = 1; buckets <= max_buckets; ++buckets) {
      const std::size_t n = items_for<Map>(buckets);
      ASSERT_TRUE(map.reserve(n)) << "reserve(" << n << ")";
      ASSERT_GE(items_for<Map>(map.bucket_count()), n) << "reserve(" << n << ") left too small a table";
      ASSERT_TRUE(ledger.check()) << "after reserve(" << n << ")";
    }
    EXPECT_EQ(map.bucket_count(), max_buckets);
    // Each growth at least doubles (from one bucket), so there are O(log n) of them.
    EXPECT_LE(ledger.growths(), static_cast<std::uint64_t>(std::bit_width(max_buckets)));
    EXPECT_FALSE(map.reserve(max_buckets * Map::kSlotsPerBucket + 1));
    ASSERT_TRUE(ledger.check(true)) << "after a refused reserve";
    std::printf("[memory] reserve +1 bucket to %llu: %llu growths, retired %zu bytes, bound %zu\n",
                static_cast<unsigned long long>(max_buckets),
                static_cast<unsigned long long>(ledger.growths()), map.retired_bytes(),
                map.capacity() * Map::retained_bytes_per_slot());
  }
}

// reserve(n) with n 10 % above the last, items inserted in between so that inserts and
// reserve share the growth.
TYPED_TEST(StripedMapMemory, ReserveTenPercentMoreEachTimeKeepsTheBound) {
  using Map = TypeParam;
  for (const std::uint64_t max_buckets : kMaxBuckets) {
    SCOPED_TRACE("max buckets " + std::to_string(max_buckets));
    Map map(config_for<Map>(1, max_buckets));
    MemoryLedger<Map> ledger(map);
    const std::size_t most = items_for<Map>(max_buckets);
    std::uint64_t key = 0;
    // Bound: n grows by at least 1 per step up to `most`.
    for (std::size_t n = 1;; n = std::min(most, std::max(n + 1, n + n / 10))) {
      ASSERT_TRUE(map.reserve(n)) << "reserve(" << n << ")";
      ASSERT_TRUE(ledger.check()) << "after reserve(" << n << ")";
      for (; key < n / 2; ++key) {
        ASSERT_EQ(map.insert(key, value_of<typename Map::mapped_type>(key)), InsertResult::kInserted);
      }
      ASSERT_TRUE(ledger.check()) << "after inserting up to key " << key;
      if (n == most) break;
    }
    ASSERT_TRUE(ledger.check(true));
    EXPECT_EQ(map.bucket_count(), max_buckets);
  }
}

// Random reserve sizes (any order, some above max_capacity), random inserts and an
// occasional clear(), from a seeded generator.
TYPED_TEST(StripedMapMemory, RandomReserveInsertAndClearKeepTheBound) {
  using Map = TypeParam;
  const std::uint64_t seed = cuckoo::test::test_seed(0x3e3'0001);
  SCOPED_TRACE(seed_note(seed));
  cuckoo::detail::Rng rng(seed);
  for (const std::uint64_t max_buckets : kMaxBuckets) {
    SCOPED_TRACE("max buckets " + std::to_string(max_buckets));
    const std::uint64_t initial = 1 + rng.below(std::min<std::uint64_t>(max_buckets, 40));
    Map map(config_for<Map>(initial, max_buckets));
    MemoryLedger<Map> ledger(map);
    const std::size_t limit = max_buckets * Map::kSlotsPerBucket;
    for (int step = 0; step < 200; ++step) {
      const std::uint64_t dice = rng.below(100);
      if (dice < 45) {
        // Mostly small steps above the current size, sometimes anywhere up to past the limit.
        const std::size_t n = dice < 30 ? map.size() + rng.below(1 + map.capacity() / 4)
                                        : rng.below(limit + limit / 8 + 1);
        const bool ok = map.reserve(n);
        // A reserve within the limit may still be refused if the rebuild finds no
        // placement; one past the limit must be.
        if (n > items_for<Map>(max_buckets)) {
          ASSERT_FALSE(ok) << "reserve(" << n << ") past the limit";
        }
        if (ok) {
          ASSERT_GE(items_for<Map>(map.bucket_count()), n) << "reserve(" << n << ") at step " << step;
        }
      } else if (dice < 98) {
        for (std::uint64_t i = rng.below(64); i > 0; --i) {
          const std::uint64_t k = rng.below(4 * limit);
          (void)map.insert(k, value_of<typename Map::mapped_type>(k));
          ASSERT_TRUE(ledger.check()) << "after inserting " << k << " at step " << step;
        }
      } else {
        map.clear();
      }
      ASSERT_TRUE(ledger.check(true)) << "at step " << step;
    }
    EXPECT_EQ(map.check_invariants(), "");
  }
}

}  // namespace
