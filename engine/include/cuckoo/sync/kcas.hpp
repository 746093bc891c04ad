// K-CAS: k machine words compared and swapped as one atomic step, lock-free, with
// helping (Harris, Fraser and Pratt, "A practical multi-word compare-and-swap
// operation", DISC 2002), with descriptors reused instead of reclaimed (Arbel-Raviv and
// Brown, "Reuse, don't recycle", DISC 2017). Written against a sync policy
// (policy.hpp) from the start, so that the interleaving explorer runs this very code.
//
// Words. A BasicKcasWord holds a 62-bit value (kMaxValue). Its 64-bit representation is
// the value shifted left by two (tag 00), or, while an operation runs, a reference to a
// descriptor: tag 01 an RDCSS descriptor, tag 10 a K-CAS descriptor. A reference is
// (sequence number << 12) | (thread id << 2) | tag: each thread owns one descriptor of
// each kind and reuses it for its next operation with the next sequence number, so a
// reference names one operation of one thread, never another (no ABA), and descriptor
// memory is fixed: kMaxThreads * sizeof(descriptors), whatever the number of operations.
//
// kcas(entries). Phase 1 installs a reference to the caller's K-CAS descriptor in each
// word, in ascending address order, each by RDCSS (restricted double-compare single-
// swap): "if the word holds its expected value and the operation is still undecided,
// replace the value by the reference". A word holding another operation's reference is
// helped first (that operation is finished by this thread), then retried; a word holding
// another value decides "failed". Then the status is decided by one CAS (undecided ->
// succeeded or failed): the linearization point. Phase 2 replaces every reference by the
// desired value (succeeded) or the expected one (failed). Any thread that meets a
// reference runs the same steps for the operation it names (helping), so an operation
// completes even if its own thread is stalled forever: lock-freedom.
//
// Reuse. A helper reads the fields of a descriptor, then re-reads its sequence number:
// if the owner has moved on (it reuses the descriptor only after its operation, phases
// 1 and 2, completed), the snapshot is discarded: the operation it named is finished
// and no word holds its reference any more. Owners bump the sequence number before they
// rewrite fields (so a helper reading a mix of old and new fields sees the bump).
//
// read(word): the word's logical value: a descriptor found there is helped to the end
// first. peek(word): the same value without writing: a descriptor is interpreted (its
// status says which of its values is the word's), not helped. cas(word, expected, desired): a single-word CAS that is linearizable with
// kcas() (it helps a descriptor it finds, then CASes the plain value).
//
// Thread ids: each thread (each logical thread under the explorer) takes a free id in
// [0, kMaxThreads) on its first operation and frees it when it ends; more than
// kMaxThreads threads using K-CAS at once is a fatal error that names the limit.
// Thread safety: every function may be called concurrently on any words. Memory order:
// every step is sequentially consistent with respect to the words (the decision CAS
// and the installs are seq_cst), which is what linearizability needs.
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <cassert>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>

#include "cuckoo/sync/policy.hpp"

namespace cuckoo::sync {

template <class Sync>
class BasicKcas;

// A word that K-CAS operations act on. Not copyable (its address is its identity).
template <class Sync = StdSync>
class BasicKcasWord {
 public:
  static constexpr std::uint64_t kMaxValue = (std::uint64_t{1} << 62) - 1;
  // REQUIRES: value <= kMaxValue.
  explicit BasicKcasWord(std::uint64_t value = 0) noexcept : raw_(value << 2) {
    assert(value <= kMaxValue);
  }
  BasicKcasWord(const BasicKcasWord&) = delete;
  BasicKcasWord& operator=(const BasicKcasWord&) = delete;

 private:
  friend class BasicKcas<Sync>;
  typename Sync::template Atomic<std::uint64_t> raw_;
};

template <class Sync = StdSync>
class BasicKcas {
  template <class T>
  using Atomic = typename Sync::template Atomic<T>;

 public:
  using Word = BasicKcasWord<Sync>;
  static constexpr unsigned kMaxWords = 8;
  static constexpr unsigned kMaxThreads = 256;

  struct Entry {
    Word* word;
    std::uint64_t expected;
    std::uint64_t desired;
  };

