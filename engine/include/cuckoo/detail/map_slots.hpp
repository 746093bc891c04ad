// CuckooMap internals: the slot storage (flat buckets plus one tag byte per slot).
//
// Layout. Positions 0 .. table_slots - 1 are the table (bucket i holds positions
// i * B .. i * B + B - 1), positions table_slots .. table_slots + StashSlots - 1 the
// stash: the numbering serialization uses. Items are std::pair<const K, V> objects
// stored in place, one flat array indexed by position, with no per-slot wrapper: a
// bucket of four uint64 -> uint64 pairs is exactly one 64-byte cache line, and the
// array is cache-line aligned (2 MiB aligned with huge pages, see aligned_buffer.hpp).
//
// Const keys. The object in a slot is a std::pair<const K, V>, constructed as one, so
// the references the map hands out (value_type&, as in std::unordered_map) name an
// object of exactly that type. The map moves items between slots (cuckoo paths,
// rebuilds, move assignment), which for a non-trivial K (std::string) must move the key,
// not copy it: a copy may throw half way through a path. As abseil's map slots do
// (container/internal/container_memory.h, map_slot_policy::transfer), those moves read
// the item through the layout-compatible std::pair<K, V> (std::launder'ed; the two
// pairs' members have the same types up to const, so the same offsets, checked below)
// and then destroy the source at once: the moved-from key is never observed through
// the const view. relocate() is the only place that does this.
//
// Trivially copyable K and V: the items' bytes are their value, so copies of the storage
// are byte copies (kTrivialItems).
//
// Tags. Beside the items, one byte per position: 0 for an empty slot, else the item's
// tag, 8 bits of its hash that are never 0 (map_tag, map_layout.hpp). A bucket's B tags
// are adjacent, so one load reads them all: occupancy (the nonzero tags) and the
// candidates for a key (the tags equal to its tag) are SWAR byte tests on that word. A
// lookup compares keys only in candidate slots, so a miss reads the two buckets' tags and
// nearly never an item (a foreign item shares a tag with probability 1/255). The tag
// depends on the hash alone, not on the bucket count, so moving an item keeps its tag.
// StashSlots is a multiple of B, so the stash is whole groups after the table's.
//
// Summaries: one-line misses. A bucket's tags are a group of kGroupBytes bytes (8 for
// B <= 4) that also holds the bucket's summary of its displaced items, the items whose
// first bucket (map_layout.hpp) is this one but which are stored in their second:
//   byte B      the displaced mask: bit s set when slot s of THIS bucket holds an item
//               stored in its second bucket (its first is another one);
//   byte B + 1  the displaced filter: bit (tag & 7) set for the tag of every item whose
//               first bucket is this one and which is stored in its second;
//   bytes B + 2, B + 3  how many such items there are (little-endian uint16). When it
//               drops to 0 the filter is cleared; at 65535 it saturates and stays, and the
//               filter with it (conservative: nothing is ever missed, only re-read).
// A key whose tag matches no slot of its first bucket and whose tag bit is clear in the
// first bucket's filter is in neither bucket: the miss reads one line of tags, not two.
// Inserts try the first bucket first, so at the default loads most items are in it and
// most hits read one bucket too. The summaries are kept by every write below: emplace()
// and reset() are told the item's first bucket, move_within() derives it, relocate()
// and relocate_all() build a new storage's summaries and leave the source's stale (the
// source is emptied and discarded).
//
// Unoccupied storage never holds a live object, and its bytes are unspecified (the item
// array is not zero-filled, nor zeroed when an item leaves: a doubling would otherwise
// write every byte of the new table once more and dirty every line of the old one):
// items are constructed on emplace() and destroyed on reset(), clear() and destruction,
// and nothing reads a slot whose tag is 0, so any K and V work (strings included).
//
// Memory comes from Alloc (rebound to cache lines, see aligned_buffer.hpp). Swap and move
// assignment follow the propagate_on_container_* traits (aligned_buffer.hpp) and REQUIRE
// equal allocators where those say not to propagate; CuckooMap's assignments build on
// take(), which says explicitly whether the allocator comes along.
// Copies are deep (copy-constructing each item; a throwing copy leaves nothing behind);
// a moved-from storage has no positions. Not thread-safe; const members may run
// concurrently with each other.
#pragma once

