// Differential fuzz target: SmartCuckoo against MapModel and PlacementOracle.
//
// The input decodes (op_decoder.hpp) into 2..32 one-slot buckets, a stash of 0..7
// items, a kick bound (500, or 3 or 1 to reach the kick-bound path) and an op sequence.
// The lock-step checker compares every answer with the model (C7; kFull is allowed
// because the stash can fill, and then nothing may be lost: C6) and runs the engine's
// invariant_violation() (the pseudoforest recomputed from scratch) at the sampled
// cadence (kCadence below).
// The subject adds claim C8 at every insert of an absent key:
//   - would_insert_fail(key) equals "no placement exists" for the items in the tables
//     plus the new one, as PlacementOracle decides it by max flow with one slot per
//     bucket, and the component rule (fits_by_components) agrees;
//   - a predicted failure spends no kick and leaves the key in the stash (or kFull);
//     a predicted success puts the key into the tables (unless the kick bound was hit);
//   - classify() names a failing case iff would_insert_fail() says so.
// A C8 problem is reported through check_invariants() (so at the op that caused it) and
// renamed to claim C8 in the report.
// After the trace: the subgraphs' edges add up to the items in the tables, each has
// edges <= vertices, and invalid configurations throw ConfigError naming the field.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "cuckoo/subjects/smart.hpp"
#include "cuckoo/model/checker.hpp"
#include "cuckoo/model/placement_oracle.hpp"
#include "cuckoo/smart_cuckoo.hpp"
#include "op_decoder.hpp"

// The configuration bytes of this target's inputs (op_decoder.hpp: the layout).
namespace cuckoo::fuzz {

// byte 0: key space (bits 0-2), stash capacity 0..7 (bits 3-5), max_kicks (bits 6-7:
// 500, 500, 3, 1; small bounds exercise the kick-bound path); byte 1: capacity 2..32;
// byte 2: seed.
inline SmartCuckooConfig decode_smart_config(ByteSource& in, std::uint64_t& key_space) {
  constexpr std::array<unsigned, 4> kKicks = {500, 500, 3, 1};
  const std::uint8_t b0 = in.u8();
  SmartCuckooConfig c;
  key_space = kKeySpaces[b0 & 7U];
  c.stash_capacity = (b0 >> 3) & 7U;
  c.max_kicks = kKicks[(b0 >> 6) & 3U];
  c.capacity = 2 + in.u8() % 31U;
  c.seed = in.u8();
  return c;
}

}  // namespace cuckoo::fuzz

namespace {

using cuckoo::InsertResult;
using cuckoo::SmartCuckooConfig;
using cuckoo::model::Trace;
using Table = cuckoo::SmartCuckoo<>;

constexpr std::string_view kC8Prefix = "C8: ";

class SmartUnderTest : public cuckoo::subjects::MapSubjectAdapter<Table> {
 public:
  explicit SmartUnderTest(Table& table)
      : cuckoo::subjects::MapSubjectAdapter<Table>(table, /*has_growth_limit=*/true), table_(&table) {}

  InsertResult insert(std::uint64_t key, std::uint64_t value) { return checked(key, value, false); }
  InsertResult insert_or_assign(std::uint64_t key, std::uint64_t value) {
    return checked(key, value, true);
  }

  std::string check_invariants() const {
    if (!c8_problem_.empty()) return std::string(kC8Prefix) + c8_problem_;
    if (auto problem = table_->invariant_violation()) return *problem;
    if (table_->stash_size() > table_->stash_capacity()) return "the stash holds more than its capacity";
    return {};
  }

 private:
  // Does every item in the tables plus `key` have a place? Asked of the oracle.
  bool oracle_fits_with(std::uint64_t key) const {
    std::vector<cuckoo::model::CandidatePair> items;
    for (std::size_t v = 0; v < table_->graph_vertices(); ++v) {
      if (const std::uint64_t* stored = table_->key_at(v)) {
        const auto [a, b] = table_->vertices_of(*stored);
        items.push_back({a, b});
      }
    }
    const auto [a, b] = table_->vertices_of(key);
    items.push_back({a, b});
    const cuckoo::model::PlacementOracle oracle(table_->graph_vertices(), 1);
    const bool fits = oracle.fits(items);
    if (fits != oracle.fits_by_components(items)) {
      c8_problem_ = "the oracle's max flow and component rule disagree (a model bug)";
    }
    return fits;
  }

