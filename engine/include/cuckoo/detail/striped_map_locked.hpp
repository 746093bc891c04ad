// StripedMapWithFault's locked view, LockedTable (an out-of-line member class, included at
// the end of detail/striped_map.hpp): libcuckoo's locked_table. map.lock_table() takes
// every stripe, in ascending order (the one lock order, stripe_locks.hpp), and returns a
// view that holds them until it is destroyed or unlock()ed; through it one thread
// iterates and changes the map with no other thread in between.
//
// Other threads meanwhile. Every operation that takes a stripe (insert, erase, the
// read-modify-write family, clear, reserve, rehash, for_each, snapshot, a second
// lock_table, copying the map) waits until the view lets go. The lock-free lookups of
// atomic items (find, contains, find_fn) do not block at first: a stripe held by the
// view is odd, so an optimistic read cannot start, or, if it started before the view
// took the stripes, cannot validate (the version it read is gone: lock() made it odd
// and unlock() moves it on by 2). After kMaxOptimisticReads such reads the lookup takes
// the key's stripes and so waits for the view too. A lookup therefore answers either
// from before the view took the stripes or from after it let them go, never from the
// middle: whatever the view inserts, erases or assigns is seen by other threads all at
// once at unlock() (the view is one linearizable operation, taking effect at unlock()),
// and a value written through the view is never read torn. The lock-free members that
// read counters or the table pointer only (size, empty, capacity, bucket_count,
// load_factor, stats) keep running; size() may show a count from the middle of the
// view's changes (as with concurrent inserts: each change counted fully or not at all).
//
// The holding thread. The stripe locks are not recursive: the map's own members that
// take a stripe, called by the thread that holds the view, would wait for themselves
// forever (libcuckoo documents that as a deadlock). Here the map detects it with one
// load (view_owner_, see "Self-deadlock detection" in striped_map.hpp) and throws
// cuckoo::LockedTableError instead; the lock-free members above may be called. Use the
// view's own members instead. The detection names the thread that called lock_table();
// a view moved to another thread (allowed: the locks are not tied to a thread) is
// detected for the thread that made it only.
//
// Iterators. Forward iterators over the live table's slots in slot order. *it is a proxy
// (as CuckooMap's): other items give {const K& first; V& second}, so it->second may be
// changed in place; atomic items give {K first; AtomicValueRef second}, whose second
// converts to V and is assigned with `=` (a release store, as every writer's). const
// iterators give {const K&, const V&} and {K, V}. An iterator is valid while the view is
// active and until an insert, emplace or insert_or_assign that stores a new key (it may
// move items along a cuckoo path or grow the table), clear(), or a reserve() or rehash()
// that grows; erase invalidates only iterators to the erased item. Invariants kept:
// (I1)-(I3) of striped_map.hpp (the view holds every stripe, so each of its changes is
// a critical section on every stripe); pos_ of an iterator is an occupied slot or the
// slot count (end). Bounds: iteration and clear() by the slot count; inserts as the
// exclusive insert (striped_map_growth.hpp).
#pragma once

#ifndef CUCKOO_STRIPED_MAP
#error "striped_map_locked.hpp holds out-of-line members of StripedMapWithFault: include detail/striped_map.hpp"
#endif

namespace cuckoo {
namespace detail {

/// The locked view of a StripedConcurrentMap (libcuckoo's locked_table): holds every
/// stripe lock of the map from map.lock_table() until it is destroyed or unlock()ed.
/// Movable, not copyable; a moved-from view is inactive. Every member but unlock(),
/// is_active() and the move operations REQUIRES: is_active(). See the top of
/// detail/striped_map_locked.hpp for what other threads see meanwhile.
CUCKOO_STRIPED_MAP_TEMPLATE
class CUCKOO_STRIPED_MAP::LockedTable {
  using Map = StripedMapWithFault;

 public:
  /// The map's key type.
  using key_type = K;
  /// The map's value type.
  using mapped_type = V;
  /// An item, as snapshot() returns it.
  using value_type = std::pair<K, V>;
  /// Sizes and counts.
  using size_type = std::size_t;

