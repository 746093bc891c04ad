// The lock-free cuckoo filter's table (internal): buckets of one or two K-CAS words
// (sync/kcas.hpp), each bucket's first word carrying a version that every change of the
// bucket bumps, and consistent reads of a bucket without writing. The filter built on
// it is BasicLockFreeFilter (cuckoo/lock_free_filter.hpp), whose header comment gives the
// algorithm and its guarantees.
//
// Layout. A K-CAS word holds a 62-bit value. A bucket of b slots of f bits takes
// 1 + ceil((b - s0) / floor(62 / f)) words, s0 = min(b, floor(48 / f)): word 0 holds the
// version in bits [0, v), v = 62 - s0 * f >= 14, then slot s (s < s0) at bits
// [v + s * f, v + (s + 1) * f); each further word holds floor(62 / f) more slots from
// bit 0. So b = 4 is one word up to f = 12 (f = 12: 48 fingerprint bits and a 14-bit
// version), two words up to f = 24, four at f = 32; b = 8 is one word up to f = 6. A
// bucket may take at most kMaxWords = 4 words (so that a relocation, which writes word 0
// and one slot's word of each of two buckets, and clear(), which writes every word of
// one bucket, fit one K-CAS): every shape CuckooFilterConfig allows except b = 8 with
// f >= 25. A slot holding 0 is empty (fingerprints are never 0).
//
// Versions. Every change of a bucket (a slot filled or emptied, by a single CAS of its
// word 0, or by a K-CAS that includes word 0) writes version + 1 (mod 2^v) into word 0.
// Hence two reads of word 0 returning the same value mean the bucket did not change in
// between, unless exactly a multiple of 2^v changes hit it meanwhile (2^14 = 16,384 at
// f = 12, b = 4; 2^30 at f = 8, b = 4): the bound on the ABA window that the lookups'
// double collect relies on, as with Nguyen and Tsigas' relocation counters.
//
// Thread safety: every member may be called concurrently; reads never write shared
// memory (sync::BasicKcas::peek).
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <new>
#include <optional>
#include <span>

#include "cuckoo/detail/aligned_buffer.hpp"
#include "cuckoo/sync/kcas.hpp"
#include "cuckoo/sync/policy.hpp"

namespace cuckoo::detail {

// Where the slots of a (f, b) bucket live; see the file comment.
struct LockFreeBucketLayout {
  static constexpr unsigned kValueBits = 62;
  static constexpr unsigned kMinVersionBits = 14;
  static constexpr unsigned kMaxWords = 4;
  unsigned words = 1;          // K-CAS words per bucket, 1..kMaxWords
  unsigned slots0 = 0;         // slots in word 0
  unsigned per_word = 0;       // slots in each further word
  unsigned version_bits = 0;   // low bits of word 0
  unsigned fingerprint_bits = 0;
  unsigned slots = 0;

  // The layout of f-bit slots, b per bucket, or nullopt if a bucket needs more than
  // kMaxWords words. REQUIRES: 1 <= f <= 32, 1 <= b <= 8.
  static constexpr std::optional<LockFreeBucketLayout> of(unsigned f, unsigned b) noexcept {
    LockFreeBucketLayout l;
    l.fingerprint_bits = f;
    l.slots = b;
    l.slots0 = std::min(b, (kValueBits - kMinVersionBits) / f);
    l.per_word = kValueBits / f;
    const unsigned rest = b - l.slots0;
    l.words = 1 + (rest + l.per_word - 1) / l.per_word;
    if (l.slots0 == 0 || l.words > kMaxWords) return std::nullopt;
    l.version_bits = kValueBits - l.slots0 * f;
    return l;
  }
};

// A bucket's words as one consistent read (their logical values).
struct LockFreeBucket {
  std::array<std::uint64_t, LockFreeBucketLayout::kMaxWords> w{};
  friend bool operator==(const LockFreeBucket&, const LockFreeBucket&) = default;
};

template <class Sync = sync::StdSync>
class BasicLockFreeTable {
 public:
  using SyncPolicy = Sync;
  using Kcas = sync::BasicKcas<Sync>;
  using Word = sync::BasicKcasWord<Sync>;
  using Bucket = LockFreeBucket;
  static constexpr int kNoSlot = -1;

