// Bounded exhaustive checking (small-scope model checking, DESIGN.md section 5).
//
// With an injected Hasher that gives each of K keys a chosen hash value, every hash
// assignment of the keys into a tiny table (every first bucket and fingerprint from a
// small set for the filter; every pair of positions for the exact tables) is combined
// with every op sequence up to length L, and every claim that applies is checked after
// every op.
//
// How "every sequence" is covered without running each one:
//   - The engines are deterministic functions of their state (the filter's kick walk
//     draws from a generator seeded by the walk number, stats().kick_walks, which is part
//     of the state below). So the explorer runs a breadth-first search over states: from
//     each state reached within L - 1 ops it applies every mutating op of the alphabet
//     (insert k, erase k, insert_or_assign k for maps, clear), checks the transition, and
//     dedups the resulting state by a canonical encoding of (engine state, model state).
//     A state reached again is not explored again: whatever follows it was (or will be,
//     from its first, shallowest occurrence) checked already.
//   - Observing ops (contains k, find k, size, serialize_roundtrip) do not change the
//     state, so instead of interleaving them they are all checked once at every state.
//   Hence every sequence over the full alphabet of length <= L is checked: its states are
//   all among those explored and its ops among the transitions and observations checked.
//   The count reported as "sequences" is sum_{l <= L} A^l per assignment (A = alphabet
//   size) times the number of assignments: the sequences covered, not the ones run.
//   - Keys are interchangeable, so assignments are enumerated up to a permutation of
//     the keys (multisets of placements); the full count is reported beside it.
//
// The checks are a direct lock-step comparison against a compact model with the
// semantics of model::MultisetModel (filters: counts per key, identities = fingerprint
// and bucket pair) or model::MapModel (tables), stricter than the trace checker where
// the engine exposes more (exact copy counts, unchanged state after a refused insert,
// the stash contract, C8 against PlacementOracle). A sample of the explored states (every
// state in the full lane) is also replayed from scratch through the project's checker,
// model::check with the audit adapters, which must find no violation and must arrive at
// the same canonical state (this also shows that the canonical state holds everything
// the engine's behaviour depends on).
//
// A violation is printed as a replayable trace (model::format_violation): the header
// names the engine, its configuration and the injected hashes (hasher=placed,
// placed_hashes=...). Replay it with
//     CUCKOO_EXHAUSTIVE_REPLAY=<file> properties_exhaustive_test --gtest_filter='*Replay*'
//
// Bounds: the default lane finishes in about a minute under the dev preset (Debug, ASan,
// UBSan); CUCKOO_PROPERTIES_FULL=1 explores one more op of depth everywhere and replays
// every state. The numbers of states, transitions and sequences are printed and recorded
// with RecordProperty.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <concepts>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_set>
#include <utility>
#include <vector>

#include "cuckoo/subjects/replay.hpp"
#include "cuckoo/classic_cuckoo.hpp"
#include "cuckoo/cuckoo_filter.hpp"
#include "cuckoo/cuckoo_map.hpp"
#include "cuckoo/model/checker.hpp"
#include "cuckoo/model/map_model.hpp"
#include "cuckoo/model/multiset_model.hpp"
#include "cuckoo/model/op.hpp"
#include "cuckoo/model/placement_oracle.hpp"
#include "cuckoo/model/trace.hpp"
#include "cuckoo/model/violation.hpp"
#include "cuckoo/smart_cuckoo.hpp"

namespace {

namespace model = cuckoo::model;
namespace subjects = cuckoo::subjects;
using cuckoo::InsertResult;
using model::Op;
using model::OpKind;

bool full_lane() {
  const char* value = std::getenv("CUCKOO_PROPERTIES_FULL");
  return value != nullptr && std::string_view(value) == "1";
}

// ---------------------------------------------------------------------------------------
// Placed hashing
// ---------------------------------------------------------------------------------------

// Keys are 0 .. kMaxKeys-1.
constexpr std::size_t kMaxKeys = 4;

// Gives key k the hash value hashes[k], whatever the seed: the test chooses every key's
// buckets (and fingerprint).
struct PlacedHasher {
  std::array<std::uint64_t, kMaxKeys> hashes{};

  template <std::integral T>
  std::uint64_t operator()(T key, std::uint64_t /*seed*/) const noexcept {
    const auto k = static_cast<std::uint64_t>(key);
    return k < kMaxKeys ? hashes[k] : cuckoo::detail::mix64(k);
  }
};

std::string hex(std::uint64_t v) {
  std::ostringstream out;
  out << "0x" << std::hex << v;
  return out.str();
}

// "0x..,0x..": the placed_hashes trace parameter.
std::string hashes_parameter(const PlacedHasher& h, unsigned keys) {
  std::string text;
  for (unsigned k = 0; k < keys; ++k) {
    if (k != 0) text += ",";
    text += hex(h.hashes[k]);
  }
  return text;
}

PlacedHasher hasher_from(const model::TraceParameters& p) {
  PlacedHasher h;
  const std::string text = p.get_string("placed_hashes");
  std::size_t k = 0;
  std::size_t start = 0;
  while (start <= text.size() && k < kMaxKeys) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    h.hashes[k++] = std::stoull(text.substr(start, comma - start), nullptr, 0);
    start = comma + 1;
  }
  return h;
}

void add_placed_parameters(model::Trace& trace, const PlacedHasher& h, unsigned keys,
                           const std::string& placements) {
  trace.parameters.set("hasher", "placed");
  trace.parameters.set("placed_hashes", hashes_parameter(h, keys));
  trace.parameters.set("placements", placements);
}

// Every multiset of `keys` indices from [0, choices): nondecreasing index vectors.
void for_each_multiset(unsigned choices, unsigned keys,
                       const std::function<void(const std::vector<unsigned>&)>& fn) {
  std::vector<unsigned> pick(keys, 0);
  while (true) {
    fn(pick);
    // Next nondecreasing vector: bump the last index that can grow, reset the rest to it.
    int i = static_cast<int>(keys) - 1;
    while (i >= 0 && pick[static_cast<std::size_t>(i)] + 1 == choices) --i;
    if (i < 0) return;
    const unsigned v = ++pick[static_cast<std::size_t>(i)];
    for (auto j = static_cast<std::size_t>(i) + 1; j < keys; ++j) pick[j] = v;
  }
}

double power(double base, unsigned exponent) {
  double r = 1;
  for (unsigned i = 0; i < exponent; ++i) r *= base;
  return r;
}

double multiset_count(unsigned choices, unsigned keys) {
  // C(choices + keys - 1, keys)
  double r = 1;
  for (unsigned i = 1; i <= keys; ++i) r = r * (choices + keys - i) / i;
  return r;
}

// sum_{l=0}^{depth} alphabet^l
double sequences_up_to(unsigned alphabet, unsigned depth) {
  double total = 0;
  for (unsigned l = 0; l <= depth; ++l) total += power(alphabet, l);
  return total;
}

// ---------------------------------------------------------------------------------------
// The explorer
// ---------------------------------------------------------------------------------------

struct Problem {
  std::string claim;
  std::string expected;
  std::string actual;
  // For a problem found in a state: the observing op that shows it (the report's trace
  // ends there), when there is one.
  std::optional<Op> revealed_by = std::nullopt;
};

Problem revealed(Problem p, const Op& op) {
  p.revealed_by = op;
  return p;
}

struct ExploreStats {
  std::uint64_t states = 0;          // distinct (engine, model) states reached
  std::uint64_t transitions = 0;     // mutating ops executed
  std::uint64_t replays = 0;         // paths re-run from scratch through model::check
  std::uint64_t full_results = 0;    // inserts that returned kFull
  std::uint64_t false_failures = 0;  // kFull although PlacementOracle has a placement
  std::uint64_t stash_inserts = 0;   // inserts that ended in a stash
  unsigned deepest = 0;              // largest depth at which a new state appeared

  void add(const ExploreStats& o) {
    states += o.states;
    transitions += o.transitions;
    replays += o.replays;
    full_results += o.full_results;
    false_failures += o.false_failures;
    stash_inserts += o.stash_inserts;
    deepest = std::max(deepest, o.deepest);
  }
};

struct Found {
  std::vector<Op> path;  // the ops from the empty state; the last one failed when !at_state
  Problem problem;
  bool at_state = false;  // the problem is in the state the path reaches (an observation)
};

