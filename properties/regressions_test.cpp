// Regression cases: every *.trace under properties/regressions/ is replayed against the
// engine its header names (subjects::replay, the model layer's lock-step checker) and must
// show no violation. One GoogleTest case per file.
//
// A trace lands here when a property (or a fuzzer, or a user) found a failure: the
// property's report saves the shrunk counterexample as <test>.failure.trace; copy it
// here under a name that says what it caught. Traces that caught deliberately broken
// engines (the suite's own mutation checks) are kept too: each still exercises the path
// that the mutant broke.
//
// CUCKOO_REPLAY_TRACE=<file>[:<file>...] replays the given files instead
// (ReplayTraceFile.FromEnvironment): the command a failing property prints.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <string>
#include <string_view>
#include <vector>

#include "cuckoo/subjects/replay.hpp"
#include "cuckoo/model/trace.hpp"
#include "cuckoo/model/violation.hpp"
#include "cuckoo/properties/rc_support.hpp"

namespace {

namespace fs = std::filesystem;
namespace model = cuckoo::model;
namespace props = cuckoo::properties;

// Replays one file: no violation, and a parseable header the replayer knows.
void expect_replays_clean(const fs::path& path) {
  SCOPED_TRACE(path.string());
  model::Trace trace;
  try {
    trace = props::load_trace(path);
  } catch (const std::exception& e) {
    FAIL() << "cannot read the trace: " << e.what();
  }
  const auto violation = cuckoo::subjects::replay(trace);
  EXPECT_FALSE(violation.has_value()) << model::format_violation(*violation, trace);
  std::cerr << "[ replay ] " << path.filename().string() << ": " << trace.size() << " ops, "
            << (violation ? "VIOLATION" : "no violation") << std::endl;
}

std::vector<fs::path> regression_files() { return props::trace_files_in(props::regressions_dir()); }

class RegressionTrace : public ::testing::TestWithParam<fs::path> {};

TEST_P(RegressionTrace, ReplaysWithoutViolation) { expect_replays_clean(GetParam()); }

INSTANTIATE_TEST_SUITE_P(Regressions, RegressionTrace, ::testing::ValuesIn(regression_files()),
                         [](const ::testing::TestParamInfo<fs::path>& file_info) {
                           std::string name = file_info.param.stem().string();
                           for (char& c : name) {
                             const bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                                               (c >= '0' && c <= '9');
                             if (!keep) c = '_';
                           }
                           return name;
                         });

TEST(Regressions, DirectoryHoldsTraces) {
  EXPECT_FALSE(regression_files().empty())
      << "no *.trace under " << props::regressions_dir().string();
}

// Replays the files named by CUCKOO_REPLAY_TRACE (separated by ':'); skipped when unset.
TEST(ReplayTraceFile, FromEnvironment) {
  const char* list = std::getenv("CUCKOO_REPLAY_TRACE");
  if (list == nullptr || *list == '\0') GTEST_SKIP() << "CUCKOO_REPLAY_TRACE is not set";
  std::string_view rest(list);
  while (!rest.empty()) {
    const std::size_t colon = rest.find(':');
    const std::string_view file = rest.substr(0, colon);
    if (!file.empty()) expect_replays_clean(fs::path(std::string(file)));
    rest = colon == std::string_view::npos ? std::string_view() : rest.substr(colon + 1);
  }
}

}  // namespace
