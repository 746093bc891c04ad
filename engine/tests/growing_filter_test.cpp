// Tests of GrowingCuckooFilter (cuckoo/growing_filter.hpp): growth with no false
// negatives, the false-positive bound measured, the level limits, duplicates, erase,
// count, insert_if_absent, insert_many, info, serialization and its error reports, an
// allocation failure while a level is added, std::pmr, and the configuration errors.
// Every randomized test has a fixed seed (CUCKOO_TEST_SEED replays another) and prints
// it on failure.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <list>
#include <map>
#include <memory_resource>
#include <new>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "cuckoo/growing_filter.hpp"
#include "cuckoo/detail/rng.hpp"
#include "cuckoo/detail/serial.hpp"
#include "support/test_seed.hpp"

namespace {

using cuckoo::DeserializeErrc;
using cuckoo::DeserializeError;
using cuckoo::GrowingCuckooFilter;
using cuckoo::GrowingCuckooFilterConfig;
using cuckoo::InsertResult;

constexpr const char* kProgram = "growing_filter_test";

GrowingCuckooFilterConfig small_config(std::uint64_t seed, std::uint64_t capacity = 64,
                                       unsigned f = 8, unsigned b = 4, unsigned expansion = 2,
                                       unsigned max_levels = 8) {
  GrowingCuckooFilterConfig c;
  c.capacity = capacity;
  c.fingerprint_bits = f;
  c.slots_per_bucket = b;
  c.expansion = expansion;
  c.max_levels = max_levels;
  c.seed = seed;
  return c;
}

// The item a level stores for the key whose hash is h: its fingerprint and its unordered
// bucket pair (what that level cannot tell apart).
struct LevelItem {
  std::uint32_t fingerprint;
  std::uint32_t low_bucket;
  std::uint32_t high_bucket;
  friend bool operator==(const LevelItem&, const LevelItem&) = default;
  friend auto operator<=>(const LevelItem&, const LevelItem&) = default;
};

LevelItem item_at(const GrowingCuckooFilter& f, unsigned level, std::uint64_t h) {
  const cuckoo::CuckooFilterPlacement p = *f.placement_at_level(level, h);
  return {p.fingerprint, std::min(p.bucket1, p.bucket2), std::max(p.bucket1, p.bucket2)};
}

// Two keys with the same item at level `same` and different items at level `differ`,
// the first pair of keys below 2^16 found (the pair is ordered by key).
std::optional<std::pair<std::uint64_t, std::uint64_t>> aliased_pair(const GrowingCuckooFilter& f,
                                                                    unsigned same, unsigned differ) {
  std::map<LevelItem, std::uint64_t> first_with_item;
  for (std::uint64_t k = 0; k < (1U << 16); ++k) {  // bound: 2^16 keys
    const auto [it, fresh] = first_with_item.emplace(item_at(f, same, f.hash_of(k)), k);
    if (!fresh && item_at(f, differ, f.hash_of(it->second)) != item_at(f, differ, f.hash_of(k))) {
      return std::pair{it->second, k};
    }
  }
  return std::nullopt;
}

// Stores `older` in level 0 of a one-level filter, fills level 0 with keys that share no
// item with either key at levels 0 and 1 until level 1 is built, then stores `newer` in
// level 1.
void store_older_then_newer(GrowingCuckooFilter& f, std::uint64_t older, std::uint64_t newer) {
  ASSERT_EQ(f.level_count(), 1U);
  const std::uint64_t ho = f.hash_of(older);
  const std::uint64_t hn = f.hash_of(newer);
  ASSERT_EQ(f.insert(older), InsertResult::kInserted);
  const auto shares_an_item = [&](std::uint64_t h) {
    for (const unsigned l : {0U, 1U}) {
      const LevelItem item = item_at(f, l, h);
      if (item == item_at(f, l, ho) || item == item_at(f, l, hn)) return true;
    }
    return false;
  };
  for (std::uint64_t k = std::uint64_t{1} << 32; f.level_count() == 1; ++k) {  // bound: level 0's slots
    if (shares_an_item(f.hash_of(k))) continue;
    ASSERT_NE(f.insert(k), InsertResult::kFull);  // kDuplicateLimit: an aliased filler
  }
  ASSERT_EQ(f.level(0).count_hash(ho), 1U) << "the older key stays in level 0";
  ASSERT_EQ(f.insert(newer), InsertResult::kInserted);
  ASSERT_EQ(f.level_count(), 2U);
  ASSERT_EQ(f.level(1).count_hash(hn), 1U) << "the newer key went to level 1";
}

TEST(GrowingFilter, GrowsAndFindsEveryKeyInEveryShape) {
  const std::uint64_t seed = cuckoo::test::test_seed(11);
  for (const unsigned b : {1U, 2U, 4U, 8U}) {
    for (const unsigned expansion : {1U, 2U, 4U}) {
      SCOPED_TRACE("b=" + std::to_string(b) + " expansion=" + std::to_string(expansion) + " " +
                   cuckoo::test::seed_note(seed, kProgram));
      GrowingCuckooFilter f(small_config(seed + b + expansion, 32, 6, b, expansion, 6));
      std::uint64_t stored = 0;
      for (std::uint64_t k = 0; k < 100'000; ++k) {
        const InsertResult r = f.insert(k);
        if (r == InsertResult::kFull) break;
        ASSERT_EQ(r, InsertResult::kInserted) << "key " << k;
        ++stored;
      }
      EXPECT_EQ(f.level_count(), 6U) << "every level was built before the first kFull";
      EXPECT_EQ(f.size(), stored);
      EXPECT_EQ(f.stats().levels_added, 5U);
      for (std::uint64_t k = 0; k < stored; ++k) ASSERT_TRUE(f.contains(k)) << "key " << k;
      for (unsigned l = 0; l < f.level_count(); ++l) {
        EXPECT_EQ(f.level(l).fingerprint_bits(), 6 + l);
        EXPECT_EQ(f.level(l).slots_per_bucket(), b);
        EXPECT_EQ(f.level(l).seed(), f.seed());
        EXPECT_GT(f.level(l).size(), 0U);
      }
      // Erase every other key: each erase succeeds, and no key is lost (f = 6 and tiny
      // levels, so erases of keys aliased at newer levels happen; nested identities keep
      // the other key found, see the design comment).
      std::uint64_t erased = 0;
      for (std::uint64_t k = 0; k < stored; k += 2, ++erased) ASSERT_TRUE(f.erase(k)) << "key " << k;
      EXPECT_EQ(f.size(), stored - erased);
      for (std::uint64_t k = 1; k < stored; k += 2) ASSERT_TRUE(f.contains(k)) << "key " << k;
      // And the rest: the filter ends empty.
      for (std::uint64_t k = 1; k < stored; k += 2) ASSERT_TRUE(f.erase(k)) << "key " << k;
      EXPECT_EQ(f.size(), 0U);
    }
  }
}

TEST(GrowingFilter, LevelsGrowByTheExpansionAndOneFingerprintBit) {
  GrowingCuckooFilter f(small_config(3, 100, 10, 4, 3, 5));
  for (std::uint64_t k = 0; f.level_count() < 5; ++k) ASSERT_NE(f.insert(k), InsertResult::kFull);
  // capacity * 3^l slots, rounded up to a power-of-two bucket count: 25, 75, 225, 675,
  // 2025 buckets wanted; 32, 128, 256, 1024, 2048 built, each dividing the next.
  std::uint64_t capacity = 100;
  for (unsigned l = 0; l < 5; ++l) {
    const std::uint64_t buckets = std::bit_ceil((capacity + 3) / 4);
    EXPECT_EQ(f.level(l).bucket_count(), buckets) << "level " << l;
    EXPECT_EQ(f.level(l).fingerprint_bits(), 10 + l);
    EXPECT_EQ(f.level(l).nested_prefix_bits(), 10U) << "level " << l;
    if (l > 0) {
      EXPECT_EQ(f.level(l).bucket_count() % f.level(l - 1).bucket_count(), 0U);
    }
    ASSERT_TRUE(f.level_config(l).has_value());
    EXPECT_EQ(f.level_config(l)->capacity, buckets * 4);
    EXPECT_EQ(f.level_config(l)->nested_prefix_bits, 10U);
    capacity *= 3;
  }
  EXPECT_FALSE(f.level_config(5).has_value());
}

// Claim C2 for the chain: fill every level to its first kFull, then count the false
// positives of keys never inserted against the bound (1) of the design comment with a
// binomial margin (a correct filter fails with probability below 1e-9).
TEST(GrowingFilter, FalsePositiveRateStaysBelowTheBoundAcrossLevels) {
  const std::uint64_t seed = cuckoo::test::test_seed(5);
  SCOPED_TRACE(cuckoo::test::seed_note(seed, kProgram));
  for (const unsigned f0 : {6U, 8U}) {
    GrowingCuckooFilter f(small_config(seed + f0, 2048, f0, 4, 2, 5));
    std::uint64_t k = 0;
    while (f.insert(k) != InsertResult::kFull) ++k;
    ASSERT_EQ(f.level_count(), 5U);
    const double bound = f.false_positive_bound();
    EXPECT_LT(bound, f.false_positive_limit());
    EXPECT_DOUBLE_EQ(f.info().false_positive_bound, bound);
    // The limit (2) for f0 and 512 buckets: (2b + 8/512 + 2^-29) (2^(1-f) + (8/3) 4^-f).
    EXPECT_DOUBLE_EQ(f.false_positive_limit(),
                     (8.0 + 8.0 / 512 + std::ldexp(1.0, -29)) *
                         (std::ldexp(1.0, 1 - static_cast<int>(f0)) +
                          8.0 / 3.0 * std::ldexp(1.0, -2 * static_cast<int>(f0))));
    const std::uint64_t probes = 400'000;
    std::uint64_t positives = 0;
    for (std::uint64_t i = 0; i < probes; ++i) positives += f.contains((1ULL << 40) + i) ? 1 : 0;
    const double n = static_cast<double>(probes);
    const double mean = n * bound;
    // Chernoff: P(X >= mean + t) <= exp(-t^2 / (2 mean + 2t/3)); t = 6 sqrt(mean) + 30 is
    // far beyond 1e-9.
    const double margin = 6.0 * std::sqrt(mean) + 30.0;
    const double rate = static_cast<double>(positives) / n;
    std::printf("growing filter f0=%u b=4 levels=5 load=%.3f: false positives %llu / %llu = %.5f%%, "
                "bound (1) %.5f%%, limit (2) %.5f%%, level 0 alone %.5f%%\n",
                f0, f.load_factor(), static_cast<unsigned long long>(positives),
                static_cast<unsigned long long>(probes), 100 * rate, 100 * bound,
                100 * f.false_positive_limit(),
                100 * f.level(0).info().false_positive_bound);
    EXPECT_LE(static_cast<double>(positives), mean + margin)
        << "f0=" << f0 << ": " << positives << " false positives of " << probes << ", bound " << bound;
  }
}

TEST(GrowingFilter, FullAtMaxLevelsChangesNothing) {
  GrowingCuckooFilter f(small_config(9, 16, 8, 2, 2, 3));
  std::uint64_t k = 0;
  while (f.insert(k) != InsertResult::kFull) ++k;
  EXPECT_EQ(f.level_count(), 3U);
  const GrowingCuckooFilter before = f;
  const std::uint64_t size = f.size();
  for (std::uint64_t extra = 0; extra < 50; ++extra) {
    const InsertResult r = f.insert(k + 1000 + extra);
    EXPECT_TRUE(r == InsertResult::kFull || r == InsertResult::kInserted);
    if (r == InsertResult::kFull) {
      EXPECT_EQ(f.size(), size);
      EXPECT_TRUE(f == before);
      break;
    }
    ASSERT_TRUE(f.erase(k + 1000 + extra));  // put it back as it was
  }
  EXPECT_GE(f.stats().full_rejections, 1U);
  for (std::uint64_t i = 0; i < k; ++i) ASSERT_TRUE(f.contains(i)) << "key " << i;
}

TEST(GrowingFilter, MemoryLimitStopsGrowth) {
  GrowingCuckooFilterConfig c = small_config(4, 64, 8, 4, 2, 8);
  const std::uint64_t level0 = cuckoo::detail::cuckoo_filter_table_bytes(16, 4, 8);
  const std::uint64_t level1 = cuckoo::detail::cuckoo_filter_table_bytes(32, 4, 9);
  c.max_memory_bytes = level0 + level1;  // room for two levels, not three
  GrowingCuckooFilter f(c);
  EXPECT_EQ(f.reachable_levels(), 2U);
  std::uint64_t k = 0;
  while (f.insert(k) != InsertResult::kFull) ++k;
  EXPECT_EQ(f.level_count(), 2U);
  EXPECT_LE(f.table_bytes(), c.max_memory_bytes);
  EXPECT_EQ(f.table_bytes(), level0 + level1);
  for (std::uint64_t i = 0; i < k; ++i) ASSERT_TRUE(f.contains(i));
}

TEST(GrowingFilter, DuplicatesFillTheNewestLevelOnly) {
  GrowingCuckooFilter f(small_config(21, 8, 8, 2, 2, 4));
  // b = 2: 4 copies (2 when both buckets coincide) in the newest level.
  const std::uint64_t key = 77;
  const std::uint64_t limit = f.max_copies(key);
  EXPECT_TRUE(limit == 4 || limit == 2);
  for (std::uint64_t i = 0; i < limit; ++i) ASSERT_EQ(f.insert(key), InsertResult::kInserted);
  EXPECT_EQ(f.insert(key), InsertResult::kDuplicateLimit);
  EXPECT_EQ(f.count(key), limit);
  EXPECT_EQ(f.level_count(), 1U) << "a repeated key builds no level";
  // Fill level 0 with other keys until a level is added; then the key may take up to
  // the newest level's limit again.
  std::uint64_t k = 1000;
  while (f.level_count() == 1) ASSERT_NE(f.insert(k++), InsertResult::kFull);
  const std::uint64_t in_old = f.level(0).count(key);
  EXPECT_EQ(f.max_copies(key), in_old + f.level(1).max_copies(key) + f.level(1).count(key) -
                                    f.level(1).count(key));
  while (f.count(key) < f.max_copies(key)) ASSERT_EQ(f.insert(key), InsertResult::kInserted);
  EXPECT_EQ(f.insert(key), InsertResult::kDuplicateLimit);
  // erase removes one copy at a time, newest level first.
  const std::uint64_t copies = f.count(key);
  const std::uint64_t newest = f.level(1).count(key);
  ASSERT_TRUE(f.erase(key));
  EXPECT_EQ(f.count(key), copies - 1);
  EXPECT_EQ(f.level(1).count(key), newest - 1);
}

TEST(GrowingFilter, EraseOfAbsentKeyReturnsFalse) {
  GrowingCuckooFilter f(small_config(2, 64, 16, 4));
  for (std::uint64_t k = 0; k < 40; ++k) ASSERT_EQ(f.insert(k), InsertResult::kInserted);
  std::uint64_t false_erases = 0;
  for (std::uint64_t k = 1000; k < 2000; ++k) false_erases += f.erase(k) ? 1 : 0;
  EXPECT_LE(false_erases, 2U) << "f = 16: an erase of a key never inserted rarely matches";
}

// Newest first: a key in the newest level is erased from it even when an older level
// holds a copy of another key with the same item there. Keys x, y share their item at
// level 0 but not at level 1; y is stored in level 0 and x in level 1. erase(x) must take
// x's own copy from level 1: taking y's from level 0 (oldest first) would lose y, since
// x's copy at level 1 does not match y.
TEST(GrowingFilter, EraseGoesNewestLevelFirst) {
  GrowingCuckooFilter f(small_config(8, 16, 4, 2, 2, 3));
  const auto pair = aliased_pair(f, 0, 1);
  ASSERT_TRUE(pair.has_value());
  const auto [x, y] = *pair;
  SCOPED_TRACE("x=" + std::to_string(x) + " y=" + std::to_string(y));
  store_older_then_newer(f, y, x);
  ASSERT_TRUE(f.erase(x));
  EXPECT_EQ(f.level(1).count_hash(f.hash_of(x)), 0U) << "removed from the newest level";
  EXPECT_EQ(f.level(0).count_hash(f.hash_of(y)), 1U) << "the older key's copy is untouched";
  EXPECT_TRUE(f.contains(y));
}

// The defect nested identities fix. Keys x and y share their item at level 1 (same
// fingerprint and bucket pair). x is stored in level 0, y in level 1; erase(x) looks at
// level 1 first, finds y's copy (the item x has there) and removes it. y must still be
// found: with nested identities y shares x's item at level 0 too, so x's copy answers
// for y. Before the fix the search below found keys that alias at level 1 only (x's
// first bucket being y's second), and contains(y) was false after erase(x).
TEST(GrowingFilter, EraseOfAKeyAliasedAtANewerLevelLosesNoOtherKey) {
  const std::uint64_t seed = cuckoo::test::test_seed(29);
  SCOPED_TRACE(cuckoo::test::seed_note(seed, kProgram));
  GrowingCuckooFilter f(small_config(seed, 16, 4, 2, 2, 3));  // f = 4, 5, 6; 8, 16, 32 buckets
  // x, y: the same item at level 1; a pair that differs at level 0 if there is one (none
  // with nested identities), else any pair with the same item at level 1.
  std::optional<std::pair<std::uint64_t, std::uint64_t>> pair = aliased_pair(f, 1, 0);
  if (!pair) {
    std::map<LevelItem, std::uint64_t> first_with_item;
    for (std::uint64_t k = 0; !pair; ++k) {  // bound: 32 fingerprints x 32 pairs at level 1
      const auto [it, fresh] = first_with_item.emplace(item_at(f, 1, f.hash_of(k)), k);
      if (!fresh) pair.emplace(it->second, k);
    }
  }
  const auto [x, y] = *pair;
  SCOPED_TRACE("x=" + std::to_string(x) + " y=" + std::to_string(y));
  store_older_then_newer(f, x, y);
  ASSERT_TRUE(f.erase(x));
  EXPECT_TRUE(f.contains(y)) << "a false negative: erase(x) took y's copy from level 1";
  EXPECT_TRUE(f.erase(y));
}

// Nesting itself: keys with the same item at a level have the same item at every older
// level, for every level the configuration can build (small f and tiny levels, so that
// many keys share items), with expansion 1 (equal levels), 2 and 3 (rounded up).
TEST(GrowingFilter, KeysAliasedAtALevelAreAliasedAtEveryOlderLevel) {
  for (const unsigned expansion : {1U, 2U, 3U}) {
    for (const unsigned b : {1U, 4U}) {
      SCOPED_TRACE("expansion=" + std::to_string(expansion) + " b=" + std::to_string(b));
      const GrowingCuckooFilter f(small_config(61 + expansion, 8, 4, b, expansion, 6));
      ASSERT_EQ(f.reachable_levels(), 6U);
      std::uint64_t checked = 0;
      for (unsigned top = 1; top < 6; ++top) {
        std::map<LevelItem, std::uint64_t> first_with_item;
        for (std::uint64_t k = 0; k < 20'000; ++k) {
          const std::uint64_t h = f.hash_of(k);
          const auto [it, fresh] = first_with_item.emplace(item_at(f, top, h), k);
          if (fresh) continue;
          const std::uint64_t other = f.hash_of(it->second);
          for (unsigned l = 0; l < top; ++l) {
            ASSERT_EQ(item_at(f, l, h), item_at(f, l, other))
                << "keys " << it->second << " and " << k << " share their item at level " << top
                << " but not at level " << l;
          }
          ++checked;
        }
      }
      EXPECT_GT(checked, 1000U) << "too few aliased pairs to mean anything";
    }
  }
}

TEST(GrowingFilter, InsertIfAbsentStoresOneCopy) {
  GrowingCuckooFilter f(small_config(6, 32, 12, 4));
  for (std::uint64_t k = 0; k < 500; ++k) {
    const InsertResult first = f.insert_if_absent(k);
    ASSERT_TRUE(first == InsertResult::kInserted || first == InsertResult::kExists) << k;
    ASSERT_EQ(f.insert_if_absent(k), InsertResult::kExists) << k;
    ASSERT_TRUE(f.contains(k));
  }
  EXPECT_LE(f.size(), 500U);
  EXPECT_GE(f.size(), 490U) << "kExists for a new key only on a false positive";
  EXPECT_GT(f.level_count(), 1U);
}

TEST(GrowingFilter, InsertManyStopsAtTheFirstRefusalAndLosesNothing) {
  GrowingCuckooFilter f(small_config(13, 16, 8, 4, 2, 2));
  std::vector<std::uint64_t> keys(1000);
  for (std::uint64_t i = 0; i < keys.size(); ++i) keys[i] = i * 7919;
  const cuckoo::InsertManyResult r = f.insert_many(keys);
  EXPECT_FALSE(r.complete());
  EXPECT_EQ(r.refusal, InsertResult::kFull);
  EXPECT_EQ(f.size(), r.inserted);
  EXPECT_EQ(f.level_count(), 2U);
  for (std::size_t i = 0; i < r.inserted; ++i) ASSERT_TRUE(f.contains(keys[i])) << i;
  // Resuming after room is made stores the refused key next.
  // (Inserts go to the newest level: room is made there, by erasing the last keys.)
  for (std::size_t i = 1; i <= 10; ++i) ASSERT_TRUE(f.erase(keys[r.inserted - i]));
  const std::vector<std::uint64_t> rest(keys.begin() + static_cast<std::ptrdiff_t>(r.inserted),
                                        keys.begin() + static_cast<std::ptrdiff_t>(r.inserted) + 3);
  const cuckoo::InsertManyResult again = f.insert_many(rest);
  EXPECT_GE(again.inserted, 1U);
  EXPECT_TRUE(f.contains(keys[r.inserted]));
  // Any input range works, and a complete batch reports kInserted.
  GrowingCuckooFilter g(small_config(13, 64, 8, 4));
  const std::list<int> list = {1, 2, 3};
  const cuckoo::InsertManyResult all = g.insert_many(list);
  EXPECT_TRUE(all.complete());
  EXPECT_EQ(all.inserted, 3U);
  // kDuplicateLimit stops the batch too.
  const std::vector<int> same(20, 5);
  const cuckoo::InsertManyResult dup = g.insert_many(same);
  EXPECT_EQ(dup.refusal, InsertResult::kDuplicateLimit);
  EXPECT_EQ(dup.inserted, g.level(0).max_copies(5));
  // The keys after the refused one are not tried: 8 comes after a refused copy of 7.
  GrowingCuckooFilter h(small_config(14, 64, 16, 4));
  std::vector<int> then(h.max_copies(7) + 1, 7);
  then.push_back(8);
  const cuckoo::InsertManyResult stop = h.insert_many(then);
  EXPECT_EQ(stop.refusal, InsertResult::kDuplicateLimit);
  EXPECT_EQ(stop.inserted, then.size() - 2);
  EXPECT_EQ(h.size(), stop.inserted);
  EXPECT_EQ(h.count(8), 0U);
}

TEST(GrowingFilter, InfoSumsTheLevels) {
  GrowingCuckooFilter f(small_config(17, 32, 8, 4, 2, 4));
  for (std::uint64_t k = 0; f.level_count() < 3; ++k) ASSERT_NE(f.insert(k), InsertResult::kFull);
  const cuckoo::CuckooFilterInfo i = f.info();
  EXPECT_EQ(i.levels, 3U);
  EXPECT_EQ(i.capacity, 32U + 64U + 128U);
  EXPECT_EQ(i.buckets, 8U + 16U + 32U);
  EXPECT_EQ(i.size, f.size());
  EXPECT_EQ(i.slots_per_bucket, 4U);
  EXPECT_EQ(i.fingerprint_bits, 10U);
  EXPECT_EQ(i.min_fingerprint_bits, 8U);
  EXPECT_DOUBLE_EQ(i.load_factor, static_cast<double>(f.size()) / 224.0);
  EXPECT_EQ(i.memory_bytes, f.memory_bytes());
  EXPECT_GE(i.memory_bytes, f.table_bytes());
  EXPECT_DOUBLE_EQ(i.false_positive_bound, cuckoo::filter_false_positive_bound(8, 4, 8, 4) +
                                               cuckoo::filter_false_positive_bound(9, 4, 16, 4) +
                                               cuckoo::filter_false_positive_bound(10, 4, 32, 4));
}

TEST(GrowingFilter, ForErrorRatePicksTheSmallestWidth) {
  for (const double eps : {0.1, 0.01, 0.001, 1e-4, 1e-6}) {
    const GrowingCuckooFilterConfig c = GrowingCuckooFilterConfig::for_error_rate(eps, 1000);
    EXPECT_LE(cuckoo::growing_false_positive_limit(c.fingerprint_bits, 4, 250), eps);
    EXPECT_GT(cuckoo::growing_false_positive_limit(c.fingerprint_bits - 1, 4, 250), eps);
    GrowingCuckooFilter f(c);
    EXPECT_LE(f.false_positive_limit(), eps);
  }
  const GrowingCuckooFilterConfig tight = GrowingCuckooFilterConfig::for_error_rate(1e-12, 1000);
  EXPECT_EQ(tight.fingerprint_bits, 33U);
  EXPECT_THROW(GrowingCuckooFilter{tight}, cuckoo::ConfigError);
  const GrowingCuckooFilterConfig wide = GrowingCuckooFilterConfig::for_error_rate(1e-8, 1000);
  EXPECT_LE(wide.fingerprint_bits + wide.max_levels - 1, 32U);
  EXPECT_NO_THROW(GrowingCuckooFilter{wide});
}

std::string config_error_field(const GrowingCuckooFilterConfig& c) {
  try {
    GrowingCuckooFilter f(c);
  } catch (const cuckoo::ConfigError& e) {
    return e.field();
  }
  return "";
}

TEST(GrowingFilter, InvalidConfigurationsNameTheField) {
  GrowingCuckooFilterConfig c = small_config(1);
  EXPECT_EQ(config_error_field(c), "");
  c.expansion = 0;
  EXPECT_EQ(config_error_field(c), "expansion");
  c.expansion = 17;
  EXPECT_EQ(config_error_field(c), "expansion");
  c = small_config(1);
  c.max_levels = 0;
  EXPECT_EQ(config_error_field(c), "max_levels");
  c.fingerprint_bits = 30;
  c.max_levels = 4;  // 30 + 3 > 32
  EXPECT_EQ(config_error_field(c), "max_levels");
  c = small_config(1);
  c.max_memory_bytes = 10;
  EXPECT_EQ(config_error_field(c), "max_memory_bytes");
  c = small_config(1);
  c.capacity = 0;
  EXPECT_EQ(config_error_field(c), "capacity");
  c = small_config(1);
  c.fingerprint_bits = 3;
  EXPECT_EQ(config_error_field(c), "fingerprint_bits");
  c = small_config(1);
  c.slots_per_bucket = 3;
  EXPECT_EQ(config_error_field(c), "slots_per_bucket");
  c = small_config(1);
  c.max_kicks = 0;
  EXPECT_EQ(config_error_field(c), "max_kicks");
}

TEST(GrowingFilter, ClearKeepsLevelZeroOnly) {
  GrowingCuckooFilter f(small_config(23, 16, 8, 4, 2, 4));
  for (std::uint64_t k = 0; f.level_count() < 3; ++k) ASSERT_NE(f.insert(k), InsertResult::kFull);
  f.clear();
  EXPECT_EQ(f.level_count(), 1U);
  EXPECT_EQ(f.size(), 0U);
  EXPECT_EQ(f.stats(), cuckoo::GrowingCuckooFilterStats{});
  EXPECT_TRUE(f == GrowingCuckooFilter(small_config(23, 16, 8, 4, 2, 4)));
}

// ---- serialization ----------------------------------------------------------------------

GrowingCuckooFilter grown_filter(std::uint64_t seed) {
  GrowingCuckooFilter f(small_config(seed, 16, 7, 2, 2, 4));
  for (std::uint64_t k = 0; f.level_count() < 3; ++k) EXPECT_NE(f.insert(k), InsertResult::kFull);
  return f;
}

TEST(GrowingFilter, SerializationRoundTrips) {
  const std::uint64_t seed = cuckoo::test::test_seed(31);
  SCOPED_TRACE(cuckoo::test::seed_note(seed, kProgram));
  GrowingCuckooFilter f = grown_filter(seed);
  const std::vector<std::uint8_t> bytes = f.serialize();
  GrowingCuckooFilter g = GrowingCuckooFilter::deserialize(bytes);
  EXPECT_TRUE(g == f);
  EXPECT_EQ(g.stats(), f.stats());
  EXPECT_EQ(g.serialize(), bytes);
  EXPECT_EQ(g.info(), f.info());
  // The copy behaves identically from here on.
  for (std::uint64_t k = 5000; k < 5400; ++k) ASSERT_EQ(f.insert(k), g.insert(k)) << k;
  EXPECT_TRUE(g == f);
}

DeserializeErrc rejection(const std::vector<std::uint8_t>& bytes, std::string* message = nullptr) {
  try {
    (void)GrowingCuckooFilter::deserialize(bytes);
  } catch (const DeserializeError& e) {
    if (message != nullptr) *message = e.what();
    return e.code();
  }
  ADD_FAILURE() << "accepted";
  return DeserializeErrc::kTrailingBytes;
}

// The payload of the envelope, and the envelope again around an edited payload.
std::vector<std::uint8_t> payload_of(const std::vector<std::uint8_t>& bytes) {
  return {bytes.begin() + 16, bytes.end() - 8};
}
std::vector<std::uint8_t> sealed(const std::vector<std::uint8_t>& payload) {
  cuckoo::detail::ByteWriter w;
  w.raw(payload.data(), payload.size());
  return cuckoo::detail::seal_envelope(cuckoo::detail::StructureKind::kGrowingCuckooFilter,
                                       GrowingCuckooFilter::kFormatVersion, w);
}

constexpr std::size_t kLevelCountOffset = 4 + 4 + 8 + 8 + 8 + 24;  // in the payload

TEST(GrowingFilter, CorruptBytesAreRejectedWithTheirReason) {
  const std::vector<std::uint8_t> bytes = grown_filter(41).serialize();
  // Every truncation, and a flipped bit in every byte.
  for (std::size_t n = 0; n < bytes.size(); ++n) {
    const std::vector<std::uint8_t> cut(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(n));
    EXPECT_EQ(rejection(cut), DeserializeErrc::kTruncated) << "cut at " << n;
  }
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    std::vector<std::uint8_t> flipped = bytes;
    flipped[i] ^= 0x10;
    (void)rejection(flipped);  // any reason, but rejected
  }
  std::string message;
  std::vector<std::uint8_t> p = payload_of(bytes);
  // The configuration.
  std::vector<std::uint8_t> q = p;
  q[2] = 0;  // expansion
  EXPECT_EQ(rejection(sealed(q), &message), DeserializeErrc::kBadConfig);
  EXPECT_NE(message.find("expansion"), std::string::npos) << message;
  q = p;
  q[3] = 40;  // max_levels
  EXPECT_EQ(rejection(sealed(q), &message), DeserializeErrc::kBadConfig);
  EXPECT_NE(message.find("max_levels"), std::string::npos) << message;
  // The level count.
  q = p;
  q[kLevelCountOffset] = 0;
  EXPECT_EQ(rejection(sealed(q), &message), DeserializeErrc::kInconsistent);
  EXPECT_NE(message.find("level count is 0"), std::string::npos) << message;
  q = p;
  q[kLevelCountOffset] = 5;  // above max_levels = 4
  EXPECT_EQ(rejection(sealed(q), &message), DeserializeErrc::kInconsistent);
  EXPECT_NE(message.find("level count is 5"), std::string::npos) << message;
  // The first level's index byte.
  q = p;
  q[kLevelCountOffset + 1] = 1;
  EXPECT_EQ(rejection(sealed(q), &message), DeserializeErrc::kInconsistent);
  EXPECT_NE(message.find("level 0: index byte is 1"), std::string::npos) << message;
  // A level's byte length overrunning the payload.
  q = p;
  q[kLevelCountOffset + 2 + 7] = 0x7f;
  EXPECT_EQ(rejection(sealed(q), &message), DeserializeErrc::kInconsistent);
  EXPECT_NE(message.find("level 0: byte length"), std::string::npos) << message;
  // A level's own bytes corrupted: its error, named by level, its code kept.
  q = p;
  q[kLevelCountOffset + 2 + 8 + 20] ^= 1;  // inside level 0's envelope
  EXPECT_EQ(rejection(sealed(q), &message), DeserializeErrc::kChecksumMismatch);
  EXPECT_NE(message.find("level 0: "), std::string::npos) << message;
  // A level whose configuration is not its own: level 0's seed changed consistently.
  {
    GrowingCuckooFilterConfig c = small_config(42, 16, 7, 2, 2, 4);
    const GrowingCuckooFilter other(c);
    const std::vector<std::uint8_t> other_level0 = other.level(0).serialize();
    const GrowingCuckooFilter mine = grown_filter(41);
    cuckoo::detail::ByteWriter w;
    const std::vector<std::uint8_t> mine_payload = payload_of(mine.serialize());
    w.raw(mine_payload.data(), kLevelCountOffset);
    w.u8(1);
    w.u8(0);
    w.u64(other_level0.size());
    w.raw(other_level0.data(), other_level0.size());
    const std::vector<std::uint8_t> forged = cuckoo::detail::seal_envelope(
        cuckoo::detail::StructureKind::kGrowingCuckooFilter, GrowingCuckooFilter::kFormatVersion, w);
    EXPECT_EQ(rejection(forged, &message), DeserializeErrc::kInconsistent);
    EXPECT_NE(message.find("level 0: its configuration"), std::string::npos) << message;
  }
  // A level 0 with CuckooFilter's standard placement rule (same f, b, buckets, kicks and
  // seed as level 0, its nested byte 0): its items would sit where no lookup looks.
  {
    const GrowingCuckooFilter mine = grown_filter(41);
    cuckoo::CuckooFilterConfig standard = *mine.level_config(0);
    standard.nested_prefix_bits = 0;
    const std::vector<std::uint8_t> standard_level0 = cuckoo::CuckooFilter(standard).serialize();
    ASSERT_EQ(standard_level0[5], cuckoo::CuckooFilter::kFormatVersion);
    cuckoo::detail::ByteWriter w;
    const std::vector<std::uint8_t> mine_payload = payload_of(mine.serialize());
    w.raw(mine_payload.data(), kLevelCountOffset);
    w.u8(1);
    w.u8(0);
    w.u64(standard_level0.size());
    w.raw(standard_level0.data(), standard_level0.size());
    EXPECT_EQ(rejection(cuckoo::detail::seal_envelope(cuckoo::detail::StructureKind::kGrowingCuckooFilter,
                                                      GrowingCuckooFilter::kFormatVersion, w),
                        &message),
              DeserializeErrc::kInconsistent);
    EXPECT_NE(message.find("level 0: its configuration"), std::string::npos) << message;
    EXPECT_NE(message.find("nested_prefix_bits 0"), std::string::npos) << message;
  }
  // Format version 1 (levels with the standard rule, whose erase could lose a key).
  {
    cuckoo::detail::ByteWriter w;
    w.raw(p.data(), p.size());
    const std::vector<std::uint8_t> v1 =
        cuckoo::detail::seal_envelope(cuckoo::detail::StructureKind::kGrowingCuckooFilter, 1, w);
    EXPECT_EQ(rejection(v1, &message), DeserializeErrc::kUnsupportedVersion);
    EXPECT_NE(message.find("format version 1"), std::string::npos) << message;
  }
  // Trailing bytes after the last level.
  q = p;
  q.push_back(0);
  EXPECT_EQ(rejection(sealed(q), &message), DeserializeErrc::kTrailingBytes);
  // Another structure's bytes.
  cuckoo::CuckooFilterConfig fc;
  fc.capacity = 16;
  fc.seed = 1;
  EXPECT_EQ(rejection(cuckoo::CuckooFilter(fc).serialize()), DeserializeErrc::kWrongKind);
}

