// The maps' key hash (hash.hpp, detail::engine_key_hash): CuckooMap and
// StripedConcurrentMap place integer keys under DefaultHasher by one mix round with the
// seed spread by a multiply; a reseed a few low bits away gives unrelated placements;
// and CuckooMap bytes of format version 1, written when every key took seeded_hash, are
// read with that rule (legacy_key_hash()), kept through copies, moves, swaps,
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
      cuckoo::detail::map_buckets(documented_one_round(key, seed), bucket_count);
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

TEST(MapKeyHash, IntegerKeysArePlacedByTheDocumentedOneRoundHash) {
  const std::uint64_t seed = cuckoo::test::test_seed(0xabc);
  SCOPED_TRACE(cuckoo::test::seed_note(seed, kProgram));
  Map m(config(seed, 4096));
  EXPECT_FALSE(m.legacy_key_hash());
  cuckoo::StripedConcurrentMap<std::uint64_t, std::uint64_t> striped(config(seed, 4096));
  for (std::uint64_t k = 0; k < 2000; ++k) {
    ASSERT_EQ(m.buckets_of(k), documented_buckets(k, seed, m.bucket_count())) << k;
    ASSERT_EQ(striped.buckets_of(k), documented_buckets(k, seed, striped.bucket_count())) << k;
  }
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
  // Version 1: version 2's payload without its key hash byte (after SlotsPerBucket).
  std::vector<std::uint8_t> p = payload_of(written.serialize());
  ASSERT_EQ(p[1], 1U);
  p.erase(p.begin() + 1);
  const std::vector<std::uint8_t> v1 = sealed(1, p);

  Map m = Map::deserialize(v1);
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
  const std::uint32_t buckets = grown.bucket_count();
  std::uint64_t n = kItems;
  for (; grown.bucket_count() < 4 * buckets; ++n) grown.insert_or_assign(n, n * 3);
  EXPECT_TRUE(holds_all(grown, n));
  EXPECT_EQ(grown.check_invariants(), "");
  // Written again: version 2 with the key hash byte 0, read back the same.
  const std::vector<std::uint8_t> again = grown.serialize();
  EXPECT_EQ(again[5], Map::kFormatVersion);
  EXPECT_EQ(again[16 + 1], 0U) << "the key hash byte";
  const Map reread = Map::deserialize(again);
  EXPECT_TRUE(reread.legacy_key_hash());
  EXPECT_TRUE(holds_all(reread, n));

  // The same items declared one-round: every item sits outside its buckets by that rule.
  std::vector<std::uint8_t> q = payload_of(written.serialize());
  try {
    (void)Map::deserialize(sealed(2, q));
    FAIL() << "items placed by the older rule were accepted under the one-round rule";
  } catch (const DeserializeError& e) {
    EXPECT_EQ(e.code(), DeserializeErrc::kInconsistent);
    EXPECT_NE(std::string(e.what()).find("candidate buckets"), std::string::npos) << e.what();
  }
}

TEST(MapKeyHash, AKeyHashByteAboveOneIsRejectedByName) {
  Map m(config(5));
  m.insert_or_assign(1, 2);
  std::vector<std::uint8_t> p = payload_of(m.serialize());
  p[1] = 2;
  try {
    (void)Map::deserialize(sealed(2, p));
    FAIL() << "a key hash byte of 2 was accepted";
  } catch (const DeserializeError& e) {
    EXPECT_EQ(e.code(), DeserializeErrc::kBadConfig);
    EXPECT_NE(std::string(e.what()).find("key hash"), std::string::npos) << e.what();
  }
  // Version 3 is not read.
  try {
    (void)Map::deserialize(sealed(3, payload_of(m.serialize())));
    FAIL() << "version 3 bytes were accepted";
  } catch (const DeserializeError& e) {
    EXPECT_EQ(e.code(), DeserializeErrc::kUnsupportedVersion);
  }
}

}  // namespace
