// Tests of cuckoo::sync::ElidedLock (seed 004, Listings 1.1 and 1.2) under every HTM
// backend: mutual exclusion with a multi-word invariant in read and write mode, the
// path counters (commit in a transaction, explicit abort because the fallback lock was
// held, retry, give up and fall back), exact path sequences under a script, nesting,
// exceptions, and a non-default fallback lock. Multithreaded tests run under a watchdog
// that names the backend and seed if they deadlock.
#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <latch>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "cuckoo/error.hpp"
#include "cuckoo/sync/elided_lock.hpp"
#include "support/watchdog.hpp"

namespace {

using cuckoo::test::current_test_name;
using cuckoo::test::Watchdog;

using cuckoo::ConfigError;
using cuckoo::sync::ElidedGuard;
using cuckoo::sync::ElidedLock;
using cuckoo::sync::ElidedReadGuard;
using cuckoo::sync::ElidedWriteGuard;
using cuckoo::sync::ElisionMode;
using cuckoo::sync::ElisionPath;
using cuckoo::sync::ElisionStats;
using cuckoo::sync::hardware_rtm_available;
using cuckoo::sync::HtmBackend;
using cuckoo::sync::HtmPolicy;
using cuckoo::sync::HtmStatus;
using cuckoo::sync::kNoElision;
using cuckoo::sync::ReadMode;
using cuckoo::sync::ScriptEnd;
using cuckoo::sync::WriteMode;

using Lock = ElidedLock<>;
constexpr std::uint32_t kMaxRetries = Lock::kMaxTransactionRetries;

// Spin (with yield) until pred() holds. Documented spin, bounded by the watchdog.
template <class Pred>
void wait_until(Pred pred) {
  while (!pred()) std::this_thread::yield();
}

std::string describe(const ElisionStats& s) {
  std::ostringstream out;
  out << "tx(read=" << s.transactional_reads << " write=" << s.transactional_writes
      << ") fallback(read=" << s.fallback_reads << " write=" << s.fallback_writes
      << "; not_started=" << s.fallback_not_started << " no_retry=" << s.fallback_no_retry
      << " exhausted=" << s.fallback_retries_exhausted
      << " requested=" << s.fallback_requested << ") lock_busy=" << s.lock_busy_aborts
      << " retries=" << s.retries << " | htm attempts=" << s.htm.attempts
      << " started=" << s.htm.started << " commits=" << s.htm.commits
      << " aborts=" << s.htm.aborts << " (injected=" << s.htm.injected_aborts
      << " explicit=" << s.htm.abort_explicit << " conflict=" << s.htm.abort_conflict
      << " capacity=" << s.htm.abort_capacity << " retry=" << s.htm.abort_retry
      << " other=" << s.htm.abort_other << ") not_started=" << s.htm.not_started;
  return out.str();
}

// The bookkeeping identities every backend must satisfy once all guards are gone.
void expect_consistent(const ElisionStats& s, std::uint64_t critical_sections) {
  EXPECT_EQ(s.transactions() + s.fallbacks(), critical_sections);
  EXPECT_EQ(s.fallbacks(), s.fallback_not_started + s.fallback_no_retry +
                               s.fallback_retries_exhausted + s.fallback_requested);
  EXPECT_EQ(s.htm.commits, s.transactions());
  EXPECT_EQ(s.htm.attempts, s.htm.started + s.htm.not_started + s.htm.injected_aborts);
  EXPECT_EQ(s.htm.started, s.htm.commits + (s.htm.aborts - s.htm.injected_aborts));
  EXPECT_LE(s.lock_busy_aborts, s.htm.abort_explicit);
}

constexpr std::uint64_t kRandomSeed = 0x5eed'0000'e1de'0004ULL;

// A mixed script: entries that retry, give up, start, and a lock-busy abort.
std::vector<HtmStatus> mixed_script() {
  return {HtmStatus::make_conflict(true),
          HtmStatus::make_started(),
          HtmStatus::make_capacity(),
          HtmStatus(),
          HtmStatus::make_explicit(Lock::kLockBusyAbortCode),
          HtmStatus::make_started(),
          HtmStatus(HtmStatus::kRetry),
          HtmStatus(HtmStatus::kRetry),
          HtmStatus(HtmStatus::kRetry),
          HtmStatus(HtmStatus::kRetry),
          HtmStatus(HtmStatus::kRetry),
          HtmStatus::make_started()};
}

struct BackendCase {
  std::string name;
  std::function<HtmPolicy()> make;
};

void PrintTo(const BackendCase& c, std::ostream* os) { *os << c.name; }

std::vector<BackendCase> all_backends() {
  return {
      {"hardware", [] { return HtmPolicy::hardware(); }},
      {"disabled", [] { return HtmPolicy::disabled(); }},
      {"always_abort_retryable",
       [] { return HtmPolicy::always_abort(HtmStatus::make_conflict(true)); }},
      {"always_abort_capacity",
       [] { return HtmPolicy::always_abort(HtmStatus::make_capacity()); }},
      {"scripted_repeat", [] { return HtmPolicy::scripted(mixed_script(), ScriptEnd::kRepeat); }},
      {"scripted_then_succeed",
       [] { return HtmPolicy::scripted(mixed_script(), ScriptEnd::kSucceed); }},
      {"random", [] { return HtmPolicy::random(0.5, kRandomSeed); }},
      {"serial_emulation", [] { return HtmPolicy::serial_emulation(); }},
  };
}

// Data guarded by the lock: every word equal outside a critical section, and no writer
// inside while anyone else is. Deliberately plain (non-atomic) memory.
struct Guarded {
  static constexpr std::size_t kWords = 8;
  std::array<std::uint64_t, kWords> words{};
  bool writer_inside = false;
};

// Write critical section: returns true if it saw the invariant broken on entry.
bool write_once(Guarded& g) {
  bool broken = g.writer_inside;
  g.writer_inside = true;
  const std::uint64_t before = g.words[0];
  for (std::uint64_t& w : g.words) {
    broken = broken || w != before;
    ++w;
  }
  g.writer_inside = false;
  return broken;
}

// Read critical section: returns true if the invariant is broken.
bool read_once(const Guarded& g) {
  bool broken = g.writer_inside;
  for (const std::uint64_t w : g.words) broken = broken || w != g.words[0];
  return broken;
}

class ElidedLockBackendTest : public ::testing::TestWithParam<BackendCase> {
 protected:
  // The hardware case tests real RTM; without it the policy degrades to the disabled
  // backend, which has its own case: skip, visibly, instead of passing a copy of it.
  void SetUp() override {
    if (GetParam().name == "hardware" && !hardware_rtm_available()) {
      GTEST_SKIP() << "no hardware RTM in this build or on this CPU (CPUID leaf 7); the "
                      "fallback path is covered by the disabled, always_abort, scripted, "
                      "random and serial_emulation cases";
    }
  }
  HtmPolicy policy() const { return GetParam().make(); }
  std::string context() const {
    return current_test_name() + " backend=" + policy().describe();
  }
};

// 2 writers and 2 readers (4 threads on 2 cores), each a bounded number of critical
// sections. The plain data must stay consistent, and the counters must show the paths
// the backend implies.
TEST_P(ElidedLockBackendTest, MutualExclusionWithMultiWordInvariant) {
  SCOPED_TRACE(context());
  const Watchdog watchdog(context());
  Lock lock(policy());
  Guarded data;
  constexpr int kWriters = 2;
  constexpr int kReaders = 2;
  constexpr int kOpsPerThread = 3000;
  std::atomic<int> broken_writes{0};
  std::atomic<int> broken_reads{0};
  std::latch start(kWriters + kReaders);
  std::vector<std::thread> threads;
  for (int t = 0; t < kWriters; ++t) {
    threads.emplace_back([&] {
      start.arrive_and_wait();
      int broken = 0;
      for (int i = 0; i < kOpsPerThread; ++i) {
        if (lock.with_write([&] { return write_once(data); })) ++broken;
      }
      broken_writes.fetch_add(broken);
    });
  }
  for (int t = 0; t < kReaders; ++t) {
    threads.emplace_back([&] {
      start.arrive_and_wait();
      int broken = 0;
      for (int i = 0; i < kOpsPerThread; ++i) {
        if (lock.with_read([&] { return read_once(data); })) ++broken;
      }
      broken_reads.fetch_add(broken);
    });
  }
  for (std::thread& th : threads) th.join();

  const std::uint64_t writes = std::uint64_t{kWriters} * kOpsPerThread;
  const std::uint64_t total = std::uint64_t{kWriters + kReaders} * kOpsPerThread;
  EXPECT_EQ(broken_writes.load(), 0);
  EXPECT_EQ(broken_reads.load(), 0);
  for (const std::uint64_t w : data.words) EXPECT_EQ(w, writes);
  EXPECT_FALSE(lock.is_locked());

  const ElisionStats s = lock.stats();
  std::printf("[%s] %s\n", GetParam().name.c_str(), describe(s).c_str());
  SCOPED_TRACE(describe(s));
  expect_consistent(s, total);
  EXPECT_EQ(s.transactional_reads + s.fallback_reads, writes);   // as many reads as writes
  EXPECT_EQ(s.transactional_writes + s.fallback_writes, writes);
  EXPECT_EQ(s.fallback_requested, 0u);

  const HtmBackend backend = lock.effective_backend();
  switch (backend) {
    case HtmBackend::kDisabled:
      EXPECT_EQ(s.transactions(), 0u);
      EXPECT_EQ(s.fallback_not_started, total);
      EXPECT_EQ(s.retries, 0u);
      break;
    case HtmBackend::kAlwaysAbort:
      EXPECT_EQ(s.transactions(), 0u);
      if (policy().forced_abort.may_retry()) {
        EXPECT_EQ(s.fallback_retries_exhausted, total);
        EXPECT_EQ(s.retries, total * kMaxRetries);
        EXPECT_EQ(s.htm.attempts, total * (kMaxRetries + 1));
      } else {
        EXPECT_EQ(s.fallback_no_retry, total);
        EXPECT_EQ(s.retries, 0u);
        EXPECT_EQ(s.htm.attempts, total);
      }
      break;
    case HtmBackend::kSerialEmulation:
      // Emulated transactions abort only when the fallback lock is held, and nothing
      // takes it unless a transaction gives up first: every section commits.
      EXPECT_EQ(s.transactions(), total);
      EXPECT_EQ(s.fallbacks(), 0u);
      EXPECT_EQ(s.htm.aborts, 0u);
      break;
    case HtmBackend::kScripted:
    case HtmBackend::kRandom:
      // A mix: some sections commit, some retry, some give up at once.
      EXPECT_GT(s.transactions(), 0u);
      EXPECT_GT(s.fallbacks(), 0u);
      EXPECT_GT(s.retries, 0u);
      EXPECT_GT(s.fallback_no_retry, 0u);
      break;
    case HtmBackend::kHardware:
      // Real RTM: tiny critical sections commit, at least most of the time.
      EXPECT_GT(s.transactions(), 0u);
      break;
  }
}

// One thread holds the fallback lock (a guard built with kNoElision); another tries to
// elide. Its transaction reads the lock word, sees it held and aborts explicitly with
// kLockBusyAbortCode; it waits until the lock is free, retries, and commits.
TEST_P(ElidedLockBackendTest, HeldFallbackLockForcesExplicitAbortThenRetry) {
  SCOPED_TRACE(context());
  const Watchdog watchdog(context());
  Lock lock(policy());
  const HtmBackend backend = lock.effective_backend();
  std::uint64_t value = 0;
  std::atomic<bool> holding{false};
  std::atomic<bool> release{false};
  std::atomic<bool> elider_done{false};
  std::thread holder([&] {
    const ElidedWriteGuard<> guard(lock, kNoElision);
    EXPECT_EQ(guard.path(), ElisionPath::kFallback);
    holding.store(true);
    wait_until([&] { return release.load(); });
    ++value;
  });
  wait_until([&] { return holding.load(); });
  EXPECT_TRUE(lock.is_locked());
  EXPECT_EQ(lock.last_fallback_mode(), ElisionMode::kWrite);
  std::thread elider([&] {
    lock.with_write([&] { ++value; });
    elider_done.store(true);
  });
  // Let the elider make its first attempt: it then waits for the lock to be free (after
  // an abort) or in the fallback queue; either way it cannot finish while we hold.
  wait_until([&] { return lock.stats().htm.attempts >= 1 || elider_done.load(); });
  std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_FALSE(elider_done.load()) << "the elider ran while the fallback lock was held";
  release.store(true);
  holder.join();
  elider.join();
  EXPECT_EQ(value, 2u);

  const ElisionStats s = lock.stats();
  std::printf("[%s] %s\n", GetParam().name.c_str(), describe(s).c_str());
  SCOPED_TRACE(describe(s));
  expect_consistent(s, 2);
  EXPECT_EQ(s.fallback_requested, 1u);
  if (backend == HtmBackend::kHardware) {
    // Real RTM may abort the first attempt for a reason of its own (a page fault on
    // first touch: no reason bit, no retry) before it reads the lock word.
    EXPECT_GE(s.lock_busy_aborts + s.fallback_no_retry, 1u);
  }
  if (backend == HtmBackend::kSerialEmulation) {
    // Deterministic: the first attempt starts, reads the lock word as held and aborts
    // explicitly (lock busy); one wait, one retry that commits. (Scripted and random
    // backends may inject another abort first; they reach the lock-busy path in the
    // contention test.)
    EXPECT_EQ(s.lock_busy_aborts, 1u);
    EXPECT_EQ(s.retries, 1u);
    EXPECT_EQ(s.transactional_writes, 1u);
    EXPECT_EQ(s.fallback_writes, 1u);
  }
}

// Two elided locks nested in the same order by every thread; data under each.
TEST_P(ElidedLockBackendTest, NestedLocksKeepBothInvariants) {
  SCOPED_TRACE(context());
  const Watchdog watchdog(context());
  Lock outer(policy());
  Lock inner(policy());
  Guarded outer_data;
  Guarded inner_data;
  constexpr int kThreads = 3;
  constexpr int kOpsPerThread = 1000;
  std::atomic<int> broken{0};
  std::latch start(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      start.arrive_and_wait();
      int seen = 0;
      for (int i = 0; i < kOpsPerThread; ++i) {
        const bool bad = outer.with_write([&] {
          const bool outer_bad = write_once(outer_data);
          const bool inner_bad = (t + i) % 2 == 0
                                     ? inner.with_write([&] { return write_once(inner_data); })
                                     : inner.with_read([&] { return read_once(inner_data); });
          return outer_bad || inner_bad;
        });
        if (bad) ++seen;
      }
      broken.fetch_add(seen);
    });
  }
  for (std::thread& th : threads) th.join();
  EXPECT_EQ(broken.load(), 0);
  for (const std::uint64_t w : outer_data.words) {
    EXPECT_EQ(w, std::uint64_t{kThreads} * kOpsPerThread);
  }
  const std::uint64_t inner_value = inner_data.words[0];
  for (const std::uint64_t w : inner_data.words) EXPECT_EQ(w, inner_value);
  expect_consistent(outer.stats(), std::uint64_t{kThreads} * kOpsPerThread);
  // Under hardware, the inner lock's counters are bumped inside the outer transaction
  // and roll back with it; its identities still hold (every count commits together).
  expect_consistent(inner.stats(), std::uint64_t{kThreads} * kOpsPerThread);
}

