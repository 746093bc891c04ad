// Tests of the concurrent cuckoo filters (concurrent_filter.hpp): the three designs, the
// coarse one under every HTM backend, against the multiset model single-threaded (exact
// at the level of fingerprint classes, see ClassModel), the copy limit, failed inserts,
// configuration errors, placement agreement with CuckooFilter, and small multithreaded
// no-false-negative tests; plus the striped design's parts (atomic bucket table, lock
// stripes, optimistic read, path search). Every randomized test uses a fixed seed and
// reports it on failure; multithreaded tests run under a watchdog that names the test
// and variant if they deadlock. Linearizability under concurrency is checked by
// stress/tests/concurrent_filter_stress_test.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <barrier>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "cuckoo/concurrent_filter.hpp"
#include "cuckoo/cuckoo_filter.hpp"
#include "cuckoo/detail/concurrent_filter_path.hpp"
#include "cuckoo/detail/concurrent_filter_table.hpp"
#include "cuckoo/detail/rng.hpp"
#include "cuckoo/lock_free_filter.hpp"
#include "cuckoo/sync/htm.hpp"
#include "support/watchdog.hpp"

namespace {

using cuckoo::test::current_test_name;
using cuckoo::test::Watchdog;

using cuckoo::BasicCuckooFilter;
using cuckoo::CoarseConcurrentFilter;
using cuckoo::CoarseElided;
using cuckoo::ConcurrentFilter;
using cuckoo::ConcurrentFilterDesign;
using cuckoo::ConcurrentFilterLike;
using cuckoo::ConfigError;
using cuckoo::CuckooFilter;
using cuckoo::CuckooFilterConfig;
using cuckoo::CuckooFilterPlacement;
using cuckoo::InsertResult;
using cuckoo::StripedConcurrentFilter;
using cuckoo::StripedFilterOptions;
using cuckoo::StripedLocks;
using cuckoo::detail::AtomicBucketTable;
using cuckoo::detail::Rng;
using cuckoo::sync::HtmPolicy;
using cuckoo::sync::HtmStatus;
using cuckoo::sync::ScriptEnd;

static_assert(std::is_same_v<ConcurrentFilter<CoarseElided>, CoarseConcurrentFilter>);
static_assert(std::is_same_v<ConcurrentFilter<StripedLocks>, StripedConcurrentFilter>);
static_assert(ConcurrentFilterLike<CoarseConcurrentFilter>);
static_assert(ConcurrentFilterLike<StripedConcurrentFilter>);
static_assert(std::is_same_v<ConcurrentFilter<cuckoo::LockFreeKcas>, cuckoo::LockFreeFilter>);
static_assert(ConcurrentFilterLike<cuckoo::LockFreeFilter>);
static_assert(!ConcurrentFilterLike<CuckooFilter>);  // copyable, no kDesign

CuckooFilterConfig make_config(std::uint64_t capacity, unsigned f, unsigned b, std::uint64_t seed,
                               unsigned max_kicks = 500) {
  CuckooFilterConfig c;
  c.capacity = capacity;
  c.fingerprint_bits = f;
  c.slots_per_bucket = b;
  c.max_kicks = max_kicks;
  c.seed = seed;
  return c;
}

// ------------------------------------------------------------- the filters under test

// The three designs (and the coarse one under every backend) behind one virtual interface,
// so that one parameterized suite runs every case against every variant.
class AnyFilter {
 public:
  virtual ~AnyFilter() = default;
  virtual InsertResult insert_hash(std::uint64_t h) = 0;
  virtual bool contains_hash(std::uint64_t h) const = 0;
  virtual bool erase_hash(std::uint64_t h) = 0;
  virtual std::uint64_t size() const = 0;
  virtual unsigned stash_size() const = 0;
  virtual unsigned stash_slots() const = 0;
  virtual void clear() = 0;
  virtual std::uint64_t hash_of(std::uint64_t key) const = 0;
  virtual CuckooFilterPlacement placement_of_hash(std::uint64_t h) const = 0;
  virtual unsigned max_copies_of_hash(std::uint64_t h) const = 0;
  virtual std::uint32_t bucket_count() const = 0;
  virtual std::string describe() const = 0;
  // Checks the design-specific counters after a workload (no-op by default).
  virtual void expect_paths_taken(const std::string& /*context*/) const {}
  // Items moved between buckets so far (striped: path hops; coarse: kicks).
  virtual std::uint64_t moves() const = 0;
  virtual std::string stats_line() const = 0;
};

template <ConcurrentFilterLike F>
class AnyFilterOf : public AnyFilter {
 public:
  template <class... Args>
  explicit AnyFilterOf(std::string name, Args&&... args)
      : name_(std::move(name)), filter_(std::forward<Args>(args)...) {}

