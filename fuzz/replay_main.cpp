// A main() for builds without libFuzzer: feeds each file named on the command line (or
// every file in a named directory) to LLVMFuzzerTestOneInput once. A target reports a
// violation by printing it and aborting, so a replayed input fails exactly as it did
// under the fuzzer.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {

int replay_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "replay: cannot open %s\n", path.c_str());
    return 1;
  }
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  // Copy into an exact-size heap buffer so that AddressSanitizer sees reads past the end.
  std::vector<std::uint8_t> input(bytes.begin(), bytes.end());
  auto* exact = new std::uint8_t[input.size() + (input.empty() ? 1 : 0)];
  std::copy(input.begin(), input.end(), exact);
  LLVMFuzzerTestOneInput(exact, input.size());
  delete[] exact;
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s FILE_OR_DIR...\n", argv[0]);
    return 2;
  }
  int failures = 0;
  std::size_t replayed = 0;
  for (int i = 1; i < argc; ++i) {
    const std::filesystem::path arg(argv[i]);
    if (std::filesystem::is_directory(arg)) {
      for (const auto& entry : std::filesystem::directory_iterator(arg)) {
        if (!entry.is_regular_file()) continue;
        failures += replay_file(entry.path());
        ++replayed;
      }
    } else {
      failures += replay_file(arg);
      ++replayed;
    }
  }
  std::printf("replay: %zu inputs replayed, %d unreadable\n", replayed, failures);
  return failures == 0 ? 0 : 1;
}
