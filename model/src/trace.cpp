// The trace parser and printer.
//
// The parser works a line at a time: cut the comment, split the rest at the first "=>"
// into the op part and the result part, split both into tokens with their columns, and
// read the tokens against the grammar in trace.hpp. Every error says what was expected
// and quotes what was found, escaped and shortened, so that arbitrary (fuzzed) bytes
// produce a readable one-line message.
#include "cuckoo/model/trace.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>
#include <system_error>

namespace cuckoo::model {

namespace {

constexpr std::string_view kVersionPrefix = "# cuckoo trace v";
constexpr std::string_view kSupportedVersion = "1";
constexpr std::string_view kArrow = "=>";
constexpr std::size_t kMaxQuotedBytes = 40;
constexpr std::string_view kOpList =
    "insert, insert_or_assign, contains, find, erase, size, serialize_roundtrip, clear";
constexpr std::string_view kInsertResultList =
    "inserted, updated, exists, full, duplicate_limit";
constexpr std::string_view kNameRule = "a letter or '_', then letters, digits, '_', '.', '-'";

struct Token {
  std::string_view text;
  std::size_t column;  // 1-based
};

// 'text', with non-printable bytes as \xNN and long text cut to kMaxQuotedBytes.
std::string quote(std::string_view text) {
  std::string out = "'";
  for (std::size_t i = 0; i < text.size() && i < kMaxQuotedBytes; ++i) {
    const auto byte = static_cast<unsigned char>(text[i]);
    if (byte >= 0x20 && byte < 0x7f) {
      out += static_cast<char>(byte);
    } else {
      char escaped[5];
      std::snprintf(escaped, sizeof escaped, "\\x%02x", static_cast<unsigned>(byte));
      out += escaped;
    }
  }
  if (text.size() > kMaxQuotedBytes) out += "...";
  return out + "'";
}

bool is_name_start(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

bool is_name_char(char c) {
  return is_name_start(c) || (c >= '0' && c <= '9') || c == '.' || c == '-';
}

// A value starting with '>' would form "=>" with the '=' before it.
bool is_param_value(std::string_view value) {
  if (value.empty() || value.front() == '>' || value.find(kArrow) != std::string_view::npos) {
    return false;
  }
  for (const char c : value) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte <= 0x20 || byte == 0x7f || c == '#') return false;
  }
  return true;
}

// Splits `part` (which starts at 0-based offset `offset` in its line) at spaces and tabs.
std::vector<Token> tokenize(std::string_view part, std::size_t offset) {
  std::vector<Token> tokens;
  std::size_t i = 0;
  while (i < part.size()) {
    if (part[i] == ' ' || part[i] == '\t') {
      ++i;
      continue;
    }
    const std::size_t start = i;
    while (i < part.size() && part[i] != ' ' && part[i] != '\t') ++i;
    tokens.push_back(Token{part.substr(start, i - start), offset + start + 1});
  }
  return tokens;
}

enum class NumberStatus { kOk, kInvalid, kOutOfRange };

// Decimal digits or "0x" hex digits, nothing else.
NumberStatus parse_u64(std::string_view text, std::uint64_t& out) {
  int base = 10;
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    base = 16;
    text.remove_prefix(2);
  }
  if (text.empty()) return NumberStatus::kInvalid;
  const char* const end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, out, base);
  if (ptr != end) return NumberStatus::kInvalid;
  if (ec == std::errc::result_out_of_range) return NumberStatus::kOutOfRange;
  if (ec != std::errc()) return NumberStatus::kInvalid;
  return NumberStatus::kOk;
}

std::string describe_result(ResultKind kind) {
  switch (kind) {
    case ResultKind::kBool: return "true or false";
    case ResultKind::kInsert: return "one of " + std::string(kInsertResultList);
    case ResultKind::kFind: return "a value or none";
    case ResultKind::kSize: return "a size (an unsigned integer)";
    case ResultKind::kNone: return "nothing";
  }
  return "nothing";
}

class Parser {
 public:
  Trace run(std::string_view text) {
    std::size_t start = 0;
    while (start < text.size()) {
      std::size_t end = text.find('\n', start);
      if (end == std::string_view::npos) end = text.size();
      ++line_;
      read_line(text.substr(start, end - start));
      start = end + 1;
    }
    if (!header_seen_) {
      fail(std::max<std::size_t>(line_, 1), std::nullopt,
           "expected the header 'engine <name> key=value ...', found end of input");
    }
    return std::move(trace_);
  }

 private:
  [[noreturn]] void fail(std::size_t line, std::optional<std::size_t> column,
                         const std::string& message) const {
    throw TraceError(line, column, message);
  }
  [[noreturn]] void fail(std::optional<std::size_t> column, const std::string& message) const {
    fail(line_, column, message);
  }

