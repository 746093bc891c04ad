// Bit-packed bucket storage for the cuckoo filter (internal).
//
// Layout. The table is one byte array holding bucket_count * slots * bits bits, slot s
// of bucket i at bit offset (i * slots + s) * bits. Bits are numbered little-endian: bit
// k of the array is bit (k & 7) of byte (k >> 3), so the serialized bytes mean the same
// on every host. Buckets are contiguous in bits, never padded to bytes or words: a
// 12-bit, 4-slot bucket costs exactly 48 bits. A slot value of 0 marks an empty slot;
// the filter never stores fingerprint 0.
//
// Padding. kPaddingBytes zero bytes follow the data bytes, so that an 8-byte load at
// the byte offset of any bit in the table, plus the ninth byte a field that straddles
// the load may need, stays inside the allocation. Padding and the unused high bits of
// the last data byte are always zero; padding_is_zero() checks the latter for
// deserialization.
//
// Allocation. The bytes live in an AlignedBuffer (aligned_buffer.hpp): cache-line
// aligned, and 2 MiB aligned with MADV_HUGEPAGE when huge pages are requested and the
// table is at least 2 MiB. The request changes neither the bytes nor equality.
//
// Word access. read_bits/write_bits load and store 8 bytes with memcpy (never a
// type-punned pointer cast) in little-endian order, and touch the ninth byte only when
// (bit_offset & 7) + nbits > 64.
//
// SWAR match. find(i, fp) tests all slots of bucket i at once, chunk by chunk: a chunk is
// chunk_slots = min(slots, floor(64 / bits)) consecutive slots read as one word w. With lo
// holding a 1 at the low bit of every field of the chunk and hi a 1 at the high bit,
//     v = w ^ (fp * lo)                 (fields equal to fp become zero)
//     z = (v - lo) & ~v & hi            (nonzero iff some field of v is zero)
// z is exact as a boolean, and its lowest set bit lies in the lowest zero field (borrows
// only create false bits above a true zero field), so countr_zero(z) / bits is the first
// matching slot. Masks for the full chunk and the last, partial chunk are computed once
// at construction. find(i, 0) finds an empty slot the same way. find_reference() is the
// plain per-slot loop the SWAR path is tested against.
//
// Exact SWAR count. scan(i, fp) needs how many fields equal fp, and the borrows above
// make z inexact beyond its lowest set bit. With low = hi - lo (the low bits-1 bits of
// every field), e(v) = ~(((v & low) + low) | v | low) & hi has a 1 at the high bit of
// exactly the zero fields of v: (v & low) + low cannot carry out of a field (it is at
// most 2^bits - 2) and sets the field's high bit iff its low bits are not all zero. So
// popcount(e(w ^ fp * lo)) counts the copies of fp and e(w) marks the empty slots, from
// one read of each chunk.
//
// Semi-sorted layout. With BucketLayout::kSemiSorted (b = 4, f >= 5) a bucket is 4f - 4
// bits in the code of semi_sorted.hpp: the slots sorted by their low 4 bits, those 4
// nibbles stored as one 12-bit code, then the 4 high parts. Every member keeps its
// contract with slots numbered in that sorted order: get(i, s) is the s-th fingerprint
// of the sorted bucket, set() re-sorts (so a slot number is valid only until the bucket
// is next written), find()/scan() return sorted slot numbers. Writes decode the bucket,
// change it and re-encode it. contains() for f <= 16 (the bucket and its offset within
// a byte fit one load: 4f - 4 <= 60 bits at a multiple of 4) is one load, a lookup in a
// 64 KiB table (code, nibble) -> the 4-bit mask of slots holding that nibble, spread to
// the high parts' lanes by a 16-entry table, and an exact SWAR match of the high parts
// (zero_fields); wider f decode the bucket. count_nonzero() and the invariant checks decode.
//
// Not thread-safe; const members may run concurrently with each other.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <memory>

#include "aligned_buffer.hpp"
#include "semi_sorted.hpp"

