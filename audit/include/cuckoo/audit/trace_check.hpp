// One model-checked task: generate seeded random traces, check each against a fresh
// subject and its model, and on the first violation shrink the trace (shrink.hpp) and
// report it as a replayable counterexample. Used by the claim runners of C1 C5 C6 C7 C11
// (claims_model.cpp) and by the adapter audit (adapter.hpp), so that both report in the
// same form.
//
//   TraceCheckPlan plan;
//   plan.claim = "C1"; plan.engine = "filter"; plan.configuration = "f=12 b=4 ...";
//   plan.traces = 300;
//   plan.generate = [](std::uint64_t seed, std::size_t) { return generate_trace(...); };
//   plan.check = [](const model::Trace& t) { TraceOutcome o; o.violation = replay(t); return o; };
//   ClaimResult r = run_trace_check(plan, ctx.seed, &ctx);
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cuckoo/audit/audit.hpp"
#include "cuckoo/audit/report.hpp"
#include "cuckoo/audit/shrink.hpp"
#include "cuckoo/model/trace.hpp"
#include "cuckoo/model/violation.hpp"

namespace cuckoo::audit {

// Named counters of one trace's run (kFull answers, kicks, stash entries, ...), summed
// over the traces of a task; each becomes a Figure, in the order first added.
class TraceCounters {
 public:
  void add(const std::string& name, double value, const std::string& unit = "");
  // Adds every counter of `other`.
  void merge(const TraceCounters& other);
  double get(const std::string& name) const;  // 0 when absent

  struct Entry {
    std::string name;
    double value = 0;
    std::string unit;
  };
  const std::vector<Entry>& entries() const noexcept { return entries_; }

 private:
  std::vector<Entry> entries_;
};

// What checking one trace found.
struct TraceOutcome {
  std::optional<model::Violation> violation;
  TraceCounters counters;
};

struct TraceCheckPlan {
  std::string claim;          // "C1"
  std::string engine;         // "filter", or an adapter's name
  std::string configuration;  // "f=12 b=4 capacity=8..64"
  std::string checked;        // what a trace checks, for the summary: "no false negatives"
  std::size_t traces = 0;
  // The trace number `index`, generated from `seed` (subjects::trace_seed(task seed, index)).
  std::function<model::Trace(std::uint64_t seed, std::size_t index)> generate;
  // Checks a trace against a fresh subject built from its header. May throw only for a
  // header it cannot build (a bug of the plan: the task fails with the message).
  std::function<TraceOutcome(const model::Trace&)> check;
  std::size_t max_shrink_attempts = kDefaultShrinkAttempts;
  // Wall-time bound of the shrink (0: none): after it, no further candidate is checked,
  // and the smallest failing trace found so far is the counterexample. For subjects whose
  // failing runs are slow (a subject process that hangs until a timeout).
  double max_shrink_seconds = 0;
  // When set, the counterexample's replay command is this followed by the trace file's
  // path (e.g. "my_audit --replay"); else TaskContext's "cuckoo-audit replay FILE".
  std::string replay_command_prefix;

