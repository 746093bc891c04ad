// The striped concurrent cuckoo filter's engine (internal): hash-level insert, contains
// and erase over an AtomicBucketTable guarded by lock stripes, with a lock-free BFS path
// search and a lock-protected stash. The public face is BasicStripedConcurrentFilter in
// concurrent_filter.hpp, whose header comment describes the design; this file keeps the
// invariants and says which locks are held on every return path.
//
// Invariants
// ----------
// (I1) Every stored item is, at every instant, in one of its two buckets or in the
//      stash: inserts write a new fingerprint into an empty slot (or the stash); a path
//      hop copies a fingerprint into an empty slot of its alternate bucket and then
//      empties the source slot, with both buckets' stripes held; a stash entry moves
//      into one of its buckets with that bucket's stripe held; erase empties one slot.
// (I2) Every change to the copies of an item with buckets {b1, b2} (in the table or the
//      stash) is made with the stripe of b1 or of b2 held. Hence a thread holding both
//      stripes sees the item's copies stable, and an optimistic read of both stripes
//      that validates saw them consistently.
// (I3) Buckets that share a table word share a stripe (stripe_of maps word groups), so
//      a word has at most one writer at a time.
//
// Linearization points: a successful insert at the store of the new fingerprint (slot
// or stash entry); a kDuplicateLimit / kFull insert at its copy count / stash check
// under both stripes; erase at the store that empties the slot (or removes the stash
// entry), or, when it returns false, at its search under both stripes; contains at its
// validated optimistic read (or its search under both stripes), or, when it returns
// true, at the acquire load that saw the fingerprint (true is legal at any instant the
// fingerprint is stored, and seeing it means some copy was stored then).
#pragma once

#include <algorithm>
#include <atomic>
#include <bit>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "cuckoo/cuckoo_filter.hpp"
#include "cuckoo/detail/stripe_locks.hpp"
#include "cuckoo/detail/concurrent_filter_path.hpp"
#include "cuckoo/detail/concurrent_filter_table.hpp"
#include "cuckoo/status.hpp"
#include "cuckoo/sync/detail/counters.hpp"
#include "cuckoo/sync/detail/spin.hpp"

namespace cuckoo {

// Counters of a striped concurrent filter (relaxed statistics; exact once the threads
// that used the filter have been joined).
struct StripedFilterStats {
  std::uint64_t inserts = 0;               // inserts that returned kInserted
  std::uint64_t duplicate_rejections = 0;  // inserts that returned kDuplicateLimit
  std::uint64_t full_rejections = 0;       // inserts that returned kFull
  std::uint64_t path_searches = 0;         // BFS searches (both candidate buckets were full)
  std::uint64_t path_hops = 0;             // fingerprints moved along a path
  std::uint64_t path_retries = 0;          // paths abandoned because validation failed
  std::uint64_t stash_inserts = 0;         // inserts that put the item in the stash
  std::uint64_t stash_rehomes = 0;         // stash entries moved back into the table by erase
  std::uint64_t optimistic_retries = 0;    // lookups whose optimistic read did not validate
  std::uint64_t locked_reads = 0;          // lookups that gave up optimism and locked
};

namespace detail {

// Points in the striped filter where a test may perturb the schedule.
enum class StripedWindow : std::uint8_t {
  kBetweenBucketReads,  // contains: after reading bucket1, before bucket2
  kAfterPathSearch,     // insert: a path was found, before its first hop is locked
};

// Compile-time knobs of the striped design. Production code uses this default; the
// verification suite derives broken variants (a genuine bug switched on at compile time)
// and yields at the windows to show that its checker catches them.
struct StripedFilterPolicy {
  // Re-check under the locks that a hop's source slot still holds the fingerprint the
  // lock-free search saw. Without it, a hop moves a stale fingerprint and overwrites
  // whatever item took the slot since.
  static constexpr bool kValidatePathHops = true;
  // Re-check the stripe versions after an optimistic read before answering "absent".
  // Without it, a lookup that reads bucket1, then bucket2, can miss an item that moved
  // from bucket2 to bucket1 in between.
  static constexpr bool kValidateOptimisticReads = true;
  static void window(StripedWindow) noexcept {}
  // The sync policy (cuckoo/sync/policy.hpp) of the table, the stripes and the stash;
  // the suite's explore/ layer substitutes its checking policy.
  using Sync = sync::StdSync;
};

template <class Policy = StripedFilterPolicy>
class StripedFilter {
 public:
  using Placement = CuckooFilterPlacement;
  using Stats = StripedFilterStats;
  using Sync = typename Policy::Sync;
  using Table = BasicAtomicBucketTable<Sync>;
  using Stripes = BasicLockStripes<NoStripePayload, Sync>;
  using Stash = BasicConcurrentStash<Sync>;