  InsertResult insert_hash(std::uint64_t h) override { return filter_.insert_hash(h); }
  bool contains_hash(std::uint64_t h) const override { return filter_.contains_hash(h); }
  bool erase_hash(std::uint64_t h) override { return filter_.erase_hash(h); }
  std::uint64_t size() const override { return filter_.size(); }
  unsigned stash_size() const override { return filter_.stash_size(); }
  unsigned stash_slots() const override { return F::kStashSlots; }
  void clear() override { filter_.clear(); }
  std::uint64_t hash_of(std::uint64_t key) const override { return filter_.hash_of(key); }
  CuckooFilterPlacement placement_of_hash(std::uint64_t h) const override {
    return filter_.placement_of_hash(h);
  }
  unsigned max_copies_of_hash(std::uint64_t h) const override {
    return filter_.max_copies_of_hash(h);
  }
  std::uint32_t bucket_count() const override { return filter_.bucket_count(); }
  std::string describe() const override {
    return name_ + " (" + std::string(to_string(F::kDesign)) + ", seed " +
           std::to_string(filter_.seed()) + ")";
  }
  void expect_paths_taken(const std::string& context) const override {
    if constexpr (F::kDesign == ConcurrentFilterDesign::kCoarseElided) {
      const cuckoo::sync::ElisionStats s = filter_.elision_stats();
      switch (filter_.effective_backend()) {
        case cuckoo::sync::HtmBackend::kDisabled:
        case cuckoo::sync::HtmBackend::kAlwaysAbort:
          EXPECT_EQ(s.transactions(), 0U) << context;
          EXPECT_GT(s.fallbacks(), 0U) << context;
          break;
        case cuckoo::sync::HtmBackend::kScripted:
        case cuckoo::sync::HtmBackend::kRandom:
          EXPECT_GT(s.transactions(), 0U) << context;
          EXPECT_GT(s.fallbacks() + s.retries, 0U) << context;
          break;
        case cuckoo::sync::HtmBackend::kSerialEmulation:
        case cuckoo::sync::HtmBackend::kHardware:
          // Hardware transactions may all abort on a busy machine; emulated ones
          // always start.
          EXPECT_GT(s.transactions() + s.fallbacks(), 0U) << context;
          if (filter_.effective_backend() == cuckoo::sync::HtmBackend::kSerialEmulation) {
            EXPECT_GT(s.transactions(), 0U) << context;
          }
          break;
      }
    } else {
      EXPECT_GT(filter_.stats().inserts, 0U) << context;
    }
  }

  std::uint64_t moves() const override {
    if constexpr (F::kDesign == ConcurrentFilterDesign::kCoarseElided) {
      return filter_.filter_stats().kicks;
    } else {
      return filter_.stats().path_hops;
    }
  }
  std::string stats_line() const override {
    if constexpr (F::kDesign == ConcurrentFilterDesign::kCoarseElided) {
      const cuckoo::sync::ElisionStats e = filter_.elision_stats();
      const cuckoo::CuckooFilterStats f = filter_.filter_stats();
      return "kicks " + std::to_string(f.kicks) + ", stash entries made " +
             std::to_string(f.kick_failures) + ", transactions " +
             std::to_string(e.transactions()) + ", fallbacks " + std::to_string(e.fallbacks()) +
             ", retries " + std::to_string(e.retries);
    } else if constexpr (F::kDesign == ConcurrentFilterDesign::kLockFreeKcas) {
      const cuckoo::LockFreeFilterStats f = filter_.stats();
      return "path searches " + std::to_string(f.path_searches) + ", hops " +
             std::to_string(f.path_hops) + ", path retries " + std::to_string(f.path_retries) +
             ", update retries " + std::to_string(f.update_retries) + ", lookup retries " +
             std::to_string(f.lookup_retries);
    } else {
      const cuckoo::StripedFilterStats f = filter_.stats();
      return "path searches " + std::to_string(f.path_searches) + ", hops " +
             std::to_string(f.path_hops) + ", path retries " + std::to_string(f.path_retries) +
             ", stash inserts " + std::to_string(f.stash_inserts) + ", rehomes " +
             std::to_string(f.stash_rehomes) + ", optimistic retries " +
             std::to_string(f.optimistic_retries) + ", locked reads " +
             std::to_string(f.locked_reads);
    }
  }

  F& get() { return filter_; }

