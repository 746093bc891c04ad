// Tests of CuckooFilter (cuckoo_filter.hpp) and its bit-packed storage
// (detail/packed_table.hpp). Every randomized test uses a fixed seed and reports it on
// failure.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <concepts>
#include <cstdint>
#include <limits>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "cuckoo/cuckoo_filter.hpp"
#include "cuckoo/detail/packed_table.hpp"
#include "cuckoo/detail/rng.hpp"
#include "cuckoo/detail/serial.hpp"

namespace {

using cuckoo::BasicCuckooFilter;
using cuckoo::ConfigError;
using cuckoo::CuckooFilter;
using cuckoo::CuckooFilterConfig;
using cuckoo::CuckooFilterPlacement;
using cuckoo::DeserializeErrc;
using cuckoo::DeserializeError;
using cuckoo::InsertResult;
using cuckoo::detail::PackedTable;
using cuckoo::detail::Rng;

constexpr std::array<unsigned, 4> kSlotChoices = {1, 2, 4, 8};

// Returns the key itself as its hash, so that a test chooses every item's placement.
struct IdentityHasher {
  template <std::integral T>
  std::uint64_t operator()(T key, std::uint64_t /*seed*/) const noexcept {
    return static_cast<std::uint64_t>(key);
  }
};
using IdentityFilter = BasicCuckooFilter<IdentityHasher>;

CuckooFilterConfig make_config(std::uint64_t capacity, unsigned f, unsigned b,
                               std::uint64_t seed, unsigned max_kicks = 500) {
  CuckooFilterConfig c;
  c.capacity = capacity;
  c.fingerprint_bits = f;
  c.slots_per_bucket = b;
  c.max_kicks = max_kicks;
  c.seed = seed;
  return c;
}

// A hash whose first bucket is `bucket` (of n) and whose low bits are `low`.
std::uint64_t hash_for(std::uint32_t bucket, std::uint32_t n, std::uint32_t low) {
  // The smallest x with reduce32(x, n) == bucket is ceil(bucket * 2^32 / n).
  const std::uint64_t hi = ((std::uint64_t{bucket} << 32) + n - 1) / n;
  return (hi << 32) | low;
}

std::uint64_t fingerprint_mask(unsigned f) { return (std::uint64_t{1} << f) - 1; }

// Counts nonzero slots and checks each is a valid f-bit fingerprint.
template <class Filter>
std::uint64_t stored_in_table(const Filter& filter) {
  std::uint64_t n = 0;
  for (std::uint32_t i = 0; i < filter.bucket_count(); ++i) {
    for (unsigned s = 0; s < filter.slots_per_bucket(); ++s) {
      const std::uint32_t fp = filter.fingerprint_at(i, s);
      EXPECT_LE(fp, fingerprint_mask(filter.fingerprint_bits())) << "bucket " << i;
      n += fp != 0 ? 1 : 0;
    }
  }
  return n;
}

// ---------------------------------------------------------------------------------------
// PackedTable

TEST(PackedTable, ReadWriteBitsMatchABitModel) {
  const std::uint64_t seed = 0x5eed0001;
  SCOPED_TRACE(::testing::Message() << "seed=" << seed);
  PackedTable table(50, 8, 32);  // 12800 bits
  const std::uint64_t total_bits = 50ULL * 8 * 32;
  std::vector<bool> model(total_bits, false);
  Rng rng(seed);
  for (int op = 0; op < 20000; ++op) {
    const auto nbits = static_cast<unsigned>(1 + rng.below(64));
    const std::uint64_t offset = rng.below(total_bits - nbits + 1);
    if (rng.below(2) == 0) {
      const std::uint64_t value = rng.next();
      table.write_bits(offset, nbits, value);
      for (unsigned k = 0; k < nbits; ++k) model[offset + k] = ((value >> k) & 1) != 0;
    } else {
      std::uint64_t expected = 0;
      for (unsigned k = 0; k < nbits; ++k) {
        expected |= static_cast<std::uint64_t>(model[offset + k]) << k;
      }
      ASSERT_EQ(table.read_bits(offset, nbits), expected)
          << "op " << op << " offset " << offset << " nbits " << nbits;
    }
  }
  EXPECT_TRUE(table.padding_is_zero());
}

TEST(PackedTable, BucketsAreContiguousInBits) {
  PackedTable table(1000, 4, 12);
  EXPECT_EQ(table.data_bytes(), 1000U * 48 / 8);
  EXPECT_GE(table.allocated_bytes(), table.data_bytes() + 9);
  PackedTable odd(3, 1, 5);  // 15 bits
  EXPECT_EQ(odd.data_bytes(), 2U);
  odd.set(2, 0, 31);
  EXPECT_EQ(odd.data()[1], 0x7c);  // bits 10..14
  EXPECT_TRUE(odd.padding_is_zero());
  odd.mutable_data()[1] |= 0x80;  // bit 15 is beyond the last bucket
  EXPECT_FALSE(odd.padding_is_zero());
}

// The SWAR match must agree exactly (same first slot) with the per-slot loop for every
// width and bucket size, including near-miss values that exercise borrows.
TEST(PackedTable, SwarFindAgreesWithReferenceForEveryShape) {
  const std::uint64_t seed = 0x5eed0002;
  Rng rng(seed);
  constexpr std::uint32_t kBuckets = 16;
  for (unsigned f = 4; f <= 32; ++f) {
    for (unsigned b : kSlotChoices) {
      SCOPED_TRACE(::testing::Message() << "seed=" << seed << " f=" << f << " b=" << b);
      PackedTable table(kBuckets, b, f);
      const auto mask = static_cast<std::uint32_t>(fingerprint_mask(f));
      const std::uint32_t high = std::uint32_t{1} << (f - 1);
      for (int round = 0; round < 20; ++round) {
        const auto r = static_cast<std::uint32_t>(rng.next() & mask);
        const std::array<std::uint32_t, 12> alphabet = {
            0, 1, 2, mask, mask - 1, high, high + 1, high - 1, r, r ^ 1U, (r + 1) & mask,
            static_cast<std::uint32_t>(rng.next() & mask)};
        for (std::uint32_t i = 0; i < kBuckets; ++i) {
          for (unsigned s = 0; s < b; ++s) table.set(i, s, alphabet[rng.below(alphabet.size())]);
        }
        for (std::uint32_t i = 0; i < kBuckets; ++i) {
          for (std::uint32_t q : alphabet) {
            ASSERT_EQ(table.find(i, q), table.find_reference(i, q))
                << "round " << round << " bucket " << i << " query " << q;
          }
          const auto random_query = static_cast<std::uint32_t>(rng.next() & mask);
          ASSERT_EQ(table.find(i, random_query), table.find_reference(i, random_query));
        }
      }
    }
  }
}

// The one-word probe (contains_one_word, used by contains() for every shape whose bucket
// fits one load) must answer as the per-slot loop does, for buckets at every bit offset
// within a byte, and also when the bits after the bucket (the next bucket, or the
// padding after the last one) hold matching or empty fields.
void expect_one_word_probe_matches_reference(unsigned bits, unsigned slots, Rng& rng,
                                             std::uint64_t seed) {
  SCOPED_TRACE(::testing::Message() << "seed=" << seed << " f=" << bits << " b=" << slots);
  constexpr std::uint32_t kBuckets = 17;  // 17 buckets: every bit offset mod 8 occurs
  constexpr int kRounds = 12;
  PackedTable table(kBuckets, slots, bits);
  ASSERT_TRUE(table.one_word());
  const auto mask = static_cast<std::uint32_t>(fingerprint_mask(bits));
  const std::uint32_t high = std::uint32_t{1} << (bits - 1);
  for (int round = 0; round < kRounds; ++round) {
    const auto r = static_cast<std::uint32_t>(rng.next() & mask);
    const std::array<std::uint32_t, 10> alphabet = {0, 1, 2, mask, mask - 1, high, high + 1,
                                                    high - 1, r, r ^ 1U};
    for (std::uint32_t i = 0; i < kBuckets; ++i) {
      for (unsigned s = 0; s < slots; ++s) table.set(i, s, alphabet[rng.below(alphabet.size())]);
    }
    for (std::uint32_t i = 0; i < kBuckets; ++i) {
      for (std::uint32_t q : alphabet) {
        ASSERT_EQ(table.contains_one_word(i, q), table.find_reference(i, q) != PackedTable::kNoSlot)
            << "round " << round << " bucket " << i << " query " << q;
      }
    }
  }
}

TEST(PackedTable, OneWordProbeAgreesWithReferenceForEveryOneWordShape) {
  const std::uint64_t seed = 0x5eed0003;
  Rng rng(seed);
  int shapes = 0;
  for (unsigned slots : {1U, 2U, 4U, 8U}) {
    for (unsigned bits = PackedTable::kMinBits; bits <= PackedTable::kMaxBits; ++bits) {
      if (!PackedTable::is_one_word_shape(bits, slots)) continue;
      expect_one_word_probe_matches_reference(bits, slots, rng, seed);
      ++shapes;
    }
  }
  // b = 1: 29 widths; b = 2: 4..28 and 32; b = 4: 4..14 and 16; b = 8: 4..7 and 8.
  EXPECT_EQ(shapes, 29 + 26 + 12 + 5);
}

TEST(PackedTable, OneWordShapesAreThoseWhoseBucketFitsOneLoad) {
  EXPECT_TRUE(PackedTable::is_one_word_shape(12, 4));   // 48 bits
  EXPECT_TRUE(PackedTable::is_one_word_shape(14, 4));   // 56 bits + offset <= 7
  EXPECT_TRUE(PackedTable::is_one_word_shape(16, 4));   // 8 whole bytes, offset 0
  EXPECT_TRUE(PackedTable::is_one_word_shape(32, 2));   // 8 whole bytes, offset 0
  EXPECT_FALSE(PackedTable::is_one_word_shape(15, 4));  // 60 bits at offset 4: 64 + 4 bits
  EXPECT_FALSE(PackedTable::is_one_word_shape(30, 2));
  EXPECT_FALSE(PackedTable::is_one_word_shape(9, 8));
  EXPECT_FALSE(PackedTable(4, 4, 15).one_word());
  EXPECT_TRUE(PackedTable(4, 4, 13).one_word());
}

// ---------------------------------------------------------------------------------------
// Configuration

void expect_config_error(const CuckooFilterConfig& config, const std::string& field,
                         const std::string& mentions) {
  try {
    CuckooFilter filter(config);
    ADD_FAILURE() << "accepted a configuration with a bad " << field;
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.field(), field) << e.what();
    EXPECT_NE(std::string(e.what()).find(mentions), std::string::npos) << e.what();
  }
}