// An exception leaving a critical section releases the lock on every path.
TEST_P(ElidedLockBackendTest, ExceptionLeavesTheLockFree) {
  SCOPED_TRACE(context());
  const Watchdog watchdog(context());
  Lock lock(policy());
  Guarded data;
  for (int i = 0; i < 20; ++i) {
    EXPECT_THROW(lock.with_write([&] {
      (void)write_once(data);
      throw std::runtime_error("from the critical section");
    }),
                 std::runtime_error);
  }
  EXPECT_FALSE(lock.is_locked());
  // Another thread gets both kinds of access afterwards.
  std::thread other([&] {
    lock.with_read([&] { EXPECT_FALSE(read_once(data)); });
    const ElidedWriteGuard<> guard(lock, kNoElision);
  });
  other.join();
  EXPECT_FALSE(lock.is_locked());
  // Hardware may have rolled back some runs that threw inside a transaction; each
  // counted critical section ran exactly once to the end.
  for (const std::uint64_t w : data.words) EXPECT_EQ(w, data.words[0]);
  expect_consistent(lock.stats(), 22);
}

INSTANTIATE_TEST_SUITE_P(AllBackends, ElidedLockBackendTest, ::testing::ValuesIn(all_backends()),
                         [](const ::testing::TestParamInfo<BackendCase>& param_info) {
                           return param_info.param.name;
                         });

