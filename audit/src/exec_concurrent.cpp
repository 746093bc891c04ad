// cuckoo-audit exec, concurrent sessions: the tagged rounds, their histories, the
// linearizability check, the shrinking of a failing round and the concurrent traces. See
// exec_concurrent.hpp.
#include "cuckoo/audit/exec_concurrent.hpp"

#include <algorithm>
#include <chrono>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "cuckoo/subjects/driver.hpp"
#include "cuckoo/subjects/history.hpp"
#include "cuckoo/subjects/linearizability.hpp"
#include "cuckoo/subjects/specs.hpp"
#include "exec_detail.hpp"

namespace cuckoo::audit {

using exec_detail::Req;
using exec_detail::Resp;
using exec_detail::Slot;
using subjects::OpKind;
using subjects::Operation;

namespace {

using Clock = std::chrono::steady_clock;

Req req_of_kind(OpKind kind) {
  switch (kind) {
    case OpKind::kInsert: return Req::kInsert;
    case OpKind::kErase: return Req::kErase;
    case OpKind::kContains: return Req::kContains;
    default: break;
  }
  return Req::kSize;
}

bool known_kind(std::string_view word, OpKind& kind) {
  for (const OpKind k : {OpKind::kInsert, OpKind::kContains, OpKind::kErase, OpKind::kSize}) {
    if (word == subjects::to_string(k)) {
      kind = k;
      return true;
    }
  }
  return false;
}

// The request line of session `s` (without "\n").
void append_tagged(std::string& out, unsigned s, const ConcurrentRequest& r, ExecKeys keys) {
  out += '@';
  out += std::to_string(s);
  out += ' ';
  const Req req = req_of_kind(r.kind);
  out += exec_detail::req_word(req);
  if (!exec_detail::takes_key(req)) return;
  out += ' ';
  const std::size_t start = out.size();
  exec_detail::append_protocol_key(out, encode_key(keys, r.key));
  if (exec_detail::upper_case_hex(keys, req, r.key)) {
    for (std::size_t i = start + 1; i < out.size(); ++i) {
      if (out[i] >= 'a' && out[i] <= 'f') out[i] = static_cast<char>(out[i] - 'a' + 'A');
    }
  }
}

std::string describe_tagged(unsigned s, const ConcurrentRequest& r, ExecKeys keys) {
  std::string line;
  append_tagged(line, s, r, keys);
  if (line.size() > 72) line = line.substr(0, 64) + "...";
  if (subjects::kind_has_key(r.kind)) line += " [trace key " + std::to_string(r.key) + "]";
  return line;
}

subjects::Result result_of(const Slot& slot) {
  switch (slot.resp) {
    case Resp::kInserted: return model::InsertResult::kInserted;
    case Resp::kExists: return model::InsertResult::kExists;
    case Resp::kFull: return model::InsertResult::kFull;
    case Resp::kDuplicateLimit: return model::InsertResult::kDuplicateLimit;
    case Resp::kYes: return true;
    case Resp::kNo: return false;
    case Resp::kNumber: return subjects::SizeResult{slot.number};
    default: break;
  }
  return false;
}

subjects::CheckResult check_history(const subjects::History& history, const ExecDeclarations& d) {
  if (d.kind == ImplementationKind::kExactSet) {
    // A set is a map whose values are all 0: insert answers inserted iff absent, exists
    // iff present, full only where it would have stored; contains and erase are exact.
    return subjects::check_map(history);
  }
  // A filter: contains may answer yes falsely; full and duplicate_limit are legal (copy
  // limits are C5's); erase of a key with no copy answers no (PROTOCOL.md).
  return subjects::check_multiset(history, subjects::MultisetSpec::filter(std::nullopt, false));
}

std::uint64_t mix(std::uint64_t a, std::uint64_t b) {
  subjects::SplitMix64 m(a ^ (b * 0xd1b54a32d192ed03ULL));
  return m.next();
}

// One round's requests: `sessions` sessions of `ops` requests over `keys` keys.
ConcurrentTrace make_round(std::uint64_t seed, unsigned sessions, std::size_t ops, unsigned keys,
                           const ExecDeclarations& d, ExecKeys encoding) {
  subjects::SplitMix64 rng(seed);
  ConcurrentTrace t;
  t.name = d.name;
  t.kind = d.kind == ImplementationKind::kExactSet ? "set" : "filter";
  t.keys = encoding;
  const std::uint64_t base = 1 + rng.below(1u << 20) * 16;
  const bool sizes = d.size == SizeMode::kExact;
  t.sessions.resize(sessions);
  for (auto& seq : t.sessions) {
    for (std::size_t i = 0; i < ops; ++i) {
      ConcurrentRequest r;
      r.key = base + rng.below(keys);
      const std::uint64_t p = rng.below(100);
      if (sizes && p < 5) {
        r.kind = OpKind::kSize;
        r.key = 0;
      } else if (p < 45) {
        r.kind = OpKind::kInsert;
      } else if (p < 70 && d.deletes) {
        r.kind = OpKind::kErase;
      } else {
        r.kind = OpKind::kContains;
      }
      seq.push_back(r);
    }
  }
  return t;
}

}  // namespace

// ---- traces ---------------------------------------------------------------------------------------

std::size_t ConcurrentTrace::ops() const {
  std::size_t n = 0;
  for (const auto& s : sessions) n += s.size();
  return n;
}

std::string format_concurrent_trace(const ConcurrentTrace& trace, std::string_view comment) {
  std::string out = std::string(kConcurrentTraceWord) + " 1 name=" + trace.name + " kind=" + trace.kind +
                    " sessions=" + std::to_string(trace.sessions.size()) + " keys=" + to_string(trace.keys) +
                    "\n";
  for (std::size_t s = 0; s < trace.sessions.size(); ++s) {
    for (const ConcurrentRequest& r : trace.sessions[s]) {
      out += "s" + std::to_string(s) + " " + std::string(subjects::to_string(r.kind));
      if (subjects::kind_has_key(r.kind)) out += " " + std::to_string(r.key);
      out += "\n";
    }
  }
  while (!comment.empty()) {
    const std::size_t end = std::min(comment.find('\n'), comment.size());
    out += "# ";
    out += comment.substr(0, end);
    out += '\n';
    comment.remove_prefix(std::min(end + 1, comment.size()));
  }
  return out;
}

bool is_concurrent_trace(std::string_view text) {
  while (!text.empty()) {
    const std::size_t end = std::min(text.find('\n'), text.size());
    const std::vector<std::string_view> words = subjects::detail::split_words(text.substr(0, end));
    text.remove_prefix(std::min(end + 1, text.size()));
    if (words.empty() || words[0].front() == '#') continue;
    return words[0] == kConcurrentTraceWord;
  }
  return false;
}

ConcurrentTrace parse_concurrent_trace(std::string_view text) {
  ConcurrentTrace t;
  bool header = false;
  std::size_t sessions = 0;
  std::size_t line_number = 0;
  auto bad = [&line_number](const std::string& why) {
    throw std::invalid_argument("line " + std::to_string(line_number) + ": " + why);
  };
  while (!text.empty()) {
    ++line_number;
    const std::size_t end = std::min(text.find('\n'), text.size());
    const std::string_view line = text.substr(0, end);
    text.remove_prefix(std::min(end + 1, text.size()));
    const std::vector<std::string_view> words = subjects::detail::split_words(line);
    if (words.empty() || words[0].front() == '#') continue;
    if (!header) {
      if (words[0] != kConcurrentTraceWord || words.size() < 2 || words[1] != "1") {
        bad("expected '" + std::string(kConcurrentTraceWord) + " 1 name=... kind=... sessions=N keys=...'");
      }
      bool have_sessions = false;
      for (std::size_t i = 2; i < words.size(); ++i) {
        const std::size_t eq = words[i].find('=');
        if (eq == std::string_view::npos) bad("'" + std::string(words[i]) + "' is not key=value");
        const std::string_view key = words[i].substr(0, eq);
        const std::string value(words[i].substr(eq + 1));
        if (key == "name") {
          t.name = value;
        } else if (key == "kind") {
          if (value != "set" && value != "filter") bad("kind is set or filter");
          t.kind = value;
        } else if (key == "sessions") {
          std::uint64_t n = 0;
          if (!exec_detail::parse_u64_text(value, n) || n < 1 || n > kMaxExecSessions) {
            bad("sessions is 1.." + std::to_string(kMaxExecSessions));
          }
          sessions = n;
          have_sessions = true;
        } else if (key == "keys") {
          try {
            t.keys = exec_keys_from_string(value);
          } catch (const std::exception& e) {
            bad(e.what());
          }
        } else {
          bad("unknown header field '" + std::string(key) + "'");
        }
      }
      if (!have_sessions) bad("the header needs sessions=N");
      t.sessions.resize(sessions);
      header = true;
      continue;
    }
    std::uint64_t s = 0;
    if (words[0].size() < 2 || words[0][0] != 's' || !exec_detail::parse_u64_text(words[0].substr(1), s) ||
        s >= sessions) {
      bad("expected 'sI OP [KEY]' with I below sessions=" + std::to_string(sessions) + ", got '" +
          std::string(words[0]) + "'");
    }
    ConcurrentRequest r;
    if (words.size() < 2 || !known_kind(words[1], r.kind)) bad("OP is insert, contains, erase or size");
    const std::size_t want = subjects::kind_has_key(r.kind) ? 3 : 2;
    if (words.size() != want) bad(std::string(words[1]) + (want == 3 ? " takes a key" : " takes no key"));
    if (want == 3 && !exec_detail::parse_u64_text(words[2], r.key)) bad("KEY is a 64-bit decimal number");
    t.sessions[s].push_back(r);
  }
  if (!header) throw std::invalid_argument("not a concurrent trace: no header line");
  return t;
}

// ---- one round --------------------------------------------------------------------------------------

ConcurrentRun run_concurrent_round(ExecSession& session, const ConcurrentTrace& trace) {
  ConcurrentRun run;
  const ExecDeclarations& d = session.declarations();
  const ExecKeys keys = session.options().keys;
  const auto n = static_cast<unsigned>(trace.sessions.size());
  {
    std::vector<Slot> slots(1);
    slots[0].req = Req::kNew;
    std::map<std::size_t, std::string> errors;
    if (auto failure = session.exchange(slots, 0, errors)) {
      run.error = failure->error;
      return run;
    }
    if (slots[0].resp != Resp::kOk) {
      run.error = SubjectError(SubjectFailure::kErrorResponse, "answered 'error' to 'new'", session.stderr_tail());
      return run;
    }
  }
  struct Open {
    bool open = false;
    Slot slot;
    Operation op;
    ConcurrentRequest request;
  };
  std::vector<std::size_t> next(n, 0);
  std::vector<Open> open(n);
  std::uint64_t clock = 0;  // the auditor's logical clock: one tick a write or a read
  std::string out;
  std::size_t remaining = trace.ops();
  auto issue = [&](unsigned s) {
    if (next[s] >= trace.sessions[s].size()) return;
    const ConcurrentRequest& r = trace.sessions[s][next[s]++];
    Open& o = open[s];
    o.open = true;
    o.request = r;
    o.slot = Slot{};
    o.slot.req = req_of_kind(r.kind);
    o.slot.key = r.key;
    o.op = Operation{};
    o.op.thread = s;
    o.op.kind = r.kind;
    o.op.key = subjects::kind_has_key(r.kind) ? r.key : 0;
    // Stamped before the line can reach the subject.
    o.op.invoke_stamp = clock++;
    append_tagged(out, s, r, keys);
    out += '\n';
  };
  for (unsigned s = 0; s < n; ++s) issue(s);

  const auto timeout = std::chrono::duration_cast<Clock::duration>(
      std::chrono::duration<double>(session.options().timeout_seconds));
  auto deadline = Clock::now() + timeout;
  std::vector<std::string> lines;
  auto fail = [&](SubjectFailure kind, const std::string& message) {
    SubjectError error(kind, message, session.stderr_tail());
    session.stop_subject(error);
    run.error = error;
  };
  while (remaining > 0 && !run.error) {
    lines.clear();
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    std::optional<SubjectError> error =
        session.pump_lines(out, lines, static_cast<int>(std::clamp<long long>(left + 1, 0, 200)));
    for (const std::string& line : lines) {
      // "@S RESPONSE"
      std::size_t at = 1;
      std::uint64_t s = 0;
      while (at < line.size() && line[at] != ' ') ++at;
      if (line.empty() || line[0] != '@' || at >= line.size() ||
          !exec_detail::parse_u64_text(std::string_view(line).substr(1, at - 1), s)) {
        fail(SubjectFailure::kInvalidResponse,
             "wrote '" + exec_detail::printable(line) +
                 "' during a concurrent round, not a tagged response '@S RESPONSE'");
        break;
      }
      if (s >= n || !open[s].open) {
        fail(SubjectFailure::kUnsolicited,
             "wrote '" + exec_detail::printable(line) + "' with no request of session " +
                 std::to_string(s) + " outstanding");
        break;
      }
      Open& o = open[s];
      std::string error_text;
      const std::string_view response = std::string_view(line).substr(at + 1);
      if (!exec_detail::parse_response(o.slot, response, error_text) || o.slot.resp == Resp::kUnknown) {
        fail(SubjectFailure::kInvalidResponse,
             "answered '" + describe_tagged(static_cast<unsigned>(s), o.request, keys) + "' with '" +
                 exec_detail::printable(line) + "' (expected @" + std::to_string(s) + " and " +
                 exec_detail::expected_responses(o.slot.req) + ")");
        break;
      }
      if (o.slot.resp == Resp::kError) {
        fail(SubjectFailure::kErrorResponse,
             "answered 'error " + exec_detail::printable(error_text) + "' to '" +
                 describe_tagged(static_cast<unsigned>(s), o.request, keys) + "'");
        break;
      }
      o.op.response_stamp = clock++;
      o.op.result = result_of(o.slot);
      run.history.push_back(o.op);
      o.open = false;
      --remaining;
      deadline = Clock::now() + timeout;
      issue(static_cast<unsigned>(s));
    }
    if (run.error) break;
    if (error) {
      std::string waiting;
      for (unsigned s = 0; s < n; ++s) {
        if (open[s].open) waiting += (waiting.empty() ? "" : ", ") + describe_tagged(s, open[s].request, keys);
      }
      run.error = SubjectError(error->failure(), error->message() + " with requests outstanding (" + waiting + ")",
                               error->stderr_tail());
      break;
    }
    if (remaining > 0 && Clock::now() >= deadline) {
      std::string waiting;
      for (unsigned s = 0; s < n; ++s) {
        if (open[s].open) waiting += (waiting.empty() ? "" : ", ") + describe_tagged(s, open[s].request, keys);
      }
      fail(SubjectFailure::kTimeout, "answered none of " + waiting + " within " +
                                         exec_detail::seconds_text(session.options().timeout_seconds) +
                                         " (--timeout); stopped it");
    }
  }
  if (run.error) return run;
  std::sort(run.history.begin(), run.history.end(),
            [](const Operation& a, const Operation& b) { return a.invoke_stamp < b.invoke_stamp; });
  const subjects::CheckResult check = check_history(run.history, d);
  run.overlapping = check.stats.max_concurrency >= 2;
  run.undecided = check.undecided();
  if (check.not_linearizable()) {
    // A set is checked as a map whose values are all 0: "holds 0" is "present".
    run.violation = (d.kind == ImplementationKind::kExactSet
                         ? "(a set is checked as a map whose values are all 0: 'holds 0' means present)\n"
                         : "") +
                    check.describe();
    run.violation_ops = std::get<subjects::NotLinearizable>(check.verdict).ops;
  }
  return run;
}

std::string describe_concurrent_failure(const ConcurrentRun& run) {
  if (run.error) return std::string("the subject failed during a concurrent round: ") + run.error->what() + "\n";
  if (run.violation) {
    return "the history is not linearizable (tI = session I; stamps are the auditor's clock: "
           "request written, answer read; keys are trace keys)\n" +
           *run.violation;
  }
  return "no failure\n";
}

// ---- the audit --------------------------------------------------------------------------------------

namespace {

Figure figure(std::string name, double value, std::string unit = "", std::string note = "") {
  Figure f;
  f.name = std::move(name);
  f.value = value;
  f.unit = std::move(unit);
  f.note = std::move(note);
  return f;
}

// Fails in `needed` of `runs` runs (stops as soon as it has, or cannot reach them); the
// last failing run in *failure.
bool fails(ExecSession& session, const ConcurrentTrace& trace, unsigned runs, unsigned needed,
           ConcurrentRun* failure) {
  unsigned failed = 0;
  for (unsigned i = 0; i < runs && failed < needed && failed + (runs - i) >= needed; ++i) {
    ConcurrentRun run = run_concurrent_round(session, trace);
    if (run.failed()) {
      *failure = std::move(run);
      ++failed;
    }
  }
  return failed >= needed;
}

void drop_empty(ConcurrentTrace& t) {
  t.sessions.erase(std::remove_if(t.sessions.begin(), t.sessions.end(), [](const auto& s) { return s.empty(); }),
                   t.sessions.end());
}

// Smaller traces, the coarsest first: without a session, a session cut to its first half,
// a session without one request (from its end).
std::vector<ConcurrentTrace> candidates(const ConcurrentTrace& t) {
  std::vector<ConcurrentTrace> out;
  if (t.sessions.size() > 1) {
    for (std::size_t s = 0; s < t.sessions.size(); ++s) {
      ConcurrentTrace c = t;
      c.sessions.erase(c.sessions.begin() + static_cast<std::ptrdiff_t>(s));
      out.push_back(std::move(c));
    }
  }
  for (std::size_t s = 0; s < t.sessions.size(); ++s) {
    if (t.sessions[s].size() < 4) continue;
    ConcurrentTrace c = t;
    c.sessions[s].resize(c.sessions[s].size() / 2);
    out.push_back(std::move(c));
  }
  for (std::size_t s = 0; s < t.sessions.size(); ++s) {
    for (std::size_t i = t.sessions[s].size(); i-- > 0;) {
      ConcurrentTrace c = t;
      c.sessions[s].erase(c.sessions[s].begin() + static_cast<std::ptrdiff_t>(i));
      drop_empty(c);
      if (c.ops() > 0) out.push_back(std::move(c));
    }
  }
  return out;
}

}  // namespace

ClaimResult audit_exec_concurrent(ExecSession& session, const ConcurrentAuditOptions& options) {
  const auto started = Clock::now();
  session.start();
  const ExecDeclarations& d = session.declarations();
  ClaimResult r;
  r.claim = "C10";
  r.engine = d.name;
  r.seed = options.seed;
  if (d.concurrent == 0) {
    r.verdict = Verdict::kSkipped;
    r.configuration = "concurrent=none";
    r.summary = "the subject declares no concurrent=N (audit/PROTOCOL.md, Concurrent sessions): "
                "it serves one session, so no concurrent history can be recorded";
    return r;
  }
  const unsigned sessions = options.sessions != 0 ? options.sessions : std::min(d.concurrent, 4u);
  if (sessions > d.concurrent || sessions > kMaxExecSessions) {
    throw UsageError("exec: --concurrent " + std::to_string(sessions) + " is more sessions than the subject "
                     "serves (it declares concurrent=" + std::to_string(d.concurrent) + ")");
  }
  const std::size_t ops = options.ops_per_session != 0 ? options.ops_per_session
                                                       : std::max<std::size_t>(4, 96 / sessions);
  std::size_t rounds = options.rounds;
  if (rounds == 0) {
    rounds = options.profile == Profile::kQuick ? 60 : options.profile == Profile::kStandard ? 600 : 6000;
  }
  const unsigned keys = std::max(1u, options.keys);
  r.configuration = "sessions=" + std::to_string(sessions) + " keys=" + std::to_string(keys) +
                    " ops/session=" + std::to_string(ops) + " rounds=" + std::to_string(rounds);
  if (options.on_step) {
    options.on_step("C10: " + std::to_string(rounds) + " rounds of " + std::to_string(sessions) +
                    " concurrent sessions (" + std::to_string(ops) + " requests each, " +
                    std::to_string(keys) + " keys)");
  }
  std::uint64_t done = 0;
  std::uint64_t total_ops = 0;
  std::uint64_t overlapping = 0;
  std::uint64_t undecided = 0;
  std::optional<ConcurrentTrace> failing;
  std::optional<ConcurrentRun> failing_run;
  for (std::size_t round = 0; round < rounds; ++round) {
    const ConcurrentTrace trace = make_round(mix(options.seed, round), sessions, ops, keys, d, session.options().keys);
    ConcurrentRun run = run_concurrent_round(session, trace);
    ++done;
    total_ops += run.history.size();
    overlapping += run.overlapping ? 1 : 0;
    undecided += run.undecided ? 1 : 0;
    if (run.failed()) {
      failing = trace;
      failing_run = std::move(run);
      break;
    }
  }
  r.samples = done;
  r.figures.push_back(figure("rounds checked", static_cast<double>(done)));
  r.figures.push_back(figure("ops checked", static_cast<double>(total_ops), "ops"));
  r.figures.push_back(figure("rounds with overlapping ops on a key", static_cast<double>(overlapping)));
  Figure undecided_figure = figure("rounds too large to decide", static_cast<double>(undecided));
  undecided_figure.bound = static_cast<double>(done / 100);
  undecided_figure.relation = "<=";
  undecided_figure.note = "an undecided history checks nothing; more than 1% undecided fails the claim";
  r.figures.push_back(undecided_figure);
  if (!failing) {
    r.verdict = undecided > done / 100 ? Verdict::kFail : Verdict::kPass;
    r.summary = r.verdict == Verdict::kPass
                    ? "every history of " + std::to_string(done) + " rounds of " + std::to_string(sessions) +
                          " concurrent sessions was linearizable (" + std::to_string(overlapping) +
                          " rounds had overlapping ops on one key)"
                    : std::to_string(undecided) + " of " + std::to_string(done) +
                          " histories were too large for the checker to decide";
    r.seconds = std::chrono::duration<double>(Clock::now() - started).count();
    return r;
  }

  // Shrink: fewer sessions and requests while some run of each candidate still fails.
  if (options.on_step) options.on_step("C10: round " + std::to_string(done) + " failed; shrinking it");
  const auto shrink_until = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                               std::chrono::duration<double>(options.max_shrink_seconds));
  ConcurrentTrace current = *failing;
  ConcurrentRun current_run = *failing_run;
  std::uint64_t attempts = 0;
  for (bool progress = true; progress && Clock::now() < shrink_until;) {
    progress = false;
    std::vector<ConcurrentTrace> list = candidates(current);
    for (std::size_t i = 0; i < list.size() && Clock::now() < shrink_until;) {
      ++attempts;
      ConcurrentRun run;
      if (fails(session, list[i], std::max(1u, options.shrink_runs),
                std::clamp(options.shrink_failures, 1u, std::max(1u, options.shrink_runs)), &run)) {
        current = std::move(list[i]);
        current_run = std::move(run);
        progress = true;
        list = candidates(current);  // the same position holds the next candidate of its kind
        continue;
      }
      ++i;
    }
  }
  // How often the shrunk trace fails.
  unsigned reproduced = 0;
  for (unsigned i = 0; i < options.reproduce_runs; ++i) {
    ConcurrentRun run = run_concurrent_round(session, current);
    if (run.failed()) {
      if (reproduced == 0) current_run = run;
      ++reproduced;
    }
  }
  r.verdict = Verdict::kFail;
  const std::string what = failing_run->error ? "the subject failed during a concurrent round"
                                              : "a history was not linearizable";
  r.summary = what + " (round " + std::to_string(done) + " of " + std::to_string(rounds) + "); shrunk to " +
              std::to_string(current.ops()) + " requests in " + std::to_string(current.sessions.size()) +
              " sessions, which failed in " + std::to_string(reproduced) + " of " +
              std::to_string(options.reproduce_runs) + " runs";
  r.figures.push_back(figure("shrinking attempts", static_cast<double>(attempts)));
  Figure repro = figure("runs of the shrunk trace that failed", static_cast<double>(reproduced));
  repro.note = "of " + std::to_string(options.reproduce_runs) + " runs; a concurrent failure depends on the "
               "interleaving, so it need not appear every time";
  r.figures.push_back(repro);
  Counterexample cx;
  const std::string failure_text = describe_concurrent_failure(current_run);
  cx.explanation = failure_text + "the shrunk trace failed in " + std::to_string(reproduced) + " of " +
                   std::to_string(options.reproduce_runs) + " runs\n";
  cx.trace = format_concurrent_trace(current, "C10: " + what + "; the shrunk trace failed in " +
                                                  std::to_string(reproduced) + " of " +
                                                  std::to_string(options.reproduce_runs) + " runs\n" +
                                                  failure_text);
  cx.trace_file = "counterexamples/C10-" + d.name + "-" + std::to_string(options.seed) + ".trace";
  cx.original_ops = failing->ops();
  cx.shrunk_ops = current.ops();
  r.counterexample = std::move(cx);
  r.seconds = std::chrono::duration<double>(Clock::now() - started).count();
  return r;
}

ConcurrentReplay replay_exec_concurrent(ExecSession& session, const ConcurrentTrace& trace, unsigned runs) {
  session.start();
  ConcurrentReplay replay;
  for (unsigned i = 0; i < runs; ++i) {
    ConcurrentRun run = run_concurrent_round(session, trace);
    ++replay.runs;
    if (run.failed()) {
      ++replay.failed;
      if (!replay.first_failure) replay.first_failure = std::move(run);
    }
  }
  return replay;
}

}  // namespace cuckoo::audit