#include <bit>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "aligned_buffer.hpp"
#include "platform.hpp"

namespace cuckoo::detail {

template <class K, class V, unsigned B, std::size_t StashSlots,
          class Alloc = std::allocator<std::pair<const K, V>>>
class MapSlots {
  using Buffer = BasicAlignedBuffer<Alloc>;

  static_assert(B >= 1 && B <= 8, "a bucket's tags must fit one 64-bit word");
  static_assert(StashSlots % B == 0, "the stash must be whole groups of B positions");
  static_assert(alignof(std::pair<K, V>) <= Buffer::kCacheLineBytes,
                "items must not need more than cache-line alignment");
  static_assert(sizeof(std::pair<const K, V>) == sizeof(std::pair<K, V>) &&
                    alignof(std::pair<const K, V>) == alignof(std::pair<K, V>),
                "relocate() reads a std::pair<const K, V> as the layout-compatible "
                "std::pair<K, V>");

 public:
  // What a slot holds and the map's users see.
  using value_type = std::pair<const K, V>;
  // The same item with a movable key: what relocate() moves from, and what an item
  // built before its slot is known (a cuckoo path) is built as.
  using mutable_value_type = std::pair<K, V>;
  // Bytes of a bucket's tag group: its B tags and its summary (above), a power of two
  // of at least 8, so that one 8-byte load reads all the tags of a bucket.
  static constexpr std::size_t kGroupBytes = std::bit_ceil(std::size_t{B} + 4);
  // The displaced count at which it saturates (see the top of this file).
  static constexpr std::uint16_t kDisplacedSaturated = 0xffff;
  // Memory per position, for allocation budgets: the item and its share of a tag group.
  static constexpr std::size_t kBytesPerPosition = sizeof(value_type) + kGroupBytes / B;
  // The most positions one storage may hold.
  static constexpr std::size_t kMaxPositions =
      static_cast<std::size_t>(std::numeric_limits<std::ptrdiff_t>::max()) / kBytesPerPosition;
  // Items whose bytes are their value: copies of the storage are byte copies.
  static constexpr bool kTrivialItems =
      std::is_trivially_copyable_v<K> && std::is_trivially_copyable_v<V>;

  MapSlots() = default;
  explicit MapSlots(const Alloc& alloc) : items_(alloc), tags_(alloc) {}

  // bucket_count buckets and the stash, all unoccupied. Throws std::bad_alloc.
  // REQUIRES: bucket_count * B + StashSlots <= kMaxPositions.
  MapSlots(std::uint32_t bucket_count, bool huge_pages, const Alloc& alloc = Alloc())
      : items_(position_count_for(bucket_count) * sizeof(value_type), huge_pages, alloc,
               typename Buffer::Uninitialized{}),
        tags_(tag_bytes_for(bucket_count), huge_pages, alloc),
        groups_(groups_of(tags_)),
        bucket_count_(bucket_count),
        positions_(position_count_for(bucket_count)) {}

