// CuckooFilter::contains_many takes any contiguous range of keys and any sized
// random-access range of bool-like results, with the same answers as
// contains() and the same error for too few results.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "cuckoo/cuckoo_filter.hpp"

namespace {

using cuckoo::CuckooFilter;
using cuckoo::CuckooFilterConfig;

CuckooFilter filled_filter() {
  CuckooFilterConfig c;
  c.capacity = 4096;
  c.seed = 31;
  CuckooFilter f(c);
  for (std::uint64_t k = 0; k < 2000; k += 2) f.insert(k);  // even keys present
  return f;
}

// 100 keys spanning several batch groups: half present, half (mostly) absent.
std::vector<std::uint64_t> probe_keys() {
  std::vector<std::uint64_t> keys;
  for (std::uint64_t k = 0; k < 100; ++k) keys.push_back(k * 7);
  return keys;
}

template <class Results>
void expect_same_answers(const CuckooFilter& f, const std::vector<std::uint64_t>& keys,
                         const Results& results) {
  for (std::size_t i = 0; i < keys.size(); ++i) {
    EXPECT_EQ(static_cast<bool>(results[i]), f.contains(keys[i])) << "key " << keys[i];
  }
}

TEST(FilterContainsManyRanges, EveryKeyAndResultForm) {
  const CuckooFilter f = filled_filter();
  const std::vector<std::uint64_t> keys = probe_keys();
  {
    std::vector<bool> results(keys.size(), false);  // proxy references
    f.contains_many(keys, results);
    expect_same_answers(f, keys, results);
  }
  {
    std::vector<std::uint8_t> results(keys.size(), 7);
    f.contains_many(keys, results);
    for (std::uint8_t r : results) EXPECT_TRUE(r == 0 || r == 1);
    expect_same_answers(f, keys, results);
  }
  {
    std::array<std::uint64_t, 100> key_array{};
    std::copy(keys.begin(), keys.end(), key_array.begin());
    char results[100];
    f.contains_many(key_array, results);
    expect_same_answers(f, keys, results);
  }
  {
    std::uint64_t raw[100];
    std::copy(keys.begin(), keys.end(), raw);
    std::array<int, 100> results{};
    f.contains_many(raw, results);
    expect_same_answers(f, keys, results);
  }
  {
    std::vector<bool> flags(keys.size());
    std::vector<std::uint8_t> dense(keys.size());
    std::array<bool, 100> exact{};
    f.contains_many(std::span<const std::uint64_t>(keys), std::span<bool>(exact));
    f.contains_many(std::span<const std::uint64_t>(keys), dense);
    expect_same_answers(f, keys, exact);
    expect_same_answers(f, keys, dense);
  }
  {
    const std::vector<std::string> words = {"a", "bb", "ccc"};
    CuckooFilter g = filled_filter();
    g.insert(std::string("bb"));
    std::vector<bool> results(words.size());
    g.contains_many(words, results);
    EXPECT_TRUE(results[1]);
    for (std::size_t i = 0; i < words.size(); ++i) EXPECT_EQ(results[i], g.contains(words[i]));
  }
}

TEST(FilterContainsManyRanges, TooFewResultsIsAnErrorBeforeAnyWrite) {
  const CuckooFilter f = filled_filter();
  const std::vector<std::uint64_t> keys = probe_keys();
  std::vector<std::uint8_t> results(keys.size() - 1, 9);
  EXPECT_THROW(f.contains_many(keys, results), std::invalid_argument);
  for (std::uint8_t r : results) EXPECT_EQ(r, 9) << "results were written before the error";
}

}  // namespace
