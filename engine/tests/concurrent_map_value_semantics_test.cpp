// StripedConcurrentMap as a value and with values that are not copyable:
//   - move-only values (std::unique_ptr): insert by move (a refused insert keeps the
//     argument), find_fn, update_fn, update, erase_fn, upsert, uprase_fn, the locked view,
//     growth; find (which returns a copy) is not offered for them;
//   - copy construction and assignment (a snapshot under the source's locks: consistent
//     while another thread changes the source through its locked view), move
//     construction and assignment (the moved-from map is empty and usable), swap;
//   - rehash(buckets) and reserve(n);
//   - find_fn / update_fn / update against each other on several threads (exact totals).
// Named concurrent_* so that the TSan lane runs it too.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <concepts>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>
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
using cuckoo::StripedConcurrentMap;
using cuckoo::test::test_seed;

CuckooMapConfig config(std::size_t initial, std::size_t max_capacity = std::size_t{1} << 20,
                       std::uint64_t seed = 29) {
  CuckooMapConfig c;
  c.initial_capacity = initial;
  c.max_capacity = max_capacity;
  c.seed = seed;
  return c;
}

using Owned = std::unique_ptr<std::uint64_t>;
using OwnedMap = StripedConcurrentMap<std::uint64_t, Owned>;
using IntMap = StripedConcurrentMap<std::uint64_t, std::uint64_t>;
using TextMap = StripedConcurrentMap<std::string, std::string>;

template <class M>
concept HasFind = requires(const M& m) { m.find(std::uint64_t{1}); };
template <class M>
concept HasSnapshot = requires(const M& m) { m.snapshot(); };

// find and snapshot copy values: not offered for move-only ones; neither is copying.
static_assert(!HasFind<OwnedMap>);
static_assert(!HasSnapshot<OwnedMap>);
static_assert(HasFind<IntMap>);
static_assert(!std::is_copy_constructible_v<OwnedMap>);
static_assert(!std::is_copy_assignable_v<OwnedMap>);
static_assert(std::is_move_constructible_v<OwnedMap> && std::is_move_assignable_v<OwnedMap>);
static_assert(std::is_copy_constructible_v<IntMap> && std::is_copy_assignable_v<TextMap>);
static_assert(std::is_nothrow_swappable_v<IntMap>);

std::optional<std::uint64_t> owned_value(const OwnedMap& map, std::uint64_t key) {
  std::optional<std::uint64_t> got;
  map.find_fn(key, [&](const Owned& p) { got = *p; });
  return got;
}

