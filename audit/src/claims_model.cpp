// The model-checked claims: C1 (no false negatives), C5 (erase and the copy limit), C6
// (a failed insert loses nothing), C7 (exact tables answer as the map model), C8
// (SmartCuckoo predicts exactly the inserts the placement oracle rejects) and C11
// (serialization round trips; corrupted bytes are rejected).
//
// Every task generates seeded random traces (trace_gen.hpp) whose header is the engine's
// configuration as replay.hpp writes it, checks each against a fresh engine and its
// model in lock step (model::check), and on a violation shrinks the trace (shrink.hpp)
// into the counterexample of the report. Tables are tiny and key ranges small, so that
// duplicates, kicks, the stash, kFull and resizes happen in most traces; the shape of
// each trace (capacity, kick bound, key range, length) is drawn from its seed, so one
// task covers a range of configurations and its configuration string names the range.
//
// Sample sizes: the quick profile runs kQuickTraces traces of a task (measured: all model
// tasks together take well under 30 s single-threaded in a release build); standard runs
// 10x, full 100x. Any violation fails the task, whatever claim the checker names: the
// summary names the claim that broke.
#include <algorithm>
#include <array>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "cuckoo/audit/audit.hpp"
#include "cuckoo/audit/model_claims.hpp"
#include "cuckoo/subjects/replay.hpp"
#include "cuckoo/audit/shrink.hpp"
#include "cuckoo/audit/trace_check.hpp"
#include "cuckoo/subjects/trace_gen.hpp"
#include "cuckoo/bloom_filter.hpp"
#include "cuckoo/error.hpp"
#include "cuckoo/model/checker.hpp"
#include "cuckoo/model/map_model.hpp"
#include "cuckoo/model/multiset_model.hpp"
#include "cuckoo/model/placement_oracle.hpp"

