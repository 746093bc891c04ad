// The stripe locks of the striped engines (detail/stripe_locks.hpp) under the
// deterministic scheduler, instantiated with explore::Sync: the guards' lock order (two
// writers naming the same two stripes in opposite orders never deadlock) and the seqlock
// (an optimistic reader whose valid() says yes saw one writer's whole update, never half
// of one). Writers set two guarded words to the same value; the reader reads both
// between its version reads and, when valid, requires them equal.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include "cuckoo/detail/stripe_locks.hpp"
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
          s->x.store(value);
          s->y.store(value);
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
          const int x = s->x.load();
          const int y = s->y.load();
          if (read.valid()) {
            ex::require(x == y, "a valid optimistic read saw x = " + std::to_string(x) + ", y = " +
                                    std::to_string(y) + " (half of a write)");
            ++s->consistent_reads;
            return;
          }
        }
      });
    }
    e.check = [s, readers]() -> std::string {
      if (s->stripes[0].is_locked() || s->stripes[1].is_locked()) return "a stripe is still held";
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
  const ex::Result p = ex::pct(seqlock(2, 2, 2), 0x5e9, 3, runs);
  report("stripes 2x2 writers + 2 readers pct(3)", p);
  EXPECT_FALSE(p.failed) << p.message;
  const ex::Result w = ex::random_walk(seqlock(2, 2, 2), 0x5e9, runs);
  report("stripes 2x2 writers + 2 readers random", w);
  EXPECT_FALSE(w.failed) << w.message;
}

}  // namespace
