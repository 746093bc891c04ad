// CuckooFilterConfig::huge_pages on the concurrent filters: the coarse, the striped and
// the lock-free filter honour it (their tables in a 2 MiB-aligned buffer advised MADV_HUGEPAGE, as
// CuckooFilter's), report it through huge_pages(), and answer exactly as without it.
#include <gtest/gtest.h>

#include <cstdint>

#include "cuckoo/concurrent_filter.hpp"
#include "cuckoo/lock_free_filter.hpp"

namespace {

cuckoo::CuckooFilterConfig config(bool huge_pages) {
  cuckoo::CuckooFilterConfig c;
  c.capacity = std::uint64_t{1} << 21;  // tables of 4 MiB and more: huge pages apply
  c.fingerprint_bits = 12;
  c.slots_per_bucket = 4;
  c.seed = 11;
  c.huge_pages = huge_pages;
  return c;
}

template <class F>
void check_same_answers() {
  F plain(config(false));
  F huge(config(true));
  EXPECT_FALSE(plain.huge_pages());
  EXPECT_TRUE(huge.huge_pages());
  constexpr std::uint64_t kKeys = 700'000;  // about 33 % load
  for (std::uint64_t k = 0; k < kKeys; ++k) {
    ASSERT_EQ(plain.insert(k), huge.insert(k)) << k;
  }
  for (std::uint64_t k = 0; k < 2 * kKeys; k += 7) {
    ASSERT_EQ(plain.contains(k), huge.contains(k)) << k;
    if (k < kKeys) {
      ASSERT_TRUE(huge.contains(k)) << k;
    }
  }
  EXPECT_EQ(plain.size(), huge.size());
  if constexpr (requires { plain.memory_bytes(); }) {
    EXPECT_EQ(plain.memory_bytes(), huge.memory_bytes());
  }
}

TEST(ConcurrentFilterHugePages, TheCoarseFilterHonoursIt) {
  check_same_answers<cuckoo::CoarseConcurrentFilter>();
}

TEST(ConcurrentFilterHugePages, TheStripedFilterHonoursIt) {
  check_same_answers<cuckoo::StripedConcurrentFilter>();
}

TEST(ConcurrentFilterHugePages, TheLockFreeFilterHonoursIt) {
  check_same_answers<cuckoo::LockFreeFilter>();
}

}  // namespace
