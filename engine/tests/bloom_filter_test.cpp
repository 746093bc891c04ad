// Tests of BloomFilter: no false negatives, the measured false positive rate against
// (1 - e^{-kn/m})^k (claim C12), sizing formulas, serialization and its rejection of
// damaged or forged bytes (C11), configuration errors and determinism.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <numbers>
#include <string>
#include <string_view>
#include <vector>

#include "cuckoo/bloom_filter.hpp"
#include "cuckoo/detail/rng.hpp"
#include "cuckoo/detail/serial.hpp"

namespace {

using cuckoo::BloomFilter;
using cuckoo::BloomFilterConfig;
using cuckoo::ConfigError;
using cuckoo::DeserializeErrc;
using cuckoo::DeserializeError;
using cuckoo::InsertResult;
using cuckoo::optimal_k;

BloomFilterConfig make_config(std::uint64_t bits, unsigned hashes, std::uint64_t seed = 1) {
  BloomFilterConfig c;
  c.bits = bits;
  c.hashes = hashes;
  c.seed = seed;
  return c;
}

TEST(BloomFilter, EmptyFilter) {
  const BloomFilter f(make_config(1000, 3, 7));
  EXPECT_EQ(f.bit_count(), 1024U);  // rounded up to a multiple of 64
  EXPECT_EQ(f.hash_count(), 3U);
  EXPECT_EQ(f.seed(), 7U);
  EXPECT_EQ(f.size(), 0U);
  EXPECT_EQ(f.memory_bytes(), 128U);
  EXPECT_EQ(f.fill_ratio(), 0.0);
  EXPECT_EQ(f.expected_fpr(), 0.0);
  EXPECT_EQ(f.bits_per_item(), 0.0);
  for (std::uint64_t k = 0; k < 1000; ++k) EXPECT_FALSE(f.contains(k));
}

TEST(BloomFilter, NoFalseNegatives) {
  constexpr std::uint64_t kSeed = 0xb100f001;
  constexpr std::uint64_t kItems = 100000;
  BloomFilter f(BloomFilterConfig::for_fpr(kItems, 0.01));
  cuckoo::detail::Rng rng(kSeed);
  std::vector<std::uint64_t> keys(kItems);
  for (auto& k : keys) {
    k = rng.next();
    ASSERT_EQ(f.insert(k), InsertResult::kInserted);
  }
  EXPECT_EQ(f.size(), kItems);
  for (const auto k : keys) ASSERT_TRUE(f.contains(k)) << "seed=" << kSeed << " key " << k;
}

TEST(BloomFilter, StringAndIntegerKeys) {
  constexpr std::uint64_t kSeed = 0xb100f002;
  BloomFilter f(make_config(1 << 16, 5, kSeed));
  for (int i = 0; i < 2000; ++i) f.insert("item-" + std::to_string(i));
  f.insert(std::string_view("view"));
  f.insert("literal");
  f.insert(123456789);
  f.insert(std::uint8_t{7});
  for (int i = 0; i < 2000; ++i) {
    ASSERT_TRUE(f.contains("item-" + std::to_string(i))) << "seed=" << kSeed << " i=" << i;
  }
  // The three string spellings hash alike.
  EXPECT_TRUE(f.contains(std::string("view")));
  EXPECT_TRUE(f.contains("view"));
  EXPECT_TRUE(f.contains(std::string_view("literal")));
  EXPECT_TRUE(f.contains(123456789));
  EXPECT_TRUE(f.contains(std::uint8_t{7}));
  int false_positives = 0;
  for (int i = 0; i < 2000; ++i) false_positives += f.contains("absent-" + std::to_string(i));
  EXPECT_LT(false_positives, 50) << "seed=" << kSeed;  // expected fpr ~ 0.2%
}

TEST(BloomFilter, MeasuredFprMatchesFormulaWithinBinomialBound) {
  constexpr std::uint64_t kSeed = 0xb100f003;
  constexpr std::uint64_t kBits = 1000000;
  constexpr std::uint64_t kItems = 100000;
  constexpr std::uint64_t kQueries = 1000000;
  const unsigned k = optimal_k(kBits, kItems);
  ASSERT_EQ(k, 7U);
  BloomFilter f(make_config(kBits, k, kSeed));
  ASSERT_EQ(f.bit_count(), kBits);
  // Inserted keys are even, queried keys odd: every positive answer is false.
  for (std::uint64_t i = 0; i < kItems; ++i) f.insert(2 * i);
  std::uint64_t positives = 0;
  for (std::uint64_t i = 0; i < kQueries; ++i) positives += f.contains(2 * i + 1) ? 1 : 0;

  const double p = std::pow(1.0 - std::exp(-7.0 * 0.1), 7.0);
  EXPECT_NEAR(f.expected_fpr(), p, 1e-12);
  EXPECT_NEAR(p, 0.0081937, 1e-6);
  const double mean = static_cast<double>(kQueries) * p;
  const double sigma = std::sqrt(static_cast<double>(kQueries) * p * (1.0 - p));
  const double measured = static_cast<double>(positives);
  EXPECT_LE(measured, mean + 5 * sigma)
      << "seed=" << kSeed << " measured fpr " << measured / kQueries << " expected " << p;
  EXPECT_GE(measured, mean - 5 * sigma)
      << "seed=" << kSeed << " measured fpr " << measured / kQueries << " expected " << p;
  // The fill ratio is close to 1 - e^{-kn/m}.
  EXPECT_NEAR(f.fill_ratio(), 1.0 - std::exp(-0.7), 0.005) << "seed=" << kSeed;
  EXPECT_DOUBLE_EQ(f.bits_per_item(), 10.0);
  RecordProperty("false_positives", std::to_string(positives));
}

TEST(BloomFilter, OptimalKAgainstHandComputedValues) {
  EXPECT_EQ(optimal_k(1000000, 100000), 7U);  // ln2 * 10 = 6.93
  EXPECT_EQ(optimal_k(9586, 1000), 7U);       // 6.64
  EXPECT_EQ(optimal_k(14377588, 1000000), 10U);  // 9.97
  EXPECT_EQ(optimal_k(1000, 1000), 1U);       // 0.69
  EXPECT_EQ(optimal_k(100, 1000), 1U);        // 0.07, clamped up
  EXPECT_EQ(optimal_k(3000, 1000), 2U);       // 2.08
  EXPECT_EQ(optimal_k(1000000, 1), BloomFilterConfig::kMaxHashes);  // clamped down
  EXPECT_EQ(optimal_k(1000, 0), BloomFilterConfig::kMaxHashes);
  EXPECT_EQ(optimal_k(0, 10), 1U);
}

TEST(BloomFilter, ForFprAgainstHandComputedValues) {
  // m = ceil(-n ln eps / ln^2 2), k = round(ln2 m / n).
  auto c = BloomFilterConfig::for_fpr(1000, 0.01);  // 9585.06 -> 9586
  EXPECT_EQ(c.bits, 9586U);
  EXPECT_EQ(c.hashes, 7U);
  c = BloomFilterConfig::for_fpr(1000000, 0.001);  // 14377587.57 -> 14377588
  EXPECT_EQ(c.bits, 14377588U);
  EXPECT_EQ(c.hashes, 10U);
  c = BloomFilterConfig::for_fpr(100, 0.5);  // 144.27 -> 145
  EXPECT_EQ(c.bits, 145U);
  EXPECT_EQ(c.hashes, 1U);
  EXPECT_FALSE(c.seed.has_value());
  // About 1.44 log2(1/eps) bits per item.
  c = BloomFilterConfig::for_fpr(100000, 0.01);
  EXPECT_NEAR(static_cast<double>(c.bits) / 100000, std::log2(100.0) / std::numbers::ln2, 0.001);
  EXPECT_NEAR(static_cast<double>(c.bits) / 100000, 1.44 * std::log2(100.0), 0.02);
  // The filter built from it reaches about eps at n items.
  c.seed = 11;
  BloomFilter f(c);
  for (std::uint64_t i = 0; i < 100000; ++i) f.insert(i);
  EXPECT_NEAR(f.expected_fpr(), 0.01, 0.0005);
}

void expect_config_error(const BloomFilterConfig& c, const std::string& field) {
  try {
    BloomFilter f(c);
    ADD_FAILURE() << "accepted an invalid " << field;
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.field(), field) << e.what();
  }
}

