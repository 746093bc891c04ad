// BloomFilter: the classic Bloom filter (k hash functions over m bits), the baseline
// that the cuckoo filter claims are measured against (claims C4, C12).
//
// Design
// ------
// Storage. m bits in m/64 little-endian 64-bit words; m is the configured bit count
// rounded up to a multiple of 64, so there are no unused bits in the last word.
//
// Hashing (Kirsch & Mitzenmacher double hashing). A key is hashed once,
// h = Hasher{}(key, seed()), and its k bit indices are
//     g1 = h,  g2 = mix64(h) | 1,
//     index_i = reduce64(g1 + i * g2  (mod 2^64), m)        for i = 0 .. k-1.
// reduce64 maps the top bits of the 64-bit value onto [0, m), so the k values are an
// arithmetic progression on the circle [0, 2^64) with a random odd step, scaled onto
// [0, m): every index is uniform and, as Kirsch & Mitzenmacher show, the false
// positive rate matches that of k independent hash functions as m grows. (An odd step
// keeps the k points distinct modulo 2^64; two of them can still land on one bit with
// probability about k^2 / m, as with independent hashes.)
//
// Contract. No false negatives: every key inserted since construction, the last
// clear() or deserialization is reported present. The false positive rate after n
// inserts is about (1 - e^{-kn/m})^k, which expected_fpr() returns. The filter never
// fills: insert always succeeds and the rate degrades as n grows. Keys cannot be
// removed.
//
// Serialization (StructureKind::kBloomFilter, version 1), payload little-endian:
//     u64 bits m    u32 hashes k    u64 seed    u64 inserts n    u64 word count w
//     w * u64 bit words
// deserialize() checks: 1 <= k <= kMaxHashes, m nonzero, a multiple of 64 and at most
// kMaxBits (kBadConfig); w == m / 64 before anything is allocated (kInconsistent); the
// words are present (kTruncated) and nothing follows them (kTrailingBytes); at most
// n * k bits are set, since one insert sets at most k bits (kInconsistent). Because m is
// a multiple of 64 and w == m / 64 there are no storage bits beyond m to check.
//
// REQUIRES: the Hasher does not throw (insert and contains are noexcept).
//
// Thread safety: none. Concurrent const calls (contains, size, fill_ratio, serialize,
// ...) are safe with each other; insert, merge, clear need exclusive access.
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <numbers>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "detail/serial.hpp"
#include "error.hpp"
#include "hash.hpp"
#include "status.hpp"

namespace cuckoo {

/// The configuration of a BloomFilter: its bit count m, hash count k and seed.
struct BloomFilterConfig {
  /// Largest number of hash functions (the bound of the probe loop).
  static constexpr unsigned kMaxHashes = 32;
  /// Largest number of bits: 2^40 bits = 128 GiB.
  static constexpr std::uint64_t kMaxBits = std::uint64_t{1} << 40;

  std::uint64_t bits = 0;  ///< m, rounded up to a multiple of 64; range [1, kMaxBits]
  unsigned hashes = 0;     ///< k; range [1, kMaxHashes]
  std::optional<std::uint64_t> seed;  ///< drawn with random_seed() when absent

  /// The configuration for a false positive rate of eps at expected_items items:
  /// bits = ceil(-n ln(eps) / (ln 2)^2), hashes = optimal_k(bits, n).
  /// Throws ConfigError naming "expected_items" (0, or needing more than kMaxBits bits)
  /// or "eps" (outside the open interval (0, 1), or NaN).
  static BloomFilterConfig for_fpr(std::uint64_t expected_items, double eps);
};

/// The number of hash functions that minimizes the false positive rate of a filter of
/// `bits` bits holding `items` items: round(ln 2 * bits / items), clamped to
/// [1, kMaxHashes] (kMaxHashes when items is 0).
inline unsigned optimal_k(std::uint64_t bits, std::uint64_t items) noexcept {
  constexpr unsigned kMax = BloomFilterConfig::kMaxHashes;
  if (items == 0) return kMax;
  const double k = std::round(std::numbers::ln2 * static_cast<double>(bits) /
                              static_cast<double>(items));
  if (!(k >= 1.0)) return 1;
  if (k >= static_cast<double>(kMax)) return kMax;
  return static_cast<unsigned>(k);
}

inline BloomFilterConfig BloomFilterConfig::for_fpr(std::uint64_t expected_items, double eps) {
  if (expected_items == 0) throw ConfigError("expected_items", "0; must be at least 1");
  if (!(eps > 0.0 && eps < 1.0)) {
    throw ConfigError("eps", std::to_string(eps) + " is outside the open interval (0, 1)");
  }
  const double ln2 = std::numbers::ln2;
  const double bits = std::ceil(-static_cast<double>(expected_items) * std::log(eps) / (ln2 * ln2));
  if (!(bits <= static_cast<double>(kMaxBits))) {
    throw ConfigError("expected_items",
                      std::to_string(expected_items) + " items at eps " + std::to_string(eps) +
                          " need more than kMaxBits = " + std::to_string(kMaxBits) + " bits");
  }
  BloomFilterConfig config;
  config.bits = std::max<std::uint64_t>(1, static_cast<std::uint64_t>(bits));
  config.hashes = optimal_k(config.bits, expected_items);
  return config;
}

/// A Bloom filter of m bits and k hash functions (double hashing from one 64-bit hash):
/// no false negatives, a false positive rate of about (1 - e^(-kn/m))^k, no deletes.
/// Thread safety: none; concurrent const calls are safe with each other. See the design
/// comment at the top of bloom_filter.hpp.
template <class Hasher = DefaultHasher>
class BasicBloomFilter {
 public:
  /// Largest number of hash functions, BloomFilterConfig::kMaxHashes.
  static constexpr unsigned kMaxHashes = BloomFilterConfig::kMaxHashes;
  /// Largest number of bits, BloomFilterConfig::kMaxBits.
  static constexpr std::uint64_t kMaxBits = BloomFilterConfig::kMaxBits;
  /// The version of serialize()'s format.
  static constexpr std::uint8_t kFormatVersion = 1;