  // A deep copy of other whose memory comes from alloc.
  MapSlots(const MapSlots& other, const Alloc& alloc)
    requires kTrivialItems
      : items_(other.items_, alloc), tags_(other.tags_, alloc), groups_(groups_of(tags_)),
        bucket_count_(other.bucket_count_), positions_(other.positions_) {}
  MapSlots(const MapSlots& other, const Alloc& alloc)
      : items_(other.items_.size(), other.items_.huge_pages(), alloc,
               typename Buffer::Uninitialized{}),
        tags_(other.tags_.size(), other.tags_.huge_pages(), alloc),
        groups_(groups_of(tags_)),
        bucket_count_(other.bucket_count_),
        positions_(other.positions_) {
    std::size_t pos = 0;
    try {
      for (; pos < positions_; ++pos) {  // bounded by positions_
        if (other.occupied(pos)) construct(pos, other.tag(pos), other.item(pos));
      }
    } catch (...) {
      destroy_items();
      throw;
    }
    copy_groups_from(other);  // the summaries, which describe the same placement
  }
  MapSlots(const MapSlots& other)
      : MapSlots(other, std::allocator_traits<Alloc>::select_on_container_copy_construction(
                            other.allocator())) {}
  // Copy assignment keeps this storage's allocator.
  MapSlots& operator=(const MapSlots& other) {
    if (this != &other) {
      MapSlots copy(other, allocator());
      take<false>(copy);
    }
    return *this;
  }
  MapSlots(MapSlots&& other) noexcept
      : items_(std::move(other.items_)),
        tags_(std::move(other.tags_)),
        groups_(std::exchange(other.groups_, kNoGroups)),
        bucket_count_(std::exchange(other.bucket_count_, 0)),
        positions_(std::exchange(other.positions_, 0)) {}
  // Takes other's memory, and its allocator when propagate_on_container_move_assignment.
  // REQUIRES: that, or allocators that compare equal (the items cannot move one by one
  // here: CuckooMap's move assignment does that).
  MapSlots& operator=(MapSlots&& other) noexcept {
    take<std::allocator_traits<Alloc>::propagate_on_container_move_assignment::value>(other);
    return *this;
  }
  ~MapSlots() { destroy_items(); }

  // Exchanges the contents; the allocators only when propagate_on_container_swap.
  // REQUIRES: that, or allocators that compare equal (asserted in debug builds).
  void swap(MapSlots& other) noexcept {
    items_.swap(other.items_);
    tags_.swap(other.tags_);
    std::swap(groups_, other.groups_);
    std::swap(bucket_count_, other.bucket_count_);
    std::swap(positions_, other.positions_);
  }

  // Destroys this storage's items, frees its memory and takes other's, leaving other
  // with no positions; takes other's allocator too when TakeAllocator (Alloc must then be
  // copy assignable), else keeps this one. REQUIRES: TakeAllocator, or allocators that
  // compare equal (asserted in debug builds).
  template <bool TakeAllocator>
  void take(MapSlots& other) noexcept {
    if (this == &other) return;
    destroy_items();
    items_.template take<TakeAllocator>(other.items_);
    tags_.template take<TakeAllocator>(other.tags_);
    groups_ = std::exchange(other.groups_, kNoGroups);
    bucket_count_ = std::exchange(other.bucket_count_, 0);
    positions_ = std::exchange(other.positions_, 0);
  }

  static constexpr std::size_t position_count_for(std::uint32_t bucket_count) noexcept {
    return std::size_t{bucket_count} * B + StashSlots;
  }

  Alloc allocator() const noexcept { return items_.allocator(); }
  // Bytes taken from the allocator (items and tags).
  std::size_t allocated_bytes() const noexcept {
    return items_.allocated_bytes() + tags_.allocated_bytes();
  }

  // Table and stash positions.
  std::size_t size() const noexcept { return positions_; }
  bool empty() const noexcept { return positions_ == 0; }
  std::uint32_t bucket_count() const noexcept { return bucket_count_; }

  bool occupied(std::size_t pos) const noexcept {
    assert(pos < positions_);
    return tags_.data()[tag_index(pos)] != 0;
  }
  // The tag of the item in pos (0: unoccupied).
  std::uint8_t tag(std::size_t pos) const noexcept {
    assert(pos < positions_);
    return tags_.data()[tag_index(pos)];
  }
  // Whether pos is a table slot holding an item stored in its second bucket.
  bool displaced(std::size_t pos) const noexcept {
    assert(pos < positions_);
    return pos < table_slots() && (group(bucket_of(pos))[B] >> (pos % B) & 1U) != 0;
  }
  // Bucket's summary (see the top of this file), for the invariant check.
  std::uint8_t displaced_mask(std::uint32_t bucket) const noexcept { return group(bucket)[B]; }
  std::uint8_t displaced_filter(std::uint32_t bucket) const noexcept {
    return group(bucket)[B + 1];
  }
  std::uint16_t displaced_count(std::uint32_t bucket) const noexcept {
    const std::uint8_t* g = group(bucket);
    return static_cast<std::uint16_t>(g[B + 2] | g[B + 3] << 8);
  }
  // Whether an item whose first bucket is `bucket` and whose tag is `tag` may be stored
  // in its second bucket: if not, a key with that tag absent from its first bucket is
  // absent from both. REQUIRES: bucket < bucket_count().
  bool second_may_hold(std::uint32_t bucket, std::uint8_t tag) const noexcept {
    return (group(bucket)[B + 1] >> (tag & 7U) & 1U) != 0;
  }
  // REQUIRES: occupied(pos).
  value_type& item(std::size_t pos) noexcept {
    assert(occupied(pos));
    return *std::launder(slot_pointer(pos));
  }
  const value_type& item(std::size_t pos) const noexcept {
    assert(occupied(pos));
    return *std::launder(slot_pointer(pos));
  }

