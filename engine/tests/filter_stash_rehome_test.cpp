// Stash re-homing in the filters (a hole planted bugs went through): an item
// waiting in the stash must move back into the table as soon as a slot frees in EITHER
// of its two buckets, so the stash drains as the load falls and later inserts are not
// refused while room exists. Both filters are filled until the stash holds items, then
// emptied one stored key at a time; after every erase no stash entry may have a free
// slot in either of its buckets.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "cuckoo/concurrent_filter.hpp"
#include "cuckoo/cuckoo_filter.hpp"
#include "cuckoo/detail/rng.hpp"

namespace {

using cuckoo::CuckooFilter;
using cuckoo::CuckooFilterConfig;
using cuckoo::InsertResult;
using cuckoo::StripedConcurrentFilter;

CuckooFilterConfig tiny(std::uint64_t seed, unsigned slots) {
  CuckooFilterConfig c;
  c.capacity = 4 * slots;  // four buckets
  c.slots_per_bucket = slots;
  c.fingerprint_bits = 16;
  c.max_kicks = 8;
  c.seed = seed;
  return c;
}

template <class Filter>
bool has_room(const Filter& f, std::uint32_t bucket) {
  for (unsigned s = 0; s < f.slots_per_bucket(); ++s) {
    if (f.fingerprint_at(bucket, s) == 0) return true;
  }
  return false;
}

// The stash entries with a free slot in one of their buckets, described.
template <class Filter>
std::string homeless_with_room(const Filter& f) {
  std::string out;
  for (const auto& e : f.stash()) {
    for (const std::uint32_t b : {e.bucket1, e.bucket2}) {
      if (has_room(f, b)) {
        out += "entry fp=" + std::to_string(e.fingerprint) + " buckets " +
               std::to_string(e.bucket1) + "," + std::to_string(e.bucket2) +
               " while bucket " + std::to_string(b) + " has a free slot; ";
      }
    }
  }
  return out;
}

template <class Filter>
void stash_drains(std::uint64_t seed, unsigned slots) {
  SCOPED_TRACE("seed=" + std::to_string(seed) + " slots=" + std::to_string(slots));
  Filter filter(tiny(seed, slots));
  std::vector<std::uint64_t> stored;
  for (std::uint64_t k = 1; k < 10'000 && filter.stash_size() < 3; ++k) {
    if (filter.insert(k) == InsertResult::kInserted) stored.push_back(k);
  }
  ASSERT_GE(filter.stash_size(), 1U) << "the stash never filled";
  cuckoo::detail::Rng rng(seed);
  for (std::size_t i = stored.size(); i > 1; --i) {  // Fisher-Yates
    std::swap(stored[i - 1], stored[rng.below(i)]);
  }
  std::size_t rehomed_at_least = 0;
  for (std::uint64_t key : stored) {
    const unsigned stash_before = filter.stash_size();
    ASSERT_TRUE(filter.erase(key)) << key;
    ASSERT_EQ(homeless_with_room(filter), "") << "after erasing " << key;
    if (filter.stash_size() < stash_before) ++rehomed_at_least;
  }
  EXPECT_EQ(filter.stash_size(), 0U);
  EXPECT_EQ(filter.size(), 0U);
  EXPECT_GT(rehomed_at_least, 0U);
}

TEST(FilterStashRehome, CuckooFilterStashDrainsThroughEitherBucket) {
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    stash_drains<CuckooFilter>(seed, 2);
    stash_drains<CuckooFilter>(seed, 4);
    if (HasFatalFailure()) return;
  }
}

TEST(FilterStashRehome, StripedFilterStashDrainsThroughEitherBucket) {
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    stash_drains<StripedConcurrentFilter>(seed, 2);
    stash_drains<StripedConcurrentFilter>(seed, 4);
    if (HasFatalFailure()) return;
  }
}

}  // namespace
