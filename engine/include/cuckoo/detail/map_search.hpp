// The exact maps' use of the engine's one cuckoo path search (detail/path_search.hpp):
// their bounds, and the names CuckooMap and the striped map use for it.
//
// Bounds: the path length (items displaced) is at most the caller's max_length <=
// kMapMaxPathLength; at most min(kMapMaxBfsNodes, bucket count) nodes are generated per
// search.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "path_search.hpp"

namespace cuckoo::detail {

// The largest max_path_length a CuckooMap accepts (libcuckoo's MAX_BFS_PATH_LEN is 5).
inline constexpr unsigned kMapMaxPathLength = 8;
// Nodes (distinct buckets) generated per search, at most. 2 * (1 + 4 + ... + 4^5) = 2730
// covers the whole tree for the default b = 4 and path length 5; larger b or longer
// paths are cut here.
inline constexpr std::size_t kMapMaxBfsNodes = 4096;

using MapSlotRef = BucketSlot;
using MapCuckooPath = BucketPath<kMapMaxPathLength>;

// The search with the maps' node bound. The adapters (the live table, the striped
// table's slot words, the dry-run placement of a rebuild) are the maps' own.
template <unsigned SlotsPerBucket>
class MapPathSearch : public BucketPathSearch<kMapMaxPathLength> {
  static_assert(SlotsPerBucket >= 1 && SlotsPerBucket <= 255, "slot index must fit a byte");
  static_assert(kMapMaxBfsNodes < 0xffffffffU, "node index must fit 32 bits");
  using Base = BucketPathSearch<kMapMaxPathLength>;

 public:
  // Searches for a path that frees a slot in `first` or `second`, displacing at most
  // max_length items (see BucketPathSearch::find_path).
  // REQUIRES: 1 <= max_length <= kMapMaxPathLength; first, second < table.bucket_count().
  template <PathSearchTable Table>
  bool find_path(const Table& table, std::uint32_t first, std::uint32_t second,
                 unsigned max_length, MapCuckooPath& out) {
    const std::size_t max_nodes = std::min<std::size_t>(kMapMaxBfsNodes, table.bucket_count());
    return Base::find_path(table, first, second, max_length, max_nodes, out);
  }
};

}  // namespace cuckoo::detail
