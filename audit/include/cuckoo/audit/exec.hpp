// Auditing a program in any language: `cuckoo-audit exec -- COMMAND [ARGS...]` starts the
// program and drives the structure it serves through the line protocol of
// audit/PROTOCOL.md (version 1). The claims are the adapter audit's (adapter.hpp: C1, C2,
// C5, C6, C7), run by the same engine; this header provides the process transport, the
// declarations, the key encodings and the adapter that audit_implementation drives.
//
//   cuckoo::audit::ExecOptions options;
//   options.command = {"python3", "my_filter.py"};
//   cuckoo::audit::ExecSession session(options);
//   session.start();                            // spawn + handshake; SubjectError on failure
//   cuckoo::audit::Report report = cuckoo::audit::audit_exec(session, audit_options);
//   session.close();
//
// Failures of the subject (it exits or crashes, hangs past the timeout, prints a line
// that is not a valid response to its request, answers `error ...`, answers differently
// when a trace is run again) are SubjectError exceptions, with the last 4 KiB of the
// subject's stderr. Thrown by the adapter during a trace, they become violations of
// that trace (the checker's "exception"), shrunk and reported as FAIL like any other;
// the process is restarted for the next trace when it died. A death or hang while several
// pipelined requests were unanswered is located first: the requests from the first
// unanswered one on are sent again one at a time (see ExecSubject::unlocated_), so the
// violation names the request that killed the subject, not merely the first one whose
// answer was lost.
//
// Pipelining (ExecSubject::prepare): before a trace is checked, the adapter sends all of
// its requests at once (`new`, each op, and a `size` after every insert, erase and clear,
// which the checker asks for; no `size` at all, not even a trace's own, when the subject
// declared size=absent or the trace says size_checks=off), reads the responses as they
// come, and then answers the
// checker's calls from the recording, verifying that each call is the one recorded next.
// When the checker asks for something not recorded (after an insert answered `full` it
// looks up every stored key), the adapter starts the instance again (`new`, the ops the
// checker has consumed, whose answers must repeat), sends those lookups and the rest of
// the trace (with the lookups after every later `full` that the first recording shows),
// and goes on from the new recording. Any other call outside the recording falls back to
// one request at a time.
//
// Not thread-safe: one session drives one subject process from one thread.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "cuckoo/audit/adapter.hpp"
#include "cuckoo/audit/report.hpp"
#include "cuckoo/model/insert_result.hpp"
#include "cuckoo/model/multiset_model.hpp"
#include "cuckoo/model/trace.hpp"
#include "cuckoo/model/violation.hpp"

namespace cuckoo::audit {

// The protocol version this auditor speaks.
inline constexpr int kExecProtocolVersion = 1;
// The handshake's first word.
inline constexpr std::string_view kExecHandshakeWord = "cuckoo-audit-subject";
// Bytes of the subject's stderr kept for messages.
inline constexpr std::size_t kStderrTailBytes = 4096;
// The least time a subject gets to print its handshake, whatever --timeout says.
inline constexpr double kMinHandshakeSeconds = 10;
// Longest line the subject may write (PROTOCOL.md), without its "\n".
inline constexpr std::size_t kMaxProtocolLine = 65536;

// ---- failures of the subject -------------------------------------------------------

enum class SubjectFailure {
  kStart,             // the command could not be started
  kHandshake,         // no handshake, a malformed one, an unsupported version
  kExited,            // the process exited before answering
  kSignaled,          // the process was killed by a signal before answering
  kClosedOutput,      // it closed its stdout but kept running
  kTimeout,           // no response within the timeout
  kGarbage,           // a line that is not printable ASCII, or too long
  kInvalidResponse,   // a line that is not a valid response to its request
  kErrorResponse,     // it answered `error TEXT`
  kUnsolicited,       // output with no request outstanding
  kNondeterministic,  // the same requests after `new` got different answers
};

const char* to_string(SubjectFailure failure) noexcept;

class SubjectError : public std::runtime_error {
 public:
  // what(): "subject: " + message, then the end of the stderr tail on one line.
  SubjectError(SubjectFailure failure, std::string message, std::string stderr_tail = "");

