// StripedConcurrentMap internals: the fine-grained concurrent cuckoo map (design (b) of
// DESIGN.md's concurrent variants), after libcuckoo: bucket-striped locks, a cuckoo
// path found without locks, then moved under locks hop by hop with validation.
//
// Layout
// ------
// A Table is bucket_count buckets of SlotsPerBucket slots. Per slot it keeps one atomic
// word, the item's two candidate buckets packed (first << 32 | second), or
// kEmptySlotWord, and the item. The words are written only under the slot's stripe
// lock, in the same critical section as the item, and read without any lock by the path
// search: they are what makes the search lock-free and free of data races
// (ThreadSanitizer) for any K and V. Items come in two layouts (detail/
// striped_map_table.hpp):
//   atomic items (kAtomicItems: K and V trivially copyable and held by a lock-free
//     std::atomic, e.g. integers and pointers): per slot an AtomicSlot, the word, the
//     key and the value side by side, each an atomic, so that lookups read them
//     without a lock (see Lookups below);
//   other items (strings, anything else): the words in one array and the items in
//     another (std::optional<std::pair<K, V>>), read and written only under the slot's
//     stripe lock. Buckets are derived as in CuckooMap (detail/map_layout.hpp):
//     first = reduce32(uint32(h >> 32), n), second = reduce32(uint32(h), n),
// h = hasher(key, seed()). The seed never changes (growth doubles, it does not reseed),
// so an operation hashes its key once, outside any lock.
//
// Locks (detail/concurrent_map_locks.hpp): S = MapLockStripes::count_for(max buckets)
// stripe spin locks, bucket b under stripe b & (S - 1), taken by MapStripeGuard in
// ascending stripe order, each once; a thread holds at most one guard at a time. So no
// deadlock. The live table is table_ (an atomic pointer); it is replaced only by a
// growth, which holds every stripe. A thread that holds any stripe therefore sees a
// table_ that cannot change until it lets go.
//
// The invariant
// -------------
//   (I1) every stored key sits in one of its two candidate buckets of the live table;
//   (I2) an item enters, leaves or moves between slots only while the mover holds the
//        stripes of BOTH candidate buckets of its key (of the live table);
//   (I3) a new key is placed only after both candidate buckets were searched for it
//        under those same stripes, in the same critical section as the placement.
// From (I2), a lookup that holds the stripes of its key's two buckets excludes every
// change to where that key is: a path move of the key from bucket p to bucket q holds
// the stripes of p and q, which are the key's two buckets, so the lookup sees the key
// before the move or after it, never "in neither" (no false negative mid-move). From
// (I2) and (I3), two inserts of one key are serialized on the same stripes and the
// second finds the first's item: no key is ever stored twice (C7). Growth holds every
// stripe, so it is atomic to everyone who locks.
//
// Operations
// ----------
// find / contains / erase / insert of a present key / insert with a free slot in one of
// the key's buckets: one critical section under the stripes of the key's two buckets
// (with_key_buckets: read table_, derive the buckets, lock, and retry if table_ was
// replaced meanwhile; a thread that sees kMaxTableRetries replacements in one call takes
// every stripe instead, under which table_ holds still: a safety net, since a map is
// replaced at most 31 times in its life, see growth_target()).
//
// insert when both buckets are full: the optimistic path insert (insert_via_path,
// detail/striped_map_path.hpp), a lock-free search then hops moved and validated under
// locks, retried at most kMaxPathAttempts times; then the exclusive insert under every
// stripe, which grows the table all or nothing (detail/striped_map_growth.hpp).
//
// No stash. CuckooMap keeps 8 stash slots for items no path can place; here a stash
// would be one more lock that every lookup of a key absent from its buckets must take
// (or a second lock-free protocol), for a benefit that growth already gives: an insert
// that finds no path grows the table instead. At max_capacity this means kFull a little
// earlier than CuckooMap (at the load a path search reaches, ~95% for b = 4).
//
// Retired tables. A growth keeps what lock-free readers read of the replaced Table (its
// slot words; with atomic items, its whole slots) until the map is destroyed. The bound,
// whatever the sequence of inserts, reserve() and clear() calls:
//   retired_bytes() < retained_bytes_per_slot() * capacity()
// because every table a growth builds has either max_capacity's bucket count or at most
// half of it (growth_target(); detail/striped_map_growth.hpp has the argument). So
//   memory_bytes() == live_bytes_per_slot() * capacity() + retired_bytes()
//                  <  (live_bytes_per_slot() + retained_bytes_per_slot()) * capacity().
//
// Lookups
// -------
// Atomic items: find and contains take no lock and write nothing shared
// (read_optimistic): they read the versions of the key's two stripes (each stripe lock
// is also a seqlock version counter, stripe_locks.hpp), the two buckets' words, keys and
// values (acquire loads), and the versions again; equal even versions mean that no
// critical section on those stripes overlapped the reads, so by (I2) the key was where
// the reads saw it, or absent, at one instant. A read that overlapped a writer is
// retried, kMaxOptimisticReads times, and then the lookup takes the two stripes as
// below (stats().locked_reads counts those). Writers store atomic items with release
// under their stripes; nothing else changes for them. A replaced table is never written
// again, so a lookup that read one whole read the map as it was at the replacement.
//
// Other items: lookups lock the two stripes exclusively, as libcuckoo does. A shared
// (reader) mode would still write the lock word, so the cache-line traffic is the same
// as an exclusive lock's unless many threads read one stripe at the same instant; and
// optimistic reads would read items while a writer changes them, which is a data race
// for a non-atomic K or V (and a ThreadSanitizer report). Exclusive stripes are simple,
// exact and race-free for any K and V.
//
// Bounds: kMaxOptimisticReads lock-free reads per lookup; MapStripeGuard::kMaxBuckets
// stripes per guard (or all); kMaxTableRetries retries of
// with_key_buckets; kMaxPathAttempts optimistic path attempts per insert; the path
// search's kMapMaxPathLength / kMapMaxBfsNodes; kMaxGrowthSteps doublings per growth;
// the slot count for rebuilds, clear, iteration and invariant checks.
#pragma once

#include <algorithm>
#include <atomic>
#include <cassert>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <new>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include "../cuckoo_map.hpp"
#include "../error.hpp"
#include "../hash.hpp"
#include "../status.hpp"
#include "../sync/detail/counters.hpp"
#include "../sync/policy.hpp"
#include "concurrent_map_locks.hpp"
#include "map_config.hpp"
#include "map_layout.hpp"
#include "map_search.hpp"
#include "platform.hpp"

