// Text helpers shared by the report writers; see report_text.hpp.
#include "report_text.hpp"

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <set>
#include <tuple>

namespace cuckoo::audit::detail {

namespace {

bool is_continuation(unsigned char c) noexcept { return (c & 0xC0) == 0x80; }

// snprintf into a std::string; the formats used here never need more than 64 bytes.
[[gnu::format(printf, 1, 2)]] std::string print(const char* format, ...) {
  char buffer[64];
  std::va_list args;
  va_start(args, format);
  const int n = std::vsnprintf(buffer, sizeof buffer, format, args);
  va_end(args);
  if (n < 0) return "?";
  return std::string(buffer, std::min(static_cast<std::size_t>(n), sizeof buffer - 1));
}

// "0.84310" -> "0.8431", "12.000" -> "12".
std::string trim_fraction_zeros(std::string s) {
  if (s.find('.') == std::string::npos) return s;
  while (!s.empty() && s.back() == '0') s.pop_back();
  if (!s.empty() && s.back() == '.') s.pop_back();
  return s;
}

// "1.250e-05" -> "1.25e-5".
std::string tidy_scientific(const std::string& s) {
  const std::size_t e = s.find('e');
  if (e == std::string::npos) return s;
  std::string mantissa = trim_fraction_zeros(s.substr(0, e));
  std::string exponent = s.substr(e + 1);
  std::string sign;
  if (!exponent.empty() && (exponent[0] == '-' || exponent[0] == '+')) {
    if (exponent[0] == '-') sign = "-";
    exponent.erase(0, 1);
  }
  while (exponent.size() > 1 && exponent[0] == '0') exponent.erase(0, 1);
  return mantissa + "e" + sign + exponent;
}

}  // namespace

char32_t next_code_point(std::string_view s, std::size_t& i) noexcept {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c0 = byte(i);
  if (c0 < 0x80) {
    ++i;
    return c0;
  }
  std::size_t length = 0;
  char32_t cp = 0;
  unsigned char low = 0x80;  // allowed range of the second byte (excludes overlongs,
  unsigned char high = 0xBF; // surrogates and code points above U+10FFFF)
  if (c0 >= 0xC2 && c0 <= 0xDF) {
    length = 2;
    cp = c0 & 0x1F;
  } else if (c0 >= 0xE0 && c0 <= 0xEF) {
    length = 3;
    cp = c0 & 0x0F;
    if (c0 == 0xE0) low = 0xA0;
    if (c0 == 0xED) high = 0x9F;
  } else if (c0 >= 0xF0 && c0 <= 0xF4) {
    length = 4;
    cp = c0 & 0x07;
    if (c0 == 0xF0) low = 0x90;
    if (c0 == 0xF4) high = 0x8F;
  } else {
    ++i;
    return kReplacementChar;
  }
  if (i + length > s.size() || byte(i + 1) < low || byte(i + 1) > high) {
    ++i;
    return kReplacementChar;
  }
  for (std::size_t k = 1; k < length; ++k) {
    if (!is_continuation(byte(i + k))) {
      ++i;
      return kReplacementChar;
    }
    cp = (cp << 6) | (byte(i + k) & 0x3F);
  }
  i += length;
  return cp;
}

void append_utf8(std::string& out, char32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

bool is_disallowed_control(char32_t cp) noexcept {
  if (cp == '\t' || cp == '\n' || cp == '\r') return false;
  // U+FFFE and U+FFFF are not characters; XML 1.0 forbids them like the controls.
  return cp < 0x20 || (cp >= 0x7F && cp <= 0x9F) || cp == 0xFFFE || cp == 0xFFFF;
}

std::string clean_text(std::string_view s, std::string_view control_replacement) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    const char32_t cp = next_code_point(s, i);
    if (is_disallowed_control(cp)) {
      out += control_replacement;
    } else {
      append_utf8(out, cp);
    }
  }
  return out;
}

std::string escape_xml(std::string_view s, bool attribute) {
  std::string out;
  out.reserve(s.size() + s.size() / 8);
  for (std::size_t i = 0; i < s.size();) {
    const char32_t cp = next_code_point(s, i);
    switch (cp) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      case '\t': out += attribute ? "&#9;" : "\t"; break;
      case '\n': out += attribute ? "&#10;" : "\n"; break;
      case '\r': out += "&#13;"; break;
      default:
        append_utf8(out, is_disallowed_control(cp) ? kReplacementChar : cp);
        break;
    }
  }
  return out;
}

std::string format_number(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  if (v == 0) return "0";
  const double magnitude = std::fabs(v);
  if (magnitude < 1e15 && v == std::round(v)) return print("%.0f", v);
  if (magnitude < 1e-3 || magnitude >= 1e6) return tidy_scientific(print("%.3e", v));
  // 4 significant digits, at least one decimal kept for values >= 1000.
  const int digits = static_cast<int>(std::floor(std::log10(magnitude))) + 1;
  const int decimals = std::max(1, 4 - digits);
  return trim_fraction_zeros(print("%.*f", decimals, v));
}

