// Binomial tail bounds for the statistical claims (C2, C3, C9, C12): how many "successes"
// (false positives, say) a correct implementation may produce in n independent trials
// when each trial succeeds with probability at most p, so that a test at a fixed seed can
// assert on a measured count without ever flaking for a correct engine and still fails
// for a broken one.
//
// The math
// --------
// Let X ~ Binomial(n, p). A test that accepts when X <= c wrongly rejects a correct
// implementation with probability P(X > c). For a confidence alpha (say 1e-9) we want the
// smallest c with P(X > c) <= alpha:
//
//     binomial_max_count(n, p, alpha) = min { c : P(X >= c + 1) <= alpha }.
//
// Monotonicity makes this a bound for every correct implementation, not only one whose
// rate is exactly p: Binomial(n, p') is stochastically smaller than Binomial(n, p) for
// p' <= p (couple the trials: U_i < p' implies U_i < p), so P_{p'}(X > c) <= P_p(X > c)
// <= alpha. A claim of the form "the rate is at most p" is therefore tested at p itself.
// Symmetrically, binomial_min_count(n, p, alpha) = max { c : P(X < c) <= alpha } bounds a
// claim "the rate is at least p", and a two-sided claim "the rate is p" uses both with
// alpha / 2 each (binomial_interval, binomial_interval_between).
//
// Exact tails. P(X >= k) = sum_{j >= k} C(n, j) p^j (1-p)^(n-j) is summed exactly in
// floating point: the first term comes from lgamma (log C(n, j) = lgamma(n+1) -
// lgamma(j+1) - lgamma(n-j+1); absolute error about n * 2^-52 in the log, i.e. a relative
// error below 1e-8 for n <= 1e8), the others by the ratio
//     pmf(j+1) / pmf(j) = (n - j) / (j + 1) * p / (1 - p),
// summing away from the mean until a term is below 1e-20 of the sum (the terms then
// fall at least geometrically). A tail that would need summing across the mean is taken
// as 1 - the other tail. binomial_max_count bisects on c, whose tail is monotone.
//
// Chernoff (Hoeffding's relative-entropy form): for k >= n p,
//     P(X >= k) <= exp(-n D(k/n || p)),  D(a || p) = a ln(a/p) + (1-a) ln((1-a)/(1-p)).
// It is rigorous and always at least the exact tail, so chernoff_max_count >=
// binomial_max_count; the tests use the exact count and keep the Chernoff one as a
// cross-check (and the self-tests assert the ordering).
//
// Normal with continuity correction: P(X >= k) ~ Q((k - 0.5 - n p) / sqrt(n p (1-p))).
// Only an approximation: in the far tail it underestimates the right tail of a skewed
// binomial (small n p) by orders of magnitude, which is why no assertion relies on it.
// It is here so that reports can state the z-score of a measurement.
//
// Bounded differences (McDiarmid): if Y = g(Z_1..Z_m) for independent Z_i and changing
// one Z_i changes Y by at most c, then P(|Y - E Y| >= t) <= 2 exp(-2 t^2 / (m c^2)).
// mcdiarmid_deviation(m, c, alpha) returns the t at which that is alpha. C12 uses it for
// the number of set bits of a Bloom filter (m keys, each sets at most k bits).
//
// Confidence. The suite uses alpha = kDefaultAlpha = 1e-9 per check. With fewer than 1000
// checks in the whole suite the chance that any correct-engine check fails by bad luck is
// below 1e-6 by the union bound, and every check runs at fixed seeds, so a pass or fail
// is reproducible exactly.
//
// All functions are pure; none allocates. Arguments outside the documented domain
// (p outside [0, 1] is clamped; alpha outside (0, 1) is an error) throw
// std::invalid_argument.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

