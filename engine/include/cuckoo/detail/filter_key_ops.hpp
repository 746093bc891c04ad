// The key-level operations of every filter (internal): hash the key once, then call the
// filter's hash-level operation. BasicCuckooFilter and both concurrent filters derive
// from FilterKeyOps (CRTP), so this forwarding, and the key hash it uses (below), is
// written once.
//
// The filters' key hash: detail::engine_key_hash (hash.hpp), the one-round hash for
// integer and enum keys under DefaultHasher and seeded_hash for every other key. Bytes of
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

#include <cstdint>

#include "cuckoo/hash.hpp"
#include "cuckoo/status.hpp"

namespace cuckoo::detail {

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
    return engine_key_hash(self().hasher(), key, self().seed(), self().legacy_key_hash());
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