namespace cuckoo {

/// Counters of a StripedConcurrentMap since construction. Relaxed statistics: exact once
/// the threads that used the map have been joined.
struct StripedMapStats {
  std::uint64_t inserts = 0;            ///< new keys stored
  std::uint64_t updates = 0;            ///< values replaced by insert_or_assign
  std::uint64_t erases = 0;             ///< keys removed
  std::uint64_t path_inserts = 0;       ///< inserts placed by a concurrently moved path
  std::uint64_t path_retries = 0;       ///< path attempts abandoned: validation failed
  std::uint64_t exclusive_inserts = 0;  ///< inserts that took every stripe
  std::uint64_t growths = 0;            ///< tables replaced by bigger ones (insert or reserve)
  std::uint64_t table_retries = 0;      ///< lock sections retried: the table was replaced
  std::uint64_t full_rejections = 0;    ///< inserts answered kFull
  std::uint64_t locked_reads = 0;       ///< lookups of atomic items that took the stripes:
                                        ///< every lock-free read overlapped a writer
};

/// Thrown by a StripedConcurrentMap member called by a thread that holds the same map's
/// locked view (lock_table()): the call would wait forever for a stripe that the thread
/// itself holds. Calls on other maps, and the lock-free members (size, empty, capacity,
/// bucket_count, load_factor, seed, config, stats, ...), are not affected.
class LockedTableError : public std::logic_error {
 public:
  /// what() says which rule was broken.
  using std::logic_error::logic_error;
};

namespace detail {

// Test-only faults: a StripedMapWithFault with one of these has a genuine concurrency
// bug, so that the stress tests can show that their checker catches it. Production code
// uses kNone (StripedMap below, and the public StripedConcurrentMap).
enum class StripedMapFault : std::uint8_t {
  kNone,
  // The path insert's last critical section holds only the stripes of the two buckets
  // of the first hop and re-checks only the first hop's bucket for the key before it
  // places it there: the key's other bucket is neither locked nor searched, which breaks
  // (I3), so a concurrent insert of the same key into that bucket stores it twice.
  kPathPlacesUnderOneBucket,
  // Path hops move whatever the source slot holds into the target slot without
  // validating under their locks that the source still holds an item that belongs in
  // the target bucket and that the target is still empty: loses items or puts them in
  // a bucket where lookups do not look.
  kUnvalidatedHop,
};

// The slot word of an empty slot. Bucket indices are below 2^31, so no packed pair of
// candidate buckets equals it.
inline constexpr std::uint64_t kEmptySlotWord = ~std::uint64_t{0};

constexpr std::uint64_t pack_buckets(MapBucketPair pair) noexcept {
  return (std::uint64_t{pair.first} << 32) | pair.second;
}
constexpr MapBucketPair unpack_buckets(std::uint64_t word) noexcept {
  return {static_cast<std::uint32_t>(word >> 32), static_cast<std::uint32_t>(word)};
}

// Whether T may be an atomic item (see "Lookups" at the top of this file): trivially
// copyable, default constructible and held by a lock-free std::atomic.
template <class T>
constexpr bool is_atomic_item() noexcept {
  if constexpr (std::is_trivially_copyable_v<T> && std::is_default_constructible_v<T>) {
    return std::atomic<T>::is_always_lock_free;
  } else {
    return false;
  }
}

// A slot of atomic items: its word, key and value side by side, each an atomic, so that
// a lookup may read them without a lock.
template <class K, class V, class Sync>
struct StripedAtomicSlot {
  typename Sync::template Atomic<std::uint64_t> word;
  typename Sync::template Atomic<K> key;
  typename Sync::template Atomic<V> value;
};
struct NoStripedAtomicSlot {};  // the placeholder for other items

// Sync: the sync policy (sync/policy.hpp) of the stripe locks, the item counters, the
// slot words and the table pointer; the verification suite's explorer instantiates the
// map with its checking policy.
template <class K, class V, unsigned SlotsPerBucket, class Hasher, class KeyEqual,
          StripedMapFault Fault, class Sync = sync::StdSync>
  requires HasherFor<Hasher, K>
class StripedMapWithFault {
  static_assert(SlotsPerBucket == 1 || SlotsPerBucket == 2 || SlotsPerBucket == 4 ||
                    SlotsPerBucket == 8,
                "SlotsPerBucket must be 1, 2, 4 or 8");
  static_assert(std::is_nothrow_move_constructible_v<K> &&
                    std::is_nothrow_move_constructible_v<V>,
                "keys and values must be nothrow move constructible: items move along "
                "cuckoo paths and in rebuilds, which must not fail half way");
  // V need not be copyable (std::unique_ptr works): the members that copy a value (find,
  // snapshot, the copy constructor and assignment) say so in their requires-clauses.
  static_assert(std::is_invocable_r_v<bool, const KeyEqual&, const K&, const K&>,
                "KeyEqual must compare two keys");

 public:
  /// The key type.
  using key_type = K;
  /// The value type.
  using mapped_type = V;
  /// An item, as snapshot() and for_each() give it.
  using value_type = std::pair<K, V>;
  /// Sizes and counts.
  using size_type = std::size_t;
  /// The Hasher policy (hash.hpp).
  using hasher = Hasher;
  /// The key comparison.
  using key_equal = KeyEqual;
  /// The locked view that lock_table() returns (detail/striped_map_locked.hpp).
  class LockedTable;
  /// libcuckoo's name of the locked view.
  using locked_table = LockedTable;

  /// Slots per bucket (1, 2, 4 or 8).
  static constexpr unsigned kSlotsPerBucket = SlotsPerBucket;
  /// The planted test fault (kNone for StripedConcurrentMap).
  static constexpr StripedMapFault kFault = Fault;
  /// Bucket indices are 32-bit and doubling stays within them (as CuckooMap).
  static constexpr std::uint32_t kMaxBucketCount = std::uint32_t{1} << 31;
  /// The largest max_capacity a configuration may ask for.
  static constexpr std::uint64_t kMaxCapacity = std::uint64_t{kMaxBucketCount} * SlotsPerBucket;
  /// Lock sections retried because the table was replaced, per call, before the call
  /// takes every stripe. Never reached in practice: every growth but the first at least
  /// doubles the table (growth_target()), so 31 growths reach 2^31 buckets.
  static constexpr unsigned kMaxTableRetries = 32;
  /// Optimistic path attempts per insert before it takes every stripe.
  static constexpr unsigned kMaxPathAttempts = 4;
  /// Whether items are atomic (see "Lookups" at the top of this file): keys and values
  /// that are trivially copyable and held by a lock-free std::atomic.
  static constexpr bool kAtomicItems = is_atomic_item<K>() && is_atomic_item<V>();
  /// Lock-free reads a lookup of atomic items tries before it takes the stripes.
  static constexpr unsigned kMaxOptimisticReads = 4;
  /// Growth bounds (as CuckooMap; no reseeding: see the top of this file).
  static constexpr unsigned kMaxGrowthSteps = 3;
  /// Below this load an insert that finds no path answers kFull instead of growing.
  static constexpr unsigned kMinGrowthLoadPercent = 5;
  /// The load reserve(n) plans for: n items fill the table to at most this percentage.
  static constexpr unsigned kReserveLoadPercent = SlotsPerBucket == 1   ? 45
                                                  : SlotsPerBucket == 2 ? 80
                                                  : SlotsPerBucket == 4 ? 90
                                                                        : 95;