  // The item in pos seen with a movable key, for moving it out (relocate, and the map's
  // extract and merge), after which the caller resets pos without reading the key again
  // (see the top of this file). REQUIRES: occupied(pos).
  mutable_value_type& mutable_item(std::size_t pos) noexcept {
    assert(occupied(pos));
    return *std::launder(
        reinterpret_cast<mutable_value_type*>(static_cast<void*>(slot_pointer(pos))));
  }

  // Constructs an item with tag `tag` in pos from args, whose first bucket is `first`
  // (read only when pos is a table slot). If the construction throws, pos stays
  // unoccupied. REQUIRES: !occupied(pos), tag != 0 (map_tag
  // of the item's hash), first the first of its candidate buckets when pos is in the table.
  template <class... Args>
  value_type& emplace(std::size_t pos, std::uint8_t tag, std::uint32_t first, Args&&... args) {
    value_type& item = construct(pos, tag, std::forward<Args>(args)...);
    note_placed(pos, first, tag);
    return item;
  }

 private:
  // emplace() without the summaries.
  template <class... Args>
  value_type& construct(std::size_t pos, std::uint8_t tag, Args&&... args) {
    assert(!occupied(pos) && tag != 0);
    // If this throws, the tag is still 0: pos stays unoccupied.
    value_type* p =
        ::new (static_cast<void*>(slot_pointer(pos))) value_type(std::forward<Args>(args)...);
    tags_.data()[tag_index(pos)] = tag;
    return *p;
  }

 public:
  // Moves the item in `from` to `to`, both table slots of its two candidate buckets (a
  // cuckoo path's move), and empties `from`. Its first bucket follows from where it was:
  // `from`'s bucket unless it was displaced, else `to`'s.
  // REQUIRES: occupied(from), !occupied(to), both in the table, in the item's buckets.
  void move_within(std::size_t to, std::size_t from) noexcept {
    assert(to < table_slots() && from < table_slots());
    move_to(to, from, displaced(from) ? bucket_of(to) : bucket_of(from));
  }
  // Moves the item in `from` (a table or stash slot), with its tag, to `to` and empties
  // `from`; first is the item's first bucket. REQUIRES: occupied(from), !occupied(to),
  // first the first candidate bucket of the item's hash.
  void move_to(std::size_t to, std::size_t from, std::uint32_t first) noexcept {
    const std::uint8_t t = tag(from);
    move_item(*this, from, to, t);
    note_removed(from, first);
    drop(from);
    note_placed(to, first, t);
  }

  // Moves the item in position `from` of `source`, another storage, to position `to` of
  // this storage with tag `tag` and first bucket `first` (of this storage's bucket count),
  // and empties `from` in source without updating source's summaries: for rebuilds, which
  // empty the source and discard it. The key is moved, not copied (see the top of this
  // file). REQUIRES: source.occupied(from), !occupied(to), tag != 0, &source != this.
  void relocate(MapSlots& source, std::size_t from, std::size_t to, std::uint8_t tag,
                std::uint32_t first) noexcept {
    assert(&source != this);
    move_item(source, from, to, tag);
    source.drop(from);
    note_placed(to, first, tag);
  }
  // Moves every item of source, a storage of the same bucket count, to the same position
  // here, with its tags and summaries, and empties source (its memory stays).
  // REQUIRES: this storage holds no item, source.bucket_count() == bucket_count().
  void relocate_all(MapSlots& source) noexcept {
    assert(&source != this && source.positions_ == positions_);
    for (std::size_t pos = 0; pos < positions_; ++pos) {  // bounded by positions_
      if (source.occupied(pos)) {
        move_item(source, pos, pos, source.tag(pos));
        std::destroy_at(std::launder(source.slot_pointer(pos)));
      }
    }
    copy_groups_from(source);  // the tags set above, and the summaries
    source.tags_.fill_zero();
  }

