// cuckoo-audit exec: the vocabulary of audit/PROTOCOL.md: subject failures, the
// handshake and its declarations, the claims file, the key encodings, and the request
// and response lines (exec_detail.hpp). See exec.hpp.
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "cuckoo/audit/audit.hpp"
#include "cuckoo/audit/exec.hpp"
#include "exec_detail.hpp"

namespace cuckoo::audit {

namespace exec_detail {

namespace {

const char* resp_word(Resp resp) {
  switch (resp) {
    case Resp::kNone: return "(nothing)";
    case Resp::kOk: return "ok";
    case Resp::kInserted: return "inserted";
    case Resp::kExists: return "exists";
    case Resp::kFull: return "full";
    case Resp::kDuplicateLimit: return "duplicate_limit";
    case Resp::kYes: return "yes";
    case Resp::kNo: return "no";
    case Resp::kNumber: return "a number";
    case Resp::kUnknown: return "unknown";
    case Resp::kBye: return "bye";
    case Resp::kError: return "error";
  }
  return "?";
}

}  // namespace

// `text` with non-printable bytes as \xNN, cut at `limit` bytes ("..." appended).
std::string printable(std::string_view text, std::size_t limit) {
  std::string out;
  for (std::size_t i = 0; i < text.size() && i < limit; ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      static constexpr char kHex[] = "0123456789abcdef";
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  if (text.size() > limit) out += "...";
  return out;
}

Decimal parse_decimal(std::string_view text, std::uint64_t& value) {
  if (text.empty()) return Decimal::kNotDecimal;
  std::uint64_t v = 0;
  bool too_large = false;
  for (const char c : text) {
    if (c < '0' || c > '9') return Decimal::kNotDecimal;
    const auto digit = static_cast<std::uint64_t>(c - '0');
    if (too_large || v > (UINT64_MAX - digit) / 10) {
      too_large = true;  // read on: "12x" past 2^64 is still not a decimal
      continue;
    }
    v = v * 10 + digit;
  }
  if (too_large) return Decimal::kTooLarge;
  value = v;
  return Decimal::kOk;
}

bool parse_u64_text(std::string_view text, std::uint64_t& value) {
  return parse_decimal(text, value) == Decimal::kOk;
}

std::string seconds_text(double seconds) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%g s", seconds);
  return buffer;
}

// Appends the protocol form of `bytes` ("x" and two hex digits a byte) to `out`.
void append_protocol_key(std::string& out, std::string_view bytes) {
  static constexpr char kHex[] = "0123456789abcdef";
  const std::size_t at = out.size();
  out.resize(at + 1 + 2 * bytes.size());
  char* p = out.data() + at;
  *p++ = 'x';
  for (const char c : bytes) {
    const auto b = static_cast<unsigned char>(c);
    *p++ = kHex[b >> 4];
    *p++ = kHex[b & 15];
  }
}

const char* req_word(Req req) {
  switch (req) {
    case Req::kNew: return "new";
    case Req::kInsert: return "insert";
    case Req::kContains: return "contains";
    case Req::kErase: return "erase";
    case Req::kSize: return "size";
    case Req::kClear: return "clear";
    case Req::kClose: return "close";
  }
  return "?";
}

bool takes_key(Req req) {
  return req == Req::kInsert || req == Req::kContains || req == Req::kErase;
}

bool mutating(Req req) {
  return req == Req::kInsert || req == Req::kErase || req == Req::kClear;
}

const char* expected_responses(Req req) {
  switch (req) {
    case Req::kNew:
    case Req::kClear: return "ok";
    case Req::kInsert: return "inserted, exists, full or duplicate_limit";
    case Req::kContains:
    case Req::kErase: return "yes or no";
    case Req::kSize: return "a decimal integer or unknown";
    case Req::kClose: return "bye";
  }
  return "?";
}

std::string resp_text(const Slot& s) {
  if (s.resp == Resp::kNumber) return std::to_string(s.number);
  return resp_word(s.resp);
}

// Parses a response line (printable, without "\r\n") for its request. False: not valid.
bool parse_response(Slot& slot, std::string_view line, std::string& error_text) {
  if (line == "error" || line.substr(0, 6) == "error ") {
    slot.resp = Resp::kError;
    error_text = std::string(line.size() > 6 ? line.substr(6) : std::string_view());
    return true;
  }
  switch (slot.req) {
    case Req::kNew:
    case Req::kClear:
      if (line == "ok") slot.resp = Resp::kOk;
      break;
    case Req::kInsert:
      if (line == "inserted") {
        slot.resp = Resp::kInserted;
      } else if (line == "exists") {
        slot.resp = Resp::kExists;
      } else if (line == "full") {
        slot.resp = Resp::kFull;
      } else if (line == "duplicate_limit") {
        slot.resp = Resp::kDuplicateLimit;
      }
      break;
    case Req::kContains:
    case Req::kErase:
      if (line == "yes") {
        slot.resp = Resp::kYes;
      } else if (line == "no") {
        slot.resp = Resp::kNo;
      }
      break;
    case Req::kSize:
      if (line == "unknown") {
        slot.resp = Resp::kUnknown;
      } else if (parse_u64_text(line, slot.number)) {
        slot.resp = Resp::kNumber;
      }
      break;
    case Req::kClose:
      if (line == "bye") slot.resp = Resp::kBye;
      break;
  }
  return slot.resp != Resp::kNone;
}

Req req_of(model::OpKind kind) {
  switch (kind) {
    case model::OpKind::kInsert: return Req::kInsert;
    case model::OpKind::kContains: return Req::kContains;
    case model::OpKind::kErase: return Req::kErase;
    case model::OpKind::kSize: return Req::kSize;
    case model::OpKind::kClear: return Req::kClear;
    default: break;
  }
  return Req::kClose;  // not an op the protocol has
}

bool upper_case_hex(ExecKeys keys, Req req, std::uint64_t key) {
  if (keys != ExecKeys::kMixed || (req != Req::kContains && req != Req::kErase)) return false;
  std::uint64_t z = key ^ 0x2545f4914f6cdd1dULL;
  z = (z ^ (z >> 33)) * 0xff51afd7ed558ccdULL;
  z ^= z >> 33;
  return (z & 3) == 0;
}

}  // namespace exec_detail

using exec_detail::parse_u64_text;
using exec_detail::printable;

namespace {

// The end of a stderr tail on one line: whole lines from the last `limit` bytes, joined
// by " | ".
std::string tail_line(const std::string& tail, std::size_t limit = 600) {
  std::string_view t = tail;
  while (!t.empty() && (t.back() == '\n' || t.back() == '\r')) t.remove_suffix(1);
  if (t.size() > limit) {
    t.remove_prefix(t.size() - limit);
    const std::size_t nl = t.find('\n');
    if (nl != std::string_view::npos && nl + 1 < t.size()) t.remove_prefix(nl + 1);
  }
  std::string out;
  for (const char c : t) {
    if (c == '\n') {
      out += " | ";
    } else if (c != '\r') {
      out += c;
    }
  }
  return printable(out, limit + 200);
}

std::string what_text(const std::string& message, const std::string& tail) {
  std::string w = "subject " + message;
  if (!tail.empty()) w += "; its stderr ended with: " + tail_line(tail);
  return w;
}

// ---- key encodings ----

std::uint64_t mix(std::uint64_t z) {
  z += 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// Bijective base 26, least significant letter first: injective, letters only.
std::string word(std::uint64_t n) {
  std::string s;
  do {
    s += static_cast<char>('a' + n % 26);
    n /= 26;
  } while (n > 0);
  return s;
}

void append_be(std::string& s, std::uint64_t v) {
  for (int shift = 56; shift >= 0; shift -= 8) s += static_cast<char>((v >> shift) & 0xff);
}

void append_le(std::string& s, std::uint64_t v) {
  for (int shift = 0; shift < 64; shift += 8) s += static_cast<char>((v >> shift) & 0xff);
}

// The families of the mixed encoding. Their images are disjoint: decimal strings start
// with 1-9 and hold only digits; words only letters; long words hold '-' and no ':';
// URLs hold "://"; the binary families start with a byte 0..3; only key 0 is empty.
std::string mixed_key(std::uint64_t key) {
  if (key == 0) return std::string();
  const std::uint64_t h = mix((key >> 2) ^ 0x5bd1e995c0ffeeULL);
  const std::uint64_t family = h % 64;
  const std::uint64_t salt = mix(key);
  std::string s;
  if (family < 18) {  // decimal
    return std::to_string(key);
  }
  if (family < 30) {  // short words
    return word(key);
  }
  if (family < 36) {  // long words, 65..124 bytes
    s = "lw-" + word(key) + "-";
    static constexpr std::string_view kFill = "thequickbrownfoxjumpsoverthelazydog";
    const std::size_t length = 65 + salt % 60;
    for (std::size_t i = 0; s.size() < length; ++i) s += kFill[i % kFill.size()];
    return s;
  }
  if (family < 42) {  // URL-like
    return "https://h" + std::to_string(salt % 10) + ".example.org/items/" + std::to_string(key) +
           "?ref=" + word(salt % 10000);
  }
  if (family < 48) {  // binary with zero bytes
    s += '\0';
    append_le(s, key);
    s += '\0';
    s += static_cast<char>(salt & 0xff);
    return s;
  }
  if (family < 55) {  // 56 bytes; neighbours differ only in the last bytes
    s += '\x01';
    s.append(47, 'L');
    append_be(s, key);
    return s;
  }
  if (family < 63) {  // 33 bytes; neighbours differ in one bit (Gray code)
    s += '\x02';
    s.append(24, '\xa5');
    append_be(s, key ^ (key >> 1));
    return s;
  }
  // very long: 1 KiB .. 4 KiB
  s += '\x03';
  append_be(s, key);
  const std::size_t length = 1024 + salt % 3073;
  s.resize(length);
  std::uint64_t x = salt;
  for (std::size_t at = 9; at < length; at += 8) {  // bound: length / 8
    x = mix(x);
    std::memcpy(s.data() + at, &x, std::min<std::size_t>(8, length - at));
  }
  return s;
}

}  // namespace

// ---- SubjectError ---------------------------------------------------------------------------

const char* to_string(SubjectFailure failure) noexcept {
  switch (failure) {
    case SubjectFailure::kStart: return "start";
    case SubjectFailure::kHandshake: return "handshake";
    case SubjectFailure::kExited: return "exited";
    case SubjectFailure::kSignaled: return "signaled";
    case SubjectFailure::kClosedOutput: return "closed-output";
    case SubjectFailure::kTimeout: return "timeout";
    case SubjectFailure::kGarbage: return "garbage";
    case SubjectFailure::kInvalidResponse: return "invalid-response";
    case SubjectFailure::kErrorResponse: return "error-response";
    case SubjectFailure::kUnsolicited: return "unsolicited-output";
    case SubjectFailure::kNondeterministic: return "nondeterministic";
  }
  return "?";
}

SubjectError::SubjectError(SubjectFailure failure, std::string message, std::string stderr_tail)
    : std::runtime_error(what_text(message, stderr_tail)),
      failure_(failure),
      message_(std::move(message)),
      stderr_tail_(std::move(stderr_tail)) {}

// ---- declarations ---------------------------------------------------------------------------

void ExecDeclarations::set(std::string_view key, std::string_view value) {
  const std::string given = std::string(key) + "=" + std::string(value);
  auto bad = [&](const std::string& allowed) -> void {
    throw std::invalid_argument("'" + printable(given) + "': " + allowed);
  };
  // A decimal declaration: false when it is not one; a number past 2^64 - 1 is named as
  // such (it must not wrap into range).
  auto decimal = [&](std::uint64_t& n, const std::string& allowed) -> bool {
    switch (exec_detail::parse_decimal(value, n)) {
      case exec_detail::Decimal::kOk: return true;
      case exec_detail::Decimal::kTooLarge:
        bad(printable(value) + " is larger than 2^64 - 1 = " + std::to_string(UINT64_MAX) +
            " (" + allowed + ")");
        break;
      case exec_detail::Decimal::kNotDecimal: break;
    }
    return false;
  };
  std::uint64_t n = 0;
  if (key == "kind") {
    if (value == "filter") {
      kind = ImplementationKind::kApproximateFilter;
    } else if (value == "set") {
      kind = ImplementationKind::kExactSet;
    } else {
      bad("kind is filter or set");
    }
    kind_given = true;
  } else if (key == "name") {
    if (!model::is_trace_name(value)) {
      bad("a name is letters, digits, '_', '.', '-', starting with a letter or '_'");
    }
    name = std::string(value);
  } else if (key == "capacity") {
    const std::string allowed = "capacity is an integer 1.." + std::to_string(kMaxAuditCapacity);
    if (!decimal(n, allowed) || n == 0) bad(allowed);
    if (n > kMaxAuditCapacity) {
      bad("capacity is at most " + std::to_string(kMaxAuditCapacity) +
          " (2^22), the largest capacity the auditor audits (a fill sends about 2.3 times "
          "the capacity in inserts, all held in the auditor's memory); declare the capacity "
          "of an instance built for fewer items");
    }
    capacity = n;
  } else if (key == "fpr") {
    const std::string text(value);
    char* end = nullptr;
    errno = 0;
    const double rate = text.empty() ? 0.0 : std::strtod(text.c_str(), &end);
    if (text.empty() || end != text.c_str() + text.size() || errno != 0 || !std::isfinite(rate) ||
        !(rate > 0 && rate < 1) || text.find_first_of(" \t") != std::string::npos) {
      bad("fpr is a real number in (0, 1)");
    }
    fpr = rate;
  } else if (key == "fingerprint_bits") {
    if (!decimal(n, "fingerprint_bits is 1..32") || n < 1 || n > 32) bad("fingerprint_bits is 1..32");
    fingerprint_bits = static_cast<unsigned>(n);
  } else if (key == "slots_per_bucket") {
    if (!decimal(n, "slots_per_bucket is 1..64") || n < 1 || n > 64) bad("slots_per_bucket is 1..64");
    slots_per_bucket = static_cast<unsigned>(n);
  } else if (key == "max_copies") {
    const std::string allowed = "max_copies is an integer >= 1 or none";
    if (value == "none") {
      max_copies = model::MultisetModel::kNoCopyLimit;
    } else if (decimal(n, allowed) && n >= 1 && n < model::MultisetModel::kNoCopyLimit) {
      max_copies = n;
    } else {
      bad(allowed);
    }
  } else if (key == "deletes" || key == "clear") {
    if (value != "yes" && value != "no") bad(std::string(key) + " is yes or no");
    (key == "deletes" ? deletes : clear) = value == "yes";
  } else if (key == "size") {
    if (value == "exact") {
      size = ExecSizeMode::kExact;
    } else if (value == "approximate") {
      size = ExecSizeMode::kApproximate;
    } else if (value == "absent") {
      size = ExecSizeMode::kAbsent;
    } else {
      bad("size is exact, approximate or absent");
    }
  } else if (key == "concurrent") {  // tagged requests of several sessions (exec_concurrent.hpp)
    if (!decimal(n, "concurrent is 1..64") || n < 1 || n > 64) bad("concurrent is 1..64");
    concurrent = static_cast<unsigned>(n);
  } else {
    throw std::invalid_argument("unknown declaration '" + printable(key) +
                                "' (known: kind, name, capacity, fpr, fingerprint_bits, "
                                "slots_per_bucket, max_copies, deletes, size, clear, "
                                "concurrent)");
  }
  for (auto& [k, v] : entries) {
    if (k == key) {
      v = std::string(value);
      return;
    }
  }
  entries.emplace_back(std::string(key), std::string(value));
}

std::string ExecDeclarations::text() const {
  std::string t;
  for (const auto& [k, v] : entries) t += (t.empty() ? "" : " ") + k + "=" + v;
  return t;
}

ExecDeclarations parse_handshake(std::string_view raw) {
  std::string_view line = raw;
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  auto fail = [&](const std::string& why) -> void {
    throw SubjectError(SubjectFailure::kHandshake,
                       "sent a bad handshake: " + why + " (the line was '" + printable(line) + "')");
  };
  std::vector<std::string_view> tokens;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && line[i] == ' ') ++i;
    const std::size_t start = i;
    while (i < line.size() && line[i] != ' ') ++i;
    if (i > start) tokens.push_back(line.substr(start, i - start));
  }
  if (tokens.empty() || tokens[0] != kExecHandshakeWord) {
    fail("expected '" + std::string(kExecHandshakeWord) + " " +
         std::to_string(kExecProtocolVersion) + " kind=...' as the first line");
  }
  std::uint64_t version = 0;
  const exec_detail::Decimal read =
      tokens.size() < 2 ? exec_detail::Decimal::kNotDecimal : exec_detail::parse_decimal(tokens[1], version);
  if (read == exec_detail::Decimal::kNotDecimal) {
    fail("the protocol version (an integer) must follow '" + std::string(kExecHandshakeWord) + "'");
  }
  // A version past 2^64 - 1 is no version this auditor speaks either.
  if (read == exec_detail::Decimal::kTooLarge ||
      version != static_cast<std::uint64_t>(kExecProtocolVersion)) {
    fail("the subject speaks protocol version " + std::string(tokens[1]) +
         "; this auditor speaks version " + std::to_string(kExecProtocolVersion));
  }
  ExecDeclarations d;
  std::vector<std::string_view> seen;
  for (std::size_t t = 2; t < tokens.size(); ++t) {
    const std::size_t eq = tokens[t].find('=');
    if (eq == std::string_view::npos || eq == 0) {
      fail("'" + printable(tokens[t]) + "' is not a key=value declaration");
    }
    const std::string_view key = tokens[t].substr(0, eq);
    if (std::find(seen.begin(), seen.end(), key) != seen.end()) {
      fail("'" + printable(key) + "' is declared twice");
    }
    seen.push_back(key);
    try {
      d.set(key, tokens[t].substr(eq + 1));
    } catch (const std::invalid_argument& e) {
      fail(e.what());
    }
  }
  if (!d.kind_given) fail("kind= (filter or set) is required");
  return d;
}