  /// Throws ConfigError naming the field if config is invalid (the rules of
  /// CuckooMapConfig, with kMaxCapacity above), before allocating anything;
  /// std::bad_alloc if the first table cannot be allocated.
  explicit StripedMapWithFault(const CuckooMapConfig& config = {}, Hasher hash_fn = {},
                               KeyEqual equal_fn = {})
      : config_(validated(config)),
        seed_(*config_.seed),
        stripes_(Stripes::count_for(max_bucket_count())),
        hasher_(std::move(hash_fn)),
        key_eq_(std::move(equal_fn)) {
    tables_.push_back(std::make_unique<Table>(initial_bucket_count(config_)));
    table_.store(tables_.back().get(), std::memory_order_release);
  }

  /// Copy constructor: a snapshot of `other` taken under every stripe of `other`, so other
  /// threads may use `other` meanwhile (their operations wait, or, for lock-free lookups,
  /// retry); the copy has other's configuration, seed, bucket count, items and hasher,
  /// and zero stats(). Throws LockedTableError if this thread holds other's locked view,
  /// std::bad_alloc or what copying an item throws (then nothing was made).
  /// Locks held on return: none (every stripe of `other` while copying).
  StripedMapWithFault(const StripedMapWithFault& other)
    requires std::copy_constructible<K> && std::copy_constructible<V>
      : config_(other.config_),
        seed_(other.seed_),
        stripes_(Stripes::count_for(max_bucket_count())),
        hasher_(other.hasher_),
        key_eq_(other.key_eq_) {
    copy_from(other);
  }
  /// Move constructor: takes other's tables and items without copying them; `other` is
  /// left an empty, usable map of the same configuration (a new table of its
  /// initial_capacity: so this may throw std::bad_alloc, and then `other` is unchanged).
  /// REQUIRES: no other thread uses `other` (as libcuckoo's cuckoohash_map).
  StripedMapWithFault(StripedMapWithFault&& other)
      : StripedMapWithFault(other.config_, other.hasher_, other.key_eq_) {
    swap(other);
  }
  /// Copy assignment: a snapshot of `other` under its stripes (as the copy constructor),
  /// then swapped in; the old contents are destroyed. Strong guarantee: if the copy
  /// throws, *this is unchanged. REQUIRES: no other thread uses *this (other threads may
  /// use `other`).
  StripedMapWithFault& operator=(const StripedMapWithFault& other)
    requires std::copy_constructible<K> && std::copy_constructible<V>
  {
    if (this != &other) {
      StripedMapWithFault copy(other);
      swap(copy);
    }
    return *this;
  }
  /// Move assignment: *this takes other's contents and configuration; `other` keeps
  /// this map's old table, emptied (a valid, empty map). REQUIRES: no other thread uses
  /// either map.
  StripedMapWithFault& operator=(StripedMapWithFault&& other) {
    if (this != &other) {
      swap(other);
      other.clear();
    }
    return *this;
  }
  /// Exchanges everything but stats() (which count the operations on each object):
  /// configuration, seed, tables, items, stripes, hasher and key_eq. No allocation; does
  /// not throw unless swapping a Hasher or KeyEqual does. REQUIRES: no other thread uses
  /// either map, and no locked view of either is alive; a thread that uses a map
  /// afterwards must be ordered after the swap (join, or a mutex hand-off).
  void swap(StripedMapWithFault& other) noexcept(std::is_nothrow_swappable_v<Hasher> &&
                                                 std::is_nothrow_swappable_v<KeyEqual>) {
    using std::swap;
    swap(config_, other.config_);
    swap(seed_, other.seed_);
    swap(stripes_, other.stripes_);
    // relaxed: no other thread uses either map (REQUIRES above).
    Table* const mine = table_.load(std::memory_order_relaxed);
    table_.store(other.table_.load(std::memory_order_relaxed), std::memory_order_relaxed);
    other.table_.store(mine, std::memory_order_relaxed);
    tables_.swap(other.tables_);
    swap(hasher_, other.hasher_);
    swap(key_eq_, other.key_eq_);
  }
  /// std::swap's customization: a.swap(b).
  friend void swap(StripedMapWithFault& a, StripedMapWithFault& b) noexcept(noexcept(a.swap(b))) {
    a.swap(b);
  }
  /// REQUIRES: no other thread uses the map, and no locked view of it is alive.
  ~StripedMapWithFault() = default;

  // ---- Operations (contracts: cuckoo/concurrent_map.hpp) ------------------------------
  // Every member that takes a stripe throws LockedTableError when the calling thread
  // holds this map's locked view (lock_table()): it would wait for itself forever.

  /// Inserts key -> value if key is absent: kInserted; kExists (nothing changed) if it
  /// is present; kFull (nothing changed, arguments untouched) if there is no room.
  /// Locks held on return: none (the key's two stripes; see the top of this file).
  InsertResult insert(const K& key, const V& value) {
    KeepPresent keep;
    return insert_impl(key, value, keep);
  }
  /// As insert(const K&, const V&); moves from key and value only when it stores them.
  InsertResult insert(K&& key, V&& value) {
    KeepPresent keep;
    return insert_impl(std::move(key), std::move(value), keep);
  }
  /// As insert(const K&, const V&); moves from value only when it stores it (move-only
  /// values).
  InsertResult insert(const K& key, V&& value) {
    KeepPresent keep;
    return insert_impl(key, std::move(value), keep);
  }
  /// As insert(const K&, const V&); moves from key only when it stores it.
  InsertResult insert(K&& key, const V& value) {
    KeepPresent keep;
    return insert_impl(std::move(key), value, keep);
  }
  /// Inserts key -> value (kInserted) or assigns value to the present key (kUpdated);
  /// kFull (nothing changed) if there is no room. Locks held on return: none.
  InsertResult insert_or_assign(const K& key, const V& value) {
    AssignPresent assign;
    return insert_impl(key, value, assign);
  }
  /// As insert_or_assign(const K&, const V&), moving from its arguments when it uses them.
  InsertResult insert_or_assign(K&& key, V&& value) {
    AssignPresent assign;
    return insert_impl(std::move(key), std::move(value), assign);
  }
  /// As insert_or_assign(const K&, const V&), moving from value when it uses it.
  InsertResult insert_or_assign(const K& key, V&& value) {
    AssignPresent assign;
    return insert_impl(key, std::move(value), assign);
  }

  // Atomic read-modify-write (libcuckoo's names and meaning; contracts:
  // cuckoo/concurrent_map.hpp). fn runs with the key's two stripes held (every stripe
  // when the insert had to take them all), exactly once when the key is present.
  // REQUIRES: fn does not call into this map.

