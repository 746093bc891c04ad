// The model-checked task body shared by the claim runners and the adapter audit: see
// trace_check.hpp. A task stops at its first violating trace: one shrunk counterexample
// says more than a count of failures, and the rest of the sample would only repeat it.
#include "cuckoo/audit/trace_check.hpp"

#include <algorithm>
#include <chrono>
#include <ctime>
#include <exception>
#include <set>
#include <string_view>

#include "cuckoo/audit/shrink.hpp"
#include "cuckoo/subjects/trace_gen.hpp"

#ifndef CUCKOO_VERSION
#define CUCKOO_VERSION "unknown"
#endif

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

std::string annotate_failing_op(const std::string& trace_text, const model::Violation& violation) {
  // The op lines are the lines after the `engine` header that are not blank or comments.
  const std::size_t target = model::op_number(violation);
  std::string out;
  std::size_t op = 0;
  bool header_seen = false;
  std::size_t start = 0;
  while (start < trace_text.size()) {
    std::size_t end = trace_text.find('\n', start);
    if (end == std::string::npos) end = trace_text.size();
    std::string line = trace_text.substr(start, end - start);
    const std::size_t first = line.find_first_not_of(" \t\r");
    const bool content = first != std::string::npos && line[first] != '#';
    if (content && !header_seen) {
      header_seen = true;
    } else if (content && ++op == target) {
      line += "  # op " + std::to_string(op) + ": fails here (" + violation.claim + ")";
    }
    out += line;
    out += '\n';
    start = end + 1;
  }
  const std::string footer = "fails at op " + std::to_string(target) + " (" + violation.claim +
                             "): expected " + violation.expected + ", got " + violation.actual +
                             "\nop N is the N-th op line after the engine header, counting "
                             "from 1; the summary and a replay number ops the same way";
  // Every footer line a comment, whatever newlines expected/actual hold.
  out += "# ";
  for (const char c : footer) {
    out += c;
    if (c == '\n') out += "# ";
  }
  out += '\n';
  return out;
}

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
  cx.failing_op = model::op_number(*final_violation);
  cx.trace = annotate_failing_op(model::print_trace(shrunk.trace), *final_violation);
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
                     (what.empty() ? std::string() : " (" + std::string(what) + ")") +
                     ": expected " + violation->expected + ", got " + violation->actual +
                     "; shrunk from " + std::to_string(cx.original_ops) + " to " +
                     std::to_string(cx.shrunk_ops) + " ops, the counterexample fails at op " +
                     std::to_string(cx.failing_op) + ".";
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

// ---- claims reported by what broke ------------------------------------------------------

Finding* FindingLedger::find(const std::string& claim) {
  for (Finding& f : findings) {
    if (f.claim == claim) return &f;
  }
  return nullptr;
}

const Finding* FindingLedger::find(const std::string& claim) const {
  for (const Finding& f : findings) {
    if (f.claim == claim) return &f;
  }
  return nullptr;
}

namespace {

// A violation's kind: the checker's claim, and whether it is about sizes.
std::string kind_of(const model::Violation& v) {
  const bool size = v.expected.rfind("size ", 0) == 0 && v.actual.rfind("size ", 0) == 0;
  return v.claim + (size ? "/size" : "");
}

// "C5 (size: the size answer equals the number of stored items)" or "C1 (no false negatives)".
std::string broke_text(const std::string& claim, const model::Violation& v) {
  std::string text = claim;
  if (v.claim == "exception" && v.actual.rfind("exception: subject ", 0) == 0) {
    // A SubjectError (cuckoo-audit exec): the process, not an operation's outcome.
    return text + " (the subject process failed: it crashed, exited, hung or answered out of "
                  "protocol)";
  }
  if (claim == "C7" && (v.claim == "C2" || v.claim == "C5")) {
    // An exact table's answer, which the filter checker words as C2 or C5.
    const std::string_view what = model::claim_summary(claim);
    return what.empty() ? text : text + " (" + std::string(what) + ")";
  }
  if (v.claim != claim) {
    const std::string_view what = model::claim_summary(v.claim);
    text += " (" + v.claim + (what.empty() ? std::string() : ": " + std::string(what)) + ")";
  } else {
    const std::string_view what = model::claim_summary(claim);
    if (!what.empty()) text += " (" + std::string(what) + ")";
  }
  return text;
}

std::string parameters_text(const model::TraceParameters& p) {
  std::string text;
  for (const auto& [name, value] : p.entries()) {
    text += (text.empty() ? "" : " ") + name + "=" + value;
  }
  return text;
}

std::string join(const std::vector<std::string>& items, const std::string& separator) {
  std::string text;
  for (const std::string& item : items) text += (text.empty() ? "" : separator) + item;
  return text;
}

// One line for a later violation of a claim already found.
std::string also_line(const std::string& plan_name, std::size_t trace, const model::Violation& v) {
  return "trace " + std::to_string(trace) + " of the " + plan_name + " traces, op " +
         std::to_string(model::op_number(v)) + " of that trace, '" + model::to_string(v.op) + "' (" + v.claim +
         "): expected " + v.expected + ", got " + v.actual;
}

constexpr std::size_t kMaxAlso = 3;

}  // namespace

