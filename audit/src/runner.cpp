// The runner: selects tasks, runs them on worker threads, and assembles the report.
//
// Scheduling: the selected tasks are ordered by estimated cost, largest first (longest
// processing time first keeps the last worker from starting a big task when the others
// are idle), and handed out through one atomic cursor. Each task writes only its own
// slot of `outputs`, so the workers share nothing but the cursor and the progress lock;
// the report is assembled from the slots in task-list order after every worker joined,
// which makes it independent of the scheduling.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <ctime>
#include <exception>
#include <functional>
#include <mutex>
#include <numeric>
#include <string>
#include <string_view>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#include "cuckoo/audit/audit.hpp"
#include "cuckoo/audit/runner.hpp"

#ifndef CUCKOO_VERSION
#define CUCKOO_VERSION "unknown"
#endif

namespace cuckoo::audit {

namespace {

using Clock = std::chrono::steady_clock;

// More worker threads than this cannot be meant (and would each cost a stack).
constexpr unsigned kMaxJobs = 1024;

std::string join(const std::vector<std::string>& names, std::string_view separator) {
  std::string out;
  for (const std::string& name : names) {
    if (!out.empty()) out += separator;
    out += name;
  }
  return out;
}

bool contains_name(const std::vector<std::string>& names, std::string_view name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

std::vector<std::string> catalog_ids() {
  std::vector<std::string> ids;
  for (const ClaimInfo& info : claim_catalog()) ids.push_back(info.id);
  return ids;
}

// kEngineNames, then the engines of the tasks that are not among them (user subjects).
std::vector<std::string> known_engines(const TaskList& tasks) {
  std::vector<std::string> names(std::begin(kEngineNames), std::end(kEngineNames));
  for (const Task& task : tasks) {
    if (!contains_name(names, task.engine)) names.push_back(task.engine);
  }
  return names;
}

void validate_names(const RunOptions& options, const TaskList& tasks) {
  const std::vector<std::string> claims = catalog_ids();
  for (const std::string& claim : options.claims) {
    if (!contains_name(claims, claim)) {
      throw UsageError("unknown claim '" + claim + "' (expected one of " + join(claims, ", ") +
                       ")");
    }
  }
  const std::vector<std::string> engines = known_engines(tasks);
  for (const std::string& engine : options.engines) {
    if (!contains_name(engines, engine)) {
      throw UsageError("unknown engine '" + engine + "' (expected one of " +
                       join(engines, ", ") + ")");
    }
  }
  if (options.jobs == 0 || options.jobs > kMaxJobs) {
    throw UsageError("jobs: " + std::to_string(options.jobs) + " is outside [1, " +
                     std::to_string(kMaxJobs) + "]");
  }
}

bool selected(const Task& task, const RunOptions& options) {
  return (options.claims.empty() || contains_name(options.claims, task.claim)) &&
         (options.engines.empty() || contains_name(options.engines, task.engine));
}

// The message for a selection that matched nothing: which engines each claim covers.
std::string empty_selection_message(const RunOptions& options, const TaskList& tasks) {
  std::string message = "no task matches";
  if (!options.claims.empty()) message += " claims " + join(options.claims, ",");
  if (!options.engines.empty()) message += " on engines " + join(options.engines, ",");
  std::vector<std::string> lines;
  for (const std::string& claim : options.claims) {
    std::vector<std::string> engines;
    for (const Task& task : tasks) {
      if (task.claim == claim && !contains_name(engines, task.engine)) {
        engines.push_back(task.engine);
      }
    }
    lines.push_back(engines.empty() ? claim + " has no task in this run"
                                    : claim + " applies to " + join(engines, ", "));
  }
  if (!lines.empty()) message += " (" + join(lines, "; ") + ")";
  return message;
}

std::string utc_now_iso8601() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  const std::size_t n = std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return std::string(text, n);
}

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// The worst verdict of a task's results: FAIL over PASS over SKIP.
Verdict overall(const std::vector<ClaimResult>& results) {
  Verdict v = Verdict::kSkipped;
  for (const ClaimResult& r : results) {
    if (r.verdict == Verdict::kFail) return Verdict::kFail;
    if (r.verdict == Verdict::kPass) v = Verdict::kPass;
  }
  return v;
}

ClaimResult result_of(const Task& task, std::uint64_t seed, Verdict verdict, std::string summary) {
  ClaimResult r;
  r.claim = task.claim;
  r.engine = task.engine;
  r.configuration = task.configuration;
  r.verdict = verdict;
  r.summary = std::move(summary);
  r.seed = seed;
  return r;
}

// Runs one task, turning an exception or an empty answer into a result, and fills what
// the task left blank.
TaskOutput run_one(const Task& task, const TaskContext& context) {
  const Clock::time_point start = Clock::now();
  TaskOutput output;
  try {
    if (!task.run) throw std::logic_error("the task has no runner");
    output = task.run(context);
  } catch (const std::exception& e) {
    output = TaskOutput{};
    output.results.push_back(result_of(task, context.seed, Verdict::kFail,
                                       std::string("the check threw: ") + e.what()));
  } catch (...) {
    output = TaskOutput{};
    output.results.push_back(result_of(task, context.seed, Verdict::kFail,
                                       "the check threw an exception of unknown type"));
  }
  if (output.results.empty()) {
    output.results.push_back(
        result_of(task, context.seed, Verdict::kSkipped, "the check reported no result"));
  }
  const double seconds = seconds_since(start);
  for (ClaimResult& r : output.results) {
    if (r.claim.empty()) r.claim = task.claim;
    if (r.engine.empty()) r.engine = task.engine;
    if (r.configuration.empty()) r.configuration = task.configuration;
    if (r.seed == 0) r.seed = context.seed;
    if (r.seconds == 0) r.seconds = seconds / static_cast<double>(output.results.size());
  }
  return output;
}

void merge_plot(std::vector<Plot>& plots, Plot plot) {
  auto same_id = [&](const Plot& p) { return p.id == plot.id; };
  const auto existing = std::find_if(plots.begin(), plots.end(), same_id);
  if (existing == plots.end()) {
    plots.push_back(std::move(plot));
    return;
  }
  for (PlotSeries& series : plot.series) {
    auto same_name = [&](const PlotSeries& s) { return s.name == series.name; };
    const auto match = std::find_if(existing->series.begin(), existing->series.end(), same_name);
    if (match == existing->series.end()) {
      existing->series.push_back(std::move(series));
    } else {
      match->points.insert(match->points.end(), series.points.begin(), series.points.end());
    }
  }
}

// Progress bookkeeping shared by the workers; every member is guarded by `lock`.
class ProgressState {
 public:
  ProgressState(const RunOptions& options, const TaskList& tasks, Clock::time_point start)
      : options_(options), start_(start), total_tasks_(tasks.size()) {
    for (const Task& task : tasks) total_cost_ += std::max(task.cost, 0.0);
  }

