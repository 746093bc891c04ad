// The scheduler's memory model (scheduler.hpp, "Memory model"), internal to the explore
// library: vector clocks per logical thread, the modification order of every atomic
// location the execution touched, the race-checking history of every Plain, and the
// ordering that committed transactions impose. The scheduler (scheduler.cpp) decides
// which thread runs and which store a load reads; this class says which stores a load
// may read, performs the accesses' clock bookkeeping, and reports races.
//
// Happens-before is tracked with epochs: every event of thread t (an atomic access, a
// fence, a Plain access) first increments t's own clock component; an event of thread u
// at epoch e happens-before thread t's current point iff e <= t's clock[u]. What an
// acquire that reads a store joins is the store's `sync` clock: the storing thread's
// clock for a release store, its clock at its last release fence for a relaxed one, and,
// for a read-modify-write, also the sync clock of the store it read (release sequences).
//
// Coherence: per location, `seen` lists (thread, epoch, index) whenever a thread read or
// wrote a store of a higher modification-order index than before. The oldest store a
// load of thread t may read is the newest index among the entries that happen-before the
// load (t's own always do): that covers write-read, read-read and read-write coherence.
//
// Not thread-safe: one per Run.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace cuckoo::explore::memory {

// A vector clock, inline up to kInline threads.
class VClock {
 public:
  std::uint32_t get(std::size_t t) const noexcept { return t < size_ ? data()[t] : 0; }
  void set(std::size_t t, std::uint32_t v) {
    grow(t + 1);
    data()[t] = v;
  }
  void join(const VClock& other);
  bool empty() const noexcept { return size_ == 0; }

 private:
  static constexpr std::size_t kInline = 6;
  std::uint32_t* data() noexcept { return heap_.empty() ? small_.data() : heap_.data(); }
  const std::uint32_t* data() const noexcept { return heap_.empty() ? small_.data() : heap_.data(); }
  void grow(std::size_t n);

  std::array<std::uint32_t, kInline> small_{};
  std::vector<std::uint32_t> heap_;
  std::size_t size_ = 0;
};

// One store of an atomic location.
struct StoreRecord {
  std::array<unsigned char, 16> bytes{};
  int thread = -1;         // -1: the value the location had when the execution met it
  std::uint32_t epoch = 0;
  std::uint64_t tx = 0;    // serial of the transaction that wrote it (0: none)
  VClock sync;             // what an acquire that reads it joins
};

struct SeenRecord {
  unsigned thread;
  std::uint32_t epoch;
  std::uint64_t index;
};

// An atomic location: its modification order (the last kKeep stores at least).
struct Location {
  std::size_t size = 0;
  std::uint64_t base = 0;  // modification-order index of stores.front()
  std::vector<StoreRecord> stores;
  std::vector<SeenRecord> seen;
  std::uint64_t end() const noexcept { return base + stores.size(); }
  StoreRecord& at(std::uint64_t index) { return stores[index - base]; }
  const StoreRecord& at(std::uint64_t index) const { return stores[index - base]; }
};

// A logical thread's clocks.
struct ThreadClocks {
  VClock clock;
  VClock fence_release;    // its clock at its last release fence
  bool released = false;   // whether it had one
  VClock acquire_pending;  // sync clocks its relaxed loads read, for an acquire fence
};

// The race-checking history of a Plain: the last write, and the reads since it.
struct PlainHistory {
  struct Access {
    std::uint32_t epoch = 0;  // 0: none
    std::uint64_t step = 0;   // the thread's step, for the report
  };
  int writer = -1;  // -1: none (the value from the scenario's setup)
  Access write;
  std::vector<Access> reads;  // per thread
};

class MemoryModel {
 public:
  explicit MemoryModel(std::size_t threads);

  // The transaction thread t has open and not aborted (0: none): its stores are
  // tentative, and invisible to other threads' read choices.
  void set_open_tx(unsigned t, std::uint64_t serial) { open_tx_[t] = serial; }

  // How many stores thread t's load of `address` (order) may read now: 1 when it has no
  // choice (seq_cst, inside a transaction, or a location with one readable store).
  unsigned read_options(unsigned t, const void* address, std::memory_order order, bool in_tx) const;