std::size_t count_failing_replays(const model::Trace& trace, const std::string& claim,
                                  const std::function<TraceOutcome(const model::Trace&)>& check,
                                  std::size_t replays) {
  std::size_t failed = 0;
  for (std::size_t i = 0; i < replays; ++i) {  // bound: replays
    try {
      const TraceOutcome outcome = check(trace);
      if (outcome.violation && outcome.violation->claim == claim) ++failed;
    } catch (const std::exception&) {
    }
  }
  return failed;
}

std::string not_reproducible_note(std::size_t failed, std::size_t replays) {
  return "NOT REPRODUCIBLE: the shrunk trace failed the same way in only " +
         std::to_string(failed) + " of " + std::to_string(replays) +
         " replays with fresh instances, so the subject is nondeterministic (it answers the "
         "same ops differently from run to run); the verdict stays FAIL, since it answered "
         "wrongly at least once, but the counterexample may not replay.";
}

PlanCoverage run_labelled_trace_check(const TraceCheckPlan& plan, std::uint64_t seed,
                                      FindingLedger& ledger) {
  const auto start = std::chrono::steady_clock::now();
  PlanCoverage cov;
  cov.claim = plan.claim;
  cov.name = plan.name.empty() ? plan.claim : plan.name;
  cov.checked = plan.checked;
  for (std::size_t i = 0; i < plan.traces; ++i) {  // bound: plan.traces
    model::Trace trace = plan.generate(trace_seed(seed, i), i);
    if (!ledger.set_aside.empty()) {
      for (const auto& [name, value] : ledger.set_aside.entries()) trace.parameters.set(name, value);
      ++cov.set_aside_traces;
      cov.set_aside = parameters_text(ledger.set_aside);
    }
    TraceOutcome outcome = plan.check(trace);
    ++cov.traces;
    std::set<std::uint64_t> keys;
    for (const model::TraceEntry& e : trace.entries) {
      if (model::takes_key(e.op.kind)) keys.insert(e.op.key);
    }
    outcome.counters.add("distinct keys (summed over traces)", static_cast<double>(keys.size()), "");
    cov.counters.merge(outcome.counters);
    if (!outcome.violation) {
      cov.ops += trace.entries.size();
      continue;
    }
    const model::Violation v = *outcome.violation;
    cov.ops += v.op_index + 1;
    const std::string label = plan.label ? plan.label(v) : plan.claim;
    if (Finding* known = ledger.find(label)) {
      ++known->repeats;
      const std::string kind = kind_of(v);
      if (std::find(known->kinds_seen.begin(), known->kinds_seen.end(), kind) ==
          known->kinds_seen.end()) {
        known->kinds_seen.push_back(kind);
        if (known->also.size() < kMaxAlso) known->also.push_back(also_line(cov.name, i + 1, v));
      }
    } else {
      Finding f;
      f.claim = label;
      f.found_by = cov.name;
      f.hint = plan.hint;
      f.trace = i + 1;
      f.violation = v;
      f.kinds_seen.push_back(kind_of(v));
      f.counterexample = make_counterexample(trace, v, plan.check, plan.max_shrink_attempts,
                                             plan.max_shrink_seconds);
      if (plan.confirm_replays > 0) {
        f.replays = plan.confirm_replays;
        f.replays_failed = count_failing_replays(model::parse_trace(f.counterexample.trace),
                                                 v.claim, plan.check, plan.confirm_replays);
        if (f.replays_failed < f.replays) {
          f.counterexample.explanation +=
              "# " + not_reproducible_note(f.replays_failed, f.replays) + "\n";
          f.counterexample.trace += "# " + not_reproducible_note(f.replays_failed, f.replays) + "\n";
        }
      }
      ledger.findings.push_back(std::move(f));
    }
    if (label == plan.claim) cov.own_claim_failed = true;
    bool set_aside = false;
    if (plan.set_aside) {
      for (const auto& [name, value] : plan.set_aside(v)) {
        if (ledger.set_aside.get_string_or(name, "") == value) continue;
        ledger.set_aside.set(name, value);
        set_aside = true;
      }
    }
    if (label != plan.claim || set_aside) {
      if (label != plan.claim) {
        ++cov.stopped_early;
        if (std::find(cov.stopped_at.begin(), cov.stopped_at.end(), label) == cov.stopped_at.end()) {
          cov.stopped_at.push_back(label);
        }
      }
      continue;
    }
    break;  // its own claim failed: the rest of the sample would only repeat it
  }
  cov.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return cov;
}

