// The deterministic scheduler (scheduler.hpp): fibers on ucontext, a scheduling loop on
// the OS thread's own stack, and the strategies as choosers.
//
// Control flow. Every switch goes through the loop: a fiber that reaches a scheduling
// point (an atomic access, a spin, its end) swaps back to the loop, which picks the
// next thread and swaps to it. A fiber's stack is freed with its execution; a failed
// execution's other fibers are abandoned where they stand, and their stacks, per-thread
// objects and the scenario's state are kept, never destroyed (Run::abandoned).
#include "cuckoo/explore/scheduler.hpp"

#include <ucontext.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <exception>
#include <map>
#include <optional>
#include <sstream>
#include <utility>

#include "cuckoo/detail/rng.hpp"
#include "cuckoo/hash.hpp"
#include "cuckoo/sync/htm.hpp"

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

// A choice: a thread number, with kAbortChoice set for "abort this thread's open
// transaction, then run the thread" (written "2a").
constexpr unsigned kAbortChoice = 1U << 30;
constexpr unsigned thread_of(unsigned choice) { return choice & ~kAbortChoice; }

// What a strategy sees at a decision: the runnable threads (ascending), the thread that
// ran last if it can continue, and the runnable threads whose open transaction may be
// aborted here.
struct Decision {
  const std::vector<unsigned>& runnable;
  std::optional<unsigned> current;
  std::uint64_t step;
  const std::vector<unsigned>& abortable;
};

// A preemption: switching away from a thread that could continue, or aborting a
// transaction.
bool preempts(unsigned choice, std::optional<unsigned> current) {
  return (choice & kAbortChoice) != 0 || (current && choice != *current);
}

// One abort choice in this many, where the random strategies may abort a transaction.
constexpr std::uint64_t kAbortOneIn = 8;

// The status of an abort the explorer chooses: no reason bit, as an interrupt gives.
constexpr std::uint32_t kChosenAbortStatus = 0;

class Chooser {
 public:
  virtual ~Chooser() = default;
  virtual unsigned choose(const Decision& d) = 0;
};

// The default of a decision: continue the current thread, else the lowest runnable.
unsigned default_choice(const Decision& d) { return d.current ? *d.current : d.runnable.front(); }

struct ObjectSlot {
  void* object = nullptr;
  void (*destroy)(void*) = nullptr;
};

// A logical thread's emulated transaction (see scheduler.hpp, "Transactions").
struct Tx {
  const void* htm = nullptr;  // open iff not null
  bool doomed = false;        // aborted while suspended; jumps back into begin on resume
  bool resuming = false;      // set just before that jump
  std::uint32_t status = 0;   // the abort status begin() returns the second time
  ucontext_t context{};       // registers at begin
  char* stack_low = nullptr;  // the stack from stack_low to the fiber's top, at begin
  std::vector<char> stack_copy;
  struct Undo {
    void* address;
    std::size_t size;
    unsigned char old[16];
  };
  std::vector<Undo> undo;  // atomic writes, oldest first
  std::vector<const void*> reads;
  std::vector<const void*> writes;
  const std::vector<hooks::TxObject>* objects = nullptr;
  bool snapshot_pending = false;  // objects are copied at the first access
  std::vector<std::function<void()>> restores;

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

struct Fiber {
  ucontext_t context{};
  std::unique_ptr<char[]> stack;
  std::function<void()> body;
  bool finished = false;
  bool blocked = false;  // spinning until a write after blocked_epoch
  std::uint64_t blocked_epoch = 0;
  // The write epoch of this thread's last spin, +1 (0: never spun).
  std::uint64_t spun_at = 0;
  std::map<std::type_index, ObjectSlot> objects;
  Tx tx;
#ifdef CUCKOO_EXPLORE_TSAN
  void* tsan_fiber = nullptr;
#endif
};

// One execution of a scenario under a chooser.
class Run {
 public:
  Run(Execution execution, Chooser& chooser, const Options& options)
      : execution_(std::move(execution)), chooser_(chooser), options_(options) {}

  // Runs to completion or to the first failure. Returns the failure, or "".
  std::string execute();

  const std::vector<unsigned>& choices() const { return choices_; }
  // For each recorded choice: the thread that could have continued (or -1).
  const std::vector<int>& continuers() const { return continuers_; }
  unsigned preemptions() const { return preemptions_; }
  std::uint64_t steps() const { return steps_; }

