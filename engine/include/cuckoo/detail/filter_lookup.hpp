// CuckooFilter's lookup helpers (out-of-line members of BasicCuckooFilter,
// cuckoo/cuckoo_filter.hpp, included at its end): the batched lookup behind
// contains_many() and the stash scans (find, count, remove). The per-key probe itself
// (holds_fingerprint) stays in the class body, where the hot path reads it.
#pragma once

#ifndef CUCKOO_FILTER
#error "filter_lookup.hpp holds out-of-line members of BasicCuckooFilter: include cuckoo/cuckoo_filter.hpp"
#endif

namespace cuckoo {

CUCKOO_FILTER_TEMPLATE
template <class Key, class Out>
inline auto CUCKOO_FILTER::contains_many_into(std::span<const Key> keys, Out out) const -> void {
  std::array<Placement, kBatchGroup> group;
  // Bound: keys.size() / kBatchGroup + 1 groups of at most kBatchGroup keys.
  for (std::size_t start = 0; start < keys.size(); start += kBatchGroup) {
    const std::size_t count = std::min(kBatchGroup, keys.size() - start);
    for (std::size_t k = 0; k < count; ++k) group[k] = prefetched(hash_of(keys[start + k]));
    for (std::size_t k = 0; k < count; ++k) {
      out[static_cast<std::ptrdiff_t>(start + k)] = holds_fingerprint(group[k]);
    }
  }
}

CUCKOO_FILTER_TEMPLATE
inline auto CUCKOO_FILTER::require_result_room(std::size_t inputs, std::size_t results) -> void {
  if (results < inputs) {
    throw std::invalid_argument("contains_many: results has " + std::to_string(results) +
                                " entries, fewer than the " + std::to_string(inputs) +
                                " keys");
  }
}

CUCKOO_FILTER_TEMPLATE
inline auto CUCKOO_FILTER::stash_find(const Placement& p) const noexcept -> unsigned {
  for (unsigned k = 0; k < stash_size_; ++k) {  // bound: kStashSlots
    const Placement& e = stash_[k];
    if (e.fingerprint == p.fingerprint && (e.bucket1 == p.bucket1 || e.bucket1 == p.bucket2)) {
      return k;
    }
  }
  return kNotInStash;
}

CUCKOO_FILTER_TEMPLATE
inline auto CUCKOO_FILTER::count_copies(const Placement& p) const noexcept -> unsigned {
  unsigned n = table_.count(p.bucket1, p.fingerprint);
  if (p.bucket2 != p.bucket1) n += table_.count(p.bucket2, p.fingerprint);
  for (const Placement& e : stash()) {
    n += e.fingerprint == p.fingerprint && (e.bucket1 == p.bucket1 || e.bucket1 == p.bucket2)
             ? 1U
             : 0U;
  }
  return n;
}

CUCKOO_FILTER_TEMPLATE
inline auto CUCKOO_FILTER::stash_remove(unsigned k) noexcept -> void {
  assert(k < stash_size_);
  for (unsigned j = k + 1; j < stash_size_; ++j) stash_[j - 1] = stash_[j];
  --stash_size_;
  stash_[stash_size_] = {};
}
}  // namespace cuckoo