std::string format_seconds(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) return format_number(seconds) + " s";
  if (seconds < 1) return print("%.3f s", seconds);
  if (seconds < 60) return print("%.1f s", seconds);
  const auto whole = static_cast<long long>(std::llround(seconds));
  if (whole < 3600) return print("%lld min %02lld s", whole / 60, whole % 60);
  return print("%lld h %02lld min", whole / 3600, (whole / 60) % 60);
}

std::string format_value(double v, std::string_view unit) {
  std::string out = format_number(v);
  if (unit.empty()) return out;
  if (unit != "%") out += ' ';
  out += unit;
  return out;
}

std::string format_ci(const Figure& f) {
  if (!f.ci_low && !f.ci_high) return "";
  const std::string low = f.ci_low ? format_number(*f.ci_low) : "?";
  const std::string high = f.ci_high ? format_number(*f.ci_high) : "?";
  std::string out = "[" + low + ", " + high + "]";
  if (!f.unit.empty()) out += (f.unit == "%" ? "" : " ") + f.unit;
  return out;
}

std::string format_bound(const Figure& f) {
  return f.bound ? format_value(*f.bound, f.unit) : "";
}

bool claim_less(std::string_view a, std::string_view b) {
  // Split into a non-digit prefix and a number; compare prefix, then number, then text.
  const auto split = [](std::string_view s) {
    std::size_t k = 0;
    while (k < s.size() && (s[k] < '0' || s[k] > '9')) ++k;
    std::size_t end = k;
    unsigned long long number = 0;
    bool has_number = false;
    while (end < s.size() && s[end] >= '0' && s[end] <= '9' && number < 1'000'000'000ULL) {
      number = number * 10 + static_cast<unsigned long long>(s[end] - '0');
      has_number = true;
      ++end;
    }
    return std::tuple(s.substr(0, k), !has_number, number);
  };
  const auto ka = split(a);
  const auto kb = split(b);
  if (ka != kb) return ka < kb;
  return a < b;
}

std::vector<std::string> claims_in_order(const Report& report) {
  std::set<std::string> seen;
  for (const ClaimResult& r : report.results) seen.insert(r.claim);
  for (const Plot& p : report.plots) {
    if (!p.claim.empty()) seen.insert(p.claim);
  }
  std::vector<std::string> claims(seen.begin(), seen.end());
  std::stable_sort(claims.begin(), claims.end(), claim_less);
  return claims;
}

Totals count_verdicts(const std::vector<const ClaimResult*>& results) {
  Totals totals;
  for (const ClaimResult* r : results) {
    switch (r->verdict) {
      case Verdict::kPass: ++totals.passed; break;
      case Verdict::kFail: ++totals.failed; break;
      case Verdict::kSkipped: ++totals.skipped; break;
    }
  }
  return totals;
}

Totals count_verdicts(const Report& report) {
  std::vector<const ClaimResult*> all;
  all.reserve(report.results.size());
  for (const ClaimResult& r : report.results) all.push_back(&r);
  return count_verdicts(all);
}

const char* overall_verdict(const Report& report) noexcept {
  return report.all_passed() ? "PASS" : "FAIL";
}

// ---- order ----------------------------------------------------------------------------

bool not_reproducible(const ClaimResult& r) {
  if (r.verdict != Verdict::kFail) return false;
  for (const Figure& f : r.figures) {
    if (f.name.rfind("replays of the counterexample", 0) == 0 && f.bound && f.value < *f.bound) {
      return true;
    }
  }
  return r.summary.find("NOT REPRODUCIBLE") != std::string::npos;
}

int display_rank(const ClaimResult& r) {
  switch (r.verdict) {
    case Verdict::kFail: return not_reproducible(r) ? 1 : 0;
    case Verdict::kPass: return 2;
    case Verdict::kSkipped: return 3;
  }
  return 3;
}

std::vector<const ClaimResult*> failures_first(std::vector<const ClaimResult*> results) {
  std::stable_sort(results.begin(), results.end(), [](const ClaimResult* a, const ClaimResult* b) {
    return display_rank(*a) < display_rank(*b);
  });
  return results;
}

std::vector<const ClaimResult*> failures_first(const Report& report) {
  std::vector<const ClaimResult*> all;
  all.reserve(report.results.size());
  for (const ClaimResult& r : report.results) all.push_back(&r);
  std::stable_sort(all.begin(), all.end(), [](const ClaimResult* a, const ClaimResult* b) {
    return claim_less(a->claim, b->claim);
  });
  return failures_first(std::move(all));
}

std::string display_verdict(const ClaimResult& r) {
  if (not_reproducible(r)) return "FAIL (not reproducible)";
  return to_string(r.verdict);
}

// ---- metadata ---------------------------------------------------------------------------

