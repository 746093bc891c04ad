// Storage of the striped concurrent filter (internal): a bucket table of atomic 64-bit
// words and the lock-protected stash. Items are placed by BasicCuckooFilter's own rule
// (detail::FilterHashRule, detail/filter_hash_rule.hpp), so an item has the same buckets
// and fingerprint in the concurrent and the single-threaded filter of one configuration
// and seed.
//
// Why not detail::PackedTable. The packed table lets an f-bit field straddle bytes and
// words shared with the neighbouring bucket, and writes by read-modify-write of 8 bytes
// at any byte offset. Under striped locks two neighbouring buckets may be written at
// the same time under different stripes, and optimistic readers read without locks; so
// the concurrent table needs (1) every word to belong to buckets of one stripe and (2)
// every access to be atomic (plain loads racing with stores are data races, and
// ThreadSanitizer reports them).
//
// Layout. Slots are lanes of w bits, w the smallest of 8, 16, 32 that holds f bits
// (lane_bits_for). Bucket i occupies lanes i * b .. i * b + b - 1 of an array of
// std::atomic<std::uint64_t> words, 64 / w lanes a word. Since b and w are powers of two,
// either a bucket fits in one word (b * w <= 64: buckets_per_word = 64 / (b * w) whole
// buckets share a word) or it spans words_per_bucket = b * w / 64 whole words. Buckets
// that share a word form a "word group" (bucket / buckets_per_word); the filter maps
// every bucket of a group to the same lock stripe, so each word has one writer at a time.
// Memory: w / f times the packed table's (1 for f = 8, 16, 32; 4/3 for f = 12; 2 for
// f = 4), plus the lock stripes. A simpler one-slot-per-std::atomic<uint32_t> layout
// would cost 32 / f times (2.67 for f = 12).
//
// Access. get()/find()/count() load words with acquire, set() stores them with release
// (the seqlock discipline of stripe_locks.hpp). Writers (set, try_place,
// remove_one, clear) REQUIRE the stripe of the bucket held; readers may run without
// locks, but then see a consistent bucket only inside a validated OptimisticRead.
//
// SWAR match. As in PackedTable: with lo a 1 at the low bit of every lane of the bucket
// and hi a 1 at the high bit, v = word ^ (fp * lo), z = (v - lo) & ~v & hi is nonzero
// iff some lane of the bucket equals fp, and its lowest set bit is in the lowest such
// lane. The masks cover only the bucket's own lanes: lanes of other buckets in the word
// below it are not subtracted from (no borrow enters the bucket), and a borrow leaving
// its top lane lands outside hi.
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <new>
#include <optional>
#include <vector>

#include "cuckoo/cuckoo_filter.hpp"
#include "cuckoo/detail/aligned_buffer.hpp"
#include "cuckoo/detail/stripe_locks.hpp"
#include "cuckoo/detail/filter_hash_rule.hpp"
#include "cuckoo/detail/platform.hpp"
#include "cuckoo/hash.hpp"

namespace cuckoo::detail {

template <class Sync = sync::StdSync>
class BasicAtomicBucketTable {
  using Word = typename Sync::template Atomic<std::uint64_t>;

 public:
  using SyncPolicy = Sync;
  static constexpr unsigned kWordBits = 64;
  static constexpr int kNoSlot = -1;

  static constexpr unsigned lane_bits_for(unsigned fingerprint_bits) noexcept {
    return fingerprint_bits <= 8 ? 8U : fingerprint_bits <= 16 ? 16U : 32U;
  }

  // Words for a table; cannot overflow for bucket_count < 2^32 and slots <= 8.
  static constexpr std::uint64_t word_count_for(std::uint64_t bucket_count, unsigned slots,
                                                unsigned fingerprint_bits) noexcept {
    const std::uint64_t lanes_per_word = kWordBits / lane_bits_for(fingerprint_bits);
    return (bucket_count * slots + lanes_per_word - 1) / lanes_per_word;
  }
  static constexpr std::uint64_t bytes_for(std::uint64_t bucket_count, unsigned slots,
                                           unsigned fingerprint_bits) noexcept {
    return word_count_for(bucket_count, slots, fingerprint_bits) * sizeof(std::uint64_t);
  }

