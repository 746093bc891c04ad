// The trace format: the one text format in which every harness writes an op sequence
// (a failing case, a corpus entry, a recorded run) and `cuckoo-audit replay` reads it.
//
//   # cuckoo trace v1
//   engine filter capacity=64 fingerprint_bits=8 seed=12345 slots_per_bucket=4
//   insert 42
//   contains 7 => true        # what was observed may follow "=>"
//   erase 42
//   insert_or_assign 5 99
//   size => 0
//
// Grammar (a line at a time; tokens are separated by spaces or tabs; a trailing "\r"
// is ignored, so CRLF files read the same):
//
//   trace       := { line }
//   line        := [ content ] [ "#" comment ]          blank and comment-only lines are
//                                                        ignored
//   content     := header | op-line                     the first content line must be
//                                                        the header, and only it
//   header      := "engine" name { param }
//   name        := [A-Za-z_][A-Za-z0-9_.-]*             e.g. filter, map, classic,
//                                                        smart, bloom, libcuckoo.map
//   param       := name "=" param-value                 each name at most once
//   param-value := one or more bytes, none of them space, tab, "#", a control
//                  character; not starting with ">" and not containing "=>"
//                  (values are strings; typed getters interpret them)
//   op-line     := op [ "=>" result ]
//   op          := "insert" key [ value ] | "insert_or_assign" key value
//                | "contains" key | "find" key | "erase" key
//                | "size" | "serialize_roundtrip" | "clear"
//   key, value  := decimal digits, or "0x" hex digits; at most 2^64 - 1
//   result      := "true" | "false"                     contains, erase
//                | "inserted" | "updated" | "exists"
//                | "full" | "duplicate_limit"          insert, insert_or_assign
//                | value | "none"                       find
//                | count (decimal)                      size
//                                                       serialize_roundtrip and clear
//                                                       record no result
//
// A line starting with "# cuckoo trace v" before the header declares the format
// version; any version other than 1 is rejected. print_trace writes that line first.
//
// Canonical form (what print_trace writes): the version line, the header with the
// parameters sorted by name, one op a line with single spaces, decimal numbers, an
// insert's value only when it is not 0, " => result" when a result was recorded, no
// comments, "\n" after every line. parse_trace(print_trace(t)) == t for every trace
// print_trace accepts, and print_trace(parse_trace(text)) is the canonical form of text.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cuckoo/model/op.hpp"

namespace cuckoo::model {

// A malformed trace, or a missing or invalid header parameter.
// what() is "line N: message" ("trace header: message" when the trace was built in
// memory rather than parsed, so it has no line numbers).
class TraceError : public std::runtime_error {
 public:
  TraceError(std::size_t line, std::optional<std::size_t> column, const std::string& message);

  // 1-based; 0 when unknown.
  std::size_t line() const noexcept { return line_; }
  // 1-based byte offset in the line of the offending token, when there is one.
  std::optional<std::size_t> column() const noexcept { return column_; }
  // The description without the "line N: " prefix; it says what was expected.
  const std::string& message() const noexcept { return message_; }

 private:
  std::size_t line_;
  std::optional<std::size_t> column_;
  std::string message_;
};

// The header's key=value parameters: strings, read through typed getters that throw a
// TraceError naming the parameter, the header's line and what was expected.
class TraceParameters {
 public:
  // Sets (or replaces) a parameter. Throws std::invalid_argument when the name or the
  // value could not be written in the trace format (see the grammar).
  void set(const std::string& name, const std::string& value);
  bool has(std::string_view name) const;
  // Removes a parameter; false when it was not there.
  bool erase(std::string_view name);

  // Each getter throws TraceError when the parameter is missing (the *_or forms return
  // `fallback` instead) or its value is not of the type asked for.
  const std::string& get_string(std::string_view name) const;
  std::string get_string_or(std::string_view name, const std::string& fallback) const;
  // An unsigned integer, decimal or 0x hex, at most 2^64 - 1.
  std::uint64_t get_u64(std::string_view name) const;
  std::uint64_t get_u64_or(std::string_view name, std::uint64_t fallback) const;
  // An unsigned integer in [min, max]; the error states the range.
  std::uint64_t get_u64_in(std::string_view name, std::uint64_t min, std::uint64_t max) const;
  // "true" or "false".
  bool get_bool(std::string_view name) const;
  bool get_bool_or(std::string_view name, bool fallback) const;
  // A finite decimal number ("0.95", "1e-3").
  double get_double(std::string_view name) const;
  double get_double_or(std::string_view name, double fallback) const;

  const std::map<std::string, std::string, std::less<>>& entries() const noexcept {
    return values_;
  }
  bool empty() const noexcept { return values_.empty(); }

  // The header's line, used in error messages (0: not parsed from text).
  std::size_t line() const noexcept { return line_; }
  void set_line(std::size_t line) noexcept { line_ = line; }

  // Equal parameters; the line is not compared.
  friend bool operator==(const TraceParameters& x, const TraceParameters& y) {
    return x.values_ == y.values_;
  }

 private:
  [[noreturn]] void fail(std::string_view name, const std::string& expected) const;

  std::map<std::string, std::string, std::less<>> values_;
  std::size_t line_ = 0;
};

// One op line.
struct TraceEntry {
  Op op;
  // The outcome recorded after "=>", if any. Its kind must be result_kind_of(op.kind).
  std::optional<OpResult> expected;
  // 1-based line in the parsed text; 0 when built in memory. Not compared.
  std::size_t line = 0;

  friend bool operator==(const TraceEntry& x, const TraceEntry& y) {
    return x.op == y.op && x.expected == y.expected;
  }
};

struct Trace {
  std::string engine;  // the header's name: filter, map, classic, smart, bloom, ...
  TraceParameters parameters;
  std::vector<TraceEntry> entries;

  void add(const Op& op, std::optional<OpResult> expected = std::nullopt) {
    entries.push_back(TraceEntry{op, std::move(expected), 0});
  }
  std::size_t size() const noexcept { return entries.size(); }

  friend bool operator==(const Trace& x, const Trace& y) {
    return x.engine == y.engine && x.parameters == y.parameters && x.entries == y.entries;
  }
};

// The version print_trace writes and parse_trace accepts.
inline constexpr std::string_view kTraceVersionLine = "# cuckoo trace v1";

// True when `name` is a valid engine or parameter name.
bool is_trace_name(std::string_view name) noexcept;

// Parses a trace. Throws TraceError with the line (and column) of the first problem:
// missing or duplicate header, unknown op, missing/invalid/out-of-range key or value,
// extra tokens, a malformed or misplaced "=> result", a duplicate parameter, an
// unsupported version. Never reads outside `text`, whatever its bytes.
Trace parse_trace(std::string_view text);

// Writes the canonical form (see above). Throws std::invalid_argument when the trace
// cannot be written so that it parses back equal: an invalid engine name, or a recorded
// result whose kind does not match its op.
std::string print_trace(const Trace& trace);

// One canonical op line without the newline: "contains 7 => true".
std::string print_trace_line(const TraceEntry& entry);

}  // namespace cuckoo::model
