// Hashing policy shared by every engine.
//
// Each key is hashed once to 64 bits by a Hasher, with the engine's seed; every engine
// derives its bucket indices and fingerprints from that one value (each engine's header
// documents how). A Hasher is any copyable callable
//     std::uint64_t operator()(const Key& key, std::uint64_t seed) const
// for the key types it is used with. DefaultHasher takes integers (a strong 64-bit
// mixer) and byte strings (XXH3). Tests inject their own Hasher to place keys in chosen
// buckets.
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <string_view>

#ifndef XXH_INLINE_ALL
#define XXH_INLINE_ALL
#endif
#include <xxhash.h>

namespace cuckoo {

namespace detail {

// Stafford's variant 13 of the MurmurHash3 finalizer: a bijection on 64 bits in which
// every input bit affects every output bit.
constexpr std::uint64_t mix64(std::uint64_t x) noexcept {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  x ^= x >> 31;
  return x;
}

// Maps a uniform 32-bit value onto [0, n) without division (Lemire's multiply-shift).
constexpr std::uint32_t reduce32(std::uint32_t hash, std::uint32_t n) noexcept {
  return static_cast<std::uint32_t>((static_cast<std::uint64_t>(hash) * n) >> 32);
}

// Maps a uniform 64-bit value onto [0, n) for any 64-bit n.
constexpr std::uint64_t reduce64(std::uint64_t hash, std::uint64_t n) noexcept {
  __extension__ using u128 = unsigned __int128;
  return static_cast<std::uint64_t>((static_cast<u128>(hash) * n) >> 64);
}

}  // namespace detail

struct DefaultHasher {
  template <std::integral T>
  constexpr std::uint64_t operator()(T key, std::uint64_t seed) const noexcept {
    // Two rounds so that keys differing only in the seed's low bits still spread.
    return detail::mix64(detail::mix64(static_cast<std::uint64_t>(key) ^ seed) +
                         0x9e3779b97f4a7c15ULL);
  }
  std::uint64_t operator()(std::string_view key, std::uint64_t seed) const noexcept {
    return XXH3_64bits_withSeed(key.data(), key.size(), seed);
  }
  std::uint64_t operator()(const std::string& key, std::uint64_t seed) const noexcept {
    return (*this)(std::string_view(key), seed);
  }
  std::uint64_t operator()(const char* key, std::uint64_t seed) const noexcept {
    return (*this)(std::string_view(key), seed);
  }
};

template <class H, class Key>
concept HasherFor = std::copy_constructible<H> && requires(const H& h, const Key& k) {
  { h(k, std::uint64_t{0}) } -> std::convertible_to<std::uint64_t>;
};

// A fresh seed from the operating system's entropy source; engines call this when the
// configuration names no seed. The seed is readable (seed()) and serialized so that any
// run can be replayed.
inline std::uint64_t random_seed() {
  std::random_device rd;
  return (static_cast<std::uint64_t>(rd()) << 32) ^ rd();
}

}  // namespace cuckoo
