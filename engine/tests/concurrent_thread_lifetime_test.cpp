// Thread lifetime and thread count of the concurrent engines: what a thread may do while
// it ends, and how many threads may use them.
//
//   - The destructor of a caller's thread_local object may insert into and erase from a
//     shared filter or map while its thread ends, also when that object was built before
//     the thread's first call into the engine (so C++ destroys it after any thread_local
//     of the engine's): the engine's per-thread state (path-search buffers, MCS queue
//     nodes, K-CAS ids) must still be there. Run in the default lane under
//     AddressSanitizer, which reports a use after free; every key such a destructor
//     inserted must be found afterwards (C1), with other threads running meanwhile.
//   - Any number of threads may use the lock-free filter over the process's life and at
//     once: several hundred live threads, each inserting, with only a few (or one) inside
//     K-CAS at any instant; sync::Kcas::kMaxThreads bounds only the threads inside a K-CAS
//     call at the same instant.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "cuckoo/concurrent_filter.hpp"
#include "cuckoo/concurrent_map.hpp"
#include "cuckoo/lock_free_filter.hpp"
#include "cuckoo/sync/kcas.hpp"
#include "cuckoo/sync/policy.hpp"
#include "support/test_seed.hpp"
#include "support/watchdog.hpp"

namespace {

using cuckoo::CuckooFilterConfig;
using cuckoo::CuckooMapConfig;
using cuckoo::InsertResult;

CuckooFilterConfig filter_config(std::uint64_t seed) {
  CuckooFilterConfig c;
  c.capacity = 4096;
  c.fingerprint_bits = 16;
  c.slots_per_bucket = 4;
  c.seed = seed;
  return c;
}

// The keys that were inserted (InsertResult::kInserted), from every thread.
struct Inserted {
  std::mutex mutex;
  std::vector<std::uint64_t> keys;
  void add(std::uint64_t k) {
    const std::lock_guard<std::mutex> lock(mutex);
    keys.push_back(k);
  }
};

// Adapters: one call shape for filters and maps.
template <class F>
InsertResult insert_key(F& f, std::uint64_t k) {
  if constexpr (requires { f.insert(k, k); }) {
    return f.insert(k, k);
  } else {
    return f.insert(k);
  }
}

// A caller's thread_local object whose destructor uses the engine: it inserts `count`
// keys from `first` and erases every other one of them again, while its thread ends.
template <class F>
struct UsesEngineAtExit {
  F* table = nullptr;
  Inserted* inserted = nullptr;
  std::uint64_t first = 0;
  std::uint64_t count = 0;
  ~UsesEngineAtExit() {
    if (table == nullptr) return;
    for (std::uint64_t k = first; k < first + count; ++k) {
      if (insert_key(*table, k) != InsertResult::kInserted) continue;
      if (k % 2 == 1 && table->erase(k)) continue;
      inserted->add(k);
    }
  }
};

template <class F>
UsesEngineAtExit<F>& exit_hook() {
  thread_local UsesEngineAtExit<F> hook;
  return hook;
}

// kThreads threads: each first builds its exit hook (before any engine call, so C++
// destroys the hook after anything the engine made thread_local on that thread), then
// inserts keys of its own (the table fills up and inserts take cuckoo paths, which build
// the per-thread search state), then ends; the hook inserts more while it ends, as the
// other threads still run. Afterwards every key reported inserted and not erased is found.
template <class F>
void use_engine_from_exiting_threads(F& table, const std::string& seed_line) {
  constexpr unsigned kThreads = 4;
  constexpr std::uint64_t kKeysDuring = 700;
  constexpr std::uint64_t kKeysAtExit = 300;
  const cuckoo::test::Watchdog watchdog("use_engine_from_exiting_threads " + seed_line);
  Inserted inserted;
  std::vector<std::thread> threads;
  for (unsigned t = 0; t < kThreads; ++t) {
    threads.emplace_back([&table, &inserted, t] {
      UsesEngineAtExit<F>& hook = exit_hook<F>();  // built before the engine's state
      const std::uint64_t base = (std::uint64_t{t} + 1) << 32;
      for (std::uint64_t k = base; k < base + kKeysDuring; ++k) {
        if (insert_key(table, k) == InsertResult::kInserted) inserted.add(k);
      }
      hook.table = &table;
      hook.inserted = &inserted;
      hook.first = base + kKeysDuring;
      hook.count = kKeysAtExit;
    });
  }
  for (std::thread& th : threads) th.join();
  std::size_t missing = 0;
  for (const std::uint64_t k : inserted.keys) missing += table.contains(k) ? 0 : 1;
  EXPECT_EQ(missing, 0U) << "keys inserted (some from thread_local destructors at thread exit) and not found; "
                         << seed_line;
  EXPECT_GT(inserted.keys.size(), kThreads * kKeysDuring / 2) << seed_line;
}

TEST(ThreadLifetime, LockFreeFilterFromThreadLocalDestructors) {
  const std::uint64_t seed = cuckoo::test::test_seed(0x11fe01);
  cuckoo::LockFreeFilter filter(filter_config(seed));
  use_engine_from_exiting_threads(filter, cuckoo::test::seed_note(seed, "concurrent_thread_lifetime_test"));
}

TEST(ThreadLifetime, StripedFilterFromThreadLocalDestructors) {
  const std::uint64_t seed = cuckoo::test::test_seed(0x11fe02);
  cuckoo::StripedConcurrentFilter filter(filter_config(seed));
  use_engine_from_exiting_threads(filter, cuckoo::test::seed_note(seed, "concurrent_thread_lifetime_test"));
}

TEST(ThreadLifetime, CoarseFilterFromThreadLocalDestructors) {
  const std::uint64_t seed = cuckoo::test::test_seed(0x11fe03);
  cuckoo::CoarseConcurrentFilter filter(filter_config(seed));
  use_engine_from_exiting_threads(filter, cuckoo::test::seed_note(seed, "concurrent_thread_lifetime_test"));
}

TEST(ThreadLifetime, StripedMapFromThreadLocalDestructors) {
  const std::uint64_t seed = cuckoo::test::test_seed(0x11fe04);
  CuckooMapConfig config;
  config.initial_capacity = 64;  // grows: path searches and growth at thread exit too
  config.seed = seed;
  cuckoo::StripedConcurrentMap<std::uint64_t, std::uint64_t> map(config);
  use_engine_from_exiting_threads(map, cuckoo::test::seed_note(seed, "concurrent_thread_lifetime_test"));
}

TEST(ThreadLifetime, CoarseMapFromThreadLocalDestructors) {
  const std::uint64_t seed = cuckoo::test::test_seed(0x11fe05);
  CuckooMapConfig config;
  config.initial_capacity = 64;
  config.seed = seed;
  cuckoo::CoarseConcurrentMap<std::uint64_t, std::uint64_t> map(config);
  use_engine_from_exiting_threads(map, cuckoo::test::seed_note(seed, "concurrent_thread_lifetime_test"));
}

// The policy's contract itself: an object of StdSync::thread_local_object is alive in
// the destructor of a thread_local that was built before it on the same thread (C++
// destroys that one after every thread_local built later). Alive is a flag that the
// object's destructor clears; with a plain thread_local it would read false (or, under
// AddressSanitizer, be a use after free).
struct PolicyObject {
  bool alive = true;
  std::vector<int> buffer = std::vector<int>(16, 7);  // not trivially destructible
  ~PolicyObject() { alive = false; }
};

struct ChecksPolicyObjectAtExit {
  std::atomic<int>* alive_at_exit = nullptr;
  ~ChecksPolicyObjectAtExit() {
    if (alive_at_exit == nullptr) return;
    const PolicyObject& object = cuckoo::sync::StdSync::thread_local_object<PolicyObject>();
    const bool ok = object.alive && object.buffer.size() == 16 && object.buffer[15] == 7;
    alive_at_exit->fetch_add(ok ? 1 : -1000);
  }
};

TEST(ThreadLifetime, PolicyObjectsOutliveTheThreadsThreadLocals) {
  constexpr int kThreads = 8;
  std::atomic<int> alive_at_exit{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&alive_at_exit] {
      thread_local ChecksPolicyObjectAtExit check;  // built first, so destroyed last
      check.alive_at_exit = &alive_at_exit;
      EXPECT_TRUE(cuckoo::sync::StdSync::thread_local_object<PolicyObject>().alive);
    });
  }
  for (std::thread& th : threads) th.join();
  EXPECT_EQ(alive_at_exit.load(), kThreads)
      << "a thread_local destructor found the policy's per-thread object destroyed (each such thread counts -1000)";
}