  // REQUIRES: `layout` from LockFreeBucketLayout::of; bucket_count >= 1.
  BasicLockFreeTable(std::uint32_t bucket_count, const LockFreeBucketLayout& layout, bool huge_pages)
      : layout_(layout),
        bucket_count_(bucket_count),
        word_count_(std::size_t{bucket_count} * layout.words),
        buffer_(word_count_ * sizeof(Word), huge_pages),
        words_(construct_words(buffer_.data(), word_count_)),
        fp_mask_((std::uint64_t{1} << layout.fingerprint_bits) - 1),
        version_mask_((std::uint64_t{1} << layout.version_bits) - 1) {
    std::uint64_t ones = 0;
    for (unsigned s = 0; s < layout.slots0; ++s) ones |= std::uint64_t{1} << (s * layout.fingerprint_bits);
    lane_ones_ = ones;
    lane_highs_ = ones << (layout.fingerprint_bits - 1);
  }
  ~BasicLockFreeTable() {
    for (std::size_t i = 0; i < word_count_; ++i) words_[i].~Word();
  }
  BasicLockFreeTable(const BasicLockFreeTable&) = delete;
  BasicLockFreeTable& operator=(const BasicLockFreeTable&) = delete;

  const LockFreeBucketLayout& layout() const noexcept { return layout_; }
  std::uint32_t bucket_count() const noexcept { return bucket_count_; }
  // Whether huge pages were requested for the words.
  bool huge_pages() const noexcept { return buffer_.huge_pages(); }
  unsigned slots() const noexcept { return layout_.slots; }
  unsigned words_per_bucket() const noexcept { return layout_.words; }
  std::size_t memory_bytes() const noexcept { return buffer_.allocated_bytes(); }
  std::uint64_t version_mask() const noexcept { return version_mask_; }

  Word& word(std::uint32_t bucket, unsigned k) const noexcept {
    return words_[std::size_t{bucket} * layout_.words + k];
  }
  // Word 0's logical value, without writing.
  std::uint64_t peek0(std::uint32_t bucket) const noexcept { return Kcas::peek(word(bucket, 0)); }
  // The same for a table of one-word buckets (no multiply). REQUIRES: words_per_bucket() == 1.
  [[gnu::always_inline]] std::uint64_t peek_single(std::uint32_t bucket) const noexcept {
    assert(layout_.words == 1);
    return Kcas::peek(words_[bucket]);
  }

  // A consistent read of the bucket: word 0, the others, word 0 again, until word 0 is
  // unchanged (every change of another word bumps word 0's version).
  Bucket read(std::uint32_t bucket) const noexcept {
    Bucket b;
    b.w[0] = peek0(bucket);
    if (layout_.words == 1) return b;
    // Bound: a retry means an update of this bucket completed meanwhile (lock-free).
    for (;;) {
      for (unsigned k = 1; k < layout_.words; ++k) b.w[k] = Kcas::peek(word(bucket, k));
      const std::uint64_t again = peek0(bucket);
      if (again == b.w[0]) return b;
      b.w[0] = again;
    }
  }

  // ---- Decoding a bucket read.

  std::uint32_t get(const Bucket& b, unsigned slot) const noexcept {
    const auto [k, shift] = position(slot);
    return static_cast<std::uint32_t>((b.w[k] >> shift) & fp_mask_);
  }
  // Whether some slot of word 0 holds fp (fp may be 0: an empty slot). SWAR: XOR every
  // lane with fp, then "some lane is zero" (exact for "any"; Mycroft's test).
  [[gnu::always_inline]] bool word0_has(std::uint64_t w0, std::uint32_t fp) const noexcept {
    const std::uint64_t x = (w0 >> layout_.version_bits) ^ (fp * lane_ones_);
    return ((x - lane_ones_) & ~x & lane_highs_) != 0;
  }
  bool has(const Bucket& b, std::uint32_t fp) const noexcept {
    if (word0_has(b.w[0], fp)) return true;
    if (layout_.words == 1) return false;
    for (unsigned s = layout_.slots0; s < layout_.slots; ++s) {
      if (get(b, s) == fp) return true;
    }
    return false;
  }
  // The first slot holding fp (0: the first empty slot), or kNoSlot.
  int find(const Bucket& b, std::uint32_t fp) const noexcept {
    for (unsigned s = 0; s < layout_.slots; ++s) {
      if (get(b, s) == fp) return static_cast<int>(s);
    }
    return kNoSlot;
  }
  unsigned count(const Bucket& b, std::uint32_t fp) const noexcept {
    unsigned n = 0;
    for (unsigned s = 0; s < layout_.slots; ++s) n += get(b, s) == fp ? 1U : 0U;
    return n;
  }
  // The bucket with `slot` set to fp (0 empties it) and the version bumped.
  Bucket with(const Bucket& b, unsigned slot, std::uint32_t fp) const noexcept {
    Bucket out = bumped(b);
    const auto [k, shift] = position(slot);
    out.w[k] = (out.w[k] & ~(fp_mask_ << shift)) | (std::uint64_t{fp} << shift);
    return out;
  }
  // The bucket with every slot empty and the version bumped.
  Bucket emptied(const Bucket& b) const noexcept {
    Bucket out;
    out.w[0] = bumped(b).w[0] & version_mask_;
    return out;
  }