  InsertResult checked(std::uint64_t key, std::uint64_t value, bool assign) {
    const bool absent = !table_->contains(key);
    bool predicted_failure = false;
    if (absent && c8_problem_.empty()) {
      predicted_failure = table_->would_insert_fail(key);
      const bool fits = oracle_fits_with(key);
      if (predicted_failure == fits) {
        c8_problem_ = "would_insert_fail(" + std::to_string(key) + ") is " +
                      (predicted_failure ? "true" : "false") + ", but the oracle says a placement " +
                      (fits ? "exists" : "does not exist");
      }
      if (cuckoo::predicts_failure(table_->classify(key)) != predicted_failure) {
        c8_problem_ = "classify() and would_insert_fail() disagree for key " + std::to_string(key);
      }
    }
    const std::uint64_t bound_hits = table_->stats().kick_bound_exhaustions;
    const InsertResult result = assign ? table_->insert_or_assign(key, value) : table_->insert(key, value);
    if (absent && c8_problem_.empty()) {
      const bool bound_hit = table_->stats().kick_bound_exhaustions != bound_hits;
      if (predicted_failure) {
        if (table_->stats().last_insert_kicks != 0) {
          c8_problem_ = "a predicted failure spent " + std::to_string(table_->stats().last_insert_kicks) + " kicks";
        } else if (result == InsertResult::kInserted && !table_->in_stash(key)) {
          c8_problem_ = "a predicted failure was not stashed";
        } else if (result != InsertResult::kInserted && result != InsertResult::kFull) {
          c8_problem_ = "a predicted failure returned neither inserted nor full";
        }
      } else if (!bound_hit && (result != InsertResult::kInserted || !table_->vertex_holding(key))) {
        c8_problem_ = "a predicted success did not place key " + std::to_string(key) + " in the tables";
      }
    }
    return result;
  }

