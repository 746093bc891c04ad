// Running the claims C1..C12 (DESIGN.md section 4) on the project's engines.
//
//   cuckoo::audit::RunOptions options;
//   options.profile = cuckoo::audit::Profile::kQuick;
//   options.out_dir = "build/audit";
//   cuckoo::audit::Report report = cuckoo::audit::run_audit(options);
//   cuckoo::audit::write_reports(report, options.out_dir);   // report_writers.hpp
//
// A run is a list of tasks, one per (claim, engine, configuration); each task is
// seeded from the run's seed, the claim id, the engine and the configuration, so one task
// reproduces without the others (`--claims C2 --engines filter --seed S`). Tasks run on
// `jobs` threads; results come back in a fixed order whatever the scheduling.
//
// To audit another implementation, see adapter.hpp.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "cuckoo/audit/report.hpp"

namespace cuckoo::audit {

// Bad usage: an unknown claim or engine, an impossible option. The message says what
// was wrong and what is allowed. cuckoo-audit exits with status 2 on it.
class UsageError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// quick: under 3 minutes on 2 cores (the README's main command); standard: under 20
// minutes; full: the nightly lane. Each claim scales its sample sizes by profile.
enum class Profile { kQuick, kStandard, kFull };

const char* to_string(Profile p) noexcept;
Profile profile_from_string(std::string_view name);  // throws UsageError

// The engines the auditor knows, in report order.
inline constexpr std::string_view kEngineNames[] = {
    "filter", "map", "classic", "smart", "bloom", "concurrent-filter", "concurrent-map",
    "growing-filter"};

struct ClaimInfo {
  std::string id;       // "C1"
  std::string title;    // "no false negatives"
  std::string checks;   // what the audit does to check it, one or two sentences
  std::vector<std::string> engines;  // the engines it applies to
};

// The claims, C1..C12 in order.
const std::vector<ClaimInfo>& claim_catalog();

struct Progress {
  std::string claim;        // the task that just started or finished
  std::string engine;
  std::string configuration;
  bool finished = false;    // false: started; true: finished (verdict is set)
  Verdict verdict = Verdict::kSkipped;
  std::size_t tasks_done = 0;
  std::size_t tasks_total = 0;
  double fraction_done = 0;   // by estimated cost, 0..1
  double seconds_elapsed = 0;
  double seconds_left = 0;    // estimate
};

struct RunOptions {
  std::vector<std::string> claims;   // empty: all claims
  std::vector<std::string> engines;  // empty: all engines
  Profile profile = Profile::kQuick;
  std::uint64_t seed = 20261121;     // the master seed
  unsigned jobs = 1;                 // worker threads
  // Where counterexample traces go (out_dir/counterexamples/<claim>-<engine>-<n>.trace);
  // empty: they are kept in the report only.
  std::filesystem::path out_dir;
  std::string command;               // recorded in the report
  // Called from worker threads, serialized by the runner (never concurrently).
  std::function<void(const Progress&)> on_progress;
};

// ---- the task list (claim runners register here) ----

// What a task gets: its own seed and the run's options.
struct TaskContext {
  std::uint64_t seed = 0;
  Profile profile = Profile::kQuick;
  const RunOptions* options = nullptr;
  // Writes a counterexample trace under options->out_dir and fills trace_file and
  // replay_command; a no-op for the file when out_dir is empty.
  void save_counterexample(Counterexample& cx, const std::string& claim,
                           const std::string& engine) const;
};

struct TaskOutput {
  std::vector<ClaimResult> results;
  // Plots or parts of plots: series of plots with the same id are merged in task order
  // (the first task to name a plot gives its title and labels).
  std::vector<Plot> plots;
};

struct Task {
  std::string claim;
  std::string engine;
  std::string configuration;
  double cost = 1;   // estimated relative cost, for progress and scheduling
  std::function<TaskOutput(const TaskContext&)> run;
};

using TaskList = std::vector<Task>;

// Each claim family adds its tasks for a profile (the runner filters by claim and engine
// afterwards). Defined in audit/src/claims_*.cpp.
void add_model_claims(TaskList& tasks, Profile profile);        // C1 C5 C6 C7 C8 C11
void add_statistical_claims(TaskList& tasks, Profile profile);  // C2 C3 C4 C9 C12
void add_concurrency_claims(TaskList& tasks, Profile profile);  // C10

// The seed of one task, from the master seed and the task's names.
std::uint64_t task_seed(std::uint64_t master, std::string_view claim, std::string_view engine,
                        std::string_view configuration) noexcept;

// Runs the selected claims. Throws UsageError for an unknown claim or engine name.
// A task that throws is a FAIL of its claim with the exception's message as summary.
Report run_audit(const RunOptions& options);

}  // namespace cuckoo::audit
