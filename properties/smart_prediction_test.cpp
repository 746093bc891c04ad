// SmartCuckoo's prediction (claim C8): on every insert of a new key,
//     would_insert_fail(key) == !PlacementOracle(2 * table_size(), 1)
//                                   .would_fit_after_adding(key's vertex pair)
// where the oracle holds exactly the items stored in the tables (stashed items are not
// part of the question: they are already homeless), and a predicted failure spends no
// kick: stats().last_insert_kicks == 0, total_kicks unchanged, and the key goes to the
// stash (kInserted) or, with the stash full, nowhere (kFull). A predicted success is
// placed in the tables (the kick bound is the default 500, more than any walk in these
// tables). After every op, every stashed item is one the oracle cannot place.
// A key's vertices are p0 and table_size() + p1 (SmartCuckoo::vertices_of).
//
// Each op also goes through the model layer's lock-step checker (a one-op trace at a
// time, the model carried over), so C7 and the engine's invariant check hold too.
//
// The same C8 check also runs over every regression trace whose engine is smart.
#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "cuckoo/subjects/replay.hpp"
#include "cuckoo/subjects/smart.hpp"
#include "cuckoo/model/checker.hpp"
#include "cuckoo/model/map_model.hpp"
#include "cuckoo/model/placement_oracle.hpp"
#include "cuckoo/properties/generators.hpp"
#include "cuckoo/properties/rc_support.hpp"
#include "cuckoo/smart_cuckoo.hpp"