  Table* table_;
  mutable std::string c8_problem_;
};

// check_invariants() (the pseudoforest recomputed from scratch, O(capacity); a C8
// problem is found at the insert and kept until reported) runs at the sampled cadence;
// C8 at every insert of an absent key, every answer and the size after every op
// (fuzz/README.md).
constexpr cuckoo::model::CheckCadence kCadence{.sample_stored_key_scans = false, .sample_invariants = true};

// A C8 problem reaches the checker through check_invariants(): report it as claim C8.
cuckoo::model::Violation renamed_c8(cuckoo::model::Violation v) {
  if (v.actual.starts_with(kC8Prefix)) {
    v.claim = "C8";
    v.expected = "SmartCuckoo's prediction agrees with PlacementOracle";
    v.actual = v.actual.substr(kC8Prefix.size());
  }
  return v;
}

[[noreturn]] void fail(const std::string& what, const Trace& trace) {
  cuckoo::model::Violation v;
  v.claim = "C8";
  v.op_index = trace.size() == 0 ? 0 : trace.size() - 1;
  if (trace.size() != 0) v.op = trace.entries.back().op;
  v.expected = what;
  v.actual = "not so (checked after the last op)";
  v.seed = trace.parameters.get_u64("seed");
  cuckoo::fuzz::report_violation("smart", v, trace);
}

void after_trace(const Table& table, const cuckoo::model::MapModel& model, const Trace& trace) {
  std::size_t edges = 0;
  for (const cuckoo::SmartCuckooSubgraph& g : table.subgraphs()) {
    if (g.edges > g.vertices) fail("every subgraph has edges <= vertices", trace);
    const auto recorded = table.subgraph_of(g.id);
    if (!recorded || !(*recorded == g) || table.recorded_id(g.id) != g.id) {
      fail("subgraph_of(root) and recorded_id(root) describe the subgraph", trace);
    }
    edges += g.edges;
  }
  if (edges + table.stash_size() != table.size()) {
    fail("the subgraphs' edges plus the stash add up to size()", trace);
  }
  std::uint64_t classified = 0;
  for (std::size_t c = 0; c < cuckoo::kSmartCuckooCaseCount; ++c) {
    const auto kase = static_cast<cuckoo::SmartCuckooCase>(c);
    if (to_string(kase).empty() || to_string(kase) == "unknown") fail("every case has a name", trace);
    classified += table.stats().count(kase);
  }
  if (classified < table.stats().inserts) fail("every new key was classified", trace);
  for (const cuckoo::SmartCuckooSubgraph& g : table.subgraphs()) {
    if (g.maximal() != (g.edges == g.vertices)) fail("maximal() iff edges == vertices", trace);
  }
  for (const auto& [key, value] : model.entries()) {
    if (table.in_stash(key) == table.vertex_holding(key).has_value()) {
      fail("key " + std::to_string(key) + " is in the stash or at a vertex, not both", trace);
    }
  }
  for (std::size_t v = 0; v < table.graph_vertices(); ++v) {
    if (const std::uint64_t* key = table.key_at(v)) {
      const auto [p0, p1] = table.positions_of(*key);
      if (table.vertex_holding(*key) != v || (p0 != v && p1 + table.table_size() != v)) {
        fail("the key at vertex " + std::to_string(v) + " sits at one of its positions", trace);
      }
    } else if (table.subgraph_of(v) && table.recorded_id(v) == Table::kNoSubgraph) {
      fail("a vertex in a subgraph records its ID", trace);
    }
  }
  const double expected_load =
      static_cast<double>(table.size() - table.stash_size()) / static_cast<double>(table.capacity());
  if (std::fabs(table.load_factor() - expected_load) > 1e-12) {
    fail("load_factor() counts the items in the tables", trace);
  }
}

void check_config_errors(std::size_t selector, const Trace& trace) {
  SmartCuckooConfig bad;
  bad.seed = 1;
  std::string field;
  switch (selector % 4) {
    case 0: bad.capacity = 1; field = "capacity"; break;
    case 1: bad.capacity = SmartCuckooConfig::kMaxCapacity + 1; field = "capacity"; break;
    case 2: bad.max_kicks = 0; field = "max_kicks"; break;
    default: bad.stash_capacity = SmartCuckooConfig::kMaxStashCapacity + 1; field = "stash_capacity"; break;
  }
  try {
    Table table(bad);
    fail("SmartCuckoo(config with invalid " + field + ") throws ConfigError", trace);
  } catch (const cuckoo::ConfigError& e) {
    if (e.field() != field) fail("ConfigError names " + field + ", not " + e.field(), trace);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const cuckoo::fuzz::Decoded decoded = cuckoo::fuzz::decode(
      cuckoo::fuzz::Family::kSmart, data, size,
      [](cuckoo::fuzz::ByteSource& in, std::uint64_t& key_space) {
        return cuckoo::subjects::parameters_of(cuckoo::fuzz::decode_smart_config(in, key_space));
      });
  const Trace& trace = decoded.trace;
  cuckoo::fuzz::maybe_print_trace(trace);

  const SmartCuckooConfig config = cuckoo::subjects::smart_config_from(trace.parameters);
  Table table(config);
  SmartUnderTest subject(table);
  cuckoo::model::MapModel model;
  if (const auto violation = cuckoo::model::check(subject, model, trace, *config.seed, kCadence)) {
    cuckoo::fuzz::report_exactly("smart", renamed_c8(*violation), trace, [&] {
      Table fresh(config);
      SmartUnderTest fresh_subject(fresh);
      cuckoo::model::MapModel fresh_model;
      auto exact = cuckoo::model::check(fresh_subject, fresh_model, trace, *config.seed);
      if (exact) exact = renamed_c8(*exact);
      return exact;
    });
  }
  after_trace(table, model, trace);
  table.reset_stats();
  if (table.stats().inserts != 0) fail("reset_stats() zeroes the counters", trace);
  check_config_errors(size, trace);
  return 0;
}
