// What the two cuckoo filter targets share (fuzz_filter.cpp: CuckooFilter;
// fuzz_lock_free_filter.cpp: LockFreeFilter): the configuration bytes of their inputs,
// the memoized identity and the slot-by-slot copy count of their subjects, the report
// of a check made after the trace, and the ConfigError checks of invalid
// configurations. Both filters take CuckooFilterConfig and derive buckets and
// fingerprint by the same rule, so one decoder and one identity serve both.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>

#include "cuckoo/cuckoo_filter.hpp"
#include "cuckoo/error.hpp"
#include "cuckoo/model/trace.hpp"
#include "cuckoo/model/violation.hpp"
#include "op_decoder.hpp"

namespace cuckoo::fuzz {

// The configuration bytes of a filter target's inputs (op_decoder.hpp: the layout).
// byte 0: f (bits 0-2: 4, 5, 6, 7, 8, 12, 16, 32), b (bits 3-4: 1, 2, 4, 8), key space
//         (bits 5-7); byte 1: capacity 1..64 slots (bits 0-5), semi-sorted buckets (bit
//         7, where the shape has them: b = 4, f >= 5); byte 2: max_kicks (bits 0-2: 1, 2,
//         3, 5, 8, 16, 64, 500); byte 3: seed.
inline CuckooFilterConfig decode_filter_config(ByteSource& in, std::uint64_t& key_space) {
  constexpr std::array<unsigned, 8> kBits = {4, 5, 6, 7, 8, 12, 16, 32};
  constexpr std::array<unsigned, 4> kSlots = {1, 2, 4, 8};
  constexpr std::array<unsigned, 8> kKicks = {1, 2, 3, 5, 8, 16, 64, 500};
  const std::uint8_t b0 = in.u8();
  CuckooFilterConfig c;
  c.fingerprint_bits = kBits[b0 & 7U];
  c.slots_per_bucket = kSlots[(b0 >> 3) & 3U];
  key_space = kKeySpaces[(b0 >> 5) & 7U];
  const std::uint8_t b1 = in.u8();
  c.capacity = 1 + b1 % 64U;
  c.semi_sorted = (b1 & 0x80U) != 0 && c.slots_per_bucket == 4 && c.fingerprint_bits >= 5;
  c.max_kicks = kKicks[in.u8() & 7U];
  c.seed = in.u8();
  return c;
}

// A key's identity (subjects::filter_identity of its placement), computed once: the model
// asks for identities O(size) times per op, and a key's identity never changes (the
// filter has a fixed bucket count and seed, kept by round trips).
class IdentityCache {
 public:
  template <class Compute>
  std::uint64_t get(std::uint64_t key, Compute&& compute) const {
    const auto [it, inserted] = cache_.try_emplace(key, 0);
    if (inserted) it->second = compute(key);
    return it->second;
  }

 private:
  mutable std::unordered_map<std::uint64_t, std::uint64_t> cache_;
};

// Copies of p.fingerprint in p's two buckets (once when they coincide), counted slot by
// slot through fingerprint_at (independently of the filter's lookup).
template <class Filter>
std::uint64_t count_in_buckets(const Filter& filter, const CuckooFilterPlacement& p) {
  std::uint64_t n = 0;
  for (unsigned s = 0; s < filter.slots_per_bucket(); ++s) {
    n += filter.fingerprint_at(p.bucket1, s) == p.fingerprint ? 1 : 0;
    if (p.bucket2 != p.bucket1) n += filter.fingerprint_at(p.bucket2, s) == p.fingerprint ? 1 : 0;
  }
  return n;
}

// A check made after the trace failed: reported as an "invariant" violation at the last
// op, with the trace (report_violation aborts).
[[noreturn]] inline void fail_after_trace(std::string_view target, const std::string& what,
                                          const model::Trace& trace) {
  model::Violation v;
  v.claim = "invariant";
  v.op_index = trace.size() == 0 ? 0 : trace.size() - 1;
  if (trace.size() != 0) v.op = trace.entries.back().op;
  v.expected = what;
  v.actual = "not so (checked after the last op)";
  v.seed = trace.parameters.get_u64("seed");
  report_violation(target, v, trace);
}

// Invalid configurations throw ConfigError naming the field, before allocating: the
// eight CuckooFilterConfig mistakes, chosen by selector. `name` names Filter in the
// report.
template <class Filter>
void check_config_errors(std::string_view target, std::string_view name, std::uint64_t selector,
                         const model::Trace& trace) {
  CuckooFilterConfig bad;
  bad.capacity = 16;
  bad.seed = 1;
  std::string field;
  switch (selector % 8) {
    case 0: bad.fingerprint_bits = 3; field = "fingerprint_bits"; break;
    case 1: bad.fingerprint_bits = 33; field = "fingerprint_bits"; break;
    case 2: bad.slots_per_bucket = 3; field = "slots_per_bucket"; break;
    case 3: bad.capacity = 0; field = "capacity"; break;
    case 4: bad.capacity = std::uint64_t{1} << 40; field = "capacity"; break;  // too many buckets
    case 5:  // few enough buckets, but a table above kMaxTableBytes
      bad.capacity = CuckooFilterConfig::kMaxBucketCount * std::uint64_t{8};
      bad.slots_per_bucket = 8;
      bad.fingerprint_bits = 32;
      field = "capacity";
      break;
    case 6: bad.max_kicks = 0; field = "max_kicks"; break;
    default: bad.semi_sorted = true; bad.slots_per_bucket = 2; field = "semi_sorted"; break;
  }
  try {
    Filter filter(bad);
    fail_after_trace(target, std::string(name) + "(config with invalid " + field + ") throws ConfigError",
                     trace);
  } catch (const ConfigError& e) {
    if (e.field() != field) fail_after_trace(target, "ConfigError names " + field + ", not " + e.field(), trace);
  }
}

}  // namespace cuckoo::fuzz
