// StripedConcurrentMap internals: the lock stripes and the one RAII guard that takes them.
//
// A table of n buckets is covered by a power-of-two number S of stripe locks; bucket b
// is guarded by stripe b & (S - 1). Several buckets share a stripe (S is fixed at
// construction while the table grows), never one bucket several stripes. A stripe is a
// test-and-test-and-set spin lock alone on its cache line: the critical sections it
// guards are a few slot reads or one item move, far shorter than a queue lock's
// hand-off, and an all-stripes acquisition (growth) needs one lock word per stripe and
// no per-thread queue nodes (McsLock's thread-local pool holds 16).
//
// Each stripe's cache line also holds an item counter (libcuckoo keeps its element
// counters in its locks the same way): an operation that adds or removes an item bumps
// the counter of a stripe it holds, a line it owns already, so counting costs no extra
// shared cache line. The counters of single stripes mean nothing (an item may be added
// under one stripe and erased under another); their sum is the item count. Each
// insert or erase changes exactly one counter once, inside its critical section, so a
// sum read while operations run counts every operation that completed before the read
// began and none that began after it ended.
//
// Locking modes are the guard's constructors, selected by tag:
//   MapStripeGuard(stripes, kBucketStripes, b1, b2[, b3])  the stripes of 1..3 buckets
//   MapStripeGuard(stripes, kAllStripes)                    every stripe (growth, clear,
//                                                        iteration, the exclusive insert)
// Lock order: a guard takes its stripes in ascending stripe index, each once (buckets
// that share a stripe are deduplicated), and a thread holds at most one guard at a
// time. So every thread acquires stripes in increasing order, and a waits-for cycle
// would need some thread to wait for a lower stripe than one it holds: impossible, so
// no deadlock. The destructor releases in the reverse order; nothing unlocks by hand.
//
// Memory order: lock() acquires (exchange), unlock() releases (store): the critical
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
#include <memory>

#include "cuckoo/sync/detail/spin.hpp"

namespace cuckoo::detail {

// A test-and-test-and-set spin lock (one word; MapLockStripes pads it to a cache line).
class StripeLock {
 public:
  StripeLock() noexcept = default;
  StripeLock(const StripeLock&) = delete;
  StripeLock& operator=(const StripeLock&) = delete;
  ~StripeLock() = default;

  // Returns with the lock held. Documented spin: waits as long as the holder holds
  // (a few slot reads or one item move; a growth holds every stripe for one rebuild),
  // backing off through SpinWait so that oversubscribed threads progress.
  void lock() noexcept {
    sync::detail::SpinWait spin;
    for (;;) {
      // acquire: pairs with the release store in unlock(); the previous holder's
      // critical section happens-before ours.
      if (!locked_.exchange(true, std::memory_order_acquire)) return;
      // relaxed: only a hint to retry the exchange; the exchange decides.
      while (locked_.load(std::memory_order_relaxed)) spin.wait();
    }
  }

  // REQUIRES: held by the calling thread. Returns with the lock free.
  void unlock() noexcept {
    // release: publishes our critical section to the next acquirer.
    locked_.store(false, std::memory_order_release);
  }

 private:
  std::atomic<bool> locked_{false};
};

// Locking-mode tags of MapStripeGuard.
struct BucketStripes {};
struct AllStripes {};
inline constexpr BucketStripes kBucketStripes{};
inline constexpr AllStripes kAllStripes{};

// The power-of-two array of stripe locks.
class MapLockStripes {
 public:
  // Upper bound on the stripes of one map: 64 KiB of lock lines, and the cost of one
  // all-stripes acquisition (growth) is this many uncontended exchanges at most.
  static constexpr std::size_t kMaxStripes = 1024;

