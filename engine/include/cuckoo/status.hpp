// Outcomes of the engines' operations. Operations return outcomes, not exceptions:
// exceptions are reserved for invalid configuration (ConfigError) and malformed
// serialized bytes (DeserializeError), see error.hpp.
#pragma once

#include "detail/platform.hpp"

#include <cstdint>
#include <string_view>

namespace cuckoo {

/// The outcome of an insert. Operations return outcomes, not exceptions.
enum class InsertResult : std::uint8_t {
  kInserted,        ///< the item is now stored (a new copy for filters, a new key for tables)
  kUpdated,         ///< exact tables, insert_or_assign: the key existed and its value was replaced
  kExists,          ///< exact tables, insert: the key existed; nothing changed
  kFull,            ///< no room (kick bound, stash full, or growth limit); nothing changed
  kDuplicateLimit,  ///< filters: the item's candidate slots already hold the maximum number
                    // of copies of its fingerprint (2b, or b when both buckets coincide);
                    // nothing changed
};

/// The outcome's name ("inserted", "updated", "exists", "full", "duplicate_limit").
constexpr std::string_view to_string(InsertResult r) noexcept {
  switch (r) {
    case InsertResult::kInserted: return "inserted";
    case InsertResult::kUpdated: return "updated";
    case InsertResult::kExists: return "exists";
    case InsertResult::kFull: return "full";
    case InsertResult::kDuplicateLimit: return "duplicate_limit";
  }
  return "unknown";
}

/// True for the outcomes after which the item is present.
constexpr bool succeeded(InsertResult r) noexcept {
  return r == InsertResult::kInserted || r == InsertResult::kUpdated ||
         r == InsertResult::kExists;
}

}  // namespace cuckoo
