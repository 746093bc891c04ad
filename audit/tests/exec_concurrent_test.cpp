// Tests of cuckoo-audit exec with concurrent sessions (exec_concurrent.hpp): the trace
// format, the `concurrent=` declaration, a round's history (each answer matched to the
// session that asked, the auditor's stamps, overlapping sessions) and the C10 verdicts on
// the example subject examples/audit/exec/concurrent_set.py, correct and with planted
// races. Every test's seed is fixed; a failing audit prints its seed and the command
// that reproduces it from the shell.
#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "cuckoo/audit/exec.hpp"
#include "cuckoo/audit/exec_concurrent.hpp"

namespace {

using cuckoo::audit::ConcurrentAuditOptions;
using cuckoo::audit::ConcurrentRequest;
using cuckoo::audit::ConcurrentRun;
using cuckoo::audit::ConcurrentTrace;
using cuckoo::audit::ExecDeclarations;
using cuckoo::audit::ExecKeys;
using cuckoo::audit::ExecOptions;
using cuckoo::audit::ExecSession;
using cuckoo::audit::Verdict;
using cuckoo::subjects::OpKind;

constexpr std::string_view kPython = CUCKOO_PYTHON3;
constexpr std::string_view kConcurrentSubject = CUCKOO_EXEC_CONCURRENT_SUBJECT;

bool have_python() { return !kPython.empty() && kPython.find("NOTFOUND") == std::string_view::npos; }

#define REQUIRE_PYTHON()                                   \
  if (!have_python()) GTEST_SKIP() << "python3 not found"; \
  static_assert(true)

ExecOptions subject(std::vector<std::string> args) {
  ExecOptions o;
  o.command = {std::string(kPython), std::string(kConcurrentSubject)};
  o.command.insert(o.command.end(), args.begin(), args.end());
  o.timeout_seconds = 10;
  return o;
}

std::string reproduce(const std::vector<std::string>& args, const ConcurrentAuditOptions& o) {
  std::string line = "cuckoo-audit exec --claims C10 --seed " + std::to_string(o.seed) +
                     (o.sessions != 0 ? " --concurrent " + std::to_string(o.sessions) : std::string()) +
                     " -- python3 examples/audit/exec/concurrent_set.py";
  for (const std::string& a : args) line += " " + a;
  return "seed " + std::to_string(o.seed) + "; reproduce (about) with: " + line;
}

ConcurrentTrace two_inserts_of_one_key() {
  ConcurrentTrace t;
  t.name = "py.concurrent_set";
  t.kind = "set";
  t.keys = ExecKeys::kMixed;
  t.sessions = {{{OpKind::kInsert, 5}, {OpKind::kContains, 5}}, {{OpKind::kInsert, 5}, {OpKind::kErase, 5}}};
  return t;
}

TEST(ExecConcurrentTrace, RoundTripsThroughItsTextForm) {
  ConcurrentTrace t = two_inserts_of_one_key();
  t.sessions.push_back({{OpKind::kSize, 0}});
  const std::string text = cuckoo::audit::format_concurrent_trace(t, "a comment\nover two lines");
  EXPECT_TRUE(cuckoo::audit::is_concurrent_trace("# leading comment\n\n" + text));
  EXPECT_FALSE(cuckoo::audit::is_concurrent_trace("engine filter capacity=8 seed=1\ninsert 1\n"));
  const ConcurrentTrace back = cuckoo::audit::parse_concurrent_trace(text);
  EXPECT_EQ(back.name, t.name);
  EXPECT_EQ(back.kind, t.kind);
  EXPECT_EQ(back.sessions, t.sessions);
  EXPECT_NE(text.find("\n# over two lines\n"), std::string::npos) << text;
}

TEST(ExecConcurrentTrace, MalformedTracesNameTheLine) {
  const std::string header = "cuckoo-audit-concurrent-trace 1 name=x kind=set sessions=2 keys=mixed\n";
  for (const auto& [text, message] : std::vector<std::pair<std::string, std::string>>{
           {header + "s2 insert 1\n", "line 2: expected 'sI OP [KEY]'"},
           {header + "s0 frobnicate 1\n", "line 2: OP is insert"},
           {header + "s0 insert\n", "line 2: insert takes a key"},
           {header + "s0 size 3\n", "line 2: size takes no key"},
           {"cuckoo-audit-concurrent-trace 1 name=x kind=map sessions=2\n", "line 1: kind is set or filter"},
           {"cuckoo-audit-concurrent-trace 1 name=x kind=set sessions=65\n", "line 1: sessions is 1..64"},
           {"cuckoo-audit-concurrent-trace 1 name=x kind=set\n", "line 1: the header needs sessions=N"},
           {"# nothing\n", "no header line"}}) {
    try {
      (void)cuckoo::audit::parse_concurrent_trace(text);
      ADD_FAILURE() << "accepted: " << text;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
    }
  }
}

TEST(ExecConcurrentDeclaration, ConcurrentIsOneTo64) {
  ExecDeclarations d;
  d.set("concurrent", "8");
  EXPECT_EQ(d.concurrent, 8u);
  for (const char* bad : {"0", "65", "x", "18446744073709551616"}) {
    EXPECT_THROW(d.set("concurrent", bad), std::invalid_argument) << bad;
  }
  const ExecDeclarations h =
      cuckoo::audit::parse_handshake("cuckoo-audit-subject 1 kind=set name=a concurrent=3");
  EXPECT_EQ(h.concurrent, 3u);
}

// Each answer goes to the session whose tag it carries, in that session's order; every
// operation's interval is [request written, answer read] on the auditor's clock, so each
// session's operations are sequential and the sessions overlap.
TEST(ExecConcurrentRound, EachAnswerIsMatchedToItsSessionAndTheSessionsOverlap) {
  REQUIRE_PYTHON();
  ExecSession session(subject({}));
  session.start();
  ASSERT_EQ(session.declarations().concurrent, 8u);
  ConcurrentTrace t;
  t.kind = "set";
  t.name = "py.concurrent_set";
  // Session s inserts its own keys (100s + i) and then looks them up: every answer of
  // session s is predictable, whatever the interleaving.
  constexpr unsigned kSessions = 4;
  constexpr std::uint64_t kOps = 6;
  t.sessions.resize(kSessions);
  for (unsigned s = 0; s < kSessions; ++s) {
    for (std::uint64_t i = 0; i < kOps; ++i) t.sessions[s].push_back({OpKind::kInsert, 100 * (s + 1) + i});
    for (std::uint64_t i = 0; i < kOps; ++i) t.sessions[s].push_back({OpKind::kContains, 100 * (s + 1) + i});
    t.sessions[s].push_back({OpKind::kErase, 100 * (s + 1)});
    t.sessions[s].push_back({OpKind::kContains, 100 * (s + 1)});
  }
  const ConcurrentRun run = cuckoo::audit::run_concurrent_round(session, t);
  ASSERT_FALSE(run.error) << run.error->what();
  EXPECT_FALSE(run.violation) << *run.violation;
  ASSERT_EQ(run.history.size(), t.ops());
  std::map<std::uint32_t, std::vector<const cuckoo::subjects::Operation*>> by_session;
  for (const auto& op : run.history) by_session[op.thread].push_back(&op);
  ASSERT_EQ(by_session.size(), kSessions);
  bool overlap = false;
  for (unsigned s = 0; s < kSessions; ++s) {
    const auto& ops = by_session[s];
    ASSERT_EQ(ops.size(), t.sessions[s].size());
    for (std::size_t i = 0; i < ops.size(); ++i) {
      EXPECT_EQ(ops[i]->kind, t.sessions[s][i].kind) << "session " << s << " op " << i;
      EXPECT_EQ(ops[i]->key, t.sessions[s][i].key) << "session " << s << " op " << i;
      EXPECT_LT(ops[i]->invoke_stamp, ops[i]->response_stamp);
      if (i > 0) {
        EXPECT_LT(ops[i - 1]->response_stamp, ops[i]->invoke_stamp);
      }
      const bool last_contains = i + 1 == ops.size();
      if (ops[i]->kind == OpKind::kInsert) {
        EXPECT_EQ(std::get<cuckoo::model::InsertResult>(ops[i]->result), cuckoo::model::InsertResult::kInserted);
      } else {
        EXPECT_EQ(std::get<bool>(ops[i]->result), !last_contains) << "session " << s << " op " << i;
      }
    }
    for (unsigned o = 0; o < kSessions; ++o) {
      if (o == s) continue;
      // The first requests of all sessions are written before any answer is read.
      overlap = overlap || (by_session[o].front()->invoke_stamp < ops.front()->response_stamp &&
                            ops.front()->invoke_stamp < by_session[o].front()->response_stamp);
    }
  }
  EXPECT_TRUE(overlap);
  EXPECT_FALSE(session.close());
}

TEST(ExecConcurrentAudit, TheLockedSetPasses) {
  REQUIRE_PYTHON();
  const std::vector<std::string> args;
  ExecSession session(subject(args));
  ConcurrentAuditOptions o;
  o.seed = 11;
  o.rounds = 20;
  const auto r = cuckoo::audit::audit_exec_concurrent(session, o);
  EXPECT_EQ(r.verdict, Verdict::kPass) << r.summary << "\n"
                                       << (r.counterexample ? r.counterexample->explanation : "") << reproduce(args, o);
  EXPECT_EQ(r.claim, "C10");
  EXPECT_EQ(r.samples, 20u);
  EXPECT_NE(r.configuration.find("sessions=4"), std::string::npos) << r.configuration;
  EXPECT_FALSE(session.close());
}

TEST(ExecConcurrentAudit, TheLockedFilterPasses) {
  REQUIRE_PYTHON();
  const std::vector<std::string> args = {"--kind", "filter"};
  ExecSession session(subject(args));
  ConcurrentAuditOptions o;
  o.seed = 12;
  o.rounds = 15;
  o.sessions = 6;
  const auto r = cuckoo::audit::audit_exec_concurrent(session, o);
  EXPECT_EQ(r.verdict, Verdict::kPass) << r.summary << reproduce(args, o);
  EXPECT_NE(r.configuration.find("sessions=6"), std::string::npos) << r.configuration;
}

// One round only: the check must run on the last (here: the only) round. One key and
// four sessions, so two inserts of it overlap while it is absent.
TEST(ExecConcurrentAudit, ACheckThenActRaceFailsInOneRoundAndShrinks) {
  REQUIRE_PYTHON();
  const std::vector<std::string> args = {"--broken", "check-then-act"};
  ExecSession session(subject(args));
  ConcurrentAuditOptions o;
  o.seed = 13;
  o.rounds = 1;
  o.keys = 1;
  o.ops_per_session = 8;
  o.reproduce_runs = 10;
  const auto r = cuckoo::audit::audit_exec_concurrent(session, o);
  ASSERT_EQ(r.verdict, Verdict::kFail) << r.summary << reproduce(args, o);
  ASSERT_TRUE(r.counterexample);
  const auto& cx = *r.counterexample;
  EXPECT_LE(cx.shrunk_ops, 6u) << cx.trace;
  EXPECT_LT(cx.shrunk_ops, cx.original_ops);
  EXPECT_NE(cx.explanation.find("not linearizable"), std::string::npos) << cx.explanation;
  EXPECT_NE(cx.trace_file.find("counterexamples/C10-py.concurrent_set.broken.check-then-act-13"),
            std::string::npos);
  // The trace replays: it fails again in some of 10 runs.
  const ConcurrentTrace back = cuckoo::audit::parse_concurrent_trace(cx.trace);
  const auto replay = cuckoo::audit::replay_exec_concurrent(session, back, 10);
  EXPECT_EQ(replay.runs, 10u);
  EXPECT_GE(replay.failed, 1u) << cx.trace;
}

TEST(ExecConcurrentAudit, ALostEraseFails) {
  REQUIRE_PYTHON();
  const std::vector<std::string> args = {"--broken", "lost-erase"};
  ExecSession session(subject(args));
  ConcurrentAuditOptions o;
  o.seed = 14;
  o.rounds = 30;
  o.reproduce_runs = 5;
  const auto r = cuckoo::audit::audit_exec_concurrent(session, o);
  EXPECT_EQ(r.verdict, Verdict::kFail) << r.summary << reproduce(args, o);
}

// A subject that answers tagged requests without their tag: a C10 finding (the protocol),
// shrunk to one request, with the line it wrote.
TEST(ExecConcurrentAudit, AnUntaggedAnswerToATaggedRequestIsAFinding) {
  REQUIRE_PYTHON();
  ExecOptions o;
  o.command = {std::string(kPython), "-c",
               "import sys\nprint('cuckoo-audit-subject 1 kind=set name=untagged concurrent=2', flush=True)\n"
               "for line in sys.stdin:\n"
               "    w = line.split()\n"
               "    print({'new': 'ok', 'close': 'bye'}.get(w[0], 'no'), flush=True)"};
  ExecSession session(o);
  ConcurrentAuditOptions options;
  options.rounds = 1;
  options.sessions = 2;
  options.ops_per_session = 2;
  options.reproduce_runs = 3;
  const auto r = cuckoo::audit::audit_exec_concurrent(session, options);
  ASSERT_EQ(r.verdict, Verdict::kFail) << r.summary;
  ASSERT_TRUE(r.counterexample);
  EXPECT_EQ(r.counterexample->shrunk_ops, 1u) << r.counterexample->trace;
  EXPECT_NE(r.counterexample->explanation.find("wrote 'no' during a concurrent round, not a tagged response"),
            std::string::npos)
      << r.counterexample->explanation;
  EXPECT_NE(r.summary.find("failed in 3 of 3 runs"), std::string::npos) << r.summary;
}

TEST(ExecConcurrentAudit, ASubjectWithoutConcurrentSessionsIsSkipped) {
  REQUIRE_PYTHON();
  ExecOptions o;
  o.command = {std::string(kPython), "-c",
               "import sys\nprint('cuckoo-audit-subject 1 kind=set name=plain', flush=True)\n"
               "for line in sys.stdin: print('bye' if line.strip() == 'close' else 'ok', flush=True)"};
  ExecSession session(o);
  const auto r = cuckoo::audit::audit_exec_concurrent(session, ConcurrentAuditOptions{});
  EXPECT_EQ(r.verdict, Verdict::kSkipped);
  EXPECT_NE(r.summary.find("concurrent=N"), std::string::npos) << r.summary;
}

}  // namespace
