// Deterministic interleaving exploration (issue 14): runs the N logical threads of a
// small scenario on one OS thread, as fibers, and decides at every scheduling point
// which thread takes the next step. The code under test is the engine's own, compiled
// against explore::Sync (sync.hpp), whose every atomic access and spin is such a point.
//
// Model. One step = one atomic access (load, store, exchange, CAS, fetch-add) performed
// as one indivisible action, in a sequentially consistent order: weak-memory
// reorderings are not explored (they are left to ThreadSanitizer and to review). A spin
// (Sync::SpinWait::wait, "wait until another thread writes") blocks its thread until
// some thread writes an atomic; a scenario where every unfinished thread is blocked has
// deadlocked (or livelocked in a spin), and one that exceeds Options::max_steps has run
// away; both are failures. Non-atomic data is not watched: the scenarios check what
// their threads produce.
//
// Transactions (explore::Htm, htm.hpp, the checking policy's HTM). An emulated
// transaction behaves as an RTM transaction with strong isolation: between its begin and
// its commit (a scheduling point of its own) every atomic access of its thread joins its
// read or write set, and another thread's access that conflicts with those sets (a
// write to anything it read or wrote, a read of anything it wrote; read-modify-writes
// count as writes, as locked instructions do) aborts it at once: every atomic it wrote
// gets its old value back, every object declared with protect() is restored to its copy
// from the transaction's first access, and when its thread next runs, its stack and
// registers are restored and begin() returns a second time with the abort status
// (kConflict | kRetry). Besides, at every scheduling point inside a transaction the
// strategies may choose to abort it there (status 0: an abort without a reason, as an
// interrupt gives), written "2a" in a schedule ("abort thread 2's transaction, then run
// thread 2"); such an abort counts as a preemption. Not restored: heap memory that is
// neither an explore atomic nor a protected object (memory a moved-from argument owned,
// say). Not available under ThreadSanitizer (its shadow call stack cannot follow a jump
// back into begin()): there begin() reports "not started" and the fallback path runs.
//
// Strategies. random_walk (a seeded uniform choice at every point), pct (Burckhardt et
// al., ASPLOS 2010: random thread priorities, depth - 1 priority change points, the
// highest-priority runnable thread runs; finds any bug of depth d with probability at
// least 1 / (n k^(d-1)) per run), and bounded (CHESS: depth-first search of every
// schedule with at most `preemptions` preemptions, a preemption being a switch away
// from a thread that could have continued; switches forced by a blocked or finished
// thread are free). bounded reports whether it finished the search.
//
// Schedules. An execution's schedule is the list of threads chosen at each point where
// more than one thread could run (or a transaction could be aborted), written
// "0.1.1a.0". replay() runs a schedule again
// (same choices, same execution); a failure's schedule is first shrunk by dropping
// preemptions while it still fails.
//
// Failures: an exception thrown by a scenario thread (explore::require), a check() that
// returns a message, a deadlock, a step bound. Every execution is independent: the
// scenario factory builds fresh shared state each time.
//
// Not thread-safe: one exploration per OS thread at a time.
#pragma once

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
  bool shrink = true;                 // shrink a failing schedule's preemptions
  // Offer "abort this open transaction here" at every scheduling point inside one.
  bool transaction_aborts = true;
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

Result random_walk(const Scenario& scenario, std::uint64_t seed, std::uint64_t executions,
                   const Options& options = {});
Result pct(const Scenario& scenario, std::uint64_t seed, unsigned depth, std::uint64_t executions,
           const Options& options = {});
// max_executions bounds the search; complete says whether it ended within it.
Result bounded(const Scenario& scenario, unsigned preemptions, std::uint64_t max_executions,
               const Options& options = {});
// Runs one schedule ("0.1.1.0"); choices beyond it run the current thread when it can.
// Throws std::invalid_argument for a malformed schedule.
Result replay(const Scenario& scenario, const std::string& schedule, const Options& options = {});

// ---- The hooks explore::Sync calls (sync.hpp). Outside an exploration they do nothing.

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

// An atomic access of `size` (<= 16) bytes at `address`: a scheduling point, then the
// transactions' bookkeeping (see "Transactions" above): open transactions of other
// threads that conflict with it abort; inside the caller's own transaction the access
// joins its read or write set and a write logs the bytes it overwrites.
void access(const void* address, std::size_t size, bool write);

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