  // If every entry's word holds its expected value, writes every desired value and
  // returns true; otherwise changes nothing and returns false; as one atomic step.
  // Sorts `entries` by word address. REQUIRES: 1 <= size <= kMaxWords, distinct words,
  // values <= Word::kMaxValue.
  static bool kcas(std::span<Entry> entries) noexcept {
    assert(!entries.empty() && entries.size() <= kMaxWords);
    std::sort(entries.begin(), entries.end(),
              [](const Entry& a, const Entry& b) { return a.word < b.word; });
    Domain& d = domain();
    const unsigned tid = thread_id();
    KcasDescriptor& desc = d.kcas[tid];
    const std::uint64_t seq = desc.state.load(std::memory_order_relaxed) / 4 + 1;
    // The bump first: helpers holding an older snapshot see it and discard it.
    desc.state.store(seq * 4 + kUndecided, std::memory_order_seq_cst);
    Snapshot snap;
    snap.count = static_cast<unsigned>(entries.size());
    desc.count.store(snap.count, std::memory_order_release);
    for (unsigned i = 0; i < snap.count; ++i) {
      assert(i == 0 || entries[i - 1].word != entries[i].word);
      assert(entries[i].expected <= Word::kMaxValue && entries[i].desired <= Word::kMaxValue);
      snap.words[i] = entries[i].word;
      snap.expected[i] = entries[i].expected << 2;
      snap.desired[i] = entries[i].desired << 2;
      desc.words[i].store(snap.words[i], std::memory_order_release);
      desc.expected[i].store(snap.expected[i], std::memory_order_release);
      desc.desired[i].store(snap.desired[i], std::memory_order_release);
    }
    return help(reference(seq, tid, kKcasTag), snap);
  }

  // The logical value of `word`.
  static std::uint64_t read(const Word& word) noexcept {
    // Bounded by the operations that finish on the word meanwhile (lock-free).
    for (;;) {
      const std::uint64_t raw = word.raw_.load(std::memory_order_seq_cst);
      if (!help_if_descriptor(raw)) return raw >> 2;
    }
  }

  // The logical value of `word` without writing anything: a descriptor found there is
  // not helped but interpreted (an RDCSS in progress: the value it expects; a K-CAS: its
  // desired value if it has succeeded, else its expected one). Linearizable with kcas()
  // and cas(): the K-CAS's status is read after the word, so the value returned held at
  // that later instant. For readers that must not write shared memory (a filter's
  // lookups); an updater should use read(), which finishes what it finds.
  [[gnu::always_inline]] static std::uint64_t peek(const Word& word) noexcept {
    const std::uint64_t raw = word.raw_.load(std::memory_order_seq_cst);
    if ((raw & kTagMask) == 0) [[likely]] return raw >> 2;
    return peek_descriptor(word, raw);
  }

  // A single-word compare-and-swap, linearizable with kcas(). REQUIRES: values <=
  // Word::kMaxValue.
  static bool cas(Word& word, std::uint64_t expected, std::uint64_t desired) noexcept {
    for (;;) {
      std::uint64_t raw = word.raw_.load(std::memory_order_seq_cst);
      if (help_if_descriptor(raw)) continue;
      if (raw != expected << 2) return false;
      if (word.raw_.compare_exchange_strong(raw, desired << 2, std::memory_order_seq_cst)) return true;
    }
  }

  // Descriptor memory of the whole process (fixed: it does not grow with operations).
  static constexpr std::size_t descriptor_bytes() noexcept { return sizeof(Domain); }

 private:
  static constexpr std::uint64_t kTagMask = 3;
  static constexpr std::uint64_t kRdcssTag = 1;
  static constexpr std::uint64_t kKcasTag = 2;
  static constexpr std::uint64_t kUndecided = 0;
  static constexpr std::uint64_t kSucceeded = 1;
  static constexpr std::uint64_t kFailed = 2;

  struct KcasDescriptor {
    Atomic<std::uint64_t> state{0};  // seq * 4 + status
    Atomic<std::uint64_t> count{0};
    std::array<Atomic<Word*>, kMaxWords> words{};
    std::array<Atomic<std::uint64_t>, kMaxWords> expected{};  // raw (value << 2)
    std::array<Atomic<std::uint64_t>, kMaxWords> desired{};
  };
  struct RdcssDescriptor {
    Atomic<std::uint64_t> seq{0};
    Atomic<std::uint64_t> kcas_ref{0};  // the operation that must still be undecided
    Atomic<Word*> word{nullptr};
    Atomic<std::uint64_t> expected{0};  // raw
  };
  struct Domain {
    std::array<KcasDescriptor, kMaxThreads> kcas{};
    std::array<RdcssDescriptor, kMaxThreads> rdcss{};
    std::array<Atomic<bool>, kMaxThreads> used{};
  };
  struct Snapshot {
    unsigned count = 0;
    std::array<Word*, kMaxWords> words{};
    std::array<std::uint64_t, kMaxWords> expected{};
    std::array<std::uint64_t, kMaxWords> desired{};
  };

