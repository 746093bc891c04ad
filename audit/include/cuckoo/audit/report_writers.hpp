// The four report formats. Each writer is a pure function of the Report; none of them
// throws on content (any string is escaped for its format), only on I/O failure.
//
//   report.md    the human summary: one section per claim, a table per section
//   report.json  machine-readable, schema documented in audit/REPORT.md
//                (kReportSchemaVersion)
//   junit.xml    one <testcase> per (claim, engine, configuration); FAIL is a <failure>,
//                SKIP a <skipped>; classname "cuckoo.audit.<claim>"
//   report.html  self-contained (no network, no scripts from elsewhere): the summary,
//                one <section id="claim-Cn"> per claim, the plots drawn as inline <svg>
#pragma once

#include <filesystem>
#include <ostream>
#include <vector>

#include "cuckoo/audit/report.hpp"

namespace cuckoo::audit {

void write_markdown(const Report& report, std::ostream& out);
void write_json(const Report& report, std::ostream& out);
void write_junit(const Report& report, std::ostream& out);
void write_html(const Report& report, std::ostream& out);

// Creates `dir` if needed and writes report.md, report.json, junit.xml and report.html
// into it. Returns the four paths. Throws std::runtime_error naming the file on failure.
std::vector<std::filesystem::path> write_reports(const Report& report,
                                                 const std::filesystem::path& dir);

// The short summary the command prints at the end: one line per claim and engine, then
// "N passed, M failed, K skipped".
void write_summary(const Report& report, std::ostream& out);

// The run's environment: the commit of `directory` (git rev-parse HEAD; empty, not an
// error, outside a git tree or without git), the compiler and flags this library was
// built with, the CPU model and whether it has RTM. subject_environment is left empty
// (the exec command fills it).
RunEnvironment collect_run_environment(const std::filesystem::path& directory);

}  // namespace cuckoo::audit
