// McsLock: the MCS queue lock (Mellor-Crummey and Scott, 1991), the fallback lock of
// the elided lock in seed 004 (Listing 1.1 lines 28-36 acquire it, Listing 1.2 lines
// 9-21 release it).
//
// Waiters form a FIFO queue of nodes. The lock word is the tail of the queue: nullptr
// when the lock is free, otherwise the last node enqueued. lock() swaps its node into
// the tail; if there was a predecessor, it links itself behind it and spins on its own
// node's flag, which only its predecessor writes. unlock() passes the lock to the
// successor by clearing that flag. So:
//   - hand-off is FIFO: the lock goes to waiters in the order their swaps hit the tail;
//   - each waiter spins on its own cache line (nodes are cache-line aligned), so a
//     release touches one remote line, not one per waiter;
//   - the lock word changes only on enqueue and on the final release, which is what
//     lock elision needs (is_locked() reads it; see elided_lock.hpp).
//
// Nodes: either owned by the caller (lock(node) / unlock(node), the node must live and
// stay untouched from lock to unlock) or taken from a small per-thread pool (lock() /
// unlock(), kThreadLocalNodes at once, so one thread may hold several different
// McsLocks, nested or not). A node is free again as soon as unlock() returns.
//
// Spinning: every wait is a documented spin (SpinWait): pause with exponential
// back-off, then yield, so that oversubscribed threads still progress.
//
// Thread safety: all member functions may be called concurrently. The lock is not
// recursive: a thread that locks an McsLock it holds deadlocks.
//
// Memory order: lock() (and a successful try_lock()) acquires, unlock() releases: the
// critical sections of successive holders are ordered by happens-before. Every atomic
// access below says which access it pairs with.
//
// Sync policy: BasicMcsLock<Sync> takes its atomics, its spin and its per-thread node
// pool from Sync (policy.hpp); McsLock is BasicMcsLock<StdSync>. The suite's explore/
// layer instantiates it with a policy under which every atomic access is a scheduling
// point of a deterministic scheduler.
#pragma once

#include <array>
#include <atomic>
#include <cassert>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <mutex>

#include "cuckoo/sync/detail/spin.hpp"
#include "cuckoo/sync/policy.hpp"

namespace cuckoo::sync {

/// The MCS queue lock (Mellor-Crummey and Scott, 1991): FIFO hand-off, each waiter
/// spinning on its own cache line; the fallback lock of the elided lock. See the design
/// comment at the top of mcs_lock.hpp.
/// Sync: the sync policy (policy.hpp).
template <class Sync = StdSync>
class alignas(detail::kLockAlignment) BasicMcsLock {
  template <class T>
  using Atomic = typename Sync::template Atomic<T>;

 public:
 public:
  /// A queue node: one per waiter or holder. Cache-line aligned and sized, so each
  /// waiter spins on a line of its own.
  class alignas(detail::kCacheLineSize) Node {
   public:
    Node() noexcept = default;
    Node(const Node&) = delete;
    Node& operator=(const Node&) = delete;

    /// Diagnostics and tests: the node queued directly behind this one, or nullptr.
    /// Non-null means that waiter has finished enqueueing behind this node.
    const Node* successor() const noexcept {
      // acquire: pairs with the successor's release store in lock().
      return next_.load(std::memory_order_acquire);
    }

   private:
    friend class BasicMcsLock;
    Atomic<Node*> next_{nullptr};   ///< written by the successor, read by the holder
    Atomic<bool> locked_{false};    ///< true while waiting; cleared by the predecessor
  };

  /// Per-thread pool size: how many McsLocks one thread may hold at once through
  /// lock() / try_lock() without a node argument. Exceeding it terminates the program
  /// with a message (it is a bug of the caller, like exceeding a recursion limit).
  static constexpr std::size_t kThreadLocalNodes = 16;

  BasicMcsLock() noexcept = default;
  BasicMcsLock(const BasicMcsLock&) = delete;
  BasicMcsLock& operator=(const BasicMcsLock&) = delete;
  /// REQUIRES: not held and nobody waiting.
  ~BasicMcsLock() { assert(!is_locked() && "McsLock destroyed while held"); }