  /// Present: fn(V&) with the key's two stripes held, and true; absent: false. With atomic
  /// items fn gets a copy, stored back when it returns. REQUIRES: fn does not call into
  /// this map. Locks held on return: none.
  template <class F>
  bool update_fn(const K& key, F&& fn) {
    return with_key_buckets(hash_key(key), [&](Table& t, MapBucketPair pair) {
      const std::size_t pos = position_in(t, pair, key);
      if (pos == kNoPosition) return false;
      t.with_value(pos, fn);
      count(Counter::kUpdates);
      return true;
    });
  }
  /// libcuckoo's update(key, value): present: assigns value (moved from if an rvalue)
  /// under the key's two stripes and returns true; absent: false, value untouched.
  /// Locks held on return: none.
  template <class VV = V>
    requires std::is_assignable_v<V&, VV&&>
  bool update(const K& key, VV&& value) {
    return update_fn(key, [&](V& current) { current = std::forward<VV>(value); });
  }
  /// libcuckoo's find_fn: present: fn(const V&) and true; absent: false. Other items: fn
  /// runs with the key's two stripes held, on the value in the map (no copy, so it works
  /// for move-only values). Atomic items: fn runs on a copy read lock-free, exactly as
  /// find() reads it (no lock unless the reads keep overlapping writers).
  /// REQUIRES: fn does not call into this map. Locks held on return: none.
  template <class F>
  bool find_fn(const K& key, F&& fn) const {
    if constexpr (kAtomicItems) {
      const std::optional<V> found = find(key);
      if (!found) return false;
      std::invoke(fn, std::as_const(*found));
      return true;
    } else {
      return with_key_buckets(hash_key(key), [&](Table& t, MapBucketPair pair) {
        const std::size_t pos = position_in(t, pair, key);
        if (pos == kNoPosition) return false;
        std::invoke(fn, std::as_const(t.items[pos]->second));
        return true;
      });
    }
  }
  /// Present: calls fn(V&) under the key's two stripes, erases the key if fn returns
  /// true, and returns true; absent: false. Locks held on return: none.
  template <class F>
  bool erase_fn(const K& key, F&& fn) {
    return with_key_buckets(hash_key(key), [&](Table& t, MapBucketPair pair) {
      const std::size_t pos = position_in(t, pair, key);
      if (pos == kNoPosition) return false;
      if (static_cast<bool>(t.with_value(pos, fn))) {
        t.clear_slot(pos);
        stripes_.add_items(stripes_.stripe_of(pair.first), -1);
        count(Counter::kErases);
      }
      return true;
    });
  }
  /// Present: fn(V&), kUpdated; absent: inserts V(args...), kInserted, or kFull (nothing
  /// changed). The value is built before any lock is taken. Locks held on return: none.
  template <class KK, class F, class... Args>
    requires std::is_constructible_v<K, KK&&>
  InsertResult upsert(KK&& key, F&& fn, Args&&... args) {
    V value(std::forward<Args>(args)...);
    UpdatePresent<F> present{fn};
    return insert_impl(key_ref(std::forward<KK>(key)), std::move(value), present);
  }
  /// Present: fn(V&), erasing the key if fn returns true, kUpdated; absent: as upsert.
  /// Locks held on return: none.
  template <class KK, class F, class... Args>
    requires std::is_constructible_v<K, KK&&>
  InsertResult uprase_fn(KK&& key, F&& fn, Args&&... args) {
    V value(std::forward<Args>(args)...);
    UprasePresent<F> present{fn};
    return insert_impl(key_ref(std::forward<KK>(key)), std::move(value), present);
  }

  /// A copy of key's value, or nothing. Only for copyable values (a move-only V has
  /// find_fn instead). Locks held on return: none. Atomic items: no lock, unless
  /// kMaxOptimisticReads reads in a row overlapped a writer of the key's stripes (or a
  /// locked view); then, and for other items, the key's two stripes during the lookup.
  std::optional<V> find(const K& key) const
    requires std::copy_constructible<V>
  {
    const std::uint64_t hash = hash_key(key);
    if constexpr (kAtomicItems) {
      std::optional<V> found;
      for (unsigned attempt = 0; attempt < kMaxOptimisticReads; ++attempt) {
        if (read_optimistic(hash, key, found)) return found;
      }
      count(Counter::kLockedReads);
    }
    return with_key_buckets(hash, [&](Table& t, MapBucketPair pair) {
      const std::size_t pos = position_in(t, pair, key);
      return pos == kNoPosition ? std::nullopt : std::optional<V>(t.value(pos));
    });
  }

  /// Whether key is present. Locks held on return: none (as find).
  bool contains(const K& key) const {
    if constexpr (kAtomicItems) {
      return find(key).has_value();  // the copy of an atomic item's value is a load
    } else {
      return with_key_buckets(hash_key(key), [&](Table& t, MapBucketPair pair) {
        return position_in(t, pair, key) != kNoPosition;
      });
    }
  }

  /// Removes key; whether it was present. Locks held on return: none (the key's two
  /// stripes while it looks and removes).
  bool erase(const K& key) {
    return with_key_buckets(hash_key(key), [&](Table& t, MapBucketPair pair) {
      const std::size_t pos = position_in(t, pair, key);
      if (pos == kNoPosition) return false;
      t.clear_slot(pos);
      stripes_.add_items(stripes_.stripe_of(pair.first), -1);
      count(Counter::kErases);
      return true;
    });
  }

  /// Removes every item; keeps the table (capacity() does not shrink). Locks held on
  /// return: none (every stripe while it empties the table).
  void clear() {
    check_not_locked_by_this_thread();
    const Guard all(stripes_, kAllStripes);
    clear_locked();
  }

  /// Grows the table, if needed, so that n items fill it to at most kReserveLoadPercent.
  /// The new table is at least twice the current one, and max_capacity's if it would
  /// otherwise be more than half of that (growth_target(): what bounds retired_bytes()),
  /// so reserve(n) may give up to four times the slots n needs near max_capacity and
  /// twice elsewhere. Returns true if the table is (now) big enough; false, changing
  /// nothing, if n needs more than max_capacity slots or the rebuild fails. Never shrinks.
  /// Locks held on return: none (every stripe while it decides and grows).
  bool reserve(std::size_t n) {
    check_not_locked_by_this_thread();
    const Guard all(stripes_, kAllStripes);
    return reserve_locked(n);
  }
  /// Grows the table, if needed, to at least `buckets` buckets (std::unordered_map's
  /// rehash: a bucket count; libcuckoo's rehash takes a power of two instead), by the
  /// growth rule of reserve(). Returns true if bucket_count() >= buckets now; false,
  /// changing nothing, if that is more than max_capacity allows or the rebuild fails.
  /// Never shrinks (so the retired tables stay bounded). Locks held on return: none
  /// (every stripe while it decides and grows).
  bool rehash(std::size_t buckets) {
    check_not_locked_by_this_thread();
    const Guard all(stripes_, kAllStripes);
    return rehash_locked(buckets);
  }