  // Destroys the item in pos; first is the item's first bucket,
  // read only when displaced(pos). REQUIRES: occupied(pos).
  void reset(std::size_t pos, std::uint32_t first) noexcept {
    note_removed(pos, first);
    drop(pos);
  }

  // Destroys every item; the positions stay.
  void clear() noexcept {
    destroy_items();
    tags_.fill_zero();  // the tags and the summaries
  }

  // ---- Bucket access for the hot paths.

  // Bit s set: slot s of bucket holds an item. REQUIRES: bucket < bucket_count().
  [[gnu::always_inline]] std::uint8_t mask(std::uint32_t bucket) const noexcept {
#if defined(__SSE2__)
    return static_cast<std::uint8_t>(~equal_bytes_sse2(group(bucket), 0) & kSlotBits);
#else
    return mask_swar(tag_word(bucket));
#endif
  }
  // Bit s set: slot s of bucket holds an item whose tag is `tag`, i.e. the only slots
  // that can hold a key with that tag. REQUIRES: bucket < bucket_count(), tag != 0.
  [[gnu::always_inline]] std::uint8_t matches(std::uint32_t bucket,
                                              std::uint8_t tag) const noexcept {
#if defined(__SSE2__)
    return static_cast<std::uint8_t>(equal_bytes_sse2(group(bucket), tag) & kSlotBits);
#else
    return matches_swar(tag_word(bucket), tag);
#endif
  }

  // The portable forms of mask() and matches() on a bucket's tag word (its B tags, byte
  // s = slot s, higher bytes zero), used where SSE2 is not; public for the test that
  // checks both forms agree.
  static constexpr std::uint8_t mask_swar(std::uint64_t word) noexcept {
    return byte_flags(~zero_bytes(word) & kBucketBytes);
  }
  static constexpr std::uint8_t matches_swar(std::uint64_t word, std::uint8_t tag) noexcept {
    return byte_flags(zero_bytes(word ^ (kByteLows * tag)));
  }
#if defined(__SSE2__)
  // Bit i set: byte i of the 8 bytes at p equals b (one compare of all of them: movq,
  // pcmpeqb, pmovmskb). Bits 8..15 are 0.
  [[gnu::always_inline]] static unsigned equal_bytes_sse2(const std::uint8_t* p,
                                                          std::uint8_t b) noexcept {
    const __m128i bytes = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(p));
    const __m128i eq = _mm_cmpeq_epi8(bytes, _mm_set1_epi8(static_cast<char>(b)));
    return static_cast<unsigned>(_mm_movemask_epi8(eq)) & 0xffU;
  }
#endif
  // The first free slot of bucket, or B if it is full.
  unsigned free_slot(std::uint32_t bucket) const noexcept {
    return static_cast<unsigned>(std::countr_one(static_cast<unsigned>(mask(bucket))));
  }
  // The key stored in slot s of bucket. REQUIRES: slot s is occupied.
  const K& key_at(std::uint32_t bucket, unsigned s) const noexcept {
    return std::launder(slot_pointer(std::size_t{bucket} * B + s))->first;
  }
  // Hints the cache to load bucket's tags only.
  void prefetch_tags(std::uint32_t bucket) const noexcept {
    prefetch_kept(group(bucket));
  }
  // Hints the cache to load the item in slot s of bucket. Callers issue it under a branch
  // on the tags, the case where g++ drops a __builtin_prefetch (platform.hpp).
  void prefetch_item(std::uint32_t bucket, unsigned s) const noexcept {
    prefetch_kept(slot_pointer(std::size_t{bucket} * B + s));
  }
  // Hints the cache to load bucket's items (prefetch_kept: g++ drops a __builtin_prefetch
  // behind a branch on computed data, as in an inlined lookup).
  void prefetch_items(std::uint32_t bucket) const noexcept {
    const auto* first = reinterpret_cast<const char*>(slot_pointer(std::size_t{bucket} * B));
    prefetch_kept(first);
    if constexpr (sizeof(value_type) * B > Buffer::kCacheLineBytes) {
      // The bucket's last byte, from the integer address: a storage without buckets (a
      // moved-from map's lookups read bucket 0 of it) has a null item array, and null
      // plus an offset is undefined (clang's UBSan reports it); a prefetch never faults.
      const std::uintptr_t last =
          reinterpret_cast<std::uintptr_t>(first) + sizeof(value_type) * B - 1;
      prefetch_kept(reinterpret_cast<const char*>(last));
    }
  }

