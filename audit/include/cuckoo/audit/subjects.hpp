// Adapters that present the project's engines as subjects of the model layer's checkers
// (cuckoo/model/subject.hpp): FilterSubject for the cuckoo filter, MapSubject for the
// exact tables. Each adapter holds a reference to an engine the caller owns, answers in
// std::uint64_t keys and values, and supplies the optional customization points the
// checkers use: traits(), identity() and max_copies() for filters, contains(),
// insert_or_assign(), check_invariants() for tables, and serialize_roundtrip() where the
// engine serializes.
//
// A user auditing another implementation writes the same kind of adapter for it.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>

#include "cuckoo/bloom_filter.hpp"
#include "cuckoo/classic_cuckoo.hpp"
#include "cuckoo/cuckoo_filter.hpp"
#include "cuckoo/cuckoo_map.hpp"
#include "cuckoo/model/subject.hpp"
#include "cuckoo/smart_cuckoo.hpp"

namespace cuckoo::audit {

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

// CuckooMap, ClassicCuckoo and SmartCuckoo with 64-bit keys and values.
// has_growth_limit: whether kFull is a legitimate answer for this configuration (a
// capped map, a classic table with the report policy, a SmartCuckoo whose stash can
// fill); the checker treats kFull as a C7 violation otherwise.
template <class Table>
class MapSubjectAdapter {
 public:
  MapSubjectAdapter(Table& table, bool has_growth_limit) noexcept
      : table_(&table), has_growth_limit_(has_growth_limit) {}

  InsertResult insert(std::uint64_t key, std::uint64_t value) {
    return table_->insert(key, value);
  }
  InsertResult insert_or_assign(std::uint64_t key, std::uint64_t value) {
    return table_->insert_or_assign(key, value);
  }
  const std::uint64_t* find(std::uint64_t key) const {
    return std::as_const(*table_).find(key);
  }
  bool contains(std::uint64_t key) const { return table_->contains(key); }
  bool erase(std::uint64_t key) { return table_->erase(key); }
  std::uint64_t size() const { return table_->size(); }
  void clear() { table_->clear(); }

  model::SubjectTraits traits() const {
    model::SubjectTraits t = model::default_map_traits();
    t.has_growth_limit = has_growth_limit_;
    return t;
  }

  // "" when the table's own invariant check passes, else what is wrong.
  std::string check_invariants() const {
    if constexpr (requires { { table_->check_invariants() } -> std::same_as<std::string>; }) {
      return table_->check_invariants();
    } else {
      const std::optional<std::string> problem = table_->invariant_violation();
      return problem ? *problem : std::string();
    }
  }

  // Only the tables that serialize (CuckooMap) offer the round trip.
  bool serialize_roundtrip()
    requires requires(const Table& t) { t.serialize(); }
  {
    Table copy = Table::deserialize(table_->serialize(), table_->hash_function());
    if (!(copy == *table_)) return false;
    *table_ = std::move(copy);
    return true;
  }

  Table& engine() noexcept { return *table_; }

 private:
  Table* table_;
  bool has_growth_limit_;
};

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

}  // namespace cuckoo::audit
