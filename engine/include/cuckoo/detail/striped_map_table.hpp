// StripedMapWithFault's table and the path search's views of it (out-of-line members,
// included at the end of detail/striped_map.hpp; the layout is described there).
// Invariants kept: a slot's word is its item's packed candidate buckets, or
// kEmptySlotWord for an empty slot, written under the slot's stripe in the same critical
// section as the item; the words are never freed while the map lives, so lock-free
// readers (WordView) may read them at any time, as hints. Atomic items: a slot is
// occupied iff its word is not kEmptySlotWord; the key and value of an empty slot are
// stale and never read as an item; the slots are never freed while the map lives, so
// lock-free lookups may read them at any time (they validate with the stripe versions).
#pragma once

#ifndef CUCKOO_STRIPED_MAP
#error "striped_map_table.hpp holds out-of-line members of StripedMapWithFault: include detail/striped_map.hpp"
#endif

namespace cuckoo {
namespace detail {

CUCKOO_STRIPED_MAP_TEMPLATE
struct CUCKOO_STRIPED_MAP::Table {
  // Atomic items: AtomicSlot, a slot's word, key and value side by side. Other items:
  // the word array and the items apart.
  explicit Table(std::uint32_t buckets) : bucket_count(buckets) {
    const std::size_t n = slot_count();
    if constexpr (kAtomicItems) {
      atoms = std::make_unique<AtomicSlot[]>(n);
    } else {
      words = std::make_unique<SlotWord[]>(n);
      items = std::make_unique<Slot[]>(n);
    }
    for (std::size_t pos = 0; pos < n; ++pos) {
      word(pos).store(kEmptySlotWord, std::memory_order_relaxed);
    }
  }

  std::size_t slot_count() const noexcept { return std::size_t{bucket_count} * SlotsPerBucket; }

  // The slot's word: its item's two buckets packed, or kEmptySlotWord.
  SlotWord& word(std::size_t pos) noexcept {
    if constexpr (kAtomicItems) {
      return atoms[pos].word;
    } else {
      return words[pos];
    }
  }
  const SlotWord& word(std::size_t pos) const noexcept {
    return const_cast<Table*>(this)->word(pos);
  }

  // ---- Under the slot's stripe (or before the table is published) -------------------
  // Relaxed loads and stores of atomic items suffice for lockers (the stripe orders
  // them); stores are release for the lock-free readers (stripe_locks.hpp's seqlock).

  bool occupied(std::size_t pos) const noexcept {
    if constexpr (kAtomicItems) {
      return word(pos).load(std::memory_order_relaxed) != kEmptySlotWord;
    } else {
      return items[pos].has_value();
    }
  }
  // The key in pos (a reference, or a copy of an atomic item's). REQUIRES: occupied.
  decltype(auto) key(std::size_t pos) const noexcept {
    if constexpr (kAtomicItems) {
      return atoms[pos].key.load(std::memory_order_relaxed);
    } else {
      return static_cast<const K&>(items[pos]->first);
    }
  }
  // A copy of the value in pos. REQUIRES: occupied.
  V value(std::size_t pos) const {
    if constexpr (kAtomicItems) {
      return atoms[pos].value.load(std::memory_order_relaxed);
    } else {
      return items[pos]->second;
    }
  }
  // f(V&) on the value in pos (an atomic item's: on a copy, stored back after f
  // returns; if f throws, nothing is stored); returns what f returns.
  // REQUIRES: occupied.
  template <class F>
  decltype(auto) with_value(std::size_t pos, F&& f) {
    if constexpr (kAtomicItems) {
      V v = atoms[pos].value.load(std::memory_order_relaxed);
      if constexpr (std::is_void_v<std::invoke_result_t<F&&, V&>>) {
        std::invoke(std::forward<F>(f), v);
        atoms[pos].value.store(v, std::memory_order_release);
      } else {
        auto result = std::invoke(std::forward<F>(f), v);
        atoms[pos].value.store(v, std::memory_order_release);
        return result;
      }
    } else {
      return std::invoke(std::forward<F>(f), items[pos]->second);
    }
  }
  // The item in pos, moved out (pos stays occupied until clear_slot). REQUIRES: occupied.
  value_type take(std::size_t pos) noexcept {
    if constexpr (kAtomicItems) {
      return value_type(key(pos), value(pos));
    } else {
      return std::move(*items[pos]);
    }
  }

