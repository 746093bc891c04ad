// Tests of cuckoo-audit exec's transport and adapter (exec.hpp): key encodings, the
// handshake and claims file, starting and stopping subjects, every kind of subject
// misbehaviour as a typed SubjectError with the stderr tail, pipelining against the
// checker (the lookups after `full`), and audits of correct and broken subjects. The
// subjects are audit/tests/exec_subjects/subject.py (modes) and c_subject.c.
#include <gtest/gtest.h>

#include <signal.h>
#include <unistd.h>
#include <sys/wait.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <new>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "cuckoo/audit/exec.hpp"
#include "cuckoo/model/trace.hpp"

namespace {

using cuckoo::audit::ExecDeclarations;
using cuckoo::audit::ExecKeys;
using cuckoo::audit::ExecOptions;
using cuckoo::audit::ExecSession;
using cuckoo::audit::ExecSizeMode;
using cuckoo::audit::SubjectError;
using cuckoo::audit::SubjectFailure;
using cuckoo::audit::Verdict;
using cuckoo::model::InsertResult;
using cuckoo::model::Op;
using cuckoo::model::Trace;

constexpr std::string_view kPython = CUCKOO_PYTHON3;
constexpr std::string_view kPySubject = CUCKOO_EXEC_PY_SUBJECT;
constexpr std::string_view kCSubject = CUCKOO_EXEC_C_SUBJECT;

bool have_python() { return !kPython.empty() && kPython.find("NOTFOUND") == std::string_view::npos; }

#define REQUIRE_PYTHON()                                   \
  if (!have_python()) GTEST_SKIP() << "python3 not found"; \
  static_assert(true)
#define REQUIRE_C_SUBJECT()                                              \
  if (kCSubject.empty()) GTEST_SKIP() << "no C compiler for c_subject"; \
  static_assert(true)

ExecOptions py(const std::string& mode, double timeout = 5) {
  ExecOptions o;
  o.command = {std::string(kPython), std::string(kPySubject), mode};
  o.timeout_seconds = timeout;
  return o;
}

ExecOptions c_subject(const std::string& kind, const std::string& capacity) {
  ExecOptions o;
  o.command = {std::string(kCSubject), kind, capacity};
  return o;
}

// Runs `f` and returns the SubjectError it throws (fails the test if it throws none).
template <class F>
SubjectError thrown_by(F&& f) {
  try {
    f();
  } catch (const SubjectError& e) {
    return e;
  }
  ADD_FAILURE() << "no SubjectError";
  return SubjectError(SubjectFailure::kStart, "none");
}

const cuckoo::audit::ClaimResult& result_for(const cuckoo::audit::Report& r, const std::string& claim) {
  for (const auto& c : r.results) {
    if (c.claim == claim) return c;
  }
  throw std::runtime_error("no result for " + claim);
}

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

bool reaped(pid_t pid) {
  if (pid <= 0) return true;
  errno = 0;
  return waitpid(pid, nullptr, WNOHANG) < 0 && errno == ECHILD;
}

// ---- keys ----

TEST(ExecKeys, EveryEncodingIsInjectiveAndDeterministic) {
  for (const ExecKeys keys : {ExecKeys::kMixed, ExecKeys::kU64le, ExecKeys::kDecimal}) {
    std::set<std::string> seen;
    std::vector<std::uint64_t> sample;
    for (std::uint64_t k = 0; k < 20000; ++k) sample.push_back(k);
    for (std::uint64_t k = 0; k < 2000; ++k) {
      sample.push_back((std::uint64_t{1} << 62) + k * 7919);  // C2's queries
      sample.push_back(UINT64_MAX - k);
    }
    for (const std::uint64_t k : sample) {
      const std::string bytes = cuckoo::audit::encode_key(keys, k);
      EXPECT_EQ(bytes, cuckoo::audit::encode_key(keys, k));
      EXPECT_TRUE(seen.insert(bytes).second) << to_string(keys) << " key " << k;
    }
  }
}

TEST(ExecKeys, MixedCoversEveryFamily) {
  bool empty = false, zero_byte = false, long_word = false, very_long = false, url = false,
       decimal = false, word = false;
  for (std::uint64_t k = 0; k < 4096; ++k) {
    const std::string b = cuckoo::audit::encode_key(ExecKeys::kMixed, k);
    empty |= b.empty();
    zero_byte |= b.find('\0') != std::string::npos;
    long_word |= b.rfind("lw-", 0) == 0 && b.size() > 64;
    very_long |= b.size() >= 1024;
    url |= b.find("://") != std::string::npos;
    decimal |= !b.empty() && b.find_first_not_of("0123456789") == std::string::npos;
    word |= !b.empty() && b.find_first_not_of("abcdefghijklmnopqrstuvwxyz") == std::string::npos;
    EXPECT_LE(b.size(), 4096U);
  }
  EXPECT_TRUE(empty && zero_byte && long_word && very_long && url && decimal && word);
  EXPECT_EQ(cuckoo::audit::encode_key(ExecKeys::kMixed, 0), "");
  // Neighbours in the late-byte and one-bit families differ in one byte.
  int late = 0;
  for (std::uint64_t k = 4; k < 4096; k += 4) {
    const std::string a = cuckoo::audit::encode_key(ExecKeys::kMixed, k);
    const std::string b = cuckoo::audit::encode_key(ExecKeys::kMixed, k + 1);
    if (a.size() != b.size() || a.empty() || (a[0] != '\x01' && a[0] != '\x02')) continue;
    int differing = 0;
    for (std::size_t i = 0; i < a.size(); ++i) differing += a[i] != b[i] ? 1 : 0;
    EXPECT_EQ(differing, 1) << k;
    ++late;
  }
  EXPECT_GT(late, 10);
  EXPECT_EQ(cuckoo::audit::protocol_key(std::string("\0\xff", 2)), "x00ff");
  EXPECT_EQ(cuckoo::audit::protocol_key("hello"), "x68656c6c6f");
  EXPECT_THROW(cuckoo::audit::exec_keys_from_string("hex"), cuckoo::audit::UsageError);
  // Some keys' lookups are spelled in upper case (never with u64le or decimal).
  int upper = 0;
  for (std::uint64_t k = 0; k < 100; ++k) {
    upper += cuckoo::audit::describe_key(ExecKeys::kMixed, k).find("upper case") != std::string::npos;
    EXPECT_EQ(cuckoo::audit::describe_key(ExecKeys::kDecimal, k).find("upper case"), std::string::npos);
  }
  EXPECT_GT(upper, 10);
  EXPECT_LT(upper, 45);
}

TEST(ExecKeys, ASubjectKeyedOnTheHexTextIsCaught) {
  if (!have_python()) GTEST_SKIP() << "python3 not found";
  // A set keyed on the hex text of its keys, not on their bytes: caught because some
  // lookups spell their key in upper case.
  ExecOptions o;
  o.command = {std::string(kPython), "-c",
               "import sys\n"
               "print('cuckoo-audit-subject 1 kind=set name=hex.text', flush=True)\n"
               "s = set()\n"
               "for line in sys.stdin:\n"
               "    w = line.split()\n"
               "    if w[0] == 'new': s = set(); r = 'ok'\n"
               "    elif w[0] == 'insert': r = 'exists' if w[1] in s else 'inserted'; s.add(w[1])\n"
               "    elif w[0] == 'contains': r = 'yes' if w[1] in s else 'no'\n"
               "    elif w[0] == 'erase': r = 'yes' if w[1] in s else 'no'; s.discard(w[1])\n"
               "    elif w[0] == 'size': r = str(len(s))\n"
               "    elif w[0] == 'clear': s = set(); r = 'ok'\n"
               "    else: r = 'bye'\n"
               "    print(r, flush=True)\n"};
  ExecSession s(o);
  s.start();
  cuckoo::audit::AuditOptions a;
  a.traces = 20;
  a.claims = {"C7"};
  const cuckoo::audit::Report r = cuckoo::audit::audit_exec(s, a);
  // A lookup in upper case misses (C1), an erase in upper case answers no (C7): whichever
  // the traces meet first is reported under its claim.
  EXPECT_FALSE(r.all_passed());
}

// ---- the handshake and the claims file ----

TEST(ExecHandshake, ParsesEveryDeclaration) {
  const ExecDeclarations d = cuckoo::audit::parse_handshake(
      "cuckoo-audit-subject 1 kind=filter name=my.filter capacity=1000 fingerprint_bits=12 "
      "slots_per_bucket=4 max_copies=none fpr=0.01 deletes=no size=approximate clear=no\r");
  EXPECT_EQ(d.kind, cuckoo::audit::ImplementationKind::kApproximateFilter);
  EXPECT_EQ(d.name, "my.filter");
  EXPECT_EQ(d.capacity, 1000U);
  EXPECT_EQ(d.fingerprint_bits, 12U);
  EXPECT_EQ(d.slots_per_bucket, 4U);
  EXPECT_EQ(d.max_copies, cuckoo::model::MultisetModel::kNoCopyLimit);
  EXPECT_DOUBLE_EQ(d.fpr, 0.01);
  EXPECT_FALSE(d.deletes);
  EXPECT_FALSE(d.clear);
  EXPECT_EQ(d.size, ExecSizeMode::kApproximate);
  EXPECT_EQ(cuckoo::audit::parse_handshake("cuckoo-audit-subject 1 kind=set").name, "exec.subject");
}

TEST(ExecHandshake, RejectsWhatIsNotAValidHandshake) {
  const std::pair<const char*, const char*> cases[] = {
      {"hello", "expected 'cuckoo-audit-subject 1"},
      {"cuckoo-audit-subject", "protocol version"},
      {"cuckoo-audit-subject x kind=set", "protocol version"},
      {"cuckoo-audit-subject 2 kind=set", "speaks protocol version 2"},
      {"cuckoo-audit-subject 1 capacity=4", "kind= (filter or set) is required"},
      {"cuckoo-audit-subject 1 kind=map", "kind is filter or set"},
      {"cuckoo-audit-subject 1 kind=set capcity=4", "unknown declaration 'capcity'"},
      {"cuckoo-audit-subject 1 kind=set kind=filter", "declared twice"},
      {"cuckoo-audit-subject 1 kind=set capacity=0", "capacity is an integer 1..4194304"},
      {"cuckoo-audit-subject 1 kind=filter fpr=1.5", "fpr is a real number in (0, 1)"},
      {"cuckoo-audit-subject 1 kind=filter fingerprint_bits=33", "1..32"},
      {"cuckoo-audit-subject 1 kind=filter max_copies=0", "max_copies"},
      {"cuckoo-audit-subject 1 kind=set name=9lives", "a name is letters"},
      {"cuckoo-audit-subject 1 kind=set size=maybe", "exact, approximate or absent"},
      {"cuckoo-audit-subject 1 kind=set verbose", "not a key=value"},
  };
  for (const auto& [line, message] : cases) {
    const SubjectError e = thrown_by([&l = line] { cuckoo::audit::parse_handshake(l); });
    EXPECT_EQ(e.failure(), SubjectFailure::kHandshake) << line;
    EXPECT_TRUE(e.is_startup());
    EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << line << ": " << e.what();
  }
}

// Every number the subject declares is read in full: past 2^64 - 1 it is refused naming
// the declaration and the value, never taken modulo 2^64 (which would read
// capacity=18446744073709551617 as 1 and version 18446744073709551617 as 1).
TEST(ExecHandshake, ANumberPast2To64IsRefusedNotWrapped) {
  const std::pair<const char*, const char*> cases[] = {
      {"cuckoo-audit-subject 18446744073709551617 kind=set",
       "the subject speaks protocol version 18446744073709551617; this auditor speaks version 1"},
      {"cuckoo-audit-subject 1 kind=set capacity=18446744073709551617",
       "'capacity=18446744073709551617': 18446744073709551617 is larger than 2^64 - 1"},
      {"cuckoo-audit-subject 1 kind=set capacity=99999999999999999999",
       "'capacity=99999999999999999999': 99999999999999999999 is larger than 2^64 - 1"},
      {"cuckoo-audit-subject 1 kind=filter fingerprint_bits=18446744073709551628",
       "'fingerprint_bits=18446744073709551628': 18446744073709551628 is larger than 2^64 - 1 = "
       "18446744073709551615 (fingerprint_bits is 1..32)"},
      {"cuckoo-audit-subject 1 kind=filter slots_per_bucket=18446744073709551620",
       "'slots_per_bucket=18446744073709551620': 18446744073709551620 is larger than 2^64 - 1"},
      {"cuckoo-audit-subject 1 kind=filter max_copies=18446744073709551617",
       "'max_copies=18446744073709551617': 18446744073709551617 is larger than 2^64 - 1"},
      {"cuckoo-audit-subject 1 kind=set capacity=184467440737095516160",
       "'capacity=184467440737095516160': 184467440737095516160 is larger than 2^64 - 1"},
  };
  for (const auto& [line, message] : cases) {
    const SubjectError e = thrown_by([&l = line] { cuckoo::audit::parse_handshake(l); });
    EXPECT_EQ(e.failure(), SubjectFailure::kHandshake) << line;
    EXPECT_TRUE(has(e.what(), message)) << line << ": " << e.what();
  }
  // Not a number at all stays "not a number", however long.
  EXPECT_TRUE(has(thrown_by([] {
                    cuckoo::audit::parse_handshake("cuckoo-audit-subject 1 kind=set capacity=99999999999999999999x");
                  }).what(),
                  "'capacity=99999999999999999999x': capacity is an integer 1..4194304"));
  // The claims file reads its numbers the same way.
  ExecDeclarations d = cuckoo::audit::parse_handshake("cuckoo-audit-subject 1 kind=set");
  try {
    cuckoo::audit::apply_claims_file(d, "capacity=36893488147419103233\n", "claims.txt");
    ADD_FAILURE() << "capacity 2^65 + 1 accepted as " << d.capacity;
  } catch (const cuckoo::audit::UsageError& e) {
    EXPECT_TRUE(has(e.what(), "claims.txt:1: 'capacity=36893488147419103233': 36893488147419103233 "
                              "is larger than 2^64 - 1"))
        << e.what();
  }
}

// A capacity is at most kMaxAuditCapacity (PROTOCOL.md): a larger one could not be
// filled (C3 sends about 2.3 times the capacity in inserts and holds them in memory), so
// it is bad usage at the handshake, naming capacity, the value and the limit.
TEST(ExecHandshake, ACapacityAboveTheAuditorsLimitIsRefused) {
  EXPECT_EQ(cuckoo::audit::kMaxAuditCapacity, 4194304U);
  EXPECT_EQ(cuckoo::audit::parse_handshake("cuckoo-audit-subject 1 kind=set capacity=4194304").capacity,
            4194304U);
  for (const char* capacity : {"4194305", "18446744073709551615", "1000000000000"}) {
    const std::string line = std::string("cuckoo-audit-subject 1 kind=filter capacity=") + capacity;
    const SubjectError e = thrown_by([&] { cuckoo::audit::parse_handshake(line); });
    EXPECT_EQ(e.failure(), SubjectFailure::kHandshake);
    EXPECT_TRUE(has(e.what(), "'capacity=" + std::string(capacity) +
                                  "': capacity is at most 4194304 (2^22), the largest capacity "
                                  "the auditor audits"))
        << e.what();
  }
  ExecDeclarations d = cuckoo::audit::parse_handshake("cuckoo-audit-subject 1 kind=set capacity=8");
  EXPECT_THROW(cuckoo::audit::apply_claims_file(d, "capacity=4194305\n", "claims.txt"),
               cuckoo::audit::UsageError);
  EXPECT_EQ(d.capacity, 8U);
}

TEST(ExecHandshake, AClaimsFileOverridesAndCompletes) {
  ExecDeclarations d = cuckoo::audit::parse_handshake("cuckoo-audit-subject 1 kind=filter capacity=10");
  cuckoo::audit::apply_claims_file(d, "# ours\n capacity = 20 \n\nfingerprint_bits=8 # f\n", "claims.txt");
  EXPECT_EQ(d.capacity, 20U);
  EXPECT_EQ(d.fingerprint_bits, 8U);
  EXPECT_EQ(d.text(), "kind=filter capacity=20 fingerprint_bits=8");
  try {
    cuckoo::audit::apply_claims_file(d, "capacity=5\nsize=sometimes\n", "claims.txt");
    ADD_FAILURE() << "no error";
  } catch (const cuckoo::audit::UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("claims.txt:2: "), std::string::npos) << e.what();
  }
  EXPECT_THROW(cuckoo::audit::apply_claims_file(d, "capacity=5\ncapacity=6\n", "f"),
               cuckoo::audit::UsageError);
  EXPECT_THROW(cuckoo::audit::apply_claims_file(d, "just words\n", "f"), cuckoo::audit::UsageError);
}