  /// Throws ConfigError naming "bits" or "hashes" when outside the documented ranges.
  /// Allocates bit_count() / 8 bytes.
  explicit BasicBloomFilter(const BloomFilterConfig& config, Hasher hasher = Hasher{})
      : hasher_(std::move(hasher)),
        bits_(validated_bits(config.bits)),
        hashes_(validated_hashes(config.hashes)),
        seed_(config.seed ? *config.seed : random_seed()),
        words_(bits_ / kWordBits, 0) {}

  /// Sets the key's k bits. Always returns InsertResult::kInserted: a Bloom filter never
  /// fills, its false positive rate grows with size() instead. Every call counts in
  /// size(), also for a key inserted before.
  template <class Key>
    requires HasherFor<Hasher, Key>
  InsertResult insert(const Key& key) noexcept {
    Probe probe(hash(key), bits_);
    for (unsigned i = 0; i < hashes_; ++i) {
      const std::uint64_t bit = probe.next();
      words_[bit / kWordBits] |= std::uint64_t{1} << (bit % kWordBits);
    }
    ++inserts_;
    return InsertResult::kInserted;
  }

  /// False only if key was never inserted (no false negatives); true for an absent key
  /// with probability about expected_fpr().
  template <class Key>
    requires HasherFor<Hasher, Key>
  bool contains(const Key& key) const noexcept {
    Probe probe(hash(key), bits_);
    for (unsigned i = 0; i < hashes_; ++i) {
      const std::uint64_t bit = probe.next();
      if ((words_[bit / kWordBits] >> (bit % kWordBits) & 1U) == 0) return false;
    }
    return true;
  }

  /// Number of insert calls (n), duplicates included.
  std::uint64_t size() const noexcept { return inserts_; }
  /// m.
  std::uint64_t bit_count() const noexcept { return bits_; }
  /// k.
  unsigned hash_count() const noexcept { return hashes_; }
  /// The seed the keys are hashed with (the configured one, or the one drawn at
  /// construction).
  std::uint64_t seed() const noexcept { return seed_; }
  /// Bytes of the bit array.
  std::size_t memory_bytes() const noexcept { return words_.size() * sizeof(std::uint64_t); }
  /// m / n; 0 when the filter is empty.
  double bits_per_item() const noexcept {
    return inserts_ == 0 ? 0.0 : static_cast<double>(bits_) / static_cast<double>(inserts_);
  }
  /// (1 - e^{-k n / m})^k for the current n.
  double expected_fpr() const noexcept {
    const double k = hashes_;
    const double fill = 1.0 - std::exp(-k * static_cast<double>(inserts_) / static_cast<double>(bits_));
    return std::pow(fill, k);
  }
  /// Fraction of bits set. O(m / 64).
  double fill_ratio() const noexcept {
    return static_cast<double>(set_bits()) / static_cast<double>(bits_);
  }

  /// Removes every key; keeps m, k and the seed.
  void clear() noexcept {
    std::fill(words_.begin(), words_.end(), 0);
    inserts_ = 0;
  }

  /// Union: afterwards this filter reports every key either filter reported, and size()
  /// is the sum. Returns false, changing nothing, unless other has the same m, k and seed
  /// (and, by the caller's contract, the same Hasher behaviour).
  [[nodiscard]] bool merge(const BasicBloomFilter& other) noexcept {
    if (bits_ != other.bits_ || hashes_ != other.hashes_ || seed_ != other.seed_) return false;
    for (std::size_t w = 0; w < words_.size(); ++w) words_[w] |= other.words_[w];
    inserts_ += other.inserts_;
    return true;
  }

  /// Same m, k, seed, n and bits. The hashers are not compared.
  friend bool operator==(const BasicBloomFilter& a, const BasicBloomFilter& b) noexcept {
    return a.bits_ == b.bits_ && a.hashes_ == b.hashes_ && a.seed_ == b.seed_ &&
           a.inserts_ == b.inserts_ && a.words_ == b.words_;
  }

