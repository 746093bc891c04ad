// The op language and the trace format: names, parsing, canonical printing, the round
// trip, rejection of malformed input with the right line and a message that says what
// was expected, typed header parameters, and robustness on arbitrary bytes.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "cuckoo/model/op.hpp"
#include "cuckoo/model/trace.hpp"
#include "test_support.hpp"

namespace {

using cuckoo::model::InsertResult;
using cuckoo::model::kAllInsertResults;
using cuckoo::model::kAllOpKinds;
using cuckoo::model::Op;
using cuckoo::model::OpKind;
using cuckoo::model::OpResult;
using cuckoo::model::parse_insert_result;
using cuckoo::model::parse_op_kind;
using cuckoo::model::parse_trace;
using cuckoo::model::print_trace;
using cuckoo::model::result_kind_of;
using cuckoo::model::ResultKind;
using cuckoo::model::Trace;
using cuckoo::model::TraceEntry;
using cuckoo::model::TraceError;
using cuckoo::model::TraceParameters;
using cuckoo::model::testing::base_seed;
using cuckoo::model::testing::reproduce_hint;
using cuckoo::model::testing::TestRng;

constexpr std::uint64_t kMaxKey = std::numeric_limits<std::uint64_t>::max();

// ---- names ----

TEST(OpLanguage, InsertResultNamesMatchTheEngine) {
  EXPECT_EQ(to_string(InsertResult::kInserted), "inserted");
  EXPECT_EQ(to_string(InsertResult::kUpdated), "updated");
  EXPECT_EQ(to_string(InsertResult::kExists), "exists");
  EXPECT_EQ(to_string(InsertResult::kFull), "full");
  EXPECT_EQ(to_string(InsertResult::kDuplicateLimit), "duplicate_limit");
  for (const InsertResult r : kAllInsertResults) EXPECT_EQ(parse_insert_result(to_string(r)), r);
  EXPECT_EQ(parse_insert_result("Inserted"), std::nullopt);
}

TEST(OpLanguage, OpKindNamesRoundTrip) {
  for (const OpKind kind : kAllOpKinds) EXPECT_EQ(parse_op_kind(to_string(kind)), kind);
  EXPECT_EQ(parse_op_kind("serialize-roundtrip"), std::nullopt);
  EXPECT_EQ(parse_op_kind(""), std::nullopt);
}

TEST(OpLanguage, OpsPrintAsTraceLines) {
  EXPECT_EQ(to_string(Op::insert(42)), "insert 42");
  EXPECT_EQ(to_string(Op::insert(5, 7)), "insert 5 7");
  EXPECT_EQ(to_string(Op::insert_or_assign(5, 0)), "insert_or_assign 5 0");
  EXPECT_EQ(to_string(Op::contains(kMaxKey)), "contains 18446744073709551615");
  EXPECT_EQ(to_string(Op::find(1)), "find 1");
  EXPECT_EQ(to_string(Op::erase(2)), "erase 2");
  EXPECT_EQ(to_string(Op::size()), "size");
  EXPECT_EQ(to_string(Op::serialize_roundtrip()), "serialize_roundtrip");
  EXPECT_EQ(to_string(Op::clear()), "clear");
}

TEST(OpLanguage, EqualityIgnoresFieldsTheKindDoesNotUse) {
  EXPECT_EQ((Op{OpKind::kSize, 5, 6}), Op::size());
  EXPECT_EQ((Op{OpKind::kContains, 5, 9}), Op::contains(5));
  EXPECT_NE(Op::insert(1, 2), Op::insert(1, 3));
  EXPECT_NE(Op::contains(1), Op::erase(1));
  OpResult a = OpResult::of_bool(true);
  a.size = 99;
  EXPECT_EQ(a, OpResult::of_bool(true));
  EXPECT_NE(OpResult::of_find(std::nullopt), OpResult::of_find(0));
  EXPECT_NE(OpResult::of_size(0), OpResult::of_bool(false));
}

TEST(OpLanguage, ResultsPrintAsAfterTheArrow) {
  EXPECT_EQ(to_string(OpResult::of_bool(false)), "false");
  EXPECT_EQ(to_string(OpResult::of_insert(InsertResult::kDuplicateLimit)), "duplicate_limit");
  EXPECT_EQ(to_string(OpResult::of_find(std::nullopt)), "none");
  EXPECT_EQ(to_string(OpResult::of_find(8)), "8");
  EXPECT_EQ(to_string(OpResult::of_size(3)), "3");
  EXPECT_EQ(to_string(OpResult::none()), "");
}

// ---- parsing ----

TEST(TraceFormat, ParsesTheDesignExample) {
  const Trace trace = parse_trace(
      "# cuckoo trace v1\n"
      "engine filter fingerprint_bits=8 slots_per_bucket=4 capacity=64 seed=12345\n"
      "insert 42\n"
      "contains 7\n"
      "erase 42\n"
      "insert_or_assign 5 99\n"
      "size\n");
  EXPECT_EQ(trace.engine, "filter");
  EXPECT_EQ(trace.parameters.line(), 2U);
  EXPECT_EQ(trace.parameters.get_u64("fingerprint_bits"), 8U);
  EXPECT_EQ(trace.parameters.get_u64_in("slots_per_bucket", 1, 8), 4U);
  EXPECT_EQ(trace.parameters.get_u64("capacity"), 64U);
  EXPECT_EQ(trace.parameters.get_u64("seed"), 12345U);
  const std::vector<TraceEntry> expected = {
      {Op::insert(42), std::nullopt, 3}, {Op::contains(7), std::nullopt, 4},
      {Op::erase(42), std::nullopt, 5},  {Op::insert_or_assign(5, 99), std::nullopt, 6},
      {Op::size(), std::nullopt, 7}};
  EXPECT_EQ(trace.entries, expected);
  EXPECT_EQ(trace.entries[3].line, 6U);
}

TEST(TraceFormat, ParsesEveryExpectationKind) {
  const Trace trace = parse_trace(
      "engine map\n"
      "insert 1 10 => inserted\n"
      "insert 1 11 => exists\n"
      "insert_or_assign 1 12 => updated\n"
      "insert 2 => full\n"
      "insert 3 => duplicate_limit\n"
      "contains 1 => true\n"
      "erase 9 => false\n"
      "find 1 => 12\n"
      "find 9 => none\n"
      "size => 1\n");
  ASSERT_EQ(trace.size(), 10U);
  EXPECT_EQ(trace.entries[0].expected, OpResult::of_insert(InsertResult::kInserted));
  EXPECT_EQ(trace.entries[1].expected, OpResult::of_insert(InsertResult::kExists));
  EXPECT_EQ(trace.entries[2].expected, OpResult::of_insert(InsertResult::kUpdated));
  EXPECT_EQ(trace.entries[3].expected, OpResult::of_insert(InsertResult::kFull));
  EXPECT_EQ(trace.entries[4].expected, OpResult::of_insert(InsertResult::kDuplicateLimit));
  EXPECT_EQ(trace.entries[5].expected, OpResult::of_bool(true));
  EXPECT_EQ(trace.entries[6].expected, OpResult::of_bool(false));
  EXPECT_EQ(trace.entries[7].expected, OpResult::of_find(12));
  EXPECT_EQ(trace.entries[8].expected, OpResult::of_find(std::nullopt));
  EXPECT_EQ(trace.entries[9].expected, OpResult::of_size(1));
  for (const TraceEntry& entry : trace.entries) {
    EXPECT_EQ(entry.expected->kind, result_kind_of(entry.op.kind));
  }
}

TEST(TraceFormat, HeaderOnlyIsAnEmptyTrace) {
  const Trace trace = parse_trace("engine bloom");
  EXPECT_EQ(trace.engine, "bloom");
  EXPECT_TRUE(trace.parameters.empty());
  EXPECT_TRUE(trace.entries.empty());
}

TEST(TraceFormat, PrintsTheCanonicalForm) {
  const std::string messy =
      "# my own comment\r\n"
      "\r\n"
      "   engine   filter  seed=0x10 capacity=64\tfingerprint_bits=8   # header comment\r\n"
      "insert 0x2A\t# a hex key\r\n"
      "insert 5 0\n"
      "  insert 6 7\n"
      "contains 7=>true\n"
      "\t\n"
      "find 9 =>   none # comment after a result\n"
      "insert_or_assign 5 99 => updated\n"
      "size=>3\n"
      "serialize_roundtrip#no space before the comment\n"
      "clear";
  const std::string canonical =
      "# cuckoo trace v1\n"
      "engine filter capacity=64 fingerprint_bits=8 seed=0x10\n"
      "insert 42\n"
      "insert 5\n"
      "insert 6 7\n"
      "contains 7 => true\n"
      "find 9 => none\n"
      "insert_or_assign 5 99 => updated\n"
      "size => 3\n"
      "serialize_roundtrip\n"
      "clear\n";
  EXPECT_EQ(print_trace(parse_trace(messy)), canonical);
  EXPECT_EQ(print_trace(parse_trace(canonical)), canonical);
  EXPECT_EQ(parse_trace(messy), parse_trace(canonical));
}

// ---- malformed input ----

struct Malformed {
  std::string name;
  std::string text;
  std::size_t line;
  std::optional<std::size_t> column;  // checked when given
  std::string message;                // must be exactly TraceError::message()
};

TEST(TraceFormat, RejectsMalformedInputWithLineAndExpectation) {
  const std::string ops =
      "insert, insert_or_assign, contains, find, erase, size, serialize_roundtrip, clear";
  const std::vector<Malformed> cases = {
      {"empty input", "", 1, std::nullopt,
       "expected the header 'engine <name> key=value ...', found end of input"},
      {"comments only", "# nothing\n\n# here\n", 3, std::nullopt,
       "expected the header 'engine <name> key=value ...', found end of input"},
      {"op before header", "# cuckoo trace v1\ninsert 1\n", 2, 1,
       "expected the header 'engine <name> key=value ...' before the first op, found 'insert'"},
      {"header without engine name", "engine\n", 1, std::nullopt,
       "expected an engine name after 'engine', found end of line"},
      {"bad engine name", "engine 9lives\n", 1, 8,
       "expected an engine name (a letter or '_', then letters, digits, '_', '.', '-') after "
       "'engine', found '9lives'"},
      {"parameter without value", "engine filter capacity\n", 1, 15,
       "expected a parameter name=value, found 'capacity'"},
      {"empty parameter value", "engine filter seed=\n", 1, 20,
       "expected a value after 'seed=', found nothing"},
      {"duplicate parameter", "engine filter capacity=1 capacity=2\n", 1, 26,
       "expected each parameter once, found 'capacity' again (first given in column 15)"},
      {"duplicate header", "engine filter\ninsert 1\nengine map\n", 3, 1,
       "expected an op, found a second header (the header is on line 1)"},
      {"unknown op", "engine filter\n\ninsrt 4\n", 3, 1,
       "unknown op 'insrt'; expected one of " + ops},
      {"missing key", "engine filter\ninsert\n", 2, 7,
       "expected a key after 'insert', found end of line"},
      {"non-numeric key", "engine filter\n# c\n\n\ninsert abc\n", 5, 8,
       "expected a key (an unsigned 64-bit integer) after 'insert', found 'abc'"},
      {"key out of range", "engine filter\ninsert 18446744073709551616\n", 2, 8,
       "expected a key of at most 18446744073709551615 (64 bits) after 'insert', found "
       "'18446744073709551616'"},
      {"negative key", "engine filter\nerase -1\n", 2, 7,
       "expected a key (an unsigned 64-bit integer) after 'erase', found '-1'"},
      {"bare hex prefix", "engine filter\ncontains 0x\n", 2, 10,
       "expected a key (an unsigned 64-bit integer) after 'contains', found '0x'"},
      {"extra token after key", "engine filter\ncontains 7 8\n", 2, 12,
       "expected end of line or '=> result' after 'contains 7', found '8'"},
      {"extra token after size", "engine filter\nsize now\n", 2, 6,
       "expected end of line or '=> result' after 'size', found 'now'"},
      {"extra token after clear", "engine filter\nclear all\n", 2, 7,
       "expected end of line after 'clear', found 'all'"},
      {"bad optional value", "engine map\ninsert 5 x\n", 2, 10,
       "expected a value (an unsigned 64-bit integer) or end of line after 'insert 5', found 'x'"},
      {"missing value", "engine map\ninsert_or_assign 5\n", 2, std::nullopt,
       "expected a value after 'insert_or_assign 5', found end of line"},
      {"missing key before arrow", "engine map\nfind => 4\n", 2, 6,
       "expected a key after 'find', found '=>'"},
      {"bad bool result", "engine filter\ncontains 7 => maybe\n", 2, 15,
       "expected true or false after '=>', found 'maybe'"},
      {"missing result", "engine filter\ncontains 7 =>\n", 2, std::nullopt,
       "expected true or false after '=>', found end of line"},
      {"bad insert result", "engine filter\ninsert 4 => yes\n", 2, 13,
       "expected one of inserted, updated, exists, full, duplicate_limit after '=>', found 'yes'"},
      {"bad find result", "engine map\nfind 3 => 0xZZ\n", 2, 11,
       "expected a value or none after '=>', found '0xZZ'"},
      {"bad size result", "engine map\nsize => -1\n", 2, 9,
       "expected a size (an unsigned integer) after '=>', found '-1'"},
      {"result on an op without one", "engine filter\nclear => true\n", 2, 7,
       "expected end of line after 'clear', found '=>' ('clear' records no result)"},
      {"two results", "engine filter\ncontains 7 => true false\n", 2, 20,
       "expected end of line after '=> true', found 'false'"},
      {"arrow without op", "engine filter\n=> true\n", 2, 1, "expected an op before '=>', found '=>'"},
      {"result on the header", "engine filter => inserted\n", 1, 15,
       "expected a parameter name=value or end of line, found '=>' (the header records no "
       "result)"},
      {"unsupported version", "# cuckoo trace v2\nengine filter\n", 1, 17,
       "expected trace version 1 ('# cuckoo trace v1'), found version '2'"},
      {"CRLF still counts lines", "engine filter\r\ninsert 5 => inserted\r\nerase\r\n", 3, 6,
       "expected a key after 'erase', found end of line"},
      {"binary bytes are quoted", std::string("engine filter\nins\x01\xff 3\n"), 2, 1,
       "unknown op 'ins\\x01\\xff'; expected one of " + ops},
  };
  ASSERT_GE(cases.size(), 12U);
  for (const Malformed& c : cases) {
    SCOPED_TRACE(c.name);
    try {
      (void)parse_trace(c.text);
      ADD_FAILURE() << "accepted: " << c.text;
    } catch (const TraceError& e) {
      EXPECT_EQ(e.line(), c.line);
      if (c.column) {
        EXPECT_EQ(e.column(), c.column);
      }
      EXPECT_EQ(e.message(), c.message);
      EXPECT_EQ(std::string(e.what()), "line " + std::to_string(c.line) + ": " + c.message);
    }
  }
}

// ---- parameters ----

TEST(TraceParameters, TypedGettersNameTheParameterAndTheLine) {
  const Trace trace = parse_trace(
      "# a comment first\n"
      "engine smart capacity=abc slots=4 load=0.9 verbose=true hex=0xff big=1e400\n");
  const TraceParameters& p = trace.parameters;
  EXPECT_EQ(p.get_string("capacity"), "abc");
  EXPECT_EQ(p.get_u64("hex"), 255U);
  EXPECT_EQ(p.get_u64_or("absent", 7), 7U);
  EXPECT_EQ(p.get_string_or("absent", "x"), "x");
  EXPECT_DOUBLE_EQ(p.get_double("load"), 0.9);
  EXPECT_DOUBLE_EQ(p.get_double_or("absent", 0.5), 0.5);
  EXPECT_TRUE(p.get_bool("verbose"));
  EXPECT_FALSE(p.get_bool_or("absent", false));

  const auto message_of = [](const auto& call) -> std::string {
    try {
      call();
    } catch (const TraceError& e) {
      EXPECT_EQ(e.line(), 2U);
      return e.what();
    }
    return "no error";
  };
  EXPECT_EQ(message_of([&] { (void)p.get_u64("capacity"); }),
            "line 2: expected an unsigned 64-bit integer for parameter 'capacity', found 'abc'");
  EXPECT_EQ(message_of([&] { (void)p.get_u64("seed"); }),
            "line 2: expected a parameter seed=<an unsigned 64-bit integer> in the header, "
            "found none");
  EXPECT_EQ(message_of([&] { (void)p.get_u64_in("slots", 1, 2); }),
            "line 2: expected an integer in 1..2 for parameter 'slots', found '4'");
  EXPECT_EQ(message_of([&] { (void)p.get_bool("slots"); }),
            "line 2: expected true or false for parameter 'slots', found '4'");
  EXPECT_EQ(message_of([&] { (void)p.get_double("big"); }),
            "line 2: expected a finite number for parameter 'big', found '1e400'");
  EXPECT_EQ(message_of([&] { (void)p.get_string("engine"); }),
            "line 2: expected a parameter engine=<a value> in the header, found none");
  EXPECT_EQ(message_of([&] { (void)p.get_u64_or("verbose", 1); }),
            "line 2: expected an unsigned 64-bit integer for parameter 'verbose', found 'true'");
}

TEST(TraceParameters, InMemoryParametersHaveNoLine) {
  TraceParameters p;
  p.set("capacity", "x");
  try {
    (void)p.get_u64("capacity");
    ADD_FAILURE() << "no error";
  } catch (const TraceError& e) {
    EXPECT_EQ(e.line(), 0U);
    EXPECT_EQ(std::string(e.what()),
              "trace: expected an unsigned 64-bit integer for parameter 'capacity', found 'x'");
  }
}

TEST(TraceParameters, SetRejectsWhatCouldNotBeWritten) {
  TraceParameters p;
  EXPECT_THROW(p.set("has space", "1"), std::invalid_argument);
  EXPECT_THROW(p.set("9lives", "1"), std::invalid_argument);
  EXPECT_THROW(p.set("ok", ""), std::invalid_argument);
  EXPECT_THROW(p.set("ok", "a b"), std::invalid_argument);
  EXPECT_THROW(p.set("ok", "a#b"), std::invalid_argument);
  EXPECT_THROW(p.set("ok", "a=>b"), std::invalid_argument);
  EXPECT_THROW(p.set("ok", ">b"), std::invalid_argument);  // would print as "ok=>b"
  EXPECT_THROW(p.set("ok", "a\nb"), std::invalid_argument);
  EXPECT_TRUE(p.empty());
  p.set("path", "/tmp/x=1,y");
  p.set("path", "/tmp/y");
  EXPECT_EQ(p.get_string("path"), "/tmp/y");
  EXPECT_TRUE(p.erase("path"));
  EXPECT_FALSE(p.erase("path"));
}

TEST(TraceFormat, PrintRejectsTracesThatWouldNotParseBack) {
  Trace trace;
  trace.engine = "";
  EXPECT_THROW((void)print_trace(trace), std::invalid_argument);
  trace.engine = "two words";
  EXPECT_THROW((void)print_trace(trace), std::invalid_argument);
  trace.engine = "filter";
  trace.add(Op::contains(1), OpResult::of_size(3));
  EXPECT_THROW((void)print_trace(trace), std::invalid_argument);
  trace.entries.clear();
  trace.add(Op::clear(), OpResult::none());
  EXPECT_THROW((void)print_trace(trace), std::invalid_argument);
  trace.entries.clear();
  trace.add(Op::clear());
  EXPECT_EQ(print_trace(trace), "# cuckoo trace v1\nengine filter\nclear\n");
}

// ---- round trip ----

std::uint64_t random_number(TestRng& rng) {
  switch (rng.below(5)) {
    case 0: return 0;
    case 1: return kMaxKey;
    case 2: return rng.below(16);
    case 3: return rng.below(100000);
    default: return rng.next();
  }
}

std::string random_name(TestRng& rng) {
  static const std::string kStart = "abcxyzABZ_";
  static const std::string kRest = "abcz09_.-";
  std::string name(1, kStart[rng.below(kStart.size())]);
  const std::size_t length = rng.below(8);
  for (std::size_t i = 0; i < length; ++i) name += kRest[rng.below(kRest.size())];
  return name;
}

std::string random_value(TestRng& rng) {
  static const std::string kChars = "0123456789abcxyz=/.,:;-_+~!\"'()[]{}<>?@$%^&*|\\`";
  std::string value;
  do {
    value.clear();
    const std::size_t length = 1 + rng.below(10);
    for (std::size_t i = 0; i < length; ++i) value += kChars[rng.below(kChars.size())];
  } while (value.find("=>") != std::string::npos || value.front() == '>');
  return value;
}

OpResult random_result(TestRng& rng, ResultKind kind) {
  switch (kind) {
    case ResultKind::kBool: return OpResult::of_bool(rng.percent(50));
    case ResultKind::kInsert: return OpResult::of_insert(kAllInsertResults[rng.below(5)]);
    case ResultKind::kFind:
      return OpResult::of_find(rng.percent(30) ? std::nullopt
                                               : std::optional<std::uint64_t>(random_number(rng)));
    case ResultKind::kSize: return OpResult::of_size(random_number(rng));
    case ResultKind::kNone: break;
  }
  return OpResult::none();
}

Trace random_trace(TestRng& rng) {
  static const std::vector<std::string> kEngines = {"filter", "map", "classic", "smart", "bloom"};
  Trace trace;
  trace.engine = rng.percent(70) ? kEngines[rng.below(kEngines.size())] : random_name(rng);
  const std::size_t parameters = rng.below(6);
  for (std::size_t i = 0; i < parameters; ++i) trace.parameters.set(random_name(rng), random_value(rng));
  const std::size_t ops = rng.below(40);
  for (std::size_t i = 0; i < ops; ++i) {
    Op op{kAllOpKinds[rng.below(kAllOpKinds.size())], 0, 0};
    if (cuckoo::model::takes_key(op.kind)) op.key = random_number(rng);
    if (cuckoo::model::takes_value(op.kind)) op.value = random_number(rng);
    std::optional<OpResult> expected;
    if (result_kind_of(op.kind) != ResultKind::kNone && rng.percent(50)) {
      expected = random_result(rng, result_kind_of(op.kind));
    }
    trace.add(op, expected);
  }
  return trace;
}

TEST(TraceFormat, ParseOfPrintIsIdentityOnRandomTraces) {
  const std::uint64_t seed = base_seed();
  SCOPED_TRACE(reproduce_hint(seed));
  TestRng rng(seed);
  constexpr int kTraces = 2000;
  for (int i = 0; i < kTraces; ++i) {
    const Trace trace = random_trace(rng);
    const std::string text = print_trace(trace);
    Trace parsed;
    try {
      parsed = parse_trace(text);
    } catch (const TraceError& e) {
      FAIL() << e.what() << "\n" << text;
    }
    ASSERT_EQ(parsed, trace) << text;
    ASSERT_EQ(print_trace(parsed), text);
    for (std::size_t op = 0; op < parsed.entries.size(); ++op) {
      ASSERT_EQ(parsed.entries[op].line, op + 3);  // version line, header, then ops
    }
  }
}

// Arbitrary bytes and mutated traces: every input is either a trace whose canonical
// form reads back equal, or a TraceError on a line that exists.
TEST(TraceFormat, ArbitraryBytesParseOrFailCleanly) {
  const std::uint64_t seed = base_seed();
  SCOPED_TRACE(reproduce_hint(seed));
  TestRng rng(seed ^ 0xb17e5);
  static const std::vector<std::string> kPieces = {
      "engine ", "filter", " x=1", "insert ", "contains ", "erase ", "find ", "size",
      "clear", "serialize_roundtrip", "insert_or_assign ", " => ", "=>", "true", "none",
      "inserted", "7", "0x1f", "18446744073709551616", " ", "\t", "\n", "\r\n", "#", "# cuckoo trace v",
      "=", "-", std::string(1, '\0'), "\xff"};
  constexpr int kInputs = 8000;
  int accepted = 0;
  for (int i = 0; i < kInputs; ++i) {
    std::string text;
    if (rng.percent(50)) {
      text = print_trace(random_trace(rng));
      const std::size_t edits = 1 + rng.below(3);
      for (std::size_t e = 0; e < edits && !text.empty(); ++e) {
        const std::size_t at = rng.below(text.size());
        switch (rng.below(3)) {
          case 0: text.erase(at, 1 + rng.below(4)); break;
          case 1: text.insert(at, kPieces[rng.below(kPieces.size())]); break;
          default: text[at] = static_cast<char>(rng.below(256)); break;
        }
      }
    } else {
      const std::size_t pieces = rng.below(30);
      for (std::size_t p = 0; p < pieces; ++p) text += kPieces[rng.below(kPieces.size())];
    }
    std::size_t lines = 1;
    for (const char c : text) lines += c == '\n' ? 1 : 0;
    try {
      const Trace trace = parse_trace(text);
      ++accepted;
      const std::string canonical = print_trace(trace);
      ASSERT_EQ(parse_trace(canonical), trace) << text;
    } catch (const TraceError& e) {
      ASSERT_GE(e.line(), 1U) << text;
      ASSERT_LE(e.line(), lines) << text;
      ASSERT_FALSE(e.message().empty());
      ASSERT_EQ(std::string(e.what()).rfind("line ", 0), 0U);
    }
  }
  EXPECT_GT(accepted, 0);
}

}  // namespace
