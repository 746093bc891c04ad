// Tests of cuckoo::sync::Kcas (sync/kcas.hpp): the semantics of one operation, single
// threaded; and atomicity under real threads: transfers between words keep their sum,
// and a K-CAS over every word that changes nothing ("a snapshot that must still hold")
// only ever succeeds on values that sum to the total. The interleaving explorer runs
// the same code under every schedule of small scenarios (explore/tests/kcas_explore_test.cpp).
#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <thread>
#include <vector>

#include "cuckoo/detail/rng.hpp"
#include "cuckoo/sync/kcas.hpp"
#include "support/test_seed.hpp"

namespace {

using cuckoo::sync::Kcas;
using cuckoo::sync::KcasWord;
using Entry = Kcas::Entry;

TEST(Kcas, SucceedsOnlyWhenEveryWordHoldsItsExpectedValue) {
  KcasWord a(1);
  KcasWord b(2);
  KcasWord c(3);
  std::array<Entry, 3> ok{{{&c, 3, 30}, {&a, 1, 10}, {&b, 2, 20}}};
  EXPECT_TRUE(Kcas::kcas(ok));
  EXPECT_EQ(Kcas::read(a), 10U);
  EXPECT_EQ(Kcas::read(b), 20U);
  EXPECT_EQ(Kcas::read(c), 30U);
  std::array<Entry, 3> stale{{{&a, 10, 11}, {&b, 2, 21}, {&c, 30, 31}}};  // b is 20, not 2
  EXPECT_FALSE(Kcas::kcas(stale));
  EXPECT_EQ(Kcas::read(a), 10U) << "a failed K-CAS changed a word";
  EXPECT_EQ(Kcas::read(b), 20U);
  EXPECT_EQ(Kcas::read(c), 30U);
}

TEST(Kcas, SingleWordCasAndTheLargestValue) {
  KcasWord w(KcasWord::kMaxValue);
  EXPECT_EQ(Kcas::read(w), KcasWord::kMaxValue);
  EXPECT_FALSE(Kcas::cas(w, 0, 1));
  EXPECT_TRUE(Kcas::cas(w, KcasWord::kMaxValue, 7));
  EXPECT_EQ(Kcas::read(w), 7U);
  std::array<Entry, 1> one{{{&w, 7, KcasWord::kMaxValue}}};
  EXPECT_TRUE(Kcas::kcas(one));
  EXPECT_EQ(Kcas::read(w), KcasWord::kMaxValue);
}

TEST(Kcas, PeekReadsTheValueWithoutHelping) {
  KcasWord a(5);
  KcasWord b(KcasWord::kMaxValue);
  EXPECT_EQ(Kcas::peek(a), 5U);
  EXPECT_EQ(Kcas::peek(b), KcasWord::kMaxValue);
  std::array<Entry, 2> e{{{&a, 5, 6}, {&b, KcasWord::kMaxValue, 0}}};
  ASSERT_TRUE(Kcas::kcas(e));
  EXPECT_EQ(Kcas::peek(a), 6U);
  EXPECT_EQ(Kcas::peek(b), 0U);
  EXPECT_EQ(Kcas::peek(a), Kcas::read(a));
}

TEST(Kcas, DescriptorMemoryIsFixed) {
  // One K-CAS and one RDCSS descriptor per thread id, allocated once for the process:
  // a million operations use the same memory as one.
  EXPECT_LE(Kcas::descriptor_bytes(), std::size_t{Kcas::kMaxThreads} * 512);
  KcasWord a(0);
  KcasWord b(0);
  for (std::uint64_t i = 0; i < 1'000'000; ++i) {
    std::array<Entry, 2> e{{{&a, i, i + 1}, {&b, i, i + 1}}};
    ASSERT_TRUE(Kcas::kcas(e)) << "at operation " << i;
  }
  EXPECT_EQ(Kcas::read(a), 1'000'000U);
}

// Threads move amounts between 8 words with K-CAS of 2 to 4 words; a checker thread
// takes snapshots by a K-CAS of all 8 words that writes back what it read. Every
// successful snapshot sums to the total, and so do the final values.
TEST(Kcas, TransfersKeepTheSumUnderThreads) {
  constexpr unsigned kWords = 8;
  constexpr std::uint64_t kStart = 1000;
  const std::uint64_t seed = cuckoo::test::test_seed(0x6ca5);
  std::array<KcasWord, kWords> words;
  for (auto& w : words) EXPECT_TRUE(Kcas::cas(w, 0, kStart));
  constexpr unsigned kThreads = 3;
  constexpr unsigned kOps = 20'000;
  std::atomic<bool> stop{false};
  std::atomic<std::uint64_t> snapshots{0};
  std::atomic<std::uint64_t> bad_snapshots{0};
  std::atomic<std::uint64_t> bad_peeks{0};
  std::vector<std::thread> threads;
  for (unsigned t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      cuckoo::detail::Rng rng(seed + t);
      for (unsigned op = 0; op < kOps; ++op) {
        const unsigned k = 2 + static_cast<unsigned>(rng.below(3));
        std::array<unsigned, 4> pick{};
        for (unsigned i = 0; i < k; ++i) {
          bool fresh = false;
          while (!fresh) {  // bounded in expectation: k <= 4 of 8 words
            pick[i] = static_cast<unsigned>(rng.below(kWords));
            fresh = true;
            for (unsigned j = 0; j < i; ++j) fresh = fresh && pick[j] != pick[i];
          }
        }
        std::array<Entry, 4> e{};
        for (unsigned i = 0; i < k; ++i) {
          const std::uint64_t v = Kcas::read(words[pick[i]]);
          e[i] = {&words[pick[i]], v, v};
        }
        // Move one unit from the first word to each of the others, if it has enough.
        if (e[0].expected < k - 1) continue;
        e[0].desired -= k - 1;
        for (unsigned i = 1; i < k; ++i) e[i].desired += 1;
        (void)Kcas::kcas(std::span<Entry>(e.data(), k));
      }
    });
  }
  std::thread checker([&] {
    while (!stop.load()) {
      std::array<Entry, kWords> e{};
      std::uint64_t sum = 0;
      for (unsigned i = 0; i < kWords; ++i) {
        const std::uint64_t v = Kcas::read(words[i]);
        e[i] = {&words[i], v, v};
        sum += v;
      }
      if (Kcas::kcas(e)) {
        snapshots.fetch_add(1);
        if (sum != kWords * kStart) bad_snapshots.fetch_add(1);
      }
      // A peek (which interprets descriptors in flight) sees some value the word held:
      // never more than the total.
      for (const auto& w : words) {
        if (Kcas::peek(w) > kWords * kStart) bad_peeks.fetch_add(1);
      }
    }
  });
  for (auto& t : threads) t.join();
  stop.store(true);
  checker.join();
  std::uint64_t total = 0;
  for (const auto& w : words) total += Kcas::read(w);
  EXPECT_EQ(total, kWords * kStart) << cuckoo::test::seed_note(seed, "sync_kcas_test");
  EXPECT_EQ(bad_snapshots.load(), 0U) << "a K-CAS succeeded on values that were never there together; "
                                      << cuckoo::test::seed_note(seed, "sync_kcas_test");
  EXPECT_EQ(bad_peeks.load(), 0U) << "a peek returned a value above the total; "
                                  << cuckoo::test::seed_note(seed, "sync_kcas_test");
  std::printf("[ kcas ] %llu consistent snapshots among the transfers\n",
              static_cast<unsigned long long>(snapshots.load()));
}

}  // namespace
