// The statistical claim tasks (audit/src/claims_statistical.cpp): every task passes on
// the project's engines at reduced sizes, with sane figures and its plots; and every rule
// a task applies rejects a worse subject (the same measurement routines, measure.hpp, fed
// a crippled engine or judged against a configuration it does not have).
//
// DISABLED_QuickProfileTiming runs the real quick profile and prints each task's time
// (run it in a release build: --gtest_also_run_disabled_tests).
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "cuckoo/audit/audit.hpp"
#include "cuckoo/audit/statistical_claims.hpp"
#include "cuckoo/subjects/stats.hpp"

namespace {

using cuckoo::audit::ClaimResult;
using cuckoo::audit::Figure;
using cuckoo::audit::Plot;
using cuckoo::audit::PlotKind;
using cuckoo::audit::Profile;
using cuckoo::audit::Task;
using cuckoo::audit::TaskContext;
using cuckoo::audit::TaskList;
using cuckoo::audit::TaskOutput;
using cuckoo::audit::Verdict;
namespace m = cuckoo::audit::measure;
namespace stats = cuckoo::subjects::stats;

constexpr std::uint64_t kMasterSeed = 20261121;

// Small enough for Debug + ASan, large enough for every window of measure.hpp (C3's
// windows hold from 2^12 slots up).
m::StatisticalSizes small_sizes() {
  m::StatisticalSizes s;
  s.c2_slots = std::uint64_t{1} << 12;
  s.c2_queries = {300, 20'000, 400'000};
  s.c3_slots = std::uint64_t{1} << 12;
  s.c3_trials = 12;
  s.c4_slots = std::uint64_t{1} << 12;
  s.c9_capacity = std::size_t{1} << 12;
  s.c9_tables = 2;
  s.c9_short_walk_capacity = std::size_t{1} << 11;
  s.c9_short_walk_tables = 4;
  s.c12_queries = 100'000;
  return s;
}

TaskContext context_for(const Task& task) {
  TaskContext ctx;
  ctx.seed = cuckoo::audit::task_seed(kMasterSeed, task.claim, task.engine, task.configuration);
  ctx.profile = Profile::kQuick;
  return ctx;
}

std::string describe(const ClaimResult& r) {
  std::string text = r.claim + " " + r.engine + " [" + r.configuration + "] " + to_string(r.verdict) + ": " +
                     r.summary + "\n";
  for (const Figure& f : r.figures) {
    text += "    " + f.name + " = " + std::to_string(f.value);
    if (f.bound) text += " " + f.relation + " " + std::to_string(*f.bound);
    if (!f.note.empty()) text += " (" + f.note + ")";
    text += "\n";
  }
  return text;
}

const Plot* find_plot(const std::vector<Plot>& plots, const std::string& id) {
  for (const Plot& p : plots) {
    if (p.id == id) return &p;
  }
  return nullptr;
}

TEST(ClaimsStatistical, QuickProfileHasOneTaskPerClaimEngineAndConfiguration) {
  TaskList tasks;
  cuckoo::audit::add_statistical_claims(tasks, Profile::kQuick);
  std::map<std::string, int> per_claim;
  std::set<std::string> names;
  for (const Task& t : tasks) {
    ++per_claim[t.claim];
    EXPECT_TRUE(t.run) << t.claim;
    EXPECT_GT(t.cost, 0);
    EXPECT_TRUE(names.insert(t.claim + "/" + t.engine + "/" + t.configuration).second)
        << "two tasks share a name: " << t.claim << " " << t.engine << " " << t.configuration;
  }
  EXPECT_EQ(per_claim["C2"], 4);  // one per b, each covering every f
  EXPECT_EQ(per_claim["C3"], 4);
  EXPECT_EQ(per_claim["C4"], 3);  // filter unsorted and semi-sorted, bloom
  EXPECT_EQ(per_claim["C9"], 3);  // classic 500, classic 8, smart
  EXPECT_EQ(per_claim["C12"], 6);
  EXPECT_EQ(per_claim.size(), 5U);

  // Profiles grow the samples, never shrink them.
  const m::StatisticalSizes quick = m::statistical_sizes(Profile::kQuick);
  const m::StatisticalSizes standard = m::statistical_sizes(Profile::kStandard);
  const m::StatisticalSizes full = m::statistical_sizes(Profile::kFull);
  EXPECT_GE(quick.c2_fingerprint_bits.size(), 3U);
  EXPECT_LT(quick.c2_slots, standard.c2_slots);
  EXPECT_LT(standard.c2_slots, full.c2_slots);
  EXPECT_LT(quick.c3_trials, standard.c3_trials);
  EXPECT_LT(standard.c3_trials, full.c3_trials);
  EXPECT_LT(quick.c12_queries, standard.c12_queries);
}

TEST(ClaimsStatistical, EveryTaskPassesWithFiguresAndPlots) {
  const m::StatisticalSizes sizes = small_sizes();
  TaskList tasks;
  m::add_statistical_tasks(tasks, sizes);
  std::vector<Plot> plots;
  std::map<std::string, int> results_per_claim;
  for (const Task& task : tasks) {
    const TaskContext ctx = context_for(task);
    const TaskOutput out = task.run(ctx);
    ASSERT_FALSE(out.results.empty()) << task.claim << " " << task.configuration;
    for (const ClaimResult& r : out.results) {
      ++results_per_claim[r.claim];
      EXPECT_EQ(r.claim, task.claim);
      EXPECT_EQ(r.engine, task.engine);
      if (r.claim == "C4" && r.engine == "filter" && r.configuration.starts_with("semi-sorted")) {
        // Fan et al.'s statement: below a Bloom filter of the same rate, at every target.
        ASSERT_FALSE(r.figures.empty());
        const Figure& bits = r.figures.front();
        ASSERT_TRUE(bits.bound.has_value()) << describe(r);
        EXPECT_LT(bits.value, *bits.bound) << describe(r);
        EXPECT_EQ(r.verdict, Verdict::kPass) << describe(r);
      } else if (r.claim == "C4" && r.engine == "filter") {
        // C4 as restated: each row checks the side of Bloom's 1.44 log2(1/eps) that
        // f / 0.95 predicts (without semi-sorting a b=4 filter is above it for eps of
        // about 0.3% and more). Every row passes or fails on that text; none is skipped.
        ASSERT_FALSE(r.figures.empty());
        const Figure& bits = r.figures.front();
        ASSERT_TRUE(bits.bound.has_value()) << describe(r);
        const bool below = bits.value < *bits.bound;
        const double f = std::stod(r.configuration.substr(r.configuration.find(" f=") + 3));
        const bool predicted_below = f / 0.95 < *bits.bound;
        EXPECT_EQ(bits.relation, predicted_below ? "<" : ">") << describe(r);
        EXPECT_EQ(r.verdict, below == predicted_below ? Verdict::kPass : Verdict::kFail) << describe(r);
        EXPECT_NE(r.verdict, Verdict::kSkipped) << describe(r);
        EXPECT_NE(r.summary.find(predicted_below ? "below" : "above"), std::string::npos) << describe(r);
      } else {
        EXPECT_EQ(r.verdict, Verdict::kPass) << describe(r);
      }
      EXPECT_EQ(r.seed, ctx.seed);
      EXPECT_GT(r.samples, 0U) << describe(r);
      EXPECT_FALSE(r.summary.empty());
      EXPECT_FALSE(r.configuration.empty());
      EXPECT_GE(r.figures.size(), 3U) << describe(r);
      for (const Figure& f : r.figures) {
        EXPECT_TRUE(std::isfinite(f.value)) << f.name << " in " << describe(r);
        if (f.ci_low && f.ci_high) {
          EXPECT_LE(*f.ci_low, f.value) << f.name << " in " << describe(r);
          EXPECT_GE(*f.ci_high, f.value) << f.name << " in " << describe(r);
        }
        if (f.bound) {
          EXPECT_FALSE(f.relation.empty()) << f.name << " in " << describe(r);
        }
      }
      std::printf("%s", describe(r).c_str());
    }
    for (const Plot& p : out.plots) plots.push_back(p);
  }
  EXPECT_EQ(results_per_claim["C2"], static_cast<int>(4 * sizes.c2_fingerprint_bits.size()));
  EXPECT_EQ(results_per_claim["C4"], 16);  // six target rates, filter and bloom; four semi-sorted

  // C2: per b one measured series (every f, with error bars) and one bound series.
  int c2_measured = 0;
  int c2_bounds = 0;
  for (const Plot& p : plots) {
    if (p.id != "c2-fpr-vs-bits") continue;
    EXPECT_EQ(p.claim, "C2");
    EXPECT_TRUE(p.log_y);
    for (const auto& s : p.series) {
      EXPECT_EQ(s.points.size(), sizes.c2_fingerprint_bits.size()) << s.name;
      if (s.bound) {
        ++c2_bounds;
        continue;
      }
      ++c2_measured;
      for (const auto& pt : s.points) {
        EXPECT_GT(pt.y, 0.0) << s.name << " f=" << pt.x;
        ASSERT_TRUE(pt.y_low && pt.y_high) << s.name;
        EXPECT_LE(*pt.y_low, pt.y);
        EXPECT_GE(*pt.y_high, pt.y);
      }
    }
  }
  EXPECT_EQ(c2_measured, 4);
  EXPECT_EQ(c2_bounds, 4);

  const Plot* c3 = find_plot(plots, "c3-load-at-first-failure");
  ASSERT_NE(c3, nullptr);
  EXPECT_EQ(c3->kind, PlotKind::kPoints);
  EXPECT_EQ(c3->series.front().points.size(), sizes.c3_trials);
  for (const char* id : {"c4-bits-per-item", "c9-kicks-per-insert", "c9-false-failures"}) {
    const Plot* p = find_plot(plots, id);
    ASSERT_NE(p, nullptr) << id;
    EXPECT_FALSE(p->series.empty()) << id;
    EXPECT_FALSE(p->series.front().points.empty()) << id;
  }
  int c9_kick_series = 0;
  int c4_series = 0;
  for (const Plot& p : plots) {
    if (p.id == "c9-kicks-per-insert") c9_kick_series += static_cast<int>(p.series.size());
    if (p.id == "c4-bits-per-item") c4_series += static_cast<int>(p.series.size());
  }
  EXPECT_EQ(c9_kick_series, 3);  // classic 500, classic 8, smart
  EXPECT_EQ(c4_series, 5);  // cuckoo, semi-sorted cuckoo, Bloom, 1.44 log2(1/eps), log2(1/eps)
}

// ---- each rule rejects a worse subject -------------------------------------------------

TEST(ClaimsStatisticalTeeth, C2BoundRejectsADegradedFilter) {
  cuckoo::CuckooFilter filter(m::filter_config(std::uint64_t{1} << 12, 8, 4, 0xc2));
  (void)m::fill_to_first_failure(filter, std::uint64_t{1} << 13);
  const m::FilterFprMeasurement fm = m::measure_filter_fpr(filter, {300, 20'000, 400'000});
  EXPECT_TRUE(fm.within_bound()) << fm.count << " > " << fm.max_count;
  EXPECT_TRUE(fm.degraded_rejected()) << "a filter with f-1 effective bits: " << fm.worse_count
                                      << " false positives, within " << fm.max_count;
}

TEST(ClaimsStatisticalTeeth, C3WindowRejectsACrippledKickWalk) {
  constexpr unsigned kCrippledKicks = 4;
  for (const m::LoadWindow& w : m::kLoadWindows) {
    const m::LoadSample s = m::sample_loads(w, std::uint64_t{1} << 12, 8, kCrippledKicks, 0xc3'7ee7'0000ULL + w.b);
    EXPECT_FALSE(m::within(w, s)) << "b=" << w.b << " mean " << s.mean << " min " << s.min;
  }
}

TEST(ClaimsStatisticalTeeth, C4RuleRejectsAPoorlyLoadedFilter) {
  // One slot per bucket stops near load 0.5: f / 0.5 bits per item is far above a Bloom
  // filter's 1.44 log2(1/eps).
  const m::SpaceMeasurement s = m::measure_cuckoo_space(1e-3, 1, std::uint64_t{1} << 12, 0xc4, {300, 20'000, 400'000});
  EXPECT_TRUE(s.achieves_eps());
  EXPECT_FALSE(s.below_bloom()) << s.bits_per_item << " bits per item at load " << s.load;
  // The same routine with b = 4 at eps = 1e-3 is below it (the claim's regime).
  const m::SpaceMeasurement good = m::measure_cuckoo_space(1e-3, 4, std::uint64_t{1} << 12, 0xc4, {300, 20'000, 400'000});
  EXPECT_TRUE(good.below_bloom()) << good.bits_per_item << " >= " << good.bloom_bound;
  EXPECT_TRUE(good.achieves_eps());
}

TEST(ClaimsStatisticalTeeth, C4SemiSortedRuleRejectsTheUnsortedBits) {
  // At eps = 2.5% (f = 9) the semi-sorted filter's 8 / load bits are below a Bloom filter
  // of its rate; the unsorted filter's 9 / load bits, measured the same way, are not: the
  // rule tells the one saved bit apart.
  const m::FprQueries q{300, 20'000, 400'000};
  const m::SpaceMeasurement semi = m::measure_cuckoo_space(0.025, 4, std::uint64_t{1} << 12, 0xc4, q, true);
  const m::SpaceMeasurement plain = m::measure_cuckoo_space(0.025, 4, std::uint64_t{1} << 12, 0xc4, q, false);
  EXPECT_EQ(semi.f, plain.f);
  EXPECT_TRUE(semi.below_bloom_at_rate()) << semi.bits_per_item << " >= " << semi.bloom_at_rate;
  EXPECT_FALSE(plain.below_bloom_at_rate()) << plain.bits_per_item << " < " << plain.bloom_at_rate;
  EXPECT_TRUE(semi.achieves_eps());
}

TEST(ClaimsStatisticalTeeth, C9PinRejectsAShortWalk) {
  m::FalseFailureRun run;
  run.capacity = std::size_t{1} << 12;
  run.max_kicks = 2;
  run.tables = 2;
  run.seed_base = 0xc9;
  const std::vector<m::Band> bands = m::measure_classic_false_failures(run);
  EXPECT_GT(m::false_failures_in(bands, 0.0, 0.40), 0U) << "max_kicks = 2 passes the no-false-failure pin";
  EXPECT_EQ(m::impossible_inserts(bands), 0U);
}

TEST(ClaimsStatisticalTeeth, C12IntervalRejectsHalfTheBits) {
  const m::BloomCase c{1U << 18, (1U << 18) / 10, 7};
  const cuckoo::BloomFilter half = m::filled_bloom(c.bits / 2, c, 0xc12);
  EXPECT_FALSE(m::measure_bloom(half, c, 100'000).passes());
  const cuckoo::BloomFilter right = m::filled_bloom(c.bits, c, 0xc12);
  EXPECT_TRUE(m::measure_bloom(right, c, 100'000).passes());
}

TEST(ClaimsStatisticalStats, ClopperPearsonCoversTheEstimate) {
  // n = 10, no successes: the upper end is 1 - (alpha/2)^(1/n).
  const stats::RateInterval zero = stats::clopper_pearson(10, 0, 0.05);
  EXPECT_EQ(zero.low, 0.0);
  EXPECT_NEAR(zero.high, 1.0 - std::pow(0.025, 0.1), 1e-9);
  const stats::RateInterval all = stats::clopper_pearson(10, 10, 0.05);
  EXPECT_NEAR(all.low, std::pow(0.025, 0.1), 1e-9);
  EXPECT_EQ(all.high, 1.0);
  const stats::RateInterval mid = stats::clopper_pearson(1'000'000, 1000, 0.05);
  EXPECT_LT(mid.low, 1e-3);
  EXPECT_GT(mid.high, 1e-3);
  EXPECT_NEAR(mid.high - mid.low, 2 * 1.96 * std::sqrt(1e-3 / 1e6), 1e-5);
  EXPECT_THROW((void)stats::clopper_pearson(0, 0), std::invalid_argument);
  EXPECT_THROW((void)stats::clopper_pearson(5, 6), std::invalid_argument);
}

TEST(ClaimsStatistical, DISABLED_QuickProfileTiming) {
  TaskList tasks;
  cuckoo::audit::add_statistical_claims(tasks, Profile::kQuick);
  double total = 0;
  for (const Task& task : tasks) {
    const auto start = std::chrono::steady_clock::now();
    const TaskOutput out = task.run(context_for(task));
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    total += seconds;
    std::printf("%6.2f s  %s %s [%s]\n", seconds, task.claim.c_str(), task.engine.c_str(), task.configuration.c_str());
    for (const ClaimResult& r : out.results) std::printf("%s", describe(r).c_str());
  }
  std::printf("total %.2f s\n", total);
}

}  // namespace
