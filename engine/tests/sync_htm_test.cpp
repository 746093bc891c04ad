// Tests of the HTM layer (cuckoo/sync/htm.hpp): hardware detection, the status
// encoding, and each backend's begin/end/abort behaviour and counters.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <latch>
#include <limits>
#include <mutex>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "cuckoo/error.hpp"
#include "cuckoo/sync/htm.hpp"
#include "support/watchdog.hpp"

namespace {

using cuckoo::test::current_test_name;
using cuckoo::test::Watchdog;

using cuckoo::ConfigError;
using cuckoo::sync::hardware_rtm_available;
using cuckoo::sync::Htm;
using cuckoo::sync::HtmBackend;
using cuckoo::sync::HtmPolicy;
using cuckoo::sync::HtmStats;
using cuckoo::sync::HtmStatus;
using cuckoo::sync::ScriptEnd;

// Closes whatever begin() opened, so that every test leaves no transaction behind.
void finish(Htm& htm, HtmStatus status) {
  if (status.is_started()) htm.end();
}

// The CPU flags the kernel reports, or nullopt where there is no /proc/cpuinfo.
std::optional<std::set<std::string>> kernel_cpu_flags() {
  std::ifstream in("/proc/cpuinfo");
  if (!in) return std::nullopt;
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("flags", 0) != 0) continue;
    std::istringstream words(line.substr(line.find(':') + 1));
    std::set<std::string> flags;
    for (std::string w; words >> w;) flags.insert(w);
    return flags;
  }
  return std::nullopt;
}

// ---------------------------------------------------------------------------------
// Hardware detection
// ---------------------------------------------------------------------------------

// hardware_rtm_available() must agree with an independent source: the flags the
// kernel derived from CPUID ("rtm", and "rtm_always_abort" on CPUs whose microcode
// disabled TSX). Builds with CUCKOO_NO_HARDWARE_RTM (the tsan preset) and non-x86
// builds must report "absent" whatever the CPU. On a machine without RTM this test
// sees false; on one with working RTM (as the kernel reports it) it sees true.
TEST(HtmDetection, AgreesWithTheKernelsCpuFlags) {
  const bool available = hardware_rtm_available();
  const auto flags = kernel_cpu_flags();
  const bool kernel_says_rtm =
      flags && flags->count("rtm") != 0 && flags->count("rtm_always_abort") == 0;
  std::printf("hardware RTM for this build: %s (kernel CPU flags: %s)\n",
              available ? "present" : "absent",
              !flags ? "unknown" : kernel_says_rtm ? "rtm" : "no usable rtm");
#if defined(CUCKOO_NO_HARDWARE_RTM) || !(defined(__x86_64__) || defined(__i386__))
  EXPECT_FALSE(available) << "RTM code is compiled out in this build";
#else
  if (!flags) GTEST_SKIP() << "no /proc/cpuinfo flags line to compare with";
  const bool expected = kernel_says_rtm;
  EXPECT_EQ(available, expected) << "kernel flags: rtm=" << flags->count("rtm")
                                 << " rtm_always_abort=" << flags->count("rtm_always_abort");
#endif
}

// kHardware never executes an RTM instruction where RTM is absent: it degrades to
// kDisabled.
TEST(HtmHardware, DegradesToDisabledWithoutRtm) {
  if (hardware_rtm_available()) {
    GTEST_SKIP() << "this CPU has RTM: the degraded path is not taken here";
  }
  Htm htm(HtmPolicy::hardware());
  EXPECT_EQ(htm.backend(), HtmBackend::kHardware);
  EXPECT_EQ(htm.effective_backend(), HtmBackend::kDisabled);
  for (int i = 0; i < 100; ++i) EXPECT_TRUE(htm.begin().is_not_started());
  EXPECT_FALSE(htm.in_transaction());
  const HtmStats s = htm.stats();
  EXPECT_EQ(s.attempts, 100u);
  EXPECT_EQ(s.not_started, 100u);
  EXPECT_EQ(s.started, 0u);
}

