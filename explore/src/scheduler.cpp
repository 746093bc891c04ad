// The deterministic scheduler (scheduler.hpp): fibers on ucontext, a scheduling loop on
// the OS thread's own stack, the strategies as choosers, and the memory model
// (memory_model.hpp) that the atomics and Plains of the running execution go through.
//
// Control flow. Every switch goes through the loop: a fiber that reaches a scheduling
// point (an atomic access, a spin, its end) swaps back to the loop, which picks the
// next thread (and, for a load, which store it reads; or a thread to stall) and swaps
// to it. A fiber's stack is freed with its execution; a failed execution's other fibers
// are abandoned where they stand, and their stacks, per-thread objects and the
// scenario's state are kept, never destroyed (Run::abandoned).
//
// Choices. The loop asks the chooser at every decision (more than one runnable thread,
// or a transaction to abort) and, when the strategy explores them, at a forced point
// (one runnable thread) whose load may read an older store or where a stall is
// possible. The chooser answers with a Choice; the loop checks it against what was
// possible (an impossible answer, as a replayed schedule of another scenario gives,
// takes the default) and records it for the schedule: every decision, and the forced
// points where something else than the default was chosen, keyed by the thread's step
// number so that replay finds them again.
#include "cuckoo/explore/scheduler.hpp"

#include <ucontext.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <exception>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <utility>

#include "cuckoo/detail/rng.hpp"
#include "cuckoo/hash.hpp"
#include "cuckoo/sync/htm.hpp"
#include "memory_model.hpp"

#if defined(__SANITIZE_ADDRESS__)
#define CUCKOO_EXPLORE_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CUCKOO_EXPLORE_ASAN 1
#endif
#endif
#if defined(__SANITIZE_THREAD__)
#define CUCKOO_EXPLORE_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define CUCKOO_EXPLORE_TSAN 1
#endif
#endif

#ifdef CUCKOO_EXPLORE_ASAN
extern "C" void __sanitizer_start_switch_fiber(void** fake_stack_save, const void* bottom, std::size_t size);
extern "C" void __sanitizer_finish_switch_fiber(void* fake_stack_save, const void** bottom_old,
                                                std::size_t* size_old);
extern "C" void __asan_unpoison_memory_region(const volatile void* addr, std::size_t size);
#endif
#ifdef CUCKOO_EXPLORE_TSAN
extern "C" void* __tsan_get_current_fiber();
extern "C" void* __tsan_create_fiber(unsigned flags);
extern "C" void __tsan_destroy_fiber(void* fiber);
extern "C" void __tsan_switch_to_fiber(void* fiber, unsigned flags);
#endif

namespace cuckoo::explore {
namespace {

using memory::MemoryModel;

// One choice at a point (see scheduler.hpp, "Schedules").
struct Choice {
  unsigned thread = 0;
  unsigned read = 0;       // its load reads the store `read` places before the newest
  bool abort = false;      // abort the thread's transaction first ("2a")
  bool stall = false;      // stall the thread ("2s"); the point is decided again
  bool forced = false;     // at a point where only `thread` could run ("2@7r2")
  std::uint64_t step = 0;  // forced: the thread's step number there
};

Choice run_thread(unsigned t) {
  Choice c;
  c.thread = t;
  return c;
}

// What a strategy sees at a point: the runnable threads (ascending), the thread that
// ran last if it can continue, the runnable threads whose open transaction may be
// aborted here, how many stores each runnable thread's load may read (1: no choice, or
// not a load; all 1 unless the run explores reads), and the threads it may stall.
struct Decision {
  const std::vector<unsigned>& runnable;
  std::optional<unsigned> current;
  std::uint64_t step;
  const std::vector<unsigned>& abortable;
  bool forced;                 // only runnable.front() can run and nothing can abort
  std::uint64_t forced_step;   // forced: that thread's step number
  const std::vector<unsigned>& reads;  // parallel to runnable
  const std::vector<unsigned>& stallable;

  unsigned reads_of(unsigned t) const {
    for (std::size_t i = 0; i < runnable.size(); ++i) {
      if (runnable[i] == t) return reads[i];
    }
    return 1;
  }
};

// A preemption: switching away from a thread that could continue, or aborting a
// transaction. A stall is counted apart.
bool preempts(const Choice& c, std::optional<unsigned> current) {
  if (c.stall) return false;
  return c.abort || (current && c.thread != *current);
}

// One abort choice in this many, where the random strategies may abort a transaction;
// one stall in this many decisions, where they may stall a thread.
constexpr std::uint64_t kAbortOneIn = 8;
constexpr std::uint64_t kStallOneIn = 32;

// The status of an abort the explorer chooses: no reason bit, as an interrupt gives.
constexpr std::uint32_t kChosenAbortStatus = 0;

class Chooser {
 public:
  virtual ~Chooser() = default;
  virtual Choice choose(const Decision& d) = 0;
};

// The default of a decision: continue the current thread, else the lowest runnable.
unsigned default_choice(const Decision& d) { return d.current ? *d.current : d.runnable.front(); }

// What the run offers the chooser at forced points: loads' read choices, stalls.
struct RunFlags {
  bool reads = false;
  bool stalls = false;
};

struct ObjectSlot {
  void* object = nullptr;
  void (*destroy)(void*) = nullptr;
};

// A logical thread's emulated transaction (see scheduler.hpp, "Transactions").
struct Tx {
  static constexpr std::uint64_t kNoLength = ~std::uint64_t{0};
  const void* htm = nullptr;  // open iff not null
  bool doomed = false;        // aborted while suspended; jumps back into begin on resume
  bool resuming = false;      // set just before that jump
  std::uint32_t status = 0;   // the abort status begin() returns the second time
  ucontext_t context{};       // registers at begin
  char* stack_low = nullptr;  // the stack from stack_low to the fiber's top, at begin
  std::vector<char> stack_copy;
  // One access to undo: the bytes a write overwrote; for an atomic of the memory model,
  // the length of its modification order before; for a Plain, its race history before.
  struct Undo {
    const void* address = nullptr;
    std::size_t size = 0;
    bool write = false;
    std::array<unsigned char, 64> old{};
    std::uint64_t length = kNoLength;
    bool plain = false;
    bool had_history = false;
    memory::PlainHistory history;  // a Plain write's
    memory::PlainHistory::Access read;  // a Plain read's: the thread's previous read
  };
  std::vector<Undo> undo;  // oldest first
  std::vector<const void*> reads;
  std::vector<const void*> writes;
  const std::vector<hooks::TxObject>* objects = nullptr;
  bool snapshot_pending = false;  // objects are copied at the first access
  std::vector<std::function<void()>> restores;
  std::uint64_t serial = 0;         // which transaction of the execution
  memory::ThreadClocks saved;       // its thread's clocks at begin
  std::uint32_t begin_epoch = 0;

