// The only place in the library that touches Intel RTM (Restricted Transactional
// Memory) instructions and the only one that includes <immintrin.h> / <cpuid.h>.
//
// The instructions fault (#UD) on a CPU without RTM, so nothing here may run unless
// cpuid_reports_rtm() said yes; cuckoo/sync/htm.hpp guarantees that. The functions
// that execute RTM instructions carry __attribute__((target("rtm"))): that compiles
// them for RTM without a global -mrtm, so the rest of the program stays runnable on any
// x86-64.
//
// The code is compiled out (kRtmCompiled == false, every function reports "absent" or
// is never called) when CUCKOO_NO_HARDWARE_RTM is defined (the ThreadSanitizer preset
// defines it: TSan does not model transactional memory) and on non-x86 targets.
//
// Thread safety: cpuid_reports_rtm() caches its answer in a function-local static
// (initialized once, thread-safe). The rtm_* functions act on the calling thread's
// transaction only.
#pragma once

#include <cstdint>

#if !defined(CUCKOO_NO_HARDWARE_RTM) && (defined(__x86_64__) || defined(__i386__)) && \
    (defined(__GNUC__) || defined(__clang__))
#define CUCKOO_SYNC_DETAIL_RTM_COMPILED 1
#include <cpuid.h>
#include <immintrin.h>
#else
#define CUCKOO_SYNC_DETAIL_RTM_COMPILED 0
#endif

namespace cuckoo::sync::detail {

inline constexpr bool kRtmCompiled = CUCKOO_SYNC_DETAIL_RTM_COMPILED != 0;

// The bits of the status that XBEGIN leaves in EAX (Intel SDM vol. 1, 16.3.5). The
// library's own HtmStatus uses the same encoding so that a hardware status needs no
// translation.
namespace rtm_bits {
inline constexpr std::uint32_t kStarted = ~std::uint32_t{0};  // _XBEGIN_STARTED
inline constexpr std::uint32_t kExplicit = 1u << 0;           // _XABORT_EXPLICIT
inline constexpr std::uint32_t kRetry = 1u << 1;              // _XABORT_RETRY
inline constexpr std::uint32_t kConflict = 1u << 2;           // _XABORT_CONFLICT
inline constexpr std::uint32_t kCapacity = 1u << 3;           // _XABORT_CAPACITY
inline constexpr std::uint32_t kDebug = 1u << 4;              // _XABORT_DEBUG
inline constexpr std::uint32_t kNested = 1u << 5;             // _XABORT_NESTED
inline constexpr std::uint32_t kCodeShift = 24;               // _XABORT_CODE(x)
}  // namespace rtm_bits

// CPUID leaf 7, subleaf 0: EBX bit 11 is RTM, EDX bit 11 is RTM_ALWAYS_ABORT (a CPU
// whose microcode disabled TSX: XBEGIN exists but always aborts, so eliding would only
// cost time).
inline constexpr unsigned kCpuidLeafExtendedFeatures = 7;
inline constexpr unsigned kCpuidEbxRtmBit = 11;
inline constexpr unsigned kCpuidEdxRtmAlwaysAbortBit = 11;

#if CUCKOO_SYNC_DETAIL_RTM_COMPILED

static_assert(rtm_bits::kStarted == _XBEGIN_STARTED);
static_assert(rtm_bits::kExplicit == _XABORT_EXPLICIT);
static_assert(rtm_bits::kRetry == _XABORT_RETRY);
static_assert(rtm_bits::kConflict == _XABORT_CONFLICT);
static_assert(rtm_bits::kCapacity == _XABORT_CAPACITY);
static_assert(rtm_bits::kDebug == _XABORT_DEBUG);
static_assert(rtm_bits::kNested == _XABORT_NESTED);
static_assert(_XABORT_CODE(0xAB000000u) == 0xAB);

// Asks the CPU (uncached). True iff RTM is enumerated and RTM_ALWAYS_ABORT is not.
inline bool query_cpuid_rtm() noexcept {
  unsigned eax = 0;
  unsigned ebx = 0;
  unsigned ecx = 0;
  unsigned edx = 0;
  // __get_cpuid_count returns 0 when the leaf is above the maximum supported leaf.
  if (__get_cpuid_count(kCpuidLeafExtendedFeatures, 0, &eax, &ebx, &ecx, &edx) == 0) {
    return false;
  }
  const bool rtm = ((ebx >> kCpuidEbxRtmBit) & 1u) != 0;
  const bool always_aborts = ((edx >> kCpuidEdxRtmAlwaysAbortBit) & 1u) != 0;
  return rtm && !always_aborts;
}

// XBEGIN. Returns rtm_bits::kStarted inside the new transaction; on abort, execution
// resumes here (registers and memory as they were at XBEGIN) with the abort status.
// REQUIRES: cpuid_reports_rtm().
__attribute__((target("rtm"))) inline std::uint32_t rtm_begin() noexcept {
  return _xbegin();
}

// XEND: commits. REQUIRES: inside a transaction (XEND outside one faults with #GP).
__attribute__((target("rtm"))) inline void rtm_end() noexcept { _xend(); }

// XABORT with an 8-bit code: rolls back and resumes at the outermost XBEGIN with
// status kExplicit | Code << 24 (plus kNested when nested). A no-op outside a
// transaction. The code must be an immediate, hence the template parameter.
template <std::uint8_t Code>
__attribute__((target("rtm"))) inline void rtm_abort() noexcept {
  _xabort(Code);
}

// XTEST: true inside an RTM (or HLE) transaction.
__attribute__((target("rtm"))) inline bool rtm_test() noexcept { return _xtest() != 0; }

#else  // RTM compiled out: nothing here may be reached.

inline bool query_cpuid_rtm() noexcept { return false; }
inline std::uint32_t rtm_begin() noexcept { return 0; }
inline void rtm_end() noexcept {}
template <std::uint8_t Code>
inline void rtm_abort() noexcept {}
inline bool rtm_test() noexcept { return false; }

#endif

// Cached answer of query_cpuid_rtm(); the CPU cannot change under a running process.
inline bool cpuid_reports_rtm() noexcept {
  static const bool available = query_cpuid_rtm();
  return available;
}

}  // namespace cuckoo::sync::detail
