// CuckooMap's lookup (out-of-line members of CuckooMap, cuckoo/cuckoo_map.hpp, included
// at its end): the key's slot in one bucket (keys compared only where the tag matches),
// the hot two-bucket probe (both buckets prefetched, then probed), the stash scan
// behind it, and the batched find_many() (hash and prefetch a group, then probe it).
#pragma once

#ifndef CUCKOO_MAP
#error "map_lookup.hpp holds out-of-line members of CuckooMap: include cuckoo/cuckoo_map.hpp"
#endif

namespace cuckoo {

CUCKOO_MAP_TEMPLATE
template <class Q>
inline auto CUCKOO_MAP::slot_in(std::uint32_t bucket, std::uint8_t tag, const Q& key) const
    -> unsigned {
  // Keys are compared only in the slots whose tag matches (see map_slots.hpp).
  unsigned candidates = slots_.matches(bucket, tag);
  while (candidates != 0) {  // bound: at most SlotsPerBucket candidates
    const auto s = static_cast<unsigned>(std::countr_zero(candidates));
    if (key_eq_(slots_.key_at(bucket, s), key)) return s;
    candidates &= candidates - 1;
  }
  return SlotsPerBucket;
}

CUCKOO_MAP_TEMPLATE
template <class Q>
inline auto CUCKOO_MAP::position_of(const Q& key, std::uint64_t hash) const -> std::size_t {
  if (size_ == 0) return kNoPosition;  // also covers a moved-from map (no buckets)
  const detail::MapBucketPair pair = detail::map_buckets(hash, bucket_count_);
  // Both buckets' tags and items load in parallel: a hit then waits for one round of
  // misses, not for a tag and then an item (prefetching the tags alone made misses 20 %
  // faster and hits 50 % slower at 10M keys); a miss reads no item.
  slots_.prefetch(pair.first);
  slots_.prefetch(pair.second);
  return position_in(key, hash, pair);
}

CUCKOO_MAP_TEMPLATE
template <class Q>
inline auto CUCKOO_MAP::position_in(const Q& key, std::uint64_t hash,
                                    detail::MapBucketPair pair) const -> std::size_t {
  const std::uint8_t tag = detail::map_tag(hash);
  if (const unsigned s = slot_in(pair.first, tag, key); s != SlotsPerBucket) {
    return slot_index(pair.first, s);
  }
  if (const unsigned s = slot_in(pair.second, tag, key); s != SlotsPerBucket) {
    return slot_index(pair.second, s);
  }
  if (stash_count_ != 0) [[unlikely]] return stash_position_of(key);
  return kNoPosition;
}

CUCKOO_MAP_TEMPLATE
template <class Q>
auto CUCKOO_MAP::stash_position_of(const Q& key) const -> std::size_t {
  const std::size_t stash = table_slots();
  for (std::size_t i = 0; i < kStashSlots; ++i) {
    if (holds(stash + i, key)) return stash + i;
  }
  return kNoPosition;
}
CUCKOO_MAP_TEMPLATE
template <class Keys, class Results>
  requires std::ranges::contiguous_range<Keys> && std::ranges::sized_range<Keys> &&
           std::ranges::random_access_range<Results> && std::ranges::sized_range<Results> &&
           std::assignable_from<std::ranges::range_reference_t<Results>, const V*>
void CUCKOO_MAP::find_many(const Keys& keys, Results&& results) const {
  using E = std::ranges::range_value_t<Keys>;
  const std::size_t n = std::ranges::size(keys);
  const auto room = static_cast<std::size_t>(std::ranges::size(results));
  if (room < n) {
    throw std::invalid_argument("find_many: results has " + std::to_string(room) +
                                " entries, fewer than the " + std::to_string(n) + " keys");
  }
  const E* const key_data = std::ranges::data(keys);
  auto out = std::ranges::begin(results);
  std::array<std::uint64_t, kFindBatch> hashes{};
  // Bound: n / kFindBatch + 1 groups of at most kFindBatch keys.
  for (std::size_t start = 0; start < n; start += kFindBatch) {
    const std::size_t count = std::min(kFindBatch, n - start);
    if (size_ != 0) {
      for (std::size_t k = 0; k < count; ++k) {
        const key_arg<E>& key = key_data[start + k];
        hashes[k] = hash_key(key);
        const detail::MapBucketPair pair = detail::map_buckets(hashes[k], bucket_count_);
        slots_.prefetch(pair.first);
        slots_.prefetch(pair.second);
      }
    }
    for (std::size_t k = 0; k < count; ++k) {
      const key_arg<E>& key = key_data[start + k];
      // The group's buckets are prefetched above: probe without prefetching again.
      const std::size_t pos =
          size_ == 0 ? kNoPosition
                     : position_in(key, hashes[k], detail::map_buckets(hashes[k], bucket_count_));
      out[static_cast<std::ptrdiff_t>(start + k)] =
          pos == kNoPosition ? nullptr : &slots_.item(pos).second;
    }
  }
}

}  // namespace cuckoo
