// Fuzz target: BloomFilter::deserialize on arbitrary bytes.
//
// Each input is tried as given and in two resealed variants (op_decoder.hpp), so that
// mutations of a valid serialization reach the payload decoder. For each, exactly one of:
//   - DeserializeError with a known code and a message (nothing else may be thrown);
//   - a filter that round-trips exactly: serialize() gives back the input byte for byte,
//     deserializing that gives an equal filter, m is a nonzero multiple of 64, k is in
//     range, at most n * k bits are set (fill_ratio() <= n k / m), and the filter works:
//     an inserted key is found and counted.
// Never a crash, an out-of-bounds read, a leak, a hang or an allocation the input does
// not justify (the bit words must be present before the filter is allocated).
// Also the payload codec on its own (detail/serial.hpp): the input read as a stream of
// u8/u16/u32/u64/f64 fields writes back to the same bytes, a short read is kTruncated.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <span>
#include <string>
#include <vector>

#include "cuckoo/bloom_filter.hpp"
#include "op_decoder.hpp"

namespace {

using cuckoo::BloomFilter;

constexpr std::string_view kTarget = "deserialize_bloom";

void check_valid(BloomFilter& f, std::span<const std::uint8_t> bytes, const std::string& label) {
  const auto fail = [&](const std::string& what) {
    cuckoo::fuzz::report_failure(kTarget, what + " (" + label + ")", bytes);
  };
  const std::vector<std::uint8_t> again = f.serialize();
  if (!std::equal(again.begin(), again.end(), bytes.begin(), bytes.end())) {
    fail("serialize(deserialize(x)) == x byte for byte");
  }
  if (!(BloomFilter::deserialize(again) == f)) fail("deserialize(serialize(f)) == f");
  if (f.bit_count() == 0 || f.bit_count() % 64 != 0 || f.hash_count() < 1 ||
      f.hash_count() > BloomFilter::kMaxHashes || f.memory_bytes() * 8 != f.bit_count()) {
    fail("m a nonzero multiple of 64, k in [1, kMaxHashes]");
  }
  const double n = static_cast<double>(f.size());
  const double m = static_cast<double>(f.bit_count());
  if (f.fill_ratio() * m > n * f.hash_count() + 0.5) fail("at most n * k bits set");
  const std::uint64_t key = bytes.size() * 0x9e3779b97f4a7c15ULL;
  const std::uint64_t size_before = f.size();
  if (f.insert(key) != cuckoo::InsertResult::kInserted || !f.contains(key) || f.size() != size_before + 1) {
    fail("an inserted key is found and counted");
  }
}

void check(std::span<const std::uint8_t> bytes, const std::string& label) {
  try {
    BloomFilter f = BloomFilter::deserialize(bytes);
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

// The payload codec on its own: every field type written by ByteWriter reads back
// equal through ByteReader (doubles bit for bit), and reading past the end is kTruncated.
void check_codec(std::span<const std::uint8_t> input) {
  cuckoo::detail::ByteReader in(input);
  cuckoo::detail::ByteWriter w;
  std::vector<std::uint64_t> fields;
  std::vector<double> doubles;
  try {
    while (in.remaining() > 0) {
      switch (in.u8("selector") % 5) {
        case 0: fields.push_back(in.u8("u8")); w.u8(static_cast<std::uint8_t>(fields.back())); break;
        case 1: fields.push_back(in.u16("u16")); w.u16(static_cast<std::uint16_t>(fields.back())); break;
        case 2: fields.push_back(in.u32("u32")); w.u32(static_cast<std::uint32_t>(fields.back())); break;
        case 3: fields.push_back(in.u64("u64")); w.u64(fields.back()); break;
        default: doubles.push_back(in.f64("f64")); w.f64(doubles.back()); break;
      }
    }
  } catch (const cuckoo::DeserializeError& e) {
    if (e.code() != cuckoo::DeserializeErrc::kTruncated) {
      cuckoo::fuzz::report_failure(kTarget, "a short read is kTruncated", input);
    }
  }
  cuckoo::detail::ByteReader back(std::span<const std::uint8_t>(w.bytes()));
  cuckoo::detail::ByteWriter again;
  while (back.remaining() >= 8) again.f64(back.f64("f64"));
  if (again.bytes().size() + back.remaining() != w.bytes().size()) {
    cuckoo::fuzz::report_failure(kTarget, "f64 reads and writes 8 bytes", input);
  }
  for (std::size_t i = 0; i < again.bytes().size(); ++i) {
    if (again.bytes()[i] != w.bytes()[i]) cuckoo::fuzz::report_failure(kTarget, "f64 round-trips bit for bit", input);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  check_codec(std::span<const std::uint8_t>(data, size));
  cuckoo::fuzz::for_each_variant(std::span<const std::uint8_t>(data, size),
                                 cuckoo::detail::StructureKind::kBloomFilter,
                                 BloomFilter::kFormatVersion,
                                 [](std::span<const std::uint8_t> bytes, const char* label) {
                                   check(bytes, label);
                                 });
  return 0;
}
