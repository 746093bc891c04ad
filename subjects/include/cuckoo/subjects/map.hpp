// CuckooMap as a subject: the trace-header <-> config mapping (`engine map
// initial_capacity=N seed=S [slots_per_bucket=4] [max_capacity=N] [max_path_length=5]`),
// the dispatch on the compile-time slots per bucket, and replay of a map trace.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "cuckoo/cuckoo_map.hpp"
#include "cuckoo/error.hpp"
#include "cuckoo/model/checker.hpp"
#include "cuckoo/model/map_model.hpp"
#include "cuckoo/model/trace.hpp"
#include "cuckoo/subjects/parameters.hpp"
#include "cuckoo/subjects/table.hpp"

namespace cuckoo::subjects {

// The parameters map_config_from and with_map_slots read: a map trace's header holds no
// others.
inline constexpr std::string_view kMapParameters[] = {
    "initial_capacity", "seed", "slots_per_bucket", "max_capacity", "max_path_length"};

inline CuckooMapConfig map_config_from(const model::TraceParameters& p) {
  CuckooMapConfig c;
  c.initial_capacity = p.get_u64("initial_capacity");
  c.seed = p.get_u64("seed");
  if (p.has("max_capacity")) c.max_capacity = p.get_u64("max_capacity");
  c.max_path_length = small_parameter(p, "max_path_length", c.max_path_length);
  return c;
}

inline model::TraceParameters parameters_of(const CuckooMapConfig& c, unsigned slots_per_bucket) {
  model::TraceParameters p;
  p.set("initial_capacity", std::to_string(c.initial_capacity));
  p.set("seed", std::to_string(c.seed.value_or(0)));
  p.set("slots_per_bucket", std::to_string(slots_per_bucket));
  p.set("max_capacity", std::to_string(c.max_capacity));
  p.set("max_path_length", std::to_string(c.max_path_length));
  return p;
}

// Calls fn.template operator()<B>() for the map's compile-time slots per bucket.
template <class Fn>
decltype(auto) with_map_slots(const model::TraceParameters& p, Fn&& fn) {
  const unsigned b = small_parameter(p, "slots_per_bucket", 4);
  switch (b) {
    case 1: return fn.template operator()<1>();
    case 2: return fn.template operator()<2>();
    case 4: return fn.template operator()<4>();
    case 8: return fn.template operator()<8>();
    default:
      throw ConfigError("slots_per_bucket",
                        std::to_string(b) + " is not one of 1, 2, 4, 8");
  }
}

// Builds the map the trace's header names and checks the trace in lock step against
// MapModel. Returns the first violation, or nothing when every claim held. A header with
// an unknown, malformed or out-of-range parameter is a model::TraceError.
inline std::optional<model::Violation> replay_map(const model::Trace& trace) {
  const model::TraceParameters& p = trace.parameters;
  check_parameter_names(p, "map", kMapParameters);
  return with_header_errors(p, "map", [&]() -> std::optional<model::Violation> {
    const CuckooMapConfig config = map_config_from(p);
    return with_map_slots(p, [&]<unsigned B>() -> std::optional<model::Violation> {
      CuckooMap<std::uint64_t, std::uint64_t, B> table(config);
      MapSubjectAdapter subject(table, config.max_capacity < CuckooMapConfig{}.max_capacity);
      model::MapModel model;
      return model::check(subject, model, trace, *config.seed);
    });
  });
}

}  // namespace cuckoo::subjects
