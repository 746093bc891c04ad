// Running one recorded history against a concurrent filter or map and checking it: what
// the C10 stress tests and the audit's C10 runner share.
//
//   CheckedHistory h = run_and_check_filter(filter, driver_config, false);
//   CheckedHistory h = run_and_check_map(map_subject(map, pace_every_fourth_call), config);
//   if (h.check.not_linearizable()) ... h.run.reproduce() ...
//
// Header-only and engine-agnostic like the rest of the harness: the engine types
// (cuckoo::InsertResult, the filters, the maps, CuckooFilter as the placement probe) come
// in as template arguments.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "cuckoo/subjects/driver.hpp"
#include "cuckoo/subjects/history.hpp"
#include "cuckoo/subjects/linearizability.hpp"
#include "cuckoo/subjects/specs.hpp"

namespace cuckoo::subjects {

// An engine's insert answer (cuckoo::InsertResult) in the harness's vocabulary.
template <class Result>
InsertOutcome outcome_of(Result r) {
  switch (r) {
    case Result::kInserted: return InsertOutcome::kInserted;
    case Result::kUpdated: return InsertOutcome::kUpdated;
    case Result::kExists: return InsertOutcome::kExists;
    case Result::kFull: return InsertOutcome::kFull;
    case Result::kDuplicateLimit: return InsertOutcome::kDuplicateLimit;
  }
  return InsertOutcome::kFull;
}

// Every kYieldEvery-th call of a thread yields first, inside its recorded interval: calls
// are far shorter than a time slice, and on two loaded cores the threads of a history
// otherwise often run one after the other, so that no two calls on a key overlap and the
// history tests nothing (driver_test's HeldLock does the same). A wider interval only
// gives the checker more freedom, so the check stays sound.
constexpr unsigned kYieldEvery = 4;
inline void pace_every_fourth_call() {
  thread_local unsigned calls = 0;
  if (++calls % kYieldEvery == 0) std::this_thread::yield();
}

// What the driver calls: a filter's key-level operations, paced (size() is not).
template <class Filter>
class PacedFilterSubject {
 public:
  explicit PacedFilterSubject(Filter& filter) : filter_(filter) {}
  InsertOutcome insert(std::uint64_t key) {
    pace_every_fourth_call();
    return outcome_of(filter_.insert(key));
  }
  bool erase(std::uint64_t key) {
    pace_every_fourth_call();
    return filter_.erase(key);
  }
  bool contains(std::uint64_t key) const {
    pace_every_fourth_call();
    return filter_.contains(key);
  }
  std::uint64_t size() const { return filter_.size(); }

 private:
  Filter& filter_;
};

// The driver's view of a map: every call, size() included, runs `pace()` first.
template <class Map, class Pace>
Subject map_subject(Map& map, Pace pace) {
  Subject s;
  s.insert = [&map, pace](std::uint64_t key, std::uint64_t value) {
    pace();
    return outcome_of(map.insert(key, value));
  };
  s.insert_or_assign = [&map, pace](std::uint64_t key, std::uint64_t value) {
    pace();
    return outcome_of(map.insert_or_assign(key, value));
  };
  s.erase = [&map, pace](std::uint64_t key) {
    pace();
    return map.erase(key);
  };
  s.contains = [&map, pace](std::uint64_t key) {
    pace();
    return map.contains(key);
  };
  s.find = [&map, pace](std::uint64_t key) {
    pace();
    return map.find(key);
  };
  s.size = [&map, pace] {
    pace();
    return static_cast<std::uint64_t>(map.size());
  };
  if constexpr (requires(std::uint64_t k) { map.update_fn(k, [](std::uint64_t&) {}); }) {
    s.upsert_add = [&map, pace](std::uint64_t key, std::uint64_t value) {
      pace();
      return outcome_of(map.upsert(key, [value](std::uint64_t& x) { x += value; }, value));
    };
    s.update_add = [&map, pace](std::uint64_t key, std::uint64_t value) {
      pace();
      return map.update_fn(key, [value](std::uint64_t& x) { x += value; });
    };
    s.erase_if_odd = [&map, pace](std::uint64_t key) {
      pace();
      return map.erase_fn(key, [](std::uint64_t& x) { return x % 2 == 1; });
    };
    s.uprase_dec = [&map, pace](std::uint64_t key, std::uint64_t value) {
      pace();
      return outcome_of(map.uprase_fn(key, [](std::uint64_t& x) { return --x == 0; }, value));
    };
  }
  return s;
}

// MultisetSpec with each key's own copy limit (2b, or b for a key whose two buckets
// coincide). When the keys of a history never share an item class (see
// choose_alias_free_seed), the per-key multiset is exactly what the filter must
// implement, up to false positives.
class PerKeyFilterSpec {
 public:
  using State = MultisetSpec::State;

  PerKeyFilterSpec(const std::vector<std::uint64_t>& max_copies, bool erase_absent_may_succeed)
      : fallback_(MultisetSpec::filter(std::nullopt, erase_absent_may_succeed)) {
    for (const std::uint64_t limit : max_copies) {
      per_key_.push_back(MultisetSpec::filter(limit, erase_absent_may_succeed));
    }
  }

