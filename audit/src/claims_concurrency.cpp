// C10: the concurrent filter and map are linearizable against their models. Each task
// runs many short multithreaded histories (2-4 threads, 50-200 ops each, a handful of
// keys so that ops on one key overlap) with the stress driver, checks each with the
// linearizability checker (Wing & Gong with Lowe's memoization, split per key), and
// counts what it saw. Tables are tiny so that kicks, cuckoo paths, the stash, kFull,
// duplicate limits (filters) and growth (maps) happen inside the histories.
//
// Configurations: both designs; the coarse design (one lock elided with hardware
// transactions) under the HTM shim's cheap backends as well: always abort (every section
// on the MCS fallback lock) and random aborts; the striped design with automatic and with
// one lock stripe (unrelated buckets share a lock).
//
// Verdict. FAIL on any history that is not linearizable (the failing key's sub-history
// is the counterexample) and when more than kMaxUndecidedPercent of the histories are too
// large for the checker to decide: an undecided history checks nothing, so a run where
// many are undecided proves little and must not pass silently. The undecided count is
// always reported.
//
// Filters: as in the stress suite, each thread owns its keys (it is their only writer)
// and erases only keys it knows to be present (erasing an absent item is outside a
// filter's contract), and the filter seed is chosen so that no two keys of a history are
// one item (equal fingerprint and bucket pair), so the per-key multiset specification
// with each key's copy limit describes the filter exactly, up to false positives.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "cuckoo/audit/audit.hpp"

#include "cuckoo/concurrent_filter.hpp"
#include "cuckoo/concurrent_map.hpp"
#include "cuckoo/cuckoo_filter.hpp"
#include "cuckoo/stress/driver.hpp"
#include "cuckoo/stress/history.hpp"
#include "cuckoo/stress/linearizability.hpp"
#include "cuckoo/stress/specs.hpp"
#include "cuckoo/sync/htm.hpp"

namespace cuckoo::audit {
namespace {

using stress::CheckResult;
using stress::DriverConfig;
using stress::InsertOutcome;
using stress::OpMix;
using stress::RunResult;
using stress::SplitMix64;

// Histories per task in the quick profile; standard and full multiply it.
constexpr std::size_t kQuickHistories = 1000;
// A task fails when more than this percentage of its histories is undecided.
constexpr std::uint64_t kMaxUndecidedPercent = 1;
// Filter seeds tried per history for one under which no two keys are one item.
constexpr int kMaxSeedCandidates = 10'000;

std::size_t histories_for(Profile profile) {
  switch (profile) {
    case Profile::kQuick: return kQuickHistories;
    case Profile::kStandard: return kQuickHistories * 10;
    case Profile::kFull: return kQuickHistories * 100;
  }
  return kQuickHistories;
}

InsertOutcome outcome_of(InsertResult r) {
  switch (r) {
    case InsertResult::kInserted: return InsertOutcome::kInserted;
    case InsertResult::kUpdated: return InsertOutcome::kUpdated;
    case InsertResult::kExists: return InsertOutcome::kExists;
    case InsertResult::kFull: return InsertOutcome::kFull;
    case InsertResult::kDuplicateLimit: return InsertOutcome::kDuplicateLimit;
  }
  return InsertOutcome::kFull;
}

// Every kYieldEvery-th call of a thread yields first, inside its recorded interval: on
// two loaded cores the threads otherwise often run one after the other and no two calls
// on a key overlap. A wider interval only gives the checker more freedom (still sound).
constexpr unsigned kYieldEvery = 4;
void pace() {
  thread_local unsigned calls = 0;
  if (++calls % kYieldEvery == 0) std::this_thread::yield();
}

// The multiset specification with each key's own copy limit (2b, or b when both of its
// buckets coincide).
class PerKeyFilterSpec {
 public:
  using State = stress::MultisetSpec::State;

  explicit PerKeyFilterSpec(const std::vector<std::uint64_t>& limits)
      : fallback_(stress::MultisetSpec::filter(std::nullopt, false)) {
    for (const std::uint64_t limit : limits) {
      per_key_.push_back(stress::MultisetSpec::filter(limit, false));
    }
  }
  std::string_view name() const noexcept { return "multiset (filter, per-key copy limit)"; }
  State initial() const noexcept { return 0; }
  bool supports(stress::OpKind kind) const noexcept { return fallback_.supports(kind); }
  std::optional<State> apply(const State& s, const stress::Operation& op, std::string* why) const {
    return spec_for(op.key).apply(s, op, why);
  }
  stress::SizeEffect size_effect(const stress::Operation& op) const noexcept {
    return fallback_.size_effect(op);
  }
  std::uint64_t size_of(const State& s) const noexcept { return s; }
  std::string describe(const State& s) const { return fallback_.describe(s); }
  std::size_t hash(const State& s) const noexcept { return fallback_.hash(s); }

