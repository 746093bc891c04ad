// GrowingCuckooFilter as a subject: the adapter for the model layer's filter checker,
// the trace-header <-> config mapping (`engine growing capacity=N seed=S
// [fingerprint_bits=12] [slots_per_bucket=4] [max_kicks=500] [expansion=2]
// [max_levels=8] [max_memory_bytes=0]`) and replay of a growing-filter trace.
//
// Keys. A CuckooFilter has one identity per key (fingerprint and bucket pair), under
// which MultisetModel's rules are exact. A growing filter has one per level, and keys
// that share the identity of one level but not another are told apart by some levels
// only: whether an erase of one removes the other's copy depends on the levels the
// copies went to, which no identity function of the key can express. So the adapter
// checks the growing filter on keys it can always tell apart: each trace key, on its
// first use, is given the next engine key (0, 1, 2, ... in order) whose identity at
// every level the configuration can build (placement_at_level) differs from that of
// every engine key given so far. On those keys the multiset rules are exact: contains
// must find every stored copy, erase succeeds iff a copy is stored, count() is the exact
// number of copies, and insert answers kDuplicateLimit iff count reaches max_copies. The
// behaviour of keys that alias at some level (erase order, the loss it can cause) is
// tested in engine/tests/growing_filter_test.cpp. A configuration with too few
// identities for the keys of a trace (more than kMaxCandidates engine keys tried) throws
// std::length_error naming the key count.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "cuckoo/growing_filter.hpp"
#include "cuckoo/model/checker.hpp"
#include "cuckoo/model/multiset_model.hpp"
#include "cuckoo/model/subject.hpp"
#include "cuckoo/model/trace.hpp"
#include "cuckoo/subjects/filter.hpp"
#include "cuckoo/subjects/parameters.hpp"

namespace cuckoo::subjects {

// Trace keys -> engine keys that no level of the filter's configuration confuses.
template <class Filter>
class DistinguishableKeys {
 public:
  // The most engine keys tried for one trace key.
  static constexpr std::uint64_t kMaxCandidates = std::uint64_t{1} << 20;

  // The engine key for trace key `key` (the same one every time).
  std::uint64_t of(const Filter& filter, std::uint64_t key) {
    const auto found = given_.find(key);
    if (found != given_.end()) return found->second;
    const std::uint64_t engine_key = next(filter);
    given_.emplace(key, engine_key);
    return engine_key;
  }

 private:
  std::uint64_t next(const Filter& filter) {
    const unsigned levels = filter.reachable_levels();
    // Bound: kMaxCandidates engine keys.
    for (std::uint64_t tried = 0; tried < kMaxCandidates; ++tried) {
      const std::uint64_t candidate = next_candidate_++;
      const std::uint64_t h = filter.hash_of(candidate);
      std::vector<std::pair<unsigned, std::uint64_t>> ids;
      bool clash = false;
      for (unsigned l = 0; l < levels && !clash; ++l) {  // bound: reachable_levels()
        ids.emplace_back(l, filter_identity(*filter.placement_at_level(l, h)));
        clash = taken_.contains(ids.back());
      }
      if (clash) continue;
      taken_.insert(ids.begin(), ids.end());
      return candidate;
    }
    throw std::length_error("the growing filter's configuration has too few identities for " +
                            std::to_string(given_.size() + 1) +
                            " keys that every level tells apart");
  }

  std::unordered_map<std::uint64_t, std::uint64_t> given_;
  std::set<std::pair<unsigned, std::uint64_t>> taken_;
  std::uint64_t next_candidate_ = 0;
};

template <class Filter>
class GrowingFilterSubjectAdapter {
 public:
  explicit GrowingFilterSubjectAdapter(Filter& filter) : filter_(&filter) {}

  InsertResult insert(std::uint64_t key) { return filter_->insert(engine_key(key)); }
  bool contains(std::uint64_t key) const { return filter_->contains(engine_key(key)); }
  bool erase(std::uint64_t key) { return filter_->erase(engine_key(key)); }
  std::uint64_t size() const { return filter_->size(); }
  void clear() { filter_->clear(); }
  // Exact on these keys (see the header comment): the checker compares it with the
  // model's copies after every insert and erase.
  std::uint64_t count(std::uint64_t key) const { return filter_->count(engine_key(key)); }
  std::uint64_t max_copies(std::uint64_t key) const { return filter_->max_copies(engine_key(key)); }

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

