// Semi-sorted buckets: the nibble code (detail/semi_sorted.hpp), PackedTable's semi-sorted
// layout against a per-bucket multiset reference for every f it supports, and
// CuckooFilter with semi_sorted = true (configuration, space, answers, serialization).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "cuckoo/concurrent_filter.hpp"
#include "cuckoo/cuckoo_filter.hpp"
#include "cuckoo/detail/packed_table.hpp"
#include "cuckoo/detail/rng.hpp"
#include "cuckoo/detail/semi_sorted.hpp"
#include "cuckoo/detail/serial.hpp"
#include "support/test_seed.hpp"

namespace {

namespace ss = cuckoo::detail::semi_sorted;
using cuckoo::CuckooFilter;
using cuckoo::CuckooFilterConfig;
using cuckoo::InsertResult;
using cuckoo::detail::BucketLayout;
using cuckoo::detail::PackedTable;
using cuckoo::detail::Rng;
using cuckoo::test::seed_note;
using cuckoo::test::test_seed;

constexpr const char* kProgram = "engine/tests/semi_sorted_test";

TEST(SemiSortedCode, RanksEverySortedNibbleQuadToADistinctCodeAndBack) {
  std::set<std::uint32_t> codes;
  for (std::uint32_t a = 0; a < 16; ++a) {
    for (std::uint32_t b = a; b < 16; ++b) {
      for (std::uint32_t c = b; c < 16; ++c) {
        for (std::uint32_t d = c; d < 16; ++d) {
          const std::uint32_t code = ss::encode({a, b, c, d});
          ASSERT_LT(code, ss::kCodes) << a << b << c << d;
          codes.insert(code);
          EXPECT_EQ(ss::kDecode.quads[code], a | b << 4 | c << 8 | d << 12);
        }
      }
    }
  }
  EXPECT_EQ(codes.size(), ss::kCodes);  // a bijection onto 0..3875
  EXPECT_EQ(ss::encode({0, 0, 0, 0}), 0U);  // the empty bucket is all zero bits
  for (std::uint32_t code = ss::kCodes; code < ss::kDecode.quads.size(); ++code) {
    EXPECT_EQ(ss::kDecode.quads[code], 0U) << "invalid code " << code;
  }
}

TEST(SemiSortedCode, SortsByNibbleThenHighBits) {
  std::array<std::uint32_t, 4> v = {0x31, 0x12, 0x21, 0};
  ss::sort_slots(v);
  EXPECT_EQ(v, (std::array<std::uint32_t, 4>{0, 0x21, 0x31, 0x12}));
}

TEST(SemiSortedTable, SavesOneBitPerSlot) {
  for (unsigned f = 5; f <= 32; ++f) {
    EXPECT_EQ(PackedTable::bucket_bits_for(4, f, BucketLayout::kSemiSorted), 4 * f - 4) << f;
    EXPECT_EQ(PackedTable::data_bytes_for(1000, 4, f, BucketLayout::kSemiSorted),
              (1000 * (4 * f - 4) + 7) / 8)
        << f;
  }
  EXPECT_FALSE(PackedTable::layout_fits(BucketLayout::kSemiSorted, 4, 4));
  EXPECT_FALSE(PackedTable::layout_fits(BucketLayout::kSemiSorted, 2, 12));
  EXPECT_FALSE(PackedTable::layout_fits(BucketLayout::kSemiSorted, 8, 12));
  EXPECT_TRUE(PackedTable::layout_fits(BucketLayout::kSemiSorted, 4, 5));
}

// Random writes to a small semi-sorted table of every f in 5..32, each checked against a
// multiset per bucket: get/find/scan/count/contains answer as the multiset says, every
// bucket stays canonical, and neighbouring buckets are untouched (buckets straddle bytes).
TEST(SemiSortedTable, AgreesWithAMultisetPerBucketForEveryWidth) {
  const std::uint64_t seed = test_seed(0x5e3150);
  SCOPED_TRACE(seed_note(seed, kProgram));
  Rng rng(seed);
  constexpr std::uint32_t kBuckets = 7;
  for (unsigned f = 5; f <= 32; ++f) {
    SCOPED_TRACE("f=" + std::to_string(f));
    PackedTable t(kBuckets, 4, f, false, {}, BucketLayout::kSemiSorted);
    ASSERT_TRUE(t.semi_sorted());
    ASSERT_FALSE(t.one_word());
    std::vector<std::multiset<std::uint32_t>> ref(kBuckets);
    const std::uint64_t fp_mask = (std::uint64_t{1} << f) - 1;
    // Fingerprints drawn from a few values, so that duplicates and shared nibbles (and
    // shared high parts) are common.
    std::array<std::uint32_t, 6> pool{};
    for (auto& v : pool) v = static_cast<std::uint32_t>(std::max<std::uint64_t>(1, rng.next() & fp_mask));
    pool[1] = (pool[0] & ~15U) | ((pool[0] + 1) & 15U);  // same high part, other nibble
    pool[2] = (pool[0] & 15U) | (static_cast<std::uint32_t>(rng.next() & fp_mask) & ~15U);  // same nibble
    if (pool[2] == 0) pool[2] = pool[0];
    for (int step = 0; step < 1500; ++step) {
      const auto i = static_cast<std::uint32_t>(rng.below(kBuckets));
      const std::uint32_t fp = rng.below(4) == 0 ? static_cast<std::uint32_t>(std::max<std::uint64_t>(
                                                       1, rng.next() & fp_mask))
                                                 : pool[rng.below(pool.size())];
      if (rng.below(2) == 0) {
        const bool placed = t.try_place(i, fp);
        ASSERT_EQ(placed, ref[i].size() < 4);
        if (placed) ref[i].insert(fp);
      } else {
        const bool removed = t.remove_one(i, fp);
        ASSERT_EQ(removed, ref[i].count(fp) > 0);
        if (removed) ref[i].erase(ref[i].find(fp));
      }
      for (std::uint32_t j = 0; j < kBuckets; ++j) {
        ASSERT_TRUE(t.bucket_is_canonical(j)) << "bucket " << j << " step " << step;
        std::multiset<std::uint32_t> got;
        for (unsigned s = 0; s < 4; ++s) {
          if (t.get(j, s) != 0) got.insert(t.get(j, s));
        }
        ASSERT_EQ(got, ref[j]) << "bucket " << j << " step " << step;
        for (const std::uint32_t probe : {fp, pool[0], pool[1], pool[2], 1U}) {
          const bool in = ref[j].count(probe) > 0;
          ASSERT_EQ(t.contains(j, probe), in) << "bucket " << j << " probe " << probe;
          ASSERT_EQ(t.find(j, probe) != PackedTable::kNoSlot, in);
          ASSERT_EQ(t.count(j, probe), ref[j].count(probe));
          const auto scan = t.scan(j, probe);
          ASSERT_EQ(scan.copies, ref[j].count(probe));
          ASSERT_EQ(scan.free_slot != PackedTable::kNoSlot, ref[j].size() < 4);
        }
      }
    }
    std::uint64_t stored = 0;
    for (const auto& r : ref) stored += r.size();
    EXPECT_EQ(t.count_nonzero(), stored);
    EXPECT_TRUE(t.padding_is_zero());
  }
}

// Bit corruptions of a canonical table are caught by bucket_is_canonical: a code of 3876
// or more, and two slots with equal nibbles whose high parts are out of order.
TEST(SemiSortedTable, NonCanonicalBucketsAreDetected) {
  PackedTable t(2, 4, 12, false, {}, BucketLayout::kSemiSorted);
  t.write_bits(0, 12, ss::kCodes);  // first invalid code
  EXPECT_FALSE(t.bucket_is_canonical(0));
  EXPECT_TRUE(t.bucket_is_canonical(1));
  t.clear();
  ASSERT_TRUE(t.try_place(0, 0x105));
  ASSERT_TRUE(t.try_place(0, 0x205));
  ASSERT_TRUE(t.bucket_is_canonical(0));
  // Both have nibble 5: code for {0, 0, 5, 5}; high parts at slots 2 and 3 are 0x10, 0x20.
  // Swap them.
  const unsigned h = 8;
  t.write_bits(12 + 2 * h, h, 0x20);
  t.write_bits(12 + 3 * h, h, 0x10);
  EXPECT_FALSE(t.bucket_is_canonical(0));
}

CuckooFilterConfig semi_config(std::uint64_t capacity, unsigned f, std::uint64_t seed) {
  CuckooFilterConfig c;
  c.capacity = capacity;
  c.fingerprint_bits = f;
  c.slots_per_bucket = 4;
  c.seed = seed;
  c.semi_sorted = true;
  return c;
}

TEST(SemiSortedFilter, RejectsShapesWithoutFourSlotsOrWithFourBitFingerprints) {
  for (const auto& [f, b] : {std::pair{12U, 2U}, std::pair{12U, 8U}, std::pair{4U, 4U}}) {
    CuckooFilterConfig c = semi_config(100, f, 1);
    c.slots_per_bucket = b;
    try {
      CuckooFilter filter(c);
      ADD_FAILURE() << "f=" << f << " b=" << b << " accepted";
    } catch (const cuckoo::ConfigError& e) {
      EXPECT_EQ(e.field(), "semi_sorted");
      EXPECT_NE(std::string(e.what()).find("slots_per_bucket = 4 and fingerprint_bits >= 5"),
                std::string::npos)
          << e.what();
    }
  }
  try {
    cuckoo::StripedConcurrentFilter striped(semi_config(100, 12, 1));
    ADD_FAILURE() << "the striped filter accepted semi_sorted";
  } catch (const cuckoo::ConfigError& e) {
    EXPECT_EQ(e.field(), "semi_sorted");
  }
  // The coarse design wraps CuckooFilter and keeps its layout.
  cuckoo::CoarseConcurrentFilter coarse(semi_config(100, 12, 1));
  EXPECT_EQ(coarse.insert(7), InsertResult::kInserted);
  EXPECT_TRUE(coarse.contains(7));
}

// A full semi-sorted filter: every inserted key is found (C1), its space is (f - 1) / load
// and one bit a slot below the unsorted filter's of the same shape, its load at the
// first failure is a cuckoo filter's, and its false-positive rate is that of f bits.
TEST(SemiSortedFilter, FillsToTheUnsortedLoadWithOneBitPerSlotLess) {
  const std::uint64_t seed = test_seed(0x5e3151);
  SCOPED_TRACE(seed_note(seed, kProgram));
  for (const unsigned f : {5U, 9U, 12U, 16U, 17U, 24U, 32U}) {
    SCOPED_TRACE("f=" + std::to_string(f));
    CuckooFilter semi(semi_config(1 << 14, f, seed));
    CuckooFilterConfig unsorted_config = semi_config(1 << 14, f, seed);
    unsorted_config.semi_sorted = false;
    const CuckooFilter unsorted(unsorted_config);
    ASSERT_TRUE(semi.semi_sorted());
    EXPECT_EQ(semi.memory_bytes() + semi.slot_count() / 8, unsorted.memory_bytes());
    std::uint64_t n = 0;
    while (semi.stats().kick_failures == 0 && n < semi.slot_count()) {
      ASSERT_EQ(semi.insert(n), InsertResult::kInserted);
      ++n;
    }
    EXPECT_GT(semi.load_factor(), 0.93);
    EXPECT_NEAR(semi.bits_per_item(), (f - 1) / semi.load_factor(), 1e-9);
    for (std::uint64_t k = 0; k < n; ++k) ASSERT_TRUE(semi.contains(k)) << "false negative " << k;
    if (f >= 9) {
      std::uint64_t hits = 0;
      constexpr std::uint64_t kQueries = 200'000;
      for (std::uint64_t k = 0; k < kQueries; ++k) hits += semi.contains(~k) ? 1 : 0;
      // Expected about 8 * load / 2^f; at most 3x that plus 10 (far beyond noise).
      const double expected = 8.0 * semi.load_factor() / static_cast<double>(1U << std::min(f, 30U));
      EXPECT_LE(static_cast<double>(hits), 3 * expected * kQueries + 10) << hits;
    }
    for (std::uint64_t k = 0; k < n; k += 2) ASSERT_TRUE(semi.erase(k));
    for (std::uint64_t k = 1; k < n; k += 2) ASSERT_TRUE(semi.contains(k)) << "after erases " << k;
    EXPECT_EQ(semi.size(), n / 2);
  }
}

TEST(SemiSortedFilter, SerializesItsLayoutAndRejectsNonCanonicalBuckets) {
  const std::uint64_t seed = test_seed(0x5e3152);
  SCOPED_TRACE(seed_note(seed, kProgram));
  CuckooFilter filter(semi_config(4000, 13, seed));
  for (std::uint64_t k = 0; k < 3000; ++k) ASSERT_EQ(filter.insert(k * 7), InsertResult::kInserted);
  const std::vector<std::uint8_t> bytes = filter.serialize();
  const CuckooFilter copy = CuckooFilter::deserialize(bytes);
  EXPECT_TRUE(copy.semi_sorted());
  EXPECT_EQ(copy, filter);
  for (std::uint64_t k = 0; k < 3000; ++k) ASSERT_TRUE(copy.contains(k * 7));
  CuckooFilterConfig unsorted = semi_config(4000, 13, seed);
  unsorted.semi_sorted = false;
  EXPECT_FALSE(CuckooFilter(unsorted) == CuckooFilter(semi_config(4000, 13, seed)));

  // Corrupt bucket 0's code to 4095 (the table's first 12 bits: the last 12 + ... bytes
  // of the payload hold the table; find it from the end).
  std::vector<std::uint8_t> forged = bytes;
  const std::size_t table_bytes = (std::size_t{filter.bucket_count()} * (4 * 13 - 4) + 7) / 8;
  const std::size_t table_start = forged.size() - cuckoo::detail::kEnvelopeTrailerSize - table_bytes;
  forged[table_start] = 0xff;
  forged[table_start + 1] |= 0x0f;
  const auto body = std::span<std::uint8_t>(forged).first(forged.size() - cuckoo::detail::kEnvelopeTrailerSize);
  const std::uint64_t sum = cuckoo::detail::envelope_checksum(body.data(), body.size());
  for (unsigned i = 0; i < 8; ++i) {
    forged[body.size() + i] = static_cast<std::uint8_t>(sum >> (8 * i));
  }
  try {
    (void)CuckooFilter::deserialize(forged);
    FAIL() << "a bucket with code 4095 was accepted";
  } catch (const cuckoo::DeserializeError& e) {
    EXPECT_EQ(e.code(), cuckoo::DeserializeErrc::kInconsistent);
    EXPECT_NE(std::string(e.what()).find("semi-sorted bucket 0 is not canonical"), std::string::npos)
        << e.what();
  }
}

}  // namespace
