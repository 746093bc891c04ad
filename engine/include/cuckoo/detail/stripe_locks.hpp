// Stripe locks of the striped concurrent engines (internal): one stack for the striped
// filter and the striped map. A spinlock whose word is also a seqlock version counter,
// cache-line padded power-of-two stripes of such locks (each line may carry a small
// payload beside its lock: the map keeps an item counter there), the one guard that takes
// stripes in the one lock order, and the optimistic read section built on them. See
// concurrent_filter.hpp and detail/striped_map.hpp for the designs that use them, and
// detail/concurrent_map_locks.hpp for the map's bucket-to-stripe view.
//
// VersionLock. One 64-bit word: even means free, odd means held. lock() moves it from
// even v to odd v + 1 (CAS, acquire); unlock() moves it on to v + 2 (store, release).
// Every critical section therefore advances the word by exactly 2, which makes the word
// the version counter of a seqlock: a reader that saw the same even value before and
// after reading the guarded data knows that no critical section overlapped its reads.
//
// Memory order of the seqlock (why there are no fences). Writers store guarded words
// with release and readers load them with acquire. If a reader's load returns a value a
// writer W stored inside its critical section, that store synchronizes with the load, so
// W's locking CAS (sequenced before the store) happens-before the reader's re-read of
// the version, which therefore returns W's odd value or a later one: the versions differ
// and the reader retries. If the reader saw no store of W, it read only values from
// before W. On x86-64 every one of these accesses is a plain mov; the acquire/release
// form (rather than relaxed data plus fences) is also what ThreadSanitizer understands,
// since it does not model atomic_thread_fence.
//
// Guards (locking modes are constructors; nothing unlocks by hand):
//   StripeGuard<N>(stripes, {s...})     exclusive hold of up to N stripes, taken in
//                                       ascending stripe index, each distinct stripe once
//   StripeGuard<N>(stripes, kAllStripes)  exclusive hold of every stripe, ascending
//                                       (AllStripesGuard: clear(), growth, iteration)
//   OptimisticRead<N>       no lock: records the versions of N stripes; valid() says
//                           whether any critical section overlapped since.
//   std::lock_guard<VersionLock> for single locks (the filter's stash).
// Both guards release in the destructor, in the reverse order.
//
// Lock order (deadlock freedom): stripes in ascending index, then (the filter) the stash
// lock; a thread holds at most one guard at a time. So every thread acquires stripes in
// increasing order, and a waits-for cycle would need some thread to wait for a lower
// stripe than one it holds: impossible. No code acquires a stripe while holding the
// stash lock or a higher stripe.
//
// Thread safety: all members may be used concurrently; a guard belongs to the thread
// that built it; the locks are not recursive (a thread that locks a stripe it holds
// spins forever).
//
// Sync policy (cuckoo/sync/policy.hpp): BasicVersionLock<Sync> and
// BasicLockStripes<Payload, Sync> take their atomics and spin from Sync; VersionLock and
// LockStripes are the StdSync forms the engines use. The suite's explore/ layer runs
// them under its scheduler.
#pragma once

#include <array>
#include <atomic>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>

#include "cuckoo/sync/detail/spin.hpp"
#include "cuckoo/sync/policy.hpp"

namespace cuckoo::detail {

template <class Sync = sync::StdSync>
class BasicVersionLock {
 public:
  BasicVersionLock() noexcept = default;
  BasicVersionLock(const BasicVersionLock&) = delete;
  BasicVersionLock& operator=(const BasicVersionLock&) = delete;

  // Returns with the lock held. Documented spin: waits as long as other holders hold
  // it (SpinWait pauses, then yields, then sleeps, so oversubscribed threads progress).
  void lock() noexcept {
    typename Sync::SpinWait spin;
    for (;;) {  // bound: the holders' critical sections (a lock waits for its holder)
      // relaxed: a look before the CAS; the CAS decides and acquires.
      std::uint64_t v = word_.load(std::memory_order_relaxed);
      // acquire: pairs with the release store in unlock(); the previous holder's
      // critical section happens-before ours.
      if ((v & 1) == 0 &&
          word_.compare_exchange_strong(v, v + 1, std::memory_order_acquire,
                                        std::memory_order_relaxed)) {
        return;
      }
      spin.wait();
    }
  }

