// The maps' key hash (hash.hpp, detail::map_key_hash): CuckooMap and
// StripedConcurrentMap place integer keys under DefaultHasher by two multiply folds with
// the seed spread by a multiply (KeyHashRule::kProduct); a reseed a few low bits away
// gives unrelated placements; and CuckooMap bytes of format version 1, written when
// every key took seeded_hash, and of version 2, written when integer keys took one mix
// round, are read with that rule (key_hash_rule()), kept through copies, moves, swaps,
// assignments, growth and later serializations.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cuckoo/concurrent_map.hpp"
#include "cuckoo/cuckoo_map.hpp"
#include "cuckoo/detail/serial.hpp"
#include "support/key_hash_rule.hpp"
#include "support/test_seed.hpp"

namespace {

using cuckoo::test::documented_one_round;
using cuckoo::test::documented_product;
using cuckoo::KeyHashRule;

using cuckoo::CuckooMapConfig;
using cuckoo::DeserializeErrc;
using cuckoo::DeserializeError;
using Map = cuckoo::CuckooMap<std::uint64_t, std::uint64_t>;

constexpr std::string_view kProgram = "map_key_hash_test";

CuckooMapConfig config(std::uint64_t seed, std::size_t capacity = 64) {
  CuckooMapConfig c;
  c.initial_capacity = capacity;
  c.seed = seed;
  return c;
}


std::pair<std::uint32_t, std::uint32_t> documented_buckets(std::uint64_t key, std::uint64_t seed,
                                                           std::uint32_t bucket_count) {
  const cuckoo::detail::MapBucketPair p =
      cuckoo::detail::map_buckets(documented_product(key, seed), bucket_count);
  return {p.first, p.second};
}

// DefaultHasher's own two-round hash as a hasher of another type: a map with it places
// integer keys as maps of format version 1 did.
struct TwoRounds {
  std::uint64_t operator()(std::uint64_t key, std::uint64_t seed) const noexcept {
    return cuckoo::DefaultHasher{}(key, seed);
  }
};

std::vector<std::uint8_t> payload_of(const std::vector<std::uint8_t>& bytes) {
  return cuckoo::test::envelope_payload(bytes);
}
std::vector<std::uint8_t> sealed(std::uint8_t version, const std::vector<std::uint8_t>& payload) {
  return cuckoo::test::sealed_payload(cuckoo::detail::StructureKind::kCuckooMap, version, payload);
}

// Whether m maps every k < n to k * 3.
template <class M>
bool holds_all(const M& m, std::uint64_t n) {
  for (std::uint64_t k = 0; k < n; ++k) {
    const auto it = m.find(k);
    if (it == m.end() || it->second != k * 3) return false;
  }
  return m.size() == n;
}

// Inserts keys n, n + 1, ... (mapped to k * 3) until m has four times its buckets;
// returns the key after the last one inserted.
std::uint64_t grow_fourfold(Map& m, std::uint64_t n) {
  const std::uint32_t buckets = m.bucket_count();
  for (; m.bucket_count() < 4 * buckets; ++n) m.insert_or_assign(n, n * 3);
  return n;
}

TEST(MapKeyHash, IntegerKeysArePlacedByTheDocumentedProductRule) {
  const std::uint64_t seed = cuckoo::test::test_seed(0xabc);
  SCOPED_TRACE(cuckoo::test::seed_note(seed, kProgram));
  Map m(config(seed, 4096));
  EXPECT_EQ(m.key_hash_rule(), KeyHashRule::kProduct);
  EXPECT_FALSE(m.legacy_key_hash());
  cuckoo::StripedConcurrentMap<std::uint64_t, std::uint64_t> striped(config(seed, 4096));
  // Small keys, and keys whose high halves matter (the products' carries).
  for (std::uint64_t i = 0; i < 2000; ++i) {
    for (const std::uint64_t k : {i, ~i, i * std::uint64_t{0x9e3779b97f4a7c15ULL}, i << 40}) {
      ASSERT_EQ(m.buckets_of(k), documented_buckets(k, seed, m.bucket_count())) << k;
      ASSERT_EQ(striped.buckets_of(k), documented_buckets(k, seed, striped.bucket_count())) << k;
    }
  }
  // A signed key is hashed as its 64-bit two's complement value.
  cuckoo::CuckooMap<std::int32_t, int> ints(config(seed, 4096));
  EXPECT_EQ(ints.buckets_of(-5), documented_buckets(static_cast<std::uint64_t>(std::int64_t{-5}),
                                                    seed, ints.bucket_count()));
  // A key type DefaultHasher does not take by value keeps seeded_hash.
  cuckoo::CuckooMap<std::string, int> strings(config(seed, 64));
  const cuckoo::detail::MapBucketPair p = cuckoo::detail::map_buckets(
      cuckoo::DefaultHasher{}(std::string_view("apple"), seed), strings.bucket_count());
  EXPECT_EQ(strings.buckets_of("apple"), std::make_pair(p.first, p.second));
}

// With the raw seed xored into the key, a reseed from s to s ^ d over a key set closed
// under ^ d would give the same placements again: the seed's multiply makes them
// unrelated.
TEST(MapKeyHash, SeedsAFewLowBitsApartPlaceKeysIndependently) {
  for (std::uint64_t s : {std::uint64_t{2}, std::uint64_t{1000}}) {
    const Map a(config(s, 4096));
    const Map b(config(s ^ 1, 4096));
    std::uint64_t same = 0;
    for (std::uint64_t k = 0; k < 4096; ++k) same += a.buckets_of(k) == b.buckets_of(k ^ 1) ? 1 : 0;
    // Independent placements agree for about 4096 / buckets^2 keys.
    EXPECT_LT(same, 8U) << "seeds " << s << " and " << (s ^ 1);
  }
}

TEST(MapKeyHash, VersionOneBytesAreReadWithTheSeededHashTheyWereWrittenWith) {
  const std::uint64_t seed = cuckoo::test::test_seed(77);
  SCOPED_TRACE(cuckoo::test::seed_note(seed, kProgram));
  constexpr std::uint64_t kItems = 1000;
  cuckoo::CuckooMap<std::uint64_t, std::uint64_t, 4, TwoRounds> written(config(seed));
  for (std::uint64_t k = 0; k < kItems; ++k) written.insert_or_assign(k, k * 3);
  // Version 1: the current payload without its key hash byte (after SlotsPerBucket).
  // A map under another hasher records the current rule, which its keys do not take.
  std::vector<std::uint8_t> p = payload_of(written.serialize());
  ASSERT_EQ(p[1], 2U);
  p.erase(p.begin() + 1);
  const std::vector<std::uint8_t> v1 = sealed(1, p);

  Map m = Map::deserialize(v1);
  EXPECT_EQ(m.key_hash_rule(), KeyHashRule::kSeeded);
  EXPECT_TRUE(m.legacy_key_hash());
  EXPECT_TRUE(holds_all(m, kItems));
  EXPECT_EQ(m.check_invariants(), "");
  // Copies, moves, swaps and assignments carry the rule.
  const Map copy = m;
  EXPECT_TRUE(copy.legacy_key_hash());
  EXPECT_TRUE(holds_all(copy, kItems));
  Map assigned(config(seed));
  assigned = m;
  EXPECT_TRUE(assigned.legacy_key_hash());
  EXPECT_TRUE(holds_all(assigned, kItems));
  Map moved(std::move(assigned));
  EXPECT_TRUE(moved.legacy_key_hash());
  EXPECT_TRUE(holds_all(moved, kItems));
  Map move_assigned(config(seed));
  move_assigned = std::move(moved);
  EXPECT_TRUE(move_assigned.legacy_key_hash());
  EXPECT_TRUE(holds_all(move_assigned, kItems));
  Map swapped(config(seed));
  swapped.swap(move_assigned);
  EXPECT_TRUE(swapped.legacy_key_hash());
  EXPECT_FALSE(move_assigned.legacy_key_hash()) << "the fresh map's rule went the other way";
  EXPECT_TRUE(holds_all(swapped, kItems));
  // Growth rebuilds by the same rule.
  Map grown = m;
  const std::uint64_t n = grow_fourfold(grown, kItems);
  EXPECT_TRUE(holds_all(grown, n));
  EXPECT_EQ(grown.check_invariants(), "");
  // Written again: the current version with the key hash byte 0, read back the same.
  const std::vector<std::uint8_t> again = grown.serialize();
  EXPECT_EQ(again[5], Map::kFormatVersion);
  EXPECT_EQ(again[16 + 1], 0U) << "the key hash byte";
  const Map reread = Map::deserialize(again);
  EXPECT_TRUE(reread.legacy_key_hash());
  EXPECT_TRUE(holds_all(reread, n));

  // The same items declared one-round (version 2) or product (version 3): every item
  // sits outside its buckets by those rules.
  std::vector<std::uint8_t> q = payload_of(written.serialize());
  for (const auto& [version, rule] : {std::pair{2, 1}, std::pair{3, 2}}) {
    q[1] = static_cast<std::uint8_t>(rule);
    try {
      (void)Map::deserialize(sealed(static_cast<std::uint8_t>(version), q));
      FAIL() << "items placed by the older rule were accepted under rule " << rule;
    } catch (const DeserializeError& e) {
      EXPECT_EQ(e.code(), DeserializeErrc::kInconsistent);
      EXPECT_NE(std::string(e.what()).find("candidate buckets"), std::string::npos) << e.what();
    }
  }
}

// Bytes of format version 2 as that version wrote them: keys 0..n-1 mapped to k * 3,
// each in the first bucket with a free slot of its one-mix-round pair (the rule of
// version 2), in a table of 64 buckets; the configuration's seed is the map's.
std::vector<std::uint8_t> version_two_bytes(std::uint64_t seed, std::uint64_t n) {
  constexpr std::uint32_t kBuckets = 64;
  std::vector<std::uint64_t> key_at(kBuckets * 4, ~std::uint64_t{0});
  std::vector<bool> used(kBuckets * 4, false);
  for (std::uint64_t k = 0; k < n; ++k) {
    const cuckoo::detail::MapBucketPair p =
        cuckoo::detail::map_buckets(documented_one_round(k, seed), kBuckets);
    bool placed = false;
    for (const std::uint32_t b : {p.first, p.second}) {
      for (unsigned s = 0; s < 4 && !placed; ++s) {
        if (!used[b * 4 + s]) {
          used[b * 4 + s] = true;
          key_at[b * 4 + s] = k;
          placed = true;
        }
      }
    }
    if (!placed) ADD_FAILURE() << "key " << k << " found both its buckets full";
  }
  cuckoo::detail::ByteWriter w;
  w.u8(4);  // SlotsPerBucket
  w.u8(1);  // key hash: one mix round
  w.u64(kBuckets * 4);  // initial_capacity
  w.u64(std::uint64_t{1} << 20);  // max_capacity
  w.u32(5);  // max_path_length
  w.u64(seed);  // config seed
  w.u64(seed);  // seed in use
  w.u32(kBuckets);
  w.u64(n);
  for (std::uint64_t pos = 0; pos < used.size(); ++pos) {
    if (!used[pos]) continue;
    w.u64(pos);
    w.u64(key_at[pos]);
    w.u64(key_at[pos] * 3);
  }
  return cuckoo::detail::seal_envelope(cuckoo::detail::StructureKind::kCuckooMap, 2, w);
}

TEST(MapKeyHash, VersionTwoBytesAreReadWithTheOneRoundRuleTheyWereWrittenWith) {
  const std::uint64_t seed = cuckoo::test::test_seed(78);
  SCOPED_TRACE(cuckoo::test::seed_note(seed, kProgram));
  constexpr std::uint64_t kItems = 100;
  const std::vector<std::uint8_t> v2 = version_two_bytes(seed, kItems);

  Map m = Map::deserialize(v2);
  EXPECT_EQ(m.key_hash_rule(), KeyHashRule::kOneRound);
  EXPECT_FALSE(m.legacy_key_hash());
  EXPECT_TRUE(holds_all(m, kItems));
  EXPECT_EQ(m.check_invariants(), "");
  for (std::uint64_t k = 0; k < kItems; ++k) {
    const cuckoo::detail::MapBucketPair p =
        cuckoo::detail::map_buckets(documented_one_round(k, seed), m.bucket_count());
    ASSERT_EQ(m.buckets_of(k), std::make_pair(p.first, p.second)) << k;
  }
  // Copies, moves, swaps and assignments carry the rule.
  const Map copy = m;
  EXPECT_EQ(copy.key_hash_rule(), KeyHashRule::kOneRound);
  EXPECT_TRUE(holds_all(copy, kItems));
  Map source = m;
  Map moved(std::move(source));
  EXPECT_EQ(moved.key_hash_rule(), KeyHashRule::kOneRound);
  Map swapped(config(seed));
  swapped.swap(moved);
  EXPECT_EQ(swapped.key_hash_rule(), KeyHashRule::kOneRound);
  EXPECT_EQ(moved.key_hash_rule(), KeyHashRule::kProduct) << "the fresh map's rule went the other way";
  EXPECT_TRUE(holds_all(swapped, kItems));
  // Growth rebuilds by the same rule.
  Map grown = m;
  const std::uint64_t n = grow_fourfold(grown, kItems);
  EXPECT_TRUE(holds_all(grown, n));
  EXPECT_EQ(grown.check_invariants(), "");
  EXPECT_EQ(grown.key_hash_rule(), KeyHashRule::kOneRound);
  // Written again: the current version with the key hash byte 1, read back the same.
  const std::vector<std::uint8_t> again = grown.serialize();
  EXPECT_EQ(again[5], Map::kFormatVersion);
  EXPECT_EQ(again[16 + 1], 1U) << "the key hash byte";
  const Map reread = Map::deserialize(again);
  EXPECT_EQ(reread.key_hash_rule(), KeyHashRule::kOneRound);
  EXPECT_TRUE(holds_all(reread, n));

  // The same items declared under the product rule sit outside their buckets.
  std::vector<std::uint8_t> q = payload_of(v2);
  q[1] = 2;
  try {
    (void)Map::deserialize(sealed(3, q));
    FAIL() << "items placed by the one-round rule were accepted under the product rule";
  } catch (const DeserializeError& e) {
    EXPECT_EQ(e.code(), DeserializeErrc::kInconsistent);
    EXPECT_NE(std::string(e.what()).find("candidate buckets"), std::string::npos) << e.what();
  }
}

TEST(MapKeyHash, AKeyHashByteTheVersionDoesNotKnowIsRejectedByName) {
  Map m(config(5));
  m.insert_or_assign(1, 2);
  std::vector<std::uint8_t> p = payload_of(m.serialize());
  // Version 2 knew rules 0 and 1, version 3 knows 0 to 2.
  for (const auto& [version, rule] : {std::pair{2, 2}, std::pair{3, 3}, std::pair{3, 255}}) {
    p[1] = static_cast<std::uint8_t>(rule);
    try {
      (void)Map::deserialize(sealed(static_cast<std::uint8_t>(version), p));
      FAIL() << "a key hash byte of " << rule << " was accepted in version " << version;
    } catch (const DeserializeError& e) {
      EXPECT_EQ(e.code(), DeserializeErrc::kBadConfig);
      EXPECT_NE(std::string(e.what()).find("key hash"), std::string::npos) << e.what();
    }
  }
  // Version 4 is not read.
  try {
    (void)Map::deserialize(sealed(4, payload_of(m.serialize())));
    FAIL() << "version 4 bytes were accepted";
  } catch (const DeserializeError& e) {
    EXPECT_EQ(e.code(), DeserializeErrc::kUnsupportedVersion);
  }
}

// The product rule's 128-bit products: the engine's (__int128 where the compiler has it)
// and the portable form from 32-bit halves agree with the documented rule, including
// operands whose products carry across the halves.
TEST(MapKeyHash, TheMultiplyFoldAgreesWithItsDocumentedForm) {
  const std::uint64_t seed = cuckoo::test::test_seed(91);
  SCOPED_TRACE(cuckoo::test::seed_note(seed, kProgram));
  std::uint64_t x = seed | 1;
  for (int i = 0; i < 10000; ++i) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    const std::uint64_t key = i < 4 ? ~std::uint64_t{0} >> i : x;
    ASSERT_EQ(cuckoo::detail::product_key_hash(key, seed), documented_product(key, seed)) << key;
  }
}

}  // namespace
