// Differential fuzz target: GrowingCuckooFilter against MultisetModel.
//
// The input decodes (op_decoder.hpp, the filter op table) into a growing-filter
// configuration and an op sequence whose keys are folded into kMaxDistinctKeys values;
// the lock-step checker runs it against the multiset model through one of the subject
// layer's two adapters (subjects/growing.hpp), chosen by bit 4 of the first byte:
//   0: keys every level tells apart (GrowingFilterSubjectAdapter): level-0 f in
//      {8, 10, 12, 16}, 8..71 slots; count() exact.
//   1: the trace's own keys (AliasingGrowingFilterSubjectAdapter, raw_keys=1 in the
//      trace header): level-0 f of 4 or 5 bits and 1..8 slots, so that keys share items
//      across levels and erases take other keys' copies at newer levels; C1 for every
//      stored key and the erase proof's copy accounting.
// Either way b in {1, 2, 4, 8}, 1..500 kicks, expansion 1..4, 1..8 levels, the levels'
// invariants at the sampled cadence and round trips. After the trace:
// info() agrees with the levels and the false-positive bound with the limit, a round
// trip re-serializes to the same bytes, and invalid configurations are rejected with a
// ConfigError naming the field.
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "cuckoo/growing_filter.hpp"
#include "cuckoo/model/checker.hpp"
#include "cuckoo/subjects/growing.hpp"
#include "filter_support.hpp"
#include "op_decoder.hpp"

