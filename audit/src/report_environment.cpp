// The run's environment for the report's metadata (report.hpp RunEnvironment): the
// commit of the directory the audit ran in, the compiler and flags this library was built
// with, the CPU model and whether it has RTM. Nothing here fails: what cannot be found is
// left empty, and the writers say "unknown".
#include <array>
#include <cstdio>
#include <fstream>
#include <string>
#include <sys/wait.h>

#include "cuckoo/audit/report_writers.hpp"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#ifndef CUCKOO_AUDIT_CXX_FLAGS
#define CUCKOO_AUDIT_CXX_FLAGS ""
#endif
#ifndef CUCKOO_AUDIT_BUILD_TYPE
#define CUCKOO_AUDIT_BUILD_TYPE ""
#endif

namespace cuckoo::audit {

namespace {

// A word for /bin/sh, single-quoted.
std::string sh_quote(const std::string& s) {
  std::string out = "'";
  for (const char c : s) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  return out + "'";
}

// HEAD's commit of the git tree `directory` is in; "" when it is none, or git is missing.
std::string git_head(const std::filesystem::path& directory) {
  const std::string command =
      "git -C " + sh_quote(directory.string()) + " rev-parse HEAD 2>/dev/null </dev/null";
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) return "";
  std::string out;
  std::array<char, 128> buffer{};
  // Bound: a commit id is 40 or 64 hex digits; more output is not one.
  while (out.size() < 256 && std::fgets(buffer.data(), buffer.size(), pipe) != nullptr) {
    out += buffer.data();
  }
  const int status = ::pclose(pipe);
  if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) return "";
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
  if (out.size() != 40 && out.size() != 64) return "";
  if (out.find_first_not_of("0123456789abcdef") != std::string::npos) return "";
  return out;
}

std::string compiler() {
#if defined(__clang__)
  return std::string("Clang ") + __clang_version__;
#elif defined(__GNUC__)
  return std::string("GCC ") + __VERSION__;
#elif defined(_MSC_VER)
  return "MSVC " + std::to_string(_MSC_VER);
#else
  return "";
#endif
}

std::string compiler_flags() {
  std::string flags = CUCKOO_AUDIT_CXX_FLAGS;
  const std::string build_type = CUCKOO_AUDIT_BUILD_TYPE;
  if (!build_type.empty()) flags += (flags.empty() ? "" : " ") + ("(build type " + build_type + ")");
#if defined(__OPTIMIZE__)
  flags += flags.empty() ? "optimized" : ", optimized";
#else
  flags += flags.empty() ? "not optimized" : ", not optimized";
#endif
#if !defined(NDEBUG)
  flags += ", assertions on";
#endif
  return flags;
}

// "model name : ..." of /proc/cpuinfo's first processor.
std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  // Bound: the lines of /proc/cpuinfo up to the first model name.
  for (int i = 0; i < 4096 && std::getline(in, line); ++i) {
    if (line.rfind("model name", 0) != 0 && line.rfind("Model", 0) != 0) continue;
    const std::size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string value = line.substr(colon + 1);
    while (!value.empty() && value.front() == ' ') value.erase(0, 1);
    return value;
  }
  return "";
}

std::string rtm() {
#if defined(__x86_64__) || defined(__i386__)
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (__get_cpuid_max(0, nullptr) < 7) return "no";
  __cpuid_count(7, 0, a, b, c, d);
  return (b & (1u << 11)) != 0 ? "yes" : "no";
#else
  return "";
#endif
}

}  // namespace

RunEnvironment collect_run_environment(const std::filesystem::path& directory) {
  RunEnvironment env;
  env.commit = git_head(directory);
  std::error_code ec;
  const std::filesystem::path absolute = std::filesystem::absolute(directory, ec);
  env.commit_directory = (ec ? directory : absolute).generic_string();
  env.compiler = compiler();
  env.compiler_flags = compiler_flags();
  env.cpu = cpu_model();
  env.rtm = rtm();
  return env;
}

}  // namespace cuckoo::audit