// Where RTM is present, kHardware runs real transactions.
TEST(HtmHardware, RunsRealTransactionsWithRtm) {
  if (!hardware_rtm_available()) {
    GTEST_SKIP() << "no hardware RTM in this build or on this CPU (CPUID leaf 7 reports none, "
                    "or CUCKOO_NO_HARDWARE_RTM compiled it out)";
  }
  Htm htm(HtmPolicy::hardware());
  EXPECT_EQ(htm.backend(), HtmBackend::kHardware);
  EXPECT_EQ(htm.effective_backend(), HtmBackend::kHardware);
  // Small transactions on one thread commit almost always; a CPU that reports RTM but
  // never commits one in this many tries is broken (or RTM is disabled behind CPUID's
  // back), and the automatic policy should not pick it.
  constexpr int kTries = 2000;
  int value = 0;
  int commits = 0;
  for (int i = 0; i < kTries; ++i) {
    const HtmStatus s = htm.begin();
    if (s.is_started()) {
      const bool inside = htm.in_transaction();
      ++value;
      htm.end();
      ++commits;
      EXPECT_TRUE(inside);
    }
  }
  EXPECT_GT(commits, 0) << "RTM reported present but no transaction committed";
  EXPECT_EQ(value, commits);  // aborted increments were rolled back
  // An explicit abort comes back out of begin() with its code.
  int explicit_aborts = 0;
  for (int i = 0; i < kTries && explicit_aborts == 0; ++i) {
    const HtmStatus s = htm.begin();
    if (s.is_started()) {
      htm.abort<42>();
      ADD_FAILURE() << "abort() returned inside a hardware transaction";
    } else if (s.is_explicit()) {
      EXPECT_EQ(s.code(), 42);
      ++explicit_aborts;
    }
  }
  EXPECT_EQ(explicit_aborts, 1);
  EXPECT_FALSE(htm.in_transaction());
  const HtmStats s = htm.stats();
  EXPECT_EQ(s.started, s.commits + s.aborts);
}

// ---------------------------------------------------------------------------------
// Status encoding
// ---------------------------------------------------------------------------------

TEST(HtmStatus, MirrorsRtmEncoding) {
  // The values of immintrin.h's _XBEGIN_STARTED and _XABORT_* (Intel SDM vol. 1,
  // 16.3.5), written out so that this test does not include immintrin.h.
  EXPECT_EQ(HtmStatus::kStartedValue, 0xFFFFFFFFu);
  EXPECT_EQ(HtmStatus::kExplicit, 1u << 0);
  EXPECT_EQ(HtmStatus::kRetry, 1u << 1);
  EXPECT_EQ(HtmStatus::kConflict, 1u << 2);
  EXPECT_EQ(HtmStatus::kCapacity, 1u << 3);
  EXPECT_EQ(HtmStatus::kDebug, 1u << 4);
  EXPECT_EQ(HtmStatus::kNested, 1u << 5);
  EXPECT_EQ(HtmStatus::kCodeShift, 24u);

  const HtmStatus e = HtmStatus::make_explicit(0xAB);
  EXPECT_TRUE(e.is_abort());
  EXPECT_TRUE(e.is_explicit());
  EXPECT_FALSE(e.may_retry());
  EXPECT_EQ(e.code(), 0xAB);
  EXPECT_EQ(e.raw(), 0xAB000001u);
  EXPECT_EQ(e.to_string(), "abort(explicit code=171)");

  const HtmStatus c = HtmStatus::make_conflict(true);
  EXPECT_TRUE(c.is_conflict());
  EXPECT_TRUE(c.may_retry());
  EXPECT_FALSE(c.is_explicit());
  EXPECT_EQ(c.to_string(), "abort(retry conflict)");

  EXPECT_TRUE(HtmStatus::make_capacity().is_capacity());
  EXPECT_FALSE(HtmStatus::make_capacity().may_retry());
  EXPECT_TRUE(HtmStatus(HtmStatus::kDebug).is_debug());
  EXPECT_TRUE(HtmStatus(HtmStatus::kNested | HtmStatus::kExplicit).is_nested());
  EXPECT_EQ(HtmStatus().to_string(), "abort(other)");

  const HtmStatus started = HtmStatus::make_started();
  EXPECT_TRUE(started.is_started());
  EXPECT_FALSE(started.is_abort());
  EXPECT_FALSE(started.is_not_started());
  EXPECT_FALSE(started.is_explicit());  // all bits set, but not an abort
  EXPECT_EQ(started.to_string(), "started");

  const HtmStatus none = HtmStatus::make_not_started();
  EXPECT_TRUE(none.is_not_started());
  EXPECT_FALSE(none.is_abort());
  EXPECT_FALSE(none.is_started());
  EXPECT_EQ(none.to_string(), "not_started");
}

