// Hardware transactional memory behind one interface, with backends chosen at run time.
//
// ElidedLock (elided_lock.hpp) runs critical sections as transactions. Real RTM exists
// only on some x86 CPUs, cannot run under ThreadSanitizer, and aborts when it likes;
// to test every path of the elision on any machine, the transaction primitive is an
// object, Htm, whose backend a copyable HtmPolicy picks per instance:
//
//   kHardware         Intel RTM (XBEGIN/XEND/XABORT/XTEST), used only when
//                     hardware_rtm_available(); otherwise every begin() reports
//                     "not started" (it degrades to kDisabled, it never executes an RTM
//                     instruction, which would fault).
//   kDisabled         begin() always reports "not started": callers take their fallback.
//   kAlwaysAbort      begin() always returns the abort status policy.forced_abort and
//                     never starts a transaction.
//   kScripted         begin() number n (0-based, counted per Htm object) returns
//                     policy.script[n]; an entry that is HtmStatus::make_started()
//                     starts an emulated transaction (see kSerialEmulation). Past the end
//                     of the script, ScriptEnd::kSucceed starts every later transaction,
//                     ScriptEnd::kRepeat replays the script from its start.
//   kRandom           begin() number n aborts with probability policy.abort_probability,
//                     decided by a hash of (policy.seed, n) alone, so a run is
//                     reproducible from the seed (exactly so single-threaded; with threads
//                     the same decision sequence is dealt out in call order). The abort
//                     reason is drawn from kRandomAbortReasons. Otherwise it starts an
//                     emulated transaction.
//   kSerialEmulation  begin() takes this object's emulation mutex and reports "started";
//                     end() releases it (commit); abort() releases it and returns the
//                     explicit-abort status. Transactions of one Htm therefore run one at
//                     a time: a correct, if slow, stand-in that makes the transactional
//                     path of ElidedLock run for real on machines without RTM.
//
// Emulation limits (kSerialEmulation, and the transactions that kScripted / kRandom
// start): writes made inside an emulated transaction are NOT rolled back by abort(),
// and an emulated transaction cannot abort asynchronously (no conflict or capacity
// aborts once started). So an emulated transaction may abort only before its first
// write. That is exactly ElidedLock's discipline: it reads the fallback lock word first,
// aborts if the lock is held, and only then lets the critical section change state.
// Injected aborts (kAlwaysAbort, kScripted, kRandom) all happen at begin(), before any
// user code runs. A hardware transaction, by contrast, can abort anywhere and is rolled
// back: control returns from begin() a second time with the abort status.
//
// The emulation mutex is per Htm object, not process-wide: ElidedLock owns one Htm per
// lock, so emulated transactions on different locks run in parallel and nesting two
// elided locks under emulation has the same deadlock rules as nesting two plain locks.
//
// Conflicts with the fallback lock: a hardware transaction that has read a lock word is
// aborted by the CPU when another thread writes it. An emulated transaction is not, so
// whoever acquires the fallback lock must call drain_transactions() after the acquiring
// write; it waits until every emulated transaction in flight (which may have read the
// word as free) has ended. Together with "begin, then read the word, then abort if held"
// this gives the same exclusion as hardware conflict detection.
//
// Thread safety: Htm may be used by any number of threads at once; each thread has at
// most one transaction open per Htm object (a transaction belongs to the thread that
// began it). HtmPolicy and HtmStatus are plain values. Counters (stats()) are relaxed
// statistics: exact once the counting threads have been joined.
#pragma once

#include <atomic>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "cuckoo/error.hpp"
#include "cuckoo/sync/detail/counters.hpp"
#include "cuckoo/sync/detail/rtm.hpp"