// ---------------------------------------------------------------------------------
// Exact path sequences on one thread
// ---------------------------------------------------------------------------------

// A script walks one thread's acquisitions through every decision of Listing 1.1 as
// amended by worth_retrying(); the counters after each critical section are exact.
TEST(ElidedLockScripted, EveryDecisionPathExactly) {
  std::vector<HtmStatus> script = {
      HtmStatus::make_conflict(true), HtmStatus::make_started(),  // 1: retry, commit
      HtmStatus::make_capacity(),                                 // 2: give up at once
      HtmStatus::make_explicit(9),                                // 3: foreign code: give up
      HtmStatus(),                                                // 4: no reason: give up
      HtmStatus::make_not_started(),                              // 5: backend declines
      HtmStatus::make_explicit(Lock::kLockBusyAbortCode),         // 6: lock busy: wait,
      HtmStatus::make_started(),                                  //    retry, commit
      HtmStatus(HtmStatus::kConflict),                            // 7: conflict w/o hint:
      HtmStatus::make_started(),                                  //    retry, commit
  };
  for (std::uint32_t i = 0; i <= kMaxRetries; ++i) {
    script.push_back(HtmStatus(HtmStatus::kRetry));  // 8: exhaust the retries
  }
  // 9: past the script: kSucceed, commit.
  Lock lock(HtmPolicy::scripted(script, ScriptEnd::kSucceed));

  auto expect_after = [&](int section, std::uint64_t tx, std::uint64_t no_retry,
                          std::uint64_t not_started, std::uint64_t exhausted,
                          std::uint64_t retries, std::uint64_t lock_busy) {
    const ElisionStats s = lock.stats();
    SCOPED_TRACE("after section " + std::to_string(section) + ": " + describe(s));
    EXPECT_EQ(s.transactional_writes, tx);
    EXPECT_EQ(s.fallback_no_retry, no_retry);
    EXPECT_EQ(s.fallback_not_started, not_started);
    EXPECT_EQ(s.fallback_retries_exhausted, exhausted);
    EXPECT_EQ(s.retries, retries);
    EXPECT_EQ(s.lock_busy_aborts, lock_busy);
  };
  auto section = [&](ElisionPath expected_path) {
    const ElidedWriteGuard<> guard(lock);
    EXPECT_EQ(guard.path(), expected_path);
  };

  section(ElisionPath::kTransaction);
  expect_after(1, 1, 0, 0, 0, 1, 0);
  section(ElisionPath::kFallback);
  expect_after(2, 1, 1, 0, 0, 1, 0);
  section(ElisionPath::kFallback);
  expect_after(3, 1, 2, 0, 0, 1, 0);
  section(ElisionPath::kFallback);
  expect_after(4, 1, 3, 0, 0, 1, 0);
  section(ElisionPath::kFallback);
  expect_after(5, 1, 3, 1, 0, 1, 0);
  section(ElisionPath::kTransaction);
  expect_after(6, 2, 3, 1, 0, 2, 1);
  section(ElisionPath::kTransaction);
  expect_after(7, 3, 3, 1, 0, 3, 1);
  section(ElisionPath::kFallback);
  expect_after(8, 3, 3, 1, 1, 3 + kMaxRetries, 1);
  section(ElisionPath::kTransaction);
  expect_after(9, 4, 3, 1, 1, 3 + kMaxRetries, 1);

  const ElisionStats s = lock.stats();
  expect_consistent(s, 9);
  EXPECT_EQ(s.htm.attempts, script.size() + 1);
}