  /// Acquires the lock, waiting in FIFO order behind earlier callers.
  /// REQUIRES: `node` is not in use (not passed to a lock() that has not been matched
  /// by unlock()); it stays alive and untouched until unlock(node).
  /// Returns with the lock held.
  void lock(Node& node) noexcept {
    // Reset before publishing: relaxed, published by the release half of the exchange.
    node.next_.store(nullptr, std::memory_order_relaxed);
    node.locked_.store(true, std::memory_order_relaxed);  // Listing 1.1 line 29
    // Listing 1.1 line 30 (__sync_lock_TAS, an atomic swap of the tail).
    // acq_rel: acquire pairs with the releasing CAS of the last holder's unlock() (when
    // we find the queue empty, its critical section happens-before ours); release
    // publishes the node reset above to the successor that will find &node here and
    // write node.next_.
    Node* const pred = tail_.exchange(&node, std::memory_order_acq_rel);
    if (pred == nullptr) return;  // Listing 1.1 line 31: the lock was free; held now.
    // Listing 1.1 line 32. release: publishes locked_ == true before the predecessor,
    // who reads next_ with acquire, stores false into it.
    pred->next_.store(&node, std::memory_order_release);
    // Listing 1.1 lines 33-34. Documented spin: waits as long as the predecessors hold
    // the lock. acquire: pairs with the predecessor's release store of false in
    // unlock(); its critical section happens-before ours.
    typename Sync::SpinWait spin;
    while (node.locked_.load(std::memory_order_acquire)) spin.wait();
  }

  /// Acquires the lock only if it is free right now (no holder and no waiter).
  /// Returns true with the lock held (release with unlock(node)); false without it, and
  /// then `node` was not used. REQUIRES: as for lock(node).
  bool try_lock(Node& node) noexcept {
    // relaxed: a cheap look that avoids taking the line exclusive when it is held;
    // the CAS below decides.
    if (tail_.load(std::memory_order_relaxed) != nullptr) return false;
    node.next_.store(nullptr, std::memory_order_relaxed);
    node.locked_.store(false, std::memory_order_relaxed);
    Node* expected = nullptr;
    // acq_rel on success: as the exchange in lock(). relaxed on failure: nothing read.
    return tail_.compare_exchange_strong(expected, &node, std::memory_order_acq_rel,
                                         std::memory_order_relaxed);
  }

  /// Releases the lock, handing it to the next waiter if there is one.
  /// REQUIRES: the calling thread holds the lock through `node`.
  /// Returns with the lock released (held by the successor, or free); `node` is free.
  void unlock(Node& node) noexcept {
    // Listing 1.2 line 10. acquire: pairs with the successor's release store of next_.
    Node* succ = node.next_.load(std::memory_order_acquire);
    if (succ == nullptr) {
      // Listing 1.2 lines 11-14: no known successor; if we are still the tail, the
      // queue is empty and the lock becomes free. release: publishes our critical
      // section to the next acquirer (its exchange/CAS, or is_locked(), acquires).
      Node* expected = &node;
      if (tail_.compare_exchange_strong(expected, nullptr, std::memory_order_release,
                                        std::memory_order_relaxed)) {
        return;
      }
      // Listing 1.2 lines 16-17. A successor has swapped the tail but not yet linked
      // itself to us. Documented spin: the window is two instructions of the
      // successor's lock(), longer only if it is preempted there.
      typename Sync::SpinWait spin;
      while ((succ = node.next_.load(std::memory_order_acquire)) == nullptr) spin.wait();
    }
    // Listing 1.2 line 21 (line 20's reset of my_node.next happens in lock() instead,
    // so a node is always clean when it is queued). release: pairs with the
    // successor's acquire spin; our critical section happens-before its.
    succ->locked_.store(false, std::memory_order_release);
  }

  /// As lock(node) / try_lock(node) / unlock(node), with a node from the calling
  /// thread's pool. These make McsLock a standard Lockable (std::scoped_lock,
  /// std::unique_lock). REQUIRES: at most kThreadLocalNodes McsLocks held this way by
  /// the calling thread at once; unlock() on a thread that holds this lock through
  /// lock()/try_lock(); every such lock released before the thread exits.
  void lock() noexcept { lock(thread_nodes().take(this)); }

  /// Takes the lock if it is free, with a node from the thread's pool; true if taken.
  bool try_lock() noexcept {
    ThreadNodes& nodes = thread_nodes();
    if (try_lock(nodes.take(this))) return true;
    nodes.give_back(this);
    return false;
  }

  /// Releases the lock taken by lock() or try_lock() on this thread.
  void unlock() noexcept {
    ThreadNodes& nodes = thread_nodes();
    unlock(nodes.find(this));
    nodes.give_back(this);
  }

  /// Whether someone holds the lock or waits for it: the tail is not null. This is the
  /// read that lock elision puts in a transaction's read set (seed 004, Listing 1.1
  /// line 18, `if (lock->lock)`). acquire rather than relaxed: it is the same plain load
  /// on x86, and when the answer is "free" it makes the last holder's critical section
  /// happen-before the caller's (pairs with the releasing CAS in unlock()), which the
  /// emulated transactions of htm.hpp rely on.
  bool is_locked() const noexcept { return tail_.load(std::memory_order_acquire) != nullptr; }

