// CuckooMap internals: the bounded breadth-first search for a cuckoo path.
//
// When both candidate buckets of a new key are full, some resident item of one of them
// may move to its other bucket, or make room there by moving another item, and so on.
// The search runs breadth first from the two candidate buckets over the bucket graph
// (as libcuckoo's cuckoopath_search does, plus a visited set): a node is a bucket, its
// children are the other buckets of the items it holds. A bucket is expanded at most
// once: the items and free slots below a bucket do not depend on how it was reached, so
// its first (shallowest) visit is the only one that can end a shortest path. The first
// node found with an empty slot ends a shortest path, and since the nodes are distinct
// buckets its slots are distinct too, so moving the items from the end of the path
// backwards is always valid.
//
// Bounds: the path length (items displaced) is at most the caller's max_length <=
// kMapMaxPathLength; at most min(kMapMaxBfsNodes, bucket count) nodes are generated per
// search; the visited set has at least twice that many entries, so its linear probing
// always ends at a free entry.
//
// The search is generic over a table adapter so that the live map and the dry-run
// placement of a rebuild share it. An adapter provides:
//     std::uint32_t bucket_count() const;
//     bool occupied(std::uint32_t bucket, unsigned slot) const;
//     std::uint32_t alt_bucket(std::uint32_t bucket, unsigned slot) const;
//         // the other candidate bucket of the item in that (occupied) slot
//     void move_item(MapSlotRef from, MapSlotRef to);
//         // REQUIRES: from occupied, to empty, to.bucket a candidate of the item
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cassert>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "../hash.hpp"

namespace cuckoo::detail {

// The largest max_path_length a CuckooMap accepts (libcuckoo's MAX_BFS_PATH_LEN is 5).
inline constexpr unsigned kMapMaxPathLength = 8;
// Nodes (distinct buckets) generated per search, at most. 2 * (1 + 4 + ... + 4^5) = 2730
// covers the whole tree for the default b = 4 and path length 5; larger b or longer
// paths are cut here.
inline constexpr std::size_t kMapMaxBfsNodes = 4096;

struct MapSlotRef {
  std::uint32_t bucket;
  std::uint32_t slot;

  friend constexpr bool operator==(const MapSlotRef&, const MapSlotRef&) = default;
};

// hops[0..length]: the item in hops[k] moves to hops[k + 1] (k < length); hops[length] is
// empty now; once every move is done, hops[0] is empty and takes the new item.
struct MapCuckooPath {
  std::array<MapSlotRef, kMapMaxPathLength + 1> hops{};
  unsigned length = 0;
};

template <class T>
concept MapSearchTable = requires(T& table, const T& const_table, std::uint32_t bucket,
                                  unsigned slot, MapSlotRef ref) {
  { const_table.bucket_count() } -> std::same_as<std::uint32_t>;
  { const_table.occupied(bucket, slot) } -> std::same_as<bool>;
  { const_table.alt_bucket(bucket, slot) } -> std::same_as<std::uint32_t>;
  table.move_item(ref, ref);
};

template <unsigned SlotsPerBucket>
class MapPathSearch {
  static_assert(SlotsPerBucket >= 1 && SlotsPerBucket <= 255, "slot index must fit a byte");
  static_assert(kMapMaxPathLength < 255, "depth must fit a byte");
  static_assert(kMapMaxBfsNodes < 0xffffffffU, "node index must fit 32 bits");

 public:
  MapPathSearch() = default;
  // The buffers are scratch space: copies start with their own empty buffers.
  MapPathSearch(const MapPathSearch&) noexcept {}
  MapPathSearch& operator=(const MapPathSearch&) noexcept { return *this; }
  ~MapPathSearch() = default;