  void read_line(std::string_view line) {
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (!header_seen_ && line.starts_with(kVersionPrefix)) check_version(line);

    const std::string_view content = line.substr(0, line.find('#'));
    const std::size_t arrow = content.find(kArrow);
    const std::vector<Token> tokens = tokenize(content.substr(0, arrow), 0);
    std::optional<Token> arrow_token;
    std::vector<Token> result_tokens;
    if (arrow != std::string_view::npos) {
      arrow_token = Token{kArrow, arrow + 1};
      result_tokens = tokenize(content.substr(arrow + kArrow.size()), arrow + kArrow.size());
    }
    // Where "end of line" is, for messages about something missing at the end.
    end_column_ = arrow != std::string_view::npos ? arrow + 1 : content.size() + 1;

    if (tokens.empty()) {
      if (!arrow_token) return;  // blank or comment-only
      if (!header_seen_) expected_header(*arrow_token);
      fail(arrow_token->column, "expected an op before '=>', found '=>'");
    }
    if (tokens[0].text == "engine") {
      if (header_seen_) {
        fail(tokens[0].column, "expected an op, found a second header (the header is on line " +
                                   std::to_string(trace_.parameters.line()) + ")");
      }
      read_header(tokens, arrow_token);
      return;
    }
    if (!header_seen_) expected_header(tokens[0]);
    read_op(tokens, arrow_token, result_tokens);
  }

  void check_version(std::string_view line) {
    std::string_view version = line.substr(kVersionPrefix.size());
    while (!version.empty() && (version.back() == ' ' || version.back() == '\t')) {
      version.remove_suffix(1);
    }
    if (version != kSupportedVersion) {
      fail(kVersionPrefix.size() + 1, "expected trace version 1 ('" +
                                      std::string(kTraceVersionLine) + "'), found version " +
                                      quote(version));
    }
  }

  [[noreturn]] void expected_header(const Token& found) const {
    fail(found.column, "expected the header 'engine <name> key=value ...' before the first op, "
                       "found " + quote(found.text));
  }

  void read_header(const std::vector<Token>& tokens, const std::optional<Token>& arrow_token) {
    if (tokens.size() < 2) fail(end_column_, "expected an engine name after 'engine', found " +
                                                 std::string(arrow_token ? "'=>'" : "end of line"));
    const Token& name = tokens[1];
    if (!is_trace_name(name.text)) {
      fail(name.column, "expected an engine name (" + std::string(kNameRule) +
                            ") after 'engine', found " + quote(name.text));
    }
    trace_.engine = std::string(name.text);
    trace_.parameters.set_line(line_);
    std::map<std::string, std::size_t, std::less<>> first_column;
    for (std::size_t i = 2; i < tokens.size(); ++i) {
      const Token& param = tokens[i];
      const std::size_t equals = param.text.find('=');
      if (equals == std::string_view::npos) {
        fail(param.column, "expected a parameter name=value, found " + quote(param.text));
      }
      const std::string_view key = param.text.substr(0, equals);
      const std::string_view value = param.text.substr(equals + 1);
      if (!is_trace_name(key)) {
        fail(param.column, "expected a parameter name (" + std::string(kNameRule) +
                               ") before '=', found " + quote(key));
      }
      if (value.empty()) {
        fail(param.column + equals + 1, "expected a value after " + quote(param.text) +
                                            ", found nothing");
      }
      if (!is_param_value(value)) {
        fail(param.column + equals + 1, "expected a parameter value without control "
                                        "characters, found " + quote(value));
      }
      const auto [previous, inserted] = first_column.try_emplace(std::string(key), param.column);
      if (!inserted) {
        fail(param.column, "expected each parameter once, found " + quote(key) +
                               " again (first given in column " +
                               std::to_string(previous->second) + ")");
      }
      trace_.parameters.set(std::string(key), std::string(value));
    }
    if (arrow_token) {
      fail(arrow_token->column,
           "expected a parameter name=value or end of line, found '=>' (the header records "
           "no result)");
    }
    header_seen_ = true;
  }

  // Reads the number operand `what` ("a key", "a value") after `so_far`; when the operand
  // is optional the message says that end of line was allowed too.
  std::uint64_t read_number(const Token& token, std::string_view what, const std::string& so_far,
                            bool optional = false) const {
    std::uint64_t number = 0;
    const std::string or_end = optional ? " or end of line" : "";
    switch (parse_u64(token.text, number)) {
      case NumberStatus::kOk: return number;
      case NumberStatus::kOutOfRange:
        fail(token.column, "expected " + std::string(what) + " of at most " +
                               std::to_string(std::numeric_limits<std::uint64_t>::max()) +
                               " (64 bits)" + or_end + " after '" + so_far + "', found " +
                               quote(token.text));
      case NumberStatus::kInvalid: break;
    }
    fail(token.column, "expected " + std::string(what) + " (an unsigned 64-bit integer)" + or_end +
                           " after '" + so_far + "', found " + quote(token.text));
  }

