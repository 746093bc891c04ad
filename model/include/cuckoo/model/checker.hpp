// The lock-step checker: applies a trace's ops to a subject and to its model, one op at
// a time, and returns the first violation of a claim, or nothing when the subject kept
// every claim. The results recorded in the trace ("=> result") are not consulted: the
// model is the oracle.
//
// Filters (FilterSubject against MultisetModel). Let copies(k) be the model's
// identity_count(k) before the op and limit(k) the duplicate limit (max_copies_of):
//   insert k    allows_duplicates: kDuplicateLimit iff copies(k) >= limit(k) (C5);
//               otherwise kInserted or kFull (C5).
//               set semantics: kExists iff copies(k) > 0, otherwise kInserted or kFull.
//               after kFull: size unchanged and every stored key still found, and still
//               counted when the subject has count() (C6).
//               after kDuplicateLimit / kExists: size unchanged (C5).
//   contains k  true when copies(k) > 0 (C1); false when copies(k) == 0 and the subject
//               is exact (C2).
//   erase k     true iff copies(k) > 0, then the size drops by exactly one (C5), and
//               count(k) equals the model's when the subject has count() (C5).
//   size        equals the model's ("size"); also checked after every insert and clear.
//   serialize_roundtrip   first, every stored key must be found already (C1) and the
//               size right ("size"); then the round trip succeeds, the size is unchanged,
//               every stored key is found, and every key the trace mentions gets the same
//               contains() answer (and count) as before (C11).
//   clear       size 0 afterwards ("size").
//   after each op, check_invariants() if the subject has it ("invariant").
// If the subject has identity(key) and the model has no identity of its own, the model
// uses the subject's identity for the duration of the check.
//
// Maps (MapSubject against MapModel): every insert / insert_or_assign outcome, find
// value, contains answer, erase answer and size equals the model's (C7), except that a
// subject whose traits say has_growth_limit may answer kFull for a key the model does
// not hold; then size is unchanged and every stored key still maps to its value (C6).
// After each mutating op the size is compared (C7); after each op check_invariants()
// runs if present (C7). serialize_roundtrip as for filters, by find(): what is wrong
// before it is C7, what changes across it is C11.
//
// Any op that throws is a violation ("exception"; "C11" for serialize_roundtrip).
//
// Cadence (CheckCadence; the default checks everything after every op, as above). Two
// checks cost O(size) per op: the filter checker's scan of every stored key after a kFull
// (C6), and the subject's check_invariants(). A caller that runs many traces (the fuzz
// targets) may sample either one: it then runs after op i when i + 1 is a power of two
// or a multiple of kSampledCheckPeriod, before every clear and serialize_roundtrip (so
// that neither can hide a fault), and after the last op; the scan runs there only if a
// kFull happened since the last one (it is the kFull's C6 check, deferred), and also
// checks count() where the subject has it. Every other check still runs after every op. A
// fault that the sampled run sees is reported at the sampled point, not at the op that
// made it: the caller reruns the trace with CheckCadence{} on a fresh subject to get the
// exact report (fuzz/README.md). A sampled run returns a violation whenever the
// exact run would, provided the fault is still visible at the next sampled point (a
// lost item is: only a clear removes it from the model, and a clear is preceded by a
// full check).
//
// The checker looks at the subject through its answers, so a fault is reported where it
// first becomes visible: an item lost silently (and, without count(), one copy of a
// duplicated item) shows as C1 at the next contains of it, C5 at an erase or insert
// that counts it, C6 after the next failed insert, or C1 before the next round trip.
// A subject with count() lets the filter checker see lost copies at once.
//
// Traits come from the overload's argument, else the subject's traits(), else
// default_filter_traits() / default_map_traits().
//
// Errors: an op the subject cannot perform (find or insert_or_assign on a filter;
// insert_or_assign, serialize_roundtrip or clear on a subject without that member)
// throws std::invalid_argument before any op is applied.
//
// The model must start in the subject's state (both empty, usually); both are left in
// the state after the last op applied.
#pragma once