  // Path searches per insert before the item goes to the stash (or kFull).
  static constexpr unsigned kMaxPathAttempts = 8;
  // Optimistic read attempts per lookup before it locks its two stripes.
  static constexpr unsigned kMaxOptimisticReads = 8;
  static constexpr unsigned kStashSlots = ConcurrentStash::kSlots;

  // REQUIRES: `shape` validated; stripes a power of two in 1..LockStripes::kMaxStripes;
  // the table size checked by the caller. huge_pages: CuckooFilterConfig::huge_pages.
  StripedFilter(const CuckooFilterShape& shape, std::size_t stripes, bool huge_pages = false)
      : rule_(shape.bucket_count, shape.fingerprint_bits),
        table_(shape.bucket_count, shape.slots_per_bucket, shape.fingerprint_bits, huge_pages),
        stripes_(stripes),
        stripe_mask_(static_cast<std::uint32_t>(stripes - 1)),
        fingerprint_bits_(shape.fingerprint_bits),
        max_kicks_(shape.max_kicks),
        search_budget_(std::min(shape.max_kicks, kMaxSearchBuckets)) {}

  StripedFilter(const StripedFilter&) = delete;
  StripedFilter& operator=(const StripedFilter&) = delete;

  // ---- Operations. All may run concurrently with each other and with clear().

  // Locks on return: none. Inside: the fast path holds stripe(b1), stripe(b2) (and
  // briefly the stash lock to count stash copies); the slow path holds, one hop at a
  // time, the two stripes of the hop, then stripe(b1), stripe(b2), stripe(target of
  // h[0]) for the last step, then stripe(b1), stripe(b2) and the stash lock to stash.
  InsertResult insert(std::uint64_t h) {
    const Placement p = rule_.placement(h);
    prefetch_buckets(p);
    {
      const StripeGuard<2, Stripes> held(stripes_, {stripe_of(p.bucket1), stripe_of(p.bucket2)});
      if (const std::optional<InsertResult> done = insert_locked(p)) return *done;
      // Return paths above: stripe(b1), stripe(b2) released by `held`.
    }
    return insert_with_path(p);  // holds nothing here
  }

  // Locks on return: none. Optimistic path: no lock is taken and nothing shared is
  // written (the stash is read as a seqlock reader, see ConcurrentStash). After
  // kMaxOptimisticReads failed validations: stripe(b1), stripe(b2) and the stash lock
  // held while reading, released on return.
  bool contains(std::uint64_t h) const {
    const Placement p = rule_.placement(h);
    typename Sync::SpinWait spin;
    // Bound: kMaxOptimisticReads attempts, then the locked read.
    for (unsigned attempt = 0; attempt < kMaxOptimisticReads; ++attempt) {
      const OptimisticRead<2, Stripes> read(stripes_, {stripe_of(p.bucket1), stripe_of(p.bucket2)});
      if (!read.started()) {  // a writer holds a stripe: its hop takes a few stores
        count(Counter::kOptimisticRetries);
        spin.wait();
        continue;
      }
      // A fingerprint seen is a copy stored at that instant: "present" needs no
      // validation (see the linearization points at the top).
      if (table_.contains(p.bucket1, p.fingerprint)) return true;
      Policy::window(StripedWindow::kBetweenBucketReads);
      if (table_.contains(p.bucket2, p.fingerprint)) return true;
      if (stash_.maybe_nonempty()) {
        // Read without the stash lock: a lookup writes nothing shared.
        const std::optional<bool> in_stash = stash_.try_contains(p);
        if (in_stash.has_value() && *in_stash) return true;
        if (!in_stash.has_value()) {  // a stash writer was inside: read again
          count(Counter::kOptimisticRetries);
          spin.wait();
          continue;
        }
      }
      if (!Policy::kValidateOptimisticReads || read.valid()) return false;
      count(Counter::kOptimisticRetries);
    }
    count(Counter::kLockedReads);
    const StripeGuard<2, Stripes> held(stripes_, {stripe_of(p.bucket1), stripe_of(p.bucket2)});
    return holds_locked(p);
  }