 private:
  std::string name_;
  F filter_;
};

struct Variant {
  std::string name;
  std::function<std::unique_ptr<AnyFilter>(const CuckooFilterConfig&)> make;
};

void PrintTo(const Variant& v, std::ostream* os) { *os << v.name; }

// A script that exercises every retry decision of the elided lock, then repeats.
std::vector<HtmStatus> mixed_script() {
  return {HtmStatus::make_started(),      HtmStatus::make_conflict(true),
          HtmStatus::make_started(),      HtmStatus::make_capacity(),
          HtmStatus(HtmStatus::kRetry),   HtmStatus::make_conflict(false),
          HtmStatus::make_started(),      HtmStatus::make_conflict(true),
          HtmStatus::make_conflict(true), HtmStatus::make_conflict(true),
          HtmStatus::make_conflict(true), HtmStatus::make_conflict(true)};
}

constexpr std::uint64_t kRandomHtmSeed = 0x5eed'4017ULL;

std::vector<std::pair<std::string, std::function<HtmPolicy()>>> htm_backends() {
  return {
      {"hardware", [] { return HtmPolicy::hardware(); }},
      {"disabled", [] { return HtmPolicy::disabled(); }},
      {"always_abort_retryable",
       [] { return HtmPolicy::always_abort(HtmStatus::make_conflict(true)); }},
      {"always_abort_capacity", [] { return HtmPolicy::always_abort(HtmStatus::make_capacity()); }},
      {"scripted", [] { return HtmPolicy::scripted(mixed_script(), ScriptEnd::kRepeat); }},
      {"random", [] { return HtmPolicy::random(0.5, kRandomHtmSeed); }},
      {"serial_emulation", [] { return HtmPolicy::serial_emulation(); }},
  };
}

std::vector<Variant> all_variants() {
  std::vector<Variant> out;
  for (const auto& [name, policy] : htm_backends()) {
    out.push_back({"coarse_" + name, [name = name, policy = policy](const CuckooFilterConfig& c) {
                     return std::unique_ptr<AnyFilter>(
                         new AnyFilterOf<CoarseConcurrentFilter>("coarse_" + name, c, policy()));
                   }});
  }
  for (const std::size_t stripes : {std::size_t{0}, std::size_t{1}, std::size_t{2}}) {
    const std::string name =
        "striped_" + (stripes == 0 ? std::string("auto") : std::to_string(stripes)) + "_stripes";
    out.push_back({name, [name, stripes](const CuckooFilterConfig& c) {
                     StripedFilterOptions options;
                     options.stripes = stripes;
                     return std::unique_ptr<AnyFilter>(
                         new AnyFilterOf<StripedConcurrentFilter>(name, c, options));
                   }});
  }
  // Every shape of the suite fits a lock-free bucket (b = 8 with f >= 25 would not).
  out.push_back({"lock_free", [](const CuckooFilterConfig& c) {
                   return std::unique_ptr<AnyFilter>(new AnyFilterOf<cuckoo::LockFreeFilter>("lock_free", c));
                 }});
  return out;
}

class ConcurrentFilterTest : public ::testing::TestWithParam<Variant> {
 protected:
  // coarse_hardware without RTM would run the disabled backend a second time: skip it.
  void SetUp() override {
    if (GetParam().name == "coarse_hardware" && !cuckoo::sync::hardware_rtm_available()) {
      GTEST_SKIP() << "no hardware RTM in this build or on this CPU; coarse_disabled and the "
                      "emulated backends cover the fallback path";
    }
  }
  std::unique_ptr<AnyFilter> make(const CuckooFilterConfig& c) const { return GetParam().make(c); }
};

// ------------------------------------------------------------------------ the model

// Items are indistinguishable to a cuckoo filter iff they have the same fingerprint and
// the same bucket pair (equal fingerprints have equal alternates, so sharing one bucket
// means sharing both). At the level of these classes the filter is an EXACT multiset:
// contains(x) iff x's class has a copy, erase(x) succeeds iff it has one, insert(x) is
// refused with kDuplicateLimit iff the class holds max_copies. So the single-threaded
// model below is exact, with no false-positive allowance; kFull is the one outcome it
// cannot predict (it depends on the kick strategy), and it must change nothing.
struct ClassKey {
  std::uint32_t fingerprint;
  std::uint32_t low_bucket;
  friend auto operator<=>(const ClassKey&, const ClassKey&) = default;
};

ClassKey class_of(const CuckooFilterPlacement& p) {
  return {p.fingerprint, std::min(p.bucket1, p.bucket2)};
}

struct Workload {
  std::uint64_t capacity;
  unsigned f;
  unsigned b;
  unsigned max_kicks;
  std::uint64_t key_range;
};

// Runs `ops` random operations against the filter and the two models: the key-level
// std::multiset (C1: a present key is found; erase of an inserted key succeeds) and the
// class-level exact multiset.
void run_model_workload(AnyFilter& filter, std::uint64_t seed, std::uint64_t key_range,
                        unsigned ops) {
  Rng rng(seed);
  std::multiset<std::uint64_t> keys;     // key-level model
  std::map<ClassKey, unsigned> classes;  // class-level model
  std::uint64_t fulls = 0;
  std::uint64_t duplicate_limits = 0;
  for (unsigned i = 0; i < ops; ++i) {
    const std::uint64_t pick = rng.below(100);
    std::uint64_t key = rng.below(key_range);
    if (pick >= 50 && pick < 75 && !keys.empty()) {
      // Erase an inserted key (the filter precondition): the k-th smallest present key.
      auto it = keys.begin();
      std::advance(it, static_cast<long>(rng.below(keys.size())));
      key = *it;
    }
    const std::uint64_t h = filter.hash_of(key);
    const CuckooFilterPlacement p = filter.placement_of_hash(h);
    unsigned& count = classes[class_of(p)];
    const std::string where = "op " + std::to_string(i) + " key " + std::to_string(key);
    if (pick < 50) {
      const std::uint64_t size_before = filter.size();
      const InsertResult r = filter.insert_hash(h);
      switch (r) {
        case InsertResult::kInserted:
          ASSERT_LT(count, filter.max_copies_of_hash(h)) << where << ": inserted past the limit";
          ++count;
          keys.insert(key);
          break;
        case InsertResult::kDuplicateLimit:
          ASSERT_EQ(count, filter.max_copies_of_hash(h)) << where << ": early duplicate_limit";
          ++duplicate_limits;
          break;
        case InsertResult::kFull:
          ASSERT_EQ(filter.size(), size_before) << where << ": kFull changed the size";
          ASSERT_EQ(filter.stash_size(), filter.stash_slots())
              << where << ": kFull while the stash has room";
          ++fulls;
          break;
        default:
          FAIL() << where << ": unexpected " << to_string(r);
      }
    } else if (pick < 75) {
      const bool erased = filter.erase_hash(h);
      ASSERT_EQ(erased, count > 0) << where << ": erase";
      if (erased) {
        --count;
        // The erased key was drawn from the present keys (or the model is empty and
        // count > 0 cannot hold).
        const auto it = keys.find(key);
        ASSERT_NE(it, keys.end()) << where << ": erased a key never inserted";
        keys.erase(it);
      }
    } else {
      const bool found = filter.contains_hash(h);
      ASSERT_EQ(found, count > 0) << where << ": contains (class-level model)";
      if (keys.count(key) > 0) {
        ASSERT_TRUE(found) << where << ": false negative (C1)";
      }
    }
    ASSERT_EQ(filter.size(), keys.size()) << where << ": size";
  }
  // Every present key is found at the end (C1), every absent class is not.
  for (const std::uint64_t key : keys) {
    ASSERT_TRUE(filter.contains_hash(filter.hash_of(key))) << "final: key " << key;
  }
  if (::testing::Test::HasFailure()) {
    std::printf("  workload seed %llu: %llu kFull, %llu kDuplicateLimit\n",
                static_cast<unsigned long long>(seed), static_cast<unsigned long long>(fulls),
                static_cast<unsigned long long>(duplicate_limits));
  }
}

// ------------------------------------------------------------ single-threaded semantics

TEST_P(ConcurrentFilterTest, AgreesWithTheMultisetModelOnRandomWorkloads) {
  const Workload workloads[] = {
      {16, 4, 1, 20, 24},    {32, 4, 2, 500, 40},   {64, 8, 4, 500, 96},
      {128, 12, 4, 30, 160}, {64, 16, 8, 500, 80},  {40, 32, 2, 500, 60},
      {48, 6, 4, 8, 70},     {200, 12, 1, 500, 150}};
  std::uint64_t seed = 0xc0ffee'0000ULL;
  for (const Workload& w : workloads) {
    ++seed;
    const std::unique_ptr<AnyFilter> filter = make(make_config(w.capacity, w.f, w.b, seed, w.max_kicks));
    SCOPED_TRACE(filter->describe() + " f=" + std::to_string(w.f) + " b=" + std::to_string(w.b) +
                 " capacity=" + std::to_string(w.capacity) + " workload seed=" + std::to_string(seed));
    run_model_workload(*filter, seed, w.key_range, 3000);
    if (HasFatalFailure()) return;
    filter->expect_paths_taken(filter->describe());
  }
}

TEST_P(ConcurrentFilterTest, HoldsAtMostMaxCopiesAndEraseRemovesOneCopy) {
  for (const unsigned b : {1U, 2U, 4U, 8U}) {
    const std::unique_ptr<AnyFilter> filter = make(make_config(64 * b, 12, b, 7 + b));
    SCOPED_TRACE(filter->describe() + " b=" + std::to_string(b));
    // One item with two buckets and, found by search, one whose buckets coincide.
    std::optional<std::uint64_t> two_buckets;
    std::optional<std::uint64_t> one_bucket;
    for (std::uint64_t key = 0; key < 100000 && !(two_buckets && one_bucket); ++key) {
      const std::uint64_t h = filter->hash_of(key);
      const CuckooFilterPlacement p = filter->placement_of_hash(h);
      (p.bucket1 == p.bucket2 ? one_bucket : two_buckets) = h;
    }
    ASSERT_TRUE(two_buckets && one_bucket);
    for (const std::uint64_t h : {*two_buckets, *one_bucket}) {
      const unsigned limit = filter->max_copies_of_hash(h);
      const CuckooFilterPlacement p = filter->placement_of_hash(h);
      EXPECT_EQ(limit, p.bucket1 == p.bucket2 ? b : 2 * b);
      for (unsigned i = 0; i < limit; ++i) {
        ASSERT_EQ(filter->insert_hash(h), InsertResult::kInserted) << "copy " << i;
      }
      EXPECT_EQ(filter->insert_hash(h), InsertResult::kDuplicateLimit);
      EXPECT_EQ(filter->size(), limit);
      for (unsigned i = 0; i < limit; ++i) {
        ASSERT_TRUE(filter->contains_hash(h)) << "copies left " << limit - i;
        ASSERT_TRUE(filter->erase_hash(h)) << "copy " << i;
        EXPECT_EQ(filter->size(), limit - i - 1);
      }
      EXPECT_FALSE(filter->contains_hash(h));
      EXPECT_FALSE(filter->erase_hash(h));
    }
  }
}

TEST_P(ConcurrentFilterTest, FailedInsertLosesNothingAndTheStashDrains) {
  for (const unsigned b : {1U, 2U, 4U}) {
    // Two buckets: every item shares them, so the table fills at 2b items, then the
    // stash, then inserts fail.
    const std::unique_ptr<AnyFilter> filter = make(make_config(2 * b, 16, b, 99, 50));
    SCOPED_TRACE(filter->describe() + " b=" + std::to_string(b));
    std::vector<std::uint64_t> stored;
    std::set<ClassKey> seen;
    unsigned fulls = 0;
    for (std::uint64_t key = 0; key < 2000 && fulls < 5; ++key) {
      const std::uint64_t h = filter->hash_of(key);
      if (!seen.insert(class_of(filter->placement_of_hash(h))).second) continue;  // distinct classes
      const std::uint64_t size_before = filter->size();
      const InsertResult r = filter->insert_hash(h);
      if (r == InsertResult::kInserted) {
        stored.push_back(h);
      } else {
        ASSERT_EQ(r, InsertResult::kFull);
        ++fulls;
        EXPECT_EQ(filter->size(), size_before);
        EXPECT_EQ(filter->stash_size(), filter->stash_slots());
        EXPECT_FALSE(filter->contains_hash(h)) << "a refused item must not be stored";
      }
      for (const std::uint64_t s : stored) ASSERT_TRUE(filter->contains_hash(s)) << "lost an item";
    }
    ASSERT_EQ(fulls, 5U);
    EXPECT_EQ(stored.size(), 2 * b + filter->stash_slots());
    for (const std::uint64_t s : stored) {
      ASSERT_TRUE(filter->erase_hash(s));
      EXPECT_FALSE(filter->contains_hash(s));
    }
    EXPECT_EQ(filter->size(), 0U);
    EXPECT_EQ(filter->stash_size(), 0U) << "erases must drain the stash";
  }
}

TEST_P(ConcurrentFilterTest, ClearEmptiesAndTheFilterStaysUsable) {
  const std::unique_ptr<AnyFilter> filter = make(make_config(256, 12, 4, 5));
  SCOPED_TRACE(filter->describe());
  for (std::uint64_t key = 0; key < 200; ++key) (void)filter->insert_hash(filter->hash_of(key));
  EXPECT_GT(filter->size(), 0U);
  filter->clear();
  EXPECT_EQ(filter->size(), 0U);
  EXPECT_EQ(filter->stash_size(), 0U);
  for (std::uint64_t key = 0; key < 200; ++key) {
    // Absent now: only false positives could answer yes; with f = 12 and an empty
    // table there are none at all.
    EXPECT_FALSE(filter->contains_hash(filter->hash_of(key))) << key;
  }
  EXPECT_EQ(filter->insert_hash(filter->hash_of(1)), InsertResult::kInserted);
  EXPECT_TRUE(filter->contains_hash(filter->hash_of(1)));
  EXPECT_EQ(filter->size(), 1U);
}

TEST_P(ConcurrentFilterTest, PlacementMatchesTheSingleThreadedFilter) {
  for (const unsigned f : {4U, 9U, 12U, 16U, 32U}) {
    for (const std::uint64_t capacity : {1ULL, 7ULL, 1000ULL, 123457ULL}) {
      const CuckooFilterConfig c = make_config(capacity, f, 4, 1234 + f);
      const std::unique_ptr<AnyFilter> filter = make(c);
      const CuckooFilter reference(c);
      ASSERT_EQ(filter->bucket_count(), reference.bucket_count());
      Rng rng(f * capacity);
      for (int i = 0; i < 2000; ++i) {
        const std::uint64_t key = rng.next();
        const std::uint64_t h = filter->hash_of(key);
        ASSERT_EQ(h, reference.hash_of(key));
        ASSERT_EQ(filter->placement_of_hash(h), reference.placement_of_hash(h))
            << filter->describe() << " f=" << f << " capacity=" << capacity << " hash " << h;
        ASSERT_EQ(filter->max_copies_of_hash(h), reference.max_copies_of_hash(h));
      }
    }
  }
}

// ------------------------------------------------------------------- multithreaded

// Each thread inserts its own keys and checks them at once (while the others insert and
// move items along cuckoo paths), then every thread checks every stored key; then each
// erases half of its keys and all check that the other half is still there.
TEST_P(ConcurrentFilterTest, OwnKeysHaveNoFalseNegativesAcrossThreads) {
  constexpr unsigned kThreads = 4;
  constexpr std::uint64_t kKeysPerThread = 900;
  // 3600 keys in 4096 slots (b = 4): about 88% load, so paths and kicks are common.
  const std::unique_ptr<AnyFilter> filter = make(make_config(4096, 12, 4, 0xabc));
  const std::string context = filter->describe();
  const Watchdog watchdog(current_test_name() + " " + context);
  std::array<std::vector<std::uint64_t>, kThreads> stored;  // hashes that got kInserted
  std::atomic<std::uint64_t> false_negatives{0};
  std::atomic<std::uint64_t> first_missing{0};
  std::barrier sync(kThreads);
  auto note_missing = [&](std::uint64_t h) {
    if (false_negatives.fetch_add(1, std::memory_order_relaxed) == 0) {
      first_missing.store(h, std::memory_order_relaxed);
    }
  };
  auto worker = [&](unsigned t) {
    std::vector<std::uint64_t>& mine = stored[t];
    for (std::uint64_t i = 0; i < kKeysPerThread; ++i) {
      const std::uint64_t h = filter->hash_of(t * kKeysPerThread + i);
      if (filter->insert_hash(h) == InsertResult::kInserted) mine.push_back(h);
      if (i % 16 == 15) {
        for (const std::uint64_t s : mine) {
          if (!filter->contains_hash(s)) note_missing(s);
        }
      }
    }
    sync.arrive_and_wait();
    for (const auto& theirs : stored) {  // the barrier ordered their writes before this
      for (const std::uint64_t s : theirs) {
        if (!filter->contains_hash(s)) note_missing(s);
      }
    }
    sync.arrive_and_wait();
    for (std::size_t i = 0; i < mine.size(); i += 2) {
      if (!filter->erase_hash(mine[i])) note_missing(mine[i]);
    }
    sync.arrive_and_wait();
    for (const auto& theirs : stored) {
      for (std::size_t i = 1; i < theirs.size(); i += 2) {
        if (!filter->contains_hash(theirs[i])) note_missing(theirs[i]);
      }
    }
  };
  std::vector<std::thread> threads;
  for (unsigned t = 0; t < kThreads; ++t) threads.emplace_back(worker, t);
  for (std::thread& th : threads) th.join();
  EXPECT_EQ(false_negatives.load(), 0U)
      << context << ": first missing hash " << first_missing.load();
  std::uint64_t kept = 0;
  std::uint64_t inserted = 0;
  for (const auto& mine : stored) {
    kept += mine.size() / 2;
    inserted += mine.size();
  }
  EXPECT_EQ(filter->size(), kept) << context;
  EXPECT_GT(inserted, kThreads * kKeysPerThread * 9 / 10) << context << ": too many kFull";
}

// Readers look up a fixed set of stable keys without pause while writers insert and
// erase their own churn keys in a nearly full table, moving stable items between their
// buckets along cuckoo paths. A stable key must never be reported absent.
TEST_P(ConcurrentFilterTest, StableKeysSurviveConcurrentChurn) {
  constexpr unsigned kWriters = 2;
  constexpr unsigned kReaders = 2;
  constexpr std::uint64_t kStable = 600;
  constexpr std::uint64_t kChurnPerWriter = 200;
  constexpr unsigned kRounds = 12;
  // 600 stable + up to 400 churn items in 1024 slots, b = 2: about 60-98% load.
  const std::unique_ptr<AnyFilter> filter = make(make_config(1024, 16, 2, 0x57ab1e));
  const std::string context = filter->describe();
  const Watchdog watchdog(current_test_name() + " " + context);
  std::vector<std::uint64_t> stable;
  for (std::uint64_t key = 0; stable.size() < kStable; ++key) {
    const std::uint64_t h = filter->hash_of(key);
    if (filter->insert_hash(h) == InsertResult::kInserted) stable.push_back(h);
  }
  std::atomic<std::uint64_t> false_negatives{0};
  std::atomic<unsigned> writers_done{0};
  std::atomic<std::uint64_t> lookups{0};
  auto writer = [&](unsigned w) {
    Rng rng(0x1000 + w);
    std::vector<std::uint64_t> mine;
    for (unsigned round = 0; round < kRounds; ++round) {
      for (std::uint64_t i = 0; i < kChurnPerWriter; ++i) {
        const std::uint64_t h = filter->hash_of((std::uint64_t{w + 1} << 40) | rng.next() >> 24);
        if (filter->insert_hash(h) == InsertResult::kInserted) mine.push_back(h);
      }
      for (const std::uint64_t h : mine) {
        if (!filter->erase_hash(h)) false_negatives.fetch_add(1, std::memory_order_relaxed);
      }
      mine.clear();
    }
    writers_done.fetch_add(1, std::memory_order_release);
  };
  auto reader = [&](unsigned r) {
    std::uint64_t n = 0;
    // Bound: until the writers finish (they do a bounded number of operations).
    while (writers_done.load(std::memory_order_acquire) < kWriters) {
      for (std::size_t i = r; i < stable.size(); i += kReaders) {
        if (!filter->contains_hash(stable[i])) false_negatives.fetch_add(1, std::memory_order_relaxed);
        ++n;
      }
    }
    lookups.fetch_add(n, std::memory_order_relaxed);
  };
  std::vector<std::thread> threads;
  for (unsigned w = 0; w < kWriters; ++w) threads.emplace_back(writer, w);
  for (unsigned r = 0; r < kReaders; ++r) threads.emplace_back(reader, r);
  for (std::thread& th : threads) th.join();
  EXPECT_EQ(false_negatives.load(), 0U) << context << " after " << lookups.load() << " lookups";
  std::printf("  %s: %llu lookups; %s\n", context.c_str(),
              static_cast<unsigned long long>(lookups.load()), filter->stats_line().c_str());
  EXPECT_GT(filter->moves(), 0U) << context << ": the churn moved no item; the test is vacuous";
  EXPECT_EQ(filter->size(), kStable) << context;
  for (const std::uint64_t h : stable) ASSERT_TRUE(filter->contains_hash(h)) << context;
}

INSTANTIATE_TEST_SUITE_P(AllDesigns, ConcurrentFilterTest, ::testing::ValuesIn(all_variants()),
                         [](const ::testing::TestParamInfo<Variant>& param) { return param.param.name; });

// ---------------------------------------------------------------- configuration

template <class Make>
void expect_config_error(Make make, const std::string& field) {
  try {
    make();
    ADD_FAILURE() << "no ConfigError; expected field " << field;
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.field(), field) << e.what();
  }
}

