// Subjects: what the checker (checker.hpp) and the harnesses drive. A subject is an
// engine, an adapter around someone else's implementation, or a test double, operating
// on std::uint64_t keys (and values, for maps). It is described by member functions,
// checked with concepts; nothing needs to derive from anything.
//
// Required members (FilterSubject / MapSubject):
//
//   filter                              map
//   insert(key)       -> InsertOutcome  insert(key, value) -> InsertOutcome
//   contains(key)     -> bool-like      find(key)          -> FoundValue
//   erase(key)        -> bool-like      erase(key)         -> bool-like
//   size()            -> integer        size()             -> integer
//
// InsertOutcome is cuckoo::model::InsertResult or any enum with an ADL to_string() that
// names the outcome (so cuckoo::InsertResult works as it is). FoundValue is anything
// testable as bool and dereferenceable to an integer: std::optional<std::uint64_t>,
// const std::uint64_t*.
//
// Optional members, detected with `requires` (customization points):
//
//   traits()                  -> SubjectTraits   what the subject claims (see below)
//   identity(key)             -> integer         filters: keys with equal identities are
//                                                indistinguishable to the subject (for a
//                                                partial-key cuckoo filter: fingerprint
//                                                and smaller bucket index); see
//                                                multiset_model.hpp for the rules
//   has_identity()            -> bool            with identity(): false when identity() is
//                                                not available for this instance (an
//                                                external subject that did not declare
//                                                it); identity() is then not called
//   max_copies(key)           -> integer         filters: copies of key's identity it can
//                                                hold (2b; b when both buckets coincide)
//   count(key)                -> integer         filters: copies of key's identity it
//                                                holds, to verify erase by count
//   contains(key)             -> bool-like       maps (else find() answers contains ops)
//   insert_or_assign(key, v)  -> InsertOutcome   maps
//   serialize_roundtrip()     -> void or bool    serialize, deserialize, and continue
//                                                with the copy; false or an exception
//                                                means it failed
//   clear()                                      remove everything
//   check_invariants()        -> void, bool or   internal consistency after each op:
//                                std::string     false, a non-empty description or an
//                                                exception means broken
//
// An engine that lacks a member, or spells it differently, gets a thin adapter struct
// with these members forwarding to it.
#pragma once

#include <concepts>
#include <cstdint>
#include <exception>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "cuckoo/model/insert_result.hpp"
#include "cuckoo/model/multiset_model.hpp"
#include "cuckoo/model/op.hpp"

namespace cuckoo::model {

// What a subject claims about itself; the checker judges it against these claims.
struct SubjectTraits {
  // contains() never answers yes for an item whose identity is not stored (no false
  // positives). Checked as C2 (a false positive rate of 0).
  bool exact = false;
  // Filters: inserting a stored item stores another copy (up to max_copies). When
  // false the filter has set semantics: inserting an item whose identity is stored must
  // return kExists and store nothing.
  bool allows_duplicates = true;
  // b and f, as far as they apply (0: unknown or not applicable). slots_per_bucket sets
  // the default duplicate limit.
  unsigned slots_per_bucket = 0;
  unsigned fingerprint_bits = 0;
  // Filters: the duplicate limit when the subject has no max_copies(key).
  // 0: 2 * slots_per_bucket, or no limit when slots_per_bucket is 0.
  std::uint64_t max_copies = 0;
  // Maps: insert and insert_or_assign may return kFull for a new key (no resize, or a
  // capped one). Without it, kFull from a map is a C7 violation. Filters may always
  // return kFull.
  bool has_growth_limit = false;

