// Tests of the lock-free filter's own parts (cuckoo/lock_free_filter.hpp and
// detail/lock_free_filter_table.hpp): the bucket layout of every shape, configuration
// errors, versions, memory, fill to the first failure at every shape against
// CuckooFilter's load, and wide (multi-word) buckets under threads. The semantics it
// shares with the other concurrent filters (model agreement, copy limit, failed
// inserts, clear, placement, threads) run in concurrent_filter_test.cpp's
// parameterized suite ("lock_free"); linearizability in the stress suite and under the
// explorer (explore/tests/lock_free_filter_explore_test.cpp).
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "cuckoo/cuckoo_filter.hpp"
#include "cuckoo/detail/rng.hpp"
#include "cuckoo/lock_free_filter.hpp"
#include "support/test_seed.hpp"
#include "support/watchdog.hpp"

namespace {

using cuckoo::ConfigError;
using cuckoo::CuckooFilter;
using cuckoo::CuckooFilterConfig;
using cuckoo::InsertResult;
using cuckoo::LockFreeFilter;
using cuckoo::detail::LockFreeBucketLayout;

CuckooFilterConfig make_config(std::uint64_t capacity, unsigned f, unsigned b, std::uint64_t seed) {
  CuckooFilterConfig c;
  c.capacity = capacity;
  c.fingerprint_bits = f;
  c.slots_per_bucket = b;
  c.seed = seed;
  return c;
}

TEST(LockFreeBucketLayout, EveryShapeFitsItsWordsWithAVersion) {
  for (unsigned f = 4; f <= 32; ++f) {
    for (const unsigned b : {1U, 2U, 4U, 8U}) {
      SCOPED_TRACE("f=" + std::to_string(f) + " b=" + std::to_string(b));
      const auto layout = LockFreeBucketLayout::of(f, b);
      if (b == 8 && f >= 25) {
        EXPECT_FALSE(layout.has_value()) << "needs more than four words";
        continue;
      }
      ASSERT_TRUE(layout.has_value());
      EXPECT_GE(layout->version_bits, LockFreeBucketLayout::kMinVersionBits);
      EXPECT_EQ(layout->version_bits + layout->slots0 * f, LockFreeBucketLayout::kValueBits);
      EXPECT_LE(layout->per_word * f, LockFreeBucketLayout::kValueBits);
      EXPECT_GE(layout->slots0 + (layout->words - 1) * layout->per_word, b) << "slots do not fit";
      if (layout->words > 1) {
        EXPECT_LT(layout->slots0 + (layout->words - 2) * layout->per_word, b) << "a word more than needed";
      }
      EXPECT_EQ(layout->words == 1, f * b <= 48) << "one word exactly when f * b <= 48";
    }
  }
  // The shapes docs/engines.md names.
  EXPECT_EQ(LockFreeBucketLayout::of(12, 4)->words, 1U);
  EXPECT_EQ(LockFreeBucketLayout::of(12, 4)->version_bits, 14U);
  EXPECT_EQ(LockFreeBucketLayout::of(8, 4)->version_bits, 30U);
  EXPECT_EQ(LockFreeBucketLayout::of(16, 4)->words, 2U);
  EXPECT_EQ(LockFreeBucketLayout::of(24, 4)->words, 2U);
  EXPECT_EQ(LockFreeBucketLayout::of(32, 4)->words, 4U);
  EXPECT_EQ(LockFreeBucketLayout::of(24, 8)->words, 4U);
}

TEST(LockFreeFilterConfig, InvalidConfigurationsNameTheField) {
  const auto field_of = [](const CuckooFilterConfig& c) -> std::string {
    try {
      const LockFreeFilter f(c);
    } catch (const ConfigError& e) {
      return e.field();
    }
    return "";
  };
  EXPECT_EQ(field_of(make_config(100, 3, 4, 1)), "fingerprint_bits");
  EXPECT_EQ(field_of(make_config(100, 12, 3, 1)), "slots_per_bucket");
  EXPECT_EQ(field_of(make_config(0, 12, 4, 1)), "capacity");
  EXPECT_EQ(field_of(make_config(100, 25, 8, 1)), "fingerprint_bits") << "b = 8, f = 25 needs five words";
  EXPECT_EQ(field_of(make_config(100, 24, 8, 1)), "");
  CuckooFilterConfig sorted = make_config(100, 12, 4, 1);
  sorted.semi_sorted = true;
  EXPECT_EQ(field_of(sorted), "semi_sorted");
  try {
    const LockFreeFilter f(make_config(100, 32, 8, 1));
    FAIL() << "b = 8, f = 32 was accepted";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("is 32 with slots_per_bucket = 8"), std::string::npos) << e.what();
  }
}