  SubjectFailure failure() const noexcept { return failure_; }
  const std::string& message() const noexcept { return message_; }
  // The last kStderrTailBytes bytes the subject wrote to stderr (may be empty).
  const std::string& stderr_tail() const noexcept { return stderr_tail_; }
  // A failure to start or to shake hands: bad usage when it happens at the first start.
  bool is_startup() const noexcept {
    return failure_ == SubjectFailure::kStart || failure_ == SubjectFailure::kHandshake;
  }

 private:
  SubjectFailure failure_;
  std::string message_;
  std::string stderr_tail_;
};

// ---- declarations ----------------------------------------------------------------------

// What `size` answers (size=exact|approximate|absent): the adapter's SizeMode.
using ExecSizeMode = SizeMode;

// What the subject declares in its handshake (PROTOCOL.md's table), possibly overridden
// by a claims file.
struct ExecDeclarations {
  bool kind_given = false;
  ImplementationKind kind = ImplementationKind::kApproximateFilter;
  std::string name = "exec.subject";
  std::uint64_t capacity = 0;            // 0: unknown
  double fpr = 0;                        // 0: derived / unknown
  unsigned fingerprint_bits = 0;         // 0: unknown
  unsigned slots_per_bucket = 0;         // 0: unknown
  std::uint64_t max_copies = 0;          // 0: default; model::MultisetModel::kNoCopyLimit: none
  bool deletes = true;
  ExecSizeMode size = ExecSizeMode::kExact;
  bool clear = true;
  // concurrent=M: tagged requests of up to M sessions at once (exec_concurrent.hpp); 0: none.
  unsigned concurrent = 0;
  // The declarations in the order given (later ones replace earlier ones in place).
  std::vector<std::pair<std::string, std::string>> entries;