  // REQUIRES: bucket_count >= 1, slots in {1, 2, 4, 8}, fingerprint_bits in 4..32, and
  // the caller has checked that bytes_for() is acceptable. All slots start empty.
  // huge_pages: the words in an AlignedBuffer with transparent huge pages requested
  // (CuckooFilterConfig::huge_pages; 2 MiB aligned and MADV_HUGEPAGE from 2 MiB up).
  BasicAtomicBucketTable(std::uint32_t bucket_count, unsigned slots, unsigned fingerprint_bits,
                         bool huge_pages = false)
      : bucket_count_(bucket_count),
        slots_(slots),
        lane_bits_(lane_bits_for(fingerprint_bits)),
        lanes_per_word_(kWordBits / lane_bits_),
        word_count_(static_cast<std::size_t>(word_count_for(bucket_count, slots, fingerprint_bits))),
        buffer_(word_count_ * sizeof(Word), huge_pages),
        words_(construct_words(buffer_.data(), word_count_)) {
    assert(bucket_count >= 1 && std::has_single_bit(slots) && slots <= 8);
    const unsigned bucket_bits = slots * lane_bits_;
    if (bucket_bits <= kWordBits) {
      buckets_per_word_ = kWordBits / bucket_bits;
      words_per_bucket_ = 1;
      masks_ = make_masks(slots, lane_bits_);
    } else {
      buckets_per_word_ = 1;
      words_per_bucket_ = bucket_bits / kWordBits;
      masks_ = make_masks(lanes_per_word_, lane_bits_);
    }
    group_shift_ = static_cast<unsigned>(std::countr_zero(buckets_per_word_));
  }

  ~BasicAtomicBucketTable() {
    for (std::size_t i = 0; i < word_count_; ++i) words_[i].~Word();  // bound: the words
  }
  BasicAtomicBucketTable(const BasicAtomicBucketTable&) = delete;
  BasicAtomicBucketTable& operator=(const BasicAtomicBucketTable&) = delete;

  std::uint32_t bucket_count() const noexcept { return bucket_count_; }
  // Whether huge pages were requested for the words.
  bool huge_pages() const noexcept { return buffer_.huge_pages(); }
  unsigned slots() const noexcept { return slots_; }
  unsigned lane_bits() const noexcept { return lane_bits_; }
  unsigned buckets_per_word() const noexcept { return buckets_per_word_; }
  unsigned words_per_bucket() const noexcept { return words_per_bucket_; }
  std::size_t memory_bytes() const noexcept { return word_count_ * sizeof(std::uint64_t); }

  // The word group of a bucket: buckets of one group share words, so they must share
  // a lock stripe.
  std::uint32_t word_group(std::uint32_t bucket) const noexcept { return bucket >> group_shift_; }

  // Hints the cache to load a bucket's words (its first and last), as a writer does
  // before taking the bucket's stripe, so that the miss overlaps the locking CAS. Reads
  // nothing. REQUIRES: bucket < bucket_count().
  void prefetch(std::uint32_t bucket) const noexcept {
    prefetch_kept(&words_[lane(bucket, 0).word]);
    prefetch_kept(&words_[lane(bucket, slots_ - 1).word]);
  }

  // The fingerprint in a slot, 0 if empty. REQUIRES: bucket < bucket_count(),
  // slot < slots().
  std::uint32_t get(std::uint32_t bucket, unsigned slot) const noexcept {
    const Lane l = lane(bucket, slot);
    return static_cast<std::uint32_t>((load(l.word) >> l.shift) & lane_mask());
  }

  // REQUIRES: the bucket's stripe held; value < 2^lane_bits().
  void set(std::uint32_t bucket, unsigned slot, std::uint32_t value) noexcept {
    const Lane l = lane(bucket, slot);
    assert(std::uint64_t{value} <= lane_mask());
    // relaxed load: the stripe lock makes us the word's only writer, and we read our
    // own (or the previous holder's, ordered by the lock) latest value.
    const std::uint64_t w = words_[l.word].load(std::memory_order_relaxed);
    const std::uint64_t updated = (w & ~(lane_mask() << l.shift)) | (std::uint64_t{value} << l.shift);
    // release: see the seqlock memory-order note in stripe_locks.hpp.
    words_[l.word].store(updated, std::memory_order_release);
  }

  // The first slot of `bucket` holding fp (fp = 0: the first empty slot), or kNoSlot.
  int find(std::uint32_t bucket, std::uint32_t fp) const noexcept {
    assert(bucket < bucket_count_);
    if (words_per_bucket_ == 1) {
      const std::size_t word = bucket >> group_shift_;
      const unsigned shift = (bucket & (buckets_per_word_ - 1)) * slots_ * lane_bits_;
      const std::uint64_t z = match(load(word), fp, masks_.lo << shift, masks_.hi << shift);
      if (z == 0) return kNoSlot;
      return static_cast<int>((static_cast<unsigned>(std::countr_zero(z)) - shift) / lane_bits_);
    }
    const std::size_t first = std::size_t{bucket} * words_per_bucket_;
    for (unsigned j = 0; j < words_per_bucket_; ++j) {  // bound: words_per_bucket_ <= 4
      const std::uint64_t z = match(load(first + j), fp, masks_.lo, masks_.hi);
      if (z != 0) {
        return static_cast<int>(j * lanes_per_word_ +
                                static_cast<unsigned>(std::countr_zero(z)) / lane_bits_);
      }
    }
    return kNoSlot;
  }

