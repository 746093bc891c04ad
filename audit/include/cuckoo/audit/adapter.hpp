// Auditing another implementation: the claims that apply to any approximate membership
// filter or exact set (C1, C2, C5, C6, C7), run against your code through a small
// adapter, reported in the same Report structure as the project's own engines, with
// shrunk, replayable counterexample traces.
//
// Usage
// -----
//   #include "cuckoo/audit/adapter.hpp"
//
//   struct MyFilterAdapter {                       // wraps your implementation
//     my::Filter filter{1000};
//     bool insert(std::uint64_t key) { return filter.add(key); }   // or cuckoo::InsertResult
//     bool contains(std::uint64_t key) const { return filter.maybe_has(key); }
//     bool erase(std::uint64_t key) { return filter.remove(key); }
//     std::uint64_t size() const { return filter.count(); }
//   };
//
//   cuckoo::audit::ImplementationTraits traits;
//   traits.name = "my.filter";                     // the trace header's engine name
//   traits.kind = cuckoo::audit::ImplementationKind::kApproximateFilter;
//   traits.fingerprint_bits = 12;                  // 0 when unknown: C2 is skipped
//   traits.slots_per_bucket = 4;
//   traits.capacity = 1000;                        // items it is built for (0: unknown)
//
//   cuckoo::audit::AuditOptions options;           // profile, seed, out_dir
//   cuckoo::audit::Report report = cuckoo::audit::audit_implementation(
//       [] { return MyFilterAdapter{}; }, traits, options);
//   cuckoo::audit::write_summary(report, std::cout);   // report_writers.hpp
//   return report.all_passed() ? 0 : 1;
//
//   // Later, replaying a counterexample the audit wrote:
//   auto violation = cuckoo::audit::replay_implementation(
//       [] { return MyFilterAdapter{}; }, traits, cuckoo::model::parse_trace(text));
//
// The adapter
// -----------
// Required: insert(key), contains(key), erase(key), size() on std::uint64_t keys.
// insert returns cuckoo::InsertResult (or any enum with an ADL to_string naming the
// outcomes, see model/insert_result.hpp), or bool:
//   - exact set: true = inserted, false = already present (kExists);
//   - filter: true = stored, false = refused (kFull). A bool cannot say "copy limit
//     reached", so for a bool filter the audit assumes no copy limit and checks only
//     that a refused insert changes nothing (C6).
// Optional: clear() (then traces may hold clear ops), check_invariants() (void, bool or
// std::string; run after every op), prepare(const model::Trace&) (see "Pipelining"
// below), and for filters identity(key) (keys with equal
// identities are one item to the filter: for a partial-key cuckoo filter, fingerprint and
// smaller bucket), max_copies(key) and count(key); see model/subject.hpp. Without
// identity() the model tells keys apart by value, so two keys that the filter cannot tell
// apart share its copy limit unseen: give identity() for a filter with a copy limit, or
// C5 may fail on such an alias (the trace then names both keys).
// The factory is called once per trace and must return a fresh, empty instance, the same
// one every time (a fixed seed): a counterexample is only replayable if the
// implementation is deterministic.
//
// Failures of the implementation: an exception from any adapter call during a trace (the
// factory, prepare(), an op) is a violation of that trace ("exception", with the
// message), shrunk and reported like any other; during C2's measurement it is a FAIL of
// C2 with the message. The audit itself does not throw for them.
//
// Pipelining: an adapter whose calls are expensive one at a time (another process, see
// exec.hpp) may have prepare(const model::Trace& t): the audit calls it with the ops it
// is about to perform, in order, from the instance's current state: before checking a
// trace (the checker then performs exactly t's ops, stopping early at a violation, and
// in between asks size() after inserts, erases that answered true and clears, and after
// an insert answered kFull contains() of every stored key, in the model's
// distinct_keys() order), and in C2 before the inserts and before each chunk of queries
// (C2 stops inserting at the first refusal). The adapter may perform the ops ahead of
// the calls and answer them from what it recorded; it must still answer every call,
// announced or not, as the structure would at that point.
//
// What is run (each a ClaimResult with engine = traits.name)
// --------------------------------------------------------
//   C1  filters and sets: random traces of inserts (duplicates), erases of inserted keys,
//       lookups; every present key must be found.
//   C2  filters with fingerprint_bits and slots_per_bucket, or a declared
//       false_positive_rate: load the filter to about 95% of capacity (or to its first
//       refused insert), query keys never inserted, and hold the false positive count to
//       the binomial bound at rate false_positive_rate when given, else
//       p = 1 - (1 - q)^(2b), q = (2^f + 2) / 4^f (one occupied slot's match
//       probability for a filter that maps fingerprint 0 to 1; about 2b / 2^f), at
//       confidence subjects::stats::kDefaultAlpha. Needs capacity (else 1000 items are assumed).
//   C5  filters whose insert returns an InsertResult: one key inserted many times, up
//       to max_copies (2b by default), erased one copy at a time.
//   C6  filters and sets with a known capacity: inserts past capacity; a refused insert
//       loses nothing and changes the size by nothing. The checker looks up every stored
//       key after each refused insert, so a trace costs about capacity^2 lookups: above
//       kSmallCapacity (256) a trace inserts distinct keys up to 2.25 capacity (a real
//       table is often larger than the capacity it was built for: rounded up to a power
//       of two) and then runs a short mixed tail, and the number of C6 traces is cut to
//       a budget of kC6LookupBudget lookups per profile step (at least one trace; C6 is
//       skipped when one trace alone costs more than kC6MaxOverBudget budgets).
//   C7  exact sets: every answer equals the set model's (no false positives either).
// Keys are small integers (0 .. a few hundred, up to about 2.3 capacity in C6; C2's
// queries start at 2^62).
//
// AuditOptions::claims restricts the run to those claims (the others are left out of the
// report).
//
// Caveat for filters: erasing an item that was never stored may remove a copy of another
// item with the same fingerprint and bucket (the standard cuckoo filter contract). The
// traces erase only keys inserted earlier, but an insert refused as full still counts as
// inserted for the generator; with fingerprints of 8 bits or more such an alias is
// rare. Report a false alarm of this kind with the trace: it names both keys.
//
// Thread safety: the audit calls the adapter from one thread.
#pragma once

