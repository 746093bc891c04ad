// Sequential specifications of one key, for the linearizability checker (claim C10).
//
// A multiset or map is linearizable iff the sub-history of every key is linearizable
// against the specification of a single key (P-compositionality: the operations on
// different keys commute and each operation names one key). So a specification here
// describes ONE key: its state is the number of copies (multiset) or the optional value
// (map), and apply() says whether an operation with its recorded result is legal in a
// state and, if so, which state follows. size() names no key; the checker handles it
// (see linearizability.hpp).
//
// Every specification is deterministic: the operation together with its result decides
// the next state. That is what lets the checker memoize (linearized set, state) pairs.
//
// What an operation returns and leaves behind is not written here: it is the model
// layer's one definition (cuckoo/model/key_semantics.hpp, which MultisetModel, MapModel
// and the lock-step checker use too), and so are the relaxations (false positives, kFull
// where something would be stored, an unknown copy limit). This header only compares a
// recorded result with that definition and words the verdict.
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "cuckoo/model/key_semantics.hpp"
#include "cuckoo/subjects/history.hpp"

namespace cuckoo::subjects {

// How an operation, given its result, changes the number of stored items. Used by the
// size() bound check, which counts the operations that must or may have taken effect.
enum class SizeEffect : std::uint8_t {
  kNone,       // leaves the count unchanged
  kAdds,       // adds exactly one item
  kRemoves,    // removes exactly one item
  kMayRemove,  // removes one item or none (erase under the aliasing relaxation)
};

// What the checker needs from a per-key specification.
//   initial()               state of a key never touched
//   apply(s, op, why)       the state after `op` (with its recorded result) in state s,
//                           or nullopt if that result is illegal in s; when `why` is not
//                           null and the result is illegal, *why says why in one sentence
//   describe(s), hash(s)    for messages and the memo table
//   supports(kind)          false for kinds the specification does not define
//   size_effect(op)         see SizeEffect
//   size_of(s)              the key's contribution to size() in state s
template <class S>
concept KeySpec = std::copyable<typename S::State> && std::equality_comparable<typename S::State> &&
    requires(const S& spec, const typename S::State& state, const Operation& op, std::string* why) {
  { spec.initial() } -> std::same_as<typename S::State>;
  { spec.apply(state, op, why) } -> std::same_as<std::optional<typename S::State>>;
  { spec.describe(state) } -> std::same_as<std::string>;
  { spec.hash(state) } -> std::same_as<std::size_t>;
  { spec.supports(op.kind) } -> std::same_as<bool>;
  { spec.size_effect(op) } -> std::same_as<SizeEffect>;
  { spec.size_of(state) } -> std::same_as<std::uint64_t>;
  { spec.name() } -> std::same_as<std::string_view>;
};

namespace detail {

inline std::size_t mix_hash(std::uint64_t x) noexcept {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  x ^= x >> 33;
  return static_cast<std::size_t>(x);
}

// Sets *why (if asked for) and returns "illegal".
template <class State>
std::optional<State> illegal(std::string* why, std::string message) {
  if (why != nullptr) *why = std::move(message);
  return std::nullopt;
}

}  // namespace detail

// A multiset of keys with the semantics of an approximate membership filter with
// duplicates (DESIGN.md, MultisetModel), or of an exact std::multiset. Per key the state
// is the number of copies stored.
//
//   insert -> inserted          adds a copy; illegal if max_copies is known and reached
//   insert -> full              always legal (the structure may be full of other keys);
//                               nothing changes
//   insert -> duplicate_limit   legal if max_copies is unknown or the count has reached it;
//                               nothing changes
//   insert -> exists / updated  illegal (no multiset returns them)
//   erase  -> true              removes a copy; on an absent key illegal unless
//                               erase_absent_may_succeed (fingerprint aliasing: the filter
//                               removed another key's equal fingerprint; this key's count
//                               stays 0)
//   erase  -> false             legal iff the key is absent
//   contains -> true            legal if present; if absent only when
//                               contains_may_be_false_positive
//   contains -> false           legal iff absent (a false negative is never allowed: C1)
class MultisetSpec {
 public:
  using State = std::uint64_t;  // copies of the key currently stored

  struct Options {
    // A filter may answer yes for an absent key (false positive).
    bool contains_may_be_false_positive = true;
    // A filter may report success when erasing a key it does not hold, because another
    // key's equal fingerprint sat in one of its buckets. Off by default: erasing an item
    // never inserted is a precondition violation for cuckoo filters, so drivers that
    // check filters erase only keys they own and know to be present.
    bool erase_absent_may_succeed = false;
    // Most copies of one key the subject may hold (cuckoo filter: 2b); unknown if empty.
    std::optional<std::uint64_t> max_copies;
  };

  // The filter semantics with default Options.
  MultisetSpec() = default;
  explicit MultisetSpec(Options options) : options_(options) {}

