// The audit's findings as data: one ClaimResult per (claim, engine, configuration) and
// the plots the HTML report draws. The auditor fills a Report; the writers
// (report_writers.hpp) turn it into report.md, report.json, junit.xml and report.html.
// Nothing here computes anything: it is the schema that every writer and every claim
// runner agree on. report.json mirrors these structs field for field (audit/REPORT.md
// documents the JSON schema and its version).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace cuckoo::audit {

// The JSON schema version written into report.json. Bump it when a field changes
// meaning or disappears; adding a field does not bump it.
inline constexpr int kReportSchemaVersion = 1;

enum class Verdict {
  kPass,     // the claim held on every sample
  kFail,     // a sample broke the claim; see ClaimResult::counterexample or the figures
  kSkipped,  // not run (not applicable to this subject, or excluded); `summary` says why
};

inline const char* to_string(Verdict v) noexcept {
  switch (v) {
    case Verdict::kPass: return "PASS";
    case Verdict::kFail: return "FAIL";
    case Verdict::kSkipped: return "SKIP";
  }
  return "?";
}

// One measured figure: a count, a rate with its confidence interval, a load factor, the
// bound it was held to.
struct Figure {
  std::string name;   // "false-positive rate", "load at first failure (mean)", "kicks per insert"
  double value = 0;
  std::string unit;   // "" (a plain number or a fraction), "%", "bits/item", "ns", "ops"
  std::optional<double> ci_low;   // confidence interval of `value`, when it is an estimate
  std::optional<double> ci_high;
  std::optional<double> bound;    // the bound the claim holds `value` to
  std::string relation;           // how value relates to bound: "<=", ">=", "==", "within"
  std::string note;               // anything a reader needs to interpret it
};

// The shrunk failing trace of a model-checked claim.
struct Counterexample {
  std::string trace;           // the trace text (model::print_trace), replayable
  std::string trace_file;      // where it was written, relative to the report directory
  std::string replay_command;  // e.g. "cuckoo-audit replay build/audit/counterexamples/C1-filter.trace"
  std::string explanation;     // the first violation, as model::format_violation prints it
  std::uint64_t original_ops = 0;  // length of the failing trace before shrinking
  std::uint64_t shrunk_ops = 0;    // and after
  // The op the shrunk trace fails at, as an op number: the 1-based position of the op
  // among the trace's op lines (the first line after the `engine` header is op 1). The
  // same number is in the summary, in the trace file's comments and in what a replay
  // prints (0: not known).
  std::uint64_t failing_op = 0;
};

struct ClaimResult {
  std::string claim;          // "C2"
  std::string engine;         // "filter", "map", "classic", "smart", "bloom",
                              // "concurrent-filter", "concurrent-map", or a user subject
  std::string configuration;  // "f=12 b=4 capacity=65536": enough to rebuild it
  Verdict verdict = Verdict::kSkipped;
  std::string summary;        // one sentence: what was checked and what was found
  std::vector<Figure> figures;
  std::uint64_t seed = 0;     // the seed this result reproduces from
  std::uint64_t samples = 0;  // how many trials/ops/histories were checked
  double seconds = 0;         // wall time spent on it
  std::optional<Counterexample> counterexample;
  // Values detected at run time that the configuration does not fix, e.g. "htm ran:
  // disabled" (the CPU had no RTM). Kept out of `configuration` so that a result has the
  // same name on every machine (JUnit history, diffs between runs).
  std::string detected;
};

// A plot for the HTML report. kLines draws each series as a polyline through its points
// (sorted by x); kPoints draws markers only (a distribution: many y values per x, as for
// "load at first failure per b"). A series with `bound` set is drawn dashed: it is the
// limit the claim holds the other series to.
struct PlotPoint {
  double x = 0;
  double y = 0;
  std::optional<double> y_low;   // error bar, when the point is an estimate
  std::optional<double> y_high;
};

struct PlotSeries {
  std::string name;  // legend entry: "b=4", "bound b=4", "SmartCuckoo"
  bool bound = false;
  std::vector<PlotPoint> points;
};

enum class PlotKind { kLines, kPoints };

struct Plot {
  std::string id;      // stable, used as the HTML element id: "c2-fpr-vs-bits"
  std::string claim;   // the claim whose section shows it: "C2"
  std::string title;
  std::string x_label;
  std::string y_label;
  PlotKind kind = PlotKind::kLines;
  bool log_y = false;
  std::vector<PlotSeries> series;
};

// Where and with what the report was made. Every field is text for people; "" means not
// known (and the writers say so). collect_run_environment() (report_writers.hpp) fills it.
struct RunEnvironment {
  std::string commit;          // `git rev-parse HEAD` of commit_directory, "" outside git
  std::string commit_directory;  // the directory the commit is of (the auditor's working
                                 // directory, which is also the subject's)
  std::string compiler;        // the compiler the auditor was built with: "GCC 12.2.0"
  std::string compiler_flags;  // and its flags (build type's flags included)
  std::string cpu;             // CPU model name (/proc/cpuinfo), "" when not readable
  std::string rtm;             // "yes", "no" (the CPU's restricted transactional memory),
                               // or "" when not an x86 CPU
  std::string subject_environment;  // what an exec subject's environment is (PROTOCOL.md),
                                    // "" when no subject process ran
};

struct Report {
  std::string tool = "cuckoo-audit";
  std::string tool_version;   // the project version
  std::string subject;        // "cuckoo engines", or the name an adapter gives
  std::string profile;        // "quick", "standard", "full", or "custom"
  std::uint64_t seed = 0;     // the run's master seed
  std::string started_utc;    // ISO 8601
  double seconds = 0;
  std::string command;        // the command line that reproduces the run
  RunEnvironment environment;
  std::vector<ClaimResult> results;
  std::vector<Plot> plots;

  bool all_passed() const {
    for (const ClaimResult& r : results) {
      if (r.verdict == Verdict::kFail) return false;
    }
    return true;
  }
};

}  // namespace cuckoo::audit