  /// The serialized form described at the top of this header.
  std::vector<std::uint8_t> serialize() const {
    detail::ByteWriter w;
    w.u64(bits_);
    w.u32(hashes_);
    w.u64(seed_);
    w.u64(inserts_);
    w.u64(words_.size());
    for (const std::uint64_t word : words_) w.u64(word);
    return detail::seal_envelope(detail::StructureKind::kBloomFilter, kFormatVersion, w);
  }

  /// Rebuilds a filter from serialize()'s bytes. Throws DeserializeError (see the checks
  /// at the top of this header); never reads out of bounds and allocates only after the
  /// word count has been checked against m and against the bytes present.
  static BasicBloomFilter deserialize(std::span<const std::uint8_t> bytes, Hasher hasher = Hasher{}) {
    detail::ByteReader r = detail::open_envelope(bytes, detail::StructureKind::kBloomFilter,
                                                 kFormatVersion, "BloomFilter");
    const std::uint64_t bits = r.u64("bits");
    const std::uint32_t hashes = r.u32("hashes");
    const std::uint64_t seed = r.u64("seed");
    const std::uint64_t inserts = r.u64("inserts");
    const std::uint64_t word_count = r.u64("word count");
    detail::require_config(bits != 0 && bits % kWordBits == 0 && bits <= kMaxBits, "bits",
                           std::to_string(bits) + " is not a nonzero multiple of 64 up to " +
                               std::to_string(kMaxBits));
    detail::require_config(hashes >= 1 && hashes <= kMaxHashes, "hashes",
                           std::to_string(hashes) + " is outside [1, " +
                               std::to_string(kMaxHashes) + "]");
    detail::require_consistent(word_count == bits / kWordBits,
                               "word count " + std::to_string(word_count) + " does not match " +
                                   std::to_string(bits) + " bits (" +
                                   std::to_string(bits / kWordBits) + " words)");
    const auto raw = r.raw(static_cast<std::size_t>(word_count) * sizeof(std::uint64_t), "bit words");
    r.expect_end("the bit words");

    BloomFilterConfig config;
    config.bits = bits;
    config.hashes = hashes;
    config.seed = seed;
    BasicBloomFilter filter(config, std::move(hasher));
    for (std::size_t w = 0; w < filter.words_.size(); ++w) {
      std::uint64_t word = 0;
      for (std::size_t b = 0; b < sizeof word; ++b) {
        word |= std::uint64_t{raw[w * sizeof word + b]} << (8 * b);
      }
      filter.words_[w] = word;
    }
    filter.inserts_ = inserts;
    // One insert sets at most k bits (saturating: n * k may exceed 64 bits).
    const std::uint64_t max_set =
        inserts > std::numeric_limits<std::uint64_t>::max() / hashes ? std::numeric_limits<std::uint64_t>::max()
                                                                      : inserts * hashes;
    const std::uint64_t set = filter.set_bits();
    detail::require_consistent(set <= max_set, std::to_string(set) + " bits set, but " +
                                                   std::to_string(inserts) + " inserts of " +
                                                   std::to_string(hashes) +
                                                   " hashes set at most " + std::to_string(max_set));
    return filter;
  }

 private:
  static constexpr std::uint64_t kWordBits = 64;

  /// The k bit indices of one hash value (see the design comment).
  class Probe {
   public:
    Probe(std::uint64_t h, std::uint64_t bits) noexcept
        : point_(h), step_(detail::mix64(h) | 1U), bits_(bits) {}
    std::uint64_t next() noexcept {
      const std::uint64_t bit = detail::reduce64(point_, bits_);
      point_ += step_;
      return bit;
    }

   private:
    std::uint64_t point_;
    std::uint64_t step_;
    std::uint64_t bits_;
  };

  template <class Key>
  std::uint64_t hash(const Key& key) const noexcept {
    return seeded_hash(hasher_, key, seed_);
  }

  std::uint64_t set_bits() const noexcept {
    std::uint64_t set = 0;
    for (const std::uint64_t word : words_) set += static_cast<std::uint64_t>(std::popcount(word));
    return set;
  }

  static std::uint64_t validated_bits(std::uint64_t bits) {
    if (bits == 0 || bits > kMaxBits) {
      throw ConfigError("bits", std::to_string(bits) + " is outside [1, " +
                                    std::to_string(kMaxBits) + "] (kMaxBits)");
    }
    return (bits + kWordBits - 1) / kWordBits * kWordBits;
  }
  static unsigned validated_hashes(unsigned hashes) {
    if (hashes == 0 || hashes > kMaxHashes) {
      throw ConfigError("hashes", std::to_string(hashes) + " is outside [1, " +
                                      std::to_string(kMaxHashes) + "] (kMaxHashes)");
    }
    return hashes;
  }

  Hasher hasher_;
  std::uint64_t bits_;
  unsigned hashes_;
  std::uint64_t seed_;
  std::uint64_t inserts_ = 0;
  std::vector<std::uint64_t> words_;
};

/// BasicBloomFilter with DefaultHasher.
using BloomFilter = BasicBloomFilter<>;

}  // namespace cuckoo