// ---- starting ----

TEST(ExecSession, ACommandThatCannotStartIsAStartFailure) {
  ExecOptions o;
  o.command = {"cuckoo-no-such-command-xyz"};
  ExecSession s(o);
  const SubjectError e = thrown_by([&] { s.start(); });
  EXPECT_EQ(e.failure(), SubjectFailure::kStart);
  EXPECT_NE(std::string(e.what()).find("command not found"), std::string::npos) << e.what();
}

TEST(ExecSession, ASubjectThatDiesBeforeItsHandshakeShowsItsStderr) {
  REQUIRE_PYTHON();
  ExecSession s(py("no-handshake"));
  const SubjectError e = thrown_by([&] { s.start(); });
  EXPECT_EQ(e.failure(), SubjectFailure::kHandshake);
  EXPECT_NE(e.message().find("exited with status 1 before its handshake"), std::string::npos) << e.what();
  EXPECT_NE(e.stderr_tail().find("cannot load the filter library"), std::string::npos);
  EXPECT_NE(std::string(e.what()).find("cannot load the filter library"), std::string::npos);
}

TEST(ExecSession, ASilentSubjectTimesOutAtTheHandshakeAndIsReaped) {
  REQUIRE_PYTHON();
  const auto start = std::chrono::steady_clock::now();
  pid_t pid = -1;
  {
    ExecOptions o = py("silent");
    o.handshake_timeout_seconds = 0.5;
    ExecSession s(o);
    const SubjectError e = thrown_by([&] { s.start(); });
    EXPECT_EQ(e.failure(), SubjectFailure::kHandshake);
    EXPECT_NE(e.message().find("no handshake line within 0.5 s"), std::string::npos) << e.what();
    pid = s.pid();
  }
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(3));
  EXPECT_TRUE(reaped(pid));
}

