// Differential fuzz target: BloomFilter against a std::set of the inserted keys.
//
// The input decodes (op_decoder.hpp) into k = 1..32 hashes, m = 1..1021 bits (so the
// filter saturates within a few dozen inserts), a seed and an op sequence of insert,
// contains, size, serialize_roundtrip and clear (a Bloom filter has no erase). The
// checks, op by op, with the set as the model:
//   insert              returns kInserted; size() counts every call (C1 bookkeeping)
//   contains k          true for every inserted key (C1: no false negatives)
//   size                equals the number of inserts since the last clear
//   serialize_roundtrip the copy equals the original, re-serializes to the same bytes,
//                       and answers contains() as before for every key of the trace
//                       (C11); the run continues with the copy
//   clear               empties it: size 0
// After the trace: fill_ratio() is at most min(1, n k / m); merging two filters that
// split the keys equals the filter that got them all (and a mismatched merge is refused);
// for_fpr() either throws ConfigError naming the field or gives a valid configuration;
// invalid configurations throw ConfigError naming the field.
// A violation is reported as a trace ("engine bloom bits=.. hashes=.. seed=..").
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "cuckoo/bloom_filter.hpp"
#include "cuckoo/model/checker.hpp"
#include "cuckoo/subjects/bloom.hpp"
#include "op_decoder.hpp"

// The configuration bytes of this target's inputs (op_decoder.hpp: the layout).
namespace cuckoo::fuzz {

// byte 0: hashes 1..32 (bits 0-4), key space (bits 5-7); byte 1: bits 1..1021; byte 2:
// seed.
inline BloomFilterConfig decode_bloom_config(ByteSource& in, std::uint64_t& key_space) {
  const std::uint8_t b0 = in.u8();
  BloomFilterConfig c;
  c.hashes = 1 + (b0 & 31U);
  key_space = kKeySpaces[(b0 >> 5) & 7U];
  c.bits = 1 + std::uint64_t{in.u8()} * 4;
  c.seed = in.u8();
  return c;
}

}  // namespace cuckoo::fuzz

namespace {

using cuckoo::BloomFilter;
using cuckoo::BloomFilterConfig;
using cuckoo::model::OpKind;
using cuckoo::model::Trace;

class Checker {
 public:
  Checker(const Trace& trace, const BloomFilterConfig& config)
      : trace_(trace), config_(config), filter_(config) {
    for (const auto& entry : trace.entries) {
      if (cuckoo::model::takes_key(entry.op.kind)) probes_.insert(entry.op.key);
    }
  }

  void run() {
    for (index_ = 0; index_ < trace_.size(); ++index_) step(trace_.entries[index_].op);
    after_trace();
  }

 private:
  [[noreturn]] void fail(const std::string& claim, const std::string& expected,
                         const std::string& actual) const {
    cuckoo::model::Violation v;
    v.claim = claim;
    v.op_index = index_ < trace_.size() ? index_ : (trace_.size() == 0 ? 0 : trace_.size() - 1);
    if (trace_.size() != 0) v.op = trace_.entries[v.op_index].op;
    v.expected = expected;
    v.actual = actual;
    v.seed = *config_.seed;
    cuckoo::fuzz::report_violation("bloom", v, trace_);
  }

  void every_key_found(const std::string& claim, const std::string& when) const {
    for (const std::uint64_t key : keys_) {
      if (!filter_.contains(key)) {
        fail(claim, "contains " + std::to_string(key) + " => true (inserted" + when + ")", "false");
      }
    }
  }

  void size_matches(const std::string& claim) const {
    if (filter_.size() != inserts_) {
      fail(claim, "size " + std::to_string(inserts_), "size " + std::to_string(filter_.size()));
    }
  }

  void step(const cuckoo::model::Op& op) {
    switch (op.kind) {
      case OpKind::kInsert:
      case OpKind::kInsertOrAssign: {
        const cuckoo::InsertResult result = filter_.insert(op.key);
        if (result != cuckoo::InsertResult::kInserted) {
          fail("C1", "inserted (a Bloom filter never fills)", std::string(to_string(result)));
        }
        keys_.insert(op.key);
        ++inserts_;
        size_matches("size");
        if (!filter_.contains(op.key)) fail("C1", "contains " + std::to_string(op.key) + " right after insert", "false");
        break;
      }
      case OpKind::kContains:
      case OpKind::kFind:
        if (keys_.contains(op.key) && !filter_.contains(op.key)) fail("C1", "true (inserted)", "false");
        break;
      case OpKind::kErase: break;  // not decoded for Bloom filters
      case OpKind::kSize: size_matches("size"); break;
      case OpKind::kSerializeRoundtrip: roundtrip(); break;
      case OpKind::kClear:
        filter_.clear();
        keys_.clear();
        inserts_ = 0;
        size_matches("size");
        if (filter_.fill_ratio() != 0.0) fail("size", "fill_ratio 0 after clear", std::to_string(filter_.fill_ratio()));
        break;
    }
  }

  void roundtrip() {
    every_key_found("C1", ", checked before the round trip");
    std::vector<bool> before;
    for (const std::uint64_t key : probes_) before.push_back(filter_.contains(key));
    const std::vector<std::uint8_t> bytes = filter_.serialize();
    cuckoo::fuzz::maybe_dump_serialized(bytes);
    BloomFilter copy = [&] {
      try {
        return BloomFilter::deserialize(bytes);
      } catch (const std::exception& e) {
        fail("C11", "deserialize(serialize()) succeeds", e.what());
      }
    }();
    if (!(copy == filter_)) fail("C11", "the deserialized filter equals the original", "not equal");
    if (copy.serialize() != bytes) fail("C11", "re-serializing the copy gives the same bytes", "other bytes");
    filter_ = std::move(copy);
    std::size_t i = 0;
    for (const std::uint64_t key : probes_) {
      if (filter_.contains(key) != before[i++]) {
        fail("C11", "contains " + std::to_string(key) + " as before the round trip", "changed");
      }
    }
    size_matches("C11");
  }