  bool in(const std::vector<const void*>& set, const void* a) const {
    return std::find(set.begin(), set.end(), a) != set.end();
  }
  void close() {
    htm = nullptr;
    doomed = false;
    resuming = false;
    undo.clear();
    reads.clear();
    writes.clear();
    objects = nullptr;
    snapshot_pending = false;
    restores.clear();
    serial = 0;
  }
};

// Copies stack bytes, which may include sanitizer redzones: unpoisoned first.
void copy_stack_bytes(char* to, const char* from, std::size_t n, const char* stack, std::size_t stack_bytes) {
#ifdef CUCKOO_EXPLORE_ASAN
  __asan_unpoison_memory_region(stack, stack_bytes);
#else
  (void)stack;
  (void)stack_bytes;
#endif
  std::memcpy(to, from, n);
}

// Fiber stacks of completed executions, reused by the next ones on this OS thread (an
// execution is short; allocating, and faulting in, a fresh stack for each of its threads
// used to be most of its cost). Not zeroed: a stack needs no initial contents. Not
// reused under ThreadSanitizer, which sees each fiber as a thread of its own.
#ifdef CUCKOO_EXPLORE_TSAN
std::unique_ptr<char[]> take_stack(std::size_t bytes) { return std::make_unique_for_overwrite<char[]>(bytes); }
void give_back_stack(std::unique_ptr<char[]> /*stack*/, std::size_t /*bytes*/) {}
#else
constexpr std::size_t kPooledStacks = 16;
thread_local std::vector<std::unique_ptr<char[]>> t_stack_pool;
thread_local std::size_t t_stack_pool_bytes = 0;

std::unique_ptr<char[]> take_stack(std::size_t bytes) {
  if (t_stack_pool_bytes == bytes && !t_stack_pool.empty()) {
    std::unique_ptr<char[]> stack = std::move(t_stack_pool.back());
    t_stack_pool.pop_back();
#ifdef CUCKOO_EXPLORE_ASAN
    __asan_unpoison_memory_region(stack.get(), bytes);  // redzones of its last fiber's frames
#endif
    return stack;
  }
  return std::make_unique_for_overwrite<char[]>(bytes);
}

void give_back_stack(std::unique_ptr<char[]> stack, std::size_t bytes) {
  if (stack == nullptr) return;
  if (t_stack_pool_bytes != bytes) {
    t_stack_pool.clear();
    t_stack_pool_bytes = bytes;
  }
  if (t_stack_pool.size() < kPooledStacks) t_stack_pool.push_back(std::move(stack));
}
#endif

struct Fiber {
  ucontext_t context{};
  std::unique_ptr<char[]> stack;
  std::function<void()> body;
  bool finished = false;
  bool blocked = false;  // spinning until a write after blocked_epoch
  std::uint64_t blocked_epoch = 0;
  // The write epoch of this thread's last spin, +1 (0: never spun).
  std::uint64_t spun_at = 0;
  bool stale_since_spin = false;  // a load read an older store since its last spin
  bool stalled = false;
  std::uint64_t steps = 0;  // scheduling points it reached
  // The access it waits to make at its point: a load's location and order.
  struct Pending {
    const void* address = nullptr;
    std::memory_order order = std::memory_order_seq_cst;
    bool load = false;
  } pending;
  std::map<std::type_index, ObjectSlot> objects;
  Tx tx;
#ifdef CUCKOO_EXPLORE_TSAN
  void* tsan_fiber = nullptr;
#endif
};

// One execution of a scenario under a chooser.
class Run {
 public:
  Run(Execution execution, Chooser& chooser, const Options& options, RunFlags flags)
      : execution_(std::move(execution)),
        chooser_(chooser),
        options_(options),
        flags_(flags),
        memory_(execution_.threads.size()) {}

  // Runs to completion or to the first failure. Returns the failure, or "".
  std::string execute();

  const std::vector<Choice>& choices() const { return choices_; }
  // For each recorded choice: the thread that could have continued (or -1).
  const std::vector<int>& continuers() const { return continuers_; }
  unsigned preemptions() const { return preemptions_; }
  unsigned stale_reads() const { return stale_reads_; }
  unsigned stalls() const { return stalls_; }
  std::uint64_t steps() const { return steps_; }

  // Called from fibers (through the hooks).
  void point() { yield(Fiber::Pending{}); }
  void wrote() noexcept { ++epoch_; }
  void spin();
  void* thread_object(std::type_index type, void* (*make)(), void (*destroy)(void*));
  void access(const void* address, std::size_t size, bool write);
  void load(const void* address, std::size_t size, std::memory_order order, void* out);
  void write_begin(const void* address, std::size_t size);
  void write_end(const void* address, hooks::WriteKind kind, std::memory_order order);
  void fence(std::memory_order order);
  void real_time_point() { memory_.real_time_point(running_); }
  void atomic_lifetime(const void* address) noexcept { memory_.lifetime(address); }
  void plain_access(const void* address, std::size_t size, bool write, const char* name);
  void plain_created(const void* address) { memory_.plain_created(running_, address, fibers_[running_].steps); }
  void plain_destroyed(const void* address) noexcept { memory_.plain_destroyed(address); }
  std::uint32_t tx_begin(const void* htm, const std::vector<hooks::TxObject>* objects);
  void tx_commit();
  void tx_abort();
  bool tx_open(const void* htm) const noexcept { return fibers_[running_].tx.htm == htm; }

 private:
  // A scheduling point of the running fiber, about to make `pending`.
  void yield(Fiber::Pending pending);
  // Inside the running thread's transaction: the access joins its read or write set
  // (protected objects copied at its first access). False outside one.
  bool tx_note(const void* address, bool write);
  // Aborts thread t's open transaction now (see scheduler.hpp, "Transactions").
  void doom(unsigned t, std::uint32_t status);
  // Undoes thread t's transaction's effects: atomics and Plains, newest first, then
  // protected objects, then its clocks.
  void discard(unsigned t);
  // Aborts other threads' transactions that conflict with an access.
  void conflicts(const void* address, bool write);
  // How many stores thread t's pending load may read.
  unsigned read_options(unsigned t) const;
  // The chooser's answer, or the default where it is not possible.
  Choice checked(Choice c, const Decision& d) const;
  void stall(unsigned t);
  std::string stall_failure(const std::vector<unsigned>& others, const std::string& why) const;
  static void trampoline();
  void to_loop(bool finishing);
  void to_fiber(unsigned index);
  void fail(std::string what) {
    if (failure_.empty()) failure_ = std::move(what);
  }
  void free_objects(bool completed);
  static std::vector<std::shared_ptr<void>>& abandoned();

