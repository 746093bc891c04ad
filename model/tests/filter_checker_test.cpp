// The lock-step filter checker against test doubles: correct doubles pass random traces;
// each deliberately broken double is caught at the first op that shows its bug, with
// the right claim id; every report is a trace that replays to the same violation.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "cuckoo/model/checker.hpp"
#include "test_support.hpp"

namespace {

namespace model = cuckoo::model;
using model::MultisetModel;
using model::Op;
using model::OpKind;
using model::SubjectTraits;
using model::Trace;
using model::Violation;
using model::testing::base_seed;
using model::testing::reproduce_hint;
using model::testing::TestRng;

// An engine-style outcome enum, converted by name as cuckoo::InsertResult would be.
namespace engine_like {
enum class InsertResult : std::uint8_t { kInserted, kUpdated, kExists, kFull, kDuplicateLimit };
constexpr std::string_view to_string(InsertResult r) noexcept {
  switch (r) {
    case InsertResult::kInserted: return "inserted";
    case InsertResult::kUpdated: return "updated";
    case InsertResult::kExists: return "exists";
    case InsertResult::kFull: return "full";
    case InsertResult::kDuplicateLimit: return "duplicate_limit";
  }
  return "unknown";
}
}  // namespace engine_like
using engine_like::InsertResult;

constexpr std::size_t kCapacity = 10;
constexpr std::uint64_t kMaxCopies = 3;

// ---------------------------------------------------------------------------------
// Correct doubles
// ---------------------------------------------------------------------------------

// An exact filter: a multiset with a capacity and a per-key duplicate limit (checked
// before fullness, as the engine does). No count() or max_copies(): traits give the limit.
class ExactFilter {
 public:
  explicit ExactFilter(std::size_t capacity = kCapacity, std::uint64_t max_copies = kMaxCopies)
      : capacity_(capacity), max_copies_(max_copies) {}

  InsertResult insert(std::uint64_t key) {
    if (items_.count(key) >= max_copies_) return InsertResult::kDuplicateLimit;
    if (items_.size() >= capacity_) return InsertResult::kFull;
    items_.insert(key);
    return InsertResult::kInserted;
  }
  bool contains(std::uint64_t key) const { return items_.contains(key); }
  bool erase(std::uint64_t key) {
    const auto it = items_.find(key);
    if (it == items_.end()) return false;
    items_.erase(it);
    return true;
  }
  std::size_t size() const { return items_.size(); }
  void clear() { items_.clear(); }
  bool serialize_roundtrip() {
    const std::vector<std::uint64_t> bytes(items_.begin(), items_.end());
    items_ = std::multiset<std::uint64_t>(bytes.begin(), bytes.end());
    return true;
  }
  SubjectTraits traits() const {
    SubjectTraits traits;
    traits.exact = true;
    traits.max_copies = max_copies_;
    return traits;
  }

 protected:
  std::multiset<std::uint64_t> items_;
  std::size_t capacity_;
  std::uint64_t max_copies_;
};

// The same with the optional count() and max_copies() members.
class CountingExactFilter : public ExactFilter {
 public:
  std::size_t count(std::uint64_t key) const { return items_.count(key); }
  std::uint64_t max_copies(std::uint64_t) const { return max_copies_; }
};

// A filter that cannot tell keys with equal key % 5 apart (like fingerprints sharing a
// bucket pair). Identities with an even value hold 4 copies, odd ones 2 (like a bucket
// pair that is one bucket). It also answers yes for key 1000: a false positive.
class AliasingFilter {
 public:
  static constexpr std::uint64_t kIdentities = 5;
  static constexpr std::uint64_t kFalsePositive = 1000;

  std::uint64_t identity(std::uint64_t key) const { return key % kIdentities; }
  std::uint64_t max_copies(std::uint64_t key) const { return identity(key) % 2 == 0 ? 4 : 2; }
  std::size_t count(std::uint64_t key) const { return ids_.count(identity(key)); }

