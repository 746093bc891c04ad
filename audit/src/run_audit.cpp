// run_audit: the project's task list, run by run_tasks. Kept apart from the runner so
// that a program that brings its own tasks (an adapter audit, the runner's tests) links
// without the project's claim runners.
#include <algorithm>
#include <string>
#include <utility>

#include "cuckoo/audit/audit.hpp"
#include "cuckoo/audit/runner.hpp"

namespace cuckoo::audit {

Report run_audit(const RunOptions& options) {
  TaskList tasks;
  add_model_claims(tasks, options.profile);
  add_statistical_claims(tasks, options.profile);
  add_concurrency_claims(tasks, options.profile);
  // Report order: by claim number (C2 before C10), each family's own order within a claim.
  const auto claim_number = [](const std::string& id) {
    return id.size() > 1 ? std::stoi(id.substr(1)) : 0;
  };
  std::stable_sort(tasks.begin(), tasks.end(), [&](const Task& a, const Task& b) {
    return claim_number(a.claim) < claim_number(b.claim);
  });
  return run_tasks(std::move(tasks), options);
}

}  // namespace cuckoo::audit
