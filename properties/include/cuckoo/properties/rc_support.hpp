// Running RapidCheck properties from GoogleTest with explicit, reproducible parameters,
// reporting failures as traces, and saving and replaying trace files.
//
// Parameters. Each property runs with its own rc::detail::TestParams:
//   seed         CUCKOO_SEED from the environment if set, else a fixed default derived
//                from the test's name (so every run of the suite is the same run, and
//                two properties do not draw the same cases);
//   max_success  the property's budget for the default lane, times 10 when
//                CUCKOO_PROPERTIES_FULL=1 (the full lane);
//   max_size     the property's budget: sequences are long enough to fill tiny tables.
// RC_PARAMS="reproduce=..." (RapidCheck's own mechanism) replays exactly one shrunk
// failure; the properties it does not name then run no cases.
//
// Failure report (the GoogleTest failure message, so it is also in the JUnit XML):
//   - the property's id and seed, and the two one-line commands that reproduce it:
//     RC_PARAMS="reproduce=..." (the shrunk case at once) and CUCKOO_SEED=... (the same
//     run, shrinking again);
//   - the shrunk counterexample as a trace (model::format_violation: the violated claim,
//     expected and actual as comments, then the header and ops up to the failing one),
//     also saved to <id>.failure.trace in the working directory, with the command that
//     replays that file;
//   - RapidCheck's own report (the counterexample as it generated it).
// Keep a failure as a regression case by copying the saved file into
// properties/regressions/ (regressions_test.cpp replays every *.trace there).
#pragma once

#include <gtest/gtest.h>

#include <rapidcheck.h>
#include <rapidcheck/detail/Configuration.h>
#include <rapidcheck/detail/Results.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "cuckoo/subjects/replay.hpp"
#include "cuckoo/model/trace.hpp"
#include "cuckoo/model/violation.hpp"

namespace cuckoo::properties {

// ---- Lanes and parameters ------------------------------------------------------------

// True when CUCKOO_PROPERTIES_FULL=1: the full lane, 10x the cases.
inline bool full_lane() {
  const char* text = std::getenv("CUCKOO_PROPERTIES_FULL");
  return text != nullptr && std::string_view(text) == "1";
}

inline constexpr int kFullLaneFactor = 10;

// CUCKOO_SEED when it is set to a number (decimal or 0x hex).
inline std::optional<std::uint64_t> seed_from_environment() {
  const char* text = std::getenv("CUCKOO_SEED");
  if (text == nullptr || *text == '\0') return std::nullopt;
  char* end = nullptr;
  const unsigned long long seed = std::strtoull(text, &end, 0);
  if (*end != '\0') return std::nullopt;
  return static_cast<std::uint64_t>(seed);
}

// The fixed default seed of a property: FNV-1a of its id, stable across builds.
inline std::uint64_t default_seed(std::string_view id) noexcept {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (const char c : id) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001b3ULL;
  }
  return h;
}

// How many cases a property runs in the default lane, and how long its sequences get.
struct Budget {
  int max_success = 100;
  int max_size = 200;
};

inline rc::detail::TestParams test_params(std::string_view id, const Budget& budget) {
  rc::detail::TestParams params;
  params.seed = seed_from_environment().value_or(default_seed(id));
  params.maxSuccess = budget.max_success * (full_lane() ? kFullLaneFactor : 1);
  params.maxSize = budget.max_size;
  return params;
}

// True when RC_PARAMS names failures to reproduce: then only those properties run.
inline bool reproducing() { return !rc::detail::configuration().reproduce.empty(); }

// ---- Failing a case with a trace -------------------------------------------------------

// The report of the last failing case in this thread. While RapidCheck shrinks, every
// candidate that still fails replaces it, and shrinking ends on the smallest failing
// case, so after a failed run it holds the shrunk counterexample's trace.
inline std::string& last_failure_trace() {
  thread_local std::string text;
  return text;
}

// Fails the current case with the violation, reported as a replayable trace. The
// message is format_violation's text: the claim, expected and actual as comments, then
// the trace cut after the failing op.
[[noreturn]] inline void fail_with(const model::Violation& violation, const model::Trace& trace) {
  last_failure_trace() = model::format_violation(violation, trace);
  // What RC_FAIL throws, without its "file:line: RC_FAIL(...)" prefix. The description
  // is the one-line violation; the report prints the trace (last_failure_trace()).
  throw rc::detail::CaseResult(rc::detail::CaseResult::Type::Failure, to_string(violation));
}

// ---- Trace files ------------------------------------------------------------------------

