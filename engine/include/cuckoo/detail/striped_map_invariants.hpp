// StripedMapWithFault's invariant check (an out-of-line member, included at the end of
// detail/striped_map.hpp): check_invariants(), the verification suite's check of (I1)
// and of the slot words under every stripe. It only reads the map. The configuration
// rule the constructor runs before it allocates is detail/map_config.hpp's.
#pragma once

#ifndef CUCKOO_STRIPED_MAP
#error "striped_map_invariants.hpp holds out-of-line members of StripedMapWithFault: include detail/striped_map.hpp"
#endif

namespace cuckoo {
namespace detail {

CUCKOO_STRIPED_MAP_TEMPLATE
std::string CUCKOO_STRIPED_MAP::check_invariants() const {
  check_not_locked_by_this_thread();
  const Guard all(stripes_, kAllStripes);
  const Table& t = live_table();
  std::size_t items = 0;
  for (std::size_t pos = 0; pos < t.slot_count(); ++pos) {
    const std::uint64_t word = t.word(pos).load(std::memory_order_relaxed);
    if (!t.occupied(pos)) {
      if (word != kEmptySlotWord) return "empty slot " + std::to_string(pos) + " has a word";
      continue;
    }
    ++items;
    const MapBucketPair pair = map_buckets(hash_key(t.key(pos)), t.bucket_count);
    const auto bucket = static_cast<std::uint32_t>(pos / SlotsPerBucket);
    if (bucket != pair.first && bucket != pair.second) {
      return "the key at slot " + std::to_string(pos) + " is in bucket " +
             std::to_string(bucket) + ", its candidate buckets are " +
             std::to_string(pair.first) + " and " + std::to_string(pair.second);
    }
    if (word != pack_buckets(pair)) {
      return "the word of slot " + std::to_string(pos) + " does not name its key's buckets";
    }
    const std::size_t found = position_in(t, pair, t.key(pos));
    if (found != pos) {
      return "the key at slot " + std::to_string(pos) + " is also stored at slot " +
             std::to_string(found);
    }
  }
  if (items != size()) {
    return std::to_string(items) + " slots hold items, size() is " + std::to_string(size());
  }
  return {};
}

}  // namespace detail
}  // namespace cuckoo
