// The four report writers on one synthetic Report that has every feature: PASS, FAIL
// and SKIP, confidence intervals, bounds, NaN, a counterexample, both plot kinds, log
// and linear axes, error bars, bound series, empty and one-point and all-equal series,
// and strings full of markup, pipes, quotes, newlines, control characters and invalid
// UTF-8. Each format is parsed back by a strict checker written here (JSON, XML) or
// checked line by line (Markdown), and the values are compared with the Report's.
//
// WritesSampleReportForTheBrowserCheck also writes the report files into
// $CUCKOO_REPORT_SAMPLE_DIR when it is set: audit/tests/browser.cmake runs it as the
// fixture of the headless-browser check of report.html.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "cuckoo/audit/audit.hpp"
#include "cuckoo/audit/report.hpp"
#include "cuckoo/audit/report_writers.hpp"

namespace {

using namespace cuckoo::audit;

// ---------------------------------------------------------------- the synthetic report

// Markup, a table pipe, quotes, a newline, a tab, controls (SOH, ESC, DEL, a C1 control),
// invalid UTF-8 (a lone continuation byte, an overlong slash, a truncated sequence) and
// valid non-ASCII text.
const std::string kNasty =
    "<b>x</b> & \"q\" 'a' | p\nline2\ttab\x01\x1b[31m\x7f\xc2\x85 \x80\xc0\xaf\xe2\x82 "
    "caf\xc3\xa9 \xe2\x9c\x93 `tick` *star* _u_ # [l](u) ]]> --";
const std::uint64_t kBigSeed = std::numeric_limits<std::uint64_t>::max();
// The sections of the sample: C1 C2 C3 C4 C8 C9 C10 (C8 and C9 only through plots).
constexpr int kSampleSections = 7;
constexpr int kSamplePlots = 7;

Figure figure(std::string name, double value, std::string unit = "") {
  Figure f;
  f.name = std::move(name);
  f.value = value;
  f.unit = std::move(unit);
  return f;
}

Report sample_report() {
  Report r;
  r.tool_version = "0.1.0";
  r.subject = "cuckoo engines " + kNasty;
  r.profile = "quick";
  r.seed = kBigSeed;
  r.started_utc = "2026-11-21T10:00:00Z";
  r.seconds = 83.25;
  r.command = "cuckoo-audit --profile quick --seed 18446744073709551615 ```";
  r.environment.commit = "0123456789abcdef0123456789abcdef01234567";
  r.environment.commit_directory = "/src/cuckoo";
  r.environment.compiler = "GCC 12.2.0";
  r.environment.compiler_flags = "-O2 -g";
  r.environment.cpu = "Example CPU @ 2.00GHz";
  r.environment.rtm = "no";
  r.environment.subject_environment = "the auditor's environment, unchanged";

  ClaimResult c1;
  c1.claim = "C1";
  c1.engine = "filter";
  c1.configuration = "f=12 b=4 capacity=65536";
  c1.verdict = Verdict::kPass;
  c1.summary = "no false negatives in 1000 histories";
  c1.figures.push_back(figure("items checked", 2000000, "ops"));
  c1.seed = 42;
  c1.samples = 1000;
  c1.seconds = 0.5;
  r.results.push_back(c1);

  ClaimResult c2;
  c2.claim = "C2";
  c2.engine = "filter";
  c2.configuration = "f=16 b=4";
  c2.verdict = Verdict::kFail;
  c2.summary = "false-positive rate above the bound: " + kNasty;
  Figure fpr = figure("false-positive rate", 1.25e-5);
  fpr.ci_low = 1.0e-5;
  fpr.ci_high = 1.5e-5;
  fpr.bound = 1.2207e-4;
  fpr.relation = "<=";
  fpr.note = "binomial 99.9% | note\nsecond line";
  c2.figures.push_back(fpr);
  Figure load = figure("load", 0.953125);
  load.bound = 0.95;
  load.relation = ">=";
  c2.figures.push_back(load);
  c2.figures.push_back(figure("undefined ratio", std::nan(""), "%"));
  Counterexample cx;
  cx.trace = "engine filter f=16 b=4\ninsert 1\n```\ncontains 1 <false> & \"done\"\x02\n";
  cx.trace_file = "counterexamples/C2-filter-1.trace";
  cx.replay_command = "cuckoo-audit replay 'counterexamples/C2-filter-1.trace' | less";
  cx.explanation = "contains(1) returned false <expected true>";
  cx.original_ops = 1200;
  cx.shrunk_ops = 3;
  c2.counterexample = cx;
  c2.seed = kBigSeed;
  c2.samples = 1000000;
  c2.seconds = 1.75;
  r.results.push_back(c2);

  ClaimResult c2_pass = c2;
  c2_pass.configuration = "f=8 b=2";
  c2_pass.verdict = Verdict::kPass;
  c2_pass.summary = "fpr within the bound";
  c2_pass.counterexample.reset();
  c2_pass.seed = 7;
  r.results.push_back(c2_pass);

  ClaimResult c10;
  c10.claim = "C10";
  c10.engine = "concurrent-map";
  c10.configuration = "threads=4";
  c10.verdict = Verdict::kSkipped;
  c10.summary = "skipped: built without threads";
  c10.detected = "htm ran: disabled";
  r.results.push_back(c10);

  ClaimResult c3;
  c3.claim = "C3";
  c3.engine = kNasty;
  c3.configuration = "b=" + kNasty;
  c3.verdict = Verdict::kPass;
  c3.summary = kNasty;
  Figure nasty = figure(kNasty, 0.84, "%");
  nasty.note = kNasty;
  nasty.relation = kNasty;
  c3.figures.push_back(nasty);
  r.results.push_back(c3);

  ClaimResult c4;
  c4.claim = "C4";
  c4.engine = "filter";
  c4.configuration = "eps=0.01";
  c4.verdict = Verdict::kPass;
  c4.summary = "bits per item below Bloom";
  c4.figures.push_back(figure("bits per item", 12.5, "bits/item"));
  r.results.push_back(c4);

  // C2: log y, lines, error bars, one bound series per b, a NaN and a zero point.
  Plot fpr_plot;
  fpr_plot.id = "c2-fpr-vs-bits";
  fpr_plot.claim = "C2";
  fpr_plot.title = "False-positive rate vs fingerprint bits";
  fpr_plot.x_label = "fingerprint bits f";
  fpr_plot.y_label = "false-positive rate";
  fpr_plot.log_y = true;
  for (const int b : {2, 4}) {
    PlotSeries measured{"b=" + std::to_string(b), false, {}};
    PlotSeries bound{"bound b=" + std::to_string(b), true, {}};
    for (int f = 4; f <= 16; f += 4) {
      const double limit = 2.0 * b / std::pow(2.0, f);
      const double y = limit * 0.7;
      measured.points.push_back(PlotPoint{static_cast<double>(f), y, y * 0.8, y * 1.2});
      bound.points.push_back(PlotPoint{static_cast<double>(f), limit, {}, {}});
    }
    fpr_plot.series.push_back(measured);
    fpr_plot.series.push_back(bound);
  }
  fpr_plot.series[0].points.push_back(PlotPoint{20, std::nan(""), {}, {}});
  fpr_plot.series[0].points.push_back(PlotPoint{24, 0.0, {}, {}});  // not on a log axis
  r.plots.push_back(fpr_plot);

  // C3: a distribution per b (kPoints) with a bound level per b.
  Plot load_plot;
  load_plot.id = "c3-load-at-first-failure";
  load_plot.claim = "C3";
  load_plot.title = "Load at first failure";
  load_plot.x_label = "slots per bucket b";
  load_plot.y_label = "load factor";
  load_plot.kind = PlotKind::kPoints;
  const double expected[] = {0.5, 0.84, 0.95, 0.98};
  PlotSeries expected_series{"expected", true, {}};
  for (int i = 0; i < 4; ++i) {
    const int b = 1 << i;
    PlotSeries s{"b=" + std::to_string(b), false, {}};
    for (int k = 0; k < 40; ++k) {
      s.points.push_back(PlotPoint{static_cast<double>(b), expected[i] + 0.001 * (k % 7), {}, {}});
    }
    load_plot.series.push_back(s);
    expected_series.points.push_back(PlotPoint{static_cast<double>(b), expected[i], {}, {}});
  }
  load_plot.series.push_back(expected_series);
  r.plots.push_back(load_plot);

  // C4: lines, one of them a single point, and a nasty legend entry and title.
  Plot bits_plot;
  bits_plot.id = "c4-bits-per-item";
  bits_plot.claim = "C4";
  bits_plot.title = "Bits per item " + kNasty;
  bits_plot.x_label = "target fpr";
  bits_plot.y_label = "bits per item";
  bits_plot.series.push_back(
      PlotSeries{"cuckoo", false, {{0.03, 7.6, {}, {}}, {0.001, 12.6, {}, {}}, {0.01, 9.5, {}, {}}}});
  bits_plot.series.push_back(PlotSeries{"bloom", false, {{0.01, 9.6, {}, {}}}});
  bits_plot.series.push_back(PlotSeries{kNasty, true, {{0.001, 14.3, {}, {}}, {0.03, 7.3, {}, {}}}});
  r.plots.push_back(bits_plot);

  // C9: kicks per insert vs load, classic and smart.
  Plot kicks;
  kicks.id = "c9-kicks-per-insert";
  kicks.claim = "C9";
  kicks.title = "Kicks per insert";
  kicks.x_label = "load factor";
  kicks.y_label = "kicks per insert";
  PlotSeries classic{"classic", false, {}};
  PlotSeries smart{"smart", false, {}};
  for (int i = 1; i <= 9; ++i) {
    const double load_factor = i / 10.0;
    classic.points.push_back(PlotPoint{load_factor, load_factor / (1 - load_factor), {}, {}});
    smart.points.push_back(PlotPoint{load_factor, load_factor / (1 - load_factor) * 0.6, {}, {}});
  }
  kicks.series = {classic, smart};
  r.plots.push_back(kicks);

  // C8: all-equal values.
  Plot flat;
  flat.id = "c8-predictions-vs-oracle";
  flat.claim = "C8";
  flat.title = "Predictions vs oracle";
  flat.x_label = "load";
  flat.y_label = "agreement";
  flat.series.push_back(PlotSeries{"agree", false, {{0.5, 1, {}, {}}, {0.6, 1, {}, {}}, {0.7, 1, {}, {}}}});
  r.plots.push_back(flat);

  // C10: nothing drawable (one series with no points, one with only NaN/inf).
  Plot empty;
  empty.id = "c10-empty";
  empty.claim = "C10";
  empty.title = "Nothing to draw";
  empty.series.push_back(PlotSeries{"none", false, {}});
  empty.series.push_back(PlotSeries{"bad", false,
                                    {{std::nan(""), 1, {}, {}},
                                     {1, std::numeric_limits<double>::infinity(), {}, {}}}});
  r.plots.push_back(empty);

  // C1: a single point on a log axis.
  Plot single;
  single.id = "c1-single";
  single.claim = "C1";
  single.title = "One point";
  single.log_y = true;
  single.series.push_back(PlotSeries{"only", false, {{3, 0.001, 0.0005, 0.002}}});
  r.plots.push_back(single);
  return r;
}

template <typename Writer>
std::string render(const Report& report, Writer writer) {
  std::ostringstream out;
  writer(report, out);
  return out.str();
}

std::size_t count(const std::string& haystack, const std::string& needle) {
  std::size_t n = 0;
  for (std::size_t at = haystack.find(needle); at != std::string::npos;
       at = haystack.find(needle, at + needle.size())) {
    ++n;
  }
  return n;
}

// True when `s` is valid UTF-8 without any C0 control other than tab, LF, CR and without
// DEL or C1 controls.
bool is_clean_utf8(const std::string& s, std::string* why) {
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7f) {
        *why = "control byte " + std::to_string(c) + " at " + std::to_string(i);
        return false;
      }
      ++i;
      continue;
    }
    std::size_t len = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 ? 2 : 0;
    if (len == 0 || c > 0xF4 || i + len > s.size()) {
      *why = "invalid UTF-8 lead byte at " + std::to_string(i);
      return false;
    }
    std::uint32_t cp = c & (0xFF >> (len + 1));
    for (std::size_t k = 1; k < len; ++k) {
      const auto d = static_cast<unsigned char>(s[i + k]);
      if ((d & 0xC0) != 0x80) {
        *why = "invalid UTF-8 continuation at " + std::to_string(i + k);
        return false;
      }
      cp = (cp << 6) | (d & 0x3F);
    }
    const std::uint32_t min_for_len[] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < min_for_len[len] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF) ||
        (cp >= 0x80 && cp <= 0x9F)) {
      *why = "bad code point at " + std::to_string(i);
      return false;
    }
    i += len;
  }
  return true;
}