  [[noreturn]] void missing(std::string_view what, const std::string& so_far,
                            const std::optional<Token>& arrow_token) const {
    fail(end_column_, "expected " + std::string(what) + " after '" + so_far + "', found " +
                          std::string(arrow_token ? "'=>'" : "end of line"));
  }

  void read_op(const std::vector<Token>& tokens, const std::optional<Token>& arrow_token,
               const std::vector<Token>& result_tokens) {
    const std::optional<OpKind> kind = parse_op_kind(tokens[0].text);
    if (!kind) {
      fail(tokens[0].column, "unknown op " + quote(tokens[0].text) + "; expected one of " +
                                 std::string(kOpList));
    }
    Op op{*kind, 0, 0};
    std::string so_far(tokens[0].text);
    std::size_t next = 1;
    const Operands operands = operands_of(*kind);
    if (operands != Operands::kNone) {
      if (next == tokens.size()) missing("a key", so_far, arrow_token);
      op.key = read_number(tokens[next], "a key", so_far);
      so_far += " " + std::string(tokens[next].text);
      ++next;
    }
    if (operands == Operands::kKeyValue) {
      if (next == tokens.size()) missing("a value", so_far, arrow_token);
      op.value = read_number(tokens[next], "a value", so_far);
      so_far += " " + std::string(tokens[next].text);
      ++next;
    } else if (operands == Operands::kKeyOptionalValue && next < tokens.size()) {
      op.value = read_number(tokens[next], "a value", so_far, true);
      so_far += " " + std::string(tokens[next].text);
      ++next;
    }
    const ResultKind result_kind = result_kind_of(*kind);
    if (next < tokens.size()) {
      const std::string allowed =
          result_kind == ResultKind::kNone ? "end of line" : "end of line or '=> result'";
      fail(tokens[next].column, "expected " + allowed + " after '" + so_far + "', found " +
                                    quote(tokens[next].text));
    }

    TraceEntry entry{op, std::nullopt, line_};
    if (arrow_token) entry.expected = read_result(result_kind, so_far, *arrow_token, result_tokens);
    trace_.entries.push_back(entry);
  }

  OpResult read_result(ResultKind kind, const std::string& so_far, const Token& arrow_token,
                       const std::vector<Token>& tokens) const {
    if (kind == ResultKind::kNone) {
      fail(arrow_token.column, "expected end of line after '" + so_far + "', found '=>' ('" +
                                   so_far + "' records no result)");
    }
    if (tokens.empty()) {
      fail(arrow_token.column + kArrow.size(), "expected " + describe_result(kind) +
                                                   " after '=>', found end of line");
    }
    const Token& token = tokens[0];
    OpResult result;
    switch (kind) {
      case ResultKind::kBool:
        if (token.text != "true" && token.text != "false") wrong_result(kind, token);
        result = OpResult::of_bool(token.text == "true");
        break;
      case ResultKind::kInsert: {
        const std::optional<InsertResult> parsed = parse_insert_result(token.text);
        if (!parsed) wrong_result(kind, token);
        result = OpResult::of_insert(*parsed);
        break;
      }
      case ResultKind::kFind: {
        if (token.text == "none") {
          result = OpResult::of_find(std::nullopt);
          break;
        }
        std::uint64_t value = 0;
        if (parse_u64(token.text, value) != NumberStatus::kOk) wrong_result(kind, token);
        result = OpResult::of_find(value);
        break;
      }
      case ResultKind::kSize: {
        std::uint64_t count = 0;
        if (parse_u64(token.text, count) != NumberStatus::kOk) wrong_result(kind, token);
        result = OpResult::of_size(count);
        break;
      }
      case ResultKind::kNone: break;
    }
    if (tokens.size() > 1) {
      fail(tokens[1].column, "expected end of line after '=> " + std::string(token.text) +
                                 "', found " + quote(tokens[1].text));
    }
    return result;
  }

  [[noreturn]] void wrong_result(ResultKind kind, const Token& token) const {
    fail(token.column,
         "expected " + describe_result(kind) + " after '=>', found " + quote(token.text));
  }

  Trace trace_;
  bool header_seen_ = false;
  std::size_t line_ = 0;
  std::size_t end_column_ = 1;
};

}  // namespace

TraceError::TraceError(std::size_t line, std::optional<std::size_t> column,
                       const std::string& message)
    : std::runtime_error((line == 0 ? std::string("trace") : "line " + std::to_string(line)) +
                         ": " + message),
      line_(line),
      column_(column),
      message_(message) {}

