// ElidedLock: a lock whose critical sections first run as hardware transactions and
// fall back to a real lock (an MCS queue lock by default): the "RTM-based MCS lock" of
// the concurrent cuckoo filter in seed 004 (section 1.3.1, Listings 1.1 and 1.2).
//
// ---------------------------------------------------------------------------------
// How it works, and where each line of the seed's listings went
// ---------------------------------------------------------------------------------
// Lock (Listing 1.1, locklib_mutex_lock(mutex, mode)), in acquire() below:
//   line 16-17  speculative_path: XBEGIN(fallback_path, reason)
//                 -> status = htm_.begin()
//   line 18     if (lock->lock) XABORT(1): read the fallback lock word inside the
//               transaction and abort explicitly if it is held
//                 -> fallback_.is_locked(), htm_.abort<kLockBusyAbortCode>()
//               Reading the word first puts it in the transaction's read set: if any
//               thread takes the fallback lock later, the CPU aborts the transaction
//               (for emulated transactions, see "Emulation" below). Nothing that can
//               abort the transaction explicitly happens after the critical section has
//               written anything. (The seed's prose says the lock is checked "when the
//               transaction is about to commit"; its code checks it first, and the code
//               is what is correct. We follow the code.)
//   line 19     return 0: the caller's critical section runs inside the transaction.
//   line 21-22  fallback_path: retries++   -> the local `retries` of acquire()
//   line 23-24  while (lock->lock) cpu_relax(): wait until the fallback lock is free
//               before retrying (otherwise the retry aborts at once: the lemming
//               effect) -> wait_until_unlocked()
//   line 25-26  if (retries < MAX_RETRIES) goto speculative_path
//                 -> at most 1 + kMaxTransactionRetries attempts (the seed's
//                    MAX_RETRIES counts attempts: MAX_RETRIES = kMaxTransactionRetries+1)
//   line 28-35  acquire the MCS lock in the standard manner -> fallback_.lock()
//               (McsLock::lock in mcs_lock.hpp follows these lines one by one)
//   line 36     mutex->mode = mode -> fallback_mode_ (see "Read and write modes")
// Unlock (Listing 1.2, locklib_mutex_unlock(mutex)), in release() below:
//   line 5-6    if (XTEST()) XEND(): commit the transaction -> htm_.end()
//   line 8-22   else release the MCS lock in the standard manner -> fallback_.unlock()
//   line 24     retries = 0 -> nothing: `retries` is local to one acquisition.
//
// Deliberate differences from the listings, each for a stated reason:
//   - Retry policy. Listing 1.1 retries after every abort, whatever the reason. We read
//     the status (worth_retrying()): an explicit "lock busy" abort, a conflict or an
//     abort with the hardware's retry hint is retried (after waiting until the lock is
//     free, as lines 23-24); a capacity, debug, nested or reasonless abort (system
//     call, interrupt, fault) without the retry hint goes straight to the fallback
//     lock, because the same critical section would abort again the same way.
//   - Which path to undo. Listing 1.2 asks XTEST whether it runs in a transaction. The
//     guard instead remembers the path its acquire() took and releases that path:
//     XTEST cannot tell which lock's transaction is running (with nested locks an
//     inner lock taken through its fallback inside an outer transaction would be
//     "XEND"ed). A debug assertion checks that XTEST agrees on the transactional path.
//   - `retries` is a local of each acquisition, not a per-thread global reset by
//     unlock: same effect for one lock, and correct for nested locks.
//   - Waits back off and then yield (SpinWait) instead of spinning on cpu_relax() only,
//     so oversubscribed threads progress.
//
// ---------------------------------------------------------------------------------
// Read and write modes
// ---------------------------------------------------------------------------------
// The seed's locklib_mutex_lock takes mode 0 (read: lookups) or 1 (update: insert,
// delete). Both modes run the same protocol: transactionally they differ only in what
// the critical section does, and in the fallback both take the same exclusive MCS lock;
// the mode is stored in the lock (line 36) and nothing reads it for exclusion. We do
// exactly that:
//   - ReadMode critical sections may run in parallel with each other as hardware
//     transactions (they only read, so they do not conflict); that is where the
//     reader parallelism of this design comes from.
//   - In the fallback, a reader holds the fallback lock exclusively, like a writer.
//     The mode of the current (last) fallback holder is recorded (last_fallback_mode(),
//     the seed's `mode` field) and the statistics are kept per mode.
//   - Under the emulated backends all transactions of one lock are serialized, readers
//     included (the emulation cannot tell what a transaction touches).
// A ReadMode critical section must not write the data the lock protects. Today every
// path happens to be exclusive or atomic, so such a write would not race; but it would
// make concurrent hardware readers conflict, and read mode is the caller's statement
// that a reader-writer fallback could admit readers together. The lock does not check.
//
// ---------------------------------------------------------------------------------
// Which lock is held on each path
// ---------------------------------------------------------------------------------
//   ElidedGuard constructor returns with path() ==
//     kTransaction: no lock is held; a transaction of htm_ is open on this thread,
//                   with the fallback lock word in its read set (seen free).
//     kFallback:    the fallback lock is held (and no transaction of htm_ is open).
//   ElidedGuard destructor returns with neither: the transaction committed, or the
//   fallback lock released. Inside acquire(), between attempts, nothing is held.
//   Hardware: a transaction that aborts anywhere in the critical section (or at commit)
//   is rolled back and resumes inside acquire() as a failed attempt; the critical
//   section then runs again, transactionally or under the fallback lock.
//
// Emulation (htm.hpp): an emulated transaction is not aborted by the CPU when the
// fallback lock is taken after it read the word. So the fallback path calls
// htm_.drain_transactions() right after acquiring the fallback lock: it waits until
// every emulated transaction that may have read the word as free has ended. Every
// later emulated transaction reads the word as held and aborts with
// kLockBusyAbortCode before its first write. That keeps mutual exclusion between
// emulated transactions and fallback holders.
//
// Memory order: the fallback lock orders fallback critical sections (acquire/release,
// see mcs_lock.hpp). Hardware transactions are atomic and ordered by the CPU.
// Emulated transactions are ordered with each other by the emulation mutex, after
// fallback holders by is_locked()'s acquire load (pairs with the fallback unlock's
// release), and before fallback holders by drain_transactions() (mutex release in
// end(), acquire in the drain).
//
// Sync policy (policy.hpp): BasicElidedLock<Fallback, Sync> takes its transaction
// primitive (Sync::Htm) and its spin from Sync; ElidedLock<Fallback> is the production
// lock (StdSync: sync::Htm, real RTM). Under the suite's checking policy the same code
// runs emulated transactions that the interleaving explorer aborts at any scheduling
// point of the critical section and on any conflicting access, with every effect
// discarded; a lock whose critical sections write plain memory (not Sync atomics)
// declares that memory with protect() so that such an abort can restore it.
//
// Thread safety: all members may be used concurrently; a thread must not acquire an
// ElidedLock it holds (not recursive). Guards are scoped RAII objects: nothing unlocks
// by hand. Exceptions from a critical section leave through the guard's destructor,
// which commits the transaction or releases the fallback lock.
#pragma once

