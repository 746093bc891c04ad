// report.md: the human summary. GitHub-flavoured Markdown: a header with the run's
// facts (metadata_rows: commit, compiler, CPU, RTM, ...), a summary table with failures
// first, the margins to the bounds (every statistical claim's bounded figures, a "not
// statistical" row for each other claim), then one section per claim with its results
// (failures first), figures tables and counterexamples. Text from the report is escaped so it stays text: Markdown
// punctuation is backslash-escaped, < > & become entities (GFM passes raw HTML
// through), newlines in table cells become <br>, controls and invalid UTF-8 become
// U+FFFD. Traces and commands go in fenced code blocks whose fence is longer than any
// backtick run inside them.
#include <algorithm>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "cuckoo/audit/report_writers.hpp"
#include "report_text.hpp"

namespace cuckoo::audit {

namespace {

using detail::clean_text;

// Inline Markdown text. `newline` replaces line breaks ("<br>" in a table cell or a
// paragraph, " " in a heading), so the text is always one Markdown line.
std::string md(std::string_view raw, std::string_view newline = "<br>") {
  const std::string s = clean_text(raw);
  std::string out;
  out.reserve(s.size() + 8);
  // At the start of a line, "# ", "- ", "+ ", "--", "==" and "1. " would open a
  // heading, a list, a rule or a setext underline: their first mark is escaped.
  const auto opens_block = [&](std::size_t mark) {
    return mark + 1 >= s.size() || s[mark + 1] == ' ' || s[mark + 1] == '\t' ||
           s[mark + 1] == s[mark];
  };
  std::size_t digits = 0;
  while (digits < s.size() && s[digits] >= '0' && s[digits] <= '9') ++digits;
  const bool ordered_list = digits > 0 && digits < s.size() &&
                            (s[digits] == '.' || s[digits] == ')') &&
                            (digits + 1 >= s.size() || s[digits + 1] == ' ');
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    const bool line_start =
        i == 0 && (c == '#' || c == '-' || c == '+' || c == '=') && opens_block(0);
    switch (c) {
      case '\\': case '`': case '*': case '_': case '[': case ']': case '|': case '~':
        out += '\\';
        out += c;
        break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '&': out += "&amp;"; break;
      case '\r':
        if (i + 1 < s.size() && s[i + 1] == '\n') break;  // CRLF is one break
        out += newline;
        break;
      case '\n': out += newline; break;
      case '\t': out += ' '; break;
      default:
        if (line_start || (ordered_list && i == digits)) out += '\\';
        out += c;
        break;
    }
  }
  return out;
}

// A fenced code block holding `raw` verbatim (controls made visible as U+FFFD).
std::string code_block(std::string_view raw, std::string_view info = "") {
  const std::string s = clean_text(raw);
  std::size_t longest = 0;
  std::size_t run = 0;
  for (const char c : s) {
    run = c == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  const std::string fence(std::max<std::size_t>(3, longest + 1), '`');
  std::string out = fence + std::string(info) + "\n" + s;
  if (s.empty() || s.back() != '\n') out += '\n';
  out += fence + "\n";
  return out;
}

// A GitHub heading anchor for a claim section: "C2" -> "c2".
std::string anchor(std::string_view claim) {
  std::string out;
  for (const char c : clean_text(claim)) {
    if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_') {
      out += c;
    } else if (c >= 'A' && c <= 'Z') {
      out += static_cast<char>(c - 'A' + 'a');
    } else if (c == ' ') {
      out += '-';
    }
  }
  return out;
}

std::string verdict_cell(const ClaimResult& r) {
  switch (r.verdict) {
    case Verdict::kPass: return "PASS";
    case Verdict::kFail: return detail::not_reproducible(r) ? "**FAIL** (not reproducible)" : "**FAIL**";
    case Verdict::kSkipped: return "SKIP";
  }
  return "?";
}

// Every statistical claim's bounded figures with their margin to the bound; a row saying
// "not statistical" for each other claim.
void write_margins(const Report& report, std::ostream& out) {
  const std::vector<detail::MarginRow> rows = detail::margin_rows(report);
  if (rows.empty()) return;
  out << "## Margins to the bounds\n\n"
      << "| Claim | Engine | Configuration | Figure | Measured | CI | Relation | Bound | Margin |\n"
      << "|---|---|---|---|---:|---|:---:|---:|---|\n";
  for (const detail::MarginRow& row : rows) {
    if (row.figure == nullptr) {
      out << "| " << md(row.claim) << " | | | " << md(row.text) << " | | | | | |\n";
      continue;
    }
    const Figure& f = *row.figure;
    out << "| " << md(row.claim) << " | " << md(row.result->engine) << " | "
        << md(row.result->configuration) << " | " << md(f.name) << " | "
        << md(detail::format_value(f.value, f.unit)) << " | " << md(detail::format_ci(f)) << " | "
        << md(f.relation) << " | " << md(detail::format_bound(f)) << " | " << md(row.margin_text)
        << " |\n";
  }
  out << "\n";
}

void write_figures(const std::vector<Figure>& figures, std::ostream& out) {
  if (figures.empty()) return;
  out << "| Figure | Value | CI | Bound | Relation | Note |\n"
      << "|---|---:|---|---:|:---:|---|\n";
  for (const Figure& f : figures) {
    out << "| " << md(f.name) << " | " << md(detail::format_value(f.value, f.unit)) << " | "
        << md(detail::format_ci(f)) << " | " << md(detail::format_bound(f)) << " | "
        << md(f.relation) << " | " << md(f.note) << " |\n";
  }
  out << "\n";
}

void write_counterexample(const Counterexample& cx, std::ostream& out) {
  out << "**Counterexample**";
  if (cx.original_ops != 0 || cx.shrunk_ops != 0) {
    out << " (shrunk from " << cx.original_ops << " to " << cx.shrunk_ops << " operations)";
  }
  out << ":";
  if (!cx.explanation.empty()) out << " " << md(cx.explanation);
  out << "\n\n";
  if (cx.failing_op != 0) {
    out << "Fails at op " << cx.failing_op << " (the " << cx.failing_op
        << ". op line after the trace's engine header).\n\n";
  }
  if (!cx.trace_file.empty()) out << "Trace file: " << md(cx.trace_file) << "\n\n";
  if (!cx.trace.empty()) out << code_block(cx.trace, "text") << "\n";
  if (!cx.replay_command.empty()) out << "Replay:\n\n" << code_block(cx.replay_command, "sh") << "\n";
}

}  // namespace

