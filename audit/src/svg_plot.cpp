// SVG charts for the HTML report; the drawing rules are in svg_plot.hpp.
//
// Geometry: a fixed canvas (kWidth x height) with the plot area inside fixed margins and
// the legend to its right; the height grows when the legend needs more rows. Data space
// maps linearly (or by log10 for a log y axis) onto the plot area. Ranges come from the
// drawable points and error bars only; a degenerate range (one point, all-equal values)
// is widened around its value so the data sits mid-axis instead of dividing by zero.
#include "svg_plot.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <set>
#include <string_view>
#include <vector>

#include "report_text.hpp"

namespace cuckoo::audit::detail {

namespace {

constexpr double kWidth = 780;
constexpr double kMinHeight = 400;
constexpr double kMarginLeft = 78;
constexpr double kMarginTop = 40;
constexpr double kMarginBottom = 62;
constexpr double kLegendWidth = 210;
constexpr double kLegendRow = 18;
constexpr std::size_t kLegendMaxChars = 24;
constexpr std::size_t kTitleMaxChars = 84;
constexpr double kMarkerRadius = 3.5;
constexpr double kMaxJitter = 10;          // px, half-width of the kPoints jitter band
constexpr double kBoundTickHalfWidth = 18;  // px, a bound level in a kPoints plot
constexpr int kMaxLogTicks = 8;             // decade labels at most
constexpr int kTargetLinearTicks = 6;

// d3's category10: distinct on white, and the usual order people recognize.
constexpr std::array<std::string_view, 10> kPalette = {
    "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
    "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};

enum class Marker { kCircle, kSquare, kDiamond, kTriangle };
constexpr int kMarkerShapes = 4;

std::string num(double v) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.1f", v);
  return buffer;
}

std::string color_for(std::size_t index) {
  if (index < kPalette.size()) return std::string(kPalette[index]);
  // Past the palette: hues by the golden angle, well separated for any count.
  const double hue = std::fmod(static_cast<double>(index) * 137.508, 360.0);
  char buffer[48];
  std::snprintf(buffer, sizeof buffer, "hsl(%.0f,65%%,42%%)", hue);
  return buffer;
}

// A fixed function of (series, point) in [0, 1): splitmix64's finalizer.
double jitter_unit(std::size_t series, std::size_t point) noexcept {
  std::uint64_t z = (static_cast<std::uint64_t>(series) << 32) ^ point;
  z += 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  z ^= z >> 31;
  return static_cast<double>(z >> 11) * 0x1.0p-53;
}

// One line of at most `max_chars` code points, cut on a code point boundary with "…".
std::string shorten(const std::string& raw, std::size_t max_chars) {
  std::string clean = clean_text(raw, " ");
  for (char& c : clean) {
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  }
  std::size_t i = 0;
  std::size_t count = 0;
  while (i < clean.size() && count < max_chars) {
    next_code_point(clean, i);
    ++count;
  }
  if (i >= clean.size()) return clean;
  return clean.substr(0, i) + "\xE2\x80\xA6";  // "…"
}

struct Axis {
  double lo = 0;  // in axis units (log10(y) on a log axis)
  double hi = 1;
  bool log = false;
};

struct Tick {
  double at = 0;  // axis units
  std::string label;
  bool major = true;
};

double nice_step(double raw) {
  const double power = std::pow(10.0, std::floor(std::log10(raw)));
  const double m = raw / power;
  const double nice = m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10;
  return nice * power;
}

// Linear axis over [lo, hi] (finite, lo <= hi): widened when degenerate, padded by 4%
// so markers at the extremes are not cut by the frame.
Axis linear_axis(double lo, double hi) {
  if (hi - lo <= std::fabs(hi) * 1e-12) {
    const double pad = lo == 0 ? 1.0 : std::fabs(lo) * 0.1;
    lo -= pad;
    hi += pad;
  }
  const double pad = (hi - lo) * 0.04;
  return Axis{lo - pad, hi + pad, false};
}

std::vector<Tick> linear_ticks(const Axis& axis) {
  std::vector<Tick> ticks;
  const double step = nice_step((axis.hi - axis.lo) / kTargetLinearTicks);
  if (!(step > 0) || !std::isfinite(step)) return ticks;
  const double first = std::ceil(axis.lo / step);
  for (int k = 0; k <= 4 * kTargetLinearTicks; ++k) {
    double at = (first + k) * step;
    if (at > axis.hi + step * 1e-9) break;
    if (std::fabs(at) < step * 1e-9) at = 0;  // no "-0" or 1e-17 labels
    // Round to the step's precision so labels read "0.3", not "0.30000000000000004".
    ticks.push_back(Tick{at, format_number(std::round(at / step) * step), true});
  }
  return ticks;
}

// Log axis over y in [lo, hi] (both > 0): whole decades around the data.
Axis log_axis(double lo, double hi) {
  double a = std::floor(std::log10(lo));
  double b = std::ceil(std::log10(hi));
  if (b <= a) b = a + 1;
  return Axis{a, b, true};
}

std::string decade_label(double multiplier, int exponent) {
  if (exponent >= -2 && exponent <= 4) return format_number(multiplier * std::pow(10.0, exponent));
  std::string out = format_number(multiplier);
  out += "e" + std::to_string(exponent);
  return out;
}

std::vector<Tick> log_ticks(const Axis& axis) {
  std::vector<Tick> ticks;
  const int a = static_cast<int>(axis.lo);
  const int b = static_cast<int>(axis.hi);
  const int decades = b - a;
  const int step = std::max(1, (decades + kMaxLogTicks - 1) / kMaxLogTicks);
  for (int e = a; e <= b; ++e) {
    if ((e - a) % step == 0) ticks.push_back(Tick{static_cast<double>(e), decade_label(1, e), true});
    if (e == b || decades > 6) continue;
    for (int m = 2; m <= 9; ++m) {
      // With few decades, 2x and 5x are labelled too; the rest are grid lines only.
      const bool labelled = decades <= 2 && (m == 2 || m == 5);
      ticks.push_back(Tick{e + std::log10(static_cast<double>(m)),
                           labelled ? decade_label(m, e) : std::string(), labelled});
    }
  }
  return ticks;
}

struct Frame {
  double left = kMarginLeft;
  double right = kWidth - kLegendWidth;
  double top = kMarginTop;
  double bottom = kMinHeight - kMarginBottom;
  Axis x;
  Axis y;