#include <cstddef>
#include <cstdint>
#include <exception>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "cuckoo/model/insert_result.hpp"
#include "cuckoo/model/map_model.hpp"
#include "cuckoo/model/multiset_model.hpp"
#include "cuckoo/model/op.hpp"
#include "cuckoo/model/subject.hpp"
#include "cuckoo/model/trace.hpp"
#include "cuckoo/model/violation.hpp"

namespace cuckoo::model {

// Which O(size)-per-op checks run after every op (false) or at the sampled cadence
// (true); see the header comment. The default is exact: everything after every op.
struct CheckCadence {
  // The filter checker's scan of every stored key after a kFull (C6).
  bool sample_stored_key_scans = false;
  // The subject's check_invariants().
  bool sample_invariants = false;

  bool exact() const noexcept { return !sample_stored_key_scans && !sample_invariants; }
};

namespace detail {

// serialize_roundtrip compares the contains()/find() answers of at most this many
// distinct keys of the trace before and after.
inline constexpr std::size_t kMaxRoundtripProbes = 4096;

// A sampled check runs at least every this many ops (see CheckCadence).
inline constexpr std::size_t kSampledCheckPeriod = 16;

// Is op `index` (0-based) of a trace of `ops` ops one after which a sampled check runs?
constexpr bool sampled_check_due(std::size_t index, std::size_t ops) noexcept {
  const std::size_t n = index + 1;
  return n == ops || (n & (n - 1)) == 0 || n % kSampledCheckPeriod == 0;
}

inline std::string key_text(std::uint64_t key) { return std::to_string(key); }

inline std::string bool_text(bool b) { return b ? "true" : "false"; }

inline std::string value_text(const std::optional<std::uint64_t>& value) {
  return value ? std::to_string(*value) : "none";
}

// The distinct keys the trace's ops mention, at most kMaxRoundtripProbes of them.
inline std::vector<std::uint64_t> probe_keys(const Trace& trace) {
  std::set<std::uint64_t> keys;
  for (const TraceEntry& entry : trace.entries) {
    if (keys.size() == kMaxRoundtripProbes) break;
    if (takes_key(entry.op.kind)) keys.insert(entry.op.key);
  }
  return {keys.begin(), keys.end()};
}

inline std::string describe_op(std::size_t index, const TraceEntry& entry) {
  std::string text = "op " + std::to_string(index);
  if (entry.line != 0) text += " (line " + std::to_string(entry.line) + ")";
  return text + " '" + to_string(entry.op) + "'";
}

// Shared by both checkers: the position in the trace and how to build a Violation.
class CheckerBase {
 protected:
  CheckerBase(const Trace& trace, std::uint64_t seed) : trace_(trace), seed_(seed) {}

  Violation violation(std::string claim, std::string expected, std::string actual) const {
    return Violation{std::move(claim), index_, trace_.entries[index_].op, std::move(expected),
                     std::move(actual), seed_};
  }

  static Violation with_exception(Violation v, const char* what) {
    v.actual = std::string("exception: ") + what;
    return v;
  }

  const Trace& trace_;
  std::uint64_t seed_;
  std::size_t index_ = 0;
};

// ---------------------------------------------------------------------------------
// Filters
// ---------------------------------------------------------------------------------

template <FilterSubject S>
class FilterChecker : private CheckerBase {
 public:
  FilterChecker(S& subject, MultisetModel& model, const Trace& trace, std::uint64_t seed,
                const SubjectTraits& traits, const CheckCadence& cadence)
      : CheckerBase(trace, seed), subject_(subject), model_(model), traits_(traits), cadence_(cadence) {}

