// The adapter that presents an exact table (CuckooMap, ClassicCuckoo, SmartCuckoo, or a
// user's) as a subject of the model layer's map checker (cuckoo/model/subject.hpp). It
// includes no engine: each engine's subject header brings its own.
#pragma once

#include <concepts>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include "cuckoo/model/subject.hpp"

namespace cuckoo::subjects {

// CuckooMap, ClassicCuckoo and SmartCuckoo with 64-bit keys and values.
// has_growth_limit: whether kFull is a legitimate answer for this configuration (a
// capped map, a classic table with the report policy, a SmartCuckoo whose stash can
// fill); the checker treats kFull as a C7 violation otherwise.
template <class Table>
class MapSubjectAdapter {
 public:
  MapSubjectAdapter(Table& table, bool has_growth_limit) noexcept
      : table_(&table), has_growth_limit_(has_growth_limit) {}

  // CuckooMap answers with outcomes through insert_outcome / insert_or_assign_outcome /
  // find_value (its insert, insert_or_assign and find are the standard containers');
  // the other tables through insert / insert_or_assign / find.
  InsertResult insert(std::uint64_t key, std::uint64_t value) {
    if constexpr (requires { table_->insert_outcome(key, value); }) {
      return table_->insert_outcome(key, value);
    } else {
      return table_->insert(key, value);
    }
  }
  InsertResult insert_or_assign(std::uint64_t key, std::uint64_t value) {
    if constexpr (requires { table_->insert_or_assign_outcome(key, value); }) {
      return table_->insert_or_assign_outcome(key, value);
    } else {
      return table_->insert_or_assign(key, value);
    }
  }
  const std::uint64_t* find(std::uint64_t key) const {
    if constexpr (requires { std::as_const(*table_).find_value(key); }) {
      return std::as_const(*table_).find_value(key);
    } else {
      return std::as_const(*table_).find(key);
    }
  }
  bool contains(std::uint64_t key) const { return table_->contains(key); }
  bool erase(std::uint64_t key) { return static_cast<bool>(table_->erase(key)); }
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

}  // namespace cuckoo::subjects