namespace cuckoo::sync {

/// Which implementation runs an elided lock's transactions (HtmPolicy::backend).
enum class HtmBackend : std::uint8_t {
  kHardware,         ///< real RTM (never executes an RTM instruction on a CPU without it)
  kDisabled,         ///< never starts a transaction: the fallback lock only
  kAlwaysAbort,      ///< every begin() aborts with the policy's status
  kScripted,         ///< begin() aborts with the policy's script of statuses
  kRandom,           ///< begin() aborts with the policy's probability, reproducibly
  kSerialEmulation,  ///< transactions emulated under a mutex
};

/// The backend's name, as reports print it ("hardware", "disabled", ...).
constexpr std::string_view to_string(HtmBackend b) noexcept {
  switch (b) {
    case HtmBackend::kHardware: return "hardware";
    case HtmBackend::kDisabled: return "disabled";
    case HtmBackend::kAlwaysAbort: return "always_abort";
    case HtmBackend::kScripted: return "scripted";
    case HtmBackend::kRandom: return "random";
    case HtmBackend::kSerialEmulation: return "serial_emulation";
  }
  return "unknown";
}

/// True iff this build contains the RTM code (not CUCKOO_NO_HARDWARE_RTM, x86) and the
/// CPU enumerates RTM (CPUID.(EAX=7,ECX=0):EBX[11]) without RTM_ALWAYS_ABORT
/// (CPUID.(EAX=7,ECX=0):EDX[11]). Only then does the kHardware backend execute RTM
/// instructions. Cached after the first call; thread-safe.
inline bool hardware_rtm_available() noexcept {
  return detail::kRtmCompiled && detail::cpuid_reports_rtm();
}

/// The outcome of Htm::begin() and Htm::abort(): RTM's EAX encoding, plus one bit of our
/// own (kNotStarted) that RTM never sets (bits 6..23 are reserved).
class HtmStatus {
 public:
  static constexpr std::uint32_t kStartedValue = detail::rtm_bits::kStarted;  ///< begin() started
  static constexpr std::uint32_t kExplicit = detail::rtm_bits::kExplicit;  ///< abort(code)
  static constexpr std::uint32_t kRetry = detail::rtm_bits::kRetry;  ///< may succeed on retry
  static constexpr std::uint32_t kConflict = detail::rtm_bits::kConflict;  ///< data conflict
  static constexpr std::uint32_t kCapacity = detail::rtm_bits::kCapacity;  ///< footprint
  static constexpr std::uint32_t kDebug = detail::rtm_bits::kDebug;    ///< debug breakpoint
  static constexpr std::uint32_t kNested = detail::rtm_bits::kNested;  ///< in a nested txn
  static constexpr std::uint32_t kNotStarted = 1u << 16;  ///< ours: backend did not try
  static constexpr std::uint32_t kCodeShift = detail::rtm_bits::kCodeShift;  ///< abort code's bits
  /// Every abort-reason bit.
  static constexpr std::uint32_t kReasonBits =
      kExplicit | kRetry | kConflict | kCapacity | kDebug | kNested;

  /// Raw 0: an abort that gives no reason (interrupt, system call, page fault, an
  /// instruction that always aborts).
  constexpr HtmStatus() noexcept = default;
  /// A status from its raw RTM encoding.
  constexpr explicit HtmStatus(std::uint32_t raw) noexcept : raw_(raw) {}

  /// The status of a transaction that started.
  static constexpr HtmStatus make_started() noexcept { return HtmStatus(kStartedValue); }
  /// The status of a begin() that did not try (kDisabled, or no RTM).
  static constexpr HtmStatus make_not_started() noexcept { return HtmStatus(kNotStarted); }
  /// An explicit abort with the given code, as abort(code) gives.
  static constexpr HtmStatus make_explicit(std::uint8_t code) noexcept {
    return HtmStatus(kExplicit | (std::uint32_t{code} << kCodeShift));
  }
  /// A conflict abort, with the retry bit when `retry`.
  static constexpr HtmStatus make_conflict(bool retry = true) noexcept {
    return HtmStatus(kConflict | (retry ? kRetry : 0u));
  }
  /// A capacity abort.
  static constexpr HtmStatus make_capacity() noexcept { return HtmStatus(kCapacity); }

