// CuckooMap's copy and move assignment (out-of-line members of CuckooMap,
// cuckoo/cuckoo_map.hpp, included at its end): allocator propagation as
// std::allocator_traits says. Invariant kept: the new storage is built completely
// (which may throw std::bad_alloc) before this map changes, so a throwing assignment
// leaves both maps as they were.
#pragma once

#ifndef CUCKOO_MAP
#error "map_assignment.hpp holds out-of-line members of CuckooMap: include cuckoo/cuckoo_map.hpp"
#endif

namespace cuckoo {

CUCKOO_MAP_TEMPLATE
CUCKOO_MAP& CUCKOO_MAP::operator=(const CuckooMap& other) {
  if (this != &other) {
    Slots copy = AllocTraits::propagate_on_container_copy_assignment::value
                     ? Slots(other.slots_, other.slots_.allocator())
                     : Slots(other.slots_, slots_.allocator());
    config_ = other.config_;
    seed_ = other.seed_;
    key_hash_rule_ = other.key_hash_rule_;
    bucket_count_ = other.bucket_count_;
    size_ = other.size_;
    stash_count_ = other.stash_count_;
    slots_.template take<AllocTraits::propagate_on_container_copy_assignment::value>(copy);
    stats_ = other.stats_;
    hasher_ = other.hasher_;
    key_eq_ = other.key_eq_;
  }
  return *this;
}

// As the standard containers: with propagate_on_container_move_assignment the memory and
// the allocator move over; otherwise this map keeps its allocator, and takes other's
// memory only when the allocators compare equal (so this allocator can free it), else
// moves the items one by one into memory of its own.
CUCKOO_MAP_TEMPLATE
CUCKOO_MAP& CUCKOO_MAP::operator=(CuckooMap&& other) noexcept(
    (AllocTraits::propagate_on_container_move_assignment::value ||
     AllocTraits::is_always_equal::value) &&
    std::is_nothrow_move_assignable_v<Hasher> && std::is_nothrow_move_assignable_v<KeyEqual>) {
  if (this != &other) {
    if constexpr (AllocTraits::propagate_on_container_move_assignment::value) {
      slots_.template take<true>(other.slots_);
    } else if (AllocTraits::is_always_equal::value ||
               slots_.allocator() == other.slots_.allocator()) {
      slots_.template take<false>(other.slots_);
    } else {
      // A moved-from source has no storage at all: then neither has this map.
      Slots moved = other.slots_.empty()
                        ? Slots(slots_.allocator())
                        : Slots(other.slots_.bucket_count(), other.config_.huge_pages,
                                slots_.allocator());
      if (!other.slots_.empty()) moved.relocate_all(other.slots_);
      slots_.template take<false>(moved);
      Slots none(other.slots_.allocator());
      other.slots_.template take<false>(none);  // frees other's memory, keeps its allocator
    }
    config_ = other.config_;
    seed_ = other.seed_;
    key_hash_rule_ = other.key_hash_rule_;
    bucket_count_ = std::exchange(other.bucket_count_, 0);
    size_ = std::exchange(other.size_, 0);
    stash_count_ = std::exchange(other.stash_count_, 0);
    other.slots_.clear();
    stats_ = other.stats_;
    hasher_ = std::move(other.hasher_);
    key_eq_ = std::move(other.key_eq_);
  }
  return *this;
}

}  // namespace cuckoo