  Execution execution_;
  Chooser& chooser_;
  const Options& options_;
  const RunFlags flags_;
  MemoryModel memory_;
  std::vector<Fiber> fibers_;
  ucontext_t loop_context_{};
  unsigned running_ = 0;
  std::optional<unsigned> last_;
  std::uint64_t epoch_ = 0;
  std::uint64_t steps_ = 0;
  std::vector<Choice> choices_;
  std::vector<int> continuers_;
  unsigned preemptions_ = 0;
  unsigned stale_reads_ = 0;
  unsigned stalls_ = 0;
  unsigned pending_read_ = 0;  // the read choice for the thread the loop resumes
  std::uint64_t tx_serial_ = 0;
  struct Stalled {
    unsigned thread;
    std::uint64_t step;
  };
  std::vector<Stalled> stalled_;  // the last stalled resumes first
  std::string failure_;
#ifdef CUCKOO_EXPLORE_ASAN
  const void* loop_stack_bottom_ = nullptr;
  std::size_t loop_stack_size_ = 0;
  void* loop_fake_stack_ = nullptr;
#endif
#ifdef CUCKOO_EXPLORE_TSAN
  void* loop_tsan_fiber_ = nullptr;
#endif
};

thread_local Run* g_run = nullptr;

void Run::trampoline() {
  Run* run = g_run;
#ifdef CUCKOO_EXPLORE_ASAN
  __sanitizer_finish_switch_fiber(nullptr, &run->loop_stack_bottom_, &run->loop_stack_size_);
#endif
  Fiber& self = run->fibers_[run->running_];
  try {
    self.body();
  } catch (const Violation& v) {
    run->fail(std::string("thread ") + std::to_string(run->running_) + ": " + v.what());
  } catch (const std::exception& e) {
    run->fail(std::string("thread ") + std::to_string(run->running_) + " threw: " + e.what());
  } catch (...) {
    run->fail(std::string("thread ") + std::to_string(run->running_) + " threw a non-std exception");
  }
  if (self.tx.htm != nullptr) {
    run->fail("thread " + std::to_string(run->running_) + " ended inside a transaction (begin() without end())");
  }
  self.finished = true;
  run->to_loop(true);
  // Never resumed.
}

void Run::to_loop(bool finishing) {
  Fiber& self = fibers_[running_];
#ifdef CUCKOO_EXPLORE_ASAN
  void* fake = nullptr;
  __sanitizer_start_switch_fiber(finishing ? nullptr : &fake, loop_stack_bottom_, loop_stack_size_);
#else
  (void)finishing;
#endif
#ifdef CUCKOO_EXPLORE_TSAN
  __tsan_switch_to_fiber(loop_tsan_fiber_, 0);
#endif
  swapcontext(&self.context, &loop_context_);
#ifdef CUCKOO_EXPLORE_ASAN
  __sanitizer_finish_switch_fiber(fake, &loop_stack_bottom_, &loop_stack_size_);
#endif
}

void Run::to_fiber(unsigned index) {
  running_ = index;
  Fiber& f = fibers_[index];
  ucontext_t* target = &f.context;
  if (f.tx.doomed) {
    // An aborted transaction: back into begin() with the stack it had there, as RTM
    // rolls back. Copied from this (the loop's) stack, not the fiber's.
    char* const top = f.stack.get() + options_.stack_bytes;
    copy_stack_bytes(f.tx.stack_low, f.tx.stack_copy.data(), static_cast<std::size_t>(top - f.tx.stack_low),
                     f.stack.get(), options_.stack_bytes);
    f.tx.resuming = true;
    f.pending = Fiber::Pending{};
    target = &f.tx.context;
  }
#ifdef CUCKOO_EXPLORE_ASAN
  __sanitizer_start_switch_fiber(&loop_fake_stack_, f.stack.get(), options_.stack_bytes);
#endif
#ifdef CUCKOO_EXPLORE_TSAN
  __tsan_switch_to_fiber(f.tsan_fiber, 0);
#endif
  swapcontext(&loop_context_, target);
#ifdef CUCKOO_EXPLORE_ASAN
  __sanitizer_finish_switch_fiber(loop_fake_stack_, nullptr, nullptr);
#endif
}

void Run::yield(Fiber::Pending pending) {
  Fiber& self = fibers_[running_];
  ++steps_;
  ++self.steps;
  self.pending = pending;
  to_loop(false);
  self.pending = Fiber::Pending{};
}

// A spin blocks its thread only once the thread has run a whole iteration of its spin
// loop with no write by anyone in between and with every load in it reading the newest
// store: the first spin at a write epoch is a plain scheduling point (the thread may have
// spun on what it read before a write it has not looked at since, or after a failed CAS
// on a lock that is free by now, and its next iteration would then go on), and so is a
// spin after a stale read (its next iteration may read the newer store); a second spin
// at the same epoch means the loop, re-run on the same memory, spins again, so the
// thread waits for a write.
void Run::spin() {
  Fiber& self = fibers_[running_];
  ++self.steps;
  if (self.spun_at == epoch_ + 1 && !self.stale_since_spin) {
    self.blocked = true;
    self.blocked_epoch = epoch_;
  } else {
    self.spun_at = epoch_ + 1;
    ++steps_;
  }
  self.stale_since_spin = false;
  self.pending = Fiber::Pending{};
  to_loop(false);
}

void* Run::thread_object(std::type_index type, void* (*make)(), void (*destroy)(void*)) {
  ObjectSlot& slot = fibers_[running_].objects[type];
  if (slot.object == nullptr) slot = {make(), destroy};
  return slot.object;
}

void Run::discard(unsigned t) {
  Tx& tx = fibers_[t].tx;
  for (auto u = tx.undo.rbegin(); u != tx.undo.rend(); ++u) {
    if (u->write) std::memcpy(const_cast<void*>(u->address), u->old.data(), u->size);
    if (u->length != Tx::kNoLength) memory_.truncate(u->address, u->length);
    if (u->plain && u->write) memory_.restore_plain_history(u->address, u->history, u->had_history);
    if (u->plain && !u->write) memory_.restore_plain_read(u->address, t, u->read);
  }
  for (auto r = tx.restores.rbegin(); r != tx.restores.rend(); ++r) (*r)();
  std::vector<const void*> touched = tx.reads;
  touched.insert(touched.end(), tx.writes.begin(), tx.writes.end());
  memory_.tx_aborted(t, tx.saved, tx.begin_epoch, touched);
  memory_.set_open_tx(t, 0);
  tx.undo.clear();
  tx.restores.clear();
  tx.reads.clear();
  tx.writes.clear();
}

void Run::doom(unsigned t, std::uint32_t status) {
  Fiber& f = fibers_[t];
  discard(t);
  f.tx.doomed = true;
  f.tx.status = status;
  f.blocked = false;
  ++epoch_;  // memory changed back: spinning threads look again
}

void Run::conflicts(const void* address, bool write) {
  for (unsigned t = 0; t < fibers_.size(); ++t) {
    Tx& other = fibers_[t].tx;
    if (t == running_ || other.htm == nullptr || other.doomed) continue;
    if (other.in(other.writes, address) || (write && other.in(other.reads, address))) {
      doom(t, sync::HtmStatus::make_conflict(/*retry=*/true).raw());
    }
  }
}

bool Run::tx_note(const void* address, bool write) {
  Tx& tx = fibers_[running_].tx;
  if (tx.htm == nullptr) return false;
  if (tx.snapshot_pending) {
    for (const hooks::TxObject& o : *tx.objects) tx.restores.push_back(o.snapshot());
    tx.snapshot_pending = false;
  }
  std::vector<const void*>& set = write ? tx.writes : tx.reads;
  if (!tx.in(set, address)) set.push_back(address);
  return true;
}

void Run::access(const void* address, std::size_t size, bool write) {
  point();
  conflicts(address, write);
  if (!tx_note(address, write) || !write) return;
  Tx::Undo u;
  u.address = address;
  u.size = std::min<std::size_t>(size, 16);
  u.write = true;
  std::memcpy(u.old.data(), address, u.size);
  fibers_[running_].tx.undo.push_back(u);
}

void Run::load(const void* address, std::size_t size, std::memory_order order, void* out) {
  yield(Fiber::Pending{address, order, true});
  conflicts(address, false);
  const bool in_tx = tx_note(address, false);
  const unsigned older = pending_read_;
  pending_read_ = 0;
  if (memory_.load(running_, address, size, order, older, in_tx, out)) fibers_[running_].stale_since_spin = true;
}

void Run::write_begin(const void* address, std::size_t size) {
  point();
  conflicts(address, true);
  const std::uint64_t length = memory_.write_begin(address, size);
  if (!tx_note(address, true)) return;
  Tx::Undo u;
  u.address = address;
  u.size = size;
  u.write = true;
  std::memcpy(u.old.data(), address, size);
  u.length = length;
  fibers_[running_].tx.undo.push_back(u);
}

void Run::write_end(const void* address, hooks::WriteKind kind, std::memory_order order) {
  const Tx& tx = fibers_[running_].tx;
  const bool stored = kind != hooks::WriteKind::kFailedReadModifyWrite;
  memory_.write_end(running_, address, kind != hooks::WriteKind::kStore, stored, order,
                    tx.htm != nullptr ? tx.serial : 0);
  if (stored) wrote();
}

void Run::fence(std::memory_order order) {
  if (order == std::memory_order_seq_cst) point();  // its place in the total order is a choice
  memory_.fence(running_, order);
}

void Run::plain_access(const void* address, std::size_t size, bool write, const char* name) {
  conflicts(address, write);
  if (tx_note(address, write)) {
    Tx::Undo u;
    u.address = address;
    u.size = size;
    u.write = write;
    u.plain = true;
    if (write) {
      std::memcpy(u.old.data(), address, size);
      u.history = memory_.plain_history(address, &u.had_history);
    } else {
      u.read = memory_.plain_read(address, running_);
    }
    fibers_[running_].tx.undo.push_back(std::move(u));
  }
  std::string race = memory_.plain_access(running_, address, write, name, fibers_[running_].steps);
  if (!race.empty()) {
    fail(std::move(race));
    to_loop(false);  // the loop stops at the failure: this fiber is abandoned here
  }
}

// Not inlined: getcontext saves this frame, which must still be there (restored from the
// copy) when an abort returns here a second time.
__attribute__((noinline)) std::uint32_t Run::tx_begin(const void* htm,
                                                     const std::vector<hooks::TxObject>* objects) {
#ifdef CUCKOO_EXPLORE_TSAN
  (void)htm;
  (void)objects;
  (void)tx_serial_;
  return sync::HtmStatus::make_not_started().raw();
#else
  Tx& tx = fibers_[running_].tx;
  if (tx.htm != nullptr) return sync::HtmStatus(sync::HtmStatus::kNested).raw();
  tx.close();
  tx.htm = htm;
  tx.objects = objects;
  tx.serial = ++tx_serial_;
  tx.saved = memory_.clocks(running_);
  tx.begin_epoch = tx.saved.clock.get(running_);
  memory_.set_open_tx(running_, tx.serial);
  // Every transaction writes the objects it protects (it cannot say which bytes): a
  // transaction of another thread on the same objects conflicts with it.
  if (objects != nullptr) {
    for (const hooks::TxObject& o : *objects) {
      conflicts(o.address, true);
      memory_.conflict_order(running_, o.address, true);
      tx.writes.push_back(o.address);
    }
    tx.snapshot_pending = !objects->empty();
  }
  getcontext(&tx.context);
  // Here twice: now, and after an abort (the stack below restored from the copy).
  Run* const run = g_run;
  Tx& again = run->fibers_[run->running_].tx;
  if (again.resuming) {
#ifdef CUCKOO_EXPLORE_ASAN
    __sanitizer_finish_switch_fiber(nullptr, &run->loop_stack_bottom_, &run->loop_stack_size_);
#endif
    const std::uint32_t status = again.status;
    again.close();
    return status;
  }
  Fiber& f = run->fibers_[run->running_];
  char* const top = f.stack.get() + run->options_.stack_bytes;
#if defined(__x86_64__)
  char* sp = reinterpret_cast<char*>(again.context.uc_mcontext.gregs[REG_RSP]);
#elif defined(__aarch64__)
  char* sp = reinterpret_cast<char*>(again.context.uc_mcontext.sp);
#else
#error "explore: transactions need the stack pointer of a ucontext on this architecture"
#endif
  sp = std::max(sp - 256, f.stack.get());  // and the red zone below it
  again.stack_low = sp;
  again.stack_copy.resize(static_cast<std::size_t>(top - sp));
  copy_stack_bytes(again.stack_copy.data(), sp, again.stack_copy.size(), f.stack.get(), run->options_.stack_bytes);
  return sync::HtmStatus::make_started().raw();
#endif
}

void Run::tx_commit() {
  point();  // an abort chosen or caused here does not come back
  Tx& tx = fibers_[running_].tx;
  memory_.tx_committed(running_, tx.serial, tx.reads, tx.writes);
  memory_.set_open_tx(running_, 0);
  tx.close();
}

void Run::tx_abort() {
  Tx& tx = fibers_[running_].tx;
  discard(running_);
  tx.close();
  ++epoch_;
}

// What abandoned executions leave: kept, reachable, for the life of the process. Their
// state may break its own invariants (a lock still held, a queue half linked), which its
// destructors may assert on, so it is never destroyed; the list itself is never
// destroyed either (no destructor of it runs at exit), and it keeps everything it holds
// reachable, so leak checkers do not report it.
std::vector<std::shared_ptr<void>>& Run::abandoned() {
  static auto* const list = new std::vector<std::shared_ptr<void>>();
  return *list;
}

void Run::free_objects(bool completed) {
  for (Fiber& f : fibers_) {
    for (auto& [type, slot] : f.objects) {
      if (completed) {
        slot.destroy(slot.object);
      } else {
        abandoned().push_back(std::shared_ptr<void>(slot.object, [](void*) {}));
      }
    }
    f.objects.clear();
  }
}

unsigned Run::read_options(unsigned t) const {
  const Fiber& f = fibers_[t];
  if (!f.pending.load || f.tx.doomed) return 1;
  return memory_.read_options(t, f.pending.address, f.pending.order, f.tx.htm != nullptr);
}

Choice Run::checked(Choice c, const Decision& d) const {
  const auto in = [](const std::vector<unsigned>& set, unsigned t) {
    return std::find(set.begin(), set.end(), t) != set.end();
  };
  bool possible = false;
  if (c.stall) {
    possible = in(d.stallable, c.thread);
    c.abort = false;
    c.read = 0;
  } else if (c.abort) {
    possible = !d.forced && in(d.abortable, c.thread);
    c.read = 0;
  } else {
    possible = d.forced ? c.thread == d.runnable.front() : in(d.runnable, c.thread);
    if (c.read >= d.reads_of(c.thread)) c.read = 0;
  }
  if (!possible) c = run_thread(default_choice(d));
  c.forced = d.forced;
  c.step = d.forced ? d.forced_step : 0;
  return c;
}

void Run::stall(unsigned t) {
  Fiber& f = fibers_[t];
  ++stalls_;
  f.stalled = true;
  stalled_.push_back({t, f.steps});
  if (f.tx.htm != nullptr && !f.tx.doomed) doom(t, kChosenAbortStatus);  // as an interrupt does
}

std::string Run::stall_failure(const std::vector<unsigned>& others, const std::string& why) const {
  std::string stalled;
  for (const Stalled& s : stalled_) {
    stalled += (stalled.empty() ? "" : ", ") + std::string("thread ") + std::to_string(s.thread) +
               " stalled at its step " + std::to_string(s.step);
  }
  std::string who;
  for (const unsigned o : others) who += (who.empty() ? "" : ", ") + std::to_string(o);
  return "lock-freedom (obstruction) violated: " + stalled + "; " + (others.size() == 1 ? "thread " : "threads ") +
         who + " did not finish (" + why + ")";
}

std::string Run::execute() {
  const std::size_t n = execution_.threads.size();
  fibers_.resize(n);
#ifdef CUCKOO_EXPLORE_TSAN
  loop_tsan_fiber_ = __tsan_get_current_fiber();
#endif
  for (std::size_t i = 0; i < n; ++i) {
    Fiber& f = fibers_[i];
    f.body = execution_.threads[i];
    f.stack = take_stack(options_.stack_bytes);
    getcontext(&f.context);
    f.context.uc_stack.ss_sp = f.stack.get();
    f.context.uc_stack.ss_size = options_.stack_bytes;
    f.context.uc_link = nullptr;
    makecontext(&f.context, &Run::trampoline, 0);
#ifdef CUCKOO_EXPLORE_TSAN
    f.tsan_fiber = __tsan_create_fiber(0);
#endif
  }
  Run* const outer = g_run;
  g_run = this;
  std::vector<unsigned> runnable;
  std::vector<unsigned> blocked;
  std::vector<unsigned> abortable;
  std::vector<unsigned> reads;
  std::vector<unsigned> stallable;
  runnable.reserve(n);
  blocked.reserve(n);
  abortable.reserve(n);
  reads.reserve(n);
  stallable.reserve(n);
  bool completed = false;
  // Bound: each iteration is one step of some thread, or a stall (at most one per
  // thread and step) or a stalled thread's resumption; at most max_steps + n + 1 steps.
  while (failure_.empty()) {
    runnable.clear();
    blocked.clear();
    for (unsigned i = 0; i < n; ++i) {
      Fiber& f = fibers_[i];
      if (f.finished || f.stalled) continue;
      if (f.blocked && f.blocked_epoch != epoch_) f.blocked = false;
      if (f.blocked) {
        blocked.push_back(i);
      } else {
        runnable.push_back(i);
      }
    }
    if (runnable.empty()) {
      if (!blocked.empty()) {
        if (!stalled_.empty()) {
          fail(stall_failure(blocked, "waiting in a spin for a write that only a stalled thread can make"));
          break;
        }
        std::string who;
        for (const unsigned b : blocked) who += (who.empty() ? "" : ", ") + std::to_string(b);
        fail("deadlock: every unfinished thread (" + who + ") waits in a spin for a write that "
             "no thread can make");
        break;
      }
      if (!stalled_.empty()) {  // every other thread finished: the last stalled resumes
        fibers_[stalled_.back().thread].stalled = false;
        stalled_.pop_back();
        continue;
      }
      completed = true;
      break;
    }
    if (steps_ > options_.max_steps) {
      if (!stalled_.empty()) {
        std::vector<unsigned> others = runnable;
        others.insert(others.end(), blocked.begin(), blocked.end());
        std::sort(others.begin(), others.end());
        fail(stall_failure(others, "running past Options::max_steps = " + std::to_string(options_.max_steps) +
                                       " scheduling points"));
      } else {
        fail("step bound: more than " + std::to_string(options_.max_steps) +
             " scheduling points (a livelock or an unbounded spin)");
      }
      break;
    }
    std::optional<unsigned> current;
    if (last_ && std::find(runnable.begin(), runnable.end(), *last_) != runnable.end()) current = last_;
    abortable.clear();
    if (options_.transaction_aborts) {
      for (const unsigned t : runnable) {
        if (fibers_[t].tx.htm != nullptr && !fibers_[t].tx.doomed) abortable.push_back(t);
      }
    }
    reads.assign(runnable.size(), 1);
    if (flags_.reads) {
      for (std::size_t i = 0; i < runnable.size(); ++i) reads[i] = read_options(runnable[i]);
    }
    stallable.clear();
    if (flags_.stalls && runnable.size() + blocked.size() > 1) stallable = runnable;
    const bool decision = runnable.size() > 1 || !abortable.empty();
    Choice next = run_thread(runnable.front());
    if (decision || reads.front() > 1 || !stallable.empty()) {
      const Decision d{runnable, current, steps_, abortable, !decision, fibers_[runnable.front()].steps,
                       reads,    stallable};
      next = checked(chooser_.choose(d), d);
      if (decision) {
        choices_.push_back(next);
        continuers_.push_back(current ? static_cast<int>(*current) : -1);
        if (preempts(next, current)) ++preemptions_;
      } else if (next.read > 0 || next.stall) {
        choices_.push_back(next);
        continuers_.push_back(static_cast<int>(next.thread));
      }
      if (next.read > 0) ++stale_reads_;
      if (next.stall) {
        stall(next.thread);
        continue;  // decide this point again among the others
      }
    }
    if (next.abort) doom(next.thread, kChosenAbortStatus);
    last_ = next.thread;
    pending_read_ = next.read;
    to_fiber(next.thread);
    pending_read_ = 0;
  }
  g_run = outer;
  free_objects(completed);
  if (!completed) {
    // The abandoned execution's state, thread bodies and fiber stacks (objects on a
    // stack may own heap memory) are kept: see abandoned().
    abandoned().push_back(std::move(execution_.state));
    for (auto& t : execution_.threads) abandoned().push_back(std::make_shared<std::function<void()>>(std::move(t)));
    for (Fiber& f : fibers_) {
      abandoned().push_back(std::make_shared<std::function<void()>>(std::move(f.body)));
      abandoned().push_back(std::shared_ptr<void>(f.stack.release(), [](void*) {}));
    }
  }
#ifdef CUCKOO_EXPLORE_TSAN
  for (Fiber& f : fibers_) __tsan_destroy_fiber(f.tsan_fiber);
#endif
  if (completed) {
    for (Fiber& f : fibers_) give_back_stack(std::move(f.stack), options_.stack_bytes);
  }
  if (!failure_.empty()) return failure_;
  if (execution_.check) return execution_.check();
  return {};
}

std::string schedule_string(const std::vector<Choice>& choices) {
  std::string s;
  for (const Choice& c : choices) {
    if (!s.empty()) s += '.';
    s += std::to_string(c.thread);
    if (c.forced) s += '@' + std::to_string(c.step);
    if (c.abort) s += 'a';
    if (c.stall) s += 's';
    if (c.read > 0) s += 'r' + std::to_string(c.read + 1);
  }
  return s;
}

// Reads digits at text[*at...] (at most max_digits); false if there are none or too many.
bool parse_number(const std::string& text, std::size_t* at, std::size_t max_digits, std::uint64_t* value) {
  const std::size_t start = *at;
  while (*at < text.size() && text[*at] >= '0' && text[*at] <= '9') ++*at;
  const std::size_t digits = *at - start;
  if (digits == 0 || digits > max_digits) return false;
  *value = std::stoull(text.substr(start, digits));
  return true;
}

std::vector<Choice> parse_schedule(const std::string& text) {
  std::vector<Choice> choices;
  if (text.empty()) return choices;
  std::size_t at = 0;
  // Bound: each iteration consumes one entry and its dot.
  while (at <= text.size()) {
    const std::size_t dot = std::min(text.find('.', at), text.size());
    const std::string part = text.substr(at, dot - at);
    Choice c;
    std::size_t i = 0;
    std::uint64_t number = 0;
    bool ok = parse_number(part, &i, 3, &number);
    c.thread = static_cast<unsigned>(number);
    if (ok && i < part.size() && part[i] == '@') {
      ++i;
      ok = parse_number(part, &i, 12, &c.step);
      c.forced = true;
    }
    if (ok && i < part.size()) {
      const char kind = part[i++];
      if (kind == 'a' && !c.forced) {
        c.abort = true;
      } else if (kind == 's') {
        c.stall = true;
      } else if (kind == 'r') {
        ok = parse_number(part, &i, 4, &number) && number >= 1;
        c.read = static_cast<unsigned>(number - 1);
      } else {
        ok = false;
      }
    }
    ok = ok && i == part.size() && (!c.forced || c.stall || c.read > 0);
    if (!ok) {
      throw std::invalid_argument(
          "schedule \"" + text +
          "\": expected entries separated by '.', each a thread number optionally followed by 'a' (abort its "
          "transaction), 's' (stall it) or 'rK' (its load reads the K-th newest store it may read), or "
          "'thread@step' followed by 's' or 'rK' (K >= 2), got \"" +
          part + "\" at character " + std::to_string(at));
    }
    choices.push_back(c);
    at = dot + 1;
  }
  return choices;
}

RunFlags flags_of(const std::vector<Choice>& choices) {
  RunFlags flags;
  for (const Choice& c : choices) {
    flags.reads = flags.reads || c.read > 0;
    flags.stalls = flags.stalls || c.stall;
  }
  return flags;
}

// A choice for thread t at d, with a stale read now and then (random strategies).
class RandomReads {
 public:
  RandomReads(std::uint64_t seed, const Options& options)
      : rng_(seed), stale_one_in_(options.stale_read_one_in), stalls_left_(options.max_stalls) {}