// ---------------------------------------------------------------------------------
// Test backends
// ---------------------------------------------------------------------------------

TEST(HtmDisabled, NeverStarts) {
  Htm htm(HtmPolicy::disabled());
  constexpr int kCalls = 1000;
  for (int i = 0; i < kCalls; ++i) {
    const HtmStatus s = htm.begin();
    ASSERT_TRUE(s.is_not_started()) << s.to_string();
    EXPECT_FALSE(htm.in_transaction());
  }
  const HtmStats st = htm.stats();
  EXPECT_EQ(st.attempts, std::uint64_t{kCalls});
  EXPECT_EQ(st.not_started, std::uint64_t{kCalls});
  EXPECT_EQ(st.started, 0u);
  EXPECT_EQ(st.aborts, 0u);
}

TEST(HtmAlwaysAbort, NeverStartsAndReturnsTheForcedStatus) {
  for (const HtmStatus forced : {HtmStatus::make_conflict(true), HtmStatus::make_capacity(),
                                 HtmStatus::make_explicit(9), HtmStatus()}) {
    SCOPED_TRACE(forced.to_string());
    Htm htm(HtmPolicy::always_abort(forced));
    constexpr int kCalls = 500;
    for (int i = 0; i < kCalls; ++i) {
      const HtmStatus s = htm.begin();
      ASSERT_EQ(s, forced) << s.to_string();
      EXPECT_FALSE(htm.in_transaction());
    }
    const HtmStats st = htm.stats();
    EXPECT_EQ(st.attempts, std::uint64_t{kCalls});
    EXPECT_EQ(st.started, 0u);
    EXPECT_EQ(st.aborts, std::uint64_t{kCalls});
    EXPECT_EQ(st.injected_aborts, std::uint64_t{kCalls});
    EXPECT_EQ(st.abort_capacity, forced.is_capacity() ? std::uint64_t{kCalls} : 0u);
    EXPECT_EQ(st.abort_other, forced.raw() == 0 ? std::uint64_t{kCalls} : 0u);
  }
}

std::vector<HtmStatus> sample_script() {
  return {HtmStatus::make_conflict(true), HtmStatus::make_capacity(),
          HtmStatus::make_started(),      HtmStatus::make_explicit(3),
          HtmStatus(),                    HtmStatus::make_not_started(),
          HtmStatus::make_started()};
}

TEST(HtmScripted, ReproducesTheScriptThenSucceeds) {
  const std::vector<HtmStatus> script = sample_script();
  Htm htm(HtmPolicy::scripted(script, ScriptEnd::kSucceed));
  for (std::size_t i = 0; i < script.size(); ++i) {
    const HtmStatus s = htm.begin();
    EXPECT_EQ(s, script[i]) << "entry " << i << ": got " << s.to_string();
    EXPECT_EQ(htm.in_transaction(), s.is_started());
    finish(htm, s);
  }
  for (int i = 0; i < 10; ++i) {
    const HtmStatus s = htm.begin();
    EXPECT_TRUE(s.is_started()) << "past the script, kSucceed: " << s.to_string();
    finish(htm, s);
  }
  const HtmStats st = htm.stats();
  EXPECT_EQ(st.attempts, script.size() + 10);
  EXPECT_EQ(st.started, 12u);  // two scripted starts + ten after the end
  EXPECT_EQ(st.commits, 12u);
  EXPECT_EQ(st.not_started, 1u);
  EXPECT_EQ(st.aborts, 4u);
  EXPECT_EQ(st.injected_aborts, 4u);
  EXPECT_EQ(st.attempts, st.started + st.not_started + st.injected_aborts);
}

TEST(HtmScripted, RepeatReplaysTheScript) {
  const std::vector<HtmStatus> script = sample_script();
  Htm htm(HtmPolicy::scripted(script, ScriptEnd::kRepeat));
  constexpr int kRounds = 3;
  for (int round = 0; round < kRounds; ++round) {
    for (std::size_t i = 0; i < script.size(); ++i) {
      const HtmStatus s = htm.begin();
      EXPECT_EQ(s, script[i]) << "round " << round << " entry " << i;
      finish(htm, s);
    }
  }
}

