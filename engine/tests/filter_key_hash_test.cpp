// The filters' key hash (detail/filter_key_ops.hpp): integer and enum keys under
// DefaultHasher take one mix round with the seed spread by a multiply; every other key
// takes seeded_hash. Every filter design hashes a key the same way; seeds a few low bits
// apart give unrelated placements; and bytes of format version 4 and older, written when
// every key took seeded_hash, are read with that rule (legacy_key_hash()) by
// CuckooFilter and GrowingCuckooFilter, kept through copies, assignments, later
// serializations and a growing filter's new levels.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cuckoo/concurrent_filter.hpp"
#include "cuckoo/cuckoo_filter.hpp"
#include "cuckoo/detail/serial.hpp"
#include "cuckoo/growing_filter.hpp"
#include "cuckoo/lock_free_filter.hpp"
#include "support/key_hash_rule.hpp"
#include "support/test_seed.hpp"

namespace {

using cuckoo::test::documented_one_round;

using cuckoo::CuckooFilter;
using cuckoo::CuckooFilterConfig;
using cuckoo::DeserializeErrc;
using cuckoo::DeserializeError;
using cuckoo::GrowingCuckooFilter;
using cuckoo::GrowingCuckooFilterConfig;
using cuckoo::InsertResult;

constexpr std::string_view kProgram = "filter_key_hash_test";

CuckooFilterConfig config(std::uint64_t capacity, std::uint64_t seed, unsigned f = 12,
                          unsigned b = 4) {
  CuckooFilterConfig c;
  c.capacity = capacity;
  c.fingerprint_bits = f;
  c.slots_per_bucket = b;
  c.seed = seed;
  return c;
}


enum class Color : std::int16_t { kRed = -3, kBlue = 7 };

using cuckoo::test::sealed_payload;
std::vector<std::uint8_t> payload_of(const std::vector<std::uint8_t>& bytes) {
  return cuckoo::test::envelope_payload(bytes);
}
std::vector<std::uint8_t> sealed(cuckoo::detail::StructureKind kind, std::uint8_t version,
                                 const std::vector<std::uint8_t>& payload) {
  return sealed_payload(kind, version, payload);
}

// A CuckooFilter's version 5 bytes rewritten as the older `version` wrote them: without
// the key hash byte (4), and below version 4 without the nested byte (3), below 3 without
// the layout byte (2). REQUIRES: the bytes have key hash 0 (the older rule), and what the
// older version cannot say is the default (standard rule, unsorted buckets).
std::vector<std::uint8_t> as_version(const std::vector<std::uint8_t>& v5, std::uint8_t version) {
  std::vector<std::uint8_t> p = payload_of(v5);
  EXPECT_EQ(v5[5], 5U);
  EXPECT_EQ(p[4], 0U) << "only bytes of the older key hash can be rewritten";
  p.erase(p.begin() + 4);
  if (version <= 3) {
    EXPECT_EQ(p[3], 0U);
    p.erase(p.begin() + 3);
  }
  if (version <= 2) {
    EXPECT_EQ(p[2], 0U);
    p.erase(p.begin() + 2);
  }
  return sealed(cuckoo::detail::StructureKind::kCuckooFilter, version, p);
}

// A filter with version 5 bytes of key hash 0 (what bytes read from an older version
// write back): keys 0..n-1 stored by their seeded_hash, as the older builds stored them.
// Made by storing hashes and flipping the key hash byte, which is what an older build's
// bytes, read and written back, hold.
std::vector<std::uint8_t> older_rule_bytes(const CuckooFilterConfig& c, std::uint64_t n) {
  CuckooFilter f(c);
  for (std::uint64_t k = 0; k < n; ++k) {
    EXPECT_EQ(f.insert_hash(cuckoo::DefaultHasher{}(k, *c.seed)), InsertResult::kInserted) << k;
  }
  std::vector<std::uint8_t> p = payload_of(f.serialize());
  EXPECT_EQ(p[4], 1U);
  p[4] = 0;
  return sealed(cuckoo::detail::StructureKind::kCuckooFilter, CuckooFilter::kFormatVersion, p);
}

// How many of keys 0..n-1 the filter finds.
template <class Filter>
std::uint64_t found(const Filter& f, std::uint64_t n) {
  std::uint64_t hits = 0;
  for (std::uint64_t k = 0; k < n; ++k) hits += f.contains(k) ? 1 : 0;
  return hits;
}

TEST(FilterKeyHash, IntegerKeysTakeTheDocumentedOneRoundHash) {
  const std::uint64_t seed = cuckoo::test::test_seed(0x5eed);
  SCOPED_TRACE(cuckoo::test::seed_note(seed, kProgram));
  const CuckooFilter f(config(1024, seed));
  EXPECT_FALSE(f.legacy_key_hash());
  for (std::uint64_t k : {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{42},
                          ~std::uint64_t{0}, std::uint64_t{0x9e3779b97f4a7c15ULL}}) {
    EXPECT_EQ(f.hash_of(k), documented_one_round(k, seed)) << k;
    EXPECT_NE(f.hash_of(k), cuckoo::DefaultHasher{}(k, seed)) << k;
  }
  // Narrower and signed integers by their value as DefaultHasher takes it (sign
  // extended), enums by their underlying value.
  EXPECT_EQ(f.hash_of(std::int32_t{-5}), documented_one_round(static_cast<std::uint64_t>(-5), seed));
  EXPECT_EQ(f.hash_of(std::uint8_t{200}), documented_one_round(200, seed));
  EXPECT_EQ(f.hash_of(Color::kRed), documented_one_round(static_cast<std::uint64_t>(-3), seed));
  EXPECT_EQ(f.hash_of(Color::kBlue), f.hash_of(7));
  // Byte strings keep DefaultHasher's hash (XXH3 with the seed).
  EXPECT_EQ(f.hash_of(std::string_view("apple")),
            cuckoo::DefaultHasher{}(std::string_view("apple"), seed));
  EXPECT_EQ(f.hash_of(std::string("apple")), f.hash_of("apple"));
}

// A hasher of the user's: its own hash with the seed, integer keys included.
struct UserHasher {
  std::uint64_t operator()(std::uint64_t key, std::uint64_t seed) const { return key * 31 + seed; }
};

TEST(FilterKeyHash, AUsersHasherIsCalledAsItIs) {
  const cuckoo::BasicCuckooFilter<UserHasher> f(config(1024, 9));
  EXPECT_EQ(f.hash_of(std::uint64_t{5}), 5U * 31 + 9);
  const cuckoo::BasicCuckooFilter<std::hash<std::uint64_t>> g(config(1024, 9));
  EXPECT_EQ(g.hash_of(std::uint64_t{5}), cuckoo::seeded_hash(std::hash<std::uint64_t>{}, std::uint64_t{5}, 9));
}

TEST(FilterKeyHash, EveryFilterDesignHashesAKeyTheSameWay) {
  const std::uint64_t seed = cuckoo::test::test_seed(77);
  SCOPED_TRACE(cuckoo::test::seed_note(seed, kProgram));
  const CuckooFilter plain(config(4096, seed));
  GrowingCuckooFilterConfig g;
  g.capacity = 4096;
  g.seed = seed;
  const GrowingCuckooFilter growing(g);
  const cuckoo::CoarseConcurrentFilter coarse(config(4096, seed));
  const cuckoo::StripedConcurrentFilter striped(config(4096, seed));
  const cuckoo::LockFreeFilter lock_free(config(4096, seed));
  for (std::uint64_t k = 0; k < 1000; ++k) {
    const std::uint64_t h = plain.hash_of(k);
    ASSERT_EQ(growing.hash_of(k), h) << k;
    ASSERT_EQ(coarse.hash_of(k), h) << k;
    ASSERT_EQ(striped.hash_of(k), h) << k;
    ASSERT_EQ(lock_free.hash_of(k), h) << k;
  }
}

// With the raw seed xored into the key, key k under seed s would hash as key k ^ d under
// seed s ^ d: filters seeded 2 and 3 over keys 0..n-1 (a set closed under ^ 1) would hold
// the same hashes. The seed's multiply makes them unrelated.
TEST(FilterKeyHash, SeedsAFewLowBitsApartGiveUnrelatedHashes) {
  for (std::uint64_t s : {std::uint64_t{2}, std::uint64_t{1000}, std::uint64_t{0x40}}) {
    const CuckooFilter a(config(1024, s));
    for (std::uint64_t d : {std::uint64_t{1}, std::uint64_t{2}, std::uint64_t{0x81}}) {
      const CuckooFilter b(config(1024, s ^ d));
      std::set<std::uint64_t> under_a;
      for (std::uint64_t k = 0; k < 4096; ++k) under_a.insert(a.hash_of(k));
      std::uint64_t shared = 0;
      for (std::uint64_t k = 0; k < 4096; ++k) shared += under_a.count(b.hash_of(k));
      EXPECT_EQ(shared, 0U) << "seeds " << s << " and " << (s ^ d);
    }
  }
}

TEST(FilterKeyHash, OlderBytesAreReadWithTheSeededHashTheyWereWrittenWith) {
  const std::uint64_t seed = cuckoo::test::test_seed(1234);
  SCOPED_TRACE(cuckoo::test::seed_note(seed, kProgram));
  constexpr std::uint64_t kKeys = 600;
  const std::vector<std::uint8_t> v5 = older_rule_bytes(config(1024, seed), kKeys);
  for (std::uint8_t version : {std::uint8_t{2}, std::uint8_t{3}, std::uint8_t{4}, std::uint8_t{5}}) {
    SCOPED_TRACE("version " + std::to_string(version));
    std::vector<std::uint8_t> bytes;
    if (version == 4) {
      // Version 4 is the nested rule's: a nested filter's bytes, rewritten.
      CuckooFilterConfig nested = config(1024, seed);
      nested.nested_prefix_bits = 12;
      bytes = as_version(older_rule_bytes(nested, kKeys), 4);
    } else {
      bytes = version == 5 ? v5 : as_version(v5, version);
    }
    const CuckooFilter f = CuckooFilter::deserialize(bytes);
    EXPECT_TRUE(f.legacy_key_hash());
    EXPECT_EQ(f.lookup_shape(), cuckoo::detail::FilterShapeId::kGeneric)
        << "the compiled lookups hash by the one-round rule only";
    EXPECT_EQ(f.hash_of(std::uint64_t{3}), cuckoo::DefaultHasher{}(std::uint64_t{3}, seed));
    std::vector<std::uint64_t> keys(kKeys);
    for (std::uint64_t k = 0; k < kKeys; ++k) keys[k] = k;
    std::vector<bool> batch(kKeys);
    f.contains_many(keys, batch);
    EXPECT_EQ(static_cast<std::uint64_t>(std::count(batch.begin(), batch.end(), true)), kKeys)
        << "contains_many misses keys stored by the older rule";
    EXPECT_EQ(found(f, kKeys), kKeys) << "a key stored by the older rule is lost";
    // Copies, assignments and later serializations keep the rule.
    const CuckooFilter copy = f;
    EXPECT_TRUE(copy.legacy_key_hash());
    CuckooFilter assigned(config(1024, seed));
    assigned = f;
    EXPECT_TRUE(assigned.legacy_key_hash());
    EXPECT_TRUE(assigned == f);
    CuckooFilter moved(config(1024, seed));
    moved = CuckooFilter(f);
    EXPECT_TRUE(moved.legacy_key_hash());
    const std::vector<std::uint8_t> again = f.serialize();
    EXPECT_EQ(again[5], CuckooFilter::kFormatVersion);
    EXPECT_EQ(again[16 + 4], 0U) << "the key hash byte";
    const CuckooFilter reread = CuckooFilter::deserialize(again);
    EXPECT_TRUE(reread.legacy_key_hash());
    EXPECT_TRUE(reread == f);
    EXPECT_EQ(found(reread, kKeys), kKeys);
    // New keys go in by the same rule, and are found.
    CuckooFilter grown = reread;
    for (std::uint64_t k = kKeys; k < kKeys + 100; ++k) {
      ASSERT_EQ(grown.insert(k), InsertResult::kInserted) << k;
    }
    EXPECT_EQ(found(grown, kKeys + 100), kKeys + 100);
  }
  // The same table read with the one-round rule loses most keys: the byte matters.
  std::vector<std::uint8_t> p = payload_of(v5);
  p[4] = 1;
  const CuckooFilter other =
      CuckooFilter::deserialize(sealed(cuckoo::detail::StructureKind::kCuckooFilter, 5, p));
  EXPECT_FALSE(other.legacy_key_hash());
  EXPECT_FALSE(other == CuckooFilter::deserialize(v5)) << "two key hashes, two filters";
  EXPECT_LT(found(other, kKeys), kKeys / 2);
}

TEST(FilterKeyHash, AKeyHashByteAboveOneIsRejectedByName) {
  const std::vector<std::uint8_t> bytes = CuckooFilter(config(64, 5)).serialize();
  std::vector<std::uint8_t> p = payload_of(bytes);
  p[4] = 2;
  try {
    (void)CuckooFilter::deserialize(sealed(cuckoo::detail::StructureKind::kCuckooFilter, 5, p));
    FAIL() << "a key hash byte of 2 was accepted";
  } catch (const DeserializeError& e) {
    EXPECT_EQ(e.code(), DeserializeErrc::kBadConfig);
    EXPECT_NE(std::string(e.what()).find("key hash"), std::string::npos) << e.what();
  }
}

// A growing filter's bytes with every level rewritten as version 4 (the older key hash),
// and each level's byte length adjusted.
std::vector<std::uint8_t> growing_as_older(const GrowingCuckooFilter& g) {
  const std::vector<std::uint8_t> p = payload_of(g.serialize());
  constexpr std::size_t kLevelCountAt = 4 + 4 + 8 + 8 + 8 + 24;
  cuckoo::detail::ByteWriter w;
  w.raw(p.data(), kLevelCountAt + 1);
  for (unsigned l = 0; l < g.level_count(); ++l) {
    std::vector<std::uint8_t> level = payload_of(g.level(l).serialize());
    level[4] = 0;
    const std::vector<std::uint8_t> v4 =
        as_version(sealed(cuckoo::detail::StructureKind::kCuckooFilter, 5, level), 4);
    w.u8(static_cast<std::uint8_t>(l));
    w.u64(v4.size());
    w.raw(v4.data(), v4.size());
  }
  return sealed(cuckoo::detail::StructureKind::kGrowingCuckooFilter,
                GrowingCuckooFilter::kFormatVersion, std::vector<std::uint8_t>(w.bytes()));
}

TEST(FilterKeyHash, AGrowingFilterReadFromOlderLevelsKeepsTheirRuleInNewLevels) {
  const std::uint64_t seed = cuckoo::test::test_seed(4321);
  SCOPED_TRACE(cuckoo::test::seed_note(seed, kProgram));
  GrowingCuckooFilterConfig c;
  c.capacity = 64;
  c.fingerprint_bits = 8;
  c.seed = seed;
  GrowingCuckooFilter g(c);
  std::uint64_t n = 0;
  // Keys stored by their seeded_hash, as an older build stored them, over two levels.
  for (; g.level_count() < 2; ++n) {
    ASSERT_NE(g.insert_hash(cuckoo::DefaultHasher{}(n, seed)), InsertResult::kFull);
  }
  const GrowingCuckooFilter old = GrowingCuckooFilter::deserialize(growing_as_older(g));
  EXPECT_TRUE(old.legacy_key_hash());
  EXPECT_EQ(found(old, n), n);
  // Grown further by key: the new levels hash as the old ones.
  GrowingCuckooFilter grown = old;
  const unsigned levels = grown.level_count();
  std::uint64_t m = n;
  for (; grown.level_count() < levels + 2; ++m) ASSERT_NE(grown.insert(m), InsertResult::kFull);
  EXPECT_TRUE(grown.level(grown.level_count() - 1).legacy_key_hash());
  EXPECT_EQ(found(grown, m), m);
  const GrowingCuckooFilter reread = GrowingCuckooFilter::deserialize(grown.serialize());
  EXPECT_TRUE(reread.legacy_key_hash());
  EXPECT_EQ(found(reread, m), m);
  // A fresh filter hashes by one round, and its levels say so.
  EXPECT_FALSE(g.legacy_key_hash());
  EXPECT_EQ(g.hash_of(std::uint64_t{3}), documented_one_round(3, seed));
}

TEST(FilterKeyHash, AGrowingFilterWithLevelsOfTwoKeyHashesIsRejected) {
  GrowingCuckooFilterConfig c;
  c.capacity = 64;
  c.fingerprint_bits = 8;
  c.seed = 11;
  GrowingCuckooFilter g(c);
  for (std::uint64_t k = 0; g.level_count() < 2; ++k) ASSERT_NE(g.insert(k), InsertResult::kFull);
  // Level 0 rewritten with the older key hash, level 1 kept.
  const std::vector<std::uint8_t> p = payload_of(g.serialize());
  constexpr std::size_t kLevelCountAt = 4 + 4 + 8 + 8 + 8 + 24;
  cuckoo::detail::ByteWriter w;
  w.raw(p.data(), kLevelCountAt + 1);
  for (unsigned l = 0; l < 2; ++l) {
    std::vector<std::uint8_t> level = g.level(l).serialize();
    if (l == 0) {
      std::vector<std::uint8_t> q = payload_of(level);
      q[4] = 0;
      level = sealed(cuckoo::detail::StructureKind::kCuckooFilter, 5, q);
    }
    w.u8(static_cast<std::uint8_t>(l));
    w.u64(level.size());
    w.raw(level.data(), level.size());
  }
  try {
    (void)GrowingCuckooFilter::deserialize(sealed(cuckoo::detail::StructureKind::kGrowingCuckooFilter,
                                                  GrowingCuckooFilter::kFormatVersion,
                                                  std::vector<std::uint8_t>(w.bytes())));
    FAIL() << "levels of two key hashes were accepted";
  } catch (const DeserializeError& e) {
    EXPECT_EQ(e.code(), DeserializeErrc::kInconsistent);
    EXPECT_NE(std::string(e.what()).find("level 1: its key hash"), std::string::npos) << e.what();
  }
}

}  // namespace
