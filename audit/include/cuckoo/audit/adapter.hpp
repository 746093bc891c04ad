// Auditing another implementation: the claims that apply to any approximate membership
// filter, exact set or exact map (C1, C2, C3, C5, C6, C7), run against your code through a
// small adapter, reported in the same Report structure as the project's own engines, with
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
// Required: insert(key), contains(key), erase(key) on std::uint64_t keys, and size()
// unless traits.size is SizeMode::kAbsent. insert returns cuckoo::InsertResult (or any
// enum with an ADL to_string naming the outcomes, see model/insert_result.hpp), or bool:
//   - exact set: true = inserted, false = already present (kExists);
//   - filter: true = stored, false = refused (kFull). A bool cannot say "copy limit
//     reached", so for a bool filter the audit assumes no copy limit: C5 still checks
//     that an erase removes exactly one copy and the sizes, and C6 that a refused insert
//     changes nothing.
// Optional: clear() (then traces may hold clear ops), check_invariants() (void, bool or
// std::string; run after every op), prepare(const model::Trace&) (see "Pipelining"
// below), and for filters identity(key) (keys with equal
// identities are one item to the filter: for a partial-key cuckoo filter, fingerprint and
// smaller bucket), max_copies(key) and count(key); see model/subject.hpp. Without
// identity() the model tells keys apart by value, so two keys that the filter cannot tell
// apart share its copy limit unseen: give identity() for a filter with a copy limit, or
// C5 may fail on such an alias (the trace then names both keys). identity() is not
// trusted blindly: keys it makes one item must get equal contains() answers (below).
// Keys are uint64 trace keys. An implementation keyed by strings or bytes maps them in the
// adapter; cuckoo::audit::encode_key(ExecKeys::kMixed, key) (exec.hpp) gives the byte
// strings `cuckoo-audit exec` sends, which find hash-handling bugs (the empty key, zero
// bytes, 1-4 KiB keys, keys one bit or one late byte apart):
//   bool insert(std::uint64_t k) { return set.insert(encode_key(ExecKeys::kMixed, k)).second; }
// The factory is called once per trace and must return a fresh, empty instance, the same
// one every time (a fixed seed): a counterexample is only replayable if the
// implementation is deterministic.
//
// Exact maps (traits.kind = ImplementationKind::kExactMap): insert(key, value) and
// find(key) (returning std::optional<std::uint64_t>, a pointer, or anything testable and
// dereferenceable) instead of insert(key) and contains(key); erase(key); size() as above;
// optional insert_or_assign(key, value), contains(key), clear(), check_invariants(),
// prepare(). insert returns an InsertResult, or bool (false: kExists for a key the map
// holds, else kFull); insert_or_assign an InsertResult, or bool (true: inserted, false:
// assigned). Checked against model::MapModel: every answer (find's value included) and
// size equal the model's (C7); with a capacity, insert may answer kFull for a new key,
// and then nothing may be lost (C6); C3's fills insert values too. A map adapter with
// another kind, or kExactMap without a map adapter, is a UsageError.
//
// The copy limit: traits.max_copies, else max_copies(key), else 2 * slots_per_bucket.
// A filter that stores any number of copies declares
//   traits.max_copies = cuckoo::model::MultisetModel::kNoCopyLimit;   // exec: max_copies=none
// (also what a filter with neither max_copies nor slots_per_bucket, or a bool insert,
// is assumed to have).
//
// Sizes (traits.size): kExact (default) compares size() with the model after every insert,
// erase that answered true, clear and size op. kApproximate accepts an answer within
// kApproximateSizeSlack + kApproximateSizeFraction * n of the model's n (2 + 10%), and
// reports one outside that as a size mismatch. kAbsent never calls size() (the adapter
// may lack it; generated traces hold no size ops, and a trace's size ops are answered
// from the model).
//
// Failures of the implementation: an exception from any adapter call during a trace (the
// factory, prepare(), an op) is a violation of that trace ("exception", with the
// message), shrunk and reported like any other; during C2's or C3's measurement it is a
// FAIL of that claim with the message. The audit itself does not throw for them.
//
// Pipelining: an adapter whose calls are expensive one at a time (another process, see
// exec.hpp) may have prepare(const model::Trace& t): the audit calls it with the ops it
// is about to perform, in order, from the instance's current state: before checking a
// trace (the checker then performs exactly t's ops, stopping early at a violation, and
// in between asks size() after inserts, erases that answered true and clears, unless
// sizes are absent or set aside (size_checks=off, below), and after an insert answered
// kFull contains() of every stored key, in the model's distinct_keys() order; a trace's
// own size ops are not performed when sizes are absent or set aside), in C2 before the
// inserts, before the lookups of the stored keys and before each chunk of queries (C2
// stops inserting at the first refusal), and in C3 before each fill (the fill stops
// early, at kC3RefusalRun refusals in a row). The adapter may perform the ops ahead of
// the calls and answer them from what it recorded; it must still answer every call,
// announced or not, as the structure would at that point.
//
// What is run (ClaimResults with engine = traits.name, in the order C1 C2 C3 C5 C6 C7)
// ------------------------------------------------------------------------------------
//   C1  filters and sets: random traces of inserts (duplicates), erases of inserted keys,
//       lookups; every present key must be found. For an adapter with identity(), also
//       "identity-pair" traces: pairs of keys that identity() makes one item (found among
//       kIdentitySearchKeys keys), one of each inserted, then both looked up: they must
//       answer alike (a mismatch means identity() claims an alias the filter does not
//       have, or the filter loses the item). Then "C1 fill" traces (kC1FillFractions):
//       distinct keys to 50-100% of R, the items a probe fill (run_fill) held at its
//       first refusal, and kC1FillPastRefusal past it, so that kicks move items; earlier
//       keys are looked up between the inserts, every key at the end.
//   C2  filters with fingerprint_bits and slots_per_bucket, or a declared
//       false_positive_rate: load the filter to about 95% of capacity (or to its first
//       refused insert), check that it finds every key it stored (a filter that loses its
//       keys would show few false positives: FAIL, naming a lost key; nothing stored:
//       SKIP), query keys never inserted, and hold the false positive count to
//       the binomial bound at rate false_positive_rate when given, else
//       p = 1 - (1 - q)^(2b), q = (2^f + 2) / 4^f (one occupied slot's match
//       probability for a filter that maps fingerprint 0 to 1; about 2b / 2^f), at
//       confidence subjects::stats::kDefaultAlpha. Needs capacity (else 1000 items are assumed).
//   C3  filters and sets with a known capacity: fills of distinct new keys, every other
//       one (filters) after a burst of duplicates of one key (copy limit + 1 inserts, or
//       2b + 1 when there is none: what fills a victim slot). A fill stops at
//       kC3RefusalRun refusals (kFull) of new keys in a row; it FAILs when that happens
//       below the refusal floor: 50% of capacity for sets and filters with b >= 2, 25%
//       for b = 1 or unknown b. (One refusal at low load is not a finding: after a burst,
//       a key whose two buckets hold the burst's copies cannot be placed; a structure that
//       refuses everything, such as one whose victim slot is taken, fails.) Figures: the
//       load at the first refusal (lowest and mean) and the load reached. The failing
//       fill is a trace with refusal_floor=N refusal_run=R in its header, which
//       replay_implementation checks (violation "C3"), shrunk.
//   C5  filters: one key inserted many times, up to the copy limit, erased one copy at a
//       time; sizes. With a bool insert (no copy limit observable): the erases and sizes.
//   C6  filters and sets with a known capacity: inserts past capacity; a refused insert
//       loses nothing and changes the size by nothing. The checker looks up every stored
//       key after each refused insert, so a trace costs about capacity^2 lookups. Up to
//       kSmallCapacity (256) the traces are random mixes over 1..2 capacity keys; above
//       it a trace inserts distinct keys up to 2.25 capacity (a real table is often
//       larger than the capacity it was built for: rounded up to a power of two) and
//       then runs a short mixed tail. Either way the number of C6 traces is cut to a
//       budget of kC6LookupBudget lookups per profile step (at least one trace; from 200
//       to about 38 at capacity 256 in the quick profile; C6 is skipped when one fill
//       trace alone costs more than kC6MaxOverBudget budgets).
//   C7  exact sets: every answer equals the set model's (no false positives either).
//       Exact maps: random traces of insert, insert_or_assign (when the adapter has it),
//       find, contains, erase, size (and clear); every answer equals MapModel's.
//   For an exact map C1, C2 and C5 are SKIP (C7 checks every answer; no copies).
// Keys are small integers (0 .. a few hundred, up to about 2.3 capacity in C6; C2's
// queries start at 2^62, C3's fills at 2^61, the identity pairs at 2^48).
//
// A lost key or copy is charged to the op that lost it (attributed(): the first op after
// which the subject no longer holds every copy the model holds, by bisection over the
// trace's prefixes): a successful insert is C1, a refused one C6, a duplicate_limit or an
// erase C5. A filter that lost one of a key's copies still finds the key; the loss shows
// later, when its last reachable copy is erased or when it stores a copy past the limit,
// and is charged to the op that lost the copy all the same. Without identity(), a C5
// finding that two of the trace's keys the filter cannot tell apart explain is checked
// again with them one item (aliases_of()).
//
// Each result is labelled by the claim that broke, not by the traces that found it: a
// C1 trace that stops at a copy-limit violation is a finding of C5, a size mismatch is
// one of the size claim (C5 for filters: sizes count stored copies; C7 for sets), a
// false positive or a wrong "exists" of an exact set one of C7, a lost item one of C1 or
// C6; exceptions and failed invariants are charged to the claim whose traces ran. The
// traces go on after a finding of another claim, so one failure does not hide the
// others: after a size mismatch every later trace is checked with size_checks=off in its
// header (sizes are not compared, everything else is); a counterexample found then
// carries it, and replay_implementation honours it. A claim's traces stop at the first
// violation of that claim that cannot be set aside. Each claim's result has the first
// finding's shrunk counterexample; its summary names which traces found it, how many
// later traces broke it again (with one line for each other kind of violation), and what
// its own traces checked (and how many stopped early at another claim's violation).
// A violation of a claim left out by AuditOptions::claims is still reported, under its
// claim.
//
// Nondeterminism: each shrunk counterexample is checked again AuditOptions::confirm_replays
// times (5), each with a fresh instance. When it does not fail every time, the summary
// and the trace say NOT REPRODUCIBLE (the subject is nondeterministic) and a figure gives
// the count; the verdict stays FAIL (the subject did answer wrongly at least once).
//
// AuditOptions::claims restricts the run to those claims (the others are left out of the
// report, except as said above).
//
// The report's metadata: tool_version (the project version the library was built as),
// started_utc, and command (AuditOptions::command, else a description of the call with
// the traits and options that reproduce it).
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
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <deque>
#include <filesystem>
#include <functional>
#include <iterator>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
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
#include "cuckoo/model/map_model.hpp"
#include "cuckoo/model/multiset_model.hpp"
#include "cuckoo/model/subject.hpp"
#include "cuckoo/model/trace.hpp"
#include "cuckoo/model/violation.hpp"