TEST(CuckooFilterConfig, RejectsEachInvalidFieldByName) {
  const auto ok = make_config(1024, 12, 4, 1);
  auto c = ok;
  c.fingerprint_bits = 0;
  expect_config_error(c, "fingerprint_bits", "4..32");
  c.fingerprint_bits = 3;
  expect_config_error(c, "fingerprint_bits", "is 3");
  c.fingerprint_bits = 33;
  expect_config_error(c, "fingerprint_bits", "is 33");
  c = ok;
  c.slots_per_bucket = 3;
  expect_config_error(c, "slots_per_bucket", "is 3");
  c.slots_per_bucket = 0;
  expect_config_error(c, "slots_per_bucket", "1, 2, 4 or 8");
  c.slots_per_bucket = 16;
  expect_config_error(c, "slots_per_bucket", "is 16");
  c = ok;
  c.capacity = 0;
  expect_config_error(c, "capacity", "is 0");
  c.capacity = std::uint64_t{1} << 62;
  expect_config_error(c, "capacity", "buckets");
  // Fits in 2^32 - 1 buckets but the table (128 GiB) is over the allocation limit.
  c = make_config(8 * CuckooFilterConfig::kMaxBucketCount, 32, 8, 1);
  expect_config_error(c, "capacity", "too large to allocate");
  c = ok;
  c.max_kicks = 0;
  expect_config_error(c, "max_kicks", "is 0");
  c.max_kicks = CuckooFilterConfig::kMaxKicksLimit + 1;
  expect_config_error(c, "max_kicks", "1..");
  // The limits themselves are accepted.
  c = make_config(1, 4, 1, 1, 1);
  EXPECT_NO_THROW(CuckooFilter{c});
  c = make_config(8, 32, 8, 1, CuckooFilterConfig::kMaxKicksLimit);
  EXPECT_NO_THROW(CuckooFilter{c});
}

TEST(CuckooFilterConfig, CapacityRoundsUpToWholeBuckets) {
  EXPECT_EQ(CuckooFilter(make_config(13, 12, 4, 1)).bucket_count(), 4U);
  EXPECT_EQ(CuckooFilter(make_config(12, 12, 4, 1)).bucket_count(), 3U);
  EXPECT_EQ(CuckooFilter(make_config(1, 12, 8, 1)).bucket_count(), 1U);
  EXPECT_EQ(CuckooFilter(make_config(12345, 16, 1, 1)).bucket_count(), 12345U);
  const CuckooFilter f(make_config(1000, 12, 4, 1));
  EXPECT_EQ(f.slot_count(), 1000U);
  EXPECT_EQ(f.fingerprint_bits(), 12U);
  EXPECT_EQ(f.slots_per_bucket(), 4U);
  EXPECT_EQ(f.max_kicks(), 500U);
  EXPECT_EQ(f.seed(), 1U);
}

TEST(CuckooFilterConfig, ForItemsPlansBelowTheReachableLoad) {
  const auto c = CuckooFilterConfig::for_items(1000, 12, 4);
  EXPECT_EQ(c.capacity, 1087U);  // ceil(1000 / 0.92)
  EXPECT_EQ(c.fingerprint_bits, 12U);
  EXPECT_EQ(c.slots_per_bucket, 4U);
  EXPECT_EQ(CuckooFilterConfig::for_items(1000, 8, 1).capacity, 2223U);  // / 0.45
  EXPECT_EQ(CuckooFilterConfig::for_items(0).capacity, 1U);
  EXPECT_EQ(CuckooFilterConfig::for_items(std::numeric_limits<std::uint64_t>::max()).capacity,
            std::numeric_limits<std::uint64_t>::max());

  // The planned items do fit without a kick failure.
  for (unsigned b : kSlotChoices) {
    auto config = CuckooFilterConfig::for_items(5000, 16, b);
    config.seed = 77;
    SCOPED_TRACE(::testing::Message() << "seed=77 b=" << b);
    CuckooFilter filter(config);
    for (std::uint64_t k = 0; k < 5000; ++k) ASSERT_EQ(filter.insert(k), InsertResult::kInserted);
    EXPECT_EQ(filter.stats().kick_failures, 0U);
  }
}