namespace cuckoo::detail {

// How a bucket's slots are stored: unsorted f-bit fields, or the semi-sorted code
// (b = 4 and f >= 5 only; see the top of this file).
enum class BucketLayout : std::uint8_t { kUnsorted = 0, kSemiSorted = 1 };

template <class Alloc = std::allocator<std::uint8_t>>
class BasicPackedTable {
 public:
  static constexpr unsigned kMinBits = 4;
  static constexpr unsigned kMaxBits = 32;
  static constexpr unsigned kMaxSlots = 8;
  // Zero bytes after the data so that every 9-byte window starting inside the data is
  // in bounds.
  static constexpr std::size_t kPaddingBytes = 16;
  // find() returns this when no slot matches.
  static constexpr int kNoSlot = -1;

  // Whether `layout` can hold buckets of `slots` slots of `bits` bits.
  static constexpr bool layout_fits(BucketLayout layout, unsigned slots, unsigned bits) noexcept {
    return layout == BucketLayout::kUnsorted ||
           (slots == semi_sorted::kSlots && bits > semi_sorted::kNibbleBits);
  }

  // Bits of one bucket: slots * bits, or 4 * bits - 4 semi-sorted.
  static constexpr unsigned bucket_bits_for(unsigned slots, unsigned bits,
                                            BucketLayout layout = BucketLayout::kUnsorted) noexcept {
    return layout == BucketLayout::kSemiSorted
               ? semi_sorted::kCodeBits + semi_sorted::kSlots * (bits - semi_sorted::kNibbleBits)
               : slots * bits;
  }

  // Bytes needed for the data bits of a table (without padding). Cannot overflow for
  // bucket_count < 2^32, slots <= kMaxSlots and bits <= kMaxBits (at most 2^37 bytes).
  static constexpr std::uint64_t data_bytes_for(std::uint64_t bucket_count, unsigned slots,
                                                unsigned bits,
                                                BucketLayout layout = BucketLayout::kUnsorted) noexcept {
    return (bucket_count * bucket_bits_for(slots, bits, layout) + 7) / 8;
  }

  BasicPackedTable() = default;

  // REQUIRES: bucket_count >= 1, slots in 1..kMaxSlots, bits in kMinBits..kMaxBits,
  // layout_fits(layout, slots, bits), and the caller has checked that the allocation size
  // is acceptable. huge_pages: see "Allocation" above.
  BasicPackedTable(std::uint32_t bucket_count, unsigned slots, unsigned bits,
                   bool huge_pages = false, const Alloc& alloc = Alloc(),
                   BucketLayout layout = BucketLayout::kUnsorted)
      // Built in place: assigning a buffer made with alloc to the default-constructed one
      // would keep the default allocator when the allocator does not propagate.
      : bytes_(static_cast<std::size_t>(data_bytes_for(bucket_count, slots, bits, layout)) +
                   kPaddingBytes,
               huge_pages, alloc),
        bucket_count_(bucket_count),
        slots_(slots),
        bits_(bits),
        bucket_bits_(bucket_bits_for(slots, bits, layout)),
        semi_(layout == BucketLayout::kSemiSorted) {
    assert(bucket_count >= 1);
    assert(slots >= 1 && slots <= kMaxSlots);
    assert(bits >= kMinBits && bits <= kMaxBits);
    assert(layout_fits(layout, slots, bits));
    data_bytes_ = static_cast<std::size_t>(data_bytes_for(bucket_count, slots, bits, layout));

    const unsigned per_word = 64 / bits;
    chunk_slots_ = slots < per_word ? slots : per_word;
    chunk_count_ = (slots + chunk_slots_ - 1) / chunk_slots_;
    full_ = make_chunk(chunk_slots_, bits);
    // A semi-sorted table is never probed by contains_one_word(): its fields are not
    // f-bit slots.
    one_word_ = !semi_ && is_one_word_shape(bits, slots);
    const unsigned rest = slots % chunk_slots_;
    last_ = rest == 0 ? full_ : make_chunk(rest, bits);
    if (semi_) {
      high_bits_ = bits - semi_sorted::kNibbleBits;
      semi_one_word_ = bucket_bits_ <= 60;  // f <= 16: offset 0 or 4 within a byte
      semi_high_ = make_chunk(semi_sorted::kSlots, high_bits_ > 16 ? 16 : high_bits_);
      if (semi_one_word_) semi_spread_ = semi_sorted::make_high_spread(high_bits_);
    }
  }