  // REQUIRES: !occupied(pos). The word last, so that a lock-free path search that sees
  // it finds an item there (a hint either way).
  template <class... Args>
  void fill_slot(std::size_t pos, MapBucketPair pair, Args&&... args) {
    if constexpr (kAtomicItems) {
      const value_type item(std::forward<Args>(args)...);
      atoms[pos].key.store(item.first, std::memory_order_release);
      atoms[pos].value.store(item.second, std::memory_order_release);
    } else {
      items[pos].emplace(std::forward<Args>(args)...);
    }
    word(pos).store(pack_buckets(pair), std::memory_order_release);
  }
  // An atomic item's key and value stay (stale): readers go by the word.
  void clear_slot(std::size_t pos) noexcept {
    if constexpr (!kAtomicItems) items[pos].reset();
    word(pos).store(kEmptySlotWord, std::memory_order_release);
  }
  // REQUIRES: occupied(from), !occupied(to).
  void move_slot(std::size_t from, std::size_t to) noexcept {
    fill_slot(to, unpack_buckets(word(from).load(std::memory_order_relaxed)), take(from));
    clear_slot(from);
  }
  // TEST FAULT kUnvalidatedHop: whatever `from` holds replaces whatever `to` holds, as
  // a naive implementation would move it; `from` ends empty.
  void overwrite_slot(std::size_t from, std::size_t to) noexcept {
    if (occupied(from)) {
      if (occupied(to)) clear_slot(to);
      move_slot(from, to);
    } else if (occupied(to)) {
      clear_slot(to);
    }
  }

  // A hint before a writer takes the bucket's stripe (with_key_buckets): the lines of
  // its slot words, and of its atomic items, start coming from memory while the locking
  // CAS runs (a prefetch is not held back by it), so the bucket miss of a write overlaps
  // its lock instead of following it. Reads nothing. The words and atomic items of every
  // table, retired or live, stay allocated while the map lives, so the address is ours
  // even if a growth replaced this table since the caller loaded it; items of other
  // types are not prefetched (a growth frees them, writing their pointer meanwhile).
  void prefetch_bucket(std::uint32_t bucket) const noexcept {
    const std::size_t first = slot_index(bucket, 0);
    const std::size_t last = slot_index(bucket, SlotsPerBucket - 1);
    if constexpr (kAtomicItems) {
      prefetch_kept(&atoms[first]);
      prefetch_kept(reinterpret_cast<const char*>(&atoms[last] + 1) - 1);
    } else {
      prefetch_kept(&words[first]);
      prefetch_kept(&words[last]);
    }
  }

  // Retirement (a growth replaced this table; every stripe held): the items of other
  // types are freed; the words, and atomic items, stay for lock-free readers.
  void retire() noexcept {
    if constexpr (!kAtomicItems) items.reset();
  }
  // Bytes kept after retirement, and bytes held while live (REQUIRES: not retired).
  std::size_t retained_bytes() const noexcept {
    return slot_count() * retained_bytes_per_slot();
  }
  std::size_t live_bytes() const noexcept { return slot_count() * live_bytes_per_slot(); }

  const std::uint32_t bucket_count;
  std::unique_ptr<AtomicSlot[]> atoms;  // atomic items: kept until destruction
  std::unique_ptr<SlotWord[]> words;    // other items: kept until destruction
  std::unique_ptr<Slot[]> items;        // other items: freed when the table is retired
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
    return table->word(slot_index(bucket, slot)).load(std::memory_order_relaxed) !=
           kEmptySlotWord;
  }
  std::uint32_t alt_bucket(std::uint32_t bucket, unsigned slot) const {
    const std::uint64_t word =
        table->word(slot_index(bucket, slot)).load(std::memory_order_relaxed);  // a hint
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
