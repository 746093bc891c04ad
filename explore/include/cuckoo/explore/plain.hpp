// explore::Plain<T>: plain (non-atomic) shared data of a scenario, declared so that the
// scheduler's memory model checks it for data races (scheduler.hpp, "Memory model"):
// two accesses of different threads, at least one a write, not ordered by
// happens-before, fail the execution with "data race on NAME" and its replayable
// schedule, whichever order they ran in. Data a lock protects is the typical use: a
// lock whose hand-off does not release shows as a race on it in every schedule that
// hands over.
//
// Accesses are not scheduling points. Inside an emulated transaction they join its read
// or write set (a conflicting access of another thread aborts it, as for atomics) and a
// write is undone if it aborts. Outside an exploration (a scenario's setup and check) a
// Plain is a plain T. Not thread-safe: it is for the scheduler's logical threads.
#pragma once

#include <cstddef>
#include <type_traits>

#include "cuckoo/explore/scheduler.hpp"

namespace cuckoo::explore {

template <class T>
class Plain {
  static_assert(std::is_trivially_copyable_v<T> && sizeof(T) <= 64,
                "a transaction's undo log copies the bytes of what it overwrites");

 public:
  // `name` (a string that outlives the Plain) names it in a race report. Constructed on
  // a logical thread, the construction is that thread's write.
  explicit Plain(T value = T{}, const char* name = "a Plain") noexcept : value_(value), name_(name) {
    hooks::plain_created(&value_, sizeof(T), name_);
  }
  Plain(const Plain&) = delete;
  Plain& operator=(const Plain&) = delete;
  ~Plain() { hooks::plain_destroyed(&value_); }

  T get() const {
    hooks::plain_access(&value_, sizeof(T), false, name_);
    return value_;
  }
  void set(T value) {
    hooks::plain_access(&value_, sizeof(T), true, name_);
    value_ = value;
  }
  operator T() const { return get(); }  // NOLINT: reads as the T it holds
  Plain& operator=(T value) {
    set(value);
    return *this;
  }
  // A read, then a write.
  Plain& operator+=(T delta)
    requires std::is_arithmetic_v<T>
  {
    set(static_cast<T>(get() + delta));
    return *this;
  }
  Plain& operator-=(T delta)
    requires std::is_arithmetic_v<T>
  {
    set(static_cast<T>(get() - delta));
    return *this;
  }
  Plain& operator++()
    requires std::is_arithmetic_v<T>
  {
    return *this += T{1};
  }
  Plain& operator--()
    requires std::is_arithmetic_v<T>
  {
    return *this -= T{1};
  }

  const char* name() const noexcept { return name_; }

 private:
  T value_;
  const char* name_;
};

}  // namespace cuckoo::explore
