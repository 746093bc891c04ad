// The explorer's memory model (scheduler.hpp, "Memory model") on the classic litmus
// tests, each explored exhaustively (bounded(), with stale reads allowed) so that an
// outcome the model allows is found and one it forbids is never found:
//   - message passing: a relaxed flag lets the reader see stale data; a release/acquire
//     flag (or a release fence before a relaxed store and an acquire fence after a
//     relaxed load) never does; a release sequence continues through an RMW, not through
//     a plain store;
//   - store buffering: both threads reading 0 is allowed with relaxed and acquire/release
//     accesses, forbidden with seq_cst accesses or seq_cst fences;
//   - coherence: no thread sees a location's values out of modification order;
//   - data races on explore::Plain data are reported, with a schedule that replays;
//   - real-time points order operations that the stamps of a history say are ordered;
//   - a weak-memory schedule replays exactly, and its syntax ("1@1r2") reads as
//     documented.
// Each test also checks that the outcomes it expects to be reachable were reached, so a
// model that forbade too much fails as well as one that allowed too much.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "cuckoo/explore/plain.hpp"
#include "cuckoo/explore/scheduler.hpp"
#include "cuckoo/explore/sync.hpp"

namespace {

namespace ex = cuckoo::explore;
using std::memory_order_acq_rel;
using std::memory_order_acquire;
using std::memory_order_relaxed;
using std::memory_order_release;
using std::memory_order_seq_cst;

void report(const std::string& what, const ex::Result& r) {
  std::printf("[explore] %s: %s\n", what.c_str(), r.summary().c_str());
}

// Exhaustive within 2 preemptions (enough for two threads of two accesses each) and
// `stale` stale reads.
ex::Result exhaustive(const ex::Scenario& s, unsigned stale = 2, unsigned preemptions = 2) {
  ex::Options o;
  o.max_stale_reads = stale;
  return ex::bounded(s, preemptions, 200'000, o);
}

using Outcomes = std::set<std::pair<int, int>>;

// ---- Message passing.

enum class Flag { kRelaxed, kReleaseAcquire, kFences, kReleaseFenceOnly };

// Thread 0 writes data = 1 then flag = 1; thread 1 reads flag, then data. Seen: (flag,
// data) per execution. Fails when the reader saw the flag and stale data.
ex::Scenario message_passing(Flag flag, std::shared_ptr<Outcomes> seen) {
  return [=] {
    struct Shared {
      ex::Atomic<int> data{0};
      ex::Atomic<int> flag{0};
    };
    auto s = std::make_shared<Shared>();
    ex::Execution e;
    e.state = s;
    e.threads.push_back([s, flag] {
      s->data.store(1, memory_order_relaxed);
      if (flag == Flag::kFences || flag == Flag::kReleaseFenceOnly) ex::Sync::fence(memory_order_release);
      s->flag.store(1, flag == Flag::kReleaseAcquire ? memory_order_release : memory_order_relaxed);
    });
    e.threads.push_back([s, flag, seen] {
      const int f = s->flag.load(flag == Flag::kReleaseAcquire ? memory_order_acquire : memory_order_relaxed);
      if (flag == Flag::kFences) ex::Sync::fence(memory_order_acquire);
      const int d = s->data.load(memory_order_relaxed);
      seen->insert({f, d});
      ex::require(f == 0 || d == 1, "stale data: the flag was set but data read " + std::to_string(d));
    });
    return e;
  };
}

TEST(MemoryModelLitmus, MessagePassingWithARelaxedFlagReadsStaleData) {
  auto seen = std::make_shared<Outcomes>();
  const ex::Result r = exhaustive(message_passing(Flag::kRelaxed, seen));
  report("MP relaxed", r);
  ASSERT_TRUE(r.failed) << r.summary();
  EXPECT_NE(r.message.find("stale data"), std::string::npos) << r.message;
  EXPECT_GE(r.stale_reads, 1U) << r.message;
  // Without stale reads (the sequentially consistent executions) it is never found.
  const ex::Result sc = exhaustive(message_passing(Flag::kRelaxed, seen), 0);
  EXPECT_FALSE(sc.failed) << sc.message;
  EXPECT_TRUE(sc.complete) << sc.summary();
}

TEST(MemoryModelLitmus, MessagePassingWithReleaseAcquireNeverReadsStaleData) {
  for (const Flag flag : {Flag::kReleaseAcquire, Flag::kFences}) {
    SCOPED_TRACE(flag == Flag::kFences ? "fences" : "release/acquire");
    auto seen = std::make_shared<Outcomes>();
    const ex::Result r = exhaustive(message_passing(flag, seen), 3);
    report(flag == Flag::kFences ? "MP fences" : "MP release/acquire", r);
    EXPECT_FALSE(r.failed) << r.message;
    EXPECT_TRUE(r.complete) << r.summary();
    // Not vacuous: the reader saw the flag both ways, and stale data while the flag was
    // still 0.
    EXPECT_EQ(*seen, (Outcomes{{0, 0}, {0, 1}, {1, 1}}));
  }
}

TEST(MemoryModelLitmus, AReleaseFenceWithoutTheAcquireFenceDoesNotSynchronize) {
  auto seen = std::make_shared<Outcomes>();
  const ex::Result r = exhaustive(message_passing(Flag::kReleaseFenceOnly, seen));
  report("MP release fence only", r);
  ASSERT_TRUE(r.failed) << r.summary();
  EXPECT_NE(r.message.find("stale data"), std::string::npos) << r.message;
}

// The same with Plain data: a relaxed flag leaves the reader's access racing with the
// writer's; release/acquire orders them.
ex::Scenario message_passing_plain(Flag flag) {
  return [=] {
    struct Shared {
      ex::Plain<int> data{0, "data"};
      ex::Atomic<int> flag{0};
    };
    auto s = std::make_shared<Shared>();
    ex::Execution e;
    e.state = s;
    e.threads.push_back([s, flag] {
      s->data = 1;
      if (flag == Flag::kFences) ex::Sync::fence(memory_order_release);
      s->flag.store(1, flag == Flag::kReleaseAcquire ? memory_order_release : memory_order_relaxed);
    });
    e.threads.push_back([s, flag] {
      const int f = s->flag.load(flag == Flag::kReleaseAcquire ? memory_order_acquire : memory_order_relaxed);
      if (flag == Flag::kFences) ex::Sync::fence(memory_order_acquire);
      if (f == 1) ex::require(s->data == 1, "the flag was set but data is not");
    });
    return e;
  };
}

TEST(MemoryModelLitmus, AMissingReleaseIsADataRaceOnPlainData) {
  const ex::Result racy = exhaustive(message_passing_plain(Flag::kRelaxed), 0);
  report("MP plain, relaxed flag", racy);
  ASSERT_TRUE(racy.failed) << racy.summary();
  EXPECT_NE(racy.message.find("data race on data"), std::string::npos) << racy.message;
  EXPECT_EQ(racy.stale_reads, 0U) << "a race needs no stale read: " << racy.message;
  // The failing schedule replays to the same race.
  const ex::Result again = ex::replay(message_passing_plain(Flag::kRelaxed), racy.schedule);
  ASSERT_TRUE(again.failed);
  EXPECT_EQ(again.message, racy.message);
  for (const Flag flag : {Flag::kReleaseAcquire, Flag::kFences}) {
    const ex::Result ordered = exhaustive(message_passing_plain(flag), 2);
    report(flag == Flag::kFences ? "MP plain, fences" : "MP plain, release/acquire", ordered);
    EXPECT_FALSE(ordered.failed) << ordered.message;
    EXPECT_TRUE(ordered.complete) << ordered.summary();
  }
}

// Two threads write one Plain with no synchronization at all: a race in every schedule.
TEST(MemoryModelLitmus, UnsynchronizedWritesOfPlainDataRace) {
  const ex::Scenario s = [] {
    auto counter = std::make_shared<ex::Plain<int>>(0, "counter");
    auto other = std::make_shared<ex::Atomic<int>>(0);
    ex::Execution e;
    e.state = std::make_shared<std::pair<decltype(counter), decltype(other)>>(counter, other);
    for (int t = 0; t < 2; ++t) {
      e.threads.push_back([counter, other] {
        other->fetch_add(1, memory_order_relaxed);  // a scheduling point; orders nothing
        ++*counter;
      });
    }
    return e;
  };
  for (const std::string& schedule : {std::string("0"), std::string("1")}) {
    const ex::Result r = ex::replay(s, schedule);
    ASSERT_TRUE(r.failed) << "schedule " << schedule;
    EXPECT_NE(r.message.find("data race on counter"), std::string::npos) << r.message;
  }
}

// ---- Release sequences.

// Thread 0: data = 1, flag = 1 (release). Thread 1: flag += 1 (relaxed RMW) or flag = 2
// (relaxed store). Thread 2: if flag reads 2 (acquire), data must be 1. Through the RMW
// the release sequence of thread 0's store continues; through the store it does not.
ex::Scenario release_sequence(bool rmw) {
  return [=] {
    struct Shared {
      ex::Plain<int> data{0, "data"};
      ex::Atomic<int> flag{0};
    };
    auto s = std::make_shared<Shared>();
    ex::Execution e;
    e.state = s;
    e.threads.push_back([s] {
      s->data = 1;
      s->flag.store(1, memory_order_release);
    });
    e.threads.push_back([s, rmw] {
      ex::Sync::SpinWait spin;
      while (s->flag.load(memory_order_relaxed) == 0) spin.wait();
      if (rmw) {
        s->flag.fetch_add(1, memory_order_relaxed);
      } else {
        s->flag.store(2, memory_order_relaxed);
      }
    });
    e.threads.push_back([s] {
      if (s->flag.load(memory_order_acquire) == 2) ex::require(s->data == 1, "data not seen");
    });
    return e;
  };
}

TEST(MemoryModelLitmus, AReleaseSequenceContinuesThroughAnRmwNotAStore) {
  const ex::Result through_rmw = exhaustive(release_sequence(true), 1, 2);
  report("release sequence through an RMW", through_rmw);
  EXPECT_FALSE(through_rmw.failed) << through_rmw.message;
  EXPECT_TRUE(through_rmw.complete) << through_rmw.summary();
  const ex::Result through_store = exhaustive(release_sequence(false), 1, 2);
  report("release sequence broken by a relaxed store", through_store);
  ASSERT_TRUE(through_store.failed) << through_store.summary();
  EXPECT_NE(through_store.message.find("data race on data"), std::string::npos) << through_store.message;
}

// ---- Store buffering.

enum class Sb { kRelaxed, kAcquireRelease, kSeqCst, kSeqCstFences };

// Thread 0: x = 1; r0 = y. Thread 1: y = 1; r1 = x. Fails when r0 == r1 == 0.
ex::Scenario store_buffering(Sb kind, std::shared_ptr<Outcomes> seen) {
  return [=] {
    struct Shared {
      ex::Atomic<int> x{0};
      ex::Atomic<int> y{0};
      int r[2] = {-1, -1};
    };
    auto s = std::make_shared<Shared>();
    const std::memory_order store = kind == Sb::kSeqCst          ? memory_order_seq_cst
                                    : kind == Sb::kAcquireRelease ? memory_order_release
                                                                  : memory_order_relaxed;
    const std::memory_order load = kind == Sb::kSeqCst          ? memory_order_seq_cst
                                   : kind == Sb::kAcquireRelease ? memory_order_acquire
                                                                 : memory_order_relaxed;
    ex::Execution e;
    e.state = s;
    for (int t = 0; t < 2; ++t) {
      e.threads.push_back([s, t, kind, store, load] {
        (t == 0 ? s->x : s->y).store(1, store);
        if (kind == Sb::kSeqCstFences) ex::Sync::fence(memory_order_seq_cst);
        s->r[t] = (t == 0 ? s->y : s->x).load(load);
      });
    }
    e.check = [s, seen]() -> std::string {
      seen->insert({s->r[0], s->r[1]});
      return s->r[0] == 0 && s->r[1] == 0 ? "store buffering: both threads read 0" : "";
    };
    return e;
  };
}

TEST(MemoryModelLitmus, StoreBufferingIsAllowedWithoutSeqCst) {
  for (const Sb kind : {Sb::kRelaxed, Sb::kAcquireRelease}) {
    const std::string name = kind == Sb::kRelaxed ? "SB relaxed" : "SB acquire/release";
    SCOPED_TRACE(name);
    auto seen = std::make_shared<Outcomes>();
    const ex::Result r = exhaustive(store_buffering(kind, seen));
    report(name, r);
    ASSERT_TRUE(r.failed) << r.summary();
    EXPECT_NE(r.message.find("both threads read 0"), std::string::npos) << r.message;
    EXPECT_GE(r.stale_reads, 1U);
    // Found by the random strategies too (seeded), when they read older stores.
    ex::Options stale;
    stale.stale_read_one_in = 4;
    const ex::Result w = ex::random_walk(store_buffering(kind, seen), 0x5b, 2000, stale);
    report(name + " random_walk(seed 0x5b)", w);
    EXPECT_TRUE(w.failed) << w.summary();
  }
}

TEST(MemoryModelLitmus, StoreBufferingIsForbiddenWithSeqCst) {
  for (const Sb kind : {Sb::kSeqCst, Sb::kSeqCstFences}) {
    const std::string name = kind == Sb::kSeqCst ? "SB seq_cst" : "SB seq_cst fences";
    SCOPED_TRACE(name);
    auto seen = std::make_shared<Outcomes>();
    const ex::Result r = exhaustive(store_buffering(kind, seen), 3);
    report(name, r);
    EXPECT_FALSE(r.failed) << r.message;
    EXPECT_TRUE(r.complete) << r.summary();
    EXPECT_EQ(*seen, (Outcomes{{0, 1}, {1, 0}, {1, 1}}));
    ex::Options stale;
    stale.stale_read_one_in = 4;
    const ex::Result w = ex::random_walk(store_buffering(kind, seen), 0x5b, 2000, stale);
    EXPECT_FALSE(w.failed) << w.message;
  }
}

// ---- Coherence.

// Thread 0 stores 1 then 2 (relaxed); thread 1 stores 3; thread 2 reads twice. The
// modification order is the order the stores ran; the reader's two values must follow
// it, and its own earlier read bounds its later one.
TEST(MemoryModelLitmus, NoThreadSeesALocationOutOfModificationOrder) {
  auto seen = std::make_shared<Outcomes>();
  const ex::Scenario s = [seen] {
    struct Shared {
      ex::Atomic<int> x{0};
      std::vector<int> order{0};  // the values in modification order (the stores ran in it)
    };
    auto sh = std::make_shared<Shared>();
    ex::Execution e;
    e.state = sh;
    e.threads.push_back([sh] {
      sh->x.store(1, memory_order_relaxed);
      sh->order.push_back(1);
      sh->x.store(2, memory_order_relaxed);
      sh->order.push_back(2);
      // Write-read coherence: its own store bounds its read.
      ex::require(sh->x.load(memory_order_relaxed) != 1, "thread 0 read 1 after storing 2");
    });
    e.threads.push_back([sh] {
      sh->x.store(3, memory_order_relaxed);
      sh->order.push_back(3);
    });
    e.threads.push_back([sh, seen] {
      const int a = sh->x.load(memory_order_relaxed);
      const int b = sh->x.load(memory_order_relaxed);
      const auto position = [&](int v) {
        return std::find(sh->order.begin(), sh->order.end(), v) - sh->order.begin();
      };
      ex::require(position(b) >= position(a), "read " + std::to_string(a) + " then " + std::to_string(b) +
                                                   ", against the modification order");
      seen->insert({a, b});
    });
    return e;
  };
  const ex::Result r = exhaustive(s, 2, 2);
  report("coherence", r);
  EXPECT_FALSE(r.failed) << r.message;
  EXPECT_TRUE(r.complete) << r.summary();
  // Not vacuous: the reader saw stale values (0 after a store ran) and both orders of
  // the two writers' stores.
  EXPECT_TRUE(seen->count({0, 0}) && seen->count({0, 2}) && seen->count({2, 3}) && seen->count({3, 2}))
      << seen->size() << " outcomes";
}

// ---- Real-time points.

// Thread 0 runs an "insert" (a relaxed RMW of a counter), thread 1 a "size()" (a relaxed
// load of it), each between two stamps of a plain counter the model does not see, as a
// history recorder takes them. When thread 1's operation began after thread 0's ended
// (by the stamps), a linearizability check wants the 1. Only real_time_point() at the
// stamps (modelling the recorder's synchronizing counter) makes it so.
ex::Scenario stamped_size(bool real_time_points) {
  return [=] {
    struct Shared {
      ex::Atomic<int> items{0};
      int clock = 0;  // the stamps: plain, as a recorder's std::atomic is to the model
      int insert_response = -1;
    };
    auto s = std::make_shared<Shared>();
    ex::Execution e;
    e.state = s;
    e.threads.push_back([s, real_time_points] {
      ++s->clock;  // invocation stamp
      if (real_time_points) ex::real_time_point();
      s->items.fetch_add(1, memory_order_relaxed);
      if (real_time_points) ex::real_time_point();
      s->insert_response = ++s->clock;
    });
    e.threads.push_back([s, real_time_points] {
      const int invoke = ++s->clock;
      if (real_time_points) ex::real_time_point();
      const int size = s->items.load(memory_order_relaxed);
      if (real_time_points) ex::real_time_point();
      ++s->clock;
      const bool after = s->insert_response >= 0 && s->insert_response < invoke;
      ex::require(!after || size == 1, "size() began after the insert returned and read " + std::to_string(size));
    });
    return e;
  };
}

TEST(MemoryModelLitmus, RealTimePointsOrderOperationsAsTheStampsSay) {
  const ex::Result unmarked = exhaustive(stamped_size(false), 1);
  report("stamped size(), no real-time points", unmarked);
  ASSERT_TRUE(unmarked.failed) << unmarked.summary();
  EXPECT_NE(unmarked.message.find("began after the insert returned"), std::string::npos) << unmarked.message;
  const ex::Result marked = exhaustive(stamped_size(true), 2);
  report("stamped size(), real-time points", marked);
  EXPECT_FALSE(marked.failed) << marked.message;
  EXPECT_TRUE(marked.complete) << marked.summary();
}

// ---- Replay and syntax.

TEST(MemoryModelLitmus, AWeakScheduleReplaysExactly) {
  auto seen = std::make_shared<Outcomes>();
  const ex::Scenario mp = message_passing(Flag::kRelaxed, seen);
  ex::Options o;
  o.stale_read_one_in = 2;
  const ex::Result found = ex::random_walk(mp, 0x3a9, 500, o);
  report("MP relaxed random_walk(seed 0x3a9)", found);
  ASSERT_TRUE(found.failed) << found.summary();
  EXPECT_NE(found.schedule.find('r'), std::string::npos) << found.schedule;
  EXPECT_EQ(found.stale_reads, 1U) << found.message;  // shrunk to the one stale read it needs
  for (int i = 0; i < 3; ++i) {
    const ex::Result again = ex::replay(mp, found.schedule);
    ASSERT_TRUE(again.failed) << "schedule " << found.schedule << " did not fail again";
    EXPECT_EQ(again.schedule, found.schedule);
    EXPECT_EQ(again.message, found.message);
  }
  // With its stale reads taken out (decision entries read the newest store, forced
  // entries dropped), the same interleaving passes.
  std::string newest;
  std::size_t at = 0;
  while (at <= found.schedule.size()) {  // bound: one entry per pass
    const std::size_t dot = std::min(found.schedule.find('.', at), found.schedule.size());
    const std::string entry = found.schedule.substr(at, dot - at);
    at = dot + 1;
    if (entry.find('@') != std::string::npos) continue;
    newest += (newest.empty() ? "" : ".") + entry.substr(0, entry.find('r'));
  }
  EXPECT_FALSE(ex::replay(mp, newest).failed) << newest;
}

TEST(MemoryModelLitmus, TheScheduleSyntaxReadsAsDocumented) {
  // Thread 0 stores 1; thread 1 loads it; thread 2, when there, loads it too.
  auto value = std::make_shared<int>(-1);
  const auto scenario = [value](bool third) -> ex::Scenario {
    return [value, third] {
      auto x = std::make_shared<ex::Atomic<int>>(0);
      ex::Execution e;
      e.state = x;
      e.threads.push_back([x] { x->store(1, memory_order_relaxed); });
      e.threads.push_back([x, value] { *value = x->load(memory_order_relaxed); });
      if (third) e.threads.push_back([x] { (void)x->load(memory_order_relaxed); });
      return e;
    };
  };
  // Two threads. "0" runs thread 0 first (to its store's point); the decisions after it
  // default (thread 0 stores and ends); thread 1 then runs alone and, at its step 1 (the
  // load), "1@1r2" makes it read the 2nd newest store it may read: the 0.
  const ex::Scenario two = scenario(false);
  const ex::Result newest = ex::replay(two, "0");
  EXPECT_EQ(*value, 1);
  EXPECT_EQ(newest.stale_reads, 0U);
  const ex::Result stale = ex::replay(two, "0.1@1r2");
  EXPECT_EQ(*value, 0);
  EXPECT_EQ(stale.stale_reads, 1U);
  EXPECT_NE(stale.schedule.find("1@1r2"), std::string::npos) << stale.schedule;
  const ex::Result again = ex::replay(two, stale.schedule);
  EXPECT_EQ(*value, 0);
  EXPECT_EQ(again.schedule, stale.schedule);
  // Three threads, so that thread 1's load is at a decision: thread 1 to its load
  // ("1"), thread 0 to its store ("0") and through it ("0"), then thread 1 reads the
  // 2nd newest ("1r2") or the newest ("1").
  const ex::Scenario three = scenario(true);
  ex::replay(three, "1.0.0.1r2");
  EXPECT_EQ(*value, 0);
  ex::replay(three, "1.0.0.1");
  EXPECT_EQ(*value, 1);
  EXPECT_THROW(ex::replay(two, "1@1"), std::invalid_argument);   // '@' needs s or rK
  EXPECT_THROW(ex::replay(two, "1r0"), std::invalid_argument);   // K >= 1
  EXPECT_THROW(ex::replay(two, "1@r2"), std::invalid_argument);  // a step number
  EXPECT_THROW(ex::replay(two, "1@2a"), std::invalid_argument);  // aborts are decisions
  EXPECT_NO_THROW(ex::replay(two, "1r1.0s"));
}

}  // namespace
