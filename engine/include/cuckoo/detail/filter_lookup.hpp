// CuckooFilter's lookup helpers (out-of-line members of BasicCuckooFilter,
// cuckoo/cuckoo_filter.hpp, included at its end): the batched lookup behind
// contains_many() and contains_many_hash(), and the stash scans (find, count, remove).
// The per-key probe itself (holds_fingerprint) stays in the class body, where the hot
// path reads it.
#pragma once

#ifndef CUCKOO_FILTER
#error "filter_lookup.hpp holds out-of-line members of BasicCuckooFilter: include cuckoo/cuckoo_filter.hpp"
#endif

namespace cuckoo {

CUCKOO_FILTER_TEMPLATE
template <class HashAt, class Out>
inline auto CUCKOO_FILTER::contains_many_by(std::size_t n, HashAt hash_at, Out out) const -> void {
  // One dispatch per batch: a compiled shape's pipeline (shape_ names one only while the
  // stash is empty), or the runtime one-word one, or groups.
  const bool pipelined = detail::visit_filter_shape(
      shape_,
      [&](auto shape) {
        using Shape = decltype(shape);
        const detail::CompiledLookup<Shape> lookup{typename Shape::Probe{table_.data().data()},
                                                   table_.bucket_count()};
        contains_many_pipelined(n, hash_at, out, lookup);
        return true;
      },
      [&] {
        if (!table_.one_word() || stash_size_ != 0) return false;
        const detail::RuntimeOneWordLookup<decltype(table_.one_word_probe())> lookup{
            table_.one_word_probe(), rule_};
        contains_many_pipelined(n, hash_at, out, lookup);
        return true;
      });
  if (!pipelined) {
    // Groups: hash and prefetch kBatchGroup keys, then probe them with holds_fingerprint.
    std::array<Placement, kBatchGroup> group;
    // Bound: n / kBatchGroup + 1 groups of at most kBatchGroup keys.
    for (std::size_t start = 0; start < n; start += kBatchGroup) {
      const std::size_t count = std::min(kBatchGroup, n - start);
      for (std::size_t k = 0; k < count; ++k) group[k] = prefetched(hash_at(start + k));
      for (std::size_t k = 0; k < count; ++k) {
        out[static_cast<std::ptrdiff_t>(start + k)] = holds_fingerprint(group[k]);
      }
    }
  }
}

CUCKOO_FILTER_TEMPLATE
template <class Lookup, class HashAt, class Out>
inline auto CUCKOO_FILTER::contains_many_pipelined(std::size_t n, HashAt& hash_at, Out out,
                                                   const Lookup& lookup) -> void {
  // The pipeline: key i + kBatchAhead is hashed, placed and its buckets prefetched while
  // key i, prefetched kBatchAhead keys earlier, is probed. The ring keeps each key's
  // bucket positions, computed once. With the stash empty, the buckets alone give the
  // answer (holds_fingerprint's, without its stash branch).
  static_assert(std::has_single_bit(kBatchAhead));
  struct InFlight {
    std::uint64_t pos1;
    std::uint64_t pos2;
    std::uint32_t fingerprint;
  };
  const auto start = [&](std::uint64_t h) {
    const Placement p = lookup.placement(h);
    const InFlight f{lookup.position(p.bucket1), lookup.position(p.bucket2), p.fingerprint};
    lookup.prefetch(f.pos1);
    lookup.prefetch(f.pos2);
    return f;
  };
  const auto answer = [&](const InFlight& f) {
    // Combined as integers: clang warns on | between bools.
    return (static_cast<unsigned>(lookup.holds(f.pos1, f.fingerprint)) |
            static_cast<unsigned>(lookup.holds(f.pos2, f.fingerprint))) != 0;
  };
  std::array<InFlight, kBatchAhead> ring;
  constexpr std::size_t kMask = kBatchAhead - 1;
  const std::size_t lead = std::min(n, kBatchAhead);
  for (std::size_t i = 0; i < lead; ++i) ring[i] = start(hash_at(i));
  std::size_t i = 0;
  // Bound: n - kBatchAhead iterations, then at most kBatchAhead in the tail.
  for (; i + kBatchAhead < n; ++i) {
    const InFlight f = ring[i & kMask];
    ring[i & kMask] = start(hash_at(i + kBatchAhead));
    out[static_cast<std::ptrdiff_t>(i)] = answer(f);
  }
  for (; i < n; ++i) out[static_cast<std::ptrdiff_t>(i)] = answer(ring[i & kMask]);
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
  stash_changed();
}
}  // namespace cuckoo