  std::optional<Violation> run() {
    for (std::size_t i = 0; i < trace_.entries.size(); ++i) {
      if (!filter_supports<S>(trace_.entries[i].op.kind)) {
        throw std::invalid_argument("check: " + describe_op(i, trace_.entries[i]) +
                                    " is not an op this filter subject can perform");
      }
    }
    IdentityScope scope(subject_, model_);
    probes_ = probe_keys(trace_);
    const std::size_t ops = trace_.entries.size();
    for (index_ = 0; index_ < ops; ++index_) {
      const Op& op = trace_.entries[index_].op;
      const char* claim = op.kind == OpKind::kSerializeRoundtrip ? "C11" : "exception";
      // Sampled checks also run before the ops that could hide what they look for.
      const bool hides = op.kind == OpKind::kClear || op.kind == OpKind::kSerializeRoundtrip;
      const bool due = sampled_check_due(index_, ops);
      try {
        if (hides) {
          if (auto found = sampled_checks(" (a sampled check, before this op)")) return found;
        }
        if (auto found = step(op)) return found;
        if (!cadence_.sample_invariants || due) {
          if (const auto problem = run_invariant_check(subject_)) {
            return violation("invariant", "check_invariants() passes", *problem);
          }
        }
        if (cadence_.sample_stored_key_scans && due && full_since_scan_) {
          full_since_scan_ = false;
          if (auto found = every_stored_key_found("C1", "; a sampled check")) return found;
        }
      } catch (const std::exception& e) {
        return with_exception(violation(claim, "no exception", ""), e.what());
      } catch (...) {
        return with_exception(violation(claim, "no exception", ""), "not a std::exception");
      }
    }
    return std::nullopt;
  }

 private:
  // Lends the subject's identity() to a model that has none, for the check's duration.
  class IdentityScope {
   public:
    IdentityScope(S& subject, MultisetModel& model) : model_(model) {
      if constexpr (HasIdentity<S>) {
        if (!model.has_identity()) {
          model.set_identity([&subject](std::uint64_t key) {
            return static_cast<std::uint64_t>(subject.identity(key));
          });
          lent_ = true;
        }
      } else {
        (void)subject;
      }
    }
    ~IdentityScope() {
      if (lent_) model_.set_identity(nullptr);
    }
    IdentityScope(const IdentityScope&) = delete;
    IdentityScope& operator=(const IdentityScope&) = delete;

   private:
    MultisetModel& model_;
    bool lent_ = false;
  };

  std::optional<Violation> step(const Op& op) {
    switch (op.kind) {
      case OpKind::kInsert: return insert(op.key);
      case OpKind::kContains: return contains(op.key);
      case OpKind::kErase: return erase(op.key);
      case OpKind::kSize: return size_matches("size", "");
      case OpKind::kSerializeRoundtrip: return serialize_roundtrip();
      case OpKind::kClear: return clear();
      case OpKind::kInsertOrAssign:
      case OpKind::kFind: break;  // rejected before the run
    }
    return std::nullopt;
  }

  std::uint64_t subject_size() { return static_cast<std::uint64_t>(subject_.size()); }

  // "N copies of K are stored", or with items (a partial-key filter: keys with one
  // fingerprint and bucket pair are one item) "N copies of the item of K are stored".
  // Worded for whoever wrote the subject: items, keys and copies, as audit/PROTOCOL.md
  // says them.
  std::string copies_text(std::uint64_t key, std::size_t copies) const {
    std::string text = std::to_string(copies) + (copies == 1 ? " copy of " : " copies of ");
    text += model_.has_identity() ? "the item of " + key_text(key) : key_text(key);
    return text + (copies == 1 ? " is stored" : " are stored");
  }

