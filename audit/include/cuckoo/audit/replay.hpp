// Engines built from a trace header, and replay of a trace against them.
//
// A trace's header names the engine and its configuration; this header is the one
// mapping between those parameters and the engines' configuration structs, used by every
// harness that writes a trace (properties, fuzz targets, the auditor) and by
// `cuckoo-audit replay`, which reads one back:
//
//   engine filter  capacity=N seed=S [fingerprint_bits=12] [slots_per_bucket=4] [max_kicks=500]
//   engine map     initial_capacity=N seed=S [slots_per_bucket=4] [max_capacity=N]
//                  [max_path_length=5]
//   engine classic capacity=N seed=S [max_kicks=500] [on_failure=rehash|grow|report]
//                  [max_rehashes=8] [max_capacity=N]
//   engine smart   capacity=N seed=S [max_kicks=500] [stash_capacity=8]
//   engine bloom   bits=M hashes=K seed=S   (no erase ops: a Bloom filter has none)
//
// A missing or malformed parameter throws model::TraceError naming the header line; an
// out-of-range value throws cuckoo::ConfigError naming the field (the engines validate).
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

#include "cuckoo/audit/subjects.hpp"
#include "cuckoo/model/checker.hpp"
#include "cuckoo/model/map_model.hpp"
#include "cuckoo/model/multiset_model.hpp"
#include "cuckoo/model/trace.hpp"

