// K-CAS (sync/kcas.hpp) under the deterministic scheduler, instantiated with
// explore::Sync: every access to a word or a descriptor is a scheduling point.
//
// Claims checked:
//   - linearizability: every explored history of K-CAS and read operations on three
//     words has a sequential order, consistent with real time, in which each K-CAS
//     succeeds exactly when its expected values are there and each read returns the
//     value there (a brute-force search over the few operations of a scenario), whether
//     it reads by read() (helping) or by peek() (interpreting descriptors, no writes);
//   - atomicity: transfers keep the sum of the words, and a K-CAS that writes back a
//     snapshot succeeds only on values that sum to the total;
//   - lock-freedom, observed: a thread stalled at any step of its K-CAS (never scheduled
//     again until the other finishes) does not stop another thread's K-CAS on the same
//     words from completing; the other thread finishes the stalled operation for it.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cuckoo/explore/scheduler.hpp"
#include "cuckoo/explore/sync.hpp"
#include "cuckoo/sync/kcas.hpp"

namespace {

namespace ex = cuckoo::explore;
using Kcas = cuckoo::sync::BasicKcas<ex::Sync>;
using Word = cuckoo::sync::BasicKcasWord<ex::Sync>;

bool long_lane() {
  const char* env = std::getenv("CUCKOO_EXPLORE_LONG");
  return env != nullptr && std::string(env) == "1";
}

void report(const std::string& what, const ex::Result& r) {
  std::printf("[explore] %s: %s\n", what.c_str(), r.summary().c_str());
}

constexpr unsigned kWords = 3;
constexpr std::uint64_t kStart = 10;

// One recorded operation: a K-CAS (indices, expected, desired, result) or a read.
struct Op {
  bool is_read = false;
  std::vector<unsigned> index;
  std::vector<std::uint64_t> expected;
  std::vector<std::uint64_t> desired;
  bool result = false;        // K-CAS
  std::uint64_t value = 0;    // read
  std::uint64_t invoked = 0;  // stamps from a plain counter: scenario order
  std::uint64_t returned = 0;
};

struct Shared {
  std::array<Word, kWords> words;
  // Not a scheduling point: stamps follow the explored order. The real-time points
  // around each call give the stamps' order to the memory model (stale reads are on).
  std::uint64_t clock = 0;
  std::vector<Op> history;
  Shared() {
    for (auto& w : words) (void)Kcas::cas(w, 0, kStart);
  }
  bool kcas(std::vector<unsigned> idx, std::vector<std::uint64_t> expected, std::vector<std::uint64_t> desired) {
    Op op;
    op.index = idx;
    op.expected = expected;
    op.desired = desired;
    op.invoked = clock++;
    ex::real_time_point();
    std::array<Kcas::Entry, kWords> e{};
    for (std::size_t i = 0; i < idx.size(); ++i) e[i] = {&words[idx[i]], expected[i], desired[i]};
    op.result = Kcas::kcas(std::span<Kcas::Entry>(e.data(), idx.size()));
    ex::real_time_point();
    op.returned = clock++;
    history.push_back(op);
    return op.result;
  }
  // A read by Kcas::read (helps what it finds) or, with `peek`, by Kcas::peek (writes
  // nothing); both are reads of the word's value to the checker.
  std::uint64_t read(unsigned i, bool peek = false) {
    Op op;
    op.is_read = true;
    op.index = {i};
    op.invoked = clock++;
    ex::real_time_point();
    op.value = peek ? Kcas::peek(words[i]) : Kcas::read(words[i]);
    ex::real_time_point();
    op.returned = clock++;
    history.push_back(op);
    return op.value;
  }
};

// The words' values once every thread returned: read without helping or waiting, so a
// descriptor reference left behind is reported instead of spinning for ever (the check
// runs outside the explorer, where no step bound applies).
std::string idle_values(const std::array<Word, kWords>& words, std::array<std::uint64_t, kWords>& out) {
  for (unsigned i = 0; i < kWords; ++i) {
    const std::optional<std::uint64_t> v = Kcas::read_if_idle(words[i]);
    if (!v) return "w" + std::to_string(i) + " still holds a descriptor reference after every operation returned";
    out[i] = *v;
  }
  return {};
}

// Wing & Gong's search, without memoization (a scenario has at most a dozen operations).
bool linearizable(const std::vector<Op>& ops, std::vector<bool>& done, std::array<std::uint64_t, kWords>& state,
                  std::size_t left) {
  if (left == 0) return true;
  std::uint64_t first_return = ~std::uint64_t{0};
  for (std::size_t i = 0; i < ops.size(); ++i) {
    if (!done[i]) first_return = std::min(first_return, ops[i].returned);
  }
  for (std::size_t i = 0; i < ops.size(); ++i) {
    const Op& op = ops[i];
    if (done[i] || op.invoked > first_return) continue;  // real time: nothing returned before it may follow it
    bool legal = false;
    std::array<std::uint64_t, kWords> next = state;
    if (op.is_read) {
      legal = state[op.index[0]] == op.value;
    } else {
      bool match = true;
      for (std::size_t k = 0; k < op.index.size(); ++k) match = match && state[op.index[k]] == op.expected[k];
      legal = match == op.result;
      if (match) {
        for (std::size_t k = 0; k < op.index.size(); ++k) next[op.index[k]] = op.desired[k];
      }
    }
    if (!legal) continue;
    done[i] = true;
    if (linearizable(ops, done, next, left - 1)) return true;
    done[i] = false;
  }
  return false;
}

std::string check_history(const std::vector<Op>& ops) {
  std::vector<bool> done(ops.size(), false);
  std::array<std::uint64_t, kWords> state{};
  state.fill(kStart);
  if (linearizable(ops, done, state, ops.size())) return {};
  std::string out = "the K-CAS history is not linearizable:";
  for (const Op& op : ops) {
    out += "\n  [" + std::to_string(op.invoked) + ", " + std::to_string(op.returned) + "] ";
    if (op.is_read) {
      out += "read w" + std::to_string(op.index[0]) + " -> " + std::to_string(op.value);
    } else {
      out += "kcas(";
      for (std::size_t k = 0; k < op.index.size(); ++k) {
        out += (k ? ", w" : "w") + std::to_string(op.index[k]) + ": " + std::to_string(op.expected[k]) + "->" +
               std::to_string(op.desired[k]);
      }
      out += std::string(") -> ") + (op.result ? "true" : "false");
    }
  }
  return out;
}

// Two movers (a transfer of 2 units from one word to two others, then one of 1 unit
// between two words, each from values read just before) and a reader that reads every
// word and writes the snapshot back with a K-CAS.
ex::Scenario transfers() {
  return [] {
    auto s = std::make_shared<Shared>();
    ex::Execution e;
    e.state = s;
    for (unsigned t = 0; t < 2; ++t) {
      e.threads.push_back([s, t] {
        const unsigned a = t;
        const unsigned b = (t + 1) % kWords;
        const unsigned c = (t + 2) % kWords;
        const std::uint64_t va = s->read(a);
        const std::uint64_t vb = s->read(b);
        const std::uint64_t vc = s->read(c);
        (void)s->kcas({a, b, c}, {va, vb, vc}, {va - 2, vb + 1, vc + 1});
        const std::uint64_t vb2 = s->read(b);
        const std::uint64_t va2 = s->read(a);
        (void)s->kcas({b, a}, {vb2, va2}, {vb2 - 1, va2 + 1});
      });
    }
    e.threads.push_back([s] {
      std::array<std::uint64_t, kWords> v{};
      for (unsigned i = 0; i < kWords; ++i) v[i] = s->read(i);
      if (s->kcas({0, 1, 2}, {v[0], v[1], v[2]}, {v[0], v[1], v[2]})) {
        ex::require(v[0] + v[1] + v[2] == kWords * kStart,
                    "a snapshot K-CAS succeeded on values that sum to " + std::to_string(v[0] + v[1] + v[2]));
      }
    });
    e.check = [s]() -> std::string {
      std::array<std::uint64_t, kWords> v{};
      if (std::string left = idle_values(s->words, v); !left.empty()) return left;
      const std::uint64_t sum = v[0] + v[1] + v[2];
      if (sum != kWords * kStart) return "the words sum to " + std::to_string(sum) + " after the threads";
      return check_history(s->history);
    };
    return e;
  };
}

// The two movers of transfers() and a reader that peeks at every word twice: peek
// interprets the descriptors it meets (an RDCSS's expected value, a K-CAS's desired
// value once it has succeeded, else its expected one) instead of helping.
ex::Scenario peeks() {
  return [] {
    auto s = std::make_shared<Shared>();
    ex::Execution e;
    e.state = s;
    for (unsigned t = 0; t < 2; ++t) {
      e.threads.push_back([s, t] {
        const unsigned a = t;
        const unsigned b = (t + 1) % kWords;
        const std::uint64_t va = s->read(a);
        const std::uint64_t vb = s->read(b);
        (void)s->kcas({a, b}, {va, vb}, {va - 1, vb + 1});
      });
    }
    e.threads.push_back([s] {
      for (int pass = 0; pass < 2; ++pass) {
        for (unsigned i = 0; i < kWords; ++i) (void)s->read(i, /*peek=*/true);
      }
    });
    e.check = [s]() -> std::string {
      std::array<std::uint64_t, kWords> v{};
      if (std::string left = idle_values(s->words, v); !left.empty()) return left;
      return check_history(s->history);
    };
    return e;
  };
}

// Random walks and PCT (1,500 each; 50,000 in the long lane), with stale reads (a load
// that may read an older store does so one time in 8) and a stall now and then; and
// every schedule with 1 preemption and at most 1 stale read (capped at 200,000;
// 2,000,000), each of which must pass.
ex::Options explore_options() {
  ex::Options options;
  // A healthy execution takes a few hundred steps: a spin that never ends fails fast.
  options.max_steps = 5'000;
  options.stale_read_one_in = 8;
  options.max_stale_reads = 1;
  options.max_stalls = 1;
  return options;
}

void explore_three_ways(const ex::Scenario& scenario, std::uint64_t seed, const std::string& what) {
  const std::uint64_t runs = long_lane() ? 50'000 : 1'500;
  const ex::Options options = explore_options();
  const ex::Result w = ex::random_walk(scenario, seed, runs, options);
  report(what + " random", w);
  EXPECT_FALSE(w.failed) << w.message;
  if (w.failed) return;
  const ex::Result p = ex::pct(scenario, seed, 3, runs, options);
  report(what + " pct(3)", p);
  EXPECT_FALSE(p.failed) << p.message;
  if (p.failed) return;
  ex::Options exhaustive = options;
  exhaustive.max_stalls = 0;  // stall_sweep below places them
  const ex::Result b = ex::bounded(scenario, 1, long_lane() ? 2'000'000 : 200'000, exhaustive);
  report(what + " bounded(1)", b);
  EXPECT_FALSE(b.failed) << b.message;
}

// Lock-freedom, checked: each thread of the scenario stalled at each of its steps in
// turn (helpers and readers included), in every schedule of the others within the
// preemption bound; the others must all finish while it is stalled, and the execution
// must still pass its checks once it resumes.
void sweep_every_thread(const ex::Scenario& scenario, unsigned threads, unsigned preemptions,
                        const std::string& what) {
  ex::Options options = explore_options();
  options.max_stale_reads = 0;
  for (unsigned t = 0; t < threads; ++t) {
    const ex::Result r = ex::stall_sweep(scenario, t, preemptions, long_lane() ? 2'000'000 : 100'000, options);
    report(what + " thread " + std::to_string(t) + " stalled, bounded(" + std::to_string(preemptions) + ")", r);
    EXPECT_FALSE(r.failed) << r.message;
    if (r.failed) return;
    // Each of the thread's steps is a stall point of at least one execution.
    EXPECT_GT(r.executions, 20U) << "the sweep did not reach the thread's steps";
  }
}

TEST(KcasExplored, PeeksAreLinearizable) { explore_three_ways(peeks(), 0x9eec, "kcas 2 movers + peeker"); }

TEST(KcasExplored, HistoriesAreLinearizable) {
  explore_three_ways(transfers(), 0xca5, "kcas 2 movers + reader");
}

ex::Scenario stale_helper();

TEST(KcasExplored, EveryThreadStalledAtEveryStepLeavesTheOthersFinishing) {
  // Every schedule of the others without preemptions here (2 s); with 1 in the long lane
  // (two minutes).
  const unsigned preemptions = long_lane() ? 1 : 0;
  sweep_every_thread(transfers(), 3, preemptions, "kcas 2 movers + reader");
  sweep_every_thread(peeks(), 3, preemptions, "kcas 2 movers + peeker");
  sweep_every_thread(stale_helper(), 3, preemptions, "kcas owner + ABA writer + helper");
}

// Thread 0: one K-CAS of w0 and w1 from 10 to 11. Thread 1: read both, K-CAS them up by
// 10, until it succeeds. Schedule: thread 0 for n steps, then thread 1 to its end (it
// never waits), then thread 0. Thread 1 must end first for every n up to thread 0's
// whole operation: the stalled operation is no obstacle. Where thread 0's K-CAS was
// already installed when it stalled, thread 1 completes it (thread 0 then returns true
// although it did not run meanwhile).
struct StallLog {
  std::vector<int> finished;  // thread numbers in the order their operations returned
  bool kcas0 = false;
};

ex::Scenario stall() {
  return [] {
    auto s = std::make_shared<Shared>();
    auto log = std::make_shared<StallLog>();
    ex::Execution e;
    e.state = std::make_shared<std::pair<std::shared_ptr<Shared>, std::shared_ptr<StallLog>>>(s, log);
    e.threads.push_back([s, log] {
      log->kcas0 = s->kcas({0, 1}, {kStart, kStart}, {kStart + 1, kStart + 1});
      log->finished.push_back(0);
    });
    e.threads.push_back([s, log] {
      for (int attempt = 0; attempt < 8; ++attempt) {  // bound: thread 0 changes the words once
        const std::uint64_t a = s->read(0);
        const std::uint64_t b = s->read(1);
        if (s->kcas({0, 1}, {a, b}, {a + 10, b + 10})) break;
      }
      log->finished.push_back(1);
    });
    e.check = [s, log]() -> std::string {
      std::array<std::uint64_t, kWords> v{};
      if (std::string left = idle_values(s->words, v); !left.empty()) return left;
      const std::uint64_t a = v[0];
      const std::uint64_t b = v[1];
      const std::uint64_t want = log->kcas0 ? kStart + 11 : kStart + 10;
      if (a != want || b != want) {
        return "w0 = " + std::to_string(a) + ", w1 = " + std::to_string(b) + ", expected " + std::to_string(want);
      }
      return check_history(s->history);
    };
    return e;
  };
}

TEST(KcasExplored, AStalledOperationDoesNotStopAnother) {
  unsigned stalled_inside = 0;  // n where thread 0 had started, had not returned, and thread 1 still finished
  unsigned helped = 0;          // of those, thread 0's K-CAS succeeded while it was stalled
  bool thread0_done_alone = false;
  // Bound: thread 0's K-CAS of two words takes a few dozen steps; 400 is far beyond.
  for (unsigned n = 0; n < 400 && !thread0_done_alone; ++n) {
    std::string schedule;
    for (unsigned k = 0; k < n; ++k) schedule += "0.";
    schedule += "1";
    std::shared_ptr<StallLog> log;
    const ex::Scenario scenario = [&] {
      ex::Execution e = stall()();
      log = std::static_pointer_cast<std::pair<std::shared_ptr<Shared>, std::shared_ptr<StallLog>>>(e.state)->second;
      return e;
    };
    const ex::Result r = ex::replay(scenario, schedule);
    ASSERT_FALSE(r.failed) << "thread 0 stalled after " << n << " steps: " << r.message;
    ASSERT_EQ(log->finished.size(), 2U);
    if (log->finished[0] == 0) {
      thread0_done_alone = true;  // n covers thread 0's whole operation
      break;
    }
    if (n > 0) ++stalled_inside;
    if (n > 0 && log->kcas0) ++helped;
  }
  std::printf("[explore] kcas stall: thread 1 finished with thread 0 stalled at %u steps of its K-CAS; "
              "%u of them completed thread 0's operation for it\n",
              stalled_inside, helped);
  EXPECT_TRUE(thread0_done_alone) << "thread 0's operation never finished within the bound";
  EXPECT_GT(stalled_inside, 10U);
  EXPECT_GT(helped, 0U) << "no stall point where the other thread finished the stalled K-CAS";
}

}  // namespace

namespace {

// A helper that went stale (the K-CAS reuse hazard). Thread 0 owns K-CAS K of w0, w1,
// w2 (10 -> 20, 11 -> 21, 10 -> 22): it installs K in w0, finds w1 at 10, not 11, so K
// must fail; then it runs a second K-CAS, reusing its descriptor. Thread 1 moves w1 from
// 10 to 11 (w1 comes back to what K expects: a legal ABA). Thread 2 reads w0, meets K
// there and helps it: with w1 now 11 it installs K in w1, then an RDCSS of its own in
// w2; then it reads w2. The sweep stops thread 0 at each of its steps, runs thread 1 to
// its end, then thread 2 for each number of steps, then thread 0 to its end (deciding K,
// phase 2, the second K-CAS), then thread 2. Where thread 2 stood in complete_rdcss
// between reading K's status (undecided) and its CAS, that CAS comes after K was decided
// and its descriptor reused: it must find nothing to replace, or w2 holds a reference
// to a descriptor that has moved on and every access of w2 spins for ever (the step
// bound) — a lock-free structure that stops for good.
ex::Scenario stale_helper() {
  return [] {
    auto s = std::make_shared<Shared>();
    ex::Execution e;
    e.state = s;
    e.threads.push_back([s] {
      (void)s->kcas({0, 1, 2}, {kStart, kStart + 1, kStart}, {20, 21, 22});
      (void)s->kcas({0}, {kStart}, {kStart + 2});  // descriptor reused (if w0 is 10)
    });
    e.threads.push_back([s] { (void)s->kcas({1}, {kStart}, {kStart + 1}); });
    e.threads.push_back([s] {
      (void)s->read(0);
      (void)s->read(2);
    });
    e.check = [s]() -> std::string {
      std::array<std::uint64_t, kWords> v{};
      if (std::string left = idle_values(s->words, v); !left.empty()) return left;
      return check_history(s->history);
    };
    return e;
  };
}

std::string repeat_choice(unsigned thread, std::size_t times) {
  std::string out;
  for (std::size_t i = 0; i < times; ++i) out += std::to_string(thread) + ".";
  return out;
}

// The decisions at which `thread` was chosen, in a row, from decision `from` on.
std::size_t run_length(const std::string& schedule, std::size_t from, unsigned thread) {
  std::vector<std::string> choices;
  std::string cur;
  for (const char c : schedule + ".") {
    if (c == '.') {
      if (!cur.empty()) choices.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  std::size_t n = 0;
  while (from + n < choices.size() && choices[from + n] == std::to_string(thread)) ++n;
  return n;
}

TEST(KcasExplored, AHelperThatWentStaleLeavesNoReferenceBehind) {
  ex::Options options;
  options.max_steps = 20'000;  // a healthy execution takes a few hundred
  options.shrink = false;
  std::uint64_t executions = 0;
  unsigned reached = 0;  // owner stall points where thread 2 met K and helped it
  // Bound: thread 0's first K-CAS takes well under 120 decisions before it returns.
  for (std::size_t k1 = 1; k1 < 120; ++k1) {
    // Where thread 1's run ends after thread 0 stopped at k1.
    const ex::Result probe = ex::replay(stale_helper(), repeat_choice(0, k1) + "1", options);
    ASSERT_FALSE(probe.failed) << "k1 = " << k1 << ": " << probe.message;
    const std::size_t c = run_length(probe.schedule, k1, 1);
    if (c == 0) break;  // thread 0 had finished: nothing left to interleave
    for (std::size_t k2 = 1; k2 < 200; ++k2) {
      const std::string schedule = repeat_choice(0, k1) + repeat_choice(1, c) + repeat_choice(2, k2) + "0";
      const ex::Result r = ex::replay(stale_helper(), schedule, options);
      ++executions;
      ASSERT_FALSE(r.failed) << "thread 0 stopped after " << k1 << " decisions, thread 2 after " << k2
                             << ": " << r.message << "\nreplay: explore::replay(stale_helper(), \"" << schedule
                             << "\")";
      if (run_length(r.schedule, k1 + c, 2) < k2) break;  // thread 2 had finished before k2
      if (k2 == 40) ++reached;
    }
  }
  std::printf("[explore] kcas stale helper: %llu executions, %u owner stall points with the helper inside\n",
              static_cast<unsigned long long>(executions), reached);
  EXPECT_GT(executions, 500U);
  EXPECT_GT(reached, 5U);
}

}  // namespace
