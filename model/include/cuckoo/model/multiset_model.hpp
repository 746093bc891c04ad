// MultisetModel: the executable specification of an approximate-membership filter that
// stores duplicates (CuckooFilter; any filter audited through an adapter).
//
// The state is a std::multiset of the keys inserted and not erased. The model answers
// what a correct filter MUST do; a filter may say more (false positives), never less.
//
// Identity. A filter stores a fingerprint, so distinct keys can be indistinguishable to
// it: in a partial-key cuckoo filter two keys with the same fingerprint and the same
// bucket pair are the same item as far as the filter can tell. The model takes an
// optional identity function (key -> 64-bit identity; for a cuckoo filter, for example,
// the fingerprint and the smaller bucket index packed together) and states the rules in
// terms of it. Without one, a key's identity is the key itself (exact semantics).
//
//   - contains(k) is true iff some stored key has k's identity: the filter cannot tell
//     that copy from k, so it must say yes.
//   - The duplicate limit counts the stored keys sharing k's identity
//     (identity_count(k)), not the copies of k alone.
//   - erase(k) removes one copy of k's identity: k itself if k is stored, otherwise the
//     smallest stored key with k's identity. It succeeds iff such a copy exists. (Which
//     aliasing key loses a copy does not matter: the filter answers alike for all of
//     them, and the model's answers depend only on the count per identity.)
//
// Representation. Beside the multiset of keys the model keeps an index, identity -> the
// stored copies with that identity, updated by every insert, erase and clear and rebuilt
// by set_identity(): identity_count(), contains() and erase() cost O(log n) and one call
// of the identity function, not a scan of every stored key (the fuzz targets ask after
// every op, and for every stored key after every failed insert). The index is why the
// identity must be a pure function of the key.
//
// Thread safety: none; one model per checker.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <set>
#include <vector>

#include "cuckoo/model/insert_result.hpp"
#include "cuckoo/model/key_semantics.hpp"

namespace cuckoo::model {

class MultisetModel {
 public:
  // key -> identity. Must be a pure function of the key.
  using Identity = std::function<std::uint64_t(std::uint64_t key)>;

  // max_copies value meaning "no duplicate limit".
  static constexpr std::uint64_t kNoCopyLimit = key::kNoCopyLimit;

  // Exact semantics: every key is its own identity.
  MultisetModel() = default;
  // REQUIRES: identity is empty or a pure function of the key.
  explicit MultisetModel(Identity identity);

  // Replaces the identity function (empty: back to exact semantics). The stored keys
  // are kept; the rules above are judged with the new identity from now on (the index
  // is rebuilt: O(n log n)).
  void set_identity(Identity identity);
  bool has_identity() const noexcept { return static_cast<bool>(identity_); }
  const Identity& identity() const noexcept { return identity_; }
  // The identity of `key`: identity()(key), or the key itself without an identity.
  std::uint64_t identity_of(std::uint64_t key) const;

  // Stores one more copy of `key` and returns kInserted, or stores nothing and returns
  // kDuplicateLimit when identity_count(key) >= max_copies.
  InsertResult insert(std::uint64_t key, std::uint64_t max_copies = kNoCopyLimit);

  // Must the filter answer yes? True iff identity_count(key) > 0.
  bool contains(std::uint64_t key) const;
  // Copies of `key` itself.
  std::size_t count(std::uint64_t key) const;
  // Stored copies of all keys whose identity equals key's (count(key) without identity).
  std::size_t identity_count(std::uint64_t key) const;

  // Removes one copy of key's identity (see the rules above). Returns false, changing
  // nothing, when no stored key has key's identity.
  bool erase(std::uint64_t key);

  std::size_t size() const noexcept { return items_.size(); }
  bool empty() const noexcept { return items_.empty(); }
  void clear() noexcept {
    items_.clear();
    by_identity_.clear();
  }

  // Every stored copy, in key order.
  const std::multiset<std::uint64_t>& items() const noexcept { return items_; }
  // Each stored key once, ascending.
  std::vector<std::uint64_t> distinct_keys() const;

 private:
  void rebuild_index();

  std::multiset<std::uint64_t> items_;
  Identity identity_;
  // With an identity: identity -> the stored copies with it (an entry per copy, so its
  // size is the identity count and its first element the smallest aliasing key). No
  // empty sets are kept. Without an identity: empty (items_ answers by itself).
  std::map<std::uint64_t, std::multiset<std::uint64_t>> by_identity_;
};

}  // namespace cuckoo::model