 private:
  // A group of kGroupBytes per bucket and per B stash positions.
  static constexpr std::size_t tag_bytes_for(std::uint32_t bucket_count) noexcept {
    return position_count_for(bucket_count) / B * kGroupBytes;
  }
  static_assert(kGroupBytes >= 8, "tag_word() loads 8 bytes of a group");

  std::size_t table_slots() const noexcept { return positions_ - StashSlots; }
  static constexpr std::uint32_t bucket_of(std::size_t pos) noexcept {
    return static_cast<std::uint32_t>(pos / B);
  }
  // Where pos's tag is: its bucket's (or stash group's) group, then its slot.
  static constexpr std::size_t tag_index(std::size_t pos) noexcept {
    return pos / B * kGroupBytes + pos % B;
  }
  // Reads go through groups_ (the same bytes as tags_, or kNoGroups for a storage with
  // no buckets); writes need buckets and go to tags_.
  const std::uint8_t* group(std::uint32_t bucket) const noexcept {
    return groups_ + std::size_t{bucket} * kGroupBytes;
  }
  std::uint8_t* group(std::uint32_t bucket) noexcept {
    return tags_.data() + std::size_t{bucket} * kGroupBytes;
  }
  void set_displaced_count(std::uint32_t bucket, std::uint16_t count) noexcept {
    std::uint8_t* g = group(bucket);
    g[B + 2] = static_cast<std::uint8_t>(count);
    g[B + 3] = static_cast<std::uint8_t>(count >> 8);
  }

  // The summaries' updates for an item with first bucket `first` (and tag t) placed in,
  // or about to leave, pos (nothing for a stash slot or an item in its first bucket).
  // Removal clears no filter bit of its own (the filter is a superset until the count
  // is 0), so it needs no tag.
  void note_placed(std::size_t pos, std::uint32_t first, std::uint8_t t) noexcept {
    if (pos >= table_slots() || bucket_of(pos) == first) return;
    assert(first < bucket_count_);
    group(bucket_of(pos))[B] |= static_cast<std::uint8_t>(1U << (pos % B));
    std::uint8_t* home = group(first);
    home[B + 1] |= static_cast<std::uint8_t>(1U << (t & 7U));
    const std::uint16_t count = displaced_count(first);
    if (count != kDisplacedSaturated) set_displaced_count(first, static_cast<std::uint16_t>(count + 1));
  }
  void note_removed(std::size_t pos, std::uint32_t first) noexcept {
    if (!displaced(pos)) return;
    assert(first < bucket_count_ && first != bucket_of(pos));
    group(bucket_of(pos))[B] &= static_cast<std::uint8_t>(~(1U << (pos % B)));
    const std::uint16_t count = displaced_count(first);
    assert(count != 0);
    if (count == kDisplacedSaturated) return;
    set_displaced_count(first, static_cast<std::uint16_t>(count - 1));
    if (count == 1) group(first)[B + 1] = 0;
  }