TEST(CuckooFilterConfig, SeedIsDrawnWhenAbsent) {
  CuckooFilterConfig c;
  c.capacity = 64;
  const CuckooFilter a(c);
  const CuckooFilter b(c);
  EXPECT_NE(a.seed(), b.seed());  // 2^-64 chance of a false failure
}

// ---------------------------------------------------------------------------------------
// Basic operations

TEST(CuckooFilter, EmptyFilterHoldsNothing) {
  CuckooFilter filter(make_config(1024, 12, 4, 3));
  EXPECT_EQ(filter.size(), 0U);
  EXPECT_TRUE(filter.empty());
  EXPECT_EQ(filter.load_factor(), 0.0);
  EXPECT_TRUE(std::isinf(filter.bits_per_item()));
  EXPECT_EQ(filter.stash_size(), 0U);
  EXPECT_EQ(stored_in_table(filter), 0U);
  for (std::uint64_t k = 0; k < 1000; ++k) {
    EXPECT_FALSE(filter.contains(k));
    EXPECT_FALSE(filter.erase(k));
  }
  EXPECT_EQ(filter.size(), 0U);
  EXPECT_EQ(filter.stats(), cuckoo::CuckooFilterStats{});
}

TEST(CuckooFilter, OneItem) {
  CuckooFilter filter(make_config(1024, 16, 4, 4));
  EXPECT_EQ(filter.insert(42), InsertResult::kInserted);
  EXPECT_TRUE(filter.contains(42));
  EXPECT_EQ(filter.size(), 1U);
  EXPECT_EQ(stored_in_table(filter), 1U);
  const CuckooFilterPlacement p = filter.placement(42);
  EXPECT_NE(p.fingerprint, 0U);
  EXPECT_EQ(p.bucket2, filter.alt_bucket(p.bucket1, p.fingerprint));
  bool in_a_candidate = false;
  for (unsigned s = 0; s < 4; ++s) {
    in_a_candidate |= filter.fingerprint_at(p.bucket1, s) == p.fingerprint ||
                      filter.fingerprint_at(p.bucket2, s) == p.fingerprint;
  }
  EXPECT_TRUE(in_a_candidate);
  EXPECT_EQ(filter.stats().inserts, 1U);
  EXPECT_TRUE(filter.erase(42));
  EXPECT_FALSE(filter.contains(42));
  EXPECT_FALSE(filter.erase(42));
  EXPECT_EQ(filter.size(), 0U);
  EXPECT_EQ(stored_in_table(filter), 0U);
}

TEST(CuckooFilter, IntegerAndStringKeys) {
  CuckooFilter filter(make_config(1024, 20, 4, 5));
  EXPECT_EQ(filter.insert(7), InsertResult::kInserted);
  EXPECT_TRUE(filter.contains(std::uint64_t{7}));  // integers hash by value
  EXPECT_TRUE(filter.contains(std::int16_t{7}));
  EXPECT_EQ(filter.insert(std::int64_t{-5}), InsertResult::kInserted);
  EXPECT_TRUE(filter.contains(-5));

  EXPECT_EQ(filter.insert("apple"), InsertResult::kInserted);
  EXPECT_TRUE(filter.contains(std::string("apple")));
  EXPECT_TRUE(filter.contains(std::string_view("apple")));
  const char* pointer = "apple";
  EXPECT_TRUE(filter.contains(pointer));
  EXPECT_EQ(filter.insert(std::string("pear")), InsertResult::kInserted);
  EXPECT_TRUE(filter.contains("pear"));
  EXPECT_EQ(filter.insert(std::string_view("")), InsertResult::kInserted);
  EXPECT_TRUE(filter.contains(""));
  EXPECT_EQ(filter.hash_of("apple"), cuckoo::DefaultHasher{}(std::string_view("apple"), 5));
  EXPECT_TRUE(filter.erase("apple"));
  EXPECT_TRUE(filter.erase(std::string("pear")));
  EXPECT_EQ(filter.size(), 3U);
}

TEST(CuckooFilter, HashLevelEntryPointsMatchKeyLevel) {
  CuckooFilter filter(make_config(512, 16, 2, 6));
  for (std::uint64_t k = 0; k < 200; ++k) {
    const std::uint64_t h = filter.hash_of(k);
    EXPECT_EQ(filter.placement(k), filter.placement_of_hash(h));
    EXPECT_EQ(filter.max_copies(k), filter.max_copies_of_hash(h));
    EXPECT_EQ(filter.insert_hash(h), InsertResult::kInserted);
    EXPECT_TRUE(filter.contains(k));
    EXPECT_TRUE(filter.contains_hash(h));
  }
  for (std::uint64_t k = 0; k < 200; ++k) EXPECT_TRUE(filter.erase_hash(filter.hash_of(k)));
  EXPECT_EQ(filter.size(), 0U);
}

// Fills 2^14-slot tables until the first kick failure (C3) and on until kFull (C6):
// nothing inserted is ever lost, and kFull changes nothing.
TEST(CuckooFilter, FillUntilFailureLosesNothing) {
  const std::uint64_t seed = 0x5eed0003;
  constexpr std::uint64_t kSlots = 1 << 14;
  // Loose lower bounds on the load at the first kick failure, with max_kicks = 500.
  const std::array<double, 4> min_load = {0.35, 0.70, 0.90, 0.93};
  for (std::size_t bi = 0; bi < kSlotChoices.size(); ++bi) {
    const unsigned b = kSlotChoices[bi];
    SCOPED_TRACE(::testing::Message() << "seed=" << seed << " b=" << b);
    CuckooFilter filter(make_config(kSlots, 16, b, seed));
    std::vector<std::uint64_t> inserted;
    double load_at_first_failure = -1;
    std::uint64_t key = 0;
    for (; key < 2 * kSlots; ++key) {
      const CuckooFilter before = filter;
      const InsertResult r = filter.insert(key);
      if (r == InsertResult::kFull) {
        EXPECT_TRUE(filter == before) << "kFull changed the filter";
        EXPECT_EQ(filter.stash_size(), CuckooFilter::kStashSlots);
        break;
      }
      ASSERT_EQ(r, InsertResult::kInserted) << "key " << key;
      inserted.push_back(key);
      if (filter.stats().kick_failures == 1 && load_at_first_failure < 0) {
        load_at_first_failure = filter.load_factor();
        for (std::uint64_t k : inserted) ASSERT_TRUE(filter.contains(k)) << "key " << k;
      }
    }
    ASSERT_LT(key, 2 * kSlots) << "never returned kFull";
    EXPECT_GT(load_at_first_failure, min_load[bi]);
    EXPECT_EQ(filter.size(), inserted.size());
    EXPECT_EQ(filter.stats().kick_failures, CuckooFilter::kStashSlots);
    EXPECT_EQ(filter.stats().full_rejections, 1U);
    EXPECT_EQ(stored_in_table(filter) + filter.stash_size(), filter.size());
    for (std::uint64_t k : inserted) ASSERT_TRUE(filter.contains(k)) << "key " << k;
    // Repeated failures change nothing either.
    const CuckooFilter full = filter;
    for (std::uint64_t k = key; k < key + 50; ++k) {
      const InsertResult r = filter.insert(k);
      if (r == InsertResult::kInserted) {  // a free slot in a candidate bucket
        EXPECT_TRUE(filter.erase(k));
        continue;
      }
      EXPECT_EQ(r, InsertResult::kFull);
    }
    EXPECT_TRUE(filter == full);
    // bits per item is f / load.
    EXPECT_NEAR(filter.bits_per_item(), 16.0 / filter.load_factor(), 1e-9);
    EXPECT_GE(filter.memory_bytes(), kSlots * 16 / 8);
  }
}