TEST(StripedMapMoveOnlyValues, EveryOperationThatNeedsNoCopyWorks) {
  OwnedMap map(config(4, 4096));  // grows many times below
  for (std::uint64_t k = 0; k < 500; ++k) {
    ASSERT_EQ(map.insert(k, std::make_unique<std::uint64_t>(k * 10)), InsertResult::kInserted);
  }
  EXPECT_GT(map.stats().growths, 0U);
  Owned kept = std::make_unique<std::uint64_t>(99);
  EXPECT_EQ(map.insert(3, std::move(kept)), InsertResult::kExists);
  ASSERT_NE(kept, nullptr) << "an insert of a present key took the value";
  EXPECT_EQ(*kept, 99U);
  for (std::uint64_t k = 0; k < 500; ++k) ASSERT_EQ(owned_value(map, k), k * 10) << "key " << k;
  EXPECT_EQ(owned_value(map, 500), std::nullopt);

  EXPECT_TRUE(map.update_fn(3, [](Owned& p) { *p += 1; }));
  EXPECT_EQ(owned_value(map, 3), 31U);
  EXPECT_TRUE(map.update(3, std::make_unique<std::uint64_t>(7)));
  EXPECT_EQ(owned_value(map, 3), 7U);
  Owned unused = std::make_unique<std::uint64_t>(1);
  EXPECT_FALSE(map.update(1000, std::move(unused)));
  EXPECT_NE(unused, nullptr) << "update of an absent key took the value";
  EXPECT_EQ(map.insert_or_assign(4, std::make_unique<std::uint64_t>(44)), InsertResult::kUpdated);
  EXPECT_EQ(owned_value(map, 4), 44U);

  EXPECT_EQ(map.upsert(3, [](Owned& p) { *p *= 2; }, std::make_unique<std::uint64_t>(0)), InsertResult::kUpdated);
  EXPECT_EQ(owned_value(map, 3), 14U);
  EXPECT_EQ(map.upsert(600, [](Owned& p) { *p *= 2; }, new std::uint64_t(5)), InsertResult::kInserted);
  EXPECT_EQ(owned_value(map, 600), 5U);
  EXPECT_EQ(map.uprase_fn(600, [](Owned& p) { return *p == 5; }), InsertResult::kUpdated);
  EXPECT_FALSE(map.contains(600));
  EXPECT_TRUE(map.erase_fn(5, [](Owned& p) { return *p == 50; }));
  EXPECT_FALSE(map.contains(5));
  EXPECT_TRUE(map.erase(6));
  EXPECT_EQ(map.size(), 498U);

  {
    auto view = map.lock_table();
    std::uint64_t sum = 0;
    for (auto&& item : view) {
      *item.second += 1;
      sum += *item.second;
    }
    EXPECT_GT(sum, 0U);
    auto [it, result] = view.insert(700, std::make_unique<std::uint64_t>(70));
    EXPECT_EQ(result, InsertResult::kInserted);
    EXPECT_EQ(*it->second, 70U);
    Owned moved = std::move(view.find(700)->second);  // take a value out through the view
    view.find(700)->second = std::move(moved);
  }
  EXPECT_EQ(owned_value(map, 0), 1U);
  EXPECT_EQ(owned_value(map, 700), 70U);

  OwnedMap moved(std::move(map));
  EXPECT_EQ(moved.size(), 499U);
  EXPECT_EQ(owned_value(moved, 9), 91U);
  EXPECT_TRUE(map.empty());  // NOLINT(bugprone-use-after-move): moved-from maps are empty and usable
  EXPECT_EQ(map.insert(1, std::make_unique<std::uint64_t>(1)), InsertResult::kInserted);
  EXPECT_EQ(moved.check_invariants(), "");
  EXPECT_EQ(map.check_invariants(), "");
}

template <class Map>
std::vector<typename Map::value_type> sorted(const Map& map) {
  auto items = map.snapshot();
  std::sort(items.begin(), items.end());
  return items;
}

template <class Map>
class StripedMapAsValue : public ::testing::Test {};
using Maps = ::testing::Types<IntMap, TextMap>;
TYPED_TEST_SUITE(StripedMapAsValue, Maps);

template <class Map>
typename Map::key_type key_of(std::uint64_t k) {
  if constexpr (std::is_same_v<typename Map::key_type, std::string>) {
    return "k" + std::to_string(k);
  } else {
    return k;
  }
}
template <class Map>
typename Map::mapped_type value_of(std::uint64_t v) {
  if constexpr (std::is_same_v<typename Map::mapped_type, std::string>) {
    return "v" + std::to_string(v) + std::string(20, '-');
  } else {
    return v;
  }
}

TYPED_TEST(StripedMapAsValue, CopiesAreEqualAndIndependent) {
  using Map = TypeParam;
  Map source(config(8, 1 << 14));
  for (std::uint64_t k = 0; k < 300; ++k) source.insert(key_of<Map>(k), value_of<Map>(k));
  source.erase(key_of<Map>(7));
  Map copy(source);
  EXPECT_EQ(copy.size(), source.size());
  EXPECT_EQ(copy.bucket_count(), source.bucket_count());
  EXPECT_EQ(copy.seed(), source.seed());
  EXPECT_EQ(sorted(copy), sorted(source));
  EXPECT_EQ(copy.check_invariants(), "");
  EXPECT_EQ(copy.stats().inserts, 0U) << "a copy's statistics start at zero";
  copy.insert_or_assign(key_of<Map>(1), value_of<Map>(1000));
  copy.erase(key_of<Map>(2));
  EXPECT_EQ(*source.find(key_of<Map>(1)), value_of<Map>(1)) << "a change to the copy reached the source";
  EXPECT_TRUE(source.contains(key_of<Map>(2)));
  // The copy grows on its own.
  for (std::uint64_t k = 300; k < 1500; ++k) ASSERT_EQ(copy.insert(key_of<Map>(k), value_of<Map>(k)), InsertResult::kInserted);
  EXPECT_EQ(source.size(), 299U);
  EXPECT_EQ(copy.size(), 1498U);

  Map assigned(config(4, 64, 5));
  assigned.insert(key_of<Map>(9999), value_of<Map>(1));
  assigned = source;
  EXPECT_EQ(sorted(assigned), sorted(source));
  EXPECT_EQ(assigned.config().max_capacity, source.config().max_capacity);
  EXPECT_EQ(assigned.seed(), source.seed());
  EXPECT_FALSE(assigned.contains(key_of<Map>(9999)));
  const Map& same = assigned;
  assigned = same;  // self-assignment keeps everything
  EXPECT_EQ(assigned.size(), 299U);
  EXPECT_EQ(assigned.check_invariants(), "");
}

