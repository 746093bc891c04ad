// Every reserved or unused byte and bit of the serialized forms must be zero on read
// (the suite once forged only some of them). Each forgery below sets one such bit
// and recomputes the envelope checksum, so that the checksum cannot be what rejects it:
// the decoder's own check must name the problem.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "cuckoo/cuckoo_filter.hpp"
#include "cuckoo/detail/serial.hpp"
#include "cuckoo/error.hpp"

namespace {

using cuckoo::CuckooFilter;
using cuckoo::CuckooFilterConfig;
using cuckoo::DeserializeErrc;
using cuckoo::DeserializeError;
using cuckoo::InsertResult;

// Rewrites the trailing XXH3 checksum so that it matches the (forged) bytes before it.
void reseal(std::vector<std::uint8_t>& bytes) {
  const std::size_t checked = bytes.size() - cuckoo::detail::kEnvelopeTrailerSize;
  const std::uint64_t sum = cuckoo::detail::envelope_checksum(bytes.data(), checked);
  for (int i = 0; i < 8; ++i) bytes[checked + static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(sum >> (8 * i));
}

// The error deserializing bytes throws, or "accepted".
std::string rejection_of(const std::vector<std::uint8_t>& bytes) {
  try {
    static_cast<void>(CuckooFilter::deserialize(bytes));
  } catch (const DeserializeError& e) {
    return std::string(cuckoo::to_string(e.code())) + ": " + e.what();
  }
  return "accepted";
}

CuckooFilterConfig config(unsigned bits, unsigned slots, std::uint64_t capacity) {
  CuckooFilterConfig c;
  c.fingerprint_bits = bits;
  c.slots_per_bucket = slots;
  c.capacity = capacity;
  c.max_kicks = 4;
  c.seed = 21;
  return c;
}

TEST(SerializedBytes, EveryBitOfTheEnvelopesReservedFieldIsChecked) {
  CuckooFilter filter(config(12, 4, 64));
  filter.insert(std::uint64_t{1});
  const std::vector<std::uint8_t> bytes = filter.serialize();
  ASSERT_EQ(rejection_of(bytes), "accepted");
  for (std::size_t byte : {6, 7}) {
    for (int bit = 0; bit < 8; ++bit) {
      std::vector<std::uint8_t> forged = bytes;
      forged[byte] ^= static_cast<std::uint8_t>(1U << bit);
      reseal(forged);
      const std::string why = rejection_of(forged);
      EXPECT_NE(why.find("reserved"), std::string::npos) << "byte " << byte << " bit " << bit << ": " << why;
    }
  }
}

// f = 12, one slot a bucket, 3 buckets: 36 data bits in 5 bytes; the last byte's high 4
// bits belong to no slot.
TEST(SerializedBytes, UnusedBitsOfTheLastTableByteAreChecked) {
  CuckooFilter filter(config(12, 1, 3));
  ASSERT_EQ(filter.bucket_count(), 3U);
  // A key whose first bucket is the last one, so that the last byte's used bits hold it.
  std::uint64_t key = 0;
  while (filter.placement(key).bucket1 != 2) ++key;  // bound: about 3 tries
  ASSERT_EQ(filter.insert(key), InsertResult::kInserted);
  ASSERT_NE(filter.fingerprint_at(2, 0), 0U);
  const std::vector<std::uint8_t> bytes = filter.serialize();
  ASSERT_EQ(rejection_of(bytes), "accepted");
  // The table's data is the end of the payload: its last byte is just before the checksum.
  const std::size_t last = bytes.size() - cuckoo::detail::kEnvelopeTrailerSize - 1;
  for (int bit = 4; bit < 8; ++bit) {
    std::vector<std::uint8_t> forged = bytes;
    forged[last] ^= static_cast<std::uint8_t>(1U << bit);
    reseal(forged);
    const std::string why = rejection_of(forged);
    EXPECT_NE(why, "accepted") << "unused bit " << bit << " of the last table byte";
    EXPECT_NE(why.find("inconsistent"), std::string::npos) << why;
  }
  // A used bit of the same byte changes a fingerprint, which is allowed.
  std::vector<std::uint8_t> used = bytes;
  used[last] ^= 0x01;
  reseal(used);
  EXPECT_EQ(rejection_of(used), "accepted");
}

// A stash entry's fingerprint is a u32 holding f bits: every bit above f must be zero.
TEST(SerializedBytes, StashFingerprintBitsAboveFAreChecked) {
  CuckooFilter filter(config(8, 1, 4));
  for (std::uint64_t k = 1; k < 1000 && filter.stash_size() == 0; ++k) {
    filter.insert(k);
  }
  ASSERT_GT(filter.stash_size(), 0U);
  const std::vector<std::uint8_t> bytes = filter.serialize();
  ASSERT_EQ(rejection_of(bytes), "accepted");
  // Payload: u8 f, u8 b, u8 layout, u8 nested_prefix_bits, u8 key hash, u32 buckets,
  // u32 max_kicks, u64 seed, u64 size, 8 x u64 stats, u8 stash_size, then the first
  // entry's u32 fingerprint.
  const std::size_t fingerprint = cuckoo::detail::kEnvelopeHeaderSize + 5 + 8 + 16 + 64 + 1;
  for (int bit = 8; bit < 32; ++bit) {
    std::vector<std::uint8_t> forged = bytes;
    forged[fingerprint + static_cast<std::size_t>(bit / 8)] ^= static_cast<std::uint8_t>(1U << (bit % 8));
    reseal(forged);
    EXPECT_NE(rejection_of(forged), "accepted") << "stash fingerprint bit " << bit;
  }
}

}  // namespace