TEST(CuckooFilter, DuplicatesUpToTwoBCopiesThenEraseOneByOne) {
  for (unsigned b : kSlotChoices) {
    SCOPED_TRACE(::testing::Message() << "seed=8 b=" << b);
    CuckooFilter filter(make_config(4096, 12, b, 8));
    std::uint64_t key = 0;
    while (filter.placement(key).bucket1 == filter.placement(key).bucket2) ++key;
    ASSERT_EQ(filter.max_copies(key), 2 * b);
    for (unsigned copy = 0; copy < 2 * b; ++copy) {
      ASSERT_EQ(filter.insert(key), InsertResult::kInserted) << "copy " << copy;
    }
    EXPECT_EQ(filter.insert(key), InsertResult::kDuplicateLimit);
    EXPECT_EQ(filter.insert(key), InsertResult::kDuplicateLimit);
    EXPECT_EQ(filter.size(), 2 * b);
    EXPECT_EQ(filter.stats().duplicate_rejections, 2U);
    for (unsigned copy = 0; copy < 2 * b; ++copy) {
      EXPECT_TRUE(filter.contains(key)) << "copy " << copy;
      EXPECT_TRUE(filter.erase(key)) << "copy " << copy;
    }
    EXPECT_FALSE(filter.contains(key));
    EXPECT_FALSE(filter.erase(key));
    EXPECT_EQ(filter.size(), 0U);
  }
}

TEST(CuckooFilter, ItemWithOneBucketHoldsBCopies) {
  for (unsigned b : kSlotChoices) {
    SCOPED_TRACE(::testing::Message() << "b=" << b);
    IdentityFilter filter(make_config(b, 8, b, 9));  // one bucket: i1 == i2 always
    ASSERT_EQ(filter.bucket_count(), 1U);
    const std::uint64_t h = 0x1234567800000042ULL;
    EXPECT_EQ(filter.max_copies(h), b);
    for (unsigned copy = 0; copy < b; ++copy) ASSERT_EQ(filter.insert(h), InsertResult::kInserted);
    EXPECT_EQ(filter.insert(h), InsertResult::kDuplicateLimit);
    EXPECT_EQ(filter.stash_size(), 0U);
  }
}

// Copies in the stash count toward the duplicate limit.
TEST(CuckooFilter, DuplicateLimitCountsStashCopies) {
  IdentityFilter filter(make_config(2, 8, 1, 10));  // two buckets of one slot
  ASSERT_EQ(filter.bucket_count(), 2U);
  // Fingerprints whose pair is {0, 1}.
  std::vector<std::uint32_t> fps;
  for (std::uint32_t fp = 1; fp < 256 && fps.size() < 2; ++fp) {
    if (filter.alt_bucket(0, fp) == 1) fps.push_back(fp);
  }
  ASSERT_EQ(fps.size(), 2U);
  const std::uint64_t a = hash_for(0, 2, fps[0]);
  const std::uint64_t b = hash_for(0, 2, fps[1]);
  EXPECT_EQ(filter.insert(a), InsertResult::kInserted);
  EXPECT_EQ(filter.insert(b), InsertResult::kInserted);
  EXPECT_EQ(filter.insert(a), InsertResult::kInserted);  // a walk; something goes to the stash
  EXPECT_EQ(filter.stash_size(), 1U);
  EXPECT_EQ(filter.insert(a), InsertResult::kDuplicateLimit);
  EXPECT_TRUE(filter.contains(a));
  EXPECT_TRUE(filter.contains(b));
  EXPECT_EQ(filter.size(), 3U);
}

// Every key forced into the same two buckets: the table fills, then the stash, then
// inserts fail cleanly; erase finds stash entries, and erasing from the table moves a
// stash entry back.
TEST(CuckooFilter, StashHoldsHomelessItemsAndEraseFindsThem) {
  for (unsigned b : kSlotChoices) {
    SCOPED_TRACE(::testing::Message() << "seed=11 b=" << b);
    IdentityFilter filter(make_config(2 * b, 16, b, 11));
    ASSERT_EQ(filter.bucket_count(), 2U);
    std::vector<std::uint64_t> keys;
    for (std::uint32_t fp = 1; keys.size() < 2 * b + CuckooFilter::kStashSlots + 1; ++fp) {
      if (filter.alt_bucket(0, fp) == 1) keys.push_back(hash_for(0, 2, fp));
    }
    for (std::size_t i = 0; i + 1 < keys.size(); ++i) {
      ASSERT_EQ(filter.insert(keys[i]), InsertResult::kInserted) << "item " << i;
    }
    EXPECT_EQ(filter.stash_size(), IdentityFilter::kStashSlots);
    EXPECT_EQ(filter.stats().kick_failures, IdentityFilter::kStashSlots);
    EXPECT_EQ(filter.stats().max_kicks_in_insert, 500U);
    const IdentityFilter before = filter;
    EXPECT_EQ(filter.insert(keys.back()), InsertResult::kFull);
    EXPECT_TRUE(filter == before);
    EXPECT_FALSE(filter.contains(keys.back()));
    keys.pop_back();
    for (std::uint64_t k : keys) EXPECT_TRUE(filter.contains(k));

    // Each stash entry is one of our items with pair {0, 1}.
    std::set<std::uint32_t> stashed;
    for (const CuckooFilterPlacement& e : filter.stash()) {
      EXPECT_TRUE((e.bucket1 == 0 && e.bucket2 == 1) || (e.bucket1 == 1 && e.bucket2 == 0));
      stashed.insert(e.fingerprint);
    }
    ASSERT_EQ(stashed.size(), IdentityFilter::kStashSlots);

    // Erase one stashed item: found in the stash.
    const std::uint32_t victim_fp = *stashed.begin();
    const std::uint64_t victim = hash_for(0, 2, victim_fp);
    EXPECT_TRUE(filter.erase(victim));
    EXPECT_FALSE(filter.contains(victim));
    EXPECT_EQ(filter.stash_size(), IdentityFilter::kStashSlots - 1);
    EXPECT_EQ(filter.size(), keys.size() - 1);

    // Erase one table item: its slot is refilled from the stash.
    std::uint64_t table_item = 0;
    for (std::uint64_t k : keys) {
      if (stashed.count(static_cast<std::uint32_t>(k & 0xffff)) == 0) {
        table_item = k;
        break;
      }
    }
    EXPECT_TRUE(filter.erase(table_item));
    EXPECT_FALSE(filter.contains(table_item));
    EXPECT_EQ(filter.stash_size(), IdentityFilter::kStashSlots - 2);
    EXPECT_EQ(filter.stats().stash_rehomes, 1U);
    EXPECT_EQ(filter.size(), keys.size() - 2);
    EXPECT_EQ(stored_in_table(filter), 2U * b);
    for (std::uint64_t k : keys) {
      if (k != victim && k != table_item) {
        EXPECT_TRUE(filter.contains(k)) << k;
      }
    }
    // With room in the stash again, inserts succeed.
    EXPECT_EQ(filter.insert(victim), InsertResult::kInserted);
    EXPECT_TRUE(filter.contains(victim));
  }
}

