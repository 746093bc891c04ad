// Compiled filter shapes (internal): the cuckoo filter's lookup with the fingerprint
// width f and the slots per bucket b as template parameters, for the shapes in common
// use, and the id the runtime front end (BasicCuckooFilter) dispatches on.
//
// Why. CuckooFilter takes f and b at run time, so its generic lookup loads them, the
// masks and the bucket width from the object and shifts each bucket word to its bit
// offset. With f and b constants a lookup needs none of that: the fingerprint mask, the
// SWAR masks and the bucket's byte width are immediates, and every compiled shape has
// buckets of whole bytes (f * b a multiple of 8), so a bucket is one load at
// data + bucket * (f * b / 8), with no shift.
//
// Which. kCompiledShapes: f = 8, 12, 16 with b = 2 and 4 (the defaults and the shapes
// the paper and most users pick), plus f = 8, b = 8 and f = 32, b = 2 (8-byte buckets);
// kCompiledSemiShapes: semi-sorted buckets (b = 4) at f = 8, 12 and 16. Every other
// shape is FilterShapeId::kGeneric and keeps the runtime path
// (PackedTable::contains_one_word, semi_contains_either or the chunked loop).
//
// Why semi-sorted too. The generic semi-sorted lookup is an out-of-line call of about 105
// instructions (the runtime rule and masks, the layout tests, the saved registers), so a
// loop of lookups keeps about half as many keys' cache misses in flight as the compiled
// unsorted one (47 instructions, inlined): at 10M keys it took 1.7-2.3x the time of the
// unsorted lookup, whose own memory traffic is larger. Compiled, its code and masks are
// immediates and it inlines like the unsorted shapes.
//
// Dispatch. filter_shape_id() maps a table's runtime (f, b, layout) to its id once, at
// construction or deserialization; the filter keeps the id and switches on it, once per
// contains_many() batch and once per one-key contains() (a jump table on a byte the
// caller's loop keeps in a register). The layout, placement and answers are the
// generic path's exactly: the same bytes, the same placement rule (FilterHashRule), the
// same SWAR test; a typed test runs one random sequence through every compiled shape and
// the generic path and compares answers and serialized bytes.
#pragma once

#include <array>
#include <bit>
#include <cstdint>
#include <cstring>

#include "cuckoo/detail/filter_hash_rule.hpp"
#include "cuckoo/detail/packed_table.hpp"

namespace cuckoo::detail {

// The shape a filter's lookup is compiled for; kGeneric: none (the runtime path).
enum class FilterShapeId : std::uint8_t {
  kGeneric = 0,
  kF8B2,
  kF8B4,
  kF8B8,
  kF12B2,
  kF12B4,
  kF16B2,
  kF16B4,
  kF32B2,
  kSemiF8B4,
  kSemiF12B4,
  kSemiF16B4,
};

// FilterHashRule::placement(h) for a table of n buckets with f = Bits: the same buckets
// and fingerprint, with the fingerprint mask an immediate. Every compiled shape's.
template <unsigned Bits>
struct CompiledPlacement {
  [[gnu::always_inline]] static CuckooFilterPlacement placement(std::uint64_t h,
                                                                std::uint32_t n) noexcept {
    const std::uint32_t i1 = reduce32(static_cast<std::uint32_t>(h >> 32), n);
    // 0 marks an empty slot, so a fingerprint of 0 becomes 1. Written for what g++ emits:
    // with a mask, the select is and, mov, cmov (`fp += fp == 0` was and, xor, sete,
    // add); without one (f = 32), the increment is cmp, adc.
    auto fp = static_cast<std::uint32_t>(h & FilterHashRule::fingerprint_mask(Bits));
    if constexpr (Bits < 32) {
      fp = fp != 0 ? fp : 1U;
    } else {
      fp += fp == 0 ? 1U : 0U;
    }
    return {i1, FilterHashRule::alt_bucket_in(n, i1, fp), fp};
  }
};

// One compiled shape: f = Bits, b = Slots, unsorted buckets of whole bytes.
template <unsigned Bits, unsigned Slots>
struct CompiledFilterShape : CompiledPlacement<Bits> {
  static constexpr unsigned kBits = Bits;
  static constexpr unsigned kSlots = Slots;
  static constexpr bool kSemiSorted = false;
  static constexpr unsigned kBucketBits = Bits * Slots;
  static constexpr unsigned kBucketBytes = kBucketBits / 8;
  static_assert(kBucketBits % 8 == 0 && kBucketBits <= 64,
                "a compiled bucket is whole bytes, read by one 8-byte load");
  static_assert(Bits >= PackedTable::kMinBits && Bits <= PackedTable::kMaxBits);
  static_assert(PackedTable::is_one_word_shape(Bits, Slots));

