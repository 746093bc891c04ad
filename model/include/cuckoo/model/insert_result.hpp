// The outcome of an insert, as the models and the trace format name it.
//
// The model layer does not include the engine's headers, so it has its own enum with
// the same enumerators and the same names as cuckoo::InsertResult (engine/include/
// cuckoo/status.hpp). Any enum whose values have a `to_string` found by argument-
// dependent lookup that returns one of these names is an InsertOutcome, and
// to_model_result() converts it by name. That is how an engine's insert can be checked
// directly, without an adapter.
#pragma once

#include <array>
#include <concepts>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>

namespace cuckoo::model {

enum class InsertResult : std::uint8_t {
  kInserted,        // the item is now stored (a new copy for filters, a new key for maps)
  kUpdated,         // maps, insert_or_assign: the key existed and its value was replaced
  kExists,          // maps, insert: the key existed; nothing changed
  kFull,            // no room; nothing changed
  kDuplicateLimit,  // filters: the item's identity already has the maximum number of
                    // copies; nothing changed
};

inline constexpr std::array<InsertResult, 5> kAllInsertResults = {
    InsertResult::kInserted, InsertResult::kUpdated, InsertResult::kExists,
    InsertResult::kFull, InsertResult::kDuplicateLimit};

// The names used by the engine and by the trace format.
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

// The InsertResult named `name`, or nothing when `name` is none of the five names.
constexpr std::optional<InsertResult> parse_insert_result(std::string_view name) noexcept {
  for (const InsertResult r : kAllInsertResults) {
    if (to_string(r) == name) return r;
  }
  return std::nullopt;
}

// A type an insert may return: this enum, or another enum with an ADL `to_string`.
template <class R>
concept InsertOutcome =
    std::same_as<std::remove_cvref_t<R>, InsertResult> ||
    (std::is_enum_v<std::remove_cvref_t<R>> && requires(const std::remove_cvref_t<R>& r) {
      { to_string(r) } -> std::convertible_to<std::string_view>;
    });

// Converts an InsertOutcome to the model's enum by name.
// Throws std::invalid_argument when the name is none of the five (an adapter bug).
template <InsertOutcome R>
InsertResult to_model_result(const R& r) {
  if constexpr (std::same_as<std::remove_cvref_t<R>, InsertResult>) {
    return r;
  } else {
    const std::string_view name = to_string(r);
    if (const std::optional<InsertResult> parsed = parse_insert_result(name)) return *parsed;
    throw std::invalid_argument("insert outcome '" + std::string(name) +
                                "' is none of inserted, updated, exists, full, "
                                "duplicate_limit");
  }
}

}  // namespace cuckoo::model