 private:
  const stress::MultisetSpec& spec_for(std::uint64_t key) const {
    return key < per_key_.size() ? per_key_[key] : fallback_;
  }
  stress::MultisetSpec fallback_;
  std::vector<stress::MultisetSpec> per_key_;
};

// What a task accumulates over its histories.
struct Tally {
  std::uint64_t histories = 0;
  std::uint64_t ops = 0;
  std::uint64_t threads = 0;      // summed, for the mean
  std::uint64_t overlapping = 0;  // histories with two ops on one key open at once
  std::uint64_t undecided = 0;
  std::uint64_t not_linearizable = 0;
  std::uint64_t moves = 0;        // kicks or path hops
  std::uint64_t fulls = 0;
  std::uint64_t fallbacks = 0;    // coarse: sections under the fallback lock
  std::uint64_t transactions = 0; // coarse: sections committed as transactions
  std::optional<std::string> undecided_example;
  std::optional<Counterexample> counterexample;
};

void record(Tally& tally, const RunResult& run, const CheckResult& check) {
  ++tally.histories;
  tally.ops += check.stats.ops_checked;
  tally.threads += run.config.threads;
  tally.overlapping += check.stats.max_concurrency >= 2 ? 1 : 0;
  if (check.undecided()) {
    ++tally.undecided;
    if (!tally.undecided_example) tally.undecided_example = run.reproduce();
  }
  if (check.not_linearizable()) {
    ++tally.not_linearizable;
    if (!tally.counterexample) {
      Counterexample cx;
      const auto& violation = std::get<stress::NotLinearizable>(check.verdict);
      cx.trace = stress::dump_history(violation.ops, "not linearizable; driver: " + run.reproduce());
      cx.explanation = check.describe();
      cx.original_ops = check.stats.ops_checked;
      cx.shrunk_ops = violation.ops.size();
      cx.replay_command = "stress driver: " + run.reproduce() +
                          " (the interleaving is the scheduler's; rerun a few times)";
      tally.counterexample = std::move(cx);
    }
  }
}

Figure figure(std::string name, double value, std::string unit = "", std::string note = "") {
  Figure f;
  f.name = std::move(name);
  f.value = value;
  f.unit = std::move(unit);
  f.note = std::move(note);
  return f;
}

ClaimResult result_of(const std::string& engine, const std::string& configuration,
                      const TaskContext& ctx, Tally& tally,
                      std::chrono::steady_clock::time_point start) {
  ClaimResult r;
  r.claim = "C10";
  r.engine = engine;
  r.configuration = configuration;
  r.seed = ctx.seed;
  r.samples = tally.histories;
  const double h = static_cast<double>(std::max<std::uint64_t>(tally.histories, 1));
  r.figures.push_back(figure("histories checked", static_cast<double>(tally.histories)));
  r.figures.push_back(figure("ops checked", static_cast<double>(tally.ops), "ops"));
  r.figures.push_back(figure("ops per history (mean)", static_cast<double>(tally.ops) / h, "ops"));
  r.figures.push_back(figure("threads per history (mean)", static_cast<double>(tally.threads) / h));
  r.figures.push_back(figure("histories with overlapping ops on a key",
                             static_cast<double>(tally.overlapping)));
  Figure undecided = figure("histories too large to decide", static_cast<double>(tally.undecided));
  undecided.bound = static_cast<double>(tally.histories * kMaxUndecidedPercent / 100);
  undecided.relation = "<=";
  undecided.note = "an undecided history checks nothing; more than " +
                   std::to_string(kMaxUndecidedPercent) + "% undecided fails the claim";
  r.figures.push_back(undecided);
  r.figures.push_back(figure("histories not linearizable", static_cast<double>(tally.not_linearizable)));
  r.figures.push_back(figure("kicks, path hops or path inserts", static_cast<double>(tally.moves)));
  r.figures.push_back(figure("inserts answered kFull", static_cast<double>(tally.fulls)));
  if (tally.transactions + tally.fallbacks > 0) {
    r.figures.push_back(figure("critical sections as transactions", static_cast<double>(tally.transactions)));
    r.figures.push_back(figure("critical sections on the fallback lock", static_cast<double>(tally.fallbacks)));
  }
  const bool too_many_undecided = tally.undecided > tally.histories * kMaxUndecidedPercent / 100;
  if (tally.not_linearizable > 0) {
    r.verdict = Verdict::kFail;
    r.summary = std::to_string(tally.not_linearizable) + " of " + std::to_string(tally.histories) +
                " histories are not linearizable against the model.";
    r.counterexample = std::move(tally.counterexample);
    ctx.save_counterexample(*r.counterexample, "C10", engine);
  } else if (too_many_undecided) {
    r.verdict = Verdict::kFail;
    r.summary = std::to_string(tally.undecided) + " of " + std::to_string(tally.histories) +
                " histories were too large to decide (more than " +
                std::to_string(kMaxUndecidedPercent) + "%), e.g. " + *tally.undecided_example + ".";
  } else {
    r.verdict = Verdict::kPass;
    r.summary = std::to_string(tally.histories) + " histories (" + std::to_string(tally.ops) +
                " ops) are linearizable" +
                (tally.undecided > 0
                     ? ", " + std::to_string(tally.undecided) + " too large to decide"
                     : std::string()) +
                ".";
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

// ---- filters ----------------------------------------------------------------------------

struct FilterHistoryShape {
  DriverConfig driver;
  CuckooFilterConfig filter;
};

// 2-4 threads, 50-200 ops each, 4-8 keys owned by their writers, b in {1, 2, 4}, f in
// {8, 12, 16}, max_kicks 4, 20 or 500, 2 .. 2 * keys buckets; the first filter seed under
// which no two keys are one item.
FilterHistoryShape filter_history_shape(std::uint64_t seed) {
  SplitMix64 rng(seed);
  FilterHistoryShape shape;
  DriverConfig& d = shape.driver;
  d.seed = seed;
  d.threads = static_cast<std::uint32_t>(2 + rng.below(3));
  d.ops_per_thread = 50 + rng.below(151);
  d.key_range = std::max<std::uint64_t>(d.threads, 4 + rng.below(5));
  d.key_ownership = true;
  d.erase_only_present = true;
  d.mix = OpMix::multiset();
  constexpr unsigned kSlots[] = {1, 2, 4};
  constexpr unsigned kBits[] = {8, 12, 16};
  constexpr unsigned kKicks[] = {4, 20, 500};
  CuckooFilterConfig& c = shape.filter;
  c.slots_per_bucket = kSlots[rng.below(3)];
  c.fingerprint_bits = kBits[rng.below(3)];
  c.max_kicks = kKicks[rng.below(3)];
  c.capacity = (2 + rng.below(2 * d.key_range - 1)) * c.slots_per_bucket;
  for (int attempt = 0;; ++attempt) {  // bound: kMaxSeedCandidates
    if (attempt == kMaxSeedCandidates) {
      throw std::runtime_error("no filter seed without aliasing keys for history seed " +
                               std::to_string(seed));
    }
    c.seed = rng.next();
    const CuckooFilter probe(c);  // the placement rule of both concurrent designs
    std::set<std::pair<std::uint32_t, std::uint32_t>> items;
    bool distinct = true;
    for (std::uint64_t key = 0; key < d.key_range && distinct; ++key) {
      const CuckooFilterPlacement p = probe.placement(key);
      distinct = items.insert({p.fingerprint, std::min(p.bucket1, p.bucket2)}).second;
    }
    if (distinct) break;
  }
  return shape;
}

template <class Filter>
class FilterDriverSubject {
 public:
  explicit FilterDriverSubject(Filter& filter) : filter_(filter) {}
  InsertOutcome insert(std::uint64_t key) {
    pace();
    return outcome_of(filter_.insert(key));
  }
  bool erase(std::uint64_t key) {
    pace();
    return filter_.erase(key);
  }
  bool contains(std::uint64_t key) const {
    pace();
    return filter_.contains(key);
  }
  std::uint64_t size() const { return filter_.size(); }

 private:
  Filter& filter_;
};

template <class Filter>
void note_filter(Tally& tally, const Filter& filter) {
  if constexpr (requires { filter.elision_stats(); }) {
    const CuckooFilterStats s = filter.filter_stats();
    tally.moves += s.kicks;
    tally.fulls += s.full_rejections;
    const sync::ElisionStats e = filter.elision_stats();
    tally.transactions += e.transactions();
    tally.fallbacks += e.fallbacks();
  } else {
    const StripedFilterStats s = filter.stats();
    tally.moves += s.path_hops;
    tally.fulls += s.full_rejections;
  }
}

template <class Filter>
void add_filter_task(TaskList& tasks, Profile profile, std::string configuration,
                     std::function<std::unique_ptr<Filter>(const CuckooFilterConfig&)> make) {
  const std::size_t histories = histories_for(profile);
  Task task;
  task.claim = "C10";
  task.engine = "concurrent-filter";
  task.configuration = configuration;
  task.cost = 3;
  task.run = [=](const TaskContext& ctx) {
    const auto start = std::chrono::steady_clock::now();
    Tally tally;
    SplitMix64 seeds(ctx.seed);
    for (std::size_t i = 0; i < histories; ++i) {  // bound: histories
      const FilterHistoryShape shape = filter_history_shape(seeds.next());
      const std::unique_ptr<Filter> filter = make(shape.filter);
      std::vector<std::uint64_t> limits;
      for (std::uint64_t key = 0; key < shape.driver.key_range; ++key) {
        limits.push_back(filter->max_copies(key));
      }
      FilterDriverSubject<Filter> subject(*filter);
      const RunResult run = stress::run_stress(stress::make_subject(subject), shape.driver);
      const CheckResult check = stress::check_linearizability(run.history, PerKeyFilterSpec(limits));
      record(tally, run, check);
      note_filter(tally, *filter);
    }
    TaskOutput out;
    out.results.push_back(result_of("concurrent-filter", configuration, ctx, tally, start));
    return out;
  };
  tasks.push_back(std::move(task));
}

// ---- maps ---------------------------------------------------------------------------------

// 2-4 threads, 50-200 ops each, key_range_min .. key_range_min + 4 keys, every map op.
DriverConfig map_history_config(std::uint64_t seed, std::uint64_t key_range_min) {
  SplitMix64 rng(seed);
  DriverConfig d;
  d.seed = seed;
  d.threads = static_cast<std::uint32_t>(2 + rng.below(3));
  d.ops_per_thread = 50 + rng.below(151);
  d.key_range = key_range_min + rng.below(5);
  d.mix = OpMix::map();
  return d;
}

template <class Map>
stress::Subject map_subject(Map& map) {
  stress::Subject s;
  s.insert = [&map](std::uint64_t key, std::uint64_t value) {
    pace();
    return outcome_of(map.insert(key, value));
  };
  s.insert_or_assign = [&map](std::uint64_t key, std::uint64_t value) {
    pace();
    return outcome_of(map.insert_or_assign(key, value));
  };
  s.erase = [&map](std::uint64_t key) {
    pace();
    return map.erase(key);
  };
  s.contains = [&map](std::uint64_t key) {
    pace();
    return map.contains(key);
  };
  s.find = [&map](std::uint64_t key) {
    pace();
    return map.find(key);
  };
  s.size = [&map] { return static_cast<std::uint64_t>(map.size()); };
  return s;
}

template <class Map>
void add_map_task(TaskList& tasks, Profile profile, std::string configuration,
                  std::uint64_t key_range_min,
                  std::function<std::unique_ptr<Map>(std::uint64_t seed)> make) {
  const std::size_t histories = histories_for(profile);
  Task task;
  task.claim = "C10";
  task.engine = "concurrent-map";
  task.configuration = configuration;
  task.cost = 3;
  task.run = [=](const TaskContext& ctx) {
    const auto start = std::chrono::steady_clock::now();
    Tally tally;
    SplitMix64 seeds(ctx.seed);
    for (std::size_t i = 0; i < histories; ++i) {  // bound: histories
      const std::uint64_t seed = seeds.next();
      const std::unique_ptr<Map> map = make(seed);
      const RunResult run = stress::run_stress(map_subject(*map), map_history_config(seed, key_range_min));
      const CheckResult check = stress::check_map(run.history);
      record(tally, run, check);
      if constexpr (requires { map->lock_stats(); }) {
        const sync::ElisionStats e = map->lock_stats();
        tally.transactions += e.transactions();
        tally.fallbacks += e.fallbacks();
      } else {
        tally.moves += map->stats().path_inserts;
        tally.fulls += map->stats().full_rejections;
      }
      // A linearizable history that leaves a broken table is still a failure.
      if (const std::string problem = map->check_invariants(); !problem.empty()) {
        ++tally.not_linearizable;
        if (!tally.counterexample) {
          Counterexample cx;
          cx.trace = stress::dump_history(run.history, "invariant broken after: " + run.reproduce());
          cx.explanation = "check_invariants() after the history: " + problem;
          cx.original_ops = run.history.size();
          cx.shrunk_ops = run.history.size();
          cx.replay_command = "stress driver: " + run.reproduce();
          tally.counterexample = std::move(cx);
        }
      }
    }
    TaskOutput out;
    out.results.push_back(result_of("concurrent-map", configuration, ctx, tally, start));
    return out;
  };
  tasks.push_back(std::move(task));
}

CuckooMapConfig map_config(std::uint64_t seed, std::size_t initial, std::size_t max_capacity) {
  CuckooMapConfig c;
  c.initial_capacity = initial;
  c.max_capacity = max_capacity;
  c.seed = seed;
  return c;
}

struct Backend {
  const char* name;
  std::function<sync::HtmPolicy()> policy;
};

std::vector<Backend> coarse_backends() {
  return {{"automatic", [] { return sync::HtmPolicy::automatic(); }},
          {"always_abort",
           [] { return sync::HtmPolicy::always_abort(sync::HtmStatus::make_conflict(true)); }},
          {"random_abort_30%", [] { return sync::HtmPolicy::random(0.3, 0xabad1deaULL); }}};
}

}  // namespace

void add_concurrency_claims(TaskList& tasks, Profile profile) {
  using U64 = std::uint64_t;
  for (const Backend& backend : coarse_backends()) {
    add_filter_task<CoarseConcurrentFilter>(
        tasks, profile, std::string("coarse htm=") + backend.name + " b=1..4 buckets=2..16 keys=4..8",
        [policy = backend.policy](const CuckooFilterConfig& c) {
          return std::make_unique<CoarseConcurrentFilter>(c, policy());
        });
  }
  for (const std::size_t stripes : {std::size_t{0}, std::size_t{1}}) {
    add_filter_task<StripedConcurrentFilter>(
        tasks, profile,
        std::string("striped stripes=") + (stripes == 0 ? "automatic" : "1") +
            " b=1..4 buckets=2..16 keys=4..8",
        [stripes](const CuckooFilterConfig& c) {
          StripedFilterOptions options;
          options.stripes = stripes;
          return std::make_unique<StripedConcurrentFilter>(c, options);
        });
  }
  for (const Backend& backend : coarse_backends()) {
    add_map_task<CoarseConcurrentMap<U64, U64, 1>>(
        tasks, profile, std::string("coarse htm=") + backend.name + " B=1 from 1 slot keys=8..12",
        8, [policy = backend.policy](std::uint64_t seed) {
          return std::make_unique<CoarseConcurrentMap<U64, U64, 1>>(
              map_config(seed, 1, CuckooMapConfig::kDefaultMaxCapacity), policy());
        });
  }
  add_map_task<StripedConcurrentMap<U64, U64, 4>>(
      tasks, profile, "striped B=4 64 slots keys=4..8", 4, [](std::uint64_t seed) {
        return std::make_unique<StripedConcurrentMap<U64, U64, 4>>(
            map_config(seed, 64, CuckooMapConfig::kDefaultMaxCapacity));
      });
  add_map_task<StripedConcurrentMap<U64, U64, 1>>(
      tasks, profile, "striped B=1 from 1 slot keys=8..12", 8, [](std::uint64_t seed) {
        return std::make_unique<StripedConcurrentMap<U64, U64, 1>>(
            map_config(seed, 1, CuckooMapConfig::kDefaultMaxCapacity));
      });
  add_map_task<StripedConcurrentMap<U64, U64, 1>>(
      tasks, profile, "striped B=1 capped at 8 slots keys=8..12", 8, [](std::uint64_t seed) {
        return std::make_unique<StripedConcurrentMap<U64, U64, 1>>(map_config(seed, 8, 8));
      });
}

}  // namespace cuckoo::audit
