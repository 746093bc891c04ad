// Reading the parameters of a trace header (model::TraceParameters) that every engine's
// configuration mapping shares: the small numbers, the names a header may hold, and the
// errors of a header the engine cannot be built from.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "cuckoo/error.hpp"
#include "cuckoo/model/trace.hpp"

namespace cuckoo::subjects {

// An optional small unsigned parameter (a bit width, a count of slots or kicks). Values
// past kMaxSmallParameter cannot be meant and would wrap when narrowed, so they are
// rejected here, naming the parameter; the engine checks the real range.
inline constexpr std::uint64_t kMaxSmallParameter = std::uint64_t{1} << 30;

inline unsigned small_parameter(const model::TraceParameters& p, std::string_view name,
                                unsigned fallback) {
  if (!p.has(name)) return fallback;
  return static_cast<unsigned>(p.get_u64_in(name, 0, kMaxSmallParameter));
}

namespace parameters_detail {

// Edit distance (insertions, deletions, substitutions), for "did you mean".
inline std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {  // bound: a.size()
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {  // bound: b.size()
      const std::size_t above = row[j];
      const std::size_t substitute = diagonal + (a[i - 1] == b[j - 1] ? 0 : 1);
      row[j] = std::min({above + 1, row[j - 1] + 1, substitute});
      diagonal = above;
    }
  }
  return row[b.size()];
}

inline std::string names_text(std::span<const std::string_view> names) {
  std::string text;
  for (const std::string_view name : names) {
    if (!text.empty()) text += ", ";
    text += name;
  }
  return text;
}

}  // namespace parameters_detail

// Checks that the header of a trace for `engine` holds only the parameters it accepts.
// A parameter the mapping does not read (a misspelt fingerprint_bit for
// fingerprint_bits) would be ignored and the engine built with its default, so a replay
// would check another configuration than the one the trace was written for. Throws a
// model::TraceError naming the parameter, the header's line, the accepted names and the
// closest of them. (A repeated parameter is the parser's error: each name at most once.)
inline void check_parameter_names(const model::TraceParameters& p, std::string_view engine,
                                  std::span<const std::string_view> accepted) {
  for (const auto& [name, value] : p.entries()) {
    bool known = false;
    for (const std::string_view a : accepted) known = known || a == name;
    if (known) continue;
    std::string message = "unknown parameter '" + name + "' in the header of engine " +
                          std::string(engine) + " (it accepts " +
                          parameters_detail::names_text(accepted) + ")";
    // The closest name: at most 2 edits away, else one the given name begins.
    std::optional<std::string_view> closest;
    std::size_t best = 3;
    for (const std::string_view a : accepted) {
      const std::size_t d = parameters_detail::edit_distance(name, a);
      if (d < best) {
        best = d;
        closest = a;
      }
    }
    for (const std::string_view a : accepted) {
      if (!closest && name.size() >= 3 && a.starts_with(name)) closest = a;
    }
    if (closest) message += "; did you mean '" + std::string(*closest) + "'?";
    throw model::TraceError(p.line(), std::nullopt, message);
  }
}

// Runs `build` (which builds the engine from the header's configuration and replays the
// trace on it) and turns a ConfigError, a value the engine refuses, into a
// model::TraceError naming the parameter and the header's line.
template <class Build>
decltype(auto) with_header_errors(const model::TraceParameters& p, std::string_view engine,
                                  Build&& build) {
  try {
    return build();
  } catch (const ConfigError& e) {
    const std::string prefix = "invalid configuration: " + e.field() + ": ";
    std::string why = e.what();
    if (why.starts_with(prefix)) why.erase(0, prefix.size());
    const std::string parameter = "parameter '" + e.field() + "' of engine " + std::string(engine);
    throw model::TraceError(p.line(), std::nullopt,
                            p.has(e.field())
                                ? parameter + " is out of range: " + why
                                : parameter + " is missing (its default is out of range: " + why + ")");
  }
}

}  // namespace cuckoo::subjects
