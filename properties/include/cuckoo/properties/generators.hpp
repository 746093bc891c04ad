// RapidCheck generators for the stateful property suites: engine configurations (as
// trace headers), small key ranges, and op sequences as rc::state commands.
//
// How a property is built from these pieces (see filter_properties_test.cpp):
//
//   const TraceHeader header = *filter_header(f, b);              // engine + configuration
//   FilterState initial{...};                                      // generation state
//   const auto commands = *op_sequence(initial, filter_mix());     // rc::state commands
//   const model::Trace trace = record(header, initial, commands);  // runs them: the ops
//   if (auto v = model::check(subject, model, trace, seed))        // the lock-step checker
//     fail_with(*v, trace);                                        // (rc_support.hpp)
//
// Why commands only record. Each command (RecordOp) appends its Op to the Trace in the
// TraceRecorder (the "system under test" of rc::state); the property then runs the
// model layer's lock-step checker (model::check, the same path as subjects::replay) on the
// whole trace against a fresh engine built from the header. The checker is the oracle,
// not re-implemented here, and sees the whole trace (serialize_roundtrip compares the
// answers for every key the trace mentions). Shrinking works on the command sequence:
// RapidCheck drops and simplifies commands and re-runs the property, so the final
// counterexample is a short trace, and both the command list RapidCheck prints and the
// trace the property prints are in the trace format.
//
// The generation state (FilterState, MapState) is the model layer's model of what the
// sequence has stored so far. It only steers generation (erase and find mostly pick keys
// that are present); it does not judge anything. It is approximate on purpose: it
// counts a refused insert (kFull) as stored, and ignores fingerprint aliasing. No
// command has a precondition, so every subsequence of a valid sequence is valid and
// shrinking never has to regenerate commands.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <ostream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <rapidcheck.h>
#include <rapidcheck/state.h>

#include "cuckoo/subjects/replay.hpp"
#include "cuckoo/subjects/trace_gen.hpp"
#include "cuckoo/model/map_model.hpp"
#include "cuckoo/model/multiset_model.hpp"
#include "cuckoo/model/op.hpp"
#include "cuckoo/model/trace.hpp"

namespace cuckoo::properties {

// RapidCheck scales most generators with its size parameter (gen::inRange(0, n) only
// reaches the first size% of the range, and yields 0 at size 0). The suites want the
// size to drive one thing, the length of op sequences; every other choice (configuration,
// key range, op kind, key, value) is drawn over its whole range at any size.
template <class T>
rc::Gen<T> full_range(rc::Gen<T> gen) {
  return rc::gen::resize(rc::kNominalSize, std::move(gen));
}

// ---- Engine configurations as trace headers ------------------------------------------

// The engine and configuration of one test case: exactly the header line of the trace
// it records. RapidCheck shows it in a counterexample as that line.
struct TraceHeader {
  std::string engine;
  model::TraceParameters parameters;

