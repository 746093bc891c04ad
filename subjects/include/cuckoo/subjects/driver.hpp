// Multithreaded stress driver: runs a seeded mix of operations from T threads against a
// subject and records the history for the linearizability checker (claim C10).
//
//   Subject subject = make_subject(my_table);      // or fill the callables by hand
//   DriverConfig config;
//   config.seed = 42; config.threads = 4; config.key_range = 8;
//   config.mix = OpMix::map(); config.ops_per_thread = 200;
//   RunResult run = run_stress(subject, config);
//   CheckResult check = check_map(run.history);
//   EXPECT_TRUE(check.linearizable()) << run.reproduce() << check.describe();
//
// Reproducibility. Thread t draws its operations from a generator seeded with
// thread_seed(seed, t), so the sequence of calls each thread makes (kind, key, value) is
// a function of the configuration alone, except under erase_only_present, where it also
// depends on the results the thread saw. The interleaving is up to the scheduler; rerun a
// failing seed a few times, or re-check the saved history (dump_history/parse_history).
//
// Values. The value argument of the i-th operation of thread t is written_value(t, i),
// unique within a run, so a value read back by find names the write that produced it.
//
// Watchdog. The calling thread waits for the workers for at most config.time_limit. If
// they have not all finished by then it prints "deadlock or livelock suspected" with the
// reproduce line and each thread's progress (operations completed, the call it is inside)
// to stderr and calls std::abort(): a thread stuck inside the subject cannot be stopped
// portably, and returning would leave it running against a destroyed subject. Under
// CTest the abort fails the test with that message.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <concepts>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <functional>
#include <iterator>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "cuckoo/subjects/history.hpp"

namespace cuckoo::subjects {

// The subject under test, as callables. Leave empty the operations the subject does not
// have; the mix must then give them weight 0. The callables are invoked concurrently from
// all driver threads: they must be thread-safe to the degree the subject claims to be.
struct Subject {
  std::function<InsertOutcome(std::uint64_t key, std::uint64_t value)> insert;
  std::function<bool(std::uint64_t key)> erase;
  std::function<bool(std::uint64_t key)> contains;
  std::function<std::optional<std::uint64_t>(std::uint64_t key)> find;
  std::function<InsertOutcome(std::uint64_t key, std::uint64_t value)> insert_or_assign;
  std::function<std::uint64_t()> size;
  // The read-modify-write operations (history.hpp says what each does).
  std::function<InsertOutcome(std::uint64_t key, std::uint64_t value)> upsert_add;
  std::function<bool(std::uint64_t key, std::uint64_t value)> update_add;
  std::function<bool(std::uint64_t key)> erase_if_odd;
  std::function<InsertOutcome(std::uint64_t key, std::uint64_t value)> uprase_dec;
};

// Binds the members `target` has: insert(key, value) or insert(key) returning
// InsertOutcome, erase(key) and contains(key) returning bool, find(key) returning
// std::optional<std::uint64_t>, insert_or_assign(key, value) returning InsertOutcome,
// size() returning an unsigned count. Members with other signatures stay unbound (an
// engine returning cuckoo::InsertResult needs an adapter); validate() then names any that
// the mix uses. `target` must outlive the returned Subject.
template <class T>
Subject make_subject(T& target) {
  Subject subject;
  if constexpr (requires(std::uint64_t k) {
                  { target.insert(k, k) } -> std::same_as<InsertOutcome>;
                }) {
    subject.insert = [&target](std::uint64_t key, std::uint64_t value) {
      return target.insert(key, value);
    };
  } else if constexpr (requires(std::uint64_t k) {
                         { target.insert(k) } -> std::same_as<InsertOutcome>;
                       }) {
    subject.insert = [&target](std::uint64_t key, std::uint64_t) { return target.insert(key); };
  }
  if constexpr (requires(std::uint64_t k) {
                  { target.erase(k) } -> std::same_as<bool>;
                }) {
    subject.erase = [&target](std::uint64_t key) { return target.erase(key); };
  }
  if constexpr (requires(std::uint64_t k) {
                  { target.contains(k) } -> std::same_as<bool>;
                }) {
    subject.contains = [&target](std::uint64_t key) { return target.contains(key); };
  }
  if constexpr (requires(std::uint64_t k) {
                  { target.find(k) } -> std::same_as<std::optional<std::uint64_t>>;
                }) {
    subject.find = [&target](std::uint64_t key) { return target.find(key); };
  }
  if constexpr (requires(std::uint64_t k) {
                  { target.insert_or_assign(k, k) } -> std::same_as<InsertOutcome>;
                }) {
    subject.insert_or_assign = [&target](std::uint64_t key, std::uint64_t value) {
      return target.insert_or_assign(key, value);
    };
  }
  if constexpr (requires {
                  { target.size() } -> std::unsigned_integral;
                }) {
    subject.size = [&target]() { return static_cast<std::uint64_t>(target.size()); };
  }
  return subject;
}

// Relative weights of the operation kinds; an operation is drawn with probability
// weight / total().
struct OpMix {
  std::uint32_t insert = 40;
  std::uint32_t erase = 20;
  std::uint32_t contains = 40;
  std::uint32_t find = 0;
  std::uint32_t insert_or_assign = 0;
  std::uint32_t size = 0;
  std::uint32_t upsert_add = 0;
  std::uint32_t update_add = 0;
  std::uint32_t erase_if_odd = 0;
  std::uint32_t uprase_dec = 0;