  /// Atomic items: the value of a slot, seen through the view. Converts to V (a load) and
  /// is assigned with `=` (a release store, so lock-free readers that validate see it
  /// whole). Like a reference, assigning one AtomicValueRef to another copies the value.
  class AtomicValueRef {
   public:
    /// The value (the view holds the slot's stripe).
    V get() const noexcept { return atom_->load(std::memory_order_relaxed); }
    /// The value, as get().
    operator V() const noexcept { return get(); }  // NOLINT(google-explicit-constructor)
    /// Stores value into the slot.
    const AtomicValueRef& operator=(const V& value) const noexcept {
      // release: what every writer of an atomic item does (stripe_locks.hpp's seqlock).
      atom_->store(value, std::memory_order_release);
      return *this;
    }
    /// Copies other's value into this slot (reference semantics).
    const AtomicValueRef& operator=(const AtomicValueRef& other) const noexcept {
      return *this = other.get();
    }
    /// A reference to the same slot.
    AtomicValueRef(const AtomicValueRef&) noexcept = default;
    /// Ends nothing: a reference.
    ~AtomicValueRef() = default;

   private:
    friend class LockedTable;
    explicit AtomicValueRef(typename Sync::template Atomic<V>* atom) noexcept : atom_(atom) {}
    typename Sync::template Atomic<V>* atom_;
  };

  /// What *it gives for an iterator: the key and a way to change the value.
  struct ItemRef {
    /// The key (never changed through the view).
    const K& first;
    /// The value, changeable in place.
    V& second;
  };
  /// What *it gives for a const_iterator.
  struct ConstItemRef {
    /// The key.
    const K& first;
    /// The value.
    const V& second;
  };
  /// Atomic items: what *it gives for an iterator (a copy of the key, a value proxy).
  struct AtomicItemRef {
    /// A copy of the key.
    K first;
    /// The value: converts to V, assign with `=`.
    AtomicValueRef second;
  };
  /// Atomic items: what *it gives for a const_iterator (copies).
  struct ConstAtomicItemRef {
    /// A copy of the key.
    K first;
    /// A copy of the value.
    V second;
  };
  /// *it of an iterator.
  using reference = std::conditional_t<kAtomicItems, AtomicItemRef, ItemRef>;
  /// *it of a const_iterator.
  using const_reference = std::conditional_t<kAtomicItems, ConstAtomicItemRef, ConstItemRef>;

  /// A forward iterator over the items (see the top of detail/striped_map_locked.hpp for
  /// its validity); Const: a const_iterator.
  template <bool Const>
  class Iterator {
    using TablePtr = std::conditional_t<Const, const Table*, Table*>;

   public:
    /// Forward iteration only.
    using iterator_category = std::forward_iterator_tag;
    /// What the iterator visits.
    using value_type = std::pair<K, V>;
    /// Distances between iterators.
    using difference_type = std::ptrdiff_t;
    /// The proxy *it gives.
    using reference = std::conditional_t<Const, typename LockedTable::const_reference,
                                         typename LockedTable::reference>;
    /// What operator-> returns: holds the proxy.
    struct pointer {
      /// The proxy.
      reference ref;
      /// Its address.
      const reference* operator->() const noexcept { return &ref; }
    };

    /// A singular iterator (compare only with another singular one).
    Iterator() = default;
    /// An iterator converts to a const_iterator.
    operator Iterator<true>() const noexcept  // NOLINT(google-explicit-constructor)
      requires(!Const)
    {
      return Iterator<true>(table_, pos_);
    }

    /// The item. REQUIRES: not end().
    reference operator*() const noexcept {
      if constexpr (kAtomicItems) {
        auto& slot = table_->atoms[pos_];
        // relaxed: the view holds every stripe, so no other writer runs.
        if constexpr (Const) {
          return reference{slot.key.load(std::memory_order_relaxed),
                           slot.value.load(std::memory_order_relaxed)};
        } else {
          return reference{slot.key.load(std::memory_order_relaxed), AtomicValueRef(&slot.value)};
        }
      } else {
        auto& item = *table_->items[pos_];
        return reference{item.first, item.second};
      }
    }
    /// it->first, it->second. REQUIRES: not end().
    pointer operator->() const noexcept { return pointer{**this}; }
    /// The next item, or end(). REQUIRES: not end().
    Iterator& operator++() noexcept {
      ++pos_;
      skip_empty();
      return *this;
    }
    /// Post-increment.
    Iterator operator++(int) noexcept {
      Iterator old = *this;
      ++*this;
      return old;
    }
    /// Same table and slot.
    friend bool operator==(const Iterator& a, const Iterator& b) noexcept {
      return a.table_ == b.table_ && a.pos_ == b.pos_;
    }