  // An empty trace with this header.
  model::Trace trace() const {
    model::Trace t;
    t.engine = engine;
    t.parameters = parameters;
    return t;
  }
  // "engine filter capacity=16 ..." as print_trace writes it.
  std::string line() const {
    const std::string text = model::print_trace(trace());
    const std::size_t start = text.find('\n') + 1;  // after the version line
    return text.substr(start, text.find('\n', start) - start);
  }
};

inline void showValue(const TraceHeader& header, std::ostream& os) { os << header.line(); }

// The fingerprint widths and bucket sizes every filter property covers.
inline constexpr unsigned kFilterFingerprintBits[] = {4, 8, 12, 16, 32};
inline constexpr unsigned kSlotsPerBucket[] = {1, 2, 4, 8};

// The engine's seed: any 64-bit value, not shrunk (a different seed is a different
// table, not a simpler one; shrinking it would only spend runs).
inline rc::Gen<std::uint64_t> engine_seed() {
  return rc::gen::noShrink(full_range(rc::gen::arbitrary<std::uint64_t>()));
}

// Kick bounds: mostly the default, often tiny so that kick walks give up early and the
// stash (and then kFull) is reached at low load.
inline rc::Gen<unsigned> kick_bound() {
  return rc::gen::weightedElement<unsigned>({{4, 500u}, {2, 1u}, {2, 2u}, {1, 4u}, {1, 16u}});
}

// A CuckooFilter with fingerprint_bits f and slots_per_bucket b (semi-sorted buckets if
// asked), with a tiny table: 8..64 slots, mostly at the small end so that sequences fill it.
inline rc::Gen<TraceHeader> filter_header(unsigned fingerprint_bits, unsigned slots_per_bucket,
                                          bool semi_sorted = false) {
  const auto capacity = rc::gen::weightedOneOf<std::uint64_t>(
      {{4, rc::gen::inRange<std::uint64_t>(8, 17)},
       {2, rc::gen::inRange<std::uint64_t>(17, 33)},
       {1, rc::gen::inRange<std::uint64_t>(33, 65)}});
  return full_range(rc::gen::apply(
      [fingerprint_bits, slots_per_bucket, semi_sorted](std::uint64_t cap, unsigned kicks,
                                                        std::uint64_t seed) {
        CuckooFilterConfig c;
        c.semi_sorted = semi_sorted;
        c.capacity = cap;
        c.fingerprint_bits = fingerprint_bits;
        c.slots_per_bucket = slots_per_bucket;
        c.max_kicks = kicks;
        c.seed = seed;
        return TraceHeader{"filter", subjects::parameters_of(c)};
      },
      capacity, kick_bound(), engine_seed()));
}

// A GrowingCuckooFilter with level-0 fingerprint_bits f and slots_per_bucket b: a tiny
// level 0 (8..32 slots) so that sequences add levels, expansion 1..3 and 2..5 levels so
// that they also reach the level limit (kFull), and the kick bound of kick_bound().
inline rc::Gen<TraceHeader> growing_header(unsigned fingerprint_bits, unsigned slots_per_bucket) {
  return full_range(rc::gen::apply(
      [fingerprint_bits, slots_per_bucket](std::uint64_t cap, unsigned expansion, unsigned levels,
                                           unsigned kicks, std::uint64_t seed) {
        GrowingCuckooFilterConfig c;
        c.capacity = cap;
        c.fingerprint_bits = fingerprint_bits;
        c.slots_per_bucket = slots_per_bucket;
        c.expansion = expansion;
        c.max_levels = levels;
        c.max_kicks = kicks;
        c.seed = seed;
        return TraceHeader{"growing", subjects::parameters_of(c)};
      },
      rc::gen::inRange<std::uint64_t>(8, 33), rc::gen::inRange<unsigned>(1, 4),
      rc::gen::inRange<unsigned>(2, 6), kick_bound(), engine_seed()));
}

// A GrowingCuckooFilter on the trace's own keys (raw_keys=1), built so that keys share
// items across levels often: level-0 fingerprints of f = 4 or 5 bits, a level 0 of 1..8
// slots, expansion 1..3 and 3..6 levels. With slots_per_bucket b.
inline rc::Gen<TraceHeader> aliasing_growing_header(unsigned slots_per_bucket) {
  return full_range(rc::gen::apply(
      [slots_per_bucket](unsigned f, std::uint64_t cap, unsigned expansion, unsigned levels,
                         unsigned kicks, std::uint64_t seed) {
        GrowingCuckooFilterConfig c;
        c.capacity = cap;
        c.fingerprint_bits = f;
        c.slots_per_bucket = slots_per_bucket;
        c.expansion = expansion;
        c.max_levels = levels;
        c.max_kicks = kicks;
        c.seed = seed;
        model::TraceParameters p = subjects::parameters_of(c);
        p.set("raw_keys", "1");
        return TraceHeader{"growing", std::move(p)};
      },
      rc::gen::inRange<unsigned>(4, 6), rc::gen::inRange<std::uint64_t>(1, 9),
      rc::gen::inRange<unsigned>(1, 4), rc::gen::inRange<unsigned>(3, 7), kick_bound(),
      engine_seed()));
}

// A CuckooMap<uint64, uint64, b> starting tiny (1..16 slots) so that growth happens.
// capped: max_capacity at most 16 slots above the first table, so that growth stops
// early and kFull is reached.
inline rc::Gen<TraceHeader> cuckoo_map_header(unsigned slots_per_bucket, bool capped) {
  return full_range(rc::gen::apply(
      [slots_per_bucket, capped](std::size_t initial, std::size_t extra, unsigned path,
                                 std::uint64_t seed) {
        CuckooMapConfig c;
        // At least one bucket, and the cap at least the rounded-up first table.
        const std::size_t first = std::max<std::size_t>(initial, 1);
        const std::size_t rounded =
            (first + slots_per_bucket - 1) / slots_per_bucket * slots_per_bucket;
        c.initial_capacity = first;
        if (capped) c.max_capacity = rounded + extra;
        c.max_path_length = path;
        c.seed = seed;
        return TraceHeader{"map", subjects::parameters_of(c, slots_per_bucket)};
      },
      rc::gen::weightedOneOf<std::size_t>({{3, rc::gen::inRange<std::size_t>(1, 5)},
                                           {2, rc::gen::inRange<std::size_t>(5, 9)},
                                           {1, rc::gen::inRange<std::size_t>(9, 17)}}),
      rc::gen::inRange<std::size_t>(0, 17),
      rc::gen::weightedElement<unsigned>({{3, 5u}, {1, 1u}, {1, 2u}}), engine_seed()));
}

// A ClassicCuckoo with the given failure policy, 2..32 slots. capped: max_capacity 1..33
// slots above that, so that growth stops early and kFull becomes legitimate.
inline rc::Gen<TraceHeader> classic_header(OnInsertFailure policy, bool capped) {
  return full_range(rc::gen::apply(
      [policy, capped](std::size_t capacity, unsigned kicks, unsigned rehashes,
                       std::size_t extra, std::uint64_t seed) {
        ClassicCuckooConfig c;
        c.capacity = capacity;
        c.max_kicks = kicks;
        c.on_failure = policy;
        c.max_rehashes = rehashes;
        if (capped) c.max_capacity = capacity + 1 + extra;
        c.seed = seed;
        return TraceHeader{"classic", subjects::parameters_of(c)};
      },
      rc::gen::inRange<std::size_t>(2, 33), kick_bound(),
      rc::gen::weightedElement<unsigned>({{2, 0u}, {2, 1u}, {2, 3u}, {1, 8u}}),
      rc::gen::inRange<std::size_t>(0, 33), engine_seed()));
}

// A SmartCuckoo with 2..32 slots and a small stash (0..4 items). exact_kicks: the kick
// bound is the default (500, more than any walk in such a table, so prediction alone
// decides; C8); otherwise it may be tiny, so that the safety bound is exercised too.
inline rc::Gen<TraceHeader> smart_header(bool exact_kicks) {
  return full_range(rc::gen::apply(
      [](std::size_t capacity, unsigned kicks, std::size_t stash, std::uint64_t seed) {
        SmartCuckooConfig c;
        c.capacity = capacity;
        c.max_kicks = kicks;
        c.stash_capacity = stash;
        c.seed = seed;
        return TraceHeader{"smart", subjects::parameters_of(c)};
      },
      rc::gen::inRange<std::size_t>(2, 33),
      exact_kicks ? rc::gen::just(500u) : kick_bound(),
      rc::gen::weightedElement<std::size_t>({{1, 0}, {2, 1}, {2, 2}, {2, 4}}), engine_seed()));
}

// ---- Keys and values ---------------------------------------------------------------

// How many distinct keys a sequence draws from (keys 0..count-1). A struct only so that
// a counterexample shows it by name.
struct KeyRange {
  std::uint64_t count = 32;
};

inline void showValue(const KeyRange& range, std::ostream& os) {
  os << "keys drawn from 0.." << (range.count == 0 ? 0 : range.count - 1);
}

// Draws a key range from weighted counts.
inline rc::Gen<KeyRange> key_range_of(std::initializer_list<std::pair<std::size_t, std::uint64_t>> weighted) {
  return full_range(rc::gen::map(rc::gen::weightedElement<std::uint64_t>(weighted),
                                 [](std::uint64_t count) { return KeyRange{count}; }));
}

// For filters: tiny ranges give duplicates (and the duplicate limit) at once, larger
// ones fill the table with distinct keys.
inline rc::Gen<KeyRange> key_range() {
  return key_range_of({{2, 2}, {2, 4}, {2, 8}, {3, 16}, {3, 32}, {2, 64}});
}

// For exact tables: mostly more keys than a tiny table holds, so that it grows,
// rehashes or fills; a few tiny ranges for many updates of the same keys.
inline rc::Gen<KeyRange> map_key_range() {
  return key_range_of({{1, 4}, {2, 16}, {3, 32}, {3, 64}, {1, 128}});
}

// A key in [0, range).
inline rc::Gen<std::uint64_t> key_in(std::uint64_t range) {
  return rc::gen::inRange<std::uint64_t>(0, std::max<std::uint64_t>(range, 1));
}

// Mostly a key that is stored (when any is), else any key in [0, range).
inline rc::Gen<std::uint64_t> likely_present_key(std::vector<std::uint64_t> present,
                                                 std::uint64_t range) {
  if (present.empty()) return key_in(range);
  return rc::gen::weightedOneOf<std::uint64_t>(
      {{3, rc::gen::elementOf(std::move(present))}, {1, key_in(range)}});
}

// Small values: a failure is easier to read with them, and equal values across keys
// are fine (maps never compare values with each other).
inline rc::Gen<std::uint64_t> small_value() { return rc::gen::inRange<std::uint64_t>(0, 1000); }

// ---- Op mixes ----------------------------------------------------------------------

// The relative weight of each op kind in a generated sequence; 0 leaves a kind out. The
// subject layer's weighted chooser, shared with the trace generator; a command shrinks
// towards the kinds first in OpWeights::kOrder (insert first).
using OpMix = subjects::OpWeights;

// Filters: mostly inserts (to fill the table and reach the duplicate limit), erases of
// present and absent keys, and a round trip now and then.
inline OpMix filter_mix() {
  OpMix m = OpMix::none();
  m.insert = 50;
  m.contains = 14;
  m.erase = 20;
  m.size = 5;
  m.serialize_roundtrip = 4;
  m.clear = 1;
  return m;
}

// Filters whose erases are the point (the growing filter on aliasing keys): erases about
// as often as inserts, mostly of stored keys, and many lookups to see a lost key.
inline OpMix erase_heavy_filter_mix() {
  OpMix m = OpMix::none();
  m.insert = 40;
  m.contains = 24;
  m.erase = 32;
  m.size = 2;
  m.serialize_roundtrip = 2;
  return m;
}

// Exact tables: every map op. serializable: the engine has serialize_roundtrip
// (CuckooMap).
inline OpMix map_mix(bool serializable) {
  OpMix m = OpMix::none();
  m.insert = 40;
  m.insert_or_assign = 12;
  m.contains = 6;
  m.find = 10;
  m.erase = 13;
  m.size = 3;
  m.serialize_roundtrip = serializable ? 4 : 0;
  m.clear = 1;
  return m;
}

// SmartCuckoo predictions (C8): inserts of new keys dominate, erases split subgraphs and
// drain the stash.
inline OpMix prediction_mix() {
  OpMix m = OpMix::none();
  m.insert = 55;
  m.insert_or_assign = 8;
  m.contains = 5;
  m.find = 4;
  m.erase = 26;
  m.size = 1;
  m.clear = 1;
  return m;
}

// ---- Generation state (the model layer's models, steering generation) --------------

// For filters: the keys inserted so far (a multiset, at most copy_limit copies of a key).
struct FilterState {
  model::MultisetModel stored;
  std::uint64_t key_range = 32;
  std::uint64_t copy_limit = 8;  // 2b
};

// For exact tables: the keys (and values) inserted so far.
struct MapState {
  model::MapModel stored;
  std::uint64_t key_range = 64;
};

inline std::vector<std::uint64_t> present_keys(const FilterState& s) { return s.stored.distinct_keys(); }
inline std::vector<std::uint64_t> present_keys(const MapState& s) {
  std::vector<std::uint64_t> keys;
  keys.reserve(s.stored.size());
  for (const auto& entry : s.stored.entries()) keys.push_back(entry.first);
  return keys;
}

inline void advance(FilterState& s, const model::Op& op) {
  switch (op.kind) {
    case model::OpKind::kInsert: s.stored.insert(op.key, s.copy_limit); break;
    case model::OpKind::kErase: s.stored.erase(op.key); break;
    case model::OpKind::kClear: s.stored.clear(); break;
    default: break;
  }
}

inline void advance(MapState& s, const model::Op& op) {
  switch (op.kind) {
    case model::OpKind::kInsert: s.stored.insert(op.key, op.value); break;
    case model::OpKind::kInsertOrAssign: s.stored.insert_or_assign(op.key, op.value); break;
    case model::OpKind::kErase: s.stored.erase(op.key); break;
    case model::OpKind::kClear: s.stored.clear(); break;
    default: break;
  }
}

// One op of kind `kind` for the state. Keys for insert are drawn from the whole range
// (new keys and duplicates alike); keys for lookups and erases mostly from the stored
// ones, so that present and absent keys are both common.
template <class State>
rc::Gen<model::Op> op_of_kind(model::OpKind kind, const State& s) {
  using model::Op;
  const std::uint64_t range = s.key_range;
  switch (kind) {
    case model::OpKind::kInsert:
      if constexpr (std::is_same_v<State, MapState>) {
        return rc::gen::apply([](std::uint64_t k, std::uint64_t v) { return Op::insert(k, v); },
                              key_in(range), small_value());
      } else {
        return rc::gen::map(key_in(range), [](std::uint64_t k) { return Op::insert(k); });
      }
    case model::OpKind::kInsertOrAssign:
      return rc::gen::apply(
          [](std::uint64_t k, std::uint64_t v) { return Op::insert_or_assign(k, v); },
          likely_present_key(present_keys(s), range), small_value());
    case model::OpKind::kContains:
      return rc::gen::map(likely_present_key(present_keys(s), range + 4),
                          [](std::uint64_t k) { return Op::contains(k); });
    case model::OpKind::kFind:
      return rc::gen::map(likely_present_key(present_keys(s), range + 4),
                          [](std::uint64_t k) { return Op::find(k); });
    case model::OpKind::kErase:
      return rc::gen::map(likely_present_key(present_keys(s), range),
                          [](std::uint64_t k) { return Op::erase(k); });
    case model::OpKind::kSize: return rc::gen::just(Op::size());
    case model::OpKind::kSerializeRoundtrip: return rc::gen::just(Op::serialize_roundtrip());
    case model::OpKind::kClear: return rc::gen::just(Op::clear());
  }
  return rc::gen::just(Op::size());
}

// One op drawn from the mix. REQUIRES: mix.total() > 0.
template <class State>
rc::Gen<model::Op> op_for(const State& s, const OpMix& mix) {
  return full_range(rc::gen::mapcat(rc::gen::inRange<unsigned>(0, mix.total()),
                                    [s, mix](unsigned r) { return op_of_kind(mix.kind_at(r), s); }));
}

// ---- Op sequences as rc::state commands --------------------------------------------

// The system under test of rc::state: the trace the commands record.
struct TraceRecorder {
  model::Trace trace;
};

// One generated op. run() appends it to the trace; apply() advances the generation
// state; show() prints it as a trace line, so RapidCheck's counterexample reads as the
// body of a trace.
template <class State>
class RecordOp final : public rc::state::Command<State, TraceRecorder> {
 public:
  explicit RecordOp(model::Op op) : op_(op) {}

