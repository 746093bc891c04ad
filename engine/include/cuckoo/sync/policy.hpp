// Sync policies: the primitives the concurrent code of cuckoo/sync is written against,
// taken from a policy type so that the same code runs on real threads (StdSync, the
// default: std::atomic, the spin back-off of detail/spin.hpp and per-thread objects
// that outlive the thread's C++ thread_local destructors, detail/thread_object.hpp) or under a deterministic scheduler that makes every primitive
// a scheduling point (the suite's explore/ layer supplies that policy; the engine
// includes nothing of it).
//
// A policy P provides:
//   template <class T> using Atomic = ...;   std::atomic's interface for what the code
//       uses: load, store, exchange, compare_exchange_strong/weak, fetch_add/fetch_sub,
//       each with explicit memory orders;
//   class SpinWait { void wait(); };          one call per failed check of a spin loop's
//       condition ("wait until another thread writes");
//   template <class T> static T& thread_local_object();  one default-constructed T per
//       thread of the policy (an OS thread for StdSync, a logical thread under the
//       scheduler), destroyed when that thread ends, and usable until then, from the
//       destructors of the thread's thread_local objects too;
//   static void fence(std::memory_order);     std::atomic_thread_fence.
//   using Htm = ...;                          the transaction primitive of lock elision,
//       with sync::Htm's interface (htm.hpp): begin/end/abort, in_transaction,
//       drain_transactions, protect, policy and statistics. StdSync's is sync::Htm (real
//       RTM and its test backends); the checking policy's runs emulated transactions
//       that abort at any scheduling point and on any conflicting access.
// Thread safety: as std::atomic and thread_local.
#pragma once

#include <atomic>

#include "cuckoo/sync/detail/spin.hpp"
#include "cuckoo/sync/detail/thread_object.hpp"

namespace cuckoo::sync {

class Htm;  // htm.hpp; only the code that elides locks needs it complete

/// The production sync policy: std::atomic, the spin back-off, per-thread objects that
/// outlive the thread's thread_local destructors, and sync::Htm (real RTM where the CPU
/// has it). See the comment at the top of policy.hpp for what a policy provides.
struct StdSync {
  /// std::atomic<T>.
  template <class T>
  using Atomic = std::atomic<T>;
  /// The spin back-off: one wait() per failed check of a spin loop's condition.
  using SpinWait = detail::SpinWait;
  /// One default-constructed T per OS thread, destroyed when the thread ends and usable
  /// until then, from the destructors of its thread_local objects too.
  template <class T>
  [[gnu::always_inline]] static T& thread_local_object() noexcept {
    return detail::ThreadObject<T>::get();
  }
  /// std::atomic_thread_fence(order).
  static void fence(std::memory_order order) noexcept { std::atomic_thread_fence(order); }
  /// The transaction primitive of lock elision (htm.hpp).
  using Htm = sync::Htm;
};

}  // namespace cuckoo::sync