  /// The locked view: every stripe held until it is destroyed or unlock()ed. See
  /// LockedTable (detail/striped_map_locked.hpp) for what it offers and for what other
  /// threads' operations do meanwhile. Throws LockedTableError if this thread already
  /// holds this map's locked view. Locks held on return: every stripe (by the view).
  LockedTable lock_table() {
    check_not_locked_by_this_thread();
    return LockedTable(*this);
  }

  /// Bytes the map holds for its tables: exactly live_bytes_per_slot() * capacity() +
  /// retired_bytes(), so less than (live_bytes_per_slot() + retained_bytes_per_slot()) *
  /// capacity(). Not counted: the stripe locks, the per-thread search buffers, and what
  /// items of other types own outside their slots (a std::string's heap buffer).
  /// Locks held on return: none (every stripe while it reads).
  std::size_t memory_bytes() const {
    check_not_locked_by_this_thread();
    const Guard all(stripes_, kAllStripes);
    return live_table().live_bytes() + retired_bytes_locked();
  }
  /// Bytes the live table holds per slot: the slot (word, key and value, each an atomic)
  /// with atomic items; the slot word and the std::optional<std::pair<K, V>> with others.
  static constexpr std::size_t live_bytes_per_slot() noexcept {
    if constexpr (kAtomicItems) {
      return sizeof(AtomicSlot);
    } else {
      return sizeof(SlotWord) + sizeof(Slot);
    }
  }
  /// Bytes a retired table keeps per slot for lock-free readers: the whole slot with
  /// atomic items, the slot word with others.
  static constexpr std::size_t retained_bytes_per_slot() noexcept {
    if constexpr (kAtomicItems) {
      return sizeof(AtomicSlot);
    } else {
      return sizeof(SlotWord);
    }
  }
  /// Bytes the retired tables keep for lock-free readers (see the top of this file):
  /// retained_bytes_per_slot() per slot of every table replaced so far, and always
  ///   retired_bytes() < retained_bytes_per_slot() * capacity(),
  /// whatever the sequence of inserts, reserve() and clear() calls.
  /// Locks held on return: none (every stripe while it reads).
  std::size_t retired_bytes() const {
    check_not_locked_by_this_thread();
    const Guard all(stripes_, kAllStripes);
    return retired_bytes_locked();
  }

  /// Lock-free snapshots. size() sums the per-stripe item counters: O(stripe_count()),
  /// exact when no insert or erase runs, and otherwise counts each concurrent insert or
  /// erase fully or not at all (detail/concurrent_map_locks.hpp).
  std::size_t size() const noexcept { return stripes_.item_count(); }
  /// Whether size() is 0 (the same snapshot).
  bool empty() const noexcept { return size() == 0; }
  /// Buckets of the live table (one atomic load; no lock).
  std::uint32_t bucket_count() const noexcept {
    return table_.load(std::memory_order_acquire)->bucket_count;
  }
  /// Slots of the live table: bucket_count() * kSlotsPerBucket (no lock).
  std::size_t capacity() const noexcept { return std::size_t{bucket_count()} * SlotsPerBucket; }
  /// size() / capacity() (two snapshots; no lock).
  double load_factor() const noexcept {
    return static_cast<double>(size()) / static_cast<double>(capacity());
  }
  /// The hash seed (never changes: growth does not reseed; swap exchanges it).
  std::uint64_t seed() const noexcept { return seed_; }
  /// The validated configuration (swap and assignment exchange it).
  const CuckooMapConfig& config() const noexcept { return config_; }
  /// The number of stripe locks (fixed by max_capacity).
  std::size_t stripe_count() const noexcept { return stripes_.count(); }
  /// The hasher in use.
  const Hasher& hash_function() const noexcept { return hasher_; }
  /// The key comparison in use.
  const KeyEqual& key_eq() const noexcept { return key_eq_; }

  /// Counters of the operations on this object since construction (relaxed: exact once
  /// the threads that used the map are joined; not exchanged by swap or moves).
  StripedMapStats stats() const noexcept {
    StripedMapStats s;
    s.inserts = counters_.sum(Counter::kInserts);
    s.updates = counters_.sum(Counter::kUpdates);
    s.erases = counters_.sum(Counter::kErases);
    s.path_inserts = counters_.sum(Counter::kPathInserts);
    s.path_retries = counters_.sum(Counter::kPathRetries);
    s.exclusive_inserts = counters_.sum(Counter::kExclusiveInserts);
    s.growths = counters_.sum(Counter::kGrowths);
    s.table_retries = counters_.sum(Counter::kTableRetries);
    s.full_rejections = counters_.sum(Counter::kFullRejections);
    s.locked_reads = counters_.sum(Counter::kLockedReads);
    return s;
  }

  /// Calls f(key, value) for every item, under every stripe: a consistent snapshot.
  /// REQUIRES: f does not call into this map (stripe locks are not recursive).
  /// Locks held on return: none.
  template <class F>
  void for_each(F&& f) const {
    check_not_locked_by_this_thread();
    const Guard all(stripes_, kAllStripes);
    const Table& t = live_table();
    for (std::size_t pos = 0; pos < t.slot_count(); ++pos) {  // bounded by the slot count
      if (!t.occupied(pos)) continue;
      if constexpr (kAtomicItems) {
        const K key = t.key(pos);
        const V value = t.value(pos);
        std::invoke(f, key, value);
      } else {
        std::invoke(f, t.key(pos), std::as_const(t.items[pos]->second));
      }
    }
  }

  /// Every item, copied under every stripe (one consistent state). Only for copyable
  /// keys and values. Locks held on return: none.
  std::vector<value_type> snapshot() const
    requires std::copy_constructible<K> && std::copy_constructible<V>
  {
    std::vector<value_type> items;
    for_each([&](const K& key, const V& value) { items.emplace_back(key, value); });
    return items;
  }

  /// The two candidate buckets of key in the live table (a snapshot).
  std::pair<std::uint32_t, std::uint32_t> buckets_of(const K& key) const {
    const MapBucketPair pair = map_buckets(hash_key(key), bucket_count());
    return {pair.first, pair.second};
  }

  /// Verifies, under every stripe: every item sits in a candidate bucket of its key, its
  /// slot word holds those buckets, empty slots have the empty word, no key is stored
  /// twice, and size() equals the items stored. Returns "" or the first violation.
  std::string check_invariants() const;

