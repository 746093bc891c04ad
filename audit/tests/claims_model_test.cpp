// Self-tests of the model-checked claim runners: the shrinker, the trace-check task body
// on a deliberately broken subject (it must FAIL with a small counterexample that still
// fails on replay), and every real model task on a small sample (it must PASS). Every
// failure prints the task's seed.
#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <set>
#include <string>

#include "cuckoo/audit/audit.hpp"
#include "cuckoo/audit/model_claims.hpp"
#include "cuckoo/subjects/replay.hpp"
#include "cuckoo/audit/shrink.hpp"
#include "cuckoo/audit/trace_check.hpp"
#include "cuckoo/subjects/trace_gen.hpp"
#include "cuckoo/cuckoo_filter.hpp"
#include "cuckoo/model/checker.hpp"
#include "cuckoo/model/multiset_model.hpp"

namespace {

using cuckoo::audit::TraceOutcome;
using cuckoo::model::Op;
using cuckoo::model::OpKind;
using cuckoo::model::Trace;

constexpr std::uint64_t kMasterSeed = 20261121;

// ---- the shrinker ----------------------------------------------------------------------

TEST(Shrink, FindsTheTwoOpsThatMatter) {
  Trace t;
  t.engine = "test";
  for (std::uint64_t k = 0; k < 200; ++k) t.add(Op::insert(k % 17));
  t.add(Op::contains(5));
  for (std::uint64_t k = 0; k < 100; ++k) t.add(Op::erase(k % 13));
  // Fails when an insert of 9 comes before a contains of 5.
  auto fails = [](const Trace& c) {
    bool saw = false;
    for (const auto& e : c.entries) {
      if (e.op.kind == OpKind::kInsert && e.op.key == 9) saw = true;
      if (saw && e.op.kind == OpKind::kContains && e.op.key == 5) return true;
    }
    return false;
  };
  ASSERT_TRUE(fails(t));
  const cuckoo::audit::ShrinkResult r = cuckoo::audit::shrink_trace(t, fails);
  EXPECT_TRUE(fails(r.trace));
  EXPECT_TRUE(r.minimal);
  ASSERT_EQ(r.trace.size(), 2U);
  EXPECT_EQ(r.trace.entries[0].op, Op::insert(9));
  EXPECT_EQ(r.trace.entries[1].op, Op::contains(5));
}

TEST(Shrink, StopsAtTheAttemptBound) {
  Trace t;
  t.engine = "test";
  for (std::uint64_t k = 0; k < 500; ++k) t.add(Op::insert(k));
  const auto r = cuckoo::audit::shrink_trace(t, [](const Trace& c) { return c.size() > 3; }, 10);
  EXPECT_EQ(r.attempts, 10U);
  EXPECT_GT(r.trace.size(), 3U);
}

// ---- the task body on a broken filter ------------------------------------------------------

// A cuckoo filter that forgets its stash in contains(): a false negative once a kick walk
// has failed (tiny tables with max_kicks 1 get there within a few inserts).
class StashBlindFilter {
 public:
  explicit StashBlindFilter(cuckoo::CuckooFilter& f) : f_(f) {}
  cuckoo::InsertResult insert(std::uint64_t k) { return f_.insert(k); }
  bool contains(std::uint64_t k) const {
    const auto p = f_.placement(k);
    for (const std::uint32_t bucket : {p.bucket1, p.bucket2}) {
      for (unsigned s = 0; s < f_.slots_per_bucket(); ++s) {
        if (f_.fingerprint_at(bucket, s) == p.fingerprint) return true;
      }
    }
    return false;
  }
  bool erase(std::uint64_t k) { return f_.erase(k); }
  std::uint64_t size() const { return f_.size(); }
  std::uint64_t identity(std::uint64_t k) const {
    return cuckoo::subjects::filter_identity(f_.placement(k));
  }