#include <algorithm>
#include <chrono>
#include <cmath>
#include <concepts>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <iterator>
#include <limits>
#include <map>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "cuckoo/audit/audit.hpp"
#include "cuckoo/audit/report.hpp"
#include "cuckoo/subjects/stats.hpp"
#include "cuckoo/audit/trace_check.hpp"
#include "cuckoo/subjects/trace_gen.hpp"
#include "cuckoo/model/checker.hpp"
#include "cuckoo/model/insert_result.hpp"
#include "cuckoo/model/multiset_model.hpp"
#include "cuckoo/model/subject.hpp"
#include "cuckoo/model/trace.hpp"
#include "cuckoo/model/violation.hpp"

namespace cuckoo::audit {

enum class ImplementationKind {
  kExactSet,           // contains() is exact: no false positives; set semantics
  kApproximateFilter,  // false positives allowed; duplicates stored as copies
};

struct ImplementationTraits {
  // The trace header's engine name and the report's subject: letters, digits, "_", ".",
  // "-", starting with a letter or "_" ("libcuckoo.filter"). Checked: UsageError.
  std::string name;
  ImplementationKind kind = ImplementationKind::kApproximateFilter;
  // Filters, when known (0: unknown). f and b enable C2 and set the copy limit 2b.
  unsigned fingerprint_bits = 0;
  unsigned slots_per_bucket = 0;
  // Filters: copies of one item it stores at most; 0: 2 * slots_per_bucket, or no limit
  // when that is unknown or insert returns bool.
  std::uint64_t max_copies = 0;
  // Items (slots, for a filter) the fresh instance holds; 0: unknown (C6 skipped).
  std::uint64_t capacity = 0;
  // Filters: the false positive rate it promises at capacity, in (0, 1); 0: derived from
  // fingerprint_bits and slots_per_bucket (C2 is skipped when neither is known).
  double false_positive_rate = 0;
  // false: the traces hold no erase ops (the implementation cannot erase).
  bool erase_supported = true;
  // false: the traces hold no clear ops even when the adapter has clear().
  bool clear_supported = true;
  // Appended to the report's configuration text (what else the subject declared).
  std::string notes;
  // Extra trace header parameters (name -> value), e.g. how keys are encoded; written
  // into every generated trace so that a counterexample carries them.
  std::map<std::string, std::string> trace_parameters;
};

struct AuditOptions {
  Profile profile = Profile::kQuick;
  std::uint64_t seed = 20261121;
  // Counterexample traces go to out_dir/counterexamples/ when set.
  std::filesystem::path out_dir;
  // Traces per claim; 0: by profile (quick 200, standard 2000, full 20000).
  std::size_t traces = 0;
  // Queries of the C2 measurement; 0: by profile (quick 200000, x10, x100).
  std::uint64_t fpr_queries = 0;
  // The claims to run ("C1", "C6"); empty: all. Unknown ids: UsageError.
  std::vector<std::string> claims;
  // Wall-time bound of shrinking one counterexample; 0: only the attempt bound.
  double max_shrink_seconds = 0;
};

// The false positive bound of C2 for a partial-key cuckoo filter with f-bit fingerprints
// and b slots per bucket at full load: 1 - (1 - q)^(2b), q = (2^f + 2) / 4^f.
inline double cuckoo_filter_fpr_bound(unsigned fingerprint_bits, unsigned slots_per_bucket) {
  const double two_f = std::ldexp(1.0, static_cast<int>(fingerprint_bits));
  const double q = (two_f + 2.0) / (two_f * two_f);
  return 1.0 - std::pow(1.0 - q, 2.0 * slots_per_bucket);
}

namespace adapter_detail {

inline constexpr std::size_t kQuickAdapterTraces = 200;
inline constexpr std::uint64_t kQuickFprQueries = 200'000;
inline constexpr std::uint64_t kAssumedCapacity = 1000;
// C2 loads the filter to this fraction of its capacity.
inline constexpr double kFprLoad = 0.95;
// C2's queries: keys never inserted (the traces use small keys).
inline constexpr std::uint64_t kQueryKeyBase = std::uint64_t{1} << 62;
// C2 announces its queries to prepare() in chunks of this many.
inline constexpr std::uint64_t kFprQueryChunk = 65'536;
// C6: up to this capacity the traces are random mixes over 1..2 capacity keys; above it,
// fill-then-tail traces, as many as kC6LookupBudget (times the profile scale) allows.
inline constexpr std::uint64_t kSmallCapacity = 256;
inline constexpr std::uint64_t kC6LookupBudget = 6'000'000;
// C6 above kSmallCapacity is skipped when one trace alone would cost more than this many
// times the budget.
inline constexpr std::uint64_t kC6MaxOverBudget = 8;

// The claims audit_implementation knows.
inline constexpr const char* kAdapterClaims[] = {"C1", "C2", "C5", "C6", "C7"};

template <class Impl>
constexpr bool kHasPrepare = requires(Impl& i, const model::Trace& t) { i.prepare(t); };

// C6's fill-then-tail traces: the distinct keys inserted at most, and the lookups a trace
// costs at most for a structure that refuses at `capacity`: every insert past it (the
// rest of the fill, the tail's) looks up the `capacity` stored keys.
inline std::uint64_t c6_fill_keys(std::uint64_t capacity) {
  return 2 * capacity + capacity / 4 + capacity / 16 + 1;
}
inline std::uint64_t c6_trace_cost(std::uint64_t capacity) {
  return capacity * (c6_fill_keys(capacity) - capacity + 210) + c6_fill_keys(capacity) + 300;
}

inline std::uint64_t profile_scale(Profile p) {
  switch (p) {
    case Profile::kQuick: return 1;
    case Profile::kStandard: return 10;
    case Profile::kFull: return 100;
  }
  return 1;
}

template <class R>
constexpr bool kBoolInsert = std::same_as<std::remove_cvref_t<R>, bool>;

template <class Impl>
constexpr bool bool_insert() {
  return kBoolInsert<decltype(std::declval<Impl&>().insert(std::uint64_t{}))>;
}

// The user's adapter as a subject of the model checker.
template <class Impl>
class ImplementationSubject {
 public:
  ImplementationSubject(Impl& impl, const ImplementationTraits& traits)
      : impl_(&impl), traits_(&traits) {}