// ---- a correct subject, one call at a time and pipelined ----

TEST(ExecSubject, AnswersOneCallAtATime) {
  REQUIRE_PYTHON();
  ExecSession s(py("filter"));
  s.start();
  EXPECT_EQ(s.declarations().name, "py.filter");
  EXPECT_EQ(s.traits().fingerprint_bits, 12U);
  EXPECT_EQ(s.traits().trace_parameters.at("keys"), "mixed");
  cuckoo::audit::ExecSubject f = s.instance();
  EXPECT_EQ(f.insert(7), InsertResult::kInserted);
  EXPECT_EQ(f.insert(7), InsertResult::kInserted);
  EXPECT_TRUE(f.contains(7));
  EXPECT_FALSE(f.contains(0));  // the empty key
  EXPECT_EQ(f.size(), 2U);
  EXPECT_TRUE(f.erase(7));
  EXPECT_EQ(f.size(), 1U);
  f.clear();
  EXPECT_EQ(f.size(), 0U);
  // A second instance starts empty (`new`).
  cuckoo::audit::ExecSubject g = s.instance();
  EXPECT_FALSE(g.contains(7));
  EXPECT_EQ(s.close(), std::nullopt);
  EXPECT_EQ(s.stats().starts, 1U);
}

TEST(ExecSubject, APreparedTraceIsSentAtOnceAndServedFromTheRecording) {
  REQUIRE_PYTHON();
  ExecSession s(py("set"));
  s.start();
  Trace t;
  for (std::uint64_t k = 0; k < 50; ++k) t.add(Op::insert(k));
  for (std::uint64_t k = 0; k < 60; ++k) t.add(Op::contains(k));
  t.add(Op::size());
  cuckoo::audit::ExecSubject subject = s.instance();
  subject.prepare(t);
  const std::uint64_t sent = s.stats().requests;
  EXPECT_EQ(sent, 1U + 50U * 2U + 60U + 1U);  // new, inserts with their sizes, lookups, size
  for (std::uint64_t k = 0; k < 50; ++k) {
    EXPECT_EQ(subject.insert(k), InsertResult::kInserted);
    EXPECT_EQ(subject.size(), k + 1);
  }
  for (std::uint64_t k = 0; k < 60; ++k) EXPECT_EQ(subject.contains(k), k < 50) << k;
  EXPECT_EQ(subject.size(), 50U);
  EXPECT_EQ(s.stats().requests, sent);  // nothing more was sent
  // A call that was not announced is answered one at a time, from the right state.
  EXPECT_TRUE(subject.erase(3));
  EXPECT_FALSE(subject.contains(3));
  EXPECT_EQ(subject.size(), 49U);
}