  model::InsertResult insert(std::uint64_t key) {
    if (count(key) >= max_copies(key)) return model::InsertResult::kDuplicateLimit;
    if (ids_.size() >= kCapacity) return model::InsertResult::kFull;
    ids_.insert(identity(key));
    return model::InsertResult::kInserted;
  }
  bool contains(std::uint64_t key) const {
    return key == kFalsePositive || ids_.contains(identity(key));
  }
  bool erase(std::uint64_t key) {
    const auto it = ids_.find(identity(key));
    if (it == ids_.end()) return false;
    ids_.erase(it);
    return true;
  }
  std::size_t size() const { return ids_.size(); }
  void clear() { ids_.clear(); }
  void serialize_roundtrip() {}

 protected:
  std::multiset<std::uint64_t> ids_;
};

// A set-semantics filter: stores each key once, answers kExists for a stored one.
class SetFilter {
 public:
  InsertResult insert(std::uint64_t key) {
    if (keys_.contains(key)) return InsertResult::kExists;
    if (keys_.size() >= kCapacity) return InsertResult::kFull;
    keys_.insert(key);
    return InsertResult::kInserted;
  }
  bool contains(std::uint64_t key) const { return keys_.contains(key); }
  bool erase(std::uint64_t key) { return keys_.erase(key) == 1; }
  std::size_t size() const { return keys_.size(); }
  SubjectTraits traits() const {
    SubjectTraits traits;
    traits.exact = true;
    traits.allows_duplicates = false;
    return traits;
  }

 private:
  std::set<std::uint64_t> keys_;
};

static_assert(model::FilterSubject<ExactFilter>);
static_assert(model::FilterSubject<CountingExactFilter>);
static_assert(model::FilterSubject<AliasingFilter>);
static_assert(model::FilterSubject<SetFilter>);
static_assert(!model::MapSubject<ExactFilter>);
static_assert(model::InsertOutcome<InsertResult>);
static_assert(model::InsertOutcome<model::InsertResult>);
static_assert(!model::InsertOutcome<int>);
static_assert(!model::InsertOutcome<bool>);
static_assert(model::HasTraits<ExactFilter> && !model::HasTraits<AliasingFilter>);
static_assert(!model::HasCount<ExactFilter> && model::HasCount<CountingExactFilter>);
static_assert(model::HasIdentity<AliasingFilter> && !model::HasIdentity<ExactFilter>);
static_assert(model::HasMaxCopies<AliasingFilter> && !model::HasMaxCopies<ExactFilter>);
static_assert(model::HasSerializeRoundtrip<ExactFilter> && !model::HasSerializeRoundtrip<SetFilter>);
static_assert(model::HasClear<ExactFilter> && !model::HasClear<SetFilter>);

// ---------------------------------------------------------------------------------
// Broken doubles, one bug each
// ---------------------------------------------------------------------------------

// C1: the third insert is acknowledged and counted but not stored.
class ForgetfulFilter : public ExactFilter {
 public:
  InsertResult insert(std::uint64_t key) {
    if (++inserts_ == 3) {
      ++phantoms_;
      return InsertResult::kInserted;
    }
    return ExactFilter::insert(key);
  }
  std::size_t size() const { return ExactFilter::size() + phantoms_; }
  void clear() {
    ExactFilter::clear();
    phantoms_ = 0;
  }

 private:
  int inserts_ = 0;
  std::size_t phantoms_ = 0;
};

// C5: erase removes two copies.
class DoubleEraseFilter : public ExactFilter {
 public:
  bool erase(std::uint64_t key) {
    const bool erased = ExactFilter::erase(key);
    if (erased) ExactFilter::erase(key);
    return erased;
  }
};

// C5, seen by count: erase removes two copies but size() does not tell (a stale counter).
class DoubleEraseCountingFilter : public CountingExactFilter {
 public:
  InsertResult insert(std::uint64_t key) {
    const InsertResult result = CountingExactFilter::insert(key);
    if (result == InsertResult::kInserted) ++size_;
    return result;
  }
  bool erase(std::uint64_t key) {
    const bool erased = ExactFilter::erase(key);
    if (erased) {
      ExactFilter::erase(key);
      --size_;
    }
    return erased;
  }
  std::size_t size() const { return size_; }
  void clear() {
    ExactFilter::clear();
    size_ = 0;
  }

