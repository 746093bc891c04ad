// Shared by the report writers (internal): UTF-8 clean-up, escaping for XML/HTML,
// readable number formatting, the order claims are shown in, and the verdict totals.
// Every writer takes arbitrary bytes from the Report; everything here turns them into
// text that is valid for its format (no invalid UTF-8, no control characters where the
// format forbids them).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "cuckoo/audit/report.hpp"

namespace cuckoo::audit::detail {

inline constexpr char32_t kReplacementChar = 0xFFFD;

// Decodes the code point at s[i] and advances i past it. An invalid, overlong or
// truncated sequence (or a surrogate) decodes as kReplacementChar and advances by one
// byte, so every input makes progress and the result is always valid UTF-8 when
// re-encoded.
char32_t next_code_point(std::string_view s, std::size_t& i) noexcept;

// Appends `cp` to `out` as UTF-8. REQUIRES: cp is a Unicode scalar value.
void append_utf8(std::string& out, char32_t cp);

// True for the C0 controls (except tab, newline, carriage return), DEL and the C1
// controls: characters XML 1.0 forbids or that corrupt a terminal or a table.
bool is_disallowed_control(char32_t cp) noexcept;

// `s` with invalid UTF-8 replaced by U+FFFD and disallowed controls replaced by
// `control_replacement`.
std::string clean_text(std::string_view s, std::string_view control_replacement = "\xEF\xBF\xBD");

// Escaped for XML and HTML text and attribute values (double- or single-quoted):
// & < > " ' become entities, tab/newline/CR become character references when
// `attribute` (so parsers keep them), disallowed controls and invalid UTF-8 become
// U+FFFD (XML cannot carry them at all).
std::string escape_xml(std::string_view s, bool attribute = false);

// A number for people: integers as integers, |v| < 1e-3 or >= 1e6 (non-integers) in
// scientific form with 4 significant digits ("1.25e-5"), others with 4 significant
// digits ("0.8431", "12.5"). NaN is "NaN", infinities "inf" / "-inf".
std::string format_number(double v);

// Wall time: "0.042 s", "12.3 s", "3 min 07 s".
std::string format_seconds(double seconds);

// The figure's value with its unit ("0.953", "12.1 bits/item", "3.2%").
std::string format_value(double v, std::string_view unit);

// "[low, high]" (with the unit), "" when the figure has no interval.
std::string format_ci(const Figure& f);

// The bound with its unit, "" without one.
std::string format_bound(const Figure& f);

// Claim ids in natural order ("C2" before "C10"), ties by text.
bool claim_less(std::string_view a, std::string_view b);

// The distinct claims of the results and plots (plots with an empty claim excluded),
// in natural order.
std::vector<std::string> claims_in_order(const Report& report);

struct Totals {
  std::size_t passed = 0;
  std::size_t failed = 0;
  std::size_t skipped = 0;
};
Totals count_verdicts(const Report& report);
Totals count_verdicts(const std::vector<const ClaimResult*>& results);

// "PASS" when no result failed, else "FAIL" (Report::all_passed).
const char* overall_verdict(const Report& report) noexcept;

// ---- order: failures first --------------------------------------------------------------

// A failure whose counterexample did not fail every replay (the subject is
// nondeterministic): its "replays of the counterexample that failed" figure is below its
// bound, or its summary says NOT REPRODUCIBLE.
bool not_reproducible(const ClaimResult& r);

// Where a result goes in the tables people read: 0 FAIL, 1 FAIL not reproducible,
// 2 PASS, 3 SKIP.
int display_rank(const ClaimResult& r);

// `results` ordered by display_rank, stable (so claim order, then the runner's order,
// within a rank).
std::vector<const ClaimResult*> failures_first(std::vector<const ClaimResult*> results);
std::vector<const ClaimResult*> failures_first(const Report& report);

// "FAIL", "FAIL (not reproducible)", "PASS", "SKIP".
std::string display_verdict(const ClaimResult& r);

// ---- metadata -----------------------------------------------------------------------------

// The run's facts as (label, value) rows, in the order every format shows them: subject,
// profile, seed, started, duration, tool version, commit, compiler, flags, CPU, RTM,
// subject environment, command. A value that is not known says so ("unknown: ...").
struct MetadataRow {
  std::string key;    // stable machine name: "commit", "cpu", ... (JUnit property names)
  std::string label;  // for people: "Commit", "CPU"
  std::string value;
};
std::vector<MetadataRow> metadata_rows(const Report& report);

// ---- margins to the bound ---------------------------------------------------------------

// The claims whose figures are estimates held to a bound with a confidence (C2 C3 C4 C9
// C12, DESIGN.md): each needs its margin shown. The others are checked exactly.
bool is_statistical_claim(std::string_view claim);

// What an exact claim's check is, for the margin table's "not statistical" rows.
std::string exact_check_text(std::string_view claim);

struct MarginRow {
  std::string claim;
  const ClaimResult* result = nullptr;  // null: a row about the claim, not a figure
  const Figure* figure = nullptr;       // null: `text` says why there is no margin
  double margin = 0;                    // signed: >= 0 holds for <= and >=
  std::string margin_text;              // "0.0012 (12% of the bound)", "-3 (broken)"
  std::string text;                     // for rows without a figure
};

// One row per bounded figure of each statistical claim's results (a claim with results
// but no bounded figure gets a row saying so), and one row per other claim saying that
// it is not statistical; claims in natural order, failures first within a claim.
std::vector<MarginRow> margin_rows(const Report& report);

}  // namespace cuckoo::audit::detail
