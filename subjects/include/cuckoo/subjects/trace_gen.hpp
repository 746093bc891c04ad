// Random op traces for the model-checked claims (C1 C5 C6 C7 C8 C11) and for the
// adapter audit (adapter.hpp): a seeded generator of model::Trace over a small key range,
// so that one key is inserted many times (duplicates, the copy limit), erased and looked
// up again, and tiny tables fill (kicks, stash, kFull, resize).
//
//   TraceShape shape;
//   shape.ops = 200; shape.key_range = 16;
//   shape.weights = OpWeights::filter();
//   model::Trace t = generate_trace("filter", parameters_of(config), shape, seed);
//
// The same (engine, parameters, shape, seed) always gives the same trace, on every
// platform: the generator is splitmix64 and draws by integer arithmetic only.
//
// Generation state: the keys inserted so far (with multiplicity), counted as if every
// insert succeeded. It only steers erases toward present keys (erase_present_percent);
// it judges nothing: the checker's model is the oracle. Every op kind is valid in any
// state, so every subsequence of a generated trace is a valid trace (what shrinking
// relies on).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "cuckoo/model/op.hpp"
#include "cuckoo/model/trace.hpp"

namespace cuckoo::subjects {

// splitmix64 (Steele, Lea, Flood): small, fast, reproducible from one word.
class TraceRng {
 public:
  explicit TraceRng(std::uint64_t seed) noexcept : state_(seed) {}
  std::uint64_t next() noexcept {
    std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  // Uniform in [0, n); 0 when n == 0. (By remainder: the bias, below n / 2^64, is
  // immaterial for the small n used here.)
  std::uint64_t below(std::uint64_t n) noexcept {
    if (n == 0) return 0;
    return next() % n;
  }
  // True with probability percent / 100.
  bool percent(unsigned percent) noexcept { return below(100) < percent; }

 private:
  std::uint64_t state_;
};

// The seed of trace number `index` of a task seeded with `task_seed`.
inline std::uint64_t trace_seed(std::uint64_t task_seed, std::uint64_t index) noexcept {
  TraceRng rng(task_seed ^ (index * 0xd1b54a32d192ed03ULL));
  rng.next();
  return rng.next();
}

// Relative weights of the op kinds; a kind is drawn with probability weight / total.
// The one weighted op chooser of the suite: the trace generator below and the property
// tests' generators (properties/generators.hpp) both draw with kind_at().
struct OpWeights {
  unsigned insert = 40;
  unsigned erase = 15;
  unsigned contains = 35;
  unsigned size = 5;
  unsigned serialize_roundtrip = 0;
  unsigned clear = 0;
  unsigned insert_or_assign = 0;
  unsigned find = 0;

  // A filter: inserts (duplicates), erases and lookups.
  static constexpr OpWeights filter() noexcept { return {}; }
  // An exact table: every map op.
  static constexpr OpWeights map() noexcept { return {30, 15, 15, 5, 0, 0, 15, 20}; }
  // Every weight 0: the start of a mix built field by field.
  static constexpr OpWeights none() noexcept { return {0, 0, 0, 0, 0, 0, 0, 0}; }

  // The order of the cumulative ranges kind_at() reads: a draw r in [0, total()) picks
  // the first kind whose range holds it, so a shrinking draw moves towards insert.
  static constexpr std::array<model::OpKind, 8> kOrder = {
      model::OpKind::kInsert,         model::OpKind::kErase, model::OpKind::kContains,
      model::OpKind::kSize,           model::OpKind::kSerializeRoundtrip,
      model::OpKind::kClear,          model::OpKind::kInsertOrAssign, model::OpKind::kFind};

  constexpr unsigned weight(model::OpKind kind) const noexcept {
    switch (kind) {
      case model::OpKind::kInsert: return insert;
      case model::OpKind::kErase: return erase;
      case model::OpKind::kContains: return contains;
      case model::OpKind::kSize: return size;
      case model::OpKind::kSerializeRoundtrip: return serialize_roundtrip;
      case model::OpKind::kClear: return clear;
      case model::OpKind::kInsertOrAssign: return insert_or_assign;
      case model::OpKind::kFind: return find;
    }
    return 0;
  }

