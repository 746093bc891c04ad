// Thread-safe exact key/value cuckoo maps: the concurrent variants of CuckooMap (claims
// C7 and C10). Two designs behind one interface:
//
//   CoarseConcurrentMap<K, V>    (a) one ElidedLock<McsLock> around a CuckooMap. Lookups
//                                run in read mode, updates in write mode; critical
//                                sections run as hardware transactions where the
//                                HtmPolicy allows (readers then run in parallel) and
//                                under the MCS fallback lock otherwise. Growth happens
//                                inside the write section. Keeps CuckooMap's stash.
//   StripedConcurrentMap<K, V>   (b) bucket-striped spin locks after libcuckoo: an
//                                operation locks the stripes of its key's two buckets;
//                                a cuckoo path is searched without locks and moved hop
//                                by hop under locks with validation; growth takes every
//                                stripe. No stash. Design and invariants:
//                                detail/striped_map.hpp.
//   ConcurrentMap<K, V, Design>  picks one of them by ConcurrentMapDesign.
//
// Semantics are CuckooMap's (cuckoo_map.hpp): insert returns kInserted, kExists (nothing
// changed) or kFull (nothing changed, the key is absent); insert_or_assign kInserted or
// kUpdated (or kFull); erase whether the key was present; find a copy of the value, not a
// pointer (it would dangle as soon as the lock is let go). Every operation is
// linearizable (claim C10, checked by stress/tests/concurrent_map_stress_test.cpp): it
// takes effect at one instant between its call and its return, inside its critical
// section. No key is ever stored twice, across growth too (C7).
//
// Configuration: CuckooMapConfig (initial_capacity, max_capacity, max_path_length, seed)
// with CuckooMap's rules; an invalid one throws ConfigError naming the field, before
// anything is allocated. The coarse map also takes a sync::HtmPolicy (default
// HtmPolicy::automatic(): hardware RTM where the CPU has it, none elsewhere), validated
// the same way, so that tests can run it under every HTM backend.
//
// Thread safety, per member (both designs unless said otherwise)
// ---------------------------------------------------------------
// Any number of threads may call insert, insert_or_assign, erase, find, contains, size,
// empty, clear, reserve, for_each, snapshot, check_invariants and the accessors at once,
// in any mix, on the same map (the striped map also find_fn, update, rehash, lock_table
// and copying the map: its copy constructor takes the source's stripes). Construction,
// destruction, move construction and assignment (of the moved-from map too), copy
// assignment (of the target) and swap (of both maps) need exclusive access, as in
// libcuckoo's cuckoohash_map.
// Which locks each one holds (none is held on any return path: every lock is a scoped
// guard, released before the call returns, also when it leaves by an exception):
//
//   member               coarse (one elided lock)          striped (stripe locks)
//   find, contains       read section                      atomic items (integer or
//                                                          pointer keys and values):
//                                                          none, a validated lock-free
//                                                          read (writes nothing shared);
//                                                          after 4 reads that overlapped
//                                                          a writer, and for other
//                                                          items: the key's two stripes
//   insert, insert_or_   write section (growth inside it)  the key's two stripes; on a
//     assign, erase                                        full bucket pair: lock-free
//                                                          path search, then 2 stripes
//                                                          per hop and 3 for the last;
//                                                          growth: every stripe
//   size, empty          read section (exact)              none: sums per-stripe
//                                                          counters (exact when no
//                                                          insert or erase runs)
//   clear, reserve       write section, not elided         every stripe
//   rehash               -                                 every stripe
//   for_each, snapshot,  read section, not elided          every stripe
//     check_invariants,
//     copy constructor
//   find_fn              -                                 atomic items: as find (fn on
//                                                          a copy); other items: the
//                                                          key's two stripes, fn inside
//   update               -                                 the key's two stripes
//   lock_table           -                                 every stripe, held by the
//                                                          returned view until it is
//                                                          destroyed or unlock()ed
//   capacity, bucket_    read section                      none (atomic snapshot)
//     count, load_factor
//
// Atomic read-modify-write, as libcuckoo's cuckoohash_map offers them, so that a
// concurrent word count (upsert(word, [](auto& n) { ++n; }, 1)) needs no outside lock.
// Each is one linearizable operation (checked by the stress suite like the others); fn
// runs inside the operation's critical section (coarse: the write section; striped: the
// key's two stripes, or every stripe when the insert had to take them all) and must not
// call into the map:
//   update_fn(key, fn)            present: fn(V&) and true; absent: false.
//   erase_fn(key, fn)             present: erases the key if fn(V&) returns true, and
//                                 returns true; absent: false.
//   upsert(key, fn, args...)      present: fn(V&), kUpdated; absent: inserts V(args...),
//                                 kInserted, or kFull (nothing changed).
//   uprase_fn(key, fn, args...)   present: fn(V&), erasing the key if it returns true,
//                                 kUpdated; absent: as upsert.
// With the striped design's atomic items, fn is given a copy of the value, stored back
// into the map when fn returns (if fn throws, the value stays as it was).
// Under the coarse design's hardware transactions a section may run more than once (each
// aborted run rolled back), so fn must change nothing outside the value it is given.
//
// for_each(f) calls f(key, value) for every item with the lock(s) above held, so it sees
// one consistent state; f runs exactly once per item (never inside a transaction) and
// must not call into the same map (the locks are not recursive). Iterators: the striped
// map's lock_table() returns a locked view (libcuckoo's locked_table,
// detail/striped_map_locked.hpp) that holds every stripe while it lives and offers
// forward iterators, find, insert, emplace, insert_or_assign, erase, clear, reserve and
// rehash. Meanwhile other threads' locking operations wait; their lock-free lookups
// cannot validate and, after kMaxOptimisticReads tries, wait too, so no lookup sees
// the view's changes half done. The thread that holds the view must not call the map's
// locking members (they would wait for it forever): they throw LockedTableError instead
// (the lock-free size, empty, capacity, bucket_count, load_factor, seed, config and stats
// still answer). The coarse map has no locked view. docs/concurrent-map-api.md compares
// the striped map's API with libcuckoo's, member by member.
//
// Calls that are concurrent with each other take effect in some order; which one wins a
// race is up to the scheduler. In particular size() while inserts and erases run is a
// value between the counts before and after them, and with the striped design it counts
// each concurrent insert or erase either fully or not at all.
//
// Hasher and KeyEqual are called under the locks (the striped design also hashes outside
// them, and its lock-free lookups compare keys outside them); they must not call into the
// map. K and V: as CuckooMap (nothrow move
// constructible). The coarse map's V must also be copy constructible (find returns a
// copy); the striped map takes move-only values (std::unique_ptr): find, snapshot and
// copying the map are then not offered (requires-clauses), find_fn, update_fn, update,
// the view's iterators and the rest are. An exception thrown by copying a key or value
// leaves the map unchanged.
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "cuckoo_map.hpp"
#include "detail/striped_map.hpp"
#include "hash.hpp"
#include "status.hpp"
#include "sync/elided_lock.hpp"
#include "sync/htm.hpp"
#include "sync/mcs_lock.hpp"