// No false negatives and exact bookkeeping for every fingerprint width and bucket size.
TEST(CuckooFilter, EveryWidthAndBucketSizeRoundTrips) {
  const std::uint64_t seed = 0x5eed0004;
  const std::array<double, 4> target_load = {0.40, 0.70, 0.85, 0.90};
  for (unsigned f = 4; f <= 32; ++f) {
    for (std::size_t bi = 0; bi < kSlotChoices.size(); ++bi) {
      const unsigned b = kSlotChoices[bi];
      SCOPED_TRACE(::testing::Message() << "seed=" << seed << " f=" << f << " b=" << b);
      CuckooFilter filter(make_config(256, f, b, seed + f));
      const auto target = static_cast<std::uint64_t>(256 * target_load[bi]);
      std::vector<std::uint64_t> inserted;
      for (std::uint64_t k = 0; k < target; ++k) {
        const InsertResult r = filter.insert(k * 0x9e3779b97f4a7c15ULL);
        ASSERT_NE(r, InsertResult::kFull) << "key " << k;
        if (r == InsertResult::kInserted) inserted.push_back(k * 0x9e3779b97f4a7c15ULL);
      }
      ASSERT_GE(inserted.size(), target * 9 / 10);
      EXPECT_EQ(filter.size(), inserted.size());
      EXPECT_EQ(stored_in_table(filter) + filter.stash_size(), filter.size());
      for (std::uint64_t k : inserted) ASSERT_TRUE(filter.contains(k)) << "key " << k;
      const std::size_t half = inserted.size() / 2;
      for (std::size_t i = 0; i < half; ++i) ASSERT_TRUE(filter.erase(inserted[i]));
      for (std::size_t i = half; i < inserted.size(); ++i) {
        ASSERT_TRUE(filter.contains(inserted[i])) << "key " << inserted[i];
      }
      for (std::size_t i = half; i < inserted.size(); ++i) ASSERT_TRUE(filter.erase(inserted[i]));
      EXPECT_EQ(filter.size(), 0U);
      EXPECT_EQ(filter.stash_size(), 0U);
      EXPECT_EQ(stored_in_table(filter), 0U);
    }
  }
}

TEST(CuckooFilter, AltBucketIsAnInvolutionForAnyBucketCount) {
  const std::uint64_t seed = 0x5eed0005;
  Rng rng(seed);
  for (std::uint32_t n : {1U, 2U, 3U, 7U, 1000U, 12345U}) {
    SCOPED_TRACE(::testing::Message() << "seed=" << seed << " n=" << n);
    const CuckooFilter filter(make_config(std::uint64_t{n} * 4, 32, 4, seed));
    ASSERT_EQ(filter.bucket_count(), n);
    std::vector<std::uint32_t> fps = {1, 2, 0xffffffffU};
    while (fps.size() < 48) fps.push_back(static_cast<std::uint32_t>(rng.next()) | 1U);
    std::set<std::uint32_t> alternates_of_zero;
    for (std::uint32_t fp : fps) {
      alternates_of_zero.insert(filter.alt_bucket(0, fp));
      for (std::uint32_t i = 0; i < n; ++i) {
        const std::uint32_t j = filter.alt_bucket(i, fp);
        ASSERT_LT(j, n);
        ASSERT_EQ(filter.alt_bucket(j, fp), i) << "i=" << i << " fp=" << fp;
      }
    }
    // The alternate is spread over the table, not confined near i.
    if (n >= 1000) {
      EXPECT_GT(alternates_of_zero.size(), 40U);
    }
  }
}

TEST(CuckooFilter, NonPowerOfTwoBucketCountsStoreAndFind) {
  const std::uint64_t seed = 0x5eed0006;
  for (std::uint32_t n : {3U, 7U, 1000U, 12345U}) {
    SCOPED_TRACE(::testing::Message() << "seed=" << seed << " n=" << n);
    CuckooFilter filter(make_config(std::uint64_t{n} * 4, 12, 4, seed));
    const std::uint64_t items = std::uint64_t{n} * 4 * 85 / 100;
    std::vector<std::string> inserted;
    for (std::uint64_t k = 0; k < items; ++k) {
      std::string key = "item-" + std::to_string(k);
      const InsertResult r = filter.insert(key);
      ASSERT_NE(r, InsertResult::kFull);
      if (r == InsertResult::kInserted) inserted.push_back(std::move(key));
    }
    for (const auto& k : inserted) {
      const auto p = filter.placement(k);
      ASSERT_LT(p.bucket1, n);
      ASSERT_LT(p.bucket2, n);
      ASSERT_TRUE(filter.contains(k)) << k;
    }
  }
}

TEST(CuckooFilter, FingerprintZeroIsNeverStored) {
  for (unsigned f : {4U, 12U, 31U, 32U}) {
    SCOPED_TRACE(::testing::Message() << "f=" << f);
    IdentityFilter filter(make_config(64, f, 4, 12));
    const std::uint32_t n = filter.bucket_count();
    // Low f bits all zero: the fingerprint is 1.
    const std::uint64_t h = hash_for(5, n, 0) | (f < 32 ? (std::uint64_t{0x5} << f) & 0xffffffffULL : 0);
    ASSERT_EQ(h & fingerprint_mask(f), 0U);
    EXPECT_EQ(filter.placement_of_hash(h).fingerprint, 1U);
    EXPECT_EQ(filter.insert(h), InsertResult::kInserted);
    EXPECT_TRUE(filter.contains(h));
    EXPECT_EQ(stored_in_table(filter), 1U);
    EXPECT_TRUE(filter.contains(hash_for(5, n, 1)));  // the same fingerprint and bucket
    // The widest fingerprint round-trips too.
    const std::uint64_t wide = hash_for(9, n, static_cast<std::uint32_t>(fingerprint_mask(f)));
    EXPECT_EQ(filter.placement_of_hash(wide).fingerprint, fingerprint_mask(f));
    EXPECT_EQ(filter.insert(wide), InsertResult::kInserted);
    EXPECT_TRUE(filter.contains(wide));
    EXPECT_TRUE(filter.erase(h));
    EXPECT_TRUE(filter.erase(wide));
    EXPECT_EQ(stored_in_table(filter), 0U);
  }
}