  // A filter / multiset mix: inserts, erases, lookups and a few size() calls.
  static OpMix multiset() { return OpMix{40, 25, 30, 0, 0, 5}; }
  // A map mix: every map operation.
  static OpMix map() { return OpMix{25, 20, 15, 20, 15, 5}; }
  // A map mix with the read-modify-write operations beside the others.
  static OpMix map_rmw() { return OpMix{15, 10, 5, 15, 5, 5, 15, 10, 10, 10}; }

  std::uint32_t weight(OpKind kind) const noexcept {
    switch (kind) {
      case OpKind::kInsert: return insert;
      case OpKind::kErase: return erase;
      case OpKind::kContains: return contains;
      case OpKind::kFind: return find;
      case OpKind::kInsertOrAssign: return insert_or_assign;
      case OpKind::kSize: return size;
      case OpKind::kUpsertAdd: return upsert_add;
      case OpKind::kUpdateAdd: return update_add;
      case OpKind::kEraseIfOdd: return erase_if_odd;
      case OpKind::kUpraseDec: return uprase_dec;
    }
    return 0;
  }
  std::uint64_t total() const noexcept {
    std::uint64_t sum = 0;
    for (OpKind kind : kAllOpKinds) sum += weight(kind);
    return sum;
  }
};

inline constexpr std::uint32_t kMaxThreads = 256;
// Bound on the operations of one thread in duration mode (ops_per_thread == 0).
inline constexpr std::uint64_t kDefaultMaxOpsPerThread = 1'000'000;
// written_value() keeps the operation index in the low kValueIndexBits bits.
inline constexpr unsigned kValueIndexBits = 40;
inline constexpr std::uint64_t kMaxOpsPerThreadLimit = std::uint64_t{1} << kValueIndexBits;
// Generous, so that sanitizer builds on a loaded machine do not trip it.
inline constexpr std::chrono::milliseconds kDefaultTimeLimit{60'000};

struct DriverConfig {
  std::uint64_t seed = 1;
  std::uint32_t threads = 2;     // 1..kMaxThreads
  std::uint64_t key_range = 16;  // keys are drawn from [0, key_range)
  OpMix mix{};
  // Operations per thread. 0 selects duration mode: each thread runs until `duration`
  // has passed, or until max_ops_per_thread operations.
  std::uint64_t ops_per_thread = 100;
  std::chrono::milliseconds duration{0};
  std::uint64_t max_ops_per_thread = kDefaultMaxOpsPerThread;
  // Watchdog: the whole run must finish within this time (see the top of this file).
  std::chrono::milliseconds time_limit = kDefaultTimeLimit;
  // Thread t inserts, erases and assigns only keys k with k % threads == t; reads (contains,
  // find, size) still range over all keys. REQUIRES: key_range >= threads.
  bool key_ownership = false;
  // Erase only owned keys the thread knows to be present (by its own count of the inserts
  // and erases that succeeded: with ownership it is the keys' only writer); if none is, an
  // insert is done instead. For filters, where erasing an absent item is a precondition
  // violation. REQUIRES: key_ownership.
  bool erase_only_present = false;
};

// The one-line description that, given to a test's reproduce hook, reruns the same
// operation sequences: "seed=0x2a threads=4 key_range=8 mix=i25/e20/c15/f20/a15/s5 ...";
// the read-modify-write weights follow as /ua/pa/eo/ud (upsert_add, update_add,
// erase_if_odd, uprase_dec) when any is set.
inline std::string reproduce_line(const DriverConfig& config) {
  char seed[32];
  std::snprintf(seed, sizeof seed, "0x%llx", static_cast<unsigned long long>(config.seed));
  const OpMix& m = config.mix;
  return std::string("seed=") + seed + " threads=" + std::to_string(config.threads) +
         " key_range=" + std::to_string(config.key_range) + " mix=i" + std::to_string(m.insert) +
         "/e" + std::to_string(m.erase) + "/c" + std::to_string(m.contains) + "/f" +
         std::to_string(m.find) + "/a" + std::to_string(m.insert_or_assign) + "/s" +
         std::to_string(m.size) +
         (m.upsert_add + m.update_add + m.erase_if_odd + m.uprase_dec == 0
              ? std::string()
              : "/ua" + std::to_string(m.upsert_add) + "/pa" + std::to_string(m.update_add) +
                    "/eo" + std::to_string(m.erase_if_odd) + "/ud" + std::to_string(m.uprase_dec)) +
         " ops_per_thread=" + std::to_string(config.ops_per_thread) +
         " duration_ms=" + std::to_string(config.duration.count()) +
         " key_ownership=" + (config.key_ownership ? "1" : "0") +
         " erase_only_present=" + (config.erase_only_present ? "1" : "0");
}

// Throws std::invalid_argument naming the bad DriverConfig field if `config` cannot be run
// against `subject`.
inline void validate(const DriverConfig& config, const Subject& subject) {
  auto fail = [](const std::string& message) {
    throw std::invalid_argument("DriverConfig: " + message);
  };
  if (config.threads == 0 || config.threads > kMaxThreads) {
    fail("threads = " + std::to_string(config.threads) + ", allowed 1.." +
         std::to_string(kMaxThreads));
  }
  if (config.key_range == 0) fail("key_range = 0, allowed >= 1");
  if (config.mix.total() == 0) fail("mix: every weight is 0");
  const bool present[] = {
      static_cast<bool>(subject.insert),           static_cast<bool>(subject.erase),
      static_cast<bool>(subject.contains),         static_cast<bool>(subject.find),
      static_cast<bool>(subject.insert_or_assign), static_cast<bool>(subject.size),
      static_cast<bool>(subject.upsert_add),       static_cast<bool>(subject.update_add),
      static_cast<bool>(subject.erase_if_odd),     static_cast<bool>(subject.uprase_dec)};
  for (std::size_t i = 0; i < std::size(kAllOpKinds); ++i) {
    if (config.mix.weight(kAllOpKinds[i]) > 0 && !present[i]) {
      fail("mix." + std::string(to_string(kAllOpKinds[i])) + " = " +
           std::to_string(config.mix.weight(kAllOpKinds[i])) +
           " but Subject::" + std::string(to_string(kAllOpKinds[i])) + " is empty");
    }
  }
  if (config.ops_per_thread == 0 && config.duration.count() <= 0) {
    fail("ops_per_thread = 0 and duration = 0: give one of them");
  }
  if (config.ops_per_thread > 0 && config.duration.count() > 0) {
    fail("ops_per_thread and duration are both set: give one of them");
  }
  if (config.ops_per_thread > kMaxOpsPerThreadLimit) fail("ops_per_thread above 2^40");
  if (config.max_ops_per_thread == 0 || config.max_ops_per_thread > kMaxOpsPerThreadLimit) {
    fail("max_ops_per_thread = " + std::to_string(config.max_ops_per_thread) + ", allowed 1..2^40");
  }
  if (config.time_limit <= config.duration) fail("time_limit must exceed duration");
  if (config.key_ownership && config.key_range < config.threads) {
    fail("key_ownership with key_range = " + std::to_string(config.key_range) +
         " < threads = " + std::to_string(config.threads) + ": some thread would own no key");
  }
  if (config.erase_only_present && !config.key_ownership) {
    fail("erase_only_present requires key_ownership");
  }
}

// splitmix64: the driver's generator. Small, fast, and reproducible from one word.
class SplitMix64 {
 public:
  explicit SplitMix64(std::uint64_t seed) noexcept : state_(seed) {}
  std::uint64_t next() noexcept {
    std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  // Uniform in [0, n) up to a modulo bias below n / 2^64. REQUIRES: n > 0.
  std::uint64_t below(std::uint64_t n) noexcept { return next() % n; }

 private:
  std::uint64_t state_;
};

// The seed of thread `thread`'s generator in a run seeded with `seed`.
inline std::uint64_t thread_seed(std::uint64_t seed, std::uint32_t thread) noexcept {
  SplitMix64 mixer(seed ^ (0xd1b54a32d192ed03ULL * (std::uint64_t{thread} + 1)));
  return mixer.next();
}

// The value argument of operation `index` of thread `thread`: unique within a run.
constexpr std::uint64_t written_value(std::uint32_t thread, std::uint64_t index) noexcept {
  return ((std::uint64_t{thread} + 1) << kValueIndexBits) | index;
}

struct RunResult {
  History history;  // every completed operation, sorted by invocation stamp
  DriverConfig config;
  std::chrono::nanoseconds elapsed{0};  // from the start signal to the last worker's end
  std::vector<std::uint64_t> ops_per_thread;
  std::string reproduce() const { return reproduce_line(config); }
};

namespace detail {

// What the watchdog reports about a thread. Written by the thread (relaxed), read by the
// watchdog: a snapshot for a message, not a synchronization device.
struct alignas(64) ThreadProgress {
  static constexpr std::uint8_t kBetweenCalls = 0xff;
  std::atomic<std::uint64_t> completed{0};
  std::atomic<std::uint8_t> current_kind{kBetweenCalls};
  std::atomic<std::uint64_t> current_key{0};
  std::atomic<std::uint64_t> current_value{0};
  std::atomic<bool> finished{false};
};

constexpr bool kind_mutates(OpKind kind) noexcept {
  return kind == OpKind::kInsert || kind == OpKind::kErase || kind == OpKind::kInsertOrAssign ||
         kind == OpKind::kUpsertAdd || kind == OpKind::kUpdateAdd || kind == OpKind::kEraseIfOdd ||
         kind == OpKind::kUpraseDec;
}

// An operation kind drawn with probability weight / total. REQUIRES: mix.total() > 0.
inline OpKind draw_kind(const OpMix& mix, SplitMix64& rng) {
  std::uint64_t pick = rng.below(mix.total());
  for (OpKind kind : kAllOpKinds) {
    const std::uint32_t weight = mix.weight(kind);
    if (pick < weight) return kind;
    pick -= weight;
  }
  return OpKind::kInsert;  // unreachable: pick < total
}

// Under key ownership, the keys thread t writes: t, t + threads, t + 2 * threads, ...
// below key_range; and how many copies of each the thread knows to be stored (it is their
// only writer, so its count is exact for a correct subject).
class OwnedKeys {
 public:
  // REQUIRES: config.key_ownership, thread < config.threads <= config.key_range.
  OwnedKeys(const DriverConfig& config, std::uint32_t thread)
      : thread_(thread),
        stride_(config.threads),
        copies_((config.key_range - 1 - thread) / config.threads + 1, 0) {}

  std::uint64_t draw(SplitMix64& rng) const { return key_at(rng.below(copies_.size())); }

  // An owned key with at least one copy stored, or none if there is none. Scans from a
  // random start, so the scan is bounded by the owned key count.
  std::optional<std::uint64_t> draw_present(SplitMix64& rng) const {
    const std::size_t start = rng.below(copies_.size());
    for (std::size_t scanned = 0; scanned < copies_.size(); ++scanned) {
      const std::size_t index = (start + scanned) % copies_.size();
      if (copies_[index] > 0) return key_at(index);
    }
    return std::nullopt;
  }

  // Records that the thread's operation on owned `key` added (+1) or removed (-1) a copy.
  void record(std::uint64_t key, int delta) {
    std::uint64_t& copies = copies_[(key - thread_) / stride_];
    if (delta > 0) ++copies;
    if (delta < 0 && copies > 0) --copies;
  }

 private:
  std::uint64_t key_at(std::size_t index) const { return thread_ + index * stride_; }

  std::uint64_t thread_;
  std::uint64_t stride_;
  std::vector<std::uint64_t> copies_;
};

// Calls the subject between the recorder's stamps; returns +1 if the call added a copy of
// `key`, -1 if it removed one, 0 otherwise.
inline int call_subject(const Subject& subject, HistoryRecorder::ThreadLog& log, OpKind kind,
                        std::uint64_t key, std::uint64_t value) {
  switch (kind) {
    case OpKind::kInsert:
      return log.record(kind, key, value, [&] { return subject.insert(key, value); }) ==
                     InsertOutcome::kInserted
                 ? 1
                 : 0;
    case OpKind::kInsertOrAssign:
      return log.record(kind, key, value, [&] { return subject.insert_or_assign(key, value); }) ==
                     InsertOutcome::kInserted
                 ? 1
                 : 0;
    case OpKind::kErase:
      return log.record(kind, key, 0, [&] { return subject.erase(key); }) ? -1 : 0;
    case OpKind::kContains: log.record(kind, key, 0, [&] { return subject.contains(key); }); break;
    case OpKind::kFind: log.record(kind, key, 0, [&] { return subject.find(key); }); break;
    case OpKind::kSize: log.record(kind, 0, 0, [&] { return subject.size(); }); break;
    case OpKind::kUpsertAdd:
      return log.record(kind, key, value, [&] { return subject.upsert_add(key, value); }) ==
                     InsertOutcome::kInserted
                 ? 1
                 : 0;
    case OpKind::kUpdateAdd:
      log.record(kind, key, value, [&] { return subject.update_add(key, value); });
      break;
    case OpKind::kEraseIfOdd:
      log.record(kind, key, 0, [&] { return subject.erase_if_odd(key); });
      break;
    case OpKind::kUpraseDec:
      return log.record(kind, key, value, [&] { return subject.uprase_dec(key, value); }) ==
                     InsertOutcome::kInserted
                 ? 1
                 : 0;
  }
  return 0;
}

[[noreturn]] inline void report_hang_and_abort(const DriverConfig& config,
                                               const ThreadProgress* progress) {
  std::string message =
      "cuckoo::stress: deadlock or livelock suspected: the run did not finish "
      "within its time limit of " +
      std::to_string(config.time_limit.count()) + " ms\n  reproduce: " + reproduce_line(config) +
      "\n";
  for (std::uint32_t t = 0; t < config.threads; ++t) {
    const ThreadProgress& p = progress[t];
    message += "  thread " + std::to_string(t) + ": " +
               std::to_string(p.completed.load(std::memory_order_relaxed)) + " ops completed, ";
    const std::uint8_t kind = p.current_kind.load(std::memory_order_relaxed);
    if (p.finished.load(std::memory_order_relaxed)) {
      message += "finished\n";
    } else if (kind == ThreadProgress::kBetweenCalls) {
      message += "between calls\n";
    } else {
      Operation op;
      op.kind = static_cast<OpKind>(kind);
      op.key = p.current_key.load(std::memory_order_relaxed);
      op.value = p.current_value.load(std::memory_order_relaxed);
      message += "inside " + format_call(op) + "\n";
    }
  }
  message += "  (a thread stuck inside the subject cannot be stopped portably: aborting)\n";
  std::fputs(message.c_str(), stderr);
  std::fflush(stderr);
  std::abort();
}

}  // namespace detail

// Runs `config.threads` threads against `subject` and returns the recorded history.
// Throws std::invalid_argument for a bad configuration (see validate), and
// std::runtime_error, naming the thread and the reproduce line, if the subject threw.
// Aborts the process if the watchdog fires (see the top of this file).
inline RunResult run_stress(const Subject& subject, const DriverConfig& config) {
  validate(config, subject);
  const std::uint32_t threads = config.threads;
  const bool duration_mode = config.ops_per_thread == 0;
  const std::uint64_t op_bound = duration_mode ? config.max_ops_per_thread : config.ops_per_thread;
  constexpr std::uint64_t kMaxReservePerThread = 1 << 16;
  HistoryRecorder recorder(threads,
                           static_cast<std::size_t>(std::min(op_bound, kMaxReservePerThread)));
  const std::unique_ptr<detail::ThreadProgress[]> progress(new detail::ThreadProgress[threads]);
  std::atomic<bool> go{false};
  std::atomic<std::uint32_t> arrived{0};
  std::atomic<bool> stop{false};
  std::mutex finish_mutex;
  std::condition_variable finish_cv;
  std::uint32_t finished = 0;  // guarded by finish_mutex
  std::vector<std::exception_ptr> errors(threads);

  auto worker = [&](std::uint32_t t) {
    HistoryRecorder::ThreadLog& log = recorder.thread(t);
    detail::ThreadProgress& my_progress = progress[t];
    try {
      go.wait(false, std::memory_order_acquire);
      // Start together: a thread woken early would otherwise run many operations alone
      // before the others are scheduled, and short runs would barely overlap. Bounded by
      // the other threads' wake-up; they stop spinning the moment the last one arrives.
      arrived.fetch_add(1, std::memory_order_acq_rel);
      while (arrived.load(std::memory_order_acquire) < threads) std::this_thread::yield();
      SplitMix64 rng(thread_seed(config.seed, t));
      std::optional<detail::OwnedKeys> owned;
      if (config.key_ownership) owned.emplace(config, t);
      for (std::uint64_t i = 0; i < op_bound && !stop.load(std::memory_order_relaxed); ++i) {
        OpKind kind = detail::draw_kind(config.mix, rng);
        std::uint64_t key = 0;
        if (owned && detail::kind_mutates(kind)) {
          std::optional<std::uint64_t> present;
          if (kind == OpKind::kErase && config.erase_only_present)
            present = owned->draw_present(rng);
          if (kind == OpKind::kErase && config.erase_only_present && !present) {
            kind = OpKind::kInsert;  // nothing of ours to erase: add something instead
          }
          key = present ? *present : owned->draw(rng);
        } else if (kind != OpKind::kSize) {
          key = rng.below(config.key_range);
        }
        const std::uint64_t value = kind_has_value(kind) ? written_value(t, i) : 0;
        my_progress.current_key.store(key, std::memory_order_relaxed);
        my_progress.current_value.store(value, std::memory_order_relaxed);
        my_progress.current_kind.store(static_cast<std::uint8_t>(kind), std::memory_order_relaxed);
        const int delta = detail::call_subject(subject, log, kind, key, value);
        my_progress.current_kind.store(detail::ThreadProgress::kBetweenCalls,
                                       std::memory_order_relaxed);
        my_progress.completed.store(i + 1, std::memory_order_relaxed);
        if (owned && detail::kind_mutates(kind)) owned->record(key, delta);
      }
    } catch (...) {
      errors[t] = std::current_exception();
      stop.store(true, std::memory_order_relaxed);
    }
    my_progress.finished.store(true, std::memory_order_relaxed);
    const std::lock_guard<std::mutex> lock(finish_mutex);
    ++finished;
    finish_cv.notify_all();
  };

  std::vector<std::thread> workers;
  workers.reserve(threads);
  try {
    for (std::uint32_t t = 0; t < threads; ++t) workers.emplace_back(worker, t);
  } catch (...) {
    stop.store(true, std::memory_order_relaxed);
    go.store(true, std::memory_order_release);
    go.notify_all();
    for (std::thread& w : workers) w.join();
    throw;
  }

  const auto start = std::chrono::steady_clock::now();
  go.store(true, std::memory_order_release);
  go.notify_all();
  {
    std::unique_lock<std::mutex> lock(finish_mutex);
    auto all_finished = [&] { return finished == threads; };
    if (duration_mode) {
      finish_cv.wait_until(lock, start + config.duration, all_finished);
      stop.store(true, std::memory_order_relaxed);
    }
    if (!finish_cv.wait_until(lock, start + config.time_limit, all_finished)) {
      lock.unlock();
      detail::report_hang_and_abort(config, progress.get());
    }
  }
  RunResult result;
  result.elapsed = std::chrono::steady_clock::now() - start;
  for (std::thread& w : workers) w.join();
  for (std::uint32_t t = 0; t < threads; ++t) {
    if (!errors[t]) continue;
    std::string what = "an exception not derived from std::exception";
    try {
      std::rethrow_exception(errors[t]);
    } catch (const std::exception& e) {
      what = e.what();
    } catch (...) {
    }
    throw std::runtime_error("cuckoo::stress: the subject threw in thread " + std::to_string(t) +
                             ": " + what + "; reproduce: " + reproduce_line(config));
  }
  result.config = config;
  result.ops_per_thread.resize(threads);
  for (std::uint32_t t = 0; t < threads; ++t) result.ops_per_thread[t] = recorder.thread(t).size();
  result.history = recorder.take_history();
  return result;
}

}  // namespace cuckoo::subjects
