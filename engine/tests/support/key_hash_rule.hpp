// Test support for the one-round key hash (hash.hpp, detail::one_round_key_hash) and the
// serialized forms that record it: the rule written out as the format documents it, so
// that a change of the engine's constant or formula (which would move every stored item
// of every serialized filter and map) fails the tests that compare with it; and the
// envelope's payload taken out and sealed again, to rewrite bytes as an older format
// version wrote them.
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