namespace {

using cuckoo::InsertResult;
namespace model = cuckoo::model;
namespace subjects = cuckoo::subjects;
namespace props = cuckoo::properties;
using Smart = cuckoo::SmartCuckoo<>;

std::string key_text(std::uint64_t key) { return std::to_string(key); }
std::string bool_text(bool b) { return b ? "true" : "false"; }

model::CandidatePair pair_of(const Smart& table, std::uint64_t key) {
  const auto [a, b] = table.vertices_of(key);
  return {a, b};
}

// The oracle holding the items in the tables (not the stash) of `table`, whose keys are
// the model's.
model::PlacementOracle table_items_oracle(const Smart& table, const model::MapModel& stored) {
  model::PlacementOracle oracle(table.graph_vertices(), 1);
  for (const auto& entry : stored.entries()) {
    if (!table.in_stash(entry.first)) oracle.add(pair_of(table, entry.first));
  }
  return oracle;
}

// Checks a trace of map ops against a SmartCuckoo built from its header: C7 through the
// lock-step checker, C8 around every insert of a new key and after every op. `paths`
// receives what the run exercised. Returns the first violation.
std::optional<model::Violation> check_predictions(const model::Trace& trace,
                                                  std::set<std::string>& paths) {
  const cuckoo::SmartCuckooConfig config = subjects::smart_config_from(trace.parameters);
  const std::uint64_t seed = *config.seed;
  Smart table(config);
  subjects::MapSubjectAdapter subject(table, /*has_growth_limit=*/true);
  model::MapModel stored;

  for (std::size_t i = 0; i < trace.entries.size(); ++i) {
    const model::Op& op = trace.entries[i].op;
    const auto c8 = [&](std::string expected, std::string actual) {
      return model::Violation{"C8", i, op, std::move(expected), std::move(actual), seed};
    };

    // Before an insert of a new key: the prediction against the oracle.
    const bool new_key =
        (op.kind == model::OpKind::kInsert || op.kind == model::OpKind::kInsertOrAssign) &&
        !stored.contains(op.key);
    bool predicted_failure = false;
    std::uint64_t kicks_before = 0;
    std::uint64_t bound_hits_before = 0;
    std::size_t stash_before = 0;
    if (new_key) {
      const model::PlacementOracle oracle = table_items_oracle(table, stored);
      if (!oracle.fits()) {
        return c8("the items in the tables can all be placed (they are)",
                  "the oracle finds no placement for them: the engine's tables are inconsistent");
      }
      const bool fits = oracle.would_fit_after_adding(pair_of(table, op.key));
      predicted_failure = table.would_insert_fail(op.key);
      const cuckoo::SmartCuckooCase kase = table.classify(op.key);
      if (predicted_failure == fits) {
        return c8("would_insert_fail(" + key_text(op.key) + ") => " + bool_text(!fits) +
                      " (the oracle says the " + std::to_string(oracle.item_count()) +
                      " table items plus this one " + (fits ? "fit" : "do not fit") + ")",
                  "would_insert_fail(" + key_text(op.key) + ") => " + bool_text(predicted_failure) +
                      " (classified " + std::string(to_string(kase)) + ")");
      }
      if (cuckoo::predicts_failure(kase) != predicted_failure) {
        return c8("classify(" + key_text(op.key) + ") agrees with would_insert_fail => " +
                      bool_text(predicted_failure),
                  "classified " + std::string(to_string(kase)));
      }
      paths.insert("case " + std::string(to_string(kase)));
      kicks_before = table.stats().total_kicks;
      bound_hits_before = table.stats().kick_bound_exhaustions;
      stash_before = table.stash_size();
    }

    // The op itself, judged by the lock-step checker (C7, invariants).
    model::Trace step;
    step.engine = trace.engine;
    step.parameters = trace.parameters;
    step.add(op);
    const std::uint64_t reinsertions_before = table.stats().stash_reinsertions;
    if (auto violation = model::check(subject, stored, step, seed)) {
      violation->op_index = i;
      return violation;
    }
    if (table.stats().stash_reinsertions != reinsertions_before) paths.insert("stash_reinsertion");

    // After an insert of a new key: a predicted failure spent no kick and went to the
    // stash or was refused; a predicted success is in the tables.
    if (new_key) {
      const std::uint64_t kicks = table.stats().total_kicks - kicks_before;
      if (predicted_failure) {
        paths.insert("predicted_failure");
        if (table.stats().last_insert_kicks != 0 || kicks != 0) {
          return c8("a predicted failure spends no kick",
                    "last_insert_kicks " + std::to_string(table.stats().last_insert_kicks) +
                        ", total_kicks grew by " + std::to_string(kicks));
        }
        const bool stashed = table.in_stash(op.key);
        const bool refused = !table.contains(op.key);
        if (!stashed && !refused) {
          return c8("the predicted failure goes to the stash or is refused (kFull)",
                    "key " + key_text(op.key) + " is in the tables");
        }
        if (refused && stash_before < table.stash_capacity()) {
          return c8("the predicted failure goes to the stash (" + std::to_string(stash_before) +
                        " of " + std::to_string(table.stash_capacity()) + " stash slots used)",
                    "key " + key_text(op.key) + " was refused");
        }
        paths.insert(stashed ? "stashed" : "full");
      } else {
        if (kicks != 0) paths.insert("kicks");
        if (!table.vertex_holding(op.key)) {
          return c8("a predicted success places key " + key_text(op.key) + " in the tables",
                    table.in_stash(op.key) ? "it went to the stash" : "it is not stored");
        }
        if (table.stats().kick_bound_exhaustions != bound_hits_before) {
          return c8("no kick walk reaches the kick bound", "the bound was hit");
        }
      }
    }

    // After every op: each stashed item is one the oracle cannot place.
    if (table.stash_size() != 0) {
      const model::PlacementOracle oracle = table_items_oracle(table, stored);
      for (const auto& entry : stored.entries()) {
        if (!table.in_stash(entry.first)) continue;
        if (oracle.would_fit_after_adding(pair_of(table, entry.first))) {
          return c8("every stashed item is one that no placement of the table items admits",
                    "stashed key " + key_text(entry.first) + " could be placed");
        }
      }
    }
  }
  return std::nullopt;
}

// Default lane: 300 cases of up to ~250 ops.
constexpr props::Budget kBudget{300, 250};

TEST(SmartPrediction, AgreesWithPlacementOracle) {
  props::Coverage coverage;
  const auto run = props::check_property(kBudget, [&] {
    const props::TraceHeader header = *props::smart_header(/*exact_kicks=*/true);
    props::MapState initial;
    initial.key_range = (*props::key_range_of({{1, 16}, {2, 32}, {2, 64}})).count;
    const auto commands = *props::op_sequence(initial, props::prediction_mix());
    const model::Trace trace = props::record(header, initial, commands);

    std::set<std::string> paths;
    if (const auto violation = check_predictions(trace, paths)) props::fail_with(*violation, trace);
    coverage.count_case(paths, trace.size());
  });
  props::expect_exercised(
      run, coverage,
      {"predicted_failure", "stashed", "full", "stash_reinsertion", "kicks",
       "case v+2", "case v+1", "case v+0 one non-maximal", "case v+0 two non-maximal",
       "case v+0 one non-maximal and one maximal", "case v+0 two maximal", "case v+0 one maximal"});
}

// The regression traces for SmartCuckoo also keep C8.
TEST(SmartPrediction, RegressionTracesKeepPredictions) {
  int checked = 0;
  for (const auto& path : props::trace_files_in(props::regressions_dir())) {
    const model::Trace trace = props::load_trace(path);
    if (trace.engine != "smart") continue;
    std::set<std::string> paths;
    const auto violation = check_predictions(trace, paths);
    EXPECT_FALSE(violation.has_value()) << path.string() << ":\n"
                                        << model::format_violation(*violation, trace);
    ++checked;
  }
  std::cerr << "[ regressions ] " << checked << " smart traces checked for C8" << std::endl;
}

}  // namespace
