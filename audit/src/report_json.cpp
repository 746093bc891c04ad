// report.json: the Report field for field, schema in audit/REPORT.md. Two-space
// indentation and a fixed key order, so two reports diff line by line. Strings are
// valid UTF-8 (invalid bytes become U+FFFD) with every control character escaped;
// numbers are the shortest text that reads back to the same double; NaN and infinities
// (which JSON cannot spell) and absent optionals are null. Seeds are decimal strings:
// a 64-bit seed does not survive a JSON reader that uses doubles.
#include <charconv>
#include <cmath>
#include <cstdio>
#include <ostream>
#include <string>
#include <string_view>

#include "cuckoo/audit/report_writers.hpp"
#include "report_text.hpp"

namespace cuckoo::audit {

namespace {

std::string json_string(std::string_view raw) {
  std::string out = "\"";
  out.reserve(raw.size() + 2);
  for (std::size_t i = 0; i < raw.size();) {
    const char32_t cp = detail::next_code_point(raw, i);
    switch (cp) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        // Controls (C0, DEL, C1) and the line/paragraph separators (which break
        // JavaScript string literals) as \u escapes; everything else as UTF-8.
        if (cp < 0x20 || (cp >= 0x7F && cp <= 0x9F) || cp == 0x2028 || cp == 0x2029) {
          char buffer[8];
          std::snprintf(buffer, sizeof buffer, "\\u%04x", static_cast<unsigned>(cp));
          out += buffer;
        } else {
          detail::append_utf8(out, cp);
        }
        break;
    }
  }
  out += '"';
  return out;
}

std::string json_number(double v) {
  if (!std::isfinite(v)) return "null";
  char buffer[32];
  const auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, v);
  if (ec != std::errc()) return "null";
  return std::string(buffer, end);
}

std::string json_number(const std::optional<double>& v) { return v ? json_number(*v) : "null"; }

// Built by append: GCC 12 at -O3 reports a false -Wrestrict overlap for
// "\"" + std::to_string(seed) + "\"".
std::string json_seed(std::uint64_t seed) {
  std::string out = "\"";
  out += std::to_string(seed);
  out += '"';
  return out;
}

// Writes "key": value pairs with commas and indentation.
class ObjectWriter {
 public:
  ObjectWriter(std::ostream& out, int indent) : out_(out), indent_(indent) { out_ << "{"; }
  ObjectWriter(const ObjectWriter&) = delete;
  ObjectWriter& operator=(const ObjectWriter&) = delete;

  // `value` is already JSON.
  void field(std::string_view key, const std::string& value) {
    key_(key);
    out_ << value;
  }
  // Starts a nested value; the caller writes it.
  std::ostream& open(std::string_view key) {
    key_(key);
    return out_;
  }
  void close() {
    if (any_) out_ << "\n" << std::string(static_cast<std::size_t>(indent_), ' ');
    out_ << "}";
  }

 private:
  void key_(std::string_view key) {
    out_ << (any_ ? ",\n" : "\n") << std::string(static_cast<std::size_t>(indent_ + 2), ' ')
         << json_string(key) << ": ";
    any_ = true;
  }

  std::ostream& out_;
  int indent_;
  bool any_ = false;
};

// Writes a JSON array of `items`, each written by `write_item(item, indent)`.
template <typename Items, typename WriteItem>
void write_array(std::ostream& out, const Items& items, int indent, WriteItem write_item) {
  if (items.empty()) {
    out << "[]";
    return;
  }
  out << "[";
  bool first = true;
  for (const auto& item : items) {
    out << (first ? "\n" : ",\n") << std::string(static_cast<std::size_t>(indent + 2), ' ');
    write_item(item, indent + 2);
    first = false;
  }
  out << "\n" << std::string(static_cast<std::size_t>(indent), ' ') << "]";
}

void write_figure(std::ostream& out, const Figure& f, int indent) {
  ObjectWriter o(out, indent);
  o.field("name", json_string(f.name));
  o.field("value", json_number(f.value));
  o.field("unit", json_string(f.unit));
  o.field("ci_low", json_number(f.ci_low));
  o.field("ci_high", json_number(f.ci_high));
  o.field("bound", json_number(f.bound));
  o.field("relation", json_string(f.relation));
  o.field("note", json_string(f.note));
  o.close();
}