 protected:
  Choice with_read(const Decision& d, unsigned t) {
    Choice c = run_thread(t);
    const unsigned options = d.reads_of(t);
    if (options > 1 && stale_one_in_ > 0 && rng_.below(stale_one_in_) == 0) {
      c.read = 1 + static_cast<unsigned>(rng_.below(options - 1));
    }
    return c;
  }
  // A stall now and then, while the budget lasts.
  std::optional<Choice> maybe_stall(const Decision& d) {
    if (stalls_left_ == 0 || d.stallable.empty() || rng_.below(kStallOneIn) != 0) return std::nullopt;
    --stalls_left_;
    Choice c = run_thread(d.stallable[static_cast<std::size_t>(rng_.below(d.stallable.size()))]);
    c.stall = true;
    return c;
  }

  detail::Rng rng_;

 private:
  unsigned stale_one_in_;
  unsigned stalls_left_;
};

class RandomChooser : public Chooser, RandomReads {
 public:
  RandomChooser(std::uint64_t seed, const Options& options) : RandomReads(seed, options) {}
  Choice choose(const Decision& d) override {
    if (auto s = maybe_stall(d)) return *s;
    if (d.forced) return with_read(d, d.runnable.front());
    if (!d.abortable.empty() && rng_.below(kAbortOneIn) == 0) {
      Choice c = run_thread(d.abortable[static_cast<std::size_t>(rng_.below(d.abortable.size()))]);
      c.abort = true;
      return c;
    }
    return with_read(d, d.runnable[static_cast<std::size_t>(rng_.below(d.runnable.size()))]);
  }
};

class ReplayChooser : public Chooser {
 public:
  explicit ReplayChooser(std::vector<Choice> choices) : choices_(std::move(choices)) {}
  Choice choose(const Decision& d) override {
    if (d.forced) {
      if (at_ < choices_.size() && choices_[at_].forced && choices_[at_].thread == d.runnable.front() &&
          choices_[at_].step == d.forced_step) {
        return choices_[at_++];
      }
      return run_thread(d.runnable.front());
    }
    // A forced entry next: its point is still to come (a hand-written schedule may leave
    // out the decisions before it), so this decision takes the default.
    if (at_ < choices_.size() && !choices_[at_].forced) return choices_[at_++];
    return run_thread(default_choice(d));
  }