  std::uint32_t bucket_count() const noexcept { return bucket_count_; }
  unsigned slots() const noexcept { return slots_; }
  unsigned bits() const noexcept { return bits_; }
  BucketLayout layout() const noexcept {
    return semi_ ? BucketLayout::kSemiSorted : BucketLayout::kUnsorted;
  }
  bool semi_sorted() const noexcept { return semi_; }
  unsigned bucket_bits() const noexcept { return bucket_bits_; }
  // Data bytes (what is serialized) and the whole allocation (data plus padding).
  std::size_t data_bytes() const noexcept { return data_bytes_; }
  std::size_t allocated_bytes() const noexcept { return bytes_.size(); }
  Alloc allocator() const noexcept { return bytes_.allocator(); }
  bool huge_pages() const noexcept { return bytes_.huge_pages(); }

  // The value of slot `slot` of bucket `bucket`; 0 means empty.
  // REQUIRES: bucket < bucket_count(), slot < slots().
  std::uint32_t get(std::uint32_t bucket, unsigned slot) const noexcept {
    assert(bucket < bucket_count_ && slot < slots_);
    if (semi_) [[unlikely]] return semi_decode(bucket)[slot];
    return static_cast<std::uint32_t>(read_bits(slot_offset(bucket, slot), bits_));
  }

  // REQUIRES: bucket < bucket_count(), slot < slots(), value < 2^bits().
  void set(std::uint32_t bucket, unsigned slot, std::uint32_t value) noexcept {
    assert(bucket < bucket_count_ && slot < slots_);
    assert(bits_ == 32 || value < (std::uint32_t{1} << bits_));
    if (semi_) [[unlikely]] {
      Decoded v = semi_decode(bucket);
      v[slot] = value;
      semi_encode(bucket, v);
      return;
    }
    write_bits(slot_offset(bucket, slot), bits_, value);
  }

  // The first slot of `bucket` holding `fp` (fp = 0: the first empty slot), or kNoSlot.
  // SWAR path, see the comment at the top of this file.
  // REQUIRES: bucket < bucket_count(), fp < 2^bits().
  int find(std::uint32_t bucket, std::uint32_t fp) const noexcept {
    assert(bucket < bucket_count_);
    if (semi_) [[unlikely]] {
      const Decoded v = semi_decode(bucket);
      for (unsigned s = 0; s < semi_sorted::kSlots; ++s) {
        if (v[s] == fp) return static_cast<int>(s);
      }
      return kNoSlot;
    }
    const std::uint64_t base = std::uint64_t{bucket} * bucket_bits_;
    // Bound: chunk_count_ <= slots_ <= kMaxSlots.
    for (unsigned c = 0; c < chunk_count_; ++c) {
      const Chunk& chunk = c + 1 == chunk_count_ ? last_ : full_;
      const std::uint64_t w = read_bits(base + std::uint64_t{c} * full_.bits, chunk.bits);
      const std::uint64_t v = w ^ (fp * chunk.lo);
      const std::uint64_t z = (v - chunk.lo) & ~v & chunk.hi;
      if (z != 0) {
        return static_cast<int>(c * chunk_slots_ +
                                static_cast<unsigned>(std::countr_zero(z)) / bits_);
      }
    }
    return kNoSlot;
  }

  // Whether a bucket of this shape is read by one 8-byte load: its bits, plus the
  // offset of its first bit within its first byte, fit 64. True when bits * slots <= 57
  // (f <= 14 at b = 4, f <= 28 at b = 2, f <= 7 at b = 8, any f at b = 1), and when a
  // bucket is at most 8 whole bytes (its offset within a byte is always 0: f = 16 at
  // b = 4, f = 32 at b = 2).
  static constexpr bool is_one_word_shape(unsigned bits, unsigned slots) noexcept {
    const unsigned bucket_bits = bits * slots;
    return bucket_bits <= 57 || (bucket_bits <= 64 && bucket_bits % 8 == 0);
  }
  bool one_word() const noexcept { return one_word_; }