TYPED_TEST(StripedMapAsValue, MovesAndSwapsExchangeEverything) {
  using Map = TypeParam;
  Map a(config(8, 1 << 14, 1));
  Map b(config(4, 256, 2));
  for (std::uint64_t k = 0; k < 100; ++k) a.insert(key_of<Map>(k), value_of<Map>(k));
  b.insert(key_of<Map>(5000), value_of<Map>(5));
  const auto a_items = sorted(a);
  const auto b_items = sorted(b);
  a.swap(b);
  EXPECT_EQ(sorted(a), b_items);
  EXPECT_EQ(sorted(b), a_items);
  EXPECT_EQ(a.config().max_capacity, 256U);
  EXPECT_EQ(b.seed(), 1U);
  EXPECT_EQ(a.size(), 1U);
  EXPECT_EQ(b.size(), 100U);
  using std::swap;
  swap(a, b);
  EXPECT_EQ(sorted(a), a_items);
  EXPECT_EQ(a.check_invariants(), "");
  EXPECT_EQ(b.check_invariants(), "");
  // Both keep working (growth included) after swaps.
  for (std::uint64_t k = 100; k < 400; ++k) ASSERT_EQ(a.insert(key_of<Map>(k), value_of<Map>(k)), InsertResult::kInserted);
  ASSERT_EQ(b.insert(key_of<Map>(1), value_of<Map>(1)), InsertResult::kInserted);

  Map moved(std::move(a));
  EXPECT_EQ(moved.size(), 400U);
  EXPECT_TRUE(a.empty());  // NOLINT(bugprone-use-after-move)
  EXPECT_EQ(a.insert(key_of<Map>(1), value_of<Map>(2)), InsertResult::kInserted);
  EXPECT_EQ(a.check_invariants(), "");

  b = std::move(moved);
  EXPECT_EQ(b.size(), 400U);
  EXPECT_EQ(b.config().max_capacity, std::size_t{1} << 14);
  EXPECT_TRUE(moved.empty());  // NOLINT(bugprone-use-after-move)
  EXPECT_EQ(moved.insert(key_of<Map>(3), value_of<Map>(3)), InsertResult::kInserted);
  EXPECT_EQ(b.check_invariants(), "");
  EXPECT_EQ(moved.check_invariants(), "");
}

TYPED_TEST(StripedMapAsValue, RehashAndReserveGrowAndKeepTheItems) {
  using Map = TypeParam;
  Map map(config(8, 1 << 12));
  for (std::uint64_t k = 0; k < 6; ++k) map.insert(key_of<Map>(k), value_of<Map>(k));
  const std::uint32_t before = map.bucket_count();
  EXPECT_TRUE(map.rehash(before));  // nothing to do
  EXPECT_EQ(map.bucket_count(), before);
  EXPECT_TRUE(map.rehash(100));
  EXPECT_GE(map.bucket_count(), 100U);
  EXPECT_EQ(map.stats().growths, 1U);
  EXPECT_TRUE(map.rehash(50)) << "a smaller count is already met: rehash never shrinks";
  EXPECT_GE(map.bucket_count(), 100U);
  EXPECT_FALSE(map.rehash((std::size_t{1} << 12) / 4 + 1)) << "more buckets than max_capacity allows";
  EXPECT_TRUE(map.reserve(2000));
  EXPECT_GE(map.capacity(), 2000U);
  EXPECT_EQ(map.size(), 6U);
  for (std::uint64_t k = 0; k < 6; ++k) EXPECT_EQ(*map.find(key_of<Map>(k)), value_of<Map>(k));
  EXPECT_EQ(map.check_invariants(), "");
}