TEST(ElidedLock, RetryDecisionFollowsTheAbortStatus) {
  EXPECT_TRUE(Lock::worth_retrying(HtmStatus::make_explicit(Lock::kLockBusyAbortCode)));
  EXPECT_TRUE(Lock::worth_retrying(HtmStatus::make_conflict(true)));
  EXPECT_TRUE(Lock::worth_retrying(HtmStatus::make_conflict(false)));
  EXPECT_TRUE(Lock::worth_retrying(HtmStatus(HtmStatus::kRetry)));
  EXPECT_TRUE(Lock::worth_retrying(HtmStatus(HtmStatus::kCapacity | HtmStatus::kRetry)));
  EXPECT_FALSE(Lock::worth_retrying(HtmStatus::make_capacity()));
  EXPECT_FALSE(Lock::worth_retrying(HtmStatus::make_explicit(2)));
  EXPECT_FALSE(Lock::worth_retrying(HtmStatus(HtmStatus::kDebug)));
  EXPECT_FALSE(Lock::worth_retrying(HtmStatus(HtmStatus::kNested)));
  EXPECT_FALSE(Lock::worth_retrying(HtmStatus()));
  EXPECT_FALSE(Lock::worth_retrying(HtmStatus::make_not_started()));
}

// The seed's `mode` field: the fallback records which kind of operation holds it, and
// the counters keep the modes apart.
TEST(ElidedLock, FallbackRecordsTheMode) {
  Lock lock(HtmPolicy::disabled());
  {
    const ElidedReadGuard<> guard(lock);
    EXPECT_EQ(guard.path(), ElisionPath::kFallback);
    EXPECT_EQ(guard.mode(), ElisionMode::kRead);
    EXPECT_EQ(lock.last_fallback_mode(), ElisionMode::kRead);
  }
  {
    const ElidedGuard<WriteMode> guard(lock);
    EXPECT_EQ(lock.last_fallback_mode(), ElisionMode::kWrite);
  }
  lock.with_read([] {});
  const ElisionStats s = lock.stats();
  EXPECT_EQ(s.fallback_reads, 2u);
  EXPECT_EQ(s.fallback_writes, 1u);
}