  /// The raw encoding.
  constexpr std::uint32_t raw() const noexcept { return raw_; }
  /// A transaction is running on this thread.
  constexpr bool is_started() const noexcept { return raw_ == kStartedValue; }
  /// The backend did not try (kDisabled, or kHardware without RTM): no transaction ran.
  constexpr bool is_not_started() const noexcept { return !is_started() && has(kNotStarted); }
  /// A transaction was attempted and aborted (or an abort was injected at begin).
  constexpr bool is_abort() const noexcept { return !is_started() && !has(kNotStarted); }
  /// An abort by abort(code).
  constexpr bool is_explicit() const noexcept { return is_abort() && has(kExplicit); }
  /// An abort after which a retry may succeed.
  constexpr bool may_retry() const noexcept { return is_abort() && has(kRetry); }
  /// An abort by a data conflict with another thread.
  constexpr bool is_conflict() const noexcept { return is_abort() && has(kConflict); }
  /// An abort because the transaction's footprint was too large.
  constexpr bool is_capacity() const noexcept { return is_abort() && has(kCapacity); }
  /// An abort at a debug breakpoint.
  constexpr bool is_debug() const noexcept { return is_abort() && has(kDebug); }
  /// An abort inside a nested transaction.
  constexpr bool is_nested() const noexcept { return is_abort() && has(kNested); }
  /// The 8-bit code given to abort(); meaningful when is_explicit().
  constexpr std::uint8_t code() const noexcept {
    return static_cast<std::uint8_t>(raw_ >> kCodeShift);
  }

  friend constexpr bool operator==(HtmStatus, HtmStatus) = default;

  /// "started", "not_started", or "abort(explicit code=1 retry conflict ...)".
  std::string to_string() const {
    if (is_started()) return "started";
    if (is_not_started()) return "not_started";
    std::string out = "abort(";
    if (has(kExplicit)) out += "explicit code=" + std::to_string(code()) + " ";
    if (has(kRetry)) out += "retry ";
    if (has(kConflict)) out += "conflict ";
    if (has(kCapacity)) out += "capacity ";
    if (has(kDebug)) out += "debug ";
    if (has(kNested)) out += "nested ";
    if ((raw_ & kReasonBits) == 0) out += "other ";
    out.back() = ')';
    return out;
  }

 private:
  constexpr bool has(std::uint32_t bits) const noexcept { return (raw_ & bits) != 0; }
  std::uint32_t raw_ = 0;
};

/// What kScripted does once the script is used up.
enum class ScriptEnd : std::uint8_t {
  kSucceed,  ///< every later begin() starts (an emulated transaction)
  kRepeat,   ///< the script is replayed from its first entry
};

/// The reasons a kRandom abort reports, drawn uniformly: a transient conflict that
/// says "retry", one that does not, a bare retry hint, a capacity overflow, and an
/// abort with no reason (interrupt). They exercise every retry decision of ElidedLock.
inline constexpr HtmStatus kRandomAbortReasons[] = {
    HtmStatus(HtmStatus::kConflict | HtmStatus::kRetry),
    HtmStatus(HtmStatus::kConflict),
    HtmStatus(HtmStatus::kRetry),
    HtmStatus(HtmStatus::kCapacity),
    HtmStatus(0),
};

/// Which backend an Htm uses, and its parameters. Copyable; build it with the named
/// constructors. Validated by Htm's constructor (ConfigError names the bad field).
struct HtmPolicy {
  HtmBackend backend = HtmBackend::kDisabled;  ///< which backend runs the transactions
  /// kAlwaysAbort: the status of every begin(). Must be an abort (not started, not
  /// kNotStarted).
  HtmStatus forced_abort = HtmStatus::make_conflict(/*retry=*/true);
  /// kScripted: the statuses of begin() number 0, 1, ...; then script_end.
  std::vector<HtmStatus> script;
  ScriptEnd script_end = ScriptEnd::kSucceed;  ///< kScripted: what follows the script
  /// kRandom: probability in [0, 1] that a begin() aborts, and the seed of the decisions.
  double abort_probability = 0.0;
  std::uint64_t seed = 0;  ///< kRandom: the seed of the abort decisions

