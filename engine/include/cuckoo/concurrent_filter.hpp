// Concurrent cuckoo filters: the partial-key cuckoo filter of cuckoo_filter.hpp with
// insert, contains and erase callable from any number of threads at once, in three
// designs behind one interface (the concept ConcurrentFilterLike):
//
//   ConcurrentFilter<CoarseElided>   BasicCoarseConcurrentFilter: one elided lock
//                                    around a BasicCuckooFilter (seed 004).
//   ConcurrentFilter<StripedLocks>   BasicStripedConcurrentFilter: striped bucket
//                                    locks, lock-free path search, optimistic lookups.
//   ConcurrentFilter<LockFreeKcas>   BasicLockFreeFilter (cuckoo/lock_free_filter.hpp):
//                                    no locks, relocations by multi-word CAS (seed 003).
//
// All three take the CuckooFilterConfig of CuckooFilter, throw the same ConfigError for a bad
// one, derive buckets and fingerprint from the hash exactly as CuckooFilter does, and keep
// its semantics (claims C1, C5, C6; C10 is checked by stress/):
//   - no false negatives: contains(x) is true for every x whose insert returned
//     kInserted (completed before contains began) and whose erase has not begun;
//   - erase removes exactly one copy; one item is held at most max_copies(x) times (2b,
//     b when its two buckets coincide), beyond which insert returns kDuplicateLimit;
//   - a failed insert loses nothing: kFull and kDuplicateLimit leave the multiset of
//     stored items unchanged (the striped design may have moved items between their two
//     buckets), and an item that finds no place may go to a small stash that lookups
//     and erases consult;
//   - insert, contains and erase are linearizable (against the multiset model with the
//     filter relaxations: contains may report a false positive); so is size() in the
//     coarse design, while the striped design's size() is exact only when no update
//     runs and otherwise within the bounds stated at StripedConcurrentFilter below;
//   - the caveat of every cuckoo filter stands: erase only items you inserted.
// Which one to use: the coarse design keeps CuckooFilter's code and compact table and
// adds one elided-lock critical section per operation (single-threaded, several times
// CuckooFilter's cost: the transaction or MCS lock plus the lock's statistics); with
// RTM, non-conflicting sections run in parallel, without it every operation serializes
// on one MCS lock. The striped design scales without RTM: lookups write nothing shared
// (close to CuckooFilter's speed single-threaded), updates lock two stripes (about twice
// CuckooFilter's cost).
//
// Coarse design (BasicCoarseConcurrentFilter)
// -------------------------------------------
// One sync::ElidedLock<sync::McsLock> guards one BasicCuckooFilter. contains and size
// run in read mode, insert, erase and clear in write mode (seed 004, Algorithms 1.1-1.3:
// FIND_LOCK / UPDATE_LOCK). Each critical section first runs as a hardware transaction
// that reads the MCS lock word; after kMaxTransactionRetries retries (or an abort that
// says retrying will not help, or no RTM) it takes the MCS lock. Locks held on return
// from every operation: none (the transaction committed, or the MCS lock was released by
// the guard). Inside: either no lock (a transaction) or the MCS fallback lock. Reads and
// writes are both exclusive on the fallback path; the mode only labels it (the seed's
// mutex->mode). The HTM backend is a constructor argument (sync::HtmPolicy, default
// automatic: hardware if the CPU has RTM, else disabled), so the same filter runs under
// every backend of htm.hpp (disabled, always-abort, scripted, random, serial emulation,
// hardware). The hash is computed before the critical section (the hasher and seed never
// change), keeping transactions short.
//
// Striped design (BasicStripedConcurrentFilter)
// ---------------------------------------------
// Storage: detail::AtomicBucketTable, fingerprints in 8/16/32-bit lanes of atomic 64-bit
// words (w / f times the packed table's memory: 1 for f = 8, 16, 32, 4/3 for f = 12, 2
// for f = 4), plus 64 bytes per lock stripe. Locks: a power-of-two array of stripes,
// each a VersionLock (a spinlock whose word is a seqlock version), one per cache line;
// bucket i maps to stripe (word group of i) & (stripes - 1), so buckets sharing a table
// word share a stripe.
// Lock order: stripes in ascending index, each distinct stripe once, then the stash
// lock. Nothing takes a stripe while holding the stash lock or a higher stripe, so there
// is no deadlock; clear() takes all stripes in the same order.
//   insert: lock stripe(b1), stripe(b2); copy limit (buckets + stash), then an empty
//     slot in b1, else b2. If both are full, unlock and search a cuckoo path WITHOUT
//     locks (BFS over acquire loads of the table, at most min(max_kicks, 4096) buckets
//     and 32 hops; detail/concurrent_filter_path.hpp). Execute it from its end: each hop
//     locks the two stripes of the buckets it touches, re-checks that the source slot
//     still holds the fingerprint the search saw and that the target has an empty slot,
//     and moves it (copy, then empty the source); the last step locks stripe(b1),
//     stripe(b2) and the first hop's target, re-checks the copy limit and direct
//     placement, then moves the first hop and stores the new fingerprint in the freed
//     slot. A failed check abandons the path (the hops made stay valid: each moved an
//     item to its other bucket) and searches again, up to 8 times; then, with
//     stripe(b1), stripe(b2) and the stash lock held, the item goes into the stash (4
//     entries), or the insert returns kFull with nothing changed.
//   erase: lock stripe(b1), stripe(b2); empty one matching slot of b1, else b2, else
//     remove a stash entry (stash lock). A freed slot is offered to stash entries that
//     have that bucket as one of theirs (stash lock), so the stash drains.
//   contains: optimistic. Read the versions of stripe(b1) and stripe(b2) (retry if one
//     is odd: a writer holds it), look in b1, b2 and, if not empty, the stash (under its
//     lock), re-read the versions; equal versions mean no update overlapped, so "absent"
//     is a consistent answer. A fingerprint seen answers "present" at once (it was
//     stored at that instant). After 8 failed validations the lookup locks both stripes.
//   Why optimistic rather than read-locking the two stripes: a locked lookup writes two
//   lock words, so concurrent lookups of one hot bucket pair bounce its cache lines
//   between cores; the optimistic lookup only reads, which is what lets lookup-heavy
//   workloads scale. Its cost is that the table must be read through atomics (done: every
//   word is a std::atomic, acquire loads, release stores), or the optimistic reads would
//   be data races (undefined behaviour, and ThreadSanitizer reports).
//   size(): sharded relaxed counters of inserted and erased copies, summed without a
//   snapshot: exact when no update runs; otherwise at least the size at some instant of
//   the call and at most the size when it began plus the inserts that complete during
//   it (detail/striped_filter.hpp). Not linearizable.
// Locks held on return from every operation: none.
//
// Thread safety (both designs): insert, contains, erase, size, stash_size, clear and the
// introspection calls may all run concurrently with each other, on any threads. The
// configuration getters (bucket_count, slots_per_bucket, fingerprint_bits, seed, ...)
// read immutable state. Neither class is copyable or movable (they own locks).
#pragma once

