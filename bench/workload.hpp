// Workload generators: a seeded Zipf generator and the YCSB-style insert/lookup/update
// op streams of the SmartCuckoo paper (Sun et al., USENIX ATC'17, section 4).
//
// Streams are generated before the timed loop and replayed, so generation costs nothing
// in the measured figures, and the same stream drives every engine it is compared on.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "bench_common.hpp"

namespace cuckoo::bench {

// Zipf-distributed ranks in [0, n): rank r has probability proportional to 1 / (r+1)^theta.
// Gray et al.'s method ("Quickly generating billion-record synthetic databases",
// SIGMOD'94), as in YCSB's ZipfianGenerator: O(n) once for zeta(n), O(1) per draw.
// REQUIRES: n >= 1, 0 < theta < 1.
class ZipfGenerator {
 public:
  ZipfGenerator(std::uint64_t n, double theta, std::uint64_t seed)
      : n_(n), theta_(theta), rng_(seed) {
    zeta_n_ = zeta(n, theta);
    const double zeta2 = zeta(2, theta);
    alpha_ = 1.0 / (1.0 - theta);
    eta_ = (1.0 - std::pow(2.0 / static_cast<double>(n), 1.0 - theta)) / (1.0 - zeta2 / zeta_n_);
    half_pow_theta_ = 1.0 + std::pow(0.5, theta);
  }

  std::uint64_t next() noexcept {
    const double u = rng_.unit();
    const double uz = u * zeta_n_;
    if (uz < 1.0) return 0;
    if (uz < half_pow_theta_) return 1 < n_ ? 1 : 0;
    const auto r = static_cast<std::uint64_t>(static_cast<double>(n_) *
                                              std::pow(eta_ * u - eta_ + 1.0, alpha_));
    return r < n_ ? r : n_ - 1;
  }

  std::uint64_t n() const noexcept { return n_; }
  double theta() const noexcept { return theta_; }

 private:
  static double zeta(std::uint64_t n, double theta) {
    double sum = 0.0;
    for (std::uint64_t i = 1; i <= n; ++i) sum += 1.0 / std::pow(static_cast<double>(i), theta);
    return sum;
  }

  std::uint64_t n_;
  double theta_;
  SplitMix rng_;
  double zeta_n_ = 0.0;
  double alpha_ = 0.0;
  double eta_ = 0.0;
  double half_pow_theta_ = 0.0;
};

inline constexpr double kYcsbZipfTheta = 0.99;

enum class OpKind : std::uint8_t { kInsert, kLookup, kUpdate, kErase };

struct Op {
  OpKind kind;
  std::uint64_t key;
};

// An insert/lookup/update mix in percent, e.g. {75, 25, 0}.
struct YcsbMix {
  unsigned insert_pct;
  unsigned lookup_pct;
  unsigned update_pct;
  std::string name() const {
    return std::to_string(insert_pct) + "/" + std::to_string(lookup_pct) + "/" +
           std::to_string(update_pct);
  }
};

// The five mixes of the SmartCuckoo paper.
inline const std::vector<YcsbMix>& ycsb_mixes() {
  static const std::vector<YcsbMix> mixes = {
      {100, 0, 0}, {75, 25, 0}, {50, 50, 0}, {25, 75, 0}, {0, 95, 5}};
  return mixes;
}

// A table of `capacity` slots is preloaded with `preload` keys (key_at(kInsertedStream,
// 0 .. preload-1)); the stream then inserts fresh keys (the following indices, in
// order) until `final_items` keys are stored, and draws lookups and updates with
// Zipf(theta) ranks over the preloaded keys (rank r -> key r: the keys are random, so hot
// keys are scattered over the table). Mixes without inserts run `read_ops` operations.
struct YcsbStream {
  std::uint64_t preload = 0;
  std::vector<Op> ops;
  std::uint64_t inserts = 0;
};

inline YcsbStream make_ycsb_stream(const YcsbMix& mix, std::uint64_t preload,
                                   std::uint64_t final_items, std::uint64_t read_ops,
                                   std::uint64_t seed) {
  YcsbStream s;
  s.preload = mix.insert_pct == 0 ? final_items : preload;
  const std::uint64_t inserts = mix.insert_pct == 0 ? 0 : final_items - preload;
  const std::uint64_t total = mix.insert_pct == 0 ? read_ops : inserts * 100 / mix.insert_pct;
  ZipfGenerator zipf(s.preload, kYcsbZipfTheta, seed);
  SplitMix pick(seed ^ 0x7f4a7c15ULL);
  s.ops.reserve(total);
  std::uint64_t next_fresh = s.preload;
  for (std::uint64_t i = 0; i < total; ++i) {  // bound: total
    const std::uint64_t roll = pick.below(100);
    if (roll < mix.insert_pct && next_fresh < final_items) {
      s.ops.push_back({OpKind::kInsert, key_at(kInsertedStream, next_fresh++)});
    } else if (roll < mix.insert_pct + mix.lookup_pct || mix.update_pct == 0) {
      s.ops.push_back({OpKind::kLookup, key_at(kInsertedStream, zipf.next())});
    } else {
      s.ops.push_back({OpKind::kUpdate, key_at(kInsertedStream, zipf.next())});
    }
  }
  s.inserts = next_fresh - s.preload;
  return s;
}

}  // namespace cuckoo::bench