TEST(ExecSubject, TheLookupsAfterFullAreAskedAgainstTheRightState) {
  REQUIRE_C_SUBJECT();
  ExecSession s(c_subject("set", "8"));
  s.start();
  // Fill to capacity, overfill (full: the checker looks up every stored key), erase,
  // overfill again: the checker's model must agree at every step.
  Trace t;
  t.engine = "c.set";
  for (std::uint64_t k = 1; k <= 10; ++k) t.add(Op::insert(k));
  t.add(Op::erase(2));
  t.add(Op::contains(2));
  t.add(Op::insert(11));
  t.add(Op::insert(12));
  t.add(Op::size());
  t.parameters.set("kind", "exact_set");
  EXPECT_EQ(cuckoo::audit::replay_exec(s, t), std::nullopt);
  EXPECT_GE(s.stats().resyncs, 1U);
  EXPECT_EQ(s.stats().starts, 1U);
}

TEST(ExecSubject, DeclaredAbsentSizesAreNeverAsked) {
  REQUIRE_PYTHON();
  // The subject answers `error` to `size`: the audit must never send one.
  ExecSession s(py("filter-no-size"));
  s.start();
  EXPECT_FALSE(s.traits().erase_supported);
  EXPECT_FALSE(s.traits().clear_supported);
  EXPECT_EQ(s.traits().size, ExecSizeMode::kAbsent);
  cuckoo::audit::AuditOptions o;
  o.traces = 30;
  o.fpr_queries = 5000;
  const cuckoo::audit::Report r = cuckoo::audit::audit_exec(s, o);
  EXPECT_TRUE(r.all_passed());
  for (const auto& c : r.results) {
    EXPECT_NE(c.configuration.find("size=absent"), std::string::npos);
    EXPECT_NE(c.verdict, Verdict::kFail) << c.claim << ": " << c.summary;
  }
  // A trace's own size op is answered from the model, not sent.
  Trace t;
  t.add(Op::insert(1));
  t.add(Op::size());
  EXPECT_EQ(cuckoo::audit::replay_exec(s, t), std::nullopt);
}

