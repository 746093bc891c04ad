// junit.xml: the JUnit XML that CI servers read (GitHub Actions test reporters, GitLab
// artifacts:reports:junit, Jenkins). One <testsuite> per claim in natural order, one
// <testcase> per result with classname "cuckoo.audit.<claim>" and name
// "<engine> <configuration>". A FAIL carries a <failure> whose message is the summary
// and whose body holds the figures and the counterexample; a SKIP is <skipped> with the
// reason. Every result's figures also go to <system-out>, so a passing case shows its
// numbers too. All text goes through escape_xml: the file is well-formed XML 1.0
// whatever the strings hold (controls XML cannot carry become U+FFFD).
//
// Stable names: a test case's name is "<engine> <configuration>", and a configuration
// holds only what the run fixes (a value detected on the machine, such as which
// hardware-transaction backend ran, is ClaimResult::detected and goes to <system-out>),
// so CI servers keep one history per test case across machines.
//
// Strict schema. The file is valid against the strict JUnit schema CI servers validate
// with (the Jenkins xunit plugin's "junit-10.xsd" style; audit/tests/junit-strict.xsd is
// our own XSD of the rules we rely on, and audit_junit_schema checks the output against
// it with xmllint):
//   <testsuites>  attributes name, time, tests, failures, disabled, errors only; in
//                 particular no `skipped` and no `timestamp` (they belong to
//                 <testsuite>); children: <testsuite>*
//   <testsuite>   name and tests required; failures, errors, time, disabled, skipped,
//                 timestamp, hostname, id, package optional; children in the order
//                 <properties>?, <testcase>*, <system-out>?, <system-err>?
//   <properties>  <property name= value=/>+ (both attributes required)
//   <testcase>    name required; assertions, time, classname, status optional; children
//                 in the order <skipped>?, <error>*, <failure>*, <system-out>*, <system-err>*
//   <failure>/<error>  message and type optional, text content; <skipped> message optional
// Numbers (tests, failures, time) are written as plain decimal text.
#include <cmath>
#include <cstdio>
#include <ostream>
#include <string>
#include <vector>

#include "cuckoo/audit/report_writers.hpp"
#include "report_text.hpp"

namespace cuckoo::audit {

namespace {

using detail::escape_xml;

std::string attr(const std::string& s) { return escape_xml(s, true); }

std::string xml_seconds(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) seconds = 0;
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.3f", seconds);
  return buffer;
}

// The figures as plain text lines: "name: value [ci] (<= bound) -- note".
std::string figures_text(const ClaimResult& r) {
  std::string out;
  for (const Figure& f : r.figures) {
    out += f.name + ": " + detail::format_value(f.value, f.unit);
    const std::string ci = detail::format_ci(f);
    if (!ci.empty()) out += " CI " + ci;
    if (f.bound) {
      out += " (" + (f.relation.empty() ? std::string("vs") : f.relation) + " " +
             detail::format_bound(f) + ")";
    }
    if (!f.note.empty()) out += " -- " + f.note;
    out += "\n";
  }
  return out;
}

std::string failure_text(const ClaimResult& r) {
  std::string out = r.summary + "\n";
  out += "seed " + std::to_string(r.seed) + ", " + std::to_string(r.samples) + " samples\n";
  const std::string figures = figures_text(r);
  if (!figures.empty()) out += "\nfigures:\n" + figures;
  if (r.counterexample) {
    const Counterexample& cx = *r.counterexample;
    out += "\ncounterexample";
    if (cx.original_ops != 0 || cx.shrunk_ops != 0) {
      out += " (shrunk from " + std::to_string(cx.original_ops) + " to " +
             std::to_string(cx.shrunk_ops) + " operations)";
    }
    out += ":\n";
    if (cx.failing_op != 0) out += "fails at op " + std::to_string(cx.failing_op) + "\n";
    if (!cx.explanation.empty()) out += cx.explanation + "\n";
    if (!cx.trace.empty()) out += "\n" + cx.trace + (cx.trace.back() == '\n' ? "" : "\n");
    if (!cx.trace_file.empty()) out += "\ntrace file: " + cx.trace_file + "\n";
    if (!cx.replay_command.empty()) out += "replay: " + cx.replay_command + "\n";
  }
  return out;
}

std::string testcase_name(const ClaimResult& r) {
  return r.configuration.empty() ? r.engine : r.engine + " " + r.configuration;
}

}  // namespace

void write_junit(const Report& report, std::ostream& out) {
  const detail::Totals totals = detail::count_verdicts(report);
  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  // The strict schema allows no `skipped` or `timestamp` here (see the top comment).
  out << "<testsuites name=\"" << attr(report.tool) << "\" tests=\"" << report.results.size()
      << "\" failures=\"" << totals.failed << "\" errors=\"0\" time=\""
      << xml_seconds(report.seconds) << "\">\n";
  for (const std::string& claim : detail::claims_in_order(report)) {
    std::vector<const ClaimResult*> results;
    double seconds = 0;
    for (const ClaimResult& r : report.results) {
      if (r.claim != claim) continue;
      results.push_back(&r);
      if (std::isfinite(r.seconds) && r.seconds > 0) seconds += r.seconds;
    }
    if (results.empty()) continue;  // a claim with plots only has no test cases
    const detail::Totals t = detail::count_verdicts(results);
    out << "  <testsuite name=\"" << attr(claim) << "\" tests=\"" << results.size()
        << "\" failures=\"" << t.failed << "\" errors=\"0\" skipped=\"" << t.skipped
        << "\" time=\"" << xml_seconds(seconds) << "\"";
    if (!report.started_utc.empty()) out << " timestamp=\"" << attr(report.started_utc) << "\"";
    out << ">\n";
    out << "    <properties>\n";
    for (const detail::MetadataRow& row : detail::metadata_rows(report)) {
      out << "      <property name=\"" << attr(row.key) << "\" value=\"" << attr(row.value)
          << "\"/>\n";
    }
    out << "    </properties>\n";
    for (const ClaimResult* r : results) {
      out << "    <testcase classname=\"cuckoo.audit." << attr(r->claim) << "\" name=\""
          << attr(testcase_name(*r)) << "\" time=\"" << xml_seconds(r->seconds) << "\">\n";
      if (r->verdict == Verdict::kFail) {
        out << "      <failure message=\"" << attr(r->summary) << "\" type=\"ClaimViolated\">"
            << escape_xml(failure_text(*r)) << "</failure>\n";
      } else if (r->verdict == Verdict::kSkipped) {
        out << "      <skipped message=\"" << attr(r->summary) << "\"/>\n";
      }
      out << "      <system-out>"
          << escape_xml(r->summary + "\nseed " + std::to_string(r->seed) + ", " +
                        std::to_string(r->samples) + " samples\n" +
                        (r->detected.empty() ? std::string()
                                             : "detected at run time: " + r->detected + "\n") +
                        figures_text(*r))
          << "</system-out>\n";
      out << "    </testcase>\n";
    }
    out << "  </testsuite>\n";
  }
  out << "</testsuites>\n";
}

}  // namespace cuckoo::audit
