// Deterministic interleaving exploration: runs the N logical threads of a small scenario
// on one OS thread, as fibers, and decides at every scheduling point which thread takes
// the next step, which store each of its loads reads, and whether a thread stalls. The
// code under test is the engine's own, compiled against explore::Sync (sync.hpp), whose
// every atomic access and spin is such a point.
//
// Steps. One step = one atomic access (load, store, exchange, CAS, fetch-add), performed
// as one indivisible action; a seq_cst fence is a step of its own, other fences are not
// (they touch only their own thread's state). A spin (Sync::SpinWait::wait, "wait until
// another thread writes") blocks its thread until some thread writes an atomic, unless
// one of the thread's loads since its previous spin read an older store than the newest
// (it may see the newer one on its next try); a scenario where every unfinished thread
// is blocked has deadlocked (or livelocked in a spin), and one that exceeds
// Options::max_steps has run away; both are failures.
//
// Memory model. Interleavings are not all: the atomics follow the C++ memory model for
// the orders they are given, in the way of CDSChecker, GenMC and loom.
//   - Each atomic location keeps its modification order: its stores in the order they
//     executed (a store is never placed before one that already executed), each with
//     its value, its thread and that thread's clock, and what an acquire that reads it
//     synchronizes with. Each logical thread has a vector clock; happens-before is
//     sequenced-before plus synchronizes-with, transitively. The scenario's setup
//     happens-before every thread (the values it left are every location's first
//     store), and every thread happens-before the check. An explore atomic constructed
//     during the execution starts a new location.
//   - A relaxed or acquire load outside a transaction may read any store of its location
//     that is not older than the newest store that happens-before it, nor older than a
//     store that a load or store of that location happening-before it (its own earlier
//     ones included) read or wrote (write-read, read-read coherence). Which one it reads
//     is a choice of the strategy, recorded in the schedule and counted: a "stale read"
//     is one that reads an older store than the newest. seq_cst loads, every
//     read-modify-write (exchange, fetch_add/sub, CAS, also a CAS that fails) and every
//     load inside a transaction read the newest store.
//   - Synchronization: an acquire load or RMW that reads a release store synchronizes
//     with it; a release sequence continues through RMWs (of any order), not through
//     plain stores (C++20). A release fence makes the thread's later stores release what
//     preceded the fence; an acquire fence makes what the thread's earlier relaxed loads
//     read synchronize with it. seq_cst fences are totally ordered (in execution order)
//     and each synchronizes with every earlier one and with every earlier seq_cst store
//     or RMW (stronger than the standard asks, never weaker).
//   - Plain (non-atomic) shared data declared with explore::Plain<T> (plain.hpp) is
//     checked for data races with the clocks: two accesses of one Plain, at least one a
//     write, of different threads, not ordered by happens-before, fail the execution
//     with "data race on NAME", whatever order they ran in. This is how a missing
//     release in a lock hand-off shows, in every schedule that hands over: the next
//     holder's access to the protected Plain data races with the previous holder's.
//     Plain accesses are not scheduling points.
//   - Synchronization the model does not see orders nothing: a std::atomic that is not
//     an explore atomic (a history recorder's stamp counter, say) is plain memory to
//     it. A linearizability check reads real-time order off such stamps: its scenario
//     marks them with real_time_point() (below), or keeps stale reads off.
//   - Not modelled: a store placed in modification order before one that already
//     executed (the 2+2W and similar outcomes); loads reading stores "from the future"
//     (load buffering, out-of-thin-air); seq_cst loads reading anything but the newest
//     store; consume (treated as acquire); races on an atomic's initialization or on
//     memory that is neither an explore atomic nor a Plain; compare_exchange_weak's
//     spurious failures. A load may read one of the last 32 stores of its location at
//     least (older history is dropped). Mixed-size or overlapping atomics are separate
//     locations. Transactions: see below.
//
// Transactions (explore::Htm, htm.hpp, the checking policy's HTM). An emulated
// transaction behaves as an RTM transaction with strong isolation: between its begin and
// its commit (a scheduling point of its own) every atomic and Plain access of its thread
// joins its read or write set, and another thread's access that conflicts with those
// sets (a write to anything it read or wrote, a read of anything it wrote;
// read-modify-writes count as writes, as locked instructions do) aborts it at once: every
// atomic it wrote gets its value from before the transaction back (its stores leave the
// modification order), every Plain it wrote gets its old value and its race-checking
// history back, every object declared with protect() is restored to its copy from the
// transaction's first access, its thread's clock is what it was at begin, and when its
// thread next runs, its stack and registers are restored and begin() returns a second
// time with the abort status (kConflict | kRetry). Besides, at every scheduling point
// inside a transaction the strategies may choose to abort it there (status 0: an abort
// without a reason, as an interrupt gives), written "2a" in a schedule ("abort thread
// 2's transaction, then run thread 2"); such an abort counts as a preemption. Memory
// model inside: loads read the newest store and synchronize only as their orders say
// (the C++ view: the hardware's stronger ordering of plain loads is not assumed); a
// committed transaction is atomic (of its stores to one location only the last stays in
// the modification order, so no load ever reads a value from inside it) and
// happens-before every later access that conflicts with it (a write to a location it
// read or wrote, a read of one it wrote), as the hardware's conflict detection orders
// them. Not restored: heap memory that is neither an explore atomic, a Plain nor a
// protected object (memory a moved-from argument owned, say). Not available under
// ThreadSanitizer (its shadow call stack cannot follow a jump back into begin()): there
// begin() reports "not started" and the fallback path runs.
//
// Stalls (the lock-freedom claim, checked). A strategy may stall a thread at a point:
// it is not scheduled again until every other thread has finished. If the others cannot
// all finish while it is stalled (they wait in spins for a write only a stalled thread
// can make, or run past Options::max_steps), the execution fails with "lock-freedom
// (obstruction) violated: thread t stalled at its step k; threads ... did not finish".
// Once the others finished, the stalled thread resumes (the last stalled first) and the
// execution completes and is checked as usual. A thread stalled inside a transaction has
// it aborted, as an interrupt does. Stalls count apart from preemptions
// (Options::max_stalls); stall_sweep() stalls one thread at each of its steps.
//
// Strategies. random_walk (a seeded uniform choice at every point), pct (Burckhardt et
// al., ASPLOS 2010: random thread priorities, depth - 1 priority change points, the
// highest-priority runnable thread runs; finds any bug of depth d with probability at
// least 1 / (n k^(d-1)) per run), and bounded (CHESS: depth-first search of every
// schedule with at most `preemptions` preemptions, a preemption being a switch away
// from a thread that could have continued; switches forced by a blocked or finished
// thread are free; and with at most Options::max_stale_reads stale reads and
// Options::max_stalls stalls). bounded reports whether it finished the search. The
// random strategies make a load that has a choice read an older store with probability
// 1 / Options::stale_read_one_in, and stall a thread now and then when
// Options::max_stalls allows. Stale reads and stalls are off unless the Options ask for
// them (every load then reads the newest store: the sequentially consistent
// executions, but still with happens-before tracked, so Plain races are reported).
//
// Schedules. An execution's schedule is the list of choices made at each point where
// more than one thread could run (or a transaction could be aborted), separated by '.':
//   "2"     thread 2 runs (its load, if its step is one, reads the newest store);
//   "2a"    abort thread 2's open transaction, then run thread 2;
//   "2r3"   thread 2 runs and its load reads the 3rd newest store it may read ("2r1" is
//           "2");
//   "2s"    stall thread 2 here; the next entry chooses at the same point among the
//           others.
// A point where only one thread could run is written only if a stale read or a stall
// was chosen there, with that thread's step number: "2@7r2" (thread 2, alone at its
// step 7, reads the 2nd newest store), "2@7s" (stalled there). A thread's steps are its
// scheduling points, counted from 1. replay() runs a schedule again (same choices, same
// execution, same stores read); a failure's schedule is first shrunk: fewer
// preemptions, then fewer stale reads, while it still fails.
//
// Failures: an exception thrown by a scenario thread (explore::require), a check() that
// returns a message, a deadlock, a step bound, a data race on a Plain, a lock-freedom
// violation under a stall. Every execution is independent: the scenario factory builds
// fresh shared state each time.
//
// Not thread-safe: one exploration per OS thread at a time.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <typeindex>
#include <vector>