TEST(HtmScripted, EmptyRepeatingScriptIsAConfigError) {
  try {
    const Htm htm(HtmPolicy::scripted({}, ScriptEnd::kRepeat));
    ADD_FAILURE() << "no ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.field(), "script");
  }
  // An empty script that then succeeds is fine: every begin() starts.
  Htm htm(HtmPolicy::scripted({}, ScriptEnd::kSucceed));
  const HtmStatus s = htm.begin();
  EXPECT_TRUE(s.is_started());
  finish(htm, s);
}

constexpr std::uint64_t kRandomSeed = 0x5eed'c0ff'ee00'0004ULL;

TEST(HtmRandom, ReproducibleFromItsSeedAndNearTheConfiguredRate) {
  constexpr double kProbability = 0.3;
  constexpr int kCalls = 20000;
  SCOPED_TRACE("seed=" + std::to_string(kRandomSeed) + " p=" + std::to_string(kProbability));
  Htm first(HtmPolicy::random(kProbability, kRandomSeed));
  Htm second(HtmPolicy::random(kProbability, kRandomSeed));
  Htm other_seed(HtmPolicy::random(kProbability, kRandomSeed + 1));
  int aborts = 0;
  int differences_from_other_seed = 0;
  std::set<std::uint32_t> reasons;
  for (int i = 0; i < kCalls; ++i) {
    const HtmStatus a = first.begin();
    finish(first, a);
    const HtmStatus b = second.begin();
    finish(second, b);
    const HtmStatus c = other_seed.begin();
    finish(other_seed, c);
    ASSERT_EQ(a, b) << "call " << i;
    ASSERT_EQ(a, Htm::random_decision(kRandomSeed, kProbability, static_cast<std::uint64_t>(i)))
        << "call " << i;
    if (a != c) ++differences_from_other_seed;
    if (a.is_abort()) {
      ++aborts;
      reasons.insert(a.raw());
    }
  }
  // Binomial(n, p): mean np, standard deviation sqrt(np(1-p)) ~ 65 here. Six standard
  // deviations: a correct generator fails this about once in 10^9 seeds.
  const double mean = kCalls * kProbability;
  const double sd = std::sqrt(kCalls * kProbability * (1.0 - kProbability));
  EXPECT_NEAR(static_cast<double>(aborts), mean, 6.0 * sd);
  EXPECT_GT(differences_from_other_seed, kCalls / 10);
  // Every reason of kRandomAbortReasons shows up.
  EXPECT_EQ(reasons.size(), std::size(cuckoo::sync::kRandomAbortReasons));
  const HtmStats st = first.stats();
  EXPECT_EQ(st.aborts, static_cast<std::uint64_t>(aborts));
  EXPECT_EQ(st.commits, static_cast<std::uint64_t>(kCalls - aborts));
  EXPECT_EQ(st.attempts, st.started + st.not_started + st.injected_aborts);
}

TEST(HtmRandom, ProbabilityZeroNeverAbortsAndOneAlwaysAborts) {
  Htm never(HtmPolicy::random(0.0, kRandomSeed));
  Htm always(HtmPolicy::random(1.0, kRandomSeed));
  for (int i = 0; i < 1000; ++i) {
    const HtmStatus s = never.begin();
    ASSERT_TRUE(s.is_started());
    never.end();
    ASSERT_TRUE(always.begin().is_abort());
  }
}

TEST(HtmRandom, ProbabilityOutsideUnitIntervalIsAConfigError) {
  for (const double p : {-0.1, 1.5, std::numeric_limits<double>::quiet_NaN()}) {
    try {
      const Htm htm(HtmPolicy::random(p, 1));
      ADD_FAILURE() << "no ConfigError for p=" << p;
    } catch (const ConfigError& e) {
      EXPECT_EQ(e.field(), "abort_probability");
    }
  }
}

TEST(HtmAlwaysAbort, NonAbortStatusIsAConfigError) {
  for (const HtmStatus s : {HtmStatus::make_started(), HtmStatus::make_not_started()}) {
    try {
      const Htm htm(HtmPolicy::always_abort(s));
      ADD_FAILURE() << "no ConfigError for " << s.to_string();
    } catch (const ConfigError& e) {
      EXPECT_EQ(e.field(), "forced_abort");
    }
  }
}