  std::optional<Violation> insert(std::uint64_t key) {
    const std::size_t copies = model_.identity_count(key);
    const std::uint64_t limit = max_copies_of(subject_, traits_, key);
    const InsertResult actual = to_model_result(subject_.insert(key));

    // The refusal the model demands, if any: at the duplicate limit, or (set semantics)
    // when the identity is stored at all. Otherwise the subject stores it or is full.
    std::optional<InsertResult> refusal;
    if (traits_.allows_duplicates) {
      const key::MultisetInsert expected = key::multiset_insert(copies, limit);
      if (expected.result != InsertResult::kInserted) refusal = expected.result;
    } else if (copies > 0) {
      refusal = InsertResult::kExists;
    }
    // Built only for a report (the fuzz targets insert millions of times).
    const auto why = [&]() -> std::string {
      if (!traits_.allows_duplicates) {
        return " (" + copies_text(key, copies) + "; the subject stores no duplicates)";
      }
      if (limit == MultisetModel::kNoCopyLimit) return "";
      return " (" + copies_text(key, copies) + ", the limit is " + std::to_string(limit) + ")";
    };

    if (refusal) {
      if (actual != *refusal) {
        return violation("C5", std::string(to_string(*refusal)) + why(), std::string(to_string(actual)));
      }
      return size_matches("C5", " (a refused insert changes nothing)");
    }
    switch (actual) {
      case InsertResult::kInserted:
        model_.insert(key);
        if (auto found = size_matches("size", " after an insert")) return found;
        return count_matches(key, "C5");
      case InsertResult::kFull: return nothing_lost_after_full();
      case InsertResult::kUpdated:
      case InsertResult::kExists:
      case InsertResult::kDuplicateLimit: break;
    }
    return violation("C5", "inserted or full" + why(), std::string(to_string(actual)));
  }

  // C6: after kFull the size is unchanged and every stored key is still found (the scan
  // at the sampled cadence when the cadence says so).
  std::optional<Violation> nothing_lost_after_full() {
    if (auto found = size_matches("C6", " (a failed insert changes nothing)")) return found;
    if (cadence_.sample_stored_key_scans) {
      full_since_scan_ = true;  // the scan is deferred to the next sampled point
      return std::nullopt;
    }
    return every_stored_key_found("C6", "; a failed insert loses nothing");
  }

  // The sampled checks, run before a clear or a round trip (what_when says so).
  std::optional<Violation> sampled_checks(const char* what_when) {
    if (cadence_.sample_invariants) {
      if (const auto problem = run_invariant_check(subject_)) {
        return violation("invariant", std::string("check_invariants() passes") + what_when, *problem);
      }
    }
    if (cadence_.sample_stored_key_scans && full_since_scan_) {
      full_since_scan_ = false;
      if (auto found = every_stored_key_found("C1", std::string(";") + what_when)) return found;
    }
    return std::nullopt;
  }

  // Every key the model holds is found (and counted right, where the subject can tell).
  std::optional<Violation> every_stored_key_found(const std::string& claim, const std::string& why) {
    for (const std::uint64_t stored : model_.distinct_keys()) {
      if (!static_cast<bool>(subject_.contains(stored))) {
        return violation(claim, "contains " + key_text(stored) + " => true (" +
                                    copies_text(stored, model_.identity_count(stored)) + why + ")",
                         "contains " + key_text(stored) + " => false");
      }
      if (auto found = count_matches(stored, claim)) return found;
    }
    return std::nullopt;
  }

  std::optional<Violation> contains(std::uint64_t key) {
    const std::size_t copies = model_.identity_count(key);
    const bool actual = static_cast<bool>(subject_.contains(key));
    if (copies > 0 && !actual) {
      return violation("C1", "true (" + copies_text(key, copies) + ")", "false");
    }
    if (copies == 0 && actual && traits_.exact) {
      return violation("C2", "false (nothing is stored that " + key_text(key) +
                                 " could match, and the subject is declared exact: no false "
                                 "positives)",
                       "true");
    }
    return std::nullopt;
  }

  std::optional<Violation> erase(std::uint64_t key) {
    const std::size_t copies = model_.identity_count(key);
    const bool actual = static_cast<bool>(subject_.erase(key));
    if (copies > 0 && !actual) {
      return violation("C5", "true (" + copies_text(key, copies) + ")", "false");
    }
    if (copies == 0 && actual) {
      return violation("C5", "false (" + copies_text(key, 0) + ")", "true");
    }
    if (!actual) return std::nullopt;
    model_.erase(key);
    if (auto found = size_matches("C5", " (erase removes exactly one copy)")) return found;
    return count_matches(key, "C5");
  }