  // contains(bucket, fp) for a one-word shape: one load at the bucket's first byte,
  // shifted to its first bit, and the SWAR test of the top of this file with the masks of
  // all slots. The word's bits above the bucket (the next bucket, or padding) need no
  // masking: borrows of v - lo only run upward, out of the bucket, and hi keeps only the
  // bucket's high bits. REQUIRES: one_word(), bucket < bucket_count(), fp < 2^bits().
  [[gnu::always_inline]] bool contains_one_word(std::uint32_t bucket,
                                                std::uint32_t fp) const noexcept {
    assert(one_word_ && bucket < bucket_count_);
    const OneWordProbe probe = one_word_probe();
    return probe.holds(probe.first_bit(bucket), fp);
  }

  // contains_one_word() taken apart, for a loop that probes many buckets (the filter's
  // contains_many): the table's data pointer, bucket width and masks copied once, so the
  // loop keeps them in registers, and a bucket's first bit computed once for its
  // prefetch and its probe. Valid while the table is neither written nor moved.
  struct OneWordProbe {
    const std::uint8_t* data;
    std::uint64_t bucket_bits;
    std::uint64_t lo;
    std::uint64_t hi;

    [[gnu::always_inline]] std::uint64_t first_bit(std::uint32_t bucket) const noexcept {
      return std::uint64_t{bucket} * bucket_bits;
    }
    // Hints the cache to load the bucket whose first bit is `bit` (see prefetch()).
    [[gnu::always_inline]] void prefetch(std::uint64_t bit) const noexcept {
      prefetch_bucket_at(data, bit, bucket_bits);
    }
    // Whether the bucket whose first bit is `bit` holds fp.
    [[gnu::always_inline]] bool holds(std::uint64_t bit, std::uint32_t fp) const noexcept {
      const std::uint64_t w = load_le64(data + (bit >> 3)) >> (bit & 7);
      const std::uint64_t v = w ^ (fp * lo);
      return ((v - lo) & ~v & hi) != 0;
    }
  };
  // REQUIRES: one_word().
  [[gnu::always_inline]] OneWordProbe one_word_probe() const noexcept {
    assert(one_word_);
    return {bytes_.data(), bucket_bits_, full_.lo, full_.hi};
  }

  // Hints the cache to load bucket `bucket` (its first and last byte, as a bucket may
  // straddle two cache lines). No effect on the contents. REQUIRES: bucket < bucket_count().
  void prefetch(std::uint32_t bucket) const noexcept {
    assert(bucket < bucket_count_);
    prefetch_bucket_at(bytes_.data(), std::uint64_t{bucket} * bucket_bits_, bucket_bits_);
  }

  bool contains(std::uint32_t bucket, std::uint32_t fp) const noexcept {
    if (semi_) return semi_contains(bucket, fp);
    return find(bucket, fp) != kNoSlot;
  }

  // contains(bucket, fp) for a semi-sorted table; see "Semi-sorted layout" above.
  // REQUIRES: semi_sorted(), bucket < bucket_count(), fp < 2^bits().
  bool semi_contains(std::uint32_t bucket, std::uint32_t fp) const noexcept {
    assert(semi_ && bucket < bucket_count_);
    if (!semi_one_word_) [[unlikely]] return find(bucket, fp) != kNoSlot;  // decodes
    return semi_match(semi_word(bucket), fp);
  }