  void after_trace() {
    every_key_found("C1", "");
    const double m = static_cast<double>(filter_.bit_count());
    const double bound = std::min(1.0, static_cast<double>(inserts_) * filter_.hash_count() / m);
    const double fill = filter_.fill_ratio();
    if (fill < 0.0 || fill > bound + 1e-12) {
      fail("C12", "fill_ratio() <= min(1, n k / m) = " + std::to_string(bound), std::to_string(fill));
    }
    const double fpr = filter_.expected_fpr();
    if (!(fpr >= 0.0 && fpr <= 1.0) || filter_.bit_count() % 64 != 0 || filter_.bit_count() < config_.bits ||
        filter_.hash_count() != config_.hashes || filter_.seed() != *config_.seed ||
        filter_.memory_bytes() * 8 != filter_.bit_count()) {
      fail("C12", "expected_fpr in [0, 1] and m, k, seed, memory as configured", "not so");
    }
    if ((inserts_ == 0) != (filter_.bits_per_item() == 0.0)) {
      fail("C12", "bits_per_item() == 0 iff the filter is empty", std::to_string(filter_.bits_per_item()));
    }

    // Merge: the keys split between two filters, merged, equal one filter with them all.
    BloomFilter all(config_);
    BloomFilter even(config_);
    BloomFilter odd(config_);
    for (const std::uint64_t key : keys_) {
      (void)all.insert(key);
      (void)(key % 2 == 0 ? even : odd).insert(key);
    }
    if (!even.merge(odd) || !(even == all)) fail("C1", "merge of a split key set equals the whole set", "differs");
    BloomFilterConfig other = config_;
    other.seed = *config_.seed + 1;
    if (even.merge(BloomFilter(other))) fail("C1", "merge refuses a filter with another seed", "merged");
    if (!(even == all)) fail("C1", "a refused merge changes nothing", "changed");

    // for_fpr and optimal_k: a valid configuration or ConfigError naming the field.
    const std::uint64_t items = inserts_;
    const double eps = static_cast<double>(config_.hashes) / 33.0 - (items % 3 == 0 ? 1.0 : 0.0);
    try {
      const BloomFilterConfig planned = BloomFilterConfig::for_fpr(items, eps);
      if (planned.bits == 0 || planned.hashes < 1 || planned.hashes > BloomFilterConfig::kMaxHashes ||
          planned.hashes != cuckoo::optimal_k(planned.bits, items)) {
        fail("C12", "for_fpr gives a valid configuration with optimal k", "not so");
      }
    } catch (const cuckoo::ConfigError& e) {
      if (e.field() != "expected_items" && e.field() != "eps") {
        fail("C12", "for_fpr's ConfigError names expected_items or eps", e.field());
      }
      if (items != 0 && eps > 0.0 && eps < 1.0) fail("C12", "for_fpr accepts a valid request", e.what());
    }
    try {  // more bits than kMaxBits: refused, naming expected_items
      (void)BloomFilterConfig::for_fpr(std::uint64_t{1} << 62, 1e-9);
      fail("C12", "for_fpr(2^62 items, 1e-9) throws ConfigError", "a configuration");
    } catch (const cuckoo::ConfigError& e) {
      if (e.field() != "expected_items") fail("C12", "for_fpr's ConfigError names expected_items", e.field());
    }
    if (cuckoo::optimal_k(1 + inserts_, 0) != BloomFilterConfig::kMaxHashes) {
      fail("C12", "optimal_k(m, 0) == kMaxHashes", "not so");
    }

    // Invalid configurations: bits 0 or above kMaxBits, hashes 0 or above kMaxHashes.
    BloomFilterConfig bad = config_;
    std::string field = "bits";
    switch (trace_.size() % 4) {
      case 0: bad.bits = 0; break;
      case 1: bad.bits = BloomFilterConfig::kMaxBits + 1; break;
      case 2: bad.hashes = 0; field = "hashes"; break;
      default: bad.hashes = BloomFilterConfig::kMaxHashes + 1; field = "hashes"; break;
    }
    try {
      BloomFilter invalid(bad);
      fail("C12", "BloomFilter(config with invalid " + field + ") throws ConfigError", "constructed");
    } catch (const cuckoo::ConfigError& e) {
      if (e.field() != field) fail("C12", "ConfigError names " + field, e.field());
    }
  }

  const Trace& trace_;
  BloomFilterConfig config_;
  BloomFilter filter_;
  std::set<std::uint64_t> keys_;
  std::set<std::uint64_t> probes_;
  std::uint64_t inserts_ = 0;
  std::size_t index_ = 0;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const cuckoo::fuzz::Decoded decoded = cuckoo::fuzz::decode(
      cuckoo::fuzz::Family::kBloom, data, size,
      [](cuckoo::fuzz::ByteSource& in, std::uint64_t& key_space) {
        return cuckoo::subjects::parameters_of(cuckoo::fuzz::decode_bloom_config(in, key_space));
      });
  cuckoo::fuzz::maybe_print_trace(decoded.trace);
  Checker checker(decoded.trace, cuckoo::subjects::bloom_config_from(decoded.trace.parameters));
  checker.run();
  return 0;
}