  // Validates and applies one declaration. Throws std::invalid_argument naming the key,
  // the value and what is allowed (an unknown key too).
  void set(std::string_view key, std::string_view value);
  // "kind=filter name=x capacity=1000 ..." in the order given.
  std::string text() const;
};

// Parses the handshake line ("cuckoo-audit-subject 1 kind=filter ..."). Throws
// SubjectError(kHandshake) naming the problem and quoting the line. A missing kind is an
// error. A declaration may appear at most once.
ExecDeclarations parse_handshake(std::string_view line);

// Applies a claims file: key=value lines, blank lines and "#" comments; each key at most
// once in the file; its values replace the handshake's. Throws UsageError "FILE:LINE: ...".
void apply_claims_file(ExecDeclarations& declarations, std::string_view text,
                       const std::string& file_name);

// ---- keys --------------------------------------------------------------------------------

// How the auditor's 64-bit trace keys become the byte strings the subject sees. Every
// encoding is injective and deterministic, so a trace replays with the same bytes.
//   mixed    per key a family chosen by a hash of key / 4 (so keys 4k..4k+3 share one):
//            decimal strings, short lowercase words, long words (65..124 bytes), URL-like
//            strings, binary with zero bytes, 56-byte keys that differ only in their last
//            bytes, 33-byte keys whose neighbours differ in one bit (Gray code), and rarely
//            very long keys (1..4 KiB); key 0 is the empty key. Lookups and erases of
//            one key in four spell its hex digits in upper case (inserts never do), so
//            a subject must decode the hex rather than key on its text
//   u64le    the 8 bytes of the key, little-endian
//   decimal  the key in decimal
enum class ExecKeys { kMixed, kU64le, kDecimal };

const char* to_string(ExecKeys keys) noexcept;
ExecKeys exec_keys_from_string(std::string_view name);  // throws UsageError
// The bytes of `key` under `keys`.
std::string encode_key(ExecKeys keys, std::uint64_t key);
// The protocol form of a byte string: "x" and two lowercase hex digits a byte.
std::string protocol_key(std::string_view bytes);
// For legends in reports: the protocol form, shortened past 40 bytes ("x6162... (1500
// bytes)"), noting when lookups and erases spell it in upper case.
std::string describe_key(ExecKeys keys, std::uint64_t key);

// ---- the session ---------------------------------------------------------------------------

struct ExecOptions {
  std::vector<std::string> command;  // COMMAND ARGS...; COMMAND is looked up in PATH
  double timeout_seconds = 10;       // per response
  // For the handshake (program start-up: an interpreter's imports, a JIT); 0: the larger
  // of timeout_seconds and kMinHandshakeSeconds.
  double handshake_timeout_seconds = 0;
  ExecKeys keys = ExecKeys::kMixed;
  // A claims file's text and name (for messages); applied after the handshake when set.
  std::optional<std::string> claims_file_text;
  std::string claims_file_name;
  // The bytes to send for a trace key instead of encode_key(keys, key): a replay reads
  // them back from the counterexample file's key legend (read_key_legend), so the file,
  // not this build's encoding, says what the subject is sent.
  std::map<std::uint64_t, std::string> key_bytes;
};

struct ExecStats {
  std::uint64_t requests = 0;   // lines sent
  std::uint64_t responses = 0;  // lines received
  std::uint64_t starts = 0;     // processes started (1 + restarts)
  std::uint64_t resyncs = 0;    // instances started again to ask what was not recorded
  double exchange_seconds = 0;  // wall time spent exchanging with the subject
};

class SubjectProcess;  // exec_subject.cpp
class ExecSubject;

namespace exec_detail {

enum class Req : std::uint8_t { kNew, kInsert, kContains, kErase, kSize, kClear, kClose };
enum class Resp : std::uint8_t {
  kNone, kOk, kInserted, kExists, kFull, kDuplicateLimit, kYes, kNo, kNumber, kUnknown, kBye,
  kError,
};
enum class Role : std::uint8_t {
  kOp,      // a trace op the caller will perform (`op` is its index)
  kExtra,   // asked ahead for the checker (a size, a lookup after `full`): may be skipped
  kReplay,  // re-establishes the consumed state after `new`; its answer must repeat
  kOther,   // `new`, `close`, a synchronous call
  kLocal,   // like kExtra, but not sent: answered by the adapter (unused since sizes that are
            // not asked are left out of the plan)
};

struct Slot {
  Req req = Req::kNew;
  Role role = Role::kOther;
  Resp resp = Resp::kNone;
  std::uint32_t op = 0;
  std::uint64_t key = 0;
  std::uint64_t number = 0;  // kNumber: the size; kReplay: the expected Resp
};

// Where an exchange stopped.
struct ExchangeFailure {
  std::size_t index;  // the first slot without a valid response
  SubjectError error;
};

}  // namespace exec_detail

class ExecSession {
 public:
  explicit ExecSession(ExecOptions options);
  ~ExecSession();  // stops the subject (SIGTERM, then SIGKILL) and reaps it
  ExecSession(const ExecSession&) = delete;
  ExecSession& operator=(const ExecSession&) = delete;

  // Starts the subject, reads and parses its handshake, applies the claims file. Throws
  // SubjectError (kStart, kHandshake: bad usage) or UsageError (the claims file).
  void start();
  const ExecDeclarations& declarations() const { return declarations_; }
  // The traits audit_implementation needs (name, kind, capacity, f, b, copy limit, rate,
  // size mode, erase and clear support; the key encoding in notes; keys=FAMILY as a
  // trace parameter).
  ImplementationTraits traits() const;
  const ExecOptions& options() const { return options_; }
  const ExecStats& stats() const { return stats_; }
  // The handshake line as received (from the first start).
  const std::string& handshake() const { return handshake_; }
  // A fresh instance for one trace: the factory of audit_implementation.
  ExecSubject instance();
  // Sends `close`, expects `bye` and a clean exit. Returns what went wrong, if anything
  // (the audit's verdicts stand either way).
  std::optional<std::string> close();
  // The running subject's pid, or -1.
  pid_t pid() const;