  // Whether bucket a or bucket b holds fp, both words loaded before either is tested (so
  // their cache misses overlap). REQUIRES: semi_one_word(), a and b < bucket_count(),
  // fp < 2^bits().
  [[gnu::always_inline]] bool semi_contains_either(std::uint32_t a, std::uint32_t b,
                                                   std::uint32_t fp) const noexcept {
    assert(semi_one_word_ && a < bucket_count_ && b < bucket_count_);
    const std::uint64_t wa = semi_word(a);
    const std::uint64_t wb = semi_word(b);
    return (static_cast<unsigned>(semi_match(wa, fp)) | static_cast<unsigned>(semi_match(wb, fp))) != 0;
  }
  // Semi-sorted with f <= 16: a bucket and its offset within a byte fit one load.
  bool semi_one_word() const noexcept { return semi_one_word_; }

 private:
  // The word at semi-sorted bucket `bucket`'s first bit (its bits, then the next
  // bucket's or padding). REQUIRES: semi_one_word_.
  [[gnu::always_inline]] std::uint64_t semi_word(std::uint32_t bucket) const noexcept {
    const std::uint64_t bit = std::uint64_t{bucket} * bucket_bits_;
    return load_le64(bytes_.data() + (bit >> 3)) >> (bit & 7);
  }

  // Whether the semi-sorted bucket whose word is w holds fp. REQUIRES: semi_one_word_.
  [[gnu::always_inline]] bool semi_match(std::uint64_t w, std::uint32_t fp) const noexcept {
    return semi_sorted::word_holds(w, fp, semi_high_.lo, semi_high_.hi, semi_spread_);
  }

 public:

  // Whether bucket i is in the canonical semi-sorted form (semi_sorted.hpp): a valid
  // code and slots in sort order. Always true for an unsorted table.
  bool bucket_is_canonical(std::uint32_t bucket) const noexcept {
    if (!semi_) return true;
    if (read_bits(std::uint64_t{bucket} * bucket_bits_, semi_sorted::kCodeBits) >= semi_sorted::kCodes) {
      return false;
    }
    const Decoded v = semi_decode(bucket);
    for (unsigned s = 1; s < semi_sorted::kSlots; ++s) {
      if (semi_sorted::sort_key(v[s - 1]) > semi_sorted::sort_key(v[s])) return false;
    }
    return true;
  }

  // What insert needs to know of one bucket, from a single read of it.
  struct Scan {
    unsigned copies = 0;      // slots holding the fingerprint
    int free_slot = kNoSlot;  // the first empty slot, or kNoSlot
  };
  // REQUIRES: bucket < bucket_count(), 0 < fp < 2^bits(). Exact SWAR, see the top of
  // this file; equals {count(bucket, fp), find(bucket, 0)}.
  Scan scan(std::uint32_t bucket, std::uint32_t fp) const noexcept {
    assert(bucket < bucket_count_ && fp != 0);
    Scan result;
    if (semi_) [[unlikely]] {
      const Decoded v = semi_decode(bucket);
      for (unsigned s = 0; s < semi_sorted::kSlots; ++s) {
        result.copies += v[s] == fp ? 1U : 0U;
        if (v[s] == 0 && result.free_slot == kNoSlot) result.free_slot = static_cast<int>(s);
      }
      return result;
    }
    const std::uint64_t base = std::uint64_t{bucket} * bucket_bits_;
    // Bound: chunk_count_ <= slots_ <= kMaxSlots.
    for (unsigned c = 0; c < chunk_count_; ++c) {
      const Chunk& chunk = c + 1 == chunk_count_ ? last_ : full_;
      const std::uint64_t w = read_bits(base + std::uint64_t{c} * full_.bits, chunk.bits);
      result.copies += static_cast<unsigned>(std::popcount(zero_fields(w ^ (fp * chunk.lo), chunk)));
      const std::uint64_t empty = zero_fields(w, chunk);
      if (result.free_slot == kNoSlot && empty != 0) {
        result.free_slot = static_cast<int>(c * chunk_slots_ +
                                            static_cast<unsigned>(std::countr_zero(empty)) / bits_);
      }
    }
    return result;
  }

