// Tests of the shared serialization envelope and hashing helpers.
#include <gtest/gtest.h>

#include <cstdint>
#include <set>
#include <vector>

#include "cuckoo/detail/rng.hpp"
#include "cuckoo/detail/serial.hpp"
#include "cuckoo/hash.hpp"

namespace {

using cuckoo::DeserializeErrc;
using cuckoo::DeserializeError;
using cuckoo::detail::ByteReader;
using cuckoo::detail::ByteWriter;
using cuckoo::detail::open_envelope;
using cuckoo::detail::seal_envelope;
using cuckoo::detail::StructureKind;

std::vector<std::uint8_t> sample() {
  ByteWriter w;
  w.u8(7);
  w.u16(0x1234);
  w.u32(0xdeadbeef);
  w.u64(0x0123456789abcdefULL);
  w.f64(0.25);
  return seal_envelope(StructureKind::kBloomFilter, 1, w);
}

DeserializeErrc code_of(const std::vector<std::uint8_t>& bytes,
                        StructureKind kind = StructureKind::kBloomFilter) {
  try {
    ByteReader r = open_envelope(bytes, kind, 1, "test");
    (void)r;
  } catch (const DeserializeError& e) {
    return e.code();
  }
  ADD_FAILURE() << "no error";
  return DeserializeErrc::kInconsistent;
}

TEST(Envelope, RoundTripsEveryFieldWidth) {
  const auto bytes = sample();
  ByteReader r = open_envelope(bytes, StructureKind::kBloomFilter, 1, "test");
  EXPECT_EQ(r.u8("a"), 7);
  EXPECT_EQ(r.u16("b"), 0x1234);
  EXPECT_EQ(r.u32("c"), 0xdeadbeefU);
  EXPECT_EQ(r.u64("d"), 0x0123456789abcdefULL);
  EXPECT_EQ(r.f64("e"), 0.25);
  EXPECT_NO_THROW(r.expect_end("sample"));
}

TEST(Envelope, RejectsEachKindOfDamage) {
  auto bytes = sample();
  EXPECT_EQ(code_of({}), DeserializeErrc::kTruncated);
  EXPECT_EQ(code_of({bytes.begin(), bytes.begin() + 10}), DeserializeErrc::kTruncated);
  EXPECT_EQ(code_of({bytes.begin(), bytes.end() - 1}), DeserializeErrc::kTruncated);
  EXPECT_EQ(code_of(bytes, StructureKind::kCuckooMap), DeserializeErrc::kWrongKind);

  auto magic = bytes;
  magic[0] = 'X';
  EXPECT_EQ(code_of(magic), DeserializeErrc::kBadMagic);

  auto version = bytes;
  version[5] = 9;
  EXPECT_EQ(code_of(version), DeserializeErrc::kUnsupportedVersion);

  auto reserved = bytes;
  reserved[6] = 1;
  EXPECT_EQ(code_of(reserved), DeserializeErrc::kInconsistent);

  auto trailing = bytes;
  trailing.push_back(0);
  EXPECT_EQ(code_of(trailing), DeserializeErrc::kTrailingBytes);

  auto huge = bytes;
  huge[15] = 0xff;  // payload size near 2^64
  EXPECT_EQ(code_of(huge), DeserializeErrc::kTruncated);

  for (std::size_t i = 16; i < bytes.size(); ++i) {
    auto flipped = bytes;
    flipped[i] ^= 0x40;
    EXPECT_EQ(code_of(flipped), DeserializeErrc::kChecksumMismatch) << "byte " << i;
  }
}

TEST(Envelope, ReaderNamesTheFieldItRanOutOn) {
  const std::vector<std::uint8_t> two = {1, 2};
  ByteReader r(two);
  try {
    r.u32("bucket count");
    FAIL() << "no error";
  } catch (const DeserializeError& e) {
    EXPECT_EQ(e.code(), DeserializeErrc::kTruncated);
    EXPECT_NE(std::string(e.what()).find("bucket count"), std::string::npos) << e.what();
  }
}

TEST(Hashing, ReduceStaysInRangeForAnyN) {
  for (std::uint32_t n : {1U, 2U, 3U, 7U, 1000U, 0xffffffffU}) {
    for (std::uint32_t h : {0U, 1U, 0x80000000U, 0xffffffffU}) {
      EXPECT_LT(cuckoo::detail::reduce32(h, n), n);
      EXPECT_LT(cuckoo::detail::reduce64(std::uint64_t{h} << 32, n), n);
    }
  }
}

TEST(Hashing, SeedChangesEveryHash) {
  cuckoo::DefaultHasher h;
  std::set<std::uint64_t> seen;
  for (std::uint64_t k = 0; k < 1000; ++k) {
    EXPECT_NE(h(k, 1), h(k, 2));
    seen.insert(h(k, 1));
  }
  EXPECT_EQ(seen.size(), 1000U);
  EXPECT_EQ(h(std::string_view("abc"), 5), h(std::string("abc"), 5));
  EXPECT_NE(h(std::string_view("abc"), 5), h(std::string_view("abd"), 5));
}

TEST(Rng, SameSeedSameStreamAndBelowStaysInRange) {
  cuckoo::detail::Rng a(42), b(42), c(43);
  bool differs = false;
  for (int i = 0; i < 100; ++i) {
    const auto x = a.next();
    EXPECT_EQ(x, b.next());
    differs |= x != c.next();
    EXPECT_LT(a.below(3), 3U);
    b.below(3);
    c.below(3);
  }
  EXPECT_TRUE(differs);
}

}  // namespace
