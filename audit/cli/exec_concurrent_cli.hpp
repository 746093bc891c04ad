// cuckoo-audit exec with concurrent sessions: the command's side (exec_concurrent_cli.cpp).
#pragma once

#include <iosfwd>
#include <string>

#include "cuckoo/audit/exec.hpp"
#include "cuckoo/audit/exec_concurrent.hpp"

namespace cuckoo::audit::cli {

// Runs a concurrent trace (`exec --replay FILE` of a file is_concurrent_trace accepts)
// `runs` times against the started session; prints how many runs failed and the first
// failure to `out`. Returns 0 (no run failed) or 1. Throws UsageError for a malformed
// trace, another kind, or more sessions than the subject declares.
int replay_concurrent_trace(ExecSession& session, const std::string& file, const std::string& text,
                            unsigned runs, std::ostream& out);

// "# keys as the subject saw them" lines for the keys of a concurrent trace's text.
std::string concurrent_key_legend(const std::string& trace_text, ExecKeys keys);

}  // namespace cuckoo::audit::cli