  /// kHardware where hardware_rtm_available(), kDisabled elsewhere. The default of
  /// ElidedLock.
  static HtmPolicy automatic() {
    return hardware_rtm_available() ? hardware() : disabled();
  }
  /// Real RTM, explicitly; never executes an RTM instruction on a CPU without it.
  static HtmPolicy hardware() { return with_backend(HtmBackend::kHardware); }
  /// Never starts a transaction: the fallback lock only.
  static HtmPolicy disabled() { return with_backend(HtmBackend::kDisabled); }
  /// Emulates transactions under a mutex, so the transactional path runs for real without
  /// RTM.
  static HtmPolicy serial_emulation() { return with_backend(HtmBackend::kSerialEmulation); }
  /// Every transaction aborts with `status`: exercises retry and fallback.
  static HtmPolicy always_abort(HtmStatus status = HtmStatus::make_conflict(true)) {
    HtmPolicy p = with_backend(HtmBackend::kAlwaysAbort);
    p.forced_abort = status;
    return p;
  }
  /// The begin() calls abort with the given statuses in turn, then as `end` says.
  static HtmPolicy scripted(std::vector<HtmStatus> statuses,
                            ScriptEnd end = ScriptEnd::kSucceed) {
    HtmPolicy p = with_backend(HtmBackend::kScripted);
    p.script = std::move(statuses);
    p.script_end = end;
    return p;
  }
  /// Each begin() aborts with the given probability, reproducibly from the seed.
  static HtmPolicy random(double probability, std::uint64_t random_seed) {
    HtmPolicy p = with_backend(HtmBackend::kRandom);
    p.abort_probability = probability;
    p.seed = random_seed;
    return p;
  }

  /// Throws ConfigError naming the field when the policy cannot be used.
  void validate() const {
    switch (backend) {
      case HtmBackend::kHardware:
      case HtmBackend::kDisabled:
      case HtmBackend::kSerialEmulation:
        return;
      case HtmBackend::kAlwaysAbort:
        if (!forced_abort.is_abort()) {
          throw ConfigError("forced_abort", "must be an abort status, got " +
                                                forced_abort.to_string());
        }
        return;
      case HtmBackend::kScripted:
        if (script.empty() && script_end == ScriptEnd::kRepeat) {
          throw ConfigError("script", "must not be empty when script_end is kRepeat");
        }
        return;
      case HtmBackend::kRandom:
        // The negated form also rejects NaN.
        if (!(abort_probability >= 0.0 && abort_probability <= 1.0)) {
          throw ConfigError("abort_probability",
                            "must be in [0, 1], got " + std::to_string(abort_probability));
        }
        return;
    }
    throw ConfigError("backend", "unknown HtmBackend value " +
                                     std::to_string(static_cast<unsigned>(backend)));
  }

  /// One line for failure messages: "random(p=0.300000, seed=42)".
  std::string describe() const {
    std::string out(to_string(backend));
    switch (backend) {
      case HtmBackend::kAlwaysAbort:
        out += "(" + forced_abort.to_string() + ")";
        break;
      case HtmBackend::kScripted:
        out += "(" + std::to_string(script.size()) + " entries, then " +
               (script_end == ScriptEnd::kSucceed ? "succeed" : "repeat") + ")";
        break;
      case HtmBackend::kRandom:
        out += "(p=" + std::to_string(abort_probability) + ", seed=" + std::to_string(seed) +
               ")";
        break;
      default:
        break;
    }
    return out;
  }

