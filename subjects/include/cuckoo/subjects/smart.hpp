// SmartCuckoo as a subject: the trace-header <-> config mapping (`engine smart
// capacity=N seed=S [max_kicks=500] [stash_capacity=8]`) and replay of a smart trace.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "cuckoo/model/checker.hpp"
#include "cuckoo/model/map_model.hpp"
#include "cuckoo/model/trace.hpp"
#include "cuckoo/smart_cuckoo.hpp"
#include "cuckoo/subjects/parameters.hpp"
#include "cuckoo/subjects/table.hpp"

namespace cuckoo::subjects {

// The parameters smart_config_from reads: a smart trace's header holds no others.
inline constexpr std::string_view kSmartParameters[] = {"capacity", "seed", "max_kicks",
                                                        "stash_capacity"};

inline SmartCuckooConfig smart_config_from(const model::TraceParameters& p) {
  SmartCuckooConfig c;
  c.capacity = p.get_u64("capacity");
  c.seed = p.get_u64("seed");
  c.max_kicks = small_parameter(p, "max_kicks", c.max_kicks);
  c.stash_capacity = p.get_u64_or("stash_capacity", c.stash_capacity);
  return c;
}

inline model::TraceParameters parameters_of(const SmartCuckooConfig& c) {
  model::TraceParameters p;
  p.set("capacity", std::to_string(c.capacity));
  p.set("seed", std::to_string(c.seed.value_or(0)));
  p.set("max_kicks", std::to_string(c.max_kicks));
  p.set("stash_capacity", std::to_string(c.stash_capacity));
  return p;
}

// Builds the table the trace's header names and checks the trace in lock step against
// MapModel. Returns the first violation, or nothing when every claim held. A header with
// an unknown, malformed or out-of-range parameter is a model::TraceError.
inline std::optional<model::Violation> replay_smart(const model::Trace& trace) {
  const model::TraceParameters& p = trace.parameters;
  check_parameter_names(p, "smart", kSmartParameters);
  return with_header_errors(p, "smart", [&]() -> std::optional<model::Violation> {
    const SmartCuckooConfig config = smart_config_from(p);
    SmartCuckoo<> table(config);
    MapSubjectAdapter subject(table, /*has_growth_limit=*/true);
    model::MapModel model;
    return model::check(subject, model, trace, *config.seed);
  });
}

}  // namespace cuckoo::subjects
