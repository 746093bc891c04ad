// StripedMapWithFault's exclusive insert and growth (out-of-line members, included at
// the end of detail/striped_map.hpp).
//
// exclusive insert (insert_exclusive): every stripe held, so the table is quiescent:
//   search the buckets for the key, a free slot, a cuckoo path (moved directly), then
//   growth: rebuild into twice the buckets or more (at most kMaxGrowthSteps sizes from
//   growth_target()), all or nothing (a dry run places handles first, as CuckooMap's
//   rebuild), and publish the new table. kFull if the table may not or cannot grow
//   (max_capacity, growth bounds, load below kMinGrowthLoadPercent, std::bad_alloc):
//   then nothing changed.
//
// Retired tables. A growth does not free the replaced Table: its items are moved out and
// (other items) their storage freed at once, but the Table object and what lock-free
// readers read stay until the map is destroyed, because a path search or a lookup may
// still be reading them (a search finds out at validation that the table was replaced;
// a lookup reads the map as it was at the replacement). That is the slot words, and
// with atomic items the whole slots (the items stay in them, never written again).
// (libcuckoo keeps its replaced lock arrays the same way.) This is what makes a pointer
// read from table_ safe to dereference at any time without reference counting.
//
// The bound retired_bytes() < retained_bytes_per_slot() * capacity(), for every
// sequence of inserts, reserve() and clear() calls. Every table a growth builds comes
// from growth_target(current, needed) = max(needed, 2 * current), replaced by M =
// max_capacity's bucket count when that is more than M / 2. So the tables t0 (the first)
// < t1 < ... < tk (the live one) have:
//   - t1 .. t(k-1) <= M / 2: growths built them, and a growth never builds a count in
//     (M / 2, M); nor M, since a growth followed them;
//   - t(i+1) >= 2 * ti for i >= 1: growth_target gives 2 * ti or more, or M >= 2 * ti;
//   - t1 >= 2 * t0, unless t1 = M (the first table above M / 2), and then k = 1.
// Hence for k >= 2, t0 + ... + t(k-1) < 2 * t(k-1) <= tk, and for k = 1, t0 < t1: the
// retired tables together have fewer slots than the live one. Clamping a doubling to M
// instead (M / 2 < t < M, then M) would break it: t(k-1) close to M, retired nearly 2 M.
// The cost: where a doubling would end above M / 2 the growth goes to M at once, so the
// growth by inserts that reaches M may more than double (by less than 4x). The same rule
// serves reserve() and inserts; clear() keeps the table. memory_bytes() and
// retired_bytes() report the accounting.
//
// Invariants kept: everything here runs with every stripe held; a rebuild places every
// item on handles before it moves any, so a refused growth (no placement, or
// std::bad_alloc) changes nothing; the new table is published by one release store.
// Bounds: kMaxGrowthSteps doublings per insert, the slot count per rebuild.
#pragma once

#ifndef CUCKOO_STRIPED_MAP
#error "striped_map_growth.hpp holds out-of-line members of StripedMapWithFault: include detail/striped_map.hpp"
#endif

