// StripedConcurrentMap internals: the map's view of the shared stripe locks
// (detail/stripe_locks.hpp) and the one RAII guard that takes them for buckets.
//
// A table of n buckets is covered by a power-of-two number S of stripe locks; bucket b
// is guarded by stripe b & (S - 1). Several buckets share a stripe (S is fixed at
// construction while the table grows), never one bucket several stripes. A stripe is
// the shared VersionLock alone on its cache line: the critical sections it guards are a
// few slot reads or one item move, far shorter than a queue lock's hand-off, and an
// all-stripes acquisition (growth) needs one lock word per stripe and no per-thread
// queue nodes (McsLock's thread-local pool holds 16).
//
// Each stripe's cache line also holds an item counter (the stripe payload; libcuckoo
// keeps its element counters in its locks the same way): an operation that adds or
// removes an item bumps the counter of a stripe it holds, a line it owns already, so
// counting costs no extra shared cache line. The counters of single stripes mean
// nothing (an item may be added under one stripe and erased under another); their sum
// is the item count. Each insert or erase changes exactly one counter once, inside its
// critical section, so a sum read while operations run counts every operation that
// completed before the read began and none that began after it ended.
//
// Locking modes are the guard's constructors, selected by tag:
//   MapStripeGuard(stripes, kBucketStripes, b1, b2[, b3])  the stripes of 1..3 buckets
//   MapStripeGuard(stripes, kAllStripes)                    every stripe (growth, clear,
//                                                        iteration, the exclusive insert)
// Lock order: the shared StripeGuard's (ascending stripe index, each stripe once, at
// most one guard per thread; see stripe_locks.hpp), so no deadlock. The destructor
// releases in the reverse order; nothing unlocks by hand.
//
// Memory order: lock() acquires, unlock() releases (stripe_locks.hpp): the critical
// sections of successive holders of one stripe are ordered by happens-before.
//
// Thread safety: everything may be used concurrently; a guard belongs to the thread
// that built it. Stripe locks are not recursive.
#pragma once

#include <algorithm>
#include <atomic>
#include <bit>
#include <cassert>
#include <cstddef>
#include <cstdint>

#include "cuckoo/detail/stripe_locks.hpp"

namespace cuckoo::detail {

// The map's stripe payload: the item counter on each stripe's line.
template <class Sync = sync::StdSync>
struct BasicMapStripeItems {
  typename Sync::template Atomic<std::int64_t> items{0};
};
template <class Sync = sync::StdSync>
using BasicMapStripeLocks = BasicLockStripes<BasicMapStripeItems<Sync>, Sync>;
using MapStripeItems = BasicMapStripeItems<>;
using MapStripeLocks = BasicMapStripeLocks<>;

// The locking-mode tag of a guard that takes the stripes of some buckets.
struct BucketStripes {};
inline constexpr BucketStripes kBucketStripes{};

// The power-of-two array of stripe locks, by bucket.
// Sync: the sync policy (sync/policy.hpp) of the locks and the item counters.
template <class Sync = sync::StdSync>
class BasicMapLockStripes {
  using Locks = BasicMapStripeLocks<Sync>;

 public:
  // Upper bound on the stripes of one map: 64 KiB of lock lines, and the cost of one
  // all-stripes acquisition (growth) is this many uncontended lock operations at most.
  static constexpr std::size_t kMaxStripes = 1024;
  static_assert(kMaxStripes <= Locks::kMaxStripes);

  // REQUIRES: count is a power of two in 1..kMaxStripes.
  explicit BasicMapLockStripes(std::size_t count) : locks_(count), mask_(count - 1) {
    assert(std::has_single_bit(count) && count <= kMaxStripes);
  }

  // The stripe count for a table that never has more than max_buckets buckets: one
  // stripe per bucket while that is below kMaxStripes (a small table gets no false
  // sharing of locks at all), kMaxStripes beyond.
  static std::size_t count_for(std::uint64_t max_buckets) noexcept {
    return static_cast<std::size_t>(
        std::bit_ceil(std::clamp<std::uint64_t>(max_buckets, 1, kMaxStripes)));
  }