TEST(HtmPolicy, DescribesItself) {
  EXPECT_EQ(HtmPolicy::random(0.25, 42).describe(), "random(p=0.250000, seed=42)");
  EXPECT_EQ(HtmPolicy::disabled().describe(), "disabled");
  EXPECT_EQ(HtmPolicy::always_abort(HtmStatus::make_capacity()).describe(),
            "always_abort(abort(capacity))");
  EXPECT_EQ(HtmPolicy::scripted({HtmStatus()}, ScriptEnd::kRepeat).describe(),
            "scripted(1 entries, then repeat)");
  const HtmPolicy automatic = HtmPolicy::automatic();
  EXPECT_EQ(automatic.backend,
            hardware_rtm_available() ? HtmBackend::kHardware : HtmBackend::kDisabled);
}

// ---------------------------------------------------------------------------------
// Serial emulation
// ---------------------------------------------------------------------------------

// Emulated transactions of one Htm exclude each other: a plain counter incremented
// inside them comes out exact and no two are ever inside at once.
TEST(HtmSerialEmulation, ExcludesConcurrentTransactions) {
  const Watchdog watchdog(current_test_name());
  Htm htm(HtmPolicy::serial_emulation());
  constexpr int kThreads = 4;
  constexpr int kPerThread = 5000;
  std::uint64_t counter = 0;  // not atomic: the emulated transactions protect it
  int inside = 0;
  std::atomic<int> overlaps{0};
  std::latch start(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      start.arrive_and_wait();
      for (int i = 0; i < kPerThread; ++i) {
        const HtmStatus s = htm.begin();
        if (!s.is_started()) {
          ADD_FAILURE() << "emulation did not start: " << s.to_string();
          return;
        }
        if (++inside != 1) overlaps.fetch_add(1, std::memory_order_relaxed);
        ++counter;
        --inside;
        htm.end();
      }
    });
  }
  for (std::thread& th : threads) th.join();
  EXPECT_EQ(counter, std::uint64_t{kThreads} * kPerThread);
  EXPECT_EQ(overlaps.load(), 0);
  const HtmStats st = htm.stats();
  EXPECT_EQ(st.started, std::uint64_t{kThreads} * kPerThread);
  EXPECT_EQ(st.commits, st.started);
}

TEST(HtmSerialEmulation, AbortReleasesAndReportsTheCode) {
  const Watchdog watchdog(current_test_name());
  Htm htm(HtmPolicy::serial_emulation());
  ASSERT_TRUE(htm.begin().is_started());
  EXPECT_TRUE(htm.in_transaction());
  const HtmStatus s = htm.abort<5>();
  EXPECT_TRUE(s.is_explicit());
  EXPECT_EQ(s.code(), 5);
  EXPECT_FALSE(htm.in_transaction());
  // Released: another thread can start one now.
  std::thread other([&] {
    const HtmStatus t = htm.begin();
    EXPECT_TRUE(t.is_started());
    EXPECT_TRUE(htm.in_transaction());
    finish(htm, t);
  });
  other.join();
  const HtmStats st = htm.stats();
  EXPECT_EQ(st.aborts, 1u);
  EXPECT_EQ(st.abort_explicit, 1u);
  EXPECT_EQ(st.injected_aborts, 0u);
  EXPECT_EQ(st.started, st.commits + (st.aborts - st.injected_aborts));
}

// drain_transactions() does not return while an emulated transaction is open.
TEST(HtmSerialEmulation, DrainWaitsForTheOpenTransaction) {
  const Watchdog watchdog(current_test_name());
  Htm htm(HtmPolicy::serial_emulation());
  std::atomic<bool> opened{false};
  std::atomic<bool> may_end{false};
  std::atomic<bool> drained{false};
  std::thread transaction([&] {
    const HtmStatus s = htm.begin();
    EXPECT_TRUE(s.is_started());
    opened.store(true);
    while (!may_end.load()) std::this_thread::yield();  // bounded by the watchdog
    finish(htm, s);
  });
  while (!opened.load()) std::this_thread::yield();
  std::thread drainer([&] {
    htm.drain_transactions();
    drained.store(true);
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_FALSE(drained.load()) << "drain returned while a transaction was open";
  may_end.store(true);
  transaction.join();
  drainer.join();
  EXPECT_TRUE(drained.load());
}

// Backends that never start a transaction need no drain: it returns at once.
TEST(HtmDrain, IsImmediateForBackendsWithoutTransactions) {
  const Watchdog watchdog(current_test_name());
  for (const HtmPolicy& p :
       {HtmPolicy::disabled(), HtmPolicy::always_abort(), HtmPolicy::hardware()}) {
    Htm htm(p);
    htm.drain_transactions();
  }
}

}  // namespace