  // Same contract as find(), one slot at a time; the reference the SWAR path is tested
  // against.
  int find_reference(std::uint32_t bucket, std::uint32_t fp) const noexcept {
    for (unsigned s = 0; s < slots_; ++s) {
      if (get(bucket, s) == fp) return static_cast<int>(s);
    }
    return kNoSlot;
  }

  // How many slots of `bucket` hold `fp`.
  unsigned count(std::uint32_t bucket, std::uint32_t fp) const noexcept {
    unsigned n = 0;
    if (semi_) [[unlikely]] {
      for (const std::uint32_t v : semi_decode(bucket)) n += v == fp ? 1U : 0U;
      return n;
    }
    for (unsigned s = 0; s < slots_; ++s) n += get(bucket, s) == fp ? 1U : 0U;
    return n;
  }

  // Stores `fp` in the first empty slot of `bucket`; false (nothing changed) if the
  // bucket is full. REQUIRES: fp != 0.
  bool try_place(std::uint32_t bucket, std::uint32_t fp) noexcept {
    assert(fp != 0);
    if (semi_) [[unlikely]] {  // one decode: an empty slot sorts first
      Decoded v = semi_decode(bucket);
      if (v[0] != 0) return false;
      v[0] = fp;
      semi_encode(bucket, v);
      return true;
    }
    const int slot = find(bucket, 0);
    if (slot == kNoSlot) return false;
    set(bucket, static_cast<unsigned>(slot), fp);
    return true;
  }

  // Empties the first slot of `bucket` holding `fp`; false if none does.
  // REQUIRES: fp != 0.
  bool remove_one(std::uint32_t bucket, std::uint32_t fp) noexcept {
    assert(fp != 0);
    if (semi_) [[unlikely]] {  // one decode
      Decoded v = semi_decode(bucket);
      for (unsigned s = 0; s < semi_sorted::kSlots; ++s) {
        if (v[s] == fp) {
          v[s] = 0;
          semi_encode(bucket, v);
          return true;
        }
      }
      return false;
    }
    const int slot = find(bucket, fp);
    if (slot == kNoSlot) return false;
    set(bucket, static_cast<unsigned>(slot), 0);
    return true;
  }

  // out[s] = get(bucket, s) for every slot s < slots(), with one decode of a semi-sorted
  // bucket. REQUIRES: bucket < bucket_count().
  void read_slots(std::uint32_t bucket, std::span<std::uint32_t, kMaxSlots> out) const noexcept {
    if (semi_) [[unlikely]] {
      const Decoded v = semi_decode(bucket);
      std::copy(v.begin(), v.end(), out.begin());
      return;
    }
    for (unsigned s = 0; s < slots_; ++s) out[s] = get(bucket, s);
  }

  // The number of nonzero slots in the whole table (a full scan; for validation).
  std::uint64_t count_nonzero() const noexcept {
    std::uint64_t n = 0;
    for (std::uint32_t i = 0; i < bucket_count_; ++i) n += slots_ - count(i, 0);
    return n;
  }

  // The data bytes, without padding: what serialization writes and reads.
  std::span<const std::uint8_t> data() const noexcept { return {bytes_.data(), data_bytes_}; }
  std::span<std::uint8_t> mutable_data() noexcept { return {bytes_.data(), data_bytes_}; }

  // True if the bits of the last data byte beyond the last bucket are zero.
  bool padding_is_zero() const noexcept {
    const std::uint64_t used_bits = std::uint64_t{bucket_count_} * bucket_bits_;
    const unsigned tail = static_cast<unsigned>(used_bits & 7);
    if (tail == 0 || data_bytes_ == 0) return true;
    return (bytes_.data()[data_bytes_ - 1] >> tail) == 0;
  }

  void clear() noexcept { bytes_.fill_zero(); }

