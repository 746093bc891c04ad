// K-CAS: k machine words compared and swapped as one atomic step, lock-free, with
// helping (Harris, Fraser and Pratt, "A practical multi-word compare-and-swap
// operation", DISC 2002), with descriptors reused instead of reclaimed (Arbel-Raviv and
// Brown, "Reuse, don't recycle", DISC 2017). Written against a sync policy
// (policy.hpp) from the start, so that the interleaving explorer runs this very code.
//
// Words. A BasicKcasWord holds a 62-bit value (kMaxValue). Its 64-bit representation is
// the value shifted left by two (tag 00), or, while an operation runs, a reference to a
// descriptor: tag 01 an RDCSS descriptor, tag 10 a K-CAS descriptor. A reference is
// (sequence number << 12) | (id << 2) | tag: each id (see "Thread ids") owns one
// descriptor of each kind, reused for the next operation under that id with the next
// sequence number, so a reference names one operation, never another (no ABA), and
// descriptor memory is fixed: kMaxThreads * sizeof(descriptors), whatever the number of
// operations or of threads.
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
// Thread ids. A descriptor pair (one K-CAS, one RDCSS descriptor) is held by one thread
// at a time, under an id in [0, kMaxThreads) that the thread leases for one public call
// (kcas(), or a read() / cas() that meets a descriptor and helps it) and gives back when
// the call returns; peek() needs none. A thread keeps no id between calls, so any number
// of threads may use K-CAS over a process's life and a thread's exit frees nothing late;
// only the threads inside a call at the same instant count against kMaxThreads, and a
// call that finds every id leased waits (spins) until one is given back. The next holder
// of an id continues its descriptors' sequence numbers, so references stay unique.
//
// Helpers that went stale. A helper that read an operation's status as undecided in
// complete_rdcss may be preempted before its CAS; meanwhile the operation can be decided
// "failed" (another word held another value) while the helper's RDCSS reference still
// sits in a word. Phase 2 therefore also completes every RDCSS reference it finds that
// names this operation (which then restores the word's expected value) before the owner
// returns and reuses its descriptor, so that the late CAS finds nothing to replace: a word
// never holds a reference to a descriptor that has moved on (which no snapshot() could
// ever help again, so every access of the word would spin).
//
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
#include <optional>
#include <span>

#include "cuckoo/sync/policy.hpp"

namespace cuckoo::sync {

template <class Sync>
class BasicKcas;

/// A word that K-CAS operations act on. Not copyable (its address is its identity).
template <class Sync = StdSync>
class BasicKcasWord {
 public:
  /// The largest value a word holds (62 bits).
  static constexpr std::uint64_t kMaxValue = (std::uint64_t{1} << 62) - 1;
  /// REQUIRES: value <= kMaxValue.
  explicit BasicKcasWord(std::uint64_t value = 0) noexcept : raw_(value << 2) {
    assert(value <= kMaxValue);
  }
  BasicKcasWord(const BasicKcasWord&) = delete;
  BasicKcasWord& operator=(const BasicKcasWord&) = delete;

 private:
  friend class BasicKcas<Sync>;
  typename Sync::template Atomic<std::uint64_t> raw_;
};

/// Multi-word compare-and-swap: up to kMaxWords words compared and swapped as one atomic
/// step, lock-free with helping; descriptors are reused, not reclaimed, so memory is
/// fixed (descriptor_bytes()). See the design comment at the top of kcas.hpp.
/// Sync: the sync policy (policy.hpp).
template <class Sync = StdSync>
class BasicKcas {
  template <class T>
  using Atomic = typename Sync::template Atomic<T>;

 public:
  /// The word type the operations act on.
  using Word = BasicKcasWord<Sync>;
  /// The most words one K-CAS compares and swaps.
  static constexpr unsigned kMaxWords = 8;
  /// K-CAS ids: calls inside K-CAS at the same instant beyond this many wait for one to
  /// return.
  static constexpr unsigned kMaxThreads = 256;

  /// One word of a K-CAS: its address, the value expected in it and the value to write.
  struct Entry {
    /// The word.
    Word* word;
    /// The value it must hold (at most kMaxValue).
    std::uint64_t expected;
    /// The value to write if every word holds its expected value (at most kMaxValue).
    std::uint64_t desired;
  };

  /// If every entry's word holds its expected value, writes every desired value and
  /// returns true; otherwise changes nothing and returns false; as one atomic step.
  /// Sorts `entries` by word address. REQUIRES: 1 <= size <= kMaxWords, distinct words,
  /// values <= Word::kMaxValue.
  static bool kcas(std::span<Entry> entries) noexcept {
    assert(!entries.empty() && entries.size() <= kMaxWords);
    std::sort(entries.begin(), entries.end(),
              [](const Entry& a, const Entry& b) { return a.word < b.word; });
    Domain& d = domain();
    const IdLease lease;
    const unsigned tid = lease.id();
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
    return help(reference(seq, tid, kKcasTag), snap, tid);
  }

