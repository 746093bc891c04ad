// Differential fuzz target: GrowingCuckooFilter against MultisetModel.
//
// The input decodes (op_decoder.hpp, the filter op table) into a growing-filter
// configuration (level-0 f in {8, 10, 12, 16}, b in {1, 2, 4, 8}, 8..71 slots, 1..500
// kicks, expansion 1..4, 1..8 levels) and an op sequence whose keys are folded into
// kMaxDistinctKeys values; the lock-step checker runs it against the multiset model
// through subjects::GrowingFilterSubjectAdapter (keys every level tells apart, count()
// exact, the levels' invariants at the sampled cadence, round trips). After the trace:
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

// byte 0: f (bits 0-1: 8, 10, 12, 16), b (bits 2-3: 1, 2, 4, 8), key space (bits 5-7);
// byte 1: capacity 8..71 slots (bits 0-5); byte 2: max_kicks (bits 0-2: 1, 2, 3, 5, 8,
// 16, 64, 500), expansion (bits 3-4: 1..4), max_levels (bits 5-7: 1..8); byte 3: seed.
GrowingCuckooFilterConfig decode_growing_config(cuckoo::fuzz::ByteSource& in, std::uint64_t& key_space) {
  constexpr unsigned kBits[] = {8, 10, 12, 16};
  constexpr unsigned kSlots[] = {1, 2, 4, 8};
  constexpr unsigned kKicks[] = {1, 2, 3, 5, 8, 16, 64, 500};
  const std::uint8_t b0 = in.u8();
  GrowingCuckooFilterConfig c;
  c.fingerprint_bits = kBits[b0 & 3U];
  c.slots_per_bucket = kSlots[(b0 >> 2) & 3U];
  key_space = cuckoo::fuzz::kKeySpaces[(b0 >> 5) & 7U];
  c.capacity = 8 + in.u8() % 64U;
  const std::uint8_t b2 = in.u8();
  c.max_kicks = kKicks[b2 & 7U];
  c.expansion = 1 + ((b2 >> 3) & 3U);
  c.max_levels = 1 + ((b2 >> 5) & 7U);
  c.seed = in.u8();
  return c;
}

// The adapter with a round trip that also requires equal stats and equal bytes.
class GrowingUnderTest : public cuckoo::subjects::GrowingFilterSubjectAdapter<GrowingCuckooFilter> {
 public:
  using Base = cuckoo::subjects::GrowingFilterSubjectAdapter<GrowingCuckooFilter>;
  using Base::Base;
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

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  cuckoo::fuzz::Decoded decoded = cuckoo::fuzz::decode(
      cuckoo::fuzz::Family::kFilter, data, size,
      [](cuckoo::fuzz::ByteSource& in, std::uint64_t& key_space) {
        return cuckoo::subjects::parameters_of(decode_growing_config(in, key_space));
      });
  cuckoo::model::Trace& trace = decoded.trace;
  trace.engine = "growing";
  for (cuckoo::model::TraceEntry& entry : trace.entries) entry.op.key %= kMaxDistinctKeys;
  cuckoo::fuzz::maybe_print_trace(trace);

  const GrowingCuckooFilterConfig config = cuckoo::subjects::growing_config_from(trace.parameters);
  GrowingCuckooFilter filter(config);
  GrowingUnderTest subject(filter);
  cuckoo::model::MultisetModel model;
  if (const auto violation = cuckoo::model::check(subject, model, trace, *config.seed, kCadence)) {
    cuckoo::fuzz::report_exactly("growing_filter", *violation, trace, [&] {
      GrowingCuckooFilter fresh(config);
      GrowingUnderTest fresh_subject(fresh);
      cuckoo::model::MultisetModel fresh_model;
      return cuckoo::model::check(fresh_subject, fresh_model, trace, *config.seed);
    });
  }
  check_info(filter, trace);
  check_config_errors(size, trace);
  return 0;
}
