// The striped concurrent map (detail/striped_map.hpp) under the deterministic scheduler:
// its stripe locks, item counters, slot words and table pointer instantiated with
// explore::Sync. A small table held nearly full (4 one-slot buckets, no growth, so that
// inserts need cuckoo paths, moved hop by hop under locks) or allowed to grow; three
// threads insert (two of them the same key), erase, find and ask size(). Every call is
// recorded (stamps from a counter that is not a scheduling point, so they follow the
// explored order) and the history must be linearizable against the map specification of
// the subject layer; after the threads, the map's own invariant check must pass. The
// stress lane's broken variants (a path placed under one bucket's locks, unvalidated
// hops) must be caught by the exploration alone. Two scenarios aim at the lock-free
// lookup's retry (read_optimistic): a read invalidated by an erase, retried and coming
// back empty, and reads that keep overlapping a writer until the lookup takes the
// stripes; each counts the executions that took its path and fails if none did. One more
// races a lock-free lookup against an erase and an insert made through the locked view
// (lock_table()).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cuckoo/concurrent_map.hpp"
#include "cuckoo/explore/scheduler.hpp"
#include "cuckoo/explore/sync.hpp"
#include "cuckoo/hash.hpp"
#include "cuckoo/subjects/history.hpp"
#include "cuckoo/subjects/linearizability.hpp"
#include "cuckoo/subjects/run_and_check.hpp"

