// Instructions per filter lookup (the target: "at most 50 instructions per lookup for
// the default shape"), counted by valgrind's callgrind, since the VMs we run on expose no
// hardware counters. ci/bench-instructions runs this program once per kind with N keys
// and divides the difference of two instruction totals by N:
//   lookup (key hash included) = (KIND - loop) / N;   key hash = (hash - loop) / N.
// Every kind fills the table and builds the same N-key array, so the filling, the setup,
// the process start and the loop around the lookups (load a key, add the answer) cancel
// out, and what is left is what contains(key) costs a caller.
//
// usage: bench_instructions {loop|hash|negative|negative_called|positive|batched_negative|
//                            semi_*|fixed_*} N [F B]
//   a CuckooFilter of the default shape (f = 12, b = 4; or f = F, b = B), capacity 2^20,
//   filled to 85 % (75 % when b <= 2) with keys of one stream, then N keys of another stream (absent; loop, hash, negative,
//   negative_called, batched_negative) or of the inserted keys (positive), and for each:
//   nothing (loop), hash_of(key) (hash), contains(key), contains(key) through a function
//   the compiler may not inline (negative_called), or contains_many over all N keys.
// Whether contains() is inlined into the caller's loop changes the count: inlined, the
// filter's shape, table pointer and seed are loaded once for the whole loop; called, once
// per lookup, with the call's own cost. Both are what some caller sees, so both are shown.
// Each kind's loop is a function of its own (sum_*), as a caller's loop would be, so
// what stays in registers depends on that loop, not on the rest of main().
// fixed_loop, fixed_negative, fixed_one_mix_negative, fixed_one_mix_pow2_negative: the
// fixed-shape experiment (fixed_shape.hpp), with fixed_loop as their baseline.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "cuckoo/cuckoo_filter.hpp"
#include "fixed_shape.hpp"