  // nbits bits starting at bit_offset, as the low bits of the result.
  // REQUIRES: 1 <= nbits <= 64, bit_offset + nbits <= bucket_count * slots * bits.
  std::uint64_t read_bits(std::uint64_t bit_offset, unsigned nbits) const noexcept {
    assert(nbits >= 1 && nbits <= 64);
    const std::size_t byte = static_cast<std::size_t>(bit_offset >> 3);
    const unsigned shift = static_cast<unsigned>(bit_offset & 7);
    assert(byte + 9 <= bytes_.size());
    std::uint64_t w = load_le64(bytes_.data() + byte) >> shift;
    if (shift + nbits > 64) w |= std::uint64_t{bytes_.data()[byte + 8]} << (64 - shift);
    return nbits == 64 ? w : w & ((std::uint64_t{1} << nbits) - 1);
  }

  // Overwrites nbits bits at bit_offset with the low nbits bits of value.
  // REQUIRES: as read_bits.
  void write_bits(std::uint64_t bit_offset, unsigned nbits, std::uint64_t value) noexcept {
    assert(nbits >= 1 && nbits <= 64);
    const std::size_t byte = static_cast<std::size_t>(bit_offset >> 3);
    const unsigned shift = static_cast<unsigned>(bit_offset & 7);
    assert(byte + 9 <= bytes_.size());
    const std::uint64_t mask = nbits == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << nbits) - 1;
    value &= mask;
    std::uint8_t* p = bytes_.data() + byte;
    const std::uint64_t w = load_le64(p);
    store_le64(p, (w & ~(mask << shift)) | (value << shift));
    if (shift + nbits > 64) {
      const unsigned high_bits = shift + nbits - 64;  // 1..7 bits in the ninth byte
      const auto keep = static_cast<std::uint8_t>(0xffU << high_bits);
      p[8] = static_cast<std::uint8_t>((p[8] & keep) | (value >> (64 - shift)));
    }
  }

  friend bool operator==(const BasicPackedTable& a, const BasicPackedTable& b) noexcept {
    return a.bucket_count_ == b.bucket_count_ && a.slots_ == b.slots_ && a.bits_ == b.bits_ &&
           a.semi_ == b.semi_ && a.bytes_.size() == b.bytes_.size() &&
           (a.bytes_.size() == 0 ||
            std::memcmp(a.bytes_.data(), b.bytes_.data(), a.bytes_.size()) == 0);
  }

 private:
  using Decoded = std::array<std::uint32_t, semi_sorted::kSlots>;

  // The 4 fingerprints of a semi-sorted bucket, in slot (sort) order.
  Decoded semi_decode(std::uint32_t bucket) const noexcept {
    const std::uint64_t base = std::uint64_t{bucket} * bucket_bits_;
    if (semi_one_word_) {  // the whole bucket in one read
      const std::uint64_t w = read_bits(base, bucket_bits_);
      const std::uint32_t quad = semi_sorted::kDecode.quads[w & 0xfff];
      const std::uint64_t high_mask = (std::uint64_t{1} << high_bits_) - 1;
      Decoded v{};
      for (unsigned s = 0; s < semi_sorted::kSlots; ++s) {
        const auto high = static_cast<std::uint32_t>(
            (w >> (semi_sorted::kCodeBits + s * high_bits_)) & high_mask);
        v[s] = high << semi_sorted::kNibbleBits | (quad >> (4 * s) & 15U);
      }
      return v;
    }
    const std::uint32_t quad =
        semi_sorted::kDecode.quads[read_bits(base, semi_sorted::kCodeBits)];
    Decoded v{};
    for (unsigned s = 0; s < semi_sorted::kSlots; ++s) {
      const auto high = static_cast<std::uint32_t>(
          read_bits(base + semi_sorted::kCodeBits + std::uint64_t{s} * high_bits_, high_bits_));
      v[s] = high << semi_sorted::kNibbleBits | (quad >> (4 * s) & 15U);
    }
    return v;
  }

