// Reporting violations. The report is a trace so that a failure anywhere in the suite is
// one file that `cuckoo-audit replay` runs again.
#include "cuckoo/model/violation.hpp"

#include <algorithm>
#include <array>
#include <utility>

namespace cuckoo::model {

namespace {

constexpr std::array<std::pair<std::string_view, std::string_view>, 15> kClaims = {{
    {"C1", "no false negatives"},
    {"C2", "false positive rate within its bound"},
    {"C3", "reachable load factor"},
    {"C4", "bits per item"},
    {"C5", "erase removes exactly one copy; at most 2b copies of one item"},
    {"C6", "a failed insert loses nothing"},
    {"C7", "exact tables answer exactly as the map model"},
    {"C8", "SmartCuckoo predicts failing inserts exactly"},
    {"C9", "classic cuckoo false failures"},
    {"C10", "linearizable, race-free and deadlock-free under concurrency"},
    {"C11", "serialization round trip preserves the structure"},
    {"C12", "Bloom filter false positive rate matches theory"},
    {"size", "the size answer equals the number of stored items"},
    {"invariant", "the subject's own invariants hold"},
    {"exception", "operations return outcomes, not exceptions"},
}};

// Every line of `text` prefixed so that it stays a comment.
std::string as_comment(std::string_view text) {
  std::string out;
  for (const char c : text) {
    out += c;
    if (c == '\n') out += "#             ";
  }
  return out;
}

}  // namespace

std::string_view claim_summary(std::string_view claim) noexcept {
  for (const auto& [id, summary] : kClaims) {
    if (id == claim) return summary;
  }
  return "";
}

std::string to_string(const Violation& violation) {
  std::string text = violation.claim;
  const std::string_view summary = claim_summary(violation.claim);
  if (!summary.empty()) text += " (" + std::string(summary) + ")";
  text += " at op " + std::to_string(op_number(violation)) + " '" + to_string(violation.op) +
          "': expected " + violation.expected + ", actual " + violation.actual + ", seed " +
          std::to_string(violation.seed);
  return text;
}

std::string format_violation(const Violation& violation, const Trace& trace) {
  Trace cut = trace;
  const std::size_t keep = std::min(trace.entries.size(), violation.op_index + 1);
  cut.entries.resize(keep);

  std::string where = "op " + std::to_string(op_number(violation)) + " of " + std::to_string(keep);
  if (violation.op_index < trace.entries.size() && trace.entries[violation.op_index].line != 0) {
    where += " (line " + std::to_string(trace.entries[violation.op_index].line) + ")";
  }
  const std::string_view summary = claim_summary(violation.claim);

  std::string text(kTraceVersionLine);
  text += "\n# VIOLATION of " + violation.claim;
  if (!summary.empty()) text += " (" + std::string(summary) + ")";
  text += "\n#   at:       " + where + ": " + to_string(violation.op);
  text += "\n#   expected: " + as_comment(violation.expected);
  text += "\n#   actual:   " + as_comment(violation.actual);
  text += "\n#   seed:     " + std::to_string(violation.seed);
  text += "\n# The ops below end at the failing op; replay this trace to reproduce it.\n";
  // print_trace's own first line is the version line, already written.
  const std::string body = print_trace(cut);
  text += body.substr(body.find('\n') + 1);
  return text;
}

}  // namespace cuckoo::model
