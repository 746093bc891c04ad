// Tests of exec counterexample files (exec.hpp, "key legends"; trace_check.hpp
// annotate_failing_op): every key's bytes in full and read back exactly, and one op
// numbering in the summary, the trace file and the replay.
#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "cuckoo/audit/exec.hpp"
#include "cuckoo/audit/trace_check.hpp"
#include "cuckoo/model/trace.hpp"
#include "cuckoo/model/violation.hpp"

namespace {

using cuckoo::audit::ExecKeys;
using cuckoo::model::Op;
using cuckoo::model::Trace;

constexpr std::string_view kPython = CUCKOO_PYTHON3;
constexpr std::string_view kPySubject = CUCKOO_EXEC_PY_SUBJECT;

bool have_python() { return !kPython.empty() && kPython.find("NOTFOUND") == std::string_view::npos; }

cuckoo::model::TraceEntry entry(const Op& op) {
  cuckoo::model::TraceEntry e;
  e.op = op;
  return e;
}

// A trace over keys 1..n (each inserted, then looked up).
Trace trace_of_keys(std::uint64_t n) {
  Trace t;
  t.engine = "py.set";
  t.parameters.set("keys", "mixed");
  for (std::uint64_t k = 1; k <= n; ++k) t.entries.push_back(entry(Op::insert(k)));
  for (std::uint64_t k = 1; k <= n; ++k) t.entries.push_back(entry(Op::contains(k)));
  return t;
}

std::size_t count(const std::string& haystack, const std::string& needle) {
  std::size_t n = 0;
  for (std::size_t at = haystack.find(needle); at != std::string::npos;
       at = haystack.find(needle, at + needle.size())) {
    ++n;
  }
  return n;
}

TEST(ExecTraceKeys, EveryKeyInFullAndReadBackExactly) {
  // 300 keys of the mixed encoding: decimal, words, long words, URLs, binary with zero
  // bytes, keys of 1 to 4 KiB.
  const Trace trace = trace_of_keys(300);
  const std::string file = cuckoo::model::print_trace(trace) +
                           cuckoo::audit::key_legend(trace, ExecKeys::kMixed);
  EXPECT_EQ(count(file, "\n# key "), 300u) << "a key line is missing";
  EXPECT_EQ(file.find("..."), std::string::npos) << "a key was cut";
  EXPECT_EQ(file.find("more"), std::string::npos) << "the legend stopped early";
  // Still a trace (the legend is comments), and every key's bytes come back exactly.
  EXPECT_EQ(cuckoo::model::parse_trace(file).entries.size(), 600u);
  const std::map<std::uint64_t, std::string> read = cuckoo::audit::read_key_legend(file);
  ASSERT_EQ(read.size(), 300u);
  std::size_t long_keys = 0;
  std::size_t binary_keys = 0;
  for (std::uint64_t k = 1; k <= 300; ++k) {
    const std::string bytes = cuckoo::audit::encode_key(ExecKeys::kMixed, k);
    ASSERT_EQ(read.at(k), bytes) << "key " << k;
    if (bytes.size() > 1000) ++long_keys;
    if (bytes.find('\0') != std::string::npos) ++binary_keys;
  }
  EXPECT_GT(long_keys, 0u) << "the sample has no key over 1000 bytes";
  EXPECT_GT(binary_keys, 0u) << "the sample has no key with a zero byte";
}

TEST(ExecTraceKeys, AnyByteStringRoundTrips) {
  std::string all;
  for (int b = 0; b < 256; ++b) all += static_cast<char>(b);
  const std::string text = "# key 7 = " + cuckoo::audit::protocol_key(all) +
                           "\n# key 8 = x\n# key 9 = x0A23 (contains and erase spell it in upper case)\n";
  const auto read = cuckoo::audit::read_key_legend(text);
  EXPECT_EQ(read.at(7), all);
  EXPECT_EQ(read.at(8), "");
  EXPECT_EQ(read.at(9), "\n#");
  EXPECT_THROW(cuckoo::audit::read_key_legend("# key 1 = x0g\n"), std::invalid_argument);
  EXPECT_THROW(cuckoo::audit::read_key_legend("# key 1 = x0\n"), std::invalid_argument);
  EXPECT_THROW(cuckoo::audit::read_key_legend("# key 1 = x00\n# key 1 = x01\n"),
               std::invalid_argument);
}

TEST(ExecTraceKeys, FailingOpIsMarkedWithItsOpNumber) {
  Trace t;
  t.engine = "filter";
  t.entries = {entry(Op::insert(1)), entry(Op::insert(2)), entry(Op::contains(1))};
  cuckoo::model::Violation v;
  v.claim = "C1";
  v.op_index = 2;
  v.op = Op::contains(1);
  v.expected = "true\nsecond line";
  v.actual = "false";
  const std::string text = cuckoo::audit::annotate_failing_op(cuckoo::model::print_trace(t), v);
  EXPECT_NE(text.find("contains 1  # op 3: fails here (C1)\n"), std::string::npos) << text;
  EXPECT_NE(text.find("# fails at op 3 (C1)"), std::string::npos) << text;
  EXPECT_EQ(cuckoo::model::parse_trace(text).entries.size(), 3u) << text;
}

// A subject that loses keys: the op number of the failure is the same in the result's
// summary, in the trace file's comments and in what a replay finds, and the replay sends
// the bytes the file lists.
TEST(ExecTraceKeys, OneOpNumberInSummaryTraceAndReplay) {
  if (!have_python()) GTEST_SKIP() << "python3 not found";
  cuckoo::audit::ExecOptions options;
  options.command = {std::string(kPython), std::string(kPySubject), "forgetful"};
  options.timeout_seconds = 5;
  cuckoo::audit::ExecSession s(options);
  s.start();
  cuckoo::audit::AuditOptions o;
  o.traces = 20;
  o.claims = {"C7"};
  const cuckoo::audit::Report r = cuckoo::audit::audit_exec(s, o);
  const cuckoo::audit::ClaimResult* c7 = nullptr;
  for (const auto& result : r.results) {
    if (result.claim == "C7") c7 = &result;
  }
  ASSERT_NE(c7, nullptr);
  ASSERT_TRUE(c7->counterexample.has_value());
  const cuckoo::audit::Counterexample& cx = *c7->counterexample;
  const std::string n = std::to_string(cx.failing_op);
  ASSERT_GT(cx.failing_op, 0u);
  EXPECT_NE(c7->summary.find("fails at op " + n + "."), std::string::npos) << c7->summary;
  EXPECT_NE(cx.trace.find("# op " + n + ": fails here"), std::string::npos) << cx.trace;
  EXPECT_NE(cx.trace.find("# fails at op " + n + " "), std::string::npos) << cx.trace;

  // The file as `cuckoo-audit exec` writes it (trace, then the key legend), replayed with
  // the bytes it lists.
  const Trace trace = cuckoo::model::parse_trace(cx.trace);
  const std::string file = cx.trace + cuckoo::audit::key_legend(trace, ExecKeys::kMixed);
  cuckoo::audit::ExecOptions replay_options = options;
  replay_options.key_bytes = cuckoo::audit::read_key_legend(file);
  EXPECT_FALSE(replay_options.key_bytes.empty());
  cuckoo::audit::ExecSession replay(replay_options);
  replay.start();
  const auto violation = cuckoo::audit::replay_exec(replay, cuckoo::model::parse_trace(file));
  ASSERT_TRUE(violation.has_value());
  EXPECT_EQ(cuckoo::model::op_number(*violation), cx.failing_op);
}

// A subject that stops answering: the finding says what to do about it, in the terms of
// audit/PROTOCOL.md (flush stdout after each response, or a longer --timeout).
TEST(ExecMessages, ATimeoutSuggestsFlushingAndALongerTimeout) {
  if (!have_python()) GTEST_SKIP() << "python3 not found";
  cuckoo::audit::ExecOptions options;
  options.command = {std::string(kPython), std::string(kPySubject), "hang"};  // sleeps at request 30
  options.timeout_seconds = 0.5;
  cuckoo::audit::ExecSession s(options);
  s.start();
  const auto violation = cuckoo::audit::replay_exec(s, trace_of_keys(40));
  ASSERT_TRUE(violation.has_value());
  EXPECT_NE(violation->actual.find("flush its stdout after each response"), std::string::npos)
      << violation->actual;
  EXPECT_NE(violation->actual.find("--timeout SECONDS"), std::string::npos) << violation->actual;
}

}  // namespace