TEST(ElidedLock, WithReturnsTheCriticalSectionsValue) {
  Lock lock(HtmPolicy::serial_emulation());
  int x = 41;
  EXPECT_EQ(lock.with_write([&] { return ++x; }), 42);
  EXPECT_EQ(lock.with(ReadMode{}, [&] { return x; }), 42);
  lock.with_write([] {});  // void works too
}

TEST(ElidedLock, InvalidPolicyIsAConfigError) {
  try {
    const Lock lock(HtmPolicy::random(2.0, kRandomSeed));
    ADD_FAILURE() << "no ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.field(), "abort_probability");
  }
}

// ---------------------------------------------------------------------------------
// Another fallback lock
// ---------------------------------------------------------------------------------

// A test-and-test-and-set lock satisfies ElisionFallback too.
class TasLock {
 public:
  void lock() noexcept {
    // acquire: pairs with unlock()'s release. Documented spin, bounded by the holder.
    while (held_.exchange(true, std::memory_order_acquire)) {
      while (held_.load(std::memory_order_relaxed)) std::this_thread::yield();
    }
  }
  void unlock() noexcept { held_.store(false, std::memory_order_release); }
  bool is_locked() const noexcept { return held_.load(std::memory_order_acquire); }

 private:
  std::atomic<bool> held_{false};
};

