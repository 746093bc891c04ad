// The lock-free cuckoo filter (seed 003): CuckooFilter's semantics with no lock at all.
// Every relocation of a fingerprint changes two buckets in one multi-word compare-and-
// swap (sync/kcas.hpp), so no thread ever holds anything another must wait for: a thread
// stalled anywhere, even halfway through a relocation, blocks nobody (the next thread to
// meet its K-CAS finishes it). Lookups write nothing shared.
//
//   LockFreeFilter = BasicLockFreeFilter<DefaultHasher, sync::StdSync>
//   ConcurrentFilter<LockFreeKcas> is the same class (concurrent_filter.hpp's interface).
//
// Semantics: as CuckooFilter's and the other concurrent filters' (claims C1, C5, C6, C10),
// with the same hash rule (an item has the same buckets and fingerprint as in a
// CuckooFilter of the same configuration and seed):
//   - no false negatives: contains(x) is true for every x whose insert returned kInserted
//     (completed before contains began) and whose erase has not begun;
//   - erase removes exactly one copy; one item is stored at most max_copies(x) times (2b,
//     b when its buckets coincide), beyond which insert returns kDuplicateLimit;
//   - a failed insert loses nothing: kFull and kDuplicateLimit leave the multiset of
//     stored items unchanged (a kFull insert may have moved items between their two
//     buckets). There is no stash: an item that finds no place is refused with kFull;
//   - insert, contains and erase are linearizable against the multiset model with the
//     filter relaxations (contains may be a false positive; kFull may replace kInserted);
//   - size() is thread-safe; exact when no update runs, otherwise within the bounds
//     stated at size() (sharded counters, as the striped filter's; not linearizable);
//   - the caveat of every cuckoo filter: erase only items you inserted.
// Progress: insert, erase and clear are lock-free (some thread always completes its
// operation; a retry happens only because another update of the same bucket succeeded);
// contains is lock-free as well and never writes shared memory.
//
// Table (detail/lock_free_filter_table.hpp): one bucket is one K-CAS word (62 value
// bits) holding its b fingerprints and a version (the relocation counter, bumped by every
// change of the bucket), or up to four words for wide buckets. Shapes that fit: every
// one CuckooFilterConfig allows (f in 4..32, b in {1, 2, 4, 8}) except b = 8 with
// f >= 25, which throws ConfigError. One word: f * b <= 48 (b = 4: f <= 12; b = 8:
// f <= 6; b = 2: f <= 24; b = 1: every f); b = 4 takes two words up to f = 24.
// Memory: 8 bytes per bucket and word. At f = 12, b = 4: 64 bits per bucket
// against CuckooFilter's 48, of which 48 hold fingerprints, 2 are the K-CAS tag and 14 the
// version: the version (the relocation counters' share) is 29 % of CuckooFilter's bytes,
// the rest 4.2 %. Descriptors: fixed, sync::Kcas::descriptor_bytes() per process.
//
// Algorithm (b1, b2 the item's buckets, fp its fingerprint):
//   contains: read b1 (fp seen: true), read b2 (fp seen: true), read b1's word 0 again:
//     unchanged means b1 did not change meanwhile, so at the read of b2 neither bucket
//     held fp: false. Changed: start again. A relocation from b2 to b1 between the two
//     reads bumps b1's version, which is what the re-read catches; an item moving the
//     other way (b1 to b2) is seen in b2. Reads interpret a K-CAS in progress instead of
//     helping it (sync::BasicKcas::peek), so a lookup writes nothing.
//   insert: an empty slot in b1, else b2: one CAS of that bucket's word (wide buckets:
//     a K-CAS with word 0 when the slot is in another word). A failed CAS starts again. Both
//     full: if a consistent read of both (b1, b2, b1 again) shows max_copies copies,
//     kDuplicateLimit. Else a breadth-first search (without writing) for a path of
//     relocations ending at an empty slot (at most min(max_kicks, 4096) buckets, 32
//     hops), executed from its end: each hop is one K-CAS of its two buckets, expecting
//     exactly the words the hop read (so it re-validates both: the fingerprint is still
//     in the source slot, the target still has room), moving the fingerprint and bumping
//     both versions. The last step moves the first hop's fingerprint out of b1 or b2 and
//     puts fp into the slot it frees, in one K-CAS. A failed hop abandons the path (the
//     hops made stay valid: each moved an item into its other bucket) and searches
//     again, 8 times at most; then kDuplicateLimit or kFull from a consistent read.
//     The copy limit needs no check when a slot is taken: b1 and b2 have 2b slots, so a
//     copy placed there means fewer than 2b copies were stored (b when b1 = b2).
//   erase: a slot of b1 holding fp, else of b2: one CAS emptying it (false if both lack
//     fp in a consistent read).
//   clear: empties each bucket by one CAS; not one atomic step (an insert running
//     beside it may survive it), every item stored before it began and not re-inserted
//     is gone when it returns.
// Linearization points: a placement or relocation at its CAS / K-CAS decision; a
// kDuplicateLimit or kFull insert, a false erase and a false contains at the read of b2
// in the consistent read; a true contains at the read that saw fp.
//
// Thread safety: insert, contains, erase, size, clear and the introspection calls may
// all run concurrently, on any number of threads, including from the destructors of the
// caller's thread_local objects at thread exit. Updates beyond sync::Kcas::kMaxThreads
// inside K-CAS at the same instant wait for one of those to return (see kcas.hpp,
// "Thread ids"); lookups take no id. Not copyable or movable.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include "cuckoo/concurrent_filter.hpp"
#include "cuckoo/cuckoo_filter.hpp"
#include "cuckoo/detail/concurrent_filter_path.hpp"
#include "cuckoo/detail/filter_hash_rule.hpp"
#include "cuckoo/detail/filter_key_ops.hpp"
#include "cuckoo/detail/lock_free_filter_table.hpp"
#include "cuckoo/error.hpp"
#include "cuckoo/hash.hpp"
#include "cuckoo/status.hpp"
#include "cuckoo/sync/detail/counters.hpp"
#include "cuckoo/sync/kcas.hpp"
#include "cuckoo/sync/policy.hpp"