TEST(LockFreeFilter, EveryChangeOfABucketBumpsItsVersion) {
  LockFreeFilter f(make_config(64, 12, 4, 3));
  const std::uint64_t h = f.hash_of(std::uint64_t{42});
  const std::uint32_t b1 = f.placement_of_hash(h).bucket1;
  const std::uint64_t v0 = f.version_of(b1);
  ASSERT_EQ(f.insert_hash(h), InsertResult::kInserted);
  EXPECT_EQ(f.version_of(b1), v0 + 1) << "insert";
  EXPECT_TRUE(f.contains_hash(h));
  EXPECT_EQ(f.version_of(b1), v0 + 1) << "a lookup changed the bucket";
  ASSERT_TRUE(f.erase_hash(h));
  EXPECT_EQ(f.version_of(b1), v0 + 2) << "erase";
  EXPECT_FALSE(f.erase_hash(h));
  EXPECT_EQ(f.version_of(b1), v0 + 2) << "an erase that found nothing changed the bucket";
  // The version wraps within its bits and the slots stay intact.
  ASSERT_EQ(f.insert_hash(h), InsertResult::kInserted);
  const std::uint64_t mask = (std::uint64_t{1} << f.version_bits()) - 1;
  for (std::uint64_t i = 0; i <= mask; ++i) {  // 2^14 changes: insert and erase a second copy
    ASSERT_EQ(f.insert_hash(h), InsertResult::kInserted);
    ASSERT_TRUE(f.erase_hash(h));
  }
  EXPECT_EQ(f.version_of(b1), (v0 + 3 + 2 * (mask + 1)) & mask);
  EXPECT_TRUE(f.contains_hash(h));
  EXPECT_EQ(f.size(), 1U);
  EXPECT_EQ(f.check_invariants(), "");
}

TEST(LockFreeFilter, MemoryIsEightBytesPerBucketWord) {
  for (const auto& [f, b, words] : {std::tuple{12U, 4U, 1U}, std::tuple{8U, 4U, 1U}, std::tuple{16U, 4U, 2U},
                                    std::tuple{32U, 4U, 4U}}) {
    const LockFreeFilter lf(make_config(1 << 20, f, b, 1));
    ASSERT_EQ(lf.words_per_bucket(), words);
    const std::size_t table = std::size_t{lf.bucket_count()} * words * 8;
    EXPECT_GE(lf.memory_bytes(), table);
    EXPECT_LE(lf.memory_bytes(), table + 64 + sizeof(LockFreeFilter)) << "f=" << f << " b=" << b;
  }
  // f = 12, b = 4: 64 bits per bucket against CuckooFilter's 48 (the 14 version bits and
  // the 2-bit K-CAS tag are the difference; docs/engines.md, "LockFreeFilter").
  const LockFreeFilter lf(make_config(1 << 20, 12, 4, 1));
  const CuckooFilter cf(make_config(1 << 20, 12, 4, 1));
  const double ratio = static_cast<double>(lf.memory_bytes()) / static_cast<double>(cf.memory_bytes());
  std::printf("[ lock-free ] f=12 b=4 memory %zu bytes, CuckooFilter %zu: ratio %.3f (64/48 = 1.333)\n",
              lf.memory_bytes(), cf.memory_bytes(), ratio);
  EXPECT_NEAR(ratio, 64.0 / 48.0, 0.01);
}