TEST(ConcurrentFilterConfig, InvalidConfigurationsNameTheField) {
  const std::pair<CuckooFilterConfig, std::string> bad[] = {
      {make_config(100, 3, 4, 1), "fingerprint_bits"},
      {make_config(100, 33, 4, 1), "fingerprint_bits"},
      {make_config(100, 12, 3, 1), "slots_per_bucket"},
      {make_config(0, 12, 4, 1), "capacity"},
      {make_config(std::uint64_t{1} << 40, 12, 4, 1), "capacity"},
      {make_config(100, 12, 4, 1, 0), "max_kicks"},
  };
  for (const auto& entry : bad) {
    const CuckooFilterConfig& config = entry.first;
    expect_config_error([&] { const CoarseConcurrentFilter f(config); }, entry.second);
    expect_config_error([&] { const StripedConcurrentFilter f(config); }, entry.second);
  }
  expect_config_error(
      [] { const CoarseConcurrentFilter f(make_config(100, 12, 4, 1), HtmPolicy::random(2.0, 1)); },
      "abort_probability");
  for (const std::size_t stripes :
       {std::size_t{3}, std::size_t{6}, StripedFilterOptions::kMaxStripes * 2}) {
    StripedFilterOptions options;
    options.stripes = stripes;
    expect_config_error([&] { const StripedConcurrentFilter f(make_config(100, 12, 4, 1), options); },
                        "stripes");
  }
}

