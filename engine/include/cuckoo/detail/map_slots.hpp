// CuckooMap internals: the slot storage (flat buckets plus occupancy masks).
//
// Layout. Positions 0 .. table_slots - 1 are the table (bucket i holds positions
// i * B .. i * B + B - 1), positions table_slots .. table_slots + StashSlots - 1 the
// stash: the numbering serialization uses. Items are std::pair<K, V> objects stored in
// place, one flat array indexed by position, with no per-slot wrapper: a bucket of four
// uint64 -> uint64 pairs is exactly one 64-byte cache line, and the array is cache-line
// aligned (2 MiB aligned with huge pages, see aligned_buffer.hpp), so a lookup reads one
// line per candidate bucket. Which slots hold an item is kept apart, one byte per group
// of B positions (bit s of byte g: position g * B + s), so that the occupancy of a whole
// bucket is one byte and finding a free slot is one countr_one. StashSlots is a
// multiple of B, so the stash is whole groups after the table's.
//
// Unoccupied storage is zero bytes, never a live object: items are constructed on
// emplace() and destroyed on reset(), clear() and destruction, so any K and V work
// (strings included). For trivially copyable keys the lookup may compare an unoccupied
// slot's zero key and then discard the result by the mask (kTrivialItems).
//
// Memory comes from Alloc (rebound to cache lines, see aligned_buffer.hpp); the storage
// keeps the allocator with its memory, and CuckooMap applies the propagation rules.
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

namespace cuckoo::detail {

template <class K, class V, unsigned B, std::size_t StashSlots,
          class Alloc = std::allocator<std::pair<const K, V>>>
class MapSlots {
  using Buffer = BasicAlignedBuffer<Alloc>;

  static_assert(B >= 1 && B <= 8, "a bucket's occupancy must fit one byte");
  static_assert(StashSlots % B == 0, "the stash must be whole groups of B positions");
  static_assert(alignof(std::pair<K, V>) <= Buffer::kCacheLineBytes,
                "items must not need more than cache-line alignment");

 public:
  using value_type = std::pair<K, V>;
  // A bucket whose occupancy byte is kFullMask has no free slot.
  static constexpr std::uint8_t kFullMask = static_cast<std::uint8_t>((1U << B) - 1);
  // Memory per position, for allocation budgets: the item and at most one mask byte.
  static constexpr std::size_t kBytesPerPosition = sizeof(value_type) + 1;
  // The most positions one storage may hold.
  static constexpr std::size_t kMaxPositions =
      static_cast<std::size_t>(std::numeric_limits<std::ptrdiff_t>::max()) / kBytesPerPosition;
  // Items whose bytes are their value: copies of the storage are byte copies, and a
  // lookup may compare the (zero) key of an unoccupied slot, discarding the result by
  // the occupancy mask.
  static constexpr bool kTrivialItems =
      std::is_trivially_copyable_v<K> && std::is_trivially_copyable_v<V>;

  MapSlots() = default;
  explicit MapSlots(const Alloc& alloc) : items_(alloc), masks_(alloc) {}

  // bucket_count buckets and the stash, all unoccupied. Throws std::bad_alloc.
  // REQUIRES: bucket_count * B + StashSlots <= kMaxPositions.
  MapSlots(std::uint32_t bucket_count, bool huge_pages, const Alloc& alloc = Alloc())
      : items_(position_count_for(bucket_count) * sizeof(value_type), huge_pages, alloc),
        masks_(group_count_for(bucket_count), huge_pages, alloc),
        bucket_count_(bucket_count),
        positions_(position_count_for(bucket_count)) {}