  // Locks on return: none. Inside: stripe(b1), stripe(b2), and the stash lock when the
  // copy is in the stash or a stash entry may move into the freed slot.
  bool erase(std::uint64_t h) {
    const Placement p = rule_.placement(h);
    prefetch_buckets(p);
    const StripeGuard<2, Stripes> held(stripes_, {stripe_of(p.bucket1), stripe_of(p.bucket2)});
    std::uint32_t freed = p.bucket1;
    if (!table_.remove_one(p.bucket1, p.fingerprint)) {
      freed = p.bucket2;
      if (!table_.remove_one(p.bucket2, p.fingerprint)) {
        if (!stash_.maybe_nonempty()) return false;  // (I2): exact for p
        typename Stash::Locked stash(stash_);
        const unsigned k = stash.find(p);
        if (k == kStashSlots) return false;
        stash.remove(k);
        count(Counter::kErased);
        return true;  // stash lock, stripe(b1), stripe(b2) released
      }
    }
    count(Counter::kErased);
    if (stash_.maybe_nonempty()) [[unlikely]] rehome_into(freed);
    return true;  // stripe(b1), stripe(b2) released
  }

  // Stored copies: sharded relaxed counts of completed inserts minus completed erases,
  // summed shard by shard (not a snapshot, not linearizable). What holds:
  //   - exact when no insert, erase or clear runs during the call;
  //   - otherwise at least the number of copies stored at some instant during the call
  //     (erases are summed before inserts, so it never falls below the smallest size the
  //     call overlapped), and at most the number stored when the call began plus the
  //     inserts that complete during it (so a stream of insert/erase pairs running
  //     beside it can make it overestimate by the pairs that complete meanwhile);
  //   - never negative.
  std::uint64_t size() const noexcept {
    // Erases first: an erase counted here removed a copy whose insert was counted
    // before it, so reading erases before inserts can only overestimate in between.
    const std::uint64_t erased = counters_.sum(Counter::kErased);
    const std::uint64_t inserted = counters_.sum(Counter::kInserted);
    return inserted > erased ? inserted - erased : 0;
  }

  // Empties the table and the stash. Locks on return: none; inside: every stripe
  // (ascending), then the stash lock. Safe concurrently with every operation; each
  // runs entirely before or after it.
  void clear() noexcept {
    const StripeGuard<0, Stripes> all(stripes_, kAllStripes);
    typename Stash::Locked stash(stash_);
    // Every counter change happens under some stripe, so with all held the count is
    // exact; cancel it by counting that many erases.
    const std::uint64_t stored = size();
    table_.clear();
    stash.clear();
    counters_.add(Counter::kErased, stored);
  }

  // ---- Configuration and introspection.

  const FilterHashRule& rule() const noexcept { return rule_; }
  Placement placement_of_hash(std::uint64_t h) const noexcept { return rule_.placement(h); }
  unsigned max_copies_of(const Placement& p) const noexcept {
    return p.bucket1 == p.bucket2 ? table_.slots() : 2 * table_.slots();
  }
  std::uint32_t bucket_count() const noexcept { return table_.bucket_count(); }
  unsigned slots_per_bucket() const noexcept { return table_.slots(); }
  unsigned fingerprint_bits() const noexcept { return fingerprint_bits_; }
  unsigned max_kicks() const noexcept { return max_kicks_; }
  unsigned search_budget() const noexcept { return search_budget_; }
  std::size_t stripe_count() const noexcept { return stripes_.count(); }
  std::uint32_t stripe_of(std::uint32_t bucket) const noexcept {
    return table_.word_group(bucket) & stripe_mask_;
  }
  bool huge_pages() const noexcept { return table_.huge_pages(); }
  std::size_t memory_bytes() const noexcept {
    return table_.memory_bytes() + stripes_.memory_bytes() + sizeof(*this);
  }
  const Table& table() const noexcept { return table_; }

  // The stash entries, oldest first (a copy taken under the stash lock).
  std::vector<Placement> stash_entries() const {
    const typename Stash::ReadLocked stash(stash_);
    std::vector<Placement> out;
    for (unsigned k = 0; k < stash.size(); ++k) out.push_back(stash[k]);
    return out;
  }
  unsigned stash_size() const noexcept { return stash_.size_hint(); }
  // Diagnostic for the tests: the stash lock's version, which every acquisition moves
  // (lookups must not move it).
  std::uint64_t stash_lock_version() const noexcept { return stash_.lock_version(); }