  bool contains(std::uint32_t bucket, std::uint32_t fp) const noexcept {
    return find(bucket, fp) != kNoSlot;
  }

  // find() one slot at a time; the reference the SWAR path is tested against.
  int find_reference(std::uint32_t bucket, std::uint32_t fp) const noexcept {
    for (unsigned s = 0; s < slots_; ++s) {  // bound: slots_ <= 8
      if (get(bucket, s) == fp) return static_cast<int>(s);
    }
    return kNoSlot;
  }

  // Slots of `bucket` holding fp. Consistent only with the stripe held.
  unsigned count(std::uint32_t bucket, std::uint32_t fp) const noexcept {
    unsigned n = 0;
    for (unsigned s = 0; s < slots_; ++s) n += get(bucket, s) == fp ? 1U : 0U;  // bound: slots_
    return n;
  }

  // Stores fp in the first empty slot; false (nothing changed) if the bucket is full.
  // REQUIRES: the bucket's stripe held; fp != 0.
  bool try_place(std::uint32_t bucket, std::uint32_t fp) noexcept {
    assert(fp != 0);
    const int slot = find(bucket, 0);
    if (slot == kNoSlot) return false;
    set(bucket, static_cast<unsigned>(slot), fp);
    return true;
  }

  // Empties the first slot holding fp; false if none does.
  // REQUIRES: the bucket's stripe held; fp != 0.
  bool remove_one(std::uint32_t bucket, std::uint32_t fp) noexcept {
    assert(fp != 0);
    const int slot = find(bucket, fp);
    if (slot == kNoSlot) return false;
    set(bucket, static_cast<unsigned>(slot), 0);
    return true;
  }

  // REQUIRES: every stripe held.
  void clear() noexcept {
    for (std::size_t i = 0; i < word_count_; ++i) words_[i].store(0, std::memory_order_release);
  }

  // Nonzero slots (a full scan; exact only when no writer runs).
  std::uint64_t count_nonzero() const noexcept {
    std::uint64_t n = 0;
    for (std::uint32_t i = 0; i < bucket_count_; ++i) {
      for (unsigned s = 0; s < slots_; ++s) n += get(i, s) != 0 ? 1U : 0U;
    }
    return n;
  }

 private:
  // n words constructed at bytes (an AlignedBuffer of n * sizeof(Word) bytes), each 0.
  static Word* construct_words(std::uint8_t* bytes, std::size_t n) noexcept {
    for (std::size_t i = 0; i < n; ++i) new (bytes + i * sizeof(Word)) Word(0);  // bound: n
    return std::launder(reinterpret_cast<Word*>(bytes));
  }

  struct Masks {
    std::uint64_t lo = 0;  // a 1 at the low bit of every lane
    std::uint64_t hi = 0;  // a 1 at the high bit of every lane
  };
  struct Lane {
    std::size_t word = 0;
    unsigned shift = 0;
  };

  static Masks make_masks(unsigned lanes, unsigned bits) noexcept {
    Masks m;
    for (unsigned s = 0; s < lanes; ++s) {  // bound: lanes <= 8
      m.lo |= std::uint64_t{1} << (s * bits);
      m.hi |= std::uint64_t{1} << (s * bits + bits - 1);
    }
    return m;
  }

  static std::uint64_t match(std::uint64_t w, std::uint32_t fp, std::uint64_t lo,
                             std::uint64_t hi) noexcept {
    const std::uint64_t v = w ^ (std::uint64_t{fp} * lo);
    return (v - lo) & ~v & hi;
  }

  std::uint64_t lane_mask() const noexcept {
    return lane_bits_ == 32 ? 0xffffffffULL : (std::uint64_t{1} << lane_bits_) - 1;
  }

  Lane lane(std::uint32_t bucket, unsigned slot) const noexcept {
    assert(bucket < bucket_count_ && slot < slots_);
    const std::uint64_t index = std::uint64_t{bucket} * slots_ + slot;
    return {static_cast<std::size_t>(index / lanes_per_word_),
            static_cast<unsigned>(index % lanes_per_word_) * lane_bits_};
  }

  // acquire: see the seqlock memory-order note in stripe_locks.hpp.
  std::uint64_t load(std::size_t word) const noexcept {
    return words_[word].load(std::memory_order_acquire);
  }

