// The measurements behind the statistical claims C2, C3, C4, C9 and C12 (DESIGN.md
// section 4), shared by the auditor (audit/src/claims_statistical.cpp) and the property
// tests (properties/statistical_claims_test.cpp), so both judge exactly the same numbers.
// properties/STATISTICS.md explains every bound and tolerance; the comments here state
// what each routine measures and which check a correct engine passes at confidence
// stats::kDefaultAlpha (1e-9).
//
// Every routine is deterministic: keys are 0, 1, ... (or a stream derived from the given
// seed) and every engine is seeded explicitly, so a measurement reproduces exactly from
// its arguments. Sizes (table slots, queries, trials) are explicit parameters: the
// auditor scales them by profile, the tests pick small ones.
//
// Thread safety: none needed; every routine builds and owns its structures.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "cuckoo/subjects/stats.hpp"
#include "cuckoo/bloom_filter.hpp"
#include "cuckoo/classic_cuckoo.hpp"
#include "cuckoo/cuckoo_filter.hpp"
#include "cuckoo/model/placement_oracle.hpp"
#include "cuckoo/smart_cuckoo.hpp"

namespace cuckoo::subjects::measure {

inline constexpr double kAlpha = stats::kDefaultAlpha;

// Query keys have the top bit set; inserted keys never do, so every query is absent.
inline constexpr std::uint64_t kAbsentKeyBase = std::uint64_t{1} << 63;

// ---------------------------------------------------------------------------------------
// C2: cuckoo filter false positive rate
// ---------------------------------------------------------------------------------------
//
// The bound: with q = (2^f + 2) / 4^f the exact per-slot match probability (fingerprints
// are h mod 2^f with 0 mapped to 1, so fingerprint 1 is twice as likely) and s = 2 b L
// comparisons at load L, the rate is at most 1 - (1 - q)^s (Jensen: concave in P(v) and
// in s). DESIGN.md's 1 - (1 - 2^-f)^s is reported as `nominal`; it is not an upper bound
// at f = 4. The exact rate of one concrete filter is computable from its contents.

// How many absent keys to query: about target_count false positives expected at the
// bound, clamped to [min_queries, max_queries].
struct FprQueries {
  double target_count = 1000;
  std::uint64_t min_queries = 200'000;
  std::uint64_t max_queries = 4'000'000;

  std::uint64_t for_rate(double rate) const {
    const double wanted = rate > 0 ? std::ceil(target_count / rate) : static_cast<double>(max_queries);
    const double n = std::clamp(wanted, static_cast<double>(min_queries), static_cast<double>(max_queries));
    return static_cast<std::uint64_t>(n);
  }
};

struct FilterFprMeasurement {
  double load = 0;
  double q = 0;
  double bound = 0;        // 1 - (1 - q)^(2 b L), the claim
  double nominal = 0;      // 1 - (1 - 2^-f)^(2 b L), DESIGN.md's form (q ~ 2^-f)
  double exact = 0;        // this filter's exact rate from its contents
  std::uint64_t queries = 0;
  std::uint64_t count = 0;        // false positives of the filter
  std::uint64_t worse_count = 0;  // false positives of the degraded filter (f-1 bits)
  std::uint64_t max_count = 0;    // binomial_max_count(queries, bound)
  stats::BinomialInterval exact_interval;

