// StripedMapWithFault's table and the path search's views of it (out-of-line members,
// included at the end of detail/striped_map.hpp; the layout is described there).
// Invariants kept: a slot's word is its item's packed candidate buckets, or
// kEmptySlotWord for an empty slot, written under the slot's stripe in the same critical
// section as the item; the words are never freed while the map lives, so lock-free
// readers (WordView) may read them at any time, as hints.
#pragma once

#ifndef CUCKOO_STRIPED_MAP
#error "striped_map_table.hpp holds out-of-line members of StripedMapWithFault: include detail/striped_map.hpp"
#endif

namespace cuckoo {
namespace detail {

CUCKOO_STRIPED_MAP_TEMPLATE
struct CUCKOO_STRIPED_MAP::Table {
  explicit Table(std::uint32_t buckets)
      : bucket_count(buckets),
        words(std::make_unique<SlotWord[]>(std::size_t{buckets} * SlotsPerBucket)),
        slots(std::size_t{buckets} * SlotsPerBucket) {
    for (std::size_t pos = 0; pos < slots.size(); ++pos) {
      words[pos].store(kEmptySlotWord, std::memory_order_relaxed);
    }
  }

  // REQUIRES (all three): the stripes of the slots' buckets held, or the table not yet
  // published. Word stores are relaxed: lock-free readers take them as hints only;
  // locked readers are ordered by the stripe locks.
  template <class... Args>
  void fill_slot(std::size_t pos, MapBucketPair pair, Args&&... args) {
    slots[pos].emplace(std::forward<Args>(args)...);
    words[pos].store(pack_buckets(pair), std::memory_order_relaxed);
  }
  void clear_slot(std::size_t pos) noexcept {
    slots[pos].reset();
    words[pos].store(kEmptySlotWord, std::memory_order_relaxed);
  }
  void move_slot(std::size_t from, std::size_t to) noexcept {
    slots[to].emplace(std::move(*slots[from]));
    words[to].store(words[from].load(std::memory_order_relaxed), std::memory_order_relaxed);
    clear_slot(from);
  }

  std::size_t word_bytes() const noexcept {
    return std::size_t{bucket_count} * SlotsPerBucket * sizeof(SlotWord);
  }

  const std::uint32_t bucket_count;
  const std::unique_ptr<SlotWord[]> words;  // kept until destruction
  std::vector<Slot> slots;  // freed when the table is retired
};

// Path search adapter over a table's slot words. Read without locks by the
// optimistic search (a hint), or with every stripe held by the exclusive insert,
// which alone calls move_item.
CUCKOO_STRIPED_MAP_TEMPLATE
struct CUCKOO_STRIPED_MAP::WordView {
  Table* table;
  std::uint32_t bucket_count() const { return table->bucket_count; }
  unsigned slots() const { return SlotsPerBucket; }
  bool occupied(std::uint32_t bucket, unsigned slot) const {
    // relaxed: a hint, validated under the stripe locks before anything moves.
    return table->words[slot_index(bucket, slot)].load(std::memory_order_relaxed) !=
           kEmptySlotWord;
  }
  std::uint32_t alt_bucket(std::uint32_t bucket, unsigned slot) const {
    const std::uint64_t word =
        table->words[slot_index(bucket, slot)].load(std::memory_order_relaxed);  // a hint
    // A slot emptied since occupied() was read answers its own bucket, which the
    // search skips as already visited.
    if (word == kEmptySlotWord) return bucket;
    const MapBucketPair pair = unpack_buckets(word);
    return pair.first == bucket ? pair.second : pair.second == bucket ? pair.first : bucket;
  }
  // REQUIRES: every stripe held.
  void move_item(MapSlotRef from, MapSlotRef to) {
    table->move_slot(slot_index(from.bucket, from.slot), slot_index(to.bucket, to.slot));
  }
};

// Path search adapter over the dry-run placement of a rebuild (handles, not items).
CUCKOO_STRIPED_MAP_TEMPLATE
struct CUCKOO_STRIPED_MAP::PlanView {
  std::vector<std::uint64_t>* placement;     // handle per new slot, or kNoHandle
  const std::vector<std::uint64_t>* hashes;  // hash per handle
  std::uint32_t buckets;
  std::uint32_t bucket_count() const { return buckets; }
  unsigned slots() const { return SlotsPerBucket; }
  bool occupied(std::uint32_t bucket, unsigned slot) const {
    return (*placement)[slot_index(bucket, slot)] != kNoHandle;
  }
  std::uint32_t alt_bucket(std::uint32_t bucket, unsigned slot) const {
    const std::uint64_t handle = (*placement)[slot_index(bucket, slot)];
    return map_alt_bucket((*hashes)[handle], bucket, buckets);
  }
  void move_item(MapSlotRef from, MapSlotRef to) {
    std::uint64_t& source = (*placement)[slot_index(from.bucket, from.slot)];
    (*placement)[slot_index(to.bucket, to.slot)] = source;
    source = kNoHandle;
  }
};

}  // namespace detail
}  // namespace cuckoo
