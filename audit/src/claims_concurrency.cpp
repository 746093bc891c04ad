// C10: the concurrent filter and map are linearizable against their models. Each task
// runs many short multithreaded histories (2-4 threads, 50-200 ops each, a handful of
// keys so that ops on one key overlap) with the stress driver, checks each with the
// linearizability checker (Wing & Gong with Lowe's memoization, split per key), and
// counts what it saw. Tables are tiny so that kicks, cuckoo paths, the stash, kFull,
// duplicate limits (filters) and growth (maps) happen inside the histories.
//
// Configurations: every filter design and both map designs; the coarse design (one lock
// elided with hardware transactions) under the HTM shim's cheap backends as well: always
// abort (every section on the MCS fallback lock) and random aborts (each task's name says
// which backend really ran: automatic is real RTM only where the CPU has it); the striped
// design with automatic and with one lock stripe (unrelated buckets share a lock); the
// lock-free filter (K-CAS relocations, lookups by double collect; no stash), whose
// check_invariants() must also hold after every history, as the maps' must.
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
#include <string>
#include <utility>
#include <vector>

#include "cuckoo/audit/audit.hpp"

#include "cuckoo/concurrent_filter.hpp"
#include "cuckoo/concurrent_map.hpp"
#include "cuckoo/cuckoo_filter.hpp"
#include "cuckoo/lock_free_filter.hpp"
#include "cuckoo/subjects/driver.hpp"
#include "cuckoo/subjects/history.hpp"
#include "cuckoo/subjects/linearizability.hpp"
#include "cuckoo/subjects/run_and_check.hpp"
#include "cuckoo/subjects/specs.hpp"
#include "cuckoo/sync/htm.hpp"