// ---- misbehaviour ----

// The SubjectError a fresh instance of `mode` throws when fed keys 1, 2, ... until it fails.
SubjectError drive_until_failure(ExecSession& s) {
  return thrown_by([&] {
    cuckoo::audit::ExecSubject subject = s.instance();
    for (std::uint64_t k = 1; k < 100; ++k) {
      subject.insert(k);
      subject.contains(k);
      subject.size();
    }
  });
}

TEST(ExecMisbehaviour, ACrashIsASignalFailureWithTheStderrTailAndTheNextInstanceRestarts) {
  REQUIRE_PYTHON();
  ExecSession s(py("crash"));
  s.start();
  const pid_t first = s.pid();
  const SubjectError e = drive_until_failure(s);
  EXPECT_EQ(e.failure(), SubjectFailure::kSignaled);
  EXPECT_NE(e.message().find("killed by signal 6 (SIGABRT)"), std::string::npos) << e.what();
  EXPECT_NE(e.stderr_tail().find("table corrupted with 5 keys"), std::string::npos);
  EXPECT_TRUE(reaped(first));
  cuckoo::audit::ExecSubject again = s.instance();
  EXPECT_EQ(again.insert(1), InsertResult::kInserted);
  EXPECT_EQ(s.stats().starts, 2U);
}

TEST(ExecMisbehaviour, ACrashThatLosesPipelinedAnswersIsBlamedOnTheRequestThatCausedIt) {
  REQUIRE_PYTHON();
  // The subject aborts at the first keyed request once 5 keys are stored, without writing
  // the answers it holds: all of them are lost, `ok` to `new` included. The adapter sends
  // the rest again one request at a time and so blames the 6th insert, not the first.
  ExecSession s(py("crash-buffered"));
  s.start();
  Trace t;
  for (std::uint64_t k = 0; k < 12; ++k) t.add(Op::insert(k));
  cuckoo::audit::ExecSubject subject = s.instance();
  subject.prepare(t);
  for (std::uint64_t k = 0; k < 5; ++k) {
    EXPECT_EQ(subject.insert(k), InsertResult::kInserted) << k;
    EXPECT_EQ(subject.size(), k + 1);
  }
  const SubjectError e = thrown_by([&] { (void)subject.insert(5); });
  EXPECT_EQ(e.failure(), SubjectFailure::kSignaled);
  EXPECT_TRUE(has(e.message(), "killed by signal 6 (SIGABRT) before answering 'insert ")) << e.what();
  EXPECT_TRUE(has(e.message(), "[trace key 5]")) << e.what();
  EXPECT_TRUE(has(e.stderr_tail(), "table corrupted with 5 keys"));
}

TEST(ExecMisbehaviour, AnEarlyExitNamesTheStatus) {
  REQUIRE_PYTHON();
  ExecSession s(py("exit"));
  s.start();
  const SubjectError e = drive_until_failure(s);
  EXPECT_EQ(e.failure(), SubjectFailure::kExited);
  EXPECT_NE(e.message().find("exited with status 3"), std::string::npos) << e.what();
  EXPECT_NE(e.stderr_tail().find("giving up"), std::string::npos);
}

TEST(ExecMisbehaviour, AHangIsATimeoutAndTheSubjectIsKilledAndReaped) {
  REQUIRE_PYTHON();
  ExecSession s(py("hang", 1));
  s.start();
  const pid_t pid = s.pid();
  const auto start = std::chrono::steady_clock::now();
  const SubjectError e = drive_until_failure(s);
  EXPECT_EQ(e.failure(), SubjectFailure::kTimeout);
  EXPECT_NE(e.message().find("within 1 s"), std::string::npos) << e.what();
  EXPECT_NE(e.stderr_tail().find("thinking very hard"), std::string::npos);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  EXPECT_TRUE(reaped(pid));
  EXPECT_EQ(::kill(pid, 0), -1);
}

TEST(ExecMisbehaviour, AfterAHangShrinkingGetsAShortTimeoutAndEverythingElseTheFullOne) {
  REQUIRE_PYTHON();
  ExecSession s(py("hang", 2));
  s.start();
  EXPECT_EQ(s.response_timeout(), 2);
  s.set_shrinking(true);
  EXPECT_EQ(s.response_timeout(), 2) << "no hang yet: shrinking keeps the full timeout";
  s.set_shrinking(false);
  const SubjectError first = drive_until_failure(s);
  ASSERT_EQ(first.failure(), SubjectFailure::kTimeout) << first.what();
  EXPECT_NE(first.message().find("within 2 s (--timeout)"), std::string::npos) << first.what();
  EXPECT_EQ(s.response_timeout(), 2) << "not shrinking: the full timeout";
  s.set_shrinking(true);
  EXPECT_LT(s.response_timeout(), 2);
  EXPECT_GE(s.response_timeout(), cuckoo::audit::kMinShrinkTimeoutSeconds);
  const SubjectError again = drive_until_failure(s);
  ASSERT_EQ(again.failure(), SubjectFailure::kTimeout) << again.what();
  EXPECT_NE(again.message().find("shortened while shrinking after a hang: --timeout is 2 s"),
            std::string::npos)
      << again.what();
  s.set_shrinking(false);
  EXPECT_EQ(s.response_timeout(), 2);
}

TEST(ExecMisbehaviour, AnInvalidResponseNamesTheRequestAndTheLine) {
  REQUIRE_PYTHON();
  ExecSession s(py("garbage"));
  s.start();
  const SubjectError e = drive_until_failure(s);
  EXPECT_EQ(e.failure(), SubjectFailure::kInvalidResponse);
  EXPECT_NE(e.message().find("with 'banana' (expected yes or no"), std::string::npos) << e.what();
  EXPECT_NE(e.message().find("'contains x"), std::string::npos) << e.what();
}