// ---------------------------------------------------------------- a strict JSON parser

struct Json {
  enum Type { kNull, kBool, kNumber, kString, kArray, kObject } type = kNull;
  bool boolean = false;
  double number = 0;
  std::string text;  // the string, or the number's source text
  std::vector<Json> items;
  // An object's members in document order: keys[i] names values[i]. (Two vectors, not
  // a vector of pairs: std::pair may not hold the incomplete Json under clang.)
  std::vector<std::string> keys;
  std::vector<Json> values;

  const Json& operator[](const std::string& key) const {
    for (std::size_t i = 0; i < keys.size(); ++i) {
      if (keys[i] == key) return values[i];
    }
    throw std::runtime_error("no key " + key);
  }
  bool has(const std::string& key) const {
    for (const auto& k : keys) {
      if (k == key) return true;
    }
    return false;
  }
};

class JsonParser {
 public:
  explicit JsonParser(const std::string& s) : s_(s) {}

  Json parse() {
    Json v = value();
    ws();
    if (i_ != s_.size()) fail("trailing characters");
    return v;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw std::runtime_error("JSON: " + what + " at offset " + std::to_string(i_));
  }
  void ws() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\n' || s_[i_] == '\t' || s_[i_] == '\r')) ++i_;
  }
  bool eat(char c) {
    ws();
    if (i_ < s_.size() && s_[i_] == c) {
      ++i_;
      return true;
    }
    return false;
  }
  void expect(char c) {
    if (!eat(c)) fail(std::string("expected '") + c + "'");
  }
  void literal(const char* word) {
    const std::string w = word;
    if (s_.compare(i_, w.size(), w) != 0) fail("bad literal");
    i_ += w.size();
  }

  Json value() {
    ws();
    if (i_ >= s_.size()) fail("unexpected end");
    Json v;
    const char c = s_[i_];
    if (c == '{') {
      v.type = Json::kObject;
      ++i_;
      if (eat('}')) return v;
      do {
        ws();
        if (i_ >= s_.size() || s_[i_] != '"') fail("expected a key");
        std::string key = string();
        if (v.has(key)) fail("duplicate key " + key);
        expect(':');
        Json member = value();
        v.keys.push_back(std::move(key));
        v.values.push_back(std::move(member));
      } while (eat(','));
      expect('}');
    } else if (c == '[') {
      v.type = Json::kArray;
      ++i_;
      if (eat(']')) return v;
      do {
        v.items.push_back(value());
      } while (eat(','));
      expect(']');
    } else if (c == '"') {
      v.type = Json::kString;
      v.text = string();
    } else if (c == 't') {
      literal("true");
      v.type = Json::kBool;
      v.boolean = true;
    } else if (c == 'f') {
      literal("false");
      v.type = Json::kBool;
    } else if (c == 'n') {
      literal("null");
    } else {
      v.type = Json::kNumber;
      v.text = number();
      v.number = std::strtod(v.text.c_str(), nullptr);
    }
    return v;
  }

  std::string number() {
    // -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
    static const std::regex kNumber(R"(-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?)");
    std::size_t end = i_;
    while (end < s_.size() && std::string("+-.eE0123456789").find(s_[end]) != std::string::npos) ++end;
    const std::string text = s_.substr(i_, end - i_);
    if (text.empty() || !std::regex_match(text, kNumber)) fail("bad number '" + text + "'");
    i_ = end;
    return text;
  }

  unsigned hex4() {
    if (i_ + 4 > s_.size()) fail("short \\u escape");
    unsigned v = 0;
    for (int k = 0; k < 4; ++k) {
      const char c = s_[i_++];
      v <<= 4;
      if (c >= '0' && c <= '9') v |= static_cast<unsigned>(c - '0');
      else if (c >= 'a' && c <= 'f') v |= static_cast<unsigned>(c - 'a' + 10);
      else if (c >= 'A' && c <= 'F') v |= static_cast<unsigned>(c - 'A' + 10);
      else fail("bad hex digit");
    }
    return v;
  }

  static void append(std::string& out, std::uint32_t cp) {
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

  std::string string() {
    ++i_;  // the opening quote
    std::string out;
    while (true) {
      if (i_ >= s_.size()) fail("unterminated string");
      const auto c = static_cast<unsigned char>(s_[i_++]);
      if (c == '"') return out;
      if (c < 0x20) fail("raw control character in a string");
      if (c != '\\') {
        out += static_cast<char>(c);
        continue;
      }
      if (i_ >= s_.size()) fail("unterminated escape");
      const char e = s_[i_++];
      switch (e) {
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case '/': out += '/'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'u': {
          std::uint32_t cp = hex4();
          if (cp >= 0xD800 && cp <= 0xDBFF) {
            if (s_.compare(i_, 2, "\\u") != 0) fail("lone high surrogate");
            i_ += 2;
            const unsigned low = hex4();
            if (low < 0xDC00 || low > 0xDFFF) fail("bad low surrogate");
            cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
          } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
            fail("lone low surrogate");
          }
          append(out, cp);
          break;
        }
        default: fail(std::string("bad escape \\") + e);
      }
    }
  }

  const std::string& s_;
  std::size_t i_ = 0;
};