// Fill each shape to its first failure: no false negatives, exact size, invariants, and
// a load at first failure no lower than CuckooFilter's minus a small margin (the lock-
// free filter searches paths breadth first; CuckooFilter walks at random with a stash).
TEST(LockFreeFilter, FillsEveryShapeAsFarAsCuckooFilter) {
  for (const unsigned f : {8U, 12U, 16U, 24U, 32U}) {
    for (const unsigned b : {2U, 4U, 8U}) {
      if (b == 8 && f >= 25) continue;
      SCOPED_TRACE("f=" + std::to_string(f) + " b=" + std::to_string(b));
      const CuckooFilterConfig c = make_config(1 << 14, f, b, 11 + f + b);
      LockFreeFilter lf(c);
      CuckooFilter cf(c);
      std::uint64_t lf_items = 0;
      for (std::uint64_t k = 0;; ++k) {  // bound: the table has 2^14 slots
        const InsertResult r = lf.insert(k);
        if (r == InsertResult::kFull) break;
        ASSERT_EQ(r, InsertResult::kInserted) << "key " << k;
        ++lf_items;
      }
      std::uint64_t cf_items = 0;
      for (std::uint64_t k = 0; cf.insert(k) == InsertResult::kInserted; ++k) ++cf_items;
      for (std::uint64_t k = 0; k < lf_items; ++k) ASSERT_TRUE(lf.contains(k)) << "false negative, key " << k;
      EXPECT_EQ(lf.size(), lf_items);
      EXPECT_EQ(lf.check_invariants(), "");
      const double slots = static_cast<double>(lf.bucket_count()) * b;
      EXPECT_GE(static_cast<double>(lf_items) / slots, static_cast<double>(cf_items) / slots - 0.03)
          << "lock-free " << lf_items << " items, CuckooFilter " << cf_items;
    }
  }
}

// Wide buckets (2 and 4 words) under threads: writers insert and erase their own keys
// (each bucket change a K-CAS of word 0 and a slot's word), readers look up stable keys
// that nobody erases; a reader that misses one is a torn read of a bucket.
TEST(LockFreeFilter, WideBucketsHaveNoFalseNegativesUnderThreads) {
  const std::uint64_t seed = cuckoo::test::test_seed(0x71de);
  for (const unsigned f : {16U, 32U}) {
    SCOPED_TRACE("f=" + std::to_string(f) + " b=4; " + cuckoo::test::seed_note(seed, "concurrent_lock_free_filter_test"));
    const cuckoo::test::Watchdog watchdog("WideBucketsHaveNoFalseNegativesUnderThreads f=" + std::to_string(f));
    LockFreeFilter lf(make_config(4096, f, 4, seed));
    std::vector<std::uint64_t> stable;
    for (std::uint64_t k = 0; stable.size() < 2400; ++k) {
      if (lf.insert(k) == InsertResult::kInserted) stable.push_back(k);
    }
    std::atomic<std::uint64_t> misses{0};
    std::atomic<bool> stop{false};
    std::vector<std::thread> threads;
    threads.emplace_back([&] {  // writer: churn near the stable keys' buckets
      cuckoo::detail::Rng rng(seed);
      for (unsigned round = 0; round < 20'000; ++round) {
        const std::uint64_t k = 1'000'000 + rng.below(1200);
        if (lf.insert(k) == InsertResult::kInserted) {
          if (!lf.erase(k)) misses.fetch_add(1);
        }
      }
      stop.store(true);
    });
    threads.emplace_back([&] {  // reader
      while (!stop.load()) {
        for (const std::uint64_t k : stable) {
          if (!lf.contains(k)) misses.fetch_add(1);
        }
      }
    });
    for (auto& t : threads) t.join();
    EXPECT_EQ(misses.load(), 0U);
    EXPECT_EQ(lf.size(), stable.size());
    EXPECT_EQ(lf.check_invariants(), "");
    const cuckoo::LockFreeFilterStats s = lf.stats();
    std::printf("[ lock-free ] f=%u: path hops %llu, update retries %llu, lookup retries %llu\n", f,
                static_cast<unsigned long long>(s.path_hops), static_cast<unsigned long long>(s.update_retries),
                static_cast<unsigned long long>(s.lookup_retries));
  }
}

}  // namespace
