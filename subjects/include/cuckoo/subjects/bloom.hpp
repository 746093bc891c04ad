// BloomFilter as a subject: the adapter, the trace-header <-> config mapping (`engine
// bloom bits=M hashes=K seed=S`; no erase ops: a Bloom filter has none) and replay.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

#include "cuckoo/bloom_filter.hpp"
#include "cuckoo/model/checker.hpp"
#include "cuckoo/model/multiset_model.hpp"
#include "cuckoo/model/subject.hpp"
#include "cuckoo/model/trace.hpp"
#include "cuckoo/subjects/parameters.hpp"

namespace cuckoo::subjects {

// The Bloom filter as a filter subject: an approximate set that never fills and keeps
// every copy (size() counts insert calls). It has no erase; the Bloom traces hold none.
class BloomSubjectAdapter {
 public:
  explicit BloomSubjectAdapter(BloomFilter& filter) noexcept : filter_(&filter) {}
  InsertResult insert(std::uint64_t key) { return filter_->insert(key); }
  bool contains(std::uint64_t key) const { return filter_->contains(key); }
  bool erase(std::uint64_t) {
    throw std::invalid_argument("a Bloom filter has no erase; a bloom trace cannot hold one");
  }
  std::uint64_t size() const { return filter_->size(); }
  void clear() { filter_->clear(); }
  model::SubjectTraits traits() const {
    model::SubjectTraits t;
    t.exact = false;
    t.allows_duplicates = true;  // no copy limit: slots_per_bucket and max_copies are 0
    return t;
  }
  bool serialize_roundtrip() {
    BloomFilter copy = BloomFilter::deserialize(filter_->serialize());
    if (!(copy == *filter_)) return false;
    *filter_ = std::move(copy);
    return true;
  }

 private:
  BloomFilter* filter_;
};

// The parameters bloom_config_from reads: a bloom trace's header holds no others.
inline constexpr std::string_view kBloomParameters[] = {"bits", "hashes", "seed"};

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

// Checks a Bloom trace in lock step against MultisetModel; an erase op is a TraceError,
// and so is a header with an unknown, malformed or out-of-range parameter.
inline std::optional<model::Violation> replay_bloom(const model::Trace& trace) {
  const model::TraceParameters& p = trace.parameters;
  check_parameter_names(p, "bloom", kBloomParameters);
  for (const model::TraceEntry& entry : trace.entries) {
    if (entry.op.kind == model::OpKind::kErase) {
      throw model::TraceError(entry.line, std::nullopt,
                              "a Bloom filter has no erase; a bloom trace cannot hold one");
    }
  }
  return with_header_errors(p, "bloom", [&]() -> std::optional<model::Violation> {
    const BloomFilterConfig config = bloom_config_from(p);
    BloomFilter filter(config);
    BloomSubjectAdapter subject(filter);
    model::MultisetModel model;
    return model::check(subject, model, trace, *config.seed);
  });
}

}  // namespace cuckoo::subjects