#include <atomic>
#include <cassert>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string_view>
#include <type_traits>
#include <utility>

#include "cuckoo/sync/detail/counters.hpp"
#include "cuckoo/sync/detail/spin.hpp"
#include "cuckoo/sync/htm.hpp"
#include "cuckoo/sync/mcs_lock.hpp"

namespace cuckoo::sync {

/// The seed's mode argument: 0 for lookups, 1 for updates.
enum class ElisionMode : std::uint8_t { kRead = 0, kWrite = 1 };

/// The mode's name ("read", "write").
constexpr std::string_view to_string(ElisionMode m) noexcept {
  return m == ElisionMode::kRead ? "read" : "write";
}

/// Locking-mode tags.
struct ReadMode {
  /// ElisionMode::kRead.
  static constexpr ElisionMode kMode = ElisionMode::kRead;
};
/// The write mode's tag (updates).
struct WriteMode {
  /// ElisionMode::kWrite.
  static constexpr ElisionMode kMode = ElisionMode::kWrite;
};
/// The read mode, as a value: lock.with(kReadMode, f).
inline constexpr ReadMode kReadMode{};
/// The write mode, as a value: lock.with(kWriteMode, f).
inline constexpr WriteMode kWriteMode{};

template <class M>
concept ElisionModeTag = std::same_as<M, ReadMode> || std::same_as<M, WriteMode>;

/// Guard tag: skip the transaction, take the fallback lock directly (for critical
/// sections known to abort: system calls, I/O, large footprints).
struct NoElision {};
/// The NoElision tag, as a value: ElidedGuard<Mode> guard(lock, kNoElision).
inline constexpr NoElision kNoElision{};

/// How a guard holds the lock.
enum class ElisionPath : std::uint8_t {
  kTransaction,  ///< inside a transaction, no lock held
  kFallback,     ///< holding the fallback lock
};

/// The path's name, as used in reports.
constexpr std::string_view to_string(ElisionPath p) noexcept {
  return p == ElisionPath::kTransaction ? "transaction" : "fallback";
}

/// What ElidedLock needs from its fallback lock: an exclusive lock with lock()/unlock()
/// (any thread-affine node bookkeeping hidden inside, as McsLock's thread-local nodes),
/// and is_locked(), a read of the very word lock() writes, true from the acquiring
/// write until the release (a hardware transaction that read it must be aborted by
/// any acquisition). is_locked() must acquire (see McsLock::is_locked).
template <class L>
concept ElisionFallback = std::default_initializable<L> && requires(L& l, const L& cl) {
  l.lock();
  l.unlock();
  { cl.is_locked() } -> std::convertible_to<bool>;
};

/// Counters of one ElidedLock (relaxed statistics; exact once the threads that used the
/// lock have been joined). Every critical section is counted once, by its final path:
///   transactional_reads + transactional_writes + fallback_reads + fallback_writes
///     == number of guards that have been destroyed
///   fallback_reads + fallback_writes == fallback_not_started + fallback_no_retry
///     + fallback_retries_exhausted + fallback_requested  (once all guards are gone)
struct ElisionStats {
  HtmStats htm;                           ///< the transaction primitive's own counters
  std::uint64_t transactional_reads = 0;  ///< committed transactions, per mode
  std::uint64_t transactional_writes = 0;  ///< committed write transactions
  std::uint64_t fallback_reads = 0;  ///< critical sections run under the fallback lock
  std::uint64_t fallback_writes = 0;  ///< write sections run under the fallback lock
  std::uint64_t lock_busy_aborts = 0;  ///< explicit aborts: fallback lock seen held
  std::uint64_t retries = 0;           ///< transaction attempts after the first
  /// Why the fallback lock was taken:
  std::uint64_t fallback_not_started = 0;        ///< the backend does not do transactions
  std::uint64_t fallback_no_retry = 0;           ///< the abort status said retry won't help
  std::uint64_t fallback_retries_exhausted = 0;  ///< kMaxTransactionRetries reached
  std::uint64_t fallback_requested = 0;          ///< guard built with kNoElision

