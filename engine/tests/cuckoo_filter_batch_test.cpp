// Tests of CuckooFilter's batched lookup (contains_many, contains_many_hash), of the
// huge-page table option, and of PackedTable::scan, which the insert fast path uses.
// Every randomized test uses a fixed seed and reports it on failure.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "cuckoo/cuckoo_filter.hpp"
#include "cuckoo/detail/packed_table.hpp"
#include "cuckoo/detail/rng.hpp"

namespace {

using cuckoo::CuckooFilter;
using cuckoo::CuckooFilterConfig;
using cuckoo::InsertResult;
using cuckoo::detail::PackedTable;
using cuckoo::detail::Rng;

constexpr std::array<unsigned, 4> kSlotChoices = {1, 2, 4, 8};
constexpr std::array<unsigned, 8> kBitChoices = {4, 5, 7, 8, 12, 16, 23, 32};

CuckooFilterConfig make_config(std::uint64_t capacity, unsigned f, unsigned b,
                               std::uint64_t seed, bool huge_pages = false) {
  CuckooFilterConfig c;
  c.capacity = capacity;
  c.fingerprint_bits = f;
  c.slots_per_bucket = b;
  c.seed = seed;
  c.huge_pages = huge_pages;
  return c;
}

std::string note(unsigned f, unsigned b, std::uint64_t seed) {
  return "f=" + std::to_string(f) + " b=" + std::to_string(b) + " seed=" + std::to_string(seed);
}

// Runs body(filter, rng) for every shape (b in kSlotChoices, f in kBitChoices) on a
// fresh filter of `capacity` slots and an Rng, both seeded base + 10 * b + f (in the
// trace); stops at the first fatal failure.
template <class Body>
void for_each_shape(std::uint64_t base, std::uint64_t capacity, Body body) {
  for (const unsigned b : kSlotChoices) {
    for (const unsigned f : kBitChoices) {
      const std::uint64_t seed = base + 10 * b + f;
      SCOPED_TRACE(note(f, b, seed));
      CuckooFilter filter(make_config(capacity, f, b, seed));
      Rng rng(seed);
      body(filter, rng);
      if (::testing::Test::HasFatalFailure()) return;
    }
  }
}

// Queries keys through contains_many and contains_many_hash, each result entry preset to
// the opposite of contains()'s answer (so an entry left unwritten shows), and checks both
// against contains() and, where present(i), that the answer is true. Returns how many
// answers were true.
template <class Present>
std::size_t check_batched(const CuckooFilter& filter, std::span<const std::uint64_t> keys,
                          Present present) {
  const std::size_t n = keys.size();
  const std::unique_ptr<bool[]> results(new bool[n]);
  const std::unique_ptr<bool[]> by_hash(new bool[n]);
  std::vector<std::uint64_t> hashes;
  for (std::size_t i = 0; i < n; ++i) {
    results[i] = by_hash[i] = !filter.contains(keys[i]);
    hashes.push_back(filter.hash_of(keys[i]));
  }
  filter.contains_many(keys, std::span<bool>(results.get(), n));
  filter.contains_many_hash(hashes, std::span<bool>(by_hash.get(), n));
  std::size_t positives = 0;
  for (std::size_t i = 0; i < n; ++i) {
    EXPECT_EQ(results[i], filter.contains(keys[i])) << "key index " << i;
    EXPECT_EQ(by_hash[i], results[i]) << "key index " << i;
    if (present(i)) {
      EXPECT_TRUE(results[i]) << "false negative at " << i;
    }
    positives += results[i] ? 1U : 0U;
  }
  return positives;
}

// Fills a filter past its first kick failure so that the stash is used, then queries
// every inserted key and as many fresh ones through both batched calls.
TEST(CuckooFilterBatch, ContainsManyEqualsContainsForEveryShape) {
  for_each_shape(1000, 256, [](CuckooFilter& filter, Rng& rng) {
    std::vector<std::uint64_t> keys;
    // Bounded: at most 4 * capacity attempts; stops at the first kFull.
    for (int i = 0; i < 1024; ++i) {
      const std::uint64_t key = rng.next();
      const InsertResult r = filter.insert(key);
      if (r == InsertResult::kFull) break;
      if (r == InsertResult::kInserted) keys.push_back(key);
    }
    ASSERT_GT(filter.stash_size(), 0U) << "the test needs stashed items";
    const std::size_t inserted = keys.size();
    for (std::size_t i = 0; i < inserted + 100; ++i) keys.push_back(rng.next());  // negatives
    const std::size_t positives =
        check_batched(filter, keys, [&](std::size_t i) { return i < inserted; });
    // Some negatives must be answered false, or the test shows nothing.
    EXPECT_LT(positives, keys.size());
  });
}

// With the stash empty, one-word shapes take the pipeline (kBatchAhead keys deep) and
// the others the groups. Every shape, at lengths around the pipeline's depth and the
// group size: the answers equal contains() for every key, inserted keys are found, and
// every result entry is written.
TEST(CuckooFilterBatch, ContainsManyEqualsContainsWithAnEmptyStash) {
  constexpr std::size_t D = CuckooFilter::kBatchAhead;
  constexpr std::size_t G = CuckooFilter::kBatchGroup;
  const std::vector<std::size_t> lengths = {1,     D - 1,     D,     D + 1, 2 * D - 1, 2 * D,
                                            2 * D + 1, G, G + 1, 5 * D + 7, 300};
  for_each_shape(2000, 1024, [&](CuckooFilter& filter, Rng& rng) {
    // Inserted and fresh keys alternate, so every window holds both.
    std::vector<std::uint64_t> keys;
    std::vector<bool> inserted;
    // Bound: 300 inserts, below every shape's load at the first kick failure. At f = 4
    // some keys share a fingerprint and a bucket pair past the copy limit; those are
    // skipped.
    for (int i = 0; i < 300; ++i) {
      const std::uint64_t key = rng.next();
      const InsertResult r = filter.insert(key);
      if (r == InsertResult::kDuplicateLimit) continue;
      ASSERT_EQ(r, InsertResult::kInserted) << "insert " << i;
      keys.push_back(key);
      inserted.push_back(true);
      keys.push_back(rng.next());
      inserted.push_back(false);
    }
    ASSERT_EQ(filter.stash_size(), 0U) << "the test needs an empty stash";
    for (const std::size_t n : lengths) {
      SCOPED_TRACE("length " + std::to_string(n));
      const std::span<const std::uint64_t> window(keys.data() + 1, n);  // odd start
      check_batched(filter, window, [&](std::size_t i) { return inserted[i + 1]; });
      if (::testing::Test::HasFailure()) return;
    }
  });
}

// Every stash entry is found by the batched call, also when its key is the only one.
TEST(CuckooFilterBatch, FindsStashedItems) {
  const std::uint64_t seed = 77;
  CuckooFilter filter(make_config(64, 8, 2, seed));
  Rng rng(seed);
  std::vector<std::uint64_t> keys;
  for (int i = 0; i < 512 && filter.stash_size() == 0; ++i) {
    const std::uint64_t key = rng.next();
    if (filter.insert(key) == InsertResult::kInserted) keys.push_back(key);
  }
  ASSERT_GT(filter.stash_size(), 0U) << "seed=" << seed;
  const auto stashed = filter.stash()[0];
  std::size_t matched = 0;
  for (const std::uint64_t key : keys) {
    const auto p = filter.placement(key);
    if (p.fingerprint != stashed.fingerprint ||
        (p.bucket1 != stashed.bucket1 && p.bucket2 != stashed.bucket1)) {
      continue;
    }
    ++matched;
    std::array<bool, 1> one{};
    filter.contains_many(std::span<const std::uint64_t>(&key, 1), std::span<bool>(one));
    EXPECT_TRUE(one[0]) << "seed=" << seed;
  }
  EXPECT_GT(matched, 0U) << "seed=" << seed;
}

TEST(CuckooFilterBatch, EmptySpansAndLongerResults) {
  CuckooFilter filter(make_config(100, 12, 4, 5));
  ASSERT_EQ(filter.insert(std::uint64_t{42}), InsertResult::kInserted);
  filter.contains_many(std::span<const std::uint64_t>(), std::span<bool>());
  filter.contains_many_hash(std::span<const std::uint64_t>(), std::span<bool>());
  std::array<bool, 3> results = {false, true, true};
  const std::array<std::uint64_t, 1> keys = {42};
  filter.contains_many(std::span<const std::uint64_t>(keys), std::span<bool>(results));
  EXPECT_TRUE(results[0]);
  EXPECT_TRUE(results[1]);  // beyond keys.size(): untouched
  EXPECT_TRUE(results[2]);
  // A group boundary: exactly kBatchGroup and kBatchGroup + 1 keys.
  for (const std::size_t n : {CuckooFilter::kBatchGroup, CuckooFilter::kBatchGroup + 1}) {
    std::vector<std::uint64_t> many(n, 42);
    many.back() = 43;
    const std::unique_ptr<bool[]> out(new bool[n]);
    filter.contains_many(std::span<const std::uint64_t>(many), std::span<bool>(out.get(), n));
    for (std::size_t i = 0; i < n; ++i) EXPECT_EQ(out[i], filter.contains(many[i])) << i;
  }
}

TEST(CuckooFilterBatch, StringKeys) {
  CuckooFilter filter(make_config(100, 12, 4, 9));
  const std::vector<std::string> keys = {"alpha", "beta", "gamma", "delta"};
  ASSERT_EQ(filter.insert(keys[0]), InsertResult::kInserted);
  ASSERT_EQ(filter.insert(keys[2]), InsertResult::kInserted);
  std::array<bool, 4> out{};
  filter.contains_many(std::span<const std::string>(keys), std::span<bool>(out));
  for (std::size_t i = 0; i < keys.size(); ++i) EXPECT_EQ(out[i], filter.contains(keys[i])) << i;
}

TEST(CuckooFilterBatch, TooFewResultsThrowsBeforeWriting) {
  CuckooFilter filter(make_config(100, 12, 4, 3));
  const std::array<std::uint64_t, 3> keys = {1, 2, 3};
  std::array<bool, 2> results = {true, true};
  EXPECT_THROW(filter.contains_many(std::span<const std::uint64_t>(keys), std::span<bool>(results)),
               std::invalid_argument);
  EXPECT_THROW(filter.contains_many_hash(keys, std::span<bool>(results)), std::invalid_argument);
  EXPECT_TRUE(results[0]);
  EXPECT_TRUE(results[1]);
}

// The huge-page request changes neither contents, answers, equality nor serialization.
TEST(CuckooFilterHugePages, OnAndOffGiveEqualFilters) {
  // 2^21 slots of 12 bits: a 3 MiB table, large enough for the huge-page path.
  const std::uint64_t capacity = std::uint64_t{1} << 21;
  const std::uint64_t seed = 21;
  CuckooFilter plain(make_config(capacity, 12, 4, seed, false));
  CuckooFilter huge(make_config(capacity, 12, 4, seed, true));
  EXPECT_FALSE(plain.huge_pages());
  EXPECT_TRUE(huge.huge_pages());
  Rng rng(seed);
  for (int i = 0; i < 200'000; ++i) {
    const std::uint64_t key = rng.next();
    ASSERT_EQ(plain.insert(key), huge.insert(key)) << "seed=" << seed;
  }
  EXPECT_TRUE(plain == huge) << "seed=" << seed;
  EXPECT_EQ(plain.serialize(), huge.serialize()) << "seed=" << seed;
  EXPECT_TRUE(CuckooFilter::deserialize(huge.serialize()) == plain) << "seed=" << seed;
  const CuckooFilter copy = huge;  // deep copy keeps the request
  EXPECT_TRUE(copy.huge_pages());
  EXPECT_TRUE(copy == huge);
  huge.clear();
  plain.clear();
  EXPECT_TRUE(plain == huge);
  // Small tables take the ordinary path whatever the request.
  CuckooFilter small(make_config(64, 12, 4, seed, true));
  EXPECT_EQ(small.insert(std::uint64_t{5}), InsertResult::kInserted);
  EXPECT_TRUE(small.contains(std::uint64_t{5}));
}

// scan() equals {count(), find(0)} for random buckets of every shape.
TEST(PackedTableScan, AgreesWithCountAndFindForEveryShape) {
  for (const unsigned b : kSlotChoices) {
    for (unsigned f = PackedTable::kMinBits; f <= PackedTable::kMaxBits; ++f) {
      const std::uint64_t seed = 500 + 40 * b + f;
      Rng rng(seed);
      PackedTable table(37, b, f);
      const std::uint64_t max = f == 32 ? 0xffffffffULL : (std::uint64_t{1} << f) - 1;
      // Few distinct values, so that buckets hold repeated fingerprints.
      const std::array<std::uint32_t, 3> values = {
          1, static_cast<std::uint32_t>(max), static_cast<std::uint32_t>(1 + rng.below(max))};
      for (int round = 0; round < 400; ++round) {
        const auto bucket = static_cast<std::uint32_t>(rng.below(37));
        const auto slot = static_cast<unsigned>(rng.below(b));
        const std::uint32_t value = rng.below(4) == 0 ? 0U : values[rng.below(values.size())];
        table.set(bucket, slot, value);
        const auto probe_bucket = static_cast<std::uint32_t>(rng.below(37));
        for (const std::uint32_t fp : values) {
          const PackedTable::Scan scan = table.scan(probe_bucket, fp);
          ASSERT_EQ(scan.copies, table.count(probe_bucket, fp))
              << "f=" << f << " b=" << b << " seed=" << seed;
          ASSERT_EQ(scan.free_slot, table.find_reference(probe_bucket, 0))
              << "f=" << f << " b=" << b << " seed=" << seed;
        }
      }
    }
  }
}

}  // namespace
