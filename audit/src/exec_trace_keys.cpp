// The key legend of exec counterexample files (exec.hpp, "key legends"): written with
// every key of the trace in full, read back exactly by a replay.
#include <algorithm>
#include <charconv>
#include <stdexcept>
#include <string>
#include <vector>

#include "cuckoo/audit/exec.hpp"
#include "exec_detail.hpp"

namespace cuckoo::audit {

namespace {

constexpr std::string_view kKeyLinePrefix = "# key ";

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

std::string key_legend(const model::Trace& trace, ExecKeys keys) {
  std::vector<std::uint64_t> seen;
  for (const model::TraceEntry& e : trace.entries) {
    if (model::takes_key(e.op.kind)) seen.push_back(e.op.key);
  }
  std::sort(seen.begin(), seen.end());
  seen.erase(std::unique(seen.begin(), seen.end()), seen.end());
  if (seen.empty()) return "";
  std::string legend = std::string("# keys as the subject saw them (--keys ") + to_string(keys) +
                       "), one line per key, every byte:\n";
  for (const std::uint64_t key : seen) {  // every key, each in full: the file is self-contained
    legend += std::string(kKeyLinePrefix) + std::to_string(key) + " = " +
              protocol_key(encode_key(keys, key));
    if (exec_detail::upper_case_hex(keys, exec_detail::Req::kContains, key)) {
      legend += " (contains and erase spell it in upper case)";
    }
    legend += '\n';
  }
  return legend;
}

std::map<std::uint64_t, std::string> read_key_legend(std::string_view text) {
  std::map<std::uint64_t, std::string> keys;
  std::size_t start = 0;
  std::size_t line_number = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    start = end + 1;
    ++line_number;
    if (line.substr(0, kKeyLinePrefix.size()) != kKeyLinePrefix) continue;
    line.remove_prefix(kKeyLinePrefix.size());
    std::uint64_t key = 0;
    const auto [after, ec] = std::from_chars(line.data(), line.data() + line.size(), key);
    if (ec != std::errc() || after == line.data()) continue;  // a comment that only looks alike
    std::string_view rest(after, static_cast<std::size_t>(line.data() + line.size() - after));
    if (rest.substr(0, 4) != " = x") continue;
    rest.remove_prefix(4);
    const std::size_t hex_end = std::min(rest.find_first_of(" \r"), rest.size());
    const std::string_view hex = rest.substr(0, hex_end);
    const std::string where = "line " + std::to_string(line_number) + ": key " + std::to_string(key);
    if (hex.size() % 2 != 0) throw std::invalid_argument(where + ": odd number of hex digits");
    std::string bytes;
    bytes.reserve(hex.size() / 2);
    for (std::size_t i = 0; i < hex.size(); i += 2) {
      const int high = hex_digit(hex[i]);
      const int low = hex_digit(hex[i + 1]);
      if (high < 0 || low < 0) throw std::invalid_argument(where + ": not a hex digit");
      bytes += static_cast<char>(high * 16 + low);
    }
    const auto [it, inserted] = keys.emplace(key, bytes);
    if (!inserted && it->second != bytes) {
      throw std::invalid_argument(where + ": listed twice with different bytes");
    }
  }
  return keys;
}

}  // namespace cuckoo::audit
