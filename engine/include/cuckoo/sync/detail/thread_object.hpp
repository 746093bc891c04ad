// One object of type T per thread, alive for the whole of the thread's exit: the per-
// thread state of the concurrent code (path-search buffers, MCS queue nodes, K-CAS's
// preferred id) must stay usable from the destructors of the caller's own thread_local
// objects, which may insert into a shared filter or map while the thread ends.
//
// Why not a plain `thread_local T`: C++ destroys thread_local objects in the reverse
// order of their construction, so a user's thread_local built before the thread's first
// call into the engine is destroyed after the engine's state, and its destructor would
// then use freed memory. Here the object is reached through a trivially destructible
// thread_local pointer (its storage lives as long as the thread) and owned by a POSIX
// thread-specific key, whose destructor runs after every C++ thread_local destructor
// (glibc, musl and the BSDs run __cxa_thread_atexit destructors first). If something
// still uses the object after that (another key's destructor), a new one is made and the
// key's destructor runs again in the next round (PTHREAD_DESTRUCTOR_ITERATIONS); what is
// made after the last round is leaked, never used after free. On a platform without
// <pthread.h>, a plain thread_local (the C++ order applies).
//
// The main thread's objects are not destroyed at exit() (POSIX runs no key destructors
// for it); they stay reachable through the thread's pointer until the process ends.
// Trivially destructible types need none of this and are plain thread_locals.
// Thread safety: each thread sees only its own object.
#pragma once

#include <cstdio>
#include <cstdlib>
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
      thread_local T* object = nullptr;  // trivially destructible: readable during exit
      if (object == nullptr) [[unlikely]] object = make(&object);
      return *object;
#else
      thread_local T object;
      return object;
#endif
    }
  }

#ifdef CUCKOO_THREAD_OBJECT_PTHREAD
 private:
  struct Holder {
    T value;
    T** pointer;  // the thread's pointer to value: cleared when value is destroyed
  };

  [[gnu::noinline]] static T* make(T** pointer) noexcept {
    auto* holder = new Holder{T(), pointer};
    if (pthread_setspecific(key(), holder) != 0) {
      std::fprintf(stderr, "cuckoo: pthread_setspecific failed for a per-thread object\n");
      std::abort();
    }
    return &holder->value;
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
    auto* holder = static_cast<Holder*>(p);
    *holder->pointer = nullptr;  // a later use makes a new object
    delete holder;
  }
#endif
};

}  // namespace cuckoo::sync::detail
