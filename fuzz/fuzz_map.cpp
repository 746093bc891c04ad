// Differential fuzz target: CuckooMap<uint64_t, uint64_t, B> against MapModel.
//
// The input decodes (op_decoder.hpp) into b in {1, 2, 4, 8}, an initial capacity of
// 1..32 slots, a path length of 1..8, optionally a growth cap a few buckets above the
// initial table (then kFull is allowed and C6 is checked), and an op sequence. The
// lock-step checker compares every answer with the model (C7), runs the map's own
// check_invariants() at the sampled cadence (kCadence below), and at every serialize_roundtrip requires the copy
// to equal the original and to re-serialize to the same bytes (the format stores
// positions, so the layout survives).
// After the trace, with the model as the oracle: iteration visits exactly the model's
// entries; reserve() keeps every entry and reaches the promised capacity; a moved-from
// map is empty and usable; hash_for_buckets() inverts the bucket derivation; invalid
// configurations throw ConfigError naming the field.
#include <cstddef>
#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "cuckoo/subjects/map.hpp"
#include "cuckoo/cuckoo_map.hpp"
#include "cuckoo/model/checker.hpp"
#include "op_decoder.hpp"

// The configuration bytes of this target's inputs (op_decoder.hpp: the layout).
namespace cuckoo::fuzz {

// byte 0: b (bits 0-1: 1, 2, 4, 8), key space (bits 2-4), capped growth (bit 5);
// byte 1: initial capacity 1..32; byte 2: max_path_length 1..8 (bits 0-2), extra buckets
// the cap allows (bits 3-6); byte 3: seed.
struct MapChoice {
  CuckooMapConfig config;
  unsigned slots_per_bucket = 4;
};
inline MapChoice decode_map_config(ByteSource& in, std::uint64_t& key_space) {
  constexpr std::array<unsigned, 4> kSlots = {1, 2, 4, 8};
  const std::uint8_t b0 = in.u8();
  MapChoice m;
  m.slots_per_bucket = kSlots[b0 & 3U];
  key_space = kKeySpaces[(b0 >> 2) & 7U];
  const bool capped = ((b0 >> 5) & 1U) != 0;
  m.config.initial_capacity = 1 + in.u8() % 32U;
  const std::uint8_t b2 = in.u8();
  m.config.max_path_length = 1 + (b2 & 7U);
  if (capped) {
    const std::size_t b = m.slots_per_bucket;
    const std::size_t initial_slots = (m.config.initial_capacity + b - 1) / b * b;
    m.config.max_capacity = initial_slots + b * ((b2 >> 3) & 15U);
  }
  m.config.seed = in.u8();
  return m;
}

}  // namespace cuckoo::fuzz

namespace {

using cuckoo::CuckooMapConfig;
using cuckoo::model::Trace;

template <unsigned B>
using Map = cuckoo::CuckooMap<std::uint64_t, std::uint64_t, B>;

template <unsigned B>
class MapUnderTest : public cuckoo::subjects::MapSubjectAdapter<Map<B>> {
 public:
  MapUnderTest(Map<B>& table, bool has_growth_limit)
      : cuckoo::subjects::MapSubjectAdapter<Map<B>>(table, has_growth_limit), table_(&table) {}

  std::string check_invariants() const {
    std::string problem = table_->check_invariants();
    if (!problem.empty()) return problem;
    std::size_t visited = 0;
    for (auto it = table_->begin(); it != table_->end(); ++it) ++visited;
    if (visited != table_->size()) {
      return "iteration visits " + std::to_string(visited) + " items, size() is " +
             std::to_string(table_->size());
    }
    if (table_->stash_size() > Map<B>::kStashSlots || table_->capacity() > table_->config().max_capacity ||
        table_->empty() != (table_->size() == 0)) {
      return "stash_size, capacity or empty out of range";
    }
    return {};
  }