  model::InsertResult insert(std::uint64_t key) {
    if constexpr (bool_insert<Impl>()) {
      if (impl_->insert(key)) return model::InsertResult::kInserted;
      return exact() ? model::InsertResult::kExists : model::InsertResult::kFull;
    } else {
      return model::to_model_result(impl_->insert(key));
    }
  }
  bool contains(std::uint64_t key) { return static_cast<bool>(impl_->contains(key)); }
  bool erase(std::uint64_t key) { return static_cast<bool>(impl_->erase(key)); }
  std::uint64_t size() { return static_cast<std::uint64_t>(impl_->size()); }
  void clear()
    requires requires(Impl& i) { i.clear(); }
  {
    impl_->clear();
  }
  auto check_invariants()
    requires requires(Impl& i) { i.check_invariants(); }
  {
    return impl_->check_invariants();
  }
  std::uint64_t identity(std::uint64_t key)
    requires requires(Impl& i) { i.identity(key); }
  {
    return static_cast<std::uint64_t>(impl_->identity(key));
  }
  std::uint64_t max_copies(std::uint64_t key)
    requires requires(Impl& i) { i.max_copies(key); }
  {
    return static_cast<std::uint64_t>(impl_->max_copies(key));
  }
  std::uint64_t count(std::uint64_t key)
    requires requires(Impl& i) { i.count(key); }
  {
    return static_cast<std::uint64_t>(impl_->count(key));
  }