  // REQUIRES: count is a power of two in 1..kMaxStripes.
  explicit MapLockStripes(std::size_t count)
      : stripes_(std::make_unique<Stripe[]>(count)), mask_(count - 1) {
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
  std::size_t stripe_of(std::uint32_t bucket) const noexcept { return bucket & mask_; }

  // Adds delta to the item counter of `stripe`. REQUIRES: the caller holds that stripe.
  void add_items(std::size_t stripe, std::int64_t delta) noexcept {
    // relaxed: a statistic summed by item_count(); the stripe lock orders the writers,
    // and readers need no order beyond coherence (see the top of this file).
    stripes_[stripe].items.fetch_add(delta, std::memory_order_relaxed);
  }

  // The sum of the item counters (see the top of this file); exact when no insert or
  // erase runs. O(count()).
  std::size_t item_count() const noexcept {
    std::int64_t sum = 0;
    for (std::size_t s = 0; s < count(); ++s) {
      sum += stripes_[s].items.load(std::memory_order_relaxed);  // relaxed: as add_items
    }
    return sum < 0 ? 0 : static_cast<std::size_t>(sum);
  }

  // Zeroes every item counter. REQUIRES: the caller holds every stripe.
  void reset_items() noexcept {
    for (std::size_t s = 0; s < count(); ++s) {
      stripes_[s].items.store(0, std::memory_order_relaxed);
    }
  }

 private:
  friend class MapStripeGuard;

  struct alignas(sync::detail::kCacheLineSize) Stripe {
    StripeLock lock;
    std::atomic<std::int64_t> items{0};
  };
  static_assert(sizeof(Stripe) == sync::detail::kCacheLineSize);

  StripeLock& at(std::size_t stripe) noexcept { return stripes_[stripe].lock; }

  std::unique_ptr<Stripe[]> stripes_;
  std::size_t mask_;
};

// Scoped holder of stripe locks; see the top of this file for the modes and the order.
// Locks held: after the constructor, the stripes of the given buckets (or all); after
// the destructor, none. Not copyable or movable.
class MapStripeGuard {
 public:
  static constexpr unsigned kMaxBuckets = 3;

  MapStripeGuard(MapLockStripes& stripes, BucketStripes, std::uint32_t b1, std::uint32_t b2) noexcept
      : stripes_(stripes) {
    lock_buckets({b1, b2, b2});
  }
  MapStripeGuard(MapLockStripes& stripes, BucketStripes, std::uint32_t b1, std::uint32_t b2,
              std::uint32_t b3) noexcept
      : stripes_(stripes) {
    lock_buckets({b1, b2, b3});
  }
  MapStripeGuard(MapLockStripes& stripes, AllStripes) noexcept : stripes_(stripes), all_(true) {
    for (std::size_t s = 0; s < stripes_.count(); ++s) stripes_.at(s).lock();  // ascending
  }

  MapStripeGuard(const MapStripeGuard&) = delete;
  MapStripeGuard& operator=(const MapStripeGuard&) = delete;

  ~MapStripeGuard() {
    if (all_) {
      for (std::size_t s = stripes_.count(); s > 0; --s) stripes_.at(s - 1).unlock();
      return;
    }
    for (unsigned i = count_; i > 0; --i) stripes_.at(held_[i - 1]).unlock();
  }

  bool holds_all() const noexcept { return all_; }
  // Whether this guard holds the stripe of `bucket` (debug assertions).
  bool covers(std::uint32_t bucket) const noexcept {
    if (all_) return true;
    const std::size_t stripe = stripes_.stripe_of(bucket);
    return std::find(held_, held_ + count_, stripe) != held_ + count_;
  }

 private:
  struct Buckets {
    std::uint32_t a, b, c;
  };

  void lock_buckets(Buckets buckets) noexcept {
    std::size_t s[kMaxBuckets] = {stripes_.stripe_of(buckets.a), stripes_.stripe_of(buckets.b),
                                  stripes_.stripe_of(buckets.c)};
    std::sort(s, s + kMaxBuckets);
    for (std::size_t stripe : s) {  // ascending, each stripe once
      if (count_ != 0 && held_[count_ - 1] == stripe) continue;
      stripes_.at(stripe).lock();
      held_[count_++] = stripe;
    }
  }

  MapLockStripes& stripes_;
  std::size_t held_[kMaxBuckets] = {};
  unsigned count_ = 0;
  const bool all_ = false;
};

}  // namespace cuckoo::detail