namespace cuckoo {
namespace detail {

// The exclusive insert: every stripe held, the table quiescent (only lock-free
// searches read its words). Locks held on return: none.
CUCKOO_STRIPED_MAP_TEMPLATE
template <class KK, class VV, class Present>
InsertResult CUCKOO_STRIPED_MAP::insert_exclusive(KK&& key, VV&& value, std::uint64_t hash,
                                                Present& assign) {
  const Guard all(stripes_, kAllStripes);
  count(Counter::kExclusiveInserts);
  return insert_all_held(std::forward<KK>(key), std::forward<VV>(value), hash, assign, nullptr);
}

// The insert with every stripe held (the exclusive insert, and the locked view's): the
// key's buckets, a free slot, a cuckoo path moved directly, then growth. If `where` is
// given, *where is the key's slot afterwards (kNoPosition when the result is kFull or
// the key was erased by uprase_fn). REQUIRES: every stripe held. Locks held on return:
// what the caller held.
CUCKOO_STRIPED_MAP_TEMPLATE
template <class KK, class VV, class Present>
InsertResult CUCKOO_STRIPED_MAP::insert_all_held(KK&& key, VV&& value, std::uint64_t hash,
                                                 Present& assign, std::size_t* where) {
  std::size_t ignored = kNoPosition;
  std::size_t& placed = where != nullptr ? *where : ignored;
  placed = kNoPosition;
  Table& t = live_table();
  const MapBucketPair pair = map_buckets(hash, t.bucket_count);
  std::size_t pos = position_in(t, pair, key);
  if (pos != kNoPosition) {
    const InsertResult result = settle_present(t, pos, pair, std::forward<VV>(value), assign);
    if (t.occupied(pos)) placed = pos;
    return result;
  }
  pos = free_position(t, pair);
  if (pos != kNoPosition) {
    placed = pos;
    return place_new(t, pos, pair, std::forward<KK>(key), std::forward<VV>(value));
  }
  try {
    MapCuckooPath path;
    WordView view{&t};
    if (thread_search().find_path(view, pair.first, pair.second, config_.max_path_length,
                                  path)) {
      MapPathSearch<SlotsPerBucket>::apply(view, path);
      placed = slot_index(path.hops[0]);
      return place_new(t, slot_index(path.hops[0]), pair, std::forward<KK>(key),
                       std::forward<VV>(value));
    }
    // Growth. Refused below kMinGrowthLoadPercent, as CuckooMap: so empty a table that
    // has no path means the hasher gives many keys the same buckets.
    const std::size_t items = stripes_.item_count();  // exact: every stripe held
    const bool worth_growing = items * 100 >= std::size_t{kMinGrowthLoadPercent} * t.slot_count();
    if (worth_growing) {
      // The item is moved in only once the new table has its place, so a refused
      // insert leaves the caller's key and value untouched. Where a copy can throw it
      // is made first, before any item moves (moves are nothrow).
      if constexpr (std::is_nothrow_constructible_v<value_type, KK&&, VV&&>) {
        placed = grow_and_place(std::forward<KK>(key), std::forward<VV>(value), hash);
      } else {
        value_type item(std::forward<KK>(key), std::forward<VV>(value));
        placed = grow_and_place(std::move(item.first), std::move(item.second), hash);
      }
      if (placed != kNoPosition) return InsertResult::kInserted;
    }
  } catch (const std::bad_alloc&) {
    // Searches and rebuilds allocate before they change anything: nothing changed.
  }
  count(Counter::kFullRejections);
  return InsertResult::kFull;
}

// Growth for an insert: at most kMaxGrowthSteps sizes from growth_target(), each at
// least twice the last, until the items and the new key fit; the key and value are
// moved in only then.
// Returns the key's slot in the new table; kNoPosition, having changed nothing, when no
// size fits. May throw std::bad_alloc before anything changed. REQUIRES: every stripe
// held; the move from KK and VV is nothrow.
CUCKOO_STRIPED_MAP_TEMPLATE
template <class KK, class VV>
std::size_t CUCKOO_STRIPED_MAP::grow_and_place(KK&& key, VV&& value, std::uint64_t hash) {
  std::uint32_t target = live_table().bucket_count;
  for (unsigned step = 0; step < kMaxGrowthSteps; ++step) {
    if (target >= max_bucket_count()) break;
    target = growth_target(target, std::uint64_t{target} + 1);
    std::size_t pos = kNoPosition;
    if (grow_to(target, true, hash, &pos)) {
      live_table().fill_slot(pos, map_buckets(hash, target), std::forward<KK>(key),
                             std::forward<VV>(value));
      stripes_.add_items(0, 1);  // every stripe is held
      count(Counter::kInserts);
      return pos;
    }
  }
  return kNoPosition;
}

// The bucket count a growth from `current` buckets builds when it needs at least
// `needed`: at least twice current, and max_bucket_count() instead of any count above
// half of it (the argument at the top of this file). REQUIRES: current <
// max_bucket_count(), needed <= max_bucket_count().
CUCKOO_STRIPED_MAP_TEMPLATE
std::uint32_t CUCKOO_STRIPED_MAP::growth_target(std::uint32_t current,
                                                std::uint64_t needed) const noexcept {
  const std::uint64_t most = max_bucket_count();
  const std::uint64_t target = std::max<std::uint64_t>(needed, std::uint64_t{current} * 2);
  return static_cast<std::uint32_t>(2 * target > most ? most : target);
}

// Rebuilds the live table into `buckets` buckets, making room for one pending item
// (whose hash is pending_hash) if with_pending, and publishes the new table; the
// pending item's slot is stored in *pending_pos, empty, for the caller to fill. All or
// nothing: a dry run on handles (old slot positions; the pending item is handle
// old_slots) places every item first; returns false, having changed nothing, if it
// cannot. May throw std::bad_alloc before anything changed. REQUIRES: every stripe
// held.
CUCKOO_STRIPED_MAP_TEMPLATE
bool CUCKOO_STRIPED_MAP::grow_to(std::uint32_t buckets, bool with_pending,
                                 std::uint64_t pending_hash, std::size_t* pending_pos) {
  Table& old = live_table();
  const std::size_t old_slots = old.slot_count();
  const std::size_t handle_count = old_slots + (with_pending ? 1 : 0);
  const std::size_t new_slots = std::size_t{buckets} * SlotsPerBucket;
  std::vector<std::uint64_t> hashes(handle_count, 0);
  std::vector<std::uint64_t> placement(new_slots, kNoHandle);
  PlanView view{&placement, &hashes, buckets};
  const auto place_in = [&](std::uint32_t bucket, std::uint64_t handle) {
    for (unsigned s = 0; s < SlotsPerBucket; ++s) {
      std::uint64_t& slot = placement[slot_index(bucket, s)];
      if (slot == kNoHandle) {
        slot = handle;
        return true;
      }
    }
    return false;
  };
  for (std::size_t handle = 0; handle < handle_count; ++handle) {  // bounded by the slots
    if (handle < old_slots && !old.occupied(handle)) continue;
    const std::uint64_t hash = handle == old_slots ? pending_hash : hash_key(old.key(handle));
    hashes[handle] = hash;
    const MapBucketPair pair = map_buckets(hash, buckets);
    if (place_in(pair.first, handle) || place_in(pair.second, handle)) continue;
    MapCuckooPath path;
    if (!thread_search().find_path(view, pair.first, pair.second, config_.max_path_length,
                                   path)) {
      return false;
    }
    MapPathSearch<SlotsPerBucket>::apply(view, path);
    placement[slot_index(path.hops[0])] = handle;
  }
  auto fresh = std::make_unique<Table>(buckets);
  tables_.reserve(tables_.size() + 1);
  // Nothing below throws: move the items.
  for (std::size_t pos = 0; pos < new_slots; ++pos) {
    const std::uint64_t handle = placement[pos];
    if (handle == kNoHandle) continue;
    if (handle == old_slots) {
      *pending_pos = pos;  // filled by the caller once the table is published
      continue;
    }
    fresh->fill_slot(pos, map_buckets(hashes[handle], buckets), old.take(handle));
  }
  // Retire the old table: its items are gone (atomic items stay, stale, with the
  // words) and what lock-free readers read stays (see the top of this file).
  old.retire();
  tables_.push_back(std::move(fresh));
  // release: publishes the new table's contents to lock-free readers (acquire loads);
  // lockers are ordered by the stripe locks we hold.
  table_.store(tables_.back().get(), std::memory_order_release);
  count(Counter::kGrowths);
  return true;
}

}  // namespace detail
}  // namespace cuckoo
