// explore::Sync: the checking sync policy (cuckoo/sync/policy.hpp) under which every
// atomic access and every spin of the engine's concurrent code is a scheduling point of
// the deterministic scheduler (scheduler.hpp), and per-thread objects are per logical
// thread. Outside an exploration the atomics behave as std::atomic (sequentially
// consistent), fences are std::atomic_thread_fence, spins yield, and per-thread objects
// are thread_local.
//
// Memory orders are honoured as the scheduler's memory model says (scheduler.hpp,
// "Memory model"): only acquire/release pairs, release sequences through
// read-modify-writes, fences and seq_cst fences synchronize (happens-before is tracked
// in every execution, so races on explore::Plain data are found), and, where the
// strategy's Options allow stale reads, a relaxed or acquire load may read an older
// store than the newest one, as far as happens-before and coherence allow.
// seq_cst loads and every read-modify-write read the newest store. Sync::fence is the
// model's fence. compare_exchange_weak never fails spuriously here. Every access also
// goes through the scheduler's transaction bookkeeping: read-modify-writes, failed CAS
// included, count as writes. Sync::Htm is explore::Htm (htm.hpp): emulated transactions
// the explorer aborts. explore::Plain (plain.hpp) declares plain shared data whose
// races the model reports.
#pragma once

#include <array>
#include <atomic>
#include <bit>
#include <cstddef>
#include <new>
#include <thread>
#include <type_traits>
#include <typeindex>

#include "cuckoo/explore/htm.hpp"
#include "cuckoo/explore/plain.hpp"
#include "cuckoo/explore/scheduler.hpp"

namespace cuckoo::explore {

template <class T>
class Atomic {
  static_assert(sizeof(std::atomic<T>) == sizeof(T) && sizeof(T) <= 16,
                "a transaction's undo log and the modification order copy the atomic's bytes");

 public:
  Atomic() noexcept : value_(T{}) { hooks::atomic_lifetime(&value_); }
  constexpr Atomic(T value) noexcept : value_(value) {  // NOLINT: as std::atomic
    if (!std::is_constant_evaluated()) hooks::atomic_lifetime(&value_);
  }
  Atomic(const Atomic&) = delete;
  Atomic& operator=(const Atomic&) = delete;
  ~Atomic() { hooks::atomic_lifetime(&value_); }

  T load(std::memory_order order = std::memory_order_seq_cst) const noexcept {
    if (!hooks::active()) return value_.load();
    std::array<std::byte, sizeof(T)> bytes;
    hooks::load(&value_, sizeof(T), order, bytes.data());
    return std::bit_cast<T>(bytes);
  }
  void store(T value, std::memory_order order = std::memory_order_seq_cst) noexcept {
    if (!hooks::active()) return value_.store(value);
    hooks::write_begin(&value_, sizeof(T));
    value_.store(value);
    hooks::write_end(&value_, sizeof(T), hooks::WriteKind::kStore, order);
  }
  T exchange(T value, std::memory_order order = std::memory_order_seq_cst) noexcept {
    if (!hooks::active()) return value_.exchange(value);
    hooks::write_begin(&value_, sizeof(T));
    const T old = value_.exchange(value);
    hooks::write_end(&value_, sizeof(T), hooks::WriteKind::kReadModifyWrite, order);
    return old;
  }
  bool compare_exchange_strong(T& expected, T desired, std::memory_order success,
                               std::memory_order failure) noexcept {
    if (!hooks::active()) return value_.compare_exchange_strong(expected, desired);
    hooks::write_begin(&value_, sizeof(T));
    const bool swapped = value_.compare_exchange_strong(expected, desired);
    hooks::write_end(&value_, sizeof(T),
                     swapped ? hooks::WriteKind::kReadModifyWrite : hooks::WriteKind::kFailedReadModifyWrite,
                     swapped ? success : failure);
    return swapped;
  }
  // The failure order derived from `order` as std::atomic does.
  bool compare_exchange_strong(T& expected, T desired, std::memory_order order = std::memory_order_seq_cst) noexcept {
    return compare_exchange_strong(expected, desired, order, failure_order(order));
  }
  bool compare_exchange_weak(T& expected, T desired, std::memory_order success, std::memory_order failure) noexcept {
    return compare_exchange_strong(expected, desired, success, failure);
  }
  bool compare_exchange_weak(T& expected, T desired, std::memory_order order = std::memory_order_seq_cst) noexcept {
    return compare_exchange_strong(expected, desired, order, failure_order(order));
  }
  T fetch_add(T delta, std::memory_order order = std::memory_order_seq_cst) noexcept
    requires std::is_integral_v<T>
  {
    if (!hooks::active()) return value_.fetch_add(delta);
    hooks::write_begin(&value_, sizeof(T));
    const T old = value_.fetch_add(delta);
    hooks::write_end(&value_, sizeof(T), hooks::WriteKind::kReadModifyWrite, order);
    return old;
  }
  T fetch_sub(T delta, std::memory_order order = std::memory_order_seq_cst) noexcept
    requires std::is_integral_v<T>
  {
    if (!hooks::active()) return value_.fetch_sub(delta);
    hooks::write_begin(&value_, sizeof(T));
    const T old = value_.fetch_sub(delta);
    hooks::write_end(&value_, sizeof(T), hooks::WriteKind::kReadModifyWrite, order);
    return old;
  }

 private:
  static constexpr std::memory_order failure_order(std::memory_order order) noexcept {
    if (order == std::memory_order_acq_rel) return std::memory_order_acquire;
    if (order == std::memory_order_release) return std::memory_order_relaxed;
    return order;
  }

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

  // The model's fence (scheduler.hpp, "Memory model"); std::atomic_thread_fence outside.
  static void fence(std::memory_order order) noexcept {
    if (hooks::active()) {
      hooks::fence(order);
    } else {
      std::atomic_thread_fence(order);
    }
  }

  using Htm = explore::Htm;
};

}  // namespace cuckoo::explore