void apply_claims_file(ExecDeclarations& declarations, std::string_view text,
                       const std::string& file_name) {
  std::vector<std::string> seen;
  std::size_t line_number = 0;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    ++line_number;
    const std::size_t hash = line.find('#');
    if (hash != std::string_view::npos) line = line.substr(0, hash);
    auto trim = [](std::string_view s) {
      while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
      while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) {
        s.remove_suffix(1);
      }
      return s;
    };
    line = trim(line);
    if (line.empty()) continue;
    const std::string where = file_name + ":" + std::to_string(line_number) + ": ";
    const std::size_t eq = line.find('=');
    if (eq == std::string_view::npos) {
      throw UsageError(where + "expected key=value, found '" + printable(line) + "'");
    }
    const std::string key(trim(line.substr(0, eq)));
    if (std::find(seen.begin(), seen.end(), key) != seen.end()) {
      throw UsageError(where + "'" + key + "' is given twice");
    }
    seen.push_back(key);
    try {
      declarations.set(key, trim(line.substr(eq + 1)));
    } catch (const std::invalid_argument& e) {
      throw UsageError(where + e.what());
    }
    if (end == text.size()) break;
  }
}

// ---- keys ---------------------------------------------------------------------------------------

const char* to_string(ExecKeys keys) noexcept {
  switch (keys) {
    case ExecKeys::kMixed: return "mixed";
    case ExecKeys::kU64le: return "u64le";
    case ExecKeys::kDecimal: return "decimal";
  }
  return "?";
}

