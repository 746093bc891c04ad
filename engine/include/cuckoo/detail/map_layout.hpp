// CuckooMap internals: how a key's 64-bit hash becomes its two candidate buckets.
//
// For a table of n buckets and a key hash h = hasher(key, seed):
//     first  = reduce32(uint32(h >> 32), n)    (the high half of h)
//     second = reduce32(uint32(h),       n)    (the low half of h)
// reduce32 is Lemire's multiply-shift, so any n works (no power-of-two requirement) and
// bucket i at n buckets maps to bucket ~2i at 2n buckets. The two halves are independent
// for a full-avalanche 64-bit hash (DefaultHasher is one); first may equal second, in
// which case the key has a single candidate bucket and relies on the stash beyond it.
//
// The derivation is deliberately this simple so that a test hasher can put a key in
// chosen buckets: map_hash_for_buckets() inverts it for one bucket count.
//
// The key's tag (map_slots.hpp) is one byte of the hash that is never 0:
//     tag = uint8(h ^ (h >> 32)), or 1 if that is 0
// the low bytes of both halves, which reduce32 weighs least (for n <= 2^24 buckets they
// decide neither bucket), so the tag is close to independent of the buckets; and it
// does not depend on n, so an item keeps its tag when the table grows.
#pragma once

#include <cstdint>

#include "../hash.hpp"

namespace cuckoo::detail {

struct MapBucketPair {
  std::uint32_t first;
  std::uint32_t second;

  friend constexpr bool operator==(const MapBucketPair&, const MapBucketPair&) = default;
};

// REQUIRES: bucket_count > 0.
constexpr MapBucketPair map_buckets(std::uint64_t hash, std::uint32_t bucket_count) noexcept {
  return {reduce32(static_cast<std::uint32_t>(hash >> 32), bucket_count),
          reduce32(static_cast<std::uint32_t>(hash), bucket_count)};
}

constexpr std::uint8_t map_tag(std::uint64_t hash) noexcept {
  const auto t = static_cast<std::uint8_t>(hash ^ (hash >> 32));
  return t == 0 ? std::uint8_t{1} : t;
}

// The candidate bucket of hash that is not `bucket` (bucket itself when both coincide).
// REQUIRES: bucket is one of map_buckets(hash, bucket_count).
constexpr std::uint32_t map_alt_bucket(std::uint64_t hash, std::uint32_t bucket,
                                       std::uint32_t bucket_count) noexcept {
  const MapBucketPair pair = map_buckets(hash, bucket_count);
  return pair.first == bucket ? pair.second : pair.first;
}

// The smallest 32-bit value x with reduce32(x, n) == bucket.
// REQUIRES: bucket < n.
constexpr std::uint32_t map_preimage32(std::uint32_t bucket, std::uint32_t n) noexcept {
  // x = ceil(bucket * 2^32 / n): then x * n lies in [bucket * 2^32, bucket * 2^32 + n),
  // which is below (bucket + 1) * 2^32 because n <= 2^32; and x < 2^32 since bucket < n.
  const std::uint64_t scaled = static_cast<std::uint64_t>(bucket) << 32;
  return static_cast<std::uint32_t>((scaled + n - 1) / n);
}

// A hash h with map_buckets(h, n) == {first, second}.
// REQUIRES: first < n and second < n.
constexpr std::uint64_t map_hash_for_buckets(std::uint32_t first, std::uint32_t second,
                                             std::uint32_t n) noexcept {
  return (static_cast<std::uint64_t>(map_preimage32(first, n)) << 32) |
         map_preimage32(second, n);
}

}  // namespace cuckoo::detail