namespace cuckoo::audit {

// ---- configuration <-> trace parameters ----

// An optional small unsigned parameter (a bit width, a count of slots or kicks). Values
// past kMaxSmallParameter cannot be meant and would wrap when narrowed, so they are
// rejected here, naming the parameter; the engine checks the real range.
inline constexpr std::uint64_t kMaxSmallParameter = std::uint64_t{1} << 30;

inline unsigned small_parameter(const model::TraceParameters& p, std::string_view name,
                                unsigned fallback) {
  if (!p.has(name)) return fallback;
  return static_cast<unsigned>(p.get_u64_in(name, 0, kMaxSmallParameter));
}

inline CuckooFilterConfig filter_config_from(const model::TraceParameters& p) {
  CuckooFilterConfig c;
  c.capacity = p.get_u64("capacity");
  c.seed = p.get_u64("seed");
  c.fingerprint_bits = small_parameter(p, "fingerprint_bits", c.fingerprint_bits);
  c.slots_per_bucket = small_parameter(p, "slots_per_bucket", c.slots_per_bucket);
  c.max_kicks = small_parameter(p, "max_kicks", c.max_kicks);
  return c;
}

inline model::TraceParameters parameters_of(const CuckooFilterConfig& c) {
  model::TraceParameters p;
  p.set("capacity", std::to_string(c.capacity));
  p.set("seed", std::to_string(c.seed.value_or(0)));
  p.set("fingerprint_bits", std::to_string(c.fingerprint_bits));
  p.set("slots_per_bucket", std::to_string(c.slots_per_bucket));
  p.set("max_kicks", std::to_string(c.max_kicks));
  return p;
}

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

inline OnInsertFailure on_failure_from(const model::TraceParameters& p) {
  const std::string policy = p.get_string_or("on_failure", "rehash");
  if (policy == "rehash") return OnInsertFailure::kRehash;
  if (policy == "grow") return OnInsertFailure::kGrow;
  if (policy == "report") return OnInsertFailure::kReport;
  throw model::TraceError(p.line(), std::nullopt,
                          "parameter on_failure: expected rehash, grow or report, found '" +
                              policy + "'");
}

inline const char* to_string(OnInsertFailure policy) noexcept {
  switch (policy) {
    case OnInsertFailure::kRehash: return "rehash";
    case OnInsertFailure::kGrow: return "grow";
    case OnInsertFailure::kReport: return "report";
  }
  return "unknown";
}

inline ClassicCuckooConfig classic_config_from(const model::TraceParameters& p) {
  ClassicCuckooConfig c;
  c.capacity = p.get_u64("capacity");
  c.seed = p.get_u64("seed");
  c.max_kicks = small_parameter(p, "max_kicks", c.max_kicks);
  c.on_failure = on_failure_from(p);
  c.max_rehashes = small_parameter(p, "max_rehashes", c.max_rehashes);
  if (p.has("max_capacity")) c.max_capacity = p.get_u64("max_capacity");
  return c;
}

inline model::TraceParameters parameters_of(const ClassicCuckooConfig& c) {
  model::TraceParameters p;
  p.set("capacity", std::to_string(c.capacity));
  p.set("seed", std::to_string(c.seed.value_or(0)));
  p.set("max_kicks", std::to_string(c.max_kicks));
  p.set("on_failure", to_string(c.on_failure));
  p.set("max_rehashes", std::to_string(c.max_rehashes));
  p.set("max_capacity", std::to_string(c.max_capacity));
  return p;
}

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

// Trace header of a Bloom filter: "engine bloom bits=M hashes=K seed=S".
inline BloomFilterConfig bloom_config_from(const model::TraceParameters& p) {
  BloomFilterConfig c;
  c.bits = p.get_u64("bits");
  c.hashes = small_parameter(p, "hashes", 0);
  c.seed = p.get_u64("seed");
  return c;
}

inline model::TraceParameters parameters_of(const BloomFilterConfig& c) {
  model::TraceParameters p;
  p.set("bits", std::to_string(c.bits));
  p.set("hashes", std::to_string(c.hashes));
  p.set("seed", std::to_string(c.seed.value_or(0)));
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

// Whether an exact table built from these parameters may legitimately answer kFull.
inline bool classic_may_report_full(const ClassicCuckooConfig& c) {
  return c.on_failure == OnInsertFailure::kReport ||
         c.max_capacity < ClassicCuckooConfig::kMaxCapacity;
}

// ---- replay ----

// Builds the engine the trace's header names and checks the trace against the model in
// lock step. Returns the first violation, or nothing when every claim held. Throws
// model::TraceError / ConfigError for a header it cannot build an engine from, and
// std::invalid_argument for an engine name it does not know.
inline std::optional<model::Violation> replay(const model::Trace& trace) {
  const model::TraceParameters& p = trace.parameters;
  if (trace.engine == "filter") {
    const CuckooFilterConfig config = filter_config_from(p);
    CuckooFilter filter(config);
    FilterSubjectAdapter subject(filter);
    model::MultisetModel model;
    return model::check(subject, model, trace, *config.seed);
  }
  if (trace.engine == "map") {
    const CuckooMapConfig config = map_config_from(p);
    return with_map_slots(p, [&]<unsigned B>() -> std::optional<model::Violation> {
      CuckooMap<std::uint64_t, std::uint64_t, B> table(config);
      MapSubjectAdapter subject(table, config.max_capacity < CuckooMapConfig{}.max_capacity);
      model::MapModel model;
      return model::check(subject, model, trace, *config.seed);
    });
  }
  if (trace.engine == "classic") {
    const ClassicCuckooConfig config = classic_config_from(p);
    ClassicCuckoo<> table(config);
    MapSubjectAdapter subject(table, classic_may_report_full(config));
    model::MapModel model;
    return model::check(subject, model, trace, *config.seed);
  }
  if (trace.engine == "smart") {
    const SmartCuckooConfig config = smart_config_from(p);
    SmartCuckoo<> table(config);
    MapSubjectAdapter subject(table, /*has_growth_limit=*/true);
    model::MapModel model;
    return model::check(subject, model, trace, *config.seed);
  }
  if (trace.engine == "bloom") {
    for (const model::TraceEntry& entry : trace.entries) {
      if (entry.op.kind == model::OpKind::kErase) {
        throw model::TraceError(entry.line, std::nullopt,
                                "a Bloom filter has no erase; a bloom trace cannot hold one");
      }
    }
    const BloomFilterConfig config = bloom_config_from(p);
    BloomFilter filter(config);
    BloomSubjectAdapter subject(filter);
    model::MultisetModel model;
    return model::check(subject, model, trace, *config.seed);
  }
  throw std::invalid_argument("unknown engine '" + trace.engine +
                              "' in the trace header (expected filter, map, classic, smart or bloom)");
}

}  // namespace cuckoo::audit