// The documented caveat: erasing a key never inserted removes a copy of another key
// that shares its fingerprint and a bucket.
TEST(CuckooFilter, EraseOfAKeyNeverInsertedCanRemoveAnotherKeysCopy) {
  IdentityFilter filter(make_config(64, 12, 4, 13));
  const std::uint64_t inserted = hash_for(3, filter.bucket_count(), 0x777);
  const std::uint64_t other = inserted + 0x1000;  // same bucket, same low 12 bits
  ASSERT_EQ(filter.placement_of_hash(inserted), filter.placement_of_hash(other));
  EXPECT_EQ(filter.insert(inserted), InsertResult::kInserted);
  EXPECT_TRUE(filter.contains(other));  // a false positive
  EXPECT_TRUE(filter.erase(other));
  EXPECT_FALSE(filter.contains(inserted));
}

TEST(CuckooFilter, FalsePositiveRateAtFullLoad) {
  const std::uint64_t seed = 0x5eed0007;
  SCOPED_TRACE(::testing::Message() << "seed=" << seed);
  CuckooFilter filter(make_config(1 << 14, 8, 4, seed));
  std::uint64_t key = 0;
  while (filter.stats().kick_failures == 0) {
    ASSERT_NE(filter.insert(key), InsertResult::kFull);
    ++key;
  }
  const double load = filter.load_factor();
  ASSERT_GT(load, 0.9);
  constexpr int kQueries = 100000;
  int positives = 0;
  for (int q = 0; q < kQueries; ++q) {
    positives += filter.contains((std::uint64_t{1} << 40) + static_cast<std::uint64_t>(q)) ? 1 : 0;
  }
  const double rate = static_cast<double>(positives) / kQueries;
  const double bound = 2.0 * 4 / 256;  // 2b / 2^f
  EXPECT_LT(rate, bound * 1.5) << "load " << load;
  // And not implausibly low, which would mean wider fingerprints than configured.
  EXPECT_GT(rate, bound * load * 0.5) << "load " << load;
}

TEST(CuckooFilter, ClearBehavesLikeAFreshFilter) {
  const auto config = make_config(256, 8, 2, 14);
  CuckooFilter filter(config);
  for (std::uint64_t k = 0; k < 300; ++k) filter.insert(k);
  ASSERT_GT(filter.stats().kick_walks, 0U);
  filter.clear();
  const CuckooFilter fresh(config);
  EXPECT_TRUE(filter == fresh);
  EXPECT_EQ(filter.stats(), fresh.stats());
  EXPECT_EQ(filter.serialize(), fresh.serialize());
  EXPECT_EQ(filter.size(), 0U);
  EXPECT_EQ(stored_in_table(filter), 0U);
}

TEST(CuckooFilter, SameSeedIsDeterministicDifferentSeedsDiffer) {
  const auto run = [](std::uint64_t seed) {
    CuckooFilter filter(make_config(512, 10, 4, seed));
    std::vector<InsertResult> results;
    for (std::uint64_t k = 0; k < 520; ++k) results.push_back(filter.insert(k));
    for (std::uint64_t k = 0; k < 100; k += 3) filter.erase(k);
    std::vector<bool> answers;
    for (std::uint64_t k = 0; k < 2000; ++k) answers.push_back(filter.contains(k));
    return std::make_tuple(filter.serialize(), filter.stats(), results, answers);
  };
  const auto a = run(15);
  const auto b = run(15);
  EXPECT_EQ(std::get<0>(a), std::get<0>(b));
  EXPECT_EQ(std::get<1>(a), std::get<1>(b));
  EXPECT_EQ(std::get<2>(a), std::get<2>(b));
  EXPECT_EQ(std::get<3>(a), std::get<3>(b));
  EXPECT_GT(std::get<1>(a).kick_walks, 0U);

  // Different seeds: different hashes, so a different layout.
  CuckooFilter x(make_config(512, 10, 4, 15));
  CuckooFilter y(make_config(512, 10, 4, 16));
  for (std::uint64_t k = 0; k < 300; ++k) {
    x.insert(k);
    y.insert(k);
  }
  bool layout_differs = false;
  for (std::uint32_t i = 0; i < x.bucket_count(); ++i) {
    for (unsigned s = 0; s < 4; ++s) layout_differs |= x.fingerprint_at(i, s) != y.fingerprint_at(i, s);
  }
  EXPECT_TRUE(layout_differs);
  EXPECT_FALSE(x == y);
}

// Same hashes, different seeds: the kick walks themselves depend on the seed.
TEST(CuckooFilter, KickWalksDependOnTheSeed) {
  IdentityFilter x(make_config(256, 12, 2, 17));
  IdentityFilter y(make_config(256, 12, 2, 18));
  for (std::uint64_t k = 0; k < 240; ++k) {
    const std::uint64_t h = cuckoo::detail::mix64(k + 1);
    x.insert(h);
    y.insert(h);
  }
  ASSERT_GT(x.stats().kicks, 0U);
  bool differs = false;
  for (std::uint32_t i = 0; i < x.bucket_count(); ++i) {
    for (unsigned s = 0; s < 2; ++s) differs |= x.fingerprint_at(i, s) != y.fingerprint_at(i, s);
  }
  EXPECT_TRUE(differs);
}

TEST(CuckooFilter, CopyAndMovePreserveContents) {
  CuckooFilter filter(make_config(256, 12, 4, 19));
  for (std::uint64_t k = 0; k < 100; ++k) filter.insert(k);
  CuckooFilter copy = filter;
  EXPECT_TRUE(copy == filter);
  CuckooFilter moved = std::move(copy);
  EXPECT_TRUE(moved == filter);
  for (std::uint64_t k = 0; k < 100; ++k) EXPECT_TRUE(moved.contains(k));
  moved.erase(std::uint64_t{5});
  EXPECT_FALSE(moved == filter);
}

// ---------------------------------------------------------------------------------------
// Serialization

// A filter with kick history and stash entries.
IdentityFilter busy_filter() {
  IdentityFilter filter(make_config(64, 12, 2, 20));
  std::uint64_t k = 1;
  while (filter.stash_size() < 2) {
    filter.insert(cuckoo::detail::mix64(k++));
  }
  filter.erase(cuckoo::detail::mix64(1));
  return filter;
}

TEST(CuckooFilterSerialization, RoundTripIsEqualAndBehavesIdentically) {
  IdentityFilter original = busy_filter();
  ASSERT_GT(original.stash_size(), 0U);
  const auto bytes = original.serialize();
  IdentityFilter copy = IdentityFilter::deserialize(bytes);
  EXPECT_TRUE(copy == original);
  EXPECT_EQ(copy.stats(), original.stats());
  EXPECT_EQ(copy.seed(), original.seed());
  EXPECT_EQ(copy.max_kicks(), original.max_kicks());
  EXPECT_EQ(copy.serialize(), bytes);
  for (std::uint64_t k = 0; k < 500; ++k) {
    const std::uint64_t h = cuckoo::detail::mix64(k);
    EXPECT_EQ(copy.contains(h), original.contains(h));
  }
  // The same later operations give the same results and the same bytes.
  for (std::uint64_t k = 1000; k < 1100; ++k) {
    const std::uint64_t h = cuckoo::detail::mix64(k);
    EXPECT_EQ(copy.insert(h), original.insert(h)) << k;
    if (k % 3 == 0) {
      const std::uint64_t old = cuckoo::detail::mix64(k - 990);
      EXPECT_EQ(copy.erase(old), original.erase(old)) << k;
    }
  }
  EXPECT_GT(original.stats().kick_walks, 0U);
  EXPECT_EQ(copy.serialize(), original.serialize());
}