  // Constructs in `to` the item of source's `from`, moving it, with tag t; source's slot
  // is left holding the moved-from item, for drop(). REQUIRES: source.occupied(from),
  // !occupied(to), t != 0.
  void move_item(MapSlots& source, std::size_t from, std::size_t to, std::uint8_t t) noexcept {
    static_assert(std::is_nothrow_move_constructible_v<K> &&
                  std::is_nothrow_move_constructible_v<V>);
    assert(source.occupied(from) && !occupied(to) && t != 0);
    mutable_value_type& old = source.mutable_item(from);
    ::new (static_cast<void*>(slot_pointer(to)))
        value_type(std::move(old.first), std::move(old.second));
    tags_.data()[tag_index(to)] = t;
  }
  // Destroys the item in pos and zeroes its tag, leaving the summaries as they are.
  // REQUIRES: occupied(pos).
  void drop(std::size_t pos) noexcept {
    assert(occupied(pos));
    std::destroy_at(std::launder(slot_pointer(pos)));
    tags_.data()[tag_index(pos)] = 0;
  }
  // Copies other's tag groups (tags and summaries). REQUIRES: the same bucket count.
  void copy_groups_from(const MapSlots& other) noexcept {
    assert(other.tags_.size() == tags_.size());
    if (tags_.size() != 0) std::memcpy(tags_.data(), other.tags_.data(), tags_.size());
  }

  static constexpr std::uint64_t kByteLows = 0x0101010101010101ULL;
  static constexpr std::uint64_t kByteHighs = 0x8080808080808080ULL;
  static constexpr unsigned kSlotBits = (1U << B) - 1;
  static constexpr std::uint64_t kBucketBytes =
      B == 8 ? ~std::uint64_t{0} : (std::uint64_t{1} << (8 * B)) - 1;

  // The B tags of bucket, byte s = slot s (little-endian), higher bytes zero.
  std::uint64_t tag_word(std::uint32_t bucket) const noexcept {
    assert(bucket < bucket_count_);
    std::uint64_t w;
    std::memcpy(&w, group(bucket), sizeof(w));
    if constexpr (std::endian::native == std::endian::big) w = __builtin_bswap64(w);
    return w & kBucketBytes;
  }
  // The high bit of every zero byte of the bucket's B bytes of w, exactly (no borrows:
  // (w & 0x7f) + 0x7f sets a byte's high bit iff its low 7 bits are not all zero).
  static constexpr std::uint64_t zero_bytes(std::uint64_t w) noexcept {
    constexpr std::uint64_t kLow7 = ~kByteHighs;
    return ~(((w & kLow7) + kLow7) | w | kLow7) & (kByteHighs & kBucketBytes);
  }
  // Bit s of the result: the high bit of byte s of f (the multiply gathers the B flags
  // into the top byte; partial products never carry, as each byte sums distinct bits).
  static constexpr std::uint8_t byte_flags(std::uint64_t f) noexcept {
    return static_cast<std::uint8_t>((((f & kByteHighs) >> 7) * 0x0102040810204080ULL) >> 56);
  }

  value_type* slot_pointer(std::size_t pos) noexcept {
    return reinterpret_cast<value_type*>(items_.data()) + pos;
  }
  const value_type* slot_pointer(std::size_t pos) const noexcept {
    return reinterpret_cast<const value_type*>(items_.data()) + pos;
  }

  // Destroys every item (nothing to do for trivially destructible ones), leaving the tags
  // as they are: for destruction, and for clear(), which zeroes them afterwards.
  void destroy_items() noexcept {
    if constexpr (!std::is_trivially_destructible_v<value_type>) {
      for (std::size_t pos = 0; pos < positions_; ++pos) {  // bounded by positions_
        if (occupied(pos)) std::destroy_at(std::launder(slot_pointer(pos)));
      }
    }
  }

  // The tag groups a storage without buckets or stash (a moved-from map's) is read
  // through: bucket 0 of it holds no tag and an empty summary, so that a lookup in such a
  // map matches nothing and needs no test for it (CuckooMap::position_of). Never written.
  alignas(8) static constexpr std::uint8_t kNoGroups[kGroupBytes] = {};
  static const std::uint8_t* groups_of(const Buffer& tags) noexcept {
    return tags.data() != nullptr ? tags.data() : kNoGroups;
  }

  Buffer items_;  // positions_ * sizeof(value_type) bytes
  Buffer tags_;   // tag_bytes_for(bucket_count_) bytes: a group per bucket and stash group
  const std::uint8_t* groups_ = kNoGroups;  // tags_.data(), or kNoGroups when it is null
  std::uint32_t bucket_count_ = 0;
  std::size_t positions_ = 0;
};

}  // namespace cuckoo::detail
