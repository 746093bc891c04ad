// The lock-free filter (cuckoo/lock_free_filter.hpp) under the deterministic scheduler,
// instantiated with explore::Sync: every access to a bucket word and to a K-CAS
// descriptor is a scheduling point, so the explorer interleaves the relocations' K-CAS
// steps, the CAS inserts and erases and the lookups' double collects. A small, nearly
// full table (4 buckets of 2 slots, f = 8) makes inserts take cuckoo paths.
//
// Claims checked in every explored execution:
//   - churn (3 threads: inserts that need paths, an insert and its erase, a reader of the
//     prefilled items): no false negative for a prefilled item at any time, nor for an
//     inserted item after its insert returned; the history of the calls (the prefill
//     first) is linearizable against the multiset specification with the filter
//     relaxations (the subject layer's checker); after the threads, every item kept is
//     found, size() is exact and check_invariants() holds;
//   - focused races, explored exhaustively within 2 preemptions: a lookup and an erase
//     of an item that a relocation moves from its second bucket to its first (the
//     direction a read of bucket 1, then bucket 2 can miss), and an erase and refill of
//     the slot a path search saw, which the hop must notice;
//   - lock-freedom, observed: the inserting thread stalled after any number of its steps
//     (never scheduled again until the other thread ends) does not stop another thread's
//     lookup, erase and insert on the same buckets from completing.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "cuckoo/explore/scheduler.hpp"
#include "cuckoo/explore/sync.hpp"
#include "cuckoo/hash.hpp"
#include "cuckoo/lock_free_filter.hpp"
#include "cuckoo/subjects/history.hpp"
#include "cuckoo/subjects/linearizability.hpp"
#include "cuckoo/subjects/run_and_check.hpp"