ClaimResult labelled_claim_result(const std::string& claim, const std::string& engine,
                                  const std::string& configuration,
                                  const std::vector<const PlanCoverage*>& coverage,
                                  const Finding* finding, std::uint64_t seed,
                                  const TaskContext* ctx,
                                  const std::string& replay_command_prefix) {
  ClaimResult result;
  result.claim = claim;
  result.engine = engine;
  result.configuration = configuration;
  result.seed = seed;

  std::size_t traces = 0;
  std::uint64_t ops = 0;
  double seconds = 0;
  TraceCounters counters;
  std::vector<std::string> parts;
  std::vector<std::string> notes;
  for (const PlanCoverage* c : coverage) {
    traces += c->traces;
    ops += c->ops;
    seconds += c->seconds;
    counters.merge(c->counters);
    parts.push_back(std::to_string(c->ops) + " ops in " + std::to_string(c->traces) + " " +
                    c->name + " traces (" + c->checked + ")");
    if (c->stopped_early > 0) {
      notes.push_back(std::to_string(c->stopped_early) + " of the " + c->name +
                      " traces stopped early at a violation of " + join(c->stopped_at, ", ") +
                      " (reported under that claim).");
    }
    if (c->set_aside_traces > 0) {
      notes.push_back(std::to_string(c->set_aside_traces) + " of the " + c->name +
                      " traces ran with " + c->set_aside +
                      " (set aside after an earlier finding, so that the other checks go on).");
    }
  }
  const std::string checked = join(parts, "; ");
  result.samples = ops;
  if (!coverage.empty()) {
    result.figures.push_back(count_figure("traces checked", static_cast<double>(traces), ""));
    result.figures.push_back(count_figure("ops checked", static_cast<double>(ops)));
    for (const TraceCounters::Entry& e : counters.entries()) {
      result.figures.push_back(count_figure(e.name, e.value, e.unit));
    }
  }
  if (finding == nullptr) {
    result.verdict = Verdict::kPass;
    result.summary = checked + " against the model: no violation.";
  } else {
    result.verdict = Verdict::kFail;
    Counterexample cx = finding->counterexample;
    const model::Violation& v = finding->violation;
    result.figures.push_back(
        count_figure("counterexample length (original)", static_cast<double>(cx.original_ops)));
    result.figures.push_back(
        count_figure("counterexample length (shrunk)", static_cast<double>(cx.shrunk_ops)));
    std::string summary = "trace " + std::to_string(finding->trace) + " of the " +
                          finding->found_by + " traces broke " + broke_text(claim, v) +
                          ": expected " + v.expected + ", got " + v.actual + "; shrunk from " +
                          std::to_string(cx.original_ops) + " to " +
                          std::to_string(cx.shrunk_ops) + " ops, the counterexample fails at op " +
                          std::to_string(cx.failing_op) + ".";
    if (!finding->hint.empty()) summary += " " + finding->hint;
    if (finding->replays > 0) {
      Figure replays = count_figure("replays of the counterexample that failed",
                                    static_cast<double>(finding->replays_failed), "");
      replays.bound = static_cast<double>(finding->replays);
      replays.relation = "==";
      replays.note = "each with a fresh instance; fewer than all: the subject is nondeterministic";
      result.figures.push_back(replays);
      if (finding->replays_failed < finding->replays) {
        summary += " " + not_reproducible_note(finding->replays_failed, finding->replays);
      }
    }
    if (finding->repeats > 0) {
      summary += " " + std::to_string(finding->repeats) + " later trace" +
                 (finding->repeats == 1 ? "" : "s") + " broke " + claim + " again";
      summary += finding->also.empty() ? "." : ", among them: " + join(finding->also, "; ") + ".";
    }
    if (!checked.empty()) summary += " Checked: " + checked + ".";
    result.summary = std::move(summary);
    if (ctx != nullptr) {
      if (!replay_command_prefix.empty()) cx.replay_command = "-";  // keep it unset below
      ctx->save_counterexample(cx, claim, engine);
      if (!replay_command_prefix.empty()) {
        cx.replay_command.clear();
        if (!cx.trace_file.empty() && ctx->options != nullptr) {
          cx.replay_command =
              replay_command_prefix + " " + (ctx->options->out_dir / cx.trace_file).generic_string();
        }
      }
    }
    result.counterexample = std::move(cx);
  }
  for (const std::string& note : notes) result.summary += " " + note;
  result.seconds = seconds;
  return result;
}

std::string audit_tool_version() { return CUCKOO_VERSION; }

std::string utc_now_text() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  const std::size_t n = std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return std::string(text, n);
}

}  // namespace cuckoo::audit
