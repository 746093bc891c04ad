// The linearizability checker on hand-written histories (sequential, linearizable only by
// reordering, not linearizable), its relaxations, the size() bound check, the work bound,
// and cross-checks of the partitioned search against the whole-history search and a
// brute-force enumeration on random small histories.
#include "cuckoo/subjects/linearizability.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <iterator>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "cuckoo/subjects/driver.hpp"  // SplitMix64
#include "cuckoo/subjects/history.hpp"
#include "cuckoo/subjects/specs.hpp"

namespace cuckoo::subjects {
namespace {

constexpr std::uint64_t kCrossCheckSeed = 0x5eed'c0ffeeULL;

MultisetSpec exact_multiset() { return MultisetSpec::exact(); }
MultisetSpec filter_multiset() { return MultisetSpec::filter(); }

const NotLinearizable& violation_of(const CheckResult& result) {
  return std::get<NotLinearizable>(result.verdict);
}

// ---------------------------------------------------------------- sequential histories

TEST(Linearizability, EmptyHistoryIsLinearizable) {
  const CheckResult result = check_map({});
  EXPECT_TRUE(result.linearizable());
  EXPECT_EQ(result.stats.partitions, 0U);
  EXPECT_EQ(result.stats.ops_checked, 0U);
}

TEST(Linearizability, SequentialMultisetHistory) {
  const History h = parse_history(R"(
    t0 1 2 insert 3 0 -> inserted
    t0 3 4 insert 3 0 -> inserted
    t0 5 6 contains 3 -> true
    t0 7 8 erase 3 -> true
    t0 9 10 contains 3 -> true
    t0 11 12 erase 3 -> true
    t0 13 14 contains 3 -> false
    t0 15 16 erase 3 -> false
    t0 17 18 insert 4 0 -> full
    t0 19 20 contains 4 -> false
    t0 21 22 size -> 0
  )");
  const CheckResult result = check_multiset(h, exact_multiset());
  EXPECT_TRUE(result.linearizable()) << result.describe();
  EXPECT_EQ(result.stats.partitions, 2U);
  EXPECT_EQ(result.stats.ops_checked, 11U);
  EXPECT_EQ(result.stats.size_ops_bound_checked, 1U);
  EXPECT_TRUE(check_multiset(h, exact_multiset(), {.partition_by_key = false}).linearizable());
}

TEST(Linearizability, SequentialMapHistory) {
  const History h = parse_history(R"(
    t0 1 2 find 3 -> none
    t0 3 4 insert 3 10 -> inserted
    t0 5 6 insert 3 11 -> exists
    t0 7 8 find 3 -> 10
    t0 9 10 insert_or_assign 3 12 -> updated
    t0 11 12 find 3 -> 12
    t0 13 14 contains 3 -> true
    t0 15 16 size -> 1
    t0 17 18 erase 3 -> true
    t0 19 20 erase 3 -> false
    t0 21 22 insert_or_assign 3 13 -> inserted
    t0 23 24 find 3 -> 13
    t0 25 26 insert 4 1 -> full
    t0 27 28 find 4 -> none
  )");
  const CheckResult result = check_map(h);
  EXPECT_TRUE(result.linearizable()) << result.describe();
  EXPECT_TRUE(check_map(h, {.partition_by_key = false}).linearizable());
}

// ------------------------------------------- linearizable only by reordering overlaps

TEST(Linearizability, ContainsInvokedBeforeInsertMaySeeIt) {
  // contains is invoked first but overlaps the insert, so it may take effect after it.
  const History overlapping = parse_history(R"(
    t0 1 10 contains 3 -> true
    t1 2 3 insert 3 0 -> inserted
  )");
  EXPECT_TRUE(check_multiset(overlapping, exact_multiset()).linearizable());
  // The same results with the contains finished before the insert began: not linearizable.
  const History ordered = parse_history(R"(
    t0 1 2 contains 3 -> true
    t1 3 4 insert 3 0 -> inserted
  )");
  EXPECT_TRUE(check_multiset(ordered, exact_multiset()).not_linearizable());
}

TEST(Linearizability, EraseInvokedBeforeInsertMayRemoveIt) {
  const History overlapping = parse_history(R"(
    t0 1 5 erase 7 -> true
    t1 2 3 insert 7 0 -> inserted
    t1 6 7 contains 7 -> false
  )");
  EXPECT_TRUE(check_multiset(overlapping, exact_multiset()).linearizable());
  const History ordered = parse_history(R"(
    t0 1 2 erase 7 -> true
    t1 3 4 insert 7 0 -> inserted
  )");
  EXPECT_TRUE(check_multiset(ordered, exact_multiset()).not_linearizable());
}

TEST(Linearizability, ConcurrentMapInsertsOneWinsEvenIfInvokedSecond) {
  const History h = parse_history(R"(
    t0 1 4 insert 3 10 -> exists
    t1 2 3 insert 3 20 -> inserted
    t0 5 6 find 3 -> 20
  )");
  EXPECT_TRUE(check_map(h).linearizable());
  EXPECT_TRUE(check_map(h, {.partition_by_key = false}).linearizable());
}

TEST(Linearizability, LongReadsOverlappingSeveralWritesSeeAnyOfThem) {
  // Each long find overlaps the insert, the update and the erase, and each reads a
  // different one of the three states.
  const History h = parse_history(R"(
    t0 1 2 insert 3 10 -> inserted
    t1 3 12 find 3 -> 10
    t2 3 12 find 3 -> 20
    t3 3 12 find 3 -> none
    t0 4 5 insert_or_assign 3 20 -> updated
    t0 8 9 erase 3 -> true
  )");
  EXPECT_TRUE(check_map(h).linearizable());
  // A value nobody wrote is never readable.
  History never_written = h;
  never_written[2].result = std::optional<std::uint64_t>{99};
  const CheckResult result = check_map(never_written);
  ASSERT_TRUE(result.not_linearizable());
  EXPECT_NE(violation_of(result).explanation.find("find returned 99"), std::string::npos)
      << result.describe();
}

TEST(Linearizability, EqualStampsMeanOverlap) {
  // The contains returned at stamp 5 and the insert was invoked at 5: neither precedes
  // the other, so the contains may come after the insert. Recorded stamps are unique, so
  // this matters only for hand-written and parsed histories.
  const History touching = parse_history(R"(
    t0 1 5 contains 3 -> true
    t1 5 6 insert 3 0 -> inserted
  )");
  EXPECT_TRUE(check_multiset(touching, exact_multiset()).linearizable());
  History apart = touching;
  apart[1].invoke_stamp = 6;
  apart[1].response_stamp = 7;
  EXPECT_TRUE(check_multiset(apart, exact_multiset()).not_linearizable());
}

TEST(Linearizability, DuplicatesInterleaveAcrossThreads) {
  const History h = parse_history(R"(
    t0 1 6 insert 5 0 -> inserted
    t1 2 7 insert 5 0 -> inserted
    t2 3 8 erase 5 -> true
    t2 9 10 erase 5 -> true
    t2 11 12 erase 5 -> false
    t0 11 12 contains 5 -> false
  )");
  EXPECT_TRUE(check_multiset(h, exact_multiset()).linearizable());
}

// --------------------------------------------------------- non-linearizable histories

TEST(Linearizability, ContainsFalseAfterCompletedInsertAndBeforeAnyErase) {
  const History h = parse_history(R"(
    t0 1 2 insert 3 0 -> inserted
    t1 3 4 contains 3 -> false
    t0 7 8 erase 3 -> true
  )");
  for (const MultisetSpec& spec : {exact_multiset(), filter_multiset()}) {
    const CheckResult result = check_multiset(h, spec);
    ASSERT_TRUE(result.not_linearizable()) << spec.name();
    const NotLinearizable& violation = violation_of(result);
    EXPECT_EQ(violation.key, std::optional<std::uint64_t>{3});
    EXPECT_EQ(violation.ops, h);
    EXPECT_NE(violation.explanation.find("t1 3 4 contains 3 -> false: contains returned false"),
              std::string::npos)
        << result.describe();
    EXPECT_NE(violation.explanation.find("1 of 3 ops"), std::string::npos) << result.describe();
  }
  // Overlapping the erase instead, the contains may follow it.
  History overlapping = h;
  overlapping[1].response_stamp = 7;
  EXPECT_TRUE(check_multiset(overlapping, exact_multiset()).linearizable());
}

TEST(Linearizability, EraseTrueTwiceForOneInsert) {
  const History h = parse_history(R"(
    t0 1 2 insert 3 0 -> inserted
    t1 3 6 erase 3 -> true
    t2 4 5 erase 3 -> true
  )");
  EXPECT_TRUE(check_multiset(h, exact_multiset()).not_linearizable());
  EXPECT_TRUE(check_multiset(h, filter_multiset()).not_linearizable());
  EXPECT_TRUE(check_map(h).not_linearizable());
  // Under the aliasing relaxation the second erase may have hit another key's fingerprint.
  EXPECT_TRUE(check_multiset(h, MultisetSpec::filter(std::nullopt, true)).linearizable());
}

TEST(Linearizability, MapFindReturnsValueNeverWritten) {
  const History h = parse_history(R"(
    t0 1 4 insert 3 10 -> inserted
    t1 2 3 find 3 -> 11
  )");
  const CheckResult result = check_map(h);
  ASSERT_TRUE(result.not_linearizable());
  EXPECT_EQ(violation_of(result).key, std::optional<std::uint64_t>{3});
}

TEST(Linearizability, StaleReadAfterNonOverlappingUpdate) {
  const History h = parse_history(R"(
    t0 1 2 insert 3 1 -> inserted
    t0 3 4 insert_or_assign 3 2 -> updated
    t1 5 6 find 3 -> 1
  )");
  const CheckResult result = check_map(h);
  ASSERT_TRUE(result.not_linearizable());
  EXPECT_NE(violation_of(result).explanation.find("find returned 1 but the key holds 2"),
            std::string::npos)
      << result.describe();
  // Had the read overlapped the update, the old value would be fine.
  History overlapping = h;
  overlapping[2].invoke_stamp = 3;
  EXPECT_TRUE(check_map(overlapping).linearizable());
}

TEST(Linearizability, TwoConcurrentInsertsBothInsertedIsALostUpdate) {
  const History h = parse_history(R"(
    t0 1 4 insert 3 10 -> inserted
    t1 2 3 insert 3 20 -> inserted
  )");
  EXPECT_TRUE(check_map(h).not_linearizable());
  // For a multiset both copies are legal.
  EXPECT_TRUE(check_multiset(h, exact_multiset()).linearizable());
}

TEST(Linearizability, ViolationOnOneKeyIsReportedWithOnlyThatKeysOps) {
  const History h = parse_history(R"(
    t0 1 2 insert 1 10 -> inserted
    t1 1 2 insert 2 20 -> inserted
    t0 3 4 find 1 -> 10
    t1 3 4 find 2 -> none
    t0 5 6 erase 1 -> true
  )");
  const CheckResult result = check_map(h);
  ASSERT_TRUE(result.not_linearizable());
  const NotLinearizable& violation = violation_of(result);
  EXPECT_EQ(violation.key, std::optional<std::uint64_t>{2});
  ASSERT_EQ(violation.ops.size(), 2U);
  EXPECT_EQ(violation.ops[0], h[1]);
  EXPECT_EQ(violation.ops[1], h[3]);
  // The report's sub-history parses back and fails again on its own.
  const std::string report = result.describe();
  const std::size_t dump = report.find("# cuckoo stress history");
  ASSERT_NE(dump, std::string::npos) << report;
  const History reparsed = parse_history(report.substr(dump));
  EXPECT_EQ(reparsed, violation.ops);
  EXPECT_TRUE(check_map(reparsed).not_linearizable());
}

// ---------------------------------------------------------------------- relaxations

TEST(Linearizability, FilterAllowsFalsePositivesButNeverFalseNegatives) {
  const History positive = parse_history("t0 1 2 contains 9 -> true");
  EXPECT_TRUE(check_multiset(positive, filter_multiset()).linearizable());
  EXPECT_TRUE(check_multiset(positive, exact_multiset()).not_linearizable());
  const History negative = parse_history(R"(
    t0 1 2 insert 9 0 -> inserted
    t0 3 4 contains 9 -> false
  )");
  EXPECT_TRUE(check_multiset(negative, filter_multiset()).not_linearizable());
}

TEST(Linearizability, EraseOfAbsentKeyNeedsTheAliasingRelaxation) {
  const History h = parse_history(R"(
    t0 1 2 erase 9 -> true
    t0 3 4 contains 9 -> false
  )");
  EXPECT_TRUE(check_multiset(h, filter_multiset()).not_linearizable());
  EXPECT_TRUE(check_multiset(h, MultisetSpec::filter(std::nullopt, true)).linearizable());
  // erase false of a present key is never allowed.
  const History present = parse_history(R"(
    t0 1 2 insert 9 0 -> inserted
    t0 3 4 erase 9 -> false
  )");
  EXPECT_TRUE(check_multiset(present, MultisetSpec::filter(std::nullopt, true)).not_linearizable());
}

TEST(Linearizability, DuplicateLimitAgainstKnownMaxCopies) {
  const History at_limit = parse_history(R"(
    t0 1 2 insert 4 0 -> inserted
    t0 3 4 insert 4 0 -> inserted
    t0 5 6 insert 4 0 -> duplicate_limit
  )");
  EXPECT_TRUE(check_multiset(at_limit, MultisetSpec::filter(2)).linearizable());
  EXPECT_TRUE(check_multiset(at_limit, MultisetSpec::filter(3)).not_linearizable());
  EXPECT_TRUE(check_multiset(at_limit, MultisetSpec::filter()).linearizable())
      << "unknown max_copies: duplicate_limit is accepted";
  const History past_limit = parse_history(R"(
    t0 1 2 insert 4 0 -> inserted
    t0 3 4 insert 4 0 -> inserted
    t0 5 6 insert 4 0 -> inserted
  )");
  EXPECT_TRUE(check_multiset(past_limit, MultisetSpec::filter(2)).not_linearizable());
  EXPECT_TRUE(check_multiset(past_limit, MultisetSpec::filter()).linearizable());
}

TEST(Linearizability, FullAndForeignOutcomes) {
  const History multiset_full = parse_history(R"(
    t0 1 2 insert 4 0 -> inserted
    t0 3 4 insert 4 0 -> full
  )");
  EXPECT_TRUE(check_multiset(multiset_full, exact_multiset()).linearizable());
  const History multiset_exists = parse_history("t0 1 2 insert 4 0 -> exists");
  EXPECT_TRUE(check_multiset(multiset_exists, exact_multiset()).not_linearizable());

  EXPECT_TRUE(check_map(parse_history("t0 1 2 insert 4 1 -> full")).linearizable());
  const History map_full_when_present = parse_history(R"(
    t0 1 2 insert 4 1 -> inserted
    t0 3 4 insert_or_assign 4 2 -> full
  )");
  EXPECT_TRUE(check_map(map_full_when_present).not_linearizable());
  for (const char* foreign :
       {"t0 1 2 insert 4 1 -> duplicate_limit", "t0 1 2 insert 4 1 -> updated",
        "t0 1 2 insert_or_assign 4 1 -> exists"}) {
    EXPECT_TRUE(check_map(parse_history(foreign)).not_linearizable()) << foreign;
  }
}

// -------------------------------------------------------------------------- size()

TEST(Linearizability, SizeOutsideItsBoundsIsAViolation) {
  const History low = parse_history(R"(
    t0 1 2 insert 1 0 -> inserted
    t1 3 4 size -> 0
  )");
  const CheckResult result = check_multiset(low, exact_multiset());
  ASSERT_TRUE(result.not_linearizable());
  EXPECT_EQ(violation_of(result).key, std::nullopt);
  EXPECT_NE(violation_of(result).explanation.find("between 1 and 1"), std::string::npos)
      << result.describe();
  const History high = parse_history(R"(
    t0 1 2 insert 1 0 -> inserted
    t1 1 4 size -> 2
  )");
  EXPECT_TRUE(check_multiset(high, exact_multiset()).not_linearizable());
  const History overlapping = parse_history(R"(
    t0 1 2 insert 1 0 -> inserted
    t0 3 6 erase 1 -> true
    t1 4 5 size -> 0
    t1 7 8 size -> 0
  )");
  EXPECT_TRUE(check_multiset(overlapping, exact_multiset()).linearizable());
}

TEST(Linearizability, SizeBoundCheckIsWeakerThanTheWholeHistorySearch) {
  // Keys 1 and 2 are never present at the same time, so size() cannot return 2; each key
  // alone allows it, and so do the counting bounds (0 <= 2 <= 2).
  const History h = parse_history(R"(
    t9 0 9 size -> 2
    t0 1 2 insert_or_assign 1 5 -> inserted
    t0 3 4 erase 1 -> true
    t0 5 6 insert 2 6 -> inserted
    t0 7 8 erase 2 -> true
  )");
  EXPECT_TRUE(check_map(h).linearizable());
  const CheckResult whole = check_map(h, {.partition_by_key = false});
  ASSERT_TRUE(whole.not_linearizable());
  EXPECT_TRUE(violation_of(whole).whole_history);
  EXPECT_NE(whole.describe().find("NOT linearizable: the whole history"), std::string::npos);
  EXPECT_NE(violation_of(whole).explanation.find("t9 0 9 size -> 2: size returned 2 but"),
            std::string::npos)
      << whole.describe();
}

TEST(Linearizability, SizeBoundsUnderTheAliasingRelaxation) {
  // The erase may have removed another key's fingerprint, so the insert may still count.
  const History h = parse_history(R"(
    t0 1 2 insert 1 0 -> inserted
    t0 3 4 erase 2 -> true
    t0 5 6 size -> 1
  )");
  EXPECT_TRUE(check_multiset(h, MultisetSpec::filter(std::nullopt, true)).linearizable());
}

TEST(Linearizability, SizeRejectPolicyRefusesHistoriesWithSize) {
  const History h = parse_history("t0 1 2 size -> 0");
  EXPECT_THROW(check_map(h, {.size_check = SizeCheck::kReject}), std::invalid_argument);
  EXPECT_TRUE(
      check_map(h, {.partition_by_key = false, .size_check = SizeCheck::kReject}).linearizable())
      << "the whole-history search checks size() exactly and ignores the policy";
}

// ---------------------------------------------------------------- validation, bounds

TEST(Linearizability, MalformedHistoriesAreRejected) {
  History backwards = parse_history("t0 1 2 contains 1 -> false");
  backwards[0].invoke_stamp = 3;
  EXPECT_THROW(check_map(backwards), std::invalid_argument);
  History wrong_type = parse_history("t0 1 2 contains 1 -> false");
  wrong_type[0].result = InsertOutcome::kInserted;
  EXPECT_THROW(check_map(wrong_type), std::invalid_argument);
  try {
    check_multiset(parse_history("t0 1 2 find 1 -> none"));
    ADD_FAILURE() << "find accepted by the multiset specification";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("find is not defined by the multiset"), std::string::npos)
        << e.what();
  }
}

// `width` inserts and width + 1 successful erases of key 5, all overlapping: not
// linearizable, and the search must try every order of every subset to find out.
History wide_adversarial_history(std::uint64_t width) {
  History h;
  for (std::uint64_t i = 0; i < 2 * width + 1; ++i) {
    Operation op;
    op.thread = static_cast<std::uint32_t>(i);
    op.key = 5;
    op.invoke_stamp = i;
    op.response_stamp = 1000 + i;
    op.kind = i < width ? OpKind::kInsert : OpKind::kErase;
    op.result = i < width ? Result{InsertOutcome::kInserted} : Result{true};
    h.push_back(op);
  }
  return h;
}

TEST(Linearizability, WorkBoundGivesTooLargeToDecide) {
  History h = wide_adversarial_history(12);
  h.push_back(parse_history("t0 1 2 insert 1 0 -> inserted")[0]);
  const CheckResult result = check_multiset(h, exact_multiset(), {.max_steps_per_partition = 1000});
  ASSERT_TRUE(result.undecided()) << result.describe();
  const auto& undecided = std::get<TooLargeToDecide>(result.verdict);
  EXPECT_EQ(undecided.key, std::optional<std::uint64_t>{5});
  EXPECT_EQ(undecided.steps, 1000U);
  EXPECT_EQ(undecided.ops, 25U);
  EXPECT_EQ(result.stats.partitions, 2U) << "the other key is still checked";
  EXPECT_NE(result.describe().find("max_steps_per_partition"), std::string::npos);

  // A violation elsewhere outranks an undecided key.
  h.push_back(parse_history("t0 3 4 contains 1 -> false")[0]);
  const CheckResult with_violation =
      check_multiset(h, exact_multiset(), {.max_steps_per_partition = 1000});
  ASSERT_TRUE(with_violation.not_linearizable());
  EXPECT_EQ(violation_of(with_violation).key, std::optional<std::uint64_t>{1});

  // A narrower one is decided within the default bound, and memoization shows up.
  const CheckResult narrow = check_multiset(wide_adversarial_history(5), exact_multiset());
  ASSERT_TRUE(narrow.not_linearizable()) << narrow.describe();
  EXPECT_GT(narrow.stats.cache_hits, 0U);
  EXPECT_EQ(check_multiset(wide_adversarial_history(12), exact_multiset(),
                           {.max_steps_per_partition = 1000, .partition_by_key = false})
                .undecided(),
            true);
}

// ------------------------------------------ cross-checks on random small histories

// Independent reference: plain Wing & Gong without memoization or linked lists, over the
// whole history with the product specification (size() exact).
template <class Spec>
bool brute_force_linearizable(const History& h, const Spec& spec) {
  const detail::WholeHistorySpec<Spec> whole(spec);
  std::vector<bool> placed(h.size(), false);
  std::function<bool(const typename detail::WholeHistorySpec<Spec>::State&, std::size_t)> extend =
      [&](const auto& state, std::size_t count) -> bool {
    if (count == h.size()) return true;
    for (std::size_t i = 0; i < h.size(); ++i) {
      if (placed[i]) continue;
      bool minimal = true;  // no unplaced op must come before h[i]
      for (std::size_t j = 0; j < h.size() && minimal; ++j) {
        minimal = placed[j] || j == i || !precedes(h[j], h[i]);
      }
      if (!minimal) continue;
      const auto next = whole.apply(state, h[i], nullptr);
      if (!next) continue;
      placed[i] = true;
      const bool ok = extend(*next, count + 1);
      placed[i] = false;
      if (ok) return true;
    }
    return false;
  };
  return extend(whole.initial(), 0);
}

// A random history over a few keys: a legal sequential run (each result drawn among the
// results the specification allows) spread over overlapping intervals around increasing
// linearization points, so it is linearizable; then, half of the time, one result is
// replaced by a random one of the right type, which may or may not break it.
template <class Spec>
History random_history(SplitMix64& rng, const Spec& spec, const std::vector<OpKind>& kinds,
                       std::size_t ops, std::uint64_t keys) {
  const detail::WholeHistorySpec<Spec> whole(spec);
  auto state = whole.initial();
  auto random_result = [&rng](OpKind kind, std::uint64_t value) -> Result {
    switch (kind) {
      case OpKind::kInsert:
      case OpKind::kInsertOrAssign:
      case OpKind::kUpsertAdd:
      case OpKind::kUpraseDec:
        return kAllInsertOutcomes[rng.below(std::size(kAllInsertOutcomes))];
      case OpKind::kErase:
      case OpKind::kContains:
      case OpKind::kUpdateAdd:
      case OpKind::kEraseIfOdd: return rng.below(2) == 1;
      case OpKind::kFind:
        if (rng.below(3) == 0) return std::optional<std::uint64_t>{};
        return std::optional<std::uint64_t>{rng.below(2) == 0 ? value : 1 + rng.below(3)};
      case OpKind::kSize: return SizeResult{rng.below(4)};
    }
    return false;
  };
  History h;
  for (std::size_t i = 0; i < ops; ++i) {
    Operation op;
    op.thread = static_cast<std::uint32_t>(i % 3);
    op.kind = kinds[rng.below(kinds.size())];
    op.key = kind_has_key(op.kind) ? rng.below(keys) : 0;
    op.value = kind_has_value(op.kind) ? 1 + rng.below(3) : 0;
    const std::uint64_t point = 10 * i + 20;
    op.invoke_stamp = point - rng.below(20);
    op.response_stamp = point + rng.below(20);
    // Draw results until a legal one comes up; a legal one always exists for these kinds
    // (insert: full, or inserted/exists/updated), and 64 draws make a miss negligible.
    constexpr int kMaxDraws = 64;
    bool legal = false;
    for (int draw = 0; draw < kMaxDraws && !legal; ++draw) {
      op.result = random_result(op.kind, op.value);
      if (op.kind == OpKind::kSize) {
        std::uint64_t stored = 0;
        for (const auto& [key, key_state] : state) stored += spec.size_of(key_state);
        op.result = SizeResult{stored};
      }
      if constexpr (std::is_same_v<Spec, MapSpec>) {
        // The adds can take a value anywhere: after half the draws, find answers the
        // value the sequential run holds.
        if (op.kind == OpKind::kFind && draw >= kMaxDraws / 2) {
          std::optional<std::uint64_t> held;
          for (const auto& [key, key_state] : state) {
            if (key == op.key) held = key_state;
          }
          op.result = held;
        }
      }
      if (auto next = whole.apply(state, op, nullptr)) {
        state = std::move(*next);
        legal = true;
      }
    }
    if (!legal) {
      ADD_FAILURE() << "no legal result drawn for " << format_operation(op);
      return h;
    }
    h.push_back(op);
  }
  if (!h.empty() && rng.below(2) == 0) {
    Operation& victim = h[rng.below(h.size())];
    victim.result = random_result(victim.kind, victim.value);
  }
  return h;
}

struct CrossCheckTally {
  int linearizable = 0;
  int not_linearizable = 0;
};

// Fills `tally`; a disagreement is a fatal failure (checked with HasFatalFailure()).
template <class Spec>
void cross_check(const Spec& spec, const std::vector<OpKind>& kinds, int histories,
                 std::uint64_t seed, CrossCheckTally& tally) {
  SplitMix64 rng(seed);
  const bool has_size = std::find(kinds.begin(), kinds.end(), OpKind::kSize) != kinds.end();
  for (int i = 0; i < histories; ++i) {
    const History h = random_history(rng, spec, kinds, 3 + rng.below(6), 1 + rng.below(3));
    const CheckResult whole = check_linearizability(h, spec, {.partition_by_key = false});
    const bool reference = brute_force_linearizable(h, spec);
    ASSERT_FALSE(whole.undecided());
    ASSERT_EQ(whole.linearizable(), reference)
        << spec.name() << " seed=0x" << std::hex << seed << std::dec << " history " << i << "\n"
        << dump_history(h) << whole.describe();
    if (!has_size) {
      const CheckResult partitioned = check_linearizability(h, spec);
      ASSERT_FALSE(partitioned.undecided());
      ASSERT_EQ(partitioned.linearizable(), reference)
          << spec.name() << " seed=0x" << std::hex << seed << std::dec << " history " << i << "\n"
          << dump_history(h) << partitioned.describe();
    }
    (reference ? tally.linearizable : tally.not_linearizable)++;
  }
}

TEST(LinearizabilityCrossCheck, PartitionedWholeAndBruteForceAgreeForMultisets) {
  const std::vector<OpKind> kinds = {OpKind::kInsert, OpKind::kErase, OpKind::kContains};
  for (const MultisetSpec& spec :
       {exact_multiset(), filter_multiset(), MultisetSpec::filter(2, true)}) {
    CrossCheckTally tally;
    cross_check(spec, kinds, 400, kCrossCheckSeed, tally);
    if (HasFatalFailure()) return;
    EXPECT_GT(tally.linearizable, 100) << spec.name();
    EXPECT_GT(tally.not_linearizable, 20) << spec.name();
  }
}

TEST(LinearizabilityCrossCheck, PartitionedWholeAndBruteForceAgreeForMaps) {
  const std::vector<OpKind> kinds = {OpKind::kInsert, OpKind::kErase, OpKind::kContains,
                                     OpKind::kFind, OpKind::kInsertOrAssign};
  CrossCheckTally tally;
  cross_check(MapSpec{}, kinds, 600, kCrossCheckSeed + 1, tally);
  if (HasFatalFailure()) return;
  EXPECT_GT(tally.linearizable, 100);
  EXPECT_GT(tally.not_linearizable, 50);
}

// The concurrent maps' read-modify-write operations (upsert, update_fn, erase_fn,
// uprase_fn with the deterministic functions of history.hpp), with size(): the
// partitioned, whole-history and brute-force searches agree on the map specification.
TEST(LinearizabilityCrossCheck, ReadModifyWriteOperationsAgreeWithBruteForce) {
  const std::vector<OpKind> kinds = {OpKind::kInsert,    OpKind::kErase,      OpKind::kFind,
                                     OpKind::kUpsertAdd, OpKind::kUpdateAdd,  OpKind::kEraseIfOdd,
                                     OpKind::kUpraseDec, OpKind::kSize};
  CrossCheckTally tally;
  cross_check(MapSpec{}, kinds, 400, kCrossCheckSeed + 4, tally);
  if (HasFatalFailure()) return;
  EXPECT_GT(tally.linearizable, 100);
  EXPECT_GT(tally.not_linearizable, 40);
}

TEST(LinearizabilityCrossCheck, WholeHistorySearchWithSizeAgreesWithBruteForce) {
  const std::vector<OpKind> multiset_kinds = {OpKind::kInsert, OpKind::kErase, OpKind::kContains,
                                              OpKind::kSize};
  CrossCheckTally multiset;
  cross_check(exact_multiset(), multiset_kinds, 300, kCrossCheckSeed + 2, multiset);
  if (HasFatalFailure()) return;
  const std::vector<OpKind> map_kinds = {OpKind::kInsert, OpKind::kErase, OpKind::kFind,
                                         OpKind::kInsertOrAssign, OpKind::kSize};
  CrossCheckTally map;
  cross_check(MapSpec{}, map_kinds, 300, kCrossCheckSeed + 3, map);
  if (HasFatalFailure()) return;
  EXPECT_GT(multiset.not_linearizable + map.not_linearizable, 40);
  EXPECT_GT(multiset.linearizable + map.linearizable, 200);
}

}  // namespace
}  // namespace cuckoo::subjects
