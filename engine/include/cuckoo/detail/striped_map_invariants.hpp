// StripedMapWithFault's checks (out-of-line members, included at the end of
// detail/striped_map.hpp): validated(), run by the constructor before it allocates, and
// check_invariants(), the verification suite's check of (I1) and of the slot words
// under every stripe. Both only read the map.
#pragma once

#ifndef CUCKOO_STRIPED_MAP
#error "striped_map_invariants.hpp holds out-of-line members of StripedMapWithFault: include detail/striped_map.hpp"
#endif

namespace cuckoo {
namespace detail {

CUCKOO_STRIPED_MAP_TEMPLATE
std::string CUCKOO_STRIPED_MAP::check_invariants() const {
  const MapStripeGuard all(stripes_, kAllStripes);
  const Table& t = live_table();
  std::size_t items = 0;
  for (std::size_t pos = 0; pos < t.slots.size(); ++pos) {
    const std::uint64_t word = t.words[pos].load(std::memory_order_relaxed);
    if (!t.slots[pos].has_value()) {
      if (word != kEmptySlotWord) return "empty slot " + std::to_string(pos) + " has a word";
      continue;
    }
    ++items;
    const MapBucketPair pair = map_buckets(hash_key(t.slots[pos]->first), t.bucket_count);
    const auto bucket = static_cast<std::uint32_t>(pos / SlotsPerBucket);
    if (bucket != pair.first && bucket != pair.second) {
      return "the key at slot " + std::to_string(pos) + " is in bucket " +
             std::to_string(bucket) + ", its candidate buckets are " +
             std::to_string(pair.first) + " and " + std::to_string(pair.second);
    }
    if (word != pack_buckets(pair)) {
      return "the word of slot " + std::to_string(pos) + " does not name its key's buckets";
    }
    const std::size_t found = position_in(t, pair, t.slots[pos]->first);
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

CUCKOO_STRIPED_MAP_TEMPLATE
CuckooMapConfig CUCKOO_STRIPED_MAP::validated(CuckooMapConfig config) {
  const auto fail = [](const char* field, const std::string& message) {
    throw ConfigError(field, message);
  };
  const std::string b = std::to_string(SlotsPerBucket);
  if (config.initial_capacity == 0) fail("initial_capacity", "is 0, must be >= 1");
  if (config.max_capacity < SlotsPerBucket) {
    fail("max_capacity", "is " + std::to_string(config.max_capacity) +
                             ", must hold at least one bucket of " + b + " slots");
  }
  if (config.max_capacity > kMaxCapacity) {
    fail("max_capacity", "is " + std::to_string(config.max_capacity) +
                             ", must be at most kMaxCapacity = " +
                             std::to_string(kMaxCapacity) + " slots");
  }
  if (config.max_capacity > std::vector<Slot>().max_size()) {
    fail("max_capacity", "is " + std::to_string(config.max_capacity) +
                             " slots, more bytes than can be allocated");
  }
  if (config.initial_capacity > config.max_capacity) {
    fail("initial_capacity", "is " + std::to_string(config.initial_capacity) +
                                 ", exceeds max_capacity " +
                                 std::to_string(config.max_capacity));
  }
  if (initial_bucket_count(config) > config.max_capacity / SlotsPerBucket) {
    fail("initial_capacity", "is " + std::to_string(config.initial_capacity) +
                                 ", rounded up to whole " + b +
                                 "-slot buckets it exceeds max_capacity " +
                                 std::to_string(config.max_capacity));
  }
  if (config.max_path_length == 0 || config.max_path_length > kMapMaxPathLength) {
    fail("max_path_length", "is " + std::to_string(config.max_path_length) +
                                ", must be in 1.." + std::to_string(kMapMaxPathLength));
  }
  if (!config.seed.has_value()) config.seed = random_seed();
  return config;
}

}  // namespace detail
}  // namespace cuckoo