 private:
  using Stripes = BasicMapLockStripes<Sync>;
  using Guard = BasicMapStripeGuard<Sync>;
  using SlotWord = typename Sync::template Atomic<std::uint64_t>;
  using Slot = std::optional<value_type>;
  using AtomicSlot =
      std::conditional_t<kAtomicItems, StripedAtomicSlot<K, V, Sync>, NoStripedAtomicSlot>;
  static constexpr std::size_t kNoPosition = std::numeric_limits<std::size_t>::max();
  static constexpr std::uint64_t kNoHandle = std::numeric_limits<std::uint64_t>::max();

  // The slot array of one table, and the path search's adapters over a table's slot
  // words and over a rebuild's dry-run placement (detail/striped_map_table.hpp).
  struct Table;
  struct WordView;
  struct PlanView;

  // What one locked step of an insert decided.
  enum class Step : std::uint8_t {
    kDone,    // the insert is decided: see the InsertResult
    kNoRoom,  // both buckets full: look for a path
    kRetry,   // a validation failed or the table was replaced: start over
  };
  struct Decision {
    Step step;
    InsertResult result = InsertResult::kFull;
  };

  enum class Counter : std::size_t {
    kInserts,
    kUpdates,
    kErases,
    kPathInserts,
    kPathRetries,
    kExclusiveInserts,
    kGrowths,
    kTableRetries,
    kFullRejections,
    kLockedReads,
    kCount,
  };

  static constexpr std::size_t slot_index(std::uint32_t bucket, unsigned slot) noexcept {
    return std::size_t{bucket} * SlotsPerBucket + slot;
  }
  static constexpr std::size_t slot_index(MapSlotRef ref) noexcept {
    return slot_index(ref.bucket, ref.slot);
  }
  static std::uint32_t initial_bucket_count(const CuckooMapConfig& config) noexcept {
    return static_cast<std::uint32_t>(map_initial_buckets(config, SlotsPerBucket));
  }
  std::uint32_t max_bucket_count() const noexcept {
    return static_cast<std::uint32_t>(config_.max_capacity / SlotsPerBucket);
  }

  // The key hash (hash.hpp, detail::map_key_hash): CuckooMap's rule, two multiply folds
  // for integer keys under DefaultHasher (this map is never serialized, so there is no
  // older rule).
  std::uint64_t hash_key(const K& key) const {
    return map_key_hash(hasher_, key, seed_, KeyHashRule::kProduct);
  }
  void count(Counter c) const noexcept { counters_.add(c); }

  // REQUIRES: some stripe held (then table_ cannot change).
  Table& live_table() const noexcept {
    // relaxed: growth replaces table_ only while holding every stripe; our stripe lock
    // acquired after that release, so this load sees the latest table.
    return *table_.load(std::memory_order_relaxed);
  }

  // Runs op(table, pair) with the stripes of the key's two buckets held, table being the
  // live table and pair the key's buckets in it; returns what op returns.
  // Locks held: the two stripes during op; none on return.
  template <class Op>
  auto with_key_buckets(std::uint64_t hash, Op&& op) const {
    check_not_locked_by_this_thread();
    // Bounded: kMaxTableRetries retries, each because table_ was replaced since the load.
    for (unsigned retry = 0; retry < kMaxTableRetries; ++retry) {
      // acquire: pairs with the release store that published the table (its words and
      // bucket_count are read below and by op).
      Table* t = table_.load(std::memory_order_acquire);
      const MapBucketPair pair = map_buckets(hash, t->bucket_count);
      t->prefetch_bucket(pair.first);  // the bucket misses overlap the locking
      t->prefetch_bucket(pair.second);
      const Guard guard(stripes_, kBucketStripes, pair.first, pair.second);
      if (&live_table() == t) return op(*t, pair);
      count(Counter::kTableRetries);  // grown since the load: derive the buckets again
    }
    // Starved by growths: under every stripe the table cannot be replaced.
    const Guard all(stripes_, kAllStripes);
    Table& t = live_table();
    return op(t, map_buckets(hash, t.bucket_count));
  }

  // A lock-free lookup of atomic items: reads the key's two buckets between two reads of
  // their stripes' versions (OptimisticRead, the seqlock of stripe_locks.hpp). Returns
  // true, with found holding the key's value or nothing, if no critical section on those
  // stripes overlapped the reads; false otherwise (found is then meaningless). Locks
  // held: none; it writes nothing shared.
  //
  // The table read need not be the live one at the end: a growth may replace it at any
  // point. A replaced table is never written again (its atomic items stay where they
  // were), so what it holds is the map as it was at the replacement, an instant inside
  // this lookup: reading it, whole, is a valid answer. Reading it partly before and
  // partly after the replacement cannot pass: the growth took every stripe in between,
  // so the versions differ.
  bool read_optimistic(std::uint64_t hash, const K& key, std::optional<V>& found) const
    requires kAtomicItems
  {
    // acquire: pairs with the release store that published the table. A Table and its
    // atomic slots are never freed while the map lives, so reading them is safe.
    const Table* t = table_.load(std::memory_order_acquire);
    const MapBucketPair pair = map_buckets(hash, t->bucket_count);
    const OptimisticRead<2, BasicMapStripeLocks<Sync>> read(
        stripes_.locks(), {stripes_.stripe_of(pair.first), stripes_.stripe_of(pair.second)});
    if (!read.started()) return false;  // a writer holds one of them
    found.reset();
    for (const std::uint32_t bucket : {pair.first, pair.second}) {
      for (unsigned s = 0; s < SlotsPerBucket; ++s) {
        const AtomicSlot& slot = t->atoms[slot_index(bucket, s)];
        // acquire (all three): the version re-read in valid() must not move above them.
        if (slot.word.load(std::memory_order_acquire) != kEmptySlotWord &&
            key_eq_(slot.key.load(std::memory_order_acquire), key)) {
          found.emplace(slot.value.load(std::memory_order_acquire));
          return read.valid();
        }
      }
    }
    return read.valid();
  }

  // Slot of key in its two buckets, or kNoPosition. REQUIRES: their stripes held.
  std::size_t position_in(const Table& t, MapBucketPair pair, const K& key) const {
    for (const std::uint32_t bucket : {pair.first, pair.second}) {
      for (unsigned s = 0; s < SlotsPerBucket; ++s) {
        const std::size_t pos = slot_index(bucket, s);
        if (t.occupied(pos) && key_eq_(t.key(pos), key)) return pos;
      }
    }
    return kNoPosition;
  }
  // A free slot of one bucket, or kNoPosition. REQUIRES: its stripe held.
  static std::size_t free_position(const Table& t, std::uint32_t bucket) {
    for (unsigned s = 0; s < SlotsPerBucket; ++s) {
      if (!t.occupied(slot_index(bucket, s))) return slot_index(bucket, s);
    }
    return kNoPosition;
  }
  static std::size_t free_position(const Table& t, MapBucketPair pair) {
    const std::size_t pos = free_position(t, pair.first);
    return pos != kNoPosition ? pos : free_position(t, pair.second);
  }