// kLive threads alive at once, more than sync::Kcas::kMaxThreads. The filter is filled to
// 93 % first, so that inserts relocate (a K-CAS per hop: each such thread takes a K-CAS
// id). Each thread inserts and erases again keys of its own, waits until every thread has
// done so (so all are alive together), then does it again. With `serialized`, every
// filter call is made under one mutex: one thread inside K-CAS at a time.
void many_live_threads(bool serialized) {
  constexpr unsigned kLive = cuckoo::sync::Kcas::kMaxThreads + 64;
  constexpr unsigned kPerRound = 6;
  const std::uint64_t seed = cuckoo::test::test_seed(0x11fe10);
  const std::string seed_line = cuckoo::test::seed_note(seed, "concurrent_thread_lifetime_test");
  const cuckoo::test::Watchdog watchdog("many_live_threads " + seed_line);
  cuckoo::LockFreeFilter filter(filter_config(seed));
  std::vector<std::uint64_t> resident;
  const std::uint64_t slots = std::uint64_t{filter.bucket_count()} * filter.slots_per_bucket();
  for (std::uint64_t k = 1; filter.size() < slots * 93 / 100 && k < 4 * slots; ++k) {
    if (filter.insert(k) == InsertResult::kInserted) resident.push_back(k);
  }
  std::mutex calls;
  std::mutex gate;
  std::condition_variable all_in;
  unsigned arrived = 0;
  std::atomic<unsigned> lost{0};
  auto insert_and_erase = [&](std::uint64_t k) {
    std::unique_lock<std::mutex> lock(calls, std::defer_lock);
    if (serialized) lock.lock();
    if (filter.insert(k) != InsertResult::kInserted) return;
    if (!filter.contains(k) || !filter.erase(k)) lost.fetch_add(1);
  };
  std::vector<std::thread> threads;
  threads.reserve(kLive);
  for (unsigned t = 0; t < kLive; ++t) {
    threads.emplace_back([&, t] {
      const std::uint64_t base = (std::uint64_t{t} + 1) << 32;
      for (std::uint64_t i = 0; i < kPerRound; ++i) insert_and_erase(base + i);
      {
        std::unique_lock<std::mutex> lock(gate);
        if (++arrived == kLive) all_in.notify_all();
        all_in.wait(lock, [&] { return arrived == kLive; });
      }
      for (std::uint64_t i = kPerRound; i < 2 * kPerRound; ++i) insert_and_erase(base + i);
    });
  }
  for (std::thread& th : threads) th.join();
  EXPECT_EQ(lost.load(), 0U) << "an inserted key was not found, or not erased; " << seed_line;
  EXPECT_GT(filter.stats().path_hops, kLive) << "too few relocations: the test no longer reaches K-CAS; "
                                             << seed_line;
  for (const std::uint64_t k : resident) ASSERT_TRUE(filter.contains(k)) << "key " << k << " lost; " << seed_line;
}

TEST(ThreadCount, MoreLiveThreadsThanKcasIdsOneInsideAtATime) { many_live_threads(true); }

TEST(ThreadCount, MoreLiveThreadsThanKcasIdsConcurrently) { many_live_threads(false); }

}  // namespace
