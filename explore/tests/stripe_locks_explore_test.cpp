// The stripe locks of the striped engines (detail/stripe_locks.hpp) under the
// deterministic scheduler, instantiated with explore::Sync: the guards' lock order (two
// writers naming the same two stripes in opposite orders never deadlock), the lock's
// hand-off (each writer's critical section happens-before the next one's: the writers
// count their sections in a Plain, which races if an unlock does not release), and the
// seqlock (an optimistic reader whose valid() says yes saw one writer's whole update,
// never half of one). Writers set two guarded words to the same value; the reader reads
// both between its version reads and, when valid, requires them equal. The guarded words
// are stored with release and loaded with acquire, as the striped engines do (see the
// memory-order note in stripe_locks.hpp); with loads allowed to read older stores than
// the newest, a version read that does not acquire lets a valid read see the old x and
// the new y.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include "cuckoo/detail/stripe_locks.hpp"
#include "cuckoo/explore/plain.hpp"
#include "cuckoo/explore/scheduler.hpp"
#include "cuckoo/explore/sync.hpp"

namespace {

namespace ex = cuckoo::explore;
using Stripes = cuckoo::detail::BasicLockStripes<cuckoo::detail::NoStripePayload, ex::Sync>;
using Guard = cuckoo::detail::StripeGuard<2, Stripes>;
using Read = cuckoo::detail::OptimisticRead<2, Stripes>;

bool long_lane() {
  const char* env = std::getenv("CUCKOO_EXPLORE_LONG");
  return env != nullptr && std::string(env) == "1";
}

struct Shared {
  Stripes stripes{2};
  ex::Atomic<int> x{0};  // guarded by stripe 0
  ex::Atomic<int> y{0};  // guarded by stripe 1; the writers keep x == y
  ex::Plain<int> sections{0, "sections"};  // the writers' critical sections, counted under both stripes
  int consistent_reads = 0;
};

// `writers` writers (writer w names the stripes as {w % 2, 1 - w % 2}, so two writers
// name them in opposite orders), each writing `rounds` times, and `readers` optimistic
// readers retrying until a valid read.
ex::Scenario seqlock(unsigned writers, unsigned rounds, unsigned readers) {
  return [=] {
    auto s = std::make_shared<Shared>();
    ex::Execution e;
    e.state = s;
    for (unsigned w = 0; w < writers; ++w) {
      e.threads.push_back([s, w, rounds] {
        for (unsigned r = 1; r <= rounds; ++r) {
          const Guard guard(s->stripes, {w % 2, 1 - w % 2});
          const int value = static_cast<int>(10 * (w + 1) + r);
          ++s->sections;
          s->x.store(value, std::memory_order_release);
          s->y.store(value, std::memory_order_release);
        }
      });
    }
    for (unsigned r = 0; r < readers; ++r) {
      e.threads.push_back([s] {
        ex::Sync::SpinWait spin;
        for (;;) {  // bound: the scheduler's step bound
          const Read read(s->stripes, {0, 1});
          if (!read.started()) {
            spin.wait();
            continue;
          }
          const int x = s->x.load(std::memory_order_acquire);
          const int y = s->y.load(std::memory_order_acquire);
          if (read.valid()) {
            ex::require(x == y, "a valid optimistic read saw x = " + std::to_string(x) + ", y = " +
                                    std::to_string(y) + " (half of a write)");
            ++s->consistent_reads;
            return;
          }
        }
      });
    }
    e.check = [s, readers, writers, rounds]() -> std::string {
      if (s->stripes[0].is_locked() || s->stripes[1].is_locked()) return "a stripe is still held";
      if (s->sections.get() != static_cast<int>(writers * rounds)) return "a critical section was lost";
      if (s->x.load() != s->y.load()) return "the final state has x != y";
      return s->consistent_reads == static_cast<int>(readers) ? "" : "a reader did not finish";
    };
    return e;
  };
}

void report(const char* what, const ex::Result& r) { std::printf("[explore] %s: %s\n", what, r.summary().c_str()); }

TEST(StripeLocksExplored, OppositeOrdersNeverDeadlockAndReadsAreWhole) {
  const ex::Result r = ex::bounded(seqlock(2, 1, 1), long_lane() ? 3 : 2, 5'000'000);
  report("stripes 2 writers + 1 reader bounded", r);
  EXPECT_FALSE(r.failed) << r.message;
  EXPECT_TRUE(r.complete) << r.summary();
}

TEST(StripeLocksExplored, LongerHistoriesUnderPct) {
  const std::uint64_t runs = long_lane() ? 100'000 : 2'000;
  ex::Options stale;  // loads may read older stores than the newest, one in four
  stale.stale_read_one_in = 4;
  const ex::Result p = ex::pct(seqlock(2, 2, 2), 0x5e9, 3, runs, stale);
  report("stripes 2x2 writers + 2 readers pct(3)", p);
  EXPECT_FALSE(p.failed) << p.message;
  const ex::Result w = ex::random_walk(seqlock(2, 2, 2), 0x5e9, runs, stale);
  report("stripes 2x2 writers + 2 readers random", w);
  EXPECT_FALSE(w.failed) << w.message;
}

// Weak memory: loads may read older stores than the newest, as the memory model allows.
// A valid optimistic read must still see one whole write, and the hand-off must still
// order the writers.
TEST(StripeLocksExplored, ReadsAreWholeWithStaleReads) {
  ex::Options options;
  options.max_stale_reads = long_lane() ? 3 : 2;
  const ex::Result one = ex::bounded(seqlock(1, 1, 1), long_lane() ? 3 : 2, 5'000'000, options);
  report("stripes 1 writer + 1 reader bounded, stale reads", one);
  EXPECT_FALSE(one.failed) << one.message;
  EXPECT_TRUE(one.complete) << one.summary();
  options.max_stale_reads = long_lane() ? 2 : 1;
  const ex::Result two = ex::bounded(seqlock(2, 1, 1), long_lane() ? 2 : 1, 5'000'000, options);
  report("stripes 2 writers + 1 reader bounded, stale reads", two);
  EXPECT_FALSE(two.failed) << two.message;
  EXPECT_TRUE(two.complete) << two.summary();
}

}  // namespace