  // Thread t's load: reads the store `older` places before the newest it may read
  // (clamped), copies it to `out` (from memory when it is the newest), synchronizes.
  // Returns whether it read an older store than the newest.
  bool load(unsigned t, const void* address, std::size_t size, std::memory_order order, unsigned older, bool in_tx,
            void* out);
  // Before a write of `address` (memory still holds the newest store): the location's
  // modification-order length, for a transaction's undo.
  std::uint64_t write_begin(const void* address, std::size_t size);
  // After it: `stored` whether memory changed; `read_newest` whether it read first.
  void write_end(unsigned t, const void* address, bool read_newest, bool stored, std::memory_order order,
                 std::uint64_t tx);
  void fence(unsigned t, std::memory_order order);
  // A real-time point (scheduler.hpp, real_time_point()): an acq_rel read-modify-write
  // of one counter that every such point updates.
  void real_time_point(unsigned t);
  // A new object at `address`: its history starts afresh.
  void lifetime(const void* address) noexcept;

  // A Plain access by thread t at its step `step`: "" or the race it makes.
  std::string plain_access(unsigned t, const void* address, bool write, const char* name, std::uint64_t step);
  void plain_created(unsigned t, const void* address, std::uint64_t step);
  void plain_destroyed(const void* address) noexcept { plains_.erase(address); }
  // For a transaction's undo. A write's: the Plain's whole history (a copy; `had` false
  // when it had none); the write dooms every other open transaction that accessed the
  // Plain first, so the copy holds nothing a later undo takes away. A read's: only the
  // reading thread's entry (other open transactions' reads may be undone meanwhile).
  PlainHistory plain_history(const void* address, bool* had) const;
  void restore_plain_history(const void* address, const PlainHistory& history, bool had);
  PlainHistory::Access plain_read(const void* address, unsigned t) const;
  void restore_plain_read(const void* address, unsigned t, PlainHistory::Access read);

  // Transactions. Every access (atomic, Plain, or a transaction's protected objects) by
  // thread t joins the clocks of the committed transactions it conflicts with.
  void conflict_order(unsigned t, const void* address, bool write);
  // Thread t's transaction `serial` committed: of its stores to each location only the
  // last stays in the modification order (a transaction is atomic: no other thread may
  // ever read a value from inside it), and it orders later conflicting accesses.
  void tx_committed(unsigned t, std::uint64_t serial, const std::vector<const void*>& reads,
                    const std::vector<const void*>& writes);
  // An aborted transaction's write of `address`: its stores from `length` on leave the
  // modification order.
  void truncate(const void* address, std::uint64_t length);
  // An aborted transaction of thread t: its clocks back to `saved` (its own epoch moves
  // on), and what it read or wrote in `touched` after epoch `begin_epoch` forgotten.
  void tx_aborted(unsigned t, const ThreadClocks& saved, std::uint32_t begin_epoch,
                  const std::vector<const void*>& touched);
  const ThreadClocks& clocks(unsigned t) const { return threads_[t]; }

 private:
  static constexpr std::size_t kKeep = 32;  // stores kept per location at least

  Location& location(const void* address, std::size_t size);
  std::uint32_t tick(unsigned t);
  // The oldest index thread t (with clock c) may read at l.
  std::uint64_t oldest_readable(unsigned t, const Location& l, const VClock& c) const;
  // The newest index of l not written by another thread's open transaction.
  std::uint64_t newest_visible(unsigned t, const Location& l) const;
  void note_seen(Location& l, unsigned t, std::uint64_t index);
  void prune(Location& l);

  std::vector<ThreadClocks> threads_;
  std::vector<std::uint64_t> open_tx_;
  std::unordered_map<const void*, Location> locations_;
  std::unordered_map<const void*, PlainHistory> plains_;
  struct TxOrder {
    VClock wrote;  // committed transactions that wrote the location
    VClock read;   // ... that read it
  };
  std::unordered_map<const void*, TxOrder> tx_order_;
  VClock seq_cst_;  // seq_cst fences and stores so far
  VClock real_time_;  // real-time points so far
};

}  // namespace cuckoo::explore::memory