  std::optional<Violation> clear() {
    if constexpr (HasClear<S>) {
      subject_.clear();
      model_.clear();
      return size_matches("size", " after clear");
    }
    return std::nullopt;
  }

  std::optional<Violation> serialize_roundtrip() {
    if constexpr (HasSerializeRoundtrip<S>) {
      // What is already wrong before the round trip is not the round trip's fault.
      if (auto found = every_stored_key_found("C1", "; checked before the round trip")) return found;
      if (auto found = size_matches("size", " (before the round trip)")) return found;
      const std::uint64_t size_before = subject_size();
      std::vector<bool> answers_before;
      std::vector<std::uint64_t> counts_before;
      for (const std::uint64_t key : probes_) {
        answers_before.push_back(static_cast<bool>(subject_.contains(key)));
        if constexpr (HasCount<S>) counts_before.push_back(static_cast<std::uint64_t>(subject_.count(key)));
      }
      if (const auto problem = run_serialize_roundtrip(subject_)) {
        return violation("C11", "serialize_roundtrip succeeds", *problem);
      }
      const std::uint64_t size_after = subject_size();
      if (size_after != size_before) {
        return violation("C11", "size " + std::to_string(size_before) + " (as before the round trip)",
                         "size " + std::to_string(size_after));
      }
      if (auto found = every_stored_key_found("C11", "")) return found;
      for (std::size_t i = 0; i < probes_.size(); ++i) {
        const bool answer = static_cast<bool>(subject_.contains(probes_[i]));
        if (answer != answers_before[i]) {
          return violation("C11", "contains " + key_text(probes_[i]) + " => " +
                                      bool_text(answers_before[i]) + " (as before the round trip)",
                           "contains " + key_text(probes_[i]) + " => " + bool_text(answer));
        }
        if constexpr (HasCount<S>) {
          const auto count = static_cast<std::uint64_t>(subject_.count(probes_[i]));
          if (count != counts_before[i]) {
            return violation("C11", "count " + key_text(probes_[i]) + " => " +
                                        std::to_string(counts_before[i]) +
                                        " (as before the round trip)",
                             "count " + key_text(probes_[i]) + " => " + std::to_string(count));
          }
        }
      }
      return size_matches("C11", " after the round trip");
    }
    return std::nullopt;
  }

  std::optional<Violation> size_matches(const std::string& claim, const std::string& why) {
    const std::uint64_t actual = subject_size();
    if (actual == model_.size()) return std::nullopt;
    return violation(claim, "size " + std::to_string(model_.size()) + why,
                     "size " + std::to_string(actual));
  }

  // Where the subject can tell: its count(key) equals the model's identity count.
  std::optional<Violation> count_matches(std::uint64_t key, const std::string& claim) {
    if constexpr (HasCount<S>) {
      const auto actual = static_cast<std::uint64_t>(subject_.count(key));
      const std::size_t expected = model_.identity_count(key);
      if (actual != expected) {
        return violation(claim, "count " + key_text(key) + " => " + std::to_string(expected) +
                                    " (" + copies_text(key, expected) + ")",
                         "count " + key_text(key) + " => " + std::to_string(actual));
      }
    } else {
      (void)key;
      (void)claim;
    }
    return std::nullopt;
  }

  S& subject_;
  MultisetModel& model_;
  SubjectTraits traits_;
  CheckCadence cadence_;
  // Sampled scans: a kFull happened since the last scan (only then is one due).
  bool full_since_scan_ = false;
  std::vector<std::uint64_t> probes_;
};

// ---------------------------------------------------------------------------------
// Maps
// ---------------------------------------------------------------------------------

template <MapSubject S>
class MapChecker : private CheckerBase {
 public:
  MapChecker(S& subject, MapModel& model, const Trace& trace, std::uint64_t seed,
             const SubjectTraits& traits, const CheckCadence& cadence)
      : CheckerBase(trace, seed), subject_(subject), model_(model), traits_(traits), cadence_(cadence) {}