 private:
  static HtmPolicy with_backend(HtmBackend b) {
    HtmPolicy p;
    p.backend = b;
    return p;
  }
};

/// A snapshot of an Htm's counters. Per-reason abort counts overlap (one abort can be
/// "conflict" and "retry"); aborts is the exact total. Once no thread is inside begin()
/// .. end()/abort():
///   attempts == started + not_started + injected_aborts
///   started  == commits + (aborts - injected_aborts)
struct HtmStats {
  std::uint64_t attempts = 0;         ///< begin() calls
  std::uint64_t started = 0;          ///< transactions that ran (hardware: every XBEGIN)
  std::uint64_t commits = 0;          ///< end() calls
  std::uint64_t not_started = 0;      ///< begin() that did not try (kDisabled, no RTM)
  std::uint64_t aborts = 0;           ///< abort statuses returned, all reasons
  std::uint64_t injected_aborts = 0;  ///< of those, made up at begin() by a test backend
  std::uint64_t abort_explicit = 0;   ///< aborts with the explicit bit (abort(code))
  std::uint64_t abort_retry = 0;      ///< aborts with the retry bit
  std::uint64_t abort_conflict = 0;   ///< aborts with the conflict bit
  std::uint64_t abort_capacity = 0;   ///< aborts with the capacity bit
  std::uint64_t abort_debug = 0;      ///< aborts with the debug bit
  std::uint64_t abort_nested = 0;     ///< aborts with the nested bit
  std::uint64_t abort_other = 0;  ///< no reason bit at all
};

namespace detail {

// splitmix64's finalizer: a bijective 64-bit mixer. Used for kRandom's decisions.
constexpr std::uint64_t htm_mix64(std::uint64_t x) noexcept {
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

enum class HtmCounter : std::size_t {
  kAttempts,
  kStarted,
  kCommits,
  kNotStarted,
  kAborts,
  kInjectedAborts,
  kAbortExplicit,
  kAbortRetry,
  kAbortConflict,
  kAbortCapacity,
  kAbortDebug,
  kAbortNested,
  kAbortOther,
  kCount,
};

}  // namespace detail

/// One transaction primitive with the backend of its policy. Not copyable or movable
/// (it owns the emulation mutex); share it by reference.
class Htm {
 public:
  /// Throws ConfigError if policy.validate() does.
  explicit Htm(HtmPolicy policy = HtmPolicy::automatic())
      : policy_((policy.validate(), std::move(policy))),
        hardware_usable_(policy_.backend == HtmBackend::kHardware &&
                         hardware_rtm_available()) {}

  Htm(const Htm&) = delete;
  Htm& operator=(const Htm&) = delete;

  /// The decision of kRandom for begin() number `attempt`: make_started() or one of
  /// kRandomAbortReasons. A pure function of its arguments (tests replay it).
  static HtmStatus random_decision(std::uint64_t seed, double abort_probability,
                                   std::uint64_t attempt) noexcept {
    const std::uint64_t bits =
        detail::htm_mix64(seed ^ detail::htm_mix64(attempt + 0x9e3779b97f4a7c15ULL));
    // The top 53 bits as a uniform double in [0, 1).
    const double uniform = static_cast<double>(bits >> 11) * 0x1.0p-53;
    if (!(uniform < abort_probability)) return HtmStatus::make_started();
    // The reason from a second mix, independent of the bits that made the decision.
    constexpr std::size_t kReasons = std::size(kRandomAbortReasons);
    return kRandomAbortReasons[detail::htm_mix64(bits) % kReasons];
  }

  /// What begin() number n (counted per Htm) is dealt under a kScripted or kRandom
  /// policy: an injected status, or make_started() (start an emulated transaction). A
  /// pure
  /// function of its arguments; the checking policy's Htm deals the same way.
  static HtmStatus dealt(const HtmPolicy& p, std::uint64_t n) noexcept {
    if (p.backend == HtmBackend::kRandom) return random_decision(p.seed, p.abort_probability, n);
    if (n < p.script.size()) return p.script[n];
    if (p.script_end == ScriptEnd::kRepeat) return p.script[n % p.script.size()];
    return HtmStatus::make_started();
  }

  /// Tries to start a transaction on the calling thread.
  ///   is_started():     a transaction is open; finish it with end() or abort().
  ///                     Hardware: if it aborts later, control comes back out of this
  ///                     call a second time, with the abort status, and every write
  ///                     since is undone.
  ///   is_not_started(): the backend does not do transactions; nothing is open.
  ///   is_abort():       nothing is open; the status says why.
  /// REQUIRES: no emulated transaction of this Htm open on this thread (emulated
  /// transactions do not nest). Hardware transactions nest flat (an abort anywhere
  /// aborts the outermost); begin() inside an open hardware transaction counts its
  /// statistics inside that transaction, so they commit or roll back with it.
  HtmStatus begin() noexcept {
    count(detail::HtmCounter::kAttempts);
    switch (policy_.backend) {
      case HtmBackend::kHardware:
        return begin_hardware();
      case HtmBackend::kDisabled:
        count(detail::HtmCounter::kNotStarted);
        return HtmStatus::make_not_started();
      case HtmBackend::kAlwaysAbort:
        return inject(policy_.forced_abort);
      case HtmBackend::kScripted:
      case HtmBackend::kRandom:
        return begin_dealt();
      case HtmBackend::kSerialEmulation:
        return begin_emulated();
    }
    count(detail::HtmCounter::kNotStarted);
    return HtmStatus::make_not_started();
  }