namespace {

using cuckoo::GrowingCuckooFilter;
using cuckoo::GrowingCuckooFilterConfig;

// At most this many distinct keys a trace: the adapter needs keys that every level
// tells apart, and a level 0 of one bucket with f = 8 has 255 identities.
constexpr std::uint64_t kMaxDistinctKeys = 64;

// byte 0: f (bits 0-1: 8, 10, 12, 16; raw keys: 4, 5, 4, 5), b (bits 2-3: 1, 2, 4, 8),
// raw keys (bit 4), key space (bits 5-7); byte 1: capacity 8..71 slots (bits 0-5; raw
// keys: 1..8, bits 0-2); byte 2: max_kicks (bits 0-2: 1, 2, 3, 5, 8, 16, 64, 500),
// expansion (bits 3-4: 1..4), max_levels (bits 5-7: 1..8); byte 3: seed.
GrowingCuckooFilterConfig decode_growing_config(cuckoo::fuzz::ByteSource& in, std::uint64_t& key_space,
                                                bool& raw_keys) {
  constexpr unsigned kBits[] = {8, 10, 12, 16};
  constexpr unsigned kSlots[] = {1, 2, 4, 8};
  constexpr unsigned kKicks[] = {1, 2, 3, 5, 8, 16, 64, 500};
  const std::uint8_t b0 = in.u8();
  raw_keys = ((b0 >> 4) & 1U) != 0;
  GrowingCuckooFilterConfig c;
  c.fingerprint_bits = raw_keys ? 4 + (b0 & 1U) : kBits[b0 & 3U];
  c.slots_per_bucket = kSlots[(b0 >> 2) & 3U];
  key_space = cuckoo::fuzz::kKeySpaces[(b0 >> 5) & 7U];
  const std::uint8_t b1 = in.u8();
  c.capacity = raw_keys ? 1 + b1 % 8U : 8 + b1 % 64U;
  const std::uint8_t b2 = in.u8();
  c.max_kicks = kKicks[b2 & 7U];
  c.expansion = 1 + ((b2 >> 3) & 3U);
  c.max_levels = 1 + ((b2 >> 5) & 7U);
  c.seed = in.u8();
  return c;
}

// An adapter with a round trip that also requires equal stats and equal bytes.
template <class Base>
class GrowingUnderTest : public Base {
 public:
  using Base::Base;
  using Base::engine;
  void serialize_roundtrip() {
    const std::vector<std::uint8_t> bytes = engine().serialize();
    cuckoo::fuzz::maybe_dump_serialized(bytes);
    GrowingCuckooFilter copy = GrowingCuckooFilter::deserialize(bytes, engine().hasher());
    if (!(copy == engine())) throw std::runtime_error("the deserialized filter is not equal");
    if (!(copy.stats() == engine().stats())) throw std::runtime_error("stats differ after the round trip");
    if (copy.serialize() != bytes) throw std::runtime_error("re-serializing the copy gives other bytes");
    engine() = std::move(copy);
  }
};

constexpr cuckoo::model::CheckCadence kCadence{.sample_stored_key_scans = true, .sample_invariants = true};

[[noreturn]] void fail(const std::string& what, const cuckoo::model::Trace& trace) {
  cuckoo::fuzz::fail_after_trace("growing_filter", what, trace);
}

void check_info(const GrowingCuckooFilter& f, const cuckoo::model::Trace& trace) {
  const cuckoo::CuckooFilterInfo i = f.info();
  std::uint64_t capacity = 0;
  std::uint64_t size = 0;
  for (unsigned l = 0; l < f.level_count(); ++l) {
    capacity += f.level(l).slot_count();
    size += f.level(l).size();
  }
  if (i.capacity != capacity || i.size != size || i.size != f.size() || i.levels != f.level_count() ||
      i.fingerprint_bits != f.fingerprint_bits() + f.level_count() - 1 ||
      i.min_fingerprint_bits != f.fingerprint_bits()) {
    fail("info() sums the levels", trace);
  }
  if (!(i.false_positive_bound < f.false_positive_limit())) {
    fail("false_positive_bound() < false_positive_limit()", trace);
  }
  if (f.level_count() > f.reachable_levels() || f.reachable_levels() > f.max_levels()) {
    fail("level_count() <= reachable_levels() <= max_levels()", trace);
  }
}

void check_config_errors(std::uint64_t selector, const cuckoo::model::Trace& trace) {
  GrowingCuckooFilterConfig bad;
  bad.capacity = 16;
  bad.seed = 1;
  std::string field;
  switch (selector % 5) {
    case 0: bad.expansion = 0; field = "expansion"; break;
    case 1: bad.expansion = 17; field = "expansion"; break;
    case 2: bad.max_levels = 0; field = "max_levels"; break;
    case 3: bad.fingerprint_bits = 28; bad.max_levels = 6; field = "max_levels"; break;
    default: bad.max_memory_bytes = 1; field = "max_memory_bytes"; break;
  }
  try {
    GrowingCuckooFilter filter(bad);
    fail("GrowingCuckooFilter(config with invalid " + field + ") throws ConfigError", trace);
  } catch (const cuckoo::ConfigError& e) {
    if (e.field() != field) fail("ConfigError names " + field + ", not " + e.field(), trace);
  }
}

// Runs the trace through the adapter Base (see the top comment), then the checks after it.
template <class Base>
void check_trace(const cuckoo::model::Trace& trace, const GrowingCuckooFilterConfig& config,
                 std::size_t size) {
  GrowingCuckooFilter filter(config);
  GrowingUnderTest<Base> subject(filter);
  cuckoo::model::MultisetModel model;
  if (const auto violation = cuckoo::model::check(subject, model, trace, *config.seed, kCadence)) {
    cuckoo::fuzz::report_exactly("growing_filter", *violation, trace, [&] {
      GrowingCuckooFilter fresh(config);
      GrowingUnderTest<Base> fresh_subject(fresh);
      cuckoo::model::MultisetModel fresh_model;
      return cuckoo::model::check(fresh_subject, fresh_model, trace, *config.seed);
    });
  }
  check_info(filter, trace);
  check_config_errors(size, trace);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  cuckoo::fuzz::Decoded decoded = cuckoo::fuzz::decode(
      cuckoo::fuzz::Family::kFilter, data, size,
      [](cuckoo::fuzz::ByteSource& in, std::uint64_t& key_space) {
        bool raw_keys = false;
        cuckoo::model::TraceParameters p =
            cuckoo::subjects::parameters_of(decode_growing_config(in, key_space, raw_keys));
        if (raw_keys) p.set("raw_keys", "1");
        return p;
      });
  cuckoo::model::Trace& trace = decoded.trace;
  trace.engine = "growing";
  for (cuckoo::model::TraceEntry& entry : trace.entries) entry.op.key %= kMaxDistinctKeys;
  cuckoo::fuzz::maybe_print_trace(trace);

  const GrowingCuckooFilterConfig config = cuckoo::subjects::growing_config_from(trace.parameters);
  if (cuckoo::subjects::growing_raw_keys(trace.parameters)) {
    check_trace<cuckoo::subjects::AliasingGrowingFilterSubjectAdapter<GrowingCuckooFilter>>(trace, config, size);
  } else {
    check_trace<cuckoo::subjects::GrowingFilterSubjectAdapter<GrowingCuckooFilter>>(trace, config, size);
  }
  return 0;
}
