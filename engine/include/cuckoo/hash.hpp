// Hashing policy shared by every engine.
//
// Each key is hashed once to 64 bits by a Hasher, with the engine's seed; every engine
// derives its bucket indices and fingerprints from that one value (each engine's header
// documents how). A Hasher is any copyable callable of one of two shapes, for the key
// types it is used with:
//     std::uint64_t operator()(const Key& key, std::uint64_t seed) const   (seeded)
//     std::size_t   operator()(const Key& key) const                       (standard)
// The standard shape is std::hash<Key>'s and absl::Hash<Key>'s: the engine mixes its
// seed into the result, seeded_hash(h, key, seed) = mix64(mix64(h(key) ^ seed) + c),
// a bijection of h(key) for each seed, so two keys collide in 64 bits exactly when the
// standard hasher collides, and the engines' bucket and fingerprint bits are
// full-avalanche even where h is the identity (std::hash of an integer on libstdc++).
// seeded_hash() is the one place that rule lives; every engine calls it (the filters and
// the maps too, except for integer and enum keys under DefaultHasher, which the filters
// hash by one mix round of their own and the maps by two multiply folds: KeyHashRule
// and detail::one_round_key_hash, detail::product_key_hash below).
// DefaultHasher takes integers and enums (a strong 64-bit mixer) and byte strings
// (XXH3), and is transparent: std::string, std::string_view and const char* hash
// equal, so a map with DefaultHasher and std::equal_to<> (DefaultKeyEqual<std::string>)
// looks up a std::string key by std::string_view without building a string. Any other
// key type falls back, in this order, to a std::hash<Key> specialization the user
// declared, then (only when <absl/hash/hash.h> is available and CUCKOO_NO_ABSL_HASH is
// not defined) to an AbslHashValue overload found by argument-dependent lookup, hashed
// with absl::Hash<Key> (the program must then link absl::hash); either result goes
// through seeded_hash's mix with the seed. The types DefaultHasher knows natively keep
// their hash values (serialized maps and filters depend on them). Tests inject their
// own Hasher to place keys in chosen buckets.
#pragma once

#include "detail/platform.hpp"

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

// abseil is optional: with its hash header available (and CUCKOO_NO_ABSL_HASH not
// defined), DefaultHasher also takes key types that declare AbslHashValue.
#if !defined(CUCKOO_NO_ABSL_HASH) && defined(__has_include)
#if __has_include(<absl/hash/hash.h>)
#include <absl/hash/hash.h>
#define CUCKOO_HAS_ABSL_HASH 1
#endif
#endif
#ifndef CUCKOO_HAS_ABSL_HASH
#define CUCKOO_HAS_ABSL_HASH 0
#endif

// xxHash in its header-only mode, with the macro taken back afterwards so that it does
// not leak into the user's code (xxhash.h's inline mode renames its symbols, so a later
// ordinary #include <xxhash.h> by the user still works).
#ifdef XXH_INLINE_ALL
#include <xxhash.h>
#else
#define XXH_INLINE_ALL
#include <xxhash.h>
#undef XXH_INLINE_ALL
#endif