  Stats stats() const noexcept {
    Stats s;
    s.inserts = counters_.sum(Counter::kInserted);
    s.duplicate_rejections = counters_.sum(Counter::kDuplicateRejections);
    s.full_rejections = counters_.sum(Counter::kFullRejections);
    s.path_searches = counters_.sum(Counter::kPathSearches);
    s.path_hops = counters_.sum(Counter::kPathHops);
    s.path_retries = counters_.sum(Counter::kPathRetries);
    s.stash_inserts = counters_.sum(Counter::kStashInserts);
    s.stash_rehomes = counters_.sum(Counter::kStashRehomes);
    s.optimistic_retries = counters_.sum(Counter::kOptimisticRetries);
    s.locked_reads = counters_.sum(Counter::kLockedReads);
    return s;
  }

 private:
  enum class Counter : std::size_t {
    kInserted,  // copies added (table or stash): inserts that returned kInserted
    kErased,    // copies removed, and clear()'s cancellation; size() = kInserted - kErased
    kDuplicateRejections,
    kFullRejections,
    kPathSearches,
    kPathHops,
    kPathRetries,
    kStashInserts,
    kStashRehomes,
    kOptimisticRetries,
    kLockedReads,
    kCount,
  };

  void count(Counter c, std::uint64_t n = 1) const noexcept { counters_.add(c, n); }

  // The copies of p in its buckets and the stash, and whether any bucket or the stash
  // holds p. REQUIRES: stripe(b1), stripe(b2) held. Takes the stash lock only when the
  // stash is not empty; returns with it released.
  unsigned copies_locked(const Placement& p) const noexcept {
    unsigned n = table_.count(p.bucket1, p.fingerprint);
    if (p.bucket2 != p.bucket1) n += table_.count(p.bucket2, p.fingerprint);
    if (stash_.maybe_nonempty()) n += typename Stash::ReadLocked(stash_).count(p);
    return n;
  }

  bool holds_locked(const Placement& p) const noexcept {
    if (table_.contains(p.bucket1, p.fingerprint) || table_.contains(p.bucket2, p.fingerprint)) {
      return true;
    }
    return stash_.maybe_nonempty() && typename Stash::ReadLocked(stash_).contains(p);
  }

  // The copy limit, then direct placement into b1, else b2. Returns the outcome, or
  // nullopt if both buckets are full (nothing changed).
  // REQUIRES: stripe(b1), stripe(b2) held; returns with them still held.
  std::optional<InsertResult> insert_locked(const Placement& p) noexcept {
    if (holds_locked(p) && copies_locked(p) >= max_copies_of(p)) [[unlikely]] {
      count(Counter::kDuplicateRejections);
      return InsertResult::kDuplicateLimit;
    }
    if (table_.try_place(p.bucket1, p.fingerprint) || table_.try_place(p.bucket2, p.fingerprint)) {
      record_insert();
      return InsertResult::kInserted;
    }
    return std::nullopt;
  }

  void record_insert() noexcept { count(Counter::kInserted); }

  // Both candidate buckets were full. Search a path without locks, execute it from its
  // end, retry on a failed validation; after kMaxPathAttempts (or when no path exists
  // within the search bounds) stash the item, or report kFull. Locks on return: none.
  [[gnu::noinline]] InsertResult insert_with_path(const Placement& p) {
    // Bound: kMaxPathAttempts searches, each bounded by search_budget_ buckets and
    // kMaxPathLength hops.
    for (unsigned attempt = 0; attempt < kMaxPathAttempts; ++attempt) {
      count(Counter::kPathSearches);
      const std::optional<CuckooPath> path = find_cuckoo_path(table_, rule_, p, search_budget_);
      if (!path) break;
      Policy::window(StripedWindow::kAfterPathSearch);
      if (move_path_tail(*path)) {
        if (const std::optional<InsertResult> done = finish_path(p, *path)) return *done;
      }
      count(Counter::kPathRetries);
    }
    return insert_into_stash(p);
  }