  std::size_t count() const noexcept { return mask_ + 1; }
  std::uint32_t stripe_of(std::uint32_t bucket) const noexcept {
    return static_cast<std::uint32_t>(bucket & mask_);
  }
  const Locks& locks() const noexcept { return locks_; }

  // Adds delta to the item counter of `stripe`. REQUIRES: the caller holds that stripe.
  void add_items(std::size_t stripe, std::int64_t delta) noexcept {
    // relaxed: a statistic summed by item_count(); the stripe lock orders the writers,
    // and readers need no order beyond coherence (see the top of this file).
    locks_.payload(stripe).items.fetch_add(delta, std::memory_order_relaxed);
  }

  // The sum of the item counters (see the top of this file); exact when no insert or
  // erase runs. O(count()).
  std::size_t item_count() const noexcept {
    std::int64_t sum = 0;
    for (std::size_t s = 0; s < count(); ++s) {
      sum += locks_.payload(s).items.load(std::memory_order_relaxed);  // relaxed: as add_items
    }
    return sum < 0 ? 0 : static_cast<std::size_t>(sum);
  }

  // Every stripe, ascending (the one lock order), for a holder whose hold is not one
  // scope: the map's locked view (detail/striped_map_locked.hpp), which may be moved and
  // unlocked early. unlock_all releases them, descending. REQUIRES (lock_all): the
  // caller holds no stripe of this array; (unlock_all) the caller holds every stripe
  // through lock_all. Anything scoped uses BasicMapStripeGuard(stripes, kAllStripes).
  void lock_all() const noexcept {
    for (std::size_t s = 0; s < count(); ++s) locks_[s].lock();  // bound: count()
  }
  void unlock_all() const noexcept {
    for (std::size_t s = count(); s > 0; --s) locks_[s - 1].unlock();  // bound: count()
  }

  // Zeroes every item counter. REQUIRES: the caller holds every stripe.
  void reset_items() noexcept {
    for (std::size_t s = 0; s < count(); ++s) {
      locks_.payload(s).items.store(0, std::memory_order_relaxed);
    }
  }

 private:
  Locks locks_;
  std::size_t mask_;
};
using MapLockStripes = BasicMapLockStripes<>;

// Scoped holder of stripe locks: the shared StripeGuard, taking the stripes of 1..3
// buckets or all; see the top of this file for the modes and the order. Locks held:
// after the constructor, the stripes of the given buckets (or all); after the
// destructor, none. Not copyable or movable.
template <class Sync = sync::StdSync>
class BasicMapStripeGuard {
  using Stripes = BasicMapLockStripes<Sync>;

 public:
  static constexpr unsigned kMaxBuckets = 3;

  BasicMapStripeGuard(const Stripes& stripes, BucketStripes, std::uint32_t b1,
                 std::uint32_t b2) noexcept
      : stripes_(stripes),
        guard_(stripes.locks(), {stripes.stripe_of(b1), stripes.stripe_of(b2)}) {}
  BasicMapStripeGuard(const Stripes& stripes, BucketStripes, std::uint32_t b1, std::uint32_t b2,
                 std::uint32_t b3) noexcept
      : stripes_(stripes),
        guard_(stripes.locks(),
               {stripes.stripe_of(b1), stripes.stripe_of(b2), stripes.stripe_of(b3)}) {}
  BasicMapStripeGuard(const Stripes& stripes, AllStripes) noexcept
      : stripes_(stripes), guard_(stripes.locks(), kAllStripes) {}

  BasicMapStripeGuard(const BasicMapStripeGuard&) = delete;
  BasicMapStripeGuard& operator=(const BasicMapStripeGuard&) = delete;
  ~BasicMapStripeGuard() = default;

  bool holds_all() const noexcept { return guard_.holds_all(); }
  // Whether this guard holds the stripe of `bucket` (debug assertions).
  bool covers(std::uint32_t bucket) const noexcept {
    return guard_.holds(stripes_.stripe_of(bucket));
  }

 private:
  const Stripes& stripes_;
  const StripeGuard<kMaxBuckets, BasicMapStripeLocks<Sync>> guard_;
};
using MapStripeGuard = BasicMapStripeGuard<>;

}  // namespace cuckoo::detail
