// CuckooFilter as a subject: the adapter for the model layer's filter checker, the
// filter's identity (what the filter cannot tell apart), the trace-header <-> config
// mapping (`engine filter capacity=N seed=S [fingerprint_bits=12] [slots_per_bucket=4]
// [max_kicks=500]`) and replay of a filter trace.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "cuckoo/cuckoo_filter.hpp"
#include "cuckoo/model/checker.hpp"
#include "cuckoo/model/multiset_model.hpp"
#include "cuckoo/model/subject.hpp"
#include "cuckoo/model/trace.hpp"
#include "cuckoo/subjects/parameters.hpp"

namespace cuckoo::subjects {

// The identity a cuckoo filter stores for a key: its fingerprint and its (unordered)
// bucket pair. Two keys with the same identity are indistinguishable to the filter.
// Given the fingerprint, the smaller bucket determines the pair (alt_bucket is an
// involution), so (smaller bucket, fingerprint) identifies it.
inline std::uint64_t filter_identity(const CuckooFilterPlacement& p) noexcept {
  const std::uint64_t low = p.bucket1 < p.bucket2 ? p.bucket1 : p.bucket2;
  return (low << 32) | p.fingerprint;
}

template <class Filter>
class FilterSubjectAdapter {
 public:
  explicit FilterSubjectAdapter(Filter& filter) noexcept : filter_(&filter) {}

  InsertResult insert(std::uint64_t key) { return filter_->insert(key); }
  bool contains(std::uint64_t key) const { return filter_->contains(key); }
  bool erase(std::uint64_t key) { return filter_->erase(key); }
  std::uint64_t size() const { return filter_->size(); }
  void clear() { filter_->clear(); }

  std::uint64_t identity(std::uint64_t key) const {
    return filter_identity(filter_->placement(key));
  }
  std::uint64_t max_copies(std::uint64_t key) const { return filter_->max_copies(key); }

  model::SubjectTraits traits() const {
    model::SubjectTraits t;
    t.exact = false;
    t.allows_duplicates = true;
    t.slots_per_bucket = filter_->slots_per_bucket();
    t.fingerprint_bits = filter_->fingerprint_bits();
    return t;
  }

  // Replaces the filter by deserialize(serialize()); false when the copy is not equal.
  bool serialize_roundtrip() {
    Filter copy = Filter::deserialize(filter_->serialize(), filter_->hasher());
    if (!(copy == *filter_)) return false;
    *filter_ = std::move(copy);
    return true;
  }

  Filter& engine() noexcept { return *filter_; }

 private:
  Filter* filter_;
};

// The parameters filter_config_from reads: a filter trace's header holds no others.
inline constexpr std::string_view kFilterParameters[] = {
    "capacity", "seed", "fingerprint_bits", "slots_per_bucket", "max_kicks", "semi_sorted"};

inline CuckooFilterConfig filter_config_from(const model::TraceParameters& p) {
  CuckooFilterConfig c;
  c.capacity = p.get_u64("capacity");
  c.seed = p.get_u64("seed");
  c.fingerprint_bits = small_parameter(p, "fingerprint_bits", c.fingerprint_bits);
  c.slots_per_bucket = small_parameter(p, "slots_per_bucket", c.slots_per_bucket);
  c.max_kicks = small_parameter(p, "max_kicks", c.max_kicks);
  c.semi_sorted = p.get_bool_or("semi_sorted", false);  // absent in older traces
  return c;
}

inline model::TraceParameters parameters_of(const CuckooFilterConfig& c) {
  model::TraceParameters p;
  p.set("capacity", std::to_string(c.capacity));
  p.set("seed", std::to_string(c.seed.value_or(0)));
  p.set("fingerprint_bits", std::to_string(c.fingerprint_bits));
  p.set("slots_per_bucket", std::to_string(c.slots_per_bucket));
  p.set("max_kicks", std::to_string(c.max_kicks));
  if (c.semi_sorted) p.set("semi_sorted", "true");
  return p;
}

// Builds the filter the trace's header names and checks the trace in lock step against
// MultisetModel. Returns the first violation, or nothing when every claim held. A header
// with an unknown, malformed or out-of-range parameter is a model::TraceError.
inline std::optional<model::Violation> replay_filter(const model::Trace& trace) {
  const model::TraceParameters& p = trace.parameters;
  check_parameter_names(p, "filter", kFilterParameters);
  return with_header_errors(p, "filter", [&]() -> std::optional<model::Violation> {
    const CuckooFilterConfig config = filter_config_from(p);
    CuckooFilter filter(config);
    FilterSubjectAdapter subject(filter);
    model::MultisetModel model;
    return model::check(subject, model, trace, *config.seed);
  });
}

}  // namespace cuckoo::subjects
