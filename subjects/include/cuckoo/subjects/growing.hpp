// GrowingCuckooFilter as a subject: the adapters for the model layer's filter checker,
// the trace-header <-> config mapping (`engine growing capacity=N seed=S
// [fingerprint_bits=12] [slots_per_bucket=4] [max_kicks=500] [expansion=2]
// [max_levels=8] [max_memory_bytes=0] [raw_keys=0]`) and replay of a growing-filter
// trace.
//
// Two adapters, chosen by the header's raw_keys parameter (0, the default, or 1):
//
// Keys every level tells apart (GrowingFilterSubjectAdapter, raw_keys=0). A CuckooFilter
// has one identity per key (fingerprint and bucket pair), under which MultisetModel's
// rules are exact. A growing filter has one per level: keys with the same item at level
// 0 may differ at newer levels, and then whether contains(y) is true after insert(x), or
// which copy erase(x) takes, depends on the levels the copies went to, which no identity
// function of the key can express. So this adapter gives each trace key, on its first
// use, the next engine key (0, 1, 2, ... in order) whose item at every level the
// configuration can build (placement_at_level) differs from that of every engine key
// given so far. On those keys the multiset rules are exact: contains must find every
// stored copy, erase succeeds iff a copy is stored, count() is the exact number of
// copies, and insert answers kDuplicateLimit iff count reaches max_copies. A
// configuration with too few identities for the keys of a trace (more than
// kMaxCandidates engine keys tried) throws std::length_error naming the key count.
//
// The trace's own keys (AliasingGrowingFilterSubjectAdapter, raw_keys=1). Keys that
// share an item at some level are allowed; with a small f (4 or 5) and tiny levels they
// are common, so erase(x) taking the copy of another key y at a newer level, the case
// the filter's nested identities make safe (growing_filter.hpp), is reached. Checked:
// contains of every stored key (C1), erase of a stored key succeeds and the size drops
// by one (C5), the size, insert refused with kDuplicateLimit exactly when the newest
// level holds its limit of the key's item, round trips (C11), and, after every op, the
// design comment's copy accounting (check_invariants below). Not checked, being inexact
// under aliasing: count() and the answers for absent keys. An erase of a key not stored
// (never inserted, or every copy erased) is outside the filter's contract (it may take
// another key's copy, as in every cuckoo filter): this adapter answers false without
// calling the filter, as the model expects.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
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

// The levels are the configuration's: 1..reachable_levels() of them, level l with
// fingerprint_bits + l bits and its nested rule, and the size is theirs summed. "" when
// all hold, else what is wrong.
template <class Filter>
std::string growing_level_invariants(const Filter& f) {
  if (f.level_count() < 1 || f.level_count() > f.reachable_levels()) {
    return std::to_string(f.level_count()) + " levels, outside 1.." + std::to_string(f.reachable_levels());
  }
  std::uint64_t size = 0;
  for (unsigned l = 0; l < f.level_count(); ++l) {  // bound: level_count()
    const auto& level = f.level(l);
    const auto want = f.level_config(l);
    if (!want || level.fingerprint_bits() != want->fingerprint_bits ||
        level.slots_per_bucket() != want->slots_per_bucket || level.seed() != f.seed() ||
        level.nested_prefix_bits() != want->nested_prefix_bits) {
      return "level " + std::to_string(l) + " has fingerprint_bits " +
             std::to_string(level.fingerprint_bits()) + " and nested_prefix_bits " +
             std::to_string(level.nested_prefix_bits()) + ", not its configuration's";
    }
    size += level.size();
  }
  if (size != f.size()) return "the levels hold " + std::to_string(size) + " copies, size() is " + std::to_string(f.size());
  return {};
}

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

  // The levels are the configuration's (growing_level_invariants). "" when all hold.
  std::string check_invariants() const { return growing_level_invariants(*filter_); }

  Filter& engine() noexcept { return *filter_; }
  // The engine key trace key `key` stands for.
  std::uint64_t engine_key(std::uint64_t key) const { return keys_.of(*filter_, key); }

 private:
  Filter* filter_;
  mutable DistinguishableKeys<Filter> keys_;
};

