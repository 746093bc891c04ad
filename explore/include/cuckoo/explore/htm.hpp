// explore::Htm: the transaction primitive of the checking policy (explore::Sync::Htm),
// with sync::Htm's interface, so that BasicElidedLock<Fallback, explore::Sync> runs its
// transactional path under the deterministic scheduler on any machine, RTM or not.
//
// Which transactions start follows the HtmPolicy as sync::Htm does (kDisabled: none;
// kAlwaysAbort, kScripted, kRandom: the same injected statuses at begin(), by the same
// counter), except that every transaction that starts (kHardware and kSerialEmulation
// start all of them) is an emulated transaction of the scheduler (scheduler.hpp,
// "Transactions"): strongly isolated, aborted by any conflicting access of another
// thread and, at the explorer's choice, at any scheduling point inside it, with its
// effects discarded and begin() returning a second time with the abort status, as RTM
// does. Transactions of different threads therefore overlap, unlike sync::Htm's serial
// emulation, and drain_transactions() has nothing to wait for: a fallback holder's
// write of the lock word aborts every transaction that read it, at once.
//
// protect(object): the critical sections write `object` as plain memory, which the
// scheduler cannot watch (explore::Plain data it can: a transaction's Plain writes are
// undone without protect()). Each transaction copies it at its first access (for
// ElidedLock, the read of the fallback lock word: from then on only this transaction
// may write it) and restores the copy if it aborts; and each transaction counts as
// writing the object, so two transactions on it never overlap (hardware would let two
// readers run together: this is stricter, never looser).
//
// Outside an exploration (a scenario's setup on the OS thread) no transaction starts:
// begin() reports "not started" and callers take their fallback. Not thread-safe: the
// scheduler runs every logical thread on one OS thread.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <utility>
#include <vector>

#include "cuckoo/explore/scheduler.hpp"
#include "cuckoo/sync/htm.hpp"

namespace cuckoo::explore {

class Htm {
 public:
  // Throws ConfigError if policy.validate() does.
  explicit Htm(sync::HtmPolicy policy = sync::HtmPolicy::serial_emulation())
      : policy_((policy.validate(), std::move(policy))) {}

  Htm(const Htm&) = delete;
  Htm& operator=(const Htm&) = delete;

  sync::HtmStatus begin() noexcept {
    ++stats_.attempts;
    const sync::HtmStatus decided = decide();
    if (decided.is_not_started() || (decided.is_started() && !hooks::active())) {
      ++stats_.not_started;
      return sync::HtmStatus::make_not_started();
    }
    if (!decided.is_started()) {
      ++stats_.injected_aborts;
      record_abort(decided);
      return decided;
    }
    const sync::HtmStatus status(hooks::tx_begin(this, &objects_));
    if (status.is_started()) {
      ++stats_.started;
    } else if (status.is_not_started()) {
      ++stats_.not_started;
    } else {
      ++stats_.started;  // it ran, and aborted
      record_abort(status);
    }
    return status;
  }

  void end() noexcept {
    hooks::tx_commit();
    ++stats_.commits;
  }

  template <std::uint8_t Code>
  sync::HtmStatus abort() noexcept {
    hooks::tx_abort();
    const sync::HtmStatus status = sync::HtmStatus::make_explicit(Code);
    record_abort(status);
    return status;
  }

  bool in_transaction() const noexcept { return hooks::tx_open(this); }

  // Conflicts abort transactions eagerly (see the top): nothing to wait for.
  void drain_transactions() noexcept {}

  template <class T>
  void protect(T& object) {
    objects_.push_back(hooks::TxObject{&object, [&object] {
                                         auto copy = std::make_shared<T>(object);
                                         return std::function<void()>([&object, copy] { object = *copy; });
                                       }});
  }

  const sync::HtmPolicy& policy() const noexcept { return policy_; }
  sync::HtmBackend backend() const noexcept { return policy_.backend; }
  sync::HtmBackend effective_backend() const noexcept { return policy_.backend; }
  sync::HtmStats stats() const noexcept { return stats_; }

 private:
  // What begin() number n does, as sync::Htm decides it.
  sync::HtmStatus decide() noexcept {
    switch (policy_.backend) {
      case sync::HtmBackend::kDisabled:
        return sync::HtmStatus::make_not_started();
      case sync::HtmBackend::kAlwaysAbort:
        return policy_.forced_abort;
      case sync::HtmBackend::kScripted:
      case sync::HtmBackend::kRandom:
        return sync::Htm::dealt(policy_, cursor_++);
      case sync::HtmBackend::kHardware:
      case sync::HtmBackend::kSerialEmulation:
        return sync::HtmStatus::make_started();
    }
    return sync::HtmStatus::make_not_started();
  }

  void record_abort(sync::HtmStatus s) noexcept {
    ++stats_.aborts;
    const std::uint32_t raw = s.raw();
    if ((raw & sync::HtmStatus::kExplicit) != 0) ++stats_.abort_explicit;
    if ((raw & sync::HtmStatus::kRetry) != 0) ++stats_.abort_retry;
    if ((raw & sync::HtmStatus::kConflict) != 0) ++stats_.abort_conflict;
    if ((raw & sync::HtmStatus::kCapacity) != 0) ++stats_.abort_capacity;
    if ((raw & sync::HtmStatus::kDebug) != 0) ++stats_.abort_debug;
    if ((raw & sync::HtmStatus::kNested) != 0) ++stats_.abort_nested;
    if ((raw & sync::HtmStatus::kReasonBits) == 0) ++stats_.abort_other;
  }

  const sync::HtmPolicy policy_;
  std::uint64_t cursor_ = 0;
  std::vector<hooks::TxObject> objects_;
  sync::HtmStats stats_;
};

}  // namespace cuckoo::explore