namespace cuckoo {

/// How an engine hashes the keys it places by a rule of its own (integer and enum keys
/// under DefaultHasher; every other key takes seeded_hash under every rule). Serialized
/// structures record it, and bytes are read with the rule they were written with.
enum class KeyHashRule : std::uint8_t {
  /// seeded_hash for every key: filters and maps read from bytes of the first format
  /// versions (their legacy_key_hash()).
  kSeeded = 0,
  /// One mix64 round of the key and the spread seed (detail::one_round_key_hash): the
  /// filters, and maps read from bytes written before kProduct.
  kOneRound = 1,
  /// Two multiply folds of the key and the spread seed (detail::product_key_hash):
  /// CuckooMap and StripedConcurrentMap.
  kProduct = 2,
};

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

// The one seed mix of a standard (unseeded) hash value: a bijection of h for each seed
// (see seeded_hash).
constexpr std::uint64_t mix_seed(std::uint64_t h, std::uint64_t seed) noexcept {
  return mix64(mix64(h ^ seed) + 0x9e3779b97f4a7c15ULL);
}

// The key types DefaultHasher hashes itself; any other type takes the fallbacks.
template <class T>
concept NativelyHashed = std::integral<T> || std::is_enum_v<T> ||
                         std::is_convertible_v<const T&, std::string_view> ||
                         std::is_convertible_v<const T&, const char*>;

// A std::hash<T> that is enabled (the standard's disabled specializations are not
// default constructible) and callable.
template <class T>
concept StdHashable = std::is_default_constructible_v<std::hash<T>> &&
                      requires(const T& key) {
                        { std::hash<T>{}(key) } -> std::convertible_to<std::size_t>;
                      };

#if CUCKOO_HAS_ABSL_HASH
// T has an AbslHashValue that absl::Hash finds: the type's own (argument-dependent
// lookup), or abseil's for standard types (std::pair, std::tuple, std::vector, ...,
// reached through absl::HashState's base class), so those keys work too when abseil is
// available, and then need absl::hash at link time.
template <class T>
concept AbslHashable = requires(absl::HashState state, const T& key) {
  AbslHashValue(std::move(state), key);
};
#else
template <class T>
concept AbslHashable = false;
#endif

}  // namespace detail

/// The default Hasher of every engine (seeded shape): integers and enums by a strong
/// 64-bit mixer of the value and the seed, byte strings by XXH3 with the seed.
/// Transparent: std::string, std::string_view and const char* hash equal.
struct DefaultHasher {
  /// Heterogeneous lookup: the string overloads hash equal strings equally.
  using is_transparent = void;

  /// Hash of an integer: a strong 64-bit mix of the key and the seed.
  template <std::integral T>
  constexpr std::uint64_t operator()(T key, std::uint64_t seed) const noexcept {
    // Two rounds so that keys differing only in the seed's low bits still spread.
    return detail::mix64(detail::mix64(static_cast<std::uint64_t>(key) ^ seed) +
                         0x9e3779b97f4a7c15ULL);
  }
  /// Hash of an enum: the hash of its underlying value.
  template <class T>
    requires std::is_enum_v<T>
  constexpr std::uint64_t operator()(T key, std::uint64_t seed) const noexcept {
    return (*this)(static_cast<std::underlying_type_t<T>>(key), seed);
  }
  /// Hash of a byte string: XXH3-64 of its bytes with the seed.
  std::uint64_t operator()(std::string_view key, std::uint64_t seed) const noexcept {
    return XXH3_64bits_withSeed(key.data(), key.size(), seed);
  }
  /// Hash of a std::string: the same as its std::string_view.
  std::uint64_t operator()(const std::string& key, std::uint64_t seed) const noexcept {
    return (*this)(std::string_view(key), seed);
  }
  /// Hash of a NUL-terminated string: the same as its std::string_view.
  std::uint64_t operator()(const char* key, std::uint64_t seed) const noexcept {
    return (*this)(std::string_view(key), seed);
  }
  /// Any other key: the user's std::hash<T> specialization, else (abseil available) its
  /// AbslHashValue through absl::Hash<T>, with the seed mixed in. REQUIRES: that hash
  /// does not throw.
  template <class T>
    requires(!detail::NativelyHashed<T> && (detail::StdHashable<T> || detail::AbslHashable<T>))
  std::uint64_t operator()(const T& key, std::uint64_t seed) const noexcept {
    if constexpr (detail::StdHashable<T>) {
      return detail::mix_seed(static_cast<std::uint64_t>(std::hash<T>{}(key)), seed);
    } else {
#if CUCKOO_HAS_ABSL_HASH
      return detail::mix_seed(static_cast<std::uint64_t>(absl::Hash<T>{}(key)), seed);
#endif
    }
  }
};

/// The default key equality of the exact maps: std::equal_to<> (transparent) for
/// std::string keys, so that find(std::string_view) and find("literal") work without
/// building a string (DefaultHasher hashes the three equally), std::equal_to<K> for
/// every other key.
template <class K>
using DefaultKeyEqual =
    std::conditional_t<std::is_same_v<K, std::string>, std::equal_to<>, std::equal_to<K>>;

