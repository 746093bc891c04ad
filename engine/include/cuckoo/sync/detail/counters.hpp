// Statistics counters for the synchronization layer, sharded so that counting does not
// itself become the contended cache line.
//
// An elided lock exists to let critical sections run in parallel; one shared counter
// word bumped on every acquisition would bounce between all cores and serialize them
// again. ShardedCounters keeps kCounterShards copies of the counter array, each on its
// own cache lines; a thread always bumps the copy chosen by its thread index, and a
// snapshot sums the copies.
//
// Thread safety: add() may be called concurrently from any number of threads. Counts
// are std::memory_order_relaxed: they are statistics and order nothing. A sum taken
// while other threads count is some value between the counts before and after; taken
// after the counting threads have been joined (join synchronizes) it is exact. Sums of
// different counters are not one atomic snapshot.
//
// Counters are never bumped inside a hardware transaction (a write to a shared line
// inside a transaction would make every concurrent transaction conflict on it, and
// would be rolled back on abort anyway); the callers count before begin() and after
// end() or the abort.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>

#include "cuckoo/sync/detail/spin.hpp"

namespace cuckoo::sync::detail {

inline constexpr std::size_t kCounterShards = 8;

// The shard of the calling thread: threads are numbered in the order they first count,
// modulo kCounterShards.
inline std::size_t this_thread_counter_shard() noexcept {
  // relaxed: the numbering only needs to be unique-ish, not ordered with anything.
  static std::atomic<std::size_t> next_index{0};
  thread_local const std::size_t index =
      next_index.fetch_add(1, std::memory_order_relaxed) % kCounterShards;
  return index;
}

// N counters, indexed by an enum (or integer) below N.
template <std::size_t N>
class ShardedCounters {
 public:
  static constexpr std::size_t kCount = N;

  template <class Index>
  void add(Index index, std::uint64_t amount = 1) noexcept {
    shards_[this_thread_counter_shard()].values[static_cast<std::size_t>(index)].fetch_add(
        amount, std::memory_order_relaxed);
  }

  template <class Index>
  std::uint64_t sum(Index index) const noexcept {
    std::uint64_t total = 0;
    for (const Shard& shard : shards_) {
      total += shard.values[static_cast<std::size_t>(index)].load(std::memory_order_relaxed);
    }
    return total;
  }

 private:
  struct alignas(kCacheLineSize) Shard {
    std::array<std::atomic<std::uint64_t>, N> values{};
  };
  std::array<Shard, kCounterShards> shards_{};
};

}  // namespace cuckoo::sync::detail