  // What an insert does with a key that is present: `present(value_in_map, new_value)`
  // returns the insert's result and whether to erase the key (uprase_fn).
  struct PresentOutcome {
    InsertResult result;
    bool erase = false;
  };
  struct KeepPresent {  // insert
    template <class VV>
    PresentOutcome operator()(V&, VV&&) const { return {InsertResult::kExists}; }
  };
  struct AssignPresent {  // insert_or_assign
    template <class VV>
    PresentOutcome operator()(V& current, VV&& value) const {
      current = std::forward<VV>(value);
      return {InsertResult::kUpdated};
    }
  };
  template <class F>
  struct UpdatePresent {  // upsert: fn(value)
    F& fn;
    template <class VV>
    PresentOutcome operator()(V& current, VV&&) const {
      std::invoke(fn, current);
      return {InsertResult::kUpdated};
    }
  };
  template <class F>
  struct UprasePresent {  // uprase_fn: fn(value) -> erase?
    F& fn;
    template <class VV>
    PresentOutcome operator()(V& current, VV&&) const {
      const bool erase = static_cast<bool>(std::invoke(fn, current));
      return {InsertResult::kUpdated, erase};
    }
  };

  // The present-key outcome of an insert (see PresentOutcome).
  // REQUIRES: the stripes of the key's buckets held; pos holds the key.
  template <class VV, class Present>
  InsertResult settle_present(Table& t, std::size_t pos, MapBucketPair pair, VV&& value,
                              Present& present) {
    const PresentOutcome outcome =
        t.with_value(pos, [&](V& current) { return present(current, std::forward<VV>(value)); });
    if (outcome.erase) {
      t.clear_slot(pos);
      stripes_.add_items(stripes_.stripe_of(pair.first), -1);
      count(Counter::kErases);
    } else if (outcome.result == InsertResult::kUpdated) {
      count(Counter::kUpdates);
    }
    return outcome.result;
  }

  // Stores a new key at pos. REQUIRES: the stripes of both of its buckets held, both
  // searched for the key in this critical section ((I3)), pos a free slot of one of them.
  template <class KK, class VV>
  InsertResult place_new(Table& t, std::size_t pos, MapBucketPair pair, KK&& key, VV&& value) {
    t.fill_slot(pos, pair, std::forward<KK>(key), std::forward<VV>(value));
    stripes_.add_items(stripes_.stripe_of(pair.first), 1);
    count(Counter::kInserts);
    return InsertResult::kInserted;
  }

  // A key argument of upsert / uprase_fn as insert_impl takes it: K itself by reference,
  // anything else converted to a K first.
  static const K& key_ref(const K& key) noexcept { return key; }
  static K&& key_ref(K&& key) noexcept { return std::move(key); }
  template <class KK>
    requires(!std::is_same_v<std::remove_cvref_t<KK>, K>)
  static K key_ref(KK&& key) {
    return K(std::forward<KK>(key));
  }

  // The thread's path search buffers (MapPathSearch is scratch space, one per thread).
  static MapPathSearch<SlotsPerBucket>& thread_search() {
    return Sync::template thread_local_object<MapPathSearch<SlotsPerBucket>>();
  }

  // ---- Insert -------------------------------------------------------------------------

  // Locks held on return: none. See the top of this file for the steps.
  // key and value are forwarded to every step, but a step moves from them only when it
  // stores them, and then it returns kDone, which ends the insert: nothing is used after
  // a move.
  // Memory running out (std::bad_alloc from copying the key or value, a search buffer or
  // a new table) answers kFull: every step allocates before it changes anything.
  template <class KK, class VV, class Present>
  InsertResult insert_impl(KK&& key, VV&& value, Present& assign) {
    try {
      return insert_steps(std::forward<KK>(key), std::forward<VV>(value), assign);
    } catch (const std::bad_alloc&) {
      count(Counter::kFullRejections);
      return InsertResult::kFull;
    }
  }
  template <class KK, class VV, class Present>
  InsertResult insert_steps(KK&& key, VV&& value, Present& assign) {
    const std::uint64_t hash = hash_key(key);
    // Bounded: kMaxPathAttempts optimistic attempts, then the exclusive insert decides.
    for (unsigned attempt = 0; attempt < kMaxPathAttempts; ++attempt) {
      const Decision fast =
          insert_in_buckets(std::forward<KK>(key), std::forward<VV>(value), hash, assign);
      if (fast.step == Step::kDone) return fast.result;
      const Decision slow =
          insert_via_path(std::forward<KK>(key), std::forward<VV>(value), hash, assign);
      if (slow.step == Step::kDone) return slow.result;
      if (slow.step == Step::kNoRoom) break;  // no path: only growth can help
      count(Counter::kPathRetries);
    }
    return insert_exclusive(std::forward<KK>(key), std::forward<VV>(value), hash, assign);
  }

  // The fast path: one critical section under the key's two stripes.
  // Locks held on return: none. kDone: decided; kNoRoom: both buckets full.
  template <class KK, class VV, class Present>
  Decision insert_in_buckets(KK&& key, VV&& value, std::uint64_t hash, Present& assign) {
    return with_key_buckets(hash, [&](Table& t, MapBucketPair pair) -> Decision {
      std::size_t pos = position_in(t, pair, key);
      if (pos != kNoPosition) {
        return {Step::kDone, settle_present(t, pos, pair, std::forward<VV>(value), assign)};
      }
      pos = free_position(t, pair);
      if (pos == kNoPosition) return {Step::kNoRoom};
      return {Step::kDone, place_new(t, pos, pair, std::forward<KK>(key), std::forward<VV>(value))};
    });
  }

  // The optimistic slow path and its hops (detail/striped_map_path.hpp). Locks held on
  // return: none.
  template <class KK, class VV, class Present>
  Decision insert_via_path(KK&& key, VV&& value, std::uint64_t hash, Present& assign);
  template <class KK, class VV, class Present>
  Decision place_via_first_hop_one_bucket(KK&& key, VV&& value, Table* t, MapBucketPair pair,
                                          const MapCuckooPath& path, Present& assign);
  bool move_hop(Table* t, MapSlotRef from, MapSlotRef to);
  bool hop_is_valid(const Table& t, MapSlotRef from, MapSlotRef to) const;
  static void apply_hop(Table& t, MapSlotRef from, MapSlotRef to);

  // The exclusive insert and growth, every stripe held (detail/striped_map_growth.hpp).
  // Locks held on return: none.
  template <class KK, class VV, class Present>
  InsertResult insert_exclusive(KK&& key, VV&& value, std::uint64_t hash, Present& assign);
  template <class KK, class VV, class Present>
  InsertResult insert_all_held(KK&& key, VV&& value, std::uint64_t hash, Present& assign,
                               std::size_t* where);
  template <class KK, class VV>
  std::size_t grow_and_place(KK&& key, VV&& value, std::uint64_t hash);
  bool grow_to(std::uint32_t buckets, bool with_pending, std::uint64_t pending_hash,
               std::size_t* pending_pos);
  std::uint32_t growth_target(std::uint32_t current, std::uint64_t needed) const noexcept;