namespace cuckoo::explore {

// One execution of a scenario: its threads (run from the start, each on its own fiber)
// and the check run after all of them finished ("" when every claim held).
struct Execution {
  std::vector<std::function<void()>> threads;
  std::function<std::string()> check;
  std::shared_ptr<void> state;  // keeps the threads' shared state alive
};

// Builds a fresh execution; called once per explored schedule.
using Scenario = std::function<Execution()>;

struct Options {
  std::uint64_t max_steps = 100'000;  // per execution
  std::size_t stack_bytes = 256 * 1024;
  bool shrink = true;                 // shrink a failing schedule's preemptions and stale reads
  // Offer "abort this open transaction here" at every scheduling point inside one.
  bool transaction_aborts = true;
  // bounded() and stall_sweep(): at most this many stale reads per execution (loads that
  // read an older store than the newest they may read), explored exhaustively like
  // preemptions but counted apart from them. 0: every load reads the newest store.
  unsigned max_stale_reads = 0;
  // random_walk() and pct(): a load that may read an older store does so with
  // probability 1 / stale_read_one_in (which older store: uniform). 0: never. Off by
  // default, as bounded()'s stale reads are: a scenario opts in (and, if it checks
  // linearizability against recorded stamps, marks them with real_time_point()).
  unsigned stale_read_one_in = 0;
  // At most this many stalls per execution (see "Stalls"): bounded() explores every
  // place for them; random_walk() and pct() stall a random thread at about one decision
  // in 32 while the budget lasts. 0: no stalls.
  unsigned max_stalls = 0;
};

struct Result {
  bool failed = false;
  std::string message;       // what failed, with the schedule
  std::string schedule;      // the failing execution's choices, or the last one's
  unsigned preemptions = 0;  // in `schedule`
  std::uint64_t executions = 0;
  std::uint64_t steps = 0;   // scheduling points over all executions
  bool complete = false;     // bounded(): every schedule within the bound was explored
  double seconds = 0;
  unsigned stale_reads = 0;  // in `schedule`
  unsigned stalls = 0;       // in `schedule`
  std::string summary() const;
};

// Thrown by require() inside a scenario thread: the execution fails with `what`.
class Violation : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

inline void require(bool condition, const std::string& what) {
  if (!condition) throw Violation(what);
}

// A point of the scenario's own real-time bookkeeping, for a history recorder whose
// stamps come from a std::atomic the memory model does not see (subjects'
// HistoryRecorder: acq_rel fetch_adds on one counter). On real threads those stamps
// make real-time order imply happens-before; here they order nothing, and with stale
// reads a linearizability check would blame the subject for an order that only the
// stamps provide. Call real_time_point() right after the invocation stamp and right
// before the response stamp (first and last thing in the recorded call): each
// synchronizes with every earlier one, as an acq_rel read-modify-write of one counter
// does. Not a scheduling point; outside an exploration it does nothing.
void real_time_point();

Result random_walk(const Scenario& scenario, std::uint64_t seed, std::uint64_t executions,
                   const Options& options = {});
Result pct(const Scenario& scenario, std::uint64_t seed, unsigned depth, std::uint64_t executions,
           const Options& options = {});
// max_executions bounds the search; complete says whether it ended within it.
Result bounded(const Scenario& scenario, unsigned preemptions, std::uint64_t max_executions,
               const Options& options = {});
// The lock-freedom sweep: every schedule of bounded(scenario, preemptions) (with
// options.max_stale_reads stale reads), and each of them with `thread` stalled at each
// of its steps in turn (one stall per execution, of that thread only; the others then
// run every way the preemption bound allows; options.max_stalls is not used). Fails as
// bounded() does, in particular with the lock-freedom message when the others cannot
// finish without `thread`.
// max_executions bounds the search; complete says whether it ended within it.
Result stall_sweep(const Scenario& scenario, unsigned thread, unsigned preemptions, std::uint64_t max_executions,
                   const Options& options = {});
// Runs one schedule ("0.1r2.1.0"); choices beyond it, and decisions met while the next
// entry is a forced one ("1@4r2") whose point has not come yet, run the current thread
// when it can and read the newest store. Throws std::invalid_argument for a malformed
// schedule.
Result replay(const Scenario& scenario, const std::string& schedule, const Options& options = {});

// ---- The hooks explore::Sync, explore::Atomic and explore::Plain call (sync.hpp,
// plain.hpp). Outside an exploration they do nothing.

namespace hooks {
// Before an atomic access: a scheduling point (the access runs when the thread resumes,
// before any other thread's step).
void point();
// After an access that changed memory (a store, exchange, RMW or successful CAS): wakes
// the spinning threads.
void wrote() noexcept;
// A spin's wait(): blocks the calling thread until some other thread writes.
void spin();
// The calling logical thread's object of `type`, made on first use; nullptr outside an
// exploration. destroy runs when the thread's execution completes; an execution
// abandoned after a failure keeps its objects (see Run::execute).
void* thread_object(std::type_index type, void* (*make)(), void (*destroy)(void*));
bool active() noexcept;

// An atomic access of `size` (<= 16) bytes at `address` outside the memory model (the
// caller performs it on memory, sequentially consistent): a scheduling point, then the
// transactions' bookkeeping (see "Transactions" above): open transactions of other
// threads that conflict with it abort; inside the caller's own transaction the access
// joins its read or write set and a write logs the bytes it overwrites.
void access(const void* address, std::size_t size, bool write);

// ---- The memory model (see "Memory model"), for explore::Atomic. REQUIRES: active().
// A load of `size` (<= 16) bytes at `address`: a scheduling point, the transactions'
// bookkeeping as access(), then the store it reads (the strategy's choice among those
// the model allows) is copied to `out`, and the thread synchronizes as `order` says.
void load(const void* address, std::size_t size, std::memory_order order, void* out);
// A write in two calls around the caller's own write of memory (no scheduling point in
// between): write_begin is the scheduling point and the bookkeeping of a write; then the
// caller writes `address` (memory holds the newest store); write_end enters what it did
// into the modification order: a store, a read-modify-write that stored (it read the
// newest store), or one that did not (a failed CAS: a load of the newest store), with
// the order of what happened (a CAS: its success or its failure order).
enum class WriteKind : std::uint8_t { kStore, kReadModifyWrite, kFailedReadModifyWrite };
void write_begin(const void* address, std::size_t size);
void write_end(const void* address, std::size_t size, WriteKind kind, std::memory_order order);
// std::atomic_thread_fence(order) (a seq_cst fence is a scheduling point).
void fence(std::memory_order order);
// An explore atomic constructed or destroyed at `address`: its modification order
// starts afresh (memory reused by a new object is a new location).
void atomic_lifetime(const void* address) noexcept;

// ---- Plain data (plain.hpp): race-checked, not scheduling points.
// An access of the Plain `name` at `address` (`size` <= 64 bytes) by the calling thread;
// fails the execution (and never returns) on a data race. Inside a transaction it joins
// the read or write set, and a write logs the bytes it overwrites.
void plain_access(const void* address, std::size_t size, bool write, const char* name);
// A Plain constructed (a write by the calling thread) or destroyed at `address`.
void plain_created(const void* address, std::size_t size, const char* name);
void plain_destroyed(const void* address) noexcept;

// Transactions, for explore::Htm.
struct TxObject {
  const void* address;                             // also a location every txn writes
  std::function<std::function<void()>()> snapshot;  // copies the object; returns its restore
};
// Starts a transaction of `htm` on the calling thread (objects: what it may write as
// plain memory). Returns sync::HtmStatus's raw value: started; or, returning a second
// time after the transaction aborted, the abort status. Outside an exploration, under
// ThreadSanitizer or when a transaction is already open: "not started" / a nested abort.
std::uint32_t tx_begin(const void* htm, const std::vector<TxObject>* objects);
// Commits the calling thread's transaction; a scheduling point first (where it may abort,
// and then does not return here).
void tx_commit();
// Aborts the calling thread's transaction explicitly: its effects are discarded now and
// the call returns (an explicit abort's status is the caller's to report).
void tx_abort();
// Whether the calling thread has a transaction of `htm` open.
bool tx_open(const void* htm) noexcept;
}  // namespace hooks

}  // namespace cuckoo::explore