  double rate() const { return queries == 0 ? 0.0 : static_cast<double>(count) / static_cast<double>(queries); }
  double worse_rate() const {
    return queries == 0 ? 0.0 : static_cast<double>(worse_count) / static_cast<double>(queries);
  }
  // The claim holds for this measurement.
  bool within_bound() const { return count <= max_count; }
  // The degraded filter is rejected by the same check (the check has teeth).
  bool degraded_rejected() const { return worse_count > max_count; }
};

// The per-slot match probability q = (2^f + 2) / 4^f and the bound 1 - (1 - q)^(2 b L).
inline double slot_match_probability(unsigned f) {
  const double fp_values = std::ldexp(1.0, static_cast<int>(f));
  return (fp_values + 2.0) / (fp_values * fp_values);
}

inline double filter_fpr_bound(unsigned f, unsigned b, double load) {
  return 1.0 - std::pow(1.0 - slot_match_probability(f), 2.0 * b * load);
}

// The exact false positive rate of this filter for a uniformly random absent key: a query
// (i1, v) is a false positive iff an item with fingerprint v is stored for the bucket
// pair {i1, alt(i1, v)}, so rate = (1/n) sum over distinct stored (pair, v) of P(v) |pair|.
template <class Filter>
double exact_filter_fpr(const Filter& filter) {
  const double fp_values = std::ldexp(1.0, static_cast<int>(filter.fingerprint_bits()));
  const auto prob = [&](std::uint32_t v) { return (v == 1 ? 2.0 : 1.0) / fp_values; };
  std::set<std::pair<std::uint32_t, std::uint32_t>> identities;  // (smaller bucket, fp)
  double sum = 0;
  const auto add = [&](std::uint32_t bucket, std::uint32_t fp) {
    const std::uint32_t other = filter.alt_bucket(bucket, fp);
    if (identities.insert({std::min(bucket, other), fp}).second) {
      sum += prob(fp) * (other == bucket ? 1.0 : 2.0);
    }
  };
  for (std::uint32_t i = 0; i < filter.bucket_count(); ++i) {
    for (unsigned s = 0; s < filter.slots_per_bucket(); ++s) {
      if (const std::uint32_t fp = filter.fingerprint_at(i, s); fp != 0) add(i, fp);
    }
  }
  for (const auto& entry : filter.stash()) add(entry.bucket1, entry.fingerprint);
  return sum / static_cast<double>(filter.bucket_count());
}

// Queries absent keys kAbsentKeyBase | i and counts false positives of the filter and of
// a degraded one: the same table, but a query also answers yes for the fingerprint with
// its lowest bit flipped, as if it had f - 1 bits (about twice the rate).
template <class Filter>
FilterFprMeasurement measure_filter_fpr(const Filter& filter, const FprQueries& sizes = {}) {
  FilterFprMeasurement m;
  const unsigned f = filter.fingerprint_bits();
  const unsigned b = filter.slots_per_bucket();
  const double fp_values = std::ldexp(1.0, static_cast<int>(f));
  m.load = filter.load_factor();
  m.q = slot_match_probability(f);
  const double comparisons = 2.0 * b * m.load;
  m.bound = filter_fpr_bound(f, b, m.load);
  m.nominal = 1.0 - std::pow(1.0 - 1.0 / fp_values, comparisons);
  m.exact = exact_filter_fpr(filter);
  m.queries = sizes.for_rate(m.bound);
  for (std::uint64_t i = 0; i < m.queries; ++i) {
    const std::uint64_t h = filter.hash_of(kAbsentKeyBase | i);
    const bool yes = filter.contains_hash(h);
    m.count += yes ? 1 : 0;
    m.worse_count += (yes || filter.contains_hash(h ^ 1U)) ? 1 : 0;
  }
  m.max_count = stats::binomial_max_count(m.queries, m.bound, kAlpha);
  m.exact_interval = stats::binomial_interval(m.queries, m.exact, kAlpha);
  return m;
}

inline CuckooFilterConfig filter_config(std::uint64_t slots, unsigned f, unsigned b, std::uint64_t seed,
                                        unsigned max_kicks = 500) {
  CuckooFilterConfig c;
  c.capacity = slots;
  c.fingerprint_bits = f;
  c.slots_per_bucket = b;
  c.max_kicks = max_kicks;
  c.seed = seed;
  return c;
}

// Inserts keys 0, 1, ... until the first insert whose kick walk fails (stats().kick_failures
// becomes nonzero; the homeless fingerprint goes to the stash) or `limit` keys. Returns
// the number of keys offered.
template <class Filter>
std::uint64_t fill_to_first_failure(Filter& filter, std::uint64_t limit) {
  std::uint64_t key = 0;
  while (filter.stats().kick_failures == 0 && key < limit) {  // bound: limit
    const InsertResult r = filter.insert(key++);
    if (r == InsertResult::kFull) break;  // the stash is full: cannot happen before a failure
  }
  return key;
}

// ---------------------------------------------------------------------------------------
// C3: load reached before the first failed insert
// ---------------------------------------------------------------------------------------
//
// Published (Fan et al. 2014): 50%, 84%, 95%, 98% for b = 1, 2, 4, 8 with max_kicks = 500.
// A sample of seeds is accepted iff its mean lies in [low, ceiling], its minimum is at
// least `floor`, and at most binomial_max_count(seeds, kTailProbability, alpha) seeds
// stay below `tail_load` (properties/STATISTICS.md, "C3", derives each number; the
// windows hold for tables of 2^12 to 2^16 slots and above).

struct LoadWindow {
  unsigned b;
  double published;
  double low;
  double ceiling;
  double floor;      // every seed reaches at least this load
  double tail_load;  // at most about kTailProbability of the seeds stay below it
};

inline constexpr std::array<LoadWindow, 4> kLoadWindows = {{
    {1, 0.50, 0.45, 0.56, 0.20, 0.40},
    {2, 0.84, 0.82, 0.91, 0.80, 0.85},
    {4, 0.95, 0.93, 0.99, 0.91, 0.95},
    {8, 0.98, 0.96, 1.00, 0.94, 0.985},
}};

inline constexpr double kTailProbability = 0.02;

// The fingerprint width C3 measures at (the load does not depend on it beyond the rare
// identical (bucket, fingerprint) pairs).
inline constexpr unsigned kLoadFingerprintBits = 12;

struct LoadSample {
  double mean = 0;
  double sd = 0;
  double min = 0;
  double max = 0;
  unsigned seeds = 0;
  unsigned below_tail = 0;    // seeds whose load is below the window's tail_load
  std::vector<double> loads;  // one per seed, in seed order
};

// The table load just before the first insert whose kick walk failed (1.0 if the table
// filled without one, possible for tiny tables only).
inline double load_at_first_failure(unsigned b, std::uint64_t slots, std::uint64_t seed, unsigned max_kicks) {
  CuckooFilter filter(filter_config(slots, kLoadFingerprintBits, b, seed, max_kicks));
  std::uint64_t key = seed << 32;  // distinct key streams per seed
  for (std::uint64_t offered = 0; offered < 2 * slots; ++offered) {  // bound: 2 * slots
    const std::uint64_t before = filter.size();
    (void)filter.insert(key++);
    if (filter.stats().kick_failures != 0) {
      return static_cast<double>(before) / static_cast<double>(filter.slot_count());
    }
  }
  return 1.0;
}

// Seeds seed_base, seed_base + 1, ..., seed_base + seeds - 1. REQUIRES: seeds >= 1.
inline LoadSample sample_loads(const LoadWindow& w, std::uint64_t slots, unsigned seeds, unsigned max_kicks,
                               std::uint64_t seed_base) {
  LoadSample out;
  out.seeds = seeds;
  for (unsigned s = 0; s < seeds; ++s) {
    out.loads.push_back(load_at_first_failure(w.b, slots, seed_base + s, max_kicks));
  }
  for (const double l : out.loads) out.below_tail += l < w.tail_load ? 1 : 0;
  for (const double l : out.loads) out.mean += l;
  out.mean /= static_cast<double>(out.loads.size());
  double var = 0;
  for (const double l : out.loads) var += (l - out.mean) * (l - out.mean);
  out.sd = out.loads.size() > 1 ? std::sqrt(var / static_cast<double>(out.loads.size() - 1)) : 0.0;
  out.min = *std::min_element(out.loads.begin(), out.loads.end());
  out.max = *std::max_element(out.loads.begin(), out.loads.end());
  return out;
}

inline std::uint64_t max_below_tail(const LoadSample& s) {
  return stats::binomial_max_count(s.seeds, kTailProbability, kAlpha);
}

inline bool within(const LoadWindow& w, const LoadSample& s) {
  return s.mean >= w.low && s.mean <= w.ceiling && s.min >= w.floor && s.below_tail <= max_below_tail(s);
}

inline const LoadWindow& load_window(unsigned b) {
  for (const LoadWindow& w : kLoadWindows) {
    if (w.b == b) return w;
  }
  throw std::invalid_argument("measure: no C3 load window for b=" + std::to_string(b));
}

// ---------------------------------------------------------------------------------------
// C4: bits per item against a Bloom filter
// ---------------------------------------------------------------------------------------
//
// For a target rate eps, the cuckoo filter with b slots per bucket gets the smallest f
// whose C2 bound at its load at the first failed insert is at most eps (so the rate is
// guaranteed, not just measured), and costs f / load bits per item. A Bloom filter built
// with BloomFilterConfig::for_fpr for the same items costs about 1.44 log2(1/eps); no
// filter can beat log2(1/eps).

struct SpaceMeasurement {
  double eps = 0;
  unsigned f = 0;
  unsigned b = 0;
  std::uint64_t items = 0;
  bool semi_sorted = false;
  double load = 0;
  double bits_per_item = 0;         // f / load, (f - 1) / load semi-sorted
  double engine_bits_per_item = 0;  // what the filter reports (bits_per_item())
  double bloom_bound = 0;           // 1.44 log2(1/eps)
  double lower_bound = 0;           // log2(1/eps)
  double rate_bound = 0;            // filter_fpr_bound(f, b, load): the rate this filter has
  double bloom_at_rate = 0;         // 1.44 log2(1/rate_bound): a Bloom filter of that rate
  FilterFprMeasurement fpr;         // the filter at that load
  std::uint64_t eps_max_count = 0;  // binomial_max_count(fpr.queries, eps)

