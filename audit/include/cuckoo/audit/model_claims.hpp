// Sample sizes of the model-checked claims (C1 C5 C6 C7 C8 C11), and the registration
// with explicit sizes that self-tests use to run every model task on a small sample.
// add_model_claims(tasks, profile) (audit.hpp) is this with model_claim_sizes(profile).
#pragma once

#include <cstddef>

#include "cuckoo/audit/audit.hpp"

namespace cuckoo::audit {

struct ModelClaimSizes {
  std::size_t traces = 1000;           // random traces per task (C11: half of them)
  std::size_t corruption_bases = 20;   // C11: serialized structures truncated and corrupted
};

// quick: 3000 traces a task (all model tasks together take about 30 s single-threaded in
// a release build); standard: 10x; full: 100x.
ModelClaimSizes model_claim_sizes(Profile profile) noexcept;

void add_model_claims(TaskList& tasks, const ModelClaimSizes& sizes);

}  // namespace cuckoo::audit