  // Called from fibers (through the hooks).
  void point();
  void wrote() noexcept { ++epoch_; }
  void spin();
  void* thread_object(std::type_index type, void* (*make)(), void (*destroy)(void*));
  void access(const void* address, std::size_t size, bool write);
  std::uint32_t tx_begin(const void* htm, const std::vector<hooks::TxObject>* objects);
  void tx_commit();
  void tx_abort();
  bool tx_open(const void* htm) const noexcept { return fibers_[running_].tx.htm == htm; }

 private:
  // Aborts thread t's open transaction now (see scheduler.hpp, "Transactions").
  void doom(unsigned t, std::uint32_t status);
  // Undoes the transaction's effects: atomics, then protected objects, newest first.
  static void discard(Tx& tx);
  // Aborts other threads' transactions that conflict with an access.
  void conflicts(const void* address, bool write);
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
  std::vector<Fiber> fibers_;
  ucontext_t loop_context_{};
  unsigned running_ = 0;
  std::optional<unsigned> last_;
  std::uint64_t epoch_ = 0;
  std::uint64_t steps_ = 0;
  std::vector<unsigned> choices_;
  std::vector<int> continuers_;
  unsigned preemptions_ = 0;
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

void Run::point() {
  ++steps_;
  to_loop(false);
}

// A spin blocks its thread only once the thread has run a whole iteration of its spin
// loop with no write by anyone in between: the first spin at a write epoch is a plain
// scheduling point (the thread may have spun on what it read before a write it has not
// looked at since, or after a failed CAS on a lock that is free by now, and its next
// iteration would then go on); a second spin at the same epoch means the loop, re-run
// on the same memory, spins again, so the thread waits for a write.
void Run::spin() {
  Fiber& self = fibers_[running_];
  if (self.spun_at == epoch_ + 1) {
    self.blocked = true;
    self.blocked_epoch = epoch_;
  } else {
    self.spun_at = epoch_ + 1;
    ++steps_;
  }
  to_loop(false);
}

void* Run::thread_object(std::type_index type, void* (*make)(), void (*destroy)(void*)) {
  ObjectSlot& slot = fibers_[running_].objects[type];
  if (slot.object == nullptr) slot = {make(), destroy};
  return slot.object;
}

void Run::discard(Tx& tx) {
  for (auto u = tx.undo.rbegin(); u != tx.undo.rend(); ++u) std::memcpy(u->address, u->old, u->size);
  for (auto r = tx.restores.rbegin(); r != tx.restores.rend(); ++r) (*r)();
  tx.undo.clear();
  tx.restores.clear();
  tx.reads.clear();
  tx.writes.clear();
}

void Run::doom(unsigned t, std::uint32_t status) {
  Fiber& f = fibers_[t];
  discard(f.tx);
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

void Run::access(const void* address, std::size_t size, bool write) {
  point();
  conflicts(address, write);
  Tx& tx = fibers_[running_].tx;
  if (tx.htm == nullptr) return;
  if (tx.snapshot_pending) {
    for (const hooks::TxObject& o : *tx.objects) tx.restores.push_back(o.snapshot());
    tx.snapshot_pending = false;
  }
  if (!write) {
    if (!tx.in(tx.reads, address)) tx.reads.push_back(address);
    return;
  }
  if (!tx.in(tx.writes, address)) tx.writes.push_back(address);
  Tx::Undo u{const_cast<void*>(address), std::min<std::size_t>(size, sizeof(Tx::Undo::old)), {}};
  std::memcpy(u.old, address, u.size);
  tx.undo.push_back(u);
}

// Not inlined: getcontext saves this frame, which must still be there (restored from the
// copy) when an abort returns here a second time.
__attribute__((noinline)) std::uint32_t Run::tx_begin(const void* htm,
                                                     const std::vector<hooks::TxObject>* objects) {
#ifdef CUCKOO_EXPLORE_TSAN
  (void)htm;
  (void)objects;
  return sync::HtmStatus::make_not_started().raw();
#else
  Tx& tx = fibers_[running_].tx;
  if (tx.htm != nullptr) return sync::HtmStatus(sync::HtmStatus::kNested).raw();
  tx.close();
  tx.htm = htm;
  tx.objects = objects;
  // Every transaction writes the objects it protects (it cannot say which bytes): a
  // transaction of another thread on the same objects conflicts with it.
  if (objects != nullptr) {
    for (const hooks::TxObject& o : *objects) {
      conflicts(o.address, true);
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
  fibers_[running_].tx.close();
}

void Run::tx_abort() {
  Tx& tx = fibers_[running_].tx;
  discard(tx);
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

std::string Run::execute() {
  const std::size_t n = execution_.threads.size();
  fibers_.resize(n);
#ifdef CUCKOO_EXPLORE_TSAN
  loop_tsan_fiber_ = __tsan_get_current_fiber();
#endif
  for (std::size_t i = 0; i < n; ++i) {
    Fiber& f = fibers_[i];
    f.body = execution_.threads[i];
    f.stack = std::make_unique<char[]>(options_.stack_bytes);
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
  runnable.reserve(n);
  blocked.reserve(n);
  abortable.reserve(n);
  bool completed = false;
  // Bound: each iteration is one step of some thread; at most max_steps + n + 1.
  while (failure_.empty()) {
    runnable.clear();
    blocked.clear();
    for (unsigned i = 0; i < n; ++i) {
      Fiber& f = fibers_[i];
      if (f.finished) continue;
      if (f.blocked && f.blocked_epoch != epoch_) f.blocked = false;
      if (f.blocked) {
        blocked.push_back(i);
      } else {
        runnable.push_back(i);
      }
    }
    if (runnable.empty()) {
      if (blocked.empty()) {
        completed = true;
        break;
      }
      std::string who;
      for (const unsigned b : blocked) who += (who.empty() ? "" : ", ") + std::to_string(b);
      fail("deadlock: every unfinished thread (" + who + ") waits in a spin for a write that "
           "no thread can make");
      break;
    }
    if (steps_ > options_.max_steps) {
      fail("step bound: more than " + std::to_string(options_.max_steps) +
           " scheduling points (a livelock or an unbounded spin)");
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
    unsigned next = runnable.front();
    if (runnable.size() > 1 || !abortable.empty()) {
      const Decision d{runnable, current, steps_, abortable};
      next = chooser_.choose(d);
      const std::vector<unsigned>& allowed = (next & kAbortChoice) != 0 ? abortable : runnable;
      if (std::find(allowed.begin(), allowed.end(), thread_of(next)) == allowed.end()) next = default_choice(d);
      choices_.push_back(next);
      continuers_.push_back(current ? static_cast<int>(*current) : -1);
      if (preempts(next, current)) ++preemptions_;
    }
    if ((next & kAbortChoice) != 0) {
      next = thread_of(next);
      doom(next, kChosenAbortStatus);
    }
    last_ = next;
    to_fiber(next);
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
  if (!failure_.empty()) return failure_;
  if (execution_.check) return execution_.check();
  return {};
}

std::string schedule_string(const std::vector<unsigned>& choices) {
  std::string s;
  for (const unsigned c : choices) {
    if (!s.empty()) s += '.';
    s += std::to_string(thread_of(c));
    if ((c & kAbortChoice) != 0) s += 'a';
  }
  return s;
}

std::vector<unsigned> parse_schedule(const std::string& text) {
  std::vector<unsigned> choices;
  if (text.empty()) return choices;
  std::size_t at = 0;
  while (at <= text.size()) {
    const std::size_t dot = std::min(text.find('.', at), text.size());
    std::string part = text.substr(at, dot - at);
    const bool abort = !part.empty() && part.back() == 'a';
    if (abort) part.pop_back();
    if (part.empty() || part.size() > 3 || part.find_first_not_of("0123456789") != std::string::npos) {
      throw std::invalid_argument("schedule \"" + text +
                                  "\": expected thread numbers (each optionally followed by 'a', abort its "
                                  "transaction) separated by '.', got \"" +
                                  text.substr(at, dot - at) + "\" at character " + std::to_string(at));
    }
    choices.push_back(static_cast<unsigned>(std::stoul(part)) | (abort ? kAbortChoice : 0U));
    at = dot + 1;
  }
  return choices;
}

class RandomChooser : public Chooser {
 public:
  explicit RandomChooser(std::uint64_t seed) : rng_(seed) {}
  unsigned choose(const Decision& d) override {
    if (!d.abortable.empty() && rng_.below(kAbortOneIn) == 0) {
      return d.abortable[static_cast<std::size_t>(rng_.below(d.abortable.size()))] | kAbortChoice;
    }
    return d.runnable[static_cast<std::size_t>(rng_.below(d.runnable.size()))];
  }

 private:
  detail::Rng rng_;
};

class ReplayChooser : public Chooser {
 public:
  explicit ReplayChooser(std::vector<unsigned> choices) : choices_(std::move(choices)) {}
  unsigned choose(const Decision& d) override {
    if (at_ < choices_.size()) return choices_[at_++];
    return default_choice(d);
  }

 private:
  std::vector<unsigned> choices_;
  std::size_t at_ = 0;
};

// PCT: distinct random priorities >= depth per thread; at depth - 1 random steps the
// running thread's priority drops to the change point's index (below every initial one).
class PctChooser : public Chooser {
 public:
  PctChooser(std::uint64_t seed, unsigned depth, std::size_t threads, std::uint64_t steps_estimate)
      : rng_(seed) {
    for (std::size_t i = 0; i < threads; ++i) priority_.push_back(depth + static_cast<unsigned>(i));
    for (std::size_t i = threads; i > 1; --i) {  // Fisher-Yates
      std::swap(priority_[i - 1], priority_[static_cast<std::size_t>(rng_.below(i))]);
    }
    for (unsigned c = 1; c < depth; ++c) change_at_.emplace(1 + rng_.below(std::max<std::uint64_t>(steps_estimate, 1)), c);
  }
  unsigned choose(const Decision& d) override {
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
      return best | kAbortChoice;
    }
    return best;
  }

 private:
  detail::Rng rng_;
  std::vector<unsigned> priority_;
  std::multimap<std::uint64_t, unsigned> change_at_;
  std::optional<unsigned> last_;
};

// Depth-first search over the decisions, preemption-bounded. The stack holds, per
// decision of the current execution, the alternatives in order (the default first) and
// which one this execution takes.
class DfsChooser : public Chooser {
 public:
  explicit DfsChooser(unsigned bound) : bound_(bound) {}

  unsigned choose(const Decision& d) override {
    if (depth_ < stack_.size()) {  // replaying the prefix the search fixed
      const Frame& f = stack_[depth_];
      ++depth_;
      return f.order[f.taken];
    }
    Frame f;
    f.order.push_back(default_choice(d));
    for (const unsigned t : d.runnable) {
      if (t != f.order.front()) f.order.push_back(t);
    }
    for (const unsigned t : d.abortable) f.order.push_back(t | kAbortChoice);
    f.current = d.current;
    f.preemptions_before = preemptions_so_far();
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
        if (f.preemptions_before + (preempts(f.order[f.taken], f.current) ? 1U : 0U) <= bound_) return true;
      }
      stack_.pop_back();
    }
    return false;
  }

 private:
  struct Frame {
    std::vector<unsigned> order;
    std::size_t taken = 0;
    std::optional<unsigned> current;
    unsigned preemptions_before = 0;
  };
  // The preemptions of the decisions before depth_ (constant time: each frame keeps the
  // count before it).
  unsigned preemptions_so_far() const {
    if (depth_ == 0) return 0;
    const Frame& f = stack_[depth_ - 1];
    return f.preemptions_before + (preempts(f.order[f.taken], f.current) ? 1U : 0U);
  }

  unsigned bound_;
  std::vector<Frame> stack_;
  std::size_t depth_ = 0;
};

struct Outcome {
  std::string failure;
  std::vector<unsigned> choices;
  std::vector<int> continuers;
  unsigned preemptions = 0;
  std::uint64_t steps = 0;
};

Outcome run_once(const Scenario& scenario, Chooser& chooser, const Options& options) {
  Run run(scenario(), chooser, options);
  Outcome o;
  o.failure = run.execute();
  o.choices = run.choices();
  o.continuers = run.continuers();
  o.preemptions = run.preemptions();
  o.steps = run.steps();
  return o;
}

// The first failing execution of a preemption-bounded depth-first search, if any within
// max_executions. *executions and *steps count what ran; *complete says the search ended.
std::optional<Outcome> search_bounded(const Scenario& scenario, unsigned bound, std::uint64_t max_executions,
                                      const Options& options, std::uint64_t* executions, std::uint64_t* steps,
                                      std::string* last_schedule, bool* complete) {
  DfsChooser chooser(bound);
  *complete = false;
  // Bound: max_executions.
  for (std::uint64_t e = 0; e < max_executions; ++e) {
    Outcome o = run_once(scenario, chooser, options);
    ++*executions;
    *steps += o.steps;
    if (!o.failure.empty()) return o;
    if (last_schedule != nullptr) *last_schedule = schedule_string(o.choices);
    if (!chooser.advance()) {
      *complete = true;
      break;
    }
  }
  return std::nullopt;
}

// Executions a shrink may spend on each smaller preemption bound.
constexpr std::uint64_t kShrinkSearchExecutions = 20'000;

// Fewer preemptions for a failing schedule. First greedily: at each preemption (or
// chosen abort), from the last, continue the preempted thread (or do not abort) instead (then the recorded choices, or the
// defaults from there on), keeping any candidate that still fails with fewer
// preemptions. Then, if any is left, a bounded search at each smaller bound
// from 0 up (kShrinkSearchExecutions each): its first failure has the fewest
// preemptions any failure has, when that search is complete.
Outcome shrink(const Scenario& scenario, Outcome failing, const Options& options) {
  bool improved = true;
  // Bound: each accepted candidate has fewer preemptions; at most 2 preemptions^2 replays.
  while (improved && failing.preemptions > 0) {
    improved = false;
    for (std::size_t i = failing.choices.size(); i-- > 0 && !improved;) {
      const int cont = failing.continuers[i];
      const unsigned choice = failing.choices[i];
      const std::optional<unsigned> current = cont < 0 ? std::nullopt : std::optional<unsigned>(cont);
      if (!preempts(choice, current)) continue;
      // Continue the preempted thread (or, for an abort with none, run without it).
      const unsigned instead = current ? *current : thread_of(choice);
      std::vector<unsigned> prefix(failing.choices.begin(), failing.choices.begin() + static_cast<std::ptrdiff_t>(i));
      prefix.push_back(instead);
      std::vector<unsigned> with_rest = prefix;
      with_rest.insert(with_rest.end(), failing.choices.begin() + static_cast<std::ptrdiff_t>(i) + 1,
                       failing.choices.end());
      for (const std::vector<unsigned>* candidate : {&prefix, &with_rest}) {
        ReplayChooser chooser(*candidate);
        Outcome o = run_once(scenario, chooser, options);
        if (!o.failure.empty() && o.preemptions < failing.preemptions) {
          failing = std::move(o);
          improved = true;
          break;
        }
      }
    }
  }
  for (unsigned bound = 0; bound < failing.preemptions; ++bound) {
    std::uint64_t executions = 0;
    std::uint64_t steps = 0;
    bool complete = false;
    if (auto o = search_bounded(scenario, bound, kShrinkSearchExecutions, options, &executions, &steps, nullptr,
                                &complete)) {
      return std::move(*o);
    }
  }
  return failing;
}

Result finish(const Scenario& scenario, Result r, Outcome failing, const Options& options,
              std::chrono::steady_clock::time_point start) {
  if (options.shrink) failing = shrink(scenario, std::move(failing), options);
  r.failed = true;
  r.schedule = schedule_string(failing.choices);
  r.preemptions = failing.preemptions;
  r.message = failing.failure + "\n  schedule: " + r.schedule + " (" + std::to_string(failing.preemptions) +
              " preemptions; replay with explore::replay(scenario, \"" + r.schedule + "\"))";
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
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
    RandomChooser chooser(detail::mix64(seed ^ detail::mix64(e)));
    Outcome o = run_once(scenario, chooser, options);
    ++r.executions;
    r.steps += o.steps;
    if (!o.failure.empty()) return finish(scenario, std::move(r), std::move(o), options, start);
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
    Run run(std::move(e), probe, options);
    const std::string failure = run.execute();
    estimate = run.steps();
    ++r.executions;
    r.steps += run.steps();
    if (!failure.empty()) {
      Outcome o{failure, run.choices(), run.continuers(), run.preemptions(), run.steps()};
      return finish(scenario, std::move(r), std::move(o), options, start);
    }
  }
  for (std::uint64_t e = 1; e < executions; ++e) {
    PctChooser chooser(detail::mix64(seed ^ detail::mix64(e)), std::max(depth, 1U), threads, estimate);
    Outcome o = run_once(scenario, chooser, options);
    ++r.executions;
    r.steps += o.steps;
    estimate = std::max(estimate, o.steps);
    if (!o.failure.empty()) return finish(scenario, std::move(r), std::move(o), options, start);
    r.schedule = schedule_string(o.choices);
  }
  r.seconds = seconds_since(start);
  return r;
}

Result bounded(const Scenario& scenario, unsigned preemptions, std::uint64_t max_executions, const Options& options) {
  const auto start = std::chrono::steady_clock::now();
  Result r;
  if (auto o = search_bounded(scenario, preemptions, max_executions, options, &r.executions, &r.steps,
                              &r.schedule, &r.complete)) {
    return finish(scenario, std::move(r), std::move(*o), options, start);
  }
  r.seconds = seconds_since(start);
  return r;
}

Result replay(const Scenario& scenario, const std::string& schedule, const Options& options) {
  const auto start = std::chrono::steady_clock::now();
  ReplayChooser chooser(parse_schedule(schedule));
  Outcome o = run_once(scenario, chooser, options);
  Result r;
  r.executions = 1;
  r.steps = o.steps;
  if (!o.failure.empty()) {
    Options no_shrink = options;
    no_shrink.shrink = false;
    return finish(scenario, std::move(r), std::move(o), no_shrink, start);
  }
  r.schedule = schedule_string(o.choices);
  r.preemptions = o.preemptions;
  r.seconds = seconds_since(start);
  return r;
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