  // An exact multiset (std::multiset): contains is exact, erase of an absent key fails.
  static MultisetSpec exact() {
    Options options;
    options.contains_may_be_false_positive = false;
    return MultisetSpec(options);
  }

  // An approximate filter: false positives allowed; the other relaxations as given.
  static MultisetSpec filter(std::optional<std::uint64_t> max_copies = std::nullopt,
                             bool erase_absent_may_succeed = false) {
    Options options;
    options.max_copies = max_copies;
    options.erase_absent_may_succeed = erase_absent_may_succeed;
    return MultisetSpec(options);
  }

  const Options& options() const noexcept { return options_; }

  std::string_view name() const noexcept {
    return options_.contains_may_be_false_positive ? "multiset (filter semantics)"
                                                   : "multiset (exact)";
  }

  State initial() const noexcept { return 0; }

  bool supports(OpKind kind) const noexcept {
    return kind == OpKind::kInsert || kind == OpKind::kErase || kind == OpKind::kContains ||
           kind == OpKind::kSize;
  }

  std::optional<State> apply(const State& count, const Operation& op, std::string* why) const {
    namespace key = model::key;
    switch (op.kind) {
      case OpKind::kInsert: {
        const InsertOutcome outcome = std::get<InsertOutcome>(op.result);
        const key::MultisetInsert expected =
            key::multiset_insert(count, options_.max_copies.value_or(key::kNoCopyLimit));
        if (outcome == expected.result) return expected.copies;
        if (outcome == InsertOutcome::kFull && key::full_allowed_instead_of(expected.result)) {
          return count;
        }
        if (outcome == InsertOutcome::kDuplicateLimit &&
            key::duplicate_limit_allowed(count, options_.max_copies)) {
          return count;
        }
        return detail::illegal<State>(
            why, "insert returned " + std::string(to_string(outcome)) + " but the key has " +
                     std::to_string(count) + " copies" + limit_text() + " (expected " +
                     std::string(to_string(expected.result)) + ")");
      }
      case OpKind::kErase: {
        const bool erased = std::get<bool>(op.result);
        const key::Erased expected = key::multiset_erase(count);
        if (erased == expected.erased) return expected.copies;
        if (erased && options_.erase_absent_may_succeed) return count;  // aliasing
        return detail::illegal<State>(
            why, erased ? std::string("erase returned true but the key is absent")
                        : "erase returned false but the key has " + std::to_string(count) +
                              " copies");
      }
      case OpKind::kContains: {
        const bool answer = std::get<bool>(op.result);
        const bool must = key::multiset_must_contain(count);
        if (key::contains_answer_allowed(must, answer, options_.contains_may_be_false_positive)) {
          return count;
        }
        return detail::illegal<State>(
            why, answer ? std::string("contains returned true but the key is absent")
                        : "contains returned false (a false negative) but the key has " +
                              std::to_string(count) + " copies");
      }
      case OpKind::kFind:
      case OpKind::kInsertOrAssign:
      case OpKind::kSize:
      case OpKind::kUpsertAdd:
      case OpKind::kUpdateAdd:
      case OpKind::kEraseIfOdd:
      case OpKind::kUpraseDec: break;
    }
    return detail::illegal<State>(
        why, std::string(to_string(op.kind)) + " is not a per-key multiset operation");
  }

  SizeEffect size_effect(const Operation& op) const noexcept {
    if (op.kind == OpKind::kInsert &&
        std::get<InsertOutcome>(op.result) == InsertOutcome::kInserted) {
      return SizeEffect::kAdds;
    }
    if (op.kind == OpKind::kErase && std::get<bool>(op.result)) {
      return options_.erase_absent_may_succeed ? SizeEffect::kMayRemove : SizeEffect::kRemoves;
    }
    return SizeEffect::kNone;
  }

  std::uint64_t size_of(const State& count) const noexcept { return count; }
  std::string describe(const State& count) const { return std::to_string(count) + " copies"; }
  std::size_t hash(const State& count) const noexcept { return detail::mix_hash(count); }

 private:
  std::string limit_text() const {
    return options_.max_copies ? ", the limit is " + std::to_string(*options_.max_copies)
                               : std::string(", the limit unknown");
  }

  Options options_;
};

// An exact map from key to value (CuckooMap, ClassicCuckoo, SmartCuckoo; DESIGN.md
// MapModel). Per key the state is the value, or none when absent.
//
//   insert(k, v)           inserted iff absent (then holds v); exists iff present
//                          (unchanged); full only when absent (unchanged)
//   insert_or_assign(k, v) inserted iff absent, updated iff present (holds v either way);
//                          full only when absent (unchanged)
//   erase(k)               true iff present (then absent)
//   find(k)                the value iff present, none iff absent
//   contains(k)            true iff present
//   upsert_add(k, v)       updated iff present (holds value + v); inserted iff absent
//                          (holds v); full only when absent (unchanged)
//   uprase_dec(k, v)       updated iff present (holds value - 1, absent if that is 0);
//                          otherwise as upsert_add
//   update_add(k, v)       true iff present (then holds value + v)
//   erase_if_odd(k)        true iff present (then absent if the value was odd)
// Exact: no relaxation. "full" on a present key is illegal because an exact table looks
// the key up before it looks for room.
class MapSpec {
 public:
  using State = std::optional<std::uint64_t>;