  // The levels are the configuration's: 1..reachable_levels() of them, level l with
  // fingerprint_bits + l bits, and the size is theirs summed. "" when all hold.
  std::string check_invariants() const {
    const Filter& f = *filter_;
    if (f.level_count() < 1 || f.level_count() > f.reachable_levels()) {
      return std::to_string(f.level_count()) + " levels, outside 1.." + std::to_string(f.reachable_levels());
    }
    std::uint64_t size = 0;
    for (unsigned l = 0; l < f.level_count(); ++l) {
      const auto& level = f.level(l);
      const auto want = f.level_config(l);
      if (!want || level.fingerprint_bits() != want->fingerprint_bits ||
          level.slots_per_bucket() != want->slots_per_bucket || level.seed() != f.seed()) {
        return "level " + std::to_string(l) + " has fingerprint_bits " +
               std::to_string(level.fingerprint_bits()) + ", not its configuration's";
      }
      size += level.size();
    }
    if (size != f.size()) return "the levels hold " + std::to_string(size) + " copies, size() is " + std::to_string(f.size());
    return {};
  }

  Filter& engine() noexcept { return *filter_; }
  // The engine key trace key `key` stands for.
  std::uint64_t engine_key(std::uint64_t key) const { return keys_.of(*filter_, key); }

 private:
  Filter* filter_;
  mutable DistinguishableKeys<Filter> keys_;
};

// The parameters growing_config_from reads: a growing trace's header holds no others.
inline constexpr std::string_view kGrowingParameters[] = {
    "capacity",  "seed",      "fingerprint_bits", "slots_per_bucket",
    "max_kicks", "expansion", "max_levels",       "max_memory_bytes"};

inline GrowingCuckooFilterConfig growing_config_from(const model::TraceParameters& p) {
  GrowingCuckooFilterConfig c;
  c.capacity = p.get_u64("capacity");
  c.seed = p.get_u64("seed");
  c.fingerprint_bits = small_parameter(p, "fingerprint_bits", c.fingerprint_bits);
  c.slots_per_bucket = small_parameter(p, "slots_per_bucket", c.slots_per_bucket);
  c.max_kicks = small_parameter(p, "max_kicks", c.max_kicks);
  c.expansion = small_parameter(p, "expansion", c.expansion);
  c.max_levels = small_parameter(p, "max_levels", c.max_levels);
  if (p.has("max_memory_bytes")) c.max_memory_bytes = p.get_u64("max_memory_bytes");
  return c;
}

inline model::TraceParameters parameters_of(const GrowingCuckooFilterConfig& c) {
  model::TraceParameters p;
  p.set("capacity", std::to_string(c.capacity));
  p.set("seed", std::to_string(c.seed.value_or(0)));
  p.set("fingerprint_bits", std::to_string(c.fingerprint_bits));
  p.set("slots_per_bucket", std::to_string(c.slots_per_bucket));
  p.set("max_kicks", std::to_string(c.max_kicks));
  p.set("expansion", std::to_string(c.expansion));
  p.set("max_levels", std::to_string(c.max_levels));
  if (c.max_memory_bytes != 0) p.set("max_memory_bytes", std::to_string(c.max_memory_bytes));
  return p;
}

// Builds the growing filter the trace's header names and checks the trace in lock step
// against MultisetModel. Returns the first violation, or nothing when every claim held. A
// header with an unknown, malformed or out-of-range parameter is a model::TraceError.
inline std::optional<model::Violation> replay_growing(const model::Trace& trace) {
  const model::TraceParameters& p = trace.parameters;
  check_parameter_names(p, "growing", kGrowingParameters);
  return with_header_errors(p, "growing", [&]() -> std::optional<model::Violation> {
    const GrowingCuckooFilterConfig config = growing_config_from(p);
    GrowingCuckooFilter filter(config);
    GrowingFilterSubjectAdapter subject(filter);
    model::MultisetModel model;
    return model::check(subject, model, trace, *config.seed);
  });
}

}  // namespace cuckoo::subjects
