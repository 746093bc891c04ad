// The experiment behind docs/performance.md's account of the 50-instruction target: the
// default shape's filter lookup written with f = 12 and b = 4 as constants, over a copy
// of a CuckooFilter's table in the same layout (4 slots of 12 bits, 6 bytes a bucket).
// bench_instructions counts its instructions (fixed_* kinds) and bench_filter times it
// (filter_fixed/*), beside the engine's. Three forms: the engine's hash and placement
// (contains_hash; it answers as the filter does, which both programs check before
// measuring), one 64-bit mix round instead of the engine's two (one_mix), and also a
// power-of-two placement (contains_hash_pow2). The last two only measure: their answers
// are not the filter's (a negative lookup runs the same instructions whatever the table
// holds). Not part of the engine: an experiment on what a compile-time shape would save.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "cuckoo/cuckoo_filter.hpp"
#include "cuckoo/detail/aligned_buffer.hpp"

namespace cuckoo::bench {

struct FixedShapeTable {
  static constexpr unsigned kBits = 12;
  static constexpr unsigned kSlots = 4;
  static constexpr unsigned kBucketBytes = kBits * kSlots / 8;  // 6
  static constexpr std::uint64_t kLo = 0x001001001001ULL;       // bit 0 of each slot
  static constexpr std::uint64_t kHi = kLo << (kBits - 1);      // bit 11 of each slot
  cuckoo::detail::AlignedBuffer bytes;
  std::uint32_t n = 0;
  unsigned log2_n = 0;

  // REQUIRES: f has 12-bit fingerprints and 4 slots a bucket.
  explicit FixedShapeTable(const cuckoo::CuckooFilter& f, bool huge_pages = false)
      : bytes(std::size_t{f.bucket_count()} * kBucketBytes + 8, huge_pages), n(f.bucket_count()) {
    while ((std::uint32_t{1} << log2_n) < n) ++log2_n;
    std::memset(bytes.data(), 0, std::size_t{n} * kBucketBytes + 8);
    for (std::uint32_t b = 0; b < n; ++b) {
      std::uint64_t w = 0;
      for (unsigned s = 0; s < kSlots; ++s) {
        w |= std::uint64_t{f.fingerprint_at(b, s)} << (s * kBits);
      }
      std::memcpy(bytes.data() + std::size_t{b} * kBucketBytes, &w, kBucketBytes);
    }
  }
  bool holds(std::uint32_t bucket, std::uint64_t fp) const {
    std::uint64_t w;
    std::memcpy(&w, bytes.data() + std::size_t{bucket} * kBucketBytes, sizeof w);
    const std::uint64_t v = w ^ (fp * kLo);
    return ((v - kLo) & ~v & kHi) != 0;
  }
  // The engine's placement (filter_hash_rule.hpp) with the shape's constants: i1 and the
  // fingerprint as FilterHashRule::placement derives them, with the mask a constant, and
  // the engine's own alternate-bucket rule.
  bool contains_hash(std::uint64_t h) const {
    const std::uint32_t i1 = cuckoo::detail::reduce32(static_cast<std::uint32_t>(h >> 32), n);
    auto fp = static_cast<std::uint32_t>(h & ((1U << kBits) - 1));
    if (fp == 0) fp = 1;
    const std::uint32_t i2 = cuckoo::detail::FilterHashRule::alt_bucket_in(n, i1, fp);
    return (static_cast<unsigned>(holds(i1, fp)) | static_cast<unsigned>(holds(i2, fp))) != 0;
  }
  // A power-of-two placement. REQUIRES: n == 2^log2_n.
  bool contains_hash_pow2(std::uint64_t h) const {
    const auto i1 = static_cast<std::uint32_t>(h >> (64 - log2_n));
    auto fp = static_cast<std::uint32_t>(h & ((1U << kBits) - 1));
    if (fp == 0) fp = 1;
    const std::uint32_t i2 = i1 ^ ((fp * 0x9e3779b9U) >> (32 - log2_n));
    return (static_cast<unsigned>(holds(i1, fp)) | static_cast<unsigned>(holds(i2, fp))) != 0;
  }
};

// One mix round with the seed, instead of DefaultHasher's two.
inline std::uint64_t one_mix(std::uint64_t key, std::uint64_t seed) {
  return cuckoo::detail::mix64(key ^ seed);
}

}  // namespace cuckoo::bench