// The growing filter on the trace's own keys (raw_keys=1; the header comment says what is
// checked). Beside the filter it keeps the copy accounting of growing_filter.hpp's
// proof: each copy inserted and not erased is matched to one stored copy, at the level
// the insert put it in (the newest), carrying the key's item there. An erase of x that
// takes a copy at level m (the level whose size dropped) takes x's own match there if
// x has one; otherwise the copy was matched to another key y with x's item at m, and
// y takes over x's match at x's newest level j (which must be older than m) instead.
// check_invariants() compares the accounting with the levels: for every level and
// item, the copies the level holds (Level::count_hash) are exactly the copies matched
// to keys with that item there; so every stored key is found. aliased_erases() counts
// the erases that took another key's copy.
template <class Filter>
class AliasingGrowingFilterSubjectAdapter {
 public:
  explicit AliasingGrowingFilterSubjectAdapter(Filter& filter) : filter_(&filter) {}

  InsertResult insert(std::uint64_t key) {
    const InsertResult r = filter_->insert(key);
    if (r == InsertResult::kInserted) copies_[key].push_back(filter_->level_count() - 1);
    verified_ = false;
    return r;
  }
  bool contains(std::uint64_t key) const { return filter_->contains(key); }
  bool erase(std::uint64_t key) {
    const auto found = copies_.find(key);
    if (found == copies_.end()) return false;  // not stored: outside the contract
    verified_ = false;
    std::vector<std::uint64_t> sizes;
    for (unsigned l = 0; l < filter_->level_count(); ++l) sizes.push_back(filter_->level(l).size());
    if (!filter_->erase(key)) return false;  // the checker reports it (C5)
    unsigned m = 0;
    while (m < sizes.size() && filter_->level(m).size() == sizes[m]) ++m;
    if (m == sizes.size()) {
      note("erase(" + std::to_string(key) + ") answered true and no level's size dropped");
      return true;
    }
    account_erase(key, m);
    return true;
  }
  std::uint64_t size() const { return filter_->size(); }
  void clear() {
    filter_->clear();
    copies_.clear();
    verified_ = false;
  }
  // The copies insert(key) accepts now: the key's own, plus the room its item has in the
  // newest level (the filter counts other keys' copies of the item there too).
  std::uint64_t max_copies(std::uint64_t key) const {
    const auto& newest = filter_->level(filter_->level_count() - 1);
    const std::uint64_t h = filter_->hash_of(key);
    const std::uint64_t own = copies_.contains(key) ? copies_.at(key).size() : 0;
    return own + newest.max_copies_of_hash(h) - newest.count_hash(h);
  }

  model::SubjectTraits traits() const {
    model::SubjectTraits t;
    t.exact = false;
    t.allows_duplicates = true;
    t.slots_per_bucket = filter_->slots_per_bucket();
    t.fingerprint_bits = filter_->fingerprint_bits();
    return t;
  }

  bool serialize_roundtrip() {
    Filter copy = Filter::deserialize(filter_->serialize(), filter_->hasher());
    if (!(copy == *filter_)) return false;
    *filter_ = std::move(copy);
    verified_ = false;
    return true;
  }

