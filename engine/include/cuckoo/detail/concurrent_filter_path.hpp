// Cuckoo path search of the striped concurrent filter (internal): a breadth-first
// search for a chain of moves that frees a slot in one of an item's two buckets, run
// WITHOUT locks over racy (atomic, acquire) reads of the table.
//
// A path is hops h[0], h[1], ..., h[L-1] and a destination bucket D:
//   h[0].bucket is bucket1 or bucket2 of the item being inserted;
//   h[k].fingerprint is the fingerprint seen in slot h[k].slot of h[k].bucket;
//   h[k+1].bucket = alt_bucket(h[k].bucket, h[k].fingerprint), and
//   D = alt_bucket(h[L-1].bucket, h[L-1].fingerprint) had an empty slot.
// The filter executes it from the end (h[L-1] into D first, h[0] last), each hop under
// the locks of the two buckets it touches, re-checking what the snapshot saw; see
// striped_filter.hpp. A path of length 0 means a candidate bucket itself had an empty
// slot when the search looked.
//
// Why BFS rather than the single-threaded filter's random walk: a random walk moves
// fingerprints as it searches, which under concurrency would need the locks of every
// bucket it passes; BFS only reads, finds the shortest path (fewest hops to lock and
// validate, libcuckoo's argument), and its result can be executed backwards so that
// every intermediate state keeps every item in one of its two buckets.
//
// Bounds: at most `max_buckets` buckets are examined (the filter passes
// min(max_kicks, kMaxSearchBuckets)), and a path has at most kMaxPathLength hops.
// Memory: one node per bucket examined (12 bytes), allocated per search; the search is
// the slow path of an insert into a nearly full table.
//
// Thread safety: reads the table only; safe concurrently with anything.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "cuckoo/cuckoo_filter.hpp"
#include "cuckoo/detail/concurrent_filter_table.hpp"

namespace cuckoo::detail {

struct PathHop {
  std::uint32_t bucket = 0;
  unsigned slot = 0;
  std::uint32_t fingerprint = 0;
  friend bool operator==(const PathHop&, const PathHop&) = default;
};

struct CuckooPath {
  std::vector<PathHop> hops;     // h[0] .. h[L-1]; empty: a candidate bucket had room
  std::uint32_t destination = 0;  // the bucket with an empty slot (a candidate if L == 0)

  // The bucket hop k moves its fingerprint into. REQUIRES: k < hops.size().
  std::uint32_t target_of(std::size_t k) const noexcept {
    return k + 1 < hops.size() ? hops[k + 1].bucket : destination;
  }
};

// The most hops of a path. BFS paths are short (about log_b of the buckets examined);
// this only matters for b = 1, where the search is a chain.
inline constexpr std::size_t kMaxPathLength = 32;
// The most buckets one search examines, whatever max_kicks says.
inline constexpr unsigned kMaxSearchBuckets = 4096;

// Returns the shortest path found within the bounds, or nullopt if there is none.
// REQUIRES: max_buckets >= 1.
inline std::optional<CuckooPath> find_cuckoo_path(const AtomicBucketTable& table,
                                                  const FilterHashRule& rule,
                                                  const CuckooFilterPlacement& p,
                                                  unsigned max_buckets) {
  struct Node {
    std::uint32_t bucket;
    std::int32_t parent;       // index of the node whose slot `slot` moves here; -1: root
    std::uint8_t slot;         // slot of the parent's bucket
    std::uint8_t depth;        // hops from a root
    std::uint32_t fingerprint;  // the parent slot's fingerprint, moving here
  };
  static_assert(kMaxPathLength < 256, "depth fits in a byte");
  std::vector<Node> nodes;
  nodes.reserve(std::min<unsigned>(max_buckets, 64));
  nodes.push_back({p.bucket1, -1, 0, 0, 0});
  if (p.bucket2 != p.bucket1) nodes.push_back({p.bucket2, -1, 0, 0, 0});

  const unsigned slots = table.slots();
  // Bound: each iteration examines one node; nodes.size() <= max_buckets (pushes stop
  // there), so at most max_buckets iterations.
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const Node node = nodes[i];
    std::uint32_t seen[8];  // the bucket's slots, read once (slots <= 8)
    int empty = -1;
    for (unsigned s = 0; s < slots; ++s) {  // bound: slots <= 8
      seen[s] = table.get(node.bucket, s);
      if (seen[s] == 0 && empty < 0) empty = static_cast<int>(s);
    }
    if (empty >= 0) {
      CuckooPath path;
      path.destination = node.bucket;
      path.hops.resize(node.depth);
      // Walk back to the root; bound: depth <= kMaxPathLength.
      for (std::size_t at = i; nodes[at].parent >= 0;) {
        const Node& n = nodes[at];
        const auto parent = static_cast<std::size_t>(n.parent);
        path.hops[n.depth - 1U] = {nodes[parent].bucket, n.slot, n.fingerprint};
        at = parent;
      }
      return path;
    }
    if (node.depth >= kMaxPathLength) continue;
    for (unsigned s = 0; s < slots && nodes.size() < max_buckets; ++s) {  // bound: slots
      const std::uint32_t child = rule.alt_bucket(node.bucket, seen[s]);
      if (child == node.bucket) continue;  // the fingerprint's two buckets coincide
      nodes.push_back({child, static_cast<std::int32_t>(i), static_cast<std::uint8_t>(s),
                       static_cast<std::uint8_t>(node.depth + 1), seen[s]});
    }
  }
  return std::nullopt;
}

}  // namespace cuckoo::detail