  bool below_bloom() const { return bits_per_item < bloom_bound; }
  bool below_bloom_at_rate() const { return bits_per_item < bloom_at_rate; }
  bool achieves_eps() const { return fpr.count <= eps_max_count; }
};

inline constexpr double kBloomBitsFactor = 1.44;  // 1 / ln 2, rounded as the paper does

// The smallest f (from the bound's estimate up) whose false-positive bound holds at eps
// for a b-slot filter filled to its first failure, measured there. semi_sorted: with
// semi-sorted buckets (b = 4; f >= 5 is then the floor), f - 1 bits a slot.
inline SpaceMeasurement measure_cuckoo_space(double eps, unsigned b, std::uint64_t slots, std::uint64_t seed,
                                             const FprQueries& sizes = {}, bool semi_sorted = false) {
  SpaceMeasurement m;
  m.eps = eps;
  m.b = b;
  m.semi_sorted = semi_sorted;
  m.lower_bound = std::log2(1.0 / eps);
  m.bloom_bound = kBloomBitsFactor * m.lower_bound;
  // The bound is about 2 b L / 2^f with L >= 0.4, so f - 1 with 2^f <= b / eps misses eps.
  const auto first_f = static_cast<unsigned>(std::max(
      static_cast<double>(CuckooFilterConfig::kMinFingerprintBits + (semi_sorted ? 1 : 0)),
      std::floor(std::log2(b / eps))));
  for (unsigned f = first_f; f <= CuckooFilterConfig::kMaxFingerprintBits; ++f) {  // bound: 29 widths
    CuckooFilterConfig config = filter_config(slots, f, b, seed);
    config.semi_sorted = semi_sorted;
    CuckooFilter filter(config);
    (void)fill_to_first_failure(filter, 2 * slots);
    if (filter_fpr_bound(f, b, filter.load_factor()) > eps && f < CuckooFilterConfig::kMaxFingerprintBits) {
      continue;
    }
    m.f = f;
    m.items = filter.size();
    m.load = filter.load_factor();
    m.bits_per_item = static_cast<double>(f - (semi_sorted ? 1 : 0)) / m.load;
    m.rate_bound = filter_fpr_bound(f, b, m.load);
    m.bloom_at_rate = kBloomBitsFactor * std::log2(1.0 / m.rate_bound);
    m.engine_bits_per_item = filter.bits_per_item();
    m.fpr = measure_filter_fpr(filter, sizes);
    m.eps_max_count = stats::binomial_max_count(m.fpr.queries, eps, kAlpha);
    break;
  }
  return m;
}

// ---------------------------------------------------------------------------------------
// C12: Bloom filter false positive rate
// ---------------------------------------------------------------------------------------
//
// Two checks, both two-sided at alpha:
//   formula: the number of set bits S is concentrated around E S = m (1 - (1 - 1/m)^(kn))
//     (McDiarmid over the n keys, each setting at most k bits); the count must lie in the
//     binomial interval of [((E S - t)/m)^k, ((E S + t)/m)^k], widened to include
//     (1 - e^(-kn/m))^k itself.
//   conditional: given this filter's fill rho, the count must lie in the interval of rho^k.

struct BloomCase {
  std::uint64_t bits;
  std::uint64_t items;
  unsigned hashes;
};

struct BloomMeasurement {
  double formula = 0;
  double fill = 0;
  double fill_low = 0;
  double fill_high = 0;
  std::uint64_t queries = 0;
  std::uint64_t count = 0;
  stats::BinomialInterval formula_interval;
  stats::BinomialInterval conditional_interval;
  bool fill_ok = false;

