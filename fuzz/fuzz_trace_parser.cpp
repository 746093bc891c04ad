// Fuzz target: parse_trace on arbitrary text.
//
// Exactly one of:
//   - success: print_trace(t) does not throw and is a fixed point: parse_trace of it
//     gives a trace equal to t, and printing that gives the same text; line numbers of
//     the entries are increasing and within the text; every header parameter read
//     through a typed getter either succeeds or throws TraceError naming the header's
//     line; and a violation report of the trace (format_violation) parses back to its
//     first ops;
//   - failure: TraceError with a line number in 1..(lines of the text), a column (when
//     given) of at least 1, a non-empty message, and what() == "line N: " + message.
// Anything else thrown, a crash, a hang or an out-of-bounds read is a finding.
#include <cstddef>
#include <cstdint>
#include <exception>
#include <span>
#include <string>
#include <string_view>

#include "cuckoo/model/trace.hpp"
#include "cuckoo/model/violation.hpp"
#include "op_decoder.hpp"

namespace {

using cuckoo::model::Trace;
using cuckoo::model::TraceError;

constexpr std::string_view kTarget = "trace_parser";

std::size_t line_count(std::string_view text) {
  std::size_t lines = 1;
  for (const char c : text) lines += c == '\n' ? 1 : 0;
  return lines;
}

template <class Get>
void typed_getter(const Trace& t, Get&& get, std::span<const std::uint8_t> input) {
  try {
    get();
  } catch (const TraceError& e) {
    if (e.line() != t.parameters.line()) {
      cuckoo::fuzz::report_failure(kTarget, "a getter's TraceError names the header's line", input);
    }
  }
}

void check_parsed(const Trace& t, std::string_view text, std::span<const std::uint8_t> input) {
  const auto fail = [&](const std::string& what) { cuckoo::fuzz::report_failure(kTarget, what, input); };
  std::string printed;
  try {
    printed = cuckoo::model::print_trace(t);
  } catch (const std::exception& e) {
    fail(std::string("print_trace accepts every parsed trace, threw: ") + e.what());
  }
  Trace again;
  try {
    again = cuckoo::model::parse_trace(printed);
  } catch (const std::exception& e) {
    fail(std::string("the canonical form parses, threw: ") + e.what() + "\n" + printed);
  }
  if (!(again == t)) fail("parse_trace(print_trace(t)) == t\n" + printed);
  if (cuckoo::model::print_trace(again) != printed) fail("print_trace is a fixed point\n" + printed);

  const std::size_t lines = line_count(text);
  std::size_t previous = t.parameters.line();
  if (previous < 1 || previous > lines) fail("the header's line is within the text");
  for (const auto& entry : t.entries) {
    if (entry.line <= previous || entry.line > lines) fail("entry lines increase and stay within the text");
    previous = entry.line;
  }
  for (const auto& entry : t.parameters.entries()) {
    const std::string& name = entry.first;  // a plain reference: clang 14 cannot capture bindings
    typed_getter(t, [&] { (void)t.parameters.get_u64(name); }, input);
    typed_getter(t, [&] { (void)t.parameters.get_u64_in(name, 1, 1000); }, input);
    typed_getter(t, [&] { (void)t.parameters.get_bool(name); }, input);
    typed_getter(t, [&] { (void)t.parameters.get_double(name); }, input);
    if (t.parameters.get_string(name) != entry.second) fail("get_string returns the value");
  }
  typed_getter(t, [&] { (void)t.parameters.get_u64("no_such_parameter"); }, input);

  // A violation report of the trace is itself a trace: its ops are the first ones.
  if (!t.entries.empty()) {
    cuckoo::model::Violation v;
    v.claim = "C1";
    v.op_index = t.entries.size() / 2;
    v.op = t.entries[v.op_index].op;
    v.expected = "true\nover two lines";
    v.actual = "false";
    const std::string report = cuckoo::model::format_violation(v, t);
    Trace cut;
    try {
      cut = cuckoo::model::parse_trace(report);
    } catch (const std::exception& e) {
      fail(std::string("format_violation's report parses, threw: ") + e.what() + "\n" + report);
    }
    if (cut.entries.size() != v.op_index + 1 || !(cut.entries.back() == t.entries[v.op_index]) ||
        !(cut.parameters == t.parameters)) {
      fail("format_violation keeps the header and the ops up to the failing one\n" + report);
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::span<const std::uint8_t> input(data, size);
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  Trace parsed;
  try {
    parsed = cuckoo::model::parse_trace(text);
  } catch (const TraceError& e) {
    const std::string expected_what = "line " + std::to_string(e.line()) + ": " + e.message();
    if (e.line() < 1 || e.line() > line_count(text) || e.message().empty() ||
        (e.column() && *e.column() < 1) || e.what() != expected_what) {
      cuckoo::fuzz::report_failure(
          kTarget, "a TraceError with a line in the text and a message, got: " + std::string(e.what()), input);
    }
    return 0;
  } catch (const std::exception& e) {
    cuckoo::fuzz::report_failure(kTarget, std::string("only TraceError may be thrown, got: ") + e.what(), input);
  }
  cuckoo::fuzz::maybe_print_trace(parsed);
  check_parsed(parsed, text, input);
  return 0;
}