TEST(ConcurrentFilterConfig, StripeCountAndMemory) {
  // Automatic: word groups rounded up to a power of two, at most kDefaultMaxStripes.
  const StripedConcurrentFilter small(make_config(40, 12, 4, 1));  // 10 buckets, 1 a word
  EXPECT_EQ(small.stripe_count(), 16U);
  const StripedConcurrentFilter tiny_f(make_config(40, 8, 2, 1));  // 20 buckets, 4 a word
  EXPECT_EQ(tiny_f.stripe_count(), 8U);
  const StripedConcurrentFilter big(make_config(1 << 20, 12, 4, 1));
  EXPECT_EQ(big.stripe_count(), StripedFilterOptions::kDefaultMaxStripes);
  StripedFilterOptions one;
  one.stripes = 1;
  const StripedConcurrentFilter single(make_config(1000, 12, 4, 1), one);
  EXPECT_EQ(single.stripe_count(), 1U);
  for (std::uint32_t i = 0; i < single.bucket_count(); ++i) EXPECT_EQ(single.stripe_of(i), 0U);
  // Memory: 16-bit lanes for f = 12, b = 4: 8 bytes a bucket (4/3 of the packed 6).
  const StripedConcurrentFilter sized(make_config(4096, 12, 4, 1));
  EXPECT_EQ(sized.engine().table().memory_bytes(), 1024U * 8U);
  EXPECT_EQ(sized.seed(), 1U);
}