  // Executes hops h[L-1] .. h[1], each under the stripes of its two buckets. Returns
  // false at the first hop whose validation fails (the hops already made stay: each
  // moved an item into its other bucket, which keeps it present by (I1)).
  // Locks on return: none.
  bool move_path_tail(const CuckooPath& path) {
    for (std::size_t k = path.hops.size(); k > 1; --k) {  // bound: kMaxPathLength hops
      const PathHop& hop = path.hops[k - 1];
      const std::uint32_t target = path.target_of(k - 1);
      const StripeGuard<2, Stripes> held(stripes_, {stripe_of(hop.bucket), stripe_of(target)});
      if (!move_hop_locked(hop, target)) return false;  // both stripes released
    }
    return true;
  }

  // Moves hop.fingerprint from (hop.bucket, hop.slot) into an empty slot of `target`.
  // REQUIRES: the stripes of hop.bucket and target held (kept on return).
  bool move_hop_locked(const PathHop& hop, std::uint32_t target) noexcept {
    if (Policy::kValidatePathHops && table_.get(hop.bucket, hop.slot) != hop.fingerprint) {
      return false;
    }
    const int free_slot = table_.find(target, 0);
    if (free_slot == Table::kNoSlot) return false;
    // Copy first, then empty the source: a lock-free reader that ignores versions sees
    // the item twice rather than not at all (validated readers see neither state).
    table_.set(target, static_cast<unsigned>(free_slot), hop.fingerprint);
    table_.set(hop.bucket, hop.slot, 0);
    count(Counter::kPathHops);
    return true;
  }

  // The last step, with stripe(b1), stripe(b2) and stripe(target of h[0]) held: the
  // copy limit, direct placement if a slot freed up meanwhile, else hop h[0] and store
  // the new fingerprint in the slot it vacated. Returns nullopt when the path no
  // longer applies (retry). Locks on return: none.
  std::optional<InsertResult> finish_path(const Placement& p, const CuckooPath& path) {
    const std::uint32_t target = path.hops.empty() ? p.bucket1 : path.target_of(0);
    const StripeGuard<3, Stripes> held(stripes_, {stripe_of(p.bucket1), stripe_of(p.bucket2),
                                         stripe_of(target)});
    if (const std::optional<InsertResult> done = insert_locked(p)) return done;
    if (path.hops.empty()) return std::nullopt;  // the room the search saw is gone
    const PathHop& first = path.hops.front();
    if (!move_hop_locked(first, target)) return std::nullopt;
    table_.set(first.bucket, first.slot, p.fingerprint);
    record_insert();
    return InsertResult::kInserted;
  }

  // A writer's two buckets, prefetched before it takes their stripes: the bucket misses
  // of a write then overlap its locking instead of following it (a hint; reads nothing).
  void prefetch_buckets(const Placement& p) const noexcept {
    table_.prefetch(p.bucket1);
    table_.prefetch(p.bucket2);
  }

  // No path: the copy limit, direct placement, then the stash, else kFull (nothing
  // changed). Locks on return: none; inside: stripe(b1), stripe(b2), then the stash.
  InsertResult insert_into_stash(const Placement& p) {
    const StripeGuard<2, Stripes> held(stripes_, {stripe_of(p.bucket1), stripe_of(p.bucket2)});
    if (const std::optional<InsertResult> done = insert_locked(p)) return *done;
    typename Stash::Locked stash(stash_);
    if (stash.full()) {
      count(Counter::kFullRejections);
      return InsertResult::kFull;
    }
    stash.add(p);
    count(Counter::kStashInserts);
    record_insert();
    return InsertResult::kInserted;
  }

  // After an erase freed a slot of `bucket`: moves stash entries that have `bucket` as
  // one of their buckets into it while it has room. REQUIRES: stripe(bucket) held;
  // takes the stash lock and returns with it released.
  [[gnu::noinline]] void rehome_into(std::uint32_t bucket) noexcept {
    typename Stash::Locked stash(stash_);
    for (unsigned k = 0; k < stash.size();) {  // bound: kStashSlots; each step ends or shrinks
      const Placement e = stash[k];
      if ((e.bucket1 == bucket || e.bucket2 == bucket) && table_.try_place(bucket, e.fingerprint)) {
        stash.remove(k);
        count(Counter::kStashRehomes);
      } else {
        ++k;
      }
    }
  }

  const FilterHashRule rule_;
  Table table_;
  const Stripes stripes_;
  const std::uint32_t stripe_mask_;
  const unsigned fingerprint_bits_;
  const unsigned max_kicks_;
  const unsigned search_budget_;
  Stash stash_;
  mutable sync::detail::ShardedCounters<static_cast<std::size_t>(Counter::kCount)> counters_;
};

}  // namespace detail
}  // namespace cuckoo
