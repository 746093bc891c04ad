// Test support: turns a deadlocked multithreaded test into a failure that names the test
// (and whatever context, such as a backend and a seed, the caller adds) instead of a hang.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>
#include <utility>

namespace cuckoo::test {

// Aborts the process with a message unless destroyed within the limit.
class Watchdog {
 public:
  static constexpr std::chrono::seconds kDefaultLimit{120};

  explicit Watchdog(std::string what, std::chrono::seconds limit = kDefaultLimit)
      : what_(std::move(what)), thread_([this, limit] { run(limit); }) {}
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;
  ~Watchdog() {
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      done_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }

 private:
  void run(std::chrono::seconds limit) {
    std::unique_lock<std::mutex> lock(mutex_);
    if (!cv_.wait_for(lock, limit, [this] { return done_; })) {
      std::fprintf(stderr, "WATCHDOG: %s did not finish within %lld s: deadlock suspected\n",
                   what_.c_str(), static_cast<long long>(limit.count()));
      std::fflush(stderr);
      std::abort();
    }
  }

  std::string what_;
  std::mutex mutex_;
  std::condition_variable cv_;
  bool done_ = false;
  std::thread thread_;
};

// "Suite.Name" of the running GoogleTest test.
inline std::string current_test_name() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  return std::string(info->test_suite_name()) + "." + info->name();
}

}  // namespace cuckoo::test