namespace cuckoo::audit {
namespace {

using subjects::CheckedHistory;
using subjects::CheckResult;
using subjects::DriverConfig;
using subjects::OpMix;
using subjects::RunResult;
using subjects::SplitMix64;

// Histories per task in the quick profile; standard and full multiply it.
constexpr std::size_t kQuickHistories = 1000;
// A task fails when more than this percentage of its histories is undecided.
constexpr std::uint64_t kMaxUndecidedPercent = 1;

std::size_t histories_for(Profile profile) {
  switch (profile) {
    case Profile::kQuick: return kQuickHistories;
    case Profile::kStandard: return kQuickHistories * 10;
    case Profile::kFull: return kQuickHistories * 100;
  }
  return kQuickHistories;
}

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
      const auto& violation = std::get<subjects::NotLinearizable>(check.verdict);
      cx.trace = subjects::dump_history(violation.ops, "not linearizable; driver: " + run.reproduce());
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
  shape.driver = subjects::short_history_config(seed, rng);
  DriverConfig& d = shape.driver;
  d.key_range = std::max<std::uint64_t>(d.threads, 4 + rng.below(5));
  d.key_ownership = true;
  d.erase_only_present = true;
  d.mix = OpMix::multiset();
  CuckooFilterConfig& c = shape.filter;
  subjects::draw_filter_shape(c, rng);
  c.capacity = (2 + rng.below(2 * d.key_range - 1)) * c.slots_per_bucket;
  // CuckooFilter: the placement rule of every concurrent filter design.
  subjects::choose_alias_free_seed<CuckooFilter>(c, d.key_range, rng, seed);
  return shape;
}

void note_elision(Tally& tally, const sync::ElisionStats& e) {
  tally.transactions += e.transactions();
  tally.fallbacks += e.fallbacks();
}

template <class Filter>
void note_filter(Tally& tally, const Filter& filter) {
  if constexpr (requires { filter.elision_stats(); }) {
    const CuckooFilterStats s = filter.filter_stats();
    tally.moves += s.kicks;
    tally.fulls += s.full_rejections;
    note_elision(tally, filter.elision_stats());
  } else {
    // StripedFilterStats or LockFreeFilterStats: both count path hops and kFull answers.
    const auto s = filter.stats();
    tally.moves += s.path_hops;
    tally.fulls += s.full_rejections;
  }
}

// A linearizable history that leaves a broken table is still a failure: counted as not
// linearizable, with the history as the counterexample. `problem` is what
// check_invariants() returned after the history ("" when it held).
void note_invariants(Tally& tally, const RunResult& run, const std::string& problem) {
  if (problem.empty()) return;
  ++tally.not_linearizable;
  if (!tally.counterexample) {
    Counterexample cx;
    cx.trace = subjects::dump_history(run.history, "invariant broken after: " + run.reproduce());
    cx.explanation = "check_invariants() after the history: " + problem;
    cx.original_ops = run.history.size();
    cx.shrunk_ops = run.history.size();
    cx.replay_command = "stress driver: " + run.reproduce();
    tally.counterexample = std::move(cx);
  }
}

// Adds the C10 task that runs `histories_for(profile)` histories, one a seed drawn from
// the task seed: `run_one(seed, tally)` runs and checks one and records it.
// `detected`: what the machine decided (ClaimResult::detected), kept out of the
// configuration so the result's name is the same everywhere.
void add_history_task(TaskList& tasks, Profile profile, std::string engine,
                      std::string configuration,
                      std::function<void(std::uint64_t seed, Tally& tally)> run_one,
                      std::string detected = {}) {
  const std::size_t histories = histories_for(profile);
  Task task;
  task.claim = "C10";
  task.engine = engine;
  task.configuration = configuration;
  task.cost = 3;
  task.run = [=](const TaskContext& ctx) {
    const auto start = std::chrono::steady_clock::now();
    Tally tally;
    SplitMix64 seeds(ctx.seed);
    for (std::size_t i = 0; i < histories; ++i) {  // bound: histories
      run_one(seeds.next(), tally);
    }
    TaskOutput out;
    out.results.push_back(result_of(engine, configuration, ctx, tally, start));
    out.results.back().detected = detected;
    return out;
  };
  tasks.push_back(std::move(task));
}

template <class Filter>
void add_filter_task(TaskList& tasks, Profile profile, std::string configuration,
                     std::function<std::unique_ptr<Filter>(const CuckooFilterConfig&)> make,
                     std::string detected = {}) {
  add_history_task(tasks, profile, "concurrent-filter", std::move(configuration),
                   [make](std::uint64_t seed, Tally& tally) {
                     const FilterHistoryShape shape = filter_history_shape(seed);
                     const std::unique_ptr<Filter> filter = make(shape.filter);
                     const CheckedHistory h = subjects::run_and_check_filter(
                         *filter, shape.driver, /*erase_absent_may_succeed=*/false);
                     record(tally, h.run, h.check);
                     note_filter(tally, *filter);
                     // The driver joined its threads: the filter is quiescent.
                     if constexpr (requires { filter->check_invariants(); }) {
                       note_invariants(tally, h.run, filter->check_invariants());
                     }
                   },
                   std::move(detected));
}

// ---- maps ---------------------------------------------------------------------------------

template <class Map>
void add_map_task(TaskList& tasks, Profile profile, std::string configuration,
                  std::uint64_t key_range_min,
                  std::function<std::unique_ptr<Map>(std::uint64_t seed)> make,
                  std::string detected = {}) {
  add_history_task(
      tasks, profile, "concurrent-map", std::move(configuration),
      [key_range_min, make](std::uint64_t seed, Tally& tally) {
        const std::unique_ptr<Map> map = make(seed);
        subjects::Subject subject = subjects::map_subject(*map, subjects::pace_every_fourth_call);
        subject.size = [&map] { return static_cast<std::uint64_t>(map->size()); };  // unpaced
        const CheckedHistory h =
            subjects::run_and_check_map(subject, subjects::map_history_config(seed, key_range_min));
        const RunResult& run = h.run;
        record(tally, run, h.check);
        if constexpr (requires { map->lock_stats(); }) {
          note_elision(tally, map->lock_stats());
        } else {
          tally.moves += map->stats().path_inserts;
          tally.fulls += map->stats().full_rejections;
        }
        note_invariants(tally, run, map->check_invariants());
      },
      std::move(detected));
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

// The backend a policy really runs: "automatic" is real RTM only where the CPU has it,
// so the report says which one ran, as a detected value (not in the configuration,
// whose text names the result the same way on every machine).
std::string backend_ran(const Backend& backend) {
  const sync::HtmBackend ran = sync::Htm(backend.policy()).effective_backend();
  return "htm ran: " + std::string(sync::to_string(ran));
}

}  // namespace

void add_concurrency_claims(TaskList& tasks, Profile profile) {
  using U64 = std::uint64_t;
  for (const Backend& backend : coarse_backends()) {
    add_filter_task<CoarseConcurrentFilter>(
        tasks, profile, "coarse htm=" + std::string(backend.name) + " b=1..4 buckets=2..16 keys=4..8",
        [policy = backend.policy](const CuckooFilterConfig& c) {
          return std::make_unique<CoarseConcurrentFilter>(c, policy());
        },
        backend_ran(backend));
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
  // Every shape filter_history_shape draws (f in 8/12/16, b in 1/2/4) fits a lock-free
  // bucket (only b = 8 with f >= 25 does not).
  add_filter_task<LockFreeFilter>(tasks, profile, "lock-free b=1..4 buckets=2..16 keys=4..8",
                                  [](const CuckooFilterConfig& c) {
                                    return std::make_unique<LockFreeFilter>(c);
                                  });
  for (const Backend& backend : coarse_backends()) {
    add_map_task<CoarseConcurrentMap<U64, U64, 1>>(
        tasks, profile, "coarse htm=" + std::string(backend.name) + " B=1 from 1 slot keys=8..12",
        8,
        [policy = backend.policy](std::uint64_t seed) {
          return std::make_unique<CoarseConcurrentMap<U64, U64, 1>>(
              map_config(seed, 1, CuckooMapConfig::kDefaultMaxCapacity), policy());
        },
        backend_ran(backend));
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