  /// The logical value of `word`.
  static std::uint64_t read(const Word& word) noexcept {
    // Bounded by the operations that finish on the word meanwhile (lock-free).
    for (;;) {
      const std::uint64_t raw = word.raw_.load(std::memory_order_seq_cst);
      if ((raw & kTagMask) == 0) return raw >> 2;
      help_descriptor(raw);
    }
  }

  /// The logical value of `word` without writing anything: a descriptor found there is
  /// not helped but interpreted (an RDCSS in progress: the value it expects; a K-CAS: its
  /// desired value if it has succeeded, else its expected one). Linearizable with kcas()
  /// and cas(): the K-CAS's status is read after the word, so the value returned held at
  /// that later instant. For readers that must not write shared memory (a filter's
  /// lookups); an updater should use read(), which finishes what it finds.
  [[gnu::always_inline]] static std::uint64_t peek(const Word& word) noexcept {
    const std::uint64_t raw = word.raw_.load(std::memory_order_seq_cst);
    if ((raw & kTagMask) == 0) [[likely]] return raw >> 2;
    return peek_descriptor(word, raw);
  }

  /// The value of `word` if no K-CAS or RDCSS reference is installed in it, else
  /// nullopt. Never helps, never waits, writes nothing. Once every operation on the word
  /// has returned, no reference is left in it, so this is how a quiescent check (a test,
  /// a debugger, a consistency audit after the threads joined) reads words without
  /// risking a wait on an operation that went wrong.
  static std::optional<std::uint64_t> read_if_idle(const Word& word) noexcept {
    const std::uint64_t raw = word.raw_.load(std::memory_order_seq_cst);
    if ((raw & kTagMask) != 0) return std::nullopt;
    return raw >> 2;
  }

  /// A single-word compare-and-swap, linearizable with kcas(). REQUIRES: values <=
  /// Word::kMaxValue.
  static bool cas(Word& word, std::uint64_t expected, std::uint64_t desired) noexcept {
    for (;;) {
      std::uint64_t raw = word.raw_.load(std::memory_order_seq_cst);
      if ((raw & kTagMask) != 0) {
        help_descriptor(raw);
        continue;
      }
      if (raw != expected << 2) return false;
      if (word.raw_.compare_exchange_strong(raw, desired << 2, std::memory_order_seq_cst)) return true;
    }
  }

  /// Descriptor memory of the whole process (fixed: it does not grow with operations).
  static constexpr std::size_t descriptor_bytes() noexcept { return sizeof(Domain); }

 private:
  static constexpr std::uint64_t kTagMask = 3;
  static constexpr std::uint64_t kRdcssTag = 1;
  static constexpr std::uint64_t kKcasTag = 2;
  static constexpr std::uint64_t kUndecided = 0;
  static constexpr std::uint64_t kSucceeded = 1;
  static constexpr std::uint64_t kFailed = 2;

  struct KcasDescriptor {
    Atomic<std::uint64_t> state{0};  ///< seq * 4 + status
    Atomic<std::uint64_t> count{0};
    std::array<Atomic<Word*>, kMaxWords> words{};
    std::array<Atomic<std::uint64_t>, kMaxWords> expected{};  ///< raw (value << 2)
    std::array<Atomic<std::uint64_t>, kMaxWords> desired{};
  };
  struct RdcssDescriptor {
    Atomic<std::uint64_t> seq{0};
    Atomic<std::uint64_t> kcas_ref{0};  ///< the operation that must still be undecided
    Atomic<Word*> word{nullptr};
    Atomic<std::uint64_t> expected{0};  ///< raw
  };
  /// One lease flag a cache line: threads that take different ids share no line.
  struct alignas(64) LeaseFlag {
    Atomic<bool> held{false};
  };
  struct Domain {
    std::array<KcasDescriptor, kMaxThreads> kcas{};
    std::array<RdcssDescriptor, kMaxThreads> rdcss{};
    std::array<LeaseFlag, kMaxThreads> leases{};
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

  /// The id a thread tries first: the one it leased last (a plain value, nothing to
  /// destroy at thread exit).
  struct PreferredId {
    unsigned id = 0;
  };

  /// The calling thread's id for one public call (see "Thread ids" above).
  class IdLease {
   public:
    IdLease() noexcept : id_(acquire()) {}
    ~IdLease() { domain().leases[id_].held.store(false, std::memory_order_release); }
    IdLease(const IdLease&) = delete;
    IdLease& operator=(const IdLease&) = delete;
    unsigned id() const noexcept { return id_; }

