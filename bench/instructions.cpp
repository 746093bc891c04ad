// Instructions per filter lookup (issue 13: "at most 50 instructions per lookup for the
// default shape"), counted by valgrind's callgrind, since the VMs we run on expose no
// hardware counters. ci/bench-instructions runs this program once per kind with N keys
// and divides the difference of two instruction totals by N:
//   lookup (key hash included) = (KIND - loop) / N;   key hash = (hash - loop) / N.
// Every kind fills the table and builds the same N-key array, so the filling, the setup,
// the process start and the loop around the lookups (load a key, add the answer) cancel
// out, and what is left is what contains(key) costs a caller.
//
// usage: bench_instructions {loop|hash|negative|negative_called|positive|batched_negative} N
//   a CuckooFilter of the default shape (f = 12, b = 4), capacity 2^20, filled to 85 %
//   with keys of one stream, then N keys of another stream (absent; loop, hash, negative,
//   negative_called, batched_negative) or of the inserted keys (positive), and for each:
//   nothing (loop), hash_of(key) (hash), contains(key), contains(key) through a function
//   the compiler may not inline (negative_called), or contains_many over all N keys.
// Whether contains() is inlined into the caller's loop changes the count: inlined, the
// filter's shape, table pointer and seed are loaded once for the whole loop; called, once
// per lookup, with the call's own cost. Both are what some caller sees, so both are shown.
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
               "usage: bench_instructions "
               "{loop|hash|negative|negative_called|positive|batched_negative|semi_loop|\n"
               "semi_negative|semi_positive} N\n");
  return 2;
}

// The sum of value(i) & 1 over i < n, each term kept in a register and opaque to the
// optimizer, so that every kind's loop stays one scalar iteration per key (a vectorized
// "loop" would under-count the loop's cost). Every kind sums through this one loop.
template <class Value>
std::uint64_t opaque_sum(std::uint64_t n, Value value) {
  std::uint64_t sum = 0;
  for (std::uint64_t i = 0; i < n; ++i) {
    std::uint64_t x = static_cast<std::uint64_t>(value(i)) & 1;
    asm volatile("" : "+r"(x));
    sum += x;
  }
  return sum;
}

// contains() as a call: what a caller whose loop the compiler does not inline it into pays.
[[gnu::noinline]] bool contains_called(const cuckoo::CuckooFilter& filter, std::uint64_t key) {
  return filter.contains(key);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) return usage();
  std::string_view kind = argv[1];
  // "semi_loop", "semi_negative", "semi_positive": the same in a filter with semi-sorted
  // buckets (its fill costs other instructions, so semi_loop is the semi kinds' baseline).
  const bool semi = kind == "semi_loop" || kind == "semi_negative" || kind == "semi_positive";
  if (semi) kind.remove_prefix(5);
  char* end = nullptr;
  const std::uint64_t lookups = std::strtoull(argv[2], &end, 10);
  if (end == argv[2] || *end != '\0') return usage();
  if (kind != "loop" && kind != "hash" && kind != "negative" && kind != "negative_called" &&
      kind != "positive" && kind != "batched_negative") {
    return usage();
  }

  cuckoo::CuckooFilterConfig config;
  config.capacity = kCapacity;
  config.fingerprint_bits = 12;
  config.slots_per_bucket = 4;
  config.seed = 1;
  config.semi_sorted = semi;
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
    sum = opaque_sum(lookups, [&](std::uint64_t i) { return results[i]; });
  } else if (kind == "loop") {
    sum = opaque_sum(lookups, [&](std::uint64_t i) { return keys[i]; });
  } else if (kind == "negative_called") {
    sum = opaque_sum(lookups, [&](std::uint64_t i) { return contains_called(filter, keys[i]); });
  } else if (kind == "hash") {
    sum = opaque_sum(lookups, [&](std::uint64_t i) { return filter.hash_of(keys[i]); });
  } else {
    sum = opaque_sum(lookups, [&](std::uint64_t i) { return filter.contains(keys[i]); });
  }
  std::printf("%llu\n", static_cast<unsigned long long>(sum));
  return 0;
}
