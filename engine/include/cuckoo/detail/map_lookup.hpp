// CuckooMap's lookup (out-of-line members of CuckooMap, cuckoo/cuckoo_map.hpp, included
// at its end): the key's slot in one bucket (keys compared only where the tag matches),
// the hot probe (the first bucket, then the second only when the first bucket's summary
// says an item with the key's tag may be displaced there, see map_slots.hpp), the stash
// scan behind it, and the batched find_many() (a pipeline: tags prefetched, then matched
// and the item prefetched, then probed).
#pragma once

#ifndef CUCKOO_MAP
#error "map_lookup.hpp holds out-of-line members of CuckooMap: include cuckoo/cuckoo_map.hpp"
#endif

namespace cuckoo {

CUCKOO_MAP_TEMPLATE
template <class Q>
inline auto CUCKOO_MAP::slot_among(std::uint32_t bucket, unsigned candidates,
                                   const Q& key) const -> unsigned {
  // Keys are compared only in the slots whose tag matches (see map_slots.hpp).
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
  // No test for an empty or moved-from map: a map with no buckets maps every key to
  // bucket 0 of MapSlots' static empty group (kNoGroups), which matches no tag and names
  // none in its summary, and its stash is empty. A prefetch of its null item array
  // cannot fault.
  assert(slots_.bucket_count() == bucket_count_);
  const detail::MapBucketPair pair = detail::map_buckets(hash, bucket_count_);
  // The first bucket's tags and items load in parallel: a hit there then waits for one
  // round of misses, not for a tag and then an item (prefetching the tags alone made
  // hits 50 % slower at 10M keys); a miss reads no item. The second bucket is read only
  // when the first one's summary names the key's tag (map_slots.hpp): most misses read
  // one line, most hits two.
  slots_.prefetch_items(pair.first);
  return position_in(key, hash, pair);
}

CUCKOO_MAP_TEMPLATE
template <class Q>
inline auto CUCKOO_MAP::position_for_write(const Q& key, std::uint64_t hash) const
    -> std::size_t {
  if (size_ == 0) return kNoPosition;  // also covers a moved-from map (no buckets)
  const detail::MapBucketPair pair = detail::map_buckets(hash, bucket_count_);
  slots_.prefetch_items(pair.first);
  slots_.prefetch_items(pair.second);
  slots_.prefetch_tags(pair.second);
  return position_in(key, hash, pair);
}

CUCKOO_MAP_TEMPLATE
template <class Q>
inline auto CUCKOO_MAP::position_in(const Q& key, std::uint64_t hash,
                                    detail::MapBucketPair pair) const -> std::size_t {
  const std::uint8_t tag = detail::map_tag(hash);
  return position_matched(key, pair, tag, slots_.matches(pair.first, tag), kMatchesUnknown);
}

CUCKOO_MAP_TEMPLATE
template <class Q>
inline auto CUCKOO_MAP::position_matched(const Q& key, detail::MapBucketPair pair,
                                         std::uint8_t tag, unsigned first_matches,
                                         unsigned second_matches) const -> std::size_t {
  if (const unsigned s = slot_among(pair.first, first_matches, key); s != SlotsPerBucket) {
    return slot_index(pair.first, s);
  }
  if (second_matches == kMatchesUnknown) {
    second_matches =
        slots_.second_may_hold(pair.first, tag) ? slots_.matches(pair.second, tag) : 0U;
  }
  if (const unsigned s = slot_among(pair.second, second_matches, key); s != SlotsPerBucket) {
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
  if (size_ == 0) {  // also covers a moved-from map (no buckets)
    for (std::size_t i = 0; i < n; ++i) out[static_cast<std::ptrdiff_t>(i)] = nullptr;
    return;
  }
  // A pipeline of three stages, kFindAhead keys apart: key i is hashed and its first
  // bucket's tags prefetched; key i - kFindAhead, whose tags have had that long to arrive,
  // has them matched and the first matching item prefetched, or, when none matches and
  // the bucket's summary says the key may be in its second bucket, that bucket's tags and
  // items prefetched; key i - 2 * kFindAhead is probed, its keys compared where stage two
  // found the tags matching. Most hits read two lines (tags, item), most misses one.
  // The keys in flight: what each stage found, so that no stage derives it again.
  struct InFlight {
    detail::MapBucketPair pair;
    std::uint8_t tag;
    unsigned first_matches;
    unsigned second_matches;  // kMatchesUnknown: not matched yet (the probe decides)
  };
  std::array<InFlight, kFindRing> ring{};
  constexpr std::size_t kMask = kFindRing - 1;
  const auto hash_and_prefetch_tags = [&](std::size_t i) CUCKOO_ALWAYS_INLINE_LAMBDA {
    InFlight& f = ring[i & kMask];
    const std::uint64_t hash = hash_key(static_cast<const key_arg<E>&>(key_data[i]));
    f.pair = detail::map_buckets(hash, bucket_count_);
    f.tag = detail::map_tag(hash);
    slots_.prefetch_tags(f.pair.first);
  };
  const auto match_and_prefetch_item = [&](std::size_t k) CUCKOO_ALWAYS_INLINE_LAMBDA {
    InFlight& f = ring[k & kMask];
    f.first_matches = slots_.matches(f.pair.first, f.tag);
    f.second_matches = kMatchesUnknown;
    if (f.first_matches != 0) {
      slots_.prefetch_item(f.pair.first, static_cast<unsigned>(std::countr_zero(f.first_matches)));
      return;
    }
    if (slots_.second_may_hold(f.pair.first, f.tag)) {
      // Its tags and items, both needed by the probe (position_matched) a stage later.
      slots_.prefetch_tags(f.pair.second);
      slots_.prefetch_items(f.pair.second);
    } else {
      f.second_matches = 0;
    }
  };
  const auto probe = [&](std::size_t k) CUCKOO_ALWAYS_INLINE_LAMBDA {
    const InFlight& f = ring[k & kMask];
    const std::size_t pos = position_matched(static_cast<const key_arg<E>&>(key_data[k]), f.pair,
                                             f.tag, f.first_matches, f.second_matches);
    out[static_cast<std::ptrdiff_t>(k)] = pos == kNoPosition ? nullptr : &slots_.item(pos).second;
  };
  // The stages run in separate loops, so that the steady state (the third loop) tests
  // no stage's bounds. Bound: n steps in the first three loops, at most 3 * kFindAhead
  // in the last two.
  std::size_t i = 0;
  for (; i < std::min(n, kFindAhead); ++i) hash_and_prefetch_tags(i);
  for (; i < std::min(n, 2 * kFindAhead); ++i) {
    hash_and_prefetch_tags(i);
    match_and_prefetch_item(i - kFindAhead);
  }
  for (; i < n; ++i) {
    hash_and_prefetch_tags(i);
    match_and_prefetch_item(i - kFindAhead);
    probe(i - 2 * kFindAhead);
  }
  // Drain: the keys not matched yet, then the keys not probed yet.
  for (std::size_t k = n > kFindAhead ? n - kFindAhead : 0; k < n; ++k) {
    match_and_prefetch_item(k);
  }
  for (std::size_t k = n > 2 * kFindAhead ? n - 2 * kFindAhead : 0; k < n; ++k) probe(k);
}

}  // namespace cuckoo
