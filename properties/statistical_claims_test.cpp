// Statistical claims (DESIGN.md section 4): C2 (cuckoo filter false positive rate), C3
// (load reached before the first failed insert), C9 (false failures of the classic
// random walk, measured against PlacementOracle) and C12 (Bloom filter false positive
// rate), plus self-tests of the binomial bounds they use (stats.hpp).
//
// Every measurement runs at fixed seeds, so a pass or a failure reproduces exactly, and
// every count is judged with an exact binomial tail at confidence kDefaultAlpha (1e-9):
// a correct engine cannot fail by bad luck at any seed with probability above 1e-9 per
// check, and the fixed seeds make it deterministic. Each claim test also runs a
// deliberately degraded subject through the same check and asserts that the check
// rejects it ("teeth"), so a check that could never fail would be caught.
//
// Figures are printed as tables and recorded with RecordProperty (they land in the JUnit
// XML). CUCKOO_PROPERTIES_FULL=1 runs larger samples. See properties/STATISTICS.md for
// the reasoning behind every bound and tolerance.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cuckoo/bloom_filter.hpp"
#include "cuckoo/classic_cuckoo.hpp"
#include "cuckoo/cuckoo_filter.hpp"
#include "cuckoo/model/placement_oracle.hpp"
#include "cuckoo/subjects/measure.hpp"
#include "cuckoo/subjects/stats.hpp"

namespace {

using cuckoo::BloomFilter;
using cuckoo::BloomFilterConfig;
using cuckoo::ClassicCuckoo;
using cuckoo::ClassicCuckooConfig;
using cuckoo::CuckooFilter;
using cuckoo::CuckooFilterConfig;
using cuckoo::InsertResult;
using cuckoo::OnInsertFailure;
using cuckoo::model::CandidatePair;
using cuckoo::model::PlacementOracle;
namespace stats = cuckoo::subjects::stats;

constexpr double kAlpha = stats::kDefaultAlpha;

bool full_lane() {
  const char* value = std::getenv("CUCKOO_PROPERTIES_FULL");
  return value != nullptr && std::string_view(value) == "1";
}

// Numbers for RecordProperty values: fixed-point with `digits` decimals, or `digits`
// significant digits in the shortest of fixed and scientific notation.
std::string fixed(double value, int digits) {
  std::array<char, 64> buffer{};
  const auto result = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value,
                                    std::chars_format::fixed, digits);
  return std::string(buffer.data(), result.ptr);
}

std::string general(double value, int digits) {
  std::array<char, 64> buffer{};
  const auto result = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value,
                                    std::chars_format::general, digits);
  return std::string(buffer.data(), result.ptr);
}

// ---------------------------------------------------------------------------------------
// Self-tests of stats.hpp
// ---------------------------------------------------------------------------------------

// P(X >= k) by direct summation of every term, for small n.
double direct_upper_tail(std::uint64_t n, std::uint64_t k, double p) {
  double sum = 0.0;
  for (std::uint64_t j = k; j <= n; ++j) {
    const double log_term = std::lgamma(static_cast<double>(n) + 1.0) -
                            std::lgamma(static_cast<double>(j) + 1.0) -
                            std::lgamma(static_cast<double>(n - j) + 1.0) +
                            static_cast<double>(j) * std::log(p) +
                            static_cast<double>(n - j) * std::log1p(-p);
    sum += std::exp(log_term);
  }
  return sum;
}

TEST(StatsSelfTest, ExactTailsMatchDirectSummation) {
  for (const std::uint64_t n : {1ULL, 7ULL, 40ULL, 200ULL}) {
    for (const double p : {0.001, 0.05, 0.3, 0.5, 0.93}) {
      for (std::uint64_t k = 0; k <= n; ++k) {
        const double direct = direct_upper_tail(n, k, p);
        const double upper = stats::binomial_upper_tail(n, k, p);
        EXPECT_NEAR(upper, direct, 1e-12 + 1e-9 * direct) << "n=" << n << " k=" << k << " p=" << p;
        const double lower = k == 0 ? 0.0 : stats::binomial_lower_tail(n, k - 1, p);
        EXPECT_NEAR(lower, 1.0 - direct, 1e-12 + 1e-9 * (1.0 - direct))
            << "n=" << n << " k=" << k << " p=" << p;
      }
    }
  }
}