  // A deep copy of other whose memory comes from alloc.
  MapSlots(const MapSlots& other, const Alloc& alloc)
    requires kTrivialItems
      : items_(other.items_, alloc), masks_(other.masks_, alloc),
        bucket_count_(other.bucket_count_), positions_(other.positions_) {}
  MapSlots(const MapSlots& other, const Alloc& alloc)
      : items_(other.items_.size(), other.items_.huge_pages(), alloc),
        masks_(other.masks_.size(), other.masks_.huge_pages(), alloc),
        bucket_count_(other.bucket_count_),
        positions_(other.positions_) {
    std::size_t pos = 0;
    try {
      for (; pos < positions_; ++pos) {  // bounded by positions_
        if (other.occupied(pos)) emplace(pos, other.item(pos));
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
      swap(copy);
    }
    return *this;
  }
  MapSlots(MapSlots&& other) noexcept
      : items_(std::move(other.items_)),
        masks_(std::move(other.masks_)),
        bucket_count_(std::exchange(other.bucket_count_, 0)),
        positions_(std::exchange(other.positions_, 0)) {}
  MapSlots& operator=(MapSlots&& other) noexcept {
    if (this != &other) {
      MapSlots moved(std::move(other));
      swap(moved);
    }
    return *this;
  }
  ~MapSlots() { destroy_all(); }

  void swap(MapSlots& other) noexcept {
    items_.swap(other.items_);
    masks_.swap(other.masks_);
    std::swap(bucket_count_, other.bucket_count_);
    std::swap(positions_, other.positions_);
  }

  static constexpr std::size_t position_count_for(std::uint32_t bucket_count) noexcept {
    return std::size_t{bucket_count} * B + StashSlots;
  }

  Alloc allocator() const noexcept { return items_.allocator(); }
  // Bytes taken from the allocator (items and occupancy bytes).
  std::size_t allocated_bytes() const noexcept {
    return items_.allocated_bytes() + masks_.allocated_bytes();
  }

  // Table and stash positions.
  std::size_t size() const noexcept { return positions_; }
  bool empty() const noexcept { return positions_ == 0; }
  std::uint32_t bucket_count() const noexcept { return bucket_count_; }

  bool occupied(std::size_t pos) const noexcept {
    assert(pos < positions_);
    return ((masks_.data()[pos / B] >> (pos % B)) & 1U) != 0;
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

  // Constructs an item in pos from args. If the construction throws, pos stays
  // unoccupied. REQUIRES: !occupied(pos).
  template <class... Args>
  value_type& emplace(std::size_t pos, Args&&... args) {
    assert(!occupied(pos));
    value_type* p = ::new (static_cast<void*>(slot_pointer(pos)))
        value_type(std::forward<Args>(args)...);
    masks_.data()[pos / B] |= static_cast<std::uint8_t>(1U << (pos % B));
    return *p;
  }

  // Destroys the item in pos and zeroes its storage. REQUIRES: occupied(pos).
  void reset(std::size_t pos) noexcept {
    assert(occupied(pos));
    std::destroy_at(std::launder(slot_pointer(pos)));
    zero_storage(pos);
    masks_.data()[pos / B] &= static_cast<std::uint8_t>(~(1U << (pos % B)));
  }

  // Destroys every item; the positions stay.
  void clear() noexcept { destroy_all(); }

  // ---- Bucket access for the hot paths.

  // Bit s set: slot s of bucket holds an item. REQUIRES: bucket < bucket_count().
  std::uint8_t mask(std::uint32_t bucket) const noexcept {
    assert(bucket < bucket_count_);
    return masks_.data()[bucket];
  }
  // The first free slot of bucket, or B if it is full.
  unsigned free_slot(std::uint32_t bucket) const noexcept {
    return static_cast<unsigned>(std::countr_one(static_cast<unsigned>(mask(bucket))));
  }
  // The key stored in slot s of bucket, read without checking occupancy.
  // REQUIRES: kTrivialItems or slot s is occupied.
  const K& key_at(std::uint32_t bucket, unsigned s) const noexcept {
    return std::launder(slot_pointer(std::size_t{bucket} * B + s))->first;
  }
  // Hints the cache to load bucket's items and occupancy byte.
  void prefetch(std::uint32_t bucket) const noexcept {
    const auto* first = reinterpret_cast<const char*>(slot_pointer(std::size_t{bucket} * B));
    __builtin_prefetch(first);
    if constexpr (sizeof(value_type) * B > Buffer::kCacheLineBytes) {
      __builtin_prefetch(first + sizeof(value_type) * B - 1);
    }
    __builtin_prefetch(masks_.data() + bucket);
  }

 private:
  static constexpr std::size_t group_count_for(std::uint32_t bucket_count) noexcept {
    return std::size_t{bucket_count} + StashSlots / B;
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
      masks_.fill_zero();
    } else {
      for (std::size_t pos = 0; pos < positions_; ++pos) {  // bounded by positions_
        if (occupied(pos)) reset(pos);
      }
    }
  }

  Buffer items_;  // positions_ * sizeof(value_type) bytes
  Buffer masks_;  // one byte per group of B positions
  std::uint32_t bucket_count_ = 0;
  std::size_t positions_ = 0;
};

}  // namespace cuckoo::detail