namespace cuckoo {

/// Design (a): one elided lock around a CuckooMap.
///
/// Locks held: each member below runs one critical section of lock_ through a scoped
/// guard (ElidedLock::with_read / with_write, or an ElidedGuard with kNoElision where the
/// section must run exactly once or is known to abort a transaction), and returns with
/// nothing held: the transaction committed or the MCS fallback lock released. Under a
/// hardware transaction a critical section may run more than once (aborted runs are
/// rolled back without a trace); CuckooMap's operations have no effect outside the map,
/// so that is invisible.
///
/// Sync: the sync policy of the lock (policy.hpp); the verification suite's explorer
/// instantiates the class with its checking policy.
template <class K, class V, unsigned SlotsPerBucket = 4, class Hasher = DefaultHasher,
          class KeyEqual = std::equal_to<K>, class Sync = sync::StdSync>
  requires HasherFor<Hasher, K>
class CoarseConcurrentMap {
  static_assert(std::is_copy_constructible_v<V>, "find() returns a copy of the value");

 public:
  /// The single-threaded map inside the lock.
  using map_type = CuckooMap<K, V, SlotsPerBucket, Hasher, KeyEqual>;
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
  /// The elided lock (an MCS fallback lock under hardware transactions).
  using lock_type = sync::BasicElidedLock<sync::BasicMcsLock<Sync>, Sync>;

