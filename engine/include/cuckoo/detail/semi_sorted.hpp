// The semi-sorted bucket code (internal; Fan, Andersen, Kaminsky, Mitzenmacher, CoNEXT
// 2014, section 5.2), used by PackedTable's BucketLayout::kSemiSorted.
//
// A bucket of 4 fingerprints of f bits is stored in 4f - 4 bits instead of 4f. Each
// fingerprint splits into its low 4 bits (its nibble) and its f - 4 high bits. The
// bucket's order of slots carries no information, so the slots are kept sorted by
// (nibble, high bits); the sorted nibbles are then a multiset of 4 values out of 16, of
// which there are C(16 + 4 - 1, 4) = 3876 < 2^12, and the 4 nibbles (16 bits) are
// stored as their 12-bit rank among those multisets. One bit per slot is saved.
//
// Bucket bits, least significant first:
//     [0, 12)                       code: rank of the sorted nibbles n0 <= n1 <= n2 <= n3
//     [12 + s(f-4), 12 + (s+1)(f-4)) high bits of slot s, s = 0..3
// and slot s holds (high_s << 4) | n_s. An empty slot holds 0 (nibble 0, high 0), which
// sorts first, so an all-zero bucket (code 0) is the empty bucket.
//
// Rank. For sorted a0 <= a1 <= a2 <= a3 in 0..15, c_i = a_i + i is strictly increasing
// in 0..18, and the combinatorial number system ranks it as
//     rank = C(c0, 1) + C(c1, 2) + C(c2, 3) + C(c3, 4),  0 <= rank < C(19, 4) = 3876,
// a bijection onto 0..3875. encode() computes it; kDecode inverts it by table (4096
// entries of 16 bits, the 4 nibbles n0 | n1 << 4 | n2 << 8 | n3 << 12; codes 3876..4095
// are invalid, decode to 0 and never occur in a table that passed validation).
//
// Canonical form. A bucket is canonical when its code is below 3876 and its slots are in
// non-decreasing sort_key order (equal nibbles: high bits ascending). Every write
// re-sorts, so equal contents give equal bytes; deserialization checks the form.
#pragma once

#include <array>
#include <cstdint>