  /// Committed transactions, both modes.
  std::uint64_t transactions() const noexcept {
    return transactional_reads + transactional_writes;
  }
  /// Critical sections run under the fallback lock, both modes.
  std::uint64_t fallbacks() const noexcept { return fallback_reads + fallback_writes; }
};

namespace detail {

enum class ElisionCounter : std::size_t {
  kTransactionalReads,
  kTransactionalWrites,
  kFallbackReads,
  kFallbackWrites,
  kLockBusyAborts,
  kRetries,
  kFallbackNotStarted,
  kFallbackNoRetry,
  kFallbackRetriesExhausted,
  kFallbackRequested,
  kCount,
};

}  // namespace detail

template <ElisionModeTag Mode, ElisionFallback Fallback, class Sync>
class ElidedGuard;

/// One lock elided with hardware transactions, falling back to a lock (an MCS lock by
/// default), in read and write modes: a critical section runs as a transaction that reads
/// the fallback lock's word, and under the fallback lock after its retries. The backend
/// is chosen at run time by an HtmPolicy. See the design comment at the top of
/// elided_lock.hpp for the locks held on each return path.
/// Sync: the sync policy (policy.hpp).
template <ElisionFallback Fallback = McsLock, class Sync = StdSync>
class BasicElidedLock {
  using Htm = typename Sync::Htm;