TEST(CuckooFilterSerialization, RoundTripsEveryShape) {
  for (unsigned f : {4U, 7U, 12U, 16U, 31U, 32U}) {
    for (unsigned b : kSlotChoices) {
      SCOPED_TRACE(::testing::Message() << "seed=21 f=" << f << " b=" << b);
      CuckooFilter filter(make_config(100, f, b, 21));
      const auto empty = CuckooFilter::deserialize(filter.serialize());
      EXPECT_TRUE(empty == filter);
      std::vector<std::uint64_t> inserted;
      for (std::uint64_t k = 0; k < 70; ++k) {
        if (filter.insert(k) == InsertResult::kInserted) inserted.push_back(k);
      }
      const auto copy = CuckooFilter::deserialize(filter.serialize());
      EXPECT_TRUE(copy == filter);
      EXPECT_EQ(copy.stats(), filter.stats());
      for (std::uint64_t k : inserted) EXPECT_TRUE(copy.contains(k)) << k;
    }
  }
}

std::string error_of(std::span<const std::uint8_t> bytes) {
  try {
    (void)CuckooFilter::deserialize(bytes);
  } catch (const DeserializeError& e) {
    return std::string(cuckoo::to_string(e.code())) + ": " + e.what();
  }
  return "accepted";
}