// ---- allocation failure and std::pmr -----------------------------------------------------

// A memory resource that refuses (std::bad_alloc) once `budget` allocations are spent.
class FailingResource : public std::pmr::memory_resource {
 public:
  std::size_t budget = ~std::size_t{0};
  std::size_t allocations = 0;

 private:
  void* do_allocate(std::size_t bytes, std::size_t align) override {
    if (allocations >= budget) throw std::bad_alloc();
    ++allocations;
    return std::pmr::new_delete_resource()->allocate(bytes, align);
  }
  void do_deallocate(void* p, std::size_t bytes, std::size_t align) override {
    std::pmr::new_delete_resource()->deallocate(p, bytes, align);
  }
  bool do_is_equal(const std::pmr::memory_resource& other) const noexcept override {
    return this == &other;
  }
};

using PmrGrowing =
    cuckoo::BasicGrowingCuckooFilter<cuckoo::DefaultHasher, std::pmr::polymorphic_allocator<std::uint8_t>>;

TEST(GrowingFilter, AllocationFailureWhileAddingALevelIsKFullAndLosesNothing) {
  FailingResource resource;
  PmrGrowing f(small_config(51, 16, 8, 4, 2, 4), {}, &resource);
  EXPECT_EQ(f.get_allocator().resource(), &resource);
  std::uint64_t k = 0;
  while (f.level_count() == 1) ASSERT_NE(f.insert(k++), InsertResult::kFull);
  // Level 1 exists; refuse every further allocation, then fill level 1.
  const std::vector<std::uint8_t> before_bytes = f.serialize();
  resource.budget = resource.allocations;
  std::uint64_t stored = k;
  InsertResult r = InsertResult::kInserted;
  while ((r = f.insert(k)) == InsertResult::kInserted) stored = ++k;
  EXPECT_EQ(r, InsertResult::kFull);
  EXPECT_EQ(f.stats().allocation_failures, 1U);
  EXPECT_EQ(f.level_count(), 2U);
  EXPECT_EQ(f.size(), stored);
  for (std::uint64_t i = 0; i < stored; ++i) ASSERT_TRUE(f.contains(i)) << i;
  // Memory back: the same insert now builds level 2.
  resource.budget = ~std::size_t{0};
  EXPECT_EQ(f.insert(k), InsertResult::kInserted);
  EXPECT_EQ(f.level_count(), 3U);
  EXPECT_EQ(f.level(2).get_allocator().resource(), &resource);
  (void)before_bytes;
}

TEST(GrowingFilter, PmrTablesComeFromTheResource) {
  FailingResource resource;
  {
    PmrGrowing f(small_config(52, 16, 8, 4, 2, 4), {}, &resource);
    for (std::uint64_t k = 0; f.level_count() < 3; ++k) ASSERT_NE(f.insert(k), InsertResult::kFull);
    const std::size_t used = resource.allocations;
    EXPECT_GE(used, 4U) << "three tables and the level array";
    const PmrGrowing restored = PmrGrowing::deserialize(f.serialize(), {}, &resource);
    EXPECT_TRUE(restored == f);
    EXPECT_GT(resource.allocations, used);
    const PmrGrowing copy = f;  // select_on_container_copy_construction: the default resource
    EXPECT_TRUE(copy == f);
  }
}

}  // namespace