void write_counterexample(std::ostream& out, const Counterexample& cx, int indent) {
  ObjectWriter o(out, indent);
  o.field("trace", json_string(cx.trace));
  o.field("trace_file", json_string(cx.trace_file));
  o.field("replay_command", json_string(cx.replay_command));
  o.field("explanation", json_string(cx.explanation));
  o.field("original_ops", std::to_string(cx.original_ops));
  o.field("shrunk_ops", std::to_string(cx.shrunk_ops));
  o.field("failing_op", cx.failing_op == 0 ? std::string("null") : std::to_string(cx.failing_op));
  o.close();
}

void write_result(std::ostream& out, const ClaimResult& r, int indent) {
  ObjectWriter o(out, indent);
  o.field("claim", json_string(r.claim));
  o.field("engine", json_string(r.engine));
  o.field("configuration", json_string(r.configuration));
  o.field("verdict", json_string(to_string(r.verdict)));
  o.field("summary", json_string(r.summary));
  o.field("seed", json_seed(r.seed));
  o.field("samples", std::to_string(r.samples));
  o.field("seconds", json_number(r.seconds));
  o.field("detected", json_string(r.detected));
  write_array(o.open("figures"), r.figures, indent + 2,
              [&](const Figure& f, int i) { write_figure(out, f, i); });
  if (r.counterexample) {
    write_counterexample(o.open("counterexample"), *r.counterexample, indent + 2);
  } else {
    o.field("counterexample", "null");
  }
  o.close();
}

void write_point(std::ostream& out, const PlotPoint& p) {
  // One line per point: plots can hold thousands.
  out << "{\"x\": " << json_number(p.x) << ", \"y\": " << json_number(p.y)
      << ", \"y_low\": " << json_number(p.y_low) << ", \"y_high\": " << json_number(p.y_high)
      << "}";
}

void write_plot(std::ostream& out, const Plot& p, int indent) {
  ObjectWriter o(out, indent);
  o.field("id", json_string(p.id));
  o.field("claim", json_string(p.claim));
  o.field("title", json_string(p.title));
  o.field("x_label", json_string(p.x_label));
  o.field("y_label", json_string(p.y_label));
  o.field("kind", json_string(p.kind == PlotKind::kLines ? "lines" : "points"));
  o.field("log_y", p.log_y ? "true" : "false");
  write_array(o.open("series"), p.series, indent + 2, [&](const PlotSeries& s, int i) {
    ObjectWriter so(out, i);
    so.field("name", json_string(s.name));
    so.field("bound", s.bound ? "true" : "false");
    write_array(so.open("points"), s.points, i + 2,
                [&](const PlotPoint& point, int) { write_point(out, point); });
    so.close();
  });
  o.close();
}

}  // namespace

void write_json(const Report& report, std::ostream& out) {
  const detail::Totals totals = detail::count_verdicts(report);
  ObjectWriter o(out, 0);
  o.field("schema_version", std::to_string(kReportSchemaVersion));
  o.field("tool", json_string(report.tool));
  o.field("tool_version", json_string(report.tool_version));
  o.field("subject", json_string(report.subject));
  o.field("profile", json_string(report.profile));
  o.field("seed", json_seed(report.seed));
  o.field("started_utc", json_string(report.started_utc));
  o.field("seconds", json_number(report.seconds));
  o.field("command", json_string(report.command));
  o.field("verdict", json_string(detail::overall_verdict(report)));
  {
    const RunEnvironment& env = report.environment;
    const auto or_null = [](const std::string& v) { return v.empty() ? std::string("null") : json_string(v); };
    ObjectWriter e(o.open("environment"), 2);
    e.field("commit", or_null(env.commit));
    e.field("commit_directory", or_null(env.commit_directory));
    e.field("compiler", or_null(env.compiler));
    e.field("compiler_flags", or_null(env.compiler_flags));
    e.field("cpu", or_null(env.cpu));
    e.field("rtm", env.rtm == "yes" ? "true" : env.rtm == "no" ? "false" : "null");
    e.field("subject_environment", or_null(env.subject_environment));
    e.close();
  }
  {
    ObjectWriter t(o.open("totals"), 2);
    t.field("results", std::to_string(report.results.size()));
    t.field("passed", std::to_string(totals.passed));
    t.field("failed", std::to_string(totals.failed));
    t.field("skipped", std::to_string(totals.skipped));
    t.close();
  }
  write_array(o.open("results"), report.results, 2,
              [&](const ClaimResult& r, int i) { write_result(out, r, i); });
  write_array(o.open("plots"), report.plots, 2,
              [&](const Plot& p, int i) { write_plot(out, p, i); });
  o.close();
  out << "\n";
}

}  // namespace cuckoo::audit