  // REQUIRES: the calling thread holds the lock. Returns with it released.
  void unlock() noexcept {
    // relaxed load: only the holder writes the word while it is odd. release: publishes
    // the critical section to the next holder and to readers that see the new version.
    const std::uint64_t v = word_.load(std::memory_order_relaxed);
    assert((v & 1) == 1 && "VersionLock::unlock without holding it");
    word_.store(v + 1, std::memory_order_release);
  }

  // The version: even when free. acquire: pairs with unlock()'s release, so data read
  // after an even version is at least as new as the last critical section before it.
  std::uint64_t version() const noexcept { return word_.load(std::memory_order_acquire); }

  // The version with no ordering: for a seqlock reader's second read, after its own
  // acquire fence.
  std::uint64_t version_relaxed() const noexcept { return word_.load(std::memory_order_relaxed); }

  bool is_locked() const noexcept { return (version() & 1) != 0; }

 private:
  typename Sync::template Atomic<std::uint64_t> word_{0};
};

using VersionLock = BasicVersionLock<>;

// No payload beside a stripe's lock.
struct NoStripePayload {};

// A power-of-two array of VersionLocks, one per cache line (64 bytes each), so that
// threads locking different stripes never share a line. Payload (default: none) lives
// on the same line as its lock: state guarded by that stripe, or a per-stripe counter
// that its holder updates without touching another line.
template <class Payload = NoStripePayload, class Sync = sync::StdSync>
class BasicLockStripes {
 public:
  using Lock = BasicVersionLock<Sync>;

  // The most stripes an instance may have (4 MiB of locks).
  static constexpr std::size_t kMaxStripes = std::size_t{1} << 16;

  // REQUIRES: count is a power of two in 1..kMaxStripes.
  explicit BasicLockStripes(std::size_t count)
      : stripes_(std::make_unique<Padded[]>(count)), count_(count) {
    assert(count >= 1 && count <= kMaxStripes && (count & (count - 1)) == 0);
  }

  std::size_t count() const noexcept { return count_; }

  // Stripes are lockable from const contexts (a const filter's lookups may fall back
  // to locking); the array is not part of the structure's logical state.
  Lock& operator[](std::size_t i) const noexcept {
    assert(i < count_);
    return stripes_[i].lock;
  }

  // The payload on stripe i's line.
  Payload& payload(std::size_t i) const noexcept {
    assert(i < count_);
    return stripes_[i].payload;
  }

  std::size_t memory_bytes() const noexcept { return count_ * sizeof(Padded); }

 private:
  struct alignas(sync::detail::kCacheLineSize) Padded {
    Lock lock;
    [[no_unique_address]] Payload payload;
  };
  static_assert(sizeof(Padded) == sync::detail::kCacheLineSize,
                "a stripe's lock and payload fit one cache line");

  std::unique_ptr<Padded[]> stripes_;
  std::size_t count_;
};

using LockStripes = BasicLockStripes<>;

// The locking-mode tag of a guard that takes every stripe.
struct AllStripes {};
inline constexpr AllStripes kAllStripes{};

// Up to N stripe indices, sorted ascending without duplicates: the order in which
// guards lock them.
template <std::size_t N>
class StripeSet {
 public:
  StripeSet(std::initializer_list<std::uint32_t> stripes) noexcept {
    assert(stripes.size() <= N);
    // Insertion into sorted position, skipping duplicates (std::sort on these tiny
    // arrays trips a GCC 12 -Warray-bounds false positive). Bound: N * N steps.
    for (const std::uint32_t s : stripes) {
      std::size_t at = 0;
      while (at < size_ && indices_[at] < s) ++at;
      if (at < size_ && indices_[at] == s) continue;
      for (std::size_t j = size_; j > at; --j) indices_[j] = indices_[j - 1];
      indices_[at] = s;
      ++size_;
    }
  }