  void apply(State& s) const override { advance(s, op_); }
  void run(const State& /*s*/, TraceRecorder& recorder) const override { recorder.trace.add(op_); }
  void show(std::ostream& os) const override { os << model::to_string(op_); }

  const model::Op& op() const noexcept { return op_; }

 private:
  model::Op op_;
};

template <class State>
using CommandPtr = std::shared_ptr<const rc::state::Command<State, TraceRecorder>>;

// A sequence of commands from `initial`, each op drawn from `mix` given the state the
// sequence has reached. Its length is uniform in 1..max(size, min_length)+1, where size
// is RapidCheck's size (it grows over the run up to max_size), so even the first cases
// are long enough to fill a tiny table.
template <class State>
rc::Gen<rc::state::Commands<rc::state::Command<State, TraceRecorder>>> op_sequence(
    const State& initial, const OpMix& mix, int min_length = 60) {
  auto commands = rc::state::gen::commands(initial, [mix](const State& s) {
    return rc::gen::map(op_for(s, mix), [](const model::Op& op) -> CommandPtr<State> {
      return std::make_shared<const RecordOp<State>>(op);
    });
  });
  return rc::gen::withSize([commands, min_length](int size) {
    return rc::gen::resize(std::max(size, min_length), commands);
  });
}

// Records `commands` into a trace with `header` (runs them on a TraceRecorder).
template <class State>
model::Trace record(const TraceHeader& header, const State& initial,
                    const rc::state::Commands<rc::state::Command<State, TraceRecorder>>& commands) {
  TraceRecorder recorder{header.trace()};
  rc::state::runAll(commands, initial, recorder);
  return std::move(recorder.trace);
}

}  // namespace cuckoo::properties