// Breadth-first search over the states reachable within depth_bound mutating ops; see the
// comment at the top. Returns the first problem found (with the shortest path to it).
// Every replay_every-th new state (counted on `clock`, shared across assignments) is also
// replayed from scratch through model::check.
template <class System>
std::optional<Found> explore(const System& system, unsigned depth_bound, unsigned replay_every,
                             ExploreStats& stats, std::uint64_t& clock) {
  using State = typename System::State;
  struct Node {
    std::uint32_t parent;
    std::uint32_t op;
  };
  const std::vector<Op>& ops = system.ops();
  std::vector<Node> nodes;
  std::unordered_set<std::string> seen;
  const auto path_to = [&](std::uint32_t id) {
    std::vector<Op> path;
    while (id != 0) {  // bound: the node's depth
      path.push_back(ops[nodes[id].op]);
      id = nodes[id].parent;
    }
    std::reverse(path.begin(), path.end());
    return path;
  };

  State start = system.initial();
  seen.insert(system.key(start));
  nodes.push_back({0, 0});
  ++stats.states;
  if (auto p = system.observe(start)) return Found{{}, *p, true};

  std::vector<std::pair<State, std::uint32_t>> frontier;
  frontier.emplace_back(std::move(start), 0);
  for (unsigned depth = 0; depth < depth_bound && !frontier.empty(); ++depth) {
    std::vector<std::pair<State, std::uint32_t>> next;
    for (const auto& [state, id] : frontier) {
      for (std::uint32_t o = 0; o < ops.size(); ++o) {
        State after = state;
        ++stats.transitions;
        if (auto p = system.apply(state, after, ops[o], stats)) {
          std::vector<Op> path = path_to(id);
          path.push_back(ops[o]);
          return Found{std::move(path), *p, false};
        }
        if (!seen.insert(system.key(after)).second) continue;
        const auto node = static_cast<std::uint32_t>(nodes.size());
        nodes.push_back({id, o});
        ++stats.states;
        stats.deepest = std::max(stats.deepest, depth + 1);
        if (auto p = system.observe(after)) return Found{path_to(node), *p, true};
        if (replay_every != 0 && ++clock % replay_every == 0) {
          ++stats.replays;
          if (auto p = system.cross_check(path_to(node), after)) return Found{path_to(node), *p, true};
        }
        if (depth + 1 < depth_bound) next.emplace_back(std::move(after), node);
      }
    }
    frontier = std::move(next);
  }
  return std::nullopt;
}

// The replayable report of a problem: the trace (header, the path, and for a problem in a
// state the observing ops that reveal it), judged by model::check when it sees the
// violation too, else by the explorer's own stricter finding.
template <class System>
std::string report(const System& system, const Found& found) {
  model::Trace trace = system.trace(found.path);
  if (found.at_state) {
    for (const Op& op : system.observations()) trace.add(op);
  }
  std::optional<model::Violation> v;
  std::string note;
  bool threw = false;
  try {
    v = system.check_trace(trace);
  } catch (const std::exception& e) {
    threw = true;
    note = std::string("# (model::check threw: ") + e.what() + ")\n";
  }
  if (!v) {
    model::Violation own;
    own.claim = found.problem.claim;
    own.op_index = found.at_state || found.path.empty() ? trace.entries.size() - 1 : found.path.size() - 1;
    if (found.at_state && found.problem.revealed_by) {
      for (std::size_t i = found.path.size(); i < trace.entries.size(); ++i) {
        if (trace.entries[i].op == *found.problem.revealed_by) {
          own.op_index = i;
          break;
        }
      }
    }
    own.op = trace.entries[own.op_index].op;
    own.expected = found.problem.expected;
    own.actual = found.problem.actual;
    own.seed = system.seed();
    v = own;
    if (!threw) note += "# (found by the exhaustive lock-step check; model::check, which sees less, passes this trace)\n";
  }
  return model::format_violation(*v, trace) + note + "# explorer: " + found.problem.claim + ": expected " +
         found.problem.expected + ", actual " + found.problem.actual + "\n";
}

// Runs model::check on the path (plus every observation) with a fresh engine and compares
// the state it reaches with the explored one.
template <class System>
std::optional<Problem> replay_and_compare(const System& system, const std::vector<Op>& path,
                                          const typename System::State& reached) {
  model::Trace trace = system.trace(path);
  for (const Op& op : system.observations()) trace.add(op);
  std::string final_key;
  const std::optional<model::Violation> v = system.check_trace(trace, &final_key);
  if (v) return Problem{"replay:" + v->claim, v->expected, v->actual + " (model::check on the replayed path)"};
  if (final_key != system.key(reached)) {
    return Problem{"replay", "the replayed engine reaches the explored state",
                   "a different state: the canonical state misses something the engine depends on, "
                   "or the engine is not deterministic"};
  }
  return std::nullopt;
}

std::string op_text(const Op& op) { return model::to_string(op); }