  // ---- run_labelled_trace_check only ----
  // The plan's name in summaries ("C1", "C1 identity-pair"); empty: `claim`.
  std::string name;
  // The claim a violation broke, e.g. "size" -> "C5", "C2" -> "C7" for an exact set;
  // "exception" and the like -> `claim`. Unset: every violation is `claim`'s.
  std::function<std::string(const model::Violation&)> label;
  // Header parameters that let later traces check past a violation of this kind (set on
  // every later trace of every plan sharing the ledger), e.g. {"size_checks", "off"} after
  // a size mismatch. Unset or empty: the kind cannot be set aside.
  std::function<std::vector<std::pair<std::string, std::string>>(const model::Violation&)> set_aside;
  // Times a shrunk counterexample is checked again, each with a fresh subject, to tell a
  // reproducible failure from a nondeterministic subject (0: not checked again).
  std::size_t confirm_replays = 0;
  // Added to the summary of a finding of this plan (what else may be at fault).
  std::string hint;
};

// ---- claims reported by what broke (the adapter audit) ----------------------------------

// A violation, under the claim it broke, with the shrunk counterexample.
struct Finding {
  std::string claim;            // the claim it broke (the plan's label)
  std::string found_by;         // the name of the plan whose traces found it
  std::string hint;             // that plan's hint
  std::size_t trace = 0;        // 1-based number of the trace in that plan
  model::Violation violation;   // as first seen, in the unshrunk trace
  Counterexample counterexample;
  // The shrunk trace checked again with fresh subjects: how often, and how often it failed
  // the same way (replays_failed < replays: not reproducible, the subject is
  // nondeterministic).
  std::size_t replays = 0;
  std::size_t replays_failed = 0;
  // Later violations of the same claim: how many traces, and one line for each other kind
  // (the checker's claim differs, or one is about sizes and the other not).
  std::size_t repeats = 0;
  std::vector<std::string> also;
  std::vector<std::string> kinds_seen;  // the kinds of violation seen, the first's first
};

// What the plans of one audit share: the findings so far (at most one per claim, in the
// order found), and the header parameters set on every later trace (set_aside).
struct FindingLedger {
  std::vector<Finding> findings;
  model::TraceParameters set_aside;
  Finding* find(const std::string& claim);
  const Finding* find(const std::string& claim) const;
};

// What one plan checked.
struct PlanCoverage {
  std::string claim;
  std::string name;
  std::string checked;
  std::size_t traces = 0;
  std::uint64_t ops = 0;
  TraceCounters counters;
  // Traces that stopped early at a violation of another claim, and those claims.
  std::size_t stopped_early = 0;
  std::vector<std::string> stopped_at;
  // Traces checked with something set aside (the ledger's parameters), and what.
  std::size_t set_aside_traces = 0;
  std::string set_aside;  // "size_checks=off"
  bool own_claim_failed = false;  // it stopped at a violation of its own claim
  double seconds = 0;
};

// Like run_trace_check, but each violation goes into the ledger under the claim it broke
// (plan.label): the first of each claim is shrunk (and confirmed, plan.confirm_replays),
// later ones are counted. The plan goes on after a violation of another claim (what
// plan.set_aside allows is set aside for every later trace), and stops at the first of
// its own claim that cannot be set aside.
PlanCoverage run_labelled_trace_check(const TraceCheckPlan& plan, std::uint64_t seed,
                                      FindingLedger& ledger);

// Checks `trace` `replays` times; returns how many of those found a violation of
// `claim` (the checker's own claim id). A check that throws counts as not failing.
std::size_t count_failing_replays(const model::Trace& trace, const std::string& claim,
                                  const std::function<TraceOutcome(const model::Trace&)>& check,
                                  std::size_t replays);

// The result of `claim` from the plans that checked it (may be none) and the ledger's
// finding for it (may be null): PASS, or FAIL with the finding's counterexample, saved
// through `ctx` (may be null; replay_command_prefix as in TraceCheckPlan). Figures: traces
// and ops checked, the counters, the counterexample lengths and replays.
ClaimResult labelled_claim_result(const std::string& claim, const std::string& engine,
                                  const std::string& configuration,
                                  const std::vector<const PlanCoverage*>& coverage,
                                  const Finding* finding, std::uint64_t seed,
                                  const TaskContext* ctx,
                                  const std::string& replay_command_prefix = "");

// The sentence a summary gives a finding that could not be reproduced.
std::string not_reproducible_note(std::size_t failed, std::size_t replays);

// The project version this library was built as ("unknown" when not set), and the
// current time as ISO 8601 UTC: the report metadata of library-made reports.
std::string audit_tool_version();
std::string utc_now_text();

// Runs plan.traces traces (or up to the first violation) and returns the result:
// PASS when every trace held, FAIL with a shrunk counterexample otherwise. Figures:
// traces checked, ops checked, every counter, and for a FAIL the original and shrunk
// lengths. `ctx` (may be null) saves the counterexample file.
ClaimResult run_trace_check(const TraceCheckPlan& plan, std::uint64_t seed,
                            const TaskContext* ctx);

// `trace_text` (model::print_trace) with the failing op's line marked "# op N: fails
// here" and closing comments that name the op number (model::op_number) and what was
// expected: the counterexample file says where it fails in the same numbering as the
// summary and a replay.
std::string annotate_failing_op(const std::string& trace_text, const model::Violation& violation);

// Shrinks the trace that `check` found `violation` in and fills a Counterexample:
// the shrunk trace (still failing with the same claim), the explanation
// (model::format_violation of the shrunk trace's violation) and both lengths.
Counterexample make_counterexample(const model::Trace& failing, const model::Violation& violation,
                                   const std::function<TraceOutcome(const model::Trace&)>& check,
                                   std::size_t max_shrink_attempts = kDefaultShrinkAttempts,
                                   double max_shrink_seconds = 0);

}  // namespace cuckoo::audit
