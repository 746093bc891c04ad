// Concurrent black-box auditing of an exec subject (claim C10 through audit/PROTOCOL.md).
//
// A subject that declares `concurrent=M` in its handshake serves tagged requests
// (`@S insert x31`, answered `@S inserted`) for up to M client sessions at once, each on
// its own thread, against ONE shared instance, and answers them in any interleaving. The
// audit drives N <= M sessions at once over a few keys, records each round's history and
// checks it for linearizability with the subject layer's checker:
//
//   invocation stamp  taken just before the request line is queued for writing
//   response stamp    taken when the tagged answer line is read
//
// Both are steps of one logical clock of the (single-threaded) auditor, so "A's answer
// was read before B's request was written" is exactly "A precedes B": the auditor's
// interval of each operation contains the subject's, and a history the checker rejects
// is not linearizable however the subject scheduled its threads. Each session has at most
// one request outstanding (its answers are matched to it unambiguously by the tag), and
// every session has one outstanding most of the time.
//
// Specifications: a set is checked against the exact map specification (insert answers
// inserted iff absent, exists iff present; `full` only where it would have stored), a
// filter against the multiset specification with filter semantics (contains may answer
// yes falsely; `full` and `duplicate_limit` are always legal here: copy limits are C5's
// business). `size` is sent (tagged) only with size=exact, and held to the checker's
// size bounds.
//
// On a violation (or a crash, hang or protocol error during a round), the round's
// per-session request sequences are shrunk (fewer sessions, fewer requests) while the
// failure still appears in at least 2 of 6 runs of each candidate, and the final
// candidate is run again `reproduce_runs` times: the report says how often it failed.
// The counterexample is a concurrent trace (format below) that
// `cuckoo-audit exec --replay TRACE -- COMMAND` runs some number of times.
//
// Concurrent trace format (text; '#' starts a comment line):
//
//   cuckoo-audit-concurrent-trace 1 name=py.set kind=set sessions=2 keys=mixed
//   s0 insert 5
//   s1 insert 5
//   s1 contains 5
//
// The header names the subject, its kind, the number of sessions and the key encoding;
// each line `sI OP [KEY]` appends a request to session I's sequence (OP: insert,
// contains, erase, size; KEY: the trace key, encoded as --keys says).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cuckoo/audit/audit.hpp"
#include "cuckoo/audit/exec.hpp"
#include "cuckoo/audit/report.hpp"
#include "cuckoo/subjects/history.hpp"

namespace cuckoo::audit {

// The most sessions a subject may declare (concurrent=1..64) and the auditor drives.
inline constexpr unsigned kMaxExecSessions = 64;
// The first word of a concurrent trace.
inline constexpr std::string_view kConcurrentTraceWord = "cuckoo-audit-concurrent-trace";

// One request of a session.
struct ConcurrentRequest {
  subjects::OpKind kind = subjects::OpKind::kContains;  // insert, contains, erase, size
  std::uint64_t key = 0;                                // 0 and ignored for size
  friend bool operator==(const ConcurrentRequest&, const ConcurrentRequest&) = default;
};

struct ConcurrentTrace {
  std::string name = "exec.subject";
  std::string kind = "set";  // "set" or "filter"
  ExecKeys keys = ExecKeys::kMixed;
  std::vector<std::vector<ConcurrentRequest>> sessions;

  std::size_t ops() const;
};

// The text form (header, one line a request, session by session), then `comment` as
// '#' lines.
std::string format_concurrent_trace(const ConcurrentTrace& trace, std::string_view comment = {});
// Whether `text` is a concurrent trace (its first line that is not blank or a comment
// starts with kConcurrentTraceWord).
bool is_concurrent_trace(std::string_view text);
// Reads the text form. Throws std::invalid_argument "line N: ..." for anything else.
ConcurrentTrace parse_concurrent_trace(std::string_view text);

// What one round gave.
struct ConcurrentRun {
  subjects::History history;               // the completed operations, session = thread
  std::optional<SubjectError> error;       // the subject failed (crash, hang, bad answer)
  std::optional<std::string> violation;    // not linearizable: the checker's explanation
  subjects::History violation_ops;         // and the failing key's sub-history
  bool undecided = false;                  // too large for the checker
  bool overlapping = false;                // two ops on one key were open at once
  bool failed() const { return error.has_value() || violation.has_value(); }
};

// Runs one round of `trace` against the session's subject (`new`, then the tagged
// requests) and checks the history. The session must be started and its subject must
// declare concurrent=M with M >= trace.sessions.size().
ConcurrentRun run_concurrent_round(ExecSession& session, const ConcurrentTrace& trace);

struct ConcurrentAuditOptions {
  unsigned sessions = 0;            // 0: min(declared, 4)
  Profile profile = Profile::kQuick;
  std::uint64_t seed = 20261121;
  std::size_t rounds = 0;           // 0: by profile (quick 60, standard 600, full 6000)
  std::size_t ops_per_session = 0;  // 0: about 96 / sessions, at least 4
  unsigned keys = 3;                // distinct keys of a round
  unsigned shrink_runs = 6;         // runs of each shrinking candidate
  unsigned shrink_failures = 2;     // of which this many must fail for it to be taken: a
                                    // candidate that fails rarely makes a poor counterexample
  unsigned reproduce_runs = 20;     // runs of the shrunk trace, reported
  double max_shrink_seconds = 30;
  std::function<void(const std::string& step)> on_step;
};

// The C10 row for an exec subject. A subject that declares no concurrent=M gives a SKIP
// row. The counterexample (when it fails) has the concurrent trace as `trace`, its file
// name `counterexamples/C10-NAME-SEED.trace` as `trace_file` (not written: the caller
// writes it with the replay command) and the failing history in `explanation`.
ClaimResult audit_exec_concurrent(ExecSession& session, const ConcurrentAuditOptions& options);

struct ConcurrentReplay {
  unsigned runs = 0;
  unsigned failed = 0;
  std::optional<ConcurrentRun> first_failure;
};

// Runs `trace` `runs` times (each after `new`).
ConcurrentReplay replay_exec_concurrent(ExecSession& session, const ConcurrentTrace& trace,
                                        unsigned runs);

// The failure of a run as text: the subject's error, or the checker's explanation and
// the failing sub-history (trace keys as numbers, thread tI = session I, stamps of the
// auditor's logical clock).
std::string describe_concurrent_failure(const ConcurrentRun& run);

}  // namespace cuckoo::audit