// ---------------------------------------------------------------- a small XML checker

struct XmlElement {
  std::string name;
  std::vector<std::pair<std::string, std::string>> attributes;  // values decoded
  std::vector<std::unique_ptr<XmlElement>> children;
  std::string text;  // all direct text, decoded

  std::optional<std::string> attribute(const std::string& key) const {
    for (const auto& [k, v] : attributes) {
      if (k == key) return v;
    }
    return std::nullopt;
  }
  std::vector<const XmlElement*> all(const std::string& element_name) const {
    std::vector<const XmlElement*> out;
    for (const auto& c : children) {
      if (c->name == element_name) out.push_back(c.get());
      const auto deeper = c->all(element_name);
      out.insert(out.end(), deeper.begin(), deeper.end());
    }
    return out;
  }
  const XmlElement* child(const std::string& element_name) const {
    for (const auto& c : children) {
      if (c->name == element_name) return c.get();
    }
    return nullptr;
  }
};

// Well-formedness of XML 1.0 as far as these writers can get it wrong: one root,
// balanced and matching tags, quoted unique attributes, no '<' in attribute values,
// only the five predefined and numeric entities, no stray '&' or '<' in text, no
// forbidden characters, valid UTF-8. Throws with the offset on the first problem.
class XmlChecker {
 public:
  explicit XmlChecker(const std::string& s) : s_(s) {}

  std::unique_ptr<XmlElement> parse() {
    std::string why;
    if (!is_clean_utf8(s_, &why)) fail(why);
    if (s_.compare(0, 5, "<?xml") == 0) {
      const std::size_t end = s_.find("?>");
      if (end == std::string::npos) fail("unterminated declaration");
      i_ = end + 2;
    }
    misc();
    if (i_ >= s_.size() || s_[i_] != '<') fail("no root element");
    auto root = element();
    misc();
    if (i_ != s_.size()) fail("content after the root element");
    return root;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw std::runtime_error("XML: " + what + " at offset " + std::to_string(i_) + ": '" +
                             s_.substr(i_ > 40 ? i_ - 40 : 0, 80) + "'");
  }
  static bool name_char(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == ':' ||
           c == '.';
  }
  void ws() {
    while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) ++i_;
  }
  void misc() {
    while (true) {
      ws();
      if (s_.compare(i_, 4, "<!--") == 0) {
        const std::size_t end = s_.find("-->", i_ + 4);
        if (end == std::string::npos) fail("unterminated comment");
        i_ = end + 3;
      } else {
        return;
      }
    }
  }
  std::string name() {
    const std::size_t start = i_;
    if (i_ >= s_.size() || std::isdigit(static_cast<unsigned char>(s_[i_])) || !name_char(s_[i_])) {
      fail("bad name");
    }
    while (i_ < s_.size() && name_char(s_[i_])) ++i_;
    return s_.substr(start, i_ - start);
  }
  // Decodes the text from i_ up to the first of `stops`, checking entities.
  std::string chars(const std::string& stops) {
    std::string out;
    while (i_ < s_.size() && stops.find(s_[i_]) == std::string::npos) {
      if (s_[i_] == '<') fail("'<' in text or attribute");
      if (s_[i_] != '&') {
        out += s_[i_++];
        continue;
      }
      const std::size_t semi = s_.find(';', i_);
      if (semi == std::string::npos || semi - i_ > 10) fail("stray '&'");
      const std::string entity = s_.substr(i_ + 1, semi - i_ - 1);
      static const std::map<std::string, std::string> kNamed = {
          {"amp", "&"}, {"lt", "<"}, {"gt", ">"}, {"quot", "\""}, {"apos", "'"}};
      if (const auto it = kNamed.find(entity); it != kNamed.end()) {
        out += it->second;
      } else if (entity.size() > 1 && entity[0] == '#') {
        const bool hex = entity[1] == 'x';
        const std::string digits = entity.substr(hex ? 2 : 1);
        if (digits.empty() || digits.find_first_not_of(hex ? "0123456789abcdefABCDEF" : "0123456789") !=
                                  std::string::npos) {
          fail("bad character reference");
        }
        const unsigned long cp = std::stoul(digits, nullptr, hex ? 16 : 10);
        if (!(cp == 9 || cp == 10 || cp == 13 || (cp >= 0x20 && cp <= 0xD7FF) ||
              (cp >= 0xE000 && cp <= 0xFFFD) || (cp >= 0x10000 && cp <= 0x10FFFF))) {
          fail("reference to a character XML forbids");
        }
        if (cp < 0x80) out += static_cast<char>(cp);
        else out += "?";  // not needed by these checks
      } else {
        fail("unknown entity &" + entity + ";");
      }
      i_ = semi + 1;
    }
    return out;
  }
  std::unique_ptr<XmlElement> element() {
    ++i_;  // '<'
    auto e = std::make_unique<XmlElement>();
    e->name = name();
    while (true) {
      const std::size_t before = i_;
      ws();
      if (i_ >= s_.size()) fail("unterminated start tag");
      if (s_.compare(i_, 2, "/>") == 0) {
        i_ += 2;
        return e;
      }
      if (s_[i_] == '>') {
        ++i_;
        break;
      }
      if (i_ == before) fail("attributes must be separated by white space");
      const std::string key = name();
      if (e->attribute(key)) fail("duplicate attribute " + key);
      if (i_ >= s_.size() || s_[i_] != '=') fail("expected '='");
      ++i_;
      if (i_ >= s_.size() || (s_[i_] != '"' && s_[i_] != '\'')) fail("unquoted attribute");
      const char quote = s_[i_++];
      std::string value = chars(std::string(1, quote));
      if (i_ >= s_.size()) fail("unterminated attribute");
      ++i_;
      e->attributes.emplace_back(key, std::move(value));
    }
    while (true) {
      e->text += chars("<");
      if (i_ >= s_.size()) fail("unterminated element " + e->name);
      if (s_.compare(i_, 2, "</") == 0) {
        i_ += 2;
        const std::string closing = name();
        if (closing != e->name) fail("</" + closing + "> closes <" + e->name + ">");
        ws();
        if (i_ >= s_.size() || s_[i_] != '>') fail("bad end tag");
        ++i_;
        return e;
      }
      if (s_.compare(i_, 4, "<!--") == 0) {
        misc();
        continue;
      }
      e->children.push_back(element());
    }
  }

  const std::string& s_;
  std::size_t i_ = 0;
};

std::unique_ptr<XmlElement> parse_xml(const std::string& text) { return XmlChecker(text).parse(); }

// The cleaned form of kNasty as the writers carry it: controls and invalid bytes become
// U+FFFD (tab and newline are kept).
const std::string kReplacement = "\xEF\xBF\xBD";

// ---------------------------------------------------------------- JSON