  /// Commits the calling thread's open transaction.
  /// REQUIRES: begin() returned is_started() on this thread and the transaction has not
  /// ended since.
  void end() noexcept {
    if (policy_.backend == HtmBackend::kHardware) {
      assert(hardware_usable_);
      detail::rtm_end();
    } else {
      end_emulated();
    }
    count(detail::HtmCounter::kCommits);
  }

  /// Aborts the calling thread's open transaction with an 8-bit code.
  ///   Hardware: does not return here: everything since begin() is rolled back and
  ///   begin() returns (again) with make_explicit(Code) (plus kNested if nested).
  ///   Emulated: releases the emulation mutex and returns make_explicit(Code). Writes
  ///   made since begin() stay: abort only before the first write (see the top).
  /// REQUIRES: as for end().
  template <std::uint8_t Code>
  HtmStatus abort() noexcept {
    if (policy_.backend == HtmBackend::kHardware) {
      assert(hardware_usable_);
      detail::rtm_abort<Code>();
      // Reached only outside a transaction, where XABORT is a no-op: a broken
      // precondition. Report the abort the caller asked for.
      return HtmStatus::make_explicit(Code);
    }
    end_emulated();
    const HtmStatus status = HtmStatus::make_explicit(Code);
    record_abort(status);
    return status;
  }

  /// XTEST: whether the calling thread has a transaction of this Htm open (hardware:
  /// any RTM transaction, the CPU cannot tell whose).
  bool in_transaction() const noexcept {
    if (policy_.backend == HtmBackend::kHardware) {
      return hardware_usable_ && detail::rtm_test();
    }
    // relaxed: only this thread ever stores its own id here, so reading it back needs
    // no ordering; another thread's id or the empty id both mean "not mine".
    return emulation_owner_.load(std::memory_order_relaxed) == std::this_thread::get_id();
  }

  /// Call right after making the fallback lock word "held" (ElidedLock's fallback
  /// path). Returns once every emulated transaction that may have read the word as free
  /// has ended; transactions beginning later read it as held. Hardware and the backends
  /// that never start a transaction need nothing: the CPU aborts hardware transactions
  /// that read the word when it is written.
  /// REQUIRES: the calling thread has no emulated transaction of this Htm open.
  void drain_transactions() noexcept {
    if (!emulates()) return;
    // Taking the mutex waits out the one emulated transaction that may be running;
    // the mutex's acquire/release also orders our lock-word write before the lock-word
    // read of every later emulated transaction.
    const std::lock_guard<std::mutex> drained(emulation_mutex_);
  }

  /// Declares an object the critical sections write as plain memory (not through
  /// atomics). Nothing to do here: a hardware transaction rolls back every write, and
  /// the emulated transactions of this class never abort after their first write (see
  /// the top). The checking policy's Htm copies the object when a transaction starts
  /// and restores it when the transaction aborts.
  template <class T>
  void protect(T& /*object*/) noexcept {}

  /// The policy this primitive was built with.
  const HtmPolicy& policy() const noexcept { return policy_; }
  /// The policy's backend.
  HtmBackend backend() const noexcept { return policy_.backend; }
  /// kHardware on a machine (or build) without RTM behaves as kDisabled.
  HtmBackend effective_backend() const noexcept {
    return policy_.backend == HtmBackend::kHardware && !hardware_usable_
               ? HtmBackend::kDisabled
               : policy_.backend;
  }

