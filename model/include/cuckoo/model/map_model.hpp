// MapModel: the executable specification of an exact key -> value table (CuckooMap,
// ClassicCuckoo, SmartCuckoo). A std::map; every answer of a correct table equals the
// model's (claim C7), except that a table with a growth limit may refuse to insert a new
// key with kFull (the checker decides when that is allowed, see checker.hpp).
//
// Thread safety: none; one model per checker.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>

#include "cuckoo/model/insert_result.hpp"
#include "cuckoo/model/key_semantics.hpp"

namespace cuckoo::model {

class MapModel {
 public:
  // kInserted when `key` was absent (now maps to `value`); kExists when it was present
  // (its value is left unchanged).
  InsertResult insert(std::uint64_t key, std::uint64_t value);
  // kInserted when `key` was absent, kUpdated when it was present; either way `key`
  // now maps to `value`.
  InsertResult insert_or_assign(std::uint64_t key, std::uint64_t value);

  // The value of `key`, or nothing when absent.
  std::optional<std::uint64_t> find(std::uint64_t key) const;
  bool contains(std::uint64_t key) const;

  // Removes `key`; false (nothing changed) when it was absent.
  bool erase(std::uint64_t key);

  std::size_t size() const noexcept { return entries_.size(); }
  bool empty() const noexcept { return entries_.empty(); }
  void clear() noexcept { entries_.clear(); }

  const std::map<std::uint64_t, std::uint64_t>& entries() const noexcept { return entries_; }

 private:
  std::map<std::uint64_t, std::uint64_t> entries_;
};

}  // namespace cuckoo::model
