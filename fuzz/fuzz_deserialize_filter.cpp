// Fuzz target: CuckooFilter::deserialize on arbitrary bytes.
//
// Each input is tried as given and in two resealed variants (op_decoder.hpp: payload size
// and checksum repaired; also magic, kind and version forced), so that mutations of a
// valid serialization reach the payload decoder. For each, exactly one of:
//   - DeserializeError with a known code and a message (nothing else may be thrown);
//   - a filter that round-trips exactly: serialize() gives back the input byte for byte
//     (the format has one encoding per filter; bytes of an older version come back in
//     the current one, with their key hash), deserializing that gives an equal filter
//     with equal stats, the slots and stash hold size() fingerprints, every stash entry
//     is valid, and the filter works: an inserted key is found and can be erased, and
//     the stash and sizes stay consistent.
// Never a crash, an out-of-bounds read, a leak, a hang or an allocation the input does
// not justify (fuzz/deserialize_filter.options sets -malloc_limit_mb).
#include <cstddef>
#include <cstdint>
#include <exception>
#include <span>
#include <string>
#include <vector>

#include "cuckoo/cuckoo_filter.hpp"
#include "op_decoder.hpp"

namespace {

using cuckoo::CuckooFilter;

constexpr std::string_view kTarget = "deserialize_filter";

std::uint64_t stored_fingerprints(const CuckooFilter& f) {
  std::uint64_t n = f.stash_size();
  for (std::uint32_t i = 0; i < f.bucket_count(); ++i) {
    for (unsigned s = 0; s < f.slots_per_bucket(); ++s) n += f.fingerprint_at(i, s) != 0 ? 1 : 0;
  }
  return n;
}

void check_valid(CuckooFilter& f, std::span<const std::uint8_t> bytes, const std::string& label) {
  const auto fail = [&](const std::string& what) {
    cuckoo::fuzz::report_failure(kTarget, what + " (" + label + ")", bytes);
  };
  const std::vector<std::uint8_t> again = f.serialize();
  if (const std::string problem = cuckoo::fuzz::round_trip_problem(
          bytes, again, CuckooFilter::kFormatVersion, f.legacy_key_hash());
      !problem.empty()) {
    fail(problem);
  }
  const CuckooFilter copy = CuckooFilter::deserialize(again);
  if (!(copy == f) || !(copy.stats() == f.stats())) fail("deserialize(serialize(f)) == f");
  if (stored_fingerprints(f) != f.size()) fail("the slots and the stash hold size() fingerprints");
  for (const cuckoo::CuckooFilterPlacement& e : f.stash()) {
    if (e.bucket1 >= f.bucket_count() || e.bucket2 != f.alt_bucket(e.bucket1, e.fingerprint)) {
      fail("every stash entry names a valid bucket pair");
    }
  }
  // The deserialized filter works like any other: no false negative, one copy erased.
  const std::uint64_t key = bytes.size() * 0x9e3779b97f4a7c15ULL;
  const std::uint64_t size_before = f.size();
  const cuckoo::InsertResult result = f.insert(key);
  if (result == cuckoo::InsertResult::kInserted) {
    if (!f.contains(key) || f.size() != size_before + 1) fail("an inserted key is found and counted");
    if (!f.erase(key) || f.size() != size_before) fail("an inserted key can be erased");
  } else if (f.size() != size_before) {
    fail("a refused insert changes no size");
  }
  if (stored_fingerprints(f) != f.size()) fail("slots and stash still hold size() fingerprints");
}

void check(std::span<const std::uint8_t> bytes, const std::string& label) {
  try {
    CuckooFilter f = CuckooFilter::deserialize(bytes);
    check_valid(f, bytes, label);
  } catch (const cuckoo::DeserializeError& e) {
    if (!cuckoo::fuzz::known_errc(e.code()) || std::string(e.what()).empty()) {
      cuckoo::fuzz::report_failure(kTarget, "a DeserializeError with a known code and a message", bytes);
    }
  } catch (const std::exception& e) {
    cuckoo::fuzz::report_failure(
        kTarget, std::string("only DeserializeError may be thrown, got: ") + e.what(), bytes);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  cuckoo::fuzz::for_each_variant(std::span<const std::uint8_t>(data, size),
                                 cuckoo::detail::StructureKind::kCuckooFilter,
                                 CuckooFilter::kFormatVersion,
                                 [](std::span<const std::uint8_t> bytes, const char* label) {
                                   check(bytes, label);
                                 });
  return 0;
}
