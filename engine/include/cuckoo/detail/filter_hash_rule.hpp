// The cuckoo filter's placement rule (internal): how one 64-bit hash gives an item's two
// buckets and its fingerprint; the derivation and why it is so are in the design comment
// of cuckoo/cuckoo_filter.hpp ("Hash derivation"). Every filter of the engine
// (BasicCuckooFilter and both concurrent designs) places items with this class and
// nothing else, so an item has the same buckets and fingerprint in all of them for one
// configuration and seed.
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
  // REQUIRES: bucket_count >= 1; fingerprint_bits in 1..32.
  FilterHashRule(std::uint32_t bucket_count, unsigned fingerprint_bits) noexcept
      : bucket_count_(bucket_count), fp_mask_(fingerprint_mask(fingerprint_bits)) {}

  static constexpr std::uint64_t fingerprint_mask(unsigned bits) noexcept {
    return (std::uint64_t{1} << bits) - 1;
  }

  [[gnu::always_inline]] CuckooFilterPlacement placement(std::uint64_t h) const noexcept {
    const auto i1 = reduce32(static_cast<std::uint32_t>(h >> 32), bucket_count_);
    auto fp = static_cast<std::uint32_t>(h & fp_mask_);
    if (fp == 0) fp = 1;
    return {i1, alt_bucket(i1, fp), fp};
  }

  // The other bucket of a fingerprint stored in bucket i. REQUIRES: i < bucket_count().
  std::uint32_t alt_bucket(std::uint32_t i, std::uint32_t fp) const noexcept {
    return alt_bucket_in(bucket_count_, i, fp);
  }

  // The same for a table of n buckets (deserialization checks stash entries with it).
  // REQUIRES: i < n.
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

 private:
  std::uint32_t bucket_count_;
  std::uint64_t fp_mask_;
};

}  // namespace detail
}  // namespace cuckoo