  // ---- Configuration ------------------------------------------------------------------

  // REQUIRES: every stripe held.
  std::size_t retired_bytes_locked() const noexcept {
    std::size_t bytes = 0;
    for (const auto& table : tables_) {  // bounded: at most 31 growths (growth_target())
      if (table.get() != &live_table()) bytes += table->retained_bytes();
    }
    return bytes;
  }

  // REQUIRES: every stripe held.
  void clear_locked() noexcept {
    Table& t = live_table();
    for (std::size_t pos = 0; pos < t.slot_count(); ++pos) {  // bounded by the slot count
      if (t.occupied(pos)) t.clear_slot(pos);
    }
    stripes_.reset_items();
  }
  // reserve(n) and rehash(buckets) once every stripe is held. REQUIRES: every stripe held.
  bool reserve_locked(std::size_t n) {
    if (n > config_.max_capacity) return false;
    const std::uint64_t slots_needed =
        (std::uint64_t{n} * 100 + kReserveLoadPercent - 1) / kReserveLoadPercent;
    return grow_to_at_least((slots_needed + SlotsPerBucket - 1) / SlotsPerBucket);
  }
  bool rehash_locked(std::size_t buckets) { return grow_to_at_least(buckets); }
  bool grow_to_at_least(std::uint64_t buckets_needed) {
    const std::uint32_t current = live_table().bucket_count;
    if (buckets_needed <= current) return true;
    if (buckets_needed > max_bucket_count()) return false;
    // Not exactly what is needed: a loop of small reserve() steps must grow O(log n)
    // times and keep retired_bytes() bounded (growth_target()).
    try {
      return grow_to(growth_target(current, buckets_needed), false, 0, nullptr);
    } catch (const std::bad_alloc&) {
      return false;  // nothing changed
    }
  }

  // The copy constructor's body: other's live table copied slot by slot (same seed and
  // bucket count, so every item keeps its slot), under every stripe of other.
  // Locks held on return: none.
  void copy_from(const StripedMapWithFault& other) {
    other.check_not_locked_by_this_thread();
    const Guard all(other.stripes_, kAllStripes);
    const Table& source = other.live_table();
    auto copy = std::make_unique<Table>(source.bucket_count);
    std::int64_t items = 0;
    for (std::size_t pos = 0; pos < source.slot_count(); ++pos) {  // bounded by the slots
      if (!source.occupied(pos)) continue;
      copy->fill_slot(pos, unpack_buckets(source.word(pos).load(std::memory_order_relaxed)),
                      source.key(pos), source.value(pos));
      ++items;
    }
    stripes_.add_items(0, items);  // nobody else can see this map yet
    tables_.push_back(std::move(copy));
    table_.store(tables_.back().get(), std::memory_order_release);
  }

  // ---- Self-deadlock detection (the locked view) --------------------------------------
  //
  // view_owner_ is the calling thread's marker (this_thread_marker(), one per thread of
  // the sync policy) while a thread that called lock_table() holds the view, null
  // otherwise. Every member that is about to take a stripe first checks it and throws
  // LockedTableError if it names the calling thread: it would wait for a lock it holds
  // itself. Only a thread's own store can make the check true for it, and a thread
  // reads its own latest store of view_owner_ (coherence), so relaxed is enough and
  // there are no false positives; the cost is one load of a line that is written only
  // by lock_table() and unlock(). A plain std::atomic, not Sync's: it is a diagnostic,
  // not part of the concurrency protocol, so the explorer has no scheduling point here.
  struct ThreadMarker {
    char unused = 0;
  };
  static const void* this_thread_marker() noexcept {
    return &Sync::template thread_local_object<ThreadMarker>();
  }
  void check_not_locked_by_this_thread() const {
    const void* owner = view_owner_.load(std::memory_order_relaxed);
    if (owner != nullptr && owner == this_thread_marker()) [[unlikely]] {
      throw LockedTableError(
          "StripedConcurrentMap: this thread holds the map's locked view (lock_table()); "
          "use the view, or unlock() it first: the call would wait for itself forever");
    }
  }

  // The maps' one configuration rule (detail/map_config.hpp) with this design's limits:
  // throws ConfigError naming the first invalid field, draws a seed if there is none.
  static CuckooMapConfig validated(const CuckooMapConfig& config) {
    return validated_map_config(config, MapConfigLimits{SlotsPerBucket, kMaxCapacity,
                                                        std::vector<Slot>().max_size(),
                                                        kMapMaxPathLength, kReserveLoadPercent,
                                                        /*load_configurable=*/false});
  }

  // Not const: swap() exchanges them (nothing else writes them after construction).
  CuckooMapConfig config_;
  std::uint64_t seed_;
  mutable Stripes stripes_;
  // The live table. Replaced (release store) only by a growth holding every stripe.
  typename Sync::template Atomic<Table*> table_{nullptr};
  // The thread holding the locked view, or null (see "Self-deadlock detection").
  std::atomic<const void*> view_owner_{nullptr};
  // Every table ever made, the live one last; changed only under every stripe. Retired
  // tables keep their words for lock-free readers (see the top of this file).
  std::vector<std::unique_ptr<Table>> tables_;
  mutable sync::detail::ShardedCounters<static_cast<std::size_t>(Counter::kCount)> counters_;
  [[no_unique_address]] Hasher hasher_;
  [[no_unique_address]] KeyEqual key_eq_;
};

}  // namespace detail
}  // namespace cuckoo

// ---- Out-of-line definitions (detail/striped_map_*.hpp) ---------------------------------

#define CUCKOO_STRIPED_MAP_TEMPLATE                                                     \
  template <class K, class V, unsigned SlotsPerBucket, class Hasher, class KeyEqual,    \
            StripedMapFault Fault, class Sync>                                         \
    requires HasherFor<Hasher, K>
#define CUCKOO_STRIPED_MAP \
  StripedMapWithFault<K, V, SlotsPerBucket, Hasher, KeyEqual, Fault, Sync>

#include "striped_map_table.hpp"
#include "striped_map_path.hpp"
#include "striped_map_growth.hpp"
#include "striped_map_invariants.hpp"
#include "striped_map_locked.hpp"

#undef CUCKOO_STRIPED_MAP
#undef CUCKOO_STRIPED_MAP_TEMPLATE

namespace cuckoo {
namespace detail {

// The production map (no fault): what StripedConcurrentMap names.
template <class K, class V, unsigned SlotsPerBucket, class Hasher, class KeyEqual>
using StripedMap =
    StripedMapWithFault<K, V, SlotsPerBucket, Hasher, KeyEqual, StripedMapFault::kNone>;

}  // namespace detail
}  // namespace cuckoo