 private:
  cuckoo::CuckooFilter& f_;
};

TraceOutcome check_stash_blind(const Trace& t) {
  const cuckoo::CuckooFilterConfig config = cuckoo::subjects::filter_config_from(t.parameters);
  cuckoo::CuckooFilter filter(config);
  StashBlindFilter subject(filter);
  cuckoo::model::MultisetModel model;
  TraceOutcome out;
  out.violation = cuckoo::model::check(subject, model, t, *config.seed);
  return out;
}

TEST(TraceCheck, BrokenFilterFailsWithASmallReplayableCounterexample) {
  cuckoo::audit::TraceCheckPlan plan;
  plan.claim = "C1";
  plan.engine = "filter";
  plan.configuration = "broken: contains ignores the stash";
  plan.checked = "contains";
  plan.traces = 200;
  plan.generate = [](std::uint64_t seed, std::size_t) {
    cuckoo::CuckooFilterConfig c;
    c.capacity = 8;
    c.slots_per_bucket = 2;
    c.fingerprint_bits = 12;
    c.max_kicks = 1;
    c.seed = seed;
    cuckoo::subjects::TraceShape shape;
    shape.ops = 200;
    shape.key_range = 32;
    return cuckoo::subjects::generate_trace("filter", cuckoo::subjects::parameters_of(c), shape, seed);
  };
  plan.check = check_stash_blind;
  const cuckoo::audit::ClaimResult r = cuckoo::audit::run_trace_check(plan, kMasterSeed, nullptr);
  ASSERT_EQ(r.verdict, cuckoo::audit::Verdict::kFail) << "seed " << kMasterSeed;
  ASSERT_TRUE(r.counterexample.has_value());
  const auto& cx = *r.counterexample;
  EXPECT_LT(cx.shrunk_ops, cx.original_ops);
  EXPECT_LE(cx.shrunk_ops, 20U) << cx.trace;
  EXPECT_NE(cx.explanation.find("VIOLATION"), std::string::npos) << cx.explanation;
  // The shrunk trace parses and still fails against the broken filter ...
  const Trace shrunk = cuckoo::model::parse_trace(cx.trace);
  EXPECT_EQ(shrunk.size(), cx.shrunk_ops);
  EXPECT_TRUE(check_stash_blind(shrunk).violation.has_value()) << cx.trace;
  // ... and passes against the real engine (replay.hpp reads the same header).
  EXPECT_FALSE(cuckoo::subjects::replay(shrunk).has_value()) << cx.trace;
}

// ---- the real tasks ------------------------------------------------------------------------

TEST(ModelClaims, CoverTheClaimsAndEngines) {
  cuckoo::audit::TaskList tasks;
  cuckoo::audit::add_model_claims(tasks, cuckoo::audit::Profile::kQuick);
  std::set<std::string> pairs;
  for (const auto& t : tasks) pairs.insert(t.claim + "/" + t.engine);
  for (const char* want : {"C1/filter", "C1/bloom", "C5/filter", "C6/filter", "C6/map", "C6/classic",
                           "C6/smart", "C7/map", "C7/classic", "C7/smart", "C8/smart", "C11/filter",
                           "C11/map", "C11/bloom"}) {
    EXPECT_EQ(pairs.count(want), 1U) << want;
  }
  EXPECT_EQ(cuckoo::audit::model_claim_sizes(cuckoo::audit::Profile::kStandard).traces,
            10 * cuckoo::audit::model_claim_sizes(cuckoo::audit::Profile::kQuick).traces);
}

TEST(ModelClaims, EveryTaskPassesOnTheEngines) {
  cuckoo::audit::ModelClaimSizes sizes;
  sizes.traces = 60;
  sizes.corruption_bases = 1;
  cuckoo::audit::TaskList tasks;
  cuckoo::audit::add_model_claims(tasks, sizes);
  cuckoo::audit::RunOptions options;
  bool saw_plot = false;
  for (const auto& task : tasks) {
    cuckoo::audit::TaskContext ctx;
    ctx.seed = cuckoo::audit::task_seed(kMasterSeed, task.claim, task.engine, task.configuration);
    ctx.options = &options;
    const cuckoo::audit::TaskOutput out = task.run(ctx);
    ASSERT_EQ(out.results.size(), 1U);
    const auto& r = out.results[0];
    EXPECT_EQ(r.verdict, cuckoo::audit::Verdict::kPass)
        << task.claim << " " << task.engine << " " << task.configuration << " seed " << ctx.seed
        << ": " << r.summary << "\n"
        << (r.counterexample ? r.counterexample->explanation : std::string());
    EXPECT_GT(r.samples, 0U);
    EXPECT_EQ(r.seed, ctx.seed);
    for (const auto& p : out.plots) {
      if (p.id == "c8-predictions-vs-oracle") {
        saw_plot = true;
        ASSERT_EQ(p.series.size(), 2U);
        EXPECT_FALSE(p.series[0].points.empty());
        // Exact prediction: the two series coincide point for point.
        ASSERT_EQ(p.series[0].points.size(), p.series[1].points.size());
        for (std::size_t i = 0; i < p.series[0].points.size(); ++i) {
          EXPECT_EQ(p.series[0].points[i].y, p.series[1].points[i].y);
        }
      }
    }
  }
  EXPECT_TRUE(saw_plot);
}

}  // namespace
