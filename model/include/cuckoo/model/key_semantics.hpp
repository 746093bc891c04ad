// The sequential semantics of ONE key: the single definition of what each operation
// returns and leaves behind, for a multiset (filter semantics) and for an exact map.
//
// Everything that judges answers is built on these functions: MultisetModel and MapModel
// (one call per operation on the key's current state), the lock-step checker
// (checker.hpp), and the per-key specifications of the linearizability checker
// (subjects/specs.hpp), which need exactly this per-key form because a multiset or map
// history is linearizable iff the sub-history of every key is.
//
// The relaxations a correct subject may take are here too, stated once:
//   - a filter's contains may say yes for a key that is absent (a false positive, C2),
//     never no for one that is present (C1);
//   - an insert that would store something may instead answer kFull and change nothing
//     (C6; an exact table only where it has a growth limit, which the caller decides);
//   - where the copy limit is unknown (a concurrent history does not know it per key),
//     kDuplicateLimit is legal at any count and changes nothing.
//
// Pure functions of (state, arguments); no allocation; thread safety: none needed.
#pragma once

#include <cstdint>
#include <optional>

#include "cuckoo/model/insert_result.hpp"

namespace cuckoo::model::key {

// ---- multiset: the state is the number of stored copies of the key's identity ----

using Copies = std::uint64_t;

// max_copies meaning "no duplicate limit".
inline constexpr Copies kNoCopyLimit = ~Copies{0};

struct MultisetInsert {
  InsertResult result;  // kInserted or kDuplicateLimit
  Copies copies;        // the state after the insert
};

// insert: one more copy, unless the identity already has max_copies copies.
constexpr MultisetInsert multiset_insert(Copies copies, Copies max_copies) noexcept {
  if (copies >= max_copies) return {InsertResult::kDuplicateLimit, copies};
  return {InsertResult::kInserted, copies + 1};
}

struct Erased {
  bool erased;    // what erase returns
  Copies copies;  // the state after it
};

// erase: removes one copy; false and nothing changed when there is none.
constexpr Erased multiset_erase(Copies copies) noexcept {
  if (copies == 0) return {false, 0};
  return {true, copies - 1};
}

// contains: must the filter say yes? Iff a copy of the identity is stored.
constexpr bool multiset_must_contain(Copies copies) noexcept { return copies > 0; }

// ---- map: the state is the key's value, or none when absent ----

using Value = std::optional<std::uint64_t>;

struct MapWrite {
  InsertResult result;  // what the operation returns
  Value value;          // the state after it
};

struct MapErase {
  bool result;  // what the operation returns
  Value value;  // the state after it
};

// insert(k, v): kInserted (now v) iff absent; kExists (unchanged) iff present.
constexpr MapWrite map_insert(const Value& current, std::uint64_t value) noexcept {
  if (current) return {InsertResult::kExists, current};
  return {InsertResult::kInserted, value};
}

// insert_or_assign(k, v): kInserted iff absent, kUpdated iff present; v either way.
constexpr MapWrite map_insert_or_assign(const Value& current, std::uint64_t value) noexcept {
  return {current ? InsertResult::kUpdated : InsertResult::kInserted, value};
}

// erase(k): true iff present; absent afterwards.
constexpr MapErase map_erase(const Value& current) noexcept { return {current.has_value(), {}}; }

// find(k): the value iff present. contains(k): present.
constexpr Value map_find(const Value& current) noexcept { return current; }
constexpr bool map_contains(const Value& current) noexcept { return current.has_value(); }

// The concurrent maps' read-modify-write operations (upsert, update_fn, erase_fn,
// uprase_fn), each with one fixed function so that a history can be judged:
// upsert_add(k, v): kUpdated (value + v) iff present, else kInserted (v).
constexpr MapWrite map_upsert_add(const Value& current, std::uint64_t value) noexcept {
  if (current) return {InsertResult::kUpdated, *current + value};
  return {InsertResult::kInserted, value};
}

// uprase_dec(k, v): kUpdated (value - 1, absent when that is 0) iff present, else
// kInserted (v).
constexpr MapWrite map_uprase_dec(const Value& current, std::uint64_t value) noexcept {
  if (!current) return {InsertResult::kInserted, value};
  if (*current == 1) return {InsertResult::kUpdated, std::nullopt};
  return {InsertResult::kUpdated, *current - 1};
}

// update_add(k, v): true (value + v) iff present; nothing changes when absent.
constexpr MapErase map_update_add(const Value& current, std::uint64_t value) noexcept {
  if (!current) return {false, current};
  return {true, *current + value};
}

// erase_if_odd(k): true iff present; then absent if the value was odd.
constexpr MapErase map_erase_if_odd(const Value& current) noexcept {
  if (!current) return {false, current};
  if (*current % 2 == 1) return {true, std::nullopt};
  return {true, current};
}

// ---- the relaxations ----

// May a subject answer `answer` to contains when the model says must_contain? A filter
// may add false positives; an exact structure answers exactly.
constexpr bool contains_answer_allowed(bool must_contain, bool answer,
                                       bool false_positives_allowed) noexcept {
  if (answer == must_contain) return true;
  return answer && false_positives_allowed;
}

// May an insert whose sequential answer is `expected` answer kFull instead, changing
// nothing? Only where it would have stored something: a present map key is found before
// any room is looked for, and a copy limit is checked before any kick.
constexpr bool full_allowed_instead_of(InsertResult expected) noexcept {
  return expected == InsertResult::kInserted;
}

// May an insert answer kDuplicateLimit with `copies` stored? With a known limit, iff the
// sequential answer says so; with an unknown one (nullopt), always.
constexpr bool duplicate_limit_allowed(Copies copies, std::optional<Copies> max_copies) noexcept {
  if (!max_copies) return true;
  return multiset_insert(copies, *max_copies).result == InsertResult::kDuplicateLimit;
}

}  // namespace cuckoo::model::key