  // Searches for a path that frees a slot in `first` or `second`, displacing at most
  // max_length items. Returns true and fills `out` if one was found; changes nothing in
  // the table either way. May grow the scratch buffers (std::bad_alloc leaves the
  // search object usable).
  // REQUIRES: 1 <= max_length <= kMapMaxPathLength; first, second < table.bucket_count().
  template <MapSearchTable Table>
  bool find_path(const Table& table, std::uint32_t first, std::uint32_t second,
                 unsigned max_length, MapCuckooPath& out) {
    assert(max_length >= 1 && max_length <= kMapMaxPathLength);
    const std::size_t max_nodes =
        std::min<std::size_t>(kMapMaxBfsNodes, table.bucket_count());
    start_search(max_nodes);
    std::uint32_t found = kNone;
    unsigned free_slot = 0;
    // A node is checked for a free slot when it is generated; nodes are generated in
    // order of depth, so the first hit ends a shortest path.
    const auto push = [&](std::uint32_t bucket, std::uint32_t parent, unsigned parent_slot,
                          unsigned depth) {
      nodes_.push_back(Node{bucket, parent, static_cast<std::uint8_t>(parent_slot),
                            static_cast<std::uint8_t>(depth)});
      for (unsigned s = 0; s < SlotsPerBucket; ++s) {
        if (!table.occupied(bucket, s)) {
          found = static_cast<std::uint32_t>(nodes_.size() - 1);
          free_slot = s;
          return true;
        }
      }
      return false;
    };
    bool done = false;
    if (first_visit(first)) done = push(first, kNone, 0, 0);
    if (!done && first_visit(second)) done = push(second, kNone, 0, 0);
    // Bounded: head < nodes_.size() <= max_nodes <= kMapMaxBfsNodes.
    for (std::size_t head = 0; !done && head < nodes_.size(); ++head) {
      const Node node = nodes_[head];
      if (node.depth >= max_length) continue;
      for (unsigned s = 0; s < SlotsPerBucket && !done; ++s) {
        if (nodes_.size() >= max_nodes) break;
        const std::uint32_t child = table.alt_bucket(node.bucket, s);
        if (!first_visit(child)) continue;  // includes items whose two buckets coincide
        done = push(child, static_cast<std::uint32_t>(head), s, node.depth + 1U);
      }
    }
    if (!done) return false;

    const unsigned length = nodes_[found].depth;
    out.length = length;
    out.hops[length] = MapSlotRef{nodes_[found].bucket, free_slot};
    std::uint32_t index = found;
    for (unsigned k = length; k > 0; --k) {  // bounded by length <= max_length
      const Node& node = nodes_[index];
      out.hops[k - 1] = MapSlotRef{nodes_[node.parent].bucket, node.parent_slot};
      index = node.parent;
    }
    assert(hops_are_distinct(out));
    return true;
  }

  // Moves the items along path from its end backwards, so that each item is put in its
  // other candidate bucket before its old slot is reused; afterwards path.hops[0] is
  // empty.
  template <MapSearchTable Table>
  static void apply(Table& table, const MapCuckooPath& path) {
    for (unsigned k = path.length; k > 0; --k) table.move_item(path.hops[k - 1], path.hops[k]);
  }

 private:
  static constexpr std::uint32_t kNone = 0xffffffffU;

  struct Node {
    std::uint32_t bucket;
    std::uint32_t parent;  // index into nodes_, kNone for the two roots
    std::uint8_t parent_slot;
    std::uint8_t depth;
  };

  // Prepares the buffers for a search of at most max_nodes nodes. The visited set is an
  // open-addressing table of (generation << 32 | bucket) entries; entries of older
  // generations count as free, so it needs no clearing between searches.
  void start_search(std::size_t max_nodes) {
    nodes_.clear();
    nodes_.reserve(max_nodes);
    const std::size_t wanted = std::bit_ceil(2 * max_nodes);
    if (visited_.size() < wanted) {
      visited_.assign(wanted, 0);
      generation_ = 0;
    }
    if (++generation_ == 0) {  // wrapped: stale entries could look current
      std::fill(visited_.begin(), visited_.end(), 0);
      generation_ = 1;
    }
  }

  // Marks bucket visited in this search; returns whether it was not visited before.
  bool first_visit(std::uint32_t bucket) {
    const std::uint64_t stamp = (std::uint64_t{generation_} << 32) | bucket;
    const std::size_t mask = visited_.size() - 1;
    std::size_t i = static_cast<std::size_t>(mix64(bucket)) & mask;
    // Bounded: at most max_nodes + 2 entries are current, under half of the table, so a
    // free entry comes before the probe wraps around.
    for (std::size_t probe = 0; probe < visited_.size(); ++probe) {
      std::uint64_t& entry = visited_[i];
      if (entry == stamp) return false;
      if ((entry >> 32) != generation_) {
        entry = stamp;
        return true;
      }
      i = (i + 1) & mask;
    }
    return false;
  }

  static bool hops_are_distinct(const MapCuckooPath& path) {
    for (unsigned i = 0; i <= path.length; ++i) {
      for (unsigned j = i + 1; j <= path.length; ++j) {
        if (path.hops[i].bucket == path.hops[j].bucket) return false;
      }
    }
    return true;
  }

  std::vector<Node> nodes_;
  std::vector<std::uint64_t> visited_;
  std::uint32_t generation_ = 0;
};

}  // namespace cuckoo::detail
