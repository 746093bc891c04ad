// The bounded breadth-first search for a cuckoo path (internal): the one path search of
// the engine, used by CuckooMap (insert and the dry-run placement of a rebuild), the
// striped map (its optimistic and exclusive inserts) and the striped filter.
//
// When both candidate buckets of a new item are full, some resident item of one of them
// may move to its other bucket, or make room there by moving another item, and so on.
// The search runs breadth first from the two candidate buckets over the bucket graph
// (as libcuckoo's cuckoopath_search does, plus a visited set): a node is a bucket, its
// children are the other buckets of the items it holds. A bucket is expanded at most
// once: the items and free slots below a bucket do not depend on how it was reached, so
// its first (shallowest) visit is the only one that can end a shortest path. The first
// node found with an empty slot ends a shortest path, and since the nodes are distinct
// buckets its slots are distinct too, so moving the items from the end of the path
// backwards is always valid. Why BFS rather than a random walk: it only reads (a walk
// moves items as it searches, which under concurrency needs the locks of every bucket
// it passes), it finds the shortest path (fewest hops to move, lock and validate), and
// its result is executed backwards so that every intermediate state keeps every item in
// one of its two buckets.
//
// Bounds: the path length (items displaced) is at most the caller's max_length <=
// MaxPathLength; at most the caller's max_nodes nodes are generated per search; the
// visited set has at least twice that many entries, so its linear probing always ends
// at a free entry.
//
// The search is generic over a table adapter. An adapter provides:
//     std::uint32_t bucket_count() const;
//     unsigned slots() const;                       // slots per bucket, 1..255
//     bool occupied(std::uint32_t bucket, unsigned slot) const;
//     std::uint32_t alt_bucket(std::uint32_t bucket, unsigned slot) const;
//         // the other candidate bucket of the item in that (occupied) slot
//   or instead of that alt_bucket, one that also reports what the adapter read:
//     std::uint32_t alt_bucket(std::uint32_t bucket, unsigned slot, std::uint32_t& label) const;
//         // label is kept in the path (the striped filter: the fingerprint it saw, which
//         // it validates under the locks before moving)
//   optionally, a hint that the search will read a bucket (its occupancy and items):
//     void prefetch(std::uint32_t bucket) const;
//         // then a node's children are all computed and prefetched before the first is
//         // checked (buckets of at most kPrefetchedSlots slots): the same nodes in the same
//         // order, with their lines read in parallel
//   and, for apply() only:
//     void move_item(BucketSlot from, BucketSlot to);
//         // REQUIRES: from occupied, to empty, to.bucket a candidate of the item
// An adapter over a table other threads change (read without locks) answers from racy
// reads: its alt_bucket returns `bucket` itself for a slot found empty, which the search
// skips as visited, and its caller validates every hop under locks before moving.
//
// Thread safety: a search object is scratch space for one thread at a time (the
// concurrent engines keep one per thread); the search only reads the table.
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

struct BucketSlot {
  std::uint32_t bucket;
  std::uint32_t slot;

  friend constexpr bool operator==(const BucketSlot&, const BucketSlot&) = default;
};

// hops[0..length]: the item in hops[k] moves to hops[k + 1] (k < length); hops[length] is
// empty now; once every move is done, hops[0] is empty and takes the new item.
// labels[k] is what the adapter reported for the item in hops[k] (0 if nothing).
template <std::size_t MaxPathLength>
struct BucketPath {
  std::array<BucketSlot, MaxPathLength + 1> hops{};
  std::array<std::uint32_t, MaxPathLength> labels{};
  unsigned length = 0;
};

template <class T>
concept PathSearchTable = requires(const T& table, std::uint32_t bucket, unsigned slot) {
  { table.bucket_count() } -> std::same_as<std::uint32_t>;
  { table.slots() } -> std::same_as<unsigned>;
  { table.occupied(bucket, slot) } -> std::same_as<bool>;
};

template <std::size_t MaxPathLength>
class BucketPathSearch {
  static_assert(MaxPathLength >= 1 && MaxPathLength < 255, "depth must fit a byte");

 public:
  using Path = BucketPath<MaxPathLength>;

  BucketPathSearch() = default;
  // The buffers are scratch space: copies start with their own empty buffers.
  BucketPathSearch(const BucketPathSearch&) noexcept {}
  BucketPathSearch& operator=(const BucketPathSearch&) noexcept { return *this; }
  ~BucketPathSearch() = default;

