// The statistical claims' tasks (C2, C3, C4, C9, C12) and their sample sizes per
// profile. The measurements themselves are the subject layer's (cuckoo/subjects/measure.hpp),
// shared with the property tests; this header is the auditor's use of them.
#pragma once

#include <cstdint>
#include <vector>

#include "cuckoo/audit/audit.hpp"
#include "cuckoo/subjects/measure.hpp"

namespace cuckoo::audit::measure {

using namespace cuckoo::subjects::measure;


// Sample sizes of the statistical tasks. Defaults: the quick profile. Sizes change the
// power of a check, never its bound.
struct StatisticalSizes {
  std::uint64_t c2_slots = std::uint64_t{1} << 16;            // table size of C2
  FprQueries c2_queries = {2000, 400'000, 8'000'000};         // C2 and C4 queries
  std::vector<unsigned> c2_fingerprint_bits = {4, 8, 12, 16};
  std::uint64_t c3_slots = std::uint64_t{1} << 14;
  unsigned c3_trials = 500;                                   // filters per b
  std::uint64_t c4_slots = std::uint64_t{1} << 16;
  std::size_t c9_capacity = std::size_t{1} << 16;             // max_kicks 500 and SmartCuckoo
  unsigned c9_tables = 4;
  std::size_t c9_short_walk_capacity = std::size_t{1} << 13;  // the max_kicks = 8 run
  unsigned c9_short_walk_tables = 16;
  std::uint64_t c12_queries = 4'000'000;
  std::uint64_t c12_scale = 1;  // multiplies m and n of every C12 case
};

// The sizes of a profile: quick (the defaults), standard (about 10x), full (50-100x).
StatisticalSizes statistical_sizes(Profile profile);

// Adds the tasks of C2, C3, C4, C9 and C12 at the given sizes (add_statistical_claims
// calls it with statistical_sizes(profile); tests call it with smaller ones).
void add_statistical_tasks(TaskList& tasks, const StatisticalSizes& sizes);

}  // namespace cuckoo::audit::measure
