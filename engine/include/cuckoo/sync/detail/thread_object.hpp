// One object of type T per thread, alive for the whole of the thread's exit: the per-
// thread state of the concurrent code (path-search buffers, MCS queue nodes, K-CAS's
// preferred id) must stay usable from the destructors of the caller's own thread_local
// objects, which may insert into a shared filter or map while the thread ends.
//
// Why not a plain `thread_local T`: C++ destroys thread_local objects in the reverse
// order of their construction, so a user's thread_local built before the thread's first
// call into the engine is destroyed after the engine's state, and its destructor would
// then use freed memory. Here the object lives in trivially destructible thread_local
// storage (valid as long as the thread), is built there on first use, and is destroyed
// by a POSIX thread-specific key's destructor, which runs after every C++ thread_local
// destructor (glibc, musl and the BSDs run __cxa_thread_atexit destructors first). If
// something still uses the object after that (another key's destructor), it is built
// again and the key's destructor runs again in the next round
// (PTHREAD_DESTRUCTOR_ITERATIONS); one built after the last round is never destroyed,
// never used after destruction. Nothing is allocated. On a platform without <pthread.h>,
// a plain thread_local (the C++ order applies).
//
// The main thread's objects are not destroyed at exit() (POSIX runs no key destructors
// for it); they stay reachable through the thread's pointer until the process ends.
// Trivially destructible types need none of this and are plain thread_locals.
// Thread safety: each thread sees only its own object.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <new>
#include <type_traits>

#if __has_include(<pthread.h>)
#include <pthread.h>
#define CUCKOO_THREAD_OBJECT_PTHREAD 1
#endif

namespace cuckoo::sync::detail {

template <class T>
class ThreadObject {
 public:
  [[gnu::always_inline]] static T& get() noexcept {
    if constexpr (std::is_trivially_destructible_v<T>) {
      thread_local T object{};
      return object;
    } else {
#ifdef CUCKOO_THREAD_OBJECT_PTHREAD
      Slot& slot = slot_of_thread();
      if (!slot.constructed) [[unlikely]] construct(slot);
      return *std::launder(reinterpret_cast<T*>(slot.bytes));
#else
      thread_local T object;
      return object;
#endif
    }
  }

#ifdef CUCKOO_THREAD_OBJECT_PTHREAD
 private:
  // The object's storage: a trivially destructible thread_local, so it stays valid for
  // the whole of the thread's exit; nothing is allocated (an allocation that could fail
  // here would have no caller to report to).
  struct Slot {
    alignas(T) unsigned char bytes[sizeof(T)];
    bool constructed;
  };
  static_assert(std::is_trivially_destructible_v<Slot>);

  [[gnu::always_inline]] static Slot& slot_of_thread() noexcept {
    thread_local Slot slot{};
    return slot;
  }

  [[gnu::noinline]] static void construct(Slot& slot) noexcept {
    ::new (static_cast<void*>(slot.bytes)) T();
    slot.constructed = true;
    if (pthread_setspecific(key(), &slot) != 0) {
      std::fprintf(stderr, "cuckoo: pthread_setspecific failed for a per-thread object (out of memory)\n");
      std::abort();
    }
  }

  static pthread_key_t key() noexcept {
    static const pthread_key_t k = [] {
      pthread_key_t made{};
      if (pthread_key_create(&made, &destroy) != 0) {
        std::fprintf(stderr, "cuckoo: pthread_key_create failed (PTHREAD_KEYS_MAX keys in use)\n");
        std::abort();
      }
      return made;
    }();
    return k;
  }

  static void destroy(void* p) noexcept {
    Slot& slot = *static_cast<Slot*>(p);
    slot.constructed = false;  // a later use constructs it again
    std::launder(reinterpret_cast<T*>(slot.bytes))->~T();
  }
#endif
};

}  // namespace cuckoo::sync::detail
