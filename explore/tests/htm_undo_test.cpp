// The emulated transactions' undo (scheduler.hpp, "Transactions"): an aborted
// transaction leaves memory as it was before the transaction, not as it was at some
// write inside it. Thread 0's transaction writes one atomic five times (a store, a
// store, a CAS, an exchange, a fetch_add), a protected plain object twice and a Plain
// twice, then commits; it is aborted by the explorer at each of its scheduling points in
// turn (bounded search), by a conflicting read of thread 1, and explicitly. After every
// abort, thread 0 checks that everything holds its value from before the transaction;
// thread 1 never reads a value from inside one.
#include <gtest/gtest.h>

#include <cstdio>
#include <memory>
#include <string>

#include "cuckoo/explore/htm.hpp"
#include "cuckoo/explore/plain.hpp"
#include "cuckoo/explore/scheduler.hpp"
#include "cuckoo/explore/sync.hpp"
#include "cuckoo/sync/htm.hpp"

#if defined(__SANITIZE_THREAD__)
#define CUCKOO_TEST_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define CUCKOO_TEST_TSAN 1
#endif
#endif

namespace {

namespace ex = cuckoo::explore;
using cuckoo::sync::HtmPolicy;

#ifdef CUCKOO_TEST_TSAN
constexpr bool kTsan = true;
#else
constexpr bool kTsan = false;
#endif

void report(const std::string& what, const ex::Result& r) {
  std::printf("[explore] %s: %s\n", what.c_str(), r.summary().c_str());
}

struct Counts {
  unsigned aborts = 0;   // aborts thread 0 saw and checked
  unsigned commits = 0;
};

struct Protected {
  int a = 0;
  int b = 0;
};

// explicit_abort: thread 0 aborts its first transaction itself after all its writes.
ex::Scenario rewrites(bool explicit_abort, bool reader, std::shared_ptr<Counts> counts) {
  return [=] {
    struct Shared {
      Shared() : htm(HtmPolicy::serial_emulation()) { htm.protect(object); }
      ex::Htm htm;
      ex::Atomic<int> x{0};
      Protected object;
      ex::Plain<int> plain{0, "plain"};
      bool committed = false;
    };
    auto s = std::make_shared<Shared>();
    ex::Execution e;
    e.state = s;
    e.threads.push_back([s, explicit_abort, counts] {
      // Bound: one chosen abort, one conflict and one explicit abort at most per execution.
      for (int attempt = 0; attempt < 8; ++attempt) {
        const cuckoo::sync::HtmStatus status = s->htm.begin();
        if (status.is_started()) {
          s->x.store(1, std::memory_order_relaxed);
          s->object.a = 1;
          s->plain = 1;
          s->x.store(2, std::memory_order_release);
          int expected = 2;
          s->x.compare_exchange_strong(expected, 3, std::memory_order_acq_rel);
          s->object.a = 2;
          s->object.b = 2;
          s->plain = 2;
          (void)s->x.exchange(4, std::memory_order_acq_rel);
          (void)s->x.fetch_add(1, std::memory_order_relaxed);
          if (explicit_abort && attempt == 0) {
            (void)s->htm.abort<7>();
          } else {
            s->htm.end();
            s->committed = true;
            ++counts->commits;
            return;
          }
        }
        // Aborted (or not started): everything as before the transaction.
        ++counts->aborts;
        const int seen = s->x.load(std::memory_order_relaxed);
        ex::require(seen == 0, "after an abort x = " + std::to_string(seen) + ", not its value before (0)");
        const int read = s->x.fetch_add(0, std::memory_order_relaxed);
        ex::require(read == 0, "after an abort memory holds x = " + std::to_string(read));
        ex::require(s->object.a == 0 && s->object.b == 0,
                    "after an abort the protected object holds a = " + std::to_string(s->object.a) +
                        ", b = " + std::to_string(s->object.b));
        const int p = s->plain;
        ex::require(p == 0, "after an abort the Plain holds " + std::to_string(p));
      }
    });
    if (reader) {
      e.threads.push_back([s] {
        const int seen = s->x.load(std::memory_order_acquire);
        ex::require(seen == 0 || seen == 5, "thread 1 read x = " + std::to_string(seen) + " from inside a transaction");
      });
    }
    e.check = [s]() -> std::string {
      const int x = s->x.load();
      const int want = s->committed ? 5 : 0;
      if (x != want) return "after the threads x = " + std::to_string(x) + ", expected " + std::to_string(want);
      if (s->committed && (s->object.a != 2 || s->object.b != 2 || s->plain != 2)) return "a commit lost a write";
      return {};
    };
    return e;
  };
}

TEST(HtmUndo, AnAbortAnywhereRestoresTheValuesFromBeforeTheTransaction) {
  if (kTsan) GTEST_SKIP() << "emulated transactions are not explored under ThreadSanitizer";
  auto counts = std::make_shared<Counts>();
  const ex::Result alone = ex::bounded(rewrites(false, false, counts), 1, 10'000);
  report("rewrites, chosen aborts, bounded(1)", alone);
  EXPECT_FALSE(alone.failed) << alone.message;
  EXPECT_TRUE(alone.complete) << alone.summary();
  // One execution per scheduling point inside the transaction (5 writes and the commit)
  // aborts there, and one commits.
  EXPECT_GE(counts->aborts, 6U);
  EXPECT_GT(counts->commits, 0U);
  // The reader may read older stores than the newest: never one from inside a
  // transaction, committed or not.
  ex::Options stale;
  stale.max_stale_reads = 1;
  const ex::Result with_reader = ex::bounded(rewrites(false, true, counts), 2, 100'000, stale);
  report("rewrites and a reader, bounded(2), 1 stale read", with_reader);
  EXPECT_FALSE(with_reader.failed) << with_reader.message;
  EXPECT_TRUE(with_reader.complete) << with_reader.summary();
}

TEST(HtmUndo, AnExplicitAbortRestoresTheValuesFromBeforeTheTransaction) {
  if (kTsan) GTEST_SKIP() << "emulated transactions are not explored under ThreadSanitizer";
  auto counts = std::make_shared<Counts>();
  ex::Options no_chosen_aborts;
  no_chosen_aborts.transaction_aborts = false;
  const ex::Result r = ex::bounded(rewrites(true, true, counts), 2, 100'000, no_chosen_aborts);
  report("rewrites, explicit abort, and a reader, bounded(2)", r);
  EXPECT_FALSE(r.failed) << r.message;
  EXPECT_TRUE(r.complete) << r.summary();
  EXPECT_GE(counts->aborts, r.executions);  // every execution aborted at least once
}

}  // namespace