// fn of update_fn, erase_fn, upsert (and find_fn of non-atomic items) runs inside the
// key's critical section: while fn runs, another thread's assignment of the same key
// must not complete. fn waits a while for the other thread and reports whether it
// finished meanwhile (one-sided: a correct map never lets it finish; a map that ran fn
// outside the lock lets it finish well within the wait).
template <class Map, class Call>
void fn_runs_under_the_key_lock(Map& map, const char* what, Call call) {
  const auto key = key_of<Map>(1);
  std::atomic<bool> entered{false};
  std::atomic<bool> writer_done{false};
  bool finished_inside = false;
  std::thread writer([&] {
    while (!entered.load(std::memory_order_acquire)) std::this_thread::yield();
    map.insert_or_assign(key, value_of<Map>(77));
    writer_done.store(true, std::memory_order_release);
  });
  call(key, [&] {
    entered.store(true, std::memory_order_release);
    const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(150);
    while (std::chrono::steady_clock::now() < until && !writer_done.load(std::memory_order_acquire)) {
      std::this_thread::yield();
    }
    finished_inside = writer_done.load(std::memory_order_acquire);
  });
  writer.join();
  EXPECT_FALSE(finished_inside) << "another thread's write of the key completed while " << what << "'s fn ran";
  EXPECT_EQ(*map.find(key), value_of<Map>(77));
}

TYPED_TEST(StripedMapAsValue, FnRunsInsideTheKeysCriticalSection) {
  using Map = TypeParam;
  Map map(config(16));
  map.insert(key_of<Map>(1), value_of<Map>(1));
  cuckoo::test::Watchdog watchdog(cuckoo::test::current_test_name());
  using V = typename Map::mapped_type;
  fn_runs_under_the_key_lock(map, "update_fn", [&](const auto& key, auto wait) {
    EXPECT_TRUE(map.update_fn(key, [&](V&) { wait(); }));
  });
  fn_runs_under_the_key_lock(map, "erase_fn", [&](const auto& key, auto wait) {
    EXPECT_TRUE(map.erase_fn(key, [&](V&) { wait(); return false; }));
  });
  fn_runs_under_the_key_lock(map, "upsert", [&](const auto& key, auto wait) {
    EXPECT_EQ(map.upsert(key, [&](V&) { wait(); }, value_of<Map>(0)), InsertResult::kUpdated);
  });
  if constexpr (!Map::kAtomicItems) {  // atomic items: find_fn's fn runs on a lock-free copy
    fn_runs_under_the_key_lock(map, "find_fn", [&](const auto& key, auto wait) {
      EXPECT_TRUE(map.find_fn(key, [&](const V&) { wait(); }));
    });
  }
}

// A copy taken while another thread changes two keys together under its locked view
// must see both changes or neither: the copy is a snapshot under the source's locks.
TEST(StripedMapAsValueConcurrent, ACopyIsASnapshotWhileTheSourceChanges) {
  IntMap source(config(64));
  source.insert(1, 0);
  source.insert(2, 0);
  for (std::uint64_t k = 10; k < 200; ++k) source.insert(k, k);
  cuckoo::test::Watchdog watchdog(cuckoo::test::current_test_name());
  std::atomic<bool> stop{false};
  std::atomic<std::uint64_t> copies_started{0};
  std::atomic<std::uint64_t> views{0};
  std::thread writer([&] {
    for (std::uint64_t i = 1; !stop.load(std::memory_order_acquire); ++i) {
      const std::uint64_t seen = copies_started.load(std::memory_order_relaxed);
      {
        auto view = source.lock_table();
        view.find(1)->second = i;
        view.find(2)->second = i;
      }
      views.fetch_add(1, std::memory_order_relaxed);
      // Pacing: the stripe locks are spin locks, not fair, and a writer that takes the
      // view again at once can starve the copy's all-stripe lock for ever (under
      // ThreadSanitizer it did, past the watchdog). Wait until the next copy has started
      // (it then contends with the next view), or 1 ms so a slow copier cannot stop us.
      const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(1);
      while (copies_started.load(std::memory_order_relaxed) == seen &&
             std::chrono::steady_clock::now() < deadline) {
        std::this_thread::yield();
      }
    }
  });
  std::uint64_t copies = 0;
  std::uint64_t changed = 0;  // copies that saw another value than the copy before
  std::uint64_t last = 0;
  std::uint64_t views_seen = 0;
  for (; copies < 300; ++copies) {
    // Each copy after a view of the writer (50 ms at most): copies are faster than the
    // writer's start at -O1, and a copy loop done before it ran would check nothing.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(50);
    while (views.load(std::memory_order_relaxed) == views_seen &&
           std::chrono::steady_clock::now() < deadline) {
      std::this_thread::yield();
    }
    views_seen = views.load(std::memory_order_relaxed);
    copies_started.fetch_add(1, std::memory_order_relaxed);
    const IntMap copy(source);
    const auto a = copy.find(1);
    const auto b = copy.find(2);
    ASSERT_TRUE(a && b);
    ASSERT_EQ(*a, *b) << "a copy saw one of two changes made together under a locked view";
    ASSERT_EQ(copy.size(), 192U);
    changed += *a != last ? 1 : 0;
    last = *a;
  }
  stop.store(true, std::memory_order_release);
  writer.join();
  std::printf("[copy] %llu snapshots checked, %llu of them after a change\n",
              static_cast<unsigned long long>(copies), static_cast<unsigned long long>(changed));
  // The writer ran between the copies (else the snapshots checked nothing).
  EXPECT_GE(changed, copies / 2);
}