namespace {

namespace ex = cuckoo::explore;
namespace sub = cuckoo::subjects;
using cuckoo::detail::StripedMapFault;

// DefaultHasher's two-round hash under a type of its own, which the map takes through
// seeded_hash: every scenario below keeps the placements its keys, seeds and exploration
// budgets were chosen for (the map's one-round hash of integer keys under DefaultHasher
// places them elsewhere; the full-table scenario's bounded exploration then needed more
// than 20,000 schedules, from 8,650).
struct ScenarioHasher {
  std::uint64_t operator()(std::uint64_t key, std::uint64_t seed) const noexcept {
    return cuckoo::DefaultHasher{}(key, seed);
  }
};

template <StripedMapFault Fault>
using Map = cuckoo::detail::StripedMapWithFault<std::uint64_t, std::uint64_t, 1, ScenarioHasher,
                                                std::equal_to<std::uint64_t>, Fault, ex::Sync>;

bool long_lane() {
  const char* env = std::getenv("CUCKOO_EXPLORE_LONG");
  return env != nullptr && std::string(env) == "1";
}

void report(const std::string& what, const ex::Result& r) {
  std::printf("[explore] %s: %s\n", what.c_str(), r.summary().c_str());
}


template <StripedMapFault Fault>
struct Shared {
  explicit Shared(const cuckoo::CuckooMapConfig& c) : map(c), recorder(3, 8) {
    recorder.set_real_time_hook(&ex::real_time_point);
  }
  Map<Fault> map;
  sub::HistoryRecorder recorder;
};

// After the threads: the history must be linearizable and the map's invariants hold.
template <StripedMapFault Fault>
std::string verdict(Shared<Fault>& s) {
  const sub::CheckResult result = sub::check_map(s.recorder.take_history());
  if (!result.linearizable()) return result.describe();
  return s.map.check_invariants();
}

// Inserts the prefill, recorded as thread 0's first inserts (before any thread runs).
template <StripedMapFault Fault>
void prefill(Shared<Fault>& s, const std::vector<std::uint64_t>& keys) {
  sub::HistoryRecorder::ThreadLog& setup = s.recorder.thread(0);
  for (const std::uint64_t k : keys) {
    (void)setup.record(sub::OpKind::kInsert, k, k, [&] { return sub::outcome_of(s.map.insert(k, k)); });
  }
}

// Prefilled keys 100.. (recorded as thread 0's first inserts, before any thread runs),
// then: thread 0 inserts 1 and 2; thread 1 inserts 1, erases 100 and inserts 3; thread 2
// finds 101, 1 and 2 and asks size(). grow: 2 slots that may double; else 4 slots, fixed.
template <StripedMapFault Fault>
ex::Scenario churn(bool grow) {
  return [grow] {
    cuckoo::CuckooMapConfig c;
    c.initial_capacity = grow ? 2 : 4;
    c.max_capacity = grow ? 16 : 4;
    c.seed = 0x5eed'0001;
    auto s = std::make_shared<Shared<Fault>>(c);
    prefill(*s, grow ? std::vector<std::uint64_t>{100} : std::vector<std::uint64_t>{100, 101});
    ex::Execution e;
    e.state = s;
    e.threads.push_back([s] {
      auto& log = s->recorder.thread(0);
      for (std::uint64_t k : {1, 2}) {
        (void)log.record(sub::OpKind::kInsert, k, 10 * k, [&] { return sub::outcome_of(s->map.insert(k, 10 * k)); });
      }
    });
    e.threads.push_back([s] {
      auto& log = s->recorder.thread(1);
      (void)log.record(sub::OpKind::kInsert, 1, 11, [&] { return sub::outcome_of(s->map.insert(1, 11)); });
      (void)log.record(sub::OpKind::kErase, 100, 0, [&] { return s->map.erase(100); });
      (void)log.record(sub::OpKind::kInsert, 3, 30, [&] { return sub::outcome_of(s->map.insert(3, 30)); });
    });
    e.threads.push_back([s] {
      auto& log = s->recorder.thread(2);
      for (std::uint64_t k : {101, 1, 2}) {
        (void)log.record(sub::OpKind::kFind, k, 0, [&] { return s->map.find(k); });
      }
      (void)log.record(sub::OpKind::kSize, 0, 0, [&] { return static_cast<std::uint64_t>(s->map.size()); });
    });
    e.check = [s] { return verdict(*s); };
    return e;
  };
}

// Stale reads on: a load with a choice reads an older store one time in 8 (random and
// PCT), and every schedule with at most one stale read (bounded).
ex::Options weak_memory() {
  ex::Options options;
  options.stale_read_one_in = 8;
  options.max_stale_reads = 1;
  return options;
}

TEST(StripedMapExplored, HistoriesAreLinearizable) {
  const std::uint64_t runs = long_lane() ? 10'000 : 500;
  for (const bool grow : {false, true}) {
    const std::string name = grow ? "striped map, growing" : "striped map, full table";
    SCOPED_TRACE(name);
    const ex::Result w = ex::random_walk(churn<StripedMapFault::kNone>(grow), 0x5a, runs, weak_memory());
    report(name + " random", w);
    EXPECT_FALSE(w.failed) << w.message;
    const ex::Result p = ex::pct(churn<StripedMapFault::kNone>(grow), 0x5a, 3, runs, weak_memory());
    report(name + " pct(3)", p);
    EXPECT_FALSE(p.failed) << p.message;
    const unsigned bound = long_lane() ? 2 : 1;
    const ex::Result b =
        ex::bounded(churn<StripedMapFault::kNone>(grow), bound, long_lane() ? 100'000 : 20'000, weak_memory());
    report(name + " bounded(" + std::to_string(bound) + ")", b);
    EXPECT_FALSE(b.failed) << b.message;
    if (!long_lane()) {
      EXPECT_TRUE(b.complete) << b.summary();  // the long budget may end first
    }
  }
}

// A race the path placement must win: thread 0 inserts K, whose two buckets are full,
// by a cuckoo path that frees bucket `path_bucket`; thread 1 erases Y, which sits in K's
// other bucket, and inserts K there directly. Both inserts of K may not succeed.
// Found on serial maps (StdSync, the same configuration): prefill keys a, b, c into 4
// one-slot buckets, leaving one empty.
struct Race {
  std::vector<std::uint64_t> prefill;
  std::uint64_t key = 0;     // K
  std::uint64_t victim = 0;  // Y
};

cuckoo::CuckooMapConfig full_table_config() {
  cuckoo::CuckooMapConfig c;
  c.initial_capacity = 4;
  c.max_capacity = 4;
  c.seed = 0x5eed'0002;
  return c;
}

using SerialMap = cuckoo::detail::StripedMapWithFault<std::uint64_t, std::uint64_t, 1, ScenarioHasher,
                                                      std::equal_to<std::uint64_t>, StripedMapFault::kNone>;

// The bucket of each item of a full 4-bucket, one-slot map: its position in slot order.
std::vector<std::uint64_t> by_bucket(const SerialMap& m) {
  std::vector<std::uint64_t> keys;
  m.for_each([&](std::uint64_t k, std::uint64_t) { keys.push_back(k); });
  return keys;
}

// Calls visit(prefill, filled) for each prefill of three keys from 100..119 that the
// full-table configuration takes, filled() making a fresh serial map holding it, until
// visit returns true. Bound: 20 * 20 * 20 prefills.
template <class Visit>
void for_each_prefill(Visit visit) {
  const cuckoo::CuckooMapConfig c = full_table_config();
  for (std::uint64_t a = 100; a < 120; ++a) {
    for (std::uint64_t b = a + 1; b < 120; ++b) {
      for (std::uint64_t d = b + 1; d < 120; ++d) {
        const std::vector<std::uint64_t> prefill{a, b, d};
        const auto filled = [&] {
          auto m = std::make_unique<SerialMap>(c);
          for (const std::uint64_t k : prefill) {
            if (m->insert(k, k) != cuckoo::InsertResult::kInserted) return std::unique_ptr<SerialMap>();
          }
          return m;
        };
        if (filled() && visit(prefill, filled)) return;
      }
    }
  }
}

Race find_race() {
  Race found;
  // Bound: 8 keys and 100 fillers per prefill.
  for_each_prefill([&](const std::vector<std::uint64_t>& prefill, const auto& filled) {
    for (std::uint64_t key = 1; key < 9; ++key) {
      const auto [b1, b2] = filled()->buckets_of(key);
      if (b1 == b2) continue;
      auto via_path = filled();
      if (via_path->insert(key, 0) != cuckoo::InsertResult::kInserted || via_path->stats().path_inserts != 1) {
        continue;
      }
      const std::vector<std::uint64_t> after_path = by_bucket(*via_path);
      const auto path_bucket = static_cast<std::uint32_t>(
          std::find(after_path.begin(), after_path.end(), key) - after_path.begin());
      // Where the prefilled items sit: fill the empty bucket with a key that goes straight there.
      for (std::uint64_t filler = 1000; filler < 1100; ++filler) {
        auto full = filled();
        if (full->insert(filler, 0) != cuckoo::InsertResult::kInserted || full->stats().path_inserts != 0) {
          continue;
        }
        const std::vector<std::uint64_t> before = by_bucket(*full);
        const std::uint32_t other = path_bucket == b1 ? b2 : b1;
        const std::uint64_t victim = before[other];
        if (victim == filler) break;
        found = {prefill, key, victim};
        return true;
      }
    }
    return false;
  });
  return found;
}

template <StripedMapFault Fault>
ex::Scenario race(Race r) {
  return [r] {
    auto s = std::make_shared<Shared<Fault>>(full_table_config());
    prefill(*s, r.prefill);
    ex::Execution e;
    e.state = s;
    e.threads.push_back([s, r] {
      (void)s->recorder.thread(0).record(sub::OpKind::kInsert, r.key, 1,
                                         [&] { return sub::outcome_of(s->map.insert(r.key, 1)); });
    });
    e.threads.push_back([s, r] {
      auto& log = s->recorder.thread(1);
      (void)log.record(sub::OpKind::kErase, r.victim, 0, [&] { return s->map.erase(r.victim); });
      (void)log.record(sub::OpKind::kInsert, r.key, 2, [&] { return sub::outcome_of(s->map.insert(r.key, 2)); });
    });
    e.check = [s] { return verdict(*s); };
    return e;
  };
}

// A lock-free lookup during the cuckoo path that moves its key: prefill keys into 4
// one-slot buckets, then insert a key whose path moves a prefilled key M from its
// second bucket to its first. A lookup of M that reads M's first bucket before the move
// and its second after it sees M in neither; the stripes' versions must send it back.
struct MoveRace {
  std::vector<std::uint64_t> prefill;
  std::uint64_t inserted = 0;  // the key inserted by a path
  std::uint64_t moved = 0;     // M
};

MoveRace find_move_race() {
  MoveRace found;
  // Bound: 100 fillers and 8 keys per prefill.
  for_each_prefill([&](const std::vector<std::uint64_t>& prefill, const auto& filled) {
    // Where the prefilled keys sit: fill the empty bucket with a key that goes straight there.
    std::vector<std::uint64_t> before;
    for (std::uint64_t filler = 1000; filler < 1100 && before.empty(); ++filler) {
      auto full = filled();
      if (full->insert(filler, 0) == cuckoo::InsertResult::kInserted && full->stats().path_inserts == 0) {
        before = by_bucket(*full);
      }
    }
    if (before.size() != 4) return false;
    for (std::uint64_t key = 1; key < 9; ++key) {
      auto via_path = filled();
      if (via_path->insert(key, 0) != cuckoo::InsertResult::kInserted || via_path->stats().path_inserts != 1) {
        continue;
      }
      const std::vector<std::uint64_t> after = by_bucket(*via_path);
      for (const std::uint64_t m : prefill) {
        const auto [first, second] = via_path->buckets_of(m);
        const auto was = static_cast<std::uint32_t>(std::find(before.begin(), before.end(), m) - before.begin());
        const auto is = static_cast<std::uint32_t>(std::find(after.begin(), after.end(), m) - after.begin());
        if (first != second && was == second && is == first) {
          found = {prefill, key, m};
          return true;
        }
      }
    }
    return false;
  });
  return found;
}

ex::Scenario move_race(MoveRace r) {
  return [r] {
    auto s = std::make_shared<Shared<StripedMapFault::kNone>>(full_table_config());
    prefill(*s, r.prefill);
    ex::Execution e;
    e.state = s;
    e.threads.push_back([s, r] {
      (void)s->recorder.thread(0).record(sub::OpKind::kInsert, r.inserted, 1,
                                         [&] { return sub::outcome_of(s->map.insert(r.inserted, 1)); });
    });
    e.threads.push_back([s, r] {
      (void)s->recorder.thread(1).record(sub::OpKind::kFind, r.moved, 0, [&] { return s->map.find(r.moved); });
    });
    e.check = [s] { return verdict(*s); };
    return e;
  };
}

TEST(StripedMapExplored, ALockFreeLookupNeverMissesAKeyThatAPathMoves) {
  static_assert(Map<StripedMapFault::kNone>::kAtomicItems, "the scenario is about lock-free lookups");
  const MoveRace r = find_move_race();
  ASSERT_NE(r.moved, 0U) << "no prefill has a path that moves a key from its second bucket to its first";
  const ex::Result b = ex::bounded(move_race(r), 2, 1'000'000, weak_memory());
  report("lookup during a path move bounded(2)", b);
  EXPECT_FALSE(b.failed) << b.message;
  EXPECT_TRUE(b.complete) << b.summary();
}

// ---- The lock-free lookup's retry --------------------------------------------------------
//
// find() of atomic items reads the key's two buckets between two reads of their stripes'
// versions and retries a read that overlapped a writer, kMaxOptimisticReads times, then
// takes the stripes. A retry must answer from its own validated read only: a first read
// that was invalidated may have seen a torn slot, and its answer must not leak out when
// the retry finds the key gone.
//
// Which executions took the path is read from the map's statistics (locked_reads) and
// from its KeyEqual: the finder passes its own variable as the key, so the comparisons
// made for its lookup are the ones whose second argument is that variable (the map
// compares the slot's key with the caller's key reference). One that returns true means
// that the lookup read the key in a slot.

struct FinderWatch {
  const std::uint64_t* finder_key = nullptr;
  bool saw_key = false;  // some read of the finder's lookup matched the key in a slot
};

struct WatchedEqual {
  FinderWatch* watch = nullptr;
  bool operator()(const std::uint64_t& in_slot, const std::uint64_t& key) const {
    const bool equal = in_slot == key;
    if (equal && watch != nullptr && &key == watch->finder_key) watch->saw_key = true;
    return equal;
  }
};

using WatchedMap = cuckoo::detail::StripedMapWithFault<std::uint64_t, std::uint64_t, 1, ScenarioHasher,
                                                       WatchedEqual, StripedMapFault::kNone, ex::Sync>;

// Executions of a retry scenario, and how many took the path it aims at; shared by every
// execution of one exploration (each execution builds its own map).
struct RetryReach {
  std::uint64_t executions = 0;
  std::uint64_t retried_empty = 0;  // the lookup read the key, then answered "absent" lock-free
  std::uint64_t locked = 0;         // the lookup took the stripes (stats().locked_reads)
  std::string describe() const {
    return std::to_string(executions) + " executions, " + std::to_string(retried_empty) +
           " lock-free retries that came back empty after reading the key, " + std::to_string(locked) +
           " lookups that took the stripes";
  }
};

struct RetryShared {
  explicit RetryShared(const cuckoo::CuckooMapConfig& c)
      : map(c, ScenarioHasher{}, WatchedEqual{&watch}), recorder(2, 8) {
    watch.finder_key = &finder_key;
    recorder.set_real_time_hook(&ex::real_time_point);
  }
  FinderWatch watch;  // before map: the map's KeyEqual points at it
  WatchedMap map;
  sub::HistoryRecorder recorder;
  std::uint64_t finder_key = 0;
  std::optional<std::uint64_t> found;
};

// Thread 0 looks finder_key up; its answer is recorded and kept in s.found.
ex::Execution retry_execution(const std::shared_ptr<RetryShared>& s, const std::shared_ptr<RetryReach>& reach,
                              std::function<void(RetryShared&)> writer) {
  ex::Execution e;
  e.state = s;
  e.threads.push_back([s] {
    s->found = s->recorder.thread(0).record(sub::OpKind::kFind, s->finder_key, 0,
                                            [&] { return s->map.find(s->finder_key); });
  });
  e.threads.push_back([s, writer] { writer(*s); });
  e.check = [s, reach]() -> std::string {
    ++reach->executions;
    const std::uint64_t locked_reads = s->map.stats().locked_reads;
    if (s->watch.saw_key && !s->found && locked_reads == 0) ++reach->retried_empty;
    if (locked_reads > 0) ++reach->locked;
    const sub::CheckResult result = sub::check_map(s->recorder.take_history());
    if (!result.linearizable()) return result.describe();
    return s->map.check_invariants();
  };
  return e;
}

// K, and a key J whose first bucket is K's first bucket: in an otherwise empty table of
// 4 one-slot buckets (full_table_config), K sits in that bucket, and once K is erased an
// insert of J puts J in the same slot.
struct EraseRace {
  std::uint64_t key = 0;          // K
  std::uint64_t replacement = 0;  // J
};

EraseRace find_erase_race() {
  const SerialMap probe(full_table_config());
  // Bound: 8 keys and 64 replacements.
  for (std::uint64_t key = 1; key < 9; ++key) {
    const auto [first, second] = probe.buckets_of(key);
    if (first == second) continue;
    for (std::uint64_t j = 100; j < 164; ++j) {
      if (probe.buckets_of(j).first != first) continue;
      // Check on a serial map that J lands in K's slot: with K erased and J inserted the
      // bucket holds J, and inserting K again must take K's second bucket.
      SerialMap m(full_table_config());
      if (m.insert(key, 1) != cuckoo::InsertResult::kInserted || !m.erase(key) ||
          m.insert(j, 2) != cuckoo::InsertResult::kInserted || m.insert(key, 1) != cuckoo::InsertResult::kInserted ||
          m.stats().path_inserts != 0) {
        continue;
      }
      return {key, j};
    }
  }
  return {};
}

// Prefill K -> 1; thread 0 finds K; thread 1 erases K and inserts J -> 2 into the slot K
// left. A lookup that read K's word and key before the erase and the value after J's
// insert holds (K, 2), a pair the map never had: its validation fails, and the retry
// finds K absent. Answering 2 (or any first read's value) there would be caught by the
// linearizability check; answering "absent" is right.
ex::Scenario erase_during_lookup(EraseRace r, std::shared_ptr<RetryReach> reach) {
  return [r, reach] {
    auto s = std::make_shared<RetryShared>(full_table_config());
    s->finder_key = r.key;
    (void)s->recorder.thread(0).record(sub::OpKind::kInsert, r.key, 1,
                                       [&] { return sub::outcome_of(s->map.insert(r.key, 1)); });
    return retry_execution(s, reach, [r](RetryShared& sh) {
      auto& log = sh.recorder.thread(1);
      const std::uint64_t key = r.key;  // not finder_key: the watch must not see the writer's comparisons
      (void)log.record(sub::OpKind::kErase, key, 0, [&] { return sh.map.erase(key); });
      (void)log.record(sub::OpKind::kInsert, r.replacement, 2,
                       [&] { return sub::outcome_of(sh.map.insert(r.replacement, 2)); });
    });
  };
}

// Prefill K -> 1; thread 0 finds K; thread 1 assigns K -> 2. K is present throughout, so
// "absent" is never a valid answer. A lookup that starts while the writer holds K's
// stripe fails every lock-free read (a writer holds the stripe) and must then take the
// stripes, wait for the writer and answer 1 or 2.
ex::Scenario assign_during_lookup(std::uint64_t key, std::shared_ptr<RetryReach> reach) {
  return [key, reach] {
    auto s = std::make_shared<RetryShared>(full_table_config());
    s->finder_key = key;
    (void)s->recorder.thread(0).record(sub::OpKind::kInsert, key, 1,
                                       [&] { return sub::outcome_of(s->map.insert(key, 1)); });
    return retry_execution(s, reach, [key](RetryShared& sh) {
      (void)sh.recorder.thread(1).record(sub::OpKind::kInsertOrAssign, key, 2,
                                         [&] { return sub::outcome_of(sh.map.insert_or_assign(key, 2)); });
    });
  };
}

TEST(StripedMapExplored, ALookupRetriedAfterAnEraseAnswersOnlyFromItsRetry) {
  static_assert(WatchedMap::kAtomicItems, "the scenario is about lock-free lookups");
  const EraseRace r = find_erase_race();
  ASSERT_NE(r.key, 0U) << "no key has a second key that takes its slot once it is erased";
  auto reach = std::make_shared<RetryReach>();
  const unsigned bound = long_lane() ? 3 : 2;
  const ex::Result b =
      ex::bounded(erase_during_lookup(r, reach), bound, long_lane() ? 1'000'000 : 100'000, weak_memory());
  report("lookup retried after an erase bounded(" + std::to_string(bound) + ")", b);
  std::printf("[explore]   %s\n", reach->describe().c_str());
  EXPECT_FALSE(b.failed) << b.message;
  EXPECT_TRUE(b.complete) << b.summary();
  EXPECT_GT(reach->retried_empty, 0U)
      << "no execution had a lookup read the key, fail validation and come back empty lock-free: "
      << reach->describe();
}

// The same race under the memory model with two stale reads. The lookup reads K's word
// and key, the writer erases K and inserts J into K's slot, then the lookup reads the
// value (J's) and re-reads both stripe versions. Its slot loads are acquire loads, so
// reading a value stored inside the writer's critical section makes that section's
// locking happen-before the re-reads: neither version may read its value from before
// it. With relaxed slot loads nothing orders them, both versions (K's two stripes, each
// moved on by the erase) may be read stale, and validation accepts K -> 2. One
// preemption reaches it (the writer runs whole between the key read and the value read);
// the two stale reads are what the single-stale-read test above cannot spend.
TEST(StripedMapExplored, ALookupThatReadsAWritersValueCannotValidateAgainstOlderVersions) {
  static_assert(WatchedMap::kAtomicItems, "the scenario is about lock-free lookups");
  const EraseRace r = find_erase_race();
  ASSERT_NE(r.key, 0U) << "no key has a second key that takes its slot once it is erased";
  auto reach = std::make_shared<RetryReach>();
  ex::Options options = weak_memory();
  options.max_stale_reads = 2;
  const unsigned bound = long_lane() ? 2 : 1;
  const ex::Result b =
      ex::bounded(erase_during_lookup(r, reach), bound, long_lane() ? 1'000'000 : 100'000, options);
  report("lookup retried after an erase, two stale reads, bounded(" + std::to_string(bound) + ")", b);
  std::printf("[explore]   %s\n", reach->describe().c_str());
  EXPECT_FALSE(b.failed) << b.message;
  EXPECT_TRUE(b.complete) << b.summary();
  EXPECT_GT(reach->retried_empty, 0U)
      << "no execution had a lookup read the key, fail validation and come back empty lock-free: "
      << reach->describe();
}

TEST(StripedMapExplored, ALookupThatKeepsOverlappingAWriterTakesTheStripes) {
  const EraseRace r = find_erase_race();
  ASSERT_NE(r.key, 0U);
  auto reach = std::make_shared<RetryReach>();
  const unsigned bound = long_lane() ? 3 : 2;
  const ex::Result b =
      ex::bounded(assign_during_lookup(r.key, reach), bound, long_lane() ? 1'000'000 : 100'000, weak_memory());
  report("lookup against an assignment bounded(" + std::to_string(bound) + ")", b);
  std::printf("[explore]   %s\n", reach->describe().c_str());
  EXPECT_FALSE(b.failed) << b.message;
  EXPECT_TRUE(b.complete) << b.summary();
  EXPECT_GT(reach->locked, 0U) << "no execution had a lookup exhaust its lock-free reads and take the stripes: "
                               << reach->describe();
}

// ---- The locked view against a lock-free lookup -------------------------------------------
//
// Prefill K -> 1; thread 0 finds K lock-free; thread 1 takes the locked view
// (lock_table(): every stripe), erases K, inserts J -> 2 through the view (into the slot
// K left, as in erase_during_lookup) and unlocks. The view's erase and insert are
// recorded as two operations (each takes effect inside the view; no other thread can
// observe the map between them). A lookup may answer K -> 1 (before the view) or absent
// (after it), never K -> 2: a first read that saw K's word and key before the view and
// J's value after it must fail validation, because the view's stripes were odd while it
// held them and moved on when it let go. A view that wrote without holding the stripes,
// or let go of them without moving their versions on, would let that read validate.
// Counted: executions in which the lookup read K, was invalidated by the view and came
// back empty lock-free (retried_empty), and those in which it took the stripes after
// finding them held by the view (locked).
ex::Scenario view_during_lookup(EraseRace r, std::shared_ptr<RetryReach> reach) {
  return [r, reach] {
    auto s = std::make_shared<RetryShared>(full_table_config());
    s->finder_key = r.key;
    (void)s->recorder.thread(0).record(sub::OpKind::kInsert, r.key, 1,
                                       [&] { return sub::outcome_of(s->map.insert(r.key, 1)); });
    return retry_execution(s, reach, [r](RetryShared& sh) {
      auto& log = sh.recorder.thread(1);
      auto view = sh.map.lock_table();
      const std::uint64_t key = r.key;  // not finder_key: the watch must not see the writer's comparisons
      (void)log.record(sub::OpKind::kErase, key, 0, [&] { return view.erase(key) == 1; });
      (void)log.record(sub::OpKind::kInsert, r.replacement, 2,
                       [&] { return sub::outcome_of(view.insert(r.replacement, 2).second); });
      view.unlock();
    });
  };
}

TEST(StripedMapExplored, ALockFreeLookupNeverSeesTheLockedViewsChangesHalfDone) {
  static_assert(WatchedMap::kAtomicItems, "the scenario is about lock-free lookups");
  const EraseRace r = find_erase_race();
  ASSERT_NE(r.key, 0U) << "no key has a second key that takes its slot once it is erased";
  auto reach = std::make_shared<RetryReach>();
  const unsigned bound = long_lane() ? 3 : 2;
  const ex::Result b = ex::bounded(view_during_lookup(r, reach), bound, long_lane() ? 1'000'000 : 100'000);
  report("lookup against a locked view's erase and insert bounded(" + std::to_string(bound) + ")", b);
  std::printf("[explore]   %s\n", reach->describe().c_str());
  EXPECT_FALSE(b.failed) << b.message;
  EXPECT_TRUE(b.complete) << b.summary();
  EXPECT_GT(reach->retried_empty, 0U)
      << "no execution had a lookup read K before the view, fail validation and come back empty: "
      << reach->describe();
  EXPECT_GT(reach->locked, 0U) << "no execution had a lookup find the view's stripes held and wait: "
                               << reach->describe();
}

TEST(StripedMapExplored, TheRaceOfTwoInsertsOfOneKeyHoldsForTheRealDesign) {
  const Race r = find_race();
  ASSERT_NE(r.key, 0U) << "no prefill leaves a key whose path and direct placements differ";
  const ex::Result b = ex::bounded(race<StripedMapFault::kNone>(r), 2, 1'000'000);
  report("two inserts of one key bounded(2)", b);
  EXPECT_FALSE(b.failed) << b.message;
  EXPECT_TRUE(b.complete) << b.summary();
}

TEST(StripedMapExplored, CatchesAPathPlacedUnderOneBucket) {
  const Race r = find_race();
  ASSERT_NE(r.key, 0U) << "no prefill leaves a key whose path and direct placements differ";
  const ex::Result b = ex::bounded(race<StripedMapFault::kPathPlacesUnderOneBucket>(r), 2, 1'000'000);
  report("path placed under one bucket bounded(2)", b);
  EXPECT_TRUE(b.failed) << "the broken variant passed: " << b.summary();
}

TEST(StripedMapExplored, CatchesUnvalidatedHops) {
  const ex::Result p = ex::pct(churn<StripedMapFault::kUnvalidatedHop>(false), 0x5a, 3, 20'000);
  report("unvalidated hops pct(3)", p);
  EXPECT_TRUE(p.failed) << "the broken variant passed: " << p.summary();
}

}  // namespace