  double px(double x_value) const {
    return left + (x_value - x.lo) / (x.hi - x.lo) * (right - left);
  }
  // y in data units.
  double py(double y_value) const {
    const double t = y.log ? std::log10(y_value) : y_value;
    const double clamped = std::clamp(t, y.lo, y.hi);
    return bottom - (clamped - y.lo) / (y.hi - y.lo) * (bottom - top);
  }
};

struct SeriesStyle {
  std::string color;
  Marker marker = Marker::kCircle;
};

// Colors: measured series in order take the palette; a bound series named
// "bound <name>" (or "<anything> <name>") of a measured series shares its color.
std::vector<SeriesStyle> series_styles(const Plot& plot) {
  std::vector<SeriesStyle> styles(plot.series.size());
  std::vector<bool> assigned(plot.series.size(), false);
  std::size_t next = 0;
  for (std::size_t i = 0; i < plot.series.size(); ++i) {
    if (plot.series[i].bound) continue;
    styles[i] = SeriesStyle{color_for(next), static_cast<Marker>(next % kMarkerShapes)};
    assigned[i] = true;
    ++next;
  }
  for (std::size_t i = 0; i < plot.series.size(); ++i) {
    if (!plot.series[i].bound) continue;
    const std::string& name = plot.series[i].name;
    for (std::size_t j = 0; j < plot.series.size() && !assigned[i]; ++j) {
      const std::string& measured = plot.series[j].name;
      if (plot.series[j].bound || measured.empty() || measured.size() >= name.size()) continue;
      const std::size_t at = name.size() - measured.size();
      if (name.compare(at, std::string::npos, measured) == 0 && name[at - 1] == ' ') {
        styles[i] = styles[j];
        assigned[i] = true;
      }
    }
    if (!assigned[i]) {
      styles[i] = SeriesStyle{color_for(next), static_cast<Marker>(next % kMarkerShapes)};
      assigned[i] = true;
      ++next;
    }
  }
  return styles;
}

std::string marker_element(Marker marker, double x, double y, double r, const std::string& color,
                           double opacity, const char* css_class) {
  std::string fill = "fill=\"" + color + "\" fill-opacity=\"" + num(opacity) + "\" stroke=\"" +
                     color + "\" stroke-width=\"1\"";
  const std::string cls = std::string(" class=\"") + css_class + "\"";
  switch (marker) {
    case Marker::kCircle:
      return "<circle" + cls + " cx=\"" + num(x) + "\" cy=\"" + num(y) + "\" r=\"" + num(r) +
             "\" " + fill + "/>";
    case Marker::kSquare:
      return "<rect" + cls + " x=\"" + num(x - r) + "\" y=\"" + num(y - r) + "\" width=\"" +
             num(2 * r) + "\" height=\"" + num(2 * r) + "\" " + fill + "/>";
    case Marker::kDiamond: {
      const double d = r * 1.35;
      return "<polygon" + cls + " points=\"" + num(x) + "," + num(y - d) + " " + num(x + d) + "," +
             num(y) + " " + num(x) + "," + num(y + d) + " " + num(x - d) + "," + num(y) + "\" " +
             fill + "/>";
    }
    case Marker::kTriangle: {
      const double d = r * 1.3;
      return "<polygon" + cls + " points=\"" + num(x) + "," + num(y - d) + " " + num(x + d) + "," +
             num(y + d * 0.8) + " " + num(x - d) + "," + num(y + d * 0.8) + "\" " + fill + "/>";
    }
  }
  return "";
}

std::string line(double x1, double y1, double x2, double y2, const std::string& attributes) {
  return "<line x1=\"" + num(x1) + "\" y1=\"" + num(y1) + "\" x2=\"" + num(x2) + "\" y2=\"" +
         num(y2) + "\" " + attributes + "/>";
}

std::string text(double x, double y, const std::string& content, const std::string& attributes) {
  return "<text x=\"" + num(x) + "\" y=\"" + num(y) + "\" " + attributes + ">" +
         escape_xml(clean_text(content, " ")) + "</text>";
}

bool finite(double v) noexcept { return std::isfinite(v); }

}  // namespace

std::string render_svg_plot(const Plot& plot) {
  const auto drawable = [&](const PlotPoint& p) {
    return finite(p.x) && finite(p.y) && (!plot.log_y || p.y > 0);
  };
  const auto usable_y = [&](const std::optional<double>& v) {
    return v && finite(*v) && (!plot.log_y || *v > 0);
  };

  // Ranges from what will be drawn.
  double x_min = std::numeric_limits<double>::infinity();
  double x_max = -x_min;
  double y_min = x_min;
  double y_max = -x_min;
  std::size_t drawn_points = 0;
  std::size_t skipped_points = 0;
  std::set<double> distinct_x;
  for (const PlotSeries& s : plot.series) {
    for (const PlotPoint& p : s.points) {
      if (!drawable(p)) {
        ++skipped_points;
        continue;
      }
      ++drawn_points;
      distinct_x.insert(p.x);
      x_min = std::min(x_min, p.x);
      x_max = std::max(x_max, p.x);
      y_min = std::min(y_min, p.y);
      y_max = std::max(y_max, p.y);
      for (const auto& bar : {p.y_low, p.y_high}) {
        if (!usable_y(bar)) continue;
        y_min = std::min(y_min, *bar);
        y_max = std::max(y_max, *bar);
      }
    }
  }

  const std::vector<SeriesStyle> styles = series_styles(plot);
  Frame frame;
  const double legend_height = kLegendRow * static_cast<double>(plot.series.size()) + 20;
  const double height = std::max(kMinHeight, kMarginTop + legend_height + 10);
  frame.bottom = height - kMarginBottom;

  std::string out;
  out += "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"plot\" id=\"plot-" +
         escape_xml(plot.id, true) + "\" width=\"" + num(kWidth) + "\" height=\"" + num(height) +
         "\" viewBox=\"0 0 " + num(kWidth) + " " + num(height) +
         "\" role=\"img\" aria-label=\"" + escape_xml(plot.title, true) +
         "\" font-family=\"system-ui, -apple-system, 'Segoe UI', Helvetica, Arial, sans-serif\" "
         "font-size=\"12\">\n";
  out += "<title>" + escape_xml(plot.title) + "</title>\n";
  out += "<rect x=\"0\" y=\"0\" width=\"" + num(kWidth) + "\" height=\"" + num(height) +
         "\" fill=\"#ffffff\"/>\n";
  out += text(kWidth / 2, 22, shorten(plot.title, kTitleMaxChars),
              "text-anchor=\"middle\" font-size=\"15\" font-weight=\"600\" fill=\"#222\"") + "\n";

  const std::string frame_rect = "<rect x=\"" + num(frame.left) + "\" y=\"" + num(frame.top) +
                                 "\" width=\"" + num(frame.right - frame.left) + "\" height=\"" +
                                 num(frame.bottom - frame.top) +
                                 "\" fill=\"none\" stroke=\"#444\" stroke-width=\"1\"/>\n";
  const double x_label_y = frame.bottom + 44;
  const double y_label_x = 18;
  const double mid_y = (frame.top + frame.bottom) / 2;
  const std::string x_label = text((frame.left + frame.right) / 2, x_label_y, shorten(plot.x_label, 70),
                                   "text-anchor=\"middle\" font-size=\"13\" fill=\"#222\"") + "\n";
  const std::string y_label =
      text(y_label_x, mid_y, shorten(plot.y_label, 44),
           "text-anchor=\"middle\" font-size=\"13\" fill=\"#222\" transform=\"rotate(-90 " +
               num(y_label_x) + " " + num(mid_y) + ")\"") + "\n";

  if (drawn_points == 0) {
    out += frame_rect + x_label + y_label;
    const double mid_x = (frame.left + frame.right) / 2;
    out += "<text class=\"no-data\" x=\"" + num(mid_x) + "\" y=\"" + num(mid_y) +
           "\" text-anchor=\"middle\" font-size=\"14\" fill=\"#777\">no data</text>\n";
    if (skipped_points > 0) {
      out += text(mid_x, mid_y + 18,
                  std::to_string(skipped_points) +
                      " points not drawable (NaN, infinite, or not positive on the log axis)",
                  "text-anchor=\"middle\" font-size=\"11\" fill=\"#777\"") + "\n";
    }
  } else {
    frame.x = linear_axis(x_min, x_max);
    frame.y = plot.log_y ? log_axis(y_min, y_max) : linear_axis(y_min, y_max);

    // Grid and ticks.
    out += "<g class=\"axes\" stroke-width=\"1\">\n";
    for (const Tick& t : linear_ticks(frame.x)) {
      const double x = frame.px(t.at);
      out += line(x, frame.top, x, frame.bottom, "stroke=\"#e4e4e4\"") + "\n";
      out += line(x, frame.bottom, x, frame.bottom + 5, "stroke=\"#444\"") + "\n";
      out += text(x, frame.bottom + 19, t.label, "text-anchor=\"middle\" fill=\"#333\"") + "\n";
    }
    const std::vector<Tick> y_ticks = plot.log_y ? log_ticks(frame.y) : linear_ticks(frame.y);
    for (const Tick& t : y_ticks) {
      const double y = frame.bottom - (t.at - frame.y.lo) / (frame.y.hi - frame.y.lo) *
                                          (frame.bottom - frame.top);
      out += line(frame.left, y, frame.right, y,
                  t.major ? "stroke=\"#e4e4e4\"" : "stroke=\"#f2f2f2\"") + "\n";
      if (t.label.empty()) continue;
      out += line(frame.left - 5, y, frame.left, y, "stroke=\"#444\"") + "\n";
      out += text(frame.left - 8, y + 4, t.label, "text-anchor=\"end\" fill=\"#333\"") + "\n";
    }
    out += "</g>\n" + frame_rect + x_label + y_label;

    // Jitter band for kPoints: a third of the smallest gap between distinct x values.
    double jitter = kMaxJitter;
    for (auto it = distinct_x.begin(); it != distinct_x.end(); ++it) {
      const auto next = std::next(it);
      if (next == distinct_x.end()) break;
      jitter = std::min(jitter, (frame.px(*next) - frame.px(*it)) / 3);
    }

    for (std::size_t si = 0; si < plot.series.size(); ++si) {
      const PlotSeries& s = plot.series[si];
      const SeriesStyle& style = styles[si];
      out += "<g class=\"series\" data-series=\"" + escape_xml(s.name, true) + "\">\n";
      std::vector<std::size_t> order;
      for (std::size_t pi = 0; pi < s.points.size(); ++pi) {
        if (drawable(s.points[pi])) order.push_back(pi);
      }
      std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        return s.points[a].x < s.points[b].x;
      });
      const std::string dash = s.bound ? " stroke-dasharray=\"7 4\"" : "";

      if (plot.kind == PlotKind::kLines && order.size() >= 2) {
        out += "<polyline class=\"data line\" fill=\"none\" stroke=\"" + style.color +
               "\" stroke-width=\"" + (s.bound ? "1.6" : "2") + "\"" + dash + " points=\"";
        for (std::size_t k = 0; k < order.size(); ++k) {
          const PlotPoint& p = s.points[order[k]];
          // Appended piece by piece: GCC 12 at -O3 reports a false -Wrestrict overlap
          // for a "literal" + std::string&& chain here.
          if (k != 0) out += ' ';
          out += num(frame.px(p.x));
          out += ',';
          out += num(frame.py(p.y));
        }
        out += "\"/>\n";
      }
      for (const std::size_t pi : order) {
        const PlotPoint& p = s.points[pi];
        double x = frame.px(p.x);
        const double y = frame.py(p.y);
        if (s.bound && (plot.kind == PlotKind::kPoints || order.size() == 1)) {
          // A bound level: a short dashed stroke at the point.
          out += "<line class=\"data bound\" x1=\"" + num(x - kBoundTickHalfWidth) + "\" y1=\"" +
                 num(y) + "\" x2=\"" + num(x + kBoundTickHalfWidth) + "\" y2=\"" + num(y) +
                 "\" stroke=\"" + style.color + "\" stroke-width=\"2.5\"" + dash + "/>\n";
          continue;
        }
        if (s.bound) continue;  // the dashed polyline is the whole bound
        if (plot.kind == PlotKind::kPoints) x += (jitter_unit(si, pi) * 2 - 1) * jitter;
        if (usable_y(p.y_low) || usable_y(p.y_high)) {
          const double y_low = usable_y(p.y_low) ? frame.py(*p.y_low) : y;
          const double y_high = usable_y(p.y_high) ? frame.py(*p.y_high) : y;
          const std::string stroke = "stroke=\"" + style.color + "\" stroke-width=\"1.2\"";
          out += "<g class=\"data errorbar\">" + line(x, y_low, x, y_high, stroke) +
                 line(x - 4, y_low, x + 4, y_low, stroke) +
                 line(x - 4, y_high, x + 4, y_high, stroke) + "</g>\n";
        }
        const bool scatter = plot.kind == PlotKind::kPoints;
        out += marker_element(style.marker, x, y, scatter ? 3.0 : kMarkerRadius, style.color,
                              scatter ? 0.45 : 1.0, "data marker") + "\n";
      }
      out += "</g>\n";
    }
    if (skipped_points > 0) {
      out += text(frame.right, height - 6,
                  std::to_string(skipped_points) +
                      (skipped_points == 1 ? " point" : " points") +
                      " not drawn (NaN, infinite, or not positive on the log axis)",
                  "text-anchor=\"end\" font-size=\"11\" fill=\"#777\"") + "\n";
    }
  }

  // Legend.
  out += "<g class=\"legend\">\n";
  const double legend_x = frame.right + 16;
  for (std::size_t si = 0; si < plot.series.size(); ++si) {
    const PlotSeries& s = plot.series[si];
    const SeriesStyle& style = styles[si];
    const double y = frame.top + 8 + kLegendRow * static_cast<double>(si);
    out += line(legend_x, y, legend_x + 26, y,
                "stroke=\"" + style.color + "\" stroke-width=\"2\"" +
                    (s.bound ? std::string(" stroke-dasharray=\"7 4\"") : std::string()));
    if (!s.bound) {
      out += marker_element(style.marker, legend_x + 13, y, kMarkerRadius, style.color, 1.0,
                            "legend-marker");
    }
    out += text(legend_x + 34, y + 4, shorten(s.name, kLegendMaxChars), "fill=\"#222\"") + "\n";
  }
  out += "</g>\n</svg>\n";
  return out;
}

}  // namespace cuckoo::audit::detail