  /// Slots per bucket of the inner CuckooMap.
  static constexpr unsigned kSlotsPerBucket = SlotsPerBucket;

  /// Throws ConfigError naming the field if config or policy is invalid.
  explicit CoarseConcurrentMap(const CuckooMapConfig& config = {},
                               sync::HtmPolicy policy = sync::HtmPolicy::automatic(),
                               Hasher hash_fn = {}, KeyEqual equal_fn = {})
      : lock_(std::move(policy)), map_(config, std::move(hash_fn), std::move(equal_fn)) {
    lock_.protect(map_);  // the critical sections write map_ (plain memory)
  }

  /// Not copyable (the striped map is).
  CoarseConcurrentMap(const CoarseConcurrentMap&) = delete;
  /// Not copyable.
  CoarseConcurrentMap& operator=(const CoarseConcurrentMap&) = delete;
  /// REQUIRES: no other thread uses the map.
  ~CoarseConcurrentMap() = default;

  /// Inserts key -> value if absent (kInserted), else kExists; kFull if there is no room.
  /// Write section; growth, when needed, runs inside it.
  InsertResult insert(const K& key, const V& value) {
    return lock_.with_write([&] { return map_.insert_outcome(key, value); });
  }
  /// As insert(const K&, const V&), moving from its arguments only when it stores them.
  InsertResult insert(K&& key, V&& value) {
    // A hardware abort rolls back the moves along with everything else; emulated
    // transactions abort only before the section starts. So key and value are moved
    // from exactly once, by the run that commits.
    return lock_.with_write([&] { return map_.insert_outcome(std::move(key), std::move(value)); });
  }
  /// Inserts (kInserted) or assigns (kUpdated); kFull if there is no room. Write section.
  InsertResult insert_or_assign(const K& key, const V& value) {
    return lock_.with_write([&] { return map_.insert_or_assign_outcome(key, value); });
  }
  /// As insert_or_assign(const K&, const V&), moving from its arguments when it uses them.
  InsertResult insert_or_assign(K&& key, V&& value) {
    return lock_.with_write(
        [&] { return map_.insert_or_assign_outcome(std::move(key), std::move(value)); });
  }
  /// Removes key; whether it was present. Write section.
  bool erase(const K& key) {
    return lock_.with_write([&] { return map_.erase(key) != 0; });
  }

