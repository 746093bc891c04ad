// Self-tests of the adapter audit (adapter.hpp): a correct exact set and the project's
// own cuckoo filter pass every claim that applies; a set that loses keys, a filter with
// too many false positives and a filter that loses items on a failed insert fail, with
// small counterexamples that still fail on replay_implementation.
#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <unordered_set>
#include <vector>

#include "cuckoo/audit/adapter.hpp"
#include "cuckoo/subjects/filter.hpp"
#include "cuckoo/cuckoo_filter.hpp"
#include "cuckoo/model/trace.hpp"

namespace {

using cuckoo::audit::AuditOptions;
using cuckoo::audit::ClaimResult;
using cuckoo::audit::ImplementationKind;
using cuckoo::audit::ImplementationTraits;
using cuckoo::audit::Report;
using cuckoo::audit::Verdict;

constexpr std::uint64_t kSeed = 20261121;

AuditOptions small_options() {
  AuditOptions o;
  o.seed = kSeed;
  o.traces = 40;
  o.fpr_queries = 20'000;
  return o;
}

const ClaimResult& result_for(const Report& r, const std::string& claim) {
  for (const auto& c : r.results) {
    if (c.claim == claim) return c;
  }
  throw std::runtime_error("no result for " + claim);
}

struct SetAdapter {
  std::unordered_set<std::uint64_t> set;
  bool insert(std::uint64_t k) { return set.insert(k).second; }
  bool contains(std::uint64_t k) const { return set.count(k) != 0; }
  bool erase(std::uint64_t k) { return set.erase(k) != 0; }
  std::uint64_t size() const { return set.size(); }
  void clear() { set.clear(); }
};

// Forgets a key when it is erased while 3 or more keys are stored: erases the wrong one.
struct LossySetAdapter : SetAdapter {
  bool erase(std::uint64_t k) {
    if (set.size() >= 3 && set.count(k) != 0) {
      set.erase(k);
      set.erase(set.begin());
      set.insert(k + 1'000'000);  // keep the size right so only lookups see it
      return true;
    }
    return SetAdapter::erase(k);
  }
};

ImplementationTraits set_traits(std::string name) {
  ImplementationTraits t;
  t.name = std::move(name);
  t.kind = ImplementationKind::kExactSet;
  return t;
}

TEST(AdapterAudit, UnorderedSetPassesEveryClaimThatApplies) {
  const Report r = cuckoo::audit::audit_implementation([] { return SetAdapter{}; },
                                                       set_traits("std.unordered_set"),
                                                       small_options());
  EXPECT_TRUE(r.all_passed());
  EXPECT_EQ(result_for(r, "C1").verdict, Verdict::kPass) << result_for(r, "C1").summary;
  EXPECT_EQ(result_for(r, "C7").verdict, Verdict::kPass) << result_for(r, "C7").summary;
  EXPECT_EQ(result_for(r, "C2").verdict, Verdict::kSkipped);
  EXPECT_EQ(r.subject, "std.unordered_set");
}

TEST(AdapterAudit, LossySetFailsWithAShrunkReplayableTrace) {
  const ImplementationTraits traits = set_traits("lossy.set");
  const Report r = cuckoo::audit::audit_implementation([] { return LossySetAdapter{}; }, traits,
                                                       small_options());
  EXPECT_FALSE(r.all_passed());
  const ClaimResult& c7 = result_for(r, "C7");
  ASSERT_EQ(c7.verdict, Verdict::kFail) << "seed " << kSeed;
  ASSERT_TRUE(c7.counterexample.has_value());
  EXPECT_LE(c7.counterexample->shrunk_ops, 8U) << c7.counterexample->trace;
  const cuckoo::model::Trace trace = cuckoo::model::parse_trace(c7.counterexample->trace);
  EXPECT_EQ(trace.engine, "lossy.set");
  EXPECT_TRUE(cuckoo::audit::replay_implementation([] { return LossySetAdapter{}; }, traits, trace));
  EXPECT_FALSE(cuckoo::audit::replay_implementation([] { return SetAdapter{}; }, traits, trace));
}

// The project's filter through the adapter, answering InsertResult.
struct EngineFilterAdapter {
  cuckoo::CuckooFilter filter{config()};
  static cuckoo::CuckooFilterConfig config() {
    cuckoo::CuckooFilterConfig c;
    c.capacity = 64;
    c.fingerprint_bits = 8;
    c.slots_per_bucket = 4;
    c.seed = 7;
    return c;
  }
  cuckoo::InsertResult insert(std::uint64_t k) { return filter.insert(k); }
  bool contains(std::uint64_t k) const { return filter.contains(k); }
  bool erase(std::uint64_t k) { return filter.erase(k); }
  std::uint64_t size() const { return filter.size(); }
  // The item a key is to the filter, so the model counts copies per item as it does.
  std::uint64_t identity(std::uint64_t k) const {
    return cuckoo::subjects::filter_identity(filter.placement(k));
  }
  std::uint64_t max_copies(std::uint64_t k) const { return filter.max_copies(k); }
};

ImplementationTraits filter_traits(std::string name) {
  ImplementationTraits t;
  t.name = std::move(name);
  t.kind = ImplementationKind::kApproximateFilter;
  t.fingerprint_bits = 8;
  t.slots_per_bucket = 4;
  t.capacity = 64;
  return t;
}

TEST(AdapterAudit, EngineFilterPassesC1C2C5C6) {
  const Report r = cuckoo::audit::audit_implementation([] { return EngineFilterAdapter{}; },
                                                       filter_traits("cuckoo.filter"),
                                                       small_options());
  for (const char* claim : {"C1", "C2", "C5", "C6"}) {
    EXPECT_EQ(result_for(r, claim).verdict, Verdict::kPass)
        << claim << ": " << result_for(r, claim).summary;
  }
  EXPECT_EQ(result_for(r, "C7").verdict, Verdict::kSkipped);
}

// Answers "maybe" for one key in eight: far above 2b/2^f for f = 8, b = 4.
struct LeakyFilterAdapter : EngineFilterAdapter {
  bool contains(std::uint64_t k) const { return (k % 8 == 3) || filter.contains(k); }
};

TEST(AdapterAudit, TooManyFalsePositivesFailC2) {
  const Report r = cuckoo::audit::audit_implementation([] { return LeakyFilterAdapter{}; },
                                                       filter_traits("leaky.filter"),
                                                       small_options());
  EXPECT_EQ(result_for(r, "C2").verdict, Verdict::kFail) << result_for(r, "C2").summary;
  EXPECT_EQ(result_for(r, "C1").verdict, Verdict::kPass);
}

// A bool filter that drops an item whenever an insert is refused (capacity 6 items).
struct DroppingFilterAdapter {
  std::unordered_multiset<std::uint64_t> items;
  bool insert(std::uint64_t k) {
    if (items.size() >= 6) {
      items.erase(items.begin());
      return false;
    }
    items.insert(k);
    return true;
  }
  bool contains(std::uint64_t k) const { return items.count(k) != 0; }
  bool erase(std::uint64_t k) {
    const auto it = items.find(k);
    if (it == items.end()) return false;
    items.erase(it);
    return true;
  }
  std::uint64_t size() const { return items.size(); }
};

TEST(AdapterAudit, LosingAnItemOnAFailedInsertFailsC6) {
  ImplementationTraits traits;
  traits.name = "dropping.filter";
  traits.capacity = 6;
  const Report r = cuckoo::audit::audit_implementation([] { return DroppingFilterAdapter{}; },
                                                       traits, small_options());
  const ClaimResult& c6 = result_for(r, "C6");
  ASSERT_EQ(c6.verdict, Verdict::kFail) << c6.summary;
  ASSERT_TRUE(c6.counterexample.has_value());
  EXPECT_LE(c6.counterexample->shrunk_ops, 10U) << c6.counterexample->trace;
  EXPECT_TRUE(cuckoo::audit::replay_implementation(
      [] { return DroppingFilterAdapter{}; }, traits,
      cuckoo::model::parse_trace(c6.counterexample->trace)));
  EXPECT_EQ(result_for(r, "C5").verdict, Verdict::kSkipped);  // bool insert
}

// Throws from insert once 6 keys are stored.
struct ThrowingSetAdapter : SetAdapter {
  bool insert(std::uint64_t k) {
    if (set.size() >= 6) throw std::runtime_error("boom: table corrupted");
    return SetAdapter::insert(k);
  }
};

TEST(AdapterAudit, AnExceptionFromTheAdapterIsAFindingWithItsMessage) {
  const ImplementationTraits traits = set_traits("throwing.set");
  const Report r = cuckoo::audit::audit_implementation([] { return ThrowingSetAdapter{}; }, traits,
                                                       small_options());
  const ClaimResult& c1 = result_for(r, "C1");
  ASSERT_EQ(c1.verdict, Verdict::kFail);
  EXPECT_NE(c1.summary.find("boom: table corrupted"), std::string::npos) << c1.summary;
  ASSERT_TRUE(c1.counterexample.has_value());
  EXPECT_LE(c1.counterexample->shrunk_ops, 8U) << c1.counterexample->trace;
  EXPECT_TRUE(cuckoo::audit::replay_implementation(
      [] { return ThrowingSetAdapter{}; }, traits,
      cuckoo::model::parse_trace(c1.counterexample->trace)));
}

struct ThrowingQueriesFilterAdapter : EngineFilterAdapter {
  std::uint64_t queries = 0;
  bool contains(std::uint64_t k) {
    if (++queries > 1000) throw std::runtime_error("lost connection");
    return filter.contains(k);
  }
};

TEST(AdapterAudit, AnExceptionDuringTheC2MeasurementFailsC2) {
  AuditOptions o = small_options();
  o.claims = {"C2"};
  const Report r = cuckoo::audit::audit_implementation(
      [] { return ThrowingQueriesFilterAdapter{}; }, filter_traits("throwing.filter"), o);
  ASSERT_EQ(r.results.size(), 1U);
  EXPECT_EQ(r.results[0].verdict, Verdict::kFail);
  EXPECT_NE(r.results[0].summary.find("lost connection"), std::string::npos) << r.results[0].summary;
}

// A factory that throws: every trace fails, the audit does not throw.
TEST(AdapterAudit, AFactoryThatThrowsFailsTheTracesInsteadOfTheAudit) {
  AuditOptions o = small_options();
  o.claims = {"C1", "C7"};
  const Report r = cuckoo::audit::audit_implementation(
      []() -> SetAdapter { throw std::runtime_error("cannot connect"); }, set_traits("absent.set"), o);
  ASSERT_EQ(r.results.size(), 2U);
  for (const ClaimResult& c : r.results) {
    EXPECT_EQ(c.verdict, Verdict::kFail) << c.claim;
    EXPECT_NE(c.summary.find("cannot connect"), std::string::npos) << c.summary;
  }
}

TEST(AdapterAudit, ClaimsSelectsWhatRunsAndRejectsOthers) {
  AuditOptions o = small_options();
  o.claims = {"C7"};
  const Report r = cuckoo::audit::audit_implementation([] { return SetAdapter{}; },
                                                       set_traits("std.unordered_set"), o);
  ASSERT_EQ(r.results.size(), 1U);
  EXPECT_EQ(r.results[0].claim, "C7");
  o.claims = {"C3"};
  EXPECT_THROW(cuckoo::audit::audit_implementation([] { return SetAdapter{}; },
                                                   set_traits("std.unordered_set"), o),
               cuckoo::audit::UsageError);
}

// A set that refuses inserts past 2000 keys: C6 above kSmallCapacity fills with distinct
// keys and runs within its lookup budget.
struct BoundedSetAdapter : SetAdapter {
  bool full = false;
  cuckoo::model::InsertResult insert(std::uint64_t k) {
    if (set.count(k) != 0) return cuckoo::model::InsertResult::kExists;
    if (set.size() >= 2000) return cuckoo::model::InsertResult::kFull;
    set.insert(k);
    return cuckoo::model::InsertResult::kInserted;
  }
};

TEST(AdapterAudit, C6AboveSmallCapacitiesFillsAndStaysWithinItsBudget) {
  ImplementationTraits traits = set_traits("bounded.set");
  traits.capacity = 2000;
  AuditOptions o = small_options();
  o.claims = {"C6"};
  const Report r = cuckoo::audit::audit_implementation([] { return BoundedSetAdapter{}; }, traits, o);
  ASSERT_EQ(r.results.size(), 1U);
  const ClaimResult& c6 = r.results[0];
  EXPECT_EQ(c6.verdict, Verdict::kPass) << c6.summary;
  const double traces = c6.figures.at(0).value;
  EXPECT_GE(traces, 1);
  EXPECT_LE(traces, static_cast<double>(cuckoo::audit::adapter_detail::kC6LookupBudget /
                                        cuckoo::audit::adapter_detail::c6_trace_cost(2000)) + 1);
  EXPECT_GE(c6.samples, 2000U);  // the fill alone
}

// prepare() sees each trace before its ops are performed, and the C2 plan in chunks.
struct PreparingFilterAdapter : EngineFilterAdapter {
  std::vector<std::size_t>* plans;
  explicit PreparingFilterAdapter(std::vector<std::size_t>* p) : plans(p) {}
  void prepare(const cuckoo::model::Trace& t) { plans->push_back(t.size()); }
};

TEST(AdapterAudit, PrepareIsCalledWithWhatFollows) {
  std::vector<std::size_t> plans;
  AuditOptions o = small_options();
  o.claims = {"C1", "C2"};
  o.fpr_queries = 70'000;
  const Report r = cuckoo::audit::audit_implementation(
      [&plans] { return PreparingFilterAdapter(&plans); }, filter_traits("preparing.filter"), o);
  EXPECT_TRUE(r.all_passed());
  // 40 C1 traces, then C2: the inserts (95% of 64), then 65536 + 4464 queries.
  ASSERT_EQ(plans.size(), 40U + 3U);
  EXPECT_EQ(plans[40], 60U);
  EXPECT_EQ(plans[41], 65'536U);
  EXPECT_EQ(plans[42], 70'000U - 65'536U);
}

TEST(AdapterAudit, RejectsANameThatIsNotATraceName) {
  EXPECT_THROW(cuckoo::audit::audit_implementation([] { return SetAdapter{}; },
                                                   set_traits("has space"), small_options()),
               cuckoo::audit::UsageError);
}

}  // namespace
