// The model-checked task body shared by the claim runners and the adapter audit: see
// trace_check.hpp. A task stops at its first violating trace: one shrunk counterexample
// says more than a count of failures, and the rest of the sample would only repeat it.
#include "cuckoo/audit/trace_check.hpp"

#include <chrono>
#include <exception>
#include <set>

#include "cuckoo/audit/shrink.hpp"
#include "cuckoo/subjects/trace_gen.hpp"

namespace cuckoo::audit {

// The subject layer's adapters, configuration mappings and trace generator.
using namespace cuckoo::subjects;

void TraceCounters::add(const std::string& name, double value, const std::string& unit) {
  for (Entry& e : entries_) {
    if (e.name == name) {
      e.value += value;
      return;
    }
  }
  entries_.push_back(Entry{name, value, unit});
}

void TraceCounters::merge(const TraceCounters& other) {
  for (const Entry& e : other.entries_) add(e.name, e.value, e.unit);
}

double TraceCounters::get(const std::string& name) const {
  for (const Entry& e : entries_) {
    if (e.name == name) return e.value;
  }
  return 0;
}

namespace {

Figure count_figure(std::string name, double value, std::string unit = "ops",
                    std::string note = "") {
  Figure f;
  f.name = std::move(name);
  f.value = value;
  f.unit = std::move(unit);
  f.note = std::move(note);
  return f;
}

}  // namespace

Counterexample make_counterexample(const model::Trace& failing, const model::Violation& violation,
                                   const std::function<TraceOutcome(const model::Trace&)>& check,
                                   std::size_t max_shrink_attempts, double max_shrink_seconds) {
  const model::Trace cut = cut_after(failing, violation.op_index);
  const std::string claim = violation.claim;
  const auto deadline =
      std::chrono::steady_clock::now() +
      std::chrono::duration_cast<std::chrono::steady_clock::duration>(
          std::chrono::duration<double>(max_shrink_seconds > 0 ? max_shrink_seconds : 0));
  auto still_fails = [&check, &claim, &deadline, max_shrink_seconds](const model::Trace& candidate) {
    if (max_shrink_seconds > 0 && std::chrono::steady_clock::now() >= deadline) return false;
    try {
      const TraceOutcome outcome = check(candidate);
      return outcome.violation.has_value() && outcome.violation->claim == claim;
    } catch (const std::exception&) {
      return false;  // a candidate the subject cannot even run is not the same failure
    }
  };
  ShrinkResult shrunk = shrink_trace(cut, still_fails, max_shrink_attempts);
  // The shrunk trace's own violation (it fails at a different op index than the original).
  std::optional<model::Violation> final_violation;
  try {
    final_violation = check(shrunk.trace).violation;
  } catch (const std::exception&) {
  }
  if (!final_violation) {  // cannot happen for a deterministic check; keep the cut trace
    shrunk.trace = cut;
    final_violation = violation;
  }
  Counterexample cx;
  cx.trace = model::print_trace(shrunk.trace);
  cx.explanation = model::format_violation(*final_violation, shrunk.trace);
  cx.original_ops = failing.entries.size();
  cx.shrunk_ops = shrunk.trace.entries.size();
  return cx;
}

ClaimResult run_trace_check(const TraceCheckPlan& plan, std::uint64_t seed,
                            const TaskContext* ctx) {
  const auto start = std::chrono::steady_clock::now();
  ClaimResult result;
  result.claim = plan.claim;
  result.engine = plan.engine;
  result.configuration = plan.configuration;
  result.seed = seed;

  TraceCounters totals;
  std::uint64_t ops = 0;
  std::size_t traces = 0;
  std::optional<model::Violation> violation;
  std::optional<model::Trace> failing;
  for (std::size_t i = 0; i < plan.traces; ++i) {  // bound: plan.traces
    const model::Trace trace = plan.generate(trace_seed(seed, i), i);
    TraceOutcome outcome = plan.check(trace);
    ++traces;
    std::set<std::uint64_t> keys;
    for (const model::TraceEntry& e : trace.entries) {
      if (model::takes_key(e.op.kind)) keys.insert(e.op.key);
    }
    outcome.counters.add("distinct keys (summed over traces)", static_cast<double>(keys.size()), "");
    totals.merge(outcome.counters);
    if (outcome.violation) {
      ops += outcome.violation->op_index + 1;
      violation = std::move(outcome.violation);
      failing = trace;
      break;
    }
    ops += trace.entries.size();
  }

  result.samples = ops;
  result.figures.push_back(count_figure("traces checked", static_cast<double>(traces), ""));
  result.figures.push_back(count_figure("ops checked", static_cast<double>(ops)));
  for (const TraceCounters::Entry& e : totals.entries()) {
    result.figures.push_back(count_figure(e.name, e.value, e.unit));
  }
  if (!violation) {
    result.verdict = Verdict::kPass;
    result.summary = std::to_string(ops) + " ops in " + std::to_string(traces) +
                     " random traces checked against the model (" + plan.checked +
                     "): no violation.";
  } else {
    result.verdict = Verdict::kFail;
    Counterexample cx = make_counterexample(*failing, *violation, plan.check,
                                            plan.max_shrink_attempts, plan.max_shrink_seconds);
    result.figures.push_back(
        count_figure("counterexample length (original)", static_cast<double>(cx.original_ops)));
    result.figures.push_back(
        count_figure("counterexample length (shrunk)", static_cast<double>(cx.shrunk_ops)));
    const std::string_view what = model::claim_summary(violation->claim);
    result.summary = "trace " + std::to_string(traces) + " broke " + violation->claim +
                     (what.empty() ? std::string() : " (" + std::string(what) + ")") + " at op " +
                     std::to_string(violation->op_index) + ": expected " + violation->expected +
                     ", got " + violation->actual + "; shrunk from " +
                     std::to_string(cx.original_ops) + " to " + std::to_string(cx.shrunk_ops) +
                     " ops.";
    if (ctx != nullptr) {
      if (!plan.replay_command_prefix.empty()) cx.replay_command = "-";  // keep it unset below
      ctx->save_counterexample(cx, plan.claim, plan.engine);
      if (!plan.replay_command_prefix.empty()) {
        cx.replay_command.clear();
        if (!cx.trace_file.empty() && ctx->options != nullptr) {
          cx.replay_command = plan.replay_command_prefix + " " +
                              (ctx->options->out_dir / cx.trace_file).generic_string();
        }
      }
    }
    result.counterexample = std::move(cx);
  }
  result.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace cuckoo::audit
