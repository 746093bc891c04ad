// Differential fuzz target: ClassicCuckoo (two one-slot tables, random walk, undo,
// rehash / grow / report policies) against MapModel.
//
// The input decodes (op_decoder.hpp) into a policy, 2..32 slots, 1..500 kicks, 0..3
// rehashes, optionally a growth cap (then kFull is allowed and C6 is checked: a failed
// insert loses nothing), and an op sequence. The lock-step checker compares every
// answer with the model (C7) after each op and runs invariant_violation() (I1-I3) at the
// sampled cadence (kCadence below). The subject's check adds: the seed is derive_seed applied seed_generation() times
// to initial_seed(); for_each() visits size() entries; the counters are consistent; and
// a kFull under the report policy leaves the layout exactly as it was (the undo restores
// every entry to its old slot).
// After the trace: hash_with_positions() inverts the position derivation; a copy has the
// same layout; invalid configurations throw ConfigError naming the field.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include "cuckoo/subjects/classic.hpp"
#include "cuckoo/classic_cuckoo.hpp"
#include "cuckoo/model/checker.hpp"
#include "op_decoder.hpp"

// The configuration bytes of this target's inputs (op_decoder.hpp: the layout).
namespace cuckoo::fuzz {

// byte 0: policy (bits 0-1: rehash, grow, report, report), key space (bits 2-4), capped
// growth (bit 5), cap = capacity << bits 6-7; byte 1: capacity 2..32; byte 2: max_kicks
// (bits 0-2: 1, 2, 3, 4, 8, 16, 100, 500), max_rehashes 0..3 (bits 3-4); byte 3: seed.
inline ClassicCuckooConfig decode_classic_config(ByteSource& in, std::uint64_t& key_space) {
  constexpr std::array<OnInsertFailure, 4> kPolicies = {
      OnInsertFailure::kRehash, OnInsertFailure::kGrow, OnInsertFailure::kReport,
      OnInsertFailure::kReport};
  constexpr std::array<unsigned, 8> kKicks = {1, 2, 3, 4, 8, 16, 100, 500};
  const std::uint8_t b0 = in.u8();
  ClassicCuckooConfig c;
  c.on_failure = kPolicies[b0 & 3U];
  key_space = kKeySpaces[(b0 >> 2) & 7U];
  c.capacity = 2 + in.u8() % 31U;
  if (((b0 >> 5) & 1U) != 0) c.max_capacity = (c.capacity + c.capacity % 2) << ((b0 >> 6) & 3U);
  const std::uint8_t b2 = in.u8();
  c.max_kicks = kKicks[b2 & 7U];
  c.max_rehashes = (b2 >> 3) & 3U;
  c.seed = in.u8();
  return c;
}

}  // namespace cuckoo::fuzz

namespace {

using cuckoo::ClassicCuckooConfig;
using cuckoo::InsertResult;
using cuckoo::model::Trace;
using Table = cuckoo::ClassicCuckoo<>;

// A hasher whose hash is the key: positions_of(h) then gives the positions of hash h.
struct HashIsKey {
  std::uint64_t operator()(std::uint64_t key, std::uint64_t /*seed*/) const noexcept { return key; }
};

class ClassicUnderTest : public cuckoo::subjects::MapSubjectAdapter<Table> {
 public:
  ClassicUnderTest(Table& table, bool has_growth_limit)
      : cuckoo::subjects::MapSubjectAdapter<Table>(table, has_growth_limit), table_(&table) {}

  // Under the report policy a refused insert must leave every entry in its slot.
  InsertResult insert(std::uint64_t key, std::uint64_t value) {
    return checked_insert(key, value, false);
  }
  InsertResult insert_or_assign(std::uint64_t key, std::uint64_t value) {
    return checked_insert(key, value, true);
  }

  std::string check_invariants() const {
    if (auto problem = table_->invariant_violation()) return *problem;
    if (!layout_problem_.empty()) return layout_problem_;
    std::uint64_t seed = table_->initial_seed();
    for (std::uint64_t g = 0; g < table_->seed_generation(); ++g) seed = Table::derive_seed(seed);
    if (seed != table_->seed()) return "seed() is not derive_seed^seed_generation(initial_seed())";
    std::size_t visited = 0;
    table_->for_each([&visited](std::uint64_t, std::uint64_t) { ++visited; });
    if (visited != table_->size()) return "for_each visits " + std::to_string(visited) + " entries";
    const cuckoo::ClassicCuckooStats& st = table_->stats();
    if (st.inserted + st.full > st.insert_calls || st.max_insert_kicks > st.total_kicks ||
        st.last_insert_kicks > st.max_insert_kicks) {
      return "inconsistent counters";
    }
    if (table_->capacity() != 2 * table_->table_size() ||
        table_->capacity() > table_->config().max_capacity + 1 || table_->empty() != (table_->size() == 0)) {
      return "capacity out of range";
    }
    return {};
  }

 private:
  InsertResult checked_insert(std::uint64_t key, std::uint64_t value, bool assign) {
    const bool report = table_->config().on_failure == cuckoo::OnInsertFailure::kReport;
    std::optional<Table> before;
    if (report) before.emplace(*table_);
    const InsertResult result = assign ? table_->insert_or_assign(key, value) : table_->insert(key, value);
    if (result == InsertResult::kFull && before &&
        (!table_->same_layout(*before) || table_->seed() != before->seed())) {
      layout_problem_ = "a refused insert (report policy) changed the layout or the seed";
    }
    return result;
  }

