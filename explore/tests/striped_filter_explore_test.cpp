// The striped concurrent filter (detail/striped_filter.hpp) under the deterministic
// scheduler: its own table, stripes and stash, instantiated with explore::Sync through
// its policy. A small, nearly full table (4 buckets of 2 slots) holds prefilled items
// that nobody erases; one thread inserts items that need cuckoo paths (moving prefilled
// items between their buckets), one inserts and erases, and one reader looks up every
// prefilled item. Claims checked in every explored execution: no false negative (C1) for
// a prefilled item at any time, nor for an inserted item after its insert returned,
// and after the threads end, every item inserted and not erased is found and the size
// is right; and the history of the threads' calls (and of the prefill before them) is
// linearizable against the multiset specification with the filter relaxations (the
// subject layer's checker). The broken variants of the stress lane (unvalidated path hops, unvalidated
// optimistic reads) must be caught by the exploration alone.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cuckoo/detail/concurrent_filter_table.hpp"
#include "cuckoo/detail/striped_filter.hpp"
#include "cuckoo/explore/scheduler.hpp"
#include "cuckoo/explore/sync.hpp"
#include "cuckoo/hash.hpp"
#include "cuckoo/subjects/history.hpp"
#include "cuckoo/subjects/linearizability.hpp"
#include "cuckoo/subjects/run_and_check.hpp"