  // ---- Changing buckets. Each returns false, changing nothing, unless every bucket
  // named still holds exactly what was read (`before`), version included.

  // One bucket: a single CAS when only word 0 changes, else a K-CAS of word 0 and the
  // words that change.
  bool install(std::uint32_t bucket, const Bucket& before, const Bucket& after) noexcept {
    if (layout_.words == 1 || std::equal(before.w.begin() + 1, before.w.end(), after.w.begin() + 1)) {
      return Kcas::cas(word(bucket, 0), before.w[0], after.w[0]);
    }
    std::array<typename Kcas::Entry, LockFreeBucketLayout::kMaxWords> e{};
    std::size_t n = 0;
    add_entries(e, n, bucket, before, after);
    return Kcas::kcas(std::span<typename Kcas::Entry>(e.data(), n));
  }

  // Two distinct buckets as one atomic step (a relocation). REQUIRES: a != b; each
  // bucket changes in word 0 and at most one other word.
  bool install2(std::uint32_t a, const Bucket& a_before, const Bucket& a_after, std::uint32_t b,
                const Bucket& b_before, const Bucket& b_after) noexcept {
    assert(a != b);
    std::array<typename Kcas::Entry, 2 * LockFreeBucketLayout::kMaxWords> e{};
    std::size_t n = 0;
    add_entries(e, n, a, a_before, a_after);
    add_entries(e, n, b, b_before, b_after);
    assert(n <= Kcas::kMaxWords);
    return Kcas::kcas(std::span<typename Kcas::Entry>(e.data(), n));
  }

 private:
  struct Position {
    unsigned word;
    unsigned shift;
  };
  Position position(unsigned slot) const noexcept {
    assert(slot < layout_.slots);
    if (slot < layout_.slots0) return {0, layout_.version_bits + slot * layout_.fingerprint_bits};
    const unsigned rest = slot - layout_.slots0;
    return {1 + rest / layout_.per_word, (rest % layout_.per_word) * layout_.fingerprint_bits};
  }
  // Word 0 (always: its version moves) and every other word that changes.
  template <std::size_t N>
  void add_entries(std::array<typename Kcas::Entry, N>& e, std::size_t& n, std::uint32_t bucket,
                   const Bucket& before, const Bucket& after) const noexcept {
    for (unsigned k = 0; k < layout_.words; ++k) {
      if (k == 0 || before.w[k] != after.w[k]) e[n++] = {&word(bucket, k), before.w[k], after.w[k]};
    }
  }
  static Word* construct_words(std::uint8_t* bytes, std::size_t n) noexcept {
    for (std::size_t i = 0; i < n; ++i) new (bytes + i * sizeof(Word)) Word(0);
    return std::launder(reinterpret_cast<Word*>(bytes));
  }
  Bucket bumped(const Bucket& b) const noexcept {
    Bucket out = b;
    out.w[0] = (b.w[0] & ~version_mask_) | ((b.w[0] + 1) & version_mask_);
    return out;
  }

  LockFreeBucketLayout layout_;
  std::uint32_t bucket_count_;
  std::size_t word_count_;
  AlignedBuffer buffer_;  // zero bytes: every word 0, every slot empty, version 0
  Word* words_;
  std::uint64_t fp_mask_;
  std::uint64_t version_mask_;
  std::uint64_t lane_ones_ = 0;
  std::uint64_t lane_highs_ = 0;
};

}  // namespace cuckoo::detail