  /// The counters of begin(), commits and aborts by reason.
  HtmStats stats() const noexcept {
    using C = detail::HtmCounter;
    HtmStats s;
    s.attempts = counters_.sum(C::kAttempts);
    s.started = counters_.sum(C::kStarted);
    s.commits = counters_.sum(C::kCommits);
    s.not_started = counters_.sum(C::kNotStarted);
    s.aborts = counters_.sum(C::kAborts);
    s.injected_aborts = counters_.sum(C::kInjectedAborts);
    s.abort_explicit = counters_.sum(C::kAbortExplicit);
    s.abort_retry = counters_.sum(C::kAbortRetry);
    s.abort_conflict = counters_.sum(C::kAbortConflict);
    s.abort_capacity = counters_.sum(C::kAbortCapacity);
    s.abort_debug = counters_.sum(C::kAbortDebug);
    s.abort_nested = counters_.sum(C::kAbortNested);
    s.abort_other = counters_.sum(C::kAbortOther);
    return s;
  }

 private:
  bool emulates() const noexcept {
    return policy_.backend == HtmBackend::kSerialEmulation ||
           policy_.backend == HtmBackend::kScripted || policy_.backend == HtmBackend::kRandom;
  }

  void count(detail::HtmCounter c) noexcept { counters_.add(c); }

  void record_abort(HtmStatus s) noexcept {
    using C = detail::HtmCounter;
    count(C::kAborts);
    const std::uint32_t raw = s.raw();
    if ((raw & HtmStatus::kExplicit) != 0) count(C::kAbortExplicit);
    if ((raw & HtmStatus::kRetry) != 0) count(C::kAbortRetry);
    if ((raw & HtmStatus::kConflict) != 0) count(C::kAbortConflict);
    if ((raw & HtmStatus::kCapacity) != 0) count(C::kAbortCapacity);
    if ((raw & HtmStatus::kDebug) != 0) count(C::kAbortDebug);
    if ((raw & HtmStatus::kNested) != 0) count(C::kAbortNested);
    if ((raw & HtmStatus::kReasonBits) == 0) count(C::kAbortOther);
  }

  /// An abort (or not-started) status made up at begin(): no transaction ran.
  HtmStatus inject(HtmStatus s) noexcept {
    if (s.is_started()) return begin_emulated();
    if (s.is_not_started()) {
      count(detail::HtmCounter::kNotStarted);
      return s;
    }
    count(detail::HtmCounter::kInjectedAborts);
    record_abort(s);
    return s;
  }

  HtmStatus begin_hardware() noexcept {
    if (!hardware_usable_) {
      count(detail::HtmCounter::kNotStarted);
      return HtmStatus::make_not_started();
    }
    // Counted before XBEGIN, outside the transaction: every XBEGIN starts one, and
    // its end is counted as a commit (end()) or as the abort status below.
    count(detail::HtmCounter::kStarted);
    const HtmStatus s(detail::rtm_begin());
    if (s.is_started()) return s;  // inside the transaction: count nothing
    record_abort(s);
    return s;
  }

  /// kScripted and kRandom.
  HtmStatus begin_dealt() noexcept {
    // relaxed: the cursor only deals out begin numbers; each call gets a distinct one.
    const std::uint64_t n = cursor_.fetch_add(1, std::memory_order_relaxed);
    return inject(dealt(policy_, n));
  }

  HtmStatus begin_emulated() noexcept {
    assert(!in_transaction() && "emulated transactions of one Htm do not nest");
    // The mutex's lock (acquire) orders this transaction after the previous one and
    // after every drain_transactions() that completed before it.
    emulation_mutex_.lock();
    emulation_owner_.store(std::this_thread::get_id(), std::memory_order_relaxed);
    count(detail::HtmCounter::kStarted);
    return HtmStatus::make_started();
  }

  void end_emulated() noexcept {
    assert(in_transaction() && "end()/abort() without an open transaction");
    emulation_owner_.store(std::thread::id(), std::memory_order_relaxed);
    // unlock (release) publishes the transaction's writes to the next one.
    emulation_mutex_.unlock();
  }

  const HtmPolicy policy_;
  const bool hardware_usable_;
  /// kScripted / kRandom: number of begin() calls so far.
  std::atomic<std::uint64_t> cursor_{0};
  std::mutex emulation_mutex_;
  std::atomic<std::thread::id> emulation_owner_{};
  detail::ShardedCounters<static_cast<std::size_t>(detail::HtmCounter::kCount)> counters_;
};

}  // namespace cuckoo::sync