bool is_trace_name(std::string_view name) noexcept {
  if (name.empty() || !is_name_start(name[0])) return false;
  for (const char c : name) {
    if (!is_name_char(c)) return false;
  }
  return true;
}

// ---- TraceParameters ----

void TraceParameters::set(const std::string& name, const std::string& value) {
  if (!is_trace_name(name)) {
    throw std::invalid_argument("trace parameter name " + quote(name) + " is not " +
                                std::string(kNameRule));
  }
  if (!is_param_value(value)) {
    throw std::invalid_argument("trace parameter " + name + ": value " + quote(value) +
                                " is empty, starts with '>', or holds a space, '#', '=>' or a control character");
  }
  values_.insert_or_assign(name, value);
}

bool TraceParameters::has(std::string_view name) const { return values_.contains(name); }

bool TraceParameters::erase(std::string_view name) {
  const auto it = values_.find(name);
  if (it == values_.end()) return false;
  values_.erase(it);
  return true;
}

void TraceParameters::fail(std::string_view name, const std::string& expected) const {
  const auto it = values_.find(name);
  if (it == values_.end()) {
    throw TraceError(line_, std::nullopt,
                     "expected a parameter " + std::string(name) + "=<" + expected +
                         "> in the header, found none");
  }
  throw TraceError(line_, std::nullopt,
                   "expected " + expected + " for parameter '" + std::string(name) +
                       "', found " + quote(it->second));
}

const std::string& TraceParameters::get_string(std::string_view name) const {
  const auto it = values_.find(name);
  if (it == values_.end()) fail(name, "a value");
  return it->second;
}

std::string TraceParameters::get_string_or(std::string_view name,
                                           const std::string& fallback) const {
  return has(name) ? get_string(name) : fallback;
}

std::uint64_t TraceParameters::get_u64(std::string_view name) const {
  const auto it = values_.find(name);
  std::uint64_t number = 0;
  if (it == values_.end() || parse_u64(it->second, number) != NumberStatus::kOk) {
    fail(name, "an unsigned 64-bit integer");
  }
  return number;
}

std::uint64_t TraceParameters::get_u64_or(std::string_view name, std::uint64_t fallback) const {
  return has(name) ? get_u64(name) : fallback;
}

std::uint64_t TraceParameters::get_u64_in(std::string_view name, std::uint64_t min,
                                          std::uint64_t max) const {
  const auto it = values_.find(name);
  std::uint64_t number = 0;
  if (it == values_.end() || parse_u64(it->second, number) != NumberStatus::kOk ||
      number < min || number > max) {
    fail(name, "an integer in " + std::to_string(min) + ".." + std::to_string(max));
  }
  return number;
}

bool TraceParameters::get_bool(std::string_view name) const {
  const auto it = values_.find(name);
  if (it == values_.end() || (it->second != "true" && it->second != "false")) {
    fail(name, "true or false");
  }
  return it->second == "true";
}

bool TraceParameters::get_bool_or(std::string_view name, bool fallback) const {
  return has(name) ? get_bool(name) : fallback;
}

double TraceParameters::get_double(std::string_view name) const {
  const auto it = values_.find(name);
  double number = 0.0;
  bool ok = it != values_.end();
  if (ok) {
    const std::string& text = it->second;
    const char* const end = text.data() + text.size();
    const auto [ptr, ec] = std::from_chars(text.data(), end, number);
    ok = ptr == end && ec == std::errc() && std::isfinite(number);
  }
  if (!ok) fail(name, "a finite number");
  return number;
}

double TraceParameters::get_double_or(std::string_view name, double fallback) const {
  return has(name) ? get_double(name) : fallback;
}

// ---- parse and print ----

Trace parse_trace(std::string_view text) { return Parser().run(text); }

std::string print_trace_line(const TraceEntry& entry) {
  std::string line = to_string(entry.op);
  if (entry.expected) {
    const ResultKind kind = result_kind_of(entry.op.kind);
    if (kind == ResultKind::kNone || entry.expected->kind != kind) {
      throw std::invalid_argument("print_trace: '" + line +
                                  "' cannot record a result of that kind");
    }
    line += " => " + to_string(*entry.expected);
  }
  return line;
}

std::string print_trace(const Trace& trace) {
  if (!is_trace_name(trace.engine)) {
    throw std::invalid_argument("print_trace: engine name " + quote(trace.engine) + " is not " +
                                std::string(kNameRule));
  }
  std::string text(kTraceVersionLine);
  text += "\nengine " + trace.engine;
  for (const auto& [name, value] : trace.parameters.entries()) text += " " + name + "=" + value;
  text += '\n';
  for (const TraceEntry& entry : trace.entries) text += print_trace_line(entry) + '\n';
  return text;
}

}  // namespace cuckoo::model
