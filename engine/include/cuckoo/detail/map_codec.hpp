// CuckooMap internals: how keys and values are written inside the serialization
// envelope. A type is serializable when MapCodec<T> is specialized for it:
//   - integral types: sizeof(T) bytes, little-endian two's complement; bool is one byte
//     that must be 0 or 1;
//   - std::string: u64 length, then that many bytes. The length is checked against the
//     bytes that remain before any memory is allocated for it.
// kMinBytes is the least number of bytes one encoded value takes; the deserializer uses
// it to reject item counts that the remaining bytes cannot hold before reserving memory.
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

#include "serial.hpp"

namespace cuckoo::detail {

template <class T>
struct MapCodec {};  // not serializable

template <class T>
concept MapCodable = requires(ByteWriter& writer, ByteReader& reader, const T& value) {
  { MapCodec<T>::kMinBytes } -> std::convertible_to<std::size_t>;
  MapCodec<T>::write(writer, value);
  { MapCodec<T>::read(reader, "field") } -> std::same_as<T>;
};

template <std::integral T>
struct MapCodec<T> {
  static constexpr std::size_t kMinBytes = sizeof(T);

  static void write(ByteWriter& writer, const T& value) {
    if constexpr (std::is_same_v<T, bool>) {
      writer.u8(value ? 1 : 0);
    } else {
      const auto bits = static_cast<std::make_unsigned_t<T>>(value);
      for (std::size_t i = 0; i < sizeof(T); ++i) {
        writer.u8(static_cast<std::uint8_t>(static_cast<std::uint64_t>(bits) >> (8 * i)));
      }
    }
  }

  static T read(ByteReader& reader, const char* field) {
    if constexpr (std::is_same_v<T, bool>) {
      const std::uint8_t byte = reader.u8(field);
      require_consistent(byte <= 1, std::string(field) + ": a bool must be 0 or 1, got " +
                                        std::to_string(byte));
      return byte == 1;
    } else {
      const auto bytes = reader.raw(sizeof(T), field);
      std::uint64_t bits = 0;
      for (std::size_t i = 0; i < sizeof(T); ++i) {
        bits |= static_cast<std::uint64_t>(bytes[i]) << (8 * i);
      }
      return static_cast<T>(static_cast<std::make_unsigned_t<T>>(bits));
    }
  }
};

template <>
struct MapCodec<std::string> {
  static constexpr std::size_t kMinBytes = 8;

  static void write(ByteWriter& writer, const std::string& value) {
    writer.u64(value.size());
    writer.raw(value.data(), value.size());
  }

  static std::string read(ByteReader& reader, const char* field) {
    const std::uint64_t length = reader.u64(field);
    if (length > reader.remaining()) {
      throw DeserializeError(DeserializeErrc::kTruncated,
                             std::string(field) + ": string length " + std::to_string(length) +
                                 " exceeds the " + std::to_string(reader.remaining()) +
                                 " bytes left");
    }
    const auto bytes = reader.raw(static_cast<std::size_t>(length), field);
    return std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  }
};

}  // namespace cuckoo::detail
