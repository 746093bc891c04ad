// Cuckoo path search of the striped concurrent filter (internal): the engine's one path
// search (detail/path_search.hpp, breadth first with a visited set) run WITHOUT locks
// over racy (atomic, acquire) reads of the table, and the path in the form the filter
// executes.
//
// A path is hops h[0], h[1], ..., h[L-1] and a destination bucket D:
//   h[0].bucket is bucket1 or bucket2 of the item being inserted;
//   h[k].fingerprint is the fingerprint seen in slot h[k].slot of h[k].bucket;
//   h[k+1].bucket = alt_bucket(h[k].bucket, h[k].fingerprint), and
//   D = alt_bucket(h[L-1].bucket, h[L-1].fingerprint) had an empty slot.
// The filter executes it from the end (h[L-1] into D first, h[0] last), each hop under
// the locks of the two buckets it touches, re-checking what the snapshot saw; see
// striped_filter.hpp. A path of length 0 means a candidate bucket itself had an empty
// slot when the search looked. The search adapter reports the fingerprint it read for
// each expanded slot in the same read it derives the child bucket from, so the two
// facts of a hop always agree.
//
// Why BFS rather than the single-threaded filter's random walk: a random walk moves
// fingerprints as it searches, which under concurrency would need the locks of every
// bucket it passes; BFS only reads (see path_search.hpp).
//
// Bounds: at most `max_buckets` buckets are generated (the filter passes
// min(max_kicks, kMaxSearchBuckets)), and a path has at most kMaxPathLength hops.
// Memory: the calling thread's search buffers (thread_local, reused): one node per
// bucket generated (16 bytes) and a visited set of 8-byte entries, at least twice as
// many; the returned path is allocated per search (the slow path of an insert into a
// nearly full table).
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
#include "cuckoo/detail/path_search.hpp"

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

// The search adapter over the atomic table: a slot is occupied when its fingerprint is
// not 0; an item's other bucket is alt_bucket(bucket, fingerprint), the fingerprint read
// once and reported as the hop's label. A slot emptied since the search saw it occupied
// answers its own bucket, which the search skips as visited.
template <class Table = AtomicBucketTable>
struct FilterPathView {
  const Table& table;
  const FilterHashRule& rule;

  std::uint32_t bucket_count() const noexcept { return rule.bucket_count(); }
  unsigned slots() const noexcept { return table.slots(); }
  bool occupied(std::uint32_t bucket, unsigned slot) const noexcept {
    return table.get(bucket, slot) != 0;
  }
  std::uint32_t alt_bucket(std::uint32_t bucket, unsigned slot,
                           std::uint32_t& fingerprint) const noexcept {
    fingerprint = table.get(bucket, slot);
    return fingerprint == 0 ? bucket : rule.alt_bucket(bucket, fingerprint);
  }
};

// Returns the shortest path found within the bounds, or nullopt if there is none.
// REQUIRES: max_buckets >= 1.
template <class Table>
std::optional<CuckooPath> find_cuckoo_path(const Table& table, const FilterHashRule& rule,
                                           const CuckooFilterPlacement& p, unsigned max_buckets) {
  // One search object per thread (of the table's sync policy): its buffers are reused
  // across searches.
  auto& search =
      Table::SyncPolicy::template thread_local_object<BucketPathSearch<kMaxPathLength>>();
  BucketPath<kMaxPathLength> found;
  if (!search.find_path(FilterPathView<Table>{table, rule}, p.bucket1, p.bucket2,
                        static_cast<unsigned>(kMaxPathLength), max_buckets, found)) {
    return std::nullopt;
  }
  CuckooPath path;
  path.destination = found.hops[found.length].bucket;
  path.hops.resize(found.length);
  for (unsigned k = 0; k < found.length; ++k) {  // bound: kMaxPathLength hops
    path.hops[k] = {found.hops[k].bucket, found.hops[k].slot, found.labels[k]};
  }
  return path;
}

}  // namespace cuckoo::detail