  friend bool operator==(const SubjectTraits&, const SubjectTraits&) = default;
};

// What is assumed of a subject without traits(): an approximate filter with duplicates.
constexpr SubjectTraits default_filter_traits() noexcept { return SubjectTraits{}; }
// What is assumed of a map without traits(): exact, no duplicates, no growth limit.
constexpr SubjectTraits default_map_traits() noexcept {
  SubjectTraits traits;
  traits.exact = true;
  traits.allows_duplicates = false;
  return traits;
}

template <class R>
concept FoundValue = requires(const R& r) {
  static_cast<bool>(r);
  { *r } -> std::convertible_to<std::uint64_t>;
};

template <class S>
concept FilterSubject = requires(S& s, std::uint64_t key) {
  { s.insert(key) } -> InsertOutcome;
  { s.contains(key) } -> std::convertible_to<bool>;
  { s.erase(key) } -> std::convertible_to<bool>;
  { s.size() } -> std::convertible_to<std::uint64_t>;
};

template <class S>
concept MapSubject = requires(S& s, std::uint64_t key, std::uint64_t value) {
  { s.insert(key, value) } -> InsertOutcome;
  { s.find(key) } -> FoundValue;
  { s.erase(key) } -> std::convertible_to<bool>;
  { s.size() } -> std::convertible_to<std::uint64_t>;
};

// ---- Customization points ----

template <class S>
concept HasTraits = requires(S& s) {
  { s.traits() } -> std::convertible_to<SubjectTraits>;
};
template <class S>
concept HasIdentity = requires(S& s, std::uint64_t key) {
  { s.identity(key) } -> std::convertible_to<std::uint64_t>;
};
// identity() exists and, if the subject says whether it is available (has_identity()),
// it is.
template <class S>
bool identity_available(S& s) {
  if constexpr (!HasIdentity<S>) {
    (void)s;
    return false;
  } else if constexpr (requires { { s.has_identity() } -> std::convertible_to<bool>; }) {
    return static_cast<bool>(s.has_identity());
  } else {
    return true;
  }
}
template <class S>
concept HasMaxCopies = requires(S& s, std::uint64_t key) {
  { s.max_copies(key) } -> std::convertible_to<std::uint64_t>;
};
template <class S>
concept HasCount = requires(S& s, std::uint64_t key) {
  { s.count(key) } -> std::convertible_to<std::uint64_t>;
};
template <class S>
concept HasContains = requires(S& s, std::uint64_t key) {
  { s.contains(key) } -> std::convertible_to<bool>;
};
template <class S>
concept HasInsertOrAssign = requires(S& s, std::uint64_t key, std::uint64_t value) {
  { s.insert_or_assign(key, value) } -> InsertOutcome;
};
template <class S>
concept HasSerializeRoundtrip = requires(S& s) { s.serialize_roundtrip(); };
template <class S>
concept HasClear = requires(S& s) { s.clear(); };
template <class S>
concept HasCheckInvariants = requires(S& s) { s.check_invariants(); };

// The subject's traits(), or `fallback` when it has none.
template <class S>
SubjectTraits traits_of(S& subject, const SubjectTraits& fallback) {
  if constexpr (HasTraits<S>) {
    return static_cast<SubjectTraits>(subject.traits());
  } else {
    return fallback;
  }
}

// The duplicate limit for key's identity: max_copies(key) if the subject has it, else
// traits.max_copies, else 2 * traits.slots_per_bucket, else no limit.
template <class S>
std::uint64_t max_copies_of(S& subject, const SubjectTraits& traits, std::uint64_t key) {
  if constexpr (HasMaxCopies<S>) {
    return static_cast<std::uint64_t>(subject.max_copies(key));
  } else {
    (void)subject;
    (void)key;
    if (traits.max_copies != 0) return traits.max_copies;
    if (traits.slots_per_bucket != 0) return 2ULL * traits.slots_per_bucket;
    return MultisetModel::kNoCopyLimit;
  }
}

// find()'s answer as an optional value.
template <FoundValue R>
std::optional<std::uint64_t> to_optional_value(const R& found) {
  if (!static_cast<bool>(found)) return std::nullopt;
  return static_cast<std::uint64_t>(*found);
}

// Runs serialize_roundtrip(). Returns nothing on success, else what went wrong (it
// returned false, or threw). REQUIRES: HasSerializeRoundtrip<S>.
template <HasSerializeRoundtrip S>
std::optional<std::string> run_serialize_roundtrip(S& subject) {
  try {
    if constexpr (std::convertible_to<decltype(subject.serialize_roundtrip()), bool>) {
      if (!static_cast<bool>(subject.serialize_roundtrip())) {
        return "serialize_roundtrip() returned false";
      }
    } else {
      subject.serialize_roundtrip();
    }
  } catch (const std::exception& e) {
    return std::string("serialize_roundtrip() threw: ") + e.what();
  }
  return std::nullopt;
}

// Runs check_invariants() if the subject has it. Returns nothing when the invariants
// hold (or there is no hook), else the description of the failure.
template <class S>
std::optional<std::string> run_invariant_check(S& subject) {
  if constexpr (HasCheckInvariants<S>) {
    using Result = decltype(subject.check_invariants());
    try {
      if constexpr (std::is_void_v<Result>) {
        subject.check_invariants();
      } else if constexpr (std::same_as<std::remove_cvref_t<Result>, bool>) {
        if (!subject.check_invariants()) return "check_invariants() returned false";
      } else {
        const std::string problem(subject.check_invariants());
        if (!problem.empty()) return problem;
      }
    } catch (const std::exception& e) {
      return std::string("check_invariants() threw: ") + e.what();
    }
  } else {
    (void)subject;
  }
  return std::nullopt;
}

// Can a filter / map subject of type S perform ops of this kind?
template <FilterSubject S>
constexpr bool filter_supports(OpKind kind) noexcept {
  switch (kind) {
    case OpKind::kInsert:
    case OpKind::kContains:
    case OpKind::kErase:
    case OpKind::kSize: return true;
    case OpKind::kSerializeRoundtrip: return HasSerializeRoundtrip<S>;
    case OpKind::kClear: return HasClear<S>;
    case OpKind::kInsertOrAssign:
    case OpKind::kFind: return false;  // filters hold no values
  }
  return false;
}

template <MapSubject S>
constexpr bool map_supports(OpKind kind) noexcept {
  switch (kind) {
    case OpKind::kInsert:
    case OpKind::kContains:
    case OpKind::kFind:
    case OpKind::kErase:
    case OpKind::kSize: return true;
    case OpKind::kInsertOrAssign: return HasInsertOrAssign<S>;
    case OpKind::kSerializeRoundtrip: return HasSerializeRoundtrip<S>;
    case OpKind::kClear: return HasClear<S>;
  }
  return false;
}

// Applies one op to a filter subject and returns what it observed (for recording a
// trace with "=> result"; the checker judges results itself). An insert's value is
// ignored. Throws std::invalid_argument for an op the subject cannot perform and
// std::runtime_error when serialize_roundtrip fails.
template <FilterSubject S>
OpResult apply_filter_op(S& subject, const Op& op) {
  switch (op.kind) {
    case OpKind::kInsert: return OpResult::of_insert(to_model_result(subject.insert(op.key)));
    case OpKind::kContains: return OpResult::of_bool(static_cast<bool>(subject.contains(op.key)));
    case OpKind::kErase: return OpResult::of_bool(static_cast<bool>(subject.erase(op.key)));
    case OpKind::kSize: return OpResult::of_size(static_cast<std::uint64_t>(subject.size()));
    case OpKind::kSerializeRoundtrip:
      if constexpr (HasSerializeRoundtrip<S>) {
        if (const auto problem = run_serialize_roundtrip(subject)) throw std::runtime_error(*problem);
        return OpResult::none();
      }
      break;
    case OpKind::kClear:
      if constexpr (HasClear<S>) {
        subject.clear();
        return OpResult::none();
      }
      break;
    case OpKind::kInsertOrAssign:
    case OpKind::kFind: break;
  }
  throw std::invalid_argument("the filter subject cannot perform '" + to_string(op) + "'");
}

// Applies one op to a map subject and returns what it observed. Throws as
// apply_filter_op does.
template <MapSubject S>
OpResult apply_map_op(S& subject, const Op& op) {
  switch (op.kind) {
    case OpKind::kInsert:
      return OpResult::of_insert(to_model_result(subject.insert(op.key, op.value)));
    case OpKind::kInsertOrAssign:
      if constexpr (HasInsertOrAssign<S>) {
        return OpResult::of_insert(to_model_result(subject.insert_or_assign(op.key, op.value)));
      }
      break;
    case OpKind::kContains:
      if constexpr (HasContains<S>) {
        return OpResult::of_bool(static_cast<bool>(subject.contains(op.key)));
      } else {
        return OpResult::of_bool(to_optional_value(subject.find(op.key)).has_value());
      }
    case OpKind::kFind: return OpResult::of_find(to_optional_value(subject.find(op.key)));
    case OpKind::kErase: return OpResult::of_bool(static_cast<bool>(subject.erase(op.key)));
    case OpKind::kSize: return OpResult::of_size(static_cast<std::uint64_t>(subject.size()));
    case OpKind::kSerializeRoundtrip:
      if constexpr (HasSerializeRoundtrip<S>) {
        if (const auto problem = run_serialize_roundtrip(subject)) throw std::runtime_error(*problem);
        return OpResult::none();
      }
      break;
    case OpKind::kClear:
      if constexpr (HasClear<S>) {
        subject.clear();
        return OpResult::none();
      }
      break;
  }
  throw std::invalid_argument("the map subject cannot perform '" + to_string(op) + "'");
}

}  // namespace cuckoo::model