  constexpr unsigned total() const noexcept {
    unsigned sum = 0;
    for (const model::OpKind kind : kOrder) sum += weight(kind);
    return sum;
  }

  // The kind at position r of the cumulative weights. REQUIRES: r < total().
  constexpr model::OpKind kind_at(std::uint64_t r) const noexcept {
    for (const model::OpKind kind : kOrder) {  // bound: kOrder.size() kinds
      if (r < weight(kind)) return kind;
      r -= weight(kind);
    }
    return model::OpKind::kFind;
  }
};

struct TraceShape {
  std::size_t ops = 200;          // ops in the trace
  std::uint64_t key_range = 32;   // keys are drawn from [key_base, key_base + key_range)
  std::uint64_t key_base = 0;
  OpWeights weights;
  // An erase picks a key inserted earlier (if any) with this probability, else any key.
  unsigned erase_present_percent = 80;
  // Values of insert / insert_or_assign are drawn from [1, value_range].
  std::uint64_t value_range = 1000;
  // false for filters: their inserts take a key only, so the trace shows none. The value
  // is drawn either way, so the rest of the trace does not depend on this flag.
  bool insert_values = true;
};

// Largest trace the generator writes (a bound on `shape.ops`, checked).
inline constexpr std::size_t kMaxGeneratedOps = std::size_t{1} << 24;

// A trace of `shape.ops` ops with the given header. Throws std::invalid_argument when
// the weights are all 0, key_range is 0 or ops exceeds kMaxGeneratedOps.
inline model::Trace generate_trace(std::string engine, model::TraceParameters parameters,
                                   const TraceShape& shape, std::uint64_t seed) {
  if (shape.weights.total() == 0) throw std::invalid_argument("generate_trace: all op weights are 0");
  if (shape.key_range == 0) throw std::invalid_argument("generate_trace: key_range is 0");
  if (shape.ops > kMaxGeneratedOps) throw std::invalid_argument("generate_trace: too many ops");
  model::Trace trace;
  trace.engine = std::move(engine);
  trace.parameters = std::move(parameters);
  trace.entries.reserve(shape.ops);
  TraceRng rng(seed);
  std::vector<std::uint64_t> inserted;  // with multiplicity, as if every insert succeeded
  const OpWeights& w = shape.weights;
  auto any_key = [&] { return shape.key_base + rng.below(shape.key_range); };
  auto value = [&] { return 1 + rng.below(shape.value_range); };
  for (std::size_t i = 0; i < shape.ops; ++i) {  // bound: shape.ops <= kMaxGeneratedOps
    switch (w.kind_at(rng.below(w.total()))) {
      case model::OpKind::kInsert: {
        const std::uint64_t key = any_key();
        inserted.push_back(key);
        const std::uint64_t v = value();
        trace.add(model::Op::insert(key, shape.insert_values ? v : 0));
        break;
      }
      case model::OpKind::kErase: {
        std::uint64_t key = 0;
        if (!inserted.empty() && rng.percent(shape.erase_present_percent)) {
          const std::size_t at = static_cast<std::size_t>(rng.below(inserted.size()));
          key = inserted[at];
          inserted[at] = inserted.back();
          inserted.pop_back();
        } else {
          key = any_key();
        }
        trace.add(model::Op::erase(key));
        break;
      }
      case model::OpKind::kContains: {
        // Mostly keys inserted before (the C1 question), sometimes any key.
        const bool present = !inserted.empty() && rng.percent(70);
        trace.add(model::Op::contains(
            present ? inserted[static_cast<std::size_t>(rng.below(inserted.size()))] : any_key()));
        break;
      }
      case model::OpKind::kSize: trace.add(model::Op::size()); break;
      case model::OpKind::kSerializeRoundtrip: trace.add(model::Op::serialize_roundtrip()); break;
      case model::OpKind::kClear:
        inserted.clear();
        trace.add(model::Op::clear());
        break;
      case model::OpKind::kInsertOrAssign: {
        const std::uint64_t key = any_key();
        inserted.push_back(key);
        trace.add(model::Op::insert_or_assign(key, value()));
        break;
      }
      case model::OpKind::kFind: trace.add(model::Op::find(any_key())); break;
    }
  }
  return trace;
}

}  // namespace cuckoo::subjects
