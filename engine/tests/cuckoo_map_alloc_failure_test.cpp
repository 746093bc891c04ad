// CuckooMap (and StripedConcurrentMap, at the end) under allocation failure: every insert path (the fast path copying a key,
// the cuckoo path search, the stash, growth, reserve, operator[], try_emplace) is run
// with an operator new that fails the N-th allocation, for every N until the operation
// completes without a failure. After each failed attempt the operation must have
// answered kFull (or false for reserve; std::length_error for operator[], which has no
// result code), and the map must be unchanged and valid, the caller's arguments too.
//
// This executable replaces the global operator new and delete (all forms) with
// malloc-based versions that count allocations while a FailAt guard is armed.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <new>
#include <stdexcept>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "cuckoo/concurrent_map.hpp"
#include "cuckoo/cuckoo_map.hpp"

namespace {

// Allocations counted since the guard was armed; the one numbered fail_at throws.
std::size_t g_armed_count = 0;
std::size_t g_fail_at = 0;  // 0: disarmed
bool g_failed = false;

void* counted_alloc(std::size_t size, std::size_t alignment) {
  if (g_fail_at != 0 && ++g_armed_count == g_fail_at) {
    g_failed = true;
    throw std::bad_alloc();
  }
  if (size == 0) size = 1;
  void* p = alignment <= alignof(std::max_align_t)
                ? std::malloc(size)
                : std::aligned_alloc(alignment, (size + alignment - 1) / alignment * alignment);
  if (p == nullptr) throw std::bad_alloc();
  return p;
}

// The allocation the next armed() call fails (counted from its start).
std::size_t g_next_fail_at = 0;

// Arms the counter for one scope: allocation number n (counted from here) fails.
class FailAt {
 public:
  explicit FailAt(std::size_t n) {
    g_armed_count = 0;
    g_failed = false;
    g_fail_at = n;
  }
  ~FailAt() { g_fail_at = 0; }
  FailAt(const FailAt&) = delete;
  FailAt& operator=(const FailAt&) = delete;
};

// Runs f() with allocation number g_next_fail_at failing. Tests prepare their arguments
// first (their own allocations must not be the ones that fail), then call the map here.
template <class F>
decltype(auto) armed(F&& f) {
  FailAt guard(g_next_fail_at);
  return f();
}

}  // namespace

void* operator new(std::size_t size) { return counted_alloc(size, 0); }
void* operator new[](std::size_t size) { return counted_alloc(size, 0); }
void* operator new(std::size_t size, std::align_val_t al) {
  return counted_alloc(size, static_cast<std::size_t>(al));
}
void* operator new[](std::size_t size, std::align_val_t al) {
  return counted_alloc(size, static_cast<std::size_t>(al));
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }

namespace {

using cuckoo::CuckooMap;
using cuckoo::CuckooMapConfig;
using cuckoo::InsertResult;

// The most allocations one operation below makes; a loop that reaches it has a bug.
constexpr std::size_t kMaxAllocationsPerOp = 10'000;

// Keys from kHot on share two buckets at every size and seed: they force path searches,
// the stash and growth.
// Keys from kWarm on share the buckets {0, 1} of a table of 8 buckets, and spread over
// the buckets 0..3 of 16 (bits 0 and 1 of n - kWarm): they fill the stash at 8 buckets,
// and doubling places them all.
constexpr std::uint64_t kHot = 1'000'000;
constexpr std::uint64_t kWarm = 2'000'000;
struct HotHasher {
  std::uint64_t operator()(const std::string& key, std::uint64_t seed) const {
    const std::uint64_t n = std::strtoull(key.c_str(), nullptr, 10);
    if (n >= kWarm) {
      const auto j = static_cast<std::uint32_t>(n - kWarm);
      return cuckoo::detail::map_hash_for_buckets(j & 1U, 2 + ((j >> 1) & 1U), 16);
    }
    return n >= kHot ? 0x0123456789abcdefULL : cuckoo::DefaultHasher{}(n, seed);
  }
};

template <unsigned B>
using Map = CuckooMap<std::string, std::string, B, HotHasher>;

// Keys are short decimal numbers (no allocation: the small-string buffer holds them);
// values are long, so copying a value allocates.
std::string key_of(std::uint64_t n) { return std::to_string(n); }
std::string value_of(std::uint64_t n) { return std::to_string(n) + std::string(40, 'v'); }

CuckooMapConfig config(std::size_t initial, std::size_t max_capacity) {
  CuckooMapConfig c;
  c.initial_capacity = initial;
  c.max_capacity = max_capacity;
  c.seed = 11;
  return c;
}

template <class M>
void expect_same(const M& after, const M& before, const std::string& what) {
  EXPECT_EQ(after.check_invariants(), "") << what;
  EXPECT_EQ(after.size(), before.size()) << what;
  EXPECT_TRUE(after == before) << what << ": the map changed";
}

// What an insert may do when an allocation fails inside it: be refused (kFull) with the
// map unchanged; or, for an insert that grows before it searches (CuckooMap above
// kGrowLoadPercent), store the item through the search or the stash instead of growing.
enum class OnFailure { kRefused, kRefusedOrStoredWithoutGrowth };

// Runs op(map) on copies of `start` with allocation N failing, N = 1, 2, ... until op
// completes with no failure injected. op returns whether it reported a refusal.
// Returns the number of allocations the successful run made.
template <class M, class Op>
std::size_t for_every_failure(const M& start, const std::string& what, Op op,
                              OnFailure allowed = OnFailure::kRefused) {
  for (std::size_t n = 1; n < kMaxAllocationsPerOp; ++n) {
    M map = start;  // copied while disarmed (a copy starts with empty search buffers)
    g_next_fail_at = n;
    g_failed = false;
    const bool refused = op(map);
    const bool failed = g_failed;
    const std::string attempt = what + ", allocation " + std::to_string(n) + " failing";
    if (!failed) {
      EXPECT_FALSE(refused) << what << ": refused with no allocation failing";
      EXPECT_EQ(map.check_invariants(), "") << what;
      return n - 1;
    }
    if (!refused && allowed == OnFailure::kRefusedOrStoredWithoutGrowth) {
      EXPECT_EQ(map.check_invariants(), "") << attempt;
      EXPECT_EQ(map.size(), start.size() + 1) << attempt << ": stored without growing";
      EXPECT_EQ(map.capacity(), start.capacity())
          << attempt << ": the failed growth changed the capacity";
      if (::testing::Test::HasFailure()) return n;
      continue;
    }
    EXPECT_TRUE(refused) << attempt << ": not reported as a refusal";
    expect_same(map, start, attempt);
    if (::testing::Test::HasFailure()) return n;
  }
  ADD_FAILURE() << what << ": more than " << kMaxAllocationsPerOp << " allocations";
  return kMaxAllocationsPerOp;
}

// An insert by rvalue that must leave its arguments whole whenever it is refused.
template <class M>
bool insert_moved(M& map, std::uint64_t n) {
  std::string key = key_of(n);
  std::string value = value_of(n);
  const InsertResult r = armed([&] { return map.insert_outcome(std::move(key), std::move(value)); });
  if (r == InsertResult::kInserted) return false;
  EXPECT_EQ(r, InsertResult::kFull);
  EXPECT_EQ(key, key_of(n)) << "a refused insert took the key";
  EXPECT_EQ(value, value_of(n)) << "a refused insert took the value";
  return true;
}

template <class M>
bool insert_copied(M& map, std::uint64_t n) {
  const std::string key = key_of(n);
  const std::string value = value_of(n);
  const InsertResult r = armed([&] { return map.insert_outcome(key, value); });
  if (r == InsertResult::kInserted) return false;
  EXPECT_EQ(r, InsertResult::kFull);
  return true;
}

template <unsigned B>
void every_insert_path() {
  SCOPED_TRACE("SlotsPerBucket=" + std::to_string(B));
  using M = Map<B>;
  // Fast path: a free slot in a candidate bucket; the copy of the key and value allocate.
  {
    M map(config(64, 1 << 12));
    ASSERT_EQ(map.insert_outcome(key_of(1), value_of(1)), InsertResult::kInserted);
    EXPECT_GT(for_every_failure(map, "fast path (copy)",
                                [](M& m) { return insert_copied(m, 2); }),
              0U);
    for_every_failure(map, "fast path (move)", [](M& m) { return insert_moved(m, 2); });
  }
  // Path search: the hot buckets are full but hold movable items, so the insert needs a
  // cuckoo path; the search's first use allocates its buffers.
  {
    M map(config(64, 64));
    for (std::uint64_t k = 0; k < 40; ++k) {
      ASSERT_EQ(map.insert_outcome(key_of(k), value_of(k)), InsertResult::kInserted);
    }
    // A key whose insert needs a path (a search that succeeds, no stash, no growth).
    std::uint64_t n = 40;
    for (;; ++n) {
      ASSERT_LT(n, 100'000U) << "no key needs a cuckoo path";
      M probe = map;
      ASSERT_EQ(probe.insert_outcome(key_of(n), value_of(n)), InsertResult::kInserted);
      if (probe.stats().bfs_searches > map.stats().bfs_searches && probe.stash_size() == 0 &&
          probe.stats().growths == map.stats().growths) {
        break;
      }
      if (probe.stats().bfs_searches == map.stats().bfs_searches) {
        ASSERT_EQ(map.insert_outcome(key_of(n), value_of(n)), InsertResult::kInserted);  // fill on
      }
    }
    const std::size_t allocations = for_every_failure(
        map, "path search", [n](M& m) { return insert_moved(m, n); });
    EXPECT_GT(allocations, 0U) << "the path search should allocate its buffers";
  }
  // Stash: hot keys fill their two buckets; the next one has no path and is stashed.
  {
    M map(config(64, 64));
    std::uint64_t hot = kHot;
    while (map.stash_size() == 0) {
      ASSERT_EQ(map.insert_outcome(key_of(hot), value_of(hot)), InsertResult::kInserted);
      ++hot;
    }
    EXPECT_GT(for_every_failure(map, "stash", [hot](M& m) { return insert_moved(m, hot); }), 0U)
        << "the stash insert runs a path search first, which allocates its buffers";
  }
  // Growth: a full table of 8 buckets with a full stash and room to double.
  {
    M map(config(8 * B, 1 << 12));
    std::uint64_t hot = kHot;
    while (map.stash_size() < M::kStashSlots) {
      ASSERT_EQ(map.insert_outcome(key_of(hot), value_of(hot)), InsertResult::kInserted);
      ++hot;
    }
    std::uint64_t n = 1;
    const std::size_t growths = map.stats().growths;
    M probe = map;
    while (probe.stats().growths == growths) {
      ASSERT_EQ(probe.insert_outcome(key_of(n), value_of(n)), InsertResult::kInserted);
      if (probe.stats().growths == growths) {
        ASSERT_EQ(map.insert_outcome(key_of(n), value_of(n)), InsertResult::kInserted);
      }
      ++n;
    }
    // map is one insert short of growing; key n - 1 makes it grow. Doubling allocates the
    // new slots and their tags (rebuild_doubled); the copy also allocates the value.
    EXPECT_GE(for_every_failure(map, "growth", [n](M& m) { return insert_moved(m, n - 1); },
                                OnFailure::kRefusedOrStoredWithoutGrowth),
              2U)
        << "a doubling allocates its slots and tags";
    EXPECT_GE(for_every_failure(
                  map, "growth (copy)", [n](M& m) { return insert_copied(m, n - 1); },
                  OnFailure::kRefusedOrStoredWithoutGrowth),
              3U);
  }
  // Growth first, above kGrowLoadPercent: warm keys fill buckets 0 and 1 and the stash,
  // other keys fill the table to 90 %; the next warm key grows before it searches. When
  // that growth fails, its search fails too and the stash is full: it is refused, and
  // growth is not tried a second time (which would succeed: the failure was one
  // allocation).
  if constexpr (B == 4) {
    M map(config(8 * B, 1 << 12));
    std::uint64_t warm = kWarm;
    while (map.stash_size() < M::kStashSlots) {
      ASSERT_EQ(map.insert_outcome(key_of(warm), value_of(warm)), InsertResult::kInserted);
      ++warm;
    }
    for (std::uint64_t n = 1; map.size() * 100 < M::kGrowLoadPercent * map.capacity(); ++n) {
      ASSERT_LT(n, 10'000U) << "no keys fill the table without growing it";
      M probe = map;  // a key whose buckets are both among 0 and 1 would grow the map
      ASSERT_EQ(probe.insert_outcome(key_of(n), value_of(n)), InsertResult::kInserted);
      if (probe.stats().growths == 0) {
        ASSERT_EQ(map.insert_outcome(key_of(n), value_of(n)), InsertResult::kInserted);
      }
    }
    ASSERT_EQ(map.stats().growths, 0U);
    EXPECT_GE(for_every_failure(map, "growth before search",
                                [warm](M& m) { return insert_moved(m, warm); }),
              2U);
    M grown = map;
    ASSERT_EQ(grown.insert_outcome(key_of(warm), value_of(warm)), InsertResult::kInserted);
    EXPECT_EQ(grown.stats().growths, 1U) << "with no failure, the warm key grows the map";
  }
  // reserve: the rebuild allocates; a failure answers false and changes nothing.
  {
    M map(config(64, 1 << 14));
    for (std::uint64_t n = 0; n < 20; ++n) {
      ASSERT_EQ(map.insert_outcome(key_of(n), value_of(n)), InsertResult::kInserted);
    }
    EXPECT_GE(for_every_failure(map, "reserve",
                                [](M& m) { return !armed([&] { return m.reserve(2000); }); }),
              4U);
  }
  // try_emplace and operator[] on a map whose next insert grows.
  {
    M map(config(64, 1 << 12));
    for (std::uint64_t n = 0; n < 20; ++n) {
      ASSERT_EQ(map.insert_outcome(key_of(n), value_of(n)), InsertResult::kInserted);
    }
    EXPECT_GT(for_every_failure(map, "try_emplace", [](M& m) {
      std::string key = key_of(500);
      const InsertResult r = armed([&] { return m.try_emplace_outcome(std::move(key), 50, 'x'); });
      if (r == InsertResult::kInserted) return false;
      EXPECT_EQ(r, InsertResult::kFull);
      EXPECT_EQ(key, key_of(500)) << "a refused try_emplace took the key";
      return true;
    }), 0U) << "the value (50 characters) allocates";
    for_every_failure(map, "operator[]", [](M& m) {
      std::string key = key_of(501);
      try {
        armed([&] { m[std::move(key)] = "v"; });  // a short value: the assignment allocates nothing
      } catch (const std::length_error&) {
        EXPECT_EQ(key, key_of(501)) << "a refused operator[] took the key";
        return true;
      }
      return false;
    });
  }
}

TEST(CuckooMapAllocationFailure, EveryInsertPathB4) { every_insert_path<4>(); }
TEST(CuckooMapAllocationFailure, EveryInsertPathB1) { every_insert_path<1>(); }

// The striped map cannot be copied: each attempt rebuilds the same map from scratch
// (disarmed), then runs one insert armed. Its per-thread search buffers persist across
// calls, so each scenario runs on a fresh thread to make the search allocate again.
template <unsigned B>
void striped_every_insert_path() {
  SCOPED_TRACE("SlotsPerBucket=" + std::to_string(B));
  using M = cuckoo::StripedConcurrentMap<std::string, std::string, B, HotHasher>;
  // (items inserted first, the key inserted armed, max_capacity, copy or move the
  // arguments, a label). Moves allocate nothing on the fast path; copies of the long
  // value do.
  struct Scenario {
    std::uint64_t first_item, items, key;
    std::size_t max_capacity;
    bool copy;
    const char* what;
  };
  const Scenario scenarios[] = {
      {1, 1, 2, 1 << 12, true, "fast path (copy)"},
      {kHot, 2 * B, kHot + 2 * B, 1 << 12, false, "growth (hot pair full)"},
      {kHot, 2 * B, kHot + 2 * B, 1 << 12, true, "growth (hot pair full, copy)"},
      {1, 16 * B, 7777, 8 * B, true, "full table, no growth (copy)"},
  };
  for (const Scenario& sc : scenarios) {
    std::size_t failures_injected = 0;
    std::thread([&] {
      for (std::size_t n = 1; n < kMaxAllocationsPerOp; ++n) {
        M map(config(8 * B, sc.max_capacity));
        std::vector<std::uint64_t> stored;
        for (std::uint64_t k = sc.first_item; k < sc.first_item + sc.items; ++k) {
          if (map.insert(key_of(k), value_of(k)) == InsertResult::kInserted) stored.push_back(k);
        }
        const std::size_t size_before = map.size();
        std::string key = key_of(sc.key);
        std::string value = value_of(sc.key);
        g_next_fail_at = n;
        g_failed = false;
        const InsertResult r = armed([&] {
          return sc.copy ? map.insert(std::as_const(key), std::as_const(value))
                         : map.insert(std::move(key), std::move(value));
        });
        const std::string attempt =
            std::string(sc.what) + ", allocation " + std::to_string(n) + " failing";
        EXPECT_EQ(map.check_invariants(), "") << attempt;
        if (!g_failed) return;  // completed with no failure: every N was tried
        ++failures_injected;
        if (r == InsertResult::kInserted) continue;  // the failure hit a step that had a fallback
        EXPECT_EQ(r, InsertResult::kFull) << attempt;
        EXPECT_EQ(map.size(), size_before) << attempt;
        EXPECT_EQ(key, key_of(sc.key)) << attempt << ": a refused insert took the key";
        EXPECT_EQ(value, value_of(sc.key)) << attempt << ": a refused insert took the value";
        for (std::uint64_t k : stored) {
          if (map.find(key_of(k)) != std::optional<std::string>(value_of(k))) {
            ADD_FAILURE() << attempt << ": lost key " << k;
          }
        }
        if (::testing::Test::HasFailure()) return;
      }
    }).join();
    EXPECT_GT(failures_injected, 0U) << sc.what << ": the insert allocated nothing";
  }
}

TEST(StripedMapAllocationFailure, EveryInsertPathB4) { striped_every_insert_path<4>(); }
TEST(StripedMapAllocationFailure, EveryInsertPathB1) { striped_every_insert_path<1>(); }

}  // namespace
