// Instructions per filter lookup (issue 13: "at most 50 instructions per lookup for the
// default shape"), counted by valgrind's callgrind, since the VMs we run on expose no
// hardware counters. ci/bench-instructions runs this program twice per kind, with 0 and
// with N lookups, and divides the difference of the two instruction totals by N: the
// filling, the setup and the process start cancel out, and what is left is the loop of N
// lookups, key hashing and the loop's own increment and sum included.
//
// usage: bench_instructions {negative|positive|batched_negative} N
//   a CuckooFilter of the default shape (f = 12, b = 4), capacity 2^20, filled to 85 %
//   with keys of one stream, then N lookups of keys of another stream (negative), of the
//   inserted keys (positive), or N negative lookups through contains_many.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>
#include <vector>

#include "cuckoo/cuckoo_filter.hpp"

namespace {

constexpr std::uint64_t kCapacity = std::uint64_t{1} << 20;
constexpr std::uint64_t kItems = kCapacity * 85 / 100;
constexpr std::uint64_t kStep = 0x9e3779b97f4a7c15ULL;  // keys i * kStep (+ 1: absent)

int usage() {
  std::fprintf(stderr, "usage: bench_instructions {negative|positive|batched_negative} N\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) return usage();
  const std::string_view kind = argv[1];
  char* end = nullptr;
  const std::uint64_t lookups = std::strtoull(argv[2], &end, 10);
  if (end == argv[2] || *end != '\0') return usage();
  if (kind != "negative" && kind != "positive" && kind != "batched_negative") return usage();

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
  std::uint64_t hits = 0;
  if (kind == "batched_negative") {
    // Keys and results are prepared for every N alike (N = 0 too), so only the lookups
    // differ between the two runs.
    std::vector<std::uint64_t> keys(lookups);
    for (std::uint64_t i = 0; i < lookups; ++i) keys[i] = i * kStep + 1;
    std::vector<bool> results(lookups);
    filter.contains_many(keys, results);
    for (const bool r : results) hits += r ? 1 : 0;
  } else {
    const std::uint64_t offset = kind == "negative" ? 1 : 0;
    for (std::uint64_t i = 0; i < lookups; ++i) {
      hits += filter.contains((i % kItems) * kStep + offset) ? 1 : 0;
    }
  }
  std::printf("%llu\n", static_cast<unsigned long long>(hits));
  return 0;
}
