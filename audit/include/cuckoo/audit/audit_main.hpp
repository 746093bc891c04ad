// A ready-made main() for auditing your own implementation through the adapter API
// (adapter.hpp): the command line, the audit or the replay of a counterexample, the
// summary, the reports and the exit status, so that a program is its adapter plus
//
//   int main(int argc, char** argv) {
//     cuckoo::audit::ImplementationTraits traits;
//     traits.name = "my.set";
//     traits.kind = cuckoo::audit::ImplementationKind::kExactSet;
//     return cuckoo::audit::audit_main(argc, argv, [] { return MySetAdapter{}; }, traits);
//   }
//
// The program then accepts
//
//   PROGRAM [--out DIR] [--claims C1,C7] [--profile quick|standard|full] [--seed N]
//   PROGRAM --replay TRACE
//
//   --out DIR       write report.md, report.json, junit.xml, report.html and the shrunk
//                   counterexamples (DIR/counterexamples/) there; without it only the
//                   summary and the counterexamples are printed
//   --claims LIST   a subset of the adapter's claims, in either case (default: all)
//   --profile NAME  sample sizes (default quick)
//   --seed N        the master seed (default AuditOptions' 20261121)
//   --replay TRACE  replay one counterexample trace against a fresh instance
//
// and exits 0 when every claim held (or the replayed trace broke none), 1 when one broke,
// 2 on bad usage or input. examples/audit/ has two complete programs built on it.
// Header-only; link cuckoo::audit.
#pragma once

#include <cstdint>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cuckoo/audit/adapter.hpp"
#include "cuckoo/audit/audit.hpp"
#include "cuckoo/audit/report_writers.hpp"
#include "cuckoo/model/trace.hpp"
#include "cuckoo/model/violation.hpp"

namespace cuckoo::audit {

namespace audit_main_detail {

inline std::vector<std::string> claim_list(const std::string& text) {
  std::vector<std::string> claims;
  std::string item;
  std::istringstream in(text);
  while (std::getline(in, item, ',')) {
    if (item.empty()) throw UsageError("--claims: empty claim id in '" + text + "'");
    for (char& c : item) {
      if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
    }
    claims.push_back(item);
  }
  if (claims.empty() || text.back() == ',') {
    throw UsageError("--claims: expected a comma-separated list, found '" + text + "'");
  }
  return claims;
}

inline std::uint64_t seed_value(const std::string& text) {
  if (text.empty() || text.size() > 20 || text.find_first_not_of("0123456789") != std::string::npos) {
    throw UsageError("--seed: '" + text + "' is not a non-negative decimal integer");
  }
  std::uint64_t value = 0;
  for (const char c : text) {
    const auto digit = static_cast<std::uint64_t>(c - '0');
    if (value > (UINT64_MAX - digit) / 10) throw UsageError("--seed: '" + text + "' is larger than 2^64 - 1");
    value = value * 10 + digit;
  }
  return value;
}

inline std::string read_file(const std::string& path) {
  if (std::filesystem::is_directory(path)) throw UsageError("cannot read '" + path + "': it is a directory");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UsageError("cannot read '" + path + "'");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace audit_main_detail

// Runs the audit (or the replay) that argv asks for; returns the exit status. Factory and
// traits are audit_implementation's. Usage errors and I/O failures are reported on
// stderr with status 2; nothing is thrown.
template <class Factory>
int audit_main(int argc, char** argv, Factory make, const ImplementationTraits& traits) {
  namespace detail = audit_main_detail;
  const std::string program = argc > 0 ? argv[0] : "audit";
  const std::string usage = "usage: " + program +
                            " [--out DIR] [--claims C1,C2,...] [--profile quick|standard|full] "
                            "[--seed N]\n       " +
                            program + " --replay TRACE\n";
  try {
    AuditOptions options;
    std::string replay_file;
    bool audit_flags = false;
    for (int i = 1; i < argc; ++i) {
      const std::string arg = argv[i];
      if (arg == "--help" || arg == "-h") {
        std::cout << usage << "Audits " << traits.name
                  << " (cuckoo::audit::audit_implementation): exit 0 every claim held, 1 a claim "
                     "broke, 2 bad usage.\n";
        return 0;
      }
      const bool takes_value = arg == "--out" || arg == "--replay" || arg == "--claims" ||
                               arg == "--profile" || arg == "--seed";
      if (!takes_value) throw UsageError("unknown argument '" + arg + "'");
      if (i + 1 >= argc) throw UsageError(arg + " needs a value");
      const std::string value = argv[++i];
      if (arg == "--replay") {
        replay_file = value;
        continue;
      }
      audit_flags = true;
      if (arg == "--out") {
        options.out_dir = value;
      } else if (arg == "--claims") {
        options.claims = detail::claim_list(value);
      } else if (arg == "--profile") {
        options.profile = profile_from_string(value);
      } else {
        options.seed = detail::seed_value(value);
      }
    }

    if (!replay_file.empty()) {
      if (audit_flags) throw UsageError("--replay takes no other option");
      const model::Trace trace = model::parse_trace(detail::read_file(replay_file));
      if (const auto violation = replay_implementation(make, traits, trace)) {
        std::cout << model::format_violation(*violation, trace);
        return 1;
      }
      std::cout << "replay: " << trace.size() << " ops, every claim held\n";
      return 0;
    }

    Report report = audit_implementation(make, traits, options);
    report.environment = collect_run_environment(std::filesystem::current_path());
    write_summary(report, std::cout);
    for (const ClaimResult& r : report.results) {
      if (r.counterexample) {
        std::cout << "\n" << r.claim << " counterexample (shrunk from " << r.counterexample->original_ops
                  << " to " << r.counterexample->shrunk_ops << " ops):\n"
                  << r.counterexample->explanation;
      }
    }
    if (!options.out_dir.empty()) {
      for (const std::filesystem::path& path : write_reports(report, options.out_dir)) {
        std::cout << "wrote " << path.string() << "\n";
      }
    }
    return report.all_passed() ? 0 : 1;
  } catch (const UsageError& e) {
    std::cerr << program << ": " << e.what() << "\n" << usage;
    return 2;
  } catch (const model::TraceError& e) {
    std::cerr << program << ": bad trace: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << program << ": error: " << e.what() << "\n";
    return 2;
  }
}

}  // namespace cuckoo::audit