  void serialize_roundtrip() {
    const std::vector<std::uint8_t> bytes = table_->serialize();
    cuckoo::fuzz::maybe_dump_serialized(bytes);
    Map<B> copy = Map<B>::deserialize(bytes, table_->hash_function());
    if (!(copy == *table_)) throw std::runtime_error("the deserialized map is not equal");
    if (copy.serialize() != bytes) throw std::runtime_error("re-serializing the copy gives other bytes");
    if (copy.seed() != table_->seed() || copy.bucket_count() != table_->bucket_count() ||
        !(copy.config() == table_->config())) {
      throw std::runtime_error("seed, bucket count or configuration changed across the round trip");
    }
    *table_ = std::move(copy);
  }

 private:
  Map<B>* table_;
};

// check_invariants() (the map's own, O(capacity), and the iteration count) runs at the
// sampled cadence; every answer and the size after every op (fuzz/README.md).
constexpr cuckoo::model::CheckCadence kCadence{.sample_stored_key_scans = false, .sample_invariants = true};

[[noreturn]] void fail(const std::string& what, const Trace& trace) {
  cuckoo::model::Violation v;
  v.claim = "C7";
  v.op_index = trace.size() == 0 ? 0 : trace.size() - 1;
  if (trace.size() != 0) v.op = trace.entries.back().op;
  v.expected = what;
  v.actual = "not so (checked after the last op)";
  v.seed = trace.parameters.get_u64("seed");
  cuckoo::fuzz::report_violation("map", v, trace);
}

template <unsigned B>
void check_same_entries(const Map<B>& table, const cuckoo::model::MapModel& model,
                        const std::string& when, const Trace& trace) {
  std::map<std::uint64_t, std::uint64_t> seen;
  for (const auto& [key, value] : table) {
    if (!seen.emplace(key, value).second) fail("no key visited twice " + when, trace);
  }
  if (seen != model.entries()) fail("the entries of the model " + when, trace);
  for (const auto& [key, value] : model.entries()) {
    const std::uint64_t* found = table.find_value(key);
    if (found == nullptr || *found != value || !table.contains(key)) {
      fail("find " + std::to_string(key) + " => " + std::to_string(value) + " " + when, trace);
    }
  }
  const std::string problem = table.check_invariants();
  if (!problem.empty()) fail("check_invariants() passes " + when + ": " + problem, trace);
}

template <unsigned B>
void after_trace(Map<B>& table, const cuckoo::model::MapModel& model, std::size_t extra,
                 const Trace& trace) {
  check_same_entries(table, model, "after the trace", trace);

  // hash_for_buckets inverts the bucket derivation.
  const std::uint32_t n = table.bucket_count();
  const auto first = static_cast<std::uint32_t>(extra % n);
  const auto second = static_cast<std::uint32_t>((extra / 7) % n);
  const cuckoo::detail::MapBucketPair pair =
      cuckoo::detail::map_buckets(Map<B>::hash_for_buckets(first, second, n), n);
  if (pair.first != first || pair.second != second) {
    fail("map_buckets(hash_for_buckets(a, b, n), n) == {a, b}", trace);
  }
  for (const auto& [key, value] : model.entries()) {
    const auto [b1, b2] = table.buckets_of(key);
    if (b1 >= n || b2 >= n) fail("buckets_of(key) below bucket_count()", trace);
  }

  // reserve: true means the capacity was reached; either way every entry stays.
  const std::size_t wanted = table.size() + extra % 200;
  const std::size_t capacity_before = table.capacity();
  const bool reserved = table.reserve(wanted);
  if (reserved && table.capacity() * Map<B>::kReserveLoadPercent < wanted * 100) {
    fail("reserve(" + std::to_string(wanted) + ") == true reaches capacity n * 100 / load", trace);
  }
  if (table.capacity() < capacity_before) fail("reserve never shrinks", trace);
  check_same_entries(table, model, "after reserve(" + std::to_string(wanted) + ")", trace);

  // A moved-from map is empty, has no table, and works again after an insert.
  Map<B> moved(std::move(table));
  check_same_entries(moved, model, "in the move-constructed map", trace);
  if (table.size() != 0 || table.capacity() != 0 || table.load_factor() != 0.0 ||
      table.contains(1) || !table.check_invariants().empty() || table.begin() != table.end()) {
    fail("a moved-from map is empty with capacity() == 0", trace);
  }
  const std::vector<std::uint8_t> empty_bytes = table.serialize();
  if (Map<B>::deserialize(empty_bytes).size() != 0) fail("a moved-from map serializes as empty", trace);
  if (table.insert_outcome(extra, 1) != cuckoo::InsertResult::kInserted || table.find_value(extra) == nullptr ||
      *table.find_value(extra) != 1 || !table.check_invariants().empty()) {
    fail("a moved-from map accepts an insert", trace);
  }
  table = std::move(moved);
  check_same_entries(table, model, "after move assignment", trace);
  if (!moved.check_invariants().empty() || moved.size() != 0) fail("a moved-from map is empty", trace);
  moved.clear();
  Map<B> copied(table);
  if (!(copied == table)) fail("a copy equals its original", trace);
}

// Invalid configurations throw ConfigError naming the field.
template <unsigned B>
void check_config_errors(std::size_t selector, const Trace& trace) {
  CuckooMapConfig bad;
  bad.seed = 1;
  std::string field;
  switch (selector % 6) {
    case 0: bad.initial_capacity = 0; field = "initial_capacity"; break;
    case 1: bad.max_capacity = B - 1; bad.initial_capacity = 1; field = "max_capacity"; break;
    case 2: bad.max_capacity = Map<B>::kMaxCapacity + 1; field = "max_capacity"; break;
    case 3: bad.initial_capacity = 100; bad.max_capacity = 64; field = "initial_capacity"; break;
    case 4:
      bad.max_path_length = selector % 2 == 0 ? 0 : Map<B>::kMaxPathLength + 1;
      field = "max_path_length";
      break;
    default:  // rounded up to whole buckets, the initial table exceeds the cap
      if (B == 1) return;
      bad.initial_capacity = 3 * B + 1;
      bad.max_capacity = 3 * B + 1;
      field = "initial_capacity";
      break;
  }
  try {
    Map<B> table(bad);
    fail("CuckooMap(config with invalid " + field + ") throws ConfigError", trace);
  } catch (const cuckoo::ConfigError& e) {
    if (e.field() != field) fail("ConfigError names " + field + ", not " + e.field(), trace);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const cuckoo::fuzz::Decoded decoded = cuckoo::fuzz::decode(
      cuckoo::fuzz::Family::kMap, data, size,
      [](cuckoo::fuzz::ByteSource& in, std::uint64_t& key_space) {
        const cuckoo::fuzz::MapChoice m = cuckoo::fuzz::decode_map_config(in, key_space);
        return cuckoo::subjects::parameters_of(m.config, m.slots_per_bucket);
      });
  const Trace& trace = decoded.trace;
  cuckoo::fuzz::maybe_print_trace(trace);

  const CuckooMapConfig config = cuckoo::subjects::map_config_from(trace.parameters);
  cuckoo::subjects::with_map_slots(trace.parameters, [&]<unsigned B>() {
    const bool capped = config.max_capacity < CuckooMapConfig{}.max_capacity;
    Map<B> table(config);
    MapUnderTest<B> subject(table, capped);
    cuckoo::model::MapModel model;
    if (const auto violation = cuckoo::model::check(subject, model, trace, *config.seed, kCadence)) {
      cuckoo::fuzz::report_exactly("map", *violation, trace, [&] {
        Map<B> fresh(config);
        MapUnderTest<B> fresh_subject(fresh, capped);
        cuckoo::model::MapModel fresh_model;
        return cuckoo::model::check(fresh_subject, fresh_model, trace, *config.seed);
      });
    }
    after_trace(table, model, size, trace);
    check_config_errors<B>(size, trace);
  });
  return 0;
}
