// StripedConcurrentMap's locked view (lock_table(), detail/striped_map_locked.hpp):
//   - its API on both item layouts (atomic: uint64 keys and values, read lock-free by
//     other threads; other: strings): iteration, values changed in place, find, insert,
//     emplace, insert_or_assign (also through growth), erase, clear, size, unlock, moves;
//   - the holding thread's own calls into the map throw LockedTableError instead of
//     deadlocking; the lock-free members still answer;
//   - other threads' operations wait for the view, and see its changes all at once;
//   - the view's rounds of iteration, assignment, erase and insert against lock-free
//     finds and ordinary writers on other threads: every value is key-derived (key << 20
//     | round), so a find that returns a torn value, a pre-erase value after the erase
//     was published, or a state that never existed is caught; each find is checked
//     against the rounds published before its call and after its return.
// Named concurrent_* so that the TSan lane runs it too.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include "cuckoo/concurrent_map.hpp"
#include "cuckoo/detail/rng.hpp"
#include "support/test_seed.hpp"
#include "support/watchdog.hpp"

namespace {

using cuckoo::CuckooMapConfig;
using cuckoo::InsertResult;
using cuckoo::LockedTableError;
using cuckoo::StripedConcurrentMap;
using cuckoo::test::test_seed;

std::string seed_note(std::uint64_t seed) {
  return cuckoo::test::seed_note(seed, "concurrent_map_locked_table_test");
}

CuckooMapConfig config(std::size_t initial, std::size_t max_capacity = std::size_t{1} << 20) {
  CuckooMapConfig c;
  c.initial_capacity = initial;
  c.max_capacity = max_capacity;
  c.seed = 23;
  return c;
}

// Key-derived values: value(k, round) = k << 20 | round, as integers or as text.
struct IntCodec {
  using Map = StripedConcurrentMap<std::uint64_t, std::uint64_t>;
  static std::uint64_t key(std::uint64_t k) { return k; }
  static std::uint64_t value(std::uint64_t k, std::uint64_t round) { return k << 20 | round; }
  static std::uint64_t key_of(std::uint64_t key) { return key; }
  static std::uint64_t number(std::uint64_t value) { return value; }
};
struct TextCodec {
  using Map = StripedConcurrentMap<std::string, std::string>;
  static std::string key(std::uint64_t k) { return "key-" + std::to_string(k); }
  static std::string value(std::uint64_t k, std::uint64_t round) {
    return "value-" + std::to_string(k << 20 | round) + std::string(24, '.');
  }
  static std::uint64_t key_of(const std::string& key) { return std::stoull(key.substr(4)); }
  static std::uint64_t number(const std::string& value) { return std::stoull(value.substr(6)); }
};

static_assert(IntCodec::Map::kAtomicItems, "the integer map reads lock-free");
static_assert(!TextCodec::Map::kAtomicItems, "the text map reads under the stripes");

template <class Codec>
class LockedTable : public ::testing::Test {};
using Codecs = ::testing::Types<IntCodec, TextCodec>;
TYPED_TEST_SUITE(LockedTable, Codecs);

TYPED_TEST(LockedTable, IteratesAndChangesValuesInPlace) {
  using C = TypeParam;
  typename C::Map map(config(16));
  for (std::uint64_t k = 0; k < 100; ++k) ASSERT_EQ(map.insert(C::key(k), C::value(k, 0)), InsertResult::kInserted);
  {
    auto view = map.lock_table();
    ASSERT_TRUE(view.is_active());
    EXPECT_EQ(view.size(), 100U);
    std::set<std::uint64_t> seen;
    for (auto it = view.begin(); it != view.end(); ++it) {
      const std::uint64_t k = C::key_of(it->first);
      EXPECT_EQ(C::number((*it).second), C::number(C::value(k, 0)));
      EXPECT_TRUE(seen.insert(k).second) << "key " << k << " visited twice";
      it->second = C::value(k, 1);
    }
    EXPECT_EQ(seen.size(), 100U);
    std::size_t visited = 0;
    for (auto&& item : std::as_const(view)) {  // const iteration
      EXPECT_EQ(C::number(item.second), C::number(C::value(C::key_of(item.first), 1)));
      ++visited;
    }
    EXPECT_EQ(visited, 100U);
    typename C::Map::LockedTable::const_iterator converted = view.begin();  // iterator -> const_iterator
    EXPECT_TRUE(converted == view.cbegin());
  }
  for (std::uint64_t k = 0; k < 100; ++k) {
    std::optional<std::uint64_t> got;
    ASSERT_TRUE(map.find_fn(C::key(k), [&](const auto& v) { got = C::number(v); }));
    EXPECT_EQ(got, C::number(C::value(k, 1))) << "the view's assignment of key " << k << " is not in the map";
  }
  EXPECT_EQ(map.check_invariants(), "");
}

TYPED_TEST(LockedTable, FindInsertEmplaceAssignEraseAndClear) {
  using C = TypeParam;
  // 4 slots that may grow to 1,024: the inserts below need cuckoo paths and growths.
  typename C::Map map(config(4, 1024));
  auto view = map.lock_table();
  for (std::uint64_t k = 0; k < 300; ++k) {
    auto [it, result] = view.insert(C::key(k), C::value(k, 0));
    ASSERT_EQ(result, InsertResult::kInserted) << "key " << k;
    ASSERT_TRUE(it != view.end());
    EXPECT_EQ(C::key_of(it->first), k) << "insert returned an iterator to another item (growth or path)";
  }
  EXPECT_GT(view.bucket_count(), 1U) << "the inserts never grew the table";
  EXPECT_EQ(view.size(), 300U);
  auto [same, exists] = view.insert(C::key(7), C::value(7, 9));
  EXPECT_EQ(exists, InsertResult::kExists);
  EXPECT_EQ(C::number(same->second), C::number(C::value(7, 0))) << "insert of a present key changed its value";
  auto [assigned, updated] = view.insert_or_assign(C::key(7), C::value(7, 9));
  EXPECT_EQ(updated, InsertResult::kUpdated);
  EXPECT_EQ(C::number(assigned->second), C::number(C::value(7, 9)));
  auto [emplaced, inserted] = view.emplace(C::key(500), C::value(500, 3));
  EXPECT_EQ(inserted, InsertResult::kInserted);
  EXPECT_EQ(C::number(emplaced->second), C::number(C::value(500, 3)));
  EXPECT_TRUE(view.find(C::key(301)) == view.end());
  EXPECT_TRUE(view.contains(C::key(500)));
  EXPECT_EQ(view.count(C::key(299)), 1U);
  EXPECT_EQ(view.count(C::key(301)), 0U);
  EXPECT_EQ(view.size(), 301U);

  // Erase every even key while iterating (erase returns the next item).
  std::size_t erased = 0;
  for (auto it = view.begin(); it != view.end();) {
    if (C::key_of(it->first) % 2 == 0) {
      it = view.erase(it);
      ++erased;
    } else {
      ++it;
    }
  }
  EXPECT_EQ(erased, 151U);  // 0, 2, ..., 298 and 500
  EXPECT_EQ(view.size(), 150U);
  EXPECT_EQ(view.erase(C::key(1)), 1U);
  EXPECT_EQ(view.erase(C::key(1)), 0U);
  EXPECT_EQ(view.size(), 149U);
  view.unlock();
  EXPECT_FALSE(view.is_active());
  EXPECT_EQ(map.size(), 149U);
  for (std::uint64_t k = 0; k < 300; ++k) {
    EXPECT_EQ(map.contains(C::key(k)), k % 2 == 1 && k != 1) << "key " << k;
  }
  EXPECT_EQ(map.check_invariants(), "");

  auto again = map.lock_table();
  again.clear();
  EXPECT_EQ(again.size(), 0U);
  EXPECT_TRUE(again.begin() == again.end());
  again.unlock();
  EXPECT_TRUE(map.empty());
  EXPECT_EQ(map.check_invariants(), "");
}

TYPED_TEST(LockedTable, ReserveAndRehashThroughTheView) {
  using C = TypeParam;
  typename C::Map map(config(8, 4096));
  for (std::uint64_t k = 0; k < 6; ++k) map.insert(C::key(k), C::value(k, 0));
  auto view = map.lock_table();
  EXPECT_TRUE(view.rehash(100));
  EXPECT_GE(view.bucket_count(), 100U);
  EXPECT_TRUE(view.reserve(2000));
  EXPECT_GE(view.capacity(), 2000U);
  EXPECT_FALSE(view.rehash(4096)) << "4,096 buckets of 4 slots is above max_capacity";
  EXPECT_EQ(view.size(), 6U);
  view.unlock();
  for (std::uint64_t k = 0; k < 6; ++k) EXPECT_TRUE(map.contains(C::key(k)));
  EXPECT_EQ(map.check_invariants(), "");
}

TYPED_TEST(LockedTable, MovedViewsUnlockOnce) {
  using C = TypeParam;
  typename C::Map map(config(16));
  map.insert(C::key(1), C::value(1, 0));
  {
    auto first = map.lock_table();
    auto second = std::move(first);
    EXPECT_FALSE(first.is_active());  // NOLINT(bugprone-use-after-move): a moved-from view is inactive
    EXPECT_TRUE(second.is_active());
    EXPECT_EQ(second.size(), 1U);
    typename C::Map::LockedTable third = std::move(second);
    first.unlock();  // inactive: nothing
    EXPECT_TRUE(third.is_active());
  }  // third unlocks here; first and second must not
  // Every stripe is free again: an insert on another thread completes.
  cuckoo::test::Watchdog watchdog(cuckoo::test::current_test_name(), std::chrono::seconds(60));
  std::thread other([&] { EXPECT_EQ(map.insert(C::key(2), C::value(2, 0)), InsertResult::kInserted); });
  other.join();
  EXPECT_EQ(map.size(), 2U);
  EXPECT_EQ(map.check_invariants(), "");

  // Move assignment unlocks the target's own map first.
  typename C::Map other_map(config(16));
  auto a = map.lock_table();
  auto b = other_map.lock_table();
  a = std::move(b);  // map unlocked, other_map held by a
  std::thread user([&] { EXPECT_EQ(map.insert(C::key(3), C::value(3, 0)), InsertResult::kInserted); });
  user.join();
  a.unlock();
  EXPECT_EQ(other_map.insert(C::key(4), C::value(4, 0)), InsertResult::kInserted);
}

TYPED_TEST(LockedTable, TheHoldingThreadsOwnCallsThrowInsteadOfDeadlocking) {
  using C = TypeParam;
  typename C::Map map(config(16));
  map.insert(C::key(1), C::value(1, 0));
  // A map that missed the self-deadlock would hang below: fail fast (the calls take
  // microseconds).
  cuckoo::test::Watchdog watchdog(cuckoo::test::current_test_name(), std::chrono::seconds(20));
  auto view = map.lock_table();
  EXPECT_THROW(map.insert(C::key(2), C::value(2, 0)), LockedTableError);
  EXPECT_THROW(map.insert_or_assign(C::key(1), C::value(1, 5)), LockedTableError);
  EXPECT_THROW(map.erase(C::key(1)), LockedTableError);
  EXPECT_THROW((void)map.find(C::key(1)), LockedTableError);
  EXPECT_THROW((void)map.contains(C::key(1)), LockedTableError);
  EXPECT_THROW(map.find_fn(C::key(1), [](const auto&) {}), LockedTableError);
  EXPECT_THROW(map.update_fn(C::key(1), [](auto&) {}), LockedTableError);
  EXPECT_THROW(map.update(C::key(1), C::value(1, 6)), LockedTableError);
  EXPECT_THROW(map.clear(), LockedTableError);
  EXPECT_THROW(map.reserve(1000), LockedTableError);
  EXPECT_THROW(map.rehash(1000), LockedTableError);
  EXPECT_THROW((void)map.snapshot(), LockedTableError);
  EXPECT_THROW((void)map.check_invariants(), LockedTableError);
  EXPECT_THROW((void)map.lock_table(), LockedTableError);
  EXPECT_THROW({ typename C::Map copy(map); }, LockedTableError);
  // The lock-free members answer.
  EXPECT_EQ(map.size(), 1U);
  EXPECT_FALSE(map.empty());
  EXPECT_GT(map.capacity(), 0U);
  // Nothing changed, and the view still works.
  EXPECT_EQ(view.size(), 1U);
  EXPECT_EQ(C::number(view.find(C::key(1))->second), C::number(C::value(1, 0)));
  view.unlock();
  EXPECT_EQ(map.insert(C::key(2), C::value(2, 0)), InsertResult::kInserted);
  EXPECT_EQ(map.check_invariants(), "");
}

// Another thread's operation started while the view is held must not finish before the
// view lets go, and must then see the view's change. `op` returns what it observed.
template <class Map, class Op, class Change>
void waits_for_the_view(Map& map, const char* what, Op op, Change change) {
  auto view = map.lock_table();
  std::atomic<bool> finished{false};
  std::thread other([&] {
    op();
    finished.store(true, std::memory_order_release);
  });
  // One-sided: a correct map never finishes early; a map that ignores the view does, in
  // practice well within this time.
  std::this_thread::sleep_for(std::chrono::milliseconds(150));
  EXPECT_FALSE(finished.load(std::memory_order_acquire)) << what << " finished while another thread held the locked view";
  change(view);
  view.unlock();
  other.join();
}

TYPED_TEST(LockedTable, OtherThreadsWaitAndSeeTheViewsChanges) {
  using C = TypeParam;
  typename C::Map map(config(16));
  const auto key = C::key(1);
  map.insert(key, C::value(1, 0));
  cuckoo::test::Watchdog watchdog(cuckoo::test::current_test_name(), std::chrono::seconds(120));
  std::uint64_t seen = 0;

  waits_for_the_view(
      map, "find_fn",
      [&] { EXPECT_TRUE(map.find_fn(key, [&](const auto& v) { seen = C::number(v); })); },
      [&](auto& view) { view.find(key)->second = C::value(1, 1); });
  EXPECT_EQ(seen, C::number(C::value(1, 1))) << "find_fn did not wait for the view";

  waits_for_the_view(
      map, "find", [&] { seen = C::number(*map.find(key)); },
      [&](auto& view) { view.find(key)->second = C::value(1, 2); });
  EXPECT_EQ(seen, C::number(C::value(1, 2))) << "find did not wait for the view";

  waits_for_the_view(
      map, "update_fn",
      [&] { EXPECT_TRUE(map.update_fn(key, [&](auto& v) { seen = C::number(v); v = C::value(1, 4); })); },
      [&](auto& view) { view.find(key)->second = C::value(1, 3); });
  EXPECT_EQ(seen, C::number(C::value(1, 3))) << "update_fn did not wait for the view";
  EXPECT_EQ(C::number(*map.find(key)), C::number(C::value(1, 4)));

  waits_for_the_view(
      map, "update", [&] { EXPECT_TRUE(map.update(key, C::value(1, 6))); },
      [&](auto& view) { view.find(key)->second = C::value(1, 5); });
  EXPECT_EQ(C::number(*map.find(key)), C::number(C::value(1, 6))) << "update ran before the view's assignment";

  waits_for_the_view(
      map, "insert", [&] { EXPECT_EQ(map.insert(C::key(2), C::value(2, 0)), InsertResult::kExists); },
      [&](auto& view) { view.insert(C::key(2), C::value(2, 7)); });
  EXPECT_EQ(C::number(*map.find(C::key(2))), C::number(C::value(2, 7)));

  waits_for_the_view(
      map, "erase", [&] { EXPECT_FALSE(map.erase(C::key(2))); }, [&](auto& view) { view.erase(C::key(2)); });

  waits_for_the_view(
      map, "contains", [&] { EXPECT_FALSE(map.contains(key)); }, [&](auto& view) { view.erase(key); });
  EXPECT_EQ(map.size(), 0U);
  EXPECT_EQ(map.check_invariants(), "");
}

// ---- The view's rounds against lock-free finds and other writers -------------------------
//
// View keys 0..kViewKeys-1 belong to the view thread. State after round r: key k present
// iff (k + r) % 3 != 0, with value(k, r). Round r (r = 1..rounds) runs under one view:
// iterate, erase the keys that leave, assign value(k, r) to those that stay, then insert
// the keys that enter; unlock; publish r. A find of k by another thread whose call came
// after round r0 was published and whose return came before round r1 + 2 was published
// must answer state(r, k) for some r in [r0, r1 + 1]: anything else is a torn value, a
// value from before an erase or assignment that had been published, or a state that
// never existed. Writer keys kWriterBase.. belong to a writer thread using the ordinary
// operations; their finds must be absent or value(k, anything) (not torn).

constexpr std::uint64_t kViewKeys = 48;
constexpr std::uint64_t kWriterBase = 1000;
constexpr std::uint64_t kWriterKeys = 48;

constexpr std::uint64_t kFindsPerRound = 6;

bool present_in(std::uint64_t k, std::uint64_t round) { return (k + round) % 3 != 0; }

template <class C>
void run_rounds(std::uint64_t seed, std::uint64_t rounds, unsigned readers) {
  SCOPED_TRACE(seed_note(seed));
  typename C::Map map(config(8, 1 << 16));
  for (std::uint64_t k = 0; k < kViewKeys; ++k) {
    if (present_in(k, 0)) {
      ASSERT_EQ(map.insert(C::key(k), C::value(k, 0)), InsertResult::kInserted);
    }
  }
  std::atomic<std::uint64_t> published{0};
  std::atomic<bool> stop{false};
  std::atomic<std::uint64_t> checked{0};
  std::atomic<std::uint64_t> finds{0};  // finds started, for pacing the rounds
  std::atomic<std::uint64_t> failures{0};
  std::vector<std::string> first_failure(readers + 2);

  cuckoo::test::Watchdog watchdog(cuckoo::test::current_test_name() + " " + seed_note(seed));
  std::vector<std::thread> threads;
  threads.emplace_back([&] {  // the view thread
    for (std::uint64_t r = 1; r <= rounds; ++r) {
      auto view = map.lock_table();
      for (auto it = view.begin(); it != view.end();) {
        const std::uint64_t k = C::key_of(it->first);
        if (k >= kWriterBase) {  // the writer's key: leave it
          ++it;
        } else if (!present_in(k, r)) {
          it = view.erase(it);
        } else {
          it->second = C::value(k, r);
          ++it;
        }
      }
      for (std::uint64_t k = 0; k < kViewKeys; ++k) {
        if (present_in(k, r) && !present_in(k, r - 1)) {
          const InsertResult result = view.insert(C::key(k), C::value(k, r)).second;
          if (result != InsertResult::kInserted && failures.fetch_add(1) == 0) {
            first_failure[readers] = "the view's insert of key " + std::to_string(k) + " in round " + std::to_string(r) +
                                     " answered " + std::to_string(static_cast<int>(result));
          }
        }
      }
      view.unlock();
      published.store(r, std::memory_order_release);
      // Pacing: spin locks are not fair, and a view thread that locks again at once would
      // starve the readers. Let them start a few finds per round (some then overlap the
      // next round's view), with a deadline so that a stuck reader cannot stop the rounds.
      const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(50);
      while (finds.load(std::memory_order_relaxed) < r * kFindsPerRound &&
             std::chrono::steady_clock::now() < deadline) {
        std::this_thread::yield();
      }
    }
    stop.store(true, std::memory_order_release);
  });
  threads.emplace_back([&] {  // a writer with the ordinary operations
    cuckoo::detail::Rng rng(seed ^ 0x77);
    std::uint64_t i = 0;
    while (!stop.load(std::memory_order_acquire)) {
      const std::uint64_t k = kWriterBase + rng.below(kWriterKeys);
      if (rng.below(3) == 0) {
        (void)map.erase(C::key(k));
      } else {
        (void)map.insert_or_assign(C::key(k), C::value(k, ++i % (1 << 20)));
      }
    }
  });
  for (unsigned reader = 0; reader < readers; ++reader) {
    threads.emplace_back([&, reader] {
      cuckoo::detail::Rng rng(seed + reader);
      std::uint64_t mine = 0;
      const auto fail = [&](const std::string& what) {
        if (failures.fetch_add(1) == 0) first_failure[reader] = what;
      };
      while (!stop.load(std::memory_order_acquire)) {
        const bool writer_key = rng.below(4) == 0;
        const std::uint64_t k = writer_key ? kWriterBase + rng.below(kWriterKeys) : rng.below(kViewKeys);
        finds.fetch_add(1, std::memory_order_relaxed);
        const std::uint64_t r0 = published.load(std::memory_order_acquire);
        std::optional<std::uint64_t> got;
        if (rng.below(2) == 0) {
          if (const auto v = map.find(C::key(k))) got = C::number(*v);
        } else {
          (void)map.find_fn(C::key(k), [&](const auto& v) { got = C::number(v); });
        }
        const std::uint64_t r1 = published.load(std::memory_order_acquire);
        ++mine;
        if (got && (*got >> 20) != k) {
          fail("find(" + std::to_string(k) + ") returned a torn value " + std::to_string(*got));
          continue;
        }
        if (writer_key) continue;
        bool possible = false;
        for (std::uint64_t r = r0; r <= std::min(r1 + 1, rounds) && !possible; ++r) {
          const std::optional<std::uint64_t> expected =
              present_in(k, r) ? std::optional<std::uint64_t>(C::number(C::value(k, r))) : std::nullopt;
          possible = got == expected;
        }
        if (!possible) {
          fail("find(" + std::to_string(k) + ") between rounds " + std::to_string(r0) + " and " + std::to_string(r1) +
               " returned " + (got ? "round " + std::to_string(*got & ((1 << 20) - 1)) : std::string("absent")) +
               ": a state of the key that no round in that interval had");
        }
      }
      checked.fetch_add(mine);
    });
  }
  for (std::thread& t : threads) t.join();
  std::string message;
  for (const std::string& m : first_failure) message += m;
  EXPECT_EQ(failures.load(), 0U) << message;
  std::printf("[locked view] %llu rounds, %llu finds checked, %llu failures\n",
              static_cast<unsigned long long>(rounds), static_cast<unsigned long long>(checked.load()),
              static_cast<unsigned long long>(failures.load()));
  EXPECT_GE(checked.load(), rounds) << "the readers hardly ran: the rounds checked little";
  for (std::uint64_t k = 0; k < kViewKeys; ++k) {
    EXPECT_EQ(map.contains(C::key(k)), present_in(k, rounds)) << "key " << k;
  }
  EXPECT_EQ(map.check_invariants(), "");
}

TYPED_TEST(LockedTable, RoundsAgainstLockFreeFindsAndWriters) {
  run_rounds<TypeParam>(test_seed(0x10c4'0001), 400, 2);
}

}  // namespace