 private:
  /// The per-thread node pool behind lock() / try_lock() / unlock(). Used only by its
  /// thread, so plain (non-atomic) bookkeeping.
  class ThreadNodes {
   public:
    ThreadNodes() = default;
    ThreadNodes(const ThreadNodes&) = delete;
    ThreadNodes& operator=(const ThreadNodes&) = delete;
    ~ThreadNodes() {
      for (const BasicMcsLock* owner : owners_) {
        if (owner != nullptr) {
          fatal("a thread exited while holding an McsLock through a thread-local node");
        }
      }
    }

    // A free node, now marked as used for `lock`.
    Node& take(const BasicMcsLock* lock) noexcept {
      assert(!holds(lock) && "McsLock is not recursive");
      for (std::size_t i = 0; i < kThreadLocalNodes; ++i) {
        if (owners_[i] == nullptr) {
          owners_[i] = lock;
          return nodes_[i];
        }
      }
      fatal("more than McsLock::kThreadLocalNodes McsLocks held at once by one thread");
    }

    // The node in use for `lock`.
    Node& find(const BasicMcsLock* lock) noexcept {
      for (std::size_t i = 0; i < kThreadLocalNodes; ++i) {
        if (owners_[i] == lock) return nodes_[i];
      }
      fatal("McsLock::unlock() by a thread that does not hold it through lock()");
    }

    void give_back(const BasicMcsLock* lock) noexcept {
      for (const BasicMcsLock*& owner : owners_) {
        if (owner == lock) {
          owner = nullptr;
          return;
        }
      }
    }

   private:
    bool holds(const BasicMcsLock* lock) const noexcept {
      for (const BasicMcsLock* owner : owners_) {
        if (owner == lock) return true;
      }
      return false;
    }

    [[noreturn]] static void fatal(const char* message) noexcept {
      std::fprintf(stderr, "cuckoo::sync::McsLock: %s\n", message);
      std::fflush(stderr);
      std::abort();
    }

    std::array<Node, kThreadLocalNodes> nodes_{};
    std::array<const BasicMcsLock*, kThreadLocalNodes> owners_{};
  };

  /// The calling thread's pool (a logical thread's, under a checking policy).
  static ThreadNodes& thread_nodes() noexcept { return Sync::template thread_local_object<ThreadNodes>(); }

  /// The queue tail, alone in its 128-byte block (the class is aligned to
  /// kLockAlignment, see Listing 1.1's spec_mcs_lock_t padding).
  Atomic<Node*> tail_{nullptr};
};

/// BasicMcsLock with the production sync policy.
using McsLock = BasicMcsLock<>;

static_assert(sizeof(McsLock) == detail::kLockAlignment);
static_assert(sizeof(McsLock::Node) == detail::kCacheLineSize);

/// Scoped RAII holder of an McsLock: locks in the constructor, unlocks in the
/// destructor (also when leaving by exception). Not copyable or movable.
///
/// Locks held on return: after the constructor, the lock (for the try_to_lock forms,
/// iff owns_lock()); after the destructor, none.
template <class Sync = StdSync>
class BasicMcsGuard {
  using McsLock = BasicMcsLock<Sync>;

 public:
  /// With a thread-local node.
  explicit BasicMcsGuard(McsLock& lock) noexcept : lock_(lock), node_(nullptr), owns_(true) {
    lock_.lock();
  }
  /// With a caller-owned node (must outlive the guard).
  BasicMcsGuard(McsLock& lock, typename McsLock::Node& node) noexcept
      : lock_(lock), node_(&node), owns_(true) {
    lock_.lock(node);
  }
  /// Try forms: hold the lock iff owns_lock().
  BasicMcsGuard(McsLock& lock, std::try_to_lock_t) noexcept
      : lock_(lock), node_(nullptr), owns_(lock_.try_lock()) {}
  /// Try form with a caller-owned node (must outlive the guard): holds the lock iff
  /// owns_lock().
  BasicMcsGuard(McsLock& lock, typename McsLock::Node& node, std::try_to_lock_t) noexcept
      : lock_(lock), node_(&node), owns_(lock_.try_lock(node)) {}

  BasicMcsGuard(const BasicMcsGuard&) = delete;
  BasicMcsGuard& operator=(const BasicMcsGuard&) = delete;

  ~BasicMcsGuard() {
    if (!owns_) return;
    if (node_ != nullptr) {
      lock_.unlock(*node_);
    } else {
      lock_.unlock();
    }
  }

  /// Whether the guard holds the lock.
  bool owns_lock() const noexcept { return owns_; }
  /// owns_lock().
  explicit operator bool() const noexcept { return owns_; }

 private:
  McsLock& lock_;
  typename McsLock::Node* const node_;
  const bool owns_;
};

/// BasicMcsGuard with the production sync policy.
using McsGuard = BasicMcsGuard<>;

}  // namespace cuckoo::sync
