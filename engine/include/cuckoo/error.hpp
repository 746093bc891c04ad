// The two typed errors of the public edge.
//
// ConfigError: an invalid configuration, thrown by constructors before anything is
// allocated. field() names the configuration field; what() says the value given and the
// allowed range.
//
// CapacityError: an exact map's std-shaped insert (insert, emplace, try_emplace,
// insert_or_assign, operator[], rehash) found no room and could not grow: the growth
// limit (max_capacity) is reached, growth failed (memory ran out, or the hasher gives
// too many keys the same buckets). Derives from std::length_error, the standard
// containers' exception for "more than max_size()". The map and the caller's arguments
// are unchanged when it is thrown. size() and max_capacity() are the map's at the time.
//
// DeserializeError: bytes that are not a valid serialized structure. code() classifies
// the problem; what() names the field or check that failed. Deserialization never reads
// out of bounds, never allocates more than the input bytes justify, and never returns a
// half-built object.
#pragma once

#include "detail/platform.hpp"

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace cuckoo {

/// An invalid configuration, thrown by constructors before anything is allocated: field()
/// names the configuration field, what() the value given and the allowed range.
class ConfigError : public std::invalid_argument {
 public:
  /// An error for `field`; what() is "invalid configuration: <field>: <message>".
  ConfigError(std::string field, const std::string& message)
      : std::invalid_argument("invalid configuration: " + field + ": " + message),
        field_(std::move(field)) {}

  /// The name of the configuration field that is invalid (for example
  /// "fingerprint_bits").
  const std::string& field() const noexcept { return field_; }

 private:
  std::string field_;
};

/// Thrown by CuckooMap's standard-shaped inserts (insert, emplace, try_emplace,
/// insert_or_assign, operator[], insert(node), rehash) when the item has no room and the
/// map cannot grow: nothing changed and no argument was consumed.
class CapacityError : public std::length_error {
 public:
  /// `operation` names the refused call; the sizes go into what().
  CapacityError(const std::string& operation, std::size_t size, std::size_t capacity,
                std::size_t max_capacity)
      : std::length_error(operation + ": no room for the item and the map cannot grow (size " +
                          std::to_string(size) + ", capacity " + std::to_string(capacity) +
                          " slots, max_capacity " + std::to_string(max_capacity) +
                          "); nothing changed, the arguments were not consumed"),
        size_(size),
        max_capacity_(max_capacity) {}

  /// The map's size() when the insert was refused.
  std::size_t size() const noexcept { return size_; }
  /// The map's config().max_capacity.
  std::size_t max_capacity() const noexcept { return max_capacity_; }

 private:
  std::size_t size_;
  std::size_t max_capacity_;
};

/// What is wrong with bytes given to a deserialize() (DeserializeError::code()).
enum class DeserializeErrc : std::uint8_t {
  kTruncated,           ///< fewer bytes than the header or a field needs
  kBadMagic,            ///< not a cuckoo serialization at all
  kWrongKind,           ///< a serialization of another structure (a map given to a filter)
  kUnsupportedVersion,  ///< a format version this build does not read
  kChecksumMismatch,    ///< the bytes were altered after serialization
  kBadConfig,           ///< the stored configuration is outside the allowed ranges
  kInconsistent,        ///< fields contradict each other (sizes, counts, reserved bits)
  kTrailingBytes,       ///< bytes after the end of the structure
};

/// The name of the code, as used in messages ("truncated", "bad_magic", ...).
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

/// Bytes that are not a valid serialized structure: code() classifies the problem, what()
/// names the field or check that failed. Deserialization never reads out of bounds, never
/// allocates more than the input justifies and never returns a half-built object.
class DeserializeError : public std::runtime_error {
 public:
  /// An error of kind `code`; what() names the code and gives `message`.
  DeserializeError(DeserializeErrc code, const std::string& message)
      : std::runtime_error("cannot deserialize (" + std::string(to_string(code)) +
                           "): " + message),
        code_(code) {}

  /// What is wrong with the bytes.
  DeserializeErrc code() const noexcept { return code_; }

 private:
  DeserializeErrc code_;
};

}  // namespace cuckoo
