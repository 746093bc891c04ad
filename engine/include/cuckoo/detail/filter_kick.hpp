// BasicCuckooFilter's slow insert path and stash refill (out-of-line members of
// BasicCuckooFilter, cuckoo/cuckoo_filter.hpp, included at its end).
//
// Insert. Fast path: one read of bucket i1 gives its copies of fp and its first empty
// slot (PackedTable::scan). If it has an empty slot and copies + stash_size < b, the
// item is below max_copies however many copies i2 holds (at most b), so steps (1) and
// (2) below would store it in that slot: it is stored there without reading i2, the
// only cache miss of most inserts below full load. i2 is prefetched before i1 is read,
// so that when i1 is full its miss has overlapped i1's. Otherwise the steps run in full.
// (1) If the candidate buckets and the stash already hold max_copies (2b; b
// when i1 == i2) copies of fp for this bucket pair: kDuplicateLimit, nothing changed.
// (2) An empty slot in i1, else in i2: stored. (3) If the stash is full: kFull,
// nothing changed. (4) Kick-out with one-level look-ahead (out of line): pick i1 or i2
// at random; then, at each step, for the full bucket fp wants, compute and prefetch the
// alternate bucket of every resident (their misses overlap, where a plain random walk
// pays one dependent miss per eviction). If some resident's alternate has an empty slot,
// the first such resident moves there and fp takes its slot: done. Otherwise fp swaps
// with a random resident, which becomes the homeless fingerprint at its (full)
// alternate. Each move or swap is one kick; at most max_kicks. If a fingerprint is still
// homeless after max_kicks, it (the last evicted one, usually not the new item) goes to
// the stash together with its two buckets, and the insert still returns kInserted. So a
// kick-out never loses an item (claim C6): every fingerprint is always in one of its
// buckets or in the stash.
//
// Kick randomness. Each kick walk draws from a detail::Rng seeded with
// mix64(seed ^ salt) ^ mix64(walk number). The walk number is stats().kick_walks, which is
// serialized, so a deserialized filter continues exactly as the original would have.
//
// Invariants kept: every fingerprint is in one of its two buckets or in the stash at
// every step of a walk (the homeless one is held in a local until it has a slot), the
// stash never holds more than kStashSlots entries, and kDuplicateLimit and kFull change
// nothing but stats(). Bounds: max_kicks_ steps per walk, kMaxSlots per bucket scan,
// kStashSlots per stash pass.
#pragma once

#ifndef CUCKOO_FILTER
#error "filter_kick.hpp holds out-of-line members of BasicCuckooFilter: include cuckoo/cuckoo_filter.hpp"
#endif

namespace cuckoo {

CUCKOO_FILTER_TEMPLATE
void CUCKOO_FILTER::rehome_stash() noexcept {
  for (unsigned k = 0; k < stash_size_;) {  // bound: kStashSlots, each step ends or shrinks
    const Placement& e = stash_[k];
    if (table_.try_place(e.bucket1, e.fingerprint) || table_.try_place(e.bucket2, e.fingerprint)) {
      stash_remove(k);
      ++stats_.stash_rehomes;
    } else {
      ++k;
    }
  }
}

// insert_hash() beyond its fast path: the copy limit needs bucket2, or bucket1 is full.
CUCKOO_FILTER_TEMPLATE
InsertResult CUCKOO_FILTER::insert_checked(const Placement& p) {
  if (holds_fingerprint(p)) [[unlikely]] {
    if (count_copies(p) >= max_copies_of(p)) {
      ++stats_.duplicate_rejections;
      return InsertResult::kDuplicateLimit;
    }
  }
  if (table_.try_place(p.bucket1, p.fingerprint) || table_.try_place(p.bucket2, p.fingerprint)) {
    ++size_;
    ++stats_.inserts;
    return InsertResult::kInserted;
  }
  return insert_with_kicks(p);
}

// Both candidate buckets are full and the item is below its copy limit.
CUCKOO_FILTER_TEMPLATE
InsertResult CUCKOO_FILTER::insert_with_kicks(const Placement& p) {
  if (stash_size_ == kStashSlots) {
    ++stats_.full_rejections;
    return InsertResult::kFull;
  }
  detail::Rng rng(detail::mix64(seed_ ^ kKickSeedSalt) ^ detail::mix64(stats_.kick_walks));
  ++stats_.kick_walks;
  std::uint32_t fp = p.fingerprint;
  std::uint32_t bucket = rng.below(2) == 0 ? p.bucket1 : p.bucket2;
  std::uint64_t kicks = 0;
  bool placed = false;
  // Invariant at the top of each step: `bucket` is full and fp (homeless) belongs to it.
  std::array<std::uint32_t, detail::PackedTable::kMaxSlots> residents{};
  std::array<std::uint32_t, detail::PackedTable::kMaxSlots> alternates{};
  while (kicks < max_kicks_) {  // bound: max_kicks_ <= CuckooFilterConfig::kMaxKicksLimit
    // Look-ahead: the alternates of all residents, prefetched together so that their
    // misses overlap instead of one per evicted fingerprint.
    const unsigned slots = table_.slots();
    table_.read_slots(bucket, residents);
    for (unsigned s = 0; s < slots; ++s) {  // bound: slots <= PackedTable::kMaxSlots
      assert(residents[s] != 0);  // the walk only evicts from full buckets
      alternates[s] = alt_bucket(bucket, residents[s]);
      table_.prefetch(alternates[s]);
    }
    // A resident whose alternate has room moves there and fp takes its slot: one move.
    for (unsigned s = 0; s < slots; ++s) {  // bound: slots <= PackedTable::kMaxSlots
      if (table_.try_place(alternates[s], residents[s])) {
        table_.set(bucket, s, fp);
        ++kicks;
        placed = true;
        break;
      }
    }
    if (placed) break;
    // No alternate has room: evict a random resident to its (full) alternate.
    const auto slot = static_cast<unsigned>(rng.below(slots));
    table_.set(bucket, slot, fp);
    fp = residents[slot];
    bucket = alternates[slot];
    ++kicks;
  }
  stats_.kicks += kicks;
  stats_.max_kicks_in_insert = std::max(stats_.max_kicks_in_insert, kicks);
  if (!placed) {
    stash_[stash_size_++] = {bucket, alt_bucket(bucket, fp), fp};
    stash_changed();
    ++stats_.kick_failures;
  }
  ++size_;
  ++stats_.inserts;
  return InsertResult::kInserted;
}

}  // namespace cuckoo