  static Domain& domain() noexcept {
    static Domain d;
    return d;
  }

  // The calling thread's id, taken on first use and freed when the thread ends.
  struct ThreadSlot {
    ThreadSlot() noexcept {
      Domain& d = domain();
      for (unsigned t = 0; t < kMaxThreads; ++t) {
        bool expected = false;
        if (d.used[t].compare_exchange_strong(expected, true, std::memory_order_acq_rel)) {
          id = t;
          return;
        }
      }
      std::fprintf(stderr, "cuckoo::sync::Kcas: more than %u threads use K-CAS at once (kMaxThreads)\n",
                   kMaxThreads);
      std::abort();
    }
    ~ThreadSlot() { domain().used[id].store(false, std::memory_order_release); }
    ThreadSlot(const ThreadSlot&) = delete;
    ThreadSlot& operator=(const ThreadSlot&) = delete;
    unsigned id = 0;
  };
  static unsigned thread_id() noexcept { return Sync::template thread_local_object<ThreadSlot>().id; }

  static constexpr std::uint64_t reference(std::uint64_t seq, unsigned tid, std::uint64_t tag) noexcept {
    return (seq << 12) | (std::uint64_t{tid} << 2) | tag;
  }
  static constexpr unsigned tid_of(std::uint64_t ref) noexcept { return static_cast<unsigned>((ref >> 2) & 1023); }
  static constexpr std::uint64_t seq_of(std::uint64_t ref) noexcept { return ref >> 12; }

  // Helps the operation `raw` refers to, if it is a reference; false for a value.
  static bool help_if_descriptor(std::uint64_t raw) noexcept {
    switch (raw & kTagMask) {
      case kRdcssTag:
        help_rdcss(raw);
        return true;
      case kKcasTag:
        help_kcas(raw);
        return true;
      default:
        return false;
    }
  }

  // The fields of K-CAS operation `ref`, if its descriptor still describes it.
  static bool snapshot(std::uint64_t ref, Snapshot& snap) noexcept {
    const KcasDescriptor& desc = domain().kcas[tid_of(ref)];
    if (desc.state.load(std::memory_order_acquire) / 4 != seq_of(ref)) return false;
    snap.count = static_cast<unsigned>(desc.count.load(std::memory_order_acquire));
    if (snap.count == 0 || snap.count > kMaxWords) return false;  // being rewritten
    for (unsigned i = 0; i < snap.count; ++i) {
      snap.words[i] = desc.words[i].load(std::memory_order_acquire);
      snap.expected[i] = desc.expected[i].load(std::memory_order_acquire);
      snap.desired[i] = desc.desired[i].load(std::memory_order_acquire);
    }
    return desc.state.load(std::memory_order_acquire) / 4 == seq_of(ref);
  }

  // peek() of a word found holding descriptor reference `raw` (out of line: rare).
  [[gnu::noinline]] static std::uint64_t peek_descriptor(const Word& word, std::uint64_t raw) noexcept {
    // Bound: a retry needs the descriptor met to have been reused meanwhile, i.e. its
    // operation finished (lock-free).
    for (;;) {
      std::uint64_t value = 0;
      if (interpret(raw, &word, value)) return value >> 2;
      raw = word.raw_.load(std::memory_order_seq_cst);
      if ((raw & kTagMask) == 0) return raw >> 2;
    }
  }

  // The raw logical value of `word`, which held descriptor reference `ref`; false if
  // the descriptor has been reused since (its operation is finished: load the word
  // again).
  static bool interpret(std::uint64_t ref, const Word* word, std::uint64_t& value) noexcept {
    if ((ref & kTagMask) == kRdcssTag) {
      const RdcssDescriptor& desc = domain().rdcss[tid_of(ref)];
      if (desc.seq.load(std::memory_order_acquire) != seq_of(ref)) return false;
      value = desc.expected.load(std::memory_order_acquire);  // not yet swapped in
      return desc.seq.load(std::memory_order_acquire) == seq_of(ref);
    }
    const KcasDescriptor& desc = domain().kcas[tid_of(ref)];
    const std::uint64_t state = desc.state.load(std::memory_order_seq_cst);
    if (state / 4 != seq_of(ref)) return false;
    const auto count = static_cast<unsigned>(desc.count.load(std::memory_order_acquire));
    bool found = false;
    for (unsigned i = 0; i < count && i < kMaxWords && !found; ++i) {
      if (desc.words[i].load(std::memory_order_acquire) != word) continue;
      value = state % 4 == kSucceeded ? desc.desired[i].load(std::memory_order_acquire)
                                      : desc.expected[i].load(std::memory_order_acquire);
      found = true;
    }
    return found && desc.state.load(std::memory_order_acquire) / 4 == seq_of(ref);
  }

