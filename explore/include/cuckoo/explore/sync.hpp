// explore::Sync: the checking sync policy (cuckoo/sync/policy.hpp) under which every
// atomic access and every spin of the engine's concurrent code is a scheduling point of
// the deterministic scheduler (scheduler.hpp), and per-thread objects are per logical
// thread. Outside an exploration the atomics behave as std::atomic (sequentially
// consistent), spins yield, and per-thread objects are thread_local.
//
// Memory orders are accepted and ignored: the scheduler explores interleavings of
// indivisible, sequentially consistent steps (see scheduler.hpp, "Model").
// compare_exchange_weak never fails spuriously here. Every access also goes through the
// scheduler's transaction bookkeeping (hooks::access): read-modify-writes, failed CAS
// included, count as writes. Sync::Htm is explore::Htm (htm.hpp): emulated transactions
// the explorer aborts.
#pragma once

#include <atomic>
#include <new>
#include <thread>
#include <type_traits>
#include <typeindex>

#include "cuckoo/explore/htm.hpp"
#include "cuckoo/explore/scheduler.hpp"

namespace cuckoo::explore {

template <class T>
class Atomic {
  static_assert(sizeof(std::atomic<T>) == sizeof(T) && sizeof(T) <= 16,
                "a transaction's undo log copies the atomic's bytes");

 public:
  Atomic() noexcept : value_(T{}) {}
  constexpr Atomic(T value) noexcept : value_(value) {}  // NOLINT: as std::atomic
  Atomic(const Atomic&) = delete;
  Atomic& operator=(const Atomic&) = delete;

  T load(std::memory_order = std::memory_order_seq_cst) const noexcept {
    hooks::access(&value_, sizeof(value_), false);
    return value_.load();
  }
  void store(T value, std::memory_order = std::memory_order_seq_cst) noexcept {
    hooks::access(&value_, sizeof(value_), true);
    value_.store(value);
    hooks::wrote();
  }
  T exchange(T value, std::memory_order = std::memory_order_seq_cst) noexcept {
    hooks::access(&value_, sizeof(value_), true);
    const T old = value_.exchange(value);
    hooks::wrote();
    return old;
  }
  bool compare_exchange_strong(T& expected, T desired, std::memory_order = std::memory_order_seq_cst,
                               std::memory_order = std::memory_order_seq_cst) noexcept {
    hooks::access(&value_, sizeof(value_), true);
    const bool swapped = value_.compare_exchange_strong(expected, desired);
    if (swapped) hooks::wrote();
    return swapped;
  }
  bool compare_exchange_weak(T& expected, T desired, std::memory_order success = std::memory_order_seq_cst,
                             std::memory_order failure = std::memory_order_seq_cst) noexcept {
    return compare_exchange_strong(expected, desired, success, failure);
  }
  T fetch_add(T delta, std::memory_order = std::memory_order_seq_cst) noexcept
    requires std::is_integral_v<T>
  {
    hooks::access(&value_, sizeof(value_), true);
    const T old = value_.fetch_add(delta);
    hooks::wrote();
    return old;
  }
  T fetch_sub(T delta, std::memory_order = std::memory_order_seq_cst) noexcept
    requires std::is_integral_v<T>
  {
    hooks::access(&value_, sizeof(value_), true);
    const T old = value_.fetch_sub(delta);
    hooks::wrote();
    return old;
  }

 private:
  std::atomic<T> value_;
};

struct Sync {
  template <class T>
  using Atomic = explore::Atomic<T>;

  class SpinWait {
   public:
    void wait() noexcept {
      if (hooks::active()) {
        hooks::spin();
      } else {
        std::this_thread::yield();
      }
    }
  };

  template <class T>
  static T& thread_local_object() noexcept {
    void* object = hooks::thread_object(
        typeid(T), [] { return static_cast<void*>(new T()); },
        [](void* p) { delete static_cast<T*>(p); });
    if (object == nullptr) {
      thread_local T fallback;
      return fallback;
    }
    return *static_cast<T*>(object);
  }

  // Every step is sequentially consistent here: a fence orders nothing more.
  static void fence(std::memory_order) noexcept {}

  using Htm = explore::Htm;
};

}  // namespace cuckoo::explore