// True if deserializing bytes fails with code and a message that mentions `mentions`.
::testing::AssertionResult rejected_as(std::span<const std::uint8_t> bytes, DeserializeErrc code,
                                       const std::string& mentions = "") {
  const std::string error = error_of(bytes);
  const std::string prefix = std::string(cuckoo::to_string(code)) + ":";
  if (error.rfind(prefix, 0) == 0 && error.find(mentions) != std::string::npos) {
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure() << "expected " << cuckoo::to_string(code) << " mentioning \""
                                       << mentions << "\", got " << error;
}

TEST(CuckooFilterSerialization, RejectsDamagedEnvelopes) {
  CuckooFilter filter(make_config(64, 12, 4, 22));
  for (std::uint64_t k = 0; k < 40; ++k) filter.insert(k);
  const auto bytes = filter.serialize();
  using V = std::vector<std::uint8_t>;

  EXPECT_TRUE(rejected_as(V{}, DeserializeErrc::kTruncated));
  for (std::size_t cut : {std::size_t{3}, std::size_t{10}, std::size_t{20}, bytes.size() / 2,
                          bytes.size() - 9, bytes.size() - 1}) {
    EXPECT_TRUE(rejected_as(V(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(cut)),
                            DeserializeErrc::kTruncated))
        << "cut at " << cut;
  }
  auto magic = bytes;
  magic[1] = 'X';
  EXPECT_TRUE(rejected_as(magic, DeserializeErrc::kBadMagic));
  auto kind = bytes;
  kind[4] = static_cast<std::uint8_t>(cuckoo::detail::StructureKind::kCuckooMap);
  EXPECT_TRUE(rejected_as(kind, DeserializeErrc::kWrongKind));
  auto version = bytes;
  version[5] = CuckooFilter::kFormatVersion + 1;
  EXPECT_TRUE(rejected_as(version, DeserializeErrc::kUnsupportedVersion));
  auto trailing = bytes;
  trailing.push_back(0);
  EXPECT_TRUE(rejected_as(trailing, DeserializeErrc::kTrailingBytes));
  for (std::size_t at : {std::size_t{16}, std::size_t{20}, std::size_t{40}, bytes.size() - 20,
                         bytes.size() - 9, bytes.size() - 1}) {
    auto flipped = bytes;
    flipped[at] ^= 0x10;
    EXPECT_TRUE(rejected_as(flipped, DeserializeErrc::kChecksumMismatch)) << "byte " << at;
  }
  EXPECT_EQ(error_of(bytes), "accepted");
}

// A payload built field by field and sealed with a valid checksum, as an attacker could.
struct ForgedFilter {
  std::uint8_t fingerprint_bits = 8;
  std::uint8_t slots_per_bucket = 2;
  std::uint8_t layout = 0;  // written from version 3 on
  std::uint8_t nested = 0;  // written from version 4 on
  std::uint8_t key_hash = 1;  // written from version 5 on
  std::uint32_t bucket_count = 4;
  std::uint32_t max_kicks = 500;
  std::uint64_t seed = 23;
  std::uint64_t size = 0;
  std::array<std::uint64_t, 8> stats{};
  std::optional<std::uint8_t> stash_size;  // default: stash.size()
  std::vector<CuckooFilterPlacement> stash;
  std::optional<std::uint64_t> table_length;  // default: table.size()
  std::vector<std::uint8_t> table = std::vector<std::uint8_t>(8, 0);  // 4 * 2 * 8 bits
  std::vector<std::uint8_t> extra;
  std::uint8_t version = CuckooFilter::kFormatVersion;
  bool stop_after_stats = false;

  std::vector<std::uint8_t> seal() const {
    cuckoo::detail::ByteWriter w;
    w.u8(fingerprint_bits);
    w.u8(slots_per_bucket);
    if (version >= 3) w.u8(layout);
    if (version >= 4) w.u8(nested);
    if (version >= 5) w.u8(key_hash);
    w.u32(bucket_count);
    w.u32(max_kicks);
    w.u64(seed);
    w.u64(size);
    for (std::uint64_t s : stats) w.u64(s);
    if (!stop_after_stats) {
      w.u8(stash_size.value_or(static_cast<std::uint8_t>(stash.size())));
      for (const auto& e : stash) {
        w.u32(e.fingerprint);
        w.u32(e.bucket1);
        w.u32(e.bucket2);
      }
      w.u64(table_length.value_or(table.size()));
      w.raw(table.data(), table.size());
      w.raw(extra.data(), extra.size());
    }
    return cuckoo::detail::seal_envelope(cuckoo::detail::StructureKind::kCuckooFilter, version,
                                         w);
  }
};

TEST(CuckooFilterSerialization, RejectsVersionOneBytesNamingBothVersions) {
  // Version 1 placed fingerprints by the mix64 alternate-bucket rule; reading its bytes
  // with today's rule would lose items (false negatives), so they are refused, sealed
  // correctly or not, with both versions named.
  ForgedFilter forged;
  forged.version = 1;
  try {
    (void)CuckooFilter::deserialize(forged.seal());
    FAIL() << "version 1 bytes were accepted";
  } catch (const cuckoo::DeserializeError& e) {
    EXPECT_EQ(e.code(), DeserializeErrc::kUnsupportedVersion);
    EXPECT_NE(std::string(e.what()).find("format version 1, this build reads versions 2 to 5"),
              std::string::npos)
        << e.what();
  }
}

TEST(CuckooFilterSerialization, ReadsVersionTwoBytesAsUnsortedBuckets) {
  // Version 2 had no layout byte; its buckets are unsorted.
  ForgedFilter forged;
  forged.version = 2;
  forged.table[0] = 0x2a;
  forged.size = 1;
  const CuckooFilter filter = CuckooFilter::deserialize(forged.seal());
  EXPECT_FALSE(filter.semi_sorted());
  EXPECT_EQ(filter.fingerprint_at(0, 0), 42U);
  // Written back, it is the current version and reads the same.
  const CuckooFilter again = CuckooFilter::deserialize(filter.serialize());
  EXPECT_EQ(again, filter);
}

TEST(CuckooFilterSerialization, AcceptsAWellFormedForgery) {
  // Validates the forger: a payload it builds by hand is read as intended.
  const CuckooFilter shape(make_config(8, 8, 2, 23));
  ForgedFilter forged;
  forged.table[0] = 0x2a;  // bucket 0 slot 0 holds fingerprint 42
  const std::uint32_t alt = shape.alt_bucket(3, 9);
  forged.stash.push_back({3, alt, 9});
  forged.size = 2;
  const CuckooFilter filter = CuckooFilter::deserialize(forged.seal());
  EXPECT_EQ(filter.size(), 2U);
  EXPECT_EQ(filter.fingerprint_at(0, 0), 42U);
  EXPECT_EQ(filter.stash_size(), 1U);
  EXPECT_EQ(filter.stash()[0], (CuckooFilterPlacement{3, alt, 9}));
  EXPECT_TRUE(filter.contains_hash(hash_for(3, 4, 9)));
  EXPECT_EQ(filter.seed(), 23U);
}

TEST(CuckooFilterSerialization, RejectsForgedPayloads) {
  const CuckooFilter shape(make_config(8, 8, 2, 23));
  {
    ForgedFilter f;
    f.fingerprint_bits = 33;
    EXPECT_TRUE(rejected_as(f.seal(), DeserializeErrc::kBadConfig, "fingerprint_bits"));
    f.fingerprint_bits = 3;
    EXPECT_TRUE(rejected_as(f.seal(), DeserializeErrc::kBadConfig, "fingerprint_bits"));
  }
  {
    ForgedFilter f;
    f.slots_per_bucket = 3;
    EXPECT_TRUE(rejected_as(f.seal(), DeserializeErrc::kBadConfig, "slots_per_bucket"));
  }
  {
    ForgedFilter f;
    f.layout = 2;
    EXPECT_TRUE(rejected_as(f.seal(), DeserializeErrc::kBadConfig, "bucket layout"));
    f.layout = 1;  // semi-sorted needs b = 4
    EXPECT_TRUE(rejected_as(f.seal(), DeserializeErrc::kBadConfig, "semi_sorted"));
  }
  {
    ForgedFilter f;
    f.bucket_count = 0;
    f.table.clear();
    EXPECT_TRUE(rejected_as(f.seal(), DeserializeErrc::kBadConfig, "bucket_count"));
  }
  {
    ForgedFilter f;  // 128 GiB table announced, none present
    f.fingerprint_bits = 32;
    f.slots_per_bucket = 8;
    f.bucket_count = 0xffffffffU;
    f.table.clear();
    EXPECT_TRUE(rejected_as(f.seal(), DeserializeErrc::kBadConfig, "too large"));
  }
  {
    ForgedFilter f;
    f.max_kicks = 0;
    EXPECT_TRUE(rejected_as(f.seal(), DeserializeErrc::kBadConfig, "max_kicks"));
    f.max_kicks = CuckooFilterConfig::kMaxKicksLimit + 1;
    EXPECT_TRUE(rejected_as(f.seal(), DeserializeErrc::kBadConfig, "max_kicks"));
  }
  {
    ForgedFilter f;  // a length that disagrees with the configuration
    f.table.push_back(0);
    EXPECT_TRUE(rejected_as(f.seal(), DeserializeErrc::kInconsistent, "table length"));
    f.table.clear();
    f.table_length = std::uint64_t{1} << 60;  // hostile: must fail before any allocation
    EXPECT_TRUE(rejected_as(f.seal(), DeserializeErrc::kInconsistent, "table length"));
  }
  {
    ForgedFilter f;  // a large, valid configuration whose table bytes are missing
    f.bucket_count = 1U << 24;
    f.table.clear();
    f.table_length = PackedTable::data_bytes_for(1U << 24, 2, 8);
    EXPECT_TRUE(rejected_as(f.seal(), DeserializeErrc::kTruncated, "table"));
  }
  {
    ForgedFilter f;
    f.table[3] = 0x05;
    f.size = 2;
    EXPECT_TRUE(rejected_as(f.seal(), DeserializeErrc::kInconsistent, "size"));
    f.size = 0;
    EXPECT_TRUE(rejected_as(f.seal(), DeserializeErrc::kInconsistent, "size"));
  }
  {
    ForgedFilter f;  // f = 5, b = 1, 3 buckets: 15 bits in 2 bytes, bit 15 is padding
    f.fingerprint_bits = 5;
    f.slots_per_bucket = 1;
    f.bucket_count = 3;
    f.table = {0x00, 0x00};
    EXPECT_EQ(error_of(f.seal()), "accepted");
    f.table = {0x00, 0x80};
    EXPECT_TRUE(rejected_as(f.seal(), DeserializeErrc::kInconsistent, "after the last bucket"));
  }
  {
    const std::uint32_t alt = shape.alt_bucket(1, 9);
    ForgedFilter f;
    f.size = 1;
    f.stash = {{1, alt, 0}};  // fingerprint 0
    EXPECT_TRUE(rejected_as(f.seal(), DeserializeErrc::kInconsistent, "stash entry 0"));
    f.stash = {{1, alt, 256}};  // wider than 8 bits
    EXPECT_TRUE(rejected_as(f.seal(), DeserializeErrc::kInconsistent, "stash entry 0"));
    f.stash = {{4, alt, 9}};  // bucket out of range
    EXPECT_TRUE(rejected_as(f.seal(), DeserializeErrc::kInconsistent, "bucket1"));
    f.stash = {{1, (alt + 1) % 4, 9}};  // not the alternate bucket
    EXPECT_TRUE(rejected_as(f.seal(), DeserializeErrc::kInconsistent, "bucket2"));
  }
  {
    ForgedFilter f;
    f.stash_size = 5;
    EXPECT_TRUE(rejected_as(f.seal(), DeserializeErrc::kInconsistent, "stash_size"));
  }
  {
    ForgedFilter f;
    f.extra = {0};
    EXPECT_TRUE(rejected_as(f.seal(), DeserializeErrc::kTrailingBytes));
  }
  {
    ForgedFilter f;
    f.stop_after_stats = true;
    EXPECT_TRUE(rejected_as(f.seal(), DeserializeErrc::kTruncated, "stash_size"));
  }
}

}  // namespace
