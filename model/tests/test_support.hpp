// Shared by the model tests: reproducible seeds and a small random source.
//
// Every randomized test draws from one base seed: kDefaultSeed, or the CUCKOO_SEED
// environment variable when set. A failing test prints the line that reruns it with the
// same seed (reproduce_hint).
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <random>
#include <string>

namespace cuckoo::model::testing {

inline constexpr std::uint64_t kDefaultSeed = 20240611;

// CUCKOO_SEED if it is set to a number, else `fallback`.
inline std::uint64_t base_seed(std::uint64_t fallback = kDefaultSeed) {
  const char* text = std::getenv("CUCKOO_SEED");
  if (text == nullptr || *text == '\0') return fallback;
  char* end = nullptr;
  const unsigned long long seed = std::strtoull(text, &end, 0);
  return *end == '\0' ? seed : fallback;
}

// "reproduce: CUCKOO_SEED=<seed> ctest -R '^Suite.Name$'" for the running test.
inline std::string reproduce_hint(std::uint64_t seed) {
  const ::testing::TestInfo* info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::string name = info == nullptr ? std::string("?")
                                     : std::string(info->test_suite_name()) + "." + info->name();
  return "reproduce: CUCKOO_SEED=" + std::to_string(seed) + " ctest -R '^" + name + "$'";
}

// mt19937_64 with its own uniform reduction, so the sequence is the same everywhere.
class TestRng {
 public:
  explicit TestRng(std::uint64_t seed) : engine_(seed) {}
  std::uint64_t next() { return engine_(); }
  // Uniform enough in [0, n); REQUIRES: n > 0.
  std::uint64_t below(std::uint64_t n) { return engine_() % n; }
  // True with probability percent / 100.
  bool percent(unsigned percent) { return below(100) < percent; }

 private:
  std::mt19937_64 engine_;
};

}  // namespace cuckoo::model::testing