ExecKeys exec_keys_from_string(std::string_view name) {
  if (name == "mixed") return ExecKeys::kMixed;
  if (name == "u64le") return ExecKeys::kU64le;
  if (name == "decimal") return ExecKeys::kDecimal;
  throw UsageError("unknown key encoding '" + std::string(name) +
                   "' (expected mixed, u64le or decimal)");
}

std::string encode_key(ExecKeys keys, std::uint64_t key) {
  switch (keys) {
    case ExecKeys::kMixed: return mixed_key(key);
    case ExecKeys::kU64le: {
      std::string s;
      append_le(s, key);
      return s;
    }
    case ExecKeys::kDecimal: return std::to_string(key);
  }
  return std::to_string(key);
}

std::string protocol_key(std::string_view bytes) {
  std::string s;
  exec_detail::append_protocol_key(s, bytes);
  return s;
}

std::string describe_key(ExecKeys keys, std::uint64_t key) {
  const std::string bytes = encode_key(keys, key);
  std::string text = bytes.size() <= 40 ? protocol_key(bytes)
                                        : protocol_key(std::string_view(bytes).substr(0, 40)) +
                                              "... (" + std::to_string(bytes.size()) + " bytes)";
  if (exec_detail::upper_case_hex(keys, exec_detail::Req::kContains, key)) {
    text += " (contains and erase spell it in upper case)";
  }
  return text;
}

}  // namespace cuckoo::audit