 private:
  std::vector<Choice> choices_;
  std::size_t at_ = 0;
};

// PCT: distinct random priorities >= depth per thread; at depth - 1 random steps the
// running thread's priority drops to the change point's index (below every initial one).
class PctChooser : public Chooser, RandomReads {
 public:
  PctChooser(std::uint64_t seed, unsigned depth, std::size_t threads, std::uint64_t steps_estimate,
             const Options& options)
      : RandomReads(seed, options) {
    for (std::size_t i = 0; i < threads; ++i) priority_.push_back(depth + static_cast<unsigned>(i));
    for (std::size_t i = threads; i > 1; --i) {  // Fisher-Yates
      std::swap(priority_[i - 1], priority_[static_cast<std::size_t>(rng_.below(i))]);
    }
    for (unsigned c = 1; c < depth; ++c) change_at_.emplace(1 + rng_.below(std::max<std::uint64_t>(steps_estimate, 1)), c);
  }
  Choice choose(const Decision& d) override {
    if (auto s = maybe_stall(d)) return *s;
    if (d.forced) return with_read(d, d.runnable.front());
    // Change points passed since the last decision apply to the thread that ran.
    while (!change_at_.empty() && change_at_.begin()->first <= d.step) {
      if (last_) priority_[*last_] = change_at_.begin()->second;
      change_at_.erase(change_at_.begin());
    }
    unsigned best = d.runnable.front();
    for (const unsigned t : d.runnable) {
      if (priority_[t] > priority_[best]) best = t;
    }
    last_ = best;
    if (std::find(d.abortable.begin(), d.abortable.end(), best) != d.abortable.end() &&
        rng_.below(kAbortOneIn) == 0) {
      Choice c = run_thread(best);
      c.abort = true;
      return c;
    }
    return with_read(d, best);
  }