void expect_for_fpr_error(std::uint64_t items, double eps, const std::string& field) {
  try {
    (void)BloomFilterConfig::for_fpr(items, eps);
    ADD_FAILURE() << "for_fpr accepted items=" << items << " eps=" << eps;
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.field(), field) << e.what();
  }
}

TEST(BloomFilter, InvalidConfigsAreRejectedNamingTheField) {
  expect_config_error(make_config(0, 3), "bits");
  expect_config_error(make_config(BloomFilterConfig::kMaxBits + 1, 3), "bits");
  expect_config_error(make_config(std::numeric_limits<std::uint64_t>::max(), 3), "bits");
  expect_config_error(make_config(64, 0), "hashes");
  expect_config_error(make_config(64, BloomFilterConfig::kMaxHashes + 1), "hashes");
  EXPECT_NO_THROW(BloomFilter(make_config(1, 1)));
  EXPECT_NO_THROW(BloomFilter(make_config(64, BloomFilterConfig::kMaxHashes)));

  expect_for_fpr_error(0, 0.01, "expected_items");
  expect_for_fpr_error(100, 0.0, "eps");
  expect_for_fpr_error(100, 1.0, "eps");
  expect_for_fpr_error(100, -0.5, "eps");
  expect_for_fpr_error(100, 1.5, "eps");
  expect_for_fpr_error(100, std::nan(""), "eps");
  expect_for_fpr_error(std::uint64_t{1} << 40, 1e-9, "expected_items");  // > kMaxBits
}