// A size past 2^64 - 1 is an invalid answer that says so; read modulo 2^64 the subject's
// "count + 2^64" would be the right count and pass.
TEST(ExecMisbehaviour, ASizePast2To64IsInvalidNotWrapped) {
  REQUIRE_PYTHON();
  ExecSession s(py("size-past-2-64"));
  s.start();
  const SubjectError e = drive_until_failure(s);
  EXPECT_EQ(e.failure(), SubjectFailure::kInvalidResponse) << e.what();
  EXPECT_TRUE(has(e.message(), "answered 'size' with '18446744073709551617', a number larger than "
                               "2^64 - 1 (expected a decimal integer or unknown"))
      << e.what();
}

TEST(ExecMisbehaviour, ControlBytesAreGarbage) {
  REQUIRE_PYTHON();
  ExecSession s(py("binary"));
  s.start();
  const SubjectError e = drive_until_failure(s);
  EXPECT_EQ(e.failure(), SubjectFailure::kGarbage);
  EXPECT_NE(e.message().find("y\\x01es"), std::string::npos) << e.what();
}

TEST(ExecMisbehaviour, AnErrorResponseCarriesItsText) {
  REQUIRE_PYTHON();
  ExecSession s(py("error"));
  s.start();
  cuckoo::audit::ExecSubject subject = s.instance();
  subject.insert(5);
  const SubjectError e = thrown_by([&] { subject.erase(5); });
  EXPECT_EQ(e.failure(), SubjectFailure::kErrorResponse);
  EXPECT_NE(e.message().find("error erase is not implemented"), std::string::npos) << e.what();
  // The process lives on: an error answer is not a crash.
  EXPECT_TRUE(subject.contains(5));
}

TEST(ExecMisbehaviour, OutputNobodyAskedForIsCaught) {
  REQUIRE_PYTHON();
  ExecSession s(py("extra"));
  s.start();
  cuckoo::audit::ExecSubject subject = s.instance();
  const SubjectError e = thrown_by([&] { subject.insert(1); });
  // `new` goes alone (one request at a time), so the second "ok" is found waiting before
  // the insert is sent; had it come late, it would be taken as the insert's answer.
  if (e.failure() == SubjectFailure::kUnsolicited) {
    EXPECT_TRUE(has(e.message(), "wrote 'ok' with no request outstanding (before 'insert ")) << e.what();
  } else {
    EXPECT_EQ(e.failure(), SubjectFailure::kInvalidResponse) << e.what();
    EXPECT_TRUE(has(e.message(), "with 'ok'")) << e.what();
  }
}

TEST(ExecMisbehaviour, ResponsesOutOfOrderAreInvalidWhenPipelinedAndATimeoutOtherwise) {
  REQUIRE_PYTHON();
  ExecSession s(py("swap", 1));
  s.start();
  // Pipelined: the 6th response (a size) comes where the 5th (insert 3) belongs.
  Trace t;
  for (std::uint64_t k = 1; k < 10; ++k) t.add(Op::insert(k));
  cuckoo::audit::ExecSubject subject = s.instance();
  subject.prepare(t);
  const SubjectError e = thrown_by([&] {
    for (std::uint64_t k = 1; k < 10; ++k) {
      subject.insert(k);
      subject.size();
    }
  });
  EXPECT_EQ(e.failure(), SubjectFailure::kInvalidResponse) << e.what();
  EXPECT_NE(e.message().find("with '3' (expected inserted"), std::string::npos) << e.what();
  // One at a time, the held-back response never comes.
  const SubjectError late = drive_until_failure(s);
  EXPECT_EQ(late.failure(), SubjectFailure::kTimeout) << late.what();
}

TEST(ExecMisbehaviour, OutputBeforeAnyRequestIsUnsolicited) {
  REQUIRE_PYTHON();
  ExecSession s(py("chatty"));
  s.start();
  cuckoo::audit::ExecSubject subject = s.instance();
  const SubjectError e = thrown_by([&] { subject.insert(1); });
  EXPECT_EQ(e.failure(), SubjectFailure::kUnsolicited);
  EXPECT_NE(e.message().find("wrote 'ready!' with no request outstanding"), std::string::npos) << e.what();
}

TEST(ExecMisbehaviour, AnExitBetweenRequestsIsFoundAtTheNextOne) {
  REQUIRE_PYTHON();
  ExecSession s(py("quit"));
  s.start();
  {
    cuckoo::audit::ExecSubject first = s.instance();
    first.insert(1);
    EXPECT_EQ(first.size(), 1U);
  }
  cuckoo::audit::ExecSubject second = s.instance();
  second.insert(1);
  EXPECT_EQ(second.size(), 1U);  // answered, then it exits
  const SubjectError e = thrown_by([&] { second.contains(1); });
  EXPECT_EQ(e.failure(), SubjectFailure::kExited);
  // Seen before the request is sent or while it waits for the answer, as the exit races it.
  EXPECT_NE(e.message().find("exited with status 0"), std::string::npos) << e.what();
}

// ---- audits ----