namespace cuckoo::audit {

// The subject layer's adapters, configuration mappings and trace generator.
using namespace cuckoo::subjects;
namespace {

// ---- sample sizes -------------------------------------------------------------------

// Traces per task in the quick profile; standard and full multiply it.
constexpr std::size_t kQuickTraces = 3000;
// Base structures per C11 corruption task in the quick profile, and byte corruptions
// tried per structure.
constexpr std::size_t kQuickCorruptionBases = 20;
constexpr std::size_t kCorruptionsPerBase = 300;

std::size_t scaled(Profile profile, std::size_t quick) noexcept {  // quick, x10, x100
  switch (profile) {
    case Profile::kQuick: return quick;
    case Profile::kStandard: return quick * 10;
    case Profile::kFull: return quick * 100;
  }
  return quick;
}

TaskOutput single(ClaimResult result) {
  TaskOutput out;
  out.results.push_back(std::move(result));
  return out;
}

std::string u(std::uint64_t v) { return std::to_string(v); }

// Draws one of `values` (weights equal).
template <class T, std::size_t N>
T pick(TraceRng& rng, const std::array<T, N>& values) {
  return values[static_cast<std::size_t>(rng.below(N))];
}

// ---- engines built from a trace header, with their counters --------------------------

// Checks `trace` against `subject` and a fresh `Model` in lock step.
template <class Model, class Subject>
TraceOutcome check_against(Subject& subject, const model::Trace& trace, std::uint64_t seed) {
  Model model;
  TraceOutcome out;
  out.violation = model::check(subject, model, trace, seed);
  return out;
}

TraceOutcome check_filter(const model::Trace& trace) {
  const CuckooFilterConfig config = filter_config_from(trace.parameters);
  CuckooFilter filter(config);
  FilterSubjectAdapter subject(filter);
  TraceOutcome out = check_against<model::MultisetModel>(subject, trace, *config.seed);
  const CuckooFilterStats& s = filter.stats();
  out.counters.add("inserts answered kFull", static_cast<double>(s.full_rejections));
  out.counters.add("inserts answered kDuplicateLimit", static_cast<double>(s.duplicate_rejections));
  out.counters.add("kicks", static_cast<double>(s.kicks), "");
  out.counters.add("items moved to the stash", static_cast<double>(s.kick_failures), "");
  return out;
}

// The growing filter through the adapter its header names (raw_keys, subjects/growing.hpp).
TraceOutcome check_growing(const model::Trace& trace) {
  const GrowingCuckooFilterConfig config = growing_config_from(trace.parameters);
  GrowingCuckooFilter filter(config);
  TraceOutcome out;
  if (growing_raw_keys(trace.parameters)) {
    AliasingGrowingFilterSubjectAdapter subject(filter);
    out = check_against<model::MultisetModel>(subject, trace, *config.seed);
    out.counters.add("erases that took another key's copy at a newer level",
                     static_cast<double>(subject.aliased_erases()), "");
  } else {
    GrowingFilterSubjectAdapter subject(filter);
    out = check_against<model::MultisetModel>(subject, trace, *config.seed);
  }
  const GrowingCuckooFilterStats& s = filter.stats();
  out.counters.add("inserts answered kFull", static_cast<double>(s.full_rejections));
  out.counters.add("levels added", static_cast<double>(s.levels_added), "");
  out.counters.add("traces that reached their level limit",
                   filter.level_count() == filter.reachable_levels() ? 1.0 : 0.0, "");
  return out;
}

TraceOutcome check_map(const model::Trace& trace) {
  const CuckooMapConfig config = map_config_from(trace.parameters);
  return with_map_slots(trace.parameters, [&]<unsigned B>() {
    CuckooMap<std::uint64_t, std::uint64_t, B> table(config);
    MapSubjectAdapter subject(table, config.max_capacity < CuckooMapConfig{}.max_capacity);
    TraceOutcome out = check_against<model::MapModel>(subject, trace, *config.seed);
    const CuckooMapStats& s = table.stats();
    out.counters.add("inserts answered kFull", static_cast<double>(s.full_rejections));
    out.counters.add("table growths", static_cast<double>(s.growths), "");
    out.counters.add("path searches that failed", static_cast<double>(s.bfs_failures), "");
    out.counters.add("traces that used the stash", s.stash_high_water > 0 ? 1.0 : 0.0, "");
    return out;
  });
}

TraceOutcome check_classic(const model::Trace& trace) {
  const ClassicCuckooConfig config = classic_config_from(trace.parameters);
  ClassicCuckoo<> table(config);
  MapSubjectAdapter subject(table, classic_may_report_full(config));
  TraceOutcome out = check_against<model::MapModel>(subject, trace, *config.seed);
  const ClassicCuckooStats& s = table.stats();
  out.counters.add("inserts answered kFull", static_cast<double>(s.full));
  out.counters.add("kicks", static_cast<double>(s.total_kicks), "");
  out.counters.add("walks that reached max_kicks", static_cast<double>(s.failures), "");
  out.counters.add("rehashes", static_cast<double>(s.rehashes), "");
  out.counters.add("growths", static_cast<double>(s.grows), "");
  return out;
}

TraceOutcome check_smart(const model::Trace& trace) {
  const SmartCuckooConfig config = smart_config_from(trace.parameters);
  SmartCuckoo<> table(config);
  MapSubjectAdapter subject(table, /*has_growth_limit=*/true);
  TraceOutcome out = check_against<model::MapModel>(subject, trace, *config.seed);
  const SmartCuckooStats& s = table.stats();
  out.counters.add("inserts answered kFull", static_cast<double>(s.full_rejections));
  out.counters.add("predicted failures", static_cast<double>(s.predicted_failures), "");
  out.counters.add("items put in the stash", static_cast<double>(s.stash_insertions), "");
  out.counters.add("kicks", static_cast<double>(s.total_kicks), "");
  return out;
}

TraceOutcome check_bloom(const model::Trace& trace) {
  const BloomFilterConfig config = bloom_config_from(trace.parameters);
  BloomFilter filter(config);
  BloomSubjectAdapter subject(filter);
  TraceOutcome out = check_against<model::MultisetModel>(subject, trace, *config.seed);
  out.counters.add("inserts", static_cast<double>(filter.size()));
  return out;
}

// ---- trace shapes ---------------------------------------------------------------------

// A cuckoo filter header: f and b fixed, a tiny table, kick bound often tiny.
model::TraceParameters filter_header(TraceRng& rng, unsigned f, unsigned b,
                                     std::uint64_t min_slots, std::uint64_t max_slots,
                                     bool tiny_kicks) {
  CuckooFilterConfig c;
  c.fingerprint_bits = f;
  c.slots_per_bucket = b;
  c.capacity = min_slots + rng.below(max_slots - min_slots + 1);
  c.max_kicks = tiny_kicks ? pick(rng, std::array<unsigned, 3>{1, 2, 4})
                           : pick(rng, std::array<unsigned, 5>{1, 2, 16, 500, 500});
  c.seed = rng.next();
  return audit::parameters_of(c);
}

// A growing cuckoo filter header: level-0 f and b fixed, a tiny level 0 (8..32 slots),
// expansion 1..3 and 2..5 levels, so that traces add levels and reach the limit.
model::TraceParameters growing_header(TraceRng& rng, unsigned f, unsigned b) {
  GrowingCuckooFilterConfig c;
  c.fingerprint_bits = f;
  c.slots_per_bucket = b;
  c.capacity = 8 + rng.below(25);
  c.expansion = static_cast<unsigned>(1 + rng.below(3));
  c.max_levels = static_cast<unsigned>(2 + rng.below(4));
  c.max_kicks = pick(rng, std::array<unsigned, 4>{1, 4, 500, 500});
  c.seed = rng.next();
  return parameters_of(c);
}

// An inclusive range a trace's length or key range is drawn from.
struct Range {
  std::uint64_t min;
  std::uint64_t max;
};

// The trace of `engine` under `header`: its length, then its key range drawn from `rng`
// (in that order), then the trace's own seed.
model::Trace random_trace(TraceRng& rng, std::string engine, model::TraceParameters header,
                          Range ops, Range keys, const OpWeights& weights) {
  TraceShape shape;
  shape.ops = ops.min + rng.below(ops.max - ops.min + 1);
  shape.key_range = keys.min + rng.below(keys.max - keys.min + 1);
  shape.weights = weights;
  shape.insert_values = engine != "filter" && engine != "bloom";
  return generate_trace(std::move(engine), std::move(header), shape, rng.next());
}

// A SmartCuckoo configuration: capacity, then stash capacity (0 .. max_stash), then the
// seed, drawn from `rng` in that order.
SmartCuckooConfig smart_config(TraceRng& rng, Range capacity, std::uint64_t max_stash) {
  SmartCuckooConfig c;
  c.capacity = capacity.min + rng.below(capacity.max - capacity.min + 1);
  c.stash_capacity = rng.below(max_stash + 1);
  c.seed = rng.next();
  return c;
}

using Generator = std::function<model::Trace(std::uint64_t, std::size_t)>;
using Checker = std::function<TraceOutcome(const model::Trace&)>;

TraceCheckPlan trace_plan(std::string claim, std::string engine, std::string configuration,
                          std::string checked, std::size_t traces, Generator generate,
                          Checker check) {
  TraceCheckPlan plan;
  plan.claim = std::move(claim);
  plan.engine = std::move(engine);
  plan.configuration = std::move(configuration);
  plan.checked = std::move(checked);
  plan.traces = traces;
  plan.generate = std::move(generate);
  plan.check = std::move(check);
  return plan;
}

void add_task(TaskList& tasks, std::string claim, std::string engine, std::string configuration,
              double cost, std::function<TaskOutput(const TaskContext&)> run) {
  Task task;
  task.claim = std::move(claim);
  task.engine = std::move(engine);
  task.configuration = std::move(configuration);
  task.cost = cost;
  task.run = std::move(run);
  tasks.push_back(std::move(task));
}

// A task that checks sizes.traces generated traces.
void add_trace_task(TaskList& tasks, const ModelClaimSizes& sizes, const std::string& claim,
                    const std::string& engine, const std::string& configuration,
                    std::string checked, Generator generate, Checker check, double cost = 1) {
  const TraceCheckPlan plan = trace_plan(claim, engine, configuration, std::move(checked),
                                         sizes.traces, std::move(generate), std::move(check));
  add_task(tasks, claim, engine, configuration, cost, [plan](const TaskContext& ctx) {
    return single(run_trace_check(plan, ctx.seed, &ctx));
  });
}

// ---- C1: no false negatives -----------------------------------------------------------

void add_c1(TaskList& tasks, const ModelClaimSizes& sizes) {
  // (f, b) shapes: every f in {4, 8, 12, 16} and every b in {1, 2, 4, 8}, twice each.
  constexpr std::array<std::pair<unsigned, unsigned>, 8> kShapes = {
      {{4, 1}, {4, 4}, {8, 2}, {8, 8}, {12, 4}, {12, 1}, {16, 2}, {16, 8}}};
  OpWeights weights = OpWeights::filter();
  weights.serialize_roundtrip = 2;
  weights.clear = 1;
  for (const auto& [f, b] : kShapes) {
    const std::string config = "f=" + u(f) + " b=" + u(b) + " capacity=8..64 max_kicks=1..500";
    add_trace_task(
        tasks, sizes, "C1", "filter", config,
        "contains after inserts, duplicates, erases, failed inserts, round trips",
        [f = f, b = b, weights](std::uint64_t seed, std::size_t) {
          TraceRng rng(seed);
          model::TraceParameters header = filter_header(rng, f, b, 8, 64, false);
          return random_trace(rng, "filter", std::move(header), {150, 300}, {8, 64}, weights);
        },
        check_filter);
  }
  for (const unsigned f : {8U, 12U, 16U}) {
    add_trace_task(
        tasks, sizes, "C1", "growing-filter",
        "f=" + u(f) + " b=1..8 capacity=8..32 expansion=1..3 max_levels=2..5",
        "contains across growth, duplicates, erases, the level limit, round trips",
        [f, weights](std::uint64_t seed, std::size_t) {
          TraceRng rng(seed);
          const unsigned b = pick(rng, std::array<unsigned, 4>{1, 2, 4, 8});
          model::TraceParameters header = growing_header(rng, f, b);
          return random_trace(rng, "growing", std::move(header), {150, 300}, {8, 64}, weights);
        },
        check_growing);
  }
  // Keys that share items across levels (f = 4 or 5, levels of 1..8 slots, the trace's
  // own keys), erase-heavy: erases take other keys' copies at newer levels, and every
  // stored key must still be found.
  add_trace_task(
      tasks, sizes, "C1", "growing-filter",
      "f=4..5 b=1..8 capacity=1..8 expansion=1..3 max_levels=3..6 raw_keys=1",
      "contains after erases of keys aliased at newer levels, across growth",
      [](std::uint64_t seed, std::size_t) {
        TraceRng rng(seed);
        GrowingCuckooFilterConfig c;
        c.fingerprint_bits = static_cast<unsigned>(4 + rng.below(2));
        c.slots_per_bucket = pick(rng, std::array<unsigned, 4>{1, 2, 4, 8});
        c.capacity = 1 + rng.below(8);
        c.expansion = static_cast<unsigned>(1 + rng.below(3));
        c.max_levels = static_cast<unsigned>(3 + rng.below(4));
        c.max_kicks = pick(rng, std::array<unsigned, 4>{1, 4, 500, 500});
        c.seed = rng.next();
        model::TraceParameters header = parameters_of(c);
        header.set("raw_keys", "1");
        return random_trace(rng, "growing", std::move(header), {150, 300}, {8, 64},
                            OpWeights{40, 32, 24, 2, 2, 0, 0, 0});
      },
      check_growing);
  add_trace_task(
      tasks, sizes, "C1", "bloom", "bits=64..1024 hashes=1..8",
      "contains after inserts, duplicates, round trips",
      [](std::uint64_t seed, std::size_t) {
        TraceRng rng(seed);
        BloomFilterConfig c;
        c.bits = 64 * (1 + rng.below(16));
        c.hashes = static_cast<unsigned>(1 + rng.below(8));
        c.seed = rng.next();
        return random_trace(rng, "bloom", parameters_of(c), {150, 300}, {16, 215},
                            OpWeights{45, 0, 45, 5, 3, 1, 0, 0});
      },
      check_bloom);
}

// ---- C5: erase one copy, at most 2b copies --------------------------------------------

void add_c5(TaskList& tasks, const ModelClaimSizes& sizes) {
  for (const unsigned b : {1U, 2U, 4U, 8U}) {
    const std::string config = "f=8 b=" + u(b) + " capacity=" + u(8 * b) + ".." + u(32 * b) +
                               " keys=2..6";
    add_trace_task(
        tasks, sizes, "C5", "filter", config,
        "duplicate inserts up to the copy limit, erase of one copy, sizes",
        [b](std::uint64_t seed, std::size_t) {
          TraceRng rng(seed);
          model::TraceParameters header = filter_header(rng, 8, b, 8 * b, 32 * b, false);
          return random_trace(rng, "filter", std::move(header), {100, 200}, {2, 6},
                              OpWeights{50, 25, 15, 10, 1, 0, 0, 0});
        },
        check_filter);
  }
}

void add_c5_growing(TaskList& tasks, const ModelClaimSizes& sizes) {
  add_trace_task(
      tasks, sizes, "C5", "growing-filter", "f=8 b=1..8 capacity=8..32 keys=2..6",
      "duplicate inserts up to the newest level's copy limit, erase of one copy, sizes",
      [](std::uint64_t seed, std::size_t) {
        TraceRng rng(seed);
        const unsigned b = pick(rng, std::array<unsigned, 4>{1, 2, 4, 8});
        model::TraceParameters header = growing_header(rng, 8, b);
        return random_trace(rng, "growing", std::move(header), {100, 200}, {2, 6},
                            OpWeights{50, 25, 15, 10, 1, 0, 0, 0});
      },
      check_growing);
}

// ---- C6: a failed insert loses nothing ---------------------------------------------------

void add_c6(TaskList& tasks, const ModelClaimSizes& sizes) {
  const OpWeights fill{60, 10, 25, 5, 0, 0, 0, 0};
  add_trace_task(
      tasks, sizes, "C6", "growing-filter",
      "f=8 b=1..8 capacity=8..32 max_levels=2..5 keys=64..256",
      "inserts past the level limit, then every stored key",
      [fill](std::uint64_t seed, std::size_t) {
        TraceRng rng(seed);
        const unsigned b = pick(rng, std::array<unsigned, 4>{1, 2, 4, 8});
        model::TraceParameters header = growing_header(rng, 8, b);
        return random_trace(rng, "growing", std::move(header), {150, 300}, {64, 256}, fill);
      },
      check_growing);
  for (const unsigned b : {1U, 4U}) {
    add_trace_task(
        tasks, sizes, "C6", "filter",
        "f=8 b=" + u(b) + " capacity=4..16 max_kicks=1..4 keys=16..128",
        "inserts into an overfull table, then every stored key",
        [b, fill](std::uint64_t seed, std::size_t) {
          TraceRng rng(seed);
          model::TraceParameters header = filter_header(rng, 8, b, 4, 16, true);
          return random_trace(rng, "filter", std::move(header), {100, 200}, {16, 128}, fill);
        },
        check_filter);
  }
  add_trace_task(
      tasks, sizes, "C6", "map", "B=1..8 initial_capacity=1..8 max_capacity=+0..8 keys=16..64",
      "inserts past a capped growth limit, then every stored key",
      [fill](std::uint64_t seed, std::size_t) {
        TraceRng rng(seed);
        const unsigned b = pick(rng, std::array<unsigned, 4>{1, 2, 4, 8});
        CuckooMapConfig c;
        c.initial_capacity = 1 + rng.below(8);
        const std::uint64_t rounded = (c.initial_capacity + b - 1) / b * b;
        c.max_capacity = rounded + rng.below(9);
        c.max_path_length = pick(rng, std::array<unsigned, 3>{1, 2, 5});
        c.seed = rng.next();
        return random_trace(rng, "map", audit::parameters_of(c, b), {100, 200}, {16, 64}, fill);
      },
      check_map);
  add_trace_task(
      tasks, sizes, "C6", "classic", "on_failure=report capacity=4..32 max_kicks=1..16 keys=16..64",
      "inserts that exhaust the kick bound, then every stored key",
      [fill](std::uint64_t seed, std::size_t) {
        TraceRng rng(seed);
        ClassicCuckooConfig c;
        c.capacity = 4 + rng.below(29);
        c.max_kicks = pick(rng, std::array<unsigned, 4>{1, 2, 4, 16});
        c.on_failure = OnInsertFailure::kReport;
        c.seed = rng.next();
        return random_trace(rng, "classic", audit::parameters_of(c), {100, 200}, {16, 64}, fill);
      },
      check_classic);
  add_trace_task(
      tasks, sizes, "C6", "smart", "capacity=4..32 stash_capacity=0..2 keys=16..64",
      "inserts predicted to fail with the stash full, then every stored key",
      [fill](std::uint64_t seed, std::size_t) {
        TraceRng rng(seed);
        const SmartCuckooConfig c = smart_config(rng, {4, 32}, 2);
        return random_trace(rng, "smart", audit::parameters_of(c), {100, 200}, {16, 64}, fill);
      },
      check_smart);
}

// ---- C7: exact tables answer as the map model -------------------------------------------

void add_c7(TaskList& tasks, const ModelClaimSizes& sizes) {
  OpWeights every_op = OpWeights::map();
  every_op.clear = 1;
  OpWeights with_roundtrips = every_op;
  with_roundtrips.serialize_roundtrip = 2;
  for (const unsigned b : {1U, 2U, 4U, 8U}) {
    add_trace_task(
        tasks, sizes, "C7", "map",
        "B=" + u(b) + " initial_capacity=1..16 max_capacity=default|capped max_path_length=1..5",
        "every map op, growth from a tiny table, round trips",
        [b, with_roundtrips](std::uint64_t seed, std::size_t) {
          TraceRng rng(seed);
          CuckooMapConfig c;
          c.initial_capacity = 1 + rng.below(16);
          if (rng.percent(30)) {  // capped: growth stops early and kFull is legitimate
            const std::uint64_t rounded = (c.initial_capacity + b - 1) / b * b;
            c.max_capacity = rounded + rng.below(17);
          }
          c.max_path_length = pick(rng, std::array<unsigned, 4>{1, 2, 5, 5});
          c.seed = rng.next();
          return random_trace(rng, "map", audit::parameters_of(c, b), {150, 300}, {8, 64},
                              with_roundtrips);
        },
        check_map);
  }
  for (const OnInsertFailure policy :
       {OnInsertFailure::kRehash, OnInsertFailure::kGrow, OnInsertFailure::kReport}) {
    add_trace_task(
        tasks, sizes, "C7", "classic",
        std::string("on_failure=") + subjects::to_string(policy) +
            " capacity=2..32 max_kicks=1..500 max_capacity=default|capped",
        "every map op through kicks, rehashes and growth",
        [policy, every_op](std::uint64_t seed, std::size_t) {
          TraceRng rng(seed);
          ClassicCuckooConfig c;
          c.capacity = 2 + rng.below(31);
          c.max_kicks = pick(rng, std::array<unsigned, 5>{1, 2, 8, 500, 500});
          c.on_failure = policy;
          c.max_rehashes = pick(rng, std::array<unsigned, 3>{0, 1, 8});
          if (rng.percent(30)) c.max_capacity = c.capacity + 1 + rng.below(33);
          c.seed = rng.next();
          return random_trace(rng, "classic", audit::parameters_of(c), {150, 300}, {8, 64},
                              every_op);
        },
        check_classic);
  }
  add_trace_task(
      tasks, sizes, "C7", "smart", "capacity=4..64 stash_capacity=0..8 max_kicks=500",
      "every map op through predictions, kicks, the stash and deletions",
      [every_op](std::uint64_t seed, std::size_t) {
        TraceRng rng(seed);
        const SmartCuckooConfig c = smart_config(rng, {4, 64}, 8);
        return random_trace(rng, "smart", audit::parameters_of(c), {150, 300}, {8, 64}, every_op);
      },
      check_smart);
}

// ---- C8: SmartCuckoo's predictions against the placement oracle -------------------------

// Load-factor bins of the C8 plot.
constexpr std::size_t kLoadBins = 20;

struct PredictionTally {
  std::array<std::uint64_t, kLoadBins> inserts{};      // inserts of new keys, by load before
  std::array<std::uint64_t, kLoadBins> predicted{};    // of them, predicted to fail
  std::array<std::uint64_t, kLoadBins> infeasible{};   // of them, no placement per the oracle
};

// Replays a smart trace and checks, before every insert of a new key, that the engine's
// prediction (would_insert_fail) equals the oracle's "no placement of the table's items
// plus this one exists", and after it that a predicted failure made no kick and went to
// the stash (or was refused), and a predicted success landed in the tables. The oracle
// follows the items in the tables (stashed items are not part of the question, as the
// engine documents), including stash items moved back after an erase.
TraceOutcome check_smart_predictions(const model::Trace& trace, PredictionTally* tally) {
  const SmartCuckooConfig config = smart_config_from(trace.parameters);
  SmartCuckoo<> table(config);
  model::PlacementOracle oracle(table.graph_vertices(), 1);
  std::set<std::uint64_t> stashed;
  TraceOutcome out;
  std::uint64_t agreements = 0;
  std::uint64_t predicted_total = 0;
  std::uint64_t infeasible_total = 0;
  std::uint64_t kicks_on_predicted = 0;
  auto pair_of = [&table](std::uint64_t key) {
    const auto [a, b] = table.vertices_of(key);
    return model::CandidatePair{a, b};
  };
  auto fail = [&](std::size_t index, const model::Op& op, std::string expected, std::string actual) {
    out.violation = model::Violation{"C8", index, op, std::move(expected), std::move(actual),
                                     *config.seed};
  };
  for (std::size_t i = 0; i < trace.entries.size() && !out.violation; ++i) {
    const model::Op& op = trace.entries[i].op;
    switch (op.kind) {
      case model::OpKind::kInsert:
      case model::OpKind::kInsertOrAssign: {
        if (table.contains(op.key)) {
          if (op.kind == model::OpKind::kInsert) {
            (void)table.insert(op.key, op.value);
          } else {
            (void)table.insert_or_assign(op.key, op.value);
          }
          break;
        }
        const model::CandidatePair pair = pair_of(op.key);
        const bool predicted = table.would_insert_fail(op.key);
        const bool infeasible = !oracle.would_fit_after_adding(pair);
        const auto bin = std::min<std::size_t>(
            kLoadBins - 1, static_cast<std::size_t>(table.load_factor() * kLoadBins));
        if (tally != nullptr) {
          ++tally->inserts[bin];
          tally->predicted[bin] += predicted ? 1 : 0;
          tally->infeasible[bin] += infeasible ? 1 : 0;
        }
        predicted_total += predicted ? 1 : 0;
        infeasible_total += infeasible ? 1 : 0;
        if (predicted != infeasible) {
          fail(i, op,
               std::string("would_insert_fail ") + (infeasible ? "true" : "false") +
                   " (the placement oracle says a placement " +
                   (infeasible ? "does not exist" : "exists") + ")",
               std::string("would_insert_fail ") + (predicted ? "true" : "false") + " (case " +
                   std::string(to_string(table.classify(op.key))) + ")");
          break;
        }
        ++agreements;
        const InsertResult r = op.kind == model::OpKind::kInsert
                                   ? table.insert(op.key, op.value)
                                   : table.insert_or_assign(op.key, op.value);
        const std::uint64_t kicks = table.stats().last_insert_kicks;
        if (predicted) {
          kicks_on_predicted += kicks;
          if (kicks != 0) {
            fail(i, op, "a predicted failure spends no kicks", u(kicks) + " kicks");
          } else if (r == InsertResult::kInserted && !table.in_stash(op.key)) {
            fail(i, op, "a predicted failure goes to the stash or is refused",
                 "stored in the tables");
          } else if (r == InsertResult::kInserted) {
            stashed.insert(op.key);
          }
        } else if (r != InsertResult::kInserted || !table.vertex_holding(op.key)) {
          fail(i, op, "a predicted success is stored in the tables",
               std::string(to_string(r)) + (table.in_stash(op.key) ? " (in the stash)" : ""));
        } else {
          oracle.add(pair);
        }
        break;
      }
      case model::OpKind::kErase: {
        const bool in_table = table.vertex_holding(op.key).has_value();
        const model::CandidatePair pair = pair_of(op.key);
        if (table.erase(op.key)) {
          if (in_table) {
            oracle.remove(pair);
          } else {
            stashed.erase(op.key);
          }
        }
        // Stash items that the erase let back into the tables.
        for (auto it = stashed.begin(); it != stashed.end();) {  // bound: stash_capacity
          if (!table.in_stash(*it) && table.vertex_holding(*it)) {
            oracle.add(pair_of(*it));
            it = stashed.erase(it);
          } else {
            ++it;
          }
        }
        break;
      }
      case model::OpKind::kClear:
        table.clear();
        oracle.clear();
        stashed.clear();
        break;
      case model::OpKind::kContains: (void)table.contains(op.key); break;
      case model::OpKind::kFind: (void)table.find(op.key); break;
      case model::OpKind::kSize: (void)table.size(); break;
      case model::OpKind::kSerializeRoundtrip: break;  // SmartCuckoo does not serialize
    }
  }
  out.counters.add("inserts of new keys checked against the oracle", static_cast<double>(agreements));
  out.counters.add("predicted failures", static_cast<double>(predicted_total), "");
  out.counters.add("inserts the oracle says cannot be placed", static_cast<double>(infeasible_total), "");
  out.counters.add("kicks spent on predicted failures", static_cast<double>(kicks_on_predicted), "");
  out.counters.add("kick walks past max_kicks",
                   static_cast<double>(table.stats().kick_bound_exhaustions), "");
  return out;
}

void add_c8(TaskList& tasks, const ModelClaimSizes& sizes) {
  const std::size_t traces = sizes.traces;
  const std::string config = "capacity=8..128 stash_capacity=0..8 keys=capacity*1.0..1.5";
  add_task(tasks, "C8", "smart", config, 1.5, [traces, config](const TaskContext& ctx) {
    auto tally = std::make_shared<PredictionTally>();
    // The traces of the run tally; the shrinker's re-runs after a violation must not.
    auto tallying = std::make_shared<bool>(true);
    const TraceCheckPlan plan = trace_plan(
        "C8", "smart", config,
        "would_insert_fail against the placement oracle, kicks of predicted failures", traces,
        [](std::uint64_t seed, std::size_t) {
          TraceRng rng(seed);
          const SmartCuckooConfig c = smart_config(rng, {8, 128}, 8);
          return random_trace(rng, "smart", audit::parameters_of(c), {200, 400},
                              {c.capacity, c.capacity + c.capacity / 2},
                              OpWeights{60, 25, 15, 0, 0, 0, 0, 0});
        },
        [tally, tallying](const model::Trace& t) {
          TraceOutcome o = check_smart_predictions(t, *tallying ? tally.get() : nullptr);
          if (o.violation) *tallying = false;
          return o;
        });
    TaskOutput out = single(run_trace_check(plan, ctx.seed, &ctx));
    Plot plot;
    plot.id = "c8-predictions-vs-oracle";
    plot.claim = "C8";
    plot.title = "SmartCuckoo: predicted failures vs inserts with no placement";
    plot.x_label = "load factor before the insert";
    plot.y_label = "fraction of inserts of new keys";
    plot.kind = PlotKind::kLines;
    PlotSeries predicted{"predicted to fail (SmartCuckoo)", false, {}};
    PlotSeries infeasible{"no placement exists (oracle)", false, {}};
    for (std::size_t bin = 0; bin < kLoadBins; ++bin) {
      if (tally->inserts[bin] == 0) continue;
      const double x = (static_cast<double>(bin) + 0.5) / kLoadBins;
      const auto n = static_cast<double>(tally->inserts[bin]);
      predicted.points.push_back({x, static_cast<double>(tally->predicted[bin]) / n, {}, {}});
      infeasible.points.push_back({x, static_cast<double>(tally->infeasible[bin]) / n, {}, {}});
    }
    plot.series.push_back(std::move(predicted));
    plot.series.push_back(std::move(infeasible));
    out.plots.push_back(std::move(plot));
    return out;
  });
}

// ---- C11: serialization -----------------------------------------------------------------

struct CorruptionTally {
  std::uint64_t truncations = 0;
  std::uint64_t corruptions = 0;
  std::uint64_t rejected = 0;          // DeserializeError
  std::uint64_t accepted_valid = 0;    // corrupted bytes that still made a valid structure
  std::optional<std::string> failure;  // the first input handled wrongly
};

// Feeds every truncation of `bytes` and `corruptions` single-byte corruptions to
// `deserialize`. A truncation must throw DeserializeError (every engine documents
// kTruncated or a checksum mismatch for it); a corruption must throw DeserializeError or
// give a structure for which `valid` returns "" (else what is wrong). Any other
// exception is a failure.
template <class Deserialize, class Valid>
void corrupt_and_check(const std::vector<std::uint8_t>& bytes, std::size_t corruptions,
                       TraceRng& rng, const Deserialize& deserialize, const Valid& valid,
                       CorruptionTally& tally) {
  auto attempt = [&](std::span<const std::uint8_t> input, const std::string& what,
                     bool must_reject) {
    try {
      auto structure = deserialize(input);
      if (must_reject) {
        tally.failure = what + ": accepted (expected a DeserializeError)";
        return;
      }
      const std::string problem = valid(structure);
      if (!problem.empty()) {
        tally.failure = what + ": accepted as an invalid structure: " + problem;
        return;
      }
      ++tally.accepted_valid;
    } catch (const DeserializeError&) {
      ++tally.rejected;
    } catch (const std::exception& e) {
      tally.failure = what + ": threw something other than DeserializeError: " + e.what();
    }
  };
  for (std::size_t len = 0; len < bytes.size() && !tally.failure; ++len) {  // bound: bytes.size()
    ++tally.truncations;
    attempt(std::span<const std::uint8_t>(bytes.data(), len),
            "the first " + u(len) + " of " + u(bytes.size()) + " bytes", true);
  }
  std::vector<std::uint8_t> copy = bytes;
  for (std::size_t i = 0; i < corruptions && !tally.failure && !bytes.empty(); ++i) {
    const auto at = static_cast<std::size_t>(rng.below(bytes.size()));
    const auto flip = static_cast<std::uint8_t>(1 + rng.below(255));
    copy[at] ^= flip;
    ++tally.corruptions;
    attempt(copy, "byte " + u(at) + " of " + u(bytes.size()) + " xor " + u(flip), false);
    copy[at] = bytes[at];
  }
}

template <class Table>
std::string map_validity(const Table& table) {
  return table.check_invariants();
}

// A deserialized filter (its deserializer checks its invariants itself) must answer
// queries and re-serialize to bytes it accepts.
template <class Filter>
std::string filter_validity(const Filter& filter) {
  (void)filter.contains(std::uint64_t{1});
  (void)Filter::deserialize(filter.serialize());
  return std::string();
}

// Builds a `Structure` from `config`, inserts the keys (and values) that `trace` inserts,
// and feeds its serialization to corrupt_and_check with Structure::deserialize.
template <class Structure, class Config, class Valid>
void corrupt_filled(const Config& config, const model::Trace& trace, TraceRng& rng,
                    const Valid& valid, CorruptionTally& tally) {
  Structure structure(config);
  for (const model::TraceEntry& e : trace.entries) {
    if (e.op.kind != model::OpKind::kInsert) continue;
    if constexpr (requires { typename Structure::mapped_type; }) {
      (void)structure.insert(e.op.key, e.op.value);
    } else {
      (void)structure.insert(e.op.key);
    }
  }
  corrupt_and_check(
      structure.serialize(), kCorruptionsPerBase, rng,
      [](std::span<const std::uint8_t> b) { return Structure::deserialize(b); }, valid, tally);
}

// The C11 task of one engine: round-trip traces (the model checks that the copy answers
// as the original), then truncations and corruptions of serialized structures built by
// such traces.
void add_c11_engine(TaskList& tasks, const ModelClaimSizes& sizes, const std::string& engine,
                    const std::string& configuration, Generator generate, Checker check,
                    std::function<void(const model::Trace&, TraceRng&, CorruptionTally&)> corrupt) {
  const std::size_t traces = std::max<std::size_t>(1, sizes.traces / 2);
  const std::size_t bases = sizes.corruption_bases;
  const TraceCheckPlan plan =
      trace_plan("C11", engine, configuration,
                 "serialize_roundtrip between ops: equal copy, same answers", traces, generate,
                 std::move(check));
  add_task(tasks, "C11", engine, configuration, 1, [=](const TaskContext& ctx) {
    ClaimResult result = run_trace_check(plan, ctx.seed, &ctx);
    if (result.verdict == Verdict::kFail) return single(std::move(result));

    CorruptionTally tally;
    TraceRng rng(ctx.seed ^ 0xc011c011ULL);
    for (std::size_t i = 0; i < bases && !tally.failure; ++i) {  // bound: bases
      corrupt(generate(trace_seed(ctx.seed, traces + i), traces + i), rng, tally);
    }
    auto figure = [](std::string name, std::uint64_t v) {
      Figure f;
      f.name = std::move(name);
      f.value = static_cast<double>(v);
      return f;
    };
    result.figures.push_back(figure("truncated inputs", tally.truncations));
    result.figures.push_back(figure("corrupted inputs", tally.corruptions));
    result.figures.push_back(figure("inputs rejected with DeserializeError", tally.rejected));
    result.figures.push_back(
        figure("corrupted inputs accepted as a valid structure", tally.accepted_valid));
    result.samples += tally.truncations + tally.corruptions;
    if (tally.failure) {
      result.verdict = Verdict::kFail;
      result.summary = "deserialize mishandled " + *tally.failure + ".";
    } else {
      result.summary += " " + u(tally.truncations) + " truncated and " + u(tally.corruptions) +
                        " corrupted serializations: every one rejected with DeserializeError" +
                        (tally.accepted_valid > 0
                             ? " or deserialized into a structure that passes its checks."
                             : ".");
    }
    return single(std::move(result));
  });
}

void add_c11(TaskList& tasks, const ModelClaimSizes& sizes) {
  const OpWeights roundtrips{40, 15, 25, 5, 12, 1, 0, 0};
  OpWeights map_roundtrips = roundtrips;
  map_roundtrips.insert_or_assign = 10;
  map_roundtrips.find = 10;
  OpWeights bloom_roundtrips = roundtrips;
  bloom_roundtrips.erase = 0;
  add_c11_engine(
      tasks, sizes, "filter", "f=4..16 b=1..8 capacity=8..64",
      [roundtrips](std::uint64_t seed, std::size_t) {
        TraceRng rng(seed);
        const unsigned f = pick(rng, std::array<unsigned, 4>{4, 8, 12, 16});
        const unsigned b = pick(rng, std::array<unsigned, 4>{1, 2, 4, 8});
        model::TraceParameters header = filter_header(rng, f, b, 8, 64, false);
        return random_trace(rng, "filter", std::move(header), {100, 200}, {8, 64}, roundtrips);
      },
      check_filter,
      [](const model::Trace& trace, TraceRng& rng, CorruptionTally& tally) {
        corrupt_filled<CuckooFilter>(filter_config_from(trace.parameters), trace, rng,
                                     filter_validity<CuckooFilter>, tally);
      });
  add_c11_engine(
      tasks, sizes, "growing-filter", "f=8..16 b=1..8 capacity=8..32 max_levels=2..5",
      [roundtrips](std::uint64_t seed, std::size_t) {
        TraceRng rng(seed);
        const unsigned f = pick(rng, std::array<unsigned, 3>{8, 12, 16});
        const unsigned b = pick(rng, std::array<unsigned, 4>{1, 2, 4, 8});
        model::TraceParameters header = growing_header(rng, f, b);
        return random_trace(rng, "growing", std::move(header), {100, 200}, {8, 64}, roundtrips);
      },
      check_growing,
      [](const model::Trace& trace, TraceRng& rng, CorruptionTally& tally) {
        corrupt_filled<GrowingCuckooFilter>(growing_config_from(trace.parameters), trace, rng,
                                            filter_validity<GrowingCuckooFilter>, tally);
      });
  add_c11_engine(
      tasks, sizes, "map", "B=1..8 initial_capacity=1..16",
      [map_roundtrips](std::uint64_t seed, std::size_t) {
        TraceRng rng(seed);
        const unsigned b = pick(rng, std::array<unsigned, 4>{1, 2, 4, 8});
        CuckooMapConfig c;
        c.initial_capacity = 1 + rng.below(16);
        c.seed = rng.next();
        return random_trace(rng, "map", audit::parameters_of(c, b), {100, 200}, {8, 64},
                            map_roundtrips);
      },
      check_map,
      [](const model::Trace& trace, TraceRng& rng, CorruptionTally& tally) {
        const CuckooMapConfig config = map_config_from(trace.parameters);
        with_map_slots(trace.parameters, [&]<unsigned B>() {
          using Map = CuckooMap<std::uint64_t, std::uint64_t, B>;
          corrupt_filled<Map>(config, trace, rng, map_validity<Map>, tally);
        });
      });
  add_c11_engine(
      tasks, sizes, "bloom", "bits=64..1024 hashes=1..8",
      [bloom_roundtrips](std::uint64_t seed, std::size_t) {
        TraceRng rng(seed);
        BloomFilterConfig c;
        c.bits = 64 * (1 + rng.below(16));
        c.hashes = static_cast<unsigned>(1 + rng.below(8));
        c.seed = rng.next();
        return random_trace(rng, "bloom", parameters_of(c), {100, 200}, {16, 215},
                            bloom_roundtrips);
      },
      check_bloom,
      [](const model::Trace& trace, TraceRng& rng, CorruptionTally& tally) {
        corrupt_filled<BloomFilter>(bloom_config_from(trace.parameters), trace, rng,
                                    filter_validity<BloomFilter>, tally);
      });
}

}  // namespace

ModelClaimSizes model_claim_sizes(Profile profile) noexcept {
  ModelClaimSizes sizes;
  sizes.traces = scaled(profile, kQuickTraces);
  sizes.corruption_bases = scaled(profile, kQuickCorruptionBases);
  return sizes;
}

void add_model_claims(TaskList& tasks, Profile profile) {
  add_model_claims(tasks, model_claim_sizes(profile));
}

void add_model_claims(TaskList& tasks, const ModelClaimSizes& sizes) {
  add_c1(tasks, sizes);
  add_c5(tasks, sizes);
  add_c5_growing(tasks, sizes);
  add_c6(tasks, sizes);
  add_c7(tasks, sizes);
  add_c8(tasks, sizes);
  add_c11(tasks, sizes);
}

}  // namespace cuckoo::audit