namespace {

constexpr std::uint64_t kCapacity = std::uint64_t{1} << 20;
constexpr std::uint64_t kItems = kCapacity * 85 / 100;
constexpr std::uint64_t kStep = 0x9e3779b97f4a7c15ULL;  // keys i * kStep (+ 1: absent)

int usage() {
  std::fprintf(stderr,
               "usage: bench_instructions "
               "{loop|hash|negative|negative_called|positive|batched_negative|semi_loop|\n"
               "semi_negative|semi_positive|fixed_loop|fixed_negative|fixed_one_mix_negative|\n"
               "fixed_one_mix_pow2_negative} N [F B]\n");
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

// The fixed_* kinds, out of main so that they do not change how the compiler lays out
// the other kinds' loops (it did: the inlined negative lookup counted 5 more). Every
// fixed_* kind builds and checks the copy, so fixed_loop, which does only that and the
// bare loop, is their baseline. Returns an exit status; sum gets the loop's sum.
[[gnu::noinline]] int fixed_shape_experiment(std::string_view kind,
                                             const cuckoo::CuckooFilter& filter,
                                             const std::vector<std::uint64_t>& keys,
                                             std::uint64_t& sum) {
  const cuckoo::bench::FixedShapeTable fixed(filter);
  // The copy and its probe answer as the filter for every inserted key; the power-of-two
  // form needs a power-of-two table (capacity 2^20 slots of 4: 2^18 buckets).
  if (filter.stash_size() != 0 || (std::uint32_t{1} << fixed.log2_n) != fixed.n) {
    std::fprintf(stderr, "bench_instructions: the fixed-shape copy needs an empty stash "
                         "and a power-of-two bucket count\n");
    return 1;
  }
  for (std::uint64_t i = 0; i < kItems; ++i) {
    if (!fixed.contains_hash(filter.hash_of(i * kStep))) {
      std::fprintf(stderr, "bench_instructions: the fixed-shape lookup misses key %llu\n",
                   static_cast<unsigned long long>(i));
      return 1;
    }
  }
  const std::uint64_t seed = filter.seed();
  const std::uint64_t n = keys.size();
  if (kind == "fixed_loop") {
    sum = opaque_sum(n, [&](std::uint64_t i) { return keys[i]; });
  } else if (kind == "fixed_negative") {
    sum = opaque_sum(n, [&](std::uint64_t i) {
      return fixed.contains_hash(filter.hash_of(keys[i]));
    });
  } else if (kind == "fixed_one_mix_negative") {
    sum = opaque_sum(n, [&](std::uint64_t i) {
      return fixed.contains_hash(cuckoo::bench::one_mix(keys[i], seed));
    });
  } else {
    sum = opaque_sum(n, [&](std::uint64_t i) {
      return fixed.contains_hash_pow2(cuckoo::bench::one_mix(keys[i], seed));
    });
  }
  return 0;
}

// contains() as a call: what a caller whose loop the compiler does not inline it into pays.
[[gnu::noinline]] bool contains_called(const cuckoo::CuckooFilter& filter, std::uint64_t key) {
  return filter.contains(key);
}

// Each kind's loop in a function of its own, as a caller's loop would be: what the
// compiler keeps in registers across the loop (the filter's shape, table pointer and
// seed, the hash's constants) then depends on that loop only, not on the register
// pressure of main()'s other kinds.
[[gnu::noinline]] std::uint64_t sum_keys(const std::vector<std::uint64_t>& keys) {
  return opaque_sum(keys.size(), [&](std::uint64_t i) { return keys[i]; });
}
[[gnu::noinline]] std::uint64_t sum_hashes(const cuckoo::CuckooFilter& filter,
                                           const std::vector<std::uint64_t>& keys) {
  return opaque_sum(keys.size(), [&](std::uint64_t i) { return filter.hash_of(keys[i]); });
}
[[gnu::noinline]] std::uint64_t sum_contains(const cuckoo::CuckooFilter& filter,
                                             const std::vector<std::uint64_t>& keys) {
  return opaque_sum(keys.size(), [&](std::uint64_t i) { return filter.contains(keys[i]); });
}
[[gnu::noinline]] std::uint64_t sum_contains_called(const cuckoo::CuckooFilter& filter,
                                                    const std::vector<std::uint64_t>& keys) {
  return opaque_sum(keys.size(),
                    [&](std::uint64_t i) { return contains_called(filter, keys[i]); });
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3 && argc != 5) return usage();
  std::string_view kind = argv[1];
  // "semi_loop", "semi_negative", "semi_positive": the same in a filter with semi-sorted
  // buckets (its fill costs other instructions, so semi_loop is the semi kinds' baseline).
  const bool semi = kind == "semi_loop" || kind == "semi_negative" || kind == "semi_positive";
  if (semi) kind.remove_prefix(5);
  char* end = nullptr;
  const std::uint64_t lookups = std::strtoull(argv[2], &end, 10);
  if (end == argv[2] || *end != '\0') return usage();
  if (kind != "loop" && kind != "hash" && kind != "negative" && kind != "negative_called" &&
      kind != "positive" && kind != "batched_negative" && kind != "fixed_loop" &&
      kind != "fixed_negative" && kind != "fixed_one_mix_negative" &&
      kind != "fixed_one_mix_pow2_negative") {
    return usage();
  }

  // The shape: f = 12, b = 4 unless F B follow N. The fill: 85 % (b = 2: 75 %, below
  // the 84 % that two-slot buckets reach).
  unsigned bits = 12;
  unsigned slots = 4;
  if (argc == 5) {
    bits = static_cast<unsigned>(std::strtoul(argv[3], nullptr, 10));
    slots = static_cast<unsigned>(std::strtoul(argv[4], nullptr, 10));
    if (kind.starts_with("fixed_") && (bits != 12 || slots != 4)) return usage();
  }
  const std::uint64_t items = slots <= 2 ? kCapacity * 75 / 100 : kItems;
  cuckoo::CuckooFilterConfig config;
  config.capacity = kCapacity;
  config.fingerprint_bits = bits;
  config.slots_per_bucket = slots;
  config.seed = 1;
  config.semi_sorted = semi;
  cuckoo::CuckooFilter filter = [&] {
    try {
      return cuckoo::CuckooFilter(config);
    } catch (const cuckoo::ConfigError& e) {
      std::fprintf(stderr, "bench_instructions: %s\n", e.what());
      std::exit(2);
    }
  }();
  for (std::uint64_t i = 0; i < items; ++i) {
    if (filter.insert(i * kStep) != cuckoo::InsertResult::kInserted) {
      std::fprintf(stderr, "bench_instructions: insert %llu failed\n",
                   static_cast<unsigned long long>(i));
      return 1;
    }
  }
  const std::uint64_t offset = kind == "positive" ? 0 : 1;
  std::vector<std::uint64_t> keys(lookups);
  for (std::uint64_t i = 0; i < lookups; ++i) keys[i] = (i % items) * kStep + offset;
  std::uint64_t sum = 0;
  if (kind == "batched_negative") {
    const std::unique_ptr<bool[]> results(new bool[lookups]);
    filter.contains_many(keys, std::span<bool>(results.get(), lookups));
    sum = opaque_sum(lookups, [&](std::uint64_t i) { return results[i]; });
  } else if (kind == "loop") {
    sum = sum_keys(keys);
  } else if (kind == "negative_called") {
    sum = sum_contains_called(filter, keys);
  } else if (kind.starts_with("fixed_")) {
    const int status = fixed_shape_experiment(kind, filter, keys, sum);
    if (status != 0) return status;
  } else if (kind == "hash") {
    sum = sum_hashes(filter, keys);
  } else {
    sum = sum_contains(filter, keys);
  }
  std::printf("%llu\n", static_cast<unsigned long long>(sum));
  return 0;
}
