// Uses each engine of the installed package once and checks the answers; exits non-zero
// on any wrong answer so the package test can fail.
#include <cuckoo/bloom_filter.hpp>
#include <cuckoo/classic_cuckoo.hpp>
#include <cuckoo/cuckoo_filter.hpp>
#include <cuckoo/cuckoo_map.hpp>
#include <cuckoo/lock_free_filter.hpp>
#include <cuckoo/smart_cuckoo.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

// The installed headers define none of xxHash's configuration macros in user code.
#ifdef XXH_INLINE_ALL
#error "cuckoo's headers leaked XXH_INLINE_ALL into the user's code"
#endif

namespace {

int failures = 0;

// An allocator that counts the bytes it hands out, as a user's arena or tracking
// allocator would.
std::size_t live_bytes = 0;
// A standard-shaped hasher (one argument, size_t), transparent as C++20's heterogeneous
// lookup idiom for std::unordered_map has it.
struct StringHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};

template <class T>
struct TrackingAllocator {
  using value_type = T;
  TrackingAllocator() = default;
  template <class U>
  TrackingAllocator(const TrackingAllocator<U>&) {}  // NOLINT: converting, as allocators do
  T* allocate(std::size_t n) {
    live_bytes += n * sizeof(T);
    return std::allocator<T>{}.allocate(n);
  }
  void deallocate(T* p, std::size_t n) {
    live_bytes -= n * sizeof(T);
    std::allocator<T>{}.deallocate(p, n);
  }
  template <class U>
  bool operator==(const TrackingAllocator<U>&) const { return true; }
};

void expect(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "consumer: FAILED: %s\n", what);
    ++failures;
  }
}

}  // namespace

int main() {
  cuckoo::CuckooFilterConfig filter_config;
  filter_config.capacity = 1000;
  filter_config.seed = 1;
  cuckoo::CuckooFilter filter(filter_config);
  for (std::uint64_t k = 0; k < 500; ++k) filter.insert(k);
  filter.insert(std::string("hello"));
  bool all_found = filter.contains(std::string("hello"));
  for (std::uint64_t k = 0; k < 500; ++k) all_found = all_found && filter.contains(k);
  expect(all_found, "filter finds every inserted key");
  const auto bytes = filter.serialize();
  expect(cuckoo::CuckooFilter::deserialize(bytes) == filter, "filter serialization round trip");

  // The lock-free filter: two threads insert their own keys, then every key is found.
  cuckoo::LockFreeFilter lock_free(filter_config);
  {
    std::vector<std::thread> threads;
    for (std::uint64_t t = 0; t < 2; ++t) {
      threads.emplace_back([&lock_free, t] {
        for (std::uint64_t k = t; k < 600; k += 2) lock_free.insert(k);
      });
    }
    for (auto& thread : threads) thread.join();
  }
  bool lock_free_found = lock_free.size() == 600;
  for (std::uint64_t k = 0; k < 600; ++k) lock_free_found = lock_free_found && lock_free.contains(k);
  expect(lock_free_found, "lock-free filter finds every key two threads inserted");

  cuckoo::CuckooMap<std::uint64_t, std::string> map;
  map.insert(7, "seven");
  expect(map.find(7) != map.end() && map.find(7)->second == "seven", "map finds its value");

  // A standard hasher (the engine mixes in its seed), an allocator, and heterogeneous
  // lookup by std::string_view through a transparent equality.
  {
    using Alloc = TrackingAllocator<std::pair<const std::string, int>>;
    cuckoo::CuckooMap<std::string, int, 4, StringHash, std::equal_to<>, Alloc> words;
    for (const char* w : {"to", "be", "or", "not", "to", "be"}) ++words[w];
    expect(words.size() == 4 && words.at("to") == 2 && words.at("not") == 1,
           "map with a standard hasher counts words");
    expect(live_bytes > 0 && live_bytes == words.memory_bytes(),
           "map memory comes from the user's allocator");
    const std::string_view probe = "be";
    expect(words.find(probe) != words.end() && words.find(probe)->second == 2,
           "heterogeneous lookup by string_view");
  }
  expect(live_bytes == 0, "map returns every byte to the user's allocator");

  cuckoo::ClassicCuckoo<> classic;
  classic.insert(1, 10);
  expect(classic.find(1) != nullptr && *classic.find(1) == 10, "classic cuckoo finds its value");

  cuckoo::SmartCuckoo<> smart;
  smart.insert(2, 20);
  expect(smart.find(2) != nullptr && *smart.find(2) == 20, "smart cuckoo finds its value");

  cuckoo::BloomFilter bloom(cuckoo::BloomFilterConfig::for_fpr(1000, 0.01));
  bloom.insert(std::uint64_t{99});
  expect(bloom.contains(std::uint64_t{99}), "bloom filter finds its key");

  if (failures == 0) std::printf("consumer: all engines answered correctly\n");
  return failures == 0 ? 0 : 1;
}
