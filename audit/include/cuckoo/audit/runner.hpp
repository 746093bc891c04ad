// Running a list of audit tasks: the part of run_audit (audit.hpp) that does not know
// which claims exist. run_audit builds the project's task list and calls run_tasks; an
// auditor of another implementation (adapter.hpp) or a test builds its own list and calls
// run_tasks directly.
//
//   cuckoo::audit::TaskList tasks;
//   tasks.push_back({"C1", "my-filter", "capacity=4096", /*cost=*/2, my_c1_runner});
//   cuckoo::audit::RunOptions options;
//   options.jobs = 4;
//   cuckoo::audit::Report report = cuckoo::audit::run_tasks(std::move(tasks), options,
//                                                           "my filter");
#pragma once

#include <string>

#include "cuckoo/audit/audit.hpp"
#include "cuckoo/audit/report.hpp"

namespace cuckoo::audit {

// Runs the tasks that options.claims and options.engines select (empty: all) on
// options.jobs worker threads, largest cost first, and returns the report.
//
// Selection: every name in options.claims must be a claim id of claim_catalog(); every
// name in options.engines must be one of kEngineNames or the engine of some task.
// Throws UsageError naming the bad name and listing the allowed ones, when options.jobs
// is 0, or when the selection leaves no task of a non-empty list (the message says
// which engines each selected claim applies to).
//
// Each task runs with TaskContext{task_seed(options.seed, claim, engine, configuration),
// options.profile, &options}. A task that throws yields one FAIL result whose summary is
// the exception's message; a task that returns no result yields one SKIP result saying
// so. Results the task leaves incomplete get the task's claim, engine and configuration,
// its seed, and its wall time.
//
// Report::results follow the order of `tasks` whatever the scheduling. Plots with the
// same id are merged in task order: the first gives title, labels and kind; series with
// the same name are joined (points appended), other series appended.
//
// options.on_progress, when set, is called once when each task starts and once when it
// finishes, never concurrently; fraction_done is by cost. An exception it throws stops
// the remaining tasks from starting and is rethrown once the running ones finish.
//
// The report's header: tool_version is the project version, subject as given, profile
// and seed from options, started_utc, seconds (wall time of the whole run), command.
Report run_tasks(TaskList tasks, const RunOptions& options,
                 const std::string& subject = "cuckoo engines");

}  // namespace cuckoo::audit
