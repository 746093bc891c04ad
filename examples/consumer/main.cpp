// Uses each engine of the installed package once and checks the answers; exits non-zero
// on any wrong answer so the package test can fail.
#include <cuckoo/bloom_filter.hpp>
#include <cuckoo/classic_cuckoo.hpp>
#include <cuckoo/cuckoo_filter.hpp>
#include <cuckoo/cuckoo_map.hpp>
#include <cuckoo/smart_cuckoo.hpp>

#include <cstdint>
#include <cstdio>
#include <string>

namespace {

int failures = 0;

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

  cuckoo::CuckooMap<std::uint64_t, std::string> map;
  map.insert(7, "seven");
  expect(map.find(7) != nullptr && *map.find(7) == "seven", "map finds its value");

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