  // Stores 4 fingerprints (any order) as the canonical semi-sorted bucket.
  void semi_encode(std::uint32_t bucket, Decoded v) noexcept {
    semi_sorted::sort_slots(v);
    const std::uint64_t base = std::uint64_t{bucket} * bucket_bits_;
    const std::uint32_t code = semi_sorted::encode({v[0] & 15U, v[1] & 15U, v[2] & 15U, v[3] & 15U});
    if (semi_one_word_) {  // the whole bucket in one write
      std::uint64_t w = code;
      for (unsigned s = 0; s < semi_sorted::kSlots; ++s) {
        w |= std::uint64_t{v[s] >> semi_sorted::kNibbleBits} << (semi_sorted::kCodeBits + s * high_bits_);
      }
      write_bits(base, bucket_bits_, w);
      return;
    }
    write_bits(base, semi_sorted::kCodeBits, code);
    for (unsigned s = 0; s < semi_sorted::kSlots; ++s) {
      write_bits(base + semi_sorted::kCodeBits + std::uint64_t{s} * high_bits_, high_bits_,
                 v[s] >> semi_sorted::kNibbleBits);
    }
  }

  // Masks of one chunk of `slots` fields of `bits` bits each.
  struct Chunk {
    std::uint64_t lo = 0;  // a 1 at the low bit of every field
    std::uint64_t hi = 0;  // a 1 at the high bit of every field
    unsigned bits = 0;     // slots * bits, at most 64
  };

  // A 1 at the high bit of exactly the fields of v (within chunk) that are zero.
  static std::uint64_t zero_fields(std::uint64_t v, const Chunk& chunk) noexcept {
    const std::uint64_t low = chunk.hi - chunk.lo;
    return ~(((v & low) + low) | v | low) & chunk.hi;
  }

  static constexpr Chunk make_chunk(unsigned slots, unsigned bits) noexcept {
    Chunk c;
    for (unsigned s = 0; s < slots; ++s) {
      c.lo |= std::uint64_t{1} << (s * bits);
      c.hi |= std::uint64_t{1} << (s * bits + bits - 1);
    }
    c.bits = slots * bits;
    return c;
  }

  // Prefetches the first and the last byte of the bucket of `bucket_bits` bits that
  // starts at bit `bit` of data (a bucket may straddle two cache lines).
  [[gnu::always_inline]] static void prefetch_bucket_at(const std::uint8_t* data,
                                                        std::uint64_t bit,
                                                        std::uint64_t bucket_bits) noexcept {
    __builtin_prefetch(data + (bit >> 3));
    __builtin_prefetch(data + ((bit + bucket_bits - 1) >> 3));
  }

  static std::uint64_t load_le64(const std::uint8_t* p) noexcept {
    std::uint64_t w;
    std::memcpy(&w, p, sizeof w);
    if constexpr (std::endian::native == std::endian::big) w = __builtin_bswap64(w);
    return w;
  }

  static void store_le64(std::uint8_t* p, std::uint64_t w) noexcept {
    if constexpr (std::endian::native == std::endian::big) w = __builtin_bswap64(w);
    std::memcpy(p, &w, sizeof w);
  }

  std::uint64_t slot_offset(std::uint32_t bucket, unsigned slot) const noexcept {
    return std::uint64_t{bucket} * bucket_bits_ + std::uint64_t{slot} * bits_;
  }

  BasicAlignedBuffer<Alloc> bytes_;
  std::size_t data_bytes_ = 0;
  std::uint32_t bucket_count_ = 0;
  unsigned slots_ = 0;
  unsigned bits_ = 0;
  unsigned bucket_bits_ = 0;
  unsigned chunk_slots_ = 1;
  unsigned chunk_count_ = 0;
  bool one_word_ = false;  // is_one_word_shape(bits_, slots_): full_ covers the bucket
  bool semi_ = false;      // BucketLayout::kSemiSorted
  bool semi_one_word_ = false;  // semi_ and f <= 16: semi_contains() reads one word
  unsigned high_bits_ = 0;      // semi_: f - 4
  Chunk full_;
  Chunk last_;
  Chunk semi_high_;  // semi_ and f <= 16: the 4 lanes of high parts (f - 4 bits each)
  // semi_one_word_: entry m has a 1 at the high bit of high-part lane s for each bit s of m.
  std::array<std::uint64_t, 16> semi_spread_{};
};

using PackedTable = BasicPackedTable<>;

}  // namespace cuckoo::detail