TEST(BloomFilter, ClearAndMerge) {
  BloomFilter a(make_config(4096, 4, 5));
  BloomFilter b(make_config(4096, 4, 5));
  for (std::uint64_t i = 0; i < 100; ++i) a.insert(i);
  for (std::uint64_t i = 100; i < 200; ++i) b.insert(i);
  ASSERT_TRUE(a.merge(b));
  EXPECT_EQ(a.size(), 200U);
  for (std::uint64_t i = 0; i < 200; ++i) EXPECT_TRUE(a.contains(i)) << i;
  // Incompatible filters are refused and nothing changes.
  const BloomFilter before = a;
  EXPECT_FALSE(a.merge(BloomFilter(make_config(4096, 4, 6))));
  EXPECT_FALSE(a.merge(BloomFilter(make_config(4096, 3, 5))));
  EXPECT_FALSE(a.merge(BloomFilter(make_config(8192, 4, 5))));
  EXPECT_EQ(a, before);
  a.clear();
  EXPECT_EQ(a.size(), 0U);
  EXPECT_EQ(a.fill_ratio(), 0.0);
  EXPECT_EQ(a.seed(), 5U);
  EXPECT_FALSE(a.contains(std::uint64_t{3}));
}

TEST(BloomFilter, SameSeedSameBitsDifferentSeedDifferentBits) {
  auto build = [](std::uint64_t seed) {
    BloomFilter f(make_config(8192, 5, seed));
    for (std::uint64_t i = 0; i < 500; ++i) f.insert(i * 7919);
    return f;
  };
  EXPECT_EQ(build(3), build(3));
  EXPECT_EQ(build(3).serialize(), build(3).serialize());
  EXPECT_FALSE(build(3) == build(4));
  // Without a seed, one is drawn and reported.
  BloomFilter drawn(BloomFilterConfig{.bits = 64, .hashes = 1, .seed = std::nullopt});
  BloomFilterConfig replay = make_config(64, 1, drawn.seed());
  EXPECT_EQ(drawn, BloomFilter(replay));
}

// ---- serialization --------------------------------------------------------------------

BloomFilter sample_filter() {
  BloomFilter f(make_config(256, 3, 0x5e1f));
  for (std::uint64_t i = 0; i < 20; ++i) f.insert(i);
  return f;
}

struct Forged {
  std::uint64_t bits = 256;
  std::uint32_t hashes = 3;
  std::uint64_t seed = 1;
  std::uint64_t inserts = 0;
  std::uint64_t word_count = 4;
  std::vector<std::uint64_t> words = std::vector<std::uint64_t>(4, 0);
  std::vector<std::uint8_t> extra;  // appended inside the payload
};

// A payload with a valid envelope and checksum, so that only the decoder's own checks
// can reject it.
std::vector<std::uint8_t> forge(const Forged& f) {
  cuckoo::detail::ByteWriter w;
  w.u64(f.bits);
  w.u32(f.hashes);
  w.u64(f.seed);
  w.u64(f.inserts);
  w.u64(f.word_count);
  for (const auto word : f.words) w.u64(word);
  w.raw(f.extra.data(), f.extra.size());
  return cuckoo::detail::seal_envelope(cuckoo::detail::StructureKind::kBloomFilter, 1, w);
}

DeserializeErrc error_of(const std::vector<std::uint8_t>& bytes) {
  try {
    (void)BloomFilter::deserialize(bytes);
  } catch (const DeserializeError& e) {
    return e.code();
  }
  ADD_FAILURE() << "accepted bad bytes";
  return DeserializeErrc::kInconsistent;
}

TEST(BloomFilter, SerializationRoundTrips) {
  const BloomFilter f = sample_filter();
  const auto bytes = f.serialize();
  const BloomFilter g = BloomFilter::deserialize(bytes);
  EXPECT_EQ(f, g);
  EXPECT_EQ(g.size(), 20U);
  EXPECT_EQ(g.seed(), 0x5e1fU);
  for (std::uint64_t i = 0; i < 20; ++i) EXPECT_TRUE(g.contains(i));
  for (std::uint64_t i = 20; i < 1000; ++i) EXPECT_EQ(f.contains(i), g.contains(i)) << i;
  EXPECT_EQ(g.serialize(), bytes);

  // Empty and large filters too.
  const BloomFilter empty(make_config(64, 1, 2));
  EXPECT_EQ(BloomFilter::deserialize(empty.serialize()), empty);
  BloomFilter big(BloomFilterConfig::for_fpr(10000, 0.001));
  for (std::uint64_t i = 0; i < 10000; ++i) big.insert(i);
  EXPECT_EQ(BloomFilter::deserialize(big.serialize()), big);
  // A forged payload that is valid is accepted.
  Forged ok;
  ok.inserts = 1;
  ok.words = {0b101, 0, 0, 1};
  EXPECT_NO_THROW((void)BloomFilter::deserialize(forge(ok)));
}

