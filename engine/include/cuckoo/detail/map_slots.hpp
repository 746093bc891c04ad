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
// Unoccupied storage is zero bytes, never a live object: items are constructed on
// emplace() and destroyed on reset(), clear() and destruction, so any K and V work
// (strings included).
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
  // Memory per position, for allocation budgets: the item and its tag byte.
  static constexpr std::size_t kBytesPerPosition = sizeof(value_type) + 1;
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
      : items_(position_count_for(bucket_count) * sizeof(value_type), huge_pages, alloc),
        tags_(tag_bytes_for(bucket_count), huge_pages, alloc),
        bucket_count_(bucket_count),
        positions_(position_count_for(bucket_count)) {}

  // A deep copy of other whose memory comes from alloc.
  MapSlots(const MapSlots& other, const Alloc& alloc)
    requires kTrivialItems
      : items_(other.items_, alloc), tags_(other.tags_, alloc),
        bucket_count_(other.bucket_count_), positions_(other.positions_) {}
  MapSlots(const MapSlots& other, const Alloc& alloc)
      : items_(other.items_.size(), other.items_.huge_pages(), alloc),
        tags_(other.tags_.size(), other.tags_.huge_pages(), alloc),
        bucket_count_(other.bucket_count_),
        positions_(other.positions_) {
    std::size_t pos = 0;
    try {
      for (; pos < positions_; ++pos) {  // bounded by positions_
        if (other.occupied(pos)) emplace(pos, other.tag(pos), other.item(pos));
      }
    } catch (...) {
      destroy_all();
      throw;
    }
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
        bucket_count_(std::exchange(other.bucket_count_, 0)),
        positions_(std::exchange(other.positions_, 0)) {}
  // Takes other's memory, and its allocator when propagate_on_container_move_assignment.
  // REQUIRES: that, or allocators that compare equal (the items cannot move one by one
  // here: CuckooMap's move assignment does that).
  MapSlots& operator=(MapSlots&& other) noexcept {
    take<std::allocator_traits<Alloc>::propagate_on_container_move_assignment::value>(other);
    return *this;
  }
  ~MapSlots() { destroy_all(); }

  // Exchanges the contents; the allocators only when propagate_on_container_swap.
  // REQUIRES: that, or allocators that compare equal (asserted in debug builds).
  void swap(MapSlots& other) noexcept {
    items_.swap(other.items_);
    tags_.swap(other.tags_);
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
    if constexpr (!std::is_trivially_destructible_v<value_type>) destroy_all();
    items_.template take<TakeAllocator>(other.items_);
    tags_.template take<TakeAllocator>(other.tags_);
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
    return tags_.data()[pos] != 0;
  }
  // The tag of the item in pos (0: unoccupied).
  std::uint8_t tag(std::size_t pos) const noexcept {
    assert(pos < positions_);
    return tags_.data()[pos];
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

  // Constructs an item with tag `tag` in pos from args. If the construction throws, pos
  // stays unoccupied (its storage zero bytes again). REQUIRES: !occupied(pos), tag != 0
  // (map_tag of the item's hash).
  template <class... Args>
  value_type& emplace(std::size_t pos, std::uint8_t tag, Args&&... args) {
    assert(!occupied(pos) && tag != 0);
    value_type* p;
    if constexpr (std::is_nothrow_constructible_v<value_type, Args&&...>) {
      p = ::new (static_cast<void*>(slot_pointer(pos))) value_type(std::forward<Args>(args)...);
    } else {
      try {
        p = ::new (static_cast<void*>(slot_pointer(pos))) value_type(std::forward<Args>(args)...);
      } catch (...) {
        zero_storage(pos);  // a member constructed before the throw may have written it
        throw;
      }
    }
    tags_.data()[pos] = tag;
    return *p;
  }

  // Moves the item in `from`, with its tag, to `to` and empties `from`.
  // REQUIRES: occupied(from), !occupied(to).
  void move_to(std::size_t to, std::size_t from) noexcept {
    relocate(*this, from, to, tag(from));
  }

  // Moves the item in position `from` of `source` (this storage or another one) to
  // position `to` of this storage with tag `tag`, and empties `from`. The key is moved,
  // not copied (see the top of this file).
  // REQUIRES: source.occupied(from), !occupied(to), tag != 0.
  void relocate(MapSlots& source, std::size_t from, std::size_t to, std::uint8_t tag) noexcept {
    static_assert(std::is_nothrow_move_constructible_v<K> &&
                  std::is_nothrow_move_constructible_v<V>);
    assert(source.occupied(from) && !occupied(to));
    mutable_value_type& old = source.mutable_item(from);
    ::new (static_cast<void*>(slot_pointer(to)))
        value_type(std::move(old.first), std::move(old.second));
    tags_.data()[to] = tag;
    source.reset(from);
  }

  // Destroys the item in pos and zeroes its storage. REQUIRES: occupied(pos).
  void reset(std::size_t pos) noexcept {
    assert(occupied(pos));
    std::destroy_at(std::launder(slot_pointer(pos)));
    zero_storage(pos);
    tags_.data()[pos] = 0;
  }

  // Destroys every item; the positions stay.
  void clear() noexcept { destroy_all(); }

  // ---- Bucket access for the hot paths.

  // Bit s set: slot s of bucket holds an item. REQUIRES: bucket < bucket_count().
  std::uint8_t mask(std::uint32_t bucket) const noexcept {
    return byte_flags(~zero_bytes(tag_word(bucket)) & kBucketBytes);
  }
  // Bit s set: slot s of bucket holds an item whose tag is `tag`, i.e. the only slots
  // that can hold a key with that tag. REQUIRES: bucket < bucket_count(), tag != 0.
  std::uint8_t matches(std::uint32_t bucket, std::uint8_t tag) const noexcept {
    return byte_flags(zero_bytes(tag_word(bucket) ^ (kByteLows * tag)));
  }
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
    __builtin_prefetch(tags_.data() + std::size_t{bucket} * B);
  }
  // Hints the cache to load the item in slot s of bucket. Callers issue it under a branch
  // on the tags, the case where g++ drops a __builtin_prefetch (platform.hpp).
  void prefetch_item(std::uint32_t bucket, unsigned s) const noexcept {
    prefetch_kept(slot_pointer(std::size_t{bucket} * B + s));
  }
  // Hints the cache to load bucket's items and tags.
  void prefetch(std::uint32_t bucket) const noexcept {
    const auto* first = reinterpret_cast<const char*>(slot_pointer(std::size_t{bucket} * B));
    __builtin_prefetch(first);
    if constexpr (sizeof(value_type) * B > Buffer::kCacheLineBytes) {
      __builtin_prefetch(first + sizeof(value_type) * B - 1);
    }
    prefetch_tags(bucket);
  }

 private:
  // One byte per position, plus 8 zero bytes so that tag_word() may load 8 bytes at any
  // bucket (B < 8 reads past the bucket; the bytes beyond are masked off).
  static constexpr std::size_t tag_bytes_for(std::uint32_t bucket_count) noexcept {
    return position_count_for(bucket_count) + 8;
  }

  static constexpr std::uint64_t kByteLows = 0x0101010101010101ULL;
  static constexpr std::uint64_t kByteHighs = 0x8080808080808080ULL;
  static constexpr std::uint64_t kBucketBytes =
      B == 8 ? ~std::uint64_t{0} : (std::uint64_t{1} << (8 * B)) - 1;

  // The B tags of bucket, byte s = slot s (little-endian), higher bytes zero.
  std::uint64_t tag_word(std::uint32_t bucket) const noexcept {
    assert(bucket < bucket_count_);
    std::uint64_t w;
    std::memcpy(&w, tags_.data() + std::size_t{bucket} * B, sizeof(w));
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

  void zero_storage(std::size_t pos) noexcept {
    std::memset(static_cast<void*>(slot_pointer(pos)), 0, sizeof(value_type));
  }

  void destroy_all() noexcept {
    if constexpr (std::is_trivially_destructible_v<value_type>) {
      items_.fill_zero();
      tags_.fill_zero();
    } else {
      for (std::size_t pos = 0; pos < positions_; ++pos) {  // bounded by positions_
        if (occupied(pos)) reset(pos);
      }
    }
  }

  Buffer items_;  // positions_ * sizeof(value_type) bytes
  Buffer tags_;   // tag_bytes_for(bucket_count_) bytes: one per position, then 8 zero
  std::uint32_t bucket_count_ = 0;
  std::size_t positions_ = 0;
};

}  // namespace cuckoo::detail