  // A 1 at the low (kLo) and the high (kHi) bit of every slot of a bucket.
  static constexpr std::uint64_t kLo = [] {
    std::uint64_t lo = 0;
    for (unsigned s = 0; s < Slots; ++s) lo |= std::uint64_t{1} << (s * Bits);
    return lo;
  }();
  static constexpr std::uint64_t kHi = kLo << (Bits - 1);
  static constexpr std::uint64_t kFingerprintMask = FilterHashRule::fingerprint_mask(Bits);

  // The probe of a table's bytes. A bucket's position is its first byte.
  struct Probe {
    const std::uint8_t* data;

    [[gnu::always_inline]] std::uint64_t position(std::uint32_t bucket) const noexcept {
      return std::uint64_t{bucket} * kBucketBytes;
    }
    [[gnu::always_inline]] void prefetch(std::uint64_t byte) const noexcept {
      __builtin_prefetch(data + byte);
      if constexpr (kBucketBytes > 1) __builtin_prefetch(data + byte + kBucketBytes - 1);
    }
    // The bucket's 8-byte word at `byte` with fp's lanes (fp * lo) xored out: a slot
    // that holds fp is a zero field. The word's bits above the bucket (the next bucket,
    // or padding) are whatever the table holds there; the tests below read only the
    // slots' high bits (kHi), which those bits cannot reach: they only take borrows.
    [[gnu::always_inline]] std::uint64_t xored(std::uint64_t byte,
                                               std::uint64_t fp_lanes) const noexcept {
      std::uint64_t w;
      std::memcpy(&w, data + byte, sizeof w);
      if constexpr (std::endian::native == std::endian::big) w = __builtin_bswap64(w);
      return w ^ fp_lanes;
    }
    // The SWAR test for a zero field (packed_table.hpp): some slot's high bit is set iff
    // some slot of the bucket is 0. lo is kLo (see lo()).
    [[gnu::always_inline]] static std::uint64_t zero_marks(std::uint64_t v,
                                                           std::uint64_t lo) noexcept {
      return (v - lo) & ~v;
    }
    // ~zero_marks(v, lo), computed as ((lo - 1) - v) | v (because ~(v - lo) is
    // lo - 1 - v): lea, sub, or, where zero_marks takes two copies, sub, not and and
    // (x86-64 has no and-not without BMI1). Some slot's high bit is clear iff some slot
    // of the bucket is 0.
    [[gnu::always_inline]] static std::uint64_t zero_marks_complement(std::uint64_t v,
                                                                      std::uint64_t lo) noexcept {
      return ((lo - 1) - v) | v;
    }
    // Whether the bucket at `byte` holds fp.
    [[gnu::always_inline]] bool holds(std::uint64_t byte, std::uint32_t fp) const noexcept {
      const std::uint64_t l = lo();
      return (zero_marks(xored(byte, fp * l), l) & kHi) != 0;
    }
    // Whether either bucket holds fp: both words loaded and tested before one branch.
    // For b > 2 the two complements are anded and some high bit must be clear (2
    // instructions fewer a lookup than oring the marks; bench_instructions, f = 12,
    // b = 4: 58 with the fingerprint's select above, from 61). For b = 2, whose lo g++
    // subtracts as an immediate (lea), the marks are ored: the complement form counted
    // 1 or 2 more there.
    [[gnu::always_inline]] bool holds_either(std::uint64_t byte1, std::uint64_t byte2,
                                             std::uint32_t fp) const noexcept {
      const std::uint64_t l = lo();
      const std::uint64_t lanes = fp * l;
      const std::uint64_t v1 = xored(byte1, lanes);
      const std::uint64_t v2 = xored(byte2, lanes);
      if constexpr (Slots > 2) {
        return (zero_marks_complement(v1, l) & zero_marks_complement(v2, l) & kHi) != kHi;
      } else {
        return ((zero_marks(v1, l) | zero_marks(v2, l)) & kHi) != 0;
      }
    }
    // kLo, through an empty asm: a value the caller's loop loads into one register once,
    // used by both the multiply that spreads fp to every lane (GCC would expand a
    // multiply by a constant of 3 or more set bits into 4 or 5 shifts and adds) and the
    // subtraction (which would otherwise want its own copy of the constant).
    [[gnu::always_inline]] static std::uint64_t lo() noexcept {
      std::uint64_t lo = kLo;
      if constexpr (Slots > 2) asm("" : "+r"(lo));
      return lo;
    }
  };
};

// One compiled semi-sorted shape: f = Bits (8, 12 or 16), b = 4, buckets of 4f - 4 bits in
// the code of semi_sorted.hpp (PackedTable's "Semi-sorted layout"): the 12-bit code of
// the four low nibbles, then the four slots' high parts of f - 4 bits. The test is
// PackedTable::semi_match's (semi_sorted::word_holds) with every mask an immediate: the
// match table gives the slots whose nibble is fp's, a SWAR zero-field test the slots
// whose high part is fp's.
template <unsigned Bits>
struct CompiledSemiShape : CompiledPlacement<Bits> {
  static constexpr unsigned kBits = Bits;
  static constexpr unsigned kSlots = semi_sorted::kSlots;
  static constexpr bool kSemiSorted = true;
  static constexpr unsigned kHighBits = Bits - semi_sorted::kNibbleBits;
  static constexpr unsigned kBucketBits = semi_sorted::kCodeBits + kSlots * kHighBits;
  static_assert(Bits > semi_sorted::kNibbleBits && kBucketBits <= 60,
                "a compiled semi-sorted bucket is read by one 8-byte load at a 4-bit offset");
  static_assert(kBucketBits % 4 == 0, "every bucket starts at bit 0 or 4 of a byte");
  static constexpr std::uint64_t kFingerprintMask = FilterHashRule::fingerprint_mask(Bits);
  // A 1 at the low (kHighLo) and the high (kHighHi) bit of each slot's high part, in the
  // word shifted right past the code.
  static constexpr std::uint64_t kHighLo = [] {
    std::uint64_t lo = 0;
    for (unsigned s = 0; s < kSlots; ++s) lo |= std::uint64_t{1} << (s * kHighBits);
    return lo;
  }();
  static constexpr std::uint64_t kHighHi = kHighLo << (kHighBits - 1);
  static constexpr std::array<std::uint64_t, 16> kSpread = semi_sorted::make_high_spread(kHighBits);