namespace cuckoo {

/// Counters of a lock-free filter (relaxed statistics; exact once the threads that used
/// the filter have been joined).
struct LockFreeFilterStats {
  std::uint64_t inserts = 0;               ///< inserts that returned kInserted
  std::uint64_t duplicate_rejections = 0;  ///< inserts that returned kDuplicateLimit
  std::uint64_t full_rejections = 0;       ///< inserts that returned kFull
  std::uint64_t path_searches = 0;         ///< BFS searches (both candidate buckets were full)
  std::uint64_t path_hops = 0;             ///< fingerprints relocated (K-CAS of two buckets)
  std::uint64_t path_retries = 0;          ///< paths abandoned because a hop's K-CAS failed
  std::uint64_t update_retries = 0;        ///< single-bucket CASes that lost a race
  /// consistent reads of erase and of the copy-limit check that saw b1 change (contains
  /// retries too, but counts nothing: it writes no shared memory, counters included)
  std::uint64_t lookup_retries = 0;
};

namespace detail {

// The layout of a validated shape, or ConfigError naming the field that does not fit.
inline LockFreeBucketLayout validate_lock_free_filter(const CuckooFilterConfig& config,
                                                      const CuckooFilterShape& shape) {
  if (config.semi_sorted) {
    throw ConfigError("semi_sorted", "is true; the lock-free filter's K-CAS word buckets have "
                                     "no semi-sorted layout (CuckooFilter and the coarse "
                                     "concurrent filter have)");
  }
  if (config.nested_prefix_bits != 0) {
    throw ConfigError("nested_prefix_bits", "is " + std::to_string(config.nested_prefix_bits) +
                                                "; the lock-free filter has the standard placement "
                                                "rule only (allowed 0)");
  }
  const std::optional<LockFreeBucketLayout> layout =
      LockFreeBucketLayout::of(shape.fingerprint_bits, shape.slots_per_bucket);
  if (!layout) {
    throw ConfigError("fingerprint_bits",
                      "is " + std::to_string(shape.fingerprint_bits) + " with slots_per_bucket = " +
                          std::to_string(shape.slots_per_bucket) +
                          "; a lock-free bucket must fit four 62-bit K-CAS words with a 14-bit "
                          "version: allowed fingerprint_bits <= 24 for 8 slots");
  }
  return *layout;
}

}  // namespace detail

/// The lock-free cuckoo filter: every bucket one K-CAS word (or up to four) holding its
/// fingerprints and a version; inserts and erases are one CAS, relocations one K-CAS per
/// hop, lookups write nothing shared. Same configuration, hash rule and answers as
/// CuckooFilter; no stash. Every operation is linearizable and lock-free (claim C10). See
/// the design comment at the top of lock_free_filter.hpp.
/// Sync: the sync policy (sync/policy.hpp); the verification suite's explorer
/// instantiates the class with its checking policy.
template <class Hasher = DefaultHasher, class Sync = sync::StdSync>
class BasicLockFreeFilter
    : public detail::FilterKeyOps<BasicLockFreeFilter<Hasher, Sync>, Hasher> {
  using KeyOps = detail::FilterKeyOps<BasicLockFreeFilter, Hasher>;

 public:
  /// Where a hash's item lives: its two buckets and its fingerprint (as CuckooFilter's).
  using Placement = CuckooFilterPlacement;
  /// The statistics stats() returns.
  using Stats = LockFreeFilterStats;
  /// The table of bucket words (internal; exposed for the tests' layout checks).
  using Table = detail::BasicLockFreeTable<Sync>;
  /// One bucket as read from the table (internal; exposed for the tests).
  using Bucket = detail::LockFreeBucket;
  /// This filter's design, ConcurrentFilterDesign::kLockFreeKcas.
  static constexpr ConcurrentFilterDesign kDesign = ConcurrentFilterDesign::kLockFreeKcas;
  /// No stash: a failed insert returns kFull and changes nothing.
  static constexpr unsigned kStashSlots = 0;
  /// Path searches per insert before it gives up (kFull).
  static constexpr unsigned kMaxPathAttempts = 8;

  /// Throws ConfigError naming the field: the config as CuckooFilter's constructor does
  /// ("fingerprint_bits", "slots_per_bucket", "capacity", "max_kicks"), "semi_sorted"
  /// and "nested_prefix_bits" when set, and "fingerprint_bits" for a shape whose bucket does not fit four K-CAS
  /// words (b = 8, f >= 25; see the top). Nothing is allocated before all checks; the
  /// table allocation
  /// may throw std::bad_alloc.
  explicit BasicLockFreeFilter(const CuckooFilterConfig& config, Hasher hasher = Hasher())
      : BasicLockFreeFilter(config, detail::validate_cuckoo_filter_config(config), std::move(hasher)) {}

  BasicLockFreeFilter(const BasicLockFreeFilter&) = delete;
  BasicLockFreeFilter& operator=(const BasicLockFreeFilter&) = delete;

  // ---- Key-level operations (detail/filter_key_ops.hpp): hash the key, then the
  // hash-level operation. erase REQUIRES: key was inserted (the cuckoo filter caveat).
  using KeyOps::contains;
  using KeyOps::erase;
  using KeyOps::hash_of;
  using KeyOps::insert;
  using KeyOps::max_copies;

  // ---- Hash-level operations (the algorithm is at the top of this file).

  /// Inserts one copy of the item whose 64-bit hash is h: kInserted, kDuplicateLimit or
  /// kFull (nothing changed). Lock-free; linearizable.
  InsertResult insert_hash(std::uint64_t h) {
    const Placement p = rule_.placement(h);
    if (const std::optional<InsertResult> done = place_directly(p)) return *done;
    if (at_copy_limit(p)) return reject(Counter::kDuplicateRejections, InsertResult::kDuplicateLimit);
    return insert_with_path(p);
  }

  /// Whether a copy of the item whose hash is h may be stored: never false for an item
  /// inserted and not erased. Writes nothing shared; linearizable.
  bool contains_hash(std::uint64_t h) const noexcept {
    const Placement p = rule_.placement(h);
    if (table_.words_per_bucket() != 1) [[unlikely]] return contains_wide(p.bucket1, p.bucket2, p.fingerprint);
    // Both loads first, so that their cache misses overlap; the placement stays in
    // registers (the slow path takes it by value).
    const std::uint64_t w1 = table_.peek_single(p.bucket1);
    const std::uint64_t w2 = table_.peek_single(p.bucket2);
    if (table_.word0_has(w1, p.fingerprint) || table_.word0_has(w2, p.fingerprint)) return true;
    if (table_.peek_single(p.bucket1) == w1) [[likely]] return false;
    return contains_wide(p.bucket1, p.bucket2, p.fingerprint);
  }

  /// Removes one copy of the item whose hash is h; false if none was found. REQUIRES: the
  /// item was inserted (the cuckoo filter caveat). Lock-free; linearizable.
  bool erase_hash(std::uint64_t h) {
    const Placement p = rule_.placement(h);
    // Bound: a retry means a bucket changed under us (another update completed).
    for (;;) {
      const Bucket b1 = table_.read(p.bucket1);
      int slot = table_.find(b1, p.fingerprint);
      if (slot != Table::kNoSlot) {
        if (table_.install(p.bucket1, b1, table_.with(b1, static_cast<unsigned>(slot), 0))) return erased();
        count(Counter::kUpdateRetries);
        continue;
      }
      const Bucket b2 = table_.read(p.bucket2);
      slot = table_.find(b2, p.fingerprint);
      if (slot != Table::kNoSlot) {
        if (table_.install(p.bucket2, b2, table_.with(b2, static_cast<unsigned>(slot), 0))) return erased();
        count(Counter::kUpdateRetries);
        continue;
      }
      if (table_.peek0(p.bucket1) == b1.w[0]) return false;
      count(Counter::kLookupRetries);
    }
  }

  /// Stored copies: sharded relaxed counts of completed inserts minus completed erases
  /// (and clear()'s removals), erases summed first. Exact when no update runs; otherwise
  /// at least the copies stored at some instant of the call and at most those stored when
  /// it began plus the inserts that complete during it; never negative. Not linearizable.
  std::uint64_t size() const noexcept {
    const std::uint64_t erased = counters_.sum(Counter::kErased);
    const std::uint64_t inserted = counters_.sum(Counter::kInserted);
    return inserted > erased ? inserted - erased : 0;
  }
  /// Always 0: the lock-free filter has no stash.
  unsigned stash_size() const noexcept { return 0; }  // no stash

  /// Empties every bucket, each by one CAS (see the top: not one atomic step).
  void clear() noexcept {
    for (std::uint32_t i = 0; i < table_.bucket_count(); ++i) {
      // Bound: a retry means an update of bucket i completed meanwhile.
      for (;;) {
        const Bucket b = table_.read(i);
        unsigned stored = 0;
        for (unsigned s = 0; s < table_.slots(); ++s) stored += table_.get(b, s) != 0 ? 1U : 0U;
        if (stored == 0) break;
        if (table_.install(i, b, table_.emptied(b))) {
          counters_.add(Counter::kErased, stored);
          break;
        }
      }
    }
  }

  /// The statistics counters (relaxed reads; exact when no update runs).
  Stats stats() const noexcept {
    Stats s;
    s.inserts = counters_.sum(Counter::kInserted);
    s.duplicate_rejections = counters_.sum(Counter::kDuplicateRejections);
    s.full_rejections = counters_.sum(Counter::kFullRejections);
    s.path_searches = counters_.sum(Counter::kPathSearches);
    s.path_hops = counters_.sum(Counter::kPathHops);
    s.path_retries = counters_.sum(Counter::kPathRetries);
    s.update_retries = counters_.sum(Counter::kUpdateRetries);
    s.lookup_retries = counters_.sum(Counter::kLookupRetries);
    return s;
  }

  /// The fingerprint in a slot, 0 if empty (one consistent read of the bucket; a picture
  /// of the whole table needs quiescence). REQUIRES: bucket < bucket_count(), slot <
  /// slots_per_bucket().
  std::uint32_t fingerprint_at(std::uint32_t bucket, unsigned slot) const noexcept {
    return table_.get(table_.read(bucket), slot);
  }
  /// The bucket's version (relocation counter): bumped by every change of the bucket.
  std::uint64_t version_of(std::uint32_t bucket) const noexcept {
    return table_.peek0(bucket) & table_.version_mask();
  }
  /// The bucket word layout of this shape (fingerprint and version bits).
  const detail::LockFreeBucketLayout& layout() const noexcept { return table_.layout(); }
  /// K-CAS words per bucket: 1 when f * b <= 48, up to 4.
  unsigned words_per_bucket() const noexcept { return table_.words_per_bucket(); }
  /// Bits of the version (relocation counter) in word 0 of a bucket.
  unsigned version_bits() const noexcept { return table_.layout().version_bits; }
  /// The table's bytes and this object (K-CAS descriptors are per process: see
  /// sync::Kcas::descriptor_bytes()).
  std::size_t memory_bytes() const noexcept { return table_.memory_bytes() + sizeof(*this); }
  /// Whether huge pages were requested for the table (CuckooFilterConfig::huge_pages: a
  /// table of 2 MiB or more 2 MiB aligned and advised MADV_HUGEPAGE).
  bool huge_pages() const noexcept { return table_.huge_pages(); }
  /// Every copy accounted for: the stored fingerprints counted bucket by bucket equal
  /// size(), and every fingerprint is non-zero in a bucket that is one of its two (always
  /// true by construction; the check reads each bucket once). Returns "" or what is
  /// wrong. REQUIRES: no concurrent update.
  std::string check_invariants() const {
    std::uint64_t stored = 0;
    for (std::uint32_t i = 0; i < table_.bucket_count(); ++i) {
      const Bucket b = table_.read(i);
      for (unsigned s = 0; s < table_.slots(); ++s) stored += table_.get(b, s) != 0 ? 1U : 0U;
    }
    if (stored != size()) {
      return "the table holds " + std::to_string(stored) + " fingerprints but size() is " +
             std::to_string(size());
    }
    return {};
  }

  // ---- Configuration: immutable.
  /// The buckets and fingerprint of the item whose hash is h.
  Placement placement_of_hash(std::uint64_t h) const noexcept { return rule_.placement(h); }
  /// How many copies of that item may be stored: 2b, or b when both buckets coincide.
  unsigned max_copies_of_hash(std::uint64_t h) const noexcept { return max_copies_of(rule_.placement(h)); }
  /// Number of buckets.
  std::uint32_t bucket_count() const noexcept { return table_.bucket_count(); }
  /// Slots per bucket (b).
  unsigned slots_per_bucket() const noexcept { return table_.slots(); }
  /// Fingerprint bits (f).
  unsigned fingerprint_bits() const noexcept { return table_.layout().fingerprint_bits; }
  /// The bound of one insert's path search, as configured.
  unsigned max_kicks() const noexcept { return max_kicks_; }
  /// The seed the keys are hashed with (the configured one, or the one drawn at
  /// construction).
  std::uint64_t seed() const noexcept { return seed_; }
  /// The hasher.
  const Hasher& hasher() const noexcept { return hasher_; }

 private:
  enum class Counter : std::size_t {
    kInserted,
    kErased,
    kDuplicateRejections,
    kFullRejections,
    kPathSearches,
    kPathHops,
    kPathRetries,
    kUpdateRetries,
    kLookupRetries,
    kCount,
  };

  /// The path search's view of the table: one consistent read per slot asked about (the
  /// slow path of an insert into a nearly full table).
  struct SearchView {
    using SyncPolicy = Sync;
    const Table& table;
    unsigned slots() const noexcept { return table.slots(); }
    std::uint32_t get(std::uint32_t bucket, unsigned slot) const noexcept {
      return table.get(table.read(bucket), slot);
    }
  };

  BasicLockFreeFilter(const CuckooFilterConfig& config, const detail::CuckooFilterShape& shape,
                      Hasher hasher)
      : hasher_(std::move(hasher)),
        seed_(config.seed ? *config.seed : random_seed()),
        max_kicks_(shape.max_kicks),
        search_budget_(std::min(shape.max_kicks, detail::kMaxSearchBuckets)),
        rule_(shape.bucket_count, shape.fingerprint_bits),
        table_(shape.bucket_count, detail::validate_lock_free_filter(config, shape), config.huge_pages) {}

  void count(Counter c, std::uint64_t n = 1) const noexcept { counters_.add(c, n); }
  bool erased() noexcept {
    count(Counter::kErased);
    return true;
  }
  InsertResult inserted() noexcept {
    count(Counter::kInserted);
    return InsertResult::kInserted;
  }
  InsertResult reject(Counter c, InsertResult r) noexcept {
    count(c);
    return r;
  }
  unsigned max_copies_of(const Placement& p) const noexcept {
    return p.bucket1 == p.bucket2 ? table_.slots() : 2 * table_.slots();
  }

  /// contains for any bucket width: bucket1, bucket2, bucket1's word 0 again.
  [[gnu::noinline]] bool contains_wide(std::uint32_t bucket1, std::uint32_t bucket2,
                                      std::uint32_t fingerprint) const noexcept {
    // Bound: a retry means bucket1 changed between two reads (an update completed).
    for (;;) {
      const Bucket b1 = table_.read(bucket1);
      if (table_.has(b1, fingerprint)) return true;
      if (table_.has(table_.read(bucket2), fingerprint)) return true;
      if (table_.peek0(bucket1) == b1.w[0]) return false;
    }
  }

  /// An empty slot of bucket1, else bucket2, filled by one CAS (retried while the CAS
  /// loses a race). nullopt: both buckets full (nothing changed).
  std::optional<InsertResult> place_directly(const Placement& p) noexcept {
    // Bound: a retry means the bucket changed under us (another update completed).
    for (;;) {
      const Bucket b1 = table_.read(p.bucket1);
      int slot = table_.find(b1, 0);
      if (slot != Table::kNoSlot) {
        if (table_.install(p.bucket1, b1, table_.with(b1, static_cast<unsigned>(slot), p.fingerprint))) {
          return inserted();
        }
        count(Counter::kUpdateRetries);
        continue;
      }
      const Bucket b2 = table_.read(p.bucket2);
      slot = table_.find(b2, 0);
      if (slot != Table::kNoSlot) {
        if (table_.install(p.bucket2, b2, table_.with(b2, static_cast<unsigned>(slot), p.fingerprint))) {
          return inserted();
        }
        count(Counter::kUpdateRetries);
        continue;
      }
      return std::nullopt;
    }
  }

  /// Whether max_copies_of(p) copies are stored, from a consistent read of both buckets
  /// (b1, b2, b1's word 0 again unchanged).
  bool at_copy_limit(const Placement& p) const noexcept {
    for (;;) {  // bound: a retry means bucket1 changed (an update completed)
      const Bucket b1 = table_.read(p.bucket1);
      unsigned copies = table_.count(b1, p.fingerprint);
      if (p.bucket2 != p.bucket1) copies += table_.count(table_.read(p.bucket2), p.fingerprint);
      if (table_.peek0(p.bucket1) == b1.w[0]) return copies >= max_copies_of(p);
      count(Counter::kLookupRetries);
    }
  }

  /// Both buckets were full and below the copy limit: search and execute paths.
  [[gnu::noinline]] InsertResult insert_with_path(const Placement& p) {
    // Bound: kMaxPathAttempts searches, each bounded by search_budget_ buckets and
    // kMaxPathLength hops.
    for (unsigned attempt = 0; attempt < kMaxPathAttempts; ++attempt) {
      count(Counter::kPathSearches);
      const std::optional<detail::CuckooPath> path =
          detail::find_cuckoo_path(SearchView{table_}, rule_, p, search_budget_);
      if (!path) break;
      if (path->hops.empty()) {  // a candidate bucket had room when the search looked
        if (const std::optional<InsertResult> done = place_directly(p)) return *done;
      } else if (move_path_tail(*path)) {
        if (finish_path(p, *path)) return inserted();
      }
      count(Counter::kPathRetries);
    }
    if (at_copy_limit(p)) return reject(Counter::kDuplicateRejections, InsertResult::kDuplicateLimit);
    return reject(Counter::kFullRejections, InsertResult::kFull);
  }

  /// Executes hops h[L-1] .. h[1]; false at the first whose K-CAS fails (the hops made
  /// stay: each moved an item into its other bucket).
  bool move_path_tail(const detail::CuckooPath& path) noexcept {
    for (std::size_t k = path.hops.size(); k > 1; --k) {  // bound: kMaxPathLength hops
      if (!move_hop(path.hops[k - 1], path.target_of(k - 1), 0)) return false;
    }
    return true;
  }

  /// The last step: h[0]'s fingerprint to its target and fp into the slot it frees, in
  /// one K-CAS.
  bool finish_path(const Placement& p, const detail::CuckooPath& path) noexcept {
    return move_hop(path.hops.front(), path.target_of(0), p.fingerprint);
  }

  /// Moves hop.fingerprint from (hop.bucket, hop.slot) into an empty slot of `target` and
  /// writes `replacement` (0: empty) into the slot it leaves, as one K-CAS of the two
  /// buckets expecting exactly what was read (which re-validates the hop).
  bool move_hop(const detail::PathHop& hop, std::uint32_t target, std::uint32_t replacement) noexcept {
    if (target == hop.bucket) return false;
    const Bucket source = table_.read(hop.bucket);
    if (table_.get(source, hop.slot) != hop.fingerprint) return false;
    const Bucket dest = table_.read(target);
    const int free_slot = table_.find(dest, 0);
    if (free_slot == Table::kNoSlot) return false;
    if (!table_.install2(hop.bucket, source, table_.with(source, hop.slot, replacement), target, dest,
                         table_.with(dest, static_cast<unsigned>(free_slot), hop.fingerprint))) {
      return false;
    }
    count(Counter::kPathHops);
    return true;
  }

  const Hasher hasher_;
  const std::uint64_t seed_;
  const unsigned max_kicks_;
  const unsigned search_budget_;
  const detail::FilterHashRule rule_;
  Table table_;
  mutable sync::detail::ShardedCounters<static_cast<std::size_t>(Counter::kCount)> counters_;
};

/// BasicLockFreeFilter with DefaultHasher and the production sync policy.
using LockFreeFilter = BasicLockFreeFilter<>;

namespace detail {
template <class Hasher>
struct ConcurrentFilterFor<LockFreeKcas, Hasher> {
  using type = BasicLockFreeFilter<Hasher>;
};
}  // namespace detail

static_assert(ConcurrentFilterLike<LockFreeFilter>);

}  // namespace cuckoo