// ---------------------------------------------------------- striped design internals

TEST(AtomicBucketTable, LayoutFollowsLaneWidth) {
  struct Case {
    unsigned f, b, lane, per_word, words;
  };
  const Case cases[] = {{4, 1, 8, 8, 1},   {8, 4, 8, 2, 1},   {8, 8, 8, 1, 1},
                        {12, 4, 16, 1, 1}, {16, 2, 16, 2, 1}, {12, 8, 16, 1, 2},
                        {32, 1, 32, 2, 1}, {32, 4, 32, 1, 2}, {32, 8, 32, 1, 4}};
  for (const Case& c : cases) {
    const AtomicBucketTable t(37, c.b, c.f);
    EXPECT_EQ(t.lane_bits(), c.lane) << c.f << "/" << c.b;
    EXPECT_EQ(t.buckets_per_word(), c.per_word) << c.f << "/" << c.b;
    EXPECT_EQ(t.words_per_bucket(), c.words) << c.f << "/" << c.b;
    EXPECT_EQ(t.memory_bytes(), AtomicBucketTable::bytes_for(37, c.b, c.f));
  }
}

// The SWAR find against the per-slot reference, on random contents including empty
// slots, values that differ in one bit, and the neighbours sharing a word.
TEST(AtomicBucketTable, SwarFindMatchesReference) {
  for (const unsigned f : {4U, 5U, 8U, 12U, 16U, 20U, 32U}) {
    for (const unsigned b : {1U, 2U, 4U, 8U}) {
      AtomicBucketTable t(29, b, f);
      Rng rng(f * 100 + b);
      const std::uint32_t mask = f == 32 ? 0xffffffffU : (1U << f) - 1;
      for (std::uint32_t i = 0; i < t.bucket_count(); ++i) {
        for (unsigned s = 0; s < b; ++s) {
          const std::uint64_t r = rng.below(4);
          t.set(i, s, r == 0 ? 0 : static_cast<std::uint32_t>(rng.below(r == 1 ? 4 : mask) + 1) & mask);
        }
      }
      for (std::uint32_t i = 0; i < t.bucket_count(); ++i) {
        for (unsigned s = 0; s < b; ++s) {
          const std::uint32_t v = t.get(i, s);
          for (const std::uint32_t probe : {v, v ^ 1U, (v + 1) & mask, 0U, 1U, mask}) {
            ASSERT_EQ(t.find(i, probe), t.find_reference(i, probe))
                << "f=" << f << " b=" << b << " bucket " << i << " probe " << probe;
          }
        }
      }
      // Writing a bucket leaves its word neighbours alone.
      const std::uint32_t before = t.get(3, 0);
      t.set(2, b - 1, mask);
      t.set(4, 0, mask);
      EXPECT_EQ(t.get(3, 0), before);
    }
  }
}