  double rate() const { return queries == 0 ? 0.0 : static_cast<double>(count) / static_cast<double>(queries); }
  bool passes() const {
    return fill_ok && formula_interval.contains(count) && conditional_interval.contains(count);
  }
};

// A Bloom filter of `bits` bits and c.hashes hashes holding keys 0 .. c.items - 1.
inline BloomFilter filled_bloom(std::uint64_t bits, const BloomCase& c, std::uint64_t seed) {
  BloomFilterConfig config;
  config.bits = bits;
  config.hashes = c.hashes;
  config.seed = seed;
  BloomFilter filter(config);
  for (std::uint64_t key = 0; key < c.items; ++key) (void)filter.insert(key);
  return filter;
}

// Judges `filter` against the claim for the configuration `c` (which may differ from the
// filter's own bit count: that is how a degraded filter is judged).
inline BloomMeasurement measure_bloom(const BloomFilter& filter, const BloomCase& c, std::uint64_t queries) {
  BloomMeasurement m;
  const auto bits = static_cast<double>(c.bits);
  const auto kn = static_cast<double>(c.hashes) * static_cast<double>(c.items);
  const double k = c.hashes;
  m.formula = std::pow(1.0 - std::exp(-kn / bits), k);
  const double expected_fill_exact = 1.0 - std::pow(1.0 - 1.0 / bits, kn);
  const double slack = stats::mcdiarmid_deviation(c.items, k, kAlpha) / bits;
  m.fill_low = expected_fill_exact - slack;
  m.fill_high = expected_fill_exact + slack;
  m.fill = filter.fill_ratio();
  m.fill_ok = m.fill >= m.fill_low && m.fill <= m.fill_high;
  const double p_low = std::min(std::pow(std::max(m.fill_low, 0.0), k), m.formula);
  const double p_high = std::max(std::pow(std::min(m.fill_high, 1.0), k), m.formula);
  m.queries = queries;
  for (std::uint64_t i = 0; i < queries; ++i) m.count += filter.contains(kAbsentKeyBase | i) ? 1 : 0;
  m.formula_interval = stats::binomial_interval_between(queries, p_low, p_high, kAlpha);
  m.conditional_interval = stats::binomial_interval(queries, std::pow(m.fill, k), kAlpha);
  return m;
}

// ---------------------------------------------------------------------------------------
// C9: false failures of one-slot cuckoo hashing, against PlacementOracle
// ---------------------------------------------------------------------------------------
//
// Before each insert the oracle (one slot per bucket; vertex p0 in T0, table_size + p1 in
// T1) decides whether the stored items plus the new one can be placed at all. A refused
// insert for an item that fits is a false failure; an accepted one that cannot fit is
// impossible (a violation). Pins (properties/STATISTICS.md, "C9"): a random walk with a
// kick bound of 500 or more has no false failure below load 0.40 (subcritical graph:
// components of O(log n) vertices, a walk ends within about twice that); SmartCuckoo has
// none at any load (its prediction is exact).

struct Band {
  double lo;
  double hi;
  std::uint64_t attempts = 0;
  std::uint64_t inserted = 0;
  std::uint64_t true_failures = 0;   // refused, and the oracle agrees nothing fits
  std::uint64_t false_failures = 0;  // refused, but the oracle has a placement
  std::uint64_t impossible = 0;      // accepted, but the oracle has no placement
  std::uint64_t kicks = 0;           // evictions of all attempts in the band

