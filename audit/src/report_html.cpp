// report.html: one self-contained page (inline CSS, inline SVG, one inline script; no
// external resource of any kind, so it opens from a CI artifact or an e-mail).
//
// Layout: the run's facts and overall verdict (metadata_rows: commit, compiler, CPU,
// RTM, ...), the summary table with failures first (each claim links to its section), the
// margins to the bounds (section id "margins": every statistical claim's bounded figures,
// a "not statistical" row for each other claim), then one
// <section id="claim-<id>" class="claim"> per claim in natural order with its results
// (failures first; figures table, counterexample) and its plots as
// <svg class="plot" id="plot-<id>">. Plots whose claim is empty go in a last section
// "other-plots".
//
// The self-check script runs on load: it counts the plots whose rendered bounding box
// is not empty and that contain drawn data (elements of class "data", or the "no-data"
// note of an empty plot) and sets body data-plots-rendered and data-sections, next to
// the data-plots-expected and data-sections-expected the writer sets. A headless
// browser's --dump-dom shows all four (audit/tests/check_html_in_browser.sh).
//
// The markup is also well-formed XML apart from the doctype and the script body (void
// elements self-closed, numeric character references only), which is how the writer
// test checks its structure without an HTML parser.
#include <ostream>
#include <string>
#include <vector>

#include "cuckoo/audit/report_writers.hpp"
#include "report_text.hpp"
#include "svg_plot.hpp"