  std::size_t size() const noexcept { return size_; }
  std::uint32_t operator[](std::size_t i) const noexcept {
    assert(i < size_);
    return indices_[i];
  }

 private:
  std::array<std::uint32_t, N> indices_{};
  std::size_t size_ = 0;
};

// Exclusive hold of up to N stripes, or of all of them. Constructor: returns with every
// listed stripe (or every stripe) held, acquired in ascending index. Destructor: returns
// with none of them held, released in descending index. Not copyable or movable.
template <std::size_t N, class Stripes = LockStripes>
class StripeGuard {
 public:
  StripeGuard(const Stripes& stripes, std::initializer_list<std::uint32_t> indices) noexcept
      : stripes_(stripes), set_(indices) {
    for (std::size_t i = 0; i < set_.size(); ++i) stripes_[set_[i]].lock();  // bound: N
  }
  StripeGuard(const Stripes& stripes, AllStripes) noexcept
      : stripes_(stripes), set_({}), all_(true) {
    for (std::size_t i = 0; i < stripes_.count(); ++i) stripes_[i].lock();  // bound: count
  }
  StripeGuard(const StripeGuard&) = delete;
  StripeGuard& operator=(const StripeGuard&) = delete;
  ~StripeGuard() {
    if (all_) {
      for (std::size_t i = stripes_.count(); i > 0; --i) stripes_[i - 1].unlock();
      return;
    }
    for (std::size_t i = set_.size(); i > 0; --i) stripes_[set_[i - 1]].unlock();  // bound: N
  }

  bool holds_all() const noexcept { return all_; }

  // True if the guard holds stripe s (tests and assertions).
  bool holds(std::uint32_t s) const noexcept {
    if (all_) return true;
    for (std::size_t i = 0; i < set_.size(); ++i) {
      if (set_[i] == s) return true;
    }
    return false;
  }

 private:
  const Stripes& stripes_;
  const StripeSet<N> set_;
  const bool all_ = false;
};

// The guard of every stripe: AllStripesGuard all(stripes, kAllStripes).
using AllStripesGuard = StripeGuard<0>;

// An optimistic (seqlock) read of N stripes: holds no lock. The constructor records
// each stripe's version; started() is false if a writer held one of them at that moment
// (the read cannot succeed: retry). valid() re-reads the versions: true iff none
// changed, i.e. no critical section on these stripes overlapped the reads made between
// the constructor and valid(), which therefore saw one consistent state. Unlike the
// guards it needs no order and no deduplication (reading a version twice is harmless),
// so the lookup hot path stays two loads and two compares.
template <std::size_t N, class Stripes = LockStripes>
class OptimisticRead {
 public:
  OptimisticRead(const Stripes& stripes, const std::array<std::uint32_t, N>& indices) noexcept
      : stripes_(stripes), indices_(indices) {
    for (std::size_t i = 0; i < N; ++i) {  // bound: N
      versions_[i] = stripes_[indices_[i]].version();
      started_ = started_ && (versions_[i] & 1) == 0;
    }
  }
  OptimisticRead(const OptimisticRead&) = delete;
  OptimisticRead& operator=(const OptimisticRead&) = delete;

  bool started() const noexcept { return started_; }

  // The data loads before this call are acquire loads, so the version re-reads below
  // cannot move above them.
  bool valid() const noexcept {
    bool unchanged = started_;
    for (std::size_t i = 0; i < N; ++i) {  // bound: N
      unchanged = unchanged && stripes_[indices_[i]].version() == versions_[i];
    }
    return unchanged;
  }

 private:
  const Stripes& stripes_;
  const std::array<std::uint32_t, N> indices_;
  std::array<std::uint64_t, N> versions_{};
  bool started_ = true;
};

}  // namespace cuckoo::detail
