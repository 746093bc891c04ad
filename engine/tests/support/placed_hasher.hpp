// Test support: a seeded Hasher that puts chosen uint64 keys at chosen 64-bit hashes
// (built with an engine's hash_for_buckets / hash_with_positions) and hashes every other
// key with DefaultHasher. Copies share the table, so a test can place keys after handing
// the hasher to an engine.
#pragma once

#include <cstdint>
#include <memory>
#include <unordered_map>

#include "cuckoo/hash.hpp"

namespace cuckoo::test {

struct PlacedHasher {
  std::shared_ptr<std::unordered_map<std::uint64_t, std::uint64_t>> placed =
      std::make_shared<std::unordered_map<std::uint64_t, std::uint64_t>>();

  std::uint64_t operator()(std::uint64_t key, std::uint64_t seed) const {
    const auto it = placed->find(key);
    return it != placed->end() ? it->second : cuckoo::DefaultHasher{}(key, seed);
  }
  void place(std::uint64_t key, std::uint64_t hash) const { (*placed)[key] = hash; }
};

}  // namespace cuckoo::test
