// StripedMapWithFault's optimistic path insert and its hops (out-of-line members,
// included at the end of detail/striped_map.hpp).
//
// insert when both buckets are full (insert_via_path):
//   1. breadth-first search for a cuckoo path (detail/map_search.hpp, the same search
//      as CuckooMap) over the slot words of the table read without locks. The result
//      is a hint: the table may change under the search.
//   2. move the path from its end: for k = length .. 2, item hops[k-1] -> hops[k] under
//      the stripes of those two buckets, each hop validated under its locks: the live
//      table is still the searched one, hops[k] is empty, and hops[k-1] holds an item
//      of which hops[k].bucket is a candidate bucket (it need not be the item the
//      search saw: any such item may move there, and (I1) holds after the move).
//   3. the first hop and the placement in one critical section under the stripes of
//      the key's two buckets and of hops[1].bucket: search both buckets for the key
//      (another thread may have inserted it meanwhile: kExists / kUpdated), take a free
//      slot if one appeared, else validate and move hops[0] -> hops[1] and place the key
//      in hops[0] (a slot of one of its buckets).
//   A failed validation (step 2 or 3) leaves every moved item in a candidate bucket of
//   its own and retries from the top, at most kMaxPathAttempts times.
//   A search that finds no path, or attempts used up, goes to the exclusive insert.
//
// Invariants kept: (I1)-(I3) of detail/striped_map.hpp. Every hop holds the stripes of
// both its buckets and is validated under them; the placement holds the stripes of the
// key's two buckets and re-searches both. Bound: kMapMaxPathLength hops per attempt.
#pragma once

#ifndef CUCKOO_STRIPED_MAP
#error "striped_map_path.hpp holds out-of-line members of StripedMapWithFault: include detail/striped_map.hpp"
#endif

