// CuckooMap's invariant check (an out-of-line member of CuckooMap, cuckoo/cuckoo_map.hpp,
// included at its end): check_invariants(), the verification suite's check of the
// invariant in the design comment (every key in a candidate bucket or the stash, no key
// twice, counts matching the slots). It only reads. The configuration rule every
// constructor and deserialize() run before allocating is detail/map_config.hpp's.
#pragma once

#ifndef CUCKOO_MAP
#error "map_invariants.hpp holds out-of-line members of CuckooMap: include cuckoo/cuckoo_map.hpp"
#endif

namespace cuckoo {

CUCKOO_MAP_TEMPLATE
std::string CUCKOO_MAP::check_invariants() const {
  if (bucket_count_ == 0) {
    return slots_.empty() && size_ == 0 && stash_count_ == 0
               ? std::string()
               : std::string("a map without buckets holds slots or items");
  }
  if (slots_.size() != table_slots() + kStashSlots) {
    return "slot array has " + std::to_string(slots_.size()) + " slots, expected " +
           std::to_string(table_slots() + kStashSlots);
  }
  std::size_t items = 0;
  std::size_t stashed = 0;
  for (std::size_t pos = 0; pos < slots_.size(); ++pos) {
    if (!slots_.occupied(pos)) continue;
    ++items;
    const std::uint64_t hash = hash_key(slots_.item(pos).first);
    if (slots_.tag(pos) != detail::map_tag(hash)) {
      return "the key at slot " + std::to_string(pos) + " has tag " +
             std::to_string(slots_.tag(pos)) + ", its hash gives tag " +
             std::to_string(detail::map_tag(hash));
    }
    if (pos < table_slots()) {
      const auto bucket = static_cast<std::uint32_t>(pos / SlotsPerBucket);
      const detail::MapBucketPair pair = detail::map_buckets(hash, bucket_count_);
      if (bucket != pair.first && bucket != pair.second) {
        return "the key at slot " + std::to_string(pos) + " is in bucket " +
               std::to_string(bucket) + ", its candidate buckets are " +
               std::to_string(pair.first) + " and " + std::to_string(pair.second);
      }
    } else {
      ++stashed;
    }
  }
  if (std::string summaries = check_summaries(); !summaries.empty()) return summaries;
  if (items != size_) {
    return std::to_string(items) + " slots hold items, size() is " + std::to_string(size_);
  }
  if (stashed != stash_count_) {
    return std::to_string(stashed) + " stash slots hold items, the stash count is " +
           std::to_string(stash_count_);
  }
  for (std::size_t pos = 0; pos < slots_.size(); ++pos) {
    if (!slots_.occupied(pos)) continue;
    const std::size_t found = position_of(slots_.item(pos).first, hash_key(slots_.item(pos).first));
    if (found != pos) {
      return "the key at slot " + std::to_string(pos) +
             (found == kNoPosition ? std::string(" is not found by a lookup")
                                   : " is also stored at slot " + std::to_string(found));
    }
  }
  return {};
}

// The buckets' summaries of their displaced items (map_slots.hpp), recomputed from the
// items: every slot's displaced bit, and every bucket's count (exact below saturation)
// and filter (every displaced tag's bit; nothing when the count is 0).
CUCKOO_MAP_TEMPLATE
std::string CUCKOO_MAP::check_summaries() const {
  std::vector<std::uint32_t> counts(bucket_count_, 0);
  std::vector<std::uint8_t> filters(bucket_count_, 0);
  for (std::size_t pos = 0; pos < table_slots(); ++pos) {  // bounded by the table
    const auto bucket = static_cast<std::uint32_t>(pos / SlotsPerBucket);
    const auto slot = static_cast<unsigned>(pos % SlotsPerBucket);
    const bool marked = (slots_.displaced_mask(bucket) >> slot & 1U) != 0;
    if (!slots_.occupied(pos)) {
      if (marked) return "the empty slot " + std::to_string(pos) + " is marked displaced";
      continue;
    }
    const std::uint64_t hash = hash_key(slots_.item(pos).first);
    const std::uint32_t first = detail::map_buckets(hash, bucket_count_).first;
    if (marked != (bucket != first)) {
      return "the key at slot " + std::to_string(pos) + " in bucket " + std::to_string(bucket) +
             (marked ? " is marked displaced, its first bucket is that one"
                     : " is not marked displaced, its first bucket is " + std::to_string(first));
    }
    if (marked) {
      ++counts[first];
      filters[first] |= static_cast<std::uint8_t>(1U << (detail::map_tag(hash) & 7U));
    }
  }
  for (std::uint32_t b = 0; b < bucket_count_; ++b) {
    const std::uint32_t count = slots_.displaced_count(b);
    const std::uint8_t filter = slots_.displaced_filter(b);
    const bool saturated = count == Slots::kDisplacedSaturated;
    if (!saturated && count != counts[b]) {
      return "bucket " + std::to_string(b) + " counts " + std::to_string(count) +
             " displaced items, " + std::to_string(counts[b]) + " have it as first bucket";
    }
    if ((filter & filters[b]) != filters[b]) {
      return "bucket " + std::to_string(b) + "'s displaced filter " + std::to_string(filter) +
             " misses a displaced tag (needs " + std::to_string(filters[b]) + ")";
    }
    if (count == 0 && filter != 0) {
      return "bucket " + std::to_string(b) + " counts no displaced item, its filter is " +
             std::to_string(filter);
    }
  }
  for (std::size_t pos = table_slots(); pos < slots_.size(); pos += SlotsPerBucket) {
    const auto group = static_cast<std::uint32_t>(pos / SlotsPerBucket);  // a stash group
    if (slots_.displaced_mask(group) != 0 || slots_.displaced_filter(group) != 0 ||
        slots_.displaced_count(group) != 0) {
      return "the stash's slot group " + std::to_string(group - bucket_count_) +
             " has a displaced summary";
    }
  }
  return {};
}

}  // namespace cuckoo