#include <algorithm>
#include <bit>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "cuckoo/cuckoo_filter.hpp"
#include "cuckoo/detail/stripe_locks.hpp"
#include "cuckoo/detail/concurrent_filter_table.hpp"
#include "cuckoo/detail/striped_filter.hpp"
#include "cuckoo/error.hpp"
#include "cuckoo/hash.hpp"
#include "cuckoo/status.hpp"
#include "cuckoo/sync/elided_lock.hpp"
#include "cuckoo/sync/htm.hpp"
#include "cuckoo/sync/mcs_lock.hpp"

namespace cuckoo {

/// The three designs of the concurrent filter.
enum class ConcurrentFilterDesign : std::uint8_t {
  kCoarseElided,  ///< one elided lock (RTM, MCS fallback) around a CuckooFilter
  kStripedLocks,  ///< striped bucket locks, lock-free path search, optimistic lookups
  kLockFreeKcas,  ///< no locks: relocations by multi-word CAS (cuckoo/lock_free_filter.hpp)
};

/// The design's name, as used in reports.
constexpr std::string_view to_string(ConcurrentFilterDesign d) noexcept {
  switch (d) {
    case ConcurrentFilterDesign::kCoarseElided: return "coarse_elided";
    case ConcurrentFilterDesign::kStripedLocks: return "striped_locks";
    case ConcurrentFilterDesign::kLockFreeKcas: return "lock_free_kcas";
  }
  return "unknown";
}

/// Design tags for ConcurrentFilter<Design>.
struct CoarseElided {
  /// ConcurrentFilterDesign::kCoarseElided.
  static constexpr ConcurrentFilterDesign kDesign = ConcurrentFilterDesign::kCoarseElided;
};
/// The striped design's tag: StripedConcurrentFilter.
struct StripedLocks {
  /// ConcurrentFilterDesign::kStripedLocks.
  static constexpr ConcurrentFilterDesign kDesign = ConcurrentFilterDesign::kStripedLocks;
};
/// Defined in cuckoo/lock_free_filter.hpp (include it to use this tag).
struct LockFreeKcas {
  /// ConcurrentFilterDesign::kLockFreeKcas.
  static constexpr ConcurrentFilterDesign kDesign = ConcurrentFilterDesign::kLockFreeKcas;
};

/// The interface both designs implement (integer keys shown; the key-level calls accept
/// any key the Hasher accepts).
template <class F>
concept ConcurrentFilterLike =
    !std::is_copy_constructible_v<F> &&
    requires(F& f, const F& cf, std::uint64_t key, std::uint64_t h) {
      { F::kDesign } -> std::convertible_to<ConcurrentFilterDesign>;
      { f.insert(key) } -> std::same_as<InsertResult>;
      { cf.contains(key) } -> std::same_as<bool>;
      { f.erase(key) } -> std::same_as<bool>;
      { cf.hash_of(key) } -> std::same_as<std::uint64_t>;
      { f.insert_hash(h) } -> std::same_as<InsertResult>;
      { cf.contains_hash(h) } -> std::same_as<bool>;
      { f.erase_hash(h) } -> std::same_as<bool>;
      { cf.size() } -> std::same_as<std::uint64_t>;
      { cf.stash_size() } -> std::same_as<unsigned>;
      f.clear();
      { cf.max_copies(key) } -> std::same_as<unsigned>;
      { cf.max_copies_of_hash(h) } -> std::same_as<unsigned>;
      { cf.placement_of_hash(h) } -> std::same_as<CuckooFilterPlacement>;
      { cf.bucket_count() } -> std::same_as<std::uint32_t>;
      { cf.slots_per_bucket() } -> std::same_as<unsigned>;
      { cf.fingerprint_bits() } -> std::same_as<unsigned>;
      { cf.max_kicks() } -> std::same_as<unsigned>;
      { cf.seed() } -> std::same_as<std::uint64_t>;
    };

// ---------------------------------------------------------------------------------
// Coarse design.

/// Sync: the sync policy of the lock (policy.hpp); the verification suite's explorer
/// instantiates the class with its checking policy.
template <class Hasher = DefaultHasher, class Sync = sync::StdSync>
class BasicCoarseConcurrentFilter
    : public detail::FilterKeyOps<BasicCoarseConcurrentFilter<Hasher, Sync>, Hasher> {
  using KeyOps = detail::FilterKeyOps<BasicCoarseConcurrentFilter, Hasher>;

 public:
  /// The single-threaded filter the lock guards.
  using Filter = BasicCuckooFilter<Hasher>;
  /// Where a hash's item lives: its two buckets and its fingerprint.
  using Placement = CuckooFilterPlacement;
  /// The lock: an MCS lock elided with hardware transactions.
  using Lock = sync::BasicElidedLock<sync::BasicMcsLock<Sync>, Sync>;
  /// This filter's design, ConcurrentFilterDesign::kCoarseElided.
  static constexpr ConcurrentFilterDesign kDesign = ConcurrentFilterDesign::kCoarseElided;
  /// Stash entries, as CuckooFilter's.
  static constexpr unsigned kStashSlots = Filter::kStashSlots;

  /// Throws ConfigError naming the field: the config as CuckooFilter's constructor does
  /// ("fingerprint_bits", "slots_per_bucket", "capacity", "max_kicks"), then the policy
  /// as
  /// HtmPolicy::validate() does; both are checked before anything is allocated.
  explicit BasicCoarseConcurrentFilter(const CuckooFilterConfig& config,
                                       sync::HtmPolicy policy = sync::HtmPolicy::automatic(),
                                       Hasher hasher = Hasher())
      : filter_(validated(config, policy), std::move(hasher)), lock_(std::move(policy)) {
    lock_.protect(filter_);  // the critical sections write filter_ (plain memory)
  }

  BasicCoarseConcurrentFilter(const BasicCoarseConcurrentFilter&) = delete;
  BasicCoarseConcurrentFilter& operator=(const BasicCoarseConcurrentFilter&) = delete;

  // ---- Key-level operations (detail/filter_key_ops.hpp), as CuckooFilter's: hash the
  // key (no lock), then the hash-level operation below. insert and erase run in write
  // mode, contains in read mode; locks on return: none. erase REQUIRES: key was
  // inserted.
  using KeyOps::contains;
  using KeyOps::erase;
  using KeyOps::hash_of;
  using KeyOps::insert;
  using KeyOps::max_copies;

  // ---- Hash-level operations. Each is one critical section of the elided lock: a
  // transaction (no lock held) or the MCS fallback lock; released on return.

  /// CuckooFilter::insert_hash in write mode: kInserted, kDuplicateLimit or kFull
  /// (nothing changed). Linearizable.
  InsertResult insert_hash(std::uint64_t h) {
    return lock_.with_write([&] { return filter_.insert_hash(h); });
  }
  /// CuckooFilter::contains_hash in read mode: never false for an item inserted and not
  /// erased. Linearizable.
  bool contains_hash(std::uint64_t h) const {
    return lock_.with_read([&] { return filter_.contains_hash(h); });
  }
  /// CuckooFilter::erase_hash in write mode: removes one copy; false if none was found.
  /// REQUIRES: the item was inserted. Linearizable.
  bool erase_hash(std::uint64_t h) {
    return lock_.with_write([&] { return filter_.erase_hash(h); });
  }

  /// Stored copies; linearizable (read mode). Locks on return: none.
  std::uint64_t size() const {
    return lock_.with_read([&] { return filter_.size(); });
  }
  /// Entries in the stash (read mode).
  unsigned stash_size() const {
    return lock_.with_read([&] { return filter_.stash_size(); });
  }
  /// Empties the filter and its statistics (write mode). Locks on return: none.
  void clear() {
    lock_.with_write([&] { filter_.clear(); });
  }

  /// A copy of the whole filter as one consistent snapshot (serialize it, compare it,
  /// inspect slots). Read mode without elision (the copy allocates, which would abort a
  /// transaction): the MCS lock is held while copying, released on return.
  Filter snapshot() const {
    const sync::ElidedGuard<sync::ReadMode, sync::BasicMcsLock<Sync>, Sync> held(lock_,
                                                                               sync::kNoElision);
    return filter_;
  }
  /// The single-threaded filter's statistics (read mode).
  CuckooFilterStats filter_stats() const {
    return lock_.with_read([&] { return filter_.stats(); });
  }
  /// How the lock's critical sections ran: transactions, aborts, fallbacks.
  sync::ElisionStats elision_stats() const noexcept { return lock_.stats(); }
  /// The hardware-transaction policy the lock was built with.
  const sync::HtmPolicy& htm_policy() const noexcept { return lock_.policy(); }
  /// The backend the lock actually runs (automatic() resolved for this CPU).
  sync::HtmBackend effective_backend() const noexcept { return lock_.effective_backend(); }

  // ---- Configuration: immutable, read without locks.
  /// The buckets and fingerprint of the item whose hash is h.
  Placement placement_of_hash(std::uint64_t h) const noexcept { return filter_.placement_of_hash(h); }
  /// How many copies of that item may be stored: 2b, or b when both buckets coincide.
  unsigned max_copies_of_hash(std::uint64_t h) const noexcept { return filter_.max_copies_of_hash(h); }
  /// Number of buckets.
  std::uint32_t bucket_count() const noexcept { return filter_.bucket_count(); }
  /// Slots per bucket (b).
  unsigned slots_per_bucket() const noexcept { return filter_.slots_per_bucket(); }
  /// Fingerprint bits (f).
  unsigned fingerprint_bits() const noexcept { return filter_.fingerprint_bits(); }
  /// Evictions one insert may make, as configured.
  unsigned max_kicks() const noexcept { return filter_.max_kicks(); }
  /// Whether huge pages were requested for the table (CuckooFilterConfig::huge_pages).
  bool huge_pages() const noexcept { return filter_.huge_pages(); }
  /// The seed the keys are hashed with (the configured one, or the one drawn at
  /// construction).
  std::uint64_t seed() const noexcept { return filter_.seed(); }
  /// The hasher.
  const Hasher& hasher() const noexcept { return filter_.hasher(); }

 private:
  static const CuckooFilterConfig& validated(const CuckooFilterConfig& config,
                                             const sync::HtmPolicy& policy) {
    detail::validate_cuckoo_filter_config(config);
    policy.validate();
    return config;
  }

  Filter filter_;  ///< guarded by lock_ (its configuration fields are immutable)
  /// Lockable from const lookups; the lock is not logical state.
  mutable Lock lock_;
};

// ---------------------------------------------------------------------------------
// Striped design.

/// Options of the striped filter beyond CuckooFilterConfig: the number of lock stripes.
struct StripedFilterOptions {
  /// 0: automatic, min(kDefaultMaxStripes, the word groups rounded up to a power of two).
  static constexpr std::size_t kAutomaticStripes = 0;
  /// The most stripes the automatic choice takes.
  static constexpr std::size_t kDefaultMaxStripes = 1024;
  /// The most stripes allowed.
  static constexpr std::size_t kMaxStripes = detail::LockStripes::kMaxStripes;
  /// Lock stripes: 0 or a power of two in 1..kMaxStripes. Fewer stripes than word groups
  /// make unrelated buckets share locks (more contention, same correctness; tests use 1
  /// and 2 to force it).
  std::size_t stripes = kAutomaticStripes;
};

namespace detail {

inline std::uint64_t striped_filter_table_bytes(const CuckooFilterShape& shape) noexcept {
  return AtomicBucketTable::bytes_for(shape.bucket_count, shape.slots_per_bucket,
                                      shape.fingerprint_bits);
}

// Buckets that share a table word (see AtomicBucketTable).
inline unsigned striped_buckets_per_word(const CuckooFilterShape& shape) noexcept {
  const unsigned bucket_bits =
      shape.slots_per_bucket * AtomicBucketTable::lane_bits_for(shape.fingerprint_bits);
  return bucket_bits <= AtomicBucketTable::kWordBits ? AtomicBucketTable::kWordBits / bucket_bits
                                                     : 1U;
}

// Validates the config (CuckooFilter's checks, then the striped table's size) and the
// options; throws ConfigError naming the field. Allocates nothing.
inline std::pair<CuckooFilterShape, std::size_t> validate_striped_filter(
    const CuckooFilterConfig& config, const StripedFilterOptions& options) {
  const CuckooFilterShape shape = validate_cuckoo_filter_config(config);
  if (config.semi_sorted) {
    throw ConfigError("semi_sorted", "is true; the striped filter's word-lane table has no "
                                     "semi-sorted layout (CuckooFilter and the coarse "
                                     "concurrent filter have)");
  }
  if (config.nested_prefix_bits != 0) {
    throw ConfigError("nested_prefix_bits", "is " + std::to_string(config.nested_prefix_bits) +
                                                "; the striped filter has the standard placement "
                                                "rule only (allowed 0)");
  }
  const std::uint64_t bytes = striped_filter_table_bytes(shape);
  if (bytes > cuckoo_filter_table_byte_limit()) {
    throw ConfigError("capacity", "is " + std::to_string(config.capacity) +
                                      ", whose concurrent table of " + std::to_string(bytes) +
                                      " bytes is too large to allocate (limit " +
                                      std::to_string(cuckoo_filter_table_byte_limit()) +
                                      " bytes)");
  }
  std::size_t stripes = options.stripes;
  if (stripes == StripedFilterOptions::kAutomaticStripes) {
    const std::uint64_t per_word = striped_buckets_per_word(shape);
    const std::uint64_t groups = (shape.bucket_count + per_word - 1) / per_word;
    stripes = static_cast<std::size_t>(
        std::min<std::uint64_t>(std::bit_ceil(groups), StripedFilterOptions::kDefaultMaxStripes));
  } else if (!std::has_single_bit(stripes) || stripes > StripedFilterOptions::kMaxStripes) {
    throw ConfigError("stripes", "is " + std::to_string(stripes) +
                                     "; allowed 0 (automatic) or a power of two in 1.." +
                                     std::to_string(StripedFilterOptions::kMaxStripes));
  }
  return {shape, stripes};
}

// The striped design with its lock and validation policy as a parameter: the seam the
// verification suite uses to build broken variants. Production code uses
// cuckoo::BasicStripedConcurrentFilter below, which fixes Policy to StripedFilterPolicy.
template <class Hasher, class Policy>
class BasicStripedConcurrentFilter
    : public FilterKeyOps<BasicStripedConcurrentFilter<Hasher, Policy>, Hasher> {
  using KeyOps = FilterKeyOps<BasicStripedConcurrentFilter, Hasher>;

 public:
  using Placement = CuckooFilterPlacement;
  using Stats = StripedFilterStats;
  using Engine = detail::StripedFilter<Policy>;
  static constexpr ConcurrentFilterDesign kDesign = ConcurrentFilterDesign::kStripedLocks;
  static constexpr unsigned kStashSlots = Engine::kStashSlots;

  // Throws ConfigError naming the field: the config as CuckooFilter's constructor does
  // ("fingerprint_bits", "slots_per_bucket", "capacity", "max_kicks"), "semi_sorted" and
  // "nested_prefix_bits" when set, "capacity" also when the concurrent table (larger than the packed one for some f) would exceed the
  // size limit, and "stripes" for bad options. Nothing is allocated before all checks.
  explicit BasicStripedConcurrentFilter(const CuckooFilterConfig& config,
                                        StripedFilterOptions options = {},
                                        Hasher hasher = Hasher())
      : BasicStripedConcurrentFilter(detail::validate_striped_filter(config, options),
                                     config.seed, config.huge_pages, std::move(hasher)) {}

  BasicStripedConcurrentFilter(const BasicStripedConcurrentFilter&) = delete;
  BasicStripedConcurrentFilter& operator=(const BasicStripedConcurrentFilter&) = delete;

  // ---- Key-level operations (detail/filter_key_ops.hpp), as CuckooFilter's: hash the
  // key (no lock), then the hash-level operation below. erase REQUIRES: key was inserted
  // (the cuckoo filter caveat).
  using KeyOps::contains;
  using KeyOps::erase;
  using KeyOps::hash_of;
  using KeyOps::insert;
  using KeyOps::max_copies;

  // ---- Hash-level operations. Locks held inside each: see the top of this file and
  // detail/striped_filter.hpp; on return: none.

  // kInserted (into a bucket, possibly after moving others along a path, or into the
  // stash), kDuplicateLimit (max copies stored; nothing changed) or kFull (no path and
  // the stash is full; nothing changed).
  InsertResult insert_hash(std::uint64_t h) { return engine_.insert(h); }
  bool contains_hash(std::uint64_t h) const { return engine_.contains(h); }
  bool erase_hash(std::uint64_t h) { return engine_.erase(h); }

  // Stored copies: exact when no insert, erase or clear runs (see the top).
  std::uint64_t size() const noexcept { return engine_.size(); }
  unsigned stash_size() const noexcept { return engine_.stash_size(); }
  void clear() noexcept { engine_.clear(); }

  Stats stats() const noexcept { return engine_.stats(); }
  // The stash entries, oldest first, copied under the stash lock.
  std::vector<Placement> stash() const { return engine_.stash_entries(); }
  // The fingerprint in a slot, 0 if empty (an atomic read; a consistent picture of the
  // table needs quiescence). REQUIRES: bucket < bucket_count(), slot < slots_per_bucket().
  std::uint32_t fingerprint_at(std::uint32_t bucket, unsigned slot) const noexcept {
    return engine_.table().get(bucket, slot);
  }
  std::size_t stripe_count() const noexcept { return engine_.stripe_count(); }
  std::uint32_t stripe_of(std::uint32_t bucket) const noexcept { return engine_.stripe_of(bucket); }
  // Table words, lock stripes and this object.
  std::size_t memory_bytes() const noexcept { return engine_.memory_bytes() + sizeof(*this); }
  /// Whether huge pages were requested for the table (CuckooFilterConfig::huge_pages: a
  /// table of 2 MiB or more 2 MiB aligned and advised MADV_HUGEPAGE).
  bool huge_pages() const noexcept { return engine_.huge_pages(); }
  const Engine& engine() const noexcept { return engine_; }

  // ---- Configuration: immutable.
  Placement placement_of_hash(std::uint64_t h) const noexcept { return engine_.placement_of_hash(h); }
  unsigned max_copies_of_hash(std::uint64_t h) const noexcept {
    return engine_.max_copies_of(engine_.placement_of_hash(h));
  }
  std::uint32_t bucket_count() const noexcept { return engine_.bucket_count(); }
  unsigned slots_per_bucket() const noexcept { return engine_.slots_per_bucket(); }
  unsigned fingerprint_bits() const noexcept { return engine_.fingerprint_bits(); }
  unsigned max_kicks() const noexcept { return engine_.max_kicks(); }
  std::uint64_t seed() const noexcept { return seed_; }
  const Hasher& hasher() const noexcept { return hasher_; }

 private:
  BasicStripedConcurrentFilter(const std::pair<detail::CuckooFilterShape, std::size_t>& checked,
                               std::optional<std::uint64_t> seed, bool huge_pages, Hasher hasher)
      : hasher_(std::move(hasher)),
        seed_(seed ? *seed : random_seed()),
        engine_(checked.first, checked.second, huge_pages) {}

  const Hasher hasher_;
  const std::uint64_t seed_;
  Engine engine_;
};

}  // namespace detail

/// The striped design: detail::BasicStripedConcurrentFilter with the production policy.
template <class Hasher = DefaultHasher>
using BasicStripedConcurrentFilter =
    detail::BasicStripedConcurrentFilter<Hasher, detail::StripedFilterPolicy>;

// ---------------------------------------------------------------------------------
// Choosing a design by tag.

namespace detail {
template <class Design, class Hasher>
struct ConcurrentFilterFor;
template <class Hasher>
struct ConcurrentFilterFor<CoarseElided, Hasher> {
  using type = BasicCoarseConcurrentFilter<Hasher>;
};
template <class Hasher>
struct ConcurrentFilterFor<StripedLocks, Hasher> {
  using type = cuckoo::BasicStripedConcurrentFilter<Hasher>;
};
}  // namespace detail

/// The concurrent filter of a design tag (CoarseElided, StripedLocks, LockFreeKcas) with
/// a Hasher.
template <class Design, class Hasher = DefaultHasher>
using BasicConcurrentFilter = typename detail::ConcurrentFilterFor<Design, Hasher>::type;

/// ConcurrentFilter<CoarseElided> or ConcurrentFilter<StripedLocks>.
template <class Design>
using ConcurrentFilter = BasicConcurrentFilter<Design>;

/// One cuckoo filter under one lock elided with hardware transactions (MCS lock
/// fallback).
using CoarseConcurrentFilter = ConcurrentFilter<CoarseElided>;
/// Striped bucket locks; lookups optimistic (seqlock), writing nothing shared.
using StripedConcurrentFilter = ConcurrentFilter<StripedLocks>;

static_assert(ConcurrentFilterLike<CoarseConcurrentFilter>);
static_assert(ConcurrentFilterLike<StripedConcurrentFilter>);

}  // namespace cuckoo