  // ---- for ExecSubject ----
  // Sends slots[begin..] in one pipelined batch and fills their responses (error texts go
  // to `error_texts` by index). Starts the subject first when none is running and
  // slots[begin] is `new`. Returns where and why it stopped, or nothing when every slot
  // was answered. Counts a `new` as a new generation.
  std::optional<exec_detail::ExchangeFailure> exchange(std::vector<exec_detail::Slot>& slots,
                                                       std::size_t begin,
                                                       std::map<std::size_t, std::string>& error_texts);
  std::uint64_t generation() const { return generation_; }
  // The request line for a slot, shortened for messages ("insert x3132 [trace key 5]").
  std::string describe_request(const exec_detail::Slot& slot);
  // The last kStderrTailBytes of the running subject's stderr.
  std::string stderr_tail() const;
  void count_resync();

  // ---- for the concurrent audit (exec_concurrent.cpp) ----
  // One step of free-form line I/O with the running subject: writes what the pipe takes
  // of `out` (erasing that from `out`), waits at most `wait_ms` for output and appends
  // the complete lines read (without "\r\n") to `lines`. Returns the subject's failure
  // (not running, exited, closed its output, wrote a line too long or not printable
  // ASCII); the process is stopped then.
  std::optional<SubjectError> pump_lines(std::string& out, std::vector<std::string>& lines,
                                         int wait_ms);
  // Stops the running subject after a failure the caller found (a timeout); an exchange
  // that starts with `new` starts it again.
  void stop_subject(const SubjectError& why);

 private:
  void spawn();  // starts a process and checks its handshake against the first one
  void append_request(std::string& out, const exec_detail::Slot& slot);
  std::string request_line(const exec_detail::Slot& slot);

  ExecOptions options_;
  ExecDeclarations declarations_;
  std::string handshake_;
  std::unique_ptr<SubjectProcess> process_;
  // Why the last process ended, when it ended on its own (for the next exchange's message).
  std::optional<SubjectError> death_;
  ExecStats stats_;
  std::uint64_t generation_ = 0;
  std::unordered_map<std::uint64_t, std::string> hex_cache_;  // long keys' protocol form
};

// The adapter audit_implementation drives: one instance of the subject's structure (one
// `new`). Movable; instances of one session must not be used concurrently. Every call
// throws SubjectError when the subject fails.
class ExecSubject {
 public:
  explicit ExecSubject(ExecSession& session);

  model::InsertResult insert(std::uint64_t key);
  bool contains(std::uint64_t key);
  bool erase(std::uint64_t key);
  // The subject's answer (a number: `unknown` throws SubjectError); with size=absent, or a
  // prepared trace that says size_checks=off, the consumed state's size, not asked.
  std::uint64_t size();
  void clear();
  // The pipelining hook (adapter.hpp): the ops about to be performed, in order.
  void prepare(const model::Trace& trace);

 private:
  using Slot = exec_detail::Slot;
  using Req = exec_detail::Req;
  using Resp = exec_detail::Resp;

  Slot call(Req req, std::uint64_t key);
  Slot sync_call(Req req, std::uint64_t key);
  // Applies an answered slot to the consumed state (the shadow model, the history);
  // throws SubjectError for `error`.
  Slot consume(const Slot& slot, const std::string* error_text);
  // Runs `slots` as the new recording; the first `prefix` slots (`new`, replays) are
  // consumed at once, their failures thrown by the next call.
  void load(std::vector<Slot> slots, std::size_t prefix);
  // A new recording: `new`, the consumed mutating ops again, `lookups`, then the prepared
  // ops from `from` (with lookups after each `full` the current recording shows).
  void restart(std::size_t from, const std::vector<std::uint64_t>& lookups);
  void push_restart_prefix(std::vector<Slot>& slots) const;
  void append_plan(std::vector<Slot>& slots, std::size_t from, bool predict) const;
  std::optional<exec_detail::ExchangeFailure> replay_mismatch(const std::vector<Slot>& slots,
                                                              std::size_t prefix);
  bool ahead() const;  // the subject has performed ops the caller has not consumed