 private:
  std::vector<unsigned> priority_;
  std::multimap<std::uint64_t, unsigned> change_at_;
  std::optional<unsigned> last_;
};

// The bounds of a depth-first search: preemptions, stale reads, stalls (of any thread,
// or of one).
struct Bounds {
  unsigned preemptions = 0;
  unsigned stale_reads = 0;
  unsigned stalls = 0;
  std::optional<unsigned> stall_thread;
  RunFlags flags() const { return RunFlags{stale_reads > 0, stalls > 0}; }
};

// Depth-first search over the points, bounded in preemptions, stale reads and stalls.
// The stack holds, per point the chooser was asked about in the current execution, the
// alternatives in order (the default first) and which one this execution takes.
class DfsChooser : public Chooser {
 public:
  explicit DfsChooser(Bounds bounds) : bounds_(bounds) {}

  Choice choose(const Decision& d) override {
    if (depth_ < stack_.size()) {  // replaying the prefix the search fixed
      const Frame& f = stack_[depth_];
      ++depth_;
      return f.order[f.taken];
    }
    Frame f;
    f.forced = d.forced;
    f.current = d.current;
    if (d.forced) {
      f.order.push_back(run_thread(d.runnable.front()));
    } else {
      f.order.push_back(run_thread(default_choice(d)));
      for (const unsigned t : d.runnable) {
        if (t != f.order.front().thread) f.order.push_back(run_thread(t));
      }
      for (const unsigned t : d.abortable) {
        Choice c = run_thread(t);
        c.abort = true;
        f.order.push_back(c);
      }
    }
    if (bounds_.stale_reads > 0) {
      for (std::size_t i = 0; i < d.runnable.size(); ++i) {
        for (unsigned k = 1; k < d.reads[i]; ++k) {
          Choice c = run_thread(d.runnable[i]);
          c.read = k;
          f.order.push_back(c);
        }
      }
    }
    if (bounds_.stalls > 0) {
      for (const unsigned t : d.stallable) {
        if (bounds_.stall_thread && *bounds_.stall_thread != t) continue;
        Choice c = run_thread(t);
        c.stall = true;
        f.order.push_back(c);
      }
    }
    f.before = so_far();
    stack_.push_back(std::move(f));
    ++depth_;
    return stack_.back().order.front();
  }