   private:
    friend class LockedTable;
    template <bool>
    friend class Iterator;
    Iterator(TablePtr table, std::size_t pos) noexcept : table_(table), pos_(pos) { skip_empty(); }
    void skip_empty() noexcept {
      // Bounded by the slot count.
      while (pos_ != table_->slot_count() && !table_->occupied(pos_)) ++pos_;
    }
    TablePtr table_ = nullptr;
    std::size_t pos_ = 0;
  };
  /// Iterates and changes values in place.
  using iterator = Iterator<false>;
  /// Iterates read-only.
  using const_iterator = Iterator<true>;

  /// Not copyable: one view holds the locks.
  LockedTable(const LockedTable&) = delete;
  /// Not copyable.
  LockedTable& operator=(const LockedTable&) = delete;
  /// Takes over other's locks; other becomes inactive.
  LockedTable(LockedTable&& other) noexcept : map_(std::exchange(other.map_, nullptr)) {}
  /// Unlocks this view (if active), then takes over other's locks; other becomes inactive.
  LockedTable& operator=(LockedTable&& other) noexcept {
    if (this != &other) {
      unlock();
      map_ = std::exchange(other.map_, nullptr);
    }
    return *this;
  }
  /// Unlocks (if active).
  ~LockedTable() { unlock(); }

  /// Releases every stripe (descending) and makes the view inactive; its iterators become
  /// invalid. Does nothing on an inactive view. Locks held on return: none.
  void unlock() noexcept {
    if (map_ == nullptr) return;
    map_->view_owner_.store(nullptr, std::memory_order_relaxed);
    map_->stripes_.unlock_all();
    map_ = nullptr;
  }
  /// Whether the view holds the locks (false once unlocked or moved from).
  bool is_active() const noexcept { return map_ != nullptr; }

  /// The first item (slot order).
  iterator begin() noexcept { return iterator(&table(), 0); }
  /// Past the last item.
  iterator end() noexcept { return iterator(&table(), table().slot_count()); }
  /// The first item, read-only.
  const_iterator begin() const noexcept { return const_iterator(&table(), 0); }
  /// Past the last item.
  const_iterator end() const noexcept { return const_iterator(&table(), table().slot_count()); }
  /// The first item, read-only.
  const_iterator cbegin() const noexcept { return begin(); }
  /// Past the last item.
  const_iterator cend() const noexcept { return end(); }

  /// The number of items (exact: every stripe is held).
  size_type size() const noexcept { return map().stripes_.item_count(); }
  /// Whether there are no items.
  bool empty() const noexcept { return size() == 0; }
  /// Slots in the live table.
  size_type capacity() const noexcept { return table().slot_count(); }
  /// Buckets in the live table.
  std::uint32_t bucket_count() const noexcept { return table().bucket_count; }

  /// The item with key, or end().
  iterator find(const K& key) {
    return iterator(&table(), position_of(key));
  }
  /// The item with key, or end().
  const_iterator find(const K& key) const {
    return const_iterator(&table(), position_of(key));
  }
  /// Whether key is present.
  bool contains(const K& key) const { return position_of(key) != table().slot_count(); }
  /// 1 if key is present, else 0.
  size_type count(const K& key) const { return contains(key) ? 1 : 0; }

