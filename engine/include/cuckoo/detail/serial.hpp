// The serialization envelope shared by every serializable engine, and bounds-checked
// little-endian readers and writers for the payload inside it.
//
// Layout (all integers little-endian):
//   offset  0  magic          4 bytes "CKOO"
//   offset  4  kind           u8   (StructureKind)
//   offset  5  version        u8   (per kind; each engine documents its payload)
//   offset  6  reserved       u16  must be 0
//   offset  8  payload_size   u64  exactly the number of bytes that follow, less 8
//   offset 16  payload        payload_size bytes
//   then       checksum       u64  XXH3-64 (seed 0) of every byte before it
//
// open_envelope() checks all of that before any payload byte is interpreted, so a
// decoder sees only payloads that were written by serialize() or forged on purpose;
// decoders still validate every field, because a checksum is no defence against
// hostile bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "../error.hpp"
#include "../hash.hpp"

namespace cuckoo::detail {

enum class StructureKind : std::uint8_t {
  kCuckooFilter = 1,
  kBloomFilter = 2,
  kCuckooMap = 3,
  kGrowingCuckooFilter = 4,
};

inline constexpr unsigned char kMagic[4] = {'C', 'K', 'O', 'O'};
inline constexpr std::size_t kEnvelopeHeaderSize = 16;
inline constexpr std::size_t kEnvelopeTrailerSize = 8;

class ByteWriter {
 public:
  void u8(std::uint8_t v) { bytes_.push_back(v); }
  void u16(std::uint16_t v) { put_le(v, 2); }
  void u32(std::uint32_t v) { put_le(v, 4); }
  void u64(std::uint64_t v) { put_le(v, 8); }
  void f64(double v) {
    std::uint64_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    u64(bits);
  }
  void raw(const void* data, std::size_t n) {
    const auto* p = static_cast<const std::uint8_t*>(data);
    bytes_.insert(bytes_.end(), p, p + n);
  }
  std::vector<std::uint8_t>& bytes() noexcept { return bytes_; }
  const std::vector<std::uint8_t>& bytes() const noexcept { return bytes_; }

 private:
  void put_le(std::uint64_t v, int n) {
    for (int i = 0; i < n; ++i) bytes_.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
  }
  std::vector<std::uint8_t> bytes_;
};

// Reads a payload front to back. Every read names the field it is reading, so that a
// short input is reported as "truncated while reading <field>".
class ByteReader {
 public:
  explicit ByteReader(std::span<const std::uint8_t> bytes) noexcept : bytes_(bytes) {}

  std::uint8_t u8(const char* field) { return static_cast<std::uint8_t>(get_le(1, field)); }
  std::uint16_t u16(const char* field) { return static_cast<std::uint16_t>(get_le(2, field)); }
  std::uint32_t u32(const char* field) { return static_cast<std::uint32_t>(get_le(4, field)); }
  std::uint64_t u64(const char* field) { return get_le(8, field); }
  double f64(const char* field) {
    const std::uint64_t bits = u64(field);
    double v;
    std::memcpy(&v, &bits, sizeof v);
    return v;
  }
  std::span<const std::uint8_t> raw(std::size_t n, const char* field) {
    need(n, field);
    auto out = bytes_.subspan(pos_, n);
    pos_ += n;
    return out;
  }

  std::size_t remaining() const noexcept { return bytes_.size() - pos_; }

  // REQUIRES: the whole payload has been read.
  void expect_end(const char* what) const {
    if (remaining() != 0) {
      throw DeserializeError(DeserializeErrc::kTrailingBytes,
                             std::to_string(remaining()) + " unexpected bytes after " + what);
    }
  }

 private:
  void need(std::size_t n, const char* field) const {
    if (n > remaining()) {
      throw DeserializeError(DeserializeErrc::kTruncated,
                             std::string("truncated while reading ") + field + " (needs " +
                                 std::to_string(n) + " bytes, " +
                                 std::to_string(remaining()) + " left)");
    }
  }
  std::uint64_t get_le(int n, const char* field) {
    need(static_cast<std::size_t>(n), field);
    std::uint64_t v = 0;
    for (int i = 0; i < n; ++i) v |= static_cast<std::uint64_t>(bytes_[pos_ + i]) << (8 * i);
    pos_ += static_cast<std::size_t>(n);
    return v;
  }

