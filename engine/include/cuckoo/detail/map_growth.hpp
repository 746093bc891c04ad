// CuckooMap's growth: reserve() and the all-or-nothing rebuild that insert falls back to
// (out-of-line members of CuckooMap, cuckoo/cuckoo_map.hpp, included at its end).
//
// An exact doubling with the current seed moves each item once, to the bucket its hash
// names (rebuild_doubled; no plan, no search). Any other rebuild, and a doubling whose
// new key finds no room that way, places every item, and the pending new one, as a dry
// run on handles first (PlanView: the same path search as insert, over a placement
// array), and moves items only once all of them have a place. Invariants kept by both: a
// failed rebuild (no placement, or std::bad_alloc) changes nothing but stats; a
// successful one stores exactly the items that were stored (stash included) plus the
// pending one, each in a candidate bucket under the new bucket count and seed or in the
// new stash. Bounds: kSeedsPerSize seeds per size, kMaxGrowthSteps doublings
// (grow_with), the slot count per rebuild.
#pragma once

#ifndef CUCKOO_MAP
#error "map_growth.hpp holds out-of-line members of CuckooMap: include cuckoo/cuckoo_map.hpp"
#endif

namespace cuckoo {

// Search adapter over the dry-run placement of a rebuild: handles instead of items.
CUCKOO_MAP_TEMPLATE
struct CUCKOO_MAP::PlanView {
  std::vector<std::uint64_t>* placement;  // handle per new slot, or kNoHandle
  const std::vector<std::uint64_t>* hashes;  // hash per handle under the new seed
  std::uint32_t buckets;
  std::uint32_t bucket_count() const { return buckets; }
  unsigned slots() const { return SlotsPerBucket; }
  bool occupied(std::uint32_t bucket, unsigned slot) const {
    return (*placement)[slot_index(bucket, slot)] != kNoHandle;
  }
  std::uint32_t alt_bucket(std::uint32_t bucket, unsigned slot) const {
    const std::uint64_t handle = (*placement)[slot_index(bucket, slot)];
    return detail::map_alt_bucket((*hashes)[handle], bucket, buckets);
  }
  void move_item(detail::MapSlotRef from, detail::MapSlotRef to) {
    std::uint64_t& source = (*placement)[slot_index(from.bucket, from.slot)];
    (*placement)[slot_index(to.bucket, to.slot)] = source;
    source = kNoHandle;
  }
};

CUCKOO_MAP_TEMPLATE
bool CUCKOO_MAP::reserve(std::size_t n) {
  if (n > config_.max_capacity) return false;
  // n <= max_capacity <= kMaxCapacity < 2^35: no overflow.
  const std::uint64_t slots_needed =
      (std::uint64_t{n} * 100 + max_load_percent() - 1) / max_load_percent();
  const std::uint64_t buckets_needed =
      std::max<std::uint64_t>((slots_needed + SlotsPerBucket - 1) / SlotsPerBucket,
                              bucket_count_ == 0 ? initial_bucket_count(config_) : 0);
  if (buckets_needed <= bucket_count_) return true;
  if (buckets_needed > max_bucket_count()) return false;
  try {
    if (rebuild_with_seeds(static_cast<std::uint32_t>(buckets_needed),
                           static_cast<NoPending*>(nullptr))) {
      ++stats_.growths;
      return true;
    }
  } catch (const std::bad_alloc&) {
    // Nothing changed.
  }
  return false;
}

// rehash(n): the bucket count that holds max(n, size() at max_load_percent()) slots,
// reached by a rebuild that grows or shrinks (a shrink that no rebuild can place keeps
// the table: it is only a request, as std::unordered_map::rehash(0) is).
CUCKOO_MAP_TEMPLATE
void CUCKOO_MAP::rehash(size_type n) {
  if (n > config_.max_capacity) throw_full("rehash");
  const std::uint64_t for_size =
      (std::uint64_t{size_} * 100 + max_load_percent() - 1) / max_load_percent();
  const std::uint64_t slots_needed = std::max<std::uint64_t>({n, for_size, 1});
  const std::uint64_t buckets_needed = (slots_needed + SlotsPerBucket - 1) / SlotsPerBucket;
  if (buckets_needed > max_bucket_count()) throw_full("rehash");
  if (buckets_needed == bucket_count_) return;
  const bool grows = buckets_needed > bucket_count_;
  bool rebuilt = false;
  try {
    rebuilt = rebuild_with_seeds(static_cast<std::uint32_t>(buckets_needed),
                                 static_cast<NoPending*>(nullptr));
  } catch (const std::bad_alloc&) {
    // Nothing changed.
  }
  if (rebuilt) {
    if (grows) ++stats_.growths;
    return;
  }
  if (grows) throw_full("rehash");
}

CUCKOO_MAP_TEMPLATE
template <class P>
bool CUCKOO_MAP::rebuild_with_seeds(std::uint32_t bucket_count, P* pending) {
  if (bucket_count_ != 0 && bucket_count == std::uint64_t{2} * bucket_count_ &&
      rebuild_doubled(pending)) {
    return true;
  }
  for (unsigned attempt = 0; attempt < kSeedsPerSize; ++attempt) {
    const std::uint64_t seed = attempt == 0 ? seed_ : detail::mix64(seed_ + kSeedStep * attempt);
    if (rebuild(bucket_count, seed, pending)) {
      if (attempt != 0) ++stats_.reseeds;
      return true;
    }
  }
  return false;
}

// Doubles the table with the same seed, moving each item once and searching nothing.
// reduce32(x, 2n) is 2 * reduce32(x, n) or that plus one, so the items of bucket i at n
// buckets belong to buckets 2i and 2i + 1 at 2n, each to the one that its own hash (the
// half that put it in bucket i) names; neither new bucket can receive more than the B
// items bucket i held, so every table item fits. Stash items go to a free slot of either
// new candidate bucket, or stay in the stash. The pending item needs a free slot in one of
// its new buckets: that is decided first, from the items that will go there; when
// neither has one, one of those items that can go to its other new bucket (which keeps a
// free slot after its own arrivals) is moved there first, and only when none can does
// this return false having changed nothing, and the general rebuild runs (a full search,
// several times the cost of a doubling). Allocation (std::bad_alloc) and the construction
// of the pending item come before any move; after them, nothing can fail.
CUCKOO_MAP_TEMPLATE
template <class P>
bool CUCKOO_MAP::rebuild_doubled(P* pending) {
  const std::uint32_t old_buckets = bucket_count_;
  const std::uint32_t new_buckets = 2 * old_buckets;
  // Where the item in old table position pos goes at new_buckets: the bucket on its own
  // side (first or second, as now: a displaced item stays displaced), its first bucket
  // there, and its other candidate bucket there.
  struct NewPlace {
    std::uint32_t bucket;
    std::uint32_t first;
    std::uint32_t other;
  };
  const auto new_place_of = [&](std::size_t pos) {
    const auto bucket = static_cast<std::uint32_t>(pos / SlotsPerBucket);
    const std::uint64_t hash = hash_key(slots_.item(pos).first);
    const detail::MapBucketPair now = detail::map_buckets(hash, old_buckets);
    const detail::MapBucketPair next = detail::map_buckets(hash, new_buckets);
    const bool home = now.first == bucket;
    return NewPlace{home ? next.first : next.second, next.first,
                    home ? next.second : next.first};
  };
  const auto new_bucket_of = [&](std::size_t pos) { return new_place_of(pos).bucket; };
  // Items that will go to new bucket target, all from old bucket target / 2.
  const auto arrivals = [&](std::uint32_t target) {
    unsigned count = 0;
    const std::size_t first = slot_index(target / 2, 0);
    for (std::size_t pos = first; pos < first + SlotsPerBucket; ++pos) {
      if (slots_.occupied(pos) && new_bucket_of(pos) == target) ++count;
    }
    return count;
  };
  std::uint64_t pending_hash = 0;
  std::uint32_t pending_bucket = 0;
  // When both of the pending item's new buckets would be full, one item bound for one of
  // them goes to its other new bucket instead, if that one keeps a free slot after its
  // own arrivals; it moves first, before any other item, so that slot is still free.
  std::size_t evicted = kNoPosition;
  std::uint32_t evicted_to = 0;
  if (pending != nullptr) {
    pending_hash = hash_key(pending->key);
    const detail::MapBucketPair pair = detail::map_buckets(pending_hash, new_buckets);
    if (arrivals(pair.first) < SlotsPerBucket) {
      pending_bucket = pair.first;
    } else if (arrivals(pair.second) < SlotsPerBucket) {
      pending_bucket = pair.second;
    } else {
      for (const std::uint32_t target : {pair.first, pair.second}) {  // bounded: 2 * B
        const std::size_t from = slot_index(target / 2, 0);
        for (std::size_t pos = from; pos < from + SlotsPerBucket && evicted == kNoPosition; ++pos) {
          if (!slots_.occupied(pos)) continue;
          const NewPlace place = new_place_of(pos);
          if (place.bucket == target && place.other != pair.first &&
              place.other != pair.second && arrivals(place.other) < SlotsPerBucket) {
            pending_bucket = target;
            evicted = pos;
            evicted_to = place.other;
          }
        }
        if (evicted != kNoPosition) break;
      }
      if (evicted == kNoPosition) return false;
    }
  }
  Slots new_slots(new_buckets, config_.huge_pages, slots_.allocator());  // may throw
  std::size_t pending_position = kNoPosition;
  if constexpr (!std::is_same_v<P, NoPending>) {
    if (pending != nullptr) {
      // Constructed first, before any item moves: if that throws, nothing changed.
      pending_position = slot_index(pending_bucket, 0);
      pending->place(new_slots, pending_position, detail::map_tag(pending_hash),
                     detail::map_buckets(pending_hash, new_buckets).first);
    }
  }
  if (evicted != kNoPosition) {
    const unsigned free = new_slots.free_slot(evicted_to);
    assert(free < SlotsPerBucket);
    new_slots.relocate(slots_, evicted, slot_index(evicted_to, free), slots_.tag(evicted),
                       new_place_of(evicted).first);
  }
  const std::size_t old_table_slots = table_slots();
  // The items move in position order, so their new buckets (about twice the old) are
  // written in order; a displaced item also writes its first bucket's summary, anywhere
  // in the new table: that group is prefetched kMoveAhead items before the move.
  // (Moving displaced items to their first bucket when it has room was measured: 16 %
  // of the items displaced after a doubling instead of 26 %, but growing inserts 10 %
  // slower, for the random item writes.)
  struct Move {
    std::size_t pos;
    NewPlace place;
  };
  constexpr std::size_t kMoveAhead = 16;  // a power of two
  std::array<Move, kMoveAhead> ahead{};
  std::size_t queued = 0;
  const auto move = [&](const Move& m) {
    // Never full (see above), so the slot is in the bucket.
    const unsigned free = new_slots.free_slot(m.place.bucket);
    assert(free < SlotsPerBucket);
    new_slots.relocate(slots_, m.pos, slot_index(m.place.bucket, free), slots_.tag(m.pos),
                       m.place.first);
  };
  for (std::size_t pos = 0; pos < old_table_slots; ++pos) {  // bounded by the slots
    if (!slots_.occupied(pos)) continue;
    const Move next{pos, new_place_of(pos)};
    if (next.place.bucket != next.place.first) new_slots.prefetch_tags(next.place.first);
    Move& slot = ahead[queued++ % kMoveAhead];
    if (queued > kMoveAhead) move(slot);
    slot = next;
  }
  for (std::size_t k = queued > kMoveAhead ? queued - kMoveAhead : 0; k < queued; ++k) {
    move(ahead[k % kMoveAhead]);  // bounded by kMoveAhead
  }
  const std::size_t new_stash = std::size_t{new_buckets} * SlotsPerBucket;
  std::size_t new_stash_count = 0;
  for (std::size_t i = 0; i < kStashSlots; ++i) {  // bounded by the stash
    const std::size_t pos = old_table_slots + i;
    if (!slots_.occupied(pos)) continue;
    const detail::MapBucketPair pair =
        detail::map_buckets(hash_key(slots_.item(pos).first), new_buckets);
    std::size_t to = free_slot_of(new_slots, pair.first);
    if (to == kNoPosition) to = free_slot_of(new_slots, pair.second);
    if (to == kNoPosition) to = new_stash + new_stash_count++;
    new_slots.relocate(slots_, pos, to, slots_.tag(pos), pair.first);
  }
  slots_.swap(new_slots);
  bucket_count_ = new_buckets;
  stash_count_ = new_stash_count;
  if (pending != nullptr) {
    last_slow_position_ = pending_position;
    ++size_;
  }
  note_stash_level();
  return true;
}

// Rebuilds the table with bucket_count buckets and seed, adding *pending if given.
// Phase 1 (may fail, may throw std::bad_alloc) allocates everything and places handles
// (old slot positions; pending is handle slots_.size()) with the same search as insert,
// then constructs the pending item in its planned slot (which may throw: nothing has
// moved yet). Phase 2 (cannot fail: nothrow moves only) moves the items to their planned
// slots. Returns false, having changed nothing but stats (pending included), when phase
// 1 cannot place every item.
CUCKOO_MAP_TEMPLATE
template <class P>
bool CUCKOO_MAP::rebuild(std::uint32_t bucket_count, std::uint64_t seed, P* pending) {
  const std::size_t old_positions = slots_.size();
  const std::size_t handle_count = old_positions + (pending != nullptr ? 1 : 0);
  const std::size_t new_table_slots = std::size_t{bucket_count} * SlotsPerBucket;
  Slots new_slots(bucket_count, config_.huge_pages, slots_.allocator());
  std::vector<std::uint64_t> hashes(handle_count, 0);
  std::vector<std::uint64_t> placement(new_table_slots + kStashSlots, kNoHandle);
  PlanView view{&placement, &hashes, bucket_count};
  std::size_t new_stash_count = 0;
  const auto key_of = [&](std::uint64_t handle) -> const K& {
    return handle == old_positions ? static_cast<const K&>(pending->key)
                                   : slots_.item(handle).first;
  };
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
    if (handle < old_positions && !slots_.occupied(handle)) continue;
    const std::uint64_t hash = hash_with(key_of(handle), seed);
    hashes[handle] = hash;
    const detail::MapBucketPair pair = detail::map_buckets(hash, bucket_count);
    if (place_in(pair.first, handle) || place_in(pair.second, handle)) continue;
    detail::MapCuckooPath path;
    ++stats_.bfs_searches;
    if (search_.find_path(view, pair.first, pair.second, config_.max_path_length, path)) {
      detail::MapPathSearch<SlotsPerBucket>::apply(view, path);
      placement[slot_index(path.hops[0].bucket, path.hops[0].slot)] = handle;
      stats_.longest_path = std::max<std::uint32_t>(stats_.longest_path, path.length);
      continue;
    }
    ++stats_.bfs_failures;
    if (new_stash_count == kStashSlots) return false;
    placement[new_table_slots + new_stash_count] = handle;
    ++new_stash_count;
  }