static_assert(cuckoo::sync::ElisionFallback<TasLock>);
static_assert(cuckoo::sync::ElisionFallback<cuckoo::sync::McsLock>);

TEST(ElidedLock, WorksWithAnotherFallbackLock) {
  for (const HtmPolicy& policy :
       {HtmPolicy::serial_emulation(), HtmPolicy::always_abort(),
        HtmPolicy::random(0.5, kRandomSeed)}) {
    SCOPED_TRACE(policy.describe());
    const Watchdog watchdog(current_test_name() + " backend=" + policy.describe());
    ElidedLock<TasLock> lock(policy);
    Guarded data;
    constexpr int kThreads = 3;
    constexpr int kOps = 2000;
    std::atomic<int> broken{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&] {
        int seen = 0;
        for (int i = 0; i < kOps; ++i) {
          const ElidedGuard<WriteMode, TasLock> guard(lock);
          if (write_once(data)) ++seen;
        }
        broken.fetch_add(seen);
      });
    }
    for (std::thread& th : threads) th.join();
    EXPECT_EQ(broken.load(), 0);
    EXPECT_EQ(data.words[0], std::uint64_t{kThreads} * kOps);
    expect_consistent(lock.stats(), std::uint64_t{kThreads} * kOps);
  }
}

}  // namespace
