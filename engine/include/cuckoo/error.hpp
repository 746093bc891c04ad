// The two typed errors of the public edge.
//
// ConfigError: an invalid configuration, thrown by constructors before anything is
// allocated. field() names the configuration field; what() says the value given and the
// allowed range.
//
// DeserializeError: bytes that are not a valid serialized structure. code() classifies
// the problem; what() names the field or check that failed. Deserialization never reads
// out of bounds, never allocates more than the input bytes justify, and never returns a
// half-built object.
#pragma once

#include "detail/platform.hpp"

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace cuckoo {

class ConfigError : public std::invalid_argument {
 public:
  ConfigError(std::string field, const std::string& message)
      : std::invalid_argument("invalid configuration: " + field + ": " + message),
        field_(std::move(field)) {}

  const std::string& field() const noexcept { return field_; }

 private:
  std::string field_;
};

enum class DeserializeErrc : std::uint8_t {
  kTruncated,           // fewer bytes than the header or a field needs
  kBadMagic,            // not a cuckoo serialization at all
  kWrongKind,           // a serialization of another structure (a map given to a filter)
  kUnsupportedVersion,  // a format version this build does not read
  kChecksumMismatch,    // the bytes were altered after serialization
  kBadConfig,           // the stored configuration is outside the allowed ranges
  kInconsistent,        // fields contradict each other (sizes, counts, reserved bits)
  kTrailingBytes,       // bytes after the end of the structure
};

constexpr std::string_view to_string(DeserializeErrc c) noexcept {
  switch (c) {
    case DeserializeErrc::kTruncated: return "truncated";
    case DeserializeErrc::kBadMagic: return "bad_magic";
    case DeserializeErrc::kWrongKind: return "wrong_kind";
    case DeserializeErrc::kUnsupportedVersion: return "unsupported_version";
    case DeserializeErrc::kChecksumMismatch: return "checksum_mismatch";
    case DeserializeErrc::kBadConfig: return "bad_config";
    case DeserializeErrc::kInconsistent: return "inconsistent";
    case DeserializeErrc::kTrailingBytes: return "trailing_bytes";
  }
  return "unknown";
}

class DeserializeError : public std::runtime_error {
 public:
  DeserializeError(DeserializeErrc code, const std::string& message)
      : std::runtime_error("cannot deserialize (" + std::string(to_string(code)) +
                           "): " + message),
        code_(code) {}

  DeserializeErrc code() const noexcept { return code_; }

 private:
  DeserializeErrc code_;
};

}  // namespace cuckoo