// Reads a file. Throws std::runtime_error naming it when it cannot be read.
inline std::string read_text_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path.string());
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Writes `text` to `path`. Throws std::runtime_error naming it when it cannot.
inline void save_trace_text(const std::filesystem::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  if (!out) throw std::runtime_error("cannot write " + path.string());
}

inline void save_trace(const std::filesystem::path& path, const model::Trace& trace) {
  save_trace_text(path, model::print_trace(trace));
}

// Parses a trace file; model::TraceError (with the line) for a malformed one.
inline model::Trace load_trace(const std::filesystem::path& path) {
  return model::parse_trace(read_text_file(path));
}

// Replays a trace file against the engine its header names (subjects::replay): the first
// violation, or nothing.
inline std::optional<model::Violation> replay_file(const std::filesystem::path& path) {
  return subjects::replay(load_trace(path));
}

// The regression traces: every *.trace in properties/regressions/, sorted by name.
inline std::filesystem::path regressions_dir() {
#ifdef CUCKOO_PROPERTIES_REGRESSIONS_DIR
  return CUCKOO_PROPERTIES_REGRESSIONS_DIR;
#else
  return "properties/regressions";
#endif
}

inline std::vector<std::filesystem::path> trace_files_in(const std::filesystem::path& dir) {
  std::vector<std::filesystem::path> files;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(dir, error)) {
    if (entry.is_regular_file() && entry.path().extension() == ".trace") {
      files.push_back(entry.path());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

// ---- Running a property -------------------------------------------------------------

// Which paths of the engine a property's cases exercised: per path, the number of cases
// that reached it. A property that never reaches kFull proves nothing about C6.
class Coverage {
 public:
  // Counts one finished case (RapidCheck may also run a case again while shrinking; a
  // failed run's counts do not matter).
  void count_case(const std::set<std::string>& paths_hit, std::size_t ops) {
    ++cases_;
    ops_ += ops;
    for (const std::string& path : paths_hit) ++hits_[path];
  }
  int cases() const noexcept { return cases_; }
  int hits(const std::string& path) const {
    const auto it = hits_.find(path);
    return it == hits_.end() ? 0 : it->second;
  }
  double mean_ops() const noexcept {
    return cases_ == 0 ? 0.0 : static_cast<double>(ops_) / static_cast<double>(cases_);
  }
  // "120 cases, 95.3 ops each; full 40, stash 33, ...".
  std::string summary() const {
    std::ostringstream out;
    out.setf(std::ios::fixed);
    out.precision(1);
    out << cases_ << " cases, " << mean_ops() << " ops each";
    const char* separator = "; ";
    for (const auto& [path, count] : hits_) {
      out << separator << path << " " << count;
      separator = ", ";
    }
    return out.str();
  }

 private:
  int cases_ = 0;
  std::size_t ops_ = 0;
  std::map<std::string, int> hits_;
};

// What one property run did.
struct PropertyRun {
  std::string id;
  std::uint64_t seed = 0;
  bool passed = false;
  int cases = 0;       // successful cases (0 when RC_PARAMS reproduces another property)
  std::string report;  // the failure report; empty when passed
};

// The path of the running executable, for the reproduce commands.
inline std::string executable_path() {
  std::error_code error;
  const auto path = std::filesystem::read_symlink("/proc/self/exe", error);
  return error ? std::string("<test binary>") : path.string();
}

// A name usable as a file name: the id with every character outside [A-Za-z0-9_.-]
// replaced by '_'.
inline std::string file_name_for(std::string_view id) {
  std::string name(id);
  for (char& c : name) {
    const bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                      (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-';
    if (!keep) c = '_';
  }
  return name;
}

// RapidCheck's "reproduce=..." setting for one failure of property `id`.
inline std::string reproduce_parameter(const std::string& id, const rc::detail::Reproduce& reproduce) {
  rc::detail::Configuration config;
  config.reproduce[id] = reproduce;
  // The minimal configuration string may carry other keys (seed=...); keep only ours.
  const std::string text = rc::detail::configToMinimalString(config);
  const std::size_t start = text.find("reproduce=");
  if (start == std::string::npos) return text;
  return text.substr(start, text.find(' ', start) - start);
}

// Runs `property` (a RapidCheck testable: a callable whose parameters RapidCheck
// generates, or that draws with *gen) under the id's parameters. `gtest_filter` selects
// the test in the reproduce commands.
template <class Testable>
PropertyRun run_property(const std::string& id, const std::string& gtest_filter,
                         const Budget& budget, Testable&& property) {
  const rc::detail::TestParams params = test_params(id, budget);
  rc::detail::TestMetadata metadata;
  metadata.id = id;
  metadata.description = id;
  // Printed before the run, so that a crash (a sanitizer abort) still shows the seed.
  std::cerr << "[ property ] " << id << ": seed " << params.seed << ", up to "
            << params.maxSuccess << " cases, max_size " << params.maxSize
            << (full_lane() ? " (full lane)" : "") << std::endl;
  last_failure_trace().clear();
  const rc::detail::TestResult result =
      rc::detail::checkTestable(std::forward<Testable>(property), metadata, params);

  PropertyRun run;
  run.id = id;
  run.seed = params.seed;
  if (result.template is<rc::detail::SuccessResult>()) {
    run.passed = true;
    run.cases = result.template get<rc::detail::SuccessResult>().numSuccess;
    return run;
  }

  const std::string binary = executable_path();
  const std::string filter = " --gtest_filter='" + gtest_filter + "'";
  std::ostringstream report;
  report << "property " << id << " FAILED (seed " << params.seed << ")\n";
  if (result.template is<rc::detail::FailureResult>()) {
    const auto& failure = result.template get<rc::detail::FailureResult>();
    run.cases = failure.numSuccess;
    report << "reproduce the shrunk case:  RC_PARAMS=\"" << reproduce_parameter(id, failure.reproduce)
           << "\" " << binary << filter << "\n";
  }
  report << "rerun and shrink again:     CUCKOO_SEED=" << params.seed
         << (full_lane() ? " CUCKOO_PROPERTIES_FULL=1 " : " ") << binary << filter << "\n";
  if (!last_failure_trace().empty()) {
    const std::filesystem::path saved =
        std::filesystem::current_path() / (file_name_for(id) + ".failure.trace");
    try {
      save_trace_text(saved, last_failure_trace());
      const std::filesystem::path replayer =
          std::filesystem::path(binary).parent_path() / "properties_regressions_test";
      report << "shrunk counterexample saved to " << saved.string() << "\n"
             << "replay it:                  CUCKOO_REPLAY_TRACE=" << saved.string() << " "
             << replayer.string() << " --gtest_filter='ReplayTraceFile.*'\n"
             << "keep it as a regression:    cp " << saved.string()
             << " properties/regressions/<name>.trace\n";
    } catch (const std::exception& e) {
      report << "(could not save the trace: " << e.what() << ")\n";
    }
    report << "---- shrunk counterexample (trace format) ----\n"
           << last_failure_trace() << "---- end of trace ----\n";
  }
  report << "---- RapidCheck's report ----\n";
  rc::detail::printResultMessage(result, report);
  report << "\n";
  run.report = report.str();
  return run;
}

// The running GoogleTest's full name ("Suite/Fixture.Test/Param"): the property's id and
// the --gtest_filter that selects it.
inline std::string current_test_id() {
  const ::testing::TestInfo* info = ::testing::UnitTest::GetInstance()->current_test_info();
  if (info == nullptr) return "unknown";
  return std::string(info->test_suite_name()) + "." + info->name();
}

// Runs the property as the current GoogleTest's body: a failure is a test failure with
// the report above. Returns the run (so the caller can check coverage when it passed).
template <class Testable>
PropertyRun check_property(const Budget& budget, Testable&& property) {
  const std::string id = current_test_id();
  PropertyRun run = run_property(id, id, budget, std::forward<Testable>(property));
  if (!run.passed) ADD_FAILURE() << run.report;
  return run;
}

// After a passing run: every path in `paths` was reached by at least `min_cases` cases.
// Skipped (returns true) when the run was too short to judge: RC_PARAMS reproducing
// another property, or fewer than 20 cases.
inline bool expect_exercised(const PropertyRun& run, const Coverage& coverage,
                             std::initializer_list<std::string_view> paths, int min_cases = 1) {
  if (!run.passed || reproducing()) return true;
  std::cerr << "[ coverage ] " << run.id << ": " << coverage.summary() << std::endl;
  if (run.cases < 20) return true;
  bool all = true;
  for (const std::string_view path : paths) {
    const int hits = coverage.hits(std::string(path));
    if (hits < min_cases) {
      ADD_FAILURE() << run.id << ": only " << hits << " of " << coverage.cases()
                    << " cases reached '" << path << "' (at least " << min_cases
                    << " must): the property does not exercise that path. Coverage: "
                    << coverage.summary();
      all = false;
    }
  }
  return all;
}

}  // namespace cuckoo::properties
