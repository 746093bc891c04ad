// Instructions per filter lookup (issue 13: "at most 50 instructions per lookup for the
// default shape"), counted by valgrind's callgrind, since the VMs we run on expose no
// hardware counters. ci/bench-instructions runs this program once per kind with N keys
// and divides the difference of two instruction totals by N:
//   lookup (key hash included) = (KIND - loop) / N;   key hash = (hash - loop) / N.
// Every kind fills the table and builds the same N-key array, so the filling, the setup,
// the process start and the loop around the lookups (load a key, add the answer) cancel
// out, and what is left is what contains(key) costs a caller.
//
// usage: bench_instructions {loop|hash|negative|positive|batched_negative} N
//   a CuckooFilter of the default shape (f = 12, b = 4), capacity 2^20, filled to 85 %
//   with keys of one stream, then N keys of another stream (absent; loop, hash, negative,
//   batched_negative) or of the inserted keys (positive), and for each: nothing (loop),
//   hash_of(key) (hash), contains(key), or contains_many over all N (batched_negative).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "cuckoo/cuckoo_filter.hpp"

namespace {

constexpr std::uint64_t kCapacity = std::uint64_t{1} << 20;
constexpr std::uint64_t kItems = kCapacity * 85 / 100;
constexpr std::uint64_t kStep = 0x9e3779b97f4a7c15ULL;  // keys i * kStep (+ 1: absent)

int usage() {
  std::fprintf(stderr,
               "usage: bench_instructions {loop|hash|negative|positive|batched_negative} N\n");
  return 2;
}

// Keeps x in a register and opaque to the optimizer, so that each kind's loop stays one
// scalar iteration per key (a vectorized "loop" would under-count the loop's cost).
inline void opaque(std::uint64_t& x) { asm volatile("" : "+r"(x)); }

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) return usage();
  const std::string_view kind = argv[1];
  char* end = nullptr;
  const std::uint64_t lookups = std::strtoull(argv[2], &end, 10);
  if (end == argv[2] || *end != '\0') return usage();
  if (kind != "loop" && kind != "hash" && kind != "negative" && kind != "positive" &&
      kind != "batched_negative") {
    return usage();
  }

  cuckoo::CuckooFilterConfig config;
  config.capacity = kCapacity;
  config.fingerprint_bits = 12;
  config.slots_per_bucket = 4;
  config.seed = 1;
  cuckoo::CuckooFilter filter(config);
  for (std::uint64_t i = 0; i < kItems; ++i) {
    if (filter.insert(i * kStep) != cuckoo::InsertResult::kInserted) {
      std::fprintf(stderr, "bench_instructions: insert %llu failed\n",
                   static_cast<unsigned long long>(i));
      return 1;
    }
  }
  const std::uint64_t offset = kind == "positive" ? 0 : 1;
  std::vector<std::uint64_t> keys(lookups);
  for (std::uint64_t i = 0; i < lookups; ++i) keys[i] = (i % kItems) * kStep + offset;
  std::uint64_t sum = 0;
  if (kind == "batched_negative") {
    const std::unique_ptr<bool[]> results(new bool[lookups]);
    filter.contains_many(keys, std::span<bool>(results.get(), lookups));
    for (std::uint64_t i = 0; i < lookups; ++i) {
      std::uint64_t x = results[i] ? 1 : 0;
      opaque(x);
      sum += x;
    }
  } else if (kind == "loop") {
    for (const std::uint64_t key : keys) {
      std::uint64_t x = key & 1;
      opaque(x);
      sum += x;
    }
  } else if (kind == "hash") {
    for (const std::uint64_t key : keys) {
      std::uint64_t x = filter.hash_of(key) & 1;
      opaque(x);
      sum += x;
    }
  } else {
    for (const std::uint64_t key : keys) {
      std::uint64_t x = filter.contains(key) ? 1 : 0;
      opaque(x);
      sum += x;
    }
  }
  std::printf("%llu\n", static_cast<unsigned long long>(sum));
  return 0;
}