  // Atomic read-modify-write (contracts at the top of this file). Write sections, with
  // fn inside; under hardware transactions a section may run more than once with every
  // aborted run rolled back, so fn must change nothing but the value it is given.
  /// Present: fn(V&) and true; absent: false.
  template <class F>
  bool update_fn(const K& key, F&& fn) {
    return lock_.with_write([&] {
      V* value = map_.find_value(key);
      if (value == nullptr) return false;
      std::invoke(fn, *value);
      return true;
    });
  }
  /// Present: fn(V&), erasing the key if it returns true, and true; absent: false.
  template <class F>
  bool erase_fn(const K& key, F&& fn) {
    return lock_.with_write([&] {
      V* value = map_.find_value(key);
      if (value == nullptr) return false;
      if (static_cast<bool>(std::invoke(fn, *value))) map_.erase(key);
      return true;
    });
  }
  /// Present: fn(V&), kUpdated; absent: inserts V(args...), kInserted or kFull.
  template <class KK, class F, class... Args>
    requires std::is_constructible_v<K, KK&&>
  InsertResult upsert(KK&& key, F&& fn, Args&&... args) {
    return lock_.with_write([&] {
      if (V* value = map_.find_value(key)) {
        std::invoke(fn, *value);
        return InsertResult::kUpdated;
      }
      return map_.try_emplace_outcome(std::forward<KK>(key), std::forward<Args>(args)...);
    });
  }
  /// Present: fn(V&), erasing the key if it returns true, kUpdated; absent: as upsert.
  template <class KK, class F, class... Args>
    requires std::is_constructible_v<K, KK&&>
  InsertResult uprase_fn(KK&& key, F&& fn, Args&&... args) {
    return lock_.with_write([&] {
      if (V* value = map_.find_value(key)) {
        if (static_cast<bool>(std::invoke(fn, *value))) map_.erase(key);
        return InsertResult::kUpdated;
      }
      return map_.try_emplace_outcome(std::forward<KK>(key), std::forward<Args>(args)...);
    });
  }

  /// A copy of key's value, or nothing. Read section (so are the accessors below).
  std::optional<V> find(const K& key) const {
    return lock_.with_read([&]() -> std::optional<V> {
      const V* value = std::as_const(map_).find_value(key);
      return value == nullptr ? std::nullopt : std::optional<V>(*value);
    });
  }
  /// Whether key is present.
  bool contains(const K& key) const {
    return lock_.with_read([&] { return map_.contains(key); });
  }
  /// The number of items (exact: linearizable).
  std::size_t size() const {
    return lock_.with_read([&] { return map_.size(); });
  }
  /// Whether size() is 0.
  bool empty() const { return size() == 0; }
  /// Slots of the table (the stash not counted).
  std::size_t capacity() const {
    return lock_.with_read([&] { return map_.capacity(); });
  }
  /// Buckets of the table.
  std::uint32_t bucket_count() const {
    return lock_.with_read([&] { return map_.bucket_count(); });
  }
  /// size() / capacity().
  double load_factor() const {
    return lock_.with_read([&] { return map_.load_factor(); });
  }
  /// The seed in use (CuckooMap may reseed when it grows).
  std::uint64_t seed() const {
    return lock_.with_read([&] { return map_.seed(); });
  }
  /// The validated configuration (never changes; read without the lock).
  const CuckooMapConfig& config() const noexcept { return map_.config(); }

  /// Removes every item. Write section without elision: clearing and rebuilding touch
  /// the whole table, more than a transaction holds.
  void clear() {
    const Guard<sync::WriteMode> guard(lock_, sync::kNoElision);
    map_.clear();
  }
  /// As CuckooMap::reserve(n). Write section without elision.
  bool reserve(std::size_t n) {
    const Guard<sync::WriteMode> guard(lock_, sync::kNoElision);
    return map_.reserve(n);
  }

  /// Calls f(key, value) for every item. Read section without elision, so that f runs
  /// exactly once per item. REQUIRES: f does not call into this map.
  template <class F>
  void for_each(F&& f) const {
    const Guard<sync::ReadMode> guard(lock_, sync::kNoElision);
    for (const auto& item : map_) std::invoke(f, item.first, item.second);
  }
  /// Every item, copied in one read section.
  std::vector<value_type> snapshot() const {
    std::vector<value_type> items;
    for_each([&](const K& key, const V& value) { items.emplace_back(key, value); });
    return items;
  }
  /// CuckooMap's invariant check, in a read section: "" or the first violation.
  std::string check_invariants() const {
    const Guard<sync::ReadMode> guard(lock_, sync::kNoElision);
    return map_.check_invariants();
  }