  ExecSession* session_;
  std::uint64_t generation_ = 0;  // the session generation of this instance's last `new`
  bool started_ = false;
  bool sync_ = false;              // one request at a time
  bool needs_new_ = false;         // the subject's state is not the consumed state
  std::vector<model::Op> ops_;     // the prepared ops
  std::vector<Slot> rec_;          // the recording
  std::size_t cursor_ = 0;         // the next slot to consume
  std::optional<exec_detail::ExchangeFailure> failure_;  // where rec_ stops
  std::map<std::size_t, std::string> error_texts_;
  std::size_t next_op_ = 0;        // the next prepared op expected
  bool after_full_ = false;        // the last consumed op was an insert answered `full`
  bool ask_sizes_ = true;          // `size` is sent (not size=absent, not size_checks=off)
  std::size_t lookups_at_ = std::numeric_limits<std::size_t>::max();  // next_op_ of the last restart for lookups
  std::vector<Slot> history_;      // consumed mutating requests, with their answers
  model::MultisetModel shadow_;    // the consumed state (what the checker's model holds)
  // A death or hang in a pipelined batch with several requests unanswered: the first
  // unanswered one need not be the culprit (a crash loses the answers still buffered), so
  // the recording stops there and the rest runs one request at a time, which finds the
  // request that fails. When none does, the error is thrown at the last op of the batch.
  std::optional<SubjectError> unlocated_;
  std::vector<std::pair<Req, std::uint64_t>> unlocated_ops_;  // the batch's unanswered ops
  std::size_t unlocated_next_ = 0;                            // those answered since
};

// Installs handlers for SIGINT, SIGTERM, SIGHUP and SIGQUIT (those not ignored) that kill
// the process group of every subject running (SIGKILL) and then end the program by the
// same signal, so that no subject outlives an interrupted auditor. The CLI calls it; a
// program that handles these signals itself should stop its sessions instead.
void stop_subjects_on_fatal_signals();

// The auditor itself ran out of memory during an exec audit or replay. The subject runs
// in its own process, so an allocation failure in the auditor's is a limit of the
// auditor (its traces, models and recordings did not fit), never a finding about the
// subject: the audit stops with this error rather than report one.
class AuditorResourceError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The adapter audit on the session's subject (the session must be started). The report's
// subject shows the declarations; configuration texts show them too. Throws
// AuditorResourceError when an allocation of the auditor failed during the audit, even
// one that the checks caught (they would have charged it to the subject): a new-handler
// notes every failed allocation while the audit runs (it calls the handler installed
// before it, if any).
Report audit_exec(ExecSession& session, const AuditOptions& options);

// Replays a trace against the subject (replay_implementation). Throws
// AuditorResourceError as audit_exec does.
std::optional<model::Violation> replay_exec(ExecSession& session, const model::Trace& trace);

// What a subject's environment is (audit/PROTOCOL.md, "Environment"), for the report's
// metadata: the auditor passes its own environment on unchanged.
inline constexpr const char* kExecSubjectEnvironment =
    "the auditor's environment, unchanged (nothing added or removed: no PYTHONUNBUFFERED; "
    "the subject must flush its stdout itself)";

// ---- key legends of counterexample files -------------------------------------------------
//
// A counterexample trace names keys by number; the file carries the bytes the subject was
// sent for each, so it is self-contained. One comment line per distinct key of the trace,
// every key, each in full:
//
//   # keys as the subject saw them (--keys mixed), one line per key, every byte:
//   # key 5 = x35
//   # key 9 = x68747470...  (the whole key, however long)
//   # key 12 = x3132 (contains and erase spell it in upper case)
//
// The bytes are in the protocol's hex form ("x" and two digits a byte), which writes any
// byte string and reads back exactly.

// The legend of `trace`'s keys under `keys` ("" when the trace has no key).
std::string key_legend(const model::Trace& trace, ExecKeys keys);

// The "# key N = xHEX" lines of `text` (a trace file): key number to bytes. Other lines
// are ignored. Throws std::invalid_argument for a legend line whose hex is malformed or
// a key listed twice with different bytes.
std::map<std::uint64_t, std::string> read_key_legend(std::string_view text);

}  // namespace cuckoo::audit