 public:
  /// Transaction attempts after the first before the fallback lock is taken (the seed's
  /// MAX_RETRIES, which counts attempts, is kMaxTransactionRetries + 1).
  static constexpr std::uint32_t kMaxTransactionRetries = 4;
  static_assert(kMaxTransactionRetries < 64, "a retry bound, not an unbounded loop");

  /// The XABORT code of "the fallback lock is held" (Listing 1.1 line 18: XABORT(1)).
  static constexpr std::uint8_t kLockBusyAbortCode = 1;

  /// Throws ConfigError if the policy is invalid (HtmPolicy::validate()).
  explicit BasicElidedLock(HtmPolicy policy = HtmPolicy::automatic()) : htm_(std::move(policy)) {}

  BasicElidedLock(const BasicElidedLock&) = delete;
  BasicElidedLock& operator=(const BasicElidedLock&) = delete;

  /// Declares `object` as plain memory the critical sections of this lock write, so that
  /// an emulated transaction of the checking policy can restore it when it aborts (see
  /// Htm::protect). Production: no effect. REQUIRES: `object` outlives the lock.
  template <class T>
  void protect(T& object) noexcept {
    htm_.protect(object);
  }

  /// Runs f() as one critical section in the given mode and returns what it returns.
  /// Under hardware transactions f may run more than once (aborted runs are rolled back
  /// without a trace); it must not do what a transaction cannot undo (I/O, system calls)
  /// unless it tolerates that (such calls abort the transaction; the final run is under
  /// the fallback lock). Locks held: as the guard (see the top of this file).
  template <ElisionModeTag Mode, class F>
  std::invoke_result_t<F&&> with(Mode, F&& f) {
    const ElidedGuard<Mode, Fallback, Sync> guard(*this);
    return std::invoke(std::forward<F>(f));
  }
  /// with(kReadMode, f): f as one critical section in read mode.
  template <class F>
  std::invoke_result_t<F&&> with_read(F&& f) {
    return with(kReadMode, std::forward<F>(f));
  }
  /// with(kWriteMode, f): f as one critical section in write mode.
  template <class F>
  std::invoke_result_t<F&&> with_write(F&& f) {
    return with(kWriteMode, std::forward<F>(f));
  }

  /// Whether the fallback lock is held or waited for right now (a racy snapshot).
  bool is_locked() const noexcept { return fallback_.is_locked(); }

  /// The mode of the current or last fallback holder (the seed's mutex->mode). kWrite
  /// before any fallback acquisition. Relaxed snapshot, for diagnostics.
  ElisionMode last_fallback_mode() const noexcept {
    return fallback_mode_.load(std::memory_order_relaxed);
  }

  /// The hardware-transaction policy the lock was built with.
  const HtmPolicy& policy() const noexcept { return htm_.policy(); }
  /// The policy's backend.
  HtmBackend backend() const noexcept { return htm_.backend(); }
  /// The backend that actually runs (automatic() resolved for this CPU).
  HtmBackend effective_backend() const noexcept { return htm_.effective_backend(); }