TEST(ReportJson, ParsesStrictlyAndMirrorsTheReport) {
  const Report report = sample_report();
  const std::string text = render(report, write_json);
  std::string why;
  ASSERT_TRUE(is_clean_utf8(text, &why)) << why;
  Json root;
  ASSERT_NO_THROW(root = JsonParser(text).parse()) << text;

  EXPECT_EQ(root["schema_version"].number, kReportSchemaVersion);
  EXPECT_EQ(root["tool"].text, "cuckoo-audit");
  EXPECT_EQ(root["seed"].type, Json::kString);
  EXPECT_EQ(root["seed"].text, "18446744073709551615");
  EXPECT_EQ(root["seconds"].number, 83.25);
  EXPECT_EQ(root["verdict"].text, "FAIL");
  EXPECT_EQ(root["totals"]["results"].number, 6);
  EXPECT_EQ(root["totals"]["passed"].number, 4);
  EXPECT_EQ(root["totals"]["failed"].number, 1);
  EXPECT_EQ(root["totals"]["skipped"].number, 1);

  const Json& results = root["results"];
  ASSERT_EQ(results.items.size(), report.results.size());
  for (std::size_t i = 0; i < results.items.size(); ++i) {
    const Json& r = results.items[i];
    for (const char* key : {"claim", "engine", "configuration", "verdict", "summary", "seed",
                            "samples", "seconds", "figures", "counterexample"}) {
      EXPECT_TRUE(r.has(key)) << "result " << i << " lacks " << key;
    }
    EXPECT_EQ(r["verdict"].text, to_string(report.results[i].verdict));
    EXPECT_EQ(r["figures"].items.size(), report.results[i].figures.size());
  }
  const Json& failed = results.items[1];
  EXPECT_EQ(failed["seed"].text, "18446744073709551615");
  EXPECT_EQ(failed["samples"].number, 1000000);
  const Json& fpr = failed["figures"].items[0];
  EXPECT_EQ(fpr["value"].number, 1.25e-5);  // round-trips exactly
  EXPECT_EQ(fpr["ci_low"].number, 1.0e-5);
  EXPECT_EQ(fpr["ci_high"].number, 1.5e-5);
  EXPECT_EQ(fpr["bound"].number, 1.2207e-4);
  EXPECT_EQ(fpr["relation"].text, "<=");
  EXPECT_EQ(fpr["note"].text, "binomial 99.9% | note\nsecond line");
  EXPECT_EQ(failed["figures"].items[1]["ci_low"].type, Json::kNull);
  EXPECT_EQ(failed["figures"].items[2]["value"].type, Json::kNull);  // NaN
  const Json& cx = failed["counterexample"];
  ASSERT_EQ(cx.type, Json::kObject);
  EXPECT_EQ(cx["original_ops"].number, 1200);
  EXPECT_EQ(cx["shrunk_ops"].number, 3);
  EXPECT_EQ(cx["trace"].text,
            "engine filter f=16 b=4\ninsert 1\n```\ncontains 1 <false> & \"done\"\x02\n");
  EXPECT_EQ(results.items[0]["counterexample"].type, Json::kNull);

  // Control characters are escaped, invalid UTF-8 is replaced, the rest survives.
  const std::string nasty = results.items[4]["summary"].text;
  EXPECT_NE(nasty.find("<b>x</b> & \"q\" 'a' | p\nline2\ttab\x01\x1b[31m\x7f"), std::string::npos)
      << nasty;
  EXPECT_NE(nasty.find("caf\xc3\xa9 \xe2\x9c\x93"), std::string::npos);
  EXPECT_NE(nasty.find(kReplacement), std::string::npos);
  EXPECT_NE(text.find("\\u0001"), std::string::npos);
  EXPECT_NE(text.find("\\u001b"), std::string::npos);

  const Json& plots = root["plots"];
  ASSERT_EQ(plots.items.size(), report.plots.size());
  const Json& fpr_plot = plots.items[0];
  EXPECT_EQ(fpr_plot["id"].text, "c2-fpr-vs-bits");
  EXPECT_EQ(fpr_plot["kind"].text, "lines");
  EXPECT_TRUE(fpr_plot["log_y"].boolean);
  EXPECT_EQ(fpr_plot["series"].items.size(), 4u);
  EXPECT_TRUE(fpr_plot["series"].items[1]["bound"].boolean);
  const Json& first_point = fpr_plot["series"].items[0]["points"].items[0];
  EXPECT_EQ(first_point["x"].number, 4);
  EXPECT_EQ(first_point["y"].number, report.plots[0].series[0].points[0].y);
  EXPECT_EQ(first_point["y_low"].number, *report.plots[0].series[0].points[0].y_low);
  EXPECT_EQ(fpr_plot["series"].items[0]["points"].items[4]["y"].type, Json::kNull);  // NaN
  EXPECT_EQ(plots.items[1]["kind"].text, "points");
}

TEST(ReportJson, ParserRejectsWhatJsonForbids) {
  // The checker above must be able to fail, or the test proves nothing.
  for (const char* bad : {"{\"a\": 1,}", "{\"a\": \"x\ny\"}", "[01]", "{\"a\": NaN}",
                          "{\"a\": \"\\x\"}", "{\"a\" 1}", "{\"a\": 1, \"a\": 2}", "[1] 2"}) {
    EXPECT_THROW(JsonParser(bad).parse(), std::runtime_error) << bad;
  }
}

// ---------------------------------------------------------------- JUnit

TEST(ReportJunit, IsWellFormedWithOneSuitePerClaim) {
  const Report report = sample_report();
  const std::string text = render(report, write_junit);
  std::unique_ptr<XmlElement> root;
  ASSERT_NO_THROW(root = parse_xml(text)) << text;
  EXPECT_EQ(root->name, "testsuites");
  EXPECT_EQ(root->attribute("tests"), "6");
  EXPECT_EQ(root->attribute("failures"), "1");
  // The strict schema allows no `skipped` or `timestamp` on <testsuites>: the skip count
  // is on each <testsuite> (JunitStrictSchema below checks every rule).
  EXPECT_FALSE(root->attribute("skipped").has_value());
  EXPECT_FALSE(root->attribute("timestamp").has_value());

  const auto suites = root->all("testsuite");
  std::vector<std::string> names;
  for (const XmlElement* s : suites) names.push_back(*s->attribute("name"));
  // Claims with results only, in natural order.
  EXPECT_EQ(names, (std::vector<std::string>{"C1", "C2", "C3", "C4", "C10"}));

  const XmlElement* c2 = suites[1];
  EXPECT_EQ(c2->attribute("tests"), "2");
  EXPECT_EQ(c2->attribute("failures"), "1");
  EXPECT_EQ(c2->attribute("time"), "3.500");
  const auto cases = c2->all("testcase");
  ASSERT_EQ(cases.size(), 2u);
  EXPECT_EQ(cases[0]->attribute("classname"), "cuckoo.audit.C2");
  EXPECT_EQ(cases[0]->attribute("name"), "filter f=16 b=4");
  EXPECT_EQ(cases[0]->attribute("time"), "1.750");
  const XmlElement* failure = cases[0]->child("failure");
  ASSERT_NE(failure, nullptr);
  const std::string message = *failure->attribute("message");
  EXPECT_EQ(message.rfind("false-positive rate above the bound: <b>x</b> & \"q\" 'a' | p\nline2\ttab", 0), 0u)
      << message;
  EXPECT_NE(failure->text.find("false-positive rate: 1.25e-5 CI [1e-5, 1.5e-5] (<= 1.221e-4)"),
            std::string::npos)
      << failure->text;
  EXPECT_NE(failure->text.find("contains 1 <false> & \"done\""), std::string::npos);
  EXPECT_NE(failure->text.find("replay: cuckoo-audit replay 'counterexamples/C2-filter-1.trace' | less"),
            std::string::npos);
  EXPECT_NE(failure->text.find("shrunk from 1200 to 3"), std::string::npos);
  EXPECT_EQ(cases[1]->child("failure"), nullptr);
  ASSERT_NE(cases[1]->child("system-out"), nullptr);
  EXPECT_NE(cases[1]->child("system-out")->text.find("false-positive rate: 1.25e-5"), std::string::npos);

  const XmlElement* c10 = suites[4];
  const XmlElement* skipped = c10->all("testcase")[0];
  ASSERT_NE(skipped->child("skipped"), nullptr);
  EXPECT_EQ(skipped->child("skipped")->attribute("message"), "skipped: built without threads");
  EXPECT_EQ(skipped->child("failure"), nullptr);
}

TEST(ReportJunit, CheckerRejectsMalformedXml) {
  for (const char* bad : {"<a><b></a></b>", "<a x=1/>", "<a>&nbsp;</a>", "<a>x & y</a>",
                          "<a x=\"<\"/>", "<a/><b/>", "<a>\x01</a>", "<a x=\"1\" x=\"2\"/>",
                          "<a>&#1;</a>", "<a>\xff</a>"}) {
    EXPECT_THROW(parse_xml(bad), std::runtime_error) << bad;
  }
  EXPECT_NO_THROW(parse_xml("<?xml version=\"1.0\"?>\n<a x='1' y=\"&amp;&#10;\"><b/>t&lt;</a>\n"));
}

// ---------------------------------------------------------------- Markdown

