// Test support for the key hash rules (hash.hpp, KeyHashRule: detail::one_round_key_hash,
// detail::product_key_hash) and the serialized forms that record them: each rule written
// out as the formats document it, so that a change of the engine's constants or formula
// (which would move every stored item of every serialized filter and map) fails the
// tests that compare with it; and the envelope's payload taken out and sealed again, to
// rewrite bytes as an older format version wrote them.
#pragma once

#include <cstdint>
#include <vector>

#include "cuckoo/detail/serial.hpp"

namespace cuckoo::test {

// mix64(key ^ (seed * 0xd6e8feb86659fd93)), Stafford's variant 13 of the MurmurHash3
// finalizer, spelled out.
inline std::uint64_t documented_one_round(std::uint64_t key, std::uint64_t seed) {
  std::uint64_t x = key ^ (seed * 0xd6e8feb86659fd93ULL);
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  x ^= x >> 31;
  return x;
}

// The maps' rule (KeyHashRule::kProduct, detail::product_key_hash) spelled out: x =
// key ^ (seed * 0xd6e8feb86659fd93), then x = hi ^ lo of the 128-bit product
// x * 0x9fb21c651e98df25, then the same with 0xbf58476d1ce4e5b9, the 128-bit products
// built from 32-bit halves (not the engine's __int128).
inline std::uint64_t documented_product(std::uint64_t key, std::uint64_t seed) {
  const auto fold = [](std::uint64_t a, std::uint64_t b) {
    const std::uint64_t a0 = a & 0xffffffffULL, a1 = a >> 32, b0 = b & 0xffffffffULL, b1 = b >> 32;
    const std::uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
    const std::uint64_t carry = ((p00 >> 32) + (p01 & 0xffffffffULL) + (p10 & 0xffffffffULL)) >> 32;
    const std::uint64_t lo = a * b;
    const std::uint64_t hi = p11 + (p01 >> 32) + (p10 >> 32) + carry;
    return lo ^ hi;
  };
  return fold(fold(key ^ (seed * 0xd6e8feb86659fd93ULL), 0x9fb21c651e98df25ULL),
              0xbf58476d1ce4e5b9ULL);
}

// The payload of serialized bytes (between the envelope's header and its checksum).
inline std::vector<std::uint8_t> envelope_payload(const std::vector<std::uint8_t>& bytes) {
  return {bytes.begin() + static_cast<std::ptrdiff_t>(detail::kEnvelopeHeaderSize),
          bytes.end() - static_cast<std::ptrdiff_t>(detail::kEnvelopeTrailerSize)};
}

// payload in a valid envelope of the given kind and version.
inline std::vector<std::uint8_t> sealed_payload(detail::StructureKind kind, std::uint8_t version,
                                                const std::vector<std::uint8_t>& payload) {
  detail::ByteWriter w;
  w.raw(payload.data(), payload.size());
  return detail::seal_envelope(kind, version, w);
}

}  // namespace cuckoo::test