  /// How the critical sections ran: transactions, aborts, fallbacks.
  ElisionStats stats() const noexcept {
    using C = detail::ElisionCounter;
    ElisionStats s;
    s.htm = htm_.stats();
    s.transactional_reads = counters_.sum(C::kTransactionalReads);
    s.transactional_writes = counters_.sum(C::kTransactionalWrites);
    s.fallback_reads = counters_.sum(C::kFallbackReads);
    s.fallback_writes = counters_.sum(C::kFallbackWrites);
    s.lock_busy_aborts = counters_.sum(C::kLockBusyAborts);
    s.retries = counters_.sum(C::kRetries);
    s.fallback_not_started = counters_.sum(C::kFallbackNotStarted);
    s.fallback_no_retry = counters_.sum(C::kFallbackNoRetry);
    s.fallback_retries_exhausted = counters_.sum(C::kFallbackRetriesExhausted);
    s.fallback_requested = counters_.sum(C::kFallbackRequested);
    return s;
  }

  /// The retry decision after a failed attempt (see the top of this file). Public so
  /// that tests and tuning can see it.
  static constexpr bool worth_retrying(HtmStatus status) noexcept {
    if (status.is_explicit()) return status.code() == kLockBusyAbortCode;
    return status.may_retry() || status.is_conflict();
  }

 private:
  template <ElisionModeTag, ElisionFallback, class>
  friend class ElidedGuard;

  /// Listing 1.1. Returns the path taken; locks held on return: see the top.
  template <ElisionModeTag Mode>
  ElisionPath acquire() noexcept {
    using C = detail::ElisionCounter;
    std::uint32_t retries = 0;  ///< Listing 1.1 `retries`
    // Bounded: each pass either returns or increments `retries`, and the pass that
    // finds retries == kMaxTransactionRetries returns; so at most
    // 1 + kMaxTransactionRetries transaction attempts.
    for (;;) {
      // speculative_path (lines 16-19).
      HtmStatus status = htm_.begin();
      if (status.is_started()) {
        // First read inside the transaction: the fallback lock word (line 18).
        if (!fallback_.is_locked()) return ElisionPath::kTransaction;
        // Held: abort before anything is written. Hardware: does not return; begin()
        // above returns again with this status. Emulated: returns it.
        status = htm_.template abort<kLockBusyAbortCode>();
      }
      // fallback_path (lines 21-26). Outside any transaction of htm_ from here on, so
      // counting is safe.
      if (status.is_not_started()) return acquire_fallback(Mode::kMode, C::kFallbackNotStarted);
      if (status.is_explicit() && status.code() == kLockBusyAbortCode) count(C::kLockBusyAborts);
      if (!worth_retrying(status)) return acquire_fallback(Mode::kMode, C::kFallbackNoRetry);
      if (retries == kMaxTransactionRetries) {
        return acquire_fallback(Mode::kMode, C::kFallbackRetriesExhausted);
      }
      ++retries;  // line 22
      count(C::kRetries);
      wait_until_unlocked();  // lines 23-24
    }
  }

  /// Listing 1.1 lines 28-36. Returns with the fallback lock held.
  ElisionPath acquire_fallback(ElisionMode mode, detail::ElisionCounter reason) noexcept {
    count(reason);
    fallback_.lock();
    // Emulated transactions that read the lock word before the lock() above are not
    // aborted by hardware: wait them out (no-op for hardware and for backends that
    // never start a transaction).
    htm_.drain_transactions();
    // line 36. relaxed: diagnostics only; the fallback lock orders the critical sections.
    fallback_mode_.store(mode, std::memory_order_relaxed);
    return ElisionPath::kFallback;
  }

  ElisionPath acquire_without_elision(ElisionMode mode) noexcept {
    return acquire_fallback(mode, detail::ElisionCounter::kFallbackRequested);
  }

