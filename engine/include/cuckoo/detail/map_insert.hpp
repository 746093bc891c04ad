// CuckooMap's insert, from the hot path to the slow paths, and erase's stash refill:
// out-of-line members of CuckooMap (cuckoo/cuckoo_map.hpp), included at its end. Growth and
// rebuilds are in detail/map_growth.hpp.
//
// insert() of a new key tries, in order:
//   1. a free slot in either candidate bucket (the hot path);
//   1a. growth (step 4) when the map is max_load_percent() full (kGrowLoadPercent by
//      default, or the load CuckooMapConfig::max_load_percent plans) and max_capacity lets it
//      grow: near the load where searches start to fail they get long (at b = 4, an
//      insert above 95 % load averaged 12 us against 0.3 us below 90 %), and doubling
//      costs one pass over the items. If that growth fails, steps 2 and 3 run as below
//      (step 4 is not tried again). A map at max_capacity skips this step, so the load
//      it fills to is unchanged;
//   2. a bounded breadth-first search for a cuckoo path (detail/map_search.hpp): at most
//      config.max_path_length items each move to their other bucket, the last one into a
//      free slot. The moves run from the end of the path backwards, so each item leaves
//      its slot only after it has been put in its other bucket: it is never missing;
//   3. a free stash slot;
//   4. growth: rebuild everything into a table with twice the buckets (clamped to
//      max_capacity). An exact doubling with the same seed moves each item once to a
//      bucket its hash names, searching nothing (rebuild_doubled, detail/map_growth.hpp);
//      when the new key finds no room that way, or the size is clamped, a rebuild first
//      places every item as a dry run on handles and only moves items once all of them,
//      the new key included, have a place; if the dry run fails, it is retried with a
//      derived seed, then at the next doubling, at most kMaxGrowthSteps doublings and
//      kSeedsPerSize seeds each. Growth moves the distinct keys already stored plus the
//      new key (which was checked absent), so it can never store a key twice. If every
//      attempt fails, or the table is already at max_capacity, insert returns kFull and
//      nothing has changed. Growth is refused (kFull) below kMinGrowthLoadPercent load:
//      failing to place a key in so empty a table means the hasher gives many keys the
//      same buckets, and doubling would not help (libcuckoo's minimum_load_factor has the
//      same role).
// erase() empties the slot; when the stash holds items, one whose candidate bucket just
// got a free slot moves back into the table, so the stash drains as the load falls.
//
// Invariants kept: every stored key is in one of its two candidate buckets or in the
// stash at every moment (path moves run from the end of the path backwards), no key is
// stored twice, and a refused insert (kFull, or std::bad_alloc turned into kFull)
// changes nothing but stats and leaves the caller's arguments as they were. For that,
// the new item travels as a Pending (its key and its value's constructor arguments, by
// reference) and is constructed only where it is stored, once the insert cannot fail
// any more: in the free slot of the hot path, in a free stash slot, first of all in a
// rebuild's new slots (before any item moves into them), and, when the construction
// may throw, before the items of a cuckoo path move (then moved in at the end).
#pragma once

#ifndef CUCKOO_MAP
#error "map_insert.hpp holds out-of-line members of CuckooMap: include cuckoo/cuckoo_map.hpp"
#endif