/// A hasher of the seeded shape for Key.
template <class H, class Key>
concept SeededHasherFor = requires(const H& h, const Key& k) {
  { h(k, std::uint64_t{0}) } -> std::convertible_to<std::uint64_t>;
};
/// A hasher of the standard shape (std::hash, absl::Hash) for Key.
template <class H, class Key>
concept StandardHasherFor = requires(const H& h, const Key& k) {
  { h(k) } -> std::convertible_to<std::size_t>;
};

template <class H, class Key>
concept HasherFor =
    std::copy_constructible<H> && (SeededHasherFor<H, Key> || StandardHasherFor<H, Key>);

/// Whether H and Eq both declare is_transparent: then lookups take any key type they
/// accept (abseil's and the standard containers' rule).
template <class H, class Eq>
concept TransparentPair = requires {
  typename H::is_transparent;
  typename Eq::is_transparent;
};

/// The 64-bit hash of key under seed: h(key, seed) for a seeded hasher; for a standard
/// one, its result with the seed mixed in (see the top of this file). The seeded shape
/// wins when a hasher offers both. Hashers must not throw (every engine REQUIRES it).
template <class H, class Key>
  requires SeededHasherFor<H, Key> || StandardHasherFor<H, Key>
constexpr std::uint64_t seeded_hash(const H& h, const Key& key, std::uint64_t seed) noexcept {
  if constexpr (SeededHasherFor<H, Key>) {
    return static_cast<std::uint64_t>(h(key, seed));
  } else {
    return detail::mix_seed(static_cast<std::uint64_t>(h(key)), seed);
  }
}

