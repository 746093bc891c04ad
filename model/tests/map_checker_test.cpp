// The lock-step map checker against test doubles: correct maps (with and without a
// growth limit, and one with a pointer-returning find) pass random traces; each broken
// map is caught at the first op that shows its bug, with the right claim id; every
// report replays to the same violation.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cuckoo/model/checker.hpp"
#include "test_support.hpp"

namespace {

namespace model = cuckoo::model;
using model::InsertResult;
using model::MapModel;
using model::Op;
using model::SubjectTraits;
using model::Trace;
using model::Violation;
using model::testing::base_seed;
using model::testing::reproduce_hint;
using model::testing::TestRng;

constexpr std::size_t kUnbounded = std::numeric_limits<std::size_t>::max();
constexpr std::size_t kBoundedCapacity = 6;

// ---------------------------------------------------------------------------------
// Correct doubles
// ---------------------------------------------------------------------------------

// An exact map over std::map; with a capacity it refuses new keys when full and says so
// in its traits.
class CorrectMap {
 public:
  explicit CorrectMap(std::size_t capacity = kUnbounded) : capacity_(capacity) {}

  InsertResult insert(std::uint64_t key, std::uint64_t value) {
    if (entries_.contains(key)) return InsertResult::kExists;
    if (entries_.size() >= capacity_) return InsertResult::kFull;
    entries_.emplace(key, value);
    return InsertResult::kInserted;
  }
  InsertResult insert_or_assign(std::uint64_t key, std::uint64_t value) {
    if (const auto it = entries_.find(key); it != entries_.end()) {
      it->second = value;
      return InsertResult::kUpdated;
    }
    return insert(key, value);
  }
  std::optional<std::uint64_t> find(std::uint64_t key) const {
    const auto it = entries_.find(key);
    if (it == entries_.end()) return std::nullopt;
    return it->second;
  }
  bool contains(std::uint64_t key) const { return entries_.contains(key); }
  bool erase(std::uint64_t key) { return entries_.erase(key) == 1; }
  std::size_t size() const { return entries_.size(); }
  void clear() { entries_.clear(); }
  void serialize_roundtrip() {
    const std::vector<std::pair<std::uint64_t, std::uint64_t>> bytes(entries_.begin(), entries_.end());
    entries_ = std::map<std::uint64_t, std::uint64_t>(bytes.begin(), bytes.end());
  }
  std::string check_invariants() const { return ""; }
  SubjectTraits traits() const {
    SubjectTraits traits = model::default_map_traits();
    traits.has_growth_limit = capacity_ != kUnbounded;
    return traits;
  }

 protected:
  std::map<std::uint64_t, std::uint64_t> entries_;
  std::size_t capacity_;
};

class BoundedMap : public CorrectMap {
 public:
  BoundedMap() : CorrectMap(kBoundedCapacity) {}
};

// The minimum a map subject needs: find returns a pointer; no contains, no
// insert_or_assign, no traits, no clear, no round trip.
class PointerFindMap {
 public:
  InsertResult insert(std::uint64_t key, std::uint64_t value) {
    return entries_.try_emplace(key, value).second ? InsertResult::kInserted : InsertResult::kExists;
  }
  const std::uint64_t* find(std::uint64_t key) const {
    const auto it = entries_.find(key);
    return it == entries_.end() ? nullptr : &it->second;
  }
  bool erase(std::uint64_t key) { return entries_.erase(key) == 1; }
  std::size_t size() const { return entries_.size(); }