namespace cuckoo {
namespace detail {

// The optimistic slow path: search without locks, move the path hop by hop under
// locks, place under the key's stripes. Locks held on return: none.
// kDone: decided; kNoRoom: the search found no path; kRetry: a validation failed.
CUCKOO_STRIPED_MAP_TEMPLATE
template <class KK, class VV, class Present>
auto CUCKOO_STRIPED_MAP::insert_via_path(KK&& key, VV&& value, std::uint64_t hash, Present& assign)
    -> Decision {
  // acquire: pairs with the release store that published the table. A Table is never
  // freed while the map lives, so reading its words without locks is safe.
  Table* const t = table_.load(std::memory_order_acquire);
  const MapBucketPair pair = map_buckets(hash, t->bucket_count);
  MapCuckooPath path;
  try {
    if (!thread_search().find_path(WordView{t}, pair.first, pair.second,
                                   config_.max_path_length, path)) {
      return {Step::kNoRoom};
    }
  } catch (const std::bad_alloc&) {
    return {Step::kNoRoom};  // the exclusive insert decides (kFull if it cannot either)
  }
  if (path.length == 0) return {Step::kRetry};  // a slot was freed since the fast path
  // Hops from the end; each leaves every item in a candidate bucket of its key.
  for (unsigned k = path.length; k > 1; --k) {  // bounded by length <= kMapMaxPathLength
    if (!move_hop(t, path.hops[k - 1], path.hops[k])) return {Step::kRetry};
  }
  if constexpr (Fault == StripedMapFault::kPathPlacesUnderOneBucket) {
    return place_via_first_hop_one_bucket(std::forward<KK>(key), std::forward<VV>(value), t,
                                          pair, path, assign);
  }
  // The first hop and the placement, under the key's stripes and hops[1]'s.
  const Guard guard(stripes_, kBucketStripes, pair.first, pair.second,
                          path.hops[1].bucket);
  if (&live_table() != t) return {Step::kRetry};
  std::size_t pos = position_in(*t, pair, key);
  if (pos != kNoPosition) {
    return {Step::kDone, settle_present(*t, pos, pair, std::forward<VV>(value), assign)};
  }
  pos = free_position(*t, pair);  // someone may have freed a slot meanwhile
  if (pos == kNoPosition) {
    if (!hop_is_valid(*t, path.hops[0], path.hops[1])) return {Step::kRetry};
    apply_hop(*t, path.hops[0], path.hops[1]);
    pos = slot_index(path.hops[0]);
    assert(path.hops[0].bucket == pair.first || path.hops[0].bucket == pair.second);
    count(Counter::kPathInserts);
  }
  return {Step::kDone, place_new(*t, pos, pair, std::forward<KK>(key), std::forward<VV>(value))};
}

// TEST FAULT kPathPlacesUnderOneBucket: the last hop and the placement under the
// stripes of hops[0] and hops[1] only, re-checking only hops[0]'s bucket for the key.
// It yields first, as a preemption there would: that widens the window in which
// another insert of the key can land in its other bucket, so that a short test run
// meets the bug (it is the same bug without the yield, only rarer).
CUCKOO_STRIPED_MAP_TEMPLATE
template <class KK, class VV, class Present>
auto CUCKOO_STRIPED_MAP::place_via_first_hop_one_bucket(KK&& key, VV&& value, Table* t,
                                                    MapBucketPair pair,
                                                    const MapCuckooPath& path,
                                                    Present& assign) -> Decision {
  std::this_thread::yield();
  const std::uint32_t bucket = path.hops[0].bucket;
  const Guard guard(stripes_, kBucketStripes, bucket, path.hops[1].bucket);
  if (&live_table() != t) return {Step::kRetry};
  for (unsigned s = 0; s < SlotsPerBucket; ++s) {  // the re-check: this bucket only
    const std::size_t pos = slot_index(bucket, s);
    if (t->occupied(pos) && key_eq_(t->key(pos), key)) {
      return {Step::kDone,
              settle_present(*t, slot_index(bucket, s), pair, std::forward<VV>(value), assign)};
    }
  }
  if (!hop_is_valid(*t, path.hops[0], path.hops[1])) return {Step::kRetry};
  apply_hop(*t, path.hops[0], path.hops[1]);
  t->fill_slot(slot_index(path.hops[0]), pair, std::forward<KK>(key), std::forward<VV>(value));
  stripes_.add_items(stripes_.stripe_of(bucket), 1);
  count(Counter::kInserts);
  count(Counter::kPathInserts);
  return {Step::kDone, InsertResult::kInserted};
}

// Moves the item at `from` to `to` if, under their stripes, the table is still t and
// the hop is still valid. Locks held on return: none (the two stripes during it).
CUCKOO_STRIPED_MAP_TEMPLATE
bool CUCKOO_STRIPED_MAP::move_hop(Table* t, MapSlotRef from, MapSlotRef to) {
  const Guard guard(stripes_, kBucketStripes, from.bucket, to.bucket);
  if (&live_table() != t) return false;
  if (!hop_is_valid(*t, from, to)) return false;
  apply_hop(*t, from, to);
  return true;
}

// Whether `from` holds an item that may move to the empty slot `to`: to.bucket is one
// of the item's candidate buckets (so (I1) holds after the move). REQUIRES: both
// stripes held.
CUCKOO_STRIPED_MAP_TEMPLATE
bool CUCKOO_STRIPED_MAP::hop_is_valid(const Table& t, MapSlotRef from, MapSlotRef to) const {
  if constexpr (Fault == StripedMapFault::kUnvalidatedHop) {
    return true;  // TEST FAULT: no validation at all
  } else {
    const std::size_t source = slot_index(from);
    if (!t.occupied(source) || t.occupied(slot_index(to))) return false;
    // relaxed: the word is written under this stripe, which we hold.
    const MapBucketPair item = unpack_buckets(t.word(source).load(std::memory_order_relaxed));
    return item.first == to.bucket || item.second == to.bucket;
  }
}

// REQUIRES: both stripes held and hop_is_valid (for the faulty variant: whatever is
// there is moved, overwriting the target, as a naive implementation would).
CUCKOO_STRIPED_MAP_TEMPLATE
void CUCKOO_STRIPED_MAP::apply_hop(Table& t, MapSlotRef from, MapSlotRef to) {
  if constexpr (Fault == StripedMapFault::kUnvalidatedHop) {
    t.overwrite_slot(slot_index(from), slot_index(to));
  } else {
    t.move_slot(slot_index(from), slot_index(to));
  }
}

}  // namespace detail
}  // namespace cuckoo
