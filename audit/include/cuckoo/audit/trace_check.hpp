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
};

// Runs plan.traces traces (or up to the first violation) and returns the result:
// PASS when every trace held, FAIL with a shrunk counterexample otherwise. Figures:
// traces checked, ops checked, every counter, and for a FAIL the original and shrunk
// lengths. `ctx` (may be null) saves the counterexample file.
ClaimResult run_trace_check(const TraceCheckPlan& plan, std::uint64_t seed,
                            const TaskContext* ctx);

// Shrinks the trace that `check` found `violation` in and fills a Counterexample:
// the shrunk trace (still failing with the same claim), the explanation
// (model::format_violation of the shrunk trace's violation) and both lengths.
Counterexample make_counterexample(const model::Trace& failing, const model::Violation& violation,
                                   const std::function<TraceOutcome(const model::Trace&)>& check,
                                   std::size_t max_shrink_attempts = kDefaultShrinkAttempts,
                                   double max_shrink_seconds = 0);

}  // namespace cuckoo::audit