namespace cuckoo {

// Search adapter over the live table.
CUCKOO_MAP_TEMPLATE
struct CUCKOO_MAP::LiveView {
  CuckooMap* map;
  std::uint32_t bucket_count() const { return map->bucket_count_; }
  unsigned slots() const { return SlotsPerBucket; }
  bool occupied(std::uint32_t bucket, unsigned slot) const {
    return map->slots_.occupied(slot_index(bucket, slot));
  }
  std::uint32_t alt_bucket(std::uint32_t bucket, unsigned slot) const {
    const std::uint64_t hash = map->hash_key(map->slots_.item(slot_index(bucket, slot)).first);
    return detail::map_alt_bucket(hash, bucket, map->bucket_count_);
  }
  void prefetch(std::uint32_t bucket) const {
    map->slots_.prefetch_tags(bucket);
    map->slots_.prefetch_items(bucket);
  }
  void move_item(detail::MapSlotRef from, detail::MapSlotRef to) {
    map->slots_.move_within(slot_index(to.bucket, to.slot), slot_index(from.bucket, from.slot));
  }
};

CUCKOO_MAP_TEMPLATE
template <class KK, class... Args>
auto CUCKOO_MAP::try_emplace_impl(KK&& key, Args&&... args) -> Placed {
  const std::uint64_t hash = hash_key(key);
  if (const std::size_t pos = position_for_write(key, hash); pos != kNoPosition) {
    return {InsertResult::kExists, pos};
  }
  return insert_absent(hash, std::forward<KK>(key), std::forward<Args>(args)...);
}

CUCKOO_MAP_TEMPLATE
template <class KK>
V& CUCKOO_MAP::subscript(KK&& key) {
  static_assert(std::is_default_constructible_v<V>,
                "CuckooMap::operator[]: V is not default constructible; use try_emplace");
  const Placed placed = try_emplace_impl(std::forward<KK>(key));  // V() only when stored
  if (placed.result == InsertResult::kFull) [[unlikely]] throw_full("operator[]");
  return slots_.item(placed.pos).second;
}

CUCKOO_MAP_TEMPLATE
void CUCKOO_MAP::refill_from_stash(std::size_t target) {
  assert(target < table_slots() && !slots_.occupied(target));
  const auto bucket = static_cast<std::uint32_t>(target / SlotsPerBucket);
  const std::size_t stash = table_slots();
  for (std::size_t i = 0; i < kStashSlots; ++i) {
    const std::size_t pos = stash + i;
    if (!slots_.occupied(pos)) continue;
    const detail::MapBucketPair pair =
        detail::map_buckets(hash_key(slots_.item(pos).first), bucket_count_);
    if (pair.first == bucket || pair.second == bucket) {
      slots_.move_to(target, pos, pair.first);
      --stash_count_;
      return;
    }
  }
}

// Every step here either completes or changes nothing the caller can see: the path
// search only reads (and may throw std::bad_alloc before anything moved); the item is
// constructed only once it has a place (a found path, a free stash slot, a rebuild that
// placed everything); the path moves are nothrow moves that keep every item in one of
// its buckets, and when constructing the item may throw it is built before they run and
// moved in after them; growth is all-or-nothing (rebuild).
CUCKOO_MAP_TEMPLATE
template <class KK, class... Args>
InsertResult CUCKOO_MAP::insert_slow(Pending<KK, Args...>&& item, std::uint64_t hash) {
  bool growth_failed = false;
  if (bucket_count_ != 0) {
    // A map that may still grow grows instead of searching once it is max_load_percent()
    // full (kGrowLoadPercent by default): searches get long and slow near the load at
    // which they start to fail, and doubling is a single pass (rebuild_doubled). A map at its max_capacity searches
    // on, so the load it reaches before refusing an insert (C3) is unchanged. If that
    // growth fails (std::bad_alloc, or no rebuild places everything), the search and the
    // stash still may place the item, but growth is not tried a second time.
    if (size_ * 100 >= std::size_t{max_load_percent()} * table_slots() &&
        bucket_count_ < max_bucket_count()) {
      if (grow_with(item)) return InsertResult::kInserted;
      growth_failed = true;
    }
    const detail::MapBucketPair pair = detail::map_buckets(hash, bucket_count_);
    LiveView view{this};
    detail::MapCuckooPath path;
    ++stats_.bfs_searches;
    if (search_.find_path(view, pair.first, pair.second, config_.max_path_length, path)) {
      const std::size_t target = slot_index(path.hops[0].bucket, path.hops[0].slot);
      if constexpr (Pending<KK, Args...>::kNothrow) {
        detail::MapPathSearch<SlotsPerBucket>::apply(view, path);
        item.place(slots_, target, detail::map_tag(hash), pair.first);
      } else {
        value_type built = item.build();  // may throw: nothing has moved yet
        detail::MapPathSearch<SlotsPerBucket>::apply(view, path);
        slots_.emplace(target, detail::map_tag(hash), pair.first, std::move(built));
      }
      last_slow_position_ = target;
      stats_.longest_path = std::max<std::uint32_t>(stats_.longest_path, path.length);
      ++size_;
      ++stats_.inserts;
      return InsertResult::kInserted;
    }
    ++stats_.bfs_failures;
    if (stash_count_ < kStashSlots) {
      const std::size_t stash = table_slots();
      for (std::size_t i = 0; i < kStashSlots; ++i) {
        if (!slots_.occupied(stash + i)) {
          // May throw: the slot stays empty. A stash slot has no first bucket to tell.
          item.place(slots_, stash + i, detail::map_tag(hash), pair.first);
          last_slow_position_ = stash + i;
          ++stash_count_;
          ++size_;
          ++stats_.inserts;
          note_stash_level();
          return InsertResult::kInserted;
        }
      }
    }
  }
  if (!growth_failed && grow_with(item)) return InsertResult::kInserted;
  ++stats_.full_rejections;
  return InsertResult::kFull;
}

CUCKOO_MAP_TEMPLATE
template <class KK, class... Args>
bool CUCKOO_MAP::grow_with(Pending<KK, Args...>& item) {
  try {
    const std::uint32_t initial = initial_bucket_count(config_);
    if (bucket_count_ == 0 && rebuild_with_seeds(initial, &item)) {  // moved-from map
      ++stats_.inserts;
      return true;
    }
    // size_ * 100 cannot overflow: size_ <= kMaxCapacity + kStashSlots < 2^35.
    const bool worth_growing =
        size_ * 100 >= std::size_t{kMinGrowthLoadPercent} * table_slots();
    std::uint32_t target = std::max(bucket_count_, initial);
    for (unsigned step = 0; worth_growing && step < kMaxGrowthSteps; ++step) {
      if (target >= max_bucket_count()) break;
      target = static_cast<std::uint32_t>(
          std::min<std::uint64_t>(std::uint64_t{target} * 2, max_bucket_count()));
      if (rebuild_with_seeds(target, &item)) {
        ++stats_.growths;
        ++stats_.inserts;
        return true;
      }
    }
  } catch (const std::bad_alloc&) {
    // A rebuild allocates everything, and constructs the item, before it moves anything:
    // nothing changed.
  }
  return false;
}

CUCKOO_MAP_TEMPLATE
template <class KK, class VV>
inline auto CUCKOO_MAP::insert_impl(KK&& key, VV&& value, bool assign) -> Placed {
  const std::uint64_t hash = hash_key(key);
  const std::size_t pos = position_for_write(key, hash);
  if (pos != kNoPosition) {
    if (!assign) return {InsertResult::kExists, pos};
    try {
      slots_.item(pos).second = std::forward<VV>(value);
    } catch (const std::bad_alloc&) {  // a copy assignment that ran out of memory
      ++stats_.full_rejections;
      return {InsertResult::kFull, kNoPosition};
    }
    ++stats_.updates;
    return {InsertResult::kUpdated, pos};
  }
  return insert_absent(hash, std::forward<KK>(key), std::forward<VV>(value));
}

CUCKOO_MAP_TEMPLATE
template <class KK, class... Args>
inline auto CUCKOO_MAP::insert_absent(std::uint64_t hash, KK&& key, Args&&... args)
    -> Placed {
  // Memory running out anywhere below is a refused insert (kFull); every step below
  // either completes or changes nothing (see insert_slow). The item is constructed only
  // in the slot that stores it.
  try {
    if (bucket_count_ != 0) [[likely]] {
      const detail::MapBucketPair pair = detail::map_buckets(hash, bucket_count_);
      std::size_t slot = free_slot_in(pair.first);
      if (slot == kNoPosition) slot = free_slot_in(pair.second);
      if (slot != kNoPosition) [[likely]] {
        emplace_item(slots_, slot, detail::map_tag(hash), pair.first, std::forward<KK>(key),
                     std::forward<Args>(args)...);
        ++size_;
        ++stats_.inserts;
        return {InsertResult::kInserted, slot};
      }
    }
    const InsertResult result =
        insert_slow(Pending<KK, Args...>{std::forward<KK>(key),
                                         std::forward_as_tuple(std::forward<Args>(args)...)},
                    hash);
    return {result, result == InsertResult::kInserted ? last_slow_position_ : kNoPosition};
  } catch (const std::bad_alloc&) {
    ++stats_.full_rejections;
    return {InsertResult::kFull, kNoPosition};
  }
}
}  // namespace cuckoo