TEST(ExecAudit, ACorrectCSubjectPassesAndFastEnough) {
  REQUIRE_C_SUBJECT();
  ExecSession s(c_subject("filter", "100"));
  s.start();
  cuckoo::audit::AuditOptions o;
  o.traces = 20;
  o.fpr_queries = 50'000;
  const cuckoo::audit::Report r = cuckoo::audit::audit_exec(s, o);
  for (const auto& c : r.results) {
    EXPECT_NE(c.verdict, Verdict::kFail) << c.claim << ": " << c.summary;
  }
  EXPECT_NE(r.subject.find("capacity=100"), std::string::npos) << r.subject;
  EXPECT_EQ(s.stats().starts, 1U);
  EXPECT_EQ(s.close(), std::nullopt);
  // Pipelined: far more requests than round trips would allow in the time taken.
  EXPECT_GT(static_cast<double>(s.stats().requests) / r.seconds, 20'000.0)
      << s.stats().requests << " requests in " << r.seconds << " s";
}

TEST(ExecAudit, AForgetfulSetFailsWithACounterexampleThatReplays) {
  REQUIRE_PYTHON();
  ExecSession s(py("forgetful"));
  s.start();
  cuckoo::audit::AuditOptions o;
  o.traces = 20;
  o.claims = {"C7"};
  const cuckoo::audit::Report r = cuckoo::audit::audit_exec(s, o);
  const auto& c7 = result_for(r, "C7");
  ASSERT_EQ(c7.verdict, Verdict::kFail);
  ASSERT_TRUE(c7.counterexample.has_value());
  EXPECT_LE(c7.counterexample->shrunk_ops, 6U) << c7.counterexample->trace;
  const Trace trace = cuckoo::model::parse_trace(c7.counterexample->trace);
  EXPECT_EQ(trace.parameters.get_string("keys"), "mixed");
  EXPECT_TRUE(cuckoo::audit::replay_exec(s, trace).has_value());
  ExecSession correct(py("set"));
  correct.start();
  EXPECT_FALSE(cuckoo::audit::replay_exec(correct, trace).has_value());
}

TEST(ExecAudit, ACrashingSubjectIsAFindingPerClaimNotACrashOfTheAuditor) {
  REQUIRE_PYTHON();
  ExecSession s(py("crash"));
  s.start();
  cuckoo::audit::AuditOptions o;
  o.traces = 20;
  o.claims = {"C1"};
  const cuckoo::audit::Report r = cuckoo::audit::audit_exec(s, o);
  ASSERT_EQ(r.results.size(), 1U);
  EXPECT_EQ(r.results[0].verdict, Verdict::kFail);
  EXPECT_NE(r.results[0].summary.find("SIGABRT"), std::string::npos) << r.results[0].summary;
  ASSERT_TRUE(r.results[0].counterexample.has_value());
  EXPECT_LE(r.results[0].counterexample->shrunk_ops, 8U);
}

// The subject runs in its own process, so an allocation that fails in the auditor's is the
// auditor's resource limit: the audit ends in AuditorResourceError, not in a finding
// against the subject, even when the failure was caught on the way (the checker turns an
// exception during a trace into a violation). Simulated through what operator new does
// when it cannot allocate: it calls the new-handler, whose bad_alloc is caught here as
// the checker would catch it.
TEST(ExecAudit, TheAuditorsOwnAllocationFailureIsItsLimitNotAFinding) {
  REQUIRE_PYTHON();
  ExecSession s(py("set"));
  s.start();
  cuckoo::audit::AuditOptions o;
  o.traces = 5;
  o.claims = {"C1", "C7"};
  bool failed_once = false;
  o.on_step = [&failed_once](const std::string& step) {
    if (failed_once || step.rfind("C7", 0) != 0) return;
    failed_once = true;
    const std::new_handler handler = std::get_new_handler();
    ASSERT_NE(handler, nullptr) << "no new-handler watches the auditor's allocations";
    try {
      handler();
      ADD_FAILURE() << "the new-handler returned without memory to give";
    } catch (const std::bad_alloc&) {
    }
  };
  try {
    const cuckoo::audit::Report r = cuckoo::audit::audit_exec(s, o);
    ADD_FAILURE() << "the audit reported on the subject: " << r.results.size() << " results";
  } catch (const cuckoo::audit::AuditorResourceError& e) {
    EXPECT_TRUE(has(e.what(), "the auditor ran out of memory auditing a subject that declares "
                              "capacity=64"))
        << e.what();
    EXPECT_TRUE(has(e.what(), "not a finding about the subject")) << e.what();
  }
  EXPECT_TRUE(failed_once);
  // The handler is the one from before the audit again.
  EXPECT_EQ(std::get_new_handler(), nullptr);
  // A bad_alloc that escapes the checks is the auditor's too.
  o.on_step = [](const std::string& step) {
    if (step.rfind("C7", 0) == 0) throw std::bad_alloc();
  };
  EXPECT_THROW(cuckoo::audit::audit_exec(s, o), cuckoo::audit::AuditorResourceError);
  // And the session still serves a normal audit afterwards.
  o.on_step = nullptr;
  EXPECT_TRUE(cuckoo::audit::audit_exec(s, o).all_passed());
}

TEST(ExecAudit, ASubjectThatAnswersDifferentlyWhenAskedAgainIsNotDeterministic) {
  REQUIRE_PYTHON();
  ExecSession s(py("flaky"));
  s.start();
  cuckoo::audit::AuditOptions o;
  o.traces = 10;
  o.claims = {"C6"};
  const cuckoo::audit::Report r = cuckoo::audit::audit_exec(s, o);
  ASSERT_EQ(r.results.size(), 1U);
  EXPECT_EQ(r.results[0].verdict, Verdict::kFail);
  EXPECT_NE(r.results[0].summary.find("not deterministic"), std::string::npos) << r.results[0].summary;
}

// ---- what the audit used to miss, through the protocol ----

TEST(ExecAudit, ASizeThatLeavesOutTheVictimFailsC5AndTheOtherClaimsAreStillChecked) {
  REQUIRE_PYTHON();
  ExecSession s(py("victim"));
  s.start();
  cuckoo::audit::AuditOptions o;
  o.traces = 20;
  o.fpr_queries = 5000;
  const cuckoo::audit::Report r = cuckoo::audit::audit_exec(s, o);
  const auto& c5 = result_for(r, "C5");
  ASSERT_EQ(c5.verdict, Verdict::kFail) << c5.summary;
  EXPECT_TRUE(has(c5.summary, "(size:")) << c5.summary;
  for (const char* claim : {"C1", "C2", "C6"}) {
    EXPECT_EQ(result_for(r, claim).verdict, Verdict::kPass) << claim << ": " << result_for(r, claim).summary;
  }
  // And the victim slot refuses everything from 9 stored items on: C3.
  const auto& c3 = result_for(r, "C3");
  ASSERT_EQ(c3.verdict, Verdict::kFail) << c3.summary;
  ASSERT_TRUE(c3.counterexample.has_value());
  const Trace trace = cuckoo::model::parse_trace(c3.counterexample->trace);
  const auto v = cuckoo::audit::replay_exec(s, trace);
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(v->claim, "C3");
  // The metadata come with the report.
  EXPECT_FALSE(r.tool_version.empty());
  EXPECT_FALSE(r.started_utc.empty());
}

TEST(ExecAudit, AnApproximateSizeIsHeldToItsToleranceOnly) {
  REQUIRE_PYTHON();
  ExecSession s(py("victim-approx"));
  s.start();
  EXPECT_EQ(s.traits().size, ExecSizeMode::kApproximate);
  cuckoo::audit::AuditOptions o;
  o.traces = 20;
  o.claims = {"C1", "C5", "C6"};
  const cuckoo::audit::Report r = cuckoo::audit::audit_exec(s, o);
  for (const auto& c : r.results) EXPECT_EQ(c.verdict, Verdict::kPass) << c.claim << ": " << c.summary;
}

TEST(ExecAudit, AFilterThatStoresNothingFailsC2) {
  REQUIRE_PYTHON();
  ExecSession s(py("hollow"));
  s.start();
  cuckoo::audit::AuditOptions o;
  o.claims = {"C2"};
  o.fpr_queries = 5000;
  const cuckoo::audit::Report r = cuckoo::audit::audit_exec(s, o);
  const auto& c2 = result_for(r, "C2");
  EXPECT_EQ(c2.verdict, Verdict::kFail) << c2.summary;
  EXPECT_TRUE(has(c2.summary, "does not find")) << c2.summary;
  // The lost keys are C1's finding too, with a trace from C2's fill.
  EXPECT_EQ(result_for(r, "C1").verdict, Verdict::kFail) << result_for(r, "C1").summary;
}

TEST(ExecAudit, AFailureThatDoesNotRepeatIsMarkedNotReproducible) {
  REQUIRE_PYTHON();
  ExecSession s(py("coin"));
  s.start();
  cuckoo::audit::AuditOptions o;
  o.traces = 20;
  o.claims = {"C1"};
  const cuckoo::audit::Report r = cuckoo::audit::audit_exec(s, o);
  const auto& c1 = result_for(r, "C1");
  ASSERT_EQ(c1.verdict, Verdict::kFail) << c1.summary;
  EXPECT_TRUE(has(c1.summary, "NOT REPRODUCIBLE")) << c1.summary;
}

// Whether `pid` is gone or dead (a zombie: its parent died, and PID 1 may be slow to reap it).
bool dead(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text;
  if (!std::getline(stat, text)) return true;
  const std::size_t paren = text.rfind(')');
  return paren != std::string::npos && paren + 2 < text.size() &&
         (text[paren + 2] == 'Z' || text[paren + 2] == 'X');
}

TEST(ExecAudit, AnInterruptedAuditorLeavesNoSubjectRunning) {
  REQUIRE_PYTHON();
  // A child process plays the auditor: it installs the CLI's handlers, starts a subject,
  // reports its pid and sends a request, which the subject never answers: it sleeps
  // (after creating the mark file), so it would not notice its auditor's end by reading
  // end of file. SIGTERM to the child must take the subject down with it.
  const std::string mark =
      (std::filesystem::temp_directory_path() / ("cuckoo-hang-" + std::to_string(::getpid()))).string();
  std::filesystem::remove(mark);
  ::setenv("CUCKOO_TEST_HANG_MARK", mark.c_str(), 1);
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::close(fds[0]);
    try {
      cuckoo::audit::stop_subjects_on_fatal_signals();
      static ExecSession s(py("hang-at-once", 600));
      s.start();
      const pid_t subject = s.pid();
      if (::write(fds[1], &subject, sizeof subject) != sizeof subject) ::_exit(4);
      cuckoo::audit::ExecSubject instance = s.instance();
      (void)instance.insert(1);  // waits for the answer (600 s)
    } catch (...) {
      ::_exit(3);
    }
    ::_exit(5);
  }
  ::close(fds[1]);
  pid_t subject = -1;
  const ssize_t got = ::read(fds[0], &subject, sizeof subject);
  ::close(fds[0]);
  bool hanging = false;  // the mark file exists: the subject is asleep
  for (int i = 0; i < 1000 && got == static_cast<ssize_t>(sizeof subject) && !hanging; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    hanging = std::filesystem::exists(mark);
  }
  std::filesystem::remove(mark);
  if (got != static_cast<ssize_t>(sizeof subject) || !hanging) ::kill(child, SIGKILL);
  ASSERT_EQ(got, static_cast<ssize_t>(sizeof subject));
  ASSERT_TRUE(hanging) << "the subject did not reach its first request within 10 s";
  ASSERT_GT(subject, 0);
  EXPECT_FALSE(dead(subject));
  ASSERT_EQ(::kill(child, SIGTERM), 0);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM) << "wait status " << status;
  bool gone = dead(subject);
  for (int i = 0; i < 300 && !gone; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    gone = dead(subject);
  }
  EXPECT_TRUE(gone) << "subject " << subject << " outlived the auditor";
  if (!gone) ::kill(-subject, SIGKILL);
}

TEST(ExecAudit, NoSubjectProcessOutlivesItsSession) {
  REQUIRE_PYTHON();
  pid_t pid = -1;
  {
    ExecSession s(py("set"));
    s.start();
    pid = s.pid();
    cuckoo::audit::ExecSubject subject = s.instance();
    subject.insert(1);
    ASSERT_GT(pid, 0);
  }  // no close: the destructor stops it
  EXPECT_TRUE(reaped(pid));
  EXPECT_EQ(::kill(pid, 0), -1);
}

}  // namespace