namespace cuckoo::detail::semi_sorted {

inline constexpr unsigned kSlots = 4;
inline constexpr unsigned kCodeBits = 12;
inline constexpr unsigned kNibbleBits = 4;
inline constexpr std::uint32_t kCodes = 3876;  // C(19, 4)

constexpr std::uint32_t binomial(std::uint32_t n, std::uint32_t k) noexcept {
  if (k > n) return 0;
  std::uint64_t r = 1;
  for (std::uint32_t i = 1; i <= k; ++i) r = r * (n - k + i) / i;  // exact at each step
  return static_cast<std::uint32_t>(r);
}

// kRankTerms[i][a] = C(a + i, i + 1): the term of sorted position i holding nibble a.
struct RankTerms {
  std::array<std::array<std::uint16_t, 16>, kSlots> terms{};
};

constexpr RankTerms make_rank_terms() noexcept {
  RankTerms t;
  for (std::uint32_t i = 0; i < kSlots; ++i) {
    for (std::uint32_t a = 0; a < 16; ++a) t.terms[i][a] = static_cast<std::uint16_t>(binomial(a + i, i + 1));
  }
  return t;
}

inline constexpr RankTerms kRankTerms = make_rank_terms();

// The rank of the nibble multiset of `nibbles` (each 0..15). REQUIRES: sorted ascending.
constexpr std::uint32_t encode(const std::array<std::uint32_t, kSlots>& nibbles) noexcept {
  std::uint32_t rank = 0;
  for (std::uint32_t i = 0; i < kSlots; ++i) rank += kRankTerms.terms[i][nibbles[i] & 15U];
  return rank;
}

struct DecodeTable {
  std::array<std::uint16_t, std::size_t{1} << kCodeBits> quads{};
};

constexpr DecodeTable make_decode_table() noexcept {
  DecodeTable t;
  for (std::uint32_t a = 0; a < 16; ++a) {
    for (std::uint32_t b = a; b < 16; ++b) {
      for (std::uint32_t c = b; c < 16; ++c) {
        for (std::uint32_t d = c; d < 16; ++d) {
          t.quads[encode({a, b, c, d})] = static_cast<std::uint16_t>(a | b << 4 | c << 8 | d << 12);
        }
      }
    }
  }
  return t;
}

inline constexpr DecodeTable kDecode = make_decode_table();

// For lookups: entry code * 16 + n has bit s set iff nibble s of code's multiset is n
// (64 KiB; the entries of the invalid codes 3876..4095 are 0, so that any 12-bit code
// indexes inside the table).
struct MatchTable {
  std::array<std::uint8_t, (std::size_t{1} << kCodeBits) * 16> slots{};
};

constexpr MatchTable make_match_table() noexcept {
  MatchTable t;
  for (std::uint32_t code = 0; code < kCodes; ++code) {
    for (std::uint32_t s = 0; s < kSlots; ++s) {
      const std::uint32_t n = kDecode.quads[code] >> (4 * s) & 15U;
      t.slots[code * 16 + n] = static_cast<std::uint8_t>(t.slots[code * 16 + n] | 1U << s);
    }
  }
  return t;
}

inline constexpr MatchTable kMatch = make_match_table();

// The lookup's test of one bucket, shared by PackedTable::semi_match (masks from the
// table) and the compiled semi-sorted shapes (filter_shapes.hpp, masks as constants).
// A bucket read as a word w: the code in bits [0, 12), slot s's high part in the
// high_bits-bit field s above it (the word's bits beyond the four fields are ignored).

// Entry m: a 1 at the top bit of high-part field s for each bit s of m.
constexpr std::array<std::uint64_t, 16> make_high_spread(unsigned high_bits) noexcept {
  std::array<std::uint64_t, 16> spread{};
  for (unsigned m = 0; m < 16; ++m) {
    for (unsigned s = 0; s < kSlots; ++s) {
      if ((m >> s & 1U) != 0) spread[m] |= std::uint64_t{1} << (s * high_bits + high_bits - 1);
    }
  }
  return spread;
}

// Whether the bucket whose word is w holds fp. high_lo / high_hi: a 1 at the low / top bit
// of each of the four high-part fields; spread: make_high_spread(high_bits).
[[gnu::always_inline]] inline bool word_holds(std::uint64_t w, std::uint32_t fp,
                                              std::uint64_t high_lo, std::uint64_t high_hi,
                                              const std::array<std::uint64_t, 16>& spread) noexcept {
  // Slots whose nibbles equal fp's (bit s), from the 64 KiB match table.
  const unsigned slots = kMatch.slots[(w & 0xfff) << 4 | (fp & 15U)];
  // A 1 at the top bit of each field whose high part equals fp's, exact per field:
  // (v & low) + low carries into a field's top bit only, never into the next field.
  const std::uint64_t v = (w >> kCodeBits) ^ ((fp >> 4) * high_lo);
  const std::uint64_t low = high_hi - high_lo;
  const std::uint64_t highs = ~(((v & low) + low) | v | low) & high_hi;
  return (highs & spread[slots]) != 0;
}

// The order slots are kept in: by nibble, then by high bits.
constexpr std::uint32_t sort_key(std::uint32_t fp) noexcept { return (fp & 15U) << 28 | fp >> 4; }

// Orders a and b by sort_key, without a branch (conditional moves).
constexpr void compare_exchange(std::uint32_t& a, std::uint32_t& b) noexcept {
  const bool swap = sort_key(a) > sort_key(b);
  const std::uint32_t low = swap ? b : a;
  const std::uint32_t high = swap ? a : b;
  a = low;
  b = high;
}

// Sorts 4 fingerprints by sort_key: the 5-comparator sorting network for 4 inputs.
constexpr void sort_slots(std::array<std::uint32_t, kSlots>& v) noexcept {
  compare_exchange(v[0], v[1]);
  compare_exchange(v[2], v[3]);
  compare_exchange(v[0], v[2]);
  compare_exchange(v[1], v[3]);
  compare_exchange(v[1], v[2]);
}

}  // namespace cuckoo::detail::semi_sorted