  // Searches for a path that frees a slot in `first` or `second`, displacing at most
  // max_length items and generating at most max_nodes nodes (distinct buckets). Returns
  // true and fills `out` if one was found; changes nothing in the table either way. May
  // grow the scratch buffers (std::bad_alloc leaves the search object usable).
  // REQUIRES: 1 <= max_length <= MaxPathLength; max_nodes >= 1; first, second <
  // table.bucket_count(); table.slots() in 1..255.
  template <PathSearchTable Table>
  bool find_path(const Table& table, std::uint32_t first, std::uint32_t second,
                 unsigned max_length, std::size_t max_nodes, Path& out) {
    assert(max_length >= 1 && max_length <= MaxPathLength);
    assert(max_nodes >= 1);
    const unsigned slots = table.slots();
    assert(slots >= 1 && slots <= 255);
    start_search(max_nodes);
    std::uint32_t found = kNone;
    unsigned free_slot = 0;
    // A node is checked for a free slot when it is generated; nodes are generated in
    // order of depth, so the first hit ends a shortest path.
    const auto push = [&](std::uint32_t bucket, std::uint32_t parent, unsigned parent_slot,
                          unsigned depth, std::uint32_t label) {
      nodes_.push_back(Node{bucket, parent, label, static_cast<std::uint8_t>(parent_slot),
                            static_cast<std::uint8_t>(depth)});
      for (unsigned s = 0; s < slots; ++s) {  // bound: slots <= 255
        if (!table.occupied(bucket, s)) {
          found = static_cast<std::uint32_t>(nodes_.size() - 1);
          free_slot = s;
          return true;
        }
      }
      return false;
    };
    bool done = false;
    if (first_visit(first)) done = push(first, kNone, 0, 0, 0);
    if (!done && first_visit(second)) done = push(second, kNone, 0, 0, 0);
    // An adapter that can prefetch a bucket (its tags and items) gets a node's children
    // computed first and all of them prefetched, then checked in order: their lines are
    // read in parallel, not one child after another. The same nodes, in the same order.
    constexpr bool kPrefetching = requires { table.prefetch(std::uint32_t{}); };
    const bool ahead = kPrefetching && slots <= kPrefetchedSlots;
    std::array<std::uint32_t, kPrefetchedSlots> children{};
    std::array<std::uint32_t, kPrefetchedSlots> labels{};
    // Bounded: head < nodes_.size() <= max_nodes.
    for (std::size_t head = 0; !done && head < nodes_.size(); ++head) {
      const Node node = nodes_[head];
      if (node.depth >= max_length) continue;
      if (ahead) {
        for (unsigned s = 0; s < slots; ++s) {  // bound: slots <= kPrefetchedSlots
          labels[s] = 0;
          children[s] = alt_bucket_of(table, node.bucket, s, labels[s]);
          if constexpr (kPrefetching) table.prefetch(children[s]);
        }
      }
      for (unsigned s = 0; s < slots && !done; ++s) {  // bound: slots <= 255
        if (nodes_.size() >= max_nodes) break;
        std::uint32_t label = ahead ? labels[s] : 0;
        const std::uint32_t child = ahead ? children[s] : alt_bucket_of(table, node.bucket, s, label);
        if (!first_visit(child)) continue;  // includes items whose two buckets coincide
        done = push(child, static_cast<std::uint32_t>(head), s, node.depth + 1U, label);
      }
    }
    if (!done) return false;

    const unsigned length = nodes_[found].depth;
    out.length = length;
    out.hops[length] = BucketSlot{nodes_[found].bucket, free_slot};
    std::uint32_t index = found;
    for (unsigned k = length; k > 0; --k) {  // bounded by length <= max_length
      const Node& node = nodes_[index];
      out.hops[k - 1] = BucketSlot{nodes_[node.parent].bucket, node.parent_slot};
      out.labels[k - 1] = node.label;
      index = node.parent;
    }
    assert(hops_are_distinct(out));
    return true;
  }

  // Moves the items along path from its end backwards, so that each item is put in its
  // other candidate bucket before its old slot is reused; afterwards path.hops[0] is
  // empty. For an adapter with move_item, used by one thread or under every lock.
  template <class Table>
  static void apply(Table& table, const Path& path) {
    for (unsigned k = path.length; k > 0; --k) table.move_item(path.hops[k - 1], path.hops[k]);
  }

 private:
  static constexpr std::uint32_t kNone = 0xffffffffU;
  // The most slots a bucket may have for the prefetching expansion (larger buckets are
  // expanded one child at a time).
  static constexpr unsigned kPrefetchedSlots = 16;

  struct Node {
    std::uint32_t bucket;
    std::uint32_t parent;  // index into nodes_, kNone for the two roots
    std::uint32_t label;   // the adapter's label of the parent slot's item, moving here
    std::uint8_t parent_slot;
    std::uint8_t depth;
  };

  template <class Table>
  static std::uint32_t alt_bucket_of(const Table& table, std::uint32_t bucket, unsigned slot,
                                     std::uint32_t& label) {
    if constexpr (requires { table.alt_bucket(bucket, slot, label); }) {
      return table.alt_bucket(bucket, slot, label);
    } else {
      return table.alt_bucket(bucket, slot);
    }
  }

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

  static bool hops_are_distinct(const Path& path) {
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