  if constexpr (!std::is_same_v<P, NoPending>) {
    if (pending != nullptr) {
      // The pending handle was placed last, so no search moved it: it is in one of its
      // buckets or the stash.
      const std::uint64_t hash = hashes[old_positions];
      const detail::MapBucketPair pair = detail::map_buckets(hash, bucket_count);
      std::size_t at = kNoPosition;
      for (unsigned s = 0; s < SlotsPerBucket && at == kNoPosition; ++s) {
        if (placement[slot_index(pair.first, s)] == old_positions) at = slot_index(pair.first, s);
        if (placement[slot_index(pair.second, s)] == old_positions) at = slot_index(pair.second, s);
      }
      for (std::size_t i = 0; i < kStashSlots && at == kNoPosition; ++i) {
        if (placement[new_table_slots + i] == old_positions) at = new_table_slots + i;
      }
      assert(at != kNoPosition);
      pending->place(new_slots, at, detail::map_tag(hash), pair.first);  // may throw: nothing moved
      last_slow_position_ = at;
    }
  }
  for (std::size_t pos = 0; pos < placement.size(); ++pos) {  // bounded by the slots
    const std::uint64_t handle = placement[pos];
    if (handle == kNoHandle || handle == old_positions) continue;
    new_slots.relocate(slots_, handle, pos, detail::map_tag(hashes[handle]),
                       detail::map_buckets(hashes[handle], bucket_count).first);
  }
  slots_.swap(new_slots);
  bucket_count_ = bucket_count;
  seed_ = seed;
  stash_count_ = new_stash_count;
  if (pending != nullptr) ++size_;
  note_stash_level();
  return true;
}

}  // namespace cuckoo
