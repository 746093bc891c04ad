// The cuckoo filter's placement rule (internal): how one 64-bit hash gives an item's two
// buckets and its fingerprint; the derivation and why it is so are in the design comment
// of cuckoo/cuckoo_filter.hpp ("Hash derivation"). Every filter of the engine
// (BasicCuckooFilter and both concurrent designs) places items with this class and
// nothing else, so an item has the same buckets and fingerprint in all of them for one
// configuration and seed. Two rules: the standard one, and the nested one that
// GrowingCuckooFilter's levels take (CuckooFilterConfig::nested_prefix_bits).
#pragma once

#include <cassert>
#include <cstdint>

#include "cuckoo/hash.hpp"

namespace cuckoo {

// Where an item lives: its two candidate buckets (equal when it has only one) and its
// fingerprint (never 0). Also the form of a stash entry, whose bucket1 is one of its
// buckets and bucket2 = alt_bucket(bucket1, fingerprint).
struct CuckooFilterPlacement {
  std::uint32_t bucket1 = 0;
  std::uint32_t bucket2 = 0;
  std::uint32_t fingerprint = 0;
  friend bool operator==(const CuckooFilterPlacement&, const CuckooFilterPlacement&) = default;
};

namespace detail {

class FilterHashRule {
 public:
  // REQUIRES: bucket_count >= 1; fingerprint_bits in 1..32; nested_prefix_bits 0 (the
  // standard rule) or in 1..fingerprint_bits with bucket_count a power of two (the nested
  // rule, CuckooFilterConfig::nested_prefix_bits).
  FilterHashRule(std::uint32_t bucket_count, unsigned fingerprint_bits,
                 unsigned nested_prefix_bits = 0) noexcept
      : bucket_count_(bucket_count),
        fingerprint_bits_(static_cast<std::uint8_t>(fingerprint_bits)),
        nested_prefix_bits_(static_cast<std::uint8_t>(nested_prefix_bits)),
        fp_mask_(fingerprint_mask(fingerprint_bits)) {
    assert(nested_prefix_bits == 0 ||
           (nested_prefix_bits <= fingerprint_bits && (bucket_count & (bucket_count - 1)) == 0));
  }

  static constexpr std::uint64_t fingerprint_mask(unsigned bits) noexcept {
    return (std::uint64_t{1} << bits) - 1;
  }

  [[gnu::always_inline]] CuckooFilterPlacement placement(std::uint64_t h) const noexcept {
    if (nested_prefix_bits_ != 0) [[unlikely]] return nested_placement(h);
    const auto i1 = reduce32(static_cast<std::uint32_t>(h >> 32), bucket_count_);
    auto fp = static_cast<std::uint32_t>(h & fp_mask_);
    if (fp == 0) fp = 1;
    return {i1, alt_bucket_in(bucket_count_, i1, fp), fp};
  }

  // The other bucket of a fingerprint stored in bucket i. REQUIRES: i < bucket_count().
  std::uint32_t alt_bucket(std::uint32_t i, std::uint32_t fp) const noexcept {
    if (nested_prefix_bits_ != 0) [[unlikely]] return i ^ nested_offset(fp);
    return alt_bucket_in(bucket_count_, i, fp);
  }

  // The standard rule's alternate bucket for a table of n buckets (deserialization checks
  // stash entries with it). REQUIRES: i < n.
  [[gnu::always_inline]] static std::uint32_t alt_bucket_in(std::uint32_t n, std::uint32_t i, std::uint32_t fp) noexcept {
    assert(i < n);
    const auto t = reduce32(fp * kAltMultiplier, n);
    // (t - i) mod n: t - i, plus n when that borrowed (mod 2^32, so without overflow);
    // one subtraction whose borrow selects (sub, lea, cmov).
    const std::uint32_t d = t - i;
    return t < i ? d + n : d;
  }

  // t(fp) = reduce32(fp * kAltMultiplier mod 2^32, n): Fibonacci hashing (Knuth) of the
  // fingerprint, a bijection on 32 bits whose high bits (the ones reduce32 keeps) spread
  // consecutive fingerprints evenly. Format version 1 used mix64(fp) here (about 10 more
  // instructions per lookup); filters serialized with it are rejected (version 2 reads
  // only its own placement).
  static constexpr std::uint32_t kAltMultiplier = 0x9e3779b9U;

  std::uint32_t bucket_count() const noexcept { return bucket_count_; }
  // 0 for the standard rule, else the nested rule's prefix width p.
  unsigned nested_prefix_bits() const noexcept { return nested_prefix_bits_; }

 private:
  // The nested rule (cuckoo_filter.hpp, "Nested placement"): with n a power of two,
  //     fp = max(1, uint32(h) >> (32 - f))       the high f of the low 32 bits
  //     i1 = uint32(h >> 32) & (n - 1)
  //     alt_bucket(i, fp) = i xor (mix64(max(1, fp >> (f - p))) & (n - 1))
  // Out of line: only GrowingCuckooFilter's levels take it.
  [[gnu::noinline]] CuckooFilterPlacement nested_placement(std::uint64_t h) const noexcept {
    const std::uint32_t prefix = static_cast<std::uint32_t>(h) >> (32U - fingerprint_bits_);
    const std::uint32_t fp = prefix == 0 ? 1U : prefix;
    const std::uint32_t i1 = static_cast<std::uint32_t>(h >> 32) & (bucket_count_ - 1);
    return {i1, i1 ^ nested_offset(fp), fp};
  }

  // The nested rule's xor offset: a hash of the fingerprint's first p bits only, reduced
  // by masking, so that a table of 2^k buckets sees the low k bits of the same offset.
  std::uint32_t nested_offset(std::uint32_t fp) const noexcept {
    std::uint32_t base = fp >> (fingerprint_bits_ - nested_prefix_bits_);
    if (base == 0) base = 1;  // as the fingerprint of that width would be
    return static_cast<std::uint32_t>(mix64(base)) & (bucket_count_ - 1);
  }

  std::uint32_t bucket_count_;
  std::uint8_t fingerprint_bits_;
  std::uint8_t nested_prefix_bits_;
  std::uint64_t fp_mask_;
};

}  // namespace detail
}  // namespace cuckoo
