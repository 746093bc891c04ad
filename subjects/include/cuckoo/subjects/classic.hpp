// ClassicCuckoo as a subject: the trace-header <-> config mapping (`engine classic
// capacity=N seed=S [max_kicks=500] [on_failure=rehash|grow|report] [max_rehashes=8]
// [max_capacity=N]`), when kFull is a legitimate answer, and replay of a classic trace.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "cuckoo/classic_cuckoo.hpp"
#include "cuckoo/model/checker.hpp"
#include "cuckoo/model/map_model.hpp"
#include "cuckoo/model/trace.hpp"
#include "cuckoo/subjects/parameters.hpp"
#include "cuckoo/subjects/table.hpp"

namespace cuckoo::subjects {

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

// The parameters classic_config_from reads: a classic trace's header holds no others.
inline constexpr std::string_view kClassicParameters[] = {
    "capacity", "seed", "max_kicks", "on_failure", "max_rehashes", "max_capacity"};

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

// Whether an exact table built from these parameters may legitimately answer kFull: the
// report policy; a capped max_capacity; or no fresh seeds (max_rehashes = 0). Then every
// rebuild an insert may try (at most kMaxGrowthsPerInsert doublings) keeps the seed. A
// key's positions are the top bits of its hash, so keys that share both positions at one
// size share them at every smaller size, and each doubling only tells them apart by one
// more bit; once more keys share a pair than it has slots, every rebuild can fail and the
// engine returns kFull by its contract. Found by fuzz_classic twice (max_kicks 1 and 16,
// both max_rehashes 0; fuzz/regressions/classic/): three keys sharing one pair of
// positions at every size up to 64 slots. (Such triples are rare and not a weakness of
// the hash: neighbouring keys share a pair at 64 slots as often as random ones, about 1
// in 1,024.) With fresh seeds kFull stays a C7 violation for the growth policies.
inline bool classic_may_report_full(const ClassicCuckooConfig& c) {
  return c.on_failure == OnInsertFailure::kReport ||
         c.max_capacity < ClassicCuckooConfig::kMaxCapacity || c.max_rehashes == 0;
}

// Builds the table the trace's header names and checks the trace in lock step against
// MapModel. Returns the first violation, or nothing when every claim held. A header with
// an unknown, malformed or out-of-range parameter is a model::TraceError.
inline std::optional<model::Violation> replay_classic(const model::Trace& trace) {
  const model::TraceParameters& p = trace.parameters;
  check_parameter_names(p, "classic", kClassicParameters);
  return with_header_errors(p, "classic", [&]() -> std::optional<model::Violation> {
    const ClassicCuckooConfig config = classic_config_from(p);
    ClassicCuckoo<> table(config);
    MapSubjectAdapter subject(table, classic_may_report_full(config));
    model::MapModel model;
    return model::check(subject, model, trace, *config.seed);
  });
}

}  // namespace cuckoo::subjects