namespace {

namespace ex = cuckoo::explore;
namespace sub = cuckoo::subjects;
using cuckoo::InsertResult;

struct Explored : cuckoo::detail::StripedFilterPolicy {
  using Sync = ex::Sync;
};
struct UnvalidatedReads : Explored {
  static constexpr bool kValidateOptimisticReads = false;
};
struct UnvalidatedHops : Explored {
  static constexpr bool kValidatePathHops = false;
};

bool long_lane() {
  const char* env = std::getenv("CUCKOO_EXPLORE_LONG");
  return env != nullptr && std::string(env) == "1";
}

std::uint64_t key_hash(std::uint64_t i) { return cuckoo::detail::mix64(0x5f17e7ULL + i); }

constexpr unsigned kPrefilled = 5;

template <class Policy>
struct Shared {
  cuckoo::detail::StripedFilter<Policy> filter{cuckoo::detail::CuckooFilterShape{4, 8, 2, 64}, 2};
  std::vector<std::uint64_t> prefilled;
  std::vector<std::uint64_t> kept;  // inserted by the threads and not erased
  sub::HistoryRecorder recorder{3, 8};  // churn's calls, the prefill as thread 0's first
  Shared() { recorder.set_real_time_hook(&ex::real_time_point); }
};


// Records one call of thread t on the filter.
template <class Policy>
InsertResult record_insert(Shared<Policy>& s, std::uint32_t t, std::uint64_t h) {
  InsertResult r = InsertResult::kFull;
  (void)s.recorder.thread(t).record(sub::OpKind::kInsert, h, 0, [&] {
    r = s.filter.insert(h);
    return sub::outcome_of(r);
  });
  return r;
}
template <class Policy>
bool record_contains(Shared<Policy>& s, std::uint32_t t, std::uint64_t h) {
  return s.recorder.thread(t).record(sub::OpKind::kContains, h, 0, [&] { return s.filter.contains(h); });
}
template <class Policy>
bool record_erase(Shared<Policy>& s, std::uint32_t t, std::uint64_t h) {
  return s.recorder.thread(t).record(sub::OpKind::kErase, h, 0, [&] { return s.filter.erase(h); });
}

// Fills a fresh filter with the first kPrefilled keys from key_hash(first) on that it
// takes, recorded in s.prefilled; runs outside the exploration (plain atomics).
template <class Policy>
void prefill(Shared<Policy>& s, std::uint64_t first) {
  for (std::uint64_t i = first; s.prefilled.size() < kPrefilled; ++i) {
    if (s.filter.insert(key_hash(i)) == InsertResult::kInserted) s.prefilled.push_back(key_hash(i));
  }
}

template <class Policy>
ex::Scenario churn() {
  return [] {
    auto s = std::make_shared<Shared<Policy>>();
    prefill(*s, 0);
    for (const std::uint64_t h : s->prefilled) {  // the prefill, as calls that came first
      (void)s->recorder.thread(0).record(sub::OpKind::kInsert, h, 0, [] { return sub::InsertOutcome::kInserted; });
    }
    ex::Execution e;
    e.state = s;
    e.threads.push_back([s] {  // inserts two items that need paths, checks each after
      for (std::uint64_t i = 100; i < 102; ++i) {
        if (record_insert(*s, 0, key_hash(i)) == InsertResult::kInserted) {
          ex::require(record_contains(*s, 0, key_hash(i)), "an item just inserted is reported absent");
          s->kept.push_back(key_hash(i));
        }
      }
    });
    e.threads.push_back([s] {  // an insert and its erase
      if (record_insert(*s, 1, key_hash(200)) == InsertResult::kInserted) {
        ex::require(record_erase(*s, 1, key_hash(200)), "erase of an item just inserted found nothing");
      }
    });
    e.threads.push_back([s] {  // the reader
      for (const std::uint64_t h : s->prefilled) {
        ex::require(record_contains(*s, 2, h), "a prefilled item, never erased, is reported absent");
      }
    });
    e.check = [s]() -> std::string {
      const sub::CheckResult verdict =
          sub::check_multiset(s->recorder.take_history(), sub::MultisetSpec::filter(2 * 2));
      if (!verdict.linearizable()) return verdict.describe();
      for (const std::uint64_t h : s->prefilled) {
        if (!s->filter.contains(h)) return "after the threads, a prefilled item is absent";
      }
      for (const std::uint64_t h : s->kept) {
        if (!s->filter.contains(h)) return "after the threads, an inserted item is absent";
      }
      const std::uint64_t expected = s->prefilled.size() + s->kept.size();
      if (s->filter.size() != expected) {
        return "size() is " + std::to_string(s->filter.size()) + ", expected " + std::to_string(expected);
      }
      return {};
    };
    return e;
  };
}

void report(const char* what, const ex::Result& r) { std::printf("[explore] %s: %s\n", what, r.summary().c_str()); }

// With stale reads: one load in 8 that may read an older store does (random and PCT);
// every schedule with 1 preemption and at most 1 stale read (bounded).
TEST(StripedFilterExplored, NoFalseNegativeUnderChurn) {
  const std::uint64_t runs = long_lane() ? 50'000 : 1'000;
  ex::Options options;
  options.stale_read_one_in = 8;
  options.max_stale_reads = 1;
  const ex::Result p = ex::pct(churn<Explored>(), 0xf17, 3, runs, options);
  report("striped filter churn pct(3)", p);
  EXPECT_FALSE(p.failed) << p.message;
  const ex::Result w = ex::random_walk(churn<Explored>(), 0xf17, runs, options);
  report("striped filter churn random", w);
  EXPECT_FALSE(w.failed) << w.message;
  const ex::Result b = ex::bounded(churn<Explored>(), 1, long_lane() ? 1'000'000 : 20'000, options);
  report("striped filter churn bounded(1)", b);
  EXPECT_FALSE(b.failed) << b.message;
}

// A key whose insert moves a prefilled item along a cuckoo path from the item's second
// bucket to its first (the direction a lookup reading bucket1, then bucket2, can miss),
// found on serial copies (the same prefill, StdSync): the key, the moved item's hash and
// the bucket it leaves.
struct Moved {
  std::uint64_t first = 0;  // the prefill is the first kPrefilled keys from key_hash(first) on
  std::uint64_t key = 0;
  std::uint64_t hash = 0;
  std::uint32_t from = 0;
};

Moved moved_by_path() {
  const cuckoo::detail::FilterHashRule rule(4, 8);
  for (std::uint64_t attempt = 0; attempt < 20'000; ++attempt) {  // bound: 20000 setups
    const std::uint64_t first = 10'000 * (attempt / 100);
    const std::uint64_t key = 5'000'000 + attempt % 100;
    cuckoo::detail::StripedFilter<> f(cuckoo::detail::CuckooFilterShape{4, 8, 2, 64}, 2);
    std::vector<std::uint64_t> prefilled;
    for (std::uint64_t i = first; prefilled.size() < kPrefilled; ++i) {
      if (f.insert(key_hash(i)) == InsertResult::kInserted) prefilled.push_back(key_hash(i));
    }
    auto bucket_of = [&](std::uint64_t h) {
      const cuckoo::CuckooFilterPlacement p = rule.placement(h);
      for (unsigned slot = 0; slot < 2; ++slot) {
        if (f.table().get(p.bucket1, slot) == p.fingerprint) return p.bucket1;
      }
      return p.bucket2;
    };
    std::vector<std::uint32_t> before;
    for (const std::uint64_t h : prefilled) before.push_back(bucket_of(h));
    (void)f.insert(key_hash(key));
    for (std::size_t k = 0; k < prefilled.size(); ++k) {
      const cuckoo::CuckooFilterPlacement p = rule.placement(prefilled[k]);
      // (A key with the item's own fingerprint would only add a copy of it.)
      if (p.bucket1 != p.bucket2 && before[k] == p.bucket2 && bucket_of(prefilled[k]) == p.bucket1 &&
          rule.placement(key_hash(key)).fingerprint != p.fingerprint) {
        return {first, key_hash(key), prefilled[k], before[k]};
      }
    }
  }
  return {};
}

// Two threads: one inserts moved.key (a path that moves `moved`), the other looks the
// moved item up twice (unvalidated reads: a lookup that reads the item's destination
// before the hop writes it and its source after the hop cleared it misses it).
template <class Policy>
ex::Scenario lookup_during_hop(Moved moved) {
  return [moved] {
    auto s = std::make_shared<Shared<Policy>>();
    prefill(*s, moved.first);
    ex::Execution e;
    e.state = s;
    e.threads.push_back([s, moved] { (void)s->filter.insert(moved.key); });
    e.threads.push_back([s, moved] {
      for (int k = 0; k < 2; ++k) {
        ex::require(s->filter.contains(moved.hash), "the item a cuckoo path moves is reported absent");
      }
    });
    e.check = [s]() -> std::string {
      return s->filter.stats().path_hops != 0 ? "" : "the insert made no hop: the scenario is not what it claims";
    };
    return e;
  };
}

// Two threads: one inserts moved.key (a path that moves `moved` out of bucket `from`), the
// other erases the moved item and inserts an item whose first bucket is `from`, which
// takes the freed slot (unvalidated hops: the hop moves the erased item's stale
// fingerprint and clears the slot, losing the new item).
template <class Policy>
ex::Scenario erase_and_refill_during_search(Moved moved) {
  const cuckoo::detail::FilterHashRule rule(4, 8);
  std::uint64_t refill = 0;
  for (std::uint64_t i = 1000; refill == 0; ++i) {
    const cuckoo::CuckooFilterPlacement p = rule.placement(key_hash(i));
    if (p.bucket1 == moved.from && p.bucket2 != moved.from &&
        p.fingerprint != rule.placement(moved.hash).fingerprint) {
      refill = key_hash(i);
    }
  }
  return [moved, refill] {
    auto s = std::make_shared<Shared<Policy>>();
    prefill(*s, moved.first);
    ex::Execution e;
    e.state = s;
    e.threads.push_back([s, moved] { (void)s->filter.insert(moved.key); });
    e.threads.push_back([s, moved, refill] {
      ex::require(s->filter.erase(moved.hash), "erase of a prefilled item found nothing");
      if (s->filter.insert(refill) == InsertResult::kInserted) s->kept.push_back(refill);
    });
    e.check = [s]() -> std::string {
      for (const std::uint64_t h : s->kept) {
        if (!s->filter.contains(h)) return "after the threads, an inserted item is absent (lost by a hop)";
      }
      return {};
    };
    return e;
  };
}

TEST(StripedFilterExplored, TheFocusedScenariosHoldForTheRealDesign) {
  const Moved moved = moved_by_path();
  ASSERT_NE(moved.hash, 0U) << "no key moves a prefilled item from its second bucket to its first";
  const ex::Result reads = ex::bounded(lookup_during_hop<Explored>(moved), 2, 1'000'000);
  report("lookup during a hop bounded(2)", reads);
  EXPECT_FALSE(reads.failed) << reads.message;
  EXPECT_TRUE(reads.complete) << reads.summary();
  const ex::Result hops = ex::bounded(erase_and_refill_during_search<Explored>(moved), 2, 1'000'000);
  report("erase and refill during a search bounded(2)", hops);
  EXPECT_FALSE(hops.failed) << hops.message;
  EXPECT_TRUE(hops.complete) << hops.summary();
}

TEST(StripedFilterExplored, CatchesUnvalidatedOptimisticReads) {
  const Moved moved = moved_by_path();
  ASSERT_NE(moved.hash, 0U) << "no key moves a prefilled item from its second bucket to its first";
  const ex::Result r = ex::bounded(lookup_during_hop<UnvalidatedReads>(moved), 2, 1'000'000);
  report("unvalidated reads bounded(2)", r);
  EXPECT_TRUE(r.failed) << "the broken variant passed: " << r.summary();
}

// ---- The stash's lock-free reads ---------------------------------------------------------
//
// The stash (detail/concurrent_filter_table.hpp, BasicConcurrentStash) is read by lookups
// without its lock: try_contains() reads the lock's version (acquire), the count and
// the entries (relaxed), fences (acquire) and reads the version again (relaxed); a
// writer fences (release) right after taking the lock. The stash holds A and X; the
// writer removes A, which moves X down to entry 0, clears entry 1 and sets the count to
// 1; the reader asks for X until it gets an answer, which must be "present" (X is in the
// stash throughout). A read that takes the new count with A's fingerprint still in
// entry 0 misses X, and must fail validation: the count it read was stored after the
// writer's release fence, so its acquire fence makes the writer's locking happen-before
// the version re-read. Reaching that read takes one preemption (the writer runs whole
// inside the read) and two stale reads (entry 0's fingerprint, then the version).
using Stash = cuckoo::detail::BasicConcurrentStash<ex::Sync>;

struct StashShared {
  Stash stash;
  unsigned answers = 0;
};

constexpr cuckoo::CuckooFilterPlacement kStashA{0, 1, 7};
constexpr cuckoo::CuckooFilterPlacement kStashX{2, 3, 9};

ex::Scenario stash_shift_during_read() {
  return [] {
    auto s = std::make_shared<StashShared>();
    {
      Stash::Locked fill(s->stash);  // outside the exploration: plain atomics
      fill.add(kStashA);
      fill.add(kStashX);
    }
    ex::Execution e;
    e.state = s;
    e.threads.push_back([s] {
      Stash::Locked writer(s->stash);
      writer.remove(0);
    });
    e.threads.push_back([s] {
      ex::Sync::SpinWait spin;
      for (;;) {  // bound: the scheduler's step bound
        const std::optional<bool> found = s->stash.try_contains(kStashX);
        if (found.has_value()) {
          ex::require(*found, "a lock-free stash read that validated missed an entry present throughout");
          ++s->answers;
          return;
        }
        spin.wait();
      }
    });
    e.check = [s]() -> std::string {
      if (s->answers != 1) return "the reader did not answer";
      const Stash::ReadLocked after(s->stash);
      if (after.size() != 1 || !(after[0] == kStashX)) return "the stash after the remove is not {X}";
      return {};
    };
    return e;
  };
}

TEST(StripedFilterExplored, AStashReadNeverValidatesHalfOfAShift) {
  ex::Options options;
  options.max_stale_reads = long_lane() ? 3 : 2;
  const unsigned bound = long_lane() ? 2 : 1;
  const ex::Result r = ex::bounded(stash_shift_during_read(), bound, 1'000'000, options);
  report(("stash read against a shifting remove, bounded(" + std::to_string(bound) + "), stale reads").c_str(), r);
  EXPECT_FALSE(r.failed) << r.message;
  EXPECT_TRUE(r.complete) << r.summary();
}

TEST(StripedFilterExplored, CatchesUnvalidatedPathHops) {
  const Moved moved = moved_by_path();
  ASSERT_NE(moved.hash, 0U) << "no key moves a prefilled item from its second bucket to its first";
  const ex::Result r = ex::bounded(erase_and_refill_during_search<UnvalidatedHops>(moved), 2, 1'000'000);
  report("unvalidated hops bounded(2)", r);
  EXPECT_TRUE(r.failed) << "the broken variant passed: " << r.summary();
}

}  // namespace