std::vector<MetadataRow> metadata_rows(const Report& report) {
  const RunEnvironment& env = report.environment;
  const auto or_unknown = [](const std::string& value, const std::string& why) {
    return value.empty() ? "unknown" + (why.empty() ? std::string() : ": " + why) : value;
  };
  std::string commit;
  if (!env.commit.empty()) {
    commit = env.commit + " (git rev-parse HEAD in " +
             (env.commit_directory.empty() ? std::string("the working directory")
                                           : env.commit_directory) +
             ", the directory the audit and its subject ran in)";
  } else {
    commit = "unknown: " +
             (env.commit_directory.empty() ? std::string("the working directory")
                                           : env.commit_directory) +
             " is not in a git tree (or git is not installed)";
  }
  std::string rtm = env.rtm;
  if (rtm == "yes") rtm = "yes (the CPU has restricted transactional memory)";
  if (rtm == "no") rtm = "no (hardware transactions fall back to locks)";
  return {
      {"subject", "Subject", report.subject},
      {"profile", "Profile", report.profile},
      {"seed", "Seed", std::to_string(report.seed)},
      {"started_utc", "Started (UTC)", or_unknown(report.started_utc, "")},
      {"duration", "Duration", format_seconds(report.seconds)},
      {"tool_version", "Auditor", report.tool + " " + or_unknown(report.tool_version, "")},
      {"commit", "Commit", commit},
      {"compiler", "Compiler", or_unknown(env.compiler, "")},
      {"compiler_flags", "Compiler flags", or_unknown(env.compiler_flags, "")},
      {"cpu", "CPU", or_unknown(env.cpu, "/proc/cpuinfo not readable")},
      {"rtm", "RTM", or_unknown(rtm, "not an x86 CPU")},
      {"subject_environment", "Subject environment",
       env.subject_environment.empty() ? std::string("no subject process (in-process audit)")
                                       : env.subject_environment},
      {"command", "Command", report.command},
  };
}

// ---- margins ----------------------------------------------------------------------------

bool is_statistical_claim(std::string_view claim) {
  return claim == "C2" || claim == "C3" || claim == "C4" || claim == "C9" || claim == "C12";
}

std::string exact_check_text(std::string_view claim) {
  if (claim == "C1" || claim == "C5" || claim == "C6" || claim == "C7" || claim == "C11") {
    return "not statistical: every op of every trace is checked exactly against the model; "
           "one wrong answer fails it";
  }
  if (claim == "C8") return "not statistical: every prediction is compared with the oracle; one mismatch fails it";
  if (claim == "C10") {
    return "not statistical: every history is checked for linearizability; one violation fails it";
  }
  return "not statistical: checked exactly";
}

namespace {

std::string margin_text(const Figure& f, double& margin) {
  const double value = f.value;
  const double bound = *f.bound;
  std::string how;
  if (f.relation == "<=") {
    margin = bound - value;
    how = "bound - measured = ";
  } else if (f.relation == ">=") {
    margin = value - bound;
    how = "measured - bound = ";
  } else {
    margin = value - bound;
    how = "measured - bound = ";
  }
  std::string text = how + format_value(margin, f.unit);
  if (bound != 0 && std::isfinite(margin)) {
    text += " (" + format_number(100.0 * margin / std::fabs(bound)) + "% of the bound)";
  }
  if ((f.relation == "<=" || f.relation == ">=") && margin < 0) text += ", broken";
  if (f.relation == "<=" && f.ci_high) {
    text += "; at the CI's upper end: " + format_value(bound - *f.ci_high, f.unit);
  } else if (f.relation == ">=" && f.ci_low) {
    text += "; at the CI's lower end: " + format_value(*f.ci_low - bound, f.unit);
  } else if (f.relation != "<=" && f.relation != ">=") {
    text += "; the claim accepts the interval in the note";
  }
  return text;
}

}  // namespace

std::vector<MarginRow> margin_rows(const Report& report) {
  std::vector<MarginRow> rows;
  for (const std::string& claim : claims_in_order(report)) {
    std::vector<const ClaimResult*> results;
    for (const ClaimResult& r : report.results) {
      if (r.claim == claim) results.push_back(&r);
    }
    if (!is_statistical_claim(claim)) {
      MarginRow row;
      row.claim = claim;
      row.text = exact_check_text(claim);
      rows.push_back(row);
      continue;
    }
    bool any = false;
    for (const ClaimResult* r : failures_first(results)) {
      for (const Figure& f : r->figures) {
        if (!f.bound) continue;
        MarginRow row;
        row.claim = claim;
        row.result = r;
        row.figure = &f;
        row.margin_text = margin_text(f, row.margin);
        rows.push_back(row);
        any = true;
      }
    }
    if (!any) {
      MarginRow row;
      row.claim = claim;
      bool all_skipped = !results.empty();
      for (const ClaimResult* r : results) all_skipped = all_skipped && r->verdict == Verdict::kSkipped;
      row.text = results.empty() ? "statistical, but no result: see its plots"
                 : all_skipped   ? "statistical, not measured: every result was skipped"
                                 : "statistical, but no figure with a bound was reported";
      rows.push_back(row);
    }
  }
  return rows;
}

}  // namespace cuckoo::audit::detail