  // The probe of a table's bytes (PackedTable's data, with its zero padding after the
  // last bucket). A bucket's position is its first bit.
  struct Probe {
    const std::uint8_t* data;

    [[gnu::always_inline]] std::uint64_t position(std::uint32_t bucket) const noexcept {
      return std::uint64_t{bucket} * kBucketBits;
    }
    [[gnu::always_inline]] void prefetch(std::uint64_t bit) const noexcept {
      __builtin_prefetch(data + (bit >> 3));
      __builtin_prefetch(data + ((bit + kBucketBits - 1) >> 3));
    }
    // The bucket at `bit` in the low bits of a word (the bits above it: the next
    // bucket's, or padding).
    [[gnu::always_inline]] std::uint64_t word(std::uint64_t bit) const noexcept {
      std::uint64_t w;
      std::memcpy(&w, data + (bit >> 3), sizeof w);
      if constexpr (std::endian::native == std::endian::big) w = __builtin_bswap64(w);
      return w >> (bit & 7);
    }
    // Whether the bucket whose word is w holds fp (semi_sorted::word_holds, the masks
    // immediates).
    [[gnu::always_inline]] static bool matches(std::uint64_t w, std::uint32_t fp) noexcept {
      return semi_sorted::word_holds(w, fp, kHighLo, kHighHi, kSpread);
    }
    [[gnu::always_inline]] bool holds(std::uint64_t bit, std::uint32_t fp) const noexcept {
      return matches(word(bit), fp);
    }
    // Whether either bucket holds fp: both words loaded before either is tested.
    [[gnu::always_inline]] bool holds_either(std::uint64_t bit1, std::uint64_t bit2,
                                             std::uint32_t fp) const noexcept {
      const std::uint64_t w1 = word(bit1);
      const std::uint64_t w2 = word(bit2);
      return (static_cast<unsigned>(matches(w1, fp)) | static_cast<unsigned>(matches(w2, fp))) != 0;
    }
  };
};

// The id of the compiled shape for a table of `bits`-bit fingerprints, `slots` slots a
// bucket and layout `layout`, or kGeneric. Called once per filter (construction,
// deserialization); copies and moves copy the id.
constexpr FilterShapeId filter_shape_id(unsigned bits, unsigned slots,
                                        BucketLayout layout) noexcept {
  if (layout == BucketLayout::kSemiSorted) {
    if (slots != semi_sorted::kSlots) return FilterShapeId::kGeneric;
    switch (bits) {
      case 8: return FilterShapeId::kSemiF8B4;
      case 12: return FilterShapeId::kSemiF12B4;
      case 16: return FilterShapeId::kSemiF16B4;
      default: return FilterShapeId::kGeneric;
    }
  }
  if (layout != BucketLayout::kUnsorted) return FilterShapeId::kGeneric;
  switch (bits * 16 + slots) {  // slots <= 8 < 16: one key per (f, b)
    case 8 * 16 + 2: return FilterShapeId::kF8B2;
    case 8 * 16 + 4: return FilterShapeId::kF8B4;
    case 8 * 16 + 8: return FilterShapeId::kF8B8;
    case 12 * 16 + 2: return FilterShapeId::kF12B2;
    case 12 * 16 + 4: return FilterShapeId::kF12B4;
    case 16 * 16 + 2: return FilterShapeId::kF16B2;
    case 16 * 16 + 4: return FilterShapeId::kF16B4;
    case 32 * 16 + 2: return FilterShapeId::kF32B2;
    default: return FilterShapeId::kGeneric;
  }
}

// Calls visit(CompiledFilterShape<f, b>{}) for the shape `id` names, or
// visit_generic() for kGeneric; returns what it returns. The one switch every dispatch
// goes through, so a shape is added in one place (here and in filter_shape_id).
template <class Visit, class VisitGeneric>
[[gnu::always_inline]] inline decltype(auto) visit_filter_shape(FilterShapeId id, Visit&& visit,
                                                                VisitGeneric&& visit_generic) {
  switch (id) {
    case FilterShapeId::kF8B2: return visit(CompiledFilterShape<8, 2>{});
    case FilterShapeId::kF8B4: return visit(CompiledFilterShape<8, 4>{});
    case FilterShapeId::kF8B8: return visit(CompiledFilterShape<8, 8>{});
    case FilterShapeId::kF12B2: return visit(CompiledFilterShape<12, 2>{});
    case FilterShapeId::kF12B4: return visit(CompiledFilterShape<12, 4>{});
    case FilterShapeId::kF16B2: return visit(CompiledFilterShape<16, 2>{});
    case FilterShapeId::kF16B4: return visit(CompiledFilterShape<16, 4>{});
    case FilterShapeId::kF32B2: return visit(CompiledFilterShape<32, 2>{});
    case FilterShapeId::kSemiF8B4: return visit(CompiledSemiShape<8>{});
    case FilterShapeId::kSemiF12B4: return visit(CompiledSemiShape<12>{});
    case FilterShapeId::kSemiF16B4: return visit(CompiledSemiShape<16>{});
    case FilterShapeId::kGeneric: return visit_generic();
  }
  // filter_shape_id() makes only the ids above: no range check before the jump table.
  __builtin_unreachable();
}

// The batched lookup's view of a table (BasicCuckooFilter::contains_many_pipelined): a
// hash's placement, a bucket's position (what prefetch and holds take; computed once
// per bucket), its prefetch and its probe. CompiledLookup: a compiled shape, positions
// in bytes (bits for the semi-sorted ones); RuntimeOneWordLookup: any one-word shape through PackedTable::OneWordProbe,
// positions in bits. Valid while the table is neither written nor moved.
template <class Shape>
struct CompiledLookup {
  typename Shape::Probe probe;
  std::uint32_t bucket_count;