namespace {

namespace ex = cuckoo::explore;
namespace sub = cuckoo::subjects;
using cuckoo::CuckooFilterConfig;
using cuckoo::CuckooFilterPlacement;
using cuckoo::InsertResult;

using Explored = cuckoo::BasicLockFreeFilter<cuckoo::DefaultHasher, ex::Sync>;
using Serial = cuckoo::BasicLockFreeFilter<cuckoo::DefaultHasher, cuckoo::sync::StdSync>;

bool long_lane() {
  const char* env = std::getenv("CUCKOO_EXPLORE_LONG");
  return env != nullptr && std::string(env) == "1";
}

void report(const char* what, const ex::Result& r) { std::printf("[explore] %s: %s\n", what, r.summary().c_str()); }

std::uint64_t key_hash(std::uint64_t i) { return cuckoo::detail::mix64(0x10cf7eeULL + i); }

constexpr unsigned kPrefilled = 6;
constexpr unsigned kSlots = 2;

// f = 8: one-word buckets; f = 32: two words (one slot in each), the wide layout.
CuckooFilterConfig small_config(unsigned f = 8) {
  CuckooFilterConfig c;
  c.capacity = 4 * kSlots;  // 4 buckets
  c.fingerprint_bits = f;
  c.slots_per_bucket = kSlots;
  c.max_kicks = 64;
  c.seed = 1;
  return c;
}

struct Shared {
  explicit Shared(unsigned f = 8) : filter(small_config(f)) { recorder.set_real_time_hook(&ex::real_time_point); }
  Explored filter;
  std::vector<std::uint64_t> prefilled;
  std::vector<std::uint64_t> kept;  // inserted by the threads and not erased
  sub::HistoryRecorder recorder{3, 8};
};

// The first kPrefilled hashes from key_hash(first) on that a fresh filter takes.
template <class Filter>
std::vector<std::uint64_t> prefill(Filter& filter, std::uint64_t first) {
  std::vector<std::uint64_t> out;
  for (std::uint64_t i = first; out.size() < kPrefilled; ++i) {  // bound: the table has 8 slots
    if (filter.insert_hash(key_hash(i)) == InsertResult::kInserted) out.push_back(key_hash(i));
  }
  return out;
}

InsertResult record_insert(Shared& s, std::uint32_t t, std::uint64_t h) {
  InsertResult r = InsertResult::kFull;
  (void)s.recorder.thread(t).record(sub::OpKind::kInsert, h, 0, [&] {
    r = s.filter.insert_hash(h);
    return sub::outcome_of(r);
  });
  return r;
}
bool record_contains(Shared& s, std::uint32_t t, std::uint64_t h) {
  return s.recorder.thread(t).record(sub::OpKind::kContains, h, 0, [&] { return s.filter.contains_hash(h); });
}
bool record_erase(Shared& s, std::uint32_t t, std::uint64_t h) {
  return s.recorder.thread(t).record(sub::OpKind::kErase, h, 0, [&] { return s.filter.erase_hash(h); });
}

// After the threads: every kept and prefilled item found, size exact, invariants.
std::string check_final(const Shared& s, const std::vector<std::uint64_t>& prefilled_left) {
  for (const std::uint64_t h : prefilled_left) {
    if (!s.filter.contains_hash(h)) return "after the threads, a prefilled item is absent";
  }
  for (const std::uint64_t h : s.kept) {
    if (!s.filter.contains_hash(h)) return "after the threads, an inserted item is absent";
  }
  const std::uint64_t expected = prefilled_left.size() + s.kept.size();
  if (s.filter.size() != expected) {
    return "size() is " + std::to_string(s.filter.size()) + ", expected " + std::to_string(expected);
  }
  return s.filter.check_invariants();
}

// check_final with every prefilled item but `erased` (the moved item a thread erases).
std::string check_final_without(const Shared& s, std::uint64_t erased) {
  std::vector<std::uint64_t> left;
  for (const std::uint64_t h : s.prefilled) {
    if (h != erased) left.push_back(h);
  }
  return check_final(s, left);
}

ex::Scenario churn() {
  return [] {
    auto s = std::make_shared<Shared>();
    s->prefilled = prefill(s->filter, 0);
    for (const std::uint64_t h : s->prefilled) {  // the prefill, as calls that came first
      (void)s->recorder.thread(0).record(sub::OpKind::kInsert, h, 0, [] { return sub::InsertOutcome::kInserted; });
    }
    ex::Execution e;
    e.state = s;
    e.threads.push_back([s] {  // two inserts that need paths, each checked after
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
          sub::check_multiset(s->recorder.take_history(), sub::MultisetSpec::filter(2 * kSlots));
      if (!verdict.linearizable()) return verdict.describe();
      return check_final(*s, s->prefilled);
    };
    return e;
  };
}

// Random walks and PCT with stale reads (one load in 8 that may read an older store
// does) and a stall now and then; every schedule with 1 preemption and at most 1 stale
// read.
ex::Options churn_options() {
  ex::Options options;
  options.stale_read_one_in = 8;
  options.max_stale_reads = 1;
  options.max_stalls = 1;
  return options;
}

TEST(LockFreeFilterExplored, NoFalseNegativeAndLinearizableUnderChurn) {
  const std::uint64_t runs = long_lane() ? 50'000 : 1'000;
  const ex::Options options = churn_options();
  const ex::Result p = ex::pct(churn(), 0x10cf, 3, runs, options);
  report("lock-free filter churn pct(3)", p);
  EXPECT_FALSE(p.failed) << p.message;
  const ex::Result w = ex::random_walk(churn(), 0x10cf, runs, options);
  report("lock-free filter churn random", w);
  EXPECT_FALSE(w.failed) << w.message;
  ex::Options exhaustive = options;
  exhaustive.max_stalls = 0;
  const ex::Result b = ex::bounded(churn(), 1, long_lane() ? 1'000'000 : 20'000, exhaustive);
  report("lock-free filter churn bounded(1)", b);
  EXPECT_FALSE(b.failed) << b.message;
}

// Lock-freedom, checked: each of the churn's threads (two updaters and a reader)
// stalled at each of its steps in turn, the others run in every schedule without
// preemptions (with 1 in the long lane); they must all finish while it is stalled, and
// the history must still be linearizable once it resumes.
TEST(LockFreeFilterExplored, EveryThreadStalledAtEveryStepLeavesTheOthersFinishing) {
  const unsigned preemptions = long_lane() ? 1 : 0;
  for (unsigned t = 0; t < 3; ++t) {
    const ex::Result r = ex::stall_sweep(churn(), t, preemptions, long_lane() ? 2'000'000 : 100'000, churn_options());
    report(("lock-free filter churn, thread " + std::to_string(t) + " stalled").c_str(), r);
    ASSERT_FALSE(r.failed) << r.message;
    EXPECT_GT(r.executions, 20U) << "the sweep did not reach the thread's steps";
  }
}

// A key whose insert relocates a prefilled item from the item's second bucket to its
// first, found on serial copies (the same prefill, StdSync): the prefill's first key,
// the inserted key's hash, the moved item's hash and the bucket it leaves.
struct Moved {
  unsigned bits = 8;  // the filter's fingerprint_bits
  std::uint64_t first = 0;
  std::uint64_t key = 0;
  std::uint64_t hash = 0;
  std::uint32_t from = 0;
};

std::uint32_t bucket_holding(const Serial& f, std::uint64_t h) {
  const CuckooFilterPlacement p = f.placement_of_hash(h);
  for (unsigned slot = 0; slot < kSlots; ++slot) {
    if (f.fingerprint_at(p.bucket1, slot) == p.fingerprint) return p.bucket1;
  }
  return p.bucket2;
}

Moved moved_by_path(unsigned bits = 8) {
  for (std::uint64_t attempt = 0; attempt < 20'000; ++attempt) {  // bound: 20000 setups
    const std::uint64_t first = 10'000 * (attempt / 100);
    const std::uint64_t key = 5'000'000 + attempt % 100;
    Serial f(small_config(bits));
    const std::vector<std::uint64_t> prefilled = prefill(f, first);
    std::vector<std::uint32_t> before;
    for (const std::uint64_t h : prefilled) before.push_back(bucket_holding(f, h));
    if (f.insert_hash(key_hash(key)) != InsertResult::kInserted || f.stats().path_hops == 0) continue;
    for (std::size_t k = 0; k < prefilled.size(); ++k) {
      const CuckooFilterPlacement p = f.placement_of_hash(prefilled[k]);
      // (A key with the item's own fingerprint would only add a copy of it.)
      if (p.bucket1 != p.bucket2 && before[k] == p.bucket2 && bucket_holding(f, prefilled[k]) == p.bucket1 &&
          f.placement_of_hash(key_hash(key)).fingerprint != p.fingerprint) {
        return {bits, first, key_hash(key), prefilled[k], before[k]};
      }
    }
  }
  return {};
}

// A key (not in the prefill, a fingerprint unlike the moved item's) whose first bucket
// is `moved.from` and whose second is another.
std::uint64_t refill_key(const Moved& moved) {
  const Serial f(small_config(moved.bits));
  for (std::uint64_t i = 1000;; ++i) {  // bound: a quarter of all keys qualify
    const CuckooFilterPlacement p = f.placement_of_hash(key_hash(i));
    if (p.bucket1 == moved.from && p.bucket2 != moved.from &&
        p.fingerprint != f.placement_of_hash(moved.hash).fingerprint) {
      return key_hash(i);
    }
  }
}

// Two threads: one inserts moved.key (a path that relocates `moved`), the other looks the
// moved item up twice, then erases it (both must find it).
ex::Scenario lookup_and_erase_during_hop(Moved moved) {
  return [moved] {
    auto s = std::make_shared<Shared>(moved.bits);
    s->prefilled = prefill(s->filter, moved.first);
    ex::Execution e;
    e.state = s;
    e.threads.push_back([s, moved] {
      if (s->filter.insert_hash(moved.key) == InsertResult::kInserted) s->kept.push_back(moved.key);
    });
    e.threads.push_back([s, moved] {
      for (int k = 0; k < 2; ++k) {
        ex::require(s->filter.contains_hash(moved.hash), "the item a relocation moves is reported absent");
      }
      ex::require(s->filter.erase_hash(moved.hash), "erase of the item a relocation moves found nothing");
    });
    e.check = [s, moved]() -> std::string {
      return check_final_without(*s, moved.hash);
    };
    return e;
  };
}

// Two threads: one inserts moved.key (a path that relocates `moved` out of bucket
// `from`), the other erases the moved item and inserts an item whose first bucket is
// `from`, which takes the freed slot: a hop that does not re-validate its source would
// move the new item's fingerprint as if it were the erased one.
ex::Scenario erase_and_refill_during_search(Moved moved) {
  const std::uint64_t refill = refill_key(moved);
  return [moved, refill] {
    auto s = std::make_shared<Shared>(moved.bits);
    s->prefilled = prefill(s->filter, moved.first);
    ex::Execution e;
    e.state = s;
    e.threads.push_back([s, moved] {
      if (s->filter.insert_hash(moved.key) == InsertResult::kInserted) s->kept.push_back(moved.key);
    });
    e.threads.push_back([s, moved, refill] {
      ex::require(s->filter.erase_hash(moved.hash), "erase of a prefilled item found nothing");
      if (s->filter.insert_hash(refill) == InsertResult::kInserted) s->kept.push_back(refill);
    });
    e.check = [s, moved]() -> std::string {
      return check_final_without(*s, moved.hash);
    };
    return e;
  };
}

TEST(LockFreeFilterExplored, RelocationRacesWithinTwoPreemptions) {
  const Moved moved = moved_by_path();
  ASSERT_NE(moved.hash, 0U) << "no key relocates a prefilled item from its second bucket to its first";
  const std::uint64_t cap = long_lane() ? 2'000'000 : 200'000;
  const ex::Result reads = ex::bounded(lookup_and_erase_during_hop(moved), 2, cap);
  report("lock-free lookup and erase during a hop bounded(2)", reads);
  EXPECT_FALSE(reads.failed) << reads.message;
  const ex::Result hops = ex::bounded(erase_and_refill_during_search(moved), 2, cap);
  report("lock-free erase and refill during a search bounded(2)", hops);
  EXPECT_FALSE(hops.failed) << hops.message;
}

// Lock-freedom through relocations: in both races above, each thread stalled at each of
// its steps (the relocating insert mid-hop, mid-search, between a K-CAS's phases; the
// other thread's lookups, erase and refill), in every schedule of the other with at most
// 1 preemption and 1 stale read; the other must finish, and the final checks pass once
// the stalled thread resumes.
TEST(LockFreeFilterExplored, ARelocationRaceWithAThreadStalledAtEveryStep) {
  const Moved moved = moved_by_path();
  ASSERT_NE(moved.hash, 0U) << "no key relocates a prefilled item from its second bucket to its first";
  ex::Options options = churn_options();
  const struct {
    const char* what;
    ex::Scenario scenario;
  } races[] = {{"lookup and erase during a hop", lookup_and_erase_during_hop(moved)},
               {"erase and refill during a search", erase_and_refill_during_search(moved)}};
  for (const auto& race : races) {
    for (unsigned t = 0; t < 2; ++t) {
      const ex::Result r = ex::stall_sweep(race.scenario, t, 1, long_lane() ? 2'000'000 : 200'000, options);
      report(("lock-free " + std::string(race.what) + ", thread " + std::to_string(t) + " stalled").c_str(), r);
      ASSERT_FALSE(r.failed) << r.message;
      EXPECT_GT(r.executions, 20U) << "the sweep did not reach the thread's steps";
    }
  }
}

// The same races on two-word buckets (f = 32, b = 2: a slot in each word): a change of
// word 1 is a K-CAS with word 0's version, and reads re-read word 0. One preemption
// (two in the long lane).
TEST(LockFreeFilterExplored, WideBucketRelocationRacesWithinTwoPreemptions) {
  const Moved moved = moved_by_path(32);
  ASSERT_NE(moved.hash, 0U) << "no key relocates a prefilled item from its second bucket to its first";
  ASSERT_EQ(Serial(small_config(32)).words_per_bucket(), 2U);
  // Two preemptions take about 25 s each here (ten times the one-word steps): the long
  // lane's; the default lane explores one preemption exhaustively.
  const unsigned preemptions = long_lane() ? 2 : 1;
  const ex::Result reads = ex::bounded(lookup_and_erase_during_hop(moved), preemptions, 2'000'000);
  report("lock-free wide lookup and erase during a hop bounded", reads);
  EXPECT_FALSE(reads.failed) << reads.message;
  const ex::Result hops = ex::bounded(erase_and_refill_during_search(moved), preemptions, 2'000'000);
  report("lock-free wide erase and refill during a search bounded", hops);
  EXPECT_FALSE(hops.failed) << hops.message;
}

// Thread 0 inserts moved.key (searching a path, then K-CAS hops); thread 1 looks up,
// erases and re-inserts the item the path moves, and inserts a refill key into the
// bucket it leaves. Schedule: thread 0 for n steps, then thread 1 to its end, then
// thread 0. Thread 1 must end first for every n up to thread 0's whole insert.
struct StallLog {
  std::vector<int> finished;
};

ex::Scenario stall(Moved moved, std::shared_ptr<StallLog> log) {
  const std::uint64_t refill = refill_key(moved);
  return [moved, refill, log] {
    log->finished.clear();
    auto s = std::make_shared<Shared>(moved.bits);
    s->prefilled = prefill(s->filter, moved.first);
    ex::Execution e;
    e.state = s;
    e.threads.push_back([s, moved, log] {
      if (s->filter.insert_hash(moved.key) == InsertResult::kInserted) s->kept.push_back(moved.key);
      log->finished.push_back(0);
    });
    e.threads.push_back([s, moved, refill, log] {
      ex::require(s->filter.contains_hash(moved.hash), "the moved item is reported absent");
      ex::require(s->filter.erase_hash(moved.hash), "erase of the moved item found nothing");
      if (s->filter.insert_hash(refill) == InsertResult::kInserted) s->kept.push_back(refill);
      if (s->filter.insert_hash(moved.hash) == InsertResult::kInserted) s->kept.push_back(moved.hash);
      log->finished.push_back(1);
    });
    e.check = [s, moved]() -> std::string {
      return check_final_without(*s, moved.hash);
    };
    return e;
  };
}

TEST(LockFreeFilterExplored, AStalledRelocationDoesNotStopOthers) {
  const Moved moved = moved_by_path();
  ASSERT_NE(moved.hash, 0U) << "no key relocates a prefilled item from its second bucket to its first";
  auto log = std::make_shared<StallLog>();
  const ex::Scenario scenario = stall(moved, log);
  unsigned stalled_inside = 0;  // n where thread 0 had started, had not returned, and thread 1 finished
  bool thread0_done_alone = false;
  // Bound: thread 0's insert (a search and a few K-CAS hops) takes some hundreds of steps.
  for (unsigned n = 0; n < 5'000 && !thread0_done_alone; ++n) {
    std::string schedule;
    for (unsigned k = 0; k < n; ++k) schedule += "0.";
    schedule += "1";
    const ex::Result r = ex::replay(scenario, schedule);
    ASSERT_FALSE(r.failed) << "thread 0 stalled after " << n << " steps: " << r.message;
    ASSERT_EQ(log->finished.size(), 2U) << "n = " << n;
    if (log->finished[0] == 0) {
      thread0_done_alone = true;  // n covers thread 0's whole insert
      break;
    }
    if (n > 0) ++stalled_inside;
  }
  std::printf("[explore] lock-free filter stall: thread 1 finished with the inserting thread stalled at %u "
              "steps of its insert\n",
              stalled_inside);
  EXPECT_TRUE(thread0_done_alone) << "thread 0's insert never finished within the bound";
  EXPECT_GT(stalled_inside, 50U);
}

}  // namespace

namespace {

// Lookups write no shared memory, counters included: thread 0 looks up an absent key
// twice while thread 1 inserts another key into the lookup's first bucket (an empty slot:
// one CAS), so some schedules put that CAS between the lookup's two reads of its first
// bucket and the lookup takes its retry path. Thread 1 never retries (nothing else
// writes), so the filter's retry counters must stay 0 in every execution: a lookup that
// counted its retry would write a shared counter.
TEST(LockFreeFilterExplored, LookupRetriesWriteNothingShared) {
  const Serial probe(small_config());
  const std::uint64_t absent = key_hash(900);
  const std::uint32_t first_bucket = probe.placement_of_hash(absent).bucket1;
  std::uint64_t inserted = 0;
  for (std::uint64_t i = 901;; ++i) {  // bound: a quarter of all keys have that first bucket
    const CuckooFilterPlacement p = probe.placement_of_hash(key_hash(i));
    if (p.bucket1 == first_bucket && p.fingerprint != probe.placement_of_hash(absent).fingerprint) {
      inserted = key_hash(i);
      break;
    }
  }
  const ex::Scenario scenario = [absent, inserted] {
    auto s = std::make_shared<Shared>();
    ex::Execution e;
    e.state = s;
    e.threads.push_back([s, absent] {
      for (int pass = 0; pass < 2; ++pass) (void)s->filter.contains_hash(absent);
    });
    e.threads.push_back([s, inserted] {
      ex::require(s->filter.insert_hash(inserted) == InsertResult::kInserted, "the insert into an empty table failed");
    });
    e.check = [s]() -> std::string {
      const auto st = s->filter.stats();
      if (st.lookup_retries != 0 || st.update_retries != 0) {
        return "a lookup wrote shared memory: lookup_retries = " + std::to_string(st.lookup_retries) +
               ", update_retries = " + std::to_string(st.update_retries);
      }
      return {};
    };
    return e;
  };
  const ex::Result r = ex::bounded(scenario, 1, 200'000);
  report("lock-free lookup retries bounded(1)", r);
  EXPECT_FALSE(r.failed) << r.message;
  EXPECT_TRUE(r.complete);
}

}  // namespace