  double false_failure_rate() const {
    return attempts == 0 ? 0.0 : static_cast<double>(false_failures) / static_cast<double>(attempts);
  }
  double kicks_per_insert() const {
    return attempts == 0 ? 0.0 : static_cast<double>(kicks) / static_cast<double>(attempts);
  }
};

inline std::vector<Band> make_bands() {
  std::vector<Band> bands;
  const std::array<double, 8> edges = {0.0, 0.30, 0.35, 0.40, 0.45, 0.50, 0.55, 1.01};
  for (std::size_t i = 0; i + 1 < edges.size(); ++i) bands.push_back(Band{edges[i], edges[i + 1]});
  return bands;
}

inline Band& band_of(std::vector<Band>& bands, double load) {
  for (Band& band : bands) {
    if (load < band.hi) return band;
  }
  return bands.back();
}

// Sizes of a false-failure run: `tables` tables of `capacity` slots, each filled with
// fresh keys until it reaches `stop_load` or refuses `max_refused_in_a_row` inserts in a
// row (at most 4 * capacity attempts).
struct FalseFailureRun {
  std::size_t capacity = 1U << 14;
  unsigned max_kicks = 500;
  unsigned tables = 4;
  std::uint64_t seed_base = 0;
  double stop_load = 0.55;
  unsigned max_refused_in_a_row = 200;
};

namespace measure_detail {

// One table: `vertices(key)` gives the key's two oracle vertices, `kicks()` the evictions
// of the last insert.
template <class Table, class VerticesFn, class KicksFn>
void walk_bands(Table& table, std::size_t vertex_count, std::uint64_t first_key, const FalseFailureRun& run,
                std::vector<Band>& bands, VerticesFn vertices, KicksFn kicks) {
  model::PlacementOracle oracle(vertex_count, 1);
  std::uint64_t key = first_key;
  unsigned refused_in_a_row = 0;
  const std::size_t attempt_limit = 4 * run.capacity;
  for (std::size_t attempt = 0; attempt < attempt_limit; ++attempt) {  // bound: 4 * capacity
    if (table.load_factor() >= run.stop_load || refused_in_a_row >= run.max_refused_in_a_row) break;
    const model::CandidatePair pair = vertices(key);
    const bool fits = oracle.would_fit_after_adding(pair);
    Band& band = band_of(bands, table.load_factor());
    ++band.attempts;
    const InsertResult r = table.insert(key, key);
    band.kicks += kicks(table);
    ++key;
    if (r == InsertResult::kInserted) {
      oracle.add(pair);
      ++band.inserted;
      refused_in_a_row = 0;
      if (!fits) ++band.impossible;
    } else {
      ++refused_in_a_row;
      ++(fits ? band.false_failures : band.true_failures);
    }
  }
}

}  // namespace measure_detail

// ClassicCuckoo with OnInsertFailure::kReport (it gives up after run.max_kicks evictions).
inline std::vector<Band> measure_classic_false_failures(const FalseFailureRun& run) {
  std::vector<Band> bands = make_bands();
  for (unsigned t = 0; t < run.tables; ++t) {
    ClassicCuckooConfig config;
    config.capacity = run.capacity;
    config.max_kicks = run.max_kicks;
    config.on_failure = OnInsertFailure::kReport;
    config.seed = run.seed_base + t;
    ClassicCuckoo<> table(config);
    measure_detail::walk_bands(
        table, table.capacity(), (run.seed_base + t) << 32, run, bands,
        [&table](std::uint64_t key) {
          const auto [p0, p1] = table.positions_of(key);
          return model::CandidatePair{p0, table.table_size() + p1};
        },
        [](const ClassicCuckoo<>& t2) { return t2.stats().last_insert_kicks; });
  }
  return bands;
}

// SmartCuckoo with no stash (a predicted failure returns kFull). run.max_kicks is its
// safety bound; keep it above the largest component (capacity is always enough).
inline std::vector<Band> measure_smart_false_failures(const FalseFailureRun& run) {
  std::vector<Band> bands = make_bands();
  for (unsigned t = 0; t < run.tables; ++t) {
    SmartCuckooConfig config;
    config.capacity = run.capacity;
    config.max_kicks = run.max_kicks;
    config.stash_capacity = 0;
    config.seed = run.seed_base + t;
    SmartCuckoo<> table(config);
    measure_detail::walk_bands(
        table, table.capacity(), (run.seed_base + t) << 32, run, bands,
        [&table](std::uint64_t key) {
          const auto [a, b] = table.vertices_of(key);
          return model::CandidatePair{a, b};
        },
        [](const SmartCuckoo<>& t2) { return t2.stats().last_insert_kicks; });
  }
  return bands;
}

inline std::uint64_t false_failures_in(const std::vector<Band>& bands, double lo, double hi) {
  std::uint64_t n = 0;
  for (const Band& b : bands) {
    if (b.lo >= lo && b.hi <= hi) n += b.false_failures;
  }
  return n;
}

inline std::uint64_t impossible_inserts(const std::vector<Band>& bands) {
  std::uint64_t n = 0;
  for (const Band& b : bands) n += b.impossible;
  return n;
}

}  // namespace cuckoo::subjects::measure