  model::SubjectTraits traits() const {
    model::SubjectTraits t;
    t.exact = exact();
    t.allows_duplicates = !exact();
    t.fingerprint_bits = traits_->fingerprint_bits;
    t.slots_per_bucket = traits_->slots_per_bucket;
    if (bool_insert<Impl>() || (traits_->max_copies == 0 && traits_->slots_per_bucket == 0)) {
      t.max_copies = model::MultisetModel::kNoCopyLimit;  // cannot be observed; see above
    } else {
      t.max_copies = traits_->max_copies;  // 0: 2 * slots_per_bucket
    }
    return t;
  }

 private:
  bool exact() const { return traits_->kind == ImplementationKind::kExactSet; }
  Impl* impl_;
  const ImplementationTraits* traits_;
};

inline model::TraceParameters header_of(const ImplementationTraits& traits) {
  model::TraceParameters p;
  p.set("kind", traits.kind == ImplementationKind::kExactSet ? "exact_set" : "filter");
  if (traits.capacity != 0) p.set("capacity", std::to_string(traits.capacity));
  if (traits.fingerprint_bits != 0) {
    p.set("fingerprint_bits", std::to_string(traits.fingerprint_bits));
  }
  if (traits.slots_per_bucket != 0) {
    p.set("slots_per_bucket", std::to_string(traits.slots_per_bucket));
  }
  for (const auto& [name, value] : traits.trace_parameters) p.set(name, value);
  return p;
}

inline void validate(const ImplementationTraits& traits) {
  if (!model::is_trace_name(traits.name)) {
    throw UsageError("ImplementationTraits::name '" + traits.name +
                     "' is not a trace name (letters, digits, '_', '.', '-'; starting with a "
                     "letter or '_')");
  }
  if (traits.fingerprint_bits > 32) {
    throw UsageError("ImplementationTraits::fingerprint_bits " +
                     std::to_string(traits.fingerprint_bits) + " is above 32");
  }
  if (!(traits.false_positive_rate >= 0 && traits.false_positive_rate < 1)) {
    throw UsageError("ImplementationTraits::false_positive_rate " +
                     std::to_string(traits.false_positive_rate) + " is outside [0, 1)");
  }
}

inline void validate(const AuditOptions& options) {
  for (const std::string& claim : options.claims) {
    if (std::find(std::begin(kAdapterClaims), std::end(kAdapterClaims), claim) ==
        std::end(kAdapterClaims)) {
      throw UsageError("unknown claim '" + claim +
                       "' for an implementation audit (expected C1, C2, C5, C6 or C7)");
    }
  }
}

inline bool wanted(const AuditOptions& options, const std::string& claim) {
  return options.claims.empty() ||
         std::find(options.claims.begin(), options.claims.end(), claim) != options.claims.end();
}

// The false positive rate C2 holds the filter to, 0 when none is known.
inline double promised_fpr(const ImplementationTraits& traits) {
  if (traits.false_positive_rate > 0) return traits.false_positive_rate;
  if (traits.fingerprint_bits != 0 && traits.slots_per_bucket != 0) {
    return cuckoo_filter_fpr_bound(traits.fingerprint_bits, traits.slots_per_bucket);
  }
  return 0;
}

inline std::string configuration_of(const ImplementationTraits& traits) {
  std::string c = traits.kind == ImplementationKind::kExactSet ? "exact set" : "filter";
  if (traits.fingerprint_bits != 0) c += " f=" + std::to_string(traits.fingerprint_bits);
  if (traits.slots_per_bucket != 0) c += " b=" + std::to_string(traits.slots_per_bucket);
  if (traits.capacity != 0) c += " capacity=" + std::to_string(traits.capacity);
  if (traits.false_positive_rate > 0) {
    std::ostringstream rate;
    rate << traits.false_positive_rate;
    c += " fpr=" + rate.str();
  }
  if (traits.max_copies == model::MultisetModel::kNoCopyLimit) {
    c += " max_copies=none";
  } else if (traits.max_copies != 0) {
    c += " max_copies=" + std::to_string(traits.max_copies);
  }
  if (!traits.erase_supported) c += " no-erase";
  if (!traits.clear_supported) c += " no-clear";
  if (!traits.notes.empty()) c += " " + traits.notes;
  return c;
}

inline ClaimResult skipped(std::string claim, const ImplementationTraits& traits, std::string why) {
  ClaimResult r;
  r.claim = std::move(claim);
  r.engine = traits.name;
  r.configuration = configuration_of(traits);
  r.verdict = Verdict::kSkipped;
  r.summary = std::move(why);
  return r;
}

// C2: the measured false positive rate against the binomial bound.
template <class Factory>
ClaimResult measure_fpr(Factory& make, const ImplementationTraits& traits, std::uint64_t queries,
                        std::uint64_t seed) {
  using Impl = std::remove_cvref_t<decltype(make())>;
  const auto start = std::chrono::steady_clock::now();
  ClaimResult r;
  r.claim = "C2";
  r.engine = traits.name;
  r.configuration = configuration_of(traits);
  r.seed = seed;
  const std::uint64_t capacity = traits.capacity != 0 ? traits.capacity : kAssumedCapacity;
  const auto target = static_cast<std::uint64_t>(static_cast<double>(capacity) * kFprLoad);
  subjects::TraceRng rng(seed);
  const std::uint64_t key_offset = rng.below(std::uint64_t{1} << 40);
  std::uint64_t stored = 0;
  std::uint64_t positives = 0;
  try {
    auto impl = make();
    ImplementationSubject subject(impl, traits);
    if constexpr (kHasPrepare<Impl>) {
      model::Trace plan;
      plan.engine = traits.name;
      for (std::uint64_t k = 0; k < target; ++k) plan.add(model::Op::insert(key_offset + k));
      impl.prepare(plan);
    }
    for (std::uint64_t k = 0; k < target; ++k) {  // bound: target
      if (subject.insert(key_offset + k) != model::InsertResult::kInserted) break;
      ++stored;
    }
    for (std::uint64_t first = 0; first < queries; first += kFprQueryChunk) {
      const std::uint64_t last = std::min(queries, first + kFprQueryChunk);
      if constexpr (kHasPrepare<Impl>) {
        model::Trace plan;
        plan.engine = traits.name;
        for (std::uint64_t i = first; i < last; ++i) {
          plan.add(model::Op::contains(kQueryKeyBase + key_offset + i));
        }
        impl.prepare(plan);
      }
      for (std::uint64_t i = first; i < last; ++i) {  // bound: queries
        positives += subject.contains(kQueryKeyBase + key_offset + i) ? 1 : 0;
      }
    }
  } catch (const std::exception& e) {
    r.verdict = Verdict::kFail;
    r.summary = std::string("the implementation failed during the measurement (after ") +
                std::to_string(stored) + " stored items): " + e.what();
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return r;
  }
  const double p = promised_fpr(traits);
  const std::uint64_t max_count = subjects::stats::binomial_max_count(queries, p);
  const bool declared = traits.false_positive_rate > 0;
  Figure rate;
  rate.name = "false-positive rate";
  rate.value = static_cast<double>(positives) / static_cast<double>(queries);
  rate.bound = static_cast<double>(max_count) / static_cast<double>(queries);
  rate.relation = "<=";
  rate.note = std::string("bound: the largest rate a filter with per-query rate ") +
              (declared ? "(declared) " : "1-(1-q)^(2b) = ") + std::to_string(p) + " shows in " +
              std::to_string(queries) + " queries except with probability 1e-9";
  Figure load;
  load.name = "load factor";
  load.value = static_cast<double>(stored) / static_cast<double>(capacity);
  Figure count;
  count.name = "false positives";
  count.value = static_cast<double>(positives);
  count.bound = static_cast<double>(max_count);
  count.relation = "<=";
  r.figures = {rate, count, load};
  r.samples = queries;
  r.verdict = positives <= max_count ? Verdict::kPass : Verdict::kFail;
  r.summary = std::to_string(positives) + " false positives in " + std::to_string(queries) +
              " queries at load " + std::to_string(load.value) + ": " +
              (r.verdict == Verdict::kPass ? "within" : "above") + " the bound of " +
              std::to_string(max_count) + " for " +
              (declared ? "the declared rate " + std::to_string(p)
                        : "f=" + std::to_string(traits.fingerprint_bits) +
                              " b=" + std::to_string(traits.slots_per_bucket)) +
              ".";
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

// A violation for an exception thrown outside the checker's own calls (the factory,
// prepare()): charged to the trace's first op.
inline std::optional<model::Violation> adapter_failure(const model::Trace& trace,
                                                       std::uint64_t seed, const char* what) {
  if (trace.entries.empty()) return std::nullopt;  // nothing ran, nothing failed
  model::Violation v;
  v.claim = "exception";
  v.op_index = 0;
  v.op = trace.entries.front().op;
  v.expected = "no exception";
  v.actual = std::string("exception: ") + what;
  v.seed = seed;
  return v;
}

}  // namespace adapter_detail

// Checks `trace` against a fresh instance from `make` and the model that `traits`
// selects (a multiset for filters, a set for exact sets). Returns the first violation,
// or nothing. The trace's header is not used (the factory builds the instance).
// Throws std::invalid_argument when the trace holds an op the adapter cannot perform
// (find, insert_or_assign, serialize_roundtrip; clear without clear()).
// An exception from the factory or prepare() is a violation at op 0 ("exception"); one
// from an op is the checker's "exception" violation at that op.
template <class Factory>
std::optional<model::Violation> replay_implementation(Factory&& make,
                                                      const ImplementationTraits& traits,
                                                      const model::Trace& trace,
                                                      std::uint64_t seed = 0) {
  using Impl = std::remove_cvref_t<decltype(make())>;
  bool checking = false;  // model::check's own errors (an op it cannot perform) propagate
  try {
    auto impl = make();
    if constexpr (adapter_detail::kHasPrepare<Impl>) impl.prepare(trace);
    adapter_detail::ImplementationSubject subject(impl, traits);
    model::MultisetModel model;
    checking = true;
    return model::check(subject, model, trace, seed);
  } catch (const std::exception& e) {
    if (checking || trace.entries.empty()) throw;
    return adapter_detail::adapter_failure(trace, seed, e.what());
  }
}

// Runs the claims that apply (see the top of this file) and returns the report: one
// ClaimResult per claim, SKIP with the reason for those that do not apply. Throws
// UsageError for invalid traits. Deterministic for a deterministic implementation.
template <class Factory>
Report audit_implementation(Factory&& make, const ImplementationTraits& traits,
                            const AuditOptions& options = {}) {
  using namespace adapter_detail;
  using Impl = std::remove_cvref_t<decltype(make())>;
  validate(traits);
  validate(options);
  const auto start = std::chrono::steady_clock::now();
  Report report;
  report.subject = traits.name;
  report.profile = to_string(options.profile);
  report.seed = options.seed;
  report.command = "audit_implementation(" + traits.name + ")";

  RunOptions run_options;
  run_options.out_dir = options.out_dir;
  run_options.seed = options.seed;
  const std::uint64_t scale = profile_scale(options.profile);
  const std::size_t traces =
      options.traces != 0 ? options.traces : static_cast<std::size_t>(kQuickAdapterTraces * scale);
  const bool exact = traits.kind == ImplementationKind::kExactSet;
  const std::string configuration = configuration_of(traits);
  const model::TraceParameters header = header_of(traits);
  constexpr bool kHasClear = requires(Impl& i) { i.clear(); };
  const bool clear_ops = kHasClear && traits.clear_supported;

  auto check = [&make, &traits](const model::Trace& t) {
    TraceOutcome out;
    out.violation = replay_implementation(make, traits, t);
    return out;
  };
  auto run_plan = [&](const std::string& claim, const std::string& checked, std::size_t count,
                      std::function<model::Trace(std::uint64_t, std::size_t)> generate) {
    TaskContext ctx;
    ctx.seed = task_seed(options.seed, claim, traits.name, configuration);
    ctx.profile = options.profile;
    ctx.options = &run_options;
    TraceCheckPlan plan;
    plan.claim = claim;
    plan.engine = traits.name;
    plan.configuration = configuration;
    plan.checked = checked;
    plan.traces = count;
    plan.generate = std::move(generate);
    plan.check = check;
    plan.max_shrink_seconds = options.max_shrink_seconds;
    plan.replay_command_prefix = "replay_implementation(...) on";
    report.results.push_back(run_trace_check(plan, ctx.seed, &ctx));
  };
  // Keys: a range that fits well within capacity, so that C1 / C5 / C7 traces are about
  // answers, not about filling up (C6 fills).
  const std::uint64_t capacity = traits.capacity != 0 ? traits.capacity : kAssumedCapacity;
  const std::uint64_t roomy_keys = std::max<std::uint64_t>(4, std::min<std::uint64_t>(64, capacity / 4));
  auto shape_with = [&](subjects::OpWeights weights, std::uint64_t key_range, std::size_t ops) {
    subjects::TraceShape s;
    s.ops = ops;
    s.key_range = key_range;
    s.weights = weights;
    s.weights.clear = clear_ops ? 1 : 0;
    if (!traits.erase_supported) s.weights.erase = 0;
    s.erase_present_percent = 100;
    s.insert_values = exact;
    return s;
  };

  // C1
  if (wanted(options, "C1")) {
    run_plan("C1", "every inserted, not erased key is found", traces,
             [&](std::uint64_t seed, std::size_t) {
               subjects::TraceRng rng(seed);
               return subjects::generate_trace(traits.name, header,
                                     shape_with(subjects::OpWeights{35, 15, 45, 5, 0, 0, 0, 0},
                                                2 + rng.below(roomy_keys), 100 + rng.below(201)),
                                     rng.next());
             });
  }
  // C2
  if (!wanted(options, "C2")) {
  } else if (exact) {
    report.results.push_back(
        skipped("C2", traits, "an exact set has no false positives; C7 checks that."));
  } else if (promised_fpr(traits) == 0) {
    report.results.push_back(skipped(
        "C2", traits,
        "neither a false positive rate nor fingerprint_bits and slots_per_bucket are given: "
        "no bound to hold."));
  } else {
    const std::uint64_t queries =
        options.fpr_queries != 0 ? options.fpr_queries : kQuickFprQueries * scale;
    report.results.push_back(measure_fpr(
        make, traits, queries, task_seed(options.seed, "C2", traits.name, configuration)));
  }
  // C5
  if (!wanted(options, "C5")) {
  } else if (exact) {
    report.results.push_back(skipped("C5", traits, "an exact set stores no copies."));
  } else if (bool_insert<Impl>()) {
    report.results.push_back(skipped(
        "C5", traits,
        "insert returns bool, so a refusal at the copy limit cannot be told from kFull."));
  } else {
    run_plan("C5", "duplicate inserts up to the copy limit, erase of one copy, sizes", traces,
             [&](std::uint64_t seed, std::size_t) {
               subjects::TraceRng rng(seed);
               return subjects::generate_trace(traits.name, header,
                                     shape_with(subjects::OpWeights{50, 25, 15, 10, 0, 0, 0, 0},
                                                1 + rng.below(4), 100 + rng.below(101)),
                                     rng.next());
             });
  }
  // C6
  if (!wanted(options, "C6")) {
  } else if (traits.capacity == 0) {
    report.results.push_back(skipped("C6", traits, "capacity is not given: cannot overfill."));
  } else if (traits.capacity <= kSmallCapacity) {
    run_plan("C6", "inserts past capacity, then every stored key", traces,
             [&](std::uint64_t seed, std::size_t) {
               subjects::TraceRng rng(seed);
               const std::uint64_t keys = traits.capacity + 1 + rng.below(traits.capacity + 1);
               const auto ops = static_cast<std::size_t>(
                   std::min<std::uint64_t>(subjects::kMaxGeneratedOps, 3 * keys + 50));
               subjects::TraceShape s = shape_with(subjects::OpWeights{70, 0, 25, 5, 0, 0, 0, 0}, keys, ops);
               s.weights.clear = 0;
               return subjects::generate_trace(traits.name, header, s, rng.next());
             });
  } else if (c6_trace_cost(traits.capacity) > kC6MaxOverBudget * kC6LookupBudget * scale) {
    report.results.push_back(skipped(
        "C6", traits,
        "capacity " + std::to_string(traits.capacity) + " needs about " +
            std::to_string(c6_trace_cost(traits.capacity)) +
            " lookups per trace (every stored key after each refused insert), above this "
            "profile's budget: audit an instance with a smaller capacity, or a larger profile."));
  } else {
    // Insert distinct keys in random order to 2.25 capacity (and up to 1/16 more), then a
    // short random tail over the same keys: the refused inserts come at the end of the
    // fill and in the tail.
    const std::uint64_t budget = kC6LookupBudget * scale;
    const std::size_t c6_traces = static_cast<std::size_t>(std::max<std::uint64_t>(
        1, std::min<std::uint64_t>(traces, budget / c6_trace_cost(traits.capacity))));
    run_plan("C6", "fills past capacity, then a mixed tail; every stored key after each refusal",
             c6_traces, [&](std::uint64_t seed, std::size_t) {
               subjects::TraceRng rng(seed);
               const std::uint64_t keys = 2 * traits.capacity + traits.capacity / 4 + 1 +
                                          rng.below(traits.capacity / 16 + 1);
               std::vector<std::uint64_t> order(static_cast<std::size_t>(keys));
               for (std::uint64_t k = 0; k < keys; ++k) order[static_cast<std::size_t>(k)] = k;
               for (std::size_t i = order.size(); i > 1; --i) {  // bound: keys (Fisher-Yates)
                 std::swap(order[i - 1], order[static_cast<std::size_t>(rng.below(i))]);
               }
               subjects::TraceShape tail =
                   shape_with(subjects::OpWeights{70, 0, 25, 5, 0, 0, 0, 0}, keys,
                              static_cast<std::size_t>(100 + rng.below(201)));
               tail.weights.clear = 0;
               model::Trace t = subjects::generate_trace(traits.name, header, tail, rng.next());
               std::vector<model::TraceEntry> fill;
               fill.reserve(order.size() + t.entries.size());
               for (const std::uint64_t k : order) {
                 fill.push_back(model::TraceEntry{model::Op::insert(k, exact ? 1 + k % 1000 : 0),
                                                  std::nullopt, 0});
               }
               fill.insert(fill.end(), t.entries.begin(), t.entries.end());
               t.entries = std::move(fill);
               return t;
             });
  }
  // C7
  if (!wanted(options, "C7")) {
  } else if (!exact) {
    report.results.push_back(skipped("C7", traits, "applies to exact sets only."));
  } else {
    run_plan("C7", "every answer equals the set model's, absent keys included", traces,
             [&](std::uint64_t seed, std::size_t) {
               subjects::TraceRng rng(seed);
               return subjects::generate_trace(traits.name, header,
                                     shape_with(subjects::OpWeights{35, 25, 35, 5, 0, 0, 0, 0},
                                                2 + rng.below(roomy_keys * 2), 100 + rng.below(201)),
                                     rng.next());
             });
  }
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return report;
}

}  // namespace cuckoo::audit