// find_fn, update_fn and update on several threads: each thread owns some counters
// (update_fn increments), and all threads read every counter with find_fn, which must
// never see a value go down; update resets a shared key that others only read.
TEST(StripedMapAsValueConcurrent, FindFnAndUpdateFnOnManyThreads) {
  const std::uint64_t seed = test_seed(0xf1f0'0001);
  SCOPED_TRACE(cuckoo::test::seed_note(seed, "concurrent_map_value_semantics_test"));
  for (const bool text : {false, true}) {
    SCOPED_TRACE(text ? "string values" : "integer values");
    StripedConcurrentMap<std::uint64_t, std::string> text_map(config(16));
    IntMap int_map(config(16));
    constexpr unsigned kThreads = 3;
    constexpr std::uint64_t kKeysPerThread = 8;
    constexpr std::uint64_t kIncrements = 3000;
    for (std::uint64_t k = 0; k < kThreads * kKeysPerThread; ++k) {
      text ? (void)text_map.insert(k, "0") : (void)int_map.insert(k, 0);
    }
    const auto read = [&](std::uint64_t k) {
      std::optional<std::uint64_t> got;
      if (text) {
        text_map.find_fn(k, [&](const std::string& v) { got = std::stoull(v); });
      } else {
        int_map.find_fn(k, [&](const std::uint64_t& v) { got = v; });
      }
      return got;
    };
    std::atomic<std::uint64_t> failures{0};
    cuckoo::test::Watchdog watchdog(cuckoo::test::current_test_name());
    std::vector<std::thread> threads;
    for (unsigned t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        cuckoo::detail::Rng rng(seed + t);
        std::vector<std::uint64_t> last(kThreads * kKeysPerThread, 0);
        for (std::uint64_t i = 0; i < kIncrements; ++i) {
          const std::uint64_t mine = t * kKeysPerThread + rng.below(kKeysPerThread);
          const bool ok = text ? text_map.update_fn(mine, [](std::string& v) { v = std::to_string(std::stoull(v) + 1); })
                               : int_map.update_fn(mine, [](std::uint64_t& v) { ++v; });
          if (!ok) failures.fetch_add(1);
          const std::uint64_t any = rng.below(kThreads * kKeysPerThread);
          const auto got = read(any);
          if (!got || *got < last[any]) failures.fetch_add(1);
          if (got) last[any] = *got;
        }
      });
    }
    for (std::thread& th : threads) th.join();
    EXPECT_EQ(failures.load(), 0U) << "a counter went missing or backwards";
    std::uint64_t total = 0;
    for (std::uint64_t k = 0; k < kThreads * kKeysPerThread; ++k) total += read(k).value_or(0);
    EXPECT_EQ(total, kThreads * kIncrements) << "update_fn lost increments";
    EXPECT_TRUE(text ? text_map.update(0, std::string("5")) : int_map.update(0, 5));
    EXPECT_EQ(read(0), 5U);
  }
}

}  // namespace
