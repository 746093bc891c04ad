// The compilers and targets the engine supports, checked once for every public header.
//
// The engine uses GCC/Clang extensions: __builtin_prefetch, __builtin_expect and
// __builtin_bswap, unsigned __int128 for 64x64->128 multiplies, [[gnu::noinline]] and
// [[gnu::always_inline]] to keep slow paths out of line and fast ones inline, and
// __attribute__((target("rtm"))) with the RTM intrinsics where hardware transactions are
// compiled in (x86 only). Supported: g++ >= 12 and clang++ >= 14 in C++20 mode, on 64-bit targets
// (x86-64 is the tested one; other 64-bit targets build without the RTM backend). MSVC
// and 32-bit targets are not supported: say so at the first include rather than with
// hundreds of unrelated errors later.
#pragma once

#if !defined(__GNUC__) && !defined(__clang__)
#error "cuckoo needs GCC (>= 12) or Clang (>= 14): the engine uses GCC/Clang builtins (__builtin_prefetch, __int128, gnu:: attributes)"
#endif

#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ < 12
#error "cuckoo needs g++ 12 or newer (C++20 concepts and <bit> as g++ 12 implements them)"
#endif

#if defined(__clang__) && __clang_major__ < 14
#error "cuckoo needs clang++ 14 or newer"
#endif

#if __cplusplus < 202002L
#error "cuckoo needs C++20 (-std=c++20 or newer; the CMake target cuckoo::engine sets it)"
#endif

#if !defined(__SIZEOF_POINTER__) || __SIZEOF_POINTER__ != 8
#error "cuckoo needs a 64-bit target (bucket indices and slot positions are computed in 64 bits)"
#endif

// On a lambda (after its parameter list): inline it into every caller, as
// [[gnu::always_inline]] does for functions.
#define CUCKOO_ALWAYS_INLINE_LAMBDA __attribute__((always_inline))

namespace cuckoo::detail {

// A prefetch the compiler keeps. g++ 12 at -O2/-O3 deletes a __builtin_prefetch whose
// only guard is a branch on computed data (`if (m != 0) __builtin_prefetch(p)`: no
// instruction is emitted; clang keeps it), which silently turned CuckooMap::find_many's
// second stage into nothing. On x86 this emits the instruction through an asm statement,
// which no pass removes; elsewhere it is __builtin_prefetch. A hint: no effect on
// memory, and any address the caller could form is allowed (the operand is never read).
[[gnu::always_inline]] inline void prefetch_kept(const void* p) noexcept {
#if defined(__x86_64__)
  asm volatile("prefetcht0 %0" : : "m"(*static_cast<const char*>(p)));
#else
  __builtin_prefetch(p);
#endif
}

}  // namespace cuckoo::detail
