// SVG rendering of a report Plot (internal, used by the HTML writer).
//
// The chart: a title, a frame with ticks, grid lines and tick labels on both axes (y
// linear or logarithmic by decades), the axis labels, the data, and a legend on the
// right. Every series gets its own color and marker shape; a bound series is drawn
// dashed, and takes the color of the measured series it bounds when its name is that
// series' name prefixed ("bound b=4" bounds "b=4"), so a bound reads with its data.
//
//   kLines   a polyline per series through its points sorted by x, a marker on each
//            point (so a one-point series shows), error bars where y_low/y_high are set.
//   kPoints  markers only, jittered in x by a fixed function of (series, point) so a
//            distribution of many y per x is visible and the output is deterministic;
//            a bound series is a short dashed level at each of its points.
//
// Points with a NaN or infinite coordinate, and on a log axis y <= 0, are not drawn; a
// note under the chart says how many. A plot with nothing to draw shows "no data".
// Every drawn data element has class "data" (the HTML report's self-check counts them);
// the "no data" note has class "no-data".
#pragma once

#include <string>

#include "cuckoo/audit/report.hpp"

namespace cuckoo::audit::detail {

// The <svg class="plot" id="plot-<id>"> element, standalone (namespace declared, sizes in
// attributes, no stylesheet needed), every string escaped. Never throws on content.
std::string render_svg_plot(const Plot& plot);

}  // namespace cuckoo::audit::detail
