// Tests of CuckooFilter's count, insert_if_absent, insert_many and info (RedisBloom's
// CF.COUNT, CF.ADDNX, CF.INSERT and CF.INFO). Fixed seeds, printed on failure.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <list>
#include <string>
#include <vector>

#include "cuckoo/cuckoo_filter.hpp"
#include "support/test_seed.hpp"

namespace {

using cuckoo::CuckooFilter;
using cuckoo::CuckooFilterConfig;
using cuckoo::InsertResult;

CuckooFilterConfig config(std::uint64_t capacity, unsigned f, unsigned b, std::uint64_t seed) {
  CuckooFilterConfig c;
  c.capacity = capacity;
  c.fingerprint_bits = f;
  c.slots_per_bucket = b;
  c.seed = seed;
  return c;
}

TEST(CuckooFilterApi, CountIsTheCopiesOfTheFingerprintInBothBucketsAndTheStash) {
  const std::uint64_t seed = cuckoo::test::test_seed(7);
  SCOPED_TRACE(cuckoo::test::seed_note(seed, "cuckoo_filter_api_test"));
  for (const unsigned b : {1U, 2U, 4U, 8U}) {
    CuckooFilter f(config(16 * b, 16, b, seed + b));
    const std::uint64_t key = 12345;
    EXPECT_EQ(f.count(key), 0U);
    for (std::uint64_t i = 1; i <= f.max_copies(key); ++i) {
      ASSERT_EQ(f.insert(key), InsertResult::kInserted);
      EXPECT_EQ(f.count(key), i);
    }
    EXPECT_EQ(f.insert(key), InsertResult::kDuplicateLimit);
    EXPECT_EQ(f.count(key), f.max_copies(key));
    // Fill the rest, pushing copies into the stash as it comes; count follows the copies
    // wherever they are.
    for (std::uint64_t k = 0; f.insert(k) != InsertResult::kFull; ++k) {
    }
    EXPECT_EQ(f.count(key), f.max_copies(key)) << "b=" << b;
    for (std::uint64_t i = f.max_copies(key); i > 0; --i) {
      ASSERT_TRUE(f.erase(key));
      EXPECT_EQ(f.count(key), i - 1);
    }
  }
}

TEST(CuckooFilterApi, CountIsAnUpperBoundSharedByAliasingKeys) {
  CuckooFilter f(config(8, 4, 4, 3));  // f = 4, 2 buckets: keys alias often
  ASSERT_EQ(f.insert(std::uint64_t{1}), InsertResult::kInserted);
  const auto p = f.placement(std::uint64_t{1});
  for (std::uint64_t k = 2; k < 10'000; ++k) {
    const auto q = f.placement(k);
    if (q.fingerprint == p.fingerprint && (q.bucket1 == p.bucket1 || q.bucket1 == p.bucket2)) {
      EXPECT_EQ(f.count(k), 1U) << "key " << k << " shares key 1's fingerprint and buckets";
      return;
    }
  }
  FAIL() << "no aliasing key found";
}

TEST(CuckooFilterApi, InsertIfAbsentAnswersExistsWhenContainsIsTrue) {
  CuckooFilter f(config(4096, 12, 4, 9));
  std::uint64_t exists_for_new = 0;
  for (std::uint64_t k = 0; k < 2000; ++k) {
    const bool present = f.contains(k);
    const InsertResult r = f.insert_if_absent(k);
    EXPECT_EQ(r == InsertResult::kExists, present) << k;
    exists_for_new += present ? 1 : 0;
    EXPECT_EQ(f.insert_if_absent(k), InsertResult::kExists);
    EXPECT_EQ(f.count(k) <= 1 || present, true);
  }
  EXPECT_EQ(f.size(), 2000U - exists_for_new);
  EXPECT_LE(exists_for_new, 20U) << "only false positives answer kExists for a new key";
}

TEST(CuckooFilterApi, InsertManyStopsAtTheFirstRefusal) {
  CuckooFilter f(config(64, 12, 4, 5));
  std::vector<std::uint64_t> keys(200);
  for (std::uint64_t i = 0; i < keys.size(); ++i) keys[i] = i * 31 + 7;
  const cuckoo::InsertManyResult r = f.insert_many(keys);
  EXPECT_EQ(r.refusal, InsertResult::kFull);
  EXPECT_FALSE(r.complete());
  EXPECT_EQ(f.size(), r.inserted);
  for (std::size_t i = 0; i < r.inserted; ++i) ASSERT_TRUE(f.contains(keys[i])) << i;
  // Room made (half the keys erased, which also drains the stash): the batch resumes
  // from the refused key.
  for (std::size_t i = 0; i < r.inserted; i += 2) ASSERT_TRUE(f.erase(keys[i]));
  const std::vector<std::uint64_t> rest(keys.begin() + static_cast<std::ptrdiff_t>(r.inserted), keys.end());
  const cuckoo::InsertManyResult again = f.insert_many(rest);
  EXPECT_GE(again.inserted, 1U);
  EXPECT_TRUE(f.contains(keys[r.inserted]));

  CuckooFilter g(config(64, 12, 4, 5));
  const std::list<std::string> words = {"a", "b", "c"};
  EXPECT_EQ(g.insert_many(words), (cuckoo::InsertManyResult{3, InsertResult::kInserted}));
  const std::vector<int> same(20, 4);
  const cuckoo::InsertManyResult dup = g.insert_many(same);
  EXPECT_EQ(dup.refusal, InsertResult::kDuplicateLimit);
  EXPECT_EQ(dup.inserted, g.max_copies(4));
  EXPECT_TRUE(g.insert_many(std::vector<int>{}).complete());
}

TEST(CuckooFilterApi, InfoReportsShapeFillAndBound) {
  CuckooFilter f(config(1000, 12, 4, 2));
  for (std::uint64_t k = 0; k < 300; ++k) ASSERT_EQ(f.insert(k), InsertResult::kInserted);
  const cuckoo::CuckooFilterInfo i = f.info();
  EXPECT_EQ(i.capacity, f.slot_count());
  EXPECT_EQ(i.size, 300U);
  EXPECT_EQ(i.buckets, 250U);
  EXPECT_EQ(i.slots_per_bucket, 4U);
  EXPECT_EQ(i.fingerprint_bits, 12U);
  EXPECT_EQ(i.min_fingerprint_bits, 12U);
  EXPECT_EQ(i.levels, 1U);
  EXPECT_DOUBLE_EQ(i.load_factor, f.load_factor());
  EXPECT_EQ(i.memory_bytes, f.memory_bytes());
  const double q = (4096.0 + 2.0) / (4096.0 * 4096.0);
  // Claim C2's term and the stash's: 4 entries, each q (2/250 + 2^-31).
  EXPECT_NEAR(i.false_positive_bound, 1 - std::pow(1 - q, 8) + 4 * q * (2.0 / 250 + std::ldexp(1.0, -31)),
              1e-15);
  const double q32 = std::ldexp(1.0, -32);
  EXPECT_NEAR(cuckoo::filter_false_positive_bound(32, 8, 1U << 30, 4), 16 * q32, 1e-6 * 16 * q32);
  EXPECT_EQ(cuckoo::filter_false_positive_bound(4, 8, 1, 4), 1.0) << "capped at 1";
}

}  // namespace
