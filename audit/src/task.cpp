// The pieces of the task framework that every claim runner uses: per-task seeds,
// counterexample files, profile names.
#include <fstream>
#include <stdexcept>
#include <string>

#include "cuckoo/audit/audit.hpp"
#include "cuckoo/hash.hpp"

namespace cuckoo::audit {

const char* to_string(Profile p) noexcept {
  switch (p) {
    case Profile::kQuick: return "quick";
    case Profile::kStandard: return "standard";
    case Profile::kFull: return "full";
  }
  return "?";
}

Profile profile_from_string(std::string_view name) {
  if (name == "quick") return Profile::kQuick;
  if (name == "standard") return Profile::kStandard;
  if (name == "full") return Profile::kFull;
  throw UsageError("unknown profile '" + std::string(name) +
                   "' (expected quick, standard or full)");
}

namespace {

// FNV-1a over the bytes, then the engine's mixer: a stable function of the names (the
// same on every platform and every run), so a task's seed does not depend on which other
// tasks were selected.
std::uint64_t fold(std::uint64_t h, std::string_view s) noexcept {
  for (const char c : s) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001b3ULL;
  }
  h ^= 0xff;  // separator, so ("ab","c") and ("a","bc") differ
  h *= 0x100000001b3ULL;
  return h;
}

}  // namespace

std::uint64_t task_seed(std::uint64_t master, std::string_view claim, std::string_view engine,
                        std::string_view configuration) noexcept {
  std::uint64_t h = 0xcbf29ce484222325ULL ^ detail::mix64(master);
  h = fold(h, claim);
  h = fold(h, engine);
  h = fold(h, configuration);
  return detail::mix64(h);
}

void TaskContext::save_counterexample(Counterexample& cx, const std::string& claim,
                                      const std::string& engine) const {
  if (options == nullptr || options->out_dir.empty()) return;
  const std::filesystem::path dir = options->out_dir / "counterexamples";
  std::filesystem::create_directories(dir);
  // <claim>-<engine>-<seed>.trace: unique per task, stable across runs.
  const std::string name = claim + "-" + engine + "-" + std::to_string(seed) + ".trace";
  const std::filesystem::path path = dir / name;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << cx.trace;
  out.close();
  if (!out) throw std::runtime_error("cannot write counterexample " + path.string());
  cx.trace_file = (std::filesystem::path("counterexamples") / name).generic_string();
  if (cx.replay_command.empty()) {
    cx.replay_command = "cuckoo-audit replay " + path.generic_string();
  }
}

}  // namespace cuckoo::audit
