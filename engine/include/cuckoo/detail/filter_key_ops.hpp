// The key-level operations of every filter (internal): hash the key once, then call the
// filter's hash-level operation. BasicCuckooFilter and both concurrent filters derive
// from FilterKeyOps (CRTP), so this forwarding, and the key hash it uses (below), is
// written once.
//
// The filters' key hash. h = seeded_hash(hasher, key, seed) (hash.hpp), except for the
// keys most filters hold, integers and enums under DefaultHasher, which take one mix
// round (filter_key_hash below, about 12 instructions instead of DefaultHasher's 24):
//     h = mix64(uint64(key) ^ (seed * kFilterSeedSpread))
// DefaultHasher's second round makes a rehash under another seed spread keys anew; a
// filter never rehashes (it has no keys), and the seed's multiply by an odd constant
// keeps what that round gave across filters: two seeds differing in a few low bits
// still give unrelated placements (xoring the raw seed would map key k under seed s to
// key k ^ d under seed s ^ d, so filters seeded 2 and 3 over keys 0..n-1 would be one
// filter relabelled). h is a bijection of the key for each seed, as before. Bytes of
// format version 4 or older were written with seeded_hash for every key; a filter read
// from them keeps that rule (Derived::legacy_key_hash(), cuckoo_filter.hpp).
//
// A Derived filter provides:
//     const Hasher& hasher() const;  std::uint64_t seed() const;   (immutable)
//     bool legacy_key_hash() const;  (optional: this class's says false)
//     InsertResult insert_hash(std::uint64_t);  bool contains_hash(std::uint64_t) const;
//     bool erase_hash(std::uint64_t);  unsigned max_copies_of_hash(std::uint64_t) const;
// Thread safety and locking are the Derived filter's: hashing reads only the hasher and
// the seed, which never change, so it takes no lock; each call then holds whatever locks
// the hash-level operation holds, and none on return.
#pragma once

#include <concepts>
#include <cstdint>
#include <type_traits>

#include "cuckoo/hash.hpp"
#include "cuckoo/status.hpp"

namespace cuckoo::detail {

// The odd multiplier of the seed in the one-round key hash (above): any odd constant
// with bits spread over all 64 does; not the golden ratio, which other parts of the
// engine add to hashes already.
inline constexpr std::uint64_t kFilterSeedSpread = 0xd6e8feb86659fd93ULL;

// The keys the one-round key hash takes: integers and enums under DefaultHasher.
template <class Hasher, class Key>
concept OneRoundFilterKey =
    std::is_same_v<Hasher, DefaultHasher> && (std::integral<Key> || std::is_enum_v<Key>);

// The one-round key hash of an integer or enum key (enums by their underlying value, as
// DefaultHasher does).
template <class Key>
[[gnu::always_inline]] constexpr std::uint64_t filter_key_hash(Key key,
                                                               std::uint64_t seed) noexcept {
  std::uint64_t k;
  if constexpr (std::is_enum_v<Key>) {
    k = static_cast<std::uint64_t>(static_cast<std::underlying_type_t<Key>>(key));
  } else {
    k = static_cast<std::uint64_t>(key);
  }
  return mix64(k ^ (seed * kFilterSeedSpread));
}

template <class Derived, class Hasher>
class FilterKeyOps {
 public:
  // A key is anything the Hasher accepts (DefaultHasher: any std::integral or enum,
  // std::string_view, std::string, const char*).

  // Stores one more copy of key. Returns kInserted, kDuplicateLimit if max_copies(key)
  // copies are already stored, or kFull if there is no room; on kDuplicateLimit and
  // kFull the contents are unchanged.
  template <class Key>
    requires HasherFor<Hasher, Key>
  InsertResult insert(const Key& key) {
    return self().insert_hash(hash_of(key));
  }

  // True if key may be present: always true for a key inserted and not erased (no false
  // negatives); true for other keys with probability about load * 2b / 2^f.
  // Always inline (also at -O2), so that a caller's loop keeps the filter's hot state
  // in registers; the filter's contains_hash decides what it inlines.
  template <class Key>
    requires HasherFor<Hasher, Key>
  [[gnu::always_inline]] bool contains(const Key& key) const {
    return self().contains_hash(hash_of(key));
  }

  // Removes one copy of key's fingerprint. Returns false (nothing changed) if there is
  // none. REQUIRES (for the no-false-negative guarantee of other keys): key was inserted.
  template <class Key>
    requires HasherFor<Hasher, Key>
  bool erase(const Key& key) {
    return self().erase_hash(hash_of(key));
  }

  // The most copies of key the filter stores: 2b, or b when both buckets coincide.
  template <class Key>
    requires HasherFor<Hasher, Key>
  unsigned max_copies(const Key& key) const {
    return self().max_copies_of_hash(hash_of(key));
  }

  // The 64-bit hash the operations derive buckets and fingerprint from (the key hash
  // above).
  template <class Key>
    requires HasherFor<Hasher, Key>
  [[gnu::always_inline]] std::uint64_t hash_of(const Key& key) const {
    if constexpr (OneRoundFilterKey<Hasher, Key>) {
      if (!self().legacy_key_hash()) [[likely]] return filter_key_hash(key, self().seed());
    }
    return seeded_hash(self().hasher(), key, self().seed());
  }

  // Whether the filter hashes every key with seeded_hash, as bytes of format version 4
  // and older were written (the filters that read such bytes hide this).
  static constexpr bool legacy_key_hash() noexcept { return false; }

 protected:
  // The body of insert_many() of the filters that offer it: insert() of each key of the
  // range, in order, until one is refused. Result is InsertManyResult (cuckoo_filter.hpp,
  // which includes this header before declaring it).
  template <class Result, class Keys>
  Result insert_each_until_refused(Keys&& keys) {
    Result result;
    for (auto&& key : keys) {  // bound: the range's length
      const InsertResult r = insert(key);
      if (r != InsertResult::kInserted) {
        result.refusal = r;
        return result;
      }
      ++result.inserted;
    }
    return result;
  }

  FilterKeyOps() = default;
  FilterKeyOps(const FilterKeyOps&) = default;
  FilterKeyOps& operator=(const FilterKeyOps&) = default;
  ~FilterKeyOps() = default;

 private:
  Derived& self() noexcept { return static_cast<Derived&>(*this); }
  const Derived& self() const noexcept { return static_cast<const Derived&>(*this); }
};

}  // namespace cuckoo::detail