  std::optional<Violation> run() {
    for (std::size_t i = 0; i < trace_.entries.size(); ++i) {
      if (!map_supports<S>(trace_.entries[i].op.kind)) {
        throw std::invalid_argument("check: " + describe_op(i, trace_.entries[i]) +
                                    " is not an op this map subject can perform");
      }
    }
    probes_ = probe_keys(trace_);
    const std::size_t ops = trace_.entries.size();
    for (index_ = 0; index_ < ops; ++index_) {
      const Op& op = trace_.entries[index_].op;
      const char* claim = op.kind == OpKind::kSerializeRoundtrip ? "C11" : "exception";
      // Sampled: also before the ops that could hide a broken invariant.
      const bool hides = op.kind == OpKind::kClear || op.kind == OpKind::kSerializeRoundtrip;
      try {
        if (cadence_.sample_invariants && hides) {
          if (const auto problem = run_invariant_check(subject_)) {
            return violation("C7", "check_invariants() passes (a sampled check, before this op)", *problem);
          }
        }
        if (auto found = step(op)) return found;
        if (!cadence_.sample_invariants || sampled_check_due(index_, ops)) {
          if (const auto problem = run_invariant_check(subject_)) {
            return violation("C7", "check_invariants() passes", *problem);
          }
        }
      } catch (const std::exception& e) {
        return with_exception(violation(claim, "no exception", ""), e.what());
      } catch (...) {
        return with_exception(violation(claim, "no exception", ""), "not a std::exception");
      }
    }
    return std::nullopt;
  }

 private:
  std::optional<Violation> step(const Op& op) {
    switch (op.kind) {
      case OpKind::kInsert: {
        const bool present = model_.contains(op.key);
        const InsertResult actual = to_model_result(subject_.insert(op.key, op.value));
        if (auto found = judge_insert(actual, present ? InsertResult::kExists : InsertResult::kInserted)) {
          return found;
        }
        if (actual != InsertResult::kFull) model_.insert(op.key, op.value);
        return size_matches("C7");
      }
      case OpKind::kInsertOrAssign:
        if constexpr (HasInsertOrAssign<S>) {
          const bool present = model_.contains(op.key);
          const InsertResult actual = to_model_result(subject_.insert_or_assign(op.key, op.value));
          if (auto found = judge_insert(actual, present ? InsertResult::kUpdated : InsertResult::kInserted)) {
            return found;
          }
          if (actual != InsertResult::kFull) model_.insert_or_assign(op.key, op.value);
          return size_matches("C7");
        }
        return std::nullopt;
      case OpKind::kContains: {
        const bool expected = model_.contains(op.key);
        bool actual = false;
        if constexpr (HasContains<S>) {
          actual = static_cast<bool>(subject_.contains(op.key));
        } else {
          actual = to_optional_value(subject_.find(op.key)).has_value();
        }
        if (actual == expected) return std::nullopt;
        return violation("C7", bool_text(expected), bool_text(actual));
      }
      case OpKind::kFind: {
        const std::optional<std::uint64_t> expected = model_.find(op.key);
        const std::optional<std::uint64_t> actual = to_optional_value(subject_.find(op.key));
        if (actual == expected) return std::nullopt;
        return violation("C7", value_text(expected), value_text(actual));
      }
      case OpKind::kErase: {
        const bool expected = model_.erase(op.key);
        const bool actual = static_cast<bool>(subject_.erase(op.key));
        if (actual != expected) return violation("C7", bool_text(expected), bool_text(actual));
        return size_matches("C7");
      }
      case OpKind::kSize: return size_matches("C7");
      case OpKind::kSerializeRoundtrip: return serialize_roundtrip();
      case OpKind::kClear:
        if constexpr (HasClear<S>) {
          subject_.clear();
          model_.clear();
          return size_matches("C7");
        }
        return std::nullopt;
    }
    return std::nullopt;
  }