  std::string_view name() const noexcept {
    return "multiset (filter semantics, per-key copy limit)";
  }
  State initial() const noexcept { return 0; }
  bool supports(OpKind kind) const noexcept { return fallback_.supports(kind); }
  std::optional<State> apply(const State& s, const Operation& op, std::string* why) const {
    return spec_for(op.key).apply(s, op, why);
  }
  SizeEffect size_effect(const Operation& op) const noexcept { return fallback_.size_effect(op); }
  std::uint64_t size_of(const State& s) const noexcept { return s; }
  std::string describe(const State& s) const { return fallback_.describe(s); }
  std::size_t hash(const State& s) const noexcept { return fallback_.hash(s); }

 private:
  const MultisetSpec& spec_for(std::uint64_t key) const {
    return key < per_key_.size() ? per_key_[key] : fallback_;
  }
  MultisetSpec fallback_;
  std::vector<MultisetSpec> per_key_;
};
static_assert(KeySpec<PerKeyFilterSpec>);

// Filter seeds tried per history for one under which no two keys are one item.
constexpr int kMaxSeedCandidates = 10'000;

// Sets config.seed to the first of rng's draws under which no two of the keys
// 0 .. key_range - 1 are one item to the filter (equal fingerprint and bucket pair, by
// the placement rule of `Probe`, a sequential filter built from `config`). Throws
// std::runtime_error after kMaxSeedCandidates draws (naming `history_seed`).
template <class Probe, class Config>
void choose_alias_free_seed(Config& config, std::uint64_t key_range, SplitMix64& rng,
                            std::uint64_t history_seed) {
  for (int attempt = 0;; ++attempt) {  // bound: kMaxSeedCandidates
    if (attempt == kMaxSeedCandidates) {
      throw std::runtime_error("no filter seed without aliasing keys for history seed " +
                               std::to_string(history_seed));
    }
    config.seed = rng.next();
    const Probe probe(config);
    std::set<std::pair<std::uint32_t, std::uint32_t>> classes;
    bool distinct = true;
    for (std::uint64_t key = 0; key < key_range && distinct; ++key) {
      const auto p = probe.placement(key);
      distinct = classes.insert({p.fingerprint, std::min(p.bucket1, p.bucket2)}).second;
    }
    if (distinct) return;
  }
}

// The start of a short history's configuration: `seed`, then 2-4 threads and 50-200 ops
// per thread, drawn from `rng` in that order.
inline DriverConfig short_history_config(std::uint64_t seed, SplitMix64& rng) {
  DriverConfig config;
  config.seed = seed;
  config.threads = static_cast<std::uint32_t>(2 + rng.below(3));
  config.ops_per_thread = 50 + rng.below(151);
  return config;
}

// A small filter's bucket size (1, 2 or 4 slots), fingerprint bits (8, 12 or 16) and
// kick bound (4, 20 or 500), drawn from `rng` in that order.
template <class FilterConfig>
void draw_filter_shape(FilterConfig& config, SplitMix64& rng) {
  constexpr unsigned kSlots[] = {1, 2, 4};
  constexpr unsigned kBits[] = {8, 12, 16};
  constexpr unsigned kKicks[] = {4, 20, 500};
  config.slots_per_bucket = kSlots[rng.below(3)];
  config.fingerprint_bits = kBits[rng.below(3)];
  config.max_kicks = kKicks[rng.below(3)];
}

// One short map history's configuration, from its seed alone: 2-4 threads, 50-200 ops
// per thread, key_range_min .. key_range_min + 4 keys, `mix` (every map operation).
inline DriverConfig map_history_config(std::uint64_t seed, std::uint64_t key_range_min,
                                       const OpMix& mix = OpMix::map()) {
  SplitMix64 rng(seed);
  DriverConfig config = short_history_config(seed, rng);
  config.key_range = key_range_min + rng.below(5);
  config.mix = mix;
  return config;
}

// One recorded history and its verdict.
struct CheckedHistory {
  RunResult run;
  CheckResult check;
};

// Runs `config` against `filter` (fresh, with keys 0 .. key_range - 1 alias-free) through
// PacedFilterSubject and checks the history against PerKeyFilterSpec with the filter's
// copy limit of every key.
template <class Filter>
CheckedHistory run_and_check_filter(Filter& filter, const DriverConfig& config,
                                    bool erase_absent_may_succeed) {
  std::vector<std::uint64_t> limits;
  for (std::uint64_t key = 0; key < config.key_range; ++key) {
    limits.push_back(filter.max_copies(key));
  }
  PacedFilterSubject<Filter> subject(filter);
  CheckedHistory h;
  h.run = run_stress(make_subject(subject), config);
  h.check =
      check_linearizability(h.run.history, PerKeyFilterSpec(limits, erase_absent_may_succeed));
  return h;
}

// Runs `config` against a map's `subject` and checks the history against the map
// specification.
inline CheckedHistory run_and_check_map(const Subject& subject, const DriverConfig& config) {
  CheckedHistory h;
  h.run = run_stress(subject, config);
  h.check = check_map(h.run.history);
  return h;
}

}  // namespace cuckoo::subjects