  std::uint32_t bucket_count_;
  unsigned slots_;
  unsigned lane_bits_;
  unsigned lanes_per_word_;
  std::size_t word_count_;
  AlignedBuffer buffer_;  // the words' bytes
  Word* words_;           // word_count_ words constructed in buffer_, each 0 (all empty)
  unsigned buckets_per_word_ = 1;
  unsigned words_per_bucket_ = 1;
  unsigned group_shift_ = 0;
  Masks masks_;  // one bucket's lanes (b * w <= 64) or one whole word's (b * w > 64)
};

using AtomicBucketTable = BasicAtomicBucketTable<>;

// The stash: homeless items, each (fingerprint, bucket1, bucket2), under their own lock.
// Entries are reachable only through the guards ReadLocked (const access) and Locked
// (changes), which hold the lock from construction to destruction.
//
// Invariant that makes the per-item answers consistent: an entry of an item with
// buckets {b1, b2} is added, removed or moved into the table only by a thread that also
// holds the stripe of b1 or of b2 (adds and removes of the item's own insert and erase
// hold both). So a thread holding both stripes sees that item's entries stable, and an
// optimistic reader of both stripes sees a change to them as a version change.
//
// Lock-free reads. A lookup must write nothing shared, so it does not take the stash
// lock: try_contains() reads the entries as a seqlock reader of that same lock (a
// VersionLock: odd while held, bumped on every release). It reads the version, the
// entries and the version again, and answers only if the version was even and did not
// move; otherwise it reports "undecided" and the caller retries (and, after its bound,
// takes the locks). Validation against the stash's own version is needed, not only the
// item's stripes: removing another item's entry shifts the entries down, and a reader
// racing with that shift could skip this item's entry. Every entry field and the count
// are atomics (written under the lock, read by the seqlock reader with relaxed loads),
// so the racing reads are not data races; a writer fences (release) after taking the
// lock and before its first store, so that a reader who sees any of its stores sees the
// odd version on its second read (Boehm, "Can seqlocks get along with programming
// language memory models?", 2012).
template <class Sync = sync::StdSync>
class BasicConcurrentStash {
  template <class T>
  using Atomic = typename Sync::template Atomic<T>;
  using Lock = BasicVersionLock<Sync>;

 public:
  static constexpr unsigned kSlots = 4;
  using Placement = CuckooFilterPlacement;

  BasicConcurrentStash() = default;
  BasicConcurrentStash(const BasicConcurrentStash&) = delete;
  BasicConcurrentStash& operator=(const BasicConcurrentStash&) = delete;

  // A racy hint, exact for a given item while both its stripes are held (by the
  // invariant above): false means no entry at all. acquire: pairs with the release
  // store of a holder of the stash lock.
  bool maybe_nonempty() const noexcept { return size_.load(std::memory_order_acquire) != 0; }
  unsigned size_hint() const noexcept { return size_.load(std::memory_order_acquire); }

  // Read access under the stash lock.
  class ReadLocked {
   public:
    explicit ReadLocked(const BasicConcurrentStash& stash) noexcept : stash_(stash), hold_(stash.lock_) {}
    ReadLocked(const ReadLocked&) = delete;
    ReadLocked& operator=(const ReadLocked&) = delete;

    unsigned size() const noexcept { return stash_.count(); }
    Placement operator[](unsigned k) const noexcept { return stash_.entry(k); }
    unsigned find(const Placement& p) const noexcept { return stash_.find(p); }
    bool contains(const Placement& p) const noexcept { return stash_.find(p) != kSlots; }
    unsigned count(const Placement& p) const noexcept { return stash_.count(p); }

   private:
    const BasicConcurrentStash& stash_;
    const std::lock_guard<Lock> hold_;
  };

  // Read and write access under the stash lock.
  class Locked {
   public:
    explicit Locked(BasicConcurrentStash& stash) noexcept : stash_(stash), hold_(stash.lock_) {
      // release: orders the lock's odd version before this section's stores, for the
      // seqlock readers (see try_contains).
      Sync::fence(std::memory_order_release);
    }
    Locked(const Locked&) = delete;
    Locked& operator=(const Locked&) = delete;

    unsigned size() const noexcept { return stash_.count(); }
    bool full() const noexcept { return stash_.count() == kSlots; }
    Placement operator[](unsigned k) const noexcept { return stash_.entry(k); }
    // The first entry of p's fingerprint and bucket pair, or kSlots.
    unsigned find(const Placement& p) const noexcept { return stash_.find(p); }
    unsigned count(const Placement& p) const noexcept { return stash_.count(p); }