void append_u64(std::string& out, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

// ---------------------------------------------------------------------------------------
// CuckooFilter
// ---------------------------------------------------------------------------------------

using PlacedFilter = cuckoo::BasicCuckooFilter<PlacedHasher>;

struct FilterScope {
  unsigned buckets;
  unsigned slots;
  unsigned keys;
  unsigned depth;
  unsigned max_kicks;
  unsigned fingerprint_bits = 4;
  unsigned min_fingerprints = 0;  // add fingerprints (more identities) up to this many
  bool planted_stash_blind_lookup = false;  // teeth: pretend contains() ignores the stash
};

cuckoo::CuckooFilterConfig filter_config(const FilterScope& s) {
  cuckoo::CuckooFilterConfig c;
  c.capacity = std::uint64_t{s.buckets} * s.slots;
  c.fingerprint_bits = s.fingerprint_bits;
  c.slots_per_bucket = s.slots;
  c.max_kicks = s.max_kicks;
  c.seed = 0x5eed'f117e4ULL;
  return c;
}

// A hash whose first bucket is i1 (of n) and whose fingerprint is fp:
// high half ceil(i1 * 2^32 / n), so reduce32 maps it to i1; low bits fp.
std::uint64_t filter_hash_for(std::uint32_t i1, std::uint32_t fp, std::uint32_t n) {
  const std::uint64_t high = ((std::uint64_t{i1} << 32) + n - 1) / n;
  return (high << 32) | fp;
}

// Fingerprints that reach every distinct alternate-bucket offset t(fp) = alt_bucket(0, fp)
// of an n-bucket table, plus one more that shares its offset with the first (two
// identities with the same bucket pair).
std::vector<std::uint32_t> fingerprint_choices(unsigned n, unsigned f, unsigned at_least) {
  FilterScope probe_scope{n, 1, 1, 0, 1, f};
  const PlacedFilter probe(filter_config(probe_scope));
  std::vector<std::uint32_t> chosen;
  std::vector<bool> offset_seen(n, false);
  const std::uint32_t max_fp = (1U << f) - 1;
  for (std::uint32_t fp = 1; fp <= max_fp; ++fp) {
    const std::uint32_t t = probe.alt_bucket(0, fp);
    if (!offset_seen[t]) {
      offset_seen[t] = true;
      chosen.push_back(fp);
    }
  }
  const std::uint32_t first_offset = probe.alt_bucket(0, chosen.front());
  for (std::uint32_t fp = 1; fp <= max_fp; ++fp) {
    if (std::find(chosen.begin(), chosen.end(), fp) == chosen.end() &&
        probe.alt_bucket(0, fp) == first_offset) {
      chosen.push_back(fp);
      break;
    }
  }
  for (std::uint32_t fp = 1; fp <= max_fp && chosen.size() < at_least; ++fp) {
    if (std::find(chosen.begin(), chosen.end(), fp) == chosen.end()) chosen.push_back(fp);
  }
  return chosen;
}

class FilterSystem {
 public:
  struct State {
    PlacedFilter filter;
    std::array<std::uint8_t, kMaxKeys> copies{};  // the model: stored copies per key
  };

  FilterSystem(const FilterScope& scope, const std::vector<std::pair<std::uint32_t, std::uint32_t>>& placements)
      : scope_(scope), config_(filter_config(scope)) {
    // engine_key() packs fingerprints and buckets in nibbles and counts in bytes.
    if (scope.fingerprint_bits != 4 || scope.buckets > 16 || scope.keys > kMaxKeys || scope.depth > 200) {
      throw std::invalid_argument("FilterSystem: scope outside what its canonical state encodes");
    }
    const PlacedFilter probe(config_);
    for (unsigned k = 0; k < scope.keys; ++k) {
      const auto [i1, fp] = placements[k];
      hasher_.hashes[k] = filter_hash_for(i1, fp, scope.buckets);
      const cuckoo::CuckooFilterPlacement p = probe.placement_of_hash(hasher_.hashes[k]);
      if (p.bucket1 != i1 || p.fingerprint != fp) {
        throw std::logic_error("filter_hash_for does not invert the filter's hash derivation");
      }
      placement_[k] = p;
      identity_[k] = subjects::filter_identity(p);
      limit_[k] = probe.max_copies_of_hash(hasher_.hashes[k]);
      if (!placements_text_.empty()) placements_text_ += ",";
      placements_text_ += std::to_string(i1) + "/" + std::to_string(fp);
    }
    for (unsigned k = 0; k < scope.keys; ++k) {
      ops_.push_back(Op::insert(k));
      ops_.push_back(Op::erase(k));
      observations_.push_back(Op::contains(k));
    }
    ops_.push_back(Op::clear());
    observations_.push_back(Op::size());
    // The round trip is checked in every state in the full lane, so it is part of the
    // alphabet there; the default lane checks it in every state with a stash entry and in
    // every kRoundtripSample-th other state (it is most of the cost).
    if (full_lane()) observations_.push_back(Op::serialize_roundtrip());
  }

  const std::vector<Op>& ops() const { return ops_; }
  const std::vector<Op>& observations() const { return observations_; }
  std::uint64_t seed() const { return *config_.seed; }

  State initial() const { return State{PlacedFilter(config_, hasher_), {}}; }

  // Everything the filter's behaviour depends on (slots, stash in order, size, the kick
  // walk counter) and the model.
  std::string key(const State& s) const {
    std::string out = engine_key(s.filter);
    out.push_back(static_cast<char>(s.copies[0] | (s.copies[1] << 4)));
    out.push_back(static_cast<char>(s.copies[2] | (s.copies[3] << 4)));
    return out;
  }

  // Applies op to s (a copy of `before`) and checks the transition.
  std::optional<Problem> apply(const State& before, State& s, const Op& op, ExploreStats& stats) const {
    try {
      return apply_op(before.filter, s, op, stats);
    } catch (const std::exception& e) {
      return Problem{"exception", "no exception", e.what()};
    }
  }

  std::optional<Problem> observe(State& s) const {
    try {
      return observe_state(s);
    } catch (const std::exception& e) {
      return Problem{"exception", "no exception", e.what()};
    }
  }

  std::optional<Problem> cross_check(const std::vector<Op>& path, const State& reached) const {
    return replay_and_compare(*this, path, reached);
  }

  model::Trace trace(const std::vector<Op>& path) const {
    model::Trace t;
    t.engine = "filter";
    t.parameters = subjects::parameters_of(config_);
    add_placed_parameters(t, hasher_, scope_.keys, placements_text_);
    for (const Op& op : path) t.add(op);
    return t;
  }

  // model::check with a fresh filter; optionally the canonical state it ends in.
  std::optional<model::Violation> check_trace(const model::Trace& t, std::string* final_key = nullptr) const {
    PlacedFilter filter(config_, hasher_);
    subjects::FilterSubjectAdapter subject(filter);
    model::MultisetModel m;
    std::optional<model::Violation> v = model::check(subject, m, t, seed());
    if (final_key != nullptr) {
      State reached{filter, {}};
      for (unsigned k = 0; k < scope_.keys; ++k) reached.copies[k] = static_cast<std::uint8_t>(m.count(k));
      *final_key = key(reached);
    }
    return v;
  }

 private:
  // Compact, so that it stays within std::string's small buffer: fingerprints (< 16) and
  // bucket indices (< 16) are nibbles; size and the kick walk counter (both at most the
  // depth plus the stash) are bytes. The constructor checks that the scope fits.
  static std::string engine_key(const PlacedFilter& f) {
    std::string out;
    unsigned nibble = 0;
    bool high = false;
    for (std::uint32_t i = 0; i < f.bucket_count(); ++i) {
      for (unsigned j = 0; j < f.slots_per_bucket(); ++j) {
        nibble |= f.fingerprint_at(i, j) << (high ? 4 : 0);
        if (high) {
          out.push_back(static_cast<char>(nibble));
          nibble = 0;
        }
        high = !high;
      }
    }
    if (high) out.push_back(static_cast<char>(nibble));
    out.push_back(static_cast<char>(f.stash_size()));
    for (const auto& e : f.stash()) out.push_back(static_cast<char>(e.fingerprint | (e.bucket1 << 4)));
    out.push_back(static_cast<char>(f.size()));
    out.push_back(static_cast<char>(f.stats().kick_walks));
    return out;
  }

  std::size_t identity_count(const State& s, unsigned key) const {
    std::size_t n = 0;
    for (unsigned j = 0; j < scope_.keys; ++j) {
      if (identity_[j] == identity_[key]) n += s.copies[j];
    }
    return n;
  }

  std::size_t model_size(const State& s) const {
    std::size_t n = 0;
    for (unsigned j = 0; j < scope_.keys; ++j) n += s.copies[j];
    return n;
  }

  // Copies of key's fingerprint stored for its bucket pair (table and stash).
  static std::size_t stored_copies(const PlacedFilter& f, const cuckoo::CuckooFilterPlacement& p) {
    std::size_t n = 0;
    for (unsigned j = 0; j < f.slots_per_bucket(); ++j) {
      n += f.fingerprint_at(p.bucket1, j) == p.fingerprint ? 1 : 0;
      if (p.bucket2 != p.bucket1) n += f.fingerprint_at(p.bucket2, j) == p.fingerprint ? 1 : 0;
    }
    for (const auto& e : f.stash()) {
      n += e.fingerprint == p.fingerprint && (e.bucket1 == p.bucket1 || e.bucket1 == p.bucket2) ? 1 : 0;
    }
    return n;
  }

  static bool bucket_full(const PlacedFilter& f, std::uint32_t bucket) {
    for (unsigned j = 0; j < f.slots_per_bucket(); ++j) {
      if (f.fingerprint_at(bucket, j) == 0) return false;
    }
    return true;
  }

  bool answers_contains(const PlacedFilter& f, unsigned key) const {
    if (!scope_.planted_stash_blind_lookup) return f.contains(std::uint64_t{key});
    // The planted bug: a lookup that only looks at the two buckets.
    const auto& p = placement_[key];
    for (unsigned j = 0; j < f.slots_per_bucket(); ++j) {
      if (f.fingerprint_at(p.bucket1, j) == p.fingerprint || f.fingerprint_at(p.bucket2, j) == p.fingerprint) {
        return true;
      }
    }
    return false;
  }

  // Same contents and the same kick walk counter: nothing observable changed.
  static bool unchanged(const PlacedFilter& before, const PlacedFilter& after) {
    return before == after && before.stats().kick_walks == after.stats().kick_walks;
  }

  std::optional<Problem> apply_op(const PlacedFilter& before, State& s, const Op& op, ExploreStats& stats) const {
    auto& f = s.filter;
    const auto k = static_cast<unsigned>(op.key);
    const std::uint64_t size_before = f.size();
    const std::uint64_t kick_failures_before = f.stats().kick_failures;
    switch (op.kind) {
      case OpKind::kInsert: {
        const std::size_t copies = identity_count(s, k);
        const InsertResult r = f.insert(op.key);
        const std::string got(cuckoo::to_string(r));
        if (copies >= limit_[k]) {
          if (r != InsertResult::kDuplicateLimit) {
            return Problem{"C5", "duplicate_limit (" + std::to_string(copies) + " copies, limit " +
                                     std::to_string(limit_[k]) + ")", got};
          }
          if (!unchanged(before, f)) return Problem{"C5", "a refused insert changes nothing", "the state changed"};
          return std::nullopt;
        }
        if (r == InsertResult::kFull) {
          ++stats.full_results;
          if (!unchanged(before, f)) return Problem{"C6", "a failed insert changes nothing", "the state changed"};
          const auto& p = placement_[k];
          if (f.stash_size() != PlacedFilter::kStashSlots || !bucket_full(f, p.bucket1) || !bucket_full(f, p.bucket2)) {
            return Problem{"invariant", "full only when both buckets and the stash are full",
                           "full with stash size " + std::to_string(f.stash_size())};
          }
          return std::nullopt;
        }
        if (r != InsertResult::kInserted) {
          return Problem{"C5", "inserted or full (" + std::to_string(copies) + " copies, limit " +
                                   std::to_string(limit_[k]) + ")", got};
        }
        ++s.copies[k];
        if (f.stats().kick_failures != kick_failures_before) ++stats.stash_inserts;
        if (f.size() != size_before + 1) {
          return Problem{"size", "size " + std::to_string(size_before + 1), "size " + std::to_string(f.size())};
        }
        return std::nullopt;
      }
      case OpKind::kErase: {
        const std::size_t copies = identity_count(s, k);
        const bool r = f.erase(op.key);
        if (r != (copies > 0)) {
          return Problem{"C5", std::string(copies > 0 ? "true" : "false") + " (" + std::to_string(copies) +
                                   " copies of the identity stored)",
                         r ? "true" : "false"};
        }
        if (!r) {
          if (!unchanged(before, f)) return Problem{"C5", "a failed erase changes nothing", "the state changed"};
          return std::nullopt;
        }
        // MultisetModel::erase: the key itself if stored, else the smallest key with its identity.
        unsigned victim = k;
        if (s.copies[k] == 0) {
          for (unsigned j = 0; j < scope_.keys; ++j) {
            if (identity_[j] == identity_[k] && s.copies[j] > 0) {
              victim = j;
              break;
            }
          }
        }
        --s.copies[victim];
        if (f.size() + 1 != size_before) {
          return Problem{"C5", "size " + std::to_string(size_before - 1) + " (erase removes one copy)",
                         "size " + std::to_string(f.size())};
        }
        return std::nullopt;
      }
      case OpKind::kClear:
        f.clear();
        s.copies = {};
        if (f.size() != 0) return Problem{"size", "size 0 after clear", "size " + std::to_string(f.size())};
        return std::nullopt;
      default:
        throw std::logic_error("not a mutating filter op: " + op_text(op));
    }
  }

  std::optional<Problem> observe_state(State& s) const {
    const auto& f = s.filter;
    if (f.size() != model_size(s)) {
      return revealed({"size", "size " + std::to_string(model_size(s)), "size " + std::to_string(f.size())}, Op::size());
    }
    std::size_t stored = 0;
    for (std::uint32_t i = 0; i < f.bucket_count(); ++i) {
      for (unsigned j = 0; j < f.slots_per_bucket(); ++j) stored += f.fingerprint_at(i, j) != 0 ? 1 : 0;
    }
    for (const auto& e : f.stash()) {
      if (e.bucket2 != f.alt_bucket(e.bucket1, e.fingerprint)) {
        return Problem{"invariant", "stash entry bucket2 == alt_bucket(bucket1, fp)", "a mismatched stash entry"};
      }
      // The stash drains: after every op no stash entry has room in one of its buckets.
      if (!bucket_full(f, e.bucket1) || !bucket_full(f, e.bucket2)) {
        return Problem{"invariant", "no stash entry with a free slot in one of its buckets",
                       "stash entry fp " + std::to_string(e.fingerprint) + " with room in bucket " +
                           std::to_string(bucket_full(f, e.bucket1) ? e.bucket2 : e.bucket1)};
      }
    }
    stored += f.stash_size();
    if (stored != f.size()) {
      return Problem{"invariant", std::to_string(f.size()) + " stored fingerprints (size())",
                     std::to_string(stored) + " in the slots and the stash"};
    }
    for (unsigned k = 0; k < scope_.keys; ++k) {
      const std::size_t copies = identity_count(s, k);
      const bool yes = answers_contains(f, k);
      if (copies > 0 && !yes) {
        return revealed({"C1", "contains " + std::to_string(k) + " => true (" + std::to_string(copies) + " copies stored)",
                         "false"},
                        Op::contains(k));
      }
      // The filter is exact up to identities: a false positive needs a stored item with
      // the same fingerprint and bucket pair (the basis of the C2 rate).
      if (copies == 0 && yes) {
        return revealed({"C2", "contains " + std::to_string(k) + " => false (no item with its identity is stored)",
                         "true"},
                        Op::contains(k));
      }
      const std::size_t held = stored_copies(f, placement_[k]);
      if (held != copies) {
        return Problem{held < copies ? "C1" : "C5",
                       std::to_string(copies) + " stored copies of the identity of " + std::to_string(k),
                       std::to_string(held) + " copies in the buckets and the stash"};
      }
    }
    // C11: the round trip gives an equal filter in the same canonical state.
    if (!full_lane() && f.stash_size() == 0 && ++observed_ % kRoundtripSample != 0) return std::nullopt;
    const PlacedFilter copy = PlacedFilter::deserialize(f.serialize(), f.hasher());
    if (!(copy == f) || engine_key(copy) != engine_key(f)) {
      return revealed({"C11", "deserialize(serialize()) equals the filter", "a different filter"},
                      Op::serialize_roundtrip());
    }
    for (unsigned k = 0; k < scope_.keys; ++k) {
      if (copy.contains(std::uint64_t{k}) != f.contains(std::uint64_t{k})) {
        return revealed({"C11", "the same contains answers after the round trip", "a different answer"},
                        Op::serialize_roundtrip());
      }
    }
    return std::nullopt;
  }

  static constexpr std::uint64_t kRoundtripSample = 8;

  FilterScope scope_;
  cuckoo::CuckooFilterConfig config_;
  PlacedHasher hasher_;
  mutable std::uint64_t observed_ = 0;  // states observed, for sampling the round trip
  std::array<cuckoo::CuckooFilterPlacement, kMaxKeys> placement_{};
  std::array<std::uint64_t, kMaxKeys> identity_{};
  std::array<unsigned, kMaxKeys> limit_{};
  std::string placements_text_;
  std::vector<Op> ops_;
  std::vector<Op> observations_;
};

// ---------------------------------------------------------------------------------------
// Exact tables: shared model and pieces
// ---------------------------------------------------------------------------------------

// The values the map ops use: insert stores 1, insert_or_assign 2 (enough to tell an
// update from a kept value).
constexpr std::uint64_t kInsertValue = 1;
constexpr std::uint64_t kAssignValue = 2;

// Model of an exact table over the keys: 0 = absent, else the value.
using ValueModel = std::array<std::uint8_t, kMaxKeys>;

std::vector<Op> map_ops(unsigned keys) {
  std::vector<Op> ops;
  for (unsigned k = 0; k < keys; ++k) {
    ops.push_back(Op::insert(k, kInsertValue));
    ops.push_back(Op::insert_or_assign(k, kAssignValue));
    ops.push_back(Op::erase(k));
  }
  ops.push_back(Op::clear());
  return ops;
}

std::vector<Op> map_observations(unsigned keys, bool roundtrip) {
  std::vector<Op> ops;
  for (unsigned k = 0; k < keys; ++k) {
    ops.push_back(Op::find(k));
    ops.push_back(Op::contains(k));
  }
  ops.push_back(Op::size());
  if (roundtrip) ops.push_back(Op::serialize_roundtrip());
  return ops;
}

// Judges one map op's outcome against the value model and updates the model. `full_ok`:
// kFull is legitimate for a new key. Returns a C7 problem on a mismatch; sets `refused`
// when the op returned kFull.
std::optional<Problem> judge_map_op(ValueModel& values, const Op& op, InsertResult r, bool erased,
                                    bool full_ok, bool& refused) {
  const auto k = static_cast<unsigned>(op.key);
  const bool present = values[k] != 0;
  const std::string got(cuckoo::to_string(r));
  refused = false;
  switch (op.kind) {
    case OpKind::kInsert:
    case OpKind::kInsertOrAssign: {
      const bool assign = op.kind == OpKind::kInsertOrAssign;
      const InsertResult expected =
          present ? (assign ? InsertResult::kUpdated : InsertResult::kExists) : InsertResult::kInserted;
      if (r == InsertResult::kFull && !present && full_ok) {
        refused = true;
        return std::nullopt;
      }
      if (r != expected) return Problem{"C7", std::string(cuckoo::to_string(expected)), got};
      if (!present || assign) values[k] = static_cast<std::uint8_t>(op.value);
      return std::nullopt;
    }
    case OpKind::kErase:
      if (erased != present) return Problem{"C7", present ? "true" : "false", erased ? "true" : "false"};
      values[k] = 0;
      return std::nullopt;
    case OpKind::kClear:
      values = {};
      return std::nullopt;
    default:
      throw std::logic_error("not a mutating map op: " + op_text(op));
  }
}

// find / contains / size against the value model.
template <class Table>
std::optional<Problem> check_map_answers(const Table& table, const ValueModel& values, unsigned keys) {
  std::size_t present = 0;
  for (unsigned k = 0; k < keys; ++k) {
    const std::uint64_t* v = nullptr;
    if constexpr (requires { table.find_value(std::uint64_t{k}); }) {  // CuckooMap
      v = table.find_value(std::uint64_t{k});
    } else {
      v = table.find(std::uint64_t{k});
    }
    const std::uint64_t expected = values[k];
    present += expected != 0 ? 1 : 0;
    if ((v == nullptr) != (expected == 0) || (v != nullptr && *v != expected)) {
      return revealed({"C7", "find " + std::to_string(k) + " => " + (expected ? std::to_string(expected) : "none"),
                       v ? std::to_string(*v) : "none"},
                      Op::find(k));
    }
    if (table.contains(std::uint64_t{k}) != (expected != 0)) {
      return revealed({"C7", "contains " + std::to_string(k) + " => " + (expected ? "true" : "false"),
                       expected ? "false" : "true"},
                      Op::contains(k));
    }
  }
  if (table.size() != present) {
    return revealed({"C7", "size " + std::to_string(present), "size " + std::to_string(table.size())}, Op::size());
  }
  return std::nullopt;
}

template <class Adapter>
std::optional<model::Violation> check_map_trace(Adapter& subject, const model::Trace& t, std::uint64_t seed,
                                                std::string* final_model, unsigned keys) {
  model::MapModel m;
  std::optional<model::Violation> v = model::check(subject, m, t, seed);
  if (final_model != nullptr) {
    for (unsigned k = 0; k < keys; ++k) {
      const auto found = m.find(k);
      final_model->push_back(static_cast<char>(found ? *found : 0));
    }
  }
  return v;
}

std::string value_key(const ValueModel& values, unsigned keys) {
  std::string out;
  for (unsigned k = 0; k < keys; ++k) out.push_back(static_cast<char>(values[k]));
  return out;
}

// ---------------------------------------------------------------------------------------
// ClassicCuckoo
// ---------------------------------------------------------------------------------------

using PlacedClassic = cuckoo::ClassicCuckoo<std::uint64_t, std::uint64_t, PlacedHasher>;

struct TableScope {
  unsigned table_size;  // buckets per table (classic, smart) or buckets (map)
  unsigned keys;
  unsigned depth;
  unsigned max_kicks = 500;
  cuckoo::OnInsertFailure on_failure = cuckoo::OnInsertFailure::kReport;
  std::size_t stash_capacity = 1;  // smart
  unsigned max_path_length = 2;    // map
};

std::uint64_t classic_hash_for(std::uint32_t p0, std::uint32_t p1, std::uint32_t n) {
  const std::optional<std::uint64_t> h = cuckoo::ClassicCuckoo<>::hash_with_positions(p0, p1, n);
  if (!h) throw std::logic_error("hash_with_positions found no hash");
  return *h;
}

class ClassicSystem {
 public:
  struct State {
    PlacedClassic table;
    ValueModel values{};
  };

  ClassicSystem(const TableScope& scope, const std::vector<std::pair<std::uint32_t, std::uint32_t>>& positions)
      : scope_(scope) {
    config_.capacity = 2 * std::size_t{scope.table_size};
    config_.max_kicks = scope.max_kicks;
    config_.on_failure = scope.on_failure;
    config_.max_rehashes = 1;
    config_.max_capacity = scope.on_failure == cuckoo::OnInsertFailure::kReport ? cuckoo::ClassicCuckooConfig::kMaxCapacity
                                                                                : 4 * std::size_t{scope.table_size};
    config_.seed = 0x5eed'c1a55ULL;
    for (unsigned k = 0; k < scope.keys; ++k) {
      hasher_.hashes[k] = classic_hash_for(positions[k].first, positions[k].second, scope.table_size);
      if (!placements_text_.empty()) placements_text_ += ",";
      placements_text_ += std::to_string(positions[k].first) + "/" + std::to_string(positions[k].second);
    }
    const PlacedClassic probe(config_, hasher_);
    for (unsigned k = 0; k < scope.keys; ++k) {
      if (probe.positions_of(k) != positions[k]) throw std::logic_error("classic positions do not match");
    }
    ops_ = map_ops(scope.keys);
    observations_ = map_observations(scope.keys, false);
  }

  const std::vector<Op>& ops() const { return ops_; }
  const std::vector<Op>& observations() const { return observations_; }
  std::uint64_t seed() const { return *config_.seed; }
  State initial() const { return State{PlacedClassic(config_, hasher_), {}}; }

  std::string key(const State& s) const { return engine_key(s.table) + value_key(s.values, scope_.keys); }

  std::optional<Problem> apply(const State& before, State& s, const Op& op, ExploreStats& stats) const {
    try {
      auto& t = s.table;
      const auto k = static_cast<unsigned>(op.key);
      InsertResult r = InsertResult::kInserted;
      bool erased = false;
      if (op.kind == OpKind::kInsert) r = t.insert(op.key, op.value);
      if (op.kind == OpKind::kInsertOrAssign) r = t.insert_or_assign(op.key, op.value);
      if (op.kind == OpKind::kErase) erased = t.erase(op.key);
      if (op.kind == OpKind::kClear) t.clear();
      bool refused = false;
      if (auto p = judge_map_op(s.values, op, r, erased, subjects::classic_may_report_full(config_), refused)) return p;
      if (refused) {
        ++stats.full_results;
        // C9 in the small: could every stored key plus this one be placed (b = 1)?
        if (scope_.on_failure == cuckoo::OnInsertFailure::kReport && oracle_fits(before, k)) ++stats.false_failures;
        if (engine_key(t) != engine_key(before.table)) {
          return Problem{"C6", "a failed insert changes nothing", "the layout changed"};
        }
      }
      // (A successful insert needs no oracle: the invariants and answers checked in the
      // next state are themselves a placement.)
      return std::nullopt;
    } catch (const std::exception& e) {
      return Problem{"exception", "no exception", e.what()};
    }
  }

  std::optional<Problem> observe(State& s) const {
    if (auto p = check_map_answers(s.table, s.values, scope_.keys)) return p;
    if (const auto problem = s.table.invariant_violation()) return Problem{"invariant", "I1..I3 hold", *problem};
    return std::nullopt;
  }

  std::optional<Problem> cross_check(const std::vector<Op>& path, const State& reached) const {
    return replay_and_compare(*this, path, reached);
  }

  model::Trace trace(const std::vector<Op>& path) const {
    model::Trace t;
    t.engine = "classic";
    t.parameters = subjects::parameters_of(config_);
    add_placed_parameters(t, hasher_, scope_.keys, placements_text_);
    for (const Op& op : path) t.add(op);
    return t;
  }

  std::optional<model::Violation> check_trace(const model::Trace& t, std::string* final_key = nullptr) const {
    PlacedClassic table(config_, hasher_);
    subjects::MapSubjectAdapter subject(table, subjects::classic_may_report_full(config_));
    std::string values;
    auto v = check_map_trace(subject, t, seed(), final_key != nullptr ? &values : nullptr, scope_.keys);
    if (final_key != nullptr) *final_key = engine_key(table) + values;
    return v;
  }

 private:
  // Size, seed generation (the seed is derive_seed^g(initial)), every slot as (key + 1,
  // value) in one byte, and the size: small enough for std::string's small buffer.
  static std::string engine_key(const PlacedClassic& t) {
    std::string out;
    out.push_back(static_cast<char>(t.table_size()));
    out.push_back(static_cast<char>(t.seed_generation()));
    for (unsigned tab = 0; tab < 2; ++tab) {
      for (std::size_t b = 0; b < t.table_size(); ++b) {
        const auto* e = t.slot(tab, b);
        out.push_back(static_cast<char>(e ? (e->key + 1) | (e->value << 4) : 0));
      }
    }
    out.push_back(static_cast<char>(t.size()));
    return out;
  }

  bool oracle_fits(const State& s, unsigned new_key) const {
    const std::size_t n = s.table.table_size();
    std::vector<model::CandidatePair> items;
    for (unsigned k = 0; k < scope_.keys; ++k) {
      if (s.values[k] == 0 && k != new_key) continue;
      const auto [p0, p1] = s.table.positions_of(k);
      items.push_back({p0, n + p1});
    }
    return model::PlacementOracle(2 * n, 1).fits(items);
  }

  TableScope scope_;
  cuckoo::ClassicCuckooConfig config_;
  PlacedHasher hasher_;
  std::string placements_text_;
  std::vector<Op> ops_;
  std::vector<Op> observations_;
};

// ---------------------------------------------------------------------------------------
// SmartCuckoo (C8 against PlacementOracle)
// ---------------------------------------------------------------------------------------

using PlacedSmart = cuckoo::SmartCuckoo<std::uint64_t, std::uint64_t, PlacedHasher>;

class SmartSystem {
 public:
  struct State {
    PlacedSmart table;
    ValueModel values{};
    // The stash in order (the engine's vector order decides which stashed item a
    // deletion re-places first, so it is part of the state). Shadowed here: the engine
    // appends predicted failures and removes items in order.
    std::vector<std::uint8_t> stash;
  };

  SmartSystem(const TableScope& scope, const std::vector<std::pair<std::uint32_t, std::uint32_t>>& positions)
      : scope_(scope) {
    config_.capacity = 2 * std::size_t{scope.table_size};
    config_.max_kicks = scope.max_kicks;
    config_.stash_capacity = scope.stash_capacity;
    config_.seed = 0x5eed'5a4a7ULL;
    for (unsigned k = 0; k < scope.keys; ++k) {
      hasher_.hashes[k] = classic_hash_for(positions[k].first, positions[k].second, scope.table_size);
      if (!placements_text_.empty()) placements_text_ += ",";
      placements_text_ += std::to_string(positions[k].first) + "/" + std::to_string(positions[k].second);
    }
    const PlacedSmart probe(config_, hasher_);
    for (unsigned k = 0; k < scope.keys; ++k) {
      const auto [p0, p1] = probe.positions_of(k);
      if (p0 != positions[k].first || p1 != positions[k].second) {
        throw std::logic_error("smart positions do not match");
      }
      vertices_[k] = probe.vertices_of(k);
    }
    ops_ = map_ops(scope.keys);
    observations_ = map_observations(scope.keys, false);
  }

  const std::vector<Op>& ops() const { return ops_; }
  const std::vector<Op>& observations() const { return observations_; }
  std::uint64_t seed() const { return *config_.seed; }
  State initial() const { return State{PlacedSmart(config_, hasher_), {}, {}}; }

  std::string key(const State& s) const {
    std::string out = engine_key(s.table, s.stash);
    return out + value_key(s.values, scope_.keys);
  }

  std::optional<Problem> apply(const State& before, State& s, const Op& op, ExploreStats& stats) const {
    try {
      return apply_op(before, s, op, stats);
    } catch (const std::exception& e) {
      return Problem{"exception", "no exception", e.what()};
    }
  }

  std::optional<Problem> observe(State& s) const {
    if (auto p = check_map_answers(s.table, s.values, scope_.keys)) return p;
    if (const auto problem = s.table.invariant_violation()) return Problem{"invariant", "invariants hold", *problem};
    // The stash holds exactly the shadowed keys, and only items that cannot be placed
    // (a deletion moves back every stashed item that can).
    std::size_t stashed = 0;
    for (unsigned k = 0; k < scope_.keys; ++k) {
      const bool in = s.table.in_stash(k);
      stashed += in ? 1 : 0;
      if (in != (std::find(s.stash.begin(), s.stash.end(), k) != s.stash.end())) {
        return Problem{"invariant", "stash membership as the engine's contract implies",
                       "key " + std::to_string(k) + (in ? " is" : " is not") + " in the stash"};
      }
      if (in && placeable(s, k)) {
        return Problem{"C8", "a stashed item has no placement (PlacementOracle)",
                       "key " + std::to_string(k) + " in the stash can be placed"};
      }
    }
    if (stashed != s.table.stash_size()) {
      return Problem{"invariant", std::to_string(stashed) + " stashed keys", std::to_string(s.table.stash_size())};
    }
    return std::nullopt;
  }

  std::optional<Problem> cross_check(const std::vector<Op>& path, const State& reached) const {
    return replay_and_compare(*this, path, reached);
  }

  model::Trace trace(const std::vector<Op>& path) const {
    model::Trace t;
    t.engine = "smart";
    t.parameters = subjects::parameters_of(config_);
    add_placed_parameters(t, hasher_, scope_.keys, placements_text_);
    for (const Op& op : path) t.add(op);
    return t;
  }

  std::optional<model::Violation> check_trace(const model::Trace& t, std::string* final_key = nullptr) const {
    PlacedSmart table(config_, hasher_);
    subjects::MapSubjectAdapter subject(table, /*has_growth_limit=*/true);
    std::string values;
    // Re-derive the stash order of the replayed engine the same way the explorer does.
    State shadow{PlacedSmart(config_, hasher_), {}, {}};
    ExploreStats ignored;
    for (const auto& entry : t.entries) {
      if (entry.op.kind == OpKind::kInsert || entry.op.kind == OpKind::kInsertOrAssign ||
          entry.op.kind == OpKind::kErase || entry.op.kind == OpKind::kClear) {
        const State previous = shadow;
        (void)apply_op(previous, shadow, entry.op, ignored);
      }
    }
    auto v = check_map_trace(subject, t, seed(), final_key != nullptr ? &values : nullptr, scope_.keys);
    if (final_key != nullptr) *final_key = engine_key(table, shadow.stash) + values;
    return v;
  }

 private:
  static std::array<std::int8_t, 1U << kMaxKeys> filled_cache() {
    std::array<std::int8_t, 1U << kMaxKeys> cache{};
    cache.fill(-1);
    return cache;
  }

  // The value stored for key, 0 if none (the answers check reports a missing key).
  static std::uint64_t value_of(const PlacedSmart& t, std::uint64_t key) {
    const std::uint64_t* v = t.find(key);
    return v != nullptr ? *v : 0;
  }

  std::string engine_key(const PlacedSmart& t, const std::vector<std::uint8_t>& stash) const {
    std::string out;
    out.reserve(8 * t.graph_vertices() + 2 * stash.size() + 16);
    for (std::size_t v = 0; v < t.graph_vertices(); ++v) {
      const std::uint64_t* key = t.key_at(v);
      out.push_back(static_cast<char>(key ? *key + 1 : 0));
      out.push_back(static_cast<char>(key ? value_of(t, *key) : 0));
      // The pseudoforest, canonically: the smallest vertex of the same subgraph, and the
      // subgraph's vertex and edge counts (root IDs depend on history, not on behaviour).
      const auto sub = t.subgraph_of(v);
      std::size_t label = 0xff;
      if (sub) {
        for (std::size_t u = 0; u <= v; ++u) {
          const auto other = t.subgraph_of(u);
          if (other && other->id == sub->id) {
            label = u;
            break;
          }
        }
      }
      out.push_back(static_cast<char>(label));
      out.push_back(static_cast<char>(sub ? sub->vertices : 0));
      out.push_back(static_cast<char>(sub ? sub->edges : 0));
    }
    out.push_back('|');
    for (const std::uint8_t k : stash) {
      out.push_back(static_cast<char>(k));
      out.push_back(static_cast<char>(value_of(t, k)));
    }
    out.push_back('|');
    append_u64(out, t.size());
    return out;
  }

  // Can the keys in `mask` all be placed in the tables? PlacementOracle decides; the
  // answers are cached per key set (the keys' buckets are fixed for this System).
  bool fits(unsigned mask) const {
    std::int8_t& cached = fits_cache_[mask];
    if (cached < 0) {
      std::vector<model::CandidatePair> items;
      for (unsigned k = 0; k < scope_.keys; ++k) {
        if ((mask >> k & 1U) != 0) items.push_back({vertices_[k].first, vertices_[k].second});
      }
      cached = model::PlacementOracle(2 * std::size_t{scope_.table_size}, 1).fits(items) ? 1 : 0;
    }
    return cached == 1;
  }

  // Could `key` be placed together with the items in the tables (not the stash)?
  bool placeable(const State& s, unsigned key) const {
    unsigned mask = 1U << key;
    for (unsigned k = 0; k < scope_.keys; ++k) {
      if (s.values[k] != 0 && !s.table.in_stash(k)) mask |= 1U << k;
    }
    return fits(mask);
  }

  std::optional<Problem> apply_op(const State& before, State& s, const Op& op, ExploreStats& stats) const {
    auto& t = s.table;
    const auto k = static_cast<unsigned>(op.key);
    const bool new_key = (op.kind == OpKind::kInsert || op.kind == OpKind::kInsertOrAssign) && s.values[k] == 0;
    bool predicted_failure = false;
    if (new_key) {
      predicted_failure = t.would_insert_fail(k);
      const bool fits = placeable(s, k);
      // C8: a failure is predicted iff no placement of the table's items plus this one exists.
      if (predicted_failure == fits) {
        return Problem{"C8", std::string("would_insert_fail ") + (fits ? "false" : "true") + " (PlacementOracle)",
                       predicted_failure ? "true" : "false"};
      }
    }
    const std::uint64_t exhaustions_before = t.stats().kick_bound_exhaustions;
    InsertResult r = InsertResult::kInserted;
    bool erased = false;
    if (op.kind == OpKind::kInsert) r = t.insert(op.key, op.value);
    if (op.kind == OpKind::kInsertOrAssign) r = t.insert_or_assign(op.key, op.value);
    if (op.kind == OpKind::kErase) erased = t.erase(op.key);
    if (op.kind == OpKind::kClear) t.clear();
    bool refused = false;
    if (auto p = judge_map_op(s.values, op, r, erased, /*full_ok=*/true, refused)) return p;
    if (t.stats().kick_bound_exhaustions != exhaustions_before) {
      return Problem{"C8", "a predicted success never exhausts the kick bound", "kick_bound_exhaustions grew"};
    }
    if (new_key) {
      if (refused) {
        ++stats.full_results;
        if (!predicted_failure || s.stash.size() != scope_.stash_capacity) {
          return Problem{"C8", "full only for a predicted failure with the stash full", "full"};
        }
        if (engine_key(t, s.stash) != engine_key(before.table, before.stash)) {
          return Problem{"C6", "a failed insert changes nothing", "the state changed"};
        }
      } else if (predicted_failure) {
        if (!t.in_stash(k) || t.stats().last_insert_kicks != 0) {
          return Problem{"C8", "a predicted failure goes to the stash and spends no kicks",
                         std::string(t.in_stash(k) ? "" : "not stashed, ") + std::to_string(t.stats().last_insert_kicks) +
                             " kicks"};
        }
        ++stats.stash_inserts;
        s.stash.push_back(static_cast<std::uint8_t>(k));
      } else if (t.in_stash(k)) {
        return Problem{"C8", "a predicted success is placed in the tables", "stashed"};
      }
    }
    if (op.kind == OpKind::kClear) s.stash.clear();
    // Deletions (and only they) take items out of the stash, keeping the order of the rest.
    std::erase_if(s.stash, [&](std::uint8_t key) { return !t.in_stash(key); });
    return std::nullopt;
  }

  TableScope scope_;
  cuckoo::SmartCuckooConfig config_;
  PlacedHasher hasher_;
  mutable std::array<std::int8_t, 1U << kMaxKeys> fits_cache_ = filled_cache();
  std::array<std::pair<std::size_t, std::size_t>, kMaxKeys> vertices_{};
  std::string placements_text_;
  std::vector<Op> ops_;
  std::vector<Op> observations_;
};

// ---------------------------------------------------------------------------------------
// CuckooMap
// ---------------------------------------------------------------------------------------

template <unsigned B>
using PlacedMap = cuckoo::CuckooMap<std::uint64_t, std::uint64_t, B, PlacedHasher>;

template <unsigned B>
class MapSystem {
 public:
  struct State {
    PlacedMap<B> map;
    ValueModel values{};
  };

  MapSystem(const TableScope& scope, const std::vector<std::pair<std::uint32_t, std::uint32_t>>& buckets)
      : scope_(scope) {
    config_.initial_capacity = std::size_t{scope.table_size} * B;
    // No growth: with at most kMaxKeys keys the 8-slot stash never fills, so growth is
    // unreachable anyway; the cap makes has_growth_limit true.
    config_.max_capacity = config_.initial_capacity;
    config_.max_path_length = scope.max_path_length;
    config_.seed = 0x5eed'3a9ULL;
    for (unsigned k = 0; k < scope.keys; ++k) {
      hasher_.hashes[k] = PlacedMap<B>::hash_for_buckets(buckets[k].first, buckets[k].second, scope.table_size);
      if (!placements_text_.empty()) placements_text_ += ",";
      placements_text_ += std::to_string(buckets[k].first) + "/" + std::to_string(buckets[k].second);
    }
    const PlacedMap<B> probe(config_, hasher_);
    for (unsigned k = 0; k < scope.keys; ++k) {
      if (probe.buckets_of(k) != buckets[k]) throw std::logic_error("map buckets do not match");
    }
    ops_ = map_ops(scope.keys);
    observations_ = map_observations(scope.keys, true);
  }

  const std::vector<Op>& ops() const { return ops_; }
  const std::vector<Op>& observations() const { return observations_; }
  std::uint64_t seed() const { return *config_.seed; }
  State initial() const { return State{PlacedMap<B>(config_, hasher_), {}}; }

  // serialize() holds the configuration, seed, bucket count and every item with its
  // position: all the map's behaviour depends on.
  std::string key(const State& s) const { return engine_key(s.map) + value_key(s.values, scope_.keys); }

  std::optional<Problem> apply(const State& before, State& s, const Op& op, ExploreStats& stats) const {
    try {
      auto& m = s.map;
      InsertResult r = InsertResult::kInserted;
      bool erased = false;
      const std::size_t stash_before = m.stash_size();
      if (op.kind == OpKind::kInsert) r = m.insert_outcome(op.key, op.value);
      if (op.kind == OpKind::kInsertOrAssign) r = m.insert_or_assign_outcome(op.key, op.value);
      if (op.kind == OpKind::kErase) erased = m.erase(op.key);
      if (op.kind == OpKind::kClear) m.clear();
      bool refused = false;
      if (auto p = judge_map_op(s.values, op, r, erased, /*full_ok=*/true, refused)) return p;
      if (refused) {
        ++stats.full_results;
        if (engine_key(m) != engine_key(before.map)) {
          return Problem{"C6", "a failed insert changes nothing", "the state changed"};
        }
      }
      if (m.stash_size() > stash_before) ++stats.stash_inserts;
      return std::nullopt;
    } catch (const std::exception& e) {
      return Problem{"exception", "no exception", e.what()};
    }
  }

  std::optional<Problem> observe(State& s) const {
    if (auto p = check_map_answers(s.map, s.values, scope_.keys)) return p;
    if (const std::string problem = s.map.check_invariants(); !problem.empty()) {
      return Problem{"invariant", "check_invariants() passes", problem};
    }
    const std::vector<std::uint8_t> bytes = s.map.serialize();
    const PlacedMap<B> copy = PlacedMap<B>::deserialize(bytes, s.map.hash_function());
    if (!(copy == s.map) || copy.serialize() != bytes) {
      return revealed({"C11", "deserialize(serialize()) is equal and re-serializes identically", "it differs"},
                      Op::serialize_roundtrip());
    }
    return std::nullopt;
  }

  std::optional<Problem> cross_check(const std::vector<Op>& path, const State& reached) const {
    return replay_and_compare(*this, path, reached);
  }

  model::Trace trace(const std::vector<Op>& path) const {
    model::Trace t;
    t.engine = "map";
    t.parameters = subjects::parameters_of(config_, B);
    add_placed_parameters(t, hasher_, scope_.keys, placements_text_);
    for (const Op& op : path) t.add(op);
    return t;
  }

  std::optional<model::Violation> check_trace(const model::Trace& t, std::string* final_key = nullptr) const {
    PlacedMap<B> map(config_, hasher_);
    subjects::MapSubjectAdapter subject(map, /*has_growth_limit=*/true);
    std::string values;
    auto v = check_map_trace(subject, t, seed(), final_key != nullptr ? &values : nullptr, scope_.keys);
    if (final_key != nullptr) *final_key = engine_key(map) + values;
    return v;
  }

 private:
  static std::string engine_key(const PlacedMap<B>& m) {
    const std::vector<std::uint8_t> bytes = m.serialize();
    return std::string(bytes.begin(), bytes.end());
  }

  TableScope scope_;
  cuckoo::CuckooMapConfig config_;
  PlacedHasher hasher_;
  std::string placements_text_;
  std::vector<Op> ops_;
  std::vector<Op> observations_;
};

// ---------------------------------------------------------------------------------------
// Running scopes
// ---------------------------------------------------------------------------------------

struct ScopeTotals {
  std::uint64_t assignments = 0;  // explored, up to key symmetry
  // Assignments whose whole reachable state space was explored within the bound: no new
  // state appeared at depth L, so every state has all its successors explored and the
  // check covers op sequences of every length, not only up to L.
  std::uint64_t closed = 0;
  double all_assignments = 0;     // without the symmetry reduction
  double sequences = 0;           // op sequences covered
  ExploreStats stats;
  double seconds = 0;
  unsigned alphabet = 0;                 // mutating plus observing ops
  std::optional<std::string> violation;  // the first report
};

unsigned replay_every() { return full_lane() ? 1 : 64; }

// CUCKOO_EXHAUSTIVE_SCOPE=<text> runs only the scopes whose label contains <text> (for
// working on one engine; the totals' "never reached" expectations are then skipped).
bool scope_selected(const std::string& label) {
  const char* only = std::getenv("CUCKOO_EXHAUSTIVE_SCOPE");
  return only == nullptr || label.find(only) != std::string::npos;
}

bool all_scopes_selected() { return std::getenv("CUCKOO_EXHAUSTIVE_SCOPE") == nullptr; }

unsigned extra_depth() { return full_lane() ? 1 : 0; }

void print_totals(const std::string& label, unsigned depth, const ScopeTotals& t) {
  const unsigned alphabet = t.alphabet;
  std::printf("  %-44s L=%u A=%2u | %6llu assignments (%8.0f) %6llu closed | %9llu states %10llu transitions "
              "%7llu replays | %.3g sequences | full %llu false-failures %llu stashed %llu | %.1fs\n",
              label.c_str(), depth, alphabet, static_cast<unsigned long long>(t.assignments), t.all_assignments,
              static_cast<unsigned long long>(t.closed),
              static_cast<unsigned long long>(t.stats.states), static_cast<unsigned long long>(t.stats.transitions),
              static_cast<unsigned long long>(t.stats.replays), t.sequences,
              static_cast<unsigned long long>(t.stats.full_results),
              static_cast<unsigned long long>(t.stats.false_failures),
              static_cast<unsigned long long>(t.stats.stash_inserts), t.seconds);
  std::fflush(stdout);
  ::testing::Test::RecordProperty(
      "exhaustive_" + label,
      "depth=" + std::to_string(depth) + " assignments=" + std::to_string(t.assignments) +
          " closed=" + std::to_string(t.closed) +
          " states=" + std::to_string(t.stats.states) + " transitions=" + std::to_string(t.stats.transitions) +
          " replays=" + std::to_string(t.stats.replays) + " sequences=" + std::to_string(t.sequences) +
          " full=" + std::to_string(t.stats.full_results) + " false_failures=" + std::to_string(t.stats.false_failures));
}

// Explores every assignment of `keys` keys to `choices` placements (up to key symmetry),
// building a System for each with make(placement indices). Stops at the first violation.
template <class MakeSystem>
ScopeTotals run_scope(unsigned choices, unsigned keys, unsigned depth, MakeSystem&& make) {
  ScopeTotals totals;
  const auto start = std::chrono::steady_clock::now();
  unsigned alphabet = 0;
  std::uint64_t clock = 0;
  for_each_multiset(choices, keys, [&](const std::vector<unsigned>& pick) {
    if (totals.violation) return;
    const auto system = make(pick);
    alphabet = static_cast<unsigned>(system.ops().size() + system.observations().size());
    ExploreStats stats;
    if (const std::optional<Found> found = explore(system, depth, replay_every(), stats, clock)) {
      totals.violation = report(system, *found);
    }
    if (stats.deepest < depth) ++totals.closed;
    totals.stats.add(stats);
    ++totals.assignments;
  });
  if (!totals.violation && static_cast<double>(totals.assignments) != multiset_count(choices, keys)) {
    ADD_FAILURE() << "enumerated " << totals.assignments << " assignments, expected C(" << choices << " + "
                  << keys << " - 1, " << keys << ")";
  }
  totals.all_assignments = power(choices, keys);
  totals.sequences = totals.all_assignments * sequences_up_to(alphabet, depth);
  totals.alphabet = alphabet;
  totals.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return totals;
}

std::string filter_label(const FilterScope& s) {
  return "filter_n" + std::to_string(s.buckets) + "_b" + std::to_string(s.slots) + "_f" +
         std::to_string(s.fingerprint_bits) + "_K" + std::to_string(s.keys) + "_kicks" + std::to_string(s.max_kicks) +
         (s.min_fingerprints != 0 ? "_fps" + std::to_string(s.min_fingerprints) : "");
}

ScopeTotals run_filter_scope(const FilterScope& scope) {
  const std::vector<std::uint32_t> fps =
      fingerprint_choices(scope.buckets, scope.fingerprint_bits, scope.min_fingerprints);
  std::vector<std::pair<std::uint32_t, std::uint32_t>> placements;
  for (std::uint32_t i = 0; i < scope.buckets; ++i) {
    for (const std::uint32_t fp : fps) placements.emplace_back(i, fp);
  }
  return run_scope(static_cast<unsigned>(placements.size()), scope.keys, scope.depth,
                   [&](const std::vector<unsigned>& pick) {
                     std::vector<std::pair<std::uint32_t, std::uint32_t>> chosen;
                     for (const unsigned i : pick) chosen.push_back(placements[i]);
                     return FilterSystem(scope, chosen);
                   });
}

std::vector<std::pair<std::uint32_t, std::uint32_t>> all_pairs(unsigned n) {
  std::vector<std::pair<std::uint32_t, std::uint32_t>> pairs;
  for (std::uint32_t a = 0; a < n; ++a) {
    for (std::uint32_t b = 0; b < n; ++b) pairs.emplace_back(a, b);
  }
  return pairs;
}

template <class System>
ScopeTotals run_table_scope(const TableScope& scope) {
  const auto pairs = all_pairs(scope.table_size);
  return run_scope(static_cast<unsigned>(pairs.size()), scope.keys, scope.depth, [&](const std::vector<unsigned>& pick) {
    std::vector<std::pair<std::uint32_t, std::uint32_t>> chosen;
    for (const unsigned i : pick) chosen.push_back(pairs[i]);
    return System(scope, chosen);
  });
}

void expect_no_violation(const ScopeTotals& t, const std::string& label) {
  if (t.violation) {
    std::printf("%s", t.violation->c_str());
    ADD_FAILURE() << "exhaustive check " << label << " found a violation:\n" << *t.violation;
  }
}

// ---------------------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------------------

TEST(Exhaustive, CuckooFilter) {
  // f = 4; K = 3 keys; placements: every first bucket x the fingerprints of
  // fingerprint_choices (every alternate-bucket offset, plus two fingerprints sharing a
  // pair). max_kicks 2 keeps kick walks short so that the stash and kFull are reached
  // within the depth; one scope keeps the default 500.
  std::vector<FilterScope> scopes = {
      {1, 1, 3, 9, 2}, {1, 2, 3, 10, 2}, {2, 1, 3, 9, 2},  {2, 2, 3, 8, 2},
      {3, 1, 3, 8, 2}, {3, 2, 3, 6, 2},  {4, 1, 3, 7, 2},  {4, 2, 3, 5, 2},
      {2, 1, 3, 8, 500},
      // Four keys with four different fingerprints in one two-slot bucket: up to 8
      // copies against 2 slots and 4 stash entries, so kFull is reached.
      {1, 2, 4, 8, 2, 4, 4},
  };
  std::printf("Exhaustive CuckooFilter (alphabet: insert/erase/contains per key, clear, size, serialize_roundtrip)\n");
  ScopeTotals sum;
  for (FilterScope scope : scopes) {
    scope.depth += extra_depth();
    if (!scope_selected(filter_label(scope))) continue;
    const ScopeTotals t = run_filter_scope(scope);
    print_totals(filter_label(scope), scope.depth, t);
    expect_no_violation(t, filter_label(scope));
    sum.stats.add(t.stats);
    sum.sequences += t.sequences;
  }
  std::printf("  total: %llu states, %llu transitions, %.3g sequences\n",
              static_cast<unsigned long long>(sum.stats.states),
              static_cast<unsigned long long>(sum.stats.transitions), sum.sequences);
  if (all_scopes_selected()) {
    EXPECT_GT(sum.stats.full_results, 0U) << "the bounds never reach a full filter: kFull untested";
    EXPECT_GT(sum.stats.stash_inserts, 0U) << "the bounds never reach a kick failure: the stash is untested";
  }
}

TEST(Exhaustive, CuckooFilterCheckFindsAPlantedBug) {
  // Teeth: a lookup that ignores the stash loses items that a failed kick walk stashed.
  // The explorer must find it and print the trace.
  FilterScope scope{1, 1, 3, 6, 2};
  scope.planted_stash_blind_lookup = true;
  const ScopeTotals t = run_filter_scope(scope);
  ASSERT_TRUE(t.violation.has_value()) << "the exhaustive check missed a stash-blind lookup";
  std::printf("planted bug found (expected):\n%s", t.violation->c_str());
  EXPECT_NE(t.violation->find("VIOLATION of C1"), std::string::npos) << *t.violation;
}

TEST(Exhaustive, ClassicCuckoo) {
  std::printf("Exhaustive ClassicCuckoo (alphabet: insert/insert_or_assign/erase/find/contains per key, clear, size)\n");
  struct Named {
    const char* name;
    TableScope scope;
  };
  std::vector<Named> scopes = {
      {"classic_n1_K3_report_kicks1", {1, 3, 7, 1}},
      {"classic_n2_K3_report_kicks1", {2, 3, 7, 1}},
      {"classic_n2_K3_report_kicks3", {2, 3, 7, 3}},
      {"classic_n2_K4_report_kicks500", {2, 4, 6, 500}},
      {"classic_n3_K3_report_kicks2", {3, 3, 6, 2}},
      {"classic_n2_K4_report_kicks1", {2, 4, 6, 1}},
      {"classic_n2_K3_grow_kicks2", {2, 3, 6, 2, cuckoo::OnInsertFailure::kGrow}},
  };
  std::uint64_t false_failures = 0;
  for (Named n : scopes) {
    n.scope.depth += extra_depth();
    if (!scope_selected(n.name)) continue;
    const ScopeTotals t = run_table_scope<ClassicSystem>(n.scope);
    print_totals(n.name, n.scope.depth, t);
    expect_no_violation(t, n.name);
    false_failures += t.stats.false_failures;
  }
  // C9 in the small: with a kick bound of 1 some placeable inserts are refused.
  if (all_scopes_selected()) {
    EXPECT_GT(false_failures, 0U);
  }
}

TEST(Exhaustive, SmartCuckoo) {
  std::printf("Exhaustive SmartCuckoo, C8 against PlacementOracle before every insert\n");
  struct Named {
    const char* name;
    TableScope scope;
  };
  std::vector<Named> scopes = {
      {"smart_n1_K3_stash1", {1, 3, 7}},
      {"smart_n1_K4_stash1", {1, 4, 7}},
      {"smart_n2_K3_stash1", {2, 3, 7}},
      {"smart_n2_K4_stash2", {2, 4, 6, 500, cuckoo::OnInsertFailure::kReport, 2}},
      {"smart_n3_K3_stash1", {3, 3, 6}},
  };
  std::uint64_t stashed = 0;
  std::uint64_t full = 0;
  for (Named n : scopes) {
    n.scope.depth += extra_depth();
    if (!scope_selected(n.name)) continue;
    const ScopeTotals t = run_table_scope<SmartSystem>(n.scope);
    print_totals(n.name, n.scope.depth, t);
    expect_no_violation(t, n.name);
    stashed += t.stats.stash_inserts;
    full += t.stats.full_results;
  }
  if (all_scopes_selected()) {
    EXPECT_GT(stashed, 0U) << "no predicted failure was reached";
    EXPECT_GT(full, 0U) << "no full stash was reached";
  }
}

TEST(Exhaustive, CuckooMap) {
  std::printf("Exhaustive CuckooMap (alphabet: insert/insert_or_assign/erase/find/contains per key, clear, size, serialize_roundtrip)\n");
  struct Named {
    const char* name;
    unsigned b;
    TableScope scope;
  };
  std::vector<Named> scopes = {
      {"map_n1_b1_K3_path2", 1, {1, 3, 6}},
      {"map_n2_b1_K3_path2", 1, {2, 3, 6}},
      {"map_n2_b1_K3_path1", 1, {2, 3, 6, 500, cuckoo::OnInsertFailure::kReport, 1, 1}},
      {"map_n1_b2_K3_path2", 2, {1, 3, 6}},
      {"map_n2_b2_K3_path2", 2, {2, 3, 5}},
  };
  std::uint64_t stashed = 0;
  for (Named n : scopes) {
    n.scope.depth += extra_depth();
    if (!scope_selected(n.name)) continue;
    const ScopeTotals t = n.b == 1 ? run_table_scope<MapSystem<1>>(n.scope) : run_table_scope<MapSystem<2>>(n.scope);
    print_totals(n.name, n.scope.depth, t);
    expect_no_violation(t, n.name);
    stashed += t.stats.stash_inserts;
  }
  if (all_scopes_selected()) {
    EXPECT_GT(stashed, 0U) << "the stash was never used";
  }
}

// ---------------------------------------------------------------------------------------
// Replay of a reported trace
// ---------------------------------------------------------------------------------------

// Checks a trace printed by this test (or any trace with hasher=placed) against the engine
// its header names, with the injected hashes; nothing when every claim held.
std::optional<model::Violation> replay_placed_trace(const model::Trace& trace) {
  const model::TraceParameters& p = trace.parameters;
  if (p.get_string_or("hasher", "") != "placed") return subjects::replay(trace);
  const PlacedHasher hasher = hasher_from(p);
  if (trace.engine == "filter") {
    const cuckoo::CuckooFilterConfig config = subjects::filter_config_from(p);
    PlacedFilter filter(config, hasher);
    subjects::FilterSubjectAdapter subject(filter);
    model::MultisetModel m;
    return model::check(subject, m, trace, *config.seed);
  }
  if (trace.engine == "classic") {
    const cuckoo::ClassicCuckooConfig config = subjects::classic_config_from(p);
    PlacedClassic table(config, hasher);
    subjects::MapSubjectAdapter subject(table, subjects::classic_may_report_full(config));
    model::MapModel m;
    return model::check(subject, m, trace, *config.seed);
  }
  if (trace.engine == "smart") {
    const cuckoo::SmartCuckooConfig config = subjects::smart_config_from(p);
    PlacedSmart table(config, hasher);
    subjects::MapSubjectAdapter subject(table, true);
    model::MapModel m;
    return model::check(subject, m, trace, *config.seed);
  }
  if (trace.engine == "map") {
    const cuckoo::CuckooMapConfig config = subjects::map_config_from(p);
    return subjects::with_map_slots(p, [&]<unsigned B>() -> std::optional<model::Violation> {
      PlacedMap<B> map(config, hasher);
      subjects::MapSubjectAdapter subject(map, true);
      model::MapModel m;
      return model::check(subject, m, trace, *config.seed);
    });
  }
  throw std::invalid_argument("unknown engine '" + trace.engine + "'");
}

TEST(ExhaustiveReplay, PrintedTracesReplay) {
  // A trace in the form the explorer prints, replayed through the same entry point a
  // reported violation would use.
  const FilterScope scope{2, 1, 3, 0, 2};
  const FilterSystem system(scope, {{0, 1}, {0, 1}, {1, 2}});
  model::Trace t = system.trace({Op::insert(0), Op::insert(1), Op::insert(0), Op::erase(2), Op::insert(2)});
  for (const Op& op : system.observations()) t.add(op);
  const model::Trace parsed = model::parse_trace(model::print_trace(t));
  EXPECT_EQ(parsed, t);
  EXPECT_FALSE(replay_placed_trace(parsed).has_value());
}

TEST(ExhaustiveReplay, FromEnvironment) {
  const char* path = std::getenv("CUCKOO_EXHAUSTIVE_REPLAY");
  if (path == nullptr) GTEST_SKIP() << "set CUCKOO_EXHAUSTIVE_REPLAY=<trace file> to replay a reported trace";
  std::ifstream in(path);
  ASSERT_TRUE(in) << "cannot read " << path;
  std::stringstream text;
  text << in.rdbuf();
  const model::Trace trace = model::parse_trace(text.str());
  const std::optional<model::Violation> v = replay_placed_trace(trace);
  if (v) {
    ADD_FAILURE() << model::format_violation(*v, trace);
  } else {
    std::printf("%s: every claim held\n", path);
  }
}

}  // namespace