 private:
  std::map<std::uint64_t, std::uint64_t> entries_;
};

static_assert(model::MapSubject<CorrectMap>);
static_assert(model::MapSubject<PointerFindMap>);
static_assert(!model::FilterSubject<CorrectMap>);
static_assert(model::HasInsertOrAssign<CorrectMap> && !model::HasInsertOrAssign<PointerFindMap>);
static_assert(model::HasContains<CorrectMap> && !model::HasContains<PointerFindMap>);
static_assert(model::HasCheckInvariants<CorrectMap> && !model::HasCheckInvariants<PointerFindMap>);
static_assert(model::FoundValue<std::optional<std::uint64_t>>);
static_assert(model::FoundValue<const std::uint64_t*>);
static_assert(!model::FoundValue<std::uint64_t>);

// ---------------------------------------------------------------------------------
// Broken doubles, one bug each
// ---------------------------------------------------------------------------------

// C7: stores a key twice (insert never looks for it); find sees the first copy.
class DuplicatingMap {
 public:
  InsertResult insert(std::uint64_t key, std::uint64_t value) {
    entries_.emplace_back(key, value);
    return InsertResult::kInserted;
  }
  std::optional<std::uint64_t> find(std::uint64_t key) const {
    for (const auto& [k, v] : entries_) {
      if (k == key) return v;
    }
    return std::nullopt;
  }
  bool erase(std::uint64_t key) {
    for (auto it = entries_.begin(); it != entries_.end(); ++it) {
      if (it->first == key) {
        entries_.erase(it);
        return true;
      }
    }
    return false;
  }
  std::size_t size() const { return entries_.size(); }

 private:
  std::vector<std::pair<std::uint64_t, std::uint64_t>> entries_;
};

// C7 through the invariant hook: answers are right, but insert_or_assign of a present
// key stores a second copy (find reads the newest; erase removes all; size counts keys).
class HiddenDuplicateMap {
 public:
  InsertResult insert(std::uint64_t key, std::uint64_t value) {
    if (find(key)) return InsertResult::kExists;
    entries_.emplace_back(key, value);
    return InsertResult::kInserted;
  }
  InsertResult insert_or_assign(std::uint64_t key, std::uint64_t value) {
    const bool present = find(key).has_value();
    entries_.emplace_back(key, value);
    return present ? InsertResult::kUpdated : InsertResult::kInserted;
  }
  std::optional<std::uint64_t> find(std::uint64_t key) const {
    for (auto it = entries_.rbegin(); it != entries_.rend(); ++it) {
      if (it->first == key) return it->second;
    }
    return std::nullopt;
  }
  bool erase(std::uint64_t key) {
    const std::size_t before = entries_.size();
    std::erase_if(entries_, [key](const auto& entry) { return entry.first == key; });
    return entries_.size() != before;
  }
  std::size_t size() const {
    std::set<std::uint64_t> keys;
    for (const auto& entry : entries_) keys.insert(entry.first);
    return keys.size();
  }
  void clear() { entries_.clear(); }
  std::string check_invariants() const {
    std::map<std::uint64_t, int> copies;
    for (const auto& entry : entries_) {
      if (++copies[entry.first] == 2) return "key " + std::to_string(entry.first) + " is stored twice";
    }
    return "";
  }