  // False once a progress callback has thrown: no more tasks should start.
  bool healthy() {
    const std::lock_guard<std::mutex> guard(lock_);
    return !error_;
  }

  void started(const Task& task) { report(task, false, Verdict::kSkipped); }

  void finished(const Task& task, Verdict verdict) {
    {
      const std::lock_guard<std::mutex> guard(lock_);
      ++done_tasks_;
      done_cost_ += std::max(task.cost, 0.0);
    }
    report(task, true, verdict);
  }

  void rethrow_if_failed() {
    if (error_) std::rethrow_exception(error_);
  }

 private:
  void report(const Task& task, bool finished, Verdict verdict) {
    if (!options_.on_progress) return;
    const std::lock_guard<std::mutex> guard(lock_);
    if (error_) return;
    Progress p;
    p.claim = task.claim;
    p.engine = task.engine;
    p.configuration = task.configuration;
    p.finished = finished;
    p.verdict = verdict;
    p.tasks_done = done_tasks_;
    p.tasks_total = total_tasks_;
    if (total_cost_ > 0) {
      p.fraction_done = std::min(1.0, done_cost_ / total_cost_);
    } else if (total_tasks_ > 0) {
      p.fraction_done = static_cast<double>(done_tasks_) / static_cast<double>(total_tasks_);
    }
    p.seconds_elapsed = seconds_since(start_);
    // The rate so far, by cost: elapsed / done * remaining. Nothing to go by before the
    // first task finishes.
    if (p.fraction_done > 0) {
      p.seconds_left = p.seconds_elapsed * (1.0 - p.fraction_done) / p.fraction_done;
    }
    try {
      options_.on_progress(p);
    } catch (...) {
      error_ = std::current_exception();
    }
  }

  const RunOptions& options_;
  const Clock::time_point start_;
  std::mutex lock_;
  std::exception_ptr error_;
  std::size_t total_tasks_ = 0;
  std::size_t done_tasks_ = 0;
  double total_cost_ = 0;
  double done_cost_ = 0;
};

}  // namespace

Report run_tasks(TaskList tasks, const RunOptions& options, const std::string& subject) {
  validate_names(options, tasks);

  TaskList chosen;
  for (Task& task : tasks) {
    if (selected(task, options)) chosen.push_back(std::move(task));
  }
  if (chosen.empty() && !tasks.empty()) {
    throw UsageError(empty_selection_message(options, tasks));
  }

  Report report;
  report.tool_version = CUCKOO_VERSION;
  report.subject = subject;
  report.profile = to_string(options.profile);
  report.seed = options.seed;
  report.started_utc = utc_now_iso8601();
  report.command = options.command;
  const Clock::time_point start = Clock::now();

  // Largest cost first; equal costs keep list order.
  std::vector<std::size_t> order(chosen.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return chosen[a].cost > chosen[b].cost;
  });

  std::vector<TaskOutput> outputs(chosen.size());
  ProgressState progress(options, chosen, start);
  std::atomic<std::size_t> cursor{0};
  auto worker = [&] {
    // Bound: each iteration claims a distinct index below chosen.size().
    for (;;) {
      const std::size_t k = cursor.fetch_add(1, std::memory_order_relaxed);
      if (k >= order.size() || !progress.healthy()) return;
      const Task& task = chosen[order[k]];
      TaskContext context;
      context.seed = task_seed(options.seed, task.claim, task.engine, task.configuration);
      context.profile = options.profile;
      context.options = &options;
      progress.started(task);
      if (!progress.healthy()) return;
      outputs[order[k]] = run_one(task, context);
      progress.finished(task, overall(outputs[order[k]].results));
    }
  };

  // The calling thread is one of the workers. If the system refuses a thread, the
  // ones that started (at least this one) take its share.
  const std::size_t threads = std::min<std::size_t>(options.jobs, chosen.size());
  std::vector<std::thread> pool;
  try {
    for (std::size_t i = 1; i < threads; ++i) pool.emplace_back(worker);
  } catch (const std::system_error&) {
  }
  worker();
  for (std::thread& t : pool) t.join();
  progress.rethrow_if_failed();

  for (TaskOutput& output : outputs) {
    for (ClaimResult& r : output.results) report.results.push_back(std::move(r));
    for (Plot& plot : output.plots) merge_plot(report.plots, std::move(plot));
  }
  report.seconds = seconds_since(start);
  return report;
}

}  // namespace cuckoo::audit