    // REQUIRES: !full(); the stripes of p's buckets held.
    void add(const Placement& p) noexcept {
      assert(!full());
      const unsigned n = stash_.count();
      stash_.set_entry(n, p);
      stash_.count_.store(n + 1, std::memory_order_relaxed);
      publish();
    }

    // Removes entry k, keeping the others in order. REQUIRES: k < size(); the stripe of
    // one of the entry's buckets held.
    void remove(unsigned k) noexcept {
      const unsigned n = stash_.count();
      assert(k < n);
      for (unsigned j = k + 1; j < n; ++j) {  // bound: kSlots
        stash_.set_entry(j - 1, stash_.entry(j));
      }
      stash_.set_entry(n - 1, Placement{});
      stash_.count_.store(n - 1, std::memory_order_relaxed);
      publish();
    }

    // REQUIRES: every stripe held.
    void clear() noexcept {
      for (unsigned k = 0; k < kSlots; ++k) stash_.set_entry(k, Placement{});
      stash_.count_.store(0, std::memory_order_relaxed);
      publish();
    }

   private:
    // release: pairs with maybe_nonempty()'s acquire.
    void publish() noexcept { stash_.size_.store(stash_.count(), std::memory_order_release); }

    BasicConcurrentStash& stash_;
    const std::lock_guard<Lock> hold_;
  };

  // The stash lock's version: it moves on every acquisition, so tests can see whether
  // lookups took the lock.
  std::uint64_t lock_version() const noexcept { return lock_.version(); }

  // Whether the stash holds an entry of p's item, read without writing anything (see
  // the top of this class): true or false when the read saw one stable version, nullopt
  // when a holder of the lock was inside (or got in) meanwhile.
  std::optional<bool> try_contains(const Placement& p) const noexcept {
    const std::uint64_t before = lock_.version();  // acquire
    if ((before & 1) != 0) return std::nullopt;
    bool found = false;
    const unsigned n = std::min(count_.load(std::memory_order_relaxed), kSlots);
    for (unsigned k = 0; k < n; ++k) found = found || same_item(entry(k), p);  // bound: kSlots
    // acquire: the loads above happen before the version is read again.
    Sync::fence(std::memory_order_acquire);
    if (lock_.version_relaxed() != before) return std::nullopt;
    return found;
  }

 private:
  // One entry, as three words that a seqlock reader may load while a holder stores.
  struct Entry {
    Atomic<std::uint32_t> bucket1{0};
    Atomic<std::uint32_t> bucket2{0};
    Atomic<std::uint32_t> fingerprint{0};
  };

  unsigned count() const noexcept { return count_.load(std::memory_order_relaxed); }
  // relaxed: under the lock, or by a seqlock reader that validates the version after.
  Placement entry(unsigned k) const noexcept {
    const Entry& e = entries_[k];
    return Placement{e.bucket1.load(std::memory_order_relaxed),
                     e.bucket2.load(std::memory_order_relaxed),
                     e.fingerprint.load(std::memory_order_relaxed)};
  }
  // REQUIRES: the lock held.
  void set_entry(unsigned k, const Placement& p) noexcept {
    Entry& e = entries_[k];
    e.bucket1.store(p.bucket1, std::memory_order_relaxed);
    e.bucket2.store(p.bucket2, std::memory_order_relaxed);
    e.fingerprint.store(p.fingerprint, std::memory_order_relaxed);
  }

  // Equal fingerprints have equal alternates, so one shared bucket means the same pair.
  static bool same_item(const Placement& e, const Placement& p) noexcept {
    return e.fingerprint == p.fingerprint && (e.bucket1 == p.bucket1 || e.bucket1 == p.bucket2);
  }

  unsigned find(const Placement& p) const noexcept {
    const unsigned n = count();
    for (unsigned k = 0; k < n; ++k) {  // bound: kSlots
      if (same_item(entry(k), p)) return k;
    }
    return kSlots;
  }

  unsigned count(const Placement& p) const noexcept {
    unsigned n = 0;
    const unsigned c = count();
    for (unsigned k = 0; k < c; ++k) n += same_item(entry(k), p) ? 1U : 0U;  // bound: kSlots
    return n;
  }

  // The lock is taken from const contexts (lookups); it is not logical state.
  mutable Lock lock_;
  std::array<Entry, kSlots> entries_{};      // written under lock_
  Atomic<unsigned> count_{0};                // written under lock_
  Atomic<unsigned> size_{0};                 // == count_, readable without the lock
};

using ConcurrentStash = BasicConcurrentStash<>;

}  // namespace cuckoo::detail