  [[gnu::always_inline]] CuckooFilterPlacement placement(std::uint64_t h) const noexcept {
    return Shape::placement(h, bucket_count);
  }
  [[gnu::always_inline]] std::uint64_t position(std::uint32_t bucket) const noexcept {
    return probe.position(bucket);
  }
  [[gnu::always_inline]] void prefetch(std::uint64_t pos) const noexcept { probe.prefetch(pos); }
  [[gnu::always_inline]] bool holds(std::uint64_t pos, std::uint32_t fp) const noexcept {
    return probe.holds(pos, fp);
  }
};

template <class OneWordProbe>
struct RuntimeOneWordLookup {
  OneWordProbe probe;
  FilterHashRule rule;

  [[gnu::always_inline]] CuckooFilterPlacement placement(std::uint64_t h) const noexcept {
    return rule.placement(h);
  }
  [[gnu::always_inline]] std::uint64_t position(std::uint32_t bucket) const noexcept {
    return probe.first_bit(bucket);
  }
  [[gnu::always_inline]] void prefetch(std::uint64_t pos) const noexcept { probe.prefetch(pos); }
  [[gnu::always_inline]] bool holds(std::uint64_t pos, std::uint32_t fp) const noexcept {
    return probe.holds(pos, fp);
  }
};

// Every compiled shape's (f, b), for tests and benchmarks.
struct CompiledShapeParams {
  unsigned bits;
  unsigned slots;
};
inline constexpr std::array<CompiledShapeParams, 8> kCompiledShapes{{
    {8, 2}, {8, 4}, {8, 8}, {12, 2}, {12, 4}, {16, 2}, {16, 4}, {32, 2}}};
// Every compiled semi-sorted shape's (f, b).
inline constexpr std::array<CompiledShapeParams, 3> kCompiledSemiShapes{{{8, 4}, {12, 4}, {16, 4}}};

}  // namespace cuckoo::detail