void write_markdown(const Report& report, std::ostream& out) {
  const detail::Totals totals = detail::count_verdicts(report);
  out << "# " << md(report.tool, " ") << " report";
  if (!report.subject.empty()) out << ": " << md(report.subject, " ");
  out << "\n\n";
  out << "**Verdict: " << detail::overall_verdict(report) << "** (" << totals.passed
      << " passed, " << totals.failed << " failed, " << totals.skipped << " skipped)\n\n";
  out << "| | |\n|---|---|\n";
  for (const detail::MetadataRow& row : detail::metadata_rows(report)) {
    if (row.key == "command") continue;  // below, as a code block
    out << "| " << md(row.label) << " | " << md(row.value) << " |\n";
  }
  out << "\n";
  if (!report.command.empty()) out << "Reproduce with:\n\n" << code_block(report.command, "sh") << "\n";

  out << "## Summary\n\n";
  if (report.results.empty()) {
    out << "No claims were run.\n\n";
  } else {
    out << "| Claim | Engine | Configuration | Verdict | Summary |\n"
        << "|---|---|---|:---:|---|\n";
    // Failures first, then failures that did not reproduce, passes, skips.
    for (const ClaimResult* r : detail::failures_first(report)) {
      out << "| [" << md(r->claim) << "](#" << anchor(r->claim) << ") | " << md(r->engine)
          << " | " << md(r->configuration) << " | " << verdict_cell(*r) << " | "
          << md(r->summary, " ") << " |\n";
    }
    out << "\n";
  }
  write_margins(report, out);

  for (const std::string& claim : detail::claims_in_order(report)) {
    out << "## " << md(claim, " ") << "\n\n";
    std::vector<const ClaimResult*> results;
    for (const ClaimResult& r : report.results) {
      if (r.claim == claim) results.push_back(&r);
    }
    for (const ClaimResult* result : detail::failures_first(results)) {
      const ClaimResult& r = *result;
      out << "### " << detail::display_verdict(r) << ": " << md(r.engine, " ");
      if (!r.configuration.empty()) out << ", " << md(r.configuration, " ");
      out << "\n\n";
      if (!r.summary.empty()) out << md(r.summary) << "\n\n";
      out << "Seed " << r.seed << ", " << r.samples << " samples, "
          << md(detail::format_seconds(r.seconds)) << ".";
      if (!r.detected.empty()) out << " Detected at run time: " << md(r.detected) << ".";
      out << "\n\n";
      write_figures(r.figures, out);
      if (r.counterexample) write_counterexample(*r.counterexample, out);
    }
    bool first_plot = true;
    for (const Plot& p : report.plots) {
      if (p.claim != claim) continue;
      if (first_plot) out << "Plots (drawn in report.html):\n\n";
      first_plot = false;
      out << "- " << md(p.title, " ") << " (" << md(p.id, " ") << ")\n";
    }
    if (!first_plot) out << "\n";
  }
}

}  // namespace cuckoo::audit