  std::string_view name() const noexcept { return "map"; }
  State initial() const noexcept { return std::nullopt; }

  bool supports(OpKind kind) const noexcept {
    (void)kind;
    return true;
  }

  std::optional<State> apply(const State& value, const Operation& op, std::string* why) const {
    namespace key = model::key;
    switch (op.kind) {
      case OpKind::kInsert: return judge_write(value, op, key::map_insert(value, op.value), why);
      case OpKind::kInsertOrAssign:
        return judge_write(value, op, key::map_insert_or_assign(value, op.value), why);
      case OpKind::kUpsertAdd:
        return judge_write(value, op, key::map_upsert_add(value, op.value), why);
      case OpKind::kUpraseDec:
        return judge_write(value, op, key::map_uprase_dec(value, op.value), why);
      case OpKind::kErase: return judge_bool(value, op, key::map_erase(value), why);
      case OpKind::kUpdateAdd: return judge_bool(value, op, key::map_update_add(value, op.value), why);
      case OpKind::kEraseIfOdd: return judge_bool(value, op, key::map_erase_if_odd(value), why);
      case OpKind::kContains: {
        const key::MapErase expected{key::map_contains(value), value};
        return judge_bool(value, op, expected, why);
      }
      case OpKind::kFind: {
        const auto& found = std::get<std::optional<std::uint64_t>>(op.result);
        if (found == key::map_find(value)) return value;
        return detail::illegal<State>(
            why, "find returned " + (found ? std::to_string(*found) : std::string("none")) +
                     " but the key " + describe(value));
      }
      case OpKind::kSize: break;
    }
    return detail::illegal<State>(why, "size is not a per-key map operation");
  }

  SizeEffect size_effect(const Operation& op) const noexcept {
    const bool inserts = op.kind == OpKind::kInsert || op.kind == OpKind::kInsertOrAssign ||
                         op.kind == OpKind::kUpsertAdd || op.kind == OpKind::kUpraseDec;
    if (inserts && std::get<InsertOutcome>(op.result) == InsertOutcome::kInserted) {
      return SizeEffect::kAdds;
    }
    if (op.kind == OpKind::kErase && std::get<bool>(op.result)) return SizeEffect::kRemoves;
    // Whether these remove depends on the value they saw.
    if (op.kind == OpKind::kEraseIfOdd && std::get<bool>(op.result)) return SizeEffect::kMayRemove;
    if (op.kind == OpKind::kUpraseDec &&
        std::get<InsertOutcome>(op.result) == InsertOutcome::kUpdated) {
      return SizeEffect::kMayRemove;
    }
    return SizeEffect::kNone;
  }

  std::uint64_t size_of(const State& value) const noexcept { return value ? 1 : 0; }

  std::string describe(const State& value) const {
    return value ? "holds " + std::to_string(*value) : std::string("absent");
  }

  std::size_t hash(const State& value) const noexcept {
    return value ? detail::mix_hash(*value) : std::size_t{0x5bd1e995};
  }

 private:
  // An insert-like operation: legal iff it returned the sequential answer (then the
  // state it leaves), or kFull where that answer would have stored the key (unchanged).
  std::optional<State> judge_write(const State& value, const Operation& op,
                                   const model::key::MapWrite& expected, std::string* why) const {
    const InsertOutcome outcome = std::get<InsertOutcome>(op.result);
    if (outcome == expected.result) return expected.value;
    if (outcome == InsertOutcome::kFull && model::key::full_allowed_instead_of(expected.result)) {
      return value;
    }
    return detail::illegal<State>(why, std::string(to_string(op.kind)) + " returned " +
                                           std::string(to_string(outcome)) + " but the key " +
                                           describe(value) + " (expected " +
                                           std::string(to_string(expected.result)) + ")");
  }

  // An operation that returns whether the key was there: legal iff it matches.
  std::optional<State> judge_bool(const State& value, const Operation& op,
                                  const model::key::MapErase& expected, std::string* why) const {
    const bool answer = std::get<bool>(op.result);
    if (answer == expected.result) return expected.value;
    return detail::illegal<State>(why, std::string(to_string(op.kind)) + " returned " +
                                           (answer ? "true" : "false") + " but the key " +
                                           describe(value));
  }
};

static_assert(KeySpec<MultisetSpec>);
static_assert(KeySpec<MapSpec>);

}  // namespace cuckoo::subjects