TEST(BloomFilter, DamagedBytesAreRejected) {
  const auto bytes = sample_filter().serialize();
  // Every truncation.
  for (std::size_t n = 0; n < bytes.size(); ++n) {
    EXPECT_EQ(error_of({bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(n)}),
              DeserializeErrc::kTruncated)
        << "prefix of " << n << " bytes";
  }
  auto magic = bytes;
  magic[1] = 'X';
  EXPECT_EQ(error_of(magic), DeserializeErrc::kBadMagic);
  auto kind = bytes;
  kind[4] = static_cast<std::uint8_t>(cuckoo::detail::StructureKind::kCuckooFilter);
  EXPECT_EQ(error_of(kind), DeserializeErrc::kWrongKind);
  auto version = bytes;
  version[5] = 2;
  EXPECT_EQ(error_of(version), DeserializeErrc::kUnsupportedVersion);
  auto trailing = bytes;
  trailing.push_back(0);
  EXPECT_EQ(error_of(trailing), DeserializeErrc::kTrailingBytes);
  // Any flipped byte of the payload or checksum.
  for (std::size_t i = cuckoo::detail::kEnvelopeHeaderSize; i < bytes.size(); ++i) {
    auto flipped = bytes;
    flipped[i] ^= 0x10;
    EXPECT_EQ(error_of(flipped), DeserializeErrc::kChecksumMismatch) << "byte " << i;
  }
}

TEST(BloomFilter, ForgedPayloadsAreRejected) {
  Forged f;
  f.hashes = 0;
  EXPECT_EQ(error_of(forge(f)), DeserializeErrc::kBadConfig) << "k = 0";
  f = {};
  f.hashes = BloomFilterConfig::kMaxHashes + 1;
  EXPECT_EQ(error_of(forge(f)), DeserializeErrc::kBadConfig) << "k too large";
  f = {};
  f.bits = 0;
  f.word_count = 0;
  f.words = {};
  EXPECT_EQ(error_of(forge(f)), DeserializeErrc::kBadConfig) << "m = 0";
  f = {};
  f.bits = 250;
  EXPECT_EQ(error_of(forge(f)), DeserializeErrc::kBadConfig) << "m not a multiple of 64";
  f = {};
  f.bits = BloomFilterConfig::kMaxBits + 64;
  f.word_count = f.bits / 64;
  EXPECT_EQ(error_of(forge(f)), DeserializeErrc::kBadConfig) << "m too large";
  f = {};
  f.word_count = 5;
  f.words.push_back(0);
  EXPECT_EQ(error_of(forge(f)), DeserializeErrc::kInconsistent) << "word count above m/64";
  f = {};
  f.word_count = 3;
  f.words.pop_back();
  EXPECT_EQ(error_of(forge(f)), DeserializeErrc::kInconsistent) << "word count below m/64";
  f = {};
  f.word_count = std::uint64_t{1} << 61;  // must be refused before any allocation
  EXPECT_EQ(error_of(forge(f)), DeserializeErrc::kInconsistent) << "huge word count";
  f = {};
  f.bits = std::uint64_t{1} << 30;  // valid m, matching count, but the words are missing
  f.word_count = f.bits / 64;
  EXPECT_EQ(error_of(forge(f)), DeserializeErrc::kTruncated) << "words missing";
  f = {};
  f.extra = {0, 0, 0};
  EXPECT_EQ(error_of(forge(f)), DeserializeErrc::kTrailingBytes) << "bytes after the words";
  f = {};
  f.inserts = 1;
  f.hashes = 3;
  f.words = {0b1111, 0, 0, 0};  // 4 bits set by one insert of 3 hashes
  EXPECT_EQ(error_of(forge(f)), DeserializeErrc::kInconsistent) << "more bits than n * k";
  f = {};
  f.inserts = 0;
  f.words = {0, 0, 0, std::uint64_t{1} << 63};  // the last bit of m set by no insert
  EXPECT_EQ(error_of(forge(f)), DeserializeErrc::kInconsistent) << "bits set with n = 0";
  f = {};
  f.inserts = std::numeric_limits<std::uint64_t>::max();  // n * k saturates, no overflow
  f.words = {~std::uint64_t{0}, ~std::uint64_t{0}, ~std::uint64_t{0}, ~std::uint64_t{0}};
  EXPECT_NO_THROW((void)BloomFilter::deserialize(forge(f)));
}

}  // namespace