 private:
  std::size_t size_ = 0;
};

// C6: when full it makes room by dropping its smallest item, stores the new one, and
// still reports kFull.
class LosesOnFullFilter : public ExactFilter {
 public:
  InsertResult insert(std::uint64_t key) {
    const InsertResult result = ExactFilter::insert(key);
    if (result == InsertResult::kFull) {
      items_.erase(items_.begin());
      items_.insert(key);
    }
    return result;
  }
};

// C5: gives up at 2 copies although its limit is 3.
class EarlyDuplicateLimitFilter : public ExactFilter {
 public:
  InsertResult insert(std::uint64_t key) {
    if (items_.count(key) >= 2) return InsertResult::kDuplicateLimit;
    return ExactFilter::insert(key);
  }
};

// C5: never enforces its limit.
class NoDuplicateLimitFilter : public ExactFilter {
 public:
  InsertResult insert(std::uint64_t key) {
    if (items_.size() >= capacity_) return InsertResult::kFull;
    items_.insert(key);
    return InsertResult::kInserted;
  }
};

// C5: erase of an absent key claims success.
class EraseAbsentFilter : public ExactFilter {
 public:
  bool erase(std::uint64_t key) {
    ExactFilter::erase(key);
    return true;
  }
};

// C11: the round trip drops the largest item.
class RoundtripLosesFilter : public ExactFilter {
 public:
  bool serialize_roundtrip() {
    if (!items_.empty()) items_.erase(std::prev(items_.end()));
    return true;
  }
};

// C11: the round trip reports failure.
class RoundtripFailsFilter : public ExactFilter {
 public:
  bool serialize_roundtrip() { return false; }
};

// C2: claims to be exact, but says yes for 13.
class FalsePositiveFilter : public ExactFilter {
 public:
  bool contains(std::uint64_t key) const { return key == 13 || ExactFilter::contains(key); }
};

// "size": counts one item too many.
class MiscountingFilter : public ExactFilter {
 public:
  std::size_t size() const { return ExactFilter::size() + (items_.size() >= 2 ? 1 : 0); }
};

// "exception": throws on key 99.
class ThrowingFilter : public ExactFilter {
 public:
  InsertResult insert(std::uint64_t key) {
    if (key == 99) throw std::runtime_error("bucket index out of range");
    return ExactFilter::insert(key);
  }
};

// "invariant": its own consistency check fails once it holds two items.
class InvariantFilter : public ExactFilter {
 public:
  std::string check_invariants() const { return items_.size() >= 2 ? "tag bits disagree" : ""; }
};

// C5 with identities: erase ignores aliases (only the key's own copy can go).
class NonAliasingEraseFilter : public AliasingFilter {
 public:
  bool erase(std::uint64_t key) {
    if (!keys_.contains(key)) return false;
    keys_.erase(keys_.find(key));
    return AliasingFilter::erase(key);
  }
  model::InsertResult insert(std::uint64_t key) {
    const model::InsertResult result = AliasingFilter::insert(key);
    if (result == model::InsertResult::kInserted) keys_.insert(key);
    return result;
  }