  /// Listing 1.2. REQUIRES: `path` is what acquire*() returned to this thread's guard.
  /// Returns with no lock held and no transaction open.
  void release(ElisionPath path, ElisionMode mode) noexcept {
    using C = detail::ElisionCounter;
    if (path == ElisionPath::kTransaction) {
      assert(htm_.in_transaction() && "Listing 1.2 line 5: XTEST must agree");
      htm_.end();  // line 6. Hardware: an abort here resumes inside acquire().
      count(mode == ElisionMode::kRead ? C::kTransactionalReads : C::kTransactionalWrites);
    } else {
      fallback_.unlock();  // lines 9-21
      count(mode == ElisionMode::kRead ? C::kFallbackReads : C::kFallbackWrites);
    }
  }

  /// Listing 1.1 lines 23-24. Documented spin: lasts as long as fallback holders hold
  /// the lock (and waiters wait for it).
  void wait_until_unlocked() const noexcept {
    typename Sync::SpinWait spin;
    while (fallback_.is_locked()) spin.wait();
  }

  void count(detail::ElisionCounter c) noexcept { counters_.add(c); }

  Fallback fallback_;
  /// The seed's `mode` (locklib_mutex_t, Listing 1.1 line 8): written by fallback
  /// holders, on its own line so that it does not share one with read-mostly state.
  alignas(detail::kCacheLineSize) std::atomic<ElisionMode> fallback_mode_{ElisionMode::kWrite};
  Htm htm_;
  detail::ShardedCounters<static_cast<std::size_t>(detail::ElisionCounter::kCount)> counters_;
};

/// Scoped RAII holder of an ElidedLock in one mode. The constructor runs Listing 1.1
/// (transaction, or fallback lock), the destructor Listing 1.2 (commit, or release).
/// Not copyable or movable. Locks held on each return: see the top of this file.
///
///   ElidedGuard<WriteMode> guard(lock);               // elide, fall back if needed
///   ElidedGuard<ReadMode> guard(lock);
///   ElidedGuard<WriteMode> guard(lock, kNoElision);   // fallback lock directly
template <ElisionModeTag Mode, ElisionFallback Fallback = McsLock, class Sync = StdSync>
class ElidedGuard {
 public:
  /// Takes the lock in Mode: a transaction if one starts, else the fallback lock.
  explicit ElidedGuard(BasicElidedLock<Fallback, Sync>& lock) noexcept
      : lock_(lock), path_(lock.template acquire<Mode>()) {}
  /// Takes the fallback lock in Mode directly, without a transaction.
  ElidedGuard(BasicElidedLock<Fallback, Sync>& lock, NoElision) noexcept
      : lock_(lock), path_(lock.acquire_without_elision(Mode::kMode)) {}

  ElidedGuard(const ElidedGuard&) = delete;
  ElidedGuard& operator=(const ElidedGuard&) = delete;

  ~ElidedGuard() { lock_.release(path_, Mode::kMode); }

  /// How the guard holds the lock.
  ElisionPath path() const noexcept { return path_; }
  /// Whether the guard runs inside a transaction (no lock held).
  bool in_transaction() const noexcept { return path_ == ElisionPath::kTransaction; }
  /// The guard's mode.
  static constexpr ElisionMode mode() noexcept { return Mode::kMode; }

 private:
  BasicElidedLock<Fallback, Sync>& lock_;
  const ElisionPath path_;
};

/// The production lock: sync::Htm (RTM where the CPU has it) and std::atomic.
template <ElisionFallback Fallback = McsLock>
using ElidedLock = BasicElidedLock<Fallback, StdSync>;

/// A read-mode guard of an ElidedLock.
template <ElisionFallback Fallback = McsLock>
using ElidedReadGuard = ElidedGuard<ReadMode, Fallback>;
/// A write-mode guard of an ElidedLock.
template <ElisionFallback Fallback = McsLock>
using ElidedWriteGuard = ElidedGuard<WriteMode, Fallback>;

}  // namespace cuckoo::sync