namespace cuckoo::audit {

enum class ImplementationKind {
  kExactSet,           // contains() is exact: no false positives; set semantics
  kApproximateFilter,  // false positives allowed; duplicates stored as copies
  kExactMap,           // keys with values: insert(key, value), find(key); the map model
};

// What size() answers (see "Sizes" above).
enum class SizeMode {
  kExact,        // the number of stored copies (items, for a set)
  kApproximate,  // an estimate, within 2 + 10% of it
  kAbsent,       // nothing: size() is never called
};

inline const char* to_string(SizeMode mode) noexcept {
  switch (mode) {
    case SizeMode::kExact: return "exact";
    case SizeMode::kApproximate: return "approximate";
    case SizeMode::kAbsent: return "absent";
  }
  return "?";
}

// The largest capacity the auditor audits (2^22 items). C3 fills a fresh instance with
// about 2.3 times its capacity of inserts, C2 to 95% of it, C6 past it, and the auditor
// holds each such trace, its model and (exec) its recording of the answers in memory, up
// to a few hundred bytes a request; a larger capacity would exhaust the auditor's memory
// (and its sizes overflow 64 bits past 2^32), not test the implementation. Audit an
// instance built for fewer items.
inline constexpr std::uint64_t kMaxAuditCapacity = std::uint64_t{1} << 22;

// ImplementationTraits::max_copies when the copy limit is not known (exec: max_copies not
// declared): the limit is not checked. An insert answered duplicate_limit for a key whose
// item has copies is taken as a refusal that changes nothing (judged as `full` is: every
// stored key still found, the size unchanged); for a key with no copies it is a finding.
inline constexpr std::uint64_t kUnknownCopyLimit = model::MultisetModel::kNoCopyLimit - 1;

struct ImplementationTraits {
  // The trace header's engine name and the report's subject: letters, digits, "_", ".",
  // "-", starting with a letter or "_" ("libcuckoo.filter"). Checked: UsageError.
  std::string name;
  ImplementationKind kind = ImplementationKind::kApproximateFilter;
  // Filters, when known (0: unknown). f and b enable C2 and set the copy limit 2b.
  unsigned fingerprint_bits = 0;
  unsigned slots_per_bucket = 0;
  // Filters: copies of one item it stores at most; 0: 2 * slots_per_bucket, or no limit
  // when that is unknown or insert returns bool. model::MultisetModel::kNoCopyLimit: no
  // limit (any number of copies is stored, or refused as kFull). kUnknownCopyLimit: not
  // known, not checked (see there).
  std::uint64_t max_copies = 0;
  // Items (slots, for a filter) the fresh instance holds; 0: unknown (C3 and C6 skipped).
  // At most kMaxAuditCapacity. Checked: UsageError.
  std::uint64_t capacity = 0;
  // Filters: the false positive rate it promises at capacity, in (0, 1); 0: derived from
  // fingerprint_bits and slots_per_bucket (C2 is skipped when neither is known).
  double false_positive_rate = 0;
  // What size() answers: exactly, approximately, or nothing (then it is never called).
  SizeMode size = SizeMode::kExact;
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
  // Times each shrunk counterexample is checked again with fresh instances (a failure
  // that does not repeat every time is marked not reproducible); 0: not checked again.
  std::size_t confirm_replays = 5;
  // The report's command (what reproduces the run); empty: a description of the call.
  std::string command;
  // Called as each step starts, with what it runs ("C6: 38 traces (...)", "C2: 200000
  // queries"): progress for a slow subject. Called from the auditing thread.
  std::function<void(const std::string& step)> on_step;
  // Called as each finding is made (shrunk, confirmed, its counterexample file written):
  // the FAIL result its claim has so far. Later findings of other claims follow; the
  // returned report has the final results.
  std::function<void(const ClaimResult& finding)> on_finding;
  // Stopping early: when set, checked before and after every trace, step and shrinking
  // attempt; once it returns true the audit returns at once with what it has. A claim
  // with a finding is FAIL with it; a claim whose checks did not all run is SKIP ("not
  // finished"), never PASS; a trace or measurement that was running when it became true
  // counts for nothing (the subject may have been stopped under it).
  std::function<bool()> stop;
  // Called with true before a counterexample is shrunk and with false before the shrunk
  // trace's final check (an exec subject shortens its timeout after a hang meanwhile).
  std::function<void(bool shrinking)> on_shrinking;
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
// size=approximate: an answer s for n stored is accepted when |s - n| <= slack + fraction n.
inline constexpr std::uint64_t kApproximateSizeSlack = 2;
inline constexpr double kApproximateSizeFraction = 0.10;
// C3: a fill stops at this many refusals of new keys in a row; a fill that stops below
// the refusal floor (this fraction of capacity) fails.
inline constexpr std::uint64_t kC3RefusalRun = 8;
inline constexpr double kC3Floor = 0.5;         // sets, and filters with b >= 2
inline constexpr double kC3FloorSmallB = 0.25;  // filters with b = 1 or b unknown
// C3: fills per profile step (every other one after a burst), and inserts offered per
// profile step at most (at least one fill runs).
inline constexpr std::size_t kC3Fills = 4;
inline constexpr std::uint64_t kC3InsertBudget = 2'000'000;
inline constexpr std::uint64_t kFillKeyBase = std::uint64_t{1} << 61;
// C1's fill traces: distinct keys inserted to these fractions of R, the items a probe
// fill of a fresh instance held at its first refusal (R is measured, not taken from the
// declared capacity: a table of 2^k buckets often holds up to about twice the capacity it
// was built for, and kicks start well below its first refusal), the last one
// kC1FillPastRefusal keys past R; lookups of earlier keys between the inserts and of every
// key at the end look up the items the kicks moved.
inline constexpr double kC1FillFractions[] = {0.5, 0.8, 0.9, 0.97, 1.0};
inline constexpr std::uint64_t kC1FillPastRefusal = 16;
// Fill traces per profile step, and the ops they may cost per step (at least one trace;
// none when one alone costs more than kC6MaxOverBudget budgets).
inline constexpr std::size_t kC1FillTraces = 10;
inline constexpr std::uint64_t kC1FillOpBudget = 2'000'000;
// Of the inserts of a fill trace, this percentage is followed by a lookup of an earlier
// key, and (when erases are supported) this one by an erase of an earlier key.
inline constexpr std::uint64_t kC1FillLookupPercent = 40;
inline constexpr std::uint64_t kC1FillErasePercent = 5;
// C1's identity pairs: keys searched, pairs kept, pairs per trace.
inline constexpr std::uint64_t kIdentitySearchKeys = std::uint64_t{1} << 18;
inline constexpr std::size_t kIdentityPairs = 64;
inline constexpr std::size_t kIdentityPairsPerTrace = 16;
inline constexpr std::uint64_t kIdentityKeyBase = std::uint64_t{1} << 48;
// Trace header parameters the adapter's check reads.
inline constexpr const char* kSizeChecksParameter = "size_checks";      // on | off
inline constexpr const char* kRefusalFloorParameter = "refusal_floor";  // items
inline constexpr const char* kRefusalRunParameter = "refusal_run";      // refusals in a row

// The claims audit_implementation knows, in report order.
inline constexpr const char* kAdapterClaims[] = {"C1", "C2", "C3", "C5", "C6", "C7"};

template <class Impl>
constexpr bool kHasPrepare = requires(Impl& i, const model::Trace& t) { i.prepare(t); };
template <class Impl>
constexpr bool kHasSize = requires(Impl& i) { i.size(); };
template <class Impl>
constexpr bool kHasIdentity = requires(Impl& i, std::uint64_t key) { i.identity(key); };
// An exact map's adapter: insert(key, value) and find(key).
template <class Impl>
constexpr bool kMapAdapter = requires(Impl& i, std::uint64_t key, std::uint64_t value) {
  i.insert(key, value);
  i.find(key);
};

// C6's fill-then-tail traces: the distinct keys inserted at most, and the lookups a trace
// costs at most for a structure that refuses at `capacity`: every insert past it (the
// rest of the fill, the tail's) looks up the `capacity` stored keys.
inline std::uint64_t c6_fill_keys(std::uint64_t capacity) {
  return 2 * capacity + capacity / 4 + capacity / 16 + 1;
}
// A load (items / capacity) in summaries: "0.950", "1.243".
inline std::string load_text(double load) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3f", load);
  return text;
}

// The lookups of one C6 random-mix trace (capacities up to kSmallCapacity), from above:
// about 1.5 capacity keys and 3 ops a key; once full, about every other op is a refused
// insert, after which every stored key (up to capacity) is looked up.
inline std::uint64_t c6_mix_trace_cost(std::uint64_t capacity) {
  const std::uint64_t keys = capacity + 1 + capacity / 2;
  return (3 * keys + 50) * capacity / 2 + 1;
}
inline std::uint64_t c6_trace_cost(std::uint64_t capacity) {
  return capacity * (c6_fill_keys(capacity) - capacity + 210) + c6_fill_keys(capacity) + 300;
}

// C1's fill traces: the distinct keys of fill `index` for a probe refused at `refused`
// items, and what a fill costs at most: its ops, and for the last fraction a lookup of
// every stored key after each of (up to about) 2 kC1FillPastRefusal refusals.
inline std::uint64_t c1_fill_keys(std::uint64_t refused, std::size_t index) {
  const std::size_t i = index % std::size(kC1FillFractions);
  const auto keys = static_cast<std::uint64_t>(
      std::ceil(static_cast<double>(refused) * kC1FillFractions[i]));
  return std::max<std::uint64_t>(2, keys + (i + 1 == std::size(kC1FillFractions) ? kC1FillPastRefusal : 0));
}
inline std::uint64_t c1_fill_cost(std::uint64_t refused) {
  return 3 * (refused + kC1FillPastRefusal) + 2 * kC1FillPastRefusal * (refused + kC1FillPastRefusal);
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

// size=approximate: is `reported` close enough to the exact `n`?
inline bool size_within(std::uint64_t reported, std::uint64_t n) {
  const double slack = static_cast<double>(kApproximateSizeSlack) +
                       kApproximateSizeFraction * static_cast<double>(n);
  const std::uint64_t diff = reported > n ? reported - n : n - reported;
  return static_cast<double>(diff) <= slack;
}

// "7..13": the answers size=approximate accepts for `n` stored.
inline std::string size_tolerance_text(std::uint64_t n) {
  const auto slack = static_cast<std::uint64_t>(static_cast<double>(kApproximateSizeSlack) +
                                                kApproximateSizeFraction * static_cast<double>(n));
  return std::to_string(n > slack ? n - slack : 0) + ".." + std::to_string(n + slack);
}

// "50%".
inline std::string percent_text(double fraction) {
  std::ostringstream text;
  text << fraction * 100 << "%";
  return text.str();
}

// A violation about sizes: size() disagreed with the model (whatever claim the checker
// charged it to).
inline bool is_size_violation(const model::Violation& v) {
  return v.expected.rfind("size ", 0) == 0 && v.actual.rfind("size ", 0) == 0;
}

// How one trace is checked: the declared size mode (kAbsent when the trace says
// size_checks=off) and C3's refusal floor (0: none).
struct CheckSettings {
  SizeMode size = SizeMode::kExact;
  std::uint64_t refusal_floor = 0;
  std::uint64_t refusal_run = kC3RefusalRun;
};

// Throws std::invalid_argument for a malformed size_checks, refusal_floor or refusal_run.
inline CheckSettings settings_of(const ImplementationTraits& traits, const model::TraceParameters& p) {
  CheckSettings s;
  s.size = traits.size;
  try {
    const std::string checks = p.get_string_or(kSizeChecksParameter, "on");
    if (checks == "off") {
      s.size = SizeMode::kAbsent;
    } else if (checks != "on") {
      throw std::invalid_argument(std::string("trace header: ") + kSizeChecksParameter +
                                  " is on or off, not '" + checks + "'");
    }
    s.refusal_floor = p.get_u64_or(kRefusalFloorParameter, 0);
    s.refusal_run = std::max<std::uint64_t>(1, p.get_u64_or(kRefusalRunParameter, kC3RefusalRun));
  } catch (const model::TraceError& e) {
    throw std::invalid_argument(e.what());
  }
  return s;
}

// What the subject wrappers below watch besides the checker: the answers to size() as
// `settings` say (given the model's size), and C3's refusal floor.
class SubjectWatch {
 public:
  // C3: the first time refusal_run new keys were refused in a row below the floor.
  struct Breach {
    std::uint64_t insert = 0;  // 0-based number of the insert call
    std::uint64_t stored = 0;  // items stored then
  };
  // size=approximate: the first answer outside the tolerance.
  struct Deviation {
    std::uint64_t expected = 0;
    std::uint64_t actual = 0;
  };

  explicit SubjectWatch(CheckSettings settings) : settings_(settings) {}

  // An insert answered `result`; `fresh`: the key was not stored (with `stored` items).
  void insert(bool fresh, std::uint64_t stored, model::InsertResult result) {
    const std::uint64_t number = inserts_++;
    if (settings_.refusal_floor == 0 || !fresh) return;
    if (result == model::InsertResult::kFull && stored < settings_.refusal_floor) {
      if (++refusals_in_a_row_ >= settings_.refusal_run && !breach_) breach_ = Breach{number, stored};
    } else if (result == model::InsertResult::kInserted) {
      refusals_in_a_row_ = 0;
    }
  }
  // The answer to size() when the model holds `expected` (nothing: no model) and
  // `read()` asks the subject (nothing: it has no size()).
  template <class Read>
  std::uint64_t size(std::optional<std::uint64_t> expected, Read&& read) {
    if (settings_.size == SizeMode::kAbsent && expected) return *expected;
    const std::optional<std::uint64_t> actual = read();
    if (!actual) return expected.value_or(0);
    if (settings_.size == SizeMode::kApproximate && expected) {
      if (size_within(*actual, *expected)) return *expected;
      if (!deviation_) deviation_ = Deviation{*expected, *actual};
    }
    return *actual;
  }

  const std::optional<Breach>& breach() const { return breach_; }
  const std::optional<Deviation>& deviation() const { return deviation_; }
  const CheckSettings& settings() const { return settings_; }

 private:
  CheckSettings settings_;
  std::uint64_t inserts_ = 0;
  std::uint64_t refusals_in_a_row_ = 0;
  std::optional<Breach> breach_;
  std::optional<Deviation> deviation_;
};

// size() of an adapter subject: the implementation's answer (nothing when it has no
// size()) judged by the watch against the model's count (nothing without a model).
template <class Impl, class Model>
std::uint64_t watched_size(SubjectWatch& watch, const Model* model, Impl& impl) {
  std::optional<std::uint64_t> expected;
  if (model != nullptr) expected = model->size();
  return watch.size(expected, [&impl]() -> std::optional<std::uint64_t> {
    if constexpr (kHasSize<Impl>) {
      return static_cast<std::uint64_t>(impl.size());
    } else {
      (void)impl;
      return std::nullopt;
    }
  });
}

// The user's adapter (a filter or a set) as a subject of the model checker. With a model
// (the checker's, the same object), it answers size() as `settings` say and watches the
// refusal floor.
template <class Impl>
class ImplementationSubject {
 public:
  ImplementationSubject(Impl& impl, const ImplementationTraits& traits,
                        model::MultisetModel* model = nullptr, CheckSettings settings = {})
      : impl_(&impl), traits_(&traits), model_(model), watch_(settings) {}

  model::InsertResult insert(std::uint64_t key) {
    const bool fresh = model_ != nullptr && model_->identity_count(key) == 0;
    const std::uint64_t stored = model_ != nullptr ? model_->size() : 0;
    model::InsertResult result = raw_insert(key);
    if (result == model::InsertResult::kDuplicateLimit && traits_->max_copies == kUnknownCopyLimit &&
        model_ != nullptr && model_->identity_count(key) > 0) {
      result = model::InsertResult::kFull;  // an unknown limit: a refusal, judged as one
    }
    watch_.insert(fresh, stored, result);
    return result;
  }
  bool contains(std::uint64_t key) { return static_cast<bool>(impl_->contains(key)); }
  bool erase(std::uint64_t key) { return static_cast<bool>(impl_->erase(key)); }
  std::uint64_t size() { return watched_size(watch_, model_, *impl_); }
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
  bool has_identity()
    requires requires(Impl& i) { i.identity(0); }
  {
    return model::identity_available(*impl_);
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
    if (bool_insert<Impl>() || traits_->max_copies == kUnknownCopyLimit ||
        (traits_->max_copies == 0 && traits_->slots_per_bucket == 0)) {
      t.max_copies = model::MultisetModel::kNoCopyLimit;  // cannot be observed; see above
    } else {
      t.max_copies = traits_->max_copies;  // 0: 2 * slots_per_bucket
    }
    return t;
  }

  const SubjectWatch& watch() const { return watch_; }

 private:
  model::InsertResult raw_insert(std::uint64_t key) {
    if constexpr (bool_insert<Impl>()) {
      if (impl_->insert(key)) return model::InsertResult::kInserted;
      return exact() ? model::InsertResult::kExists : model::InsertResult::kFull;
    } else {
      return model::to_model_result(impl_->insert(key));
    }
  }
  bool exact() const { return traits_->kind == ImplementationKind::kExactSet; }
  Impl* impl_;
  const ImplementationTraits* traits_;
  model::MultisetModel* model_;
  SubjectWatch watch_;
};

// An exact map's adapter (insert(key, value), find(key), erase, size; optional
// insert_or_assign, contains, clear, check_invariants) as a subject of the map checker.
// A bool insert answers true = inserted, false = not inserted: kExists for a key the
// model holds, else kFull (allowed only with a capacity, see traits()). A bool
// insert_or_assign answers true = inserted, false = assigned (kUpdated).
template <class Impl>
class MapImplementationSubject {
 public:
  MapImplementationSubject(Impl& impl, const ImplementationTraits& traits,
                           model::MapModel* model = nullptr, CheckSettings settings = {})
      : impl_(&impl), traits_(&traits), model_(model), watch_(settings) {}

  model::InsertResult insert(std::uint64_t key, std::uint64_t value) {
    const bool fresh = model_ != nullptr && !model_->contains(key);
    const std::uint64_t stored = model_ != nullptr ? model_->size() : 0;
    model::InsertResult result = model::InsertResult::kFull;
    if constexpr (kBoolInsert<decltype(impl_->insert(key, value))>) {
      if (impl_->insert(key, value)) {
        result = model::InsertResult::kInserted;
      } else {
        result = fresh || model_ == nullptr ? model::InsertResult::kFull : model::InsertResult::kExists;
      }
    } else {
      result = model::to_model_result(impl_->insert(key, value));
    }
    watch_.insert(fresh, stored, result);
    return result;
  }
  model::InsertResult insert_or_assign(std::uint64_t key, std::uint64_t value)
    requires requires(Impl& i) { i.insert_or_assign(key, value); }
  {
    if constexpr (kBoolInsert<decltype(impl_->insert_or_assign(key, value))>) {
      return impl_->insert_or_assign(key, value) ? model::InsertResult::kInserted
                                                 : model::InsertResult::kUpdated;
    } else {
      return model::to_model_result(impl_->insert_or_assign(key, value));
    }
  }
  std::optional<std::uint64_t> find(std::uint64_t key) {
    return model::to_optional_value(impl_->find(key));
  }
  bool contains(std::uint64_t key)
    requires requires(Impl& i) { i.contains(key); }
  {
    return static_cast<bool>(impl_->contains(key));
  }
  bool erase(std::uint64_t key) { return static_cast<bool>(impl_->erase(key)); }
  std::uint64_t size() { return watched_size(watch_, model_, *impl_); }
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
  model::SubjectTraits traits() const {
    model::SubjectTraits t = model::default_map_traits();
    t.has_growth_limit = traits_->capacity != 0;  // a capacity: kFull allowed for a new key
    return t;
  }

  const SubjectWatch& watch() const { return watch_; }

 private:
  Impl* impl_;
  const ImplementationTraits* traits_;
  model::MapModel* model_;
  SubjectWatch watch_;
};

// The checker's verdict on a trace, completed with what the subject wrapper saw: a C3
// refusal-floor breach before the checker's violation, the tolerance of an approximate size.
inline std::optional<model::Violation> judged(const SubjectWatch& subject, const model::Trace& trace,
                                              std::optional<model::Violation> found,
                                              std::uint64_t seed) {
  if (const auto& breach = subject.breach()) {
    std::uint64_t inserts = 0;
    std::size_t index = trace.entries.size();
    for (std::size_t i = 0; i < trace.entries.size(); ++i) {  // bound: the trace
      if (trace.entries[i].op.kind != model::OpKind::kInsert) continue;
      if (inserts++ == breach->insert) {
        index = i;
        break;
      }
    }
    if (index < trace.entries.size() && (!found || index < found->op_index)) {
      const CheckSettings& s = subject.settings();
      model::Violation v;
      v.claim = "C3";
      v.op_index = index;
      v.op = trace.entries[index].op;
      v.expected = "new keys stored while fewer than " + std::to_string(s.refusal_floor) +
                   " items are stored (the refusal floor; at most " +
                   std::to_string(s.refusal_run - 1) + " refusals of new keys in a row)";
      v.actual = std::to_string(s.refusal_run) + " new keys refused in a row (full) with " +
                 std::to_string(breach->stored) + " items stored";
      v.seed = seed;
      found = std::move(v);
    }
  }
  if (found && subject.deviation() && is_size_violation(*found)) {
    found->expected += " (size=approximate: within " +
                       size_tolerance_text(subject.deviation()->expected) + ")";
  }
  return found;
}

inline model::TraceParameters header_of(const ImplementationTraits& traits) {
  model::TraceParameters p;
  p.set("kind", traits.kind == ImplementationKind::kExactSet   ? "exact_set"
                : traits.kind == ImplementationKind::kExactMap ? "exact_map"
                                                               : "filter");
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
  if (traits.capacity > kMaxAuditCapacity) {
    throw UsageError("ImplementationTraits::capacity " + std::to_string(traits.capacity) +
                     " is above " + std::to_string(kMaxAuditCapacity) +
                     " (kMaxAuditCapacity), the largest capacity the auditor audits: audit an "
                     "instance built for fewer items");
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
                       "' for an implementation audit (expected C1, C2, C3, C5, C6 or C7)");
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
  std::string c = traits.kind == ImplementationKind::kExactSet   ? "exact set"
                  : traits.kind == ImplementationKind::kExactMap ? "exact map"
                                                                 : "filter";
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
  } else if (traits.max_copies == kUnknownCopyLimit) {
    c += " max_copies=unknown";
  } else if (traits.max_copies != 0) {
    c += " max_copies=" + std::to_string(traits.max_copies);
  }
  if (traits.size != SizeMode::kExact) c += std::string(" size=") + to_string(traits.size);
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

// The claim a violation broke (see "Each result is labelled ..." above); `row` is the
// claim whose traces found it, charged with exceptions, failed invariants and the rest.
inline std::string claim_broken(const ImplementationTraits& traits, const model::Violation& v,
                                const std::string& row) {
  const bool exact = traits.kind != ImplementationKind::kApproximateFilter;
  if (v.claim == "size") return exact ? "C7" : "C5";
  if (v.claim == "C1" || v.claim == "C3" || v.claim == "C6" || v.claim == "C7") return v.claim;
  if (v.claim == "C2" || v.claim == "C5") return exact ? "C7" : v.claim;
  return row;
}

// What later traces set aside after `v`: sizes, after a size mismatch.
inline std::vector<std::pair<std::string, std::string>> set_aside_after(
    const ImplementationTraits& traits, const model::Violation& v) {
  if (traits.size != SizeMode::kAbsent && is_size_violation(v)) {
    return {{kSizeChecksParameter, "off"}};
  }
  return {};
}

// C3's refusal floor in items, and its fraction of capacity.
inline double refusal_floor_fraction(const ImplementationTraits& traits) {
  if (traits.kind != ImplementationKind::kApproximateFilter || traits.slots_per_bucket >= 2) {
    return kC3Floor;
  }
  return kC3FloorSmallB;
}
inline std::uint64_t refusal_floor_items(const ImplementationTraits& traits) {
  return static_cast<std::uint64_t>(
      std::ceil(static_cast<double>(traits.capacity) * refusal_floor_fraction(traits)));
}

// C3's burst: the copy limit + 1 inserts of one key, or 2b + 1 (b = 4 when unknown) when
// there is no limit.
template <class Impl>
std::uint64_t burst_length(const ImplementationTraits& traits) {
  std::uint64_t limit = model::MultisetModel::kNoCopyLimit;
  if (!bool_insert<Impl>()) {
    if (traits.max_copies == kUnknownCopyLimit) {
      limit = model::MultisetModel::kNoCopyLimit;
    } else if (traits.max_copies != 0) {
      limit = traits.max_copies;
    } else if (traits.slots_per_bucket != 0) {
      limit = 2ULL * traits.slots_per_bucket;
    }
  }
  if (limit != model::MultisetModel::kNoCopyLimit) return std::min<std::uint64_t>(limit + 1, 129);
  return 2ULL * (traits.slots_per_bucket != 0 ? traits.slots_per_bucket : 4) + 1;
}

inline double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// C2: the measured false positive rate against the binomial bound, after checking that
// the filter finds the keys it stored.
// When stored keys are not found, `lost_trace` (may be null) receives a trace that shows
// it: the fill's inserts and a lookup of the first key lost (a C1 finding).
template <class Factory>
ClaimResult measure_fpr(Factory& make, const ImplementationTraits& traits, std::uint64_t queries,
                        std::uint64_t seed, std::optional<model::Trace>* lost_trace = nullptr) {
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
  std::uint64_t lost = 0;
  std::optional<std::uint64_t> first_lost;
  std::uint64_t positives = 0;
  auto announce = [&traits](Impl& impl, auto&& fill) {
    if constexpr (kHasPrepare<Impl>) {
      model::Trace plan;
      plan.engine = traits.name;
      fill(plan);
      impl.prepare(plan);
    } else {
      (void)traits;
      (void)impl;
      (void)fill;
    }
  };
  try {
    auto impl = make();
    ImplementationSubject subject(impl, traits);
    announce(impl, [&](model::Trace& plan) {
      for (std::uint64_t k = 0; k < target; ++k) plan.add(model::Op::insert(key_offset + k));
    });
    std::uint64_t offered = 0;
    for (std::uint64_t k = 0; k < target; ++k) {  // bound: target
      ++offered;
      if (subject.insert(key_offset + k) != model::InsertResult::kInserted) break;
      ++stored;
    }
    // A filter that loses its keys shows few false positives: first, every stored key.
    announce(impl, [&](model::Trace& plan) {
      for (std::uint64_t k = 0; k < stored; ++k) plan.add(model::Op::contains(key_offset + k));
    });
    for (std::uint64_t k = 0; k < stored; ++k) {  // bound: stored
      if (!subject.contains(key_offset + k)) {
        ++lost;
        if (!first_lost) first_lost = key_offset + k;
      }
    }
    if (lost != 0 && lost_trace != nullptr) {
      model::Trace t;
      t.engine = traits.name;
      t.parameters = header_of(traits);
      for (std::uint64_t k = 0; k < offered; ++k) t.add(model::Op::insert(key_offset + k));
      t.add(model::Op::contains(*first_lost));
      *lost_trace = std::move(t);
    }
    // The false positives are counted even when some keys were lost (C1 reports those):
    // a filter that loses keys may well have too many false positives as well. One that
    // finds none of them holds nothing to measure.
    if (stored != 0 && lost < stored) {
      for (std::uint64_t first = 0; first < queries; first += kFprQueryChunk) {
        const std::uint64_t last = std::min(queries, first + kFprQueryChunk);
        announce(impl, [&](model::Trace& plan) {
          for (std::uint64_t i = first; i < last; ++i) {
            plan.add(model::Op::contains(kQueryKeyBase + key_offset + i));
          }
        });
        for (std::uint64_t i = first; i < last; ++i) {  // bound: queries
          positives += subject.contains(kQueryKeyBase + key_offset + i) ? 1 : 0;
        }
      }
    }
  } catch (const std::exception& e) {
    r.verdict = Verdict::kFail;
    r.summary = std::string("the subject failed during the measurement (after ") +
                std::to_string(stored) + " stored items): " + e.what();
    r.seconds = seconds_since(start);
    return r;
  }
  Figure load;
  load.name = "load factor";
  load.value = static_cast<double>(stored) / static_cast<double>(capacity);
  if (stored == 0) {
    r.verdict = Verdict::kSkipped;
    r.summary = "the filter refused its first insert: with nothing stored there is no false "
                "positive rate to measure (C3 checks refusals at low load).";
    r.figures = {load};
    r.seconds = seconds_since(start);
    return r;
  }
  if (lost != 0 && lost == stored) {
    Figure missing;
    missing.name = "stored keys not found";
    missing.value = static_cast<double>(lost);
    missing.bound = 0;
    missing.relation = "==";
    missing.note = "of " + std::to_string(stored) + " keys inserted (answered inserted)";
    r.figures = {missing, load};
    r.samples = stored;
    r.verdict = Verdict::kFail;
    r.summary = "the filter does not find " + std::to_string(lost) + " of the " +
                std::to_string(stored) + " keys it stored (e.g. key " +
                std::to_string(*first_lost) +
                ", inserted and answered 'inserted', then contains => false): with nothing "
                "held there is no false positive rate to measure (C1 reports the lost keys).";
    r.seconds = seconds_since(start);
    return r;
  }
  std::string lost_text;
  Figure missing;
  if (lost != 0) {
    missing.name = "stored keys not found";
    missing.value = static_cast<double>(lost);
    missing.note = "of " + std::to_string(stored) +
                   " keys inserted (answered inserted): a C1 finding, reported under C1";
    lost_text = " The filter does not find " + std::to_string(lost) + " of the " +
                std::to_string(stored) + " keys it stored (e.g. key " +
                std::to_string(*first_lost) +
                ", inserted and answered 'inserted', then contains => false): reported "
                "under C1; the false positives were counted all the same.";
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
  Figure count;
  count.name = "false positives";
  count.value = static_cast<double>(positives);
  count.bound = static_cast<double>(max_count);
  count.relation = "<=";
  r.figures = {rate, count, load};
  if (lost != 0) r.figures.push_back(missing);
  r.samples = queries;
  r.verdict = positives <= max_count ? Verdict::kPass : Verdict::kFail;
  r.summary = (lost == 0 ? "every one of the " + std::to_string(stored) + " stored keys found; "
                         : std::to_string(stored - lost) + " of the " + std::to_string(stored) +
                               " stored keys found; ") +
              std::to_string(positives) + " false positives in " + std::to_string(queries) +
              " queries at load " + load_text(load.value) + ": " +
              (r.verdict == Verdict::kPass ? "within" : "above") + " the bound of " +
              std::to_string(max_count) + " for " +
              (declared ? "the declared rate " + std::to_string(p)
                        : "f=" + std::to_string(traits.fingerprint_bits) +
                              " b=" + std::to_string(traits.slots_per_bucket)) +
              "." + lost_text;
  r.seconds = seconds_since(start);
  return r;
}

// C3: one fill of a fresh instance (after a burst of `burst` inserts of one key), as the
// trace of the inserts performed.
struct FillOutcome {
  std::uint64_t stored = 0;                    // items stored when it stopped
  std::optional<std::uint64_t> first_refusal;  // items stored at the first refusal of a new key
  bool stuck = false;                          // stopped at kC3RefusalRun refusals in a row
  model::Trace trace;                          // the inserts performed
};

template <class Factory>
FillOutcome run_fill(Factory& make, const ImplementationTraits& traits,
                     const model::TraceParameters& header, std::uint64_t key_offset,
                     std::uint64_t burst, std::uint64_t offers) {
  using Impl = std::remove_cvref_t<decltype(make())>;
  FillOutcome out;
  out.trace.engine = traits.name;
  out.trace.parameters = header;
  const bool values = traits.kind == ImplementationKind::kExactMap;
  auto insert_op = [values](std::uint64_t key) {
    return model::Op::insert(key, values ? 1 + key % 1000 : 0);
  };
  for (std::uint64_t i = 0; i < burst; ++i) out.trace.add(insert_op(key_offset));
  for (std::uint64_t k = 1; k <= offers; ++k) out.trace.add(insert_op(key_offset + k));
  auto impl = make();
  if constexpr (kHasPrepare<Impl>) {
    model::Trace plan = out.trace;  // the measurement asks no sizes
    plan.parameters.set(kSizeChecksParameter, "off");
    impl.prepare(plan);
  }
  std::uint64_t in_a_row = 0;
  std::size_t done = 0;
  // One insert's answer; true: stop (kC3RefusalRun refusals of new keys in a row).
  auto account = [&](bool fresh, model::InsertResult result, std::uint64_t stored) {
    ++done;
    if (result == model::InsertResult::kInserted) {
      if (fresh) in_a_row = 0;
    } else if (result == model::InsertResult::kFull && fresh) {
      if (!out.first_refusal) out.first_refusal = stored;
      if (++in_a_row >= kC3RefusalRun) {
        out.stuck = true;
        return true;
      }
    }
    return false;
  };
  if constexpr (kMapAdapter<Impl>) {
    model::MapModel model;
    MapImplementationSubject subject(impl, traits);
    for (const model::TraceEntry& e : out.trace.entries) {  // bound: burst + offers
      const bool fresh = !model.contains(e.op.key);
      const model::InsertResult result = subject.insert(e.op.key, e.op.value);
      if (result == model::InsertResult::kInserted) model.insert(e.op.key, e.op.value);
      if (account(fresh, result, model.size())) break;
    }
    out.stored = model.size();
  } else {
    model::MultisetModel model;
    if constexpr (kHasIdentity<Impl>) {
      if (traits.kind == ImplementationKind::kApproximateFilter && model::identity_available(impl)) {
        model.set_identity([&impl](std::uint64_t key) { return static_cast<std::uint64_t>(impl.identity(key)); });
      }
    }
    ImplementationSubject subject(impl, traits);
    for (const model::TraceEntry& e : out.trace.entries) {  // bound: burst + offers
      const bool fresh = model.identity_count(e.op.key) == 0;
      const model::InsertResult result = subject.insert(e.op.key);
      if (result == model::InsertResult::kInserted) model.insert(e.op.key);
      if (account(fresh, result, model.size())) break;
    }
    out.stored = model.size();
  }
  out.trace.entries.resize(done);
  return out;
}

// C3: fills with distinct new keys; FAIL when one keeps refusing below the floor.
template <class Factory, class Check>
ClaimResult measure_refusal_load(Factory& make, const ImplementationTraits& traits,
                                 std::size_t fills, std::uint64_t seed,
                                 const model::TraceParameters& set_aside, const Check& check,
                                 const AuditOptions& options, const TaskContext& ctx) {
  using Impl = std::remove_cvref_t<decltype(make())>;
  const auto start = std::chrono::steady_clock::now();
  ClaimResult r;
  r.claim = "C3";
  r.engine = traits.name;
  r.configuration = configuration_of(traits);
  r.seed = seed;
  const std::uint64_t capacity = traits.capacity;
  const std::uint64_t floor = refusal_floor_items(traits);
  const std::uint64_t offers = c6_fill_keys(capacity);
  std::uint64_t burst = 0;  // sets and maps store no copies
  if constexpr (!kMapAdapter<Impl>) {
    if (traits.kind == ImplementationKind::kApproximateFilter) burst = burst_length<Impl>(traits);
  }
  model::TraceParameters header = header_of(traits);
  for (const auto& [name, value] : set_aside.entries()) header.set(name, value);
  header.set(kRefusalFloorParameter, std::to_string(floor));
  header.set(kRefusalRunParameter, std::to_string(kC3RefusalRun));
  subjects::TraceRng rng(seed);

  double lowest_first = std::numeric_limits<double>::infinity();
  double sum_first = 0;
  std::size_t refused_fills = 0;
  double lowest_reached = std::numeric_limits<double>::infinity();
  std::uint64_t offered = 0;
  std::size_t done = 0;
  std::optional<FillOutcome> failing;
  bool failing_burst = false;
  for (std::size_t j = 0; j < fills; ++j) {  // bound: fills
    const bool with_burst = burst != 0 && j % 2 == 0;
    const std::uint64_t key_offset = kFillKeyBase + rng.below(std::uint64_t{1} << 40);
    FillOutcome fill;
    try {
      fill = run_fill(make, traits, header, key_offset, with_burst ? burst : 0, offers);
    } catch (const std::exception& e) {
      r.verdict = Verdict::kFail;
      r.summary = "the subject failed during fill " + std::to_string(j + 1) + ": " + e.what();
      r.seconds = seconds_since(start);
      return r;
    }
    ++done;
    offered += fill.trace.size();
    const double reached = static_cast<double>(fill.stored) / static_cast<double>(capacity);
    lowest_reached = std::min(lowest_reached, reached);
    if (fill.first_refusal) {
      const double first = static_cast<double>(*fill.first_refusal) / static_cast<double>(capacity);
      lowest_first = std::min(lowest_first, first);
      sum_first += first;
      ++refused_fills;
    }
    if (fill.stuck && fill.stored < floor && !failing) {
      failing = std::move(fill);
      failing_burst = with_burst;
    }
  }
  const double floor_load = static_cast<double>(floor) / static_cast<double>(capacity);
  Figure first;
  first.name = "load at first refusal (lowest)";
  first.value = refused_fills != 0 ? lowest_first : 0;
  first.note = refused_fills != 0 ? "items stored / capacity when a new key was first refused"
                                  : "no fill was refused";
  Figure mean;
  mean.name = "load at first refusal (mean)";
  mean.value = refused_fills != 0 ? sum_first / static_cast<double>(refused_fills) : 0;
  Figure reached;
  reached.name = "load reached (lowest)";
  reached.value = lowest_reached;
  reached.bound = floor_load;
  reached.relation = ">=";
  reached.note = "items stored when the fill stopped (at " + std::to_string(kC3RefusalRun) +
                 " refusals of new keys in a row, or after " + std::to_string(offers) +
                 " new keys) / capacity; the floor is " +
                 percent_text(refusal_floor_fraction(traits)) + " of capacity";
  Figure fills_figure;
  fills_figure.name = "fills";
  fills_figure.value = static_cast<double>(done);
  fills_figure.note = burst != 0 ? "every other one after a burst of " + std::to_string(burst) +
                                       " inserts of one key"
                                 : "";
  r.figures = {first, mean, reached, fills_figure};
  r.samples = offered;
  const std::string loads =
      refused_fills != 0
          ? "first refusal of a new key at load " + load_text(lowest_first) + " (lowest) and " +
                load_text(mean.value) + " (mean) over " + std::to_string(refused_fills) +
                " fills that were refused"
          : "no new key refused";
  if (!failing) {
    r.verdict = Verdict::kPass;
    r.summary = std::to_string(done) + " fills of distinct new keys" +
                (burst != 0 ? " (every other one after a burst of " + std::to_string(burst) +
                                  " inserts of one key)"
                            : std::string()) +
                ": " + loads + "; every fill reached the floor of " + std::to_string(floor) +
                " items (" + percent_text(refusal_floor_fraction(traits)) +
                " of capacity " + std::to_string(capacity) + ") before refusing " +
                std::to_string(kC3RefusalRun) + " new keys in a row.";
    r.seconds = seconds_since(start);
    return r;
  }
  r.verdict = Verdict::kFail;
  std::string summary = std::string("a fill ") +
                        (failing_burst ? "after a burst of " + std::to_string(burst) +
                                             " inserts of one key "
                                       : "") +
                        "refused " + std::to_string(kC3RefusalRun) +
                        " new keys in a row with only " + std::to_string(failing->stored) +
                        " items stored (load " +
                        std::to_string(static_cast<double>(failing->stored) /
                                       static_cast<double>(capacity)) +
                        "), below the floor of " + std::to_string(floor) + " items (" +
                        percent_text(refusal_floor_fraction(traits)) + " of capacity " +
                        std::to_string(capacity) + "); " + loads + ".";
  // The counterexample: the fill's trace, checked as a trace (refusal_floor in its header).
  std::optional<model::Violation> v;
  try {
    v = check(failing->trace).violation;
  } catch (const std::exception&) {
  }
  if (!v) {
    summary += " Replaying the fill found nothing: the subject is nondeterministic.";
  } else {
    const std::function<TraceOutcome(const model::Trace&)> check_fn = check;
    Counterexample cx = make_counterexample(failing->trace, *v, check_fn, kDefaultShrinkAttempts,
                                            options.max_shrink_seconds);
    summary += " Shrunk from " + std::to_string(cx.original_ops) + " to " +
               std::to_string(cx.shrunk_ops) + " ops";
    if (v->claim != "C3") {
      summary += " (its replay stops earlier, at " + v->claim + ": expected " + v->expected +
                 ", got " + v->actual + ")";
    }
    summary += ".";
    if (options.confirm_replays > 0) {
      const std::size_t failed = count_failing_replays(model::parse_trace(cx.trace), v->claim,
                                                       check_fn, options.confirm_replays);
      Figure replays;
      replays.name = "replays of the counterexample that failed";
      replays.value = static_cast<double>(failed);
      replays.bound = static_cast<double>(options.confirm_replays);
      replays.relation = "==";
      r.figures.push_back(replays);
      if (failed < options.confirm_replays) {
        const std::string note = not_reproducible_note(failed, options.confirm_replays);
        summary += " " + note;
        cx.explanation += "# " + note + "\n";
        cx.trace += "# " + note + "\n";
      }
    }
    Figure original;
    original.name = "counterexample length (original)";
    original.value = static_cast<double>(cx.original_ops);
    original.unit = "ops";
    Figure shrunk = original;
    shrunk.name = "counterexample length (shrunk)";
    shrunk.value = static_cast<double>(cx.shrunk_ops);
    r.figures.push_back(original);
    r.figures.push_back(shrunk);
    cx.replay_command = "-";
    ctx.save_counterexample(cx, "C3", traits.name);
    cx.replay_command.clear();
    if (!cx.trace_file.empty() && ctx.options != nullptr) {
      cx.replay_command = "replay_implementation(...) on " +
                          (ctx.options->out_dir / cx.trace_file).generic_string();
    }
    r.counterexample = std::move(cx);
  }
  r.summary = std::move(summary);
  r.seconds = seconds_since(start);
  return r;
}

// C1's identity pairs: keys that identity() makes one item, found among
// kIdentitySearchKeys keys of a fresh instance (none without identity(), or when it throws).
template <class Factory>
std::vector<std::pair<std::uint64_t, std::uint64_t>> identity_pairs(Factory& make) {
  using Impl = std::remove_cvref_t<decltype(make())>;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> pairs;
  if constexpr (kHasIdentity<Impl>) {
    try {
      auto impl = make();
      if (!model::identity_available(impl)) return pairs;
      std::vector<std::pair<std::uint64_t, std::uint64_t>> ids;
      ids.reserve(static_cast<std::size_t>(kIdentitySearchKeys));
      if constexpr (requires(std::vector<std::uint64_t> keys) { impl.identities(keys); }) {
        // An implementation that asks for identities in batches (an exec subject): one.
        std::vector<std::uint64_t> keys(static_cast<std::size_t>(kIdentitySearchKeys));
        for (std::uint64_t k = 0; k < kIdentitySearchKeys; ++k) keys[k] = kIdentityKeyBase + k;
        impl.identities(keys);
      }
      for (std::uint64_t k = 0; k < kIdentitySearchKeys; ++k) {  // bound: kIdentitySearchKeys
        const std::uint64_t key = kIdentityKeyBase + k;
        ids.emplace_back(static_cast<std::uint64_t>(impl.identity(key)), key);
      }
      std::sort(ids.begin(), ids.end());
      for (std::size_t i = 1; i < ids.size() && pairs.size() < kIdentityPairs; ++i) {
        if (ids[i].first != ids[i - 1].first) continue;
        if (i >= 2 && ids[i - 2].first == ids[i].first) continue;  // one pair per identity
        pairs.emplace_back(ids[i - 1].second, ids[i].second);
      }
    } catch (const std::exception&) {
      pairs.clear();
    }
  } else {
    (void)make;
  }
  return pairs;
}

// The report's command when AuditOptions::command is empty.
inline std::string reproduce_command(const ImplementationTraits& traits, const AuditOptions& options) {
  std::string c = "audit_implementation(" + traits.name + ": " + configuration_of(traits) +
                  "; profile=" + to_string(options.profile) +
                  " seed=" + std::to_string(options.seed);
  if (options.traces != 0) c += " traces=" + std::to_string(options.traces);
  if (options.fpr_queries != 0) c += " fpr_queries=" + std::to_string(options.fpr_queries);
  if (!options.claims.empty()) {
    c += " claims=";
    for (std::size_t i = 0; i < options.claims.size(); ++i) c += (i == 0 ? "" : ",") + options.claims[i];
  }
  return c + ")";
}

// The adapter's shape against the traits: a map adapter (insert(key, value), find(key))
// for kExactMap and only for it; size() unless sizes are absent. Throws UsageError.
template <class Impl>
void validate_adapter(const ImplementationTraits& traits) {
  if (kMapAdapter<Impl> != (traits.kind == ImplementationKind::kExactMap)) {
    throw UsageError(kMapAdapter<Impl>
                         ? "the adapter of " + traits.name +
                               " is a map's (insert(key, value), find(key)): declare "
                               "ImplementationTraits::kind = ImplementationKind::kExactMap"
                         : "ImplementationKind::kExactMap needs an adapter with insert(key, "
                           "value) and find(key) (" + traits.name + "'s has not)");
  }
  if constexpr (!kHasSize<Impl>) {
    if (traits.size != SizeMode::kAbsent) {
      throw UsageError("the adapter of " + traits.name +
                       " has no size(): declare ImplementationTraits::size = SizeMode::kAbsent");
    }
  }
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

// Aliases: two keys a filter cannot tell apart (one fingerprint in one bucket pair) are
// one item to it: inserting one adds a copy of the other, erasing one may remove the
// other's copy. The model tells keys apart by value unless it has an identity (the
// adapter's identity()); without one, a C5 finding that aliasing explains is not one:
// an insert answered duplicate_limit below the limit, or an erase answered true for a key
// with no copies. For such a finding on key K the auditor asks the subject which of the
// trace's other keys it confuses with K (a fresh instance: insert J, erase K, erase J for
// each J; erase K answering true means J and K are one item), makes each such J one item
// with K in the model, and checks the trace again; at most kMaxAliasRounds times.
inline constexpr std::size_t kMaxAliasRounds = 64;

inline bool alias_explainable(const model::Violation& v) {
  if (v.claim != "C5") return false;
  if (v.op.kind == model::OpKind::kInsert) return v.actual == "duplicate_limit";
  if (v.op.kind == model::OpKind::kErase) return v.actual == "true";
  return false;
}

// The keys of `trace` (other than `key`) that the subject cannot tell from `key`.
template <class Factory>
std::vector<std::uint64_t> aliases_of(Factory& make, const model::Trace& trace, std::uint64_t key) {
  using Impl = std::remove_cvref_t<decltype(make())>;
  std::vector<std::uint64_t> others;
  std::set<std::uint64_t> seen{key};
  for (const model::TraceEntry& e : trace.entries) {  // bound: the trace
    if (model::takes_key(e.op.kind) && seen.insert(e.op.key).second) others.push_back(e.op.key);
  }
  model::Trace plan;
  plan.engine = trace.engine;
  plan.parameters = trace.parameters;
  plan.parameters.set(kSizeChecksParameter, "off");
  for (const std::uint64_t j : others) {
    plan.add(model::Op::insert(j));
    plan.add(model::Op::erase(key));
    plan.add(model::Op::erase(j));
  }
  std::vector<std::uint64_t> aliases;
  auto impl = make();
  if constexpr (kHasPrepare<Impl>) impl.prepare(plan);
  for (const std::uint64_t j : others) {  // bound: the trace's keys
    (void)impl.insert(j);
    const bool confused = static_cast<bool>(impl.erase(key));
    (void)impl.erase(j);
    if (confused) aliases.push_back(j);
  }
  return aliases;
}

// A violation that shows a key lost: a key the model holds that a lookup (of the trace,
// or of the scan after a refused insert or before a round trip) did not find, or whose
// erase answered false.
inline bool shows_lost_key(const model::Violation& v) {
  if (v.actual == "false" && v.expected.rfind("true", 0) == 0 &&
      (v.op.kind == model::OpKind::kContains || v.op.kind == model::OpKind::kErase)) {
    return true;
  }
  constexpr std::string_view kNotFound = " => false";
  return v.actual.rfind("contains ", 0) == 0 && v.actual.size() > kNotFound.size() &&
         v.actual.compare(v.actual.size() - kNotFound.size(), kNotFound.size(), kNotFound) == 0;
}

// Whether a violation may show copies miscounted rather than a key lost: an insert whose
// answer and the model's disagree on the copy limit. The model refuses at the limit
// (`duplicate_limit`) and the subject stored the copy or answered `full`: a filter that
// lost one of the key's copies (a kick that moved it where its lookups never look) still
// finds the key, but counts one copy fewer against its limit. Or the subject answers
// `duplicate_limit` below the limit, or an erase finds a copy where the model holds
// none: it holds a copy the model does not (a refused insert that stored its key all the
// same).
inline bool shows_copy_miscount(const model::Violation& v) {
  const std::string_view limit = to_string(model::InsertResult::kDuplicateLimit);
  if (v.op.kind == model::OpKind::kErase) return v.actual == "true" && v.expected.rfind("false", 0) == 0;
  if (v.op.kind != model::OpKind::kInsert) return false;
  if (v.expected.rfind(limit, 0) == 0) {
    return v.actual == to_string(model::InsertResult::kInserted) || v.actual == to_string(model::InsertResult::kFull);
  }
  return v.actual == limit;
}

// Keys the subject cannot tell apart, found by the behavioural alias check (aliases_of()):
// key -> the first key of its class; keys not in it are their own class.
using Aliases = std::map<std::uint64_t, std::uint64_t>;

inline model::MultisetModel::Identity alias_identity(const Aliases& aliases) {
  return [aliases](std::uint64_t k) {
    const auto it = aliases.find(k);
    return it == aliases.end() ? k : it->second;
  };
}

// One probe of the first divergence: the trace's first `prefix` ops on a fresh instance
// (their answers kept in a model, nothing judged), then a lookup of every key they
// inserted: lost when one that the model holds is not found. When every key is found,
// each is then erased as many times as the model holds copies of it: a copy is lost when
// one of those erases finds nothing. (A kick that moves one of a key's copies out of
// reach loses it there, before a lookup could tell: the key is not missed until its last
// reachable copy is erased.) Once every copy is erased, one more erase of each key must
// find nothing: when one does, the subject held a copy the model does not (`extra`).
struct LossProbe {
  bool lost = false;
  bool copy = false;                          // a copy was lost, the key is still found
  bool extra = false;                         // the subject held a copy more than the model
  std::uint64_t key = 0;                      // the first key found lost
  std::vector<model::InsertResult> inserts;   // the answers of the prefix's inserts
};

template <class Factory>
LossProbe probe_loss(Factory& make, const ImplementationTraits& traits, const model::Trace& trace,
                     std::size_t prefix, const Aliases& aliases) {
  using Impl = std::remove_cvref_t<decltype(make())>;
  LossProbe out;
  model::Trace plan;
  plan.engine = trace.engine;
  plan.parameters = trace.parameters;
  plan.parameters.set(kSizeChecksParameter, "off");  // no sizes are asked
  std::vector<std::uint64_t> keys;
  std::set<std::uint64_t> seen;
  for (std::size_t i = 0; i < prefix; ++i) {  // bound: the trace
    const model::Op& op = trace.entries[i].op;
    if (op.kind == model::OpKind::kSize) continue;
    plan.add(op);
    if (op.kind == model::OpKind::kInsert && seen.insert(op.key).second) keys.push_back(op.key);
  }
  for (const std::uint64_t key : keys) plan.add(model::Op::contains(key));
  auto impl = make();
  if constexpr (kHasPrepare<Impl>) impl.prepare(plan);
  model::MultisetModel model;
  if constexpr (kHasIdentity<Impl>) {
    if (traits.kind == ImplementationKind::kApproximateFilter && model::identity_available(impl)) {
      model.set_identity([&impl](std::uint64_t key) { return static_cast<std::uint64_t>(impl.identity(key)); });
    }
  }
  if (!model.has_identity() && !aliases.empty()) model.set_identity(alias_identity(aliases));
  ImplementationSubject subject(impl, traits);
  for (std::size_t i = 0; i < prefix; ++i) {  // bound: the trace
    const model::Op& op = trace.entries[i].op;
    switch (op.kind) {
      case model::OpKind::kInsert: {
        const model::InsertResult r = subject.insert(op.key);
        out.inserts.push_back(r);
        if (r == model::InsertResult::kInserted) model.insert(op.key);
        break;
      }
      case model::OpKind::kErase:
        if (subject.erase(op.key) && model.identity_count(op.key) > 0) model.erase(op.key);
        break;
      case model::OpKind::kContains: (void)subject.contains(op.key); break;
      case model::OpKind::kClear:
        if constexpr (requires(Impl& x) { x.clear(); }) subject.clear();
        model.clear();
        break;
      default: break;  // sizes are not asked; nothing else is in an adapter's traces
    }
  }
  for (const std::uint64_t key : keys) {  // bound: the trace's keys
    if (model.identity_count(key) > 0 && !subject.contains(key)) {
      out.lost = true;
      out.key = key;
      break;
    }
  }
  // Copies of aliasing keys share the filter's copies of their item: erasing each key
  // as many times as the model holds it erases the item's copies once each.
  for (std::size_t i = 0; !out.lost && i < keys.size(); ++i) {  // bound: the trace's keys
    for (std::size_t c = model.count(keys[i]); c > 0 && !out.lost; --c) {  // bound: its copies
      if (!subject.erase(keys[i])) {
        out.lost = true;
        out.copy = true;
        out.key = keys[i];
      }
    }
  }
  for (std::size_t i = 0; !out.lost && i < keys.size(); ++i) {  // bound: the trace's keys
    if (subject.erase(keys[i])) {
      out.lost = true;
      out.extra = true;
      out.key = keys[i];
    }
  }
  return out;
}

// A lost key is charged to the op that lost it, not to the one that showed it: the first
// op after which the subject no longer finds a key the model holds (found by bisection
// over the trace's prefixes, each probed on a fresh instance). An insert answered
// `inserted` that lost a key (a kick that moved an item out of reach) is C1; one answered
// `full` is C6 (a failed insert loses nothing); one answered `duplicate_limit` or
// `exists`, and an erase, is C5 (a refused insert changes nothing; erase removes one
// copy). The first op after which the subject no longer holds every copy the model holds
// counts: a key lost is a copy lost, and a copy is lost earlier when other copies of its
// key keep it found; such a loss also shows as an insert past the copy limit that the
// subject stored or answered full for (shows_copy_miscount), which is charged the same
// way. So is a copy the subject holds and the model does not, shown by a duplicate_limit
// below the limit: an insert answered full that stored it is C6, any other op C5. The
// violation keeps the op that showed it; its expected text names the culprit (numbered
// from 1, as the trace file and the summary number ops). Unchanged when the op that
// showed it caused it itself, when an exact set's key was never found after its own
// insert (nothing lost it: the set cannot find it at all), when no prefix miscounts a
// copy (the subject's limit itself is wrong: C5), or when a probe fails.
template <class Factory>
model::Violation attributed(Factory& make, const ImplementationTraits& traits,
                            const model::Trace& trace, model::Violation v, const Aliases& aliases = {}) {
  if ((!shows_lost_key(v) && !shows_copy_miscount(v)) || v.op_index == 0 || v.op_index > trace.entries.size()) {
    return v;
  }
  try {
    LossProbe at = probe_loss(make, traits, trace, v.op_index, aliases);
    if (!at.lost) return v;  // the op that showed it lost it
    std::size_t lo = 0;  // probe(lo) finds every key (nothing is inserted before op 0)
    std::size_t hi = v.op_index;
    while (hi - lo > 1) {  // bound: log2(op_index) probes
      const std::size_t mid = lo + (hi - lo) / 2;
      LossProbe p = probe_loss(make, traits, trace, mid, aliases);
      if (p.lost) {
        hi = mid;
        at = std::move(p);
      } else {
        lo = mid;
      }
    }
    const std::size_t culprit = hi - 1;
    const model::Op& op = trace.entries[culprit].op;
    if (traits.kind != ImplementationKind::kApproximateFilter && op.kind == model::OpKind::kInsert &&
        op.key == at.key) {
      bool before = false;
      for (std::size_t i = 0; i < culprit && !before; ++i) {  // bound: the trace
        before = trace.entries[i].op.kind == model::OpKind::kInsert && trace.entries[i].op.key == at.key;
      }
      // An exact set's key never found since its own insert: no other op lost it (a key
      // the set cannot look up at all, spelt in upper case, say): the op that showed it
      // keeps it. (A filter's insert may lose its own item to its kicks: C1.)
      if (!before) return v;
    }
    std::string claim = "C1";
    std::string answered;
    if (op.kind == model::OpKind::kInsert) {
      std::size_t inserts = 0;
      for (std::size_t i = 0; i < culprit; ++i) {  // bound: the trace
        if (trace.entries[i].op.kind == model::OpKind::kInsert) ++inserts;
      }
      if (inserts < at.inserts.size()) {
        const model::InsertResult r = at.inserts[inserts];
        answered = std::string(", which answered ") + std::string(to_string(r));
        // A copy stored by an insert answered inserted is its own, unless the insert
        // stored two (C5); one stored by a refusal is a refused insert that changed
        // something (C6).
        claim = r == model::InsertResult::kFull       ? "C6"
                : r != model::InsertResult::kInserted ? "C5"
                : at.extra                            ? "C5"
                                                      : "C1";
        if (r == model::InsertResult::kInserted && !at.extra) answered += " (items it moved are no longer found)";
      }
    } else if (op.kind == model::OpKind::kErase) {
      claim = "C5";
    }
    v.claim = claim;
    const std::string where = " during op " + std::to_string(culprit + 1) + " '" + model::to_string(op) + "'" + answered;
    if (at.extra) {
      v.expected += "; an extra copy of key " + std::to_string(at.key) + " was stored" + where +
                    ": the first op after which the subject holds a copy the model does not";
    } else {
      v.expected += std::string(at.copy ? "; a copy of key " : "; key ") + std::to_string(at.key) + " was lost" +
                    where + ": the first op after which the subject no longer " +
                    (at.copy ? "holds every copy the model holds" : "finds a key the model holds");
    }
  } catch (const std::exception&) {
  }
  return v;
}

}  // namespace adapter_detail

// Checks `trace` against a fresh instance from `make` and the model that `traits`
// selects (a multiset for filters, a set for exact sets). Returns the first violation,
// or nothing. The instance is built by the factory; of the trace's header only these
// parameters are read: size_checks=off (sizes are not compared, as with SizeMode::kAbsent)
// and refusal_floor=N refusal_run=R (C3: R inserts of new keys in a row refused while
// fewer than N items are stored is a violation "C3").
// Throws std::invalid_argument when the trace holds an op the adapter cannot perform
// (find, insert_or_assign, serialize_roundtrip; clear without clear()) or one of those
// parameters is malformed, UsageError when the adapter has no size() but traits.size is
// not kAbsent.
// An exception from the factory or prepare() is a violation at op 0 ("exception"); one
// from an op is the checker's "exception" violation at that op.
template <class Factory>
std::optional<model::Violation> replay_implementation(Factory&& make,
                                                      const ImplementationTraits& traits,
                                                      const model::Trace& trace,
                                                      std::uint64_t seed = 0) {
  using Impl = std::remove_cvref_t<decltype(make())>;
  adapter_detail::validate_adapter<Impl>(traits);
  const adapter_detail::CheckSettings settings = adapter_detail::settings_of(traits, trace.parameters);
  bool checking = false;  // model::check's own errors (an op it cannot perform) propagate
  try {
    auto impl = make();
    if constexpr (adapter_detail::kHasPrepare<Impl>) impl.prepare(trace);
    if constexpr (adapter_detail::kMapAdapter<Impl>) {
      model::MapModel model;
      adapter_detail::MapImplementationSubject subject(impl, traits, &model, settings);
      checking = true;
      std::optional<model::Violation> found = model::check(subject, model, trace, seed);
      return adapter_detail::judged(subject.watch(), trace, std::move(found), seed);
    } else {
      model::MultisetModel model;
      adapter_detail::ImplementationSubject subject(impl, traits, &model, settings);
      checking = true;
      std::optional<model::Violation> found = model::check(subject, model, trace, seed);
      found = adapter_detail::judged(subject.watch(), trace, std::move(found), seed);
      checking = false;
      adapter_detail::Aliases item;  // the aliases found: key -> its class's first key
      if (!model::identity_available(impl)) {
        // Aliases the subject shows: the same trace again with them one item each.
        std::set<std::uint64_t> asked;
        for (std::size_t round = 0; round < adapter_detail::kMaxAliasRounds && found &&  // bound
                                    traits.kind == ImplementationKind::kApproximateFilter &&
                                    adapter_detail::alias_explainable(*found) &&
                                    asked.insert(found->op.key).second;
             ++round) {
          const std::uint64_t key = found->op.key;
          std::vector<std::uint64_t> aliases;
          try {
            aliases = adapter_detail::aliases_of(make, trace, key);
          } catch (const std::exception&) {
            break;  // the finding stands
          }
          if (aliases.empty()) break;
          const auto rep_of = [&item](std::uint64_t k) {
            const auto it = item.find(k);
            return it == item.end() ? k : it->second;
          };
          std::uint64_t root = rep_of(key);
          for (const std::uint64_t j : aliases) root = std::min(root, rep_of(j));
          std::set<std::uint64_t> merged{rep_of(key)};
          for (const std::uint64_t j : aliases) merged.insert(rep_of(j));
          item[key] = root;
          for (const std::uint64_t j : aliases) item[j] = root;
          for (auto& [k, r] : item) {
            if (merged.count(r) != 0) r = root;
          }
          auto again = make();
          if constexpr (adapter_detail::kHasPrepare<Impl>) again.prepare(trace);
          model::MultisetModel aliased;
          aliased.set_identity(adapter_detail::alias_identity(item));
          adapter_detail::ImplementationSubject second(again, traits, &aliased, settings);
          checking = true;
          found = model::check(second, aliased, trace, seed);
          found = adapter_detail::judged(second.watch(), trace, std::move(found), seed);
          checking = false;
        }
      }
      // The probes of the first divergence count the aliases' copies together too: an
      // erase of one alias that removes another's copy is no loss.
      if (found && found->claim != "C3") found = adapter_detail::attributed(make, traits, trace, *found, item);
      return found;
    }
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
  validate_adapter<Impl>(traits);
  constexpr bool kMap = kMapAdapter<Impl>;
  const auto start = std::chrono::steady_clock::now();
  Report report;
  report.subject = traits.name;
  report.profile = to_string(options.profile);
  report.seed = options.seed;
  report.tool_version = audit_tool_version();
  report.started_utc = utc_now_text();
  report.command = options.command.empty() ? reproduce_command(traits, options) : options.command;

  RunOptions run_options;
  run_options.out_dir = options.out_dir;
  run_options.seed = options.seed;
  const std::uint64_t scale = profile_scale(options.profile);
  const std::size_t traces =
      options.traces != 0 ? options.traces : static_cast<std::size_t>(kQuickAdapterTraces * scale);
  const bool exact = traits.kind != ImplementationKind::kApproximateFilter;  // sets and maps
  const std::string configuration = configuration_of(traits);
  const model::TraceParameters header = header_of(traits);
  constexpr bool kHasClear = requires(Impl& i) { i.clear(); };
  const bool clear_ops = kHasClear && traits.clear_supported;
  const std::string replay_prefix = "replay_implementation(...) on";

  auto check = [&make, &traits](const model::Trace& t) {
    TraceOutcome out;
    out.violation = replay_implementation(make, traits, t);
    return out;
  };
  auto context_for = [&](const std::string& claim) {
    TaskContext ctx;
    ctx.seed = task_seed(options.seed, claim, traits.name, configuration);
    ctx.profile = options.profile;
    ctx.options = &run_options;
    return ctx;
  };
  FindingLedger ledger;
  std::deque<PlanCoverage> coverage;      // per trace plan, in the order run
  std::map<std::string, ClaimResult> measured;  // C2, C3 and skipped claims
  const auto stopped = [&options] { return options.stop && options.stop(); };
  std::set<std::string> unfinished;  // claims whose checks did not all run (stopped)
  auto run_plan = [&](const std::string& claim, const std::string& name, const std::string& checked,
                      std::size_t count,
                      std::function<model::Trace(std::uint64_t, std::size_t)> generate,
                      const std::string& hint = "") {
    if (stopped()) {
      unfinished.insert(claim);
      return;
    }
    TraceCheckPlan plan;
    plan.stop = options.stop;
    plan.shrinking = options.on_shrinking;
    plan.on_finding = [&](const Finding& f) {
      if (!options.on_finding) return;
      const TaskContext ctx = context_for(f.claim);
      options.on_finding(labelled_claim_result(f.claim, traits.name, configuration, {}, &f, ctx.seed,
                                               &ctx, replay_prefix));
    };
    plan.claim = claim;
    plan.name = name;
    plan.engine = traits.name;
    plan.configuration = configuration;
    plan.checked = checked;
    plan.traces = count;
    plan.generate = std::move(generate);
    plan.check = check;
    plan.max_shrink_seconds = options.max_shrink_seconds;
    plan.replay_command_prefix = replay_prefix;
    plan.label = [&traits, claim](const model::Violation& v) { return claim_broken(traits, v, claim); };
    plan.set_aside = [&traits](const model::Violation& v) { return set_aside_after(traits, v); };
    plan.confirm_replays = options.confirm_replays;
    plan.hint = hint;
    if (options.on_step) {
      options.on_step(name + ": " + std::to_string(count) + " trace" + (count == 1 ? "" : "s") +
                      " (" + checked + ")");
    }
    // The seed of the claim's main plan is the claim's task seed, as before plans had names.
    coverage.push_back(run_labelled_trace_check(
        plan, task_seed(options.seed, name == claim ? claim : name, traits.name, configuration),
        ledger));
    if (coverage.back().unfinished) unfinished.insert(claim);
  };
  // A measurement (C2, C3) that was running when the audit was told to stop counts for
  // nothing: its subject may have been stopped under it.
  auto measure = [&](const std::string& claim, const std::function<ClaimResult()>& run) {
    if (stopped()) {
      unfinished.insert(claim);
      return;
    }
    ClaimResult r = run();
    if (stopped()) {
      unfinished.insert(claim);
      return;
    }
    measured[claim] = std::move(r);
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
    if (traits.size == SizeMode::kAbsent) s.weights.size = 0;
    s.erase_present_percent = 100;
    s.insert_values = exact;
    return s;
  };

  // C1: identity pairs first (when identity() is wrong, the other traces' findings are
  // about it), then the random traces.
  if constexpr (kMap) {
    if (wanted(options, "C1")) {
      measured["C1"] = skipped("C1", traits,
                               "an exact map: C7 checks every answer, the lookups of stored "
                               "keys included.");
    }
  } else {
  if (wanted(options, "C1") && !exact && !stopped()) {
    const std::vector<std::pair<std::uint64_t, std::uint64_t>> pairs = identity_pairs(make);
    if (!pairs.empty()) {
      const std::size_t per_trace = static_cast<std::size_t>(std::max<std::uint64_t>(
          1, std::min<std::uint64_t>(kIdentityPairsPerTrace, capacity / 4)));
      const std::size_t count = (pairs.size() + per_trace - 1) / per_trace;
      run_plan("C1", "C1 identity-pair",
               "keys with one identity (identity(), or an exec subject's 'item' answer) are "
               "looked up alike", count,
               [&, per_trace](std::uint64_t, std::size_t index) {
                 model::Trace t;
                 t.engine = traits.name;
                 t.parameters = header;
                 const std::size_t first = index * per_trace;
                 const std::size_t last = std::min(pairs.size(), first + per_trace);
                 for (std::size_t i = first; i < last; ++i) t.add(model::Op::insert(pairs[i].first));
                 for (std::size_t i = first; i < last; ++i) {
                   t.add(model::Op::contains(pairs[i].first));
                   t.add(model::Op::contains(pairs[i].second));
                 }
                 return t;
               },
               "The two keys have one identity (identity(), or the same 'item' answer to an "
               "exec subject's 'identity' requests), so the model holds them one item: if "
               "the filter can tell them apart, its identity is what is wrong (the model "
               "counts copies and the copy limit by it).");
    }
  }
  if (wanted(options, "C1")) {
    run_plan("C1", "C1", "every inserted, not erased key is found", traces,
             [&](std::uint64_t seed, std::size_t) {
               subjects::TraceRng rng(seed);
               return subjects::generate_trace(traits.name, header,
                                     shape_with(subjects::OpWeights{35, 15, 45, 5, 0, 0, 0, 0},
                                                2 + rng.below(roomy_keys), 100 + rng.below(201)),
                                     rng.next());
             });
    // Fills to high load and past the first refusal, where kicks move items: a probe
    // fill finds the load of the first refusal, the fill traces go to fractions of it.
    std::uint64_t refused = capacity;
    // What the fills are sized by, for the progress line and the report.
    std::string fill_basis = "the capacity, " + std::to_string(capacity) +
                             " items (the probe fill did not finish)";
    if (!stopped()) try {
      subjects::TraceRng probe_rng(task_seed(options.seed, "C1 fill probe", traits.name, configuration));
      const FillOutcome probe = run_fill(make, traits, header,
                                         kFillKeyBase + probe_rng.below(std::uint64_t{1} << 40), 0,
                                         c6_fill_keys(capacity));
      refused = probe.first_refusal.value_or(probe.stored);
      // A subject that never refuses (an unbounded set) has no first refusal; an exact
      // set that refuses has no kicks.
      fill_basis = probe.first_refusal
                       ? "the " + std::to_string(refused) +
                             " items a probe fill held at its first refusal and " +
                             std::to_string(kC1FillPastRefusal) + " past it" +
                             (exact ? "" : " (kicks)")
                       : std::to_string(refused) + " keys (a probe fill stored all " +
                             std::to_string(refused) + " of its keys, none refused) and " +
                             std::to_string(kC1FillPastRefusal) + " more";
    } catch (const std::exception&) {
      // The fill traces meet the failure again, and report it.
    }
    const std::uint64_t fill_cost = c1_fill_cost(refused);
    if (fill_cost <= kC6MaxOverBudget * kC1FillOpBudget * scale) {
      const std::size_t fills = static_cast<std::size_t>(std::max<std::uint64_t>(
          1, std::min<std::uint64_t>(kC1FillTraces * scale, kC1FillOpBudget * scale / fill_cost)));
      run_plan("C1", "C1 fill",
               "distinct keys to 50-100% of " + fill_basis +
                   ", earlier keys looked up in between, every key at the end",
               fills, [&, refused](std::uint64_t seed, std::size_t index) {
                 subjects::TraceRng rng(seed);
                 const std::uint64_t keys = c1_fill_keys(refused, index);
                 const std::uint64_t base = rng.below(std::uint64_t{1} << 32);
                 std::vector<std::uint64_t> order(static_cast<std::size_t>(keys));
                 for (std::uint64_t k = 0; k < keys; ++k) order[static_cast<std::size_t>(k)] = base + k;
                 for (std::size_t i = order.size(); i > 1; --i) {  // bound: keys (Fisher-Yates)
                   std::swap(order[i - 1], order[static_cast<std::size_t>(rng.below(i))]);
                 }
                 model::Trace t;
                 t.engine = traits.name;
                 t.parameters = header;
                 std::vector<bool> erased(order.size(), false);
                 for (std::size_t i = 0; i < order.size(); ++i) {  // bound: keys
                   t.add(model::Op::insert(order[i]));
                   const std::uint64_t roll = rng.below(100);
                   const auto earlier = static_cast<std::size_t>(rng.below(i + 1));
                   if (roll < kC1FillLookupPercent) {
                     t.add(model::Op::contains(order[earlier]));
                   } else if (roll < kC1FillLookupPercent + kC1FillErasePercent &&
                              traits.erase_supported && !erased[earlier]) {
                     erased[earlier] = true;
                     t.add(model::Op::erase(order[earlier]));
                   }
                 }
                 for (const std::uint64_t k : order) t.add(model::Op::contains(k));
                 return t;
               });
    }
  }
  }  // not a map
  // C5
  if constexpr (kMap) {
    if (wanted(options, "C5")) measured["C5"] = skipped("C5", traits, "an exact map stores no copies.");
  } else if (!wanted(options, "C5")) {
  } else if (exact) {
    measured["C5"] = skipped("C5", traits, "an exact set stores no copies.");
  } else {
    run_plan("C5", "C5",
             bool_insert<Impl>()
                 ? "duplicate inserts, erase of one copy, sizes; insert returns bool, so no "
                   "copy limit is observed"
             : traits.max_copies == kUnknownCopyLimit
                 ? "duplicate inserts, erase of one copy, sizes; the copy limit is unknown "
                   "(max_copies not declared), so it is not checked: duplicate_limit is "
                   "accepted for a key with copies, as a refusal that changes nothing"
                 : "duplicate inserts up to the copy limit, erase of one copy, sizes",
             traces, [&](std::uint64_t seed, std::size_t) {
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
    measured["C6"] = skipped("C6", traits, "no capacity is declared: cannot overfill.");
  } else if (traits.capacity <= kSmallCapacity) {
    const std::size_t mix_traces = static_cast<std::size_t>(std::max<std::uint64_t>(
        1, std::min<std::uint64_t>(traces, kC6LookupBudget * scale / c6_mix_trace_cost(traits.capacity))));
    run_plan("C6", "C6", "inserts past capacity, then every stored key", mix_traces,
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
    measured["C6"] = skipped(
        "C6", traits,
        "capacity " + std::to_string(traits.capacity) + " needs about " +
            std::to_string(c6_trace_cost(traits.capacity)) +
            " lookups per trace (every stored key after each refused insert), above this "
            "profile's budget: audit an instance with a smaller capacity, or a larger profile.");
  } else {
    // Insert distinct keys in random order to 2.25 capacity (and up to 1/16 more), then a
    // short random tail over the same keys: the refused inserts come at the end of the
    // fill and in the tail.
    const std::uint64_t budget = kC6LookupBudget * scale;
    const std::size_t c6_traces = static_cast<std::size_t>(std::max<std::uint64_t>(
        1, std::min<std::uint64_t>(traces, budget / c6_trace_cost(traits.capacity))));
    run_plan("C6", "C6", "fills past capacity, then a mixed tail; every stored key after each refusal",
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
    measured["C7"] = skipped("C7", traits, "applies to exact sets and maps only.");
  } else if (kMap) {
    constexpr bool kHasAssign = requires(Impl& i) { i.insert_or_assign(std::uint64_t{}, std::uint64_t{}); };
    run_plan("C7", "C7",
             kHasAssign ? "every answer equals the map model's: insert, insert_or_assign, find, "
                          "contains, erase, size"
                        : "every answer equals the map model's: insert, find, contains, erase, size",
             traces, [&](std::uint64_t seed, std::size_t) {
               subjects::TraceRng rng(seed);
               subjects::OpWeights w = subjects::OpWeights::map();
               if (!kHasAssign) w.insert_or_assign = 0;
               return subjects::generate_trace(
                   traits.name, header,
                   shape_with(w, 2 + rng.below(roomy_keys * 2), 100 + rng.below(201)), rng.next());
             });
  } else {
    run_plan("C7", "C7", "every answer equals the set model's, absent keys included", traces,
             [&](std::uint64_t seed, std::size_t) {
               subjects::TraceRng rng(seed);
               return subjects::generate_trace(traits.name, header,
                                     shape_with(subjects::OpWeights{35, 25, 35, 5, 0, 0, 0, 0},
                                                2 + rng.below(roomy_keys * 2), 100 + rng.below(201)),
                                     rng.next());
             });
  }
  // C3 (after the traces: what they set aside applies to its counterexample too)
  if (!wanted(options, "C3")) {
  } else if (traits.capacity == 0) {
    measured["C3"] = skipped("C3", traits, "no capacity is declared: no load to reach.");
  } else {
    std::uint64_t per_fill = c6_fill_keys(traits.capacity);
    if constexpr (!kMap) per_fill += burst_length<Impl>(traits);
    const std::size_t fills = static_cast<std::size_t>(std::max<std::uint64_t>(
        1, std::min<std::uint64_t>(kC3Fills * scale, kC3InsertBudget * scale / per_fill)));
    const TaskContext ctx = context_for("C3");
    if (options.on_step) {
      options.on_step("C3: " + std::to_string(fills) + " fill" + (fills == 1 ? "" : "s") +
                      " of fresh instances until refused");
    }
    measure("C3", [&] {
      return measure_refusal_load(make, traits, fills, ctx.seed, ledger.set_aside, check, options, ctx);
    });
  }
  // C2
  if (!wanted(options, "C2")) {
  } else if (exact) {
    measured["C2"] = skipped("C2", traits,
                             std::string("an exact ") + (kMap ? "map" : "set") +
                                 " has no false positives; C7 checks that.");
  } else if (promised_fpr(traits) == 0) {
    measured["C2"] = skipped(
        "C2", traits,
        "neither a false positive rate (fpr) nor fingerprint_bits and slots_per_bucket are "
        "declared: "
        "no bound to hold.");
  } else {
    if constexpr (!kMap) {
      const std::uint64_t queries =
          options.fpr_queries != 0 ? options.fpr_queries : kQuickFprQueries * scale;
      if (options.on_step) {
        options.on_step("C2: a fill to " + std::to_string(static_cast<int>(kFprLoad * 100)) +
                        "% of capacity, then " + std::to_string(queries) + " queries of absent keys");
      }
      std::optional<model::Trace> lost_trace;
      measure("C2", [&] {
        return measure_fpr(make, traits, queries,
                           task_seed(options.seed, "C2", traits.name, configuration), &lost_trace);
      });
      // Keys lost by C2's fill are a C1 finding (unless C1's own traces found one).
      if (lost_trace && ledger.find("C1") == nullptr) {
        run_plan("C1", "C1 C2-fill", "the keys C2's fill stored are found", 1,
                 [&lost_trace](std::uint64_t, std::size_t) { return *lost_trace; });
      }
    }
  }

  // One result per claim: a measurement, or the traces that checked it and its finding.
  auto result_of = [&](const std::string& claim) -> std::optional<ClaimResult> {
    const Finding* finding = ledger.find(claim);
    if (finding == nullptr && unfinished.count(claim) != 0) {
      std::size_t traces_run = 0;
      for (const PlanCoverage& c : coverage) {
        if (c.claim == claim) traces_run += c.traces;
      }
      return skipped(claim, traits,
                     "not finished: the audit was stopped before this claim's checks were done" +
                         (traces_run == 0 ? std::string()
                                          : " (" + std::to_string(traces_run) + " trace" +
                                                (traces_run == 1 ? "" : "s") + " had run, none failed)") +
                         "; it is not a PASS.");
    }
    const auto it = measured.find(claim);
    if (it != measured.end() && (finding == nullptr || it->second.verdict != Verdict::kSkipped)) {
      return it->second;
    }
    std::vector<const PlanCoverage*> plans;
    for (const PlanCoverage& c : coverage) {
      if (c.claim == claim) plans.push_back(&c);
    }
    if (plans.empty() && finding == nullptr) return std::nullopt;
    const TaskContext ctx = context_for(claim);
    return labelled_claim_result(claim, traits.name, configuration, plans, finding, ctx.seed, &ctx,
                                 replay_prefix);
  };
  for (const char* claim : kAdapterClaims) {
    if (auto r = result_of(claim)) report.results.push_back(std::move(*r));
  }
  for (const Finding& f : ledger.findings) {  // any other claim a finding was charged to
    if (std::find_if(std::begin(kAdapterClaims), std::end(kAdapterClaims),
                     [&f](const char* c) { return f.claim == c; }) == std::end(kAdapterClaims)) {
      if (auto r = result_of(f.claim)) report.results.push_back(std::move(*r));
    }
  }
  report.seconds = seconds_since(start);
  if (stopped()) report.stopped = "stopped before the audit was done";
  return report;
}

}  // namespace cuckoo::audit