TEST(ReportMarkdown, TablesSectionsAndEscapes) {
  const Report report = sample_report();
  const std::string text = render(report, write_markdown);
  std::string why;
  ASSERT_TRUE(is_clean_utf8(text, &why)) << why;

  // Every table row has exactly as many unescaped pipes as its header.
  std::istringstream lines(text);
  std::string line;
  std::size_t expected_pipes = 0;
  std::vector<std::string> sections;
  bool in_fence = false;
  std::string fence;
  while (std::getline(lines, line)) {
    if (!in_fence && line.rfind("```", 0) == 0) {
      in_fence = true;
      fence = line.substr(0, line.find_first_not_of('`'));
      continue;
    }
    if (in_fence) {
      if (line == fence) in_fence = false;
      continue;
    }
    if (line.rfind("## ", 0) == 0) sections.push_back(line.substr(3));
    if (line.empty() || line[0] != '|') {
      expected_pipes = 0;
      continue;
    }
    std::size_t pipes = 0;
    for (std::size_t i = 0; i < line.size(); ++i) {
      if (line[i] == '\\') {
        ++i;
      } else if (line[i] == '|') {
        ++pipes;
      }
    }
    if (expected_pipes == 0) expected_pipes = pipes;
    EXPECT_EQ(pipes, expected_pipes) << line;
  }
  EXPECT_FALSE(in_fence) << "unclosed code block";
  EXPECT_EQ(sections, (std::vector<std::string>{"Summary", "Margins to the bounds", "C1", "C2", "C3",
                                                "C4", "C8", "C9", "C10"}));

  EXPECT_NE(text.find("**Verdict: FAIL** (4 passed, 1 failed, 1 skipped)"), std::string::npos);
  EXPECT_NE(text.find("| Seed | 18446744073709551615 |"), std::string::npos);
  EXPECT_NE(text.find("&lt;b&gt;x&lt;/b&gt; &amp; \"q\" 'a' \\| p<br>line2 tab"), std::string::npos)
      << text;
  EXPECT_EQ(text.find("<b>"), std::string::npos);
  // The fpr figure row: value, CI, bound, relation, note with an escaped pipe and a <br>.
  EXPECT_NE(text.find("| false-positive rate | 1.25e-5 | \\[1e-5, 1.5e-5\\] | 1.221e-4 | &lt;= | "
                      "binomial 99.9% \\| note<br>second line |"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("| load | 0.9531 |  | 0.95 | &gt;= |  |"), std::string::npos);
  EXPECT_NE(text.find("| items checked | 2000000 ops |"), std::string::npos);
  EXPECT_NE(text.find("| undefined ratio | NaN% |"), std::string::npos);
  // The trace holds ``` so its fence is longer; the replay command is in its own block.
  EXPECT_NE(text.find("````text\nengine filter f=16 b=4\ninsert 1\n```\ncontains 1 <false> & \"done\"" +
                      kReplacement + "\n````\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("```sh\ncuckoo-audit replay 'counterexamples/C2-filter-1.trace' | less\n```"),
            std::string::npos);
  EXPECT_NE(text.find("shrunk from 1200 to 3 operations"), std::string::npos);
  EXPECT_NE(text.find("- Kicks per insert (c9-kicks-per-insert)"), std::string::npos) << text;
}

// ---------------------------------------------------------------- HTML and SVG

// The HTML is also well-formed XML once the doctype and the script body are removed.
std::string html_as_xml(const std::string& html) {
  std::string xml = html;
  const std::string doctype = "<!DOCTYPE html>";
  if (xml.rfind(doctype, 0) == 0) xml.erase(0, doctype.size());
  const std::size_t open = xml.find("<script>");
  const std::size_t close = xml.find("</script>");
  if (open != std::string::npos && close != std::string::npos && close > open) {
    xml.erase(open + 8, close - open - 8);
  }
  return xml;
}

std::vector<std::string> svgs_of(const std::string& html) {
  std::vector<std::string> out;
  for (std::size_t at = html.find("<svg "); at != std::string::npos; at = html.find("<svg ", at + 1)) {
    const std::size_t end = html.find("</svg>", at);
    if (end == std::string::npos) break;
    out.push_back(html.substr(at, end + 6 - at));
  }
  return out;
}

TEST(ReportHtml, SelfContainedSectionsAndPlots) {
  const Report report = sample_report();
  const std::string html = render(report, write_html);
  std::string why;
  ASSERT_TRUE(is_clean_utf8(html, &why)) << why;
  std::unique_ptr<XmlElement> root;
  ASSERT_NO_THROW(root = parse_xml(html_as_xml(html)));
  EXPECT_EQ(root->name, "html");

  // Self-contained: no external resources, one script (ours).
  EXPECT_EQ(count(html, "<script"), 1u);
  EXPECT_EQ(html.find(" src="), std::string::npos);
  EXPECT_EQ(html.find("<link"), std::string::npos);
  EXPECT_EQ(html.find("url("), std::string::npos);
  EXPECT_EQ(html.find("@import"), std::string::npos);
  EXPECT_EQ(count(html, "http"), count(html, "xmlns=\"http://www.w3.org/2000/svg\""));
  EXPECT_NE(html.find("document.body.dataset.plotsRendered"), std::string::npos);

  const XmlElement* body = root->child("body");
  ASSERT_NE(body, nullptr);
  EXPECT_EQ(body->attribute("data-plots-expected"), std::to_string(kSamplePlots));
  EXPECT_EQ(body->attribute("data-sections-expected"), std::to_string(kSampleSections));

  std::vector<std::string> section_ids;
  std::map<std::string, std::vector<std::string>> plots_by_section;
  for (const XmlElement* s : root->all("section")) {
    if (s->attribute("class") != "claim") continue;
    section_ids.push_back(*s->attribute("id"));
    for (const XmlElement* svg : s->all("svg")) {
      if (svg->attribute("class") == "plot") plots_by_section[section_ids.back()].push_back(*svg->attribute("id"));
    }
  }
  EXPECT_EQ(section_ids, (std::vector<std::string>{"claim-C1", "claim-C2", "claim-C3", "claim-C4",
                                                   "claim-C8", "claim-C9", "claim-C10"}));
  EXPECT_EQ(plots_by_section["claim-C2"], std::vector<std::string>{"plot-c2-fpr-vs-bits"});
  EXPECT_EQ(plots_by_section["claim-C3"], std::vector<std::string>{"plot-c3-load-at-first-failure"});
  EXPECT_EQ(plots_by_section["claim-C10"], std::vector<std::string>{"plot-c10-empty"});
  EXPECT_EQ(root->all("svg").size(), static_cast<std::size_t>(kSamplePlots));

  // The counterexample and the escaped nasty strings.
  EXPECT_NE(html.find("<pre class=\"trace\">engine filter f=16 b=4\ninsert 1\n```\ncontains 1 "
                      "&lt;false&gt; &amp; &quot;done&quot;" + kReplacement),
            std::string::npos);
  EXPECT_NE(html.find("&lt;b&gt;x&lt;/b&gt; &amp; &quot;q&quot; &#39;a&#39; | p\nline2"), std::string::npos);
  EXPECT_EQ(html.find("<b>x"), std::string::npos);
  EXPECT_NE(html.find("<td class=\"num\">[1e-5, 1.5e-5]</td>"), std::string::npos);
  EXPECT_NE(html.find("class=\"verdict fail\">FAIL<"), std::string::npos);
  EXPECT_NE(html.find("class=\"verdict skip\">SKIP<"), std::string::npos);
}

TEST(ReportHtml, PlotsDrawTheirData) {
  const Report report = sample_report();
  const std::string html = render(report, write_html);
  std::map<std::string, std::string> svg;
  for (const std::string& s : svgs_of(html)) {
    const std::size_t id = s.find("id=\"plot-");
    ASSERT_NE(id, std::string::npos);
    svg[s.substr(id + 9, s.find('"', id + 9) - id - 9)] = s;
  }
  ASSERT_EQ(svg.size(), static_cast<std::size_t>(kSamplePlots));
  for (const auto& [id, s] : svg) {
    ASSERT_NO_THROW(parse_xml(s)) << id;
    // No NaN or infinity reached a coordinate.
    EXPECT_FALSE(std::regex_search(s, std::regex(R"(="[^"]*(nan|inf)[^"]*")", std::regex::icase)))
        << id;
  }

  const std::string& fpr = svg["c2-fpr-vs-bits"];
  EXPECT_EQ(count(fpr, "class=\"data line\""), 4u);        // 2 measured + 2 bounds
  EXPECT_EQ(count(fpr, "stroke-dasharray"), 2u + 2u);      // 2 bound lines + 2 legend samples
  EXPECT_EQ(count(fpr, "class=\"data errorbar\""), 8u);    // 2 series x 4 points
  EXPECT_EQ(count(fpr, "class=\"data marker\""), 8u);
  EXPECT_NE(fpr.find(">1e-4</text>"), std::string::npos);  // log axis decade labels
  EXPECT_NE(fpr.find(">0.1</text>"), std::string::npos);
  EXPECT_NE(fpr.find("2 points not drawn"), std::string::npos);  // the NaN and the zero
  // Each bound shares its measured series' color; the two measured colors differ.
  const std::regex stroke_re(R"re(class="data line" fill="none" stroke="([^"]+)")re");
  std::vector<std::string> colors;
  for (auto it = std::sregex_iterator(fpr.begin(), fpr.end(), stroke_re); it != std::sregex_iterator(); ++it) {
    colors.push_back((*it)[1]);
  }
  ASSERT_EQ(colors.size(), 4u);
  EXPECT_EQ(colors[0], colors[1]);
  EXPECT_EQ(colors[2], colors[3]);
  EXPECT_NE(colors[0], colors[2]);

  const std::string& load = svg["c3-load-at-first-failure"];
  EXPECT_EQ(count(load, "class=\"data marker\""), 160u);
  EXPECT_EQ(count(load, "class=\"data bound\""), 4u);
  EXPECT_EQ(count(load, "<polyline"), 0u);

  const std::string& bits = svg["c4-bits-per-item"];
  EXPECT_EQ(count(bits, "<polyline"), 2u);  // the one-point bloom series has no line ...
  EXPECT_EQ(count(bits, "class=\"data marker\""), 4u);  // ... but its marker
  EXPECT_NE(bits.find("&lt;b&gt;x&lt;/b&gt; &amp; &quot;q&quot;"), std::string::npos);
  EXPECT_NE(bits.find("\xE2\x80\xA6</text>"), std::string::npos);  // long legend cut

  const std::string& flat = svg["c8-predictions-vs-oracle"];
  EXPECT_EQ(count(flat, "class=\"data marker\""), 3u);
  EXPECT_NE(flat.find(">1</text>"), std::string::npos);  // the value sits on a labelled axis

  const std::string& empty = svg["c10-empty"];
  EXPECT_NE(empty.find("class=\"no-data\""), std::string::npos);
  EXPECT_EQ(count(empty, "class=\"data"), 0u);

  const std::string& single = svg["c1-single"];
  EXPECT_EQ(count(single, "class=\"data marker\""), 1u);
  EXPECT_EQ(count(single, "class=\"data errorbar\""), 1u);

  // Deterministic, jitter included.
  EXPECT_EQ(render(report, write_html), html);
}

// ---------------------------------------------------------------- files and summary

TEST(ReportFiles, WritesTheFourFilesAndNamesAFailingPath) {
  const Report report = sample_report();
  const std::filesystem::path dir =
      std::filesystem::path(testing::TempDir()) / "cuckoo-report-writers-test" / "nested";
  std::filesystem::remove_all(dir.parent_path());
  const auto paths = write_reports(report, dir);
  ASSERT_EQ(paths.size(), 4u);
  const auto read = [](const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
  };
  EXPECT_EQ(paths[0].filename(), "report.md");
  EXPECT_EQ(read(paths[0]), render(report, write_markdown));
  EXPECT_EQ(read(dir / "report.json"), render(report, write_json));
  EXPECT_EQ(read(dir / "junit.xml"), render(report, write_junit));
  EXPECT_EQ(read(dir / "report.html"), render(report, write_html));

  // A directory where a file is: the error names it.
  const std::filesystem::path blocked = dir / "report.md" / "sub";
  try {
    write_reports(report, blocked);
    FAIL() << "expected std::runtime_error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(blocked.string()), std::string::npos) << e.what();
  }
  std::filesystem::remove_all(dir.parent_path());
}

TEST(ReportFiles, SummaryHasOneLinePerClaimAndEngineAndTheTotals) {
  const std::string text = render(sample_report(), write_summary);
  std::string why;
  ASSERT_TRUE(is_clean_utf8(text, &why)) << why;
  EXPECT_EQ(text.find('\x1b'), std::string::npos);
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  // The environment comes first (ReportMetadata checks it).
  const std::vector<std::string> environment = {"Commit: ", "Compiler: ", "CPU: ", "RTM: ",
                                                "Subject environment: "};
  ASSERT_GE(lines.size(), environment.size());
  for (std::size_t i = 0; i < environment.size(); ++i) {
    EXPECT_EQ(lines[i].rfind(environment[i], 0), 0u) << lines[i];
  }
  lines.erase(lines.begin(), lines.begin() + static_cast<std::ptrdiff_t>(environment.size()));
  // Failures first: C2 (+ replay line), then the passes C1 C3 C4, then the skip C10, totals.
  ASSERT_EQ(lines.size(), 7u) << text;
  EXPECT_EQ(lines[0].rfind("C2 ", 0), 0u) << text;
  EXPECT_NE(lines[0].find("FAIL  1 of 2 configurations failed; f=16 b=4: false-positive rate"),
            std::string::npos)
      << lines[0];
  EXPECT_NE(lines[1].find("replay: cuckoo-audit replay"), std::string::npos);
  EXPECT_EQ(lines[2].rfind("C1 ", 0), 0u) << text;
  EXPECT_NE(lines[5].find("SKIP  skipped: built without threads"), std::string::npos) << lines[5];
  EXPECT_EQ(lines.back(), "4 passed, 1 failed, 1 skipped");
}

TEST(ReportWriters, EmptyReportIsValidEverywhere) {
  const Report report;
  ASSERT_NO_THROW(JsonParser(render(report, write_json)).parse());
  ASSERT_NO_THROW(parse_xml(render(report, write_junit)));
  ASSERT_NO_THROW(parse_xml(html_as_xml(render(report, write_html))));
  EXPECT_NE(render(report, write_markdown).find("No claims were run."), std::string::npos);
  EXPECT_EQ(render(report, write_summary), "0 passed, 0 failed, 0 skipped\n");
}


// ---------------------------------------------------------------- order, margins, metadata

// A result for the ordering tests.
ClaimResult simple(std::string claim, Verdict verdict, std::string engine) {
  ClaimResult r;
  r.claim = std::move(claim);
  r.engine = std::move(engine);
  r.configuration = "cfg";
  r.verdict = verdict;
  r.summary = "summary of " + r.engine;
  return r;
}

// Claim order C1 C2 C3 C5 C6 with the failure last: every human format lists the failure
// first, then the failure that did not reproduce, then passes, then skips.
Report unordered_report() {
  Report r;
  r.results.push_back(simple("C1", Verdict::kPass, "pass-one"));
  r.results.push_back(simple("C2", Verdict::kSkipped, "skip-one"));
  ClaimResult flaky = simple("C3", Verdict::kFail, "flaky-one");
  Figure replays = figure("replays of the counterexample that failed", 2);
  replays.bound = 5;
  replays.relation = "==";
  flaky.figures.push_back(replays);
  r.results.push_back(flaky);
  r.results.push_back(simple("C6", Verdict::kPass, "pass-two"));
  r.results.push_back(simple("C5", Verdict::kFail, "fail-one"));
  return r;
}

const std::vector<std::string> kFailuresFirst = {"fail-one", "flaky-one", "pass-one", "pass-two",
                                                 "skip-one"};

// The engines in the order `text` first mentions them.
std::vector<std::string> engine_order(const std::string& text) {
  std::vector<std::pair<std::size_t, std::string>> at;
  for (const std::string& e : kFailuresFirst) at.emplace_back(text.find(e), e);
  std::sort(at.begin(), at.end());
  std::vector<std::string> out;
  for (const auto& [pos, e] : at) {
    if (pos != std::string::npos) out.push_back(e);
  }
  return out;
}

TEST(ReportOrder, FailuresFirstInHtmlMarkdownAndSummary) {
  const Report report = unordered_report();
  // HTML: the summary table's rows.
  const std::string html = render(report, write_html);
  const std::size_t table = html.find("<table class=\"summary\">");
  ASSERT_NE(table, std::string::npos);
  const std::string rows = html.substr(table, html.find("</table>", table) - table);
  EXPECT_EQ(engine_order(rows), kFailuresFirst) << rows;
  EXPECT_NE(rows.find("not reproducible"), std::string::npos);
  // Markdown: the summary table.
  const std::string md = render(report, write_markdown);
  const std::size_t summary = md.find("## Summary");
  ASSERT_NE(summary, std::string::npos);
  const std::string md_rows = md.substr(summary, md.find("\n\n", md.find("|---", summary)) - summary);
  EXPECT_EQ(engine_order(md_rows), kFailuresFirst) << md_rows;
  EXPECT_NE(md_rows.find("**FAIL** (not reproducible)"), std::string::npos) << md_rows;
  // Text: the terminal summary.
  EXPECT_EQ(engine_order(render(report, write_summary)), kFailuresFirst)
      << render(report, write_summary);
  // JSON keeps the runner's order (a documented fixed order programs may rely on).
  const std::string json = render(report, write_json);
  EXPECT_LT(json.find("pass-one"), json.find("fail-one"));
}

TEST(ReportOrder, FailuresFirstWithinAClaimSection) {
  Report report;
  report.results.push_back(simple("C2", Verdict::kSkipped, "skip-one"));
  report.results.push_back(simple("C2", Verdict::kPass, "pass-one"));
  report.results.push_back(simple("C2", Verdict::kFail, "fail-one"));
  const std::string html = render(report, write_html);
  const std::size_t section = html.find("<section id=\"claim-C2\"");
  ASSERT_NE(section, std::string::npos);
  EXPECT_EQ(engine_order(html.substr(section)),
            (std::vector<std::string>{"fail-one", "pass-one", "skip-one"}));
  const std::string md = render(report, write_markdown);
  const std::size_t md_section = md.find("## C2");
  ASSERT_NE(md_section, std::string::npos);
  EXPECT_EQ(engine_order(md.substr(md_section)),
            (std::vector<std::string>{"fail-one", "pass-one", "skip-one"}));
}

// Every claim C1..C12 with one result; the statistical ones (C2 C3 C4 C9 C12) with a
// bounded figure whose name says its claim.
Report twelve_claims() {
  Report r;
  for (int i = 1; i <= 12; ++i) {
    const std::string claim = "C" + std::to_string(i);
    ClaimResult result = simple(claim, Verdict::kPass, "engine-" + claim);
    Figure f = figure("measure-" + claim, 0.25 * i);
    f.bound = 0.3 * i;
    f.relation = i == 3 ? ">=" : "<=";
    if (i == 2) {
      f.ci_low = 0.4;
      f.ci_high = 0.55;
    }
    if (i == 2 || i == 3 || i == 4 || i == 9 || i == 12) result.figures.push_back(f);
    r.results.push_back(result);
  }
  return r;
}

// The rows of the HTML margins table, as (data-claim, row text).
std::vector<std::pair<std::string, std::string>> html_margin_rows(const std::string& html) {
  std::unique_ptr<XmlElement> root = parse_xml(html_as_xml(html));
  std::vector<std::pair<std::string, std::string>> rows;
  for (const XmlElement* table : root->all("table")) {
    if (table->attribute("class") != "margins") continue;
    for (const XmlElement* tr : table->all("tr")) {
      if (!tr->attribute("data-claim")) continue;
      std::string text;
      for (const XmlElement* td : tr->all("td")) text += td->text + " | ";
      for (const XmlElement* code : tr->all("code")) text += code->text + " | ";
      for (const XmlElement* a : tr->all("a")) text += a->text + " | ";
      rows.emplace_back(*tr->attribute("data-claim"), text);
    }
  }
  return rows;
}

TEST(ReportMargins, EveryStatisticalClaimHasItsMarginAndTheOthersSaySo) {
  const Report report = twelve_claims();
  const auto rows = html_margin_rows(render(report, write_html));
  const std::string md = render(report, write_markdown);
  const std::size_t md_margins = md.find("## Margins to the bounds");
  ASSERT_NE(md_margins, std::string::npos);
  const std::string md_table = md.substr(md_margins, md.find("\n\n", md.find("|---", md_margins)) - md_margins);
  for (int i = 1; i <= 12; ++i) {
    const std::string claim = "C" + std::to_string(i);
    const bool statistical = i == 2 || i == 3 || i == 4 || i == 9 || i == 12;
    const auto row = std::find_if(rows.begin(), rows.end(), [&](const auto& r) { return r.first == claim; });
    ASSERT_NE(row, rows.end()) << claim << " has no row in the HTML margins table";
    const auto md_row_at = md_table.find("| " + claim + " |");
    ASSERT_NE(md_row_at, std::string::npos) << claim << " has no row in the Markdown margins table";
    const std::string md_row = md_table.substr(md_row_at, md_table.find('\n', md_row_at) - md_row_at);
    if (statistical) {
      EXPECT_NE(row->second.find("measure-" + claim), std::string::npos) << row->second;
      EXPECT_NE(row->second.find("of the bound"), std::string::npos) << row->second;
      EXPECT_NE(md_row.find("measure-" + claim), std::string::npos) << md_row;
      EXPECT_NE(md_row.find("of the bound"), std::string::npos) << md_row;
    } else {
      EXPECT_NE(row->second.find("not statistical"), std::string::npos) << row->second;
      EXPECT_NE(md_row.find("not statistical"), std::string::npos) << md_row;
    }
  }
  // C2: 0.5 measured, bound 0.6, CI [0.4, 0.55]: margin 0.1 (16.67% of the bound), 0.05 at
  // the CI's upper end. C3 (>=): 0.75 measured, bound 0.9: broken by 0.15.
  const auto c2 = std::find_if(rows.begin(), rows.end(), [](const auto& r) { return r.first == "C2"; });
  EXPECT_NE(c2->second.find("bound - measured = 0.1 (16.67% of the bound)"), std::string::npos)
      << c2->second;
  EXPECT_NE(c2->second.find("[0.4, 0.55]"), std::string::npos) << c2->second;
  EXPECT_NE(c2->second.find("upper end: 0.05"), std::string::npos) << c2->second;
  const auto c3 = std::find_if(rows.begin(), rows.end(), [](const auto& r) { return r.first == "C3"; });
  EXPECT_NE(c3->second.find("measured - bound = -0.15"), std::string::npos) << c3->second;
  EXPECT_NE(c3->second.find("broken"), std::string::npos) << c3->second;
}

TEST(ReportMargins, StatisticalClaimWithoutABoundIsNamed) {
  Report report;
  report.results.push_back(simple("C9", Verdict::kPass, "no-bound"));
  report.results.push_back(simple("C12", Verdict::kSkipped, "skipped-one"));
  const auto rows = html_margin_rows(render(report, write_html));
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_NE(rows[0].second.find("no figure with a bound"), std::string::npos) << rows[0].second;
  EXPECT_NE(rows[1].second.find("not measured"), std::string::npos) << rows[1].second;
}

TEST(ReportMetadata, EveryFormatNamesCommitCompilerCpuAndRtm) {
  const Report report = sample_report();
  const std::string commit = report.environment.commit;
  // HTML header: one row each.
  const std::string html = render(report, write_html);
  for (const char* id : {"meta-commit", "meta-compiler", "meta-compiler_flags", "meta-cpu",
                         "meta-rtm", "meta-tool_version", "meta-started_utc",
                         "meta-subject_environment"}) {
    EXPECT_NE(html.find(std::string("id=\"") + id + "\""), std::string::npos) << id;
  }
  EXPECT_NE(html.find(commit + " (git rev-parse HEAD in /src/cuckoo"), std::string::npos);
  EXPECT_NE(html.find("Example CPU @ 2.00GHz"), std::string::npos);
  // JSON fields.
  const std::string json = render(report, write_json);
  EXPECT_NE(json.find("\"commit\": \"" + commit + "\""), std::string::npos) << json;
  EXPECT_NE(json.find("\"compiler\": \"GCC 12.2.0\""), std::string::npos);
  EXPECT_NE(json.find("\"compiler_flags\": \"-O2 -g\""), std::string::npos);
  EXPECT_NE(json.find("\"cpu\": \"Example CPU @ 2.00GHz\""), std::string::npos);
  EXPECT_NE(json.find("\"rtm\": false"), std::string::npos);
  EXPECT_NE(json.find("\"detected\": \"htm ran: disabled\""), std::string::npos);
  // JUnit properties.
  std::unique_ptr<XmlElement> root = parse_xml(render(report, write_junit));
  std::map<std::string, std::string> properties;
  for (const XmlElement* p : root->all("testsuite")[0]->all("property")) {
    properties[*p->attribute("name")] = *p->attribute("value");
  }
  EXPECT_EQ(properties["compiler"], "GCC 12.2.0");
  EXPECT_EQ(properties["cpu"], "Example CPU @ 2.00GHz");
  EXPECT_EQ(properties["rtm"].rfind("no", 0), 0u);
  EXPECT_EQ(properties["commit"].rfind(commit, 0), 0u);
  EXPECT_EQ(properties["tool_version"], "cuckoo-audit 0.1.0");
  EXPECT_EQ(properties["started_utc"], "2026-11-21T10:00:00Z");
  EXPECT_FALSE(properties["subject_environment"].empty());
  // Markdown header and terminal summary.
  const std::string md = render(report, write_markdown);
  EXPECT_NE(md.find("| Commit | " + commit), std::string::npos);
  EXPECT_NE(md.find("| CPU | Example CPU @ 2.00GHz |"), std::string::npos);
  EXPECT_NE(md.find("| Compiler | GCC 12.2.0 |"), std::string::npos);
  const std::string text = render(report, write_summary);
  EXPECT_NE(text.find("Commit: " + commit), std::string::npos) << text;
  EXPECT_NE(text.find("CPU: Example CPU"), std::string::npos) << text;
  EXPECT_NE(text.find("RTM: no"), std::string::npos) << text;
}

TEST(ReportMetadata, CollectedOutsideGitWithoutFailing) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("cuckoo-no-git-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  RunEnvironment env;
  ASSERT_NO_THROW(env = collect_run_environment(dir));
  std::filesystem::remove_all(dir);
  // /tmp is in no git tree here; if it is on some machine the commit is a commit id.
  EXPECT_TRUE(env.commit.empty() || env.commit.size() == 40 || env.commit.size() == 64) << env.commit;
  EXPECT_FALSE(env.compiler.empty());
  EXPECT_FALSE(env.compiler_flags.empty());
  Report report;
  report.environment = env;
  const std::string md = render(report, write_markdown);
  if (env.commit.empty()) {
    EXPECT_NE(md.find("| Commit | unknown: "), std::string::npos) << md;
  }
}

// The rules of audit/tests/junit-strict.xsd (the strict JUnit schema's, see
// report_junit.cpp), checked here without xmllint; audit_junit_schema runs xmllint too.
void expect_strict_junit(const XmlElement& root) {
  const auto only = [](const XmlElement& e, std::set<std::string> allowed) {
    for (const auto& [k, v] : e.attributes) {
      EXPECT_TRUE(allowed.count(k)) << "<" << e.name << "> may not carry '" << k << "'";
    }
  };
  // Children appear in this order, each name at most `max` times (0: unbounded).
  const auto in_order = [](const XmlElement& e, std::vector<std::pair<std::string, int>> order) {
    std::size_t at = 0;
    int seen = 0;
    for (const auto& c : e.children) {
      while (at < order.size() && order[at].first != c->name) {
        ++at;
        seen = 0;
      }
      ASSERT_LT(at, order.size()) << "<" << c->name << "> out of order or not allowed in <" << e.name << ">";
      ++seen;
      if (order[at].second != 0) {
        EXPECT_LE(seen, order[at].second) << "<" << c->name << "> repeated in <" << e.name << ">";
      }
    }
  };
  ASSERT_EQ(root.name, "testsuites");
  only(root, {"name", "time", "tests", "failures", "disabled", "errors"});
  in_order(root, {{"testsuite", 0}});
  for (const auto& suite : root.children) {
    EXPECT_TRUE(suite->attribute("name").has_value());
    EXPECT_TRUE(suite->attribute("tests").has_value());
    only(*suite, {"name", "tests", "failures", "errors", "time", "disabled", "skipped", "timestamp",
                  "hostname", "id", "package"});
    in_order(*suite, {{"properties", 1}, {"testcase", 0}, {"system-out", 1}, {"system-err", 1}});
    for (const auto& child : suite->children) {
      if (child->name == "properties") {
        EXPECT_FALSE(child->children.empty());
        for (const auto& p : child->children) {
          EXPECT_EQ(p->name, "property");
          only(*p, {"name", "value"});
          EXPECT_TRUE(p->attribute("name") && p->attribute("value"));
        }
      } else if (child->name == "testcase") {
        EXPECT_TRUE(child->attribute("name").has_value());
        only(*child, {"name", "assertions", "time", "classname", "status"});
        in_order(*child, {{"skipped", 1}, {"error", 0}, {"failure", 0}, {"system-out", 0},
                          {"system-err", 0}});
        for (const auto& c : child->children) {
          if (c->name == "skipped") only(*c, {"message"});
          if (c->name == "failure" || c->name == "error") only(*c, {"message", "type"});
        }
      }
    }
  }
}

TEST(ReportJunit, StrictSchemaRules) {
  for (const Report& report : {sample_report(), unordered_report(), twelve_claims(), Report{}}) {
    std::unique_ptr<XmlElement> root = parse_xml(render(report, write_junit));
    expect_strict_junit(*root);
  }
}

TEST(ReportJunit, NamesHoldNoValueDetectedAtRunTime) {
  Report report;
  ClaimResult r = simple("C10", Verdict::kPass, "concurrent-filter");
  r.configuration = "coarse htm=automatic b=1..4";
  r.detected = "htm ran: disabled";
  report.results.push_back(r);
  std::unique_ptr<XmlElement> root = parse_xml(render(report, write_junit));
  const XmlElement* testcase = root->all("testcase").at(0);
  EXPECT_EQ(testcase->attribute("name"), "concurrent-filter coarse htm=automatic b=1..4");
  EXPECT_NE(testcase->child("system-out")->text.find("detected at run time: htm ran: disabled"),
            std::string::npos);
  // The same result detected otherwise on another machine keeps its name.
  report.results[0].detected = "htm ran: hardware";
  std::unique_ptr<XmlElement> other = parse_xml(render(report, write_junit));
  EXPECT_EQ(other->all("testcase").at(0)->attribute("name"), testcase->attribute("name"));
}

// The JUnit name is "<engine> <configuration>": every task's configuration must be fixed
// by the profile, not by the machine. The only machine-dependent choice the tasks make is
// which hardware-transaction backend "automatic" runs; its configuration names the policy
// alone ("htm=automatic"), and the backend that ran is ClaimResult::detected.
TEST(ReportJunit, TaskConfigurationsNameNoValueDetectedAtRunTime) {
  cuckoo::audit::TaskList tasks;
  cuckoo::audit::add_model_claims(tasks, cuckoo::audit::Profile::kQuick);
  cuckoo::audit::add_statistical_claims(tasks, cuckoo::audit::Profile::kQuick);
  cuckoo::audit::add_concurrency_claims(tasks, cuckoo::audit::Profile::kQuick);
  std::size_t htm = 0;
  for (const cuckoo::audit::Task& task : tasks) {
    EXPECT_EQ(task.configuration.find("ran:"), std::string::npos) << task.configuration;
    EXPECT_EQ(task.configuration.find('('), std::string::npos) << task.configuration;
    const std::size_t at = task.configuration.find("htm=");
    if (at == std::string::npos) continue;
    ++htm;
    const std::string policy =
        task.configuration.substr(at + 4, task.configuration.find(' ', at) - at - 4);
    EXPECT_TRUE(policy == "automatic" || policy == "always_abort" || policy == "random_abort_30%")
        << task.configuration;
  }
  EXPECT_GT(htm, 0u);
}

TEST(ReportCounterexample, FailingOpInEveryFormat) {
  Report report;
  ClaimResult r = simple("C1", Verdict::kFail, "filter");
  Counterexample cx;
  cx.trace = "# cuckoo trace v1\nengine filter\ninsert 1\ncontains 1  # op 2: fails here (C1)\n";
  cx.failing_op = 2;
  cx.shrunk_ops = 2;
  cx.original_ops = 9;
  r.counterexample = cx;
  report.results.push_back(r);
  EXPECT_NE(render(report, write_html).find("Fails at op 2"), std::string::npos);
  EXPECT_NE(render(report, write_markdown).find("Fails at op 2"), std::string::npos);
  EXPECT_NE(render(report, write_junit).find("fails at op 2"), std::string::npos);
  EXPECT_NE(render(report, write_json).find("\"failing_op\": 2"), std::string::npos);
  EXPECT_NE(render(report, write_summary).find("fails at op 2 of the trace file"), std::string::npos);
}

// Writes the sample into $CUCKOO_REPORT_SAMPLE_DIR for audit_report_in_browser
// (browser.cmake), which expects kSampleSections sections and kSamplePlots plots.
TEST(ReportWriters, WritesSampleReportForTheBrowserCheck) {
  const char* dir = std::getenv("CUCKOO_REPORT_SAMPLE_DIR");
  if (dir == nullptr || *dir == '\0') GTEST_SKIP() << "CUCKOO_REPORT_SAMPLE_DIR not set";
  const auto paths = write_reports(sample_report(), dir);
  EXPECT_TRUE(std::filesystem::exists(paths.back()));
  std::cout << "wrote " << paths.back().string() << " (" << kSampleSections << " sections, "
            << kSamplePlots << " plots)\n";
}

}  // namespace