  std::span<const std::uint8_t> bytes_;
  std::size_t pos_ = 0;
};

// Throws DeserializeError(kBadConfig) naming the field unless ok.
inline void require_config(bool ok, const char* field, const std::string& message) {
  if (!ok) {
    throw DeserializeError(DeserializeErrc::kBadConfig, std::string(field) + ": " + message);
  }
}

// Throws DeserializeError(kInconsistent) naming the check unless ok.
inline void require_consistent(bool ok, const std::string& message) {
  if (!ok) throw DeserializeError(DeserializeErrc::kInconsistent, message);
}

// The key hash byte of the filter formats (hash.hpp, detail::engine_key_hash; the map
// writes KeyHashRule itself, map_serialize.hpp):
// 1 the one-round hash of integer and enum keys under DefaultHasher, 0 seeded_hash for
// every key, the rule of the bytes written before the byte existed (legacy_key_hash()).
inline void write_key_hash_rule(ByteWriter& w, bool legacy_key_hash) {
  w.u8(legacy_key_hash ? 0 : 1);
}
// Reads that byte; true for 0 (the older rule). Throws DeserializeError(kBadConfig)
// naming "key hash" for any value but 0 and 1.
inline bool read_legacy_key_hash(ByteReader& r) {
  const unsigned key_hash = r.u8("key hash");
  require_config(key_hash <= 1, "key hash",
                 "is " + std::to_string(key_hash) +
                     "; allowed 0 (seeded_hash for every key) or 1 (one round for integer keys)");
  return key_hash == 0;
}

inline std::uint64_t envelope_checksum(const std::uint8_t* data, std::size_t n) noexcept {
  return XXH3_64bits(data, n);
}

// Wraps a payload in the envelope.
inline std::vector<std::uint8_t> seal_envelope(StructureKind kind, std::uint8_t version,
                                               const ByteWriter& payload) {
  ByteWriter out;
  out.raw(kMagic, sizeof kMagic);
  out.u8(static_cast<std::uint8_t>(kind));
  out.u8(version);
  out.u16(0);
  out.u64(payload.bytes().size());
  out.raw(payload.bytes().data(), payload.bytes().size());
  out.u64(envelope_checksum(out.bytes().data(), out.bytes().size()));
  return std::move(out.bytes());
}

// Checks the envelope of bytes (magic, kind, version, reserved bits, size, checksum)
// and returns a reader over the payload. Throws DeserializeError naming what is wrong.
// Versions oldest..version are accepted (oldest = 0: only `version`); the version read
// is stored in *got when got is not null.
inline ByteReader open_envelope(std::span<const std::uint8_t> bytes, StructureKind kind,
                                std::uint8_t version, const char* structure_name,
                                std::uint8_t oldest = 0, std::uint8_t* got = nullptr) {
  if (oldest == 0) oldest = version;
  const std::string name(structure_name);
  if (bytes.size() < sizeof kMagic || std::memcmp(bytes.data(), kMagic, sizeof kMagic) != 0) {
    if (bytes.size() < sizeof kMagic) {
      throw DeserializeError(DeserializeErrc::kTruncated,
                             name + ": " + std::to_string(bytes.size()) +
                                 " bytes, shorter than the 4-byte magic");
    }
    throw DeserializeError(DeserializeErrc::kBadMagic, name + ": magic is not \"CKOO\"");
  }
  ByteReader header(bytes.subspan(sizeof kMagic));
  const auto got_kind = header.u8("envelope kind");
  const auto got_version = header.u8("envelope version");
  const auto reserved = header.u16("envelope reserved field");
  const auto payload_size = header.u64("envelope payload size");
  if (got_kind != static_cast<std::uint8_t>(kind)) {
    throw DeserializeError(DeserializeErrc::kWrongKind,
                           name + ": kind byte is " + std::to_string(got_kind) + ", expected " +
                               std::to_string(static_cast<int>(kind)));
  }
  if (got_version < oldest || got_version > version) {
    throw DeserializeError(DeserializeErrc::kUnsupportedVersion,
                           name + ": format version " + std::to_string(got_version) +
                               ", this build reads " +
                               (oldest == version ? "version " + std::to_string(version)
                                                  : "versions " + std::to_string(oldest) +
                                                        " to " + std::to_string(version)));
  }
  if (got != nullptr) *got = got_version;
  if (reserved != 0) {
    throw DeserializeError(DeserializeErrc::kInconsistent,
                           name + ": reserved header field is " + std::to_string(reserved) +
                               ", must be 0");
  }
  const std::size_t available = bytes.size() - kEnvelopeHeaderSize;
  if (payload_size > available || available - payload_size < kEnvelopeTrailerSize) {
    throw DeserializeError(DeserializeErrc::kTruncated,
                           name + ": header announces a payload of " +
                               std::to_string(payload_size) + " bytes plus an 8-byte checksum, " +
                               std::to_string(available) + " bytes follow the header");
  }
  if (available - payload_size > kEnvelopeTrailerSize) {
    throw DeserializeError(DeserializeErrc::kTrailingBytes,
                           name + ": " +
                               std::to_string(available - payload_size - kEnvelopeTrailerSize) +
                               " bytes after the checksum");
  }
  const std::size_t checked = kEnvelopeHeaderSize + payload_size;
  ByteReader trailer(bytes.subspan(checked));
  const std::uint64_t stored = trailer.u64("checksum");
  if (stored != envelope_checksum(bytes.data(), checked)) {
    throw DeserializeError(DeserializeErrc::kChecksumMismatch,
                           name + ": checksum does not match the contents");
  }
  return ByteReader(bytes.subspan(kEnvelopeHeaderSize, payload_size));
}

}  // namespace cuckoo::detail
