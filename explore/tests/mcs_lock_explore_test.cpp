// The MCS lock (cuckoo/sync/mcs_lock.hpp) under the deterministic scheduler: its own code,
// instantiated with explore::Sync, so every access to the tail and to the queue nodes is a
// scheduling point and follows the explorer's memory model. Claims: mutual exclusion (a
// thread in the critical section is alone there), the hand-off orders the critical
// sections (each holder's accesses to the plain data it protects happen-before the next
// holder's: a hand-off that does not release shows as a data race on that Plain, in
// every schedule that hands over), no lost wake-up (every lock() returns: a deadlock is
// reported by the scheduler), and try_lock() never enters a held lock. The
// critical-section counter is updated with relaxed read-modify-writes, which order
// nothing, so that only the lock can order the sections. Exhaustive up to a preemption
// bound for 2 threads (also with loads reading older stores), PCT and random walks
// (with stale reads) for 3. CUCKOO_EXPLORE_LONG=1 (ci/explore) raises every bound and
// budget.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include "cuckoo/explore/plain.hpp"
#include "cuckoo/explore/scheduler.hpp"
#include "cuckoo/explore/sync.hpp"
#include "cuckoo/sync/mcs_lock.hpp"

namespace {

namespace ex = cuckoo::explore;
using Lock = cuckoo::sync::BasicMcsLock<ex::Sync>;

struct Shared {
  Lock lock;
  ex::Atomic<int> inside{0};               // threads in the critical section
  ex::Plain<int> entries{0, "entries"};    // plain data, accessed only inside the critical section
};

// Each thread enters `rounds` times: through a caller-owned node (even threads) or the
// thread-local pool (odd threads), or with try_lock() when `try_threads` says so.
ex::Scenario mutual_exclusion(unsigned threads, unsigned rounds, bool try_lock_odd = false) {
  return [=] {
    auto s = std::make_shared<Shared>();
    ex::Execution e;
    e.state = s;
    for (unsigned t = 0; t < threads; ++t) {
      e.threads.push_back([s, t, rounds, try_lock_odd] {
        for (unsigned r = 0; r < rounds; ++r) {
          Lock::Node node;
          const bool own_node = t % 2 == 0;
          if (try_lock_odd && t % 2 == 1) {
            if (!s->lock.try_lock()) continue;
          } else if (own_node) {
            s->lock.lock(node);
          } else {
            s->lock.lock();
          }
          // relaxed: orders nothing, so that only the lock orders the sections.
          ex::require(s->inside.fetch_add(1, std::memory_order_relaxed) == 0, "two threads in the critical section");
          ++s->entries;
          s->inside.fetch_sub(1, std::memory_order_relaxed);
          if (own_node && !(try_lock_odd && t % 2 == 1)) {
            s->lock.unlock(node);
          } else {
            s->lock.unlock();
          }
        }
      });
    }
    e.check = [s, threads, rounds, try_lock_odd]() -> std::string {
      if (s->lock.is_locked()) return "the lock is still held after every thread finished";
      if (!try_lock_odd && s->entries.get() != static_cast<int>(threads * rounds)) {
        return "entries " + std::to_string(s->entries.get()) + ", expected " + std::to_string(threads * rounds);
      }
      return {};
    };
    return e;
  };
}

// The default lane's budget, or the long lane's (CUCKOO_EXPLORE_LONG=1).
bool long_lane() {
  const char* env = std::getenv("CUCKOO_EXPLORE_LONG");
  return env != nullptr && std::string(env) == "1";
}
unsigned bound(unsigned short_form, unsigned long_form) { return long_lane() ? long_form : short_form; }
std::uint64_t budget(std::uint64_t short_form, std::uint64_t long_form) {
  return long_lane() ? long_form : short_form;
}

void report(const char* what, const ex::Result& r) {
  std::printf("[explore] %s: %s\n", what, r.summary().c_str());
}

TEST(McsLockExplored, TwoThreadsEveryScheduleWithThreePreemptions) {
  const ex::Result r = ex::bounded(mutual_exclusion(2, 2), bound(3, 5), 5'000'000);
  report("mcs 2x2 bounded", r);
  EXPECT_FALSE(r.failed) << r.message;
  EXPECT_TRUE(r.complete) << "the search did not finish: " << r.summary();
}

TEST(McsLockExplored, TryLockNeverEntersAHeldLock) {
  const ex::Result r = ex::bounded(mutual_exclusion(2, 2, true), bound(3, 5), 5'000'000);
  report("mcs try_lock 2x2 bounded", r);
  EXPECT_FALSE(r.failed) << r.message;
  EXPECT_TRUE(r.complete) << r.summary();
}

TEST(McsLockExplored, ThreeThreadsUnderPctAndRandomWalks) {
  ex::Options stale;  // loads may read older stores than the newest, one in four
  stale.stale_read_one_in = 4;
  const ex::Result p = ex::pct(mutual_exclusion(3, 2), 0x3c5, 3, budget(2000, 100'000), stale);
  report("mcs 3x2 pct(3)", p);
  EXPECT_FALSE(p.failed) << p.message;
  const ex::Result w = ex::random_walk(mutual_exclusion(3, 2), 0x3c5, budget(2000, 100'000), stale);
  report("mcs 3x2 random", w);
  EXPECT_FALSE(w.failed) << w.message;
  const ex::Result b = ex::bounded(mutual_exclusion(3, 1), bound(2, 3), 5'000'000);
  report("mcs 3x1 bounded", b);
  EXPECT_FALSE(b.failed) << b.message;
  EXPECT_TRUE(b.complete) << b.summary();
}

// Stale reads: a waiter may read its node's flag, a holder its node's successor link,
// from an older store than the newest, as far as the memory model allows.
TEST(McsLockExplored, TwoThreadsWithStaleReads) {
  ex::Options options;
  options.max_stale_reads = bound(1, 2);
  const ex::Result r = ex::bounded(mutual_exclusion(2, 2), bound(2, 3), 5'000'000, options);
  report("mcs 2x2 bounded, stale reads", r);
  EXPECT_FALSE(r.failed) << r.message;
  EXPECT_TRUE(r.complete) << r.summary();
}

}  // namespace
