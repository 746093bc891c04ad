// Shared pieces of the benchmark programs: sizes chosen by environment variables, key
// streams, a cycle counter for sampled per-operation timings, and memory regions with or
// without transparent huge pages.
//
// Environment (read once; ci/bench sets them, a plain run uses the defaults):
//   CUCKOO_BENCH_SIZES   comma-separated item counts for the filter benchmarks, with
//                        optional K/M suffixes (default "1M,10M,100M")
//   CUCKOO_BENCH_FILLS   times each insert-to-load benchmark refills its structure at
//                        sizes up to 10M (default 3; always 1 above 10M)
//   CUCKOO_BENCH_MAP_ITEMS  items of the CuckooMap / std::unordered_map comparison
//                        (default 10M)
//   CUCKOO_BENCH_SEED    seed of every key stream and op stream (default 1)
// Every figure is reproducible from these and the binary: keys are a bijection of a
// counter, so no two streams share a key.
#pragma once

#include <sys/mman.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <new>
#include <string>
#include <string_view>
#include <vector>

#include <benchmark/benchmark.h>

#include "cuckoo/hash.hpp"

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define CUCKOO_BENCH_HAVE_TSC 1
#else
#define CUCKOO_BENCH_HAVE_TSC 0
#endif

namespace cuckoo::bench {

// ---- Configuration from the environment.

inline std::uint64_t parse_count(std::string_view text) {
  std::uint64_t scale = 1;
  if (!text.empty()) {
    const char last = text.back();
    if (last == 'K' || last == 'k') scale = 1'000;
    if (last == 'M' || last == 'm') scale = 1'000'000;
    if (last == 'G' || last == 'g') scale = 1'000'000'000;
    if (scale != 1) text.remove_suffix(1);
  }
  return std::strtoull(std::string(text).c_str(), nullptr, 10) * scale;
}

inline std::uint64_t env_count(const char* name, std::uint64_t fallback) {
  const char* value = std::getenv(name);
  if (value == nullptr || *value == '\0') return fallback;
  const std::uint64_t parsed = parse_count(value);
  return parsed == 0 ? fallback : parsed;
}

inline std::vector<std::uint64_t> env_sizes(const char* name, std::string_view fallback) {
  const char* value = std::getenv(name);
  std::string_view text = value != nullptr && *value != '\0' ? std::string_view(value) : fallback;
  std::vector<std::uint64_t> sizes;
  while (!text.empty()) {  // bound: one token per comma
    const std::size_t comma = text.find(',');
    const std::uint64_t n = parse_count(text.substr(0, comma));
    if (n != 0) sizes.push_back(n);
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  return sizes;
}

inline std::uint64_t bench_seed() { return env_count("CUCKOO_BENCH_SEED", 1); }

// Refills per insert benchmark: the configured count up to 10M items, 1 above.
inline int fills_for(std::uint64_t items) {
  constexpr std::uint64_t kRepeatedFillLimit = 10'000'000;
  if (items > kRepeatedFillLimit) return 1;
  return static_cast<int>(std::clamp<std::uint64_t>(env_count("CUCKOO_BENCH_FILLS", 3), 1, 20));
}

// "1M", "10M", "100M", "1500K": the size as it appears in benchmark names.
inline std::string size_label(std::uint64_t n) {
  if (n % 1'000'000 == 0) return std::to_string(n / 1'000'000) + "M";
  if (n % 1'000 == 0) return std::to_string(n / 1'000) + "K";
  return std::to_string(n);
}

// ---- Keys.

// Key i of stream s: a bijection of (s * 2^40 + i), so streams never share a key for
// i < 2^40. Stream 0 holds the inserted keys, stream 1 the absent ones.
inline constexpr std::uint64_t kInsertedStream = 0;
inline constexpr std::uint64_t kAbsentStream = 1;

// The seed moves every stream by the same amount (still a bijection).
inline std::uint64_t bench_key_offset() noexcept {
  static const std::uint64_t offset = detail::mix64(bench_seed()) >> 24;  // < 2^40
  return offset;
}

inline std::uint64_t key_at(std::uint64_t stream, std::uint64_t i) noexcept {
  constexpr unsigned kStreamShift = 40;
  return detail::mix64((stream << kStreamShift) + i + bench_key_offset());
}

// A splitmix64 generator for query indices and op streams (not timed).
class SplitMix {
 public:
  explicit SplitMix(std::uint64_t seed) noexcept : state_(seed) {}
  std::uint64_t next() noexcept {
    state_ += 0x9e3779b97f4a7c15ULL;
    return detail::mix64(state_);
  }
  std::uint64_t below(std::uint64_t n) noexcept { return detail::reduce64(next(), n); }
  double unit() noexcept { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

 private:
  std::uint64_t state_;
};

// Queries for lookup benchmarks: at most kMaxQueries keys, so the query array of a 100M
// run stays small and the timed loop reads it sequentially (prefetched).
inline constexpr std::uint64_t kMaxQueries = std::uint64_t{1} << 22;

inline std::vector<std::uint64_t> present_queries(std::uint64_t inserted, std::uint64_t salt) {
  const std::uint64_t count = std::min(inserted, kMaxQueries);
  SplitMix rng(bench_seed() * 0x51ed27 + salt);
  std::vector<std::uint64_t> q(count);
  for (auto& k : q) k = key_at(kInsertedStream, rng.below(inserted));
  return q;
}

inline std::vector<std::uint64_t> absent_queries(std::uint64_t items) {
  std::vector<std::uint64_t> q(std::min(items, kMaxQueries));
  for (std::uint64_t i = 0; i < q.size(); ++i) q[i] = key_at(kAbsentStream, i);
  return q;
}

// Half present, half absent, in random order.
inline std::vector<std::uint64_t> mixed_queries(std::uint64_t inserted, std::uint64_t salt) {
  std::vector<std::uint64_t> q = present_queries(inserted, salt);
  SplitMix rng(bench_seed() * 0x3c6ef3 + salt);
  for (std::uint64_t i = 0; i < q.size(); ++i) {
    if (rng.next() & 1) q[i] = key_at(kAbsentStream, q.size() + i);
  }
  return q;
}

// ---- Timing of single operations (the tail of insert).

// Ticks of the cycle counter (TSC where there is one, else steady_clock nanoseconds).
inline std::uint64_t ticks() noexcept {
#if CUCKOO_BENCH_HAVE_TSC
  return __rdtsc();
#else
  return static_cast<std::uint64_t>(
      std::chrono::steady_clock::now().time_since_epoch().count());
#endif
}

// Nanoseconds per tick, measured once against steady_clock over 20 ms.
inline double ns_per_tick() {
  static const double value = [] {
#if CUCKOO_BENCH_HAVE_TSC
    const auto t0 = std::chrono::steady_clock::now();
    const std::uint64_t c0 = ticks();
    while (std::chrono::steady_clock::now() - t0 < std::chrono::milliseconds(20)) {
    }
    const auto t1 = std::chrono::steady_clock::now();
    const std::uint64_t c1 = ticks();
    const double ns = std::chrono::duration<double, std::nano>(t1 - t0).count();
    return ns / static_cast<double>(c1 - c0);
#else
    return 1.0;
#endif
  }();
  return value;
}

// The q-quantile (0..1) of samples in ticks, in nanoseconds. Reorders samples.
inline double quantile_ns(std::vector<std::uint64_t>& samples, double q) {
  if (samples.empty()) return 0.0;
  const auto rank = static_cast<std::size_t>(q * static_cast<double>(samples.size() - 1));
  std::nth_element(samples.begin(), samples.begin() + static_cast<std::ptrdiff_t>(rank),
                   samples.end());
  return static_cast<double>(samples[rank]) * ns_per_tick();
}

// One in kSampleEvery inserts is timed on its own.
inline constexpr std::uint64_t kSampleEvery = 64;

// CPU time of the calling thread in seconds. Timed fills use it, as Google Benchmark's
// default CPU time does for the other benchmarks, so that a busy machine (which
// deschedules the benchmark) skews every figure of a ratio the same way.
inline double thread_seconds() noexcept {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

// ---- Timed fills.

struct FillTiming {
  std::uint64_t inserted = 0;
  double seconds = 0.0;
};

// Inserts key_at(kInsertedStream, 0 .. n-1) while insert() returns true, timing the
// whole run (thread CPU time) and, one by one, every kSampleEvery-th insert (ticks appended to samples).
template <class Insert>
FillTiming timed_fill(std::uint64_t n, std::vector<std::uint64_t>& samples, Insert&& insert) {
  FillTiming t;
  const double start = thread_seconds();
  std::uint64_t i = 0;
  for (; i < n; ++i) {  // bound: n
    const std::uint64_t key = key_at(kInsertedStream, i);
    if (i % kSampleEvery == 0) {
      const std::uint64_t c0 = ticks();
      const bool ok = insert(key);
      const std::uint64_t c1 = ticks();
      samples.push_back(c1 - c0);
      if (!ok) break;
    } else if (!insert(key)) {
      break;
    }
  }
  t.seconds = thread_seconds() - start;
  t.inserted = i;
  return t;
}

// Sets the insert counters: mean over every fill, tail over every sampled insert.
inline void report_fill(benchmark::State& state, double seconds, std::uint64_t inserted,
                 std::vector<std::uint64_t>& samples) {
  state.counters["ns_per_insert"] = 1e9 * seconds / static_cast<double>(std::max<std::uint64_t>(inserted, 1));
  state.counters["p50_ns"] = quantile_ns(samples, 0.50);
  state.counters["p99_ns"] = quantile_ns(samples, 0.99);
  state.counters["p999_ns"] = quantile_ns(samples, 0.999);
  state.SetItemsProcessed(static_cast<std::int64_t>(inserted));
}

// ---- Memory regions for the memory floor.

inline constexpr std::size_t kHugePageBytes = std::size_t{2} << 20;
inline constexpr std::size_t kLineBytes = 64;

// What the kernel does with anonymous memory: the bracketed word of
// /sys/kernel/mm/transparent_hugepage/enabled ("always", "madvise", "never"), or
// "unavailable".
inline std::string transparent_hugepage_mode() {
  std::ifstream in("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string line;
  if (!std::getline(in, line)) return "unavailable";
  const auto open = line.find('[');
  const auto close = line.find(']');
  if (open == std::string::npos || close == std::string::npos || close < open) return line;
  return line.substr(open + 1, close - open - 1);
}

// An anonymous mapping of at least `bytes`, 2 MiB aligned, advised MADV_HUGEPAGE (huge)
// or MADV_NOHUGEPAGE (4 KiB pages even when the kernel's mode is "always"), and
// touched so that the timed loops take no page faults.
class Region {
 public:
  Region(std::size_t bytes, bool huge) {
    bytes_ = (std::max<std::size_t>(bytes, kLineBytes) + kHugePageBytes - 1) / kHugePageBytes *
             kHugePageBytes;
    mapped_bytes_ = bytes_ + kHugePageBytes;
    void* p = mmap(nullptr, mapped_bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                   -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    mapping_ = static_cast<std::byte*>(p);
    const auto address = reinterpret_cast<std::uintptr_t>(mapping_);
    const std::uintptr_t aligned = (address + kHugePageBytes - 1) & ~(kHugePageBytes - 1);
    data_ = mapping_ + (aligned - address);
    advised_ = madvise(data_, bytes_, huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE) == 0;
    for (std::size_t i = 0; i < bytes_; i += 4096) data_[i] = std::byte{1};
  }
  Region(const Region&) = delete;
  Region& operator=(const Region&) = delete;
  ~Region() { munmap(mapping_, mapped_bytes_); }

  std::byte* data() const noexcept { return data_; }
  std::size_t bytes() const noexcept { return bytes_; }
  std::size_t lines() const noexcept { return bytes_ / kLineBytes; }
  bool advised() const noexcept { return advised_; }

 private:
  std::byte* mapping_ = nullptr;
  std::byte* data_ = nullptr;
  std::size_t bytes_ = 0;
  std::size_t mapped_bytes_ = 0;
  bool advised_ = false;
};

}  // namespace cuckoo::bench