  Table* table_;
  std::string layout_problem_;
};

// check_invariants() (I1-I3, O(capacity); the layout check of a refused insert is made at
// the insert and kept until reported) runs at the sampled cadence; every answer and the
// size after every op (fuzz/README.md).
constexpr cuckoo::model::CheckCadence kCadence{.sample_stored_key_scans = false, .sample_invariants = true};

[[noreturn]] void fail(const std::string& what, const Trace& trace) {
  cuckoo::model::Violation v;
  v.claim = "C7";
  v.op_index = trace.size() == 0 ? 0 : trace.size() - 1;
  if (trace.size() != 0) v.op = trace.entries.back().op;
  v.expected = what;
  v.actual = "not so (checked after the last op)";
  v.seed = trace.parameters.get_u64("seed");
  cuckoo::fuzz::report_violation("classic", v, trace);
}

void after_trace(Table& table, const cuckoo::model::MapModel& model, std::size_t selector,
                 const Trace& trace) {
  // hash_with_positions inverts positions_of for every pair of positions.
  const auto n = static_cast<std::uint32_t>(table.table_size());
  const auto p0 = static_cast<std::uint32_t>(selector % n);
  const auto p1 = static_cast<std::uint32_t>((selector / 5) % n);
  const std::optional<std::uint64_t> h = Table::hash_with_positions(p0, p1, n);
  if (!h) fail("hash_with_positions finds a hash for a table of " + std::to_string(n) + " buckets", trace);
  ClassicCuckooConfig c;
  c.capacity = 2 * std::size_t{n};
  c.seed = 0;
  const cuckoo::ClassicCuckoo<std::uint64_t, std::uint64_t, HashIsKey> probe(c);
  if (probe.positions_of(*h) != std::pair<std::uint32_t, std::uint32_t>(p0, p1)) {
    fail("positions_of(hash_with_positions(p0, p1)) == {p0, p1}", trace);
  }
  for (const auto& [key, value] : model.entries()) {
    const auto [q0, q1] = table.positions_of(key);
    const Table::Entry* a = table.slot(0, q0);
    const Table::Entry* b = table.slot(1, q1);
    const bool at_a = a != nullptr && a->key == key && a->value == value;
    const bool at_b = b != nullptr && b->key == key && b->value == value;
    if (at_a == at_b) fail("key " + std::to_string(key) + " in exactly one of its two slots", trace);
  }
  Table copy(table);
  if (!copy.same_layout(table)) fail("a copy has the same layout", trace);
  copy.reset_stats();
  if (copy.stats().insert_calls != 0) fail("reset_stats() zeroes the counters", trace);
  const double expected_load = static_cast<double>(copy.size()) / static_cast<double>(copy.capacity());
  if (std::fabs(copy.load_factor() - expected_load) > 1e-12) {
    fail("load_factor() == size() / capacity()", trace);
  }
}

void check_config_errors(std::size_t selector, const Trace& trace) {
  ClassicCuckooConfig bad;
  bad.seed = 1;
  std::string field;
  switch (selector % 6) {
    case 0: bad.capacity = 1; field = "capacity"; break;
    case 1: bad.max_kicks = 0; field = "max_kicks"; break;
    case 2: bad.on_failure = static_cast<cuckoo::OnInsertFailure>(7); field = "on_failure"; break;
    case 3: bad.max_rehashes = ClassicCuckooConfig::kMaxRehashesLimit + 1; field = "max_rehashes"; break;
    case 4: bad.max_capacity = bad.capacity - 1; field = "max_capacity"; break;
    default: bad.max_capacity = ClassicCuckooConfig::kMaxCapacity + 1; field = "max_capacity"; break;
  }
  try {
    Table table(bad);
    fail("ClassicCuckoo(config with invalid " + field + ") throws ConfigError", trace);
  } catch (const cuckoo::ConfigError& e) {
    if (e.field() != field) fail("ConfigError names " + field + ", not " + e.field(), trace);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const cuckoo::fuzz::Decoded decoded = cuckoo::fuzz::decode(
      cuckoo::fuzz::Family::kClassic, data, size,
      [](cuckoo::fuzz::ByteSource& in, std::uint64_t& key_space) {
        return cuckoo::subjects::parameters_of(cuckoo::fuzz::decode_classic_config(in, key_space));
      });
  const Trace& trace = decoded.trace;
  cuckoo::fuzz::maybe_print_trace(trace);

  const ClassicCuckooConfig config = cuckoo::subjects::classic_config_from(trace.parameters);
  const bool may_report_full = cuckoo::subjects::classic_may_report_full(config);
  Table table(config);
  ClassicUnderTest subject(table, may_report_full);
  cuckoo::model::MapModel model;
  if (const auto violation = cuckoo::model::check(subject, model, trace, *config.seed, kCadence)) {
    cuckoo::fuzz::report_exactly("classic", *violation, trace, [&] {
      Table fresh(config);
      ClassicUnderTest fresh_subject(fresh, may_report_full);
      cuckoo::model::MapModel fresh_model;
      return cuckoo::model::check(fresh_subject, fresh_model, trace, *config.seed);
    });
  }
  after_trace(table, model, size, trace);
  check_config_errors(size, trace);
  return 0;
}