namespace detail {

// The one-round key hash. The filters and CuckooMap (and the striped concurrent map) hash
// the keys most of them hold, integers and enums under DefaultHasher, by one mix round
// instead of DefaultHasher's two (about 12 instructions instead of 24 a key):
//     h = mix64(uint64(key) ^ (seed * kSeedSpread))
// DefaultHasher's second round is there so that keys under two seeds a few low bits
// apart spread independently; the seed's multiply by an odd constant gives the same:
// xoring the raw seed would map key k under seed s to key k ^ d under seed s ^ d, so a
// map reseeded from s to s ^ 1 over keys 0..n-1 (a set closed under ^ 1) would hold the
// same hashes again, and filters seeded 2 and 3 would be one filter relabelled. h is a
// bijection of the key for each seed. Every other key, and every key under another
// hasher, takes seeded_hash. Structures read from bytes written before this rule keep
// the two rounds those bytes were written with (their legacy_key_hash()).

// The odd multiplier of the seed: any odd constant with bits spread over all 64 does;
// not the golden ratio, which other parts of the engine add to hashes already.
inline constexpr std::uint64_t kSeedSpread = 0xd6e8feb86659fd93ULL;

// The keys the one-round key hash takes: integers and enums under DefaultHasher.
template <class Hasher, class Key>
concept OneRoundKey =
    std::is_same_v<Hasher, DefaultHasher> && (std::integral<Key> || std::is_enum_v<Key>);

// An integer or enum key as the 64-bit word the key hash rules take (enums by their
// underlying value, as DefaultHasher takes them; signed values sign-extended).
template <class Key>
[[gnu::always_inline]] constexpr std::uint64_t key_word(Key key) noexcept {
  if constexpr (std::is_enum_v<Key>) {
    return static_cast<std::uint64_t>(static_cast<std::underlying_type_t<Key>>(key));
  } else {
    return static_cast<std::uint64_t>(key);
  }
}

// The one-round key hash of an integer or enum key.
template <class Key>
[[gnu::always_inline]] constexpr std::uint64_t one_round_key_hash(Key key,
                                                                  std::uint64_t seed) noexcept {
  return mix64(key_word(key) ^ (seed * kSeedSpread));
}

// The multiply fold: the high and low halves of the 128-bit product of a and b, xored.
[[gnu::always_inline]] constexpr std::uint64_t multiply_fold(std::uint64_t a,
                                                             std::uint64_t b) noexcept {
#if defined(__SIZEOF_INT128__)
  __extension__ using Product = unsigned __int128;  // __extension__: -Wpedantic allows it
  const Product p = static_cast<Product>(a) * b;
  return static_cast<std::uint64_t>(p) ^ static_cast<std::uint64_t>(p >> 64);
#else
  // Schoolbook 64 x 64 -> 128 from 32-bit halves.
  const std::uint64_t a_lo = a & 0xffffffffULL, a_hi = a >> 32;
  const std::uint64_t b_lo = b & 0xffffffffULL, b_hi = b >> 32;
  const std::uint64_t ll = a_lo * b_lo, lh = a_lo * b_hi, hl = a_hi * b_lo, hh = a_hi * b_hi;
  const std::uint64_t mid = (ll >> 32) + (lh & 0xffffffffULL) + (hl & 0xffffffffULL);
  const std::uint64_t lo = (mid << 32) | (ll & 0xffffffffULL);
  const std::uint64_t hi = hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
  return lo ^ hi;
#endif
}

// The maps' key hash (KeyHashRule::kProduct) of an integer or enum key:
//     h = fold(fold(uint64(key) ^ (seed * kSeedSpread), kProductFirst), kProductSecond)
// where fold(a, b) xors the halves of the 128-bit product a * b. Two multiplies, about 7
// instructions on x86-64 against mix64's 12, for the lookups of a map, where the hash is
// a fifth of the work. One fold is not enough for cuckoo placement: the two candidate
// buckets (the hash's 32-bit halves) of structured keys (multiples of 4096, sequential
// keys) were correlated, and a table of 2^22 slots filled to its first refused insert at
// 93.9 % and 96.7 % load against 97.5 % for random keys; with two folds, every key pattern
// measured (sequential, strided, keys in the high bits only, negative 32-bit integers,
// Gray codes) reached 97.4-97.5 %, as with mix64. Not a bijection (two keys may share all
// 64 bits; the map compares keys, so that only places them in the same buckets).
inline constexpr std::uint64_t kProductFirst = 0x9fb21c651e98df25ULL;
inline constexpr std::uint64_t kProductSecond = 0xbf58476d1ce4e5b9ULL;

template <class Key>
[[gnu::always_inline]] constexpr std::uint64_t product_key_hash(Key key,
                                                                std::uint64_t seed) noexcept {
  return multiply_fold(multiply_fold(key_word(key) ^ (seed * kSeedSpread), kProductFirst),
                       kProductSecond);
}

// The maps' hash of a key under `rule`: the rule's own hash for the keys it takes
// (integers and enums under DefaultHasher), seeded_hash for every other key.
template <class H, class Key>
[[gnu::always_inline]] constexpr std::uint64_t map_key_hash(const H& h, const Key& key,
                                                            std::uint64_t seed,
                                                            KeyHashRule rule) noexcept {
  if constexpr (OneRoundKey<H, Key>) {
    if (rule == KeyHashRule::kProduct) [[likely]] return product_key_hash(key, seed);
    if (rule == KeyHashRule::kOneRound) return one_round_key_hash(key, seed);
  }
  return seeded_hash(h, key, seed);
}

// The filters' hash of a key: the one-round hash for the keys it takes, unless
// `legacy` (a structure read from bytes of the older rule), else seeded_hash.
template <class H, class Key>
[[gnu::always_inline]] constexpr std::uint64_t engine_key_hash(const H& h, const Key& key,
                                                               std::uint64_t seed,
                                                               bool legacy) noexcept {
  if constexpr (OneRoundKey<H, Key>) {
    if (!legacy) [[likely]] return one_round_key_hash(key, seed);
  }
  return seeded_hash(h, key, seed);
}

}  // namespace detail

/// A fresh seed from the operating system's entropy source; engines call this when the
/// configuration names no seed. The seed is readable (seed()) and serialized so that any
/// run can be replayed.
inline std::uint64_t random_seed() {
  std::random_device rd;
  return (static_cast<std::uint64_t>(rd()) << 32) ^ rd();
}

}  // namespace cuckoo