  static void help_kcas(std::uint64_t ref) noexcept {
    Snapshot snap;
    if (snapshot(ref, snap)) (void)help(ref, snap);
  }

  // Phases 1 and 2 of operation `ref` (owner or helper). Returns whether it succeeded
  // (meaningful to the owner; a helper whose snapshot went stale returns false).
  static bool help(std::uint64_t ref, const Snapshot& snap) noexcept {
    Atomic<std::uint64_t>& state = domain().kcas[tid_of(ref)].state;
    const std::uint64_t undecided = seq_of(ref) * 4 + kUndecided;
    if (state.load(std::memory_order_seq_cst) == undecided) {
      std::uint64_t status = kSucceeded;
      for (unsigned i = 0; i < snap.count && status == kSucceeded; ++i) {
        // Bounded by the operations met on this word (each is helped to its end).
        for (;;) {
          const std::uint64_t seen = rdcss(ref, snap.words[i], snap.expected[i]);
          if (seen == snap.expected[i] || seen == ref) break;  // installed (by us or a helper)
          if ((seen & kTagMask) == kKcasTag) {
            help_kcas(seen);  // another operation holds the word: finish it, then retry
            continue;
          }
          status = kFailed;  // another value: the operation fails
          break;
        }
      }
      std::uint64_t expected = undecided;
      state.compare_exchange_strong(expected, seq_of(ref) * 4 + status, std::memory_order_seq_cst);
    }
    const std::uint64_t final_state = state.load(std::memory_order_seq_cst);
    if (final_state / 4 != seq_of(ref)) return false;  // finished and reused: nothing left to do
    const bool succeeded = final_state % 4 == kSucceeded;
    for (unsigned i = 0; i < snap.count; ++i) {
      std::uint64_t expected = ref;
      snap.words[i]->raw_.compare_exchange_strong(expected, succeeded ? snap.desired[i] : snap.expected[i],
                                                 std::memory_order_seq_cst);
    }
    return succeeded;
  }

  // RDCSS: if `word` holds `expected` and operation `kcas_ref` is undecided, replace it
  // by kcas_ref. Returns what the word held (expected when installed; a K-CAS
  // reference or another value otherwise; never an RDCSS reference).
  static std::uint64_t rdcss(std::uint64_t kcas_ref, Word* word, std::uint64_t expected) noexcept {
    const unsigned tid = thread_id();
    RdcssDescriptor& desc = domain().rdcss[tid];
    const std::uint64_t seq = desc.seq.load(std::memory_order_relaxed) + 1;
    desc.seq.store(seq, std::memory_order_seq_cst);
    desc.kcas_ref.store(kcas_ref, std::memory_order_release);
    desc.word.store(word, std::memory_order_release);
    desc.expected.store(expected, std::memory_order_release);
    const std::uint64_t mine = reference(seq, tid, kRdcssTag);
    for (;;) {
      std::uint64_t seen = expected;
      if (word->raw_.compare_exchange_strong(seen, mine, std::memory_order_seq_cst)) {
        complete_rdcss(mine, kcas_ref, word, expected);
        return expected;
      }
      if ((seen & kTagMask) != kRdcssTag) return seen;
      help_rdcss(seen);
    }
  }

  static void complete_rdcss(std::uint64_t rref, std::uint64_t kcas_ref, Word* word, std::uint64_t expected) noexcept {
    const std::uint64_t undecided = seq_of(kcas_ref) * 4 + kUndecided;
    const bool undecided_now =
        domain().kcas[tid_of(kcas_ref)].state.load(std::memory_order_seq_cst) == undecided;
    std::uint64_t seen = rref;
    word->raw_.compare_exchange_strong(seen, undecided_now ? kcas_ref : expected, std::memory_order_seq_cst);
  }

  static void help_rdcss(std::uint64_t rref) noexcept {
    const RdcssDescriptor& desc = domain().rdcss[tid_of(rref)];
    if (desc.seq.load(std::memory_order_acquire) != seq_of(rref)) return;
    const std::uint64_t kcas_ref = desc.kcas_ref.load(std::memory_order_acquire);
    Word* const word = desc.word.load(std::memory_order_acquire);
    const std::uint64_t expected = desc.expected.load(std::memory_order_acquire);
    if (desc.seq.load(std::memory_order_acquire) != seq_of(rref)) return;
    complete_rdcss(rref, kcas_ref, word, expected);
  }
};

using KcasWord = BasicKcasWord<>;
using Kcas = BasicKcas<>;

}  // namespace cuckoo::sync