  /// Inserts key -> value if key is absent: {the new item, kInserted}; {the present item,
  /// kExists} (nothing changed); {end(), kFull} (nothing changed, arguments untouched).
  /// A kInserted invalidates every iterator (a cuckoo path or a growth may move items).
  template <class KK = K, class VV = V>
    requires std::is_constructible_v<K, KK&&> && std::is_constructible_v<V, VV&&>
  std::pair<iterator, InsertResult> insert(KK&& key, VV&& value) {
    KeepPresent keep;
    return insert_with(key_ref(std::forward<KK>(key)), std::forward<VV>(value), keep);
  }
  /// As insert, with the value built from args first (also when the key is present).
  template <class KK, class... Args>
    requires std::is_constructible_v<K, KK&&> && std::is_constructible_v<V, Args&&...>
  std::pair<iterator, InsertResult> emplace(KK&& key, Args&&... args) {
    V value(std::forward<Args>(args)...);
    KeepPresent keep;
    return insert_with(key_ref(std::forward<KK>(key)), std::move(value), keep);
  }
  /// Inserts key -> value ({item, kInserted}) or assigns value to the present key
  /// ({item, kUpdated}); {end(), kFull} if there is no room. Iterators: as insert.
  template <class KK = K, class VV = V>
    requires std::is_constructible_v<K, KK&&> && std::is_assignable_v<V&, VV&&>
  std::pair<iterator, InsertResult> insert_or_assign(KK&& key, VV&& value) {
    AssignPresent assign;
    return insert_with(key_ref(std::forward<KK>(key)), std::forward<VV>(value), assign);
  }

  /// Erases the item at it; returns the iterator to the next item. Other iterators stay
  /// valid. REQUIRES: it is a valid, dereferenceable iterator of this view.
  iterator erase(const_iterator it) noexcept {
    Map& m = map();
    Table& t = table();
    assert(it.table_ == &t && it.pos_ < t.slot_count() && t.occupied(it.pos_));
    const std::size_t pos = it.pos_;
    t.clear_slot(pos);
    m.stripes_.add_items(m.stripes_.stripe_of(static_cast<std::uint32_t>(pos / SlotsPerBucket)), -1);
    m.count(Counter::kErases);
    return iterator(&t, pos + 1);
  }
  /// As erase(const_iterator).
  iterator erase(iterator it) noexcept { return erase(const_iterator(it)); }
  /// Erases key; returns 1 if it was present, else 0.
  size_type erase(const K& key) {
    const const_iterator it = std::as_const(*this).find(key);
    if (it == cend()) return 0;
    erase(it);
    return 1;
  }
  /// Removes every item; keeps the table. Invalidates every iterator.
  void clear() noexcept { map().clear_locked(); }
  /// As the map's reserve(n), under the view's locks. A growth invalidates every iterator.
  bool reserve(size_type n) { return map().reserve_locked(n); }
  /// As the map's rehash(buckets), under the view's locks. A growth invalidates every
  /// iterator.
  bool rehash(size_type buckets) { return map().rehash_locked(buckets); }

 private:
  friend class StripedMapWithFault;

  // Locks held on return: every stripe of map (ascending, the one lock order).
  explicit LockedTable(Map& map) noexcept : map_(&map) {
    map.stripes_.lock_all();
    map.view_owner_.store(this_thread_marker(), std::memory_order_relaxed);
  }

  Map& map() const noexcept {
    assert(map_ != nullptr && "a locked view used after unlock() or a move");
    return *map_;
  }
  Table& table() const noexcept { return map().live_table(); }

  // The slot of key, or the slot count.
  std::size_t position_of(const K& key) const {
    const Map& m = map();
    Table& t = table();
    const std::size_t pos = m.position_in(t, map_buckets(m.hash_key(key), t.bucket_count), key);
    return pos == kNoPosition ? t.slot_count() : pos;
  }

  template <class KK, class VV, class Present>
  std::pair<iterator, InsertResult> insert_with(KK&& key, VV&& value, Present& present) {
    Map& m = map();
    const std::uint64_t hash = m.hash_key(key);
    std::size_t pos = kNoPosition;
    InsertResult result = InsertResult::kFull;
    try {
      result = m.insert_all_held(std::forward<KK>(key), std::forward<VV>(value), hash, present, &pos);
    } catch (const std::bad_alloc&) {
      m.count(Counter::kFullRejections);  // nothing changed (as insert_impl)
      pos = kNoPosition;
    }
    Table& t = table();  // a growth replaced it
    return {iterator(&t, pos == kNoPosition ? t.slot_count() : pos), result};
  }

  Map* map_;
};

}  // namespace detail
}  // namespace cuckoo