  // kFull is allowed for a new key when the subject has a growth limit; then C6.
  std::optional<Violation> judge_insert(InsertResult actual, InsertResult expected) {
    if (actual == expected) return std::nullopt;
    if (actual == InsertResult::kFull && expected == InsertResult::kInserted &&
        traits_.has_growth_limit) {
      return nothing_lost_after_full();
    }
    std::string expected_text(to_string(expected));
    if (actual == InsertResult::kFull && expected == InsertResult::kInserted) {
      expected_text += " (full is allowed only with the has_growth_limit trait)";
    }
    return violation("C7", expected_text, std::string(to_string(actual)));
  }

  std::optional<Violation> nothing_lost_after_full() {
    if (auto found = size_matches("C6")) return found;
    return every_entry_found("C6", "; a failed insert loses nothing");
  }

  std::optional<Violation> every_entry_found(const std::string& claim, const std::string& why) {
    for (const auto& [key, value] : model_.entries()) {
      const std::optional<std::uint64_t> actual = to_optional_value(subject_.find(key));
      if (actual != value) {
        return violation(claim, "find " + key_text(key) + " => " + std::to_string(value) + why,
                         "find " + key_text(key) + " => " + value_text(actual));
      }
    }
    return std::nullopt;
  }

  std::optional<Violation> serialize_roundtrip() {
    if constexpr (HasSerializeRoundtrip<S>) {
      // What is already wrong before the round trip is not the round trip's fault.
      if (auto found = size_matches("C7")) return found;
      if (auto found = every_entry_found("C7", " (checked before the round trip)")) return found;
      if (const auto problem = run_serialize_roundtrip(subject_)) {
        return violation("C11", "serialize_roundtrip succeeds", *problem);
      }
      if (auto found = size_matches("C11")) return found;
      if (auto found = every_entry_found("C11", " (as before the round trip)")) return found;
      for (const std::uint64_t key : probes_) {
        if (model_.contains(key)) continue;
        const std::optional<std::uint64_t> actual = to_optional_value(subject_.find(key));
        if (actual) {
          return violation("C11", "find " + key_text(key) + " => none (as before the round trip)",
                           "find " + key_text(key) + " => " + value_text(actual));
        }
      }
    }
    return std::nullopt;
  }

  std::optional<Violation> size_matches(const std::string& claim) {
    const auto actual = static_cast<std::uint64_t>(subject_.size());
    if (actual == model_.size()) return std::nullopt;
    return violation(claim, "size " + std::to_string(model_.size()),
                     "size " + std::to_string(actual));
  }

  S& subject_;
  MapModel& model_;
  SubjectTraits traits_;
  CheckCadence cadence_;
  std::vector<std::uint64_t> probes_;
};

}  // namespace detail

// Checks a filter against the multiset model. `seed` is the seed that produced the trace
// and the subject; it is copied into the violation so the report can reproduce it.
template <FilterSubject S>
std::optional<Violation> check(S& subject, MultisetModel& model, const Trace& trace,
                               std::uint64_t seed, const SubjectTraits& traits,
                               const CheckCadence& cadence = {}) {
  return detail::FilterChecker<S>(subject, model, trace, seed, traits, cadence).run();
}

template <FilterSubject S>
std::optional<Violation> check(S& subject, MultisetModel& model, const Trace& trace,
                               std::uint64_t seed, const CheckCadence& cadence = {}) {
  return check(subject, model, trace, seed, traits_of(subject, default_filter_traits()), cadence);
}

// Checks an exact map against the map model.
template <MapSubject S>
std::optional<Violation> check(S& subject, MapModel& model, const Trace& trace,
                               std::uint64_t seed, const SubjectTraits& traits,
                               const CheckCadence& cadence = {}) {
  return detail::MapChecker<S>(subject, model, trace, seed, traits, cadence).run();
}

template <MapSubject S>
std::optional<Violation> check(S& subject, MapModel& model, const Trace& trace,
                               std::uint64_t seed, const CheckCadence& cadence = {}) {
  return check(subject, model, trace, seed, traits_of(subject, default_map_traits()), cadence);
}

}  // namespace cuckoo::model