  // The levels' invariants, then the copy accounting (see the class comment). Computed
  // again only after an insert, erase, clear or round trip.
  std::string check_invariants() const {
    if (!problem_.empty()) return problem_;
    if (verified_) return {};
    if (std::string level = growing_level_invariants(*filter_); !level.empty()) return level;
    std::map<std::pair<unsigned, std::uint64_t>, std::uint64_t> matched;  // (level, item) -> copies
    std::map<std::pair<unsigned, std::uint64_t>, std::uint64_t> hash_of_item;
    for (const auto& [key, levels] : copies_) {
      const std::uint64_t h = filter_->hash_of(key);
      for (const unsigned l : levels) {
        const std::pair<unsigned, std::uint64_t> at{l, filter_identity(*filter_->placement_at_level(l, h))};
        ++matched[at];
        hash_of_item.emplace(at, h);
      }
    }
    std::uint64_t total = 0;
    for (const auto& [at, n] : matched) {
      const std::uint64_t held = filter_->level(at.first).count_hash(hash_of_item.at(at));
      if (held != n) {
        return "level " + std::to_string(at.first) + " holds " + std::to_string(held) +
               " copies of an item that " + std::to_string(n) +
               " copies inserted and not erased are matched to (the copy accounting of "
               "growing_filter.hpp's erase proof)";
      }
      total += n;
    }
    if (total != filter_->size()) {
      return std::to_string(total) + " copies inserted and not erased, size() is " +
             std::to_string(filter_->size());
    }
    verified_ = true;
    return {};
  }

  // Erases that took a copy matched to another key (the case nesting makes safe).
  std::uint64_t aliased_erases() const noexcept { return aliased_erases_; }
  Filter& engine() noexcept { return *filter_; }

 private:
  std::uint64_t item_at(unsigned level, std::uint64_t key) const {
    return filter_identity(*filter_->placement_at_level(level, filter_->hash_of(key)));
  }

  // erase(x) took a copy at level m: update the matching (the class comment).
  void account_erase(std::uint64_t x, unsigned m) {
    std::vector<unsigned>& mine = copies_.at(x);
    const auto own = std::find(mine.begin(), mine.end(), m);
    if (own != mine.end()) {
      mine.erase(own);
    } else {
      // x's newest match j: below m, or erase skipped the newer level holding x's item.
      const auto newest = std::max_element(mine.begin(), mine.end());
      const unsigned j = *newest;
      if (j > m) {
        note("erase(" + std::to_string(x) + ") took a copy at level " + std::to_string(m) +
             " while level " + std::to_string(j) + " holds its own");
        return;
      }
      const std::uint64_t item = item_at(m, x);
      bool moved = false;
      for (auto& [y, levels] : copies_) {  // bound: the stored keys
        if (y == x) continue;
        const auto at_m = std::find(levels.begin(), levels.end(), m);
        if (at_m == levels.end() || item_at(m, y) != item) continue;
        *at_m = j;  // y takes over x's match at j
        moved = true;
        break;
      }
      if (!moved) {
        note("erase(" + std::to_string(x) + ") took a copy at level " + std::to_string(m) +
             " that no stored key with its item there was matched to");
        return;
      }
      mine.erase(newest);
      ++aliased_erases_;
    }
    if (mine.empty()) copies_.erase(x);
  }

  void note(std::string problem) {
    if (problem_.empty()) problem_ = std::move(problem);
  }

  Filter* filter_;
  std::map<std::uint64_t, std::vector<unsigned>> copies_;  // key -> levels of its matches
  std::uint64_t aliased_erases_ = 0;
  std::string problem_;
  mutable bool verified_ = false;  // check_invariants() passed since the last change
};

// The parameters growing_config_from reads: a growing trace's header holds no others.
inline constexpr std::string_view kGrowingParameters[] = {
    "capacity",  "seed",       "fingerprint_bits", "slots_per_bucket", "max_kicks",
    "expansion", "max_levels", "max_memory_bytes", "raw_keys"};

// The header's raw_keys parameter: 1 checks the trace's own keys
// (AliasingGrowingFilterSubjectAdapter), 0 or absent keys every level tells apart.
inline bool growing_raw_keys(const model::TraceParameters& p) {
  return p.has("raw_keys") && p.get_u64_in("raw_keys", 0, 1) == 1;
}

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
    model::MultisetModel model;
    if (growing_raw_keys(p)) {
      AliasingGrowingFilterSubjectAdapter subject(filter);
      return model::check(subject, model, trace, *config.seed);
    }
    GrowingFilterSubjectAdapter subject(filter);
    return model::check(subject, model, trace, *config.seed);
  });
}

}  // namespace cuckoo::subjects