 private:
  std::vector<std::pair<std::uint64_t, std::uint64_t>> entries_;
};

// C7: insert_or_assign of a present key reports kUpdated but keeps the old value.
class StaleMap : public CorrectMap {
 public:
  InsertResult insert_or_assign(std::uint64_t key, std::uint64_t value) {
    if (entries_.contains(key)) return InsertResult::kUpdated;
    return insert(key, value);
  }
};

// C7: bounded, but its traits do not admit a growth limit.
class FullWithoutTraitMap : public CorrectMap {
 public:
  FullWithoutTraitMap() : CorrectMap(2) {}
  SubjectTraits traits() const { return model::default_map_traits(); }
};

// C6: bounded; when full it drops its smallest entry and still reports kFull.
class LosesOnFullMap : public BoundedMap {
 public:
  InsertResult insert(std::uint64_t key, std::uint64_t value) {
    const InsertResult result = BoundedMap::insert(key, value);
    if (result == InsertResult::kFull) entries_.erase(entries_.begin());
    return result;
  }
};

// C7: bounded; when full it answers kFull even for a key it holds.
class FullOnExistingMap : public BoundedMap {
 public:
  InsertResult insert(std::uint64_t key, std::uint64_t value) {
    if (entries_.size() >= capacity_) return InsertResult::kFull;
    return BoundedMap::insert(key, value);
  }
};

// C11: the round trip loses the values (all read back as 0).
class RoundtripZeroesMap : public CorrectMap {
 public:
  void serialize_roundtrip() {
    for (auto& entry : entries_) entry.second = 0;
  }
};

// C7: erase removes the key but reports false.
class EraseLiesMap : public CorrectMap {
 public:
  bool erase(std::uint64_t key) {
    CorrectMap::erase(key);
    return false;
  }
};

// ---------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------

template <class Subject>
std::optional<Violation> run(std::string_view text, std::uint64_t seed = 7) {
  Subject subject;
  MapModel map;
  return model::check(subject, map, model::parse_trace(text), seed);
}

void expect_violation(const std::optional<Violation>& found, std::string_view claim,
                      std::size_t op_index, const Op& op) {
  ASSERT_TRUE(found.has_value()) << "no violation found";
  EXPECT_EQ(found->claim, claim) << model::to_string(*found);
  EXPECT_EQ(found->op_index, op_index) << model::to_string(*found);
  EXPECT_EQ(found->op, op) << model::to_string(*found);
}

// Which optional ops a random trace may use.
struct OpSet {
  bool insert_or_assign = true;
  bool clear_and_roundtrip = true;
};
constexpr OpSet kAllOps{};
constexpr OpSet kNoClearOrRoundtrip{true, false};
constexpr OpSet kMinimalOps{false, false};

Trace random_map_trace(TestRng& rng, std::size_t length, OpSet ops) {
  constexpr std::uint64_t kKeyRange = 10;
  constexpr std::uint64_t kValueRange = 4;  // small, so stale values can go unnoticed by luck
  Trace trace;
  trace.engine = "map";
  for (std::size_t i = 0; i < length; ++i) {
    const std::uint64_t key = rng.below(kKeyRange);
    const std::uint64_t value = rng.below(kValueRange);
    const std::uint64_t roll = rng.below(100);
    if (roll < 30) {
      trace.add(Op::insert(key, value));
    } else if (roll < 50 && ops.insert_or_assign) {
      trace.add(Op::insert_or_assign(key, value));
    } else if (roll < 70) {
      trace.add(Op::find(key));
    } else if (roll < 75) {
      trace.add(Op::contains(key));
    } else if (roll < 90) {
      trace.add(Op::erase(key));
    } else if (roll < 95 || !ops.clear_and_roundtrip) {
      trace.add(Op::size());
    } else if (roll < 98) {
      trace.add(Op::serialize_roundtrip());
    } else {
      trace.add(Op::clear());
    }
  }
  return trace;
}

template <class Subject>
void expect_random_traces_pass(OpSet ops) {
  const std::uint64_t seed = base_seed();
  SCOPED_TRACE(reproduce_hint(seed));
  TestRng rng(seed);
  constexpr int kTraces = 300;
  for (int i = 0; i < kTraces; ++i) {
    const Trace trace = random_map_trace(rng, 150, ops);
    Subject subject;
    MapModel map;
    const std::optional<Violation> found = model::check(subject, map, trace, seed);
    ASSERT_FALSE(found.has_value()) << model::format_violation(*found, trace);
  }
}

template <class Subject>
void expect_random_traces_catch(std::string_view name, const std::set<std::string>& claims,
                                OpSet ops) {
  const std::uint64_t seed = base_seed();
  SCOPED_TRACE(reproduce_hint(seed));
  SCOPED_TRACE(name);
  TestRng rng(seed);
  constexpr int kMaxTraces = 200;
  for (int i = 0; i < kMaxTraces; ++i) {
    const Trace trace = random_map_trace(rng, 150, ops);
    Subject subject;
    MapModel map;
    const std::optional<Violation> found = model::check(subject, map, trace, seed);
    if (!found) continue;
    EXPECT_TRUE(claims.contains(found->claim)) << model::to_string(*found);
    const std::string report = model::format_violation(*found, trace);
    const Trace replay = model::parse_trace(report);
    Subject fresh;
    MapModel fresh_map;
    EXPECT_EQ(model::check(fresh, fresh_map, replay, seed), found) << report;
    return;
  }
  ADD_FAILURE() << "no random trace caught the bug";
}

// ---------------------------------------------------------------------------------
// Correct doubles pass
// ---------------------------------------------------------------------------------

TEST(MapChecker, CorrectMapPassesRandomTraces) { expect_random_traces_pass<CorrectMap>(kAllOps); }

TEST(MapChecker, BoundedMapWithGrowthLimitPassesRandomTraces) {
  expect_random_traces_pass<BoundedMap>(kAllOps);
}

TEST(MapChecker, MinimalPointerFindMapPassesRandomTraces) {
  expect_random_traces_pass<PointerFindMap>(kMinimalOps);
}

TEST(MapChecker, AcceptsEveryOutcome) {
  EXPECT_EQ(run<CorrectMap>("engine map\n"
                            "insert 1 10\ninsert 1 11\nfind 1\ninsert_or_assign 1 12\nfind 1\n"
                            "insert_or_assign 2 0\ncontains 2\nfind 3\nerase 3\nerase 2\nsize\n"
                            "serialize_roundtrip\nfind 1\nclear\nsize\n"),
            std::nullopt);
}

// ---------------------------------------------------------------------------------
// Broken doubles are caught at the right op
// ---------------------------------------------------------------------------------

TEST(MapChecker, CatchesAKeyStoredTwice) {
  const auto found = run<DuplicatingMap>("engine map\ninsert 1 10\nfind 1\ninsert 1 20\nfind 1\n");
  expect_violation(found, "C7", 2, Op::insert(1, 20));
  EXPECT_EQ(found->expected, "exists");
  EXPECT_EQ(found->actual, "inserted");
}

TEST(MapChecker, CatchesAHiddenDuplicateThroughTheInvariantHook) {
  const auto found = run<HiddenDuplicateMap>(
      "engine map\ninsert 1 10\nfind 1\ninsert_or_assign 1 20\nfind 1\n");
  expect_violation(found, "C7", 2, Op::insert_or_assign(1, 20));
  EXPECT_EQ(found->expected, "check_invariants() passes");
  EXPECT_EQ(found->actual, "key 1 is stored twice");
}

TEST(MapChecker, CatchesAStaleValue) {
  const auto found = run<StaleMap>(
      "engine map\ninsert 1 10\ninsert_or_assign 1 20\nfind 2\nfind 1\n");
  expect_violation(found, "C7", 3, Op::find(1));
  EXPECT_EQ(found->expected, "20");
  EXPECT_EQ(found->actual, "10");
}

TEST(MapChecker, FullNeedsTheGrowthLimitTrait) {
  const auto found = run<FullWithoutTraitMap>("engine map\ninsert 1 1\ninsert 2 2\ninsert 3 3\n");
  expect_violation(found, "C7", 2, Op::insert(3, 3));
  EXPECT_EQ(found->expected, "inserted (full is allowed only with the has_growth_limit trait)");
  EXPECT_EQ(found->actual, "full");

  // The same subject passes when the caller grants the trait explicitly.
  FullWithoutTraitMap subject;
  MapModel map;
  SubjectTraits traits = model::default_map_traits();
  traits.has_growth_limit = true;
  EXPECT_EQ(model::check(subject, map,
                         model::parse_trace("engine map\ninsert 1 1\ninsert 2 2\ninsert 3 3\nfind 3\n"),
                         1, traits),
            std::nullopt);
}

TEST(MapChecker, CatchesALossOnFullAsC6) {
  std::string text = "engine map\n";
  for (int key = 1; key <= 6; ++key) text += "insert " + std::to_string(key) + " 5\n";
  text += "insert 7 5\n";
  const auto found = run<LosesOnFullMap>(text);
  expect_violation(found, "C6", 6, Op::insert(7, 5));
  EXPECT_EQ(found->expected, "size 6");
  EXPECT_EQ(found->actual, "size 5");
}

TEST(MapChecker, CatchesFullForAPresentKey) {
  std::string text = "engine map\n";
  for (int key = 1; key <= 6; ++key) text += "insert " + std::to_string(key) + " 5\n";
  text += "insert 7 5\ninsert 3 9\n";
  const auto found = run<FullOnExistingMap>(text);
  expect_violation(found, "C7", 7, Op::insert(3, 9));
  EXPECT_EQ(found->expected, "exists");
  EXPECT_EQ(found->actual, "full");
}

TEST(MapChecker, CatchesARoundTripThatLosesValuesAsC11) {
  const auto found = run<RoundtripZeroesMap>("engine map\ninsert 1 10\nserialize_roundtrip\nfind 1\n");
  expect_violation(found, "C11", 1, Op::serialize_roundtrip());
  EXPECT_EQ(found->expected, "find 1 => 10 (as before the round trip)");
  EXPECT_EQ(found->actual, "find 1 => 0");
}

TEST(MapChecker, CatchesAWrongEraseAnswer) {
  const auto found = run<EraseLiesMap>("engine map\ninsert 1 10\nerase 2\nerase 1\n");
  expect_violation(found, "C7", 2, Op::erase(1));
  EXPECT_EQ(found->expected, "true");
  EXPECT_EQ(found->actual, "false");
}

TEST(MapChecker, RejectsOpsTheSubjectCannotPerformBeforeRunning) {
  PointerFindMap subject;
  MapModel map;
  for (const char* text : {"engine map\ninsert 1 1\ninsert_or_assign 1 2\n",
                           "engine map\nclear\n", "engine map\nserialize_roundtrip\n"}) {
    EXPECT_THROW((void)model::check(subject, map, model::parse_trace(text), 1),
                 std::invalid_argument)
        << text;
  }
  EXPECT_EQ(subject.size(), 0U);
}

TEST(MapChecker, BrokenDoublesFailRandomTracesAndTheReportReplays) {
  expect_random_traces_catch<DuplicatingMap>("DuplicatingMap", {"C7"}, kMinimalOps);
  expect_random_traces_catch<HiddenDuplicateMap>("HiddenDuplicateMap", {"C7"}, kNoClearOrRoundtrip);
  expect_random_traces_catch<StaleMap>("StaleMap", {"C7"}, kAllOps);
  expect_random_traces_catch<LosesOnFullMap>("LosesOnFullMap", {"C6"}, kAllOps);
  expect_random_traces_catch<FullOnExistingMap>("FullOnExistingMap", {"C7"}, kAllOps);
  expect_random_traces_catch<RoundtripZeroesMap>("RoundtripZeroesMap", {"C11"}, kAllOps);
  expect_random_traces_catch<EraseLiesMap>("EraseLiesMap", {"C7"}, kAllOps);
}

// The sampled cadence (CheckCadence): the invariant hook runs at the sampled ops, before
// a clear or round trip, and after the last op; the exact cadence after every op.
TEST(MapChecker, SampledInvariantsCatchAHiddenDuplicateAtTheNextSampledOp) {
  constexpr std::string_view kText =
      "engine map\ninsert 1 10\nfind 1\ninsert 9 1\nfind 9\ninsert_or_assign 1 20\nfind 1\nfind 1\nfind 1\n"
      "find 1\n";
  HiddenDuplicateMap subject;
  MapModel map;
  const auto found = model::check(subject, map, model::parse_trace(kText), 7, model::CheckCadence{false, true});
  expect_violation(found, "C7", 7, Op::find(1));  // op 4 made it, op 7 is the next sampled op
  expect_violation(run<HiddenDuplicateMap>(kText), "C7", 4, Op::insert_or_assign(1, 20));
}

TEST(MapChecker, SampledInvariantsRunBeforeAClear) {
  constexpr std::string_view kText =
      "engine map\ninsert 1 10\nfind 1\ninsert 9 1\nfind 9\ninsert_or_assign 1 20\nclear\nfind 1\nfind 1\n";
  HiddenDuplicateMap subject;
  MapModel map;
  const auto found = model::check(subject, map, model::parse_trace(kText), 7, model::CheckCadence{false, true});
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found->op_index, 5U);
  EXPECT_EQ(found->expected, "check_invariants() passes (a sampled check, before this op)");
}

}  // namespace