  // After an execution: moves to the next schedule. False when the search is done.
  bool advance() {
    depth_ = 0;
    while (!stack_.empty()) {
      Frame& f = stack_.back();
      while (f.taken + 1 < f.order.size()) {
        ++f.taken;
        if (within(f.before + f.cost(f.order[f.taken]))) return true;
      }
      stack_.pop_back();
    }
    return false;
  }

 private:
  struct Costs {
    unsigned preemptions = 0;
    unsigned stale_reads = 0;
    unsigned stalls = 0;
    Costs operator+(const Costs& o) const {
      return {preemptions + o.preemptions, stale_reads + o.stale_reads, stalls + o.stalls};
    }
  };
  struct Frame {
    std::vector<Choice> order;
    std::size_t taken = 0;
    bool forced = false;
    std::optional<unsigned> current;
    Costs before;
    Costs cost(const Choice& c) const {
      return {!forced && preempts(c, current) ? 1U : 0U, c.read > 0 ? 1U : 0U, c.stall ? 1U : 0U};
    }
  };
  bool within(const Costs& c) const {
    return c.preemptions <= bounds_.preemptions && c.stale_reads <= bounds_.stale_reads && c.stalls <= bounds_.stalls;
  }
  // The costs of the points before depth_ (constant time: each frame keeps those
  // before it).
  Costs so_far() const {
    if (depth_ == 0) return {};
    const Frame& f = stack_[depth_ - 1];
    return f.before + f.cost(f.order[f.taken]);
  }

