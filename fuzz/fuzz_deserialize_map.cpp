// Fuzz target: CuckooMap::deserialize on arbitrary bytes.
//
// The map type is chosen by the input: B from the payload's slots_per_bucket byte
// (offset 16; any other value is tried as B = 4, which must refuse it), and both
// <uint64_t, uint64_t> and <std::string, std::string> are tried (string keys exercise the
// length-prefixed codec). Each input is tried as given and in two resealed variants
// (op_decoder.hpp), so that mutations of a valid serialization reach the payload
// decoder. For each, exactly one of:
//   - DeserializeError with a known code and a message (nothing else may be thrown);
//   - a map that round-trips exactly: serialize() gives back the input byte for byte
//     (positions are stored, so the layout is part of the format; bytes of an older
//     version come back in the current one, with their key hash), deserializing that
//     gives an equal map with the same seed, bucket count and configuration,
//     check_invariants() passes, iteration visits size() distinct keys each found with
//     its value, and the map works: a new key can be inserted, found and erased.
// deserialize() runs with its default table budget, derived from the input size (at most
// 64 table bytes per input byte, at least 1 MiB): no input may allocate more than that,
// and fuzz/deserialize_map.options sets -malloc_limit_mb to catch one that does.
#include <cstddef>
#include <cstdint>
#include <exception>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "cuckoo/cuckoo_map.hpp"
#include "op_decoder.hpp"

namespace {

constexpr std::string_view kTarget = "deserialize_map";

template <class K>
K probe_key(std::size_t n) {
  if constexpr (std::is_same_v<K, std::string>) {
    return "fuzz-probe-" + std::to_string(n);
  } else {
    return static_cast<K>(n * 0x9e3779b97f4a7c15ULL);
  }
}

template <class Map>
void check_valid(Map& map, std::span<const std::uint8_t> bytes, const std::string& label) {
  using K = typename Map::key_type;
  using V = typename Map::mapped_type;
  const auto fail = [&](const std::string& what) {
    cuckoo::fuzz::report_failure(kTarget, what + " (" + label + ")", bytes);
  };
  const std::vector<std::uint8_t> again = map.serialize();
  if (const std::string problem = cuckoo::fuzz::round_trip_problem(
          bytes, again, Map::kFormatVersion, map.key_hash_rule() != cuckoo::KeyHashRule::kProduct);
      !problem.empty()) {
    fail(problem);
  }
  const Map copy = Map::deserialize(again);
  if (!(copy == map) || copy.seed() != map.seed() || copy.bucket_count() != map.bucket_count() ||
      !(copy.config() == map.config())) {
    fail("deserialize(serialize(m)) == m with the same seed, buckets and configuration");
  }
  if (const std::string problem = map.check_invariants(); !problem.empty()) {
    fail("check_invariants() passes: " + problem);
  }
  std::set<K> keys;
  for (const auto& [key, value] : map) {
    const V* found = map.find_value(key);
    if (!keys.insert(key).second || found == nullptr || !(*found == value)) {
      fail("iteration visits distinct keys, each found with its value");
    }
  }
  if (keys.size() != map.size()) fail("iteration visits size() keys");
  // The deserialized map works like any other.
  K key = probe_key<K>(bytes.size());
  while (map.contains(key)) key = probe_key<K>(keys.size() + bytes.size() + 1);
  const std::size_t size_before = map.size();
  const cuckoo::InsertResult result = map.insert_outcome(key, V{});
  if (result == cuckoo::InsertResult::kInserted) {
    if (map.find_value(key) == nullptr || map.size() != size_before + 1) fail("an inserted key is found");
    if (!map.erase(key) || map.size() != size_before) fail("an inserted key can be erased");
  } else if (result != cuckoo::InsertResult::kFull || map.size() != size_before) {
    fail("a new key is inserted, or refused with kFull changing nothing");
  }
  if (const std::string problem = map.check_invariants(); !problem.empty()) {
    fail("check_invariants() passes after insert and erase: " + problem);
  }
}

template <class Map>
void check(std::span<const std::uint8_t> bytes, const std::string& label) {
  try {
    Map map = Map::deserialize(bytes);
    check_valid(map, bytes, label);
  } catch (const cuckoo::DeserializeError& e) {
    if (!cuckoo::fuzz::known_errc(e.code()) || std::string(e.what()).empty()) {
      cuckoo::fuzz::report_failure(kTarget, "a DeserializeError with a known code and a message", bytes);
    }
  } catch (const std::exception& e) {
    cuckoo::fuzz::report_failure(
        kTarget, std::string("only DeserializeError may be thrown, got: ") + e.what() + " (" + label + ")",
        bytes);
  }
}

template <class K, class V>
void check_types(std::span<const std::uint8_t> bytes, const std::string& label) {
  const std::uint8_t b = bytes.size() > cuckoo::detail::kEnvelopeHeaderSize
                             ? bytes[cuckoo::detail::kEnvelopeHeaderSize]
                             : 4;
  switch (b) {
    case 1: check<cuckoo::CuckooMap<K, V, 1>>(bytes, label); break;
    case 2: check<cuckoo::CuckooMap<K, V, 2>>(bytes, label); break;
    case 8: check<cuckoo::CuckooMap<K, V, 8>>(bytes, label); break;
    default: check<cuckoo::CuckooMap<K, V, 4>>(bytes, label); break;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  cuckoo::fuzz::for_each_variant(
      std::span<const std::uint8_t>(data, size), cuckoo::detail::StructureKind::kCuckooMap,
      cuckoo::CuckooMap<std::uint64_t, std::uint64_t>::kFormatVersion,
      [](std::span<const std::uint8_t> bytes, const char* label) {
        check_types<std::uint64_t, std::uint64_t>(bytes, label);
        check_types<std::string, std::string>(bytes, label);
      });
  return 0;
}