TEST(StatsSelfTest, MaxAndMinCountsAreTheTightestSafeCounts) {
  for (const std::uint64_t n : {100ULL, 10'000ULL, 1'000'000ULL, 4'000'000ULL}) {
    for (const double p : {1e-4, 3e-3, 0.07, 0.5, 0.9}) {
      const std::uint64_t hi = stats::binomial_max_count(n, p, kAlpha);
      EXPECT_LE(stats::binomial_upper_tail(n, hi + 1, p), kAlpha) << n << " " << p;
      if (hi > 0) {
        EXPECT_GT(stats::binomial_upper_tail(n, hi, p), kAlpha) << n << " " << p;
      }
      EXPECT_GE(static_cast<double>(hi), static_cast<double>(n) * p);
      EXPECT_GE(stats::chernoff_max_count(n, p, kAlpha), hi) << "Chernoff must be looser";

      const std::uint64_t lo = stats::binomial_min_count(n, p, kAlpha);
      if (lo > 0) {
        EXPECT_LE(stats::binomial_lower_tail(n, lo - 1, p), kAlpha) << n << " " << p;
      }
      if (lo < n) {
        EXPECT_GT(stats::binomial_lower_tail(n, lo, p), kAlpha) << n << " " << p;
      }
      EXPECT_LE(static_cast<double>(lo), static_cast<double>(n) * p);
    }
  }
  // The bound is about 6 standard deviations at 1e-9 when n p is large.
  const std::uint64_t c = stats::binomial_max_count(1'000'000, 0.01, kAlpha);
  EXPECT_NEAR(stats::z_score(1'000'000, c, 0.01), 6.0, 0.3);
  EXPECT_EQ(stats::binomial_max_count(1000, 0.0, kAlpha), 0U);
  EXPECT_EQ(stats::binomial_max_count(1000, 1.5, kAlpha), 1000U);  // clamped to 1
  EXPECT_THROW((void)stats::binomial_max_count(1000, 0.5, 0.0), std::invalid_argument);
}

// ---------------------------------------------------------------------------------------
// C2: cuckoo filter false positive rate
// ---------------------------------------------------------------------------------------
//
// For a random absent key with hash h the filter compares fp(h) with the occupied slots
// of buckets i1(h), i2(h) and with stash entries of that bucket pair. One occupied slot
// holding v matches with probability P(fp = v); averaged over stored values that is the
// header's q = (2^f + 2) / 4^f (fingerprint 1 is twice as likely as the others, because
// hash value 0 maps to it). With s = 2 b L comparisons on average at load L (stash
// included in L), the rate is at most 1 - (1 - q)^s: per query fingerprint v the rate
// given v is 1 - (1 - P(v))^s, which is concave in P(v), so by Jensen its average over v
// is at most 1 - (1 - q)^s; varying bucket occupancy lowers it further (concavity in s).
//
// DESIGN.md writes the bound with 2^-f in place of q. For f = 4 that form is about 11%
// too low (q = 18/256 against 16/256) and measured rates exceed it; the table prints
// whether it holds ("nominal holds"), but only the bound with the header's q is asserted.
//
// Besides that claim, the exact rate of one concrete filter is computable from its
// contents: a query (i1, v) is a false positive iff an item with fingerprint v is stored
// for the bucket pair {i1, alt(i1, v)}, so
//     rate = (1 / n) * sum over distinct stored identities (pair, v) of P(v) * |pair|,
// with |pair| = 1 when both buckets coincide. The measured count must match it two-sided
// (this checks that lookups answer exactly what the table holds, and that i1 and fp are
// uniform and independent as the derivation in cuckoo_filter.hpp says).

// The measurement routines are shared with the auditor (cuckoo-audit's C2 task):
// audit/include/cuckoo/subjects/measure.hpp.
using cuckoo::subjects::measure::FilterFprMeasurement;
using cuckoo::subjects::measure::fill_to_first_failure;
using cuckoo::subjects::measure::filter_config;

// Queries needed so that the expected count at the bound is about 1000 (4000 in the full
// lane): enough that a filter with twice the rate lies far outside the 1e-9 tail.
cuckoo::subjects::measure::FprQueries fpr_queries() {
  if (full_lane()) return {4000.0, 200'000, 16'000'000};
  return {1000.0, 200'000, 4'000'000};
}

FilterFprMeasurement measure_filter_fpr(const CuckooFilter& filter) {
  return cuckoo::subjects::measure::measure_filter_fpr(filter, fpr_queries());
}

TEST(StatisticalClaims, C2FalsePositiveRateWithinBinomialBound) {
  const std::uint64_t slots = std::uint64_t{1} << 15;
  std::printf("C2: cuckoo filter false positive rate, %llu slots, alpha %.0e\n",
              static_cast<unsigned long long>(slots), kAlpha);
  std::printf("  %2s %2s %6s %7s | %10s %10s %10s | %9s %10s %10s %8s | %10s %8s | %s\n", "f", "b",
              "stage", "load", "bound", "nominal", "exact", "queries", "measured", "max_rate",
              "z(exact)", "degraded", "rejected", "nominal holds");
  for (const unsigned f : {4U, 8U, 12U}) {
    for (const unsigned b : {1U, 2U, 4U, 8U}) {
      const std::uint64_t seed = 0xc2'0000 + f * 16 + b;
      CuckooFilter full(filter_config(slots, f, b, seed));
      const std::uint64_t offered = fill_to_first_failure(full, 2 * slots);
      ASSERT_GT(full.stats().kick_failures, 0U) << "f=" << f << " b=" << b << " seed=" << seed;
      // The same keys, half of them: the rate below full load (DESIGN.md: "close to
      // load * 2b / 2^f below it").
      CuckooFilter half(filter_config(slots, f, b, seed));
      for (std::uint64_t key = 0; key < offered / 2; ++key) (void)half.insert(key);

      for (const auto& [stage, filter] :
           {std::pair<const char*, const CuckooFilter*>{"max", &full}, {"half", &half}}) {
        const FilterFprMeasurement m = measure_filter_fpr(*filter);
        const double q = static_cast<double>(m.queries);
        const bool degraded_rejected = m.worse_count > m.max_count;
        // DESIGN.md states the bound with 2^-f per slot; informational only (see above).
        const bool nominal_holds =
            m.count <= stats::binomial_max_count(m.queries, m.nominal, kAlpha);
        std::printf("  %2u %2u %6s %7.4f | %10.4g %10.4g %10.4g | %9llu %10.4g %10.4g %8.2f | %10.4g %8s | %s\n",
                    f, b, stage, m.load, m.bound, m.nominal, m.exact,
                    static_cast<unsigned long long>(m.queries), static_cast<double>(m.count) / q,
                    static_cast<double>(m.max_count) / q, stats::z_score(m.queries, m.count, m.exact),
                    static_cast<double>(m.worse_count) / q, degraded_rejected ? "yes" : "NO",
                    nominal_holds ? "yes" : "no");
        const std::string where = "f=" + std::to_string(f) + " b=" + std::to_string(b) + " " +
                                  stage + " load=" + fixed(m.load, 4) +
                                  " seed=" + std::to_string(seed);
        ::testing::Test::RecordProperty(
            "C2_f" + std::to_string(f) + "_b" + std::to_string(b) + "_" + stage,
            "load=" + fixed(m.load, 4) + " bound=" + general(m.bound, 5) +
                " exact=" + general(m.exact, 5) +
                " measured=" + general(static_cast<double>(m.count) / q, 5) +
                " queries=" + std::to_string(m.queries) +
                " degraded=" + general(static_cast<double>(m.worse_count) / q, 5) +
                " nominal_2^-f_bound_holds=" + (nominal_holds ? "yes" : "no"));
        // The claim: the count is within the 1e-9 binomial tail of the bound.
        EXPECT_LE(m.count, m.max_count)
            << "C2: " << m.count << " false positives in " << m.queries << " queries, but a rate of at most "
            << m.bound << " allows at most " << m.max_count << " (alpha " << kAlpha << "); " << where;
        // The lookup answers exactly what the table holds.
        EXPECT_TRUE(m.exact_interval.contains(m.count))
            << "C2 (exact): " << m.count << " false positives, outside [" << m.exact_interval.min_count
            << ", " << m.exact_interval.max_count << "] for this filter's exact rate " << m.exact << "; "
            << where;
        // Teeth: the degraded filter (about twice the rate) must fail the same check.
        EXPECT_TRUE(degraded_rejected)
            << "C2 check has no teeth: a filter with f-1 effective bits produced " << m.worse_count
            << " false positives, within the bound's " << m.max_count << "; " << where;
      }
    }
  }
}

// ---------------------------------------------------------------------------------------
// C3: load reached before the first failed insert
// ---------------------------------------------------------------------------------------
//
// Published (Fan et al. 2014, seed 004 section 1.2.2): 50%, 84%, 95%, 98% for b = 1, 2,
// 4, 8 with max_kicks = 500. The acceptance window for the mean over seeds, per table
// size, is [low, ceiling]:
//   low: published - 2 points for b >= 2 (the engine must reach about the published
//        load; the published figures come from other table sizes and hash functions);
//        published - 5 points for b = 1, whose first failure sits in a critical window of
//        width about (buckets)^(-1/3) around 50% (0.06 at 4096 buckets).
//   ceiling: the asymptotic threshold below which a placement of all items exists
//        (orientability of the random cuckoo graph: 0.5, 0.897, 0.980, ~0.998 for b = 1, 2,
//        4, 8), plus finite-size slack (b = 1: the same critical window; b = 2, 4: about 1
//        point; b = 8: capped at 1). A mean above the ceiling would mean the engine
//        does not notice failures.
// Single seeds: the minimum over seeds must stay above a hard floor (no seed may
// collapse), and the seeds below a tail load may be at most binomial_max_count(seeds,
// kTailProbability, alpha), i.e. consistent with at most 2% of seeds down there. The
// tail check is what makes the b = 1 bound independent of the number of seeds: its lower
// tail is heavy (an early component with two cycles ends the run at any load with a
// probability that grows toward 50%; a release run of 5000 seeds at 2^12 slots had its
// 1% quantile at 0.425, 0.1% at 0.33, minimum 0.25), so its hard floor is 0.20 and its
// tail load 0.40. For b >= 2 the distributions are narrow (thousands of seeds stay above
// 0.846, 0.953, 0.985): hard floor published - 4 points, tail load about 3 points below
// the measured means.

// The windows and the sampling are shared with the auditor (measure.hpp).
using cuckoo::subjects::measure::kLoadWindows;
using cuckoo::subjects::measure::kTailProbability;
using cuckoo::subjects::measure::LoadSample;
using cuckoo::subjects::measure::LoadWindow;
using cuckoo::subjects::measure::max_below_tail;
using cuckoo::subjects::measure::sample_loads;
using cuckoo::subjects::measure::within;

TEST(StatisticalClaims, C3LoadAtFirstFailureMatchesPublishedFigures) {
  const unsigned scale = full_lane() ? 4 : 1;
  struct Size {
    unsigned log2_slots;
    unsigned seeds;
  };
  const std::array<Size, 3> sizes = {{{12, 32 * scale}, {14, 12 * scale}, {16, 4 * scale}}};
  std::printf("C3: load at the first failed kick walk, f = 12, max_kicks = 500\n");
  std::printf("  %2s %6s %5s | %7s %7s %7s %7s | %9s %-28s | %s\n", "b", "slots", "seeds", "mean", "sd",
              "min", "max", "published", "window [low, ceiling], floor", "seeds below tail load (max)");
  for (const LoadWindow& w : kLoadWindows) {
    for (const Size& size : sizes) {
      const std::uint64_t slots = std::uint64_t{1} << size.log2_slots;
      const std::uint64_t seed_base = 0xc3'000000ULL + w.b * 0x10000ULL + size.log2_slots * 0x100ULL;
      const LoadSample s = sample_loads(w, slots, size.seeds, 500, seed_base);
      std::printf("  %2u   2^%2u %5u | %7.4f %7.4f %7.4f %7.4f | %9.2f [%.2f, %.2f], %.2f           | %u below %.3f (%llu)\n",
                  w.b, size.log2_slots, size.seeds, s.mean, s.sd, s.min, s.max, w.published, w.low, w.ceiling,
                  w.floor, s.below_tail, w.tail_load, static_cast<unsigned long long>(max_below_tail(s)));
      ::testing::Test::RecordProperty(
          "C3_b" + std::to_string(w.b) + "_slots2^" + std::to_string(size.log2_slots),
          "seeds=" + std::to_string(size.seeds) + " mean=" + fixed(s.mean, 4) +
              " sd=" + fixed(s.sd, 4) + " min=" + fixed(s.min, 4) + " max=" + fixed(s.max, 4) +
              " below_" + fixed(w.tail_load, 3) + "=" + std::to_string(s.below_tail) +
              " published=" + fixed(w.published, 2));
      EXPECT_GE(s.mean, w.low) << "C3 b=" << w.b << " slots=" << slots << " seeds from " << seed_base;
      EXPECT_LE(s.mean, w.ceiling) << "C3 b=" << w.b << " slots=" << slots << " seeds from " << seed_base;
      EXPECT_GE(s.min, w.floor) << "C3 b=" << w.b << " slots=" << slots << " seeds from " << seed_base;
      EXPECT_LE(s.below_tail, max_below_tail(s))
          << "C3 b=" << w.b << " slots=" << slots << ": " << s.below_tail << " of " << s.seeds
          << " seeds stay below load " << w.tail_load << ", more than a " << kTailProbability
          << " tail allows; seeds from " << seed_base;
    }
  }
}

TEST(StatisticalClaims, C3CheckRejectsACrippledKickWalk) {
  // Teeth: the same measurement with max_kicks = 4 (a kick bound that is far too small)
  // must fall outside the window for every b.
  constexpr unsigned kCrippledKicks = 4;
  for (const LoadWindow& w : kLoadWindows) {
    const LoadSample s =
        sample_loads(w, std::uint64_t{1} << 12, 16, kCrippledKicks, 0xc3'7ee7'0000ULL + w.b);
    std::printf("C3 teeth: b=%u max_kicks=%u mean %.4f min %.4f (window [%.2f, %.2f], floor %.2f)\n",
                w.b, kCrippledKicks, s.mean, s.min, w.low, w.ceiling, w.floor);
    EXPECT_FALSE(within(w, s)) << "C3 check accepts max_kicks = " << kCrippledKicks << " for b=" << w.b;
  }
}

// ---------------------------------------------------------------------------------------
// C9: false failures of the classic random walk
// ---------------------------------------------------------------------------------------
//
// ClassicCuckoo with OnInsertFailure::kReport gives up after max_kicks evictions. Before
// each insert the oracle (b = 1; vertex p0 in T0 and table_size + p1 in T1) decides
// whether the stored items plus the new one can be placed at all. A kFull for an item
// that fits is a false failure; a kInserted for one that cannot fit would be impossible
// (a violation). The figures are a measurement (C9 states no rate); two pins make sure
// the measurement is real:
//   - max_kicks = 8 near 50% load: false failures are common (walks in the nearly
//     critical graph are long), so the count in band [0.45, 0.50) must be nonzero;
//   - max_kicks = 1000 below 40% load: zero. A walk in a component that can take the item
//     (at most one cycle) ends within about twice its number of vertices, and below load
//     0.4 (mean degree 0.8, subcritical) components have O(log n) vertices, far below 500.

// The bands and the oracle walk are shared with the auditor (measure.hpp).
using cuckoo::subjects::measure::Band;

// Inserts fresh keys into `tables` tables of `capacity` slots until each reaches 55%
// load or refuses 200 inserts in a row; accumulates per-band outcomes.
std::vector<Band> measure_false_failures(std::size_t capacity, unsigned max_kicks, unsigned tables,
                                         std::uint64_t seed_base) {
  cuckoo::subjects::measure::FalseFailureRun run;
  run.capacity = capacity;
  run.max_kicks = max_kicks;
  run.tables = tables;
  run.seed_base = seed_base;
  run.stop_load = 0.55;
  run.max_refused_in_a_row = 200;
  return cuckoo::subjects::measure::measure_classic_false_failures(run);
}

void report_bands(const std::vector<Band>& bands, const std::string& label, const std::string& property) {
  std::printf("C9 %s\n", label.c_str());
  std::printf("  %-11s %9s %9s %8s %8s %12s\n", "load band", "attempts", "inserted", "true", "false",
              "false rate");
  for (const Band& b : bands) {
    if (b.attempts == 0) continue;
    const double rate = static_cast<double>(b.false_failures) / static_cast<double>(b.attempts);
    std::printf("  %4.2f-%4.2f %9llu %9llu %8llu %8llu %12.3e\n", b.lo, std::min(b.hi, 1.0),
                static_cast<unsigned long long>(b.attempts), static_cast<unsigned long long>(b.inserted),
                static_cast<unsigned long long>(b.true_failures),
                static_cast<unsigned long long>(b.false_failures), rate);
    ::testing::Test::RecordProperty(
        "C9_" + property + "_load" + fixed(b.lo, 2) + "-" + fixed(std::min(b.hi, 1.0), 2),
        "attempts=" + std::to_string(b.attempts) + " false_failures=" + std::to_string(b.false_failures) +
            " true_failures=" + std::to_string(b.true_failures) + " rate=" + general(rate, 3));
  }
}

using cuckoo::subjects::measure::false_failures_in;
using cuckoo::subjects::measure::impossible_inserts;

TEST(StatisticalClaims, C9FalseFailuresPerLoadBand) {
  const unsigned scale = full_lane() ? 4 : 1;
  struct Run {
    unsigned max_kicks;
    std::size_t capacity;
    unsigned tables;
  };
  for (const Run run : {Run{8, 1U << 12, 8 * scale}, Run{500, 1U << 14, 4 * scale},
                        Run{1000, 1U << 14, 4 * scale}}) {
    const std::uint64_t seed_base = 0xc9'000000ULL + run.max_kicks * 0x100ULL;
    const std::vector<Band> bands = measure_false_failures(run.capacity, run.max_kicks, run.tables, seed_base);
    report_bands(bands,
                 "max_kicks=" + std::to_string(run.max_kicks) + " capacity=" + std::to_string(run.capacity) +
                     " tables=" + std::to_string(run.tables),
                 "kicks" + std::to_string(run.max_kicks) + "_capacity" + std::to_string(run.capacity));
    EXPECT_EQ(impossible_inserts(bands), 0U)
        << "an insert succeeded that PlacementOracle says cannot be placed (max_kicks="
        << run.max_kicks << ", seeds from " << seed_base << ")";
    if (run.max_kicks == 8) {
      EXPECT_GT(false_failures_in(bands, 0.45, 0.50), 0U)
          << "C9 pin: with max_kicks = 8 false failures near 50% load are expected; the "
             "measurement sees none (seeds from "
          << seed_base << ")";
    }
    if (run.max_kicks == 1000) {
      EXPECT_EQ(false_failures_in(bands, 0.0, 0.40), 0U)
          << "C9 pin: max_kicks = 1000 must not fail a placeable insert below 40% load (seeds from "
          << seed_base << ")";
    }
  }
}

// ---------------------------------------------------------------------------------------
// C12: Bloom filter false positive rate
// ---------------------------------------------------------------------------------------
//
// Two checks per (m, n, k), both two-sided at alpha:
//   formula: the claim. The rate of a filter with S set bits is about (S/m)^k; S is
//     concentrated around E S = m (1 - (1 - 1/m)^(kn)) ~ m (1 - e^(-kn/m)): McDiarmid over
//     the n independent keys, each of which sets at most k bits, gives |S - E S| <= t
//     except with probability alpha. The count must lie in the binomial interval of
//     [((E S - t)/m)^k, ((E S + t)/m)^k], widened to include (1 - e^(-kn/m))^k itself.
//   conditional: given this filter's fill rho = S/m, the count must lie in the binomial
//     interval of rho^k (random probes hit set bits independently; double hashing makes
//     two probes coincide with probability about k^2/m, far below the binomial slack).
// Teeth: a filter with half the bits (same n and k) must fail the formula check for m.

// The measurement is shared with the auditor (measure.hpp).
using cuckoo::subjects::measure::BloomCase;
using cuckoo::subjects::measure::BloomMeasurement;
using cuckoo::subjects::measure::filled_bloom;
using cuckoo::subjects::measure::measure_bloom;

TEST(StatisticalClaims, C12BloomFalsePositiveRateMatchesFormula) {
  const std::uint64_t queries = full_lane() ? 4'000'000 : 1'000'000;
  const std::array<BloomCase, 6> cases = {{
      {1U << 20, (1U << 20) / 10, 7},   // optimal k for 10 bits per item
      {1U << 20, (1U << 20) / 10, 3},   // k below the optimum
      {1U << 20, (1U << 20) / 10, 12},  // k above the optimum
      {1U << 18, (1U << 18) / 5, 1},
      {1U << 18, (1U << 18) / 5, 3},    // optimal k for 5 bits per item
      {1U << 16, (1U << 16) / 16, 11},  // optimal k for 16 bits per item
  }};
  std::printf("C12: Bloom filter false positive rate, %llu queries, alpha %.0e\n",
              static_cast<unsigned long long>(queries), kAlpha);
  std::printf("  %8s %7s %2s %3s | %10s %10s %10s | %10s %10s %10s | %s\n", "m", "n", "k", "opt",
              "formula", "fill^k", "measured", "accept_lo", "accept_hi", "half-bits", "half rejected");
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const BloomCase& c = cases[i];
    const std::uint64_t seed = 0xc12'0000ULL + i;
    const BloomFilter filter = filled_bloom(c.bits, c, seed);
    const BloomMeasurement m = measure_bloom(filter, c, queries);
    // Teeth: half the bits, judged against the claim for the full m.
    const BloomFilter half = filled_bloom(c.bits / 2, c, seed);
    const BloomMeasurement mh = measure_bloom(half, c, queries);
    const bool half_rejected = !mh.formula_interval.contains(mh.count);
    const double qd = static_cast<double>(queries);
    std::printf("  %8llu %7llu %2u %3u | %10.4g %10.4g %10.4g | %10.4g %10.4g %10.4g | %s\n",
                static_cast<unsigned long long>(c.bits), static_cast<unsigned long long>(c.items), c.hashes,
                cuckoo::optimal_k(c.bits, c.items), m.formula, std::pow(m.fill, c.hashes),
                static_cast<double>(m.count) / qd, static_cast<double>(m.formula_interval.min_count) / qd,
                static_cast<double>(m.formula_interval.max_count) / qd, static_cast<double>(mh.count) / qd,
                half_rejected ? "yes" : "NO");
    const std::string where = "m=" + std::to_string(c.bits) + " n=" + std::to_string(c.items) +
                              " k=" + std::to_string(c.hashes) + " seed=" + std::to_string(seed);
    ::testing::Test::RecordProperty(
        "C12_m" + std::to_string(c.bits) + "_n" + std::to_string(c.items) + "_k" + std::to_string(c.hashes),
        "formula=" + general(m.formula, 5) + " measured=" + general(static_cast<double>(m.count) / qd, 5) +
            " fill=" + fixed(m.fill, 5) + " half_bits_measured=" + general(static_cast<double>(mh.count) / qd, 5));
    EXPECT_TRUE(m.fill_ok) << "C12 fill: " << m.fill << " of the bits set, outside [" << m.fill_low << ", "
                           << m.fill_high << "]; " << where;
    EXPECT_TRUE(m.formula_interval.contains(m.count))
        << "C12: " << m.count << " false positives in " << queries << " queries, outside ["
        << m.formula_interval.min_count << ", " << m.formula_interval.max_count << "] for (1-e^(-kn/m))^k = "
        << m.formula << "; " << where;
    EXPECT_TRUE(m.conditional_interval.contains(m.count))
        << "C12 (conditional): " << m.count << " false positives, outside [" << m.conditional_interval.min_count
        << ", " << m.conditional_interval.max_count << "] for fill^k = " << std::pow(m.fill, c.hashes) << "; "
        << where;
    EXPECT_TRUE(half_rejected) << "C12 check has no teeth: a filter with half the bits produced " << mh.count
                               << " false positives, inside [" << mh.formula_interval.min_count << ", "
                               << mh.formula_interval.max_count << "]; " << where;
  }
}

}  // namespace