namespace cuckoo::subjects::stats {

// The confidence every statistical assertion of the suite uses (see above).
inline constexpr double kDefaultAlpha = 1e-9;

namespace stats_detail {

inline double clamp_probability(double p) {
  if (std::isnan(p)) throw std::invalid_argument("stats: probability is NaN");
  return std::clamp(p, 0.0, 1.0);
}

inline void check_alpha(double alpha) {
  if (!(alpha > 0.0 && alpha < 1.0)) {
    throw std::invalid_argument("stats: alpha " + std::to_string(alpha) +
                                " is outside the open interval (0, 1)");
  }
}

// log pmf(k) for 0 < p < 1, 0 <= k <= n.
inline double log_pmf(std::uint64_t n, std::uint64_t k, double p) {
  const auto dn = static_cast<double>(n);
  const auto dk = static_cast<double>(k);
  return std::lgamma(dn + 1.0) - std::lgamma(dk + 1.0) - std::lgamma(dn - dk + 1.0) +
         dk * std::log(p) + (dn - dk) * std::log1p(-p);
}

// Relative size of a term at which summation stops; the remaining terms fall at least
// geometrically, so what is dropped is far below the precision of the result.
inline constexpr double kNegligibleTerm = 1e-20;

// sum_{j >= k} pmf(j) for k >= mean (terms decrease from k upward). 0 < p < 1.
inline double sum_up(std::uint64_t n, std::uint64_t k, double p) {
  const double ratio_p = p / (1.0 - p);
  double term = std::exp(log_pmf(n, k, p));
  double sum = 0.0;
  for (std::uint64_t j = k; j <= n; ++j) {  // bound: n - k + 1 terms, usually far fewer
    sum += term;
    if (term <= sum * kNegligibleTerm || term == 0.0) break;
    term *= static_cast<double>(n - j) / static_cast<double>(j + 1) * ratio_p;
  }
  return std::min(sum, 1.0);
}

// sum_{j <= k} pmf(j) for k <= mean (terms decrease from k downward). 0 < p < 1.
inline double sum_down(std::uint64_t n, std::uint64_t k, double p) {
  const double ratio_q = (1.0 - p) / p;
  double term = std::exp(log_pmf(n, k, p));
  double sum = 0.0;
  for (std::uint64_t j = k;; --j) {  // bound: k + 1 terms, usually far fewer
    sum += term;
    if (j == 0 || term <= sum * kNegligibleTerm || term == 0.0) break;
    // pmf(j-1) / pmf(j) = j / (n - j + 1) * (1-p) / p
    term *= static_cast<double>(j) / static_cast<double>(n - j + 1) * ratio_q;
  }
  return std::min(sum, 1.0);
}

// The smallest c in [0, n] with tail(n, c + 1) <= alpha, for a tail that is
// non-increasing in c (the exact binomial tail and its Chernoff bound both are): bisection
// on [lo, hi] with the answer in it.
template <class Tail>
std::uint64_t smallest_count_with_tail_at_most(std::uint64_t n, double alpha, Tail tail) {
  std::uint64_t lo = 0;
  std::uint64_t hi = n;
  while (lo < hi) {  // bound: log2(n) + 1 steps
    const std::uint64_t mid = lo + (hi - lo) / 2;
    if (tail(n, mid + 1) <= alpha) {
      hi = mid;
    } else {
      lo = mid + 1;
    }
  }
  return lo;
}

}  // namespace stats_detail

// P(X >= k) for X ~ Binomial(n, p), exactly (to about 1e-8 relative; see above).
inline double binomial_upper_tail(std::uint64_t n, std::uint64_t k, double p) {
  p = stats_detail::clamp_probability(p);
  if (k == 0) return 1.0;
  if (k > n) return 0.0;
  if (p == 0.0) return 0.0;
  if (p == 1.0) return 1.0;
  const double mean = static_cast<double>(n) * p;
  if (static_cast<double>(k) >= mean) return stats_detail::sum_up(n, k, p);
  return std::max(0.0, 1.0 - stats_detail::sum_down(n, k - 1, p));
}

// P(X <= k) for X ~ Binomial(n, p).
inline double binomial_lower_tail(std::uint64_t n, std::uint64_t k, double p) {
  p = stats_detail::clamp_probability(p);
  if (k >= n) return 1.0;
  if (p == 0.0) return 1.0;
  if (p == 1.0) return 0.0;
  const double mean = static_cast<double>(n) * p;
  if (static_cast<double>(k) <= mean) return stats_detail::sum_down(n, k, p);
  return std::max(0.0, 1.0 - stats_detail::sum_up(n, k + 1, p));
}

// The largest count a correct implementation (true rate <= p) may produce in n trials:
// the smallest c with P(X > c) <= alpha under Binomial(n, p).
inline std::uint64_t binomial_max_count(std::uint64_t n, double p, double alpha = kDefaultAlpha) {
  stats_detail::check_alpha(alpha);
  p = stats_detail::clamp_probability(p);
  if (p == 0.0) return 0;
  if (p == 1.0) return n;
  return stats_detail::smallest_count_with_tail_at_most(
      n, alpha, [p](std::uint64_t n_, std::uint64_t k) { return binomial_upper_tail(n_, k, p); });
}

// The smallest count a correct implementation (true rate >= p) may produce: the largest
// c with P(X < c) <= alpha under Binomial(n, p).
inline std::uint64_t binomial_min_count(std::uint64_t n, double p, double alpha = kDefaultAlpha) {
  stats_detail::check_alpha(alpha);
  p = stats_detail::clamp_probability(p);
  if (p == 0.0) return 0;
  if (p == 1.0) return n;
  // P(X <= c - 1) is non-decreasing in c; find the largest c with it <= alpha.
  std::uint64_t lo = 0;
  std::uint64_t hi = n;
  while (lo < hi) {  // bound: log2(n) + 1 steps
    const std::uint64_t mid = lo + (hi - lo + 1) / 2;
    if (binomial_lower_tail(n, mid - 1, p) <= alpha) {
      lo = mid;
    } else {
      hi = mid - 1;
    }
  }
  return lo;
}

// A two-sided acceptance interval [min_count, max_count] for "the rate is in
// [p_low, p_high]" at total confidence alpha (alpha / 2 on each side).
struct BinomialInterval {
  std::uint64_t min_count = 0;
  std::uint64_t max_count = 0;
  bool contains(std::uint64_t count) const noexcept {
    return count >= min_count && count <= max_count;
  }
};

inline BinomialInterval binomial_interval_between(std::uint64_t n, double p_low, double p_high,
                                                  double alpha = kDefaultAlpha) {
  stats_detail::check_alpha(alpha);
  if (p_low > p_high) throw std::invalid_argument("stats: p_low > p_high");
  return {binomial_min_count(n, p_low, alpha / 2), binomial_max_count(n, p_high, alpha / 2)};
}

// The same for "the rate is p".
inline BinomialInterval binomial_interval(std::uint64_t n, double p, double alpha = kDefaultAlpha) {
  return binomial_interval_between(n, p, p, alpha);
}

// Relative entropy D(a || p) of Bernoulli(a) from Bernoulli(p), in nats. 0 < p < 1.
inline double bernoulli_kl(double a, double p) {
  double d = 0.0;
  if (a > 0.0) d += a * std::log(a / p);
  if (a < 1.0) d += (1.0 - a) * std::log((1.0 - a) / (1.0 - p));
  return d;
}

// Chernoff-Hoeffding bound on P(X >= k): exp(-n D(k/n || p)) for k >= n p, else 1.
inline double chernoff_upper_tail(std::uint64_t n, std::uint64_t k, double p) {
  p = stats_detail::clamp_probability(p);
  if (k > n) return 0.0;
  if (p == 0.0) return k == 0 ? 1.0 : 0.0;
  if (p == 1.0) return 1.0;
  const double a = static_cast<double>(k) / static_cast<double>(n);
  if (a <= p) return 1.0;
  return std::exp(-static_cast<double>(n) * bernoulli_kl(a, p));
}

// The smallest c with chernoff_upper_tail(n, c + 1, p) <= alpha: a rigorous but more
// conservative counterpart of binomial_max_count (always >= it).
inline std::uint64_t chernoff_max_count(std::uint64_t n, double p, double alpha = kDefaultAlpha) {
  stats_detail::check_alpha(alpha);
  p = stats_detail::clamp_probability(p);
  if (p == 0.0) return 0;
  if (p == 1.0) return n;
  return stats_detail::smallest_count_with_tail_at_most(
      n, alpha, [p](std::uint64_t n_, std::uint64_t k) { return chernoff_upper_tail(n_, k, p); });
}

// Normal approximation with continuity correction to P(X >= k). Informational only (see
// the header comment).
inline double normal_upper_tail(std::uint64_t n, std::uint64_t k, double p) {
  p = stats_detail::clamp_probability(p);
  const double mean = static_cast<double>(n) * p;
  const double sd = std::sqrt(static_cast<double>(n) * p * (1.0 - p));
  if (sd == 0.0) return static_cast<double>(k) <= mean ? 1.0 : 0.0;
  const double z = (static_cast<double>(k) - 0.5 - mean) / sd;
  return 0.5 * std::erfc(z / std::sqrt(2.0));
}

// (count - n p) / sqrt(n p (1-p)): how many standard deviations a count lies from the
// mean, for reports. 0 when the variance is 0.
inline double z_score(std::uint64_t n, std::uint64_t count, double p) {
  p = stats_detail::clamp_probability(p);
  const double sd = std::sqrt(static_cast<double>(n) * p * (1.0 - p));
  if (sd == 0.0) return 0.0;
  return (static_cast<double>(count) - static_cast<double>(n) * p) / sd;
}

// McDiarmid: the deviation t with 2 exp(-2 t^2 / (terms * c^2)) = alpha, i.e. a function
// of `terms` independent inputs, each of which moves it by at most c, lies within t of
// its mean except with probability alpha.
inline double mcdiarmid_deviation(std::uint64_t terms, double c, double alpha = kDefaultAlpha) {
  stats_detail::check_alpha(alpha);
  return c * std::sqrt(static_cast<double>(terms) * std::log(2.0 / alpha) / 2.0);
}

// Clopper-Pearson ("exact") confidence interval for a rate from `count` successes in `n`
// trials, at confidence 1 - alpha (alpha / 2 on each side): low is the p at which
// P(X >= count) = alpha / 2 (0 when count is 0), high the p at which P(X <= count) =
// alpha / 2 (1 when count is n). Both are found by bisection on p (the tails are monotone
// in p) to about 1e-12 absolute. For reports: the verdicts use the counts above. REQUIRES:
// count <= n, n > 0 (else std::invalid_argument).
struct RateInterval {
  double low = 0;
  double high = 1;
};

inline RateInterval clopper_pearson(std::uint64_t n, std::uint64_t count, double alpha = 0.05) {
  stats_detail::check_alpha(alpha);
  if (n == 0 || count > n) {
    throw std::invalid_argument("stats: clopper_pearson needs 0 <= count <= n and n > 0");
  }
  constexpr int kBisectionSteps = 60;  // halves [0, 1] to below 1e-18
  const double side = alpha / 2.0;
  RateInterval out;
  if (count > 0) {
    // P_p(X >= count) grows with p: the largest p with it <= side.
    double lo = 0.0;
    double hi = static_cast<double>(count) / static_cast<double>(n);
    for (int step = 0; step < kBisectionSteps; ++step) {
      const double mid = 0.5 * (lo + hi);
      if (binomial_upper_tail(n, count, mid) <= side) {
        lo = mid;
      } else {
        hi = mid;
      }
    }
    out.low = lo;
  }
  if (count < n) {
    // P_p(X <= count) falls with p: the smallest p with it <= side.
    double lo = static_cast<double>(count) / static_cast<double>(n);
    double hi = 1.0;
    for (int step = 0; step < kBisectionSteps; ++step) {
      const double mid = 0.5 * (lo + hi);
      if (binomial_lower_tail(n, count, mid) <= side) {
        hi = mid;
      } else {
        lo = mid;
      }
    }
    out.high = hi;
  }
  return out;
}

}  // namespace cuckoo::subjects::stats