  Bounds bounds_;
  std::vector<Frame> stack_;
  std::size_t depth_ = 0;
};

struct Outcome {
  std::string failure;
  std::vector<Choice> choices;
  std::vector<int> continuers;
  unsigned preemptions = 0;
  unsigned stale_reads = 0;
  unsigned stalls = 0;
  std::uint64_t steps = 0;
};

Outcome run_once(const Scenario& scenario, Chooser& chooser, const Options& options, RunFlags flags) {
  Run run(scenario(), chooser, options, flags);
  Outcome o;
  o.failure = run.execute();
  o.choices = run.choices();
  o.continuers = run.continuers();
  o.preemptions = run.preemptions();
  o.stale_reads = run.stale_reads();
  o.stalls = run.stalls();
  o.steps = run.steps();
  return o;
}

Outcome replay_once(const Scenario& scenario, const std::vector<Choice>& choices, const Options& options) {
  ReplayChooser chooser(choices);
  return run_once(scenario, chooser, options, flags_of(choices));
}

// The first failing execution of a bounded depth-first search, if any within
// max_executions. *executions and *steps count what ran; *complete says the search ended.
std::optional<Outcome> search_bounded(const Scenario& scenario, const Bounds& bounds, std::uint64_t max_executions,
                                      const Options& options, std::uint64_t* executions, std::uint64_t* steps,
                                      Outcome* last, bool* complete) {
  DfsChooser chooser(bounds);
  *complete = false;
  // Bound: max_executions.
  for (std::uint64_t e = 0; e < max_executions; ++e) {
    Outcome o = run_once(scenario, chooser, options, bounds.flags());
    ++*executions;
    *steps += o.steps;
    if (!o.failure.empty()) return o;
    if (last != nullptr) *last = std::move(o);
    if (!chooser.advance()) {
      *complete = true;
      break;
    }
  }
  return std::nullopt;
}

// Executions a shrink may spend on each smaller preemption bound.
constexpr std::uint64_t kShrinkSearchExecutions = 20'000;

// A smaller failing schedule. First greedily, fewer preemptions: at each preemption (or
// chosen abort), from the last, continue the preempted thread (or do not abort) instead
// (then the recorded choices, or the defaults from there on), keeping any candidate that
// still fails with fewer preemptions. Then fewer stale reads: each, from the last, made
// to read the newest store instead, kept if the execution still fails. Then, if any
// preemption is left, a bounded search (with the stale reads and stalls the failure
// has) at each smaller preemption bound from 0 up (kShrinkSearchExecutions each): its
// first failure has the fewest preemptions any failure has, when that search is complete.
Outcome shrink(const Scenario& scenario, Outcome failing, const Options& options, const Bounds& bounds) {
  bool improved = true;
  // Bound: each accepted candidate has fewer preemptions; at most 2 preemptions^2 replays.
  while (improved && failing.preemptions > 0) {
    improved = false;
    for (std::size_t i = failing.choices.size(); i-- > 0 && !improved;) {
      const int cont = failing.continuers[i];
      const Choice choice = failing.choices[i];
      const std::optional<unsigned> current = cont < 0 ? std::nullopt : std::optional<unsigned>(cont);
      if (choice.forced || !preempts(choice, current)) continue;
      // Continue the preempted thread (or, for an abort with none, run without it).
      const Choice instead = run_thread(current ? *current : choice.thread);
      std::vector<Choice> prefix(failing.choices.begin(), failing.choices.begin() + static_cast<std::ptrdiff_t>(i));
      prefix.push_back(instead);
      std::vector<Choice> with_rest = prefix;
      with_rest.insert(with_rest.end(), failing.choices.begin() + static_cast<std::ptrdiff_t>(i) + 1,
                       failing.choices.end());
      for (const std::vector<Choice>* candidate : {&prefix, &with_rest}) {
        Outcome o = replay_once(scenario, *candidate, options);
        if (!o.failure.empty() && o.preemptions < failing.preemptions) {
          failing = std::move(o);
          improved = true;
          break;
        }
      }
    }
  }
  improved = true;
  // Bound: each accepted candidate has fewer stale reads.
  while (improved && failing.stale_reads > 0) {
    improved = false;
    for (std::size_t i = failing.choices.size(); i-- > 0 && !improved;) {
      if (failing.choices[i].read == 0) continue;
      std::vector<Choice> candidate = failing.choices;
      if (candidate[i].forced) {
        candidate.erase(candidate.begin() + static_cast<std::ptrdiff_t>(i));
      } else {
        candidate[i].read = 0;
      }
      Outcome o = replay_once(scenario, candidate, options);
      if (!o.failure.empty() && o.stale_reads < failing.stale_reads && o.preemptions <= failing.preemptions) {
        failing = std::move(o);
        improved = true;
      }
    }
  }
  for (unsigned bound = 0; bound < failing.preemptions; ++bound) {
    std::uint64_t executions = 0;
    std::uint64_t steps = 0;
    bool complete = false;
    Bounds smaller = bounds;
    smaller.preemptions = bound;
    smaller.stale_reads = failing.stale_reads;
    smaller.stalls = failing.stalls;
    if (auto o = search_bounded(scenario, smaller, kShrinkSearchExecutions, options, &executions, &steps, nullptr,
                                &complete)) {
      return std::move(*o);
    }
  }
  return failing;
}

void describe(Result* r, const Outcome& o) {
  r->schedule = schedule_string(o.choices);
  r->preemptions = o.preemptions;
  r->stale_reads = o.stale_reads;
  r->stalls = o.stalls;
}

Result finish(const Scenario& scenario, Result r, Outcome failing, const Options& options, const Bounds& bounds,
              std::chrono::steady_clock::time_point start) {
  if (options.shrink) failing = shrink(scenario, std::move(failing), options, bounds);
  r.failed = true;
  describe(&r, failing);
  std::string counts = std::to_string(failing.preemptions) + " preemptions";
  if (failing.stale_reads > 0) counts += ", " + std::to_string(failing.stale_reads) + " stale reads";
  if (failing.stalls > 0) counts += ", " + std::to_string(failing.stalls) + " stalls";
  r.message = failing.failure + "\n  schedule: " + r.schedule + " (" + counts +
              "; replay with explore::replay(scenario, \"" + r.schedule + "\"))";
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// What a random strategy's failure is shrunk with.
Bounds random_bounds(const Options& options) {
  Bounds b;
  b.stale_reads = options.stale_read_one_in > 0 ? ~0U : 0U;  // the failure's own count caps it
  b.stalls = options.max_stalls;
  return b;
}

RunFlags random_flags(const Options& options) {
  return RunFlags{options.stale_read_one_in > 0, options.max_stalls > 0};
}

Result explore_bounded(const Scenario& scenario, const Bounds& bounds, std::uint64_t max_executions,
                       const Options& options) {
  const auto start = std::chrono::steady_clock::now();
  Result r;
  Outcome last;
  if (auto o = search_bounded(scenario, bounds, max_executions, options, &r.executions, &r.steps, &last,
                              &r.complete)) {
    return finish(scenario, std::move(r), std::move(*o), options, bounds, start);
  }
  r.schedule = schedule_string(last.choices);
  r.seconds = seconds_since(start);
  return r;
}

}  // namespace

std::string Result::summary() const {
  std::ostringstream out;
  out << executions << " schedules, " << steps << " steps, " << seconds << " s";
  if (complete) out << ", complete";
  if (failed) out << "; FAILED: " << message;
  return out.str();
}

Result random_walk(const Scenario& scenario, std::uint64_t seed, std::uint64_t executions, const Options& options) {
  const auto start = std::chrono::steady_clock::now();
  Result r;
  for (std::uint64_t e = 0; e < executions; ++e) {
    RandomChooser chooser(detail::mix64(seed ^ detail::mix64(e)), options);
    Outcome o = run_once(scenario, chooser, options, random_flags(options));
    ++r.executions;
    r.steps += o.steps;
    if (!o.failure.empty()) return finish(scenario, std::move(r), std::move(o), options, random_bounds(options), start);
    r.schedule = schedule_string(o.choices);
  }
  r.seconds = seconds_since(start);
  return r;
}

Result pct(const Scenario& scenario, std::uint64_t seed, unsigned depth, std::uint64_t executions,
           const Options& options) {
  const auto start = std::chrono::steady_clock::now();
  Result r;
  std::uint64_t estimate = 0;
  std::size_t threads = 0;
  {
    ReplayChooser probe({});  // one default run: the step count k and the thread count
    Execution e = scenario();
    threads = e.threads.size();
    Run run(std::move(e), probe, options, RunFlags{});
    const std::string failure = run.execute();
    estimate = run.steps();
    ++r.executions;
    r.steps += run.steps();
    if (!failure.empty()) {
      Outcome o{failure, run.choices(), run.continuers(), run.preemptions(), run.stale_reads(), run.stalls(),
                run.steps()};
      return finish(scenario, std::move(r), std::move(o), options, random_bounds(options), start);
    }
  }
  for (std::uint64_t e = 1; e < executions; ++e) {
    PctChooser chooser(detail::mix64(seed ^ detail::mix64(e)), std::max(depth, 1U), threads, estimate, options);
    Outcome o = run_once(scenario, chooser, options, random_flags(options));
    ++r.executions;
    r.steps += o.steps;
    estimate = std::max(estimate, o.steps);
    if (!o.failure.empty()) return finish(scenario, std::move(r), std::move(o), options, random_bounds(options), start);
    r.schedule = schedule_string(o.choices);
  }
  r.seconds = seconds_since(start);
  return r;
}

Result bounded(const Scenario& scenario, unsigned preemptions, std::uint64_t max_executions, const Options& options) {
  Bounds b;
  b.preemptions = preemptions;
  b.stale_reads = options.max_stale_reads;
  b.stalls = options.max_stalls;
  return explore_bounded(scenario, b, max_executions, options);
}

Result stall_sweep(const Scenario& scenario, unsigned thread, unsigned preemptions, std::uint64_t max_executions,
                   const Options& options) {
  Bounds b;
  b.preemptions = preemptions;
  b.stale_reads = options.max_stale_reads;
  b.stalls = 1;
  b.stall_thread = thread;
  return explore_bounded(scenario, b, max_executions, options);
}

Result replay(const Scenario& scenario, const std::string& schedule, const Options& options) {
  const auto start = std::chrono::steady_clock::now();
  Outcome o = replay_once(scenario, parse_schedule(schedule), options);
  Result r;
  r.executions = 1;
  r.steps = o.steps;
  if (!o.failure.empty()) {
    Options no_shrink = options;
    no_shrink.shrink = false;
    return finish(scenario, std::move(r), std::move(o), no_shrink, Bounds{}, start);
  }
  describe(&r, o);
  r.seconds = seconds_since(start);
  return r;
}

void real_time_point() {
  if (g_run != nullptr) g_run->real_time_point();
}

namespace hooks {
void point() {
  if (g_run != nullptr) g_run->point();
}
void wrote() noexcept {
  if (g_run != nullptr) g_run->wrote();
}
void spin() {
  if (g_run != nullptr) g_run->spin();
}
void* thread_object(std::type_index type, void* (*make)(), void (*destroy)(void*)) {
  if (g_run == nullptr) return nullptr;
  return g_run->thread_object(type, make, destroy);
}
bool active() noexcept { return g_run != nullptr; }
void access(const void* address, std::size_t size, bool write) {
  if (g_run != nullptr) g_run->access(address, size, write);
}
void load(const void* address, std::size_t size, std::memory_order order, void* out) {
  if (g_run != nullptr) {
    g_run->load(address, size, order, out);
  } else {
    std::memcpy(out, address, size);
  }
}
void write_begin(const void* address, std::size_t size) {
  if (g_run != nullptr) g_run->write_begin(address, size);
}
void write_end(const void* address, std::size_t /*size*/, WriteKind kind, std::memory_order order) {
  if (g_run != nullptr) g_run->write_end(address, kind, order);
}
void fence(std::memory_order order) {
  if (g_run != nullptr) g_run->fence(order);
}
void atomic_lifetime(const void* address) noexcept {
  if (g_run != nullptr) g_run->atomic_lifetime(address);
}
void plain_access(const void* address, std::size_t size, bool write, const char* name) {
  if (g_run != nullptr) g_run->plain_access(address, size, write, name);
}
void plain_created(const void* address, std::size_t /*size*/, const char* /*name*/) {
  if (g_run != nullptr) g_run->plain_created(address);
}
void plain_destroyed(const void* address) noexcept {
  if (g_run != nullptr) g_run->plain_destroyed(address);
}
std::uint32_t tx_begin(const void* htm, const std::vector<TxObject>* objects) {
  if (g_run == nullptr) return sync::HtmStatus::make_not_started().raw();
  return g_run->tx_begin(htm, objects);
}
void tx_commit() {
  if (g_run != nullptr) g_run->tx_commit();
}
void tx_abort() {
  if (g_run != nullptr) g_run->tx_abort();
}
bool tx_open(const void* htm) noexcept { return g_run != nullptr && g_run->tx_open(htm); }
}  // namespace hooks

}  // namespace cuckoo::explore
