// Tests of CuckooFilter's nested placement rule (CuckooFilterConfig::nested_prefix_bits,
// the rule GrowingCuckooFilter's levels take): the formula, the refinement between
// filters of one seed and prefix, the default that keeps the standard rule (a nested
// byte of 0), the configuration errors, serialization (version 5, and version 4 bytes
// read) and its rejections, and the concurrent filters that refuse the rule. Fixed seeds.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "cuckoo/concurrent_filter.hpp"
#include "cuckoo/cuckoo_filter.hpp"
#include "cuckoo/detail/rng.hpp"
#include "cuckoo/detail/serial.hpp"
#include "cuckoo/lock_free_filter.hpp"

namespace {

using cuckoo::ConfigError;
using cuckoo::CuckooFilter;
using cuckoo::CuckooFilterConfig;
using cuckoo::CuckooFilterPlacement;
using cuckoo::DeserializeErrc;
using cuckoo::DeserializeError;
using cuckoo::InsertResult;

CuckooFilterConfig nested_config(std::uint64_t buckets, unsigned f, unsigned b, unsigned p,
                                 std::uint64_t seed = 5) {
  CuckooFilterConfig c;
  c.capacity = buckets * b;
  c.fingerprint_bits = f;
  c.slots_per_bucket = b;
  c.nested_prefix_bits = p;
  c.seed = seed;
  return c;
}

// The rule as cuckoo_filter.hpp states it, written out independently.
CuckooFilterPlacement nested_formula(std::uint64_t h, std::uint32_t n, unsigned f, unsigned p) {
  const std::uint32_t prefix = static_cast<std::uint32_t>(h) >> (32 - f);
  const std::uint32_t fp = std::max<std::uint32_t>(1, prefix);
  const std::uint32_t i1 = static_cast<std::uint32_t>(h >> 32) % n;
  const std::uint32_t base = std::max<std::uint32_t>(1, fp >> (f - p));
  const std::uint32_t offset = static_cast<std::uint32_t>(cuckoo::detail::mix64(base)) % n;
  return {i1, i1 ^ offset, fp};
}

TEST(CuckooFilterNestedRule, PlacementFollowsTheFormula) {
  cuckoo::detail::Rng rng(3);
  for (const unsigned f : {4U, 9U, 16U, 32U}) {
    for (const std::uint32_t n : {1U, 2U, 64U, 1024U}) {
      const CuckooFilter filter(nested_config(n, f, 4, 4));
      EXPECT_EQ(filter.nested_prefix_bits(), 4U);
      for (int i = 0; i < 2000; ++i) {
        const std::uint64_t h = rng.next();
        ASSERT_EQ(filter.placement_of_hash(h), nested_formula(h, n, f, 4)) << "f=" << f << " n=" << n;
      }
      // The fingerprint of a hash whose first f bits are 0 is 1.
      EXPECT_EQ(filter.placement_of_hash(0xffff'ffff'0000'0000ULL).fingerprint, 1U);
    }
  }
}

TEST(CuckooFilterNestedRule, AltBucketIsAnInvolution) {
  const CuckooFilter filter(nested_config(32, 8, 2, 5));
  for (std::uint32_t i = 0; i < 32; ++i) {
    for (std::uint32_t fp = 1; fp < 256; ++fp) {
      const std::uint32_t j = filter.alt_bucket(i, fp);
      ASSERT_LT(j, 32U);
      ASSERT_EQ(filter.alt_bucket(j, fp), i) << "bucket " << i << " fingerprint " << fp;
    }
  }
}

// Two filters of one seed and prefix width: the one with more fingerprint bits and
// buckets refines the other. Its fingerprint shifted right by the extra bits is the
// other's (or 1), and its buckets masked to the other's count are the other's buckets,
// in the same order, so equal items in the larger filter are equal items in the smaller.
TEST(CuckooFilterNestedRule, AWiderFilterRefinesANarrowerOne) {
  cuckoo::detail::Rng rng(4);
  const CuckooFilter narrow(nested_config(8, 6, 4, 6));
  const CuckooFilter wide(nested_config(256, 9, 4, 6));
  for (int i = 0; i < 20'000; ++i) {
    const std::uint64_t h = rng.next();
    const CuckooFilterPlacement n = narrow.placement_of_hash(h);
    const CuckooFilterPlacement w = wide.placement_of_hash(h);
    ASSERT_EQ(n.fingerprint, std::max<std::uint32_t>(1, w.fingerprint >> 3));
    ASSERT_EQ(n.bucket1, w.bucket1 & 7U);
    ASSERT_EQ(n.bucket2, w.bucket2 & 7U);
    // Also from either bucket: the alternate of a stored fingerprint reduces the same way.
    ASSERT_EQ(narrow.alt_bucket(w.bucket2 & 7U, n.fingerprint), n.bucket1);
  }
}

TEST(CuckooFilterNestedRule, DefaultKeepsTheStandardRuleWithANestedByteOfZero) {
  CuckooFilterConfig c;
  c.capacity = 100;  // 25 buckets: the standard rule takes any count
  c.seed = 9;
  CuckooFilter filter(c);
  EXPECT_EQ(filter.nested_prefix_bits(), 0U);
  cuckoo::detail::Rng rng(5);
  for (int i = 0; i < 2000; ++i) {
    const std::uint64_t h = rng.next();
    const std::uint32_t i1 = cuckoo::detail::reduce32(static_cast<std::uint32_t>(h >> 32), 25);
    const std::uint32_t fp = std::max<std::uint32_t>(1, static_cast<std::uint32_t>(h & 0xfff));
    const CuckooFilterPlacement want{
        i1, cuckoo::detail::FilterHashRule::alt_bucket_in(25, i1, fp), fp};
    ASSERT_EQ(filter.placement_of_hash(h), want);
  }
  for (std::uint64_t k = 0; k < 50; ++k) ASSERT_EQ(filter.insert(k), InsertResult::kInserted);
  const std::vector<std::uint8_t> bytes = filter.serialize();
  EXPECT_EQ(bytes[5], CuckooFilter::kFormatVersion);
  EXPECT_EQ(bytes[5], 5U);
  EXPECT_EQ(bytes[16 + 2], 0U) << "the layout byte";
  EXPECT_EQ(bytes[16 + 3], 0U) << "the nested byte: the standard rule";
  EXPECT_EQ(bytes[16 + 4], 1U) << "the key hash byte";
  EXPECT_EQ(bytes[16 + 5], 25U) << "then bucket_count";
}

TEST(CuckooFilterNestedRule, InvalidConfigurationsNameTheField) {
  const CuckooFilterConfig bad[] = {
      nested_config(16, 8, 4, 3),   // below 4 bits
      nested_config(16, 8, 4, 9),   // wider than the fingerprint
      nested_config(12, 8, 4, 8),   // 12 buckets: not a power of two
  };
  for (const CuckooFilterConfig& c : bad) {
    try {
      const CuckooFilter f(c);
      ADD_FAILURE() << "accepted nested_prefix_bits " << c.nested_prefix_bits << " with "
                    << c.capacity << " slots";
    } catch (const ConfigError& e) {
      EXPECT_EQ(e.field(), "nested_prefix_bits") << e.what();
    }
  }
  try {
    const CuckooFilter f(nested_config(12, 8, 4, 8));
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("12 buckets"), std::string::npos) << e.what();
  }
  EXPECT_NO_THROW(CuckooFilter(nested_config(1, 4, 1, 4)));
  EXPECT_NO_THROW(CuckooFilter(nested_config(1U << 20, 32, 8, 32)));
}

TEST(CuckooFilterNestedRule, ConcurrentFiltersWithoutTheRuleRejectIt) {
  const CuckooFilterConfig c = nested_config(64, 12, 4, 12);
  const auto expect_rejected = [](auto make, const char* which) {
    try {
      make();
      ADD_FAILURE() << which << " accepted nested_prefix_bits";
    } catch (const ConfigError& e) {
      EXPECT_EQ(e.field(), "nested_prefix_bits") << which << ": " << e.what();
    }
  };
  expect_rejected([&] { const cuckoo::StripedConcurrentFilter f(c); }, "striped");
  expect_rejected([&] { const cuckoo::LockFreeFilter f(c); }, "lock-free");
  // The coarse design wraps a CuckooFilter, so it takes the rule.
  cuckoo::CoarseConcurrentFilter coarse(c);
  EXPECT_EQ(coarse.insert(7), InsertResult::kInserted);
  EXPECT_TRUE(coarse.contains(7));
}

// A nested filter filled past its table (stash entries made).
CuckooFilter stashed_nested_filter() {
  CuckooFilter f(nested_config(4, 6, 2, 4, 11));
  std::uint64_t k = 0;
  while (f.stash_size() < 2) {
    EXPECT_NE(f.insert(k), InsertResult::kFull);
    ++k;
  }
  return f;
}

std::vector<std::uint8_t> resealed(std::vector<std::uint8_t> payload, std::uint8_t version) {
  cuckoo::detail::ByteWriter w;
  w.raw(payload.data(), payload.size());
  return cuckoo::detail::seal_envelope(cuckoo::detail::StructureKind::kCuckooFilter, version, w);
}

DeserializeErrc rejection(const std::vector<std::uint8_t>& bytes, std::string& message) {
  try {
    (void)CuckooFilter::deserialize(bytes);
  } catch (const DeserializeError& e) {
    message = e.what();
    return e.code();
  }
  message = "accepted";
  return DeserializeErrc::kTrailingBytes;
}

// The compiled lookups (detail/filter_shapes.hpp) place items by the standard rule: a
// filter with the nested rule at a compiled shape (f = 8, 12, 16 with b = 2 or 4) looks
// up through the generic path, one key at a time and in batches, and finds every key it
// stored; so does its deserialized copy.
TEST(CuckooFilterNestedRule, CompiledShapesLookUpByTheNestedRule) {
  for (const auto& [f, b] : {std::pair{8U, 4U}, std::pair{12U, 4U}, std::pair{16U, 2U}}) {
    SCOPED_TRACE("f = " + std::to_string(f) + ", b = " + std::to_string(b));
    CuckooFilter standard(nested_config(1024, f, b, 0, 21));
    CuckooFilter nested(nested_config(1024, f, b, 4, 21));
    EXPECT_NE(standard.lookup_shape(), cuckoo::detail::FilterShapeId::kGeneric);
    EXPECT_EQ(nested.lookup_shape(), cuckoo::detail::FilterShapeId::kGeneric);
    std::vector<std::uint64_t> keys;
    for (std::uint64_t k = 0; k < 1024 * b * 9 / 10; ++k) {
      if (nested.insert(k * 0x9e3779b97f4a7c15ULL) != InsertResult::kInserted) break;
      keys.push_back(k * 0x9e3779b97f4a7c15ULL);
    }
    ASSERT_GT(keys.size(), 1024U * b / 2);
    std::vector<char> found(keys.size(), 0);
    nested.contains_many(keys, found);
    const CuckooFilter copy = CuckooFilter::deserialize(nested.serialize());
    for (std::size_t i = 0; i < keys.size(); ++i) {
      ASSERT_TRUE(nested.contains(keys[i])) << "key #" << i;
      ASSERT_TRUE(found[i] != 0) << "contains_many, key #" << i;
      ASSERT_TRUE(copy.contains(keys[i])) << "deserialized, key #" << i;
    }
  }
}

TEST(CuckooFilterNestedRule, SerializationRoundTrips) {
  const CuckooFilter f = stashed_nested_filter();
  const std::vector<std::uint8_t> bytes = f.serialize();
  EXPECT_EQ(bytes[5], CuckooFilter::kFormatVersion);
  EXPECT_EQ(bytes[16 + 3], 4U) << "the nested_prefix_bits byte after the layout byte";
  EXPECT_EQ(bytes[16 + 4], 1U) << "the key hash byte after it: one round for integer keys";
  const CuckooFilter g = CuckooFilter::deserialize(bytes);
  EXPECT_TRUE(g == f);
  EXPECT_EQ(g.nested_prefix_bits(), 4U);
  EXPECT_EQ(g.serialize(), bytes);
  for (std::uint64_t k = 0; k < 1000; ++k) ASSERT_EQ(g.contains(k), f.contains(k)) << k;
  // Same contents under the other rule are another filter.
  CuckooFilterConfig standard = nested_config(4, 6, 2, 0, 11);
  CuckooFilterConfig nested = nested_config(4, 6, 2, 4, 11);
  EXPECT_FALSE(CuckooFilter(standard) == CuckooFilter(nested));
}

TEST(CuckooFilterNestedRule, MalformedVersionFourBytesAreRejected) {
  const std::vector<std::uint8_t> bytes = stashed_nested_filter().serialize();
  // The version 4 payload: version 5's without its key hash byte (after the nested one).
  std::vector<std::uint8_t> payload(bytes.begin() + 16, bytes.end() - 8);
  payload.erase(payload.begin() + 4);
  std::string message;
  (void)rejection(resealed(payload, 4), message);
  ASSERT_EQ(message, "accepted") << "the version 4 payload is well formed";
  // The nested byte 0, below 4, above f (6).
  for (const std::uint8_t p : {0, 3, 7}) {
    std::vector<std::uint8_t> q = payload;
    q[3] = p;
    EXPECT_EQ(rejection(resealed(q, 4), message), DeserializeErrc::kBadConfig) << int{p};
    EXPECT_NE(message.find("nested_prefix_bits"), std::string::npos) << message;
  }
  // A bucket count that is not a power of two (and a table length to match, 6 buckets
  // of 12 bits: 9 bytes): rejected for the rule before the table is read.
  {
    std::vector<std::uint8_t> q = payload;
    q[4] = 6;
    EXPECT_EQ(rejection(resealed(q, 4), message), DeserializeErrc::kBadConfig);
    EXPECT_NE(message.find("power-of-two"), std::string::npos) << message;
  }
  // Version 4 bytes read as version 3 (the nested byte taken for bucket_count).
  EXPECT_NE(rejection(resealed(payload, 3), message), DeserializeErrc::kTrailingBytes) << message;
  EXPECT_NE(message, "accepted");
  // A stash entry whose bucket2 is the standard rule's alternate, not the nested one.
  {
    const CuckooFilter f = stashed_nested_filter();
    const CuckooFilterPlacement e = f.stash()[0];
    const std::uint32_t standard = cuckoo::detail::FilterHashRule::alt_bucket_in(4, e.bucket1, e.fingerprint);
    if (standard != e.bucket2) {
      // Payload: 4 bytes f, b, layout, nested; u32 buckets, u32 kicks; u64 seed, size;
      // 8 u64 stats; u8 stash size; then entries (u32 fingerprint, bucket1, bucket2).
      const std::size_t bucket2_at = 4 + 8 + 16 + 64 + 1 + 8;
      std::vector<std::uint8_t> q = payload;
      for (int byte = 0; byte < 4; ++byte) q[bucket2_at + byte] = static_cast<std::uint8_t>(standard >> (8 * byte));
      EXPECT_EQ(rejection(resealed(q, 4), message), DeserializeErrc::kInconsistent);
      EXPECT_NE(message.find("stash entry 0: bucket2"), std::string::npos) << message;
    }
  }
  // Version 4 bytes read as version 5 (bucket_count's first byte taken for the key hash).
  EXPECT_NE(rejection(resealed(payload, 5), message), DeserializeErrc::kTrailingBytes) << message;
  EXPECT_NE(message, "accepted");
  // Version 6 is not read.
  EXPECT_EQ(rejection(resealed(payload, 6), message), DeserializeErrc::kUnsupportedVersion);
}

}  // namespace
