// Spinning primitives shared by the locks in cuckoo/sync: the cache-line size used for
// padding, the pause instruction, and the back-off that every spin loop in this folder
// goes through.
//
// Thread safety: everything here is either a constant or per-call state.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <thread>

namespace cuckoo::sync::detail {

// The unit of false sharing we pad to. Fixed rather than
// std::hardware_destructive_interference_size: that constant may differ between
// compilers and flags (g++ warns about using it in headers, -Winterference-size), and a
// header-only library must lay out its types the same way in every translation unit.
// 64 bytes is the line size of every x86-64 and of most AArch64 parts.
inline constexpr std::size_t kCacheLineSize = 64;

// Listing 1.1 (seed 004) pads the lock word to 128 bytes (spec_mcs_lock_t, lines 1-4):
// Intel's adjacent-line prefetcher pulls cache lines in pairs, so a lock word that
// shares a 128-byte pair with hot data still ping-pongs. Locks use this alignment.
inline constexpr std::size_t kLockAlignment = 128;

// One pause: tells the core this is a spin-wait (frees pipeline resources for the
// sibling hyper-thread and avoids the memory-order machine clear when the spin ends).
// The seed's cpu_relax().
inline void cpu_relax() noexcept {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield" ::: "memory");
#else
  // No pause instruction known: a compiler barrier keeps the loop from being folded.
  asm volatile("" ::: "memory");
#endif
}

// Back-off for a documented spin ("wait until X"): the caller loops on its condition
// and calls wait() once per failed check. Three phases:
//   1. the first kPauseRounds calls pause 1, 2, 4, ... 2^(kPauseRounds-1) times (63
//      pauses in all: a few microseconds, enough for a short critical section);
//   2. the next kYieldRounds calls yield the processor;
//   3. every later call sleeps kSleep.
// Phases 2 and 3 are what make spins progress when there are more runnable threads than
// cores (tests run four threads on two shared cores, and a queue lock hands the lock to
// a waiter that may not be running): yielding lets a runnable thread on the same core
// go first, and sleeping idles the core, so the scheduler pulls the thread we wait for
// onto it. Measured on 2 loaded cores (4 threads x 20000 McsLock acquisitions), a long
// pause phase with yield only (1023 pauses) hit multi-second convoys; this schedule
// stayed near the unloaded time. The cost of phase 3, up to kSleep plus a wake-up of
// extra latency, is paid only by a waiter that has already waited through phase 2.
//
// The spin itself is unbounded by design (a lock waiter waits as long as the holder
// holds); what is bounded is the busy part of it.
class SpinWait {
 public:
  static constexpr std::uint32_t kPauseRounds = 6;
  static constexpr std::uint32_t kYieldRounds = 16;
  static constexpr std::chrono::microseconds kSleep{20};

  void wait() noexcept {
    if (round_ < kPauseRounds) {
      const std::uint32_t pauses = std::uint32_t{1} << round_;
      for (std::uint32_t i = 0; i < pauses; ++i) cpu_relax();
      ++round_;
    } else if (round_ < kPauseRounds + kYieldRounds) {
      ++round_;
      std::this_thread::yield();
    } else {
      std::this_thread::sleep_for(kSleep);
    }
  }

 private:
  std::uint32_t round_ = 0;
};

}  // namespace cuckoo::sync::detail
