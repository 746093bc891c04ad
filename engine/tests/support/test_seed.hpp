// Test support: the seed of a randomized test and the line that reproduces a failure.
// test_seed(fixed) is the test's fixed seed, or CUCKOO_TEST_SEED from the environment to
// replay another one; seed_note(seed, program) says how to rerun the current test with
// that seed (put it in SCOPED_TRACE or a failure message).
#pragma once

#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include <gtest/gtest.h>

namespace cuckoo::test {

inline std::uint64_t test_seed(std::uint64_t fixed) {
  if (const char* env = std::getenv("CUCKOO_TEST_SEED")) return std::strtoull(env, nullptr, 0);
  return fixed;
}

inline std::string seed_note(std::uint64_t seed, std::string_view program) {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  return "seed=" + std::to_string(seed) + " (reproduce: CUCKOO_TEST_SEED=" +
         std::to_string(seed) + " ./" + std::string(program) + " --gtest_filter='" +
         info->test_suite_name() + "." + info->name() + "')";
}

}  // namespace cuckoo::test