// A path found in a full table is well formed: it starts at a candidate bucket, each hop
// moves to the alternate of the fingerprint it saw, and it ends at a bucket with room.
TEST(CuckooPathSearch, PathsAreWellFormed) {
  StripedFilterOptions options;
  StripedConcurrentFilter filter(make_config(256, 12, 2, 77), options);
  const auto& rule = filter.engine().rule();
  const AtomicBucketTable& table = filter.engine().table();
  std::uint64_t key = 0;
  unsigned checked = 0;
  // Fill to 80% (b = 2 reaches about 84%), where direct placement often fails; then
  // search paths for fresh items.
  while (filter.size() < 205 && key < 100000) (void)filter.insert(key++);
  for (unsigned i = 0; i < 200; ++i) {
    const CuckooFilterPlacement p = filter.placement_of_hash(filter.hash_of(key++));
    const std::optional<cuckoo::detail::CuckooPath> path =
        cuckoo::detail::find_cuckoo_path(table, rule, p, 500);
    if (!path) continue;
    ++checked;
    if (path->hops.empty()) {
      EXPECT_TRUE(path->destination == p.bucket1 || path->destination == p.bucket2);
      continue;
    }
    EXPECT_TRUE(path->hops[0].bucket == p.bucket1 || path->hops[0].bucket == p.bucket2);
    EXPECT_LE(path->hops.size(), cuckoo::detail::kMaxPathLength);
    for (std::size_t k = 0; k < path->hops.size(); ++k) {
      const cuckoo::detail::PathHop& hop = path->hops[k];
      EXPECT_EQ(table.get(hop.bucket, hop.slot), hop.fingerprint);
      EXPECT_EQ(rule.alt_bucket(hop.bucket, hop.fingerprint), path->target_of(k));
    }
    EXPECT_NE(table.find(path->destination, 0), AtomicBucketTable::kNoSlot);
  }
  EXPECT_GT(checked, 100U);
  const cuckoo::StripedFilterStats s = filter.stats();
  EXPECT_GT(s.path_searches, 0U);
  EXPECT_GT(s.path_hops, 0U);
}

TEST(ConcurrentFilterCoarse, SnapshotIsAConsistentCopy) {
  CoarseConcurrentFilter filter(make_config(512, 12, 4, 3), HtmPolicy::serial_emulation());
  for (std::uint64_t key = 0; key < 300; ++key) (void)filter.insert(key);
  const CuckooFilter copy = filter.snapshot();
  EXPECT_EQ(copy.size(), filter.size());
  for (std::uint64_t key = 0; key < 300; ++key) EXPECT_TRUE(copy.contains(key));
  const CuckooFilter round_trip = CuckooFilter::deserialize(copy.serialize());
  EXPECT_EQ(round_trip, copy);
  EXPECT_EQ(filter.filter_stats().inserts, 300U);
}

}  // namespace
