// cuckoo-audit exec with concurrent sessions: the command's side. See exec_concurrent_cli.hpp.
#include "exec_concurrent_cli.hpp"

#include <algorithm>
#include <cstdint>
#include <iostream>
#include <stdexcept>
#include <vector>

#include "cuckoo/audit/audit.hpp"

namespace cuckoo::audit::cli {

int replay_concurrent_trace(ExecSession& session, const std::string& file, const std::string& text,
                            unsigned runs, std::ostream& out) {
  ConcurrentTrace trace;
  try {
    trace = parse_concurrent_trace(text);
  } catch (const std::invalid_argument& e) {
    throw UsageError(file + ": " + e.what());
  }
  const ExecDeclarations& d = session.declarations();
  const std::string declared = d.kind == ImplementationKind::kExactSet ? "set" : "filter";
  if (trace.kind != declared) {
    throw UsageError(file + ": the trace is for a " + trace.kind + ", the subject declares a " + declared);
  }
  if (d.concurrent < trace.sessions.size()) {
    throw UsageError(file + ": the trace drives " + std::to_string(trace.sessions.size()) +
                     " concurrent sessions, the subject declares " +
                     (d.concurrent == 0 ? std::string("none (no concurrent=N)")
                                        : "concurrent=" + std::to_string(d.concurrent)));
  }
  if (trace.name != d.name) {
    std::cerr << "cuckoo-audit: warning: " << file << ": it was written for '" << trace.name
              << "', the subject declares name=" << d.name
              << "; replaying it anyway (a different subject may not reproduce the failure)\n"
              << std::flush;
  }
  const ConcurrentReplay replay = replay_exec_concurrent(session, trace, runs);
  const std::optional<std::string> note = session.close();
  if (note) std::cerr << "cuckoo-audit: note: " << *note << "\n";
  const std::string shape = std::to_string(trace.ops()) + " requests in " +
                            std::to_string(trace.sessions.size()) + " concurrent sessions";
  if (replay.failed == 0) {
    out << replay.runs << " runs of " << shape << ": every history linearizable\n"
        << "OK: " << trace.ops() << " ops, every claim held\n"
        << std::flush;
    return 0;
  }
  out << "VIOLATION of C10 (concurrent histories linearizable) in " << replay.failed << " of "
      << replay.runs << " runs of " << file << " (" << shape << ")\n"
      << describe_concurrent_failure(*replay.first_failure)
      << concurrent_key_legend(text, trace.keys) << std::flush;
  return 1;
}

std::string concurrent_key_legend(const std::string& trace_text, ExecKeys keys) {
  ConcurrentTrace trace;
  try {
    trace = parse_concurrent_trace(trace_text);
  } catch (const std::invalid_argument&) {
    return "";
  }
  std::vector<std::uint64_t> seen;
  for (const auto& session : trace.sessions) {
    for (const ConcurrentRequest& r : session) {
      if (subjects::kind_has_key(r.kind) && std::find(seen.begin(), seen.end(), r.key) == seen.end()) {
        seen.push_back(r.key);
      }
    }
  }
  std::sort(seen.begin(), seen.end());
  if (seen.empty()) return "";
  std::string legend = std::string("# keys as the subject saw them (--keys ") + to_string(keys) + "):\n";
  for (const std::uint64_t key : seen) {
    legend += "#   " + std::to_string(key) + " = " + describe_key(keys, key) + "\n";
  }
  return legend;
}

}  // namespace cuckoo::audit::cli