namespace cuckoo::audit {

namespace {

using detail::escape_xml;

// Text content with line breaks kept (CSS white-space: pre-line where it is used).
std::string h(const std::string& s) { return escape_xml(s); }
std::string attr(const std::string& s) { return escape_xml(s, true); }

const char* verdict_class(Verdict v) {
  switch (v) {
    case Verdict::kPass: return "pass";
    case Verdict::kFail: return "fail";
    case Verdict::kSkipped: return "skip";
  }
  return "skip";
}

std::string badge(Verdict v) {
  return std::string("<span class=\"verdict ") + verdict_class(v) + "\">" + to_string(v) +
         "</span>";
}

std::string badge(const ClaimResult& r) {
  std::string out = badge(r.verdict);
  if (detail::not_reproducible(r)) out += " <span class=\"meta\">not reproducible</span>";
  return out;
}

const char* const kStyle = R"css(
:root { color-scheme: light; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Helvetica, Arial, sans-serif;
       color: #1d1d1f; background: #fafafa; margin: 0; padding: 24px 32px 64px; }
main { max-width: 1100px; margin: 0 auto; }
h1 { font-size: 24px; margin: 0 0 8px; }
h2 { font-size: 20px; margin: 36px 0 10px; padding-bottom: 4px; border-bottom: 2px solid #ddd; }
h3 { font-size: 15px; margin: 22px 0 6px; }
table { border-collapse: collapse; margin: 8px 0 16px; background: #fff; }
th, td { border: 1px solid #ddd; padding: 4px 8px; text-align: left; vertical-align: top; }
th { background: #f0f0f0; font-weight: 600; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td.multiline, p.multiline { white-space: pre-line; }
td.margin.broken { color: #a50e0e; font-weight: 600; }
table.facts th { width: 140px; }
.verdict { display: inline-block; min-width: 42px; text-align: center; font-weight: 700;
           border-radius: 4px; padding: 0 6px; font-size: 12px; }
.verdict.pass { background: #d8f3dc; color: #1b5e20; }
.verdict.fail { background: #ffd6d6; color: #a50e0e; }
.verdict.skip { background: #e8e8e8; color: #555; }
.overall { font-size: 18px; margin: 8px 0 16px; }
pre { background: #f4f4f4; border: 1px solid #ddd; padding: 8px 10px; overflow-x: auto;
      white-space: pre; font: 12.5px/1.4 ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; }
.result { background: #fff; border: 1px solid #e2e2e2; border-radius: 6px; padding: 4px 14px 8px;
          margin: 10px 0; }
.result.fail { border-left: 5px solid #d32f2f; }
.result.pass { border-left: 5px solid #2e7d32; }
.result.skip { border-left: 5px solid #9e9e9e; }
.meta { color: #666; font-size: 12.5px; }
.counterexample { border-top: 1px dashed #d32f2f; margin-top: 8px; }
figure { margin: 14px 0; }
svg.plot { display: block; max-width: 100%; height: auto; border: 1px solid #e2e2e2;
           border-radius: 6px; }
figcaption { color: #555; font-size: 12.5px; margin-top: 4px; }
)css";

// Sets data-plots-rendered and data-sections on <body> after load (see the top comment).
const char* const kSelfCheck = R"js(
window.addEventListener("load", function () {
  var plots = document.querySelectorAll("svg.plot");
  var rendered = 0;
  for (var i = 0; i < plots.length; i++) {
    var svg = plots[i];
    var box = svg.getBBox();
    var drawn = svg.querySelectorAll(".data, .no-data").length;
    if (box.width > 0 && box.height > 0 && drawn > 0) {
      rendered++;
    } else {
      svg.setAttribute("data-render-problem", "empty bounding box or no data elements");
    }
  }
  document.body.dataset.plotsRendered = String(rendered);
  document.body.dataset.sections = String(document.querySelectorAll("section.claim").length);
});
)js";

void write_figures(const std::vector<Figure>& figures, std::ostream& out) {
  if (figures.empty()) return;
  out << "<table class=\"figures\"><thead><tr><th>Figure</th><th>Value</th><th>CI</th>"
         "<th>Bound</th><th>Relation</th><th>Note</th></tr></thead><tbody>\n";
  for (const Figure& f : figures) {
    out << "<tr><td>" << h(f.name) << "</td><td class=\"num\">"
        << h(detail::format_value(f.value, f.unit)) << "</td><td class=\"num\">"
        << h(detail::format_ci(f)) << "</td><td class=\"num\">" << h(detail::format_bound(f))
        << "</td><td>" << h(f.relation) << "</td><td class=\"multiline\">" << h(f.note)
        << "</td></tr>\n";
  }
  out << "</tbody></table>\n";
}

void write_counterexample(const Counterexample& cx, std::ostream& out) {
  out << "<div class=\"counterexample\"><h4>Counterexample";
  if (cx.original_ops != 0 || cx.shrunk_ops != 0) {
    out << " <span class=\"meta\">(shrunk from " << cx.original_ops << " to " << cx.shrunk_ops
        << " operations)</span>";
  }
  out << "</h4>\n";
  if (cx.failing_op != 0) {
    out << "<p class=\"failing-op\">Fails at op " << cx.failing_op
        << " <span class=\"meta\">(the " << cx.failing_op
        << ". op line after the trace&#39;s engine header)</span></p>\n";
  }
  if (!cx.explanation.empty()) out << "<p class=\"multiline\">" << h(cx.explanation) << "</p>\n";
  if (!cx.trace.empty()) out << "<pre class=\"trace\">" << h(cx.trace) << "</pre>\n";
  if (!cx.trace_file.empty()) {
    out << "<p class=\"meta\">Trace file: <code>" << h(cx.trace_file) << "</code></p>\n";
  }
  if (!cx.replay_command.empty()) {
    out << "<p class=\"meta\">Replay:</p><pre class=\"replay\">" << h(cx.replay_command)
        << "</pre>\n";
  }
  out << "</div>\n";
}

// The margin of every bounded figure of each statistical claim to its bound, and for each
// other claim a row saying it is not statistical.
void write_margins(const Report& report, std::ostream& out) {
  const std::vector<detail::MarginRow> rows = detail::margin_rows(report);
  if (rows.empty()) return;
  out << "<section id=\"margins\" class=\"margins\">\n<h2>Margins to the bounds</h2>\n"
      << "<table class=\"margins\"><thead><tr><th>Claim</th><th>Engine</th><th>Configuration</th>"
         "<th>Figure</th><th>Measured</th><th>CI</th><th>Relation</th><th>Bound</th>"
         "<th>Margin</th></tr></thead><tbody>\n";
  for (const detail::MarginRow& row : rows) {
    out << "<tr data-claim=\"" << attr(row.claim) << "\"><td><a href=\"#claim-" << attr(row.claim)
        << "\">" << h(row.claim) << "</a></td>";
    if (row.figure == nullptr) {
      out << "<td colspan=\"8\">" << h(row.text) << "</td></tr>\n";
      continue;
    }
    const Figure& f = *row.figure;
    out << "<td>" << h(row.result->engine) << "</td><td><code>" << h(row.result->configuration)
        << "</code></td><td>" << h(f.name) << "</td><td class=\"num\">"
        << h(detail::format_value(f.value, f.unit)) << "</td><td class=\"num\">"
        << h(detail::format_ci(f)) << "</td><td>" << h(f.relation) << "</td><td class=\"num\">"
        << h(detail::format_bound(f)) << "</td><td class=\"margin"
        << ((f.relation == "<=" || f.relation == ">=") && row.margin < 0 ? " broken" : "") << "\">"
        << h(row.margin_text) << "</td></tr>\n";
  }
  out << "</tbody></table>\n</section>\n";
}

void write_result(const ClaimResult& r, std::ostream& out) {
  out << "<div class=\"result " << verdict_class(r.verdict) << "\">\n<h3>" << badge(r)
      << " " << h(r.engine);
  if (!r.configuration.empty()) out << " <code>" << h(r.configuration) << "</code>";
  out << "</h3>\n";
  if (!r.summary.empty()) out << "<p class=\"multiline\">" << h(r.summary) << "</p>\n";
  out << "<p class=\"meta\">seed " << r.seed << " &#183; " << r.samples << " samples &#183; "
      << h(detail::format_seconds(r.seconds));
  if (!r.detected.empty()) out << " &#183; detected: " << h(r.detected);
  out << "</p>\n";
  write_figures(r.figures, out);
  if (r.counterexample) write_counterexample(*r.counterexample, out);
  out << "</div>\n";
}

void write_plot(const Plot& p, std::ostream& out) {
  out << "<figure>\n" << detail::render_svg_plot(p);
  out << "<figcaption>" << h(p.title) << " <span class=\"meta\">(" << h(p.id)
      << (p.log_y ? ", log y" : "") << ")</span></figcaption>\n</figure>\n";
}

}  // namespace

void write_html(const Report& report, std::ostream& out) {
  const detail::Totals totals = detail::count_verdicts(report);
  const std::vector<std::string> claims = detail::claims_in_order(report);
  const std::string title = report.tool + " report" +
                            (report.subject.empty() ? std::string() : ": " + report.subject);
  out << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n"
      << "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n"
      << "<title>" << h(title) << "</title>\n<style>" << kStyle << "</style>\n</head>\n";
  out << "<body data-plots-expected=\"" << report.plots.size() << "\" data-sections-expected=\""
      << claims.size() << "\">\n<main>\n";
  out << "<h1>" << h(title) << "</h1>\n";
  out << "<p class=\"overall\">Verdict: "
      << badge(report.all_passed() ? Verdict::kPass : Verdict::kFail) << " &#160;"
      << totals.passed << " passed, " << totals.failed << " failed, " << totals.skipped
      << " skipped</p>\n";
  out << "<table class=\"facts\"><tbody>\n";
  for (const detail::MetadataRow& row : detail::metadata_rows(report)) {
    out << "<tr id=\"meta-" << attr(row.key) << "\"><th>" << h(row.label) << "</th><td>";
    if (row.key == "command" || row.key == "commit") {
      out << "<code>" << h(row.value) << "</code>";
    } else {
      out << h(row.value);
    }
    out << "</td></tr>\n";
  }
  out << "</tbody></table>\n";

  out << "<h2 id=\"summary\">Summary</h2>\n";
  if (report.results.empty()) {
    out << "<p>No claims were run.</p>\n";
  } else {
    out << "<table class=\"summary\"><thead><tr><th>Claim</th><th>Engine</th>"
           "<th>Configuration</th><th>Verdict</th><th>Summary</th></tr></thead><tbody>\n";
    // Failures first (then failures that did not reproduce, passes, skips), claim order
    // within each.
    for (const ClaimResult* r : detail::failures_first(report)) {
      out << "<tr class=\"" << verdict_class(r->verdict) << "\"><td><a href=\"#claim-"
          << attr(r->claim) << "\">" << h(r->claim) << "</a></td><td>" << h(r->engine)
          << "</td><td><code>" << h(r->configuration) << "</code></td><td>" << badge(*r)
          << "</td><td class=\"multiline\">" << h(r->summary) << "</td></tr>\n";
    }
    out << "</tbody></table>\n";
  }
  write_margins(report, out);

  for (const std::string& claim : claims) {
    std::vector<const ClaimResult*> results;
    for (const ClaimResult& r : report.results) {
      if (r.claim == claim) results.push_back(&r);
    }
    const detail::Totals t = detail::count_verdicts(results);
    out << "<section id=\"claim-" << attr(claim) << "\" class=\"claim\">\n<h2>" << h(claim)
        << " <span class=\"meta\">" << t.passed << " passed, " << t.failed << " failed, "
        << t.skipped << " skipped</span></h2>\n";
    for (const ClaimResult* r : detail::failures_first(results)) write_result(*r, out);
    for (const Plot& p : report.plots) {
      if (p.claim == claim) write_plot(p, out);
    }
    out << "</section>\n";
  }
  bool other_plots = false;
  for (const Plot& p : report.plots) {
    if (!p.claim.empty()) continue;
    if (!other_plots) out << "<section id=\"other-plots\" class=\"plots\">\n<h2>Other plots</h2>\n";
    other_plots = true;
    write_plot(p, out);
  }
  if (other_plots) out << "</section>\n";

  out << "</main>\n<script>" << kSelfCheck << "</script>\n</body>\n</html>\n";
}

}  // namespace cuckoo::audit