   private:
    static unsigned acquire() noexcept {
      Domain& d = domain();
      unsigned& preferred = Sync::template thread_local_object<PreferredId>().id;
      typename Sync::SpinWait spin;
      // Bound: a pass over the kMaxThreads ids finds a free one unless kMaxThreads calls
      // are in progress; then it waits for one of them to return.
      for (;;) {
        for (unsigned n = 0; n < kMaxThreads; ++n) {
          const unsigned t = (preferred + n) % kMaxThreads;
          Atomic<bool>& held = d.leases[t].held;
          bool expected = false;
          // acquire: the previous holder's descriptor writes (its sequence numbers above
          // all) happen before this holder's.
          if (!held.load(std::memory_order_relaxed) &&
              held.compare_exchange_strong(expected, true, std::memory_order_acquire, std::memory_order_relaxed)) {
            preferred = t;
            return t;
          }
        }
        spin.wait();
      }
    }
    unsigned id_;
  };

  static constexpr std::uint64_t reference(std::uint64_t seq, unsigned tid, std::uint64_t tag) noexcept {
    return (seq << 12) | (std::uint64_t{tid} << 2) | tag;
  }
  static constexpr unsigned tid_of(std::uint64_t ref) noexcept { return static_cast<unsigned>((ref >> 2) & 1023); }
  static constexpr std::uint64_t seq_of(std::uint64_t ref) noexcept { return ref >> 12; }

  /// Helps the operation that descriptor reference `raw` names, under an id leased for it
  /// (read() and cas() hold none until they meet a descriptor).
  static void help_descriptor(std::uint64_t raw) noexcept {
    if ((raw & kTagMask) == kRdcssTag) {
      help_rdcss(raw);  // needs no descriptor of its own
      return;
    }
    const IdLease lease;
    help_kcas(raw, lease.id());
  }

  /// The fields of K-CAS operation `ref`, if its descriptor still describes it.
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

  /// peek() of a word found holding descriptor reference `raw` (out of line: rare).
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

  /// The raw logical value of `word`, which held descriptor reference `ref`; false if
  /// the descriptor has been reused since (its operation is finished: load the word
  /// again).
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

  static void help_kcas(std::uint64_t ref, unsigned tid) noexcept {
    Snapshot snap;
    if (snapshot(ref, snap)) (void)help(ref, snap, tid);
  }

  /// Phases 1 and 2 of operation `ref` (owner or helper), by the thread holding id `tid`.
  /// Returns whether it succeeded (meaningful to the owner; a helper whose snapshot went
  /// stale returns false).
  static bool help(std::uint64_t ref, const Snapshot& snap, unsigned tid) noexcept {
    Atomic<std::uint64_t>& state = domain().kcas[tid_of(ref)].state;
    const std::uint64_t undecided = seq_of(ref) * 4 + kUndecided;
    if (state.load(std::memory_order_seq_cst) == undecided) {
      std::uint64_t status = kSucceeded;
      for (unsigned i = 0; i < snap.count && status == kSucceeded; ++i) {
        // Bounded by the operations met on this word (each is helped to its end).
        for (;;) {
          const std::uint64_t seen = rdcss(ref, snap.words[i], snap.expected[i], tid);
          if (seen == snap.expected[i] || seen == ref) break;  // installed (by us or a helper)
          if ((seen & kTagMask) == kKcasTag) {
            help_kcas(seen, tid);  // another operation holds the word: finish it, then retry
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
      const std::uint64_t outcome = succeeded ? snap.desired[i] : snap.expected[i];
      // Bound: each pass removes this operation's reference or an RDCSS reference naming
      // it. Once the operation is decided no new one stays (an RDCSS installed after the
      // decision restores its expected value itself), so only those installed before it
      // can be met, at most one a thread (see "Helpers that went stale" above).
      for (;;) {
        std::uint64_t raw = snap.words[i]->raw_.load(std::memory_order_seq_cst);
        if (raw == ref) {
          if (snap.words[i]->raw_.compare_exchange_strong(raw, outcome, std::memory_order_seq_cst)) break;
          continue;
        }
        if ((raw & kTagMask) != kRdcssTag || !rdcss_names(raw, ref)) break;
        help_rdcss(raw);  // the operation is decided: this puts the expected value back
      }
    }
    return succeeded;
  }

  /// RDCSS: if `word` holds `expected` and operation `kcas_ref` is undecided, replace it
  /// by kcas_ref. Returns what the word held (expected when installed; a K-CAS
  /// reference or another value otherwise; never an RDCSS reference).
  static std::uint64_t rdcss(std::uint64_t kcas_ref, Word* word, std::uint64_t expected, unsigned tid) noexcept {
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

  /// Whether RDCSS reference `rref` still describes an install of K-CAS operation
  /// `kcas_ref`.
  static bool rdcss_names(std::uint64_t rref, std::uint64_t kcas_ref) noexcept {
    const RdcssDescriptor& desc = domain().rdcss[tid_of(rref)];
    if (desc.seq.load(std::memory_order_acquire) != seq_of(rref)) return false;
    const bool names = desc.kcas_ref.load(std::memory_order_acquire) == kcas_ref;
    return names && desc.seq.load(std::memory_order_acquire) == seq_of(rref);
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

/// BasicKcasWord with the production sync policy.
using KcasWord = BasicKcasWord<>;
/// BasicKcas with the production sync policy.
using Kcas = BasicKcas<>;

}  // namespace cuckoo::sync
