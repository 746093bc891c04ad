// run_audit: the project's task list, run by run_tasks. Kept apart from the runner so
// that a program that brings its own tasks (an adapter audit, the runner's tests) links
// without the project's claim runners.
#include <utility>

#include "cuckoo/audit/audit.hpp"
#include "cuckoo/audit/runner.hpp"

namespace cuckoo::audit {

Report run_audit(const RunOptions& options) {
  TaskList tasks;
  add_model_claims(tasks, options.profile);
  add_statistical_claims(tasks, options.profile);
  add_concurrency_claims(tasks, options.profile);
  return run_tasks(std::move(tasks), options);
}

}  // namespace cuckoo::audit
