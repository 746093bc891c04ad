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
//   engine growing capacity=N seed=S [fingerprint_bits=12] [slots_per_bucket=4]
//                  [max_kicks=500] [expansion=2] [max_levels=8] [max_memory_bytes=0]
//                  [raw_keys=0]   (1: the trace's own keys, aliasing across levels)
//
// Every header parameter is one of those listed for its engine (kFilterParameters and
// the like, beside each mapping) and appears at most once. An unknown parameter (a typo
// would otherwise be ignored and the engine built with its default), a missing or
// malformed one, and a value the engine refuses all throw model::TraceError naming the
// parameter and the header's line (an unknown one also lists the accepted names).
#pragma once

#include <optional>
#include <stdexcept>
#include <string>

#include "cuckoo/model/trace.hpp"
#include "cuckoo/model/violation.hpp"
#include "cuckoo/subjects/bloom.hpp"
#include "cuckoo/subjects/classic.hpp"
#include "cuckoo/subjects/filter.hpp"
#include "cuckoo/subjects/growing.hpp"
#include "cuckoo/subjects/map.hpp"
#include "cuckoo/subjects/smart.hpp"

namespace cuckoo::subjects {

// Builds the engine the trace's header names and checks the trace against the model in
// lock step. Returns the first violation, or nothing when every claim held. Throws
// model::TraceError for a header it cannot build an engine from, and
// std::invalid_argument for an engine name it does not know.
inline std::optional<model::Violation> replay(const model::Trace& trace) {
  if (trace.engine == "filter") return replay_filter(trace);
  if (trace.engine == "map") return replay_map(trace);
  if (trace.engine == "classic") return replay_classic(trace);
  if (trace.engine == "smart") return replay_smart(trace);
  if (trace.engine == "bloom") return replay_bloom(trace);
  if (trace.engine == "growing") return replay_growing(trace);
  throw std::invalid_argument("unknown engine '" + trace.engine +
                              "' in the trace header (expected filter, map, classic, smart, bloom or growing)");
}

}  // namespace cuckoo::subjects