  /// The inner map's statistics (a copy taken in a read section).
  CuckooMapStats map_stats() const {
    const Guard<sync::ReadMode> guard(lock_, sync::kNoElision);
    return map_.stats();
  }
  /// The elided lock's statistics (commits, aborts, fallbacks).
  sync::ElisionStats lock_stats() const noexcept { return lock_.stats(); }
  /// The HTM policy in use.
  const sync::HtmPolicy& policy() const noexcept { return lock_.policy(); }

 private:
  template <class Mode>
  using Guard = sync::ElidedGuard<Mode, sync::BasicMcsLock<Sync>, Sync>;

  mutable lock_type lock_;
  map_type map_;  // guarded by lock_
};

/// Design (b): striped bucket locks (detail/striped_map.hpp): lock-free lookups of atomic
/// items, the key's two stripes for everything else, a locked view (lock_table()) with
/// iterators; every member's contract is on its declaration in detail/striped_map.hpp.
template <class K, class V, unsigned SlotsPerBucket = 4, class Hasher = DefaultHasher,
          class KeyEqual = std::equal_to<K>>
using StripedConcurrentMap = detail::StripedMap<K, V, SlotsPerBucket, Hasher, KeyEqual>;

/// The two designs, for ConcurrentMap.
enum class ConcurrentMapDesign : std::uint8_t {
  kCoarse,   ///< CoarseConcurrentMap
  kStriped,  ///< StripedConcurrentMap
};

/// One of the designs, chosen by Design.
template <class K, class V, ConcurrentMapDesign Design = ConcurrentMapDesign::kStriped,
          unsigned SlotsPerBucket = 4, class Hasher = DefaultHasher,
          class KeyEqual = std::equal_to<K>>
using ConcurrentMap =
    std::conditional_t<Design == ConcurrentMapDesign::kCoarse,
                       CoarseConcurrentMap<K, V, SlotsPerBucket, Hasher, KeyEqual>,
                       StripedConcurrentMap<K, V, SlotsPerBucket, Hasher, KeyEqual>>;

/// The interface both designs share.
template <class M>
concept ConcurrentMapApi =
    requires(M& m, const M& cm, const typename M::key_type& key,
             const typename M::mapped_type& value, std::size_t n) {
      { m.insert(key, value) } -> std::same_as<InsertResult>;
      { m.insert_or_assign(key, value) } -> std::same_as<InsertResult>;
      { m.erase(key) } -> std::same_as<bool>;
      { cm.find(key) } -> std::same_as<std::optional<typename M::mapped_type>>;
      { cm.contains(key) } -> std::same_as<bool>;
      { cm.size() } -> std::same_as<std::size_t>;
      { cm.empty() } -> std::same_as<bool>;
      { cm.capacity() } -> std::same_as<std::size_t>;
      { cm.bucket_count() } -> std::same_as<std::uint32_t>;
      { cm.seed() } -> std::same_as<std::uint64_t>;
      { cm.config() } -> std::same_as<const CuckooMapConfig&>;
      m.clear();
      { m.reserve(n) } -> std::same_as<bool>;
      { cm.snapshot() } -> std::same_as<std::vector<typename M::value_type>>;
      { cm.check_invariants() } -> std::same_as<std::string>;
      { m.update_fn(key, [](typename M::mapped_type&) {}) } -> std::same_as<bool>;
      { m.erase_fn(key, [](typename M::mapped_type&) { return true; }) } -> std::same_as<bool>;
      { m.upsert(key, [](typename M::mapped_type&) {}, value) } -> std::same_as<InsertResult>;
      { m.uprase_fn(key, [](typename M::mapped_type&) { return false; }, value) }
          -> std::same_as<InsertResult>;
    };

static_assert(ConcurrentMapApi<CoarseConcurrentMap<std::uint64_t, std::uint64_t>>);
static_assert(ConcurrentMapApi<StripedConcurrentMap<std::uint64_t, std::uint64_t>>);

}  // namespace cuckoo