 private:
  std::multiset<std::uint64_t> keys_;
};

// ---------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------

Trace trace_of(std::string_view text) { return model::parse_trace(text); }

template <class Subject>
std::optional<Violation> run(std::string_view text, std::uint64_t seed = 7) {
  Subject subject;
  MultisetModel multiset;
  return model::check(subject, multiset, trace_of(text), seed);
}

// Checks claim, op index and op; returns the violation for further checks.
void expect_violation(const std::optional<Violation>& found, std::string_view claim,
                      std::size_t op_index, const Op& op) {
  ASSERT_TRUE(found.has_value()) << "no violation found";
  EXPECT_EQ(found->claim, claim) << model::to_string(*found);
  EXPECT_EQ(found->op_index, op_index) << model::to_string(*found);
  EXPECT_EQ(found->op, op) << model::to_string(*found);
}

Trace random_filter_trace(TestRng& rng, std::size_t length, bool with_clear_and_roundtrip) {
  constexpr std::uint64_t kKeyRange = 12;
  Trace trace;
  trace.engine = "filter";
  trace.parameters.set("capacity", std::to_string(kCapacity));
  for (std::size_t i = 0; i < length; ++i) {
    const std::uint64_t key = rng.below(kKeyRange);
    const std::uint64_t roll = rng.below(100);
    if (roll < 40) {
      trace.add(Op::insert(key));
    } else if (roll < 65) {
      trace.add(Op::contains(key));
    } else if (roll < 88) {
      trace.add(Op::erase(key));
    } else if (roll < 94 || !with_clear_and_roundtrip) {
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
void expect_random_traces_pass(bool with_clear_and_roundtrip) {
  const std::uint64_t seed = base_seed();
  SCOPED_TRACE(reproduce_hint(seed));
  TestRng rng(seed);
  constexpr int kTraces = 300;
  constexpr std::size_t kLength = 150;
  for (int i = 0; i < kTraces; ++i) {
    const Trace trace = random_filter_trace(rng, kLength, with_clear_and_roundtrip);
    Subject subject;
    MultisetModel multiset;
    const std::optional<Violation> found = model::check(subject, multiset, trace, seed);
    ASSERT_FALSE(found.has_value()) << model::format_violation(*found, trace);
    EXPECT_EQ(subject.size(), multiset.size());
  }
}

// A broken double fails some random trace with one of `claims` (a bug can show first in
// more than one way: a forgotten item may fail a contains, C1, or an erase, C5); the
// report replays to the same violation.
template <class Subject>
void expect_random_traces_catch(std::string_view name, const std::set<std::string>& claims) {
  const std::uint64_t seed = base_seed();
  SCOPED_TRACE(reproduce_hint(seed));
  SCOPED_TRACE(name);
  TestRng rng(seed);
  constexpr int kMaxTraces = 200;
  for (int i = 0; i < kMaxTraces; ++i) {
    const Trace trace = random_filter_trace(rng, 150, true);
    Subject subject;
    MultisetModel multiset;
    const std::optional<Violation> found = model::check(subject, multiset, trace, seed);
    if (!found) continue;
    EXPECT_TRUE(claims.contains(found->claim)) << model::to_string(*found);
    const std::string report = model::format_violation(*found, trace);
    const Trace replay = model::parse_trace(report);
    ASSERT_EQ(replay.size(), found->op_index + 1) << report;
    Subject fresh;
    MultisetModel fresh_model;
    EXPECT_EQ(model::check(fresh, fresh_model, replay, seed), found) << report;
    return;
  }
  ADD_FAILURE() << "no random trace caught the bug";
}

// ---------------------------------------------------------------------------------
// Correct doubles pass
// ---------------------------------------------------------------------------------

TEST(FilterChecker, ExactFilterPassesRandomTraces) {
  expect_random_traces_pass<ExactFilter>(true);
}

TEST(FilterChecker, CountingExactFilterPassesRandomTraces) {
  expect_random_traces_pass<CountingExactFilter>(true);
}

TEST(FilterChecker, AliasingFilterPassesRandomTraces) {
  expect_random_traces_pass<AliasingFilter>(true);
}

TEST(FilterChecker, SetFilterPassesRandomTraces) { expect_random_traces_pass<SetFilter>(false); }

TEST(FilterChecker, AcceptsEveryOutcomeAtItsBoundary) {
  // Limit 3 per key, capacity 10: duplicate_limit before full, full when 10 are stored.
  const std::string text =
      "engine filter\n"
      "insert 1\ninsert 1\ninsert 1\ninsert 1\n"  // the 4th is duplicate_limit
      "insert 2\ninsert 2\ninsert 2\n"
      "insert 3\ninsert 3\ninsert 3\n"
      "insert 4\n"                                 // 10 stored
      "insert 5\n"                                 // full
      "insert 1\n"                                 // duplicate_limit even when full
      "erase 1\ninsert 5\ncontains 5\nsize\n";
  EXPECT_EQ(run<ExactFilter>(text), std::nullopt);
  EXPECT_EQ(run<CountingExactFilter>(text), std::nullopt);
}

TEST(FilterChecker, AliasesMustBeFoundAndErasable) {
  // 3, 8 and 13 share identity 3 (limit 2); 1000 is a tolerated false positive.
  const std::string text =
      "engine filter\n"
      "insert 3\ncontains 8\ninsert 8\ninsert 13\n"  // the third copy of identity 3: limit
      "contains 1000\nerase 13\ncontains 3\nerase 18\ncontains 8\nerase 3\nsize\n";
  EXPECT_EQ(run<AliasingFilter>(text), std::nullopt);
}

TEST(FilterChecker, LendsTheSubjectsIdentityOnlyForTheCheck) {
  AliasingFilter subject;
  MultisetModel multiset;
  EXPECT_EQ(model::check(subject, multiset, trace_of("engine filter\ninsert 3\nerase 8\n"), 1),
            std::nullopt);
  EXPECT_FALSE(multiset.has_identity());
  EXPECT_TRUE(multiset.empty());
}

TEST(FilterChecker, ExplicitTraitsOverrideTheSubjects) {
  // With a limit of 2 instead of 3 the exact filter's third copy is a violation.
  ExactFilter subject;
  MultisetModel multiset;
  SubjectTraits traits = subject.traits();
  traits.max_copies = 2;
  const auto found = model::check(subject, multiset,
                                  trace_of("engine filter\ninsert 4\ninsert 4\ninsert 4\n"), 1, traits);
  expect_violation(found, "C5", 2, Op::insert(4));
  EXPECT_EQ(found->actual, "inserted");
}

// ---------------------------------------------------------------------------------
// Broken doubles are caught at the right op
// ---------------------------------------------------------------------------------

TEST(FilterChecker, CatchesAForgottenItemAsC1) {
  const auto found = run<ForgetfulFilter>(
      "engine filter\ninsert 1\ninsert 2\ninsert 3\ncontains 1\ncontains 2\ncontains 3\n", 42);
  expect_violation(found, "C1", 5, Op::contains(3));
  EXPECT_EQ(found->expected, "true (1 copy of 3 is stored)");
  EXPECT_EQ(found->actual, "false");
  EXPECT_EQ(found->seed, 42U);
}

TEST(FilterChecker, CatchesAnEraseOfTwoCopiesAsC5) {
  const auto found = run<DoubleEraseFilter>(
      "engine filter\ninsert 5\ninsert 5\ninsert 6\ncontains 5\nerase 5\ncontains 5\n");
  expect_violation(found, "C5", 4, Op::erase(5));
  EXPECT_EQ(found->expected, "size 2 (erase removes exactly one copy)");
  EXPECT_EQ(found->actual, "size 1");
}

TEST(FilterChecker, CatchesAnEraseOfTwoCopiesByCountWhenSizeHidesIt) {
  const auto found = run<DoubleEraseCountingFilter>(
      "engine filter\ninsert 5\ninsert 5\ninsert 5\nerase 5\ncontains 5\n");
  expect_violation(found, "C5", 3, Op::erase(5));
  EXPECT_EQ(found->expected, "count 5 => 2 (2 copies of 5 are stored)");
  EXPECT_EQ(found->actual, "count 5 => 1");
}

TEST(FilterChecker, CatchesALossOnFullAsC6) {
  std::string text = "engine filter\n";
  for (int key = 1; key <= 10; ++key) text += "insert " + std::to_string(key) + "\n";
  text += "insert 11\ncontains 1\n";
  const auto found = run<LosesOnFullFilter>(text);
  expect_violation(found, "C6", 10, Op::insert(11));
  EXPECT_EQ(found->expected, "contains 1 => true (1 copy of 1 is stored; a failed insert loses nothing)");
  EXPECT_EQ(found->actual, "contains 1 => false");
}

TEST(FilterChecker, CatchesAnEarlyDuplicateLimitAsC5) {
  const auto found = run<EarlyDuplicateLimitFilter>("engine filter\ninsert 7\ninsert 7\ninsert 7\n");
  expect_violation(found, "C5", 2, Op::insert(7));
  EXPECT_EQ(found->expected, "inserted or full (2 copies of 7 are stored, the limit is 3)");
  EXPECT_EQ(found->actual, "duplicate_limit");
}

TEST(FilterChecker, CatchesAMissingDuplicateLimitAsC5) {
  const auto found =
      run<NoDuplicateLimitFilter>("engine filter\ninsert 7\ninsert 7\ninsert 7\ninsert 7\n");
  expect_violation(found, "C5", 3, Op::insert(7));
  EXPECT_EQ(found->expected, "duplicate_limit (3 copies of 7 are stored, the limit is 3)");
  EXPECT_EQ(found->actual, "inserted");
}

TEST(FilterChecker, CatchesASuccessfulEraseOfAnAbsentItemAsC5) {
  const auto found = run<EraseAbsentFilter>("engine filter\ninsert 1\nerase 1\nerase 1\n");
  expect_violation(found, "C5", 2, Op::erase(1));
  EXPECT_EQ(found->expected, "false (0 copies of 1 are stored)");
}

TEST(FilterChecker, CatchesAnEraseThatIgnoresAliasesAsC5) {
  const auto found = run<NonAliasingEraseFilter>("engine filter\ninsert 3\ncontains 8\nerase 8\n");
  expect_violation(found, "C5", 2, Op::erase(8));
  EXPECT_EQ(found->expected, "true (1 copy of the item of 8 is stored)");
  EXPECT_EQ(found->actual, "false");
}

TEST(FilterChecker, CatchesARoundTripThatLosesAnItemAsC11) {
  const auto found = run<RoundtripLosesFilter>(
      "engine filter\ninsert 1\ninsert 2\nserialize_roundtrip\ncontains 2\n");
  expect_violation(found, "C11", 2, Op::serialize_roundtrip());
  EXPECT_EQ(found->expected, "size 2 (as before the round trip)");
  EXPECT_EQ(found->actual, "size 1");
}

TEST(FilterChecker, CatchesAFailedRoundTripAsC11) {
  const auto found = run<RoundtripFailsFilter>("engine filter\nsize\nserialize_roundtrip\n");
  expect_violation(found, "C11", 1, Op::serialize_roundtrip());
  EXPECT_EQ(found->actual, "serialize_roundtrip() returned false");
}

TEST(FilterChecker, CatchesAFalsePositiveOfAnExactSubjectAsC2) {
  const auto found = run<FalsePositiveFilter>("engine filter\ninsert 1\ncontains 12\ncontains 13\n");
  expect_violation(found, "C2", 2, Op::contains(13));
  EXPECT_EQ(found->actual, "true");
}

TEST(FilterChecker, CatchesASizeMismatch) {
  const auto found = run<MiscountingFilter>("engine filter\ninsert 1\ncontains 1\ninsert 2\n");
  expect_violation(found, "size", 2, Op::insert(2));
  EXPECT_EQ(found->expected, "size 2 after an insert");
  EXPECT_EQ(found->actual, "size 3");
}

TEST(FilterChecker, ReportsAnExceptionAsAViolation) {
  const auto found = run<ThrowingFilter>("engine filter\ninsert 1\ninsert 99\n");
  expect_violation(found, "exception", 1, Op::insert(99));
  EXPECT_EQ(found->actual, "exception: bucket index out of range");
}

TEST(FilterChecker, RunsTheInvariantHookAfterEachOp) {
  const auto found = run<InvariantFilter>("engine filter\ninsert 1\ncontains 1\ninsert 2\n");
  expect_violation(found, "invariant", 2, Op::insert(2));
  EXPECT_EQ(found->actual, "tag bits disagree");
}

TEST(FilterChecker, RejectsOpsTheSubjectCannotPerformBeforeRunning) {
  ExactFilter subject;
  MultisetModel multiset;
  EXPECT_THROW((void)model::check(subject, multiset, trace_of("engine filter\ninsert 1\nfind 1\n"), 1),
               std::invalid_argument);
  EXPECT_EQ(subject.size(), 0U) << "nothing may run before the trace is validated";
  SetFilter set;
  EXPECT_THROW((void)model::check(set, multiset, trace_of("engine filter\nclear\n"), 1),
               std::invalid_argument);
  EXPECT_THROW(
      (void)model::check(set, multiset, trace_of("engine filter\nserialize_roundtrip\n"), 1),
      std::invalid_argument);
}

TEST(FilterChecker, BrokenDoublesFailRandomTracesAndTheReportReplays) {
  // Without count() a subject can lose one copy of a duplicated key unseen; the loss
  // shows later, wherever the checker first looks (C1, C2, C5 or C6).
  expect_random_traces_catch<ForgetfulFilter>("ForgetfulFilter", {"C1", "C5", "C6"});
  expect_random_traces_catch<DoubleEraseFilter>("DoubleEraseFilter", {"C5"});
  expect_random_traces_catch<DoubleEraseCountingFilter>("DoubleEraseCountingFilter", {"C5"});
  expect_random_traces_catch<LosesOnFullFilter>("LosesOnFullFilter", {"C6", "C1", "C2", "C5"});
  expect_random_traces_catch<NoDuplicateLimitFilter>("NoDuplicateLimitFilter", {"C5"});
  expect_random_traces_catch<EraseAbsentFilter>("EraseAbsentFilter", {"C5"});
  expect_random_traces_catch<RoundtripLosesFilter>("RoundtripLosesFilter", {"C11"});
  expect_random_traces_catch<NonAliasingEraseFilter>("NonAliasingEraseFilter", {"C5"});
}

// ---------------------------------------------------------------------------------
// The sampled cadence (CheckCadence)
// ---------------------------------------------------------------------------------

constexpr model::CheckCadence kSampled{true, true};

template <class Subject>
std::optional<Violation> run_sampled(std::string_view text, std::uint64_t seed = 7) {
  Subject subject;
  MultisetModel multiset;
  return model::check(subject, multiset, trace_of(text), seed, kSampled);
}

TEST(FilterChecker, SampledChecksRunAtPowersOfTwoEveryPeriodAndAtTheEnd) {
  using model::detail::sampled_check_due;
  for (const std::size_t i : {0, 1, 3, 7, 15, 31, 47, 63, 127, 1023}) {
    EXPECT_TRUE(sampled_check_due(i, 2000)) << i;
  }
  for (const std::size_t i : {2, 4, 5, 6, 8, 14, 16, 30, 1022}) EXPECT_FALSE(sampled_check_due(i, 2000)) << i;
  EXPECT_TRUE(sampled_check_due(1999, 2000));
}

TEST(FilterChecker, SampledScanCatchesALossOnFullBeforeAClearCanHideIt) {
  std::string text = "engine filter\n";
  for (int key = 1; key <= 10; ++key) text += "insert " + std::to_string(key) + "\n";
  // op 10 loses key 1 (not a sampled op); op 13's clear would hide the loss.
  text += "insert 11\nsize\nsize\nclear\ninsert 1\nsize\nsize\n";
  const auto found = run_sampled<LosesOnFullFilter>(text);
  ASSERT_TRUE(found.has_value()) << "the loss at op 10 was not seen before the clear";
  expect_violation(found, "C1", 13, Op::clear());
  EXPECT_EQ(found->expected, "contains 1 => true (1 copy of 1 is stored; (a sampled check, before this op))");
  // The exact cadence names the op that lost it.
  expect_violation(run<LosesOnFullFilter>(text), "C6", 10, Op::insert(11));
}

TEST(FilterChecker, SampledScanCatchesALossAtTheLastOp) {
  std::string text = "engine filter\n";
  for (int key = 1; key <= 10; ++key) text += "insert " + std::to_string(key) + "\n";
  text += "insert 11\nsize\nsize\n";
  expect_violation(run_sampled<LosesOnFullFilter>(text), "C1", 12, Op::size());
}

TEST(FilterChecker, SampledInvariantsRunAtTheLastOp) {
  const auto found = run_sampled<InvariantFilter>("engine filter\ninsert 1\ncontains 1\ninsert 2\nsize\nsize\n");
  expect_violation(found, "invariant", 3, Op::size());  // op 2 broke it; op 3 is sampled
}

// LosesOnFullFilter with count(): the loss stays visible to the count of the lost key.
class CountingLosesOnFullFilter : public LosesOnFullFilter {
 public:
  std::size_t count(std::uint64_t key) const { return items_.count(key); }
};

// On random traces: for subjects with count() (as the fuzz targets' filters have), the
// sampled cadence finds a fault exactly when the exact cadence does, because a lost or
// extra copy stays visible to the count of its key until the end of the trace, where the
// sampled scan looks. (It may see it at another op: its scans run where the exact
// cadence has none, so it can be earlier too; the fuzz targets rerun a failing input
// with the exact cadence for the report.) Without count() a fault can hide: a lost copy
// of a key stored twice answers contains() like the copy that is left; the sampled
// cadence then only has to catch it on some trace.
template <class Subject>
int sampled_catches(std::string_view name, bool must_agree) {
  const std::uint64_t seed = base_seed();
  SCOPED_TRACE(reproduce_hint(seed));
  SCOPED_TRACE(name);
  TestRng rng(seed);
  int caught = 0;
  for (int i = 0; i < 200; ++i) {
    const Trace trace = random_filter_trace(rng, 150, true);
    Subject exact_subject;
    MultisetModel exact_model;
    const std::optional<Violation> exact = model::check(exact_subject, exact_model, trace, seed);
    Subject sampled_subject;
    MultisetModel sampled_model;
    const std::optional<Violation> sampled =
        model::check(sampled_subject, sampled_model, trace, seed, kSampled);
    if (must_agree) {
      EXPECT_EQ(exact.has_value(), sampled.has_value())
          << "trace " << i << ": exact " << (exact ? model::to_string(*exact) : "passes")
          << "; sampled " << (sampled ? model::to_string(*sampled) : "passes");
    }
    caught += sampled ? 1 : 0;
  }
  return caught;
}

TEST(FilterChecker, SampledCadenceCatchesWhatTheExactOneCatches) {
  EXPECT_EQ(sampled_catches<ExactFilter>("ExactFilter", true), 0);
  EXPECT_EQ(sampled_catches<CountingExactFilter>("CountingExactFilter", true), 0);
  EXPECT_EQ(sampled_catches<AliasingFilter>("AliasingFilter", true), 0);
  EXPECT_GT(sampled_catches<DoubleEraseCountingFilter>("DoubleEraseCountingFilter", true), 0);
  EXPECT_GT(sampled_catches<CountingLosesOnFullFilter>("CountingLosesOnFullFilter", true), 0);
  EXPECT_GT(sampled_catches<NonAliasingEraseFilter>("NonAliasingEraseFilter", true), 0);
  EXPECT_GT(sampled_catches<ForgetfulFilter>("ForgetfulFilter", false), 0);
  EXPECT_GT(sampled_catches<DoubleEraseFilter>("DoubleEraseFilter", false), 0);
  EXPECT_GT(sampled_catches<LosesOnFullFilter>("LosesOnFullFilter", false), 0);
  EXPECT_GT(sampled_catches<NoDuplicateLimitFilter>("NoDuplicateLimitFilter", false), 0);
  EXPECT_GT(sampled_catches<EraseAbsentFilter>("EraseAbsentFilter", false), 0);
  EXPECT_GT(sampled_catches<RoundtripLosesFilter>("RoundtripLosesFilter", false), 0);
}

// ---------------------------------------------------------------------------------
// The report
// ---------------------------------------------------------------------------------

TEST(FilterChecker, FormatsAViolationAsAReplayableTrace) {
  const Trace trace = trace_of(
      "# cuckoo trace v1\n"
      "engine filter capacity=10 seed=42\n"
      "insert 1\ninsert 2\ninsert 3\ncontains 1\ncontains 2\ncontains 3\ninsert 4\nsize\n");
  ForgetfulFilter subject;
  MultisetModel multiset;
  const auto found = model::check(subject, multiset, trace, 42);
  ASSERT_TRUE(found.has_value());
  const std::string report = model::format_violation(*found, trace);
  EXPECT_EQ(report,
            "# cuckoo trace v1\n"
            "# VIOLATION of C1 (no false negatives)\n"
            "#   at:       op 6 of 6 (line 8): contains 3\n"
            "#   expected: true (1 copy of 3 is stored)\n"
            "#   actual:   false\n"
            "#   seed:     42\n"
            "# The ops below end at the failing op; replay this trace to reproduce it.\n"
            "engine filter capacity=10 seed=42\n"
            "insert 1\ninsert 2\ninsert 3\ncontains 1\ncontains 2\ncontains 3\n");
  EXPECT_EQ(model::to_string(*found),
            "C1 (no false negatives) at op 6 'contains 3': expected true (1 copy of 3 is stored), "
            "actual false, seed 42");
  const Trace replay = model::parse_trace(report);
  EXPECT_EQ(replay.parameters, trace.parameters);
  EXPECT_EQ(replay.size(), 6U);
}

TEST(FilterChecker, MultiLineDetailsStayComments) {
  Violation v{"invariant", 0, Op::size(), "ok", "line one\nline two", 1};
  Trace trace;
  trace.engine = "filter";
  trace.add(Op::size());
  const std::string report = model::format_violation(v, trace);
  EXPECT_NE(report.find("line one\n#"), std::string::npos) << report;
  EXPECT_EQ(model::parse_trace(report), trace);
}

}  // namespace
