// The command line both examples share: run the audit (or replay a trace), print the
// summary, write the reports with --out DIR, exit 0 when every claim held, 1 when one
// broke, 2 on bad usage.
#pragma once

#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "cuckoo/audit/adapter.hpp"
#include "cuckoo/audit/report_writers.hpp"
#include "cuckoo/model/trace.hpp"
#include "cuckoo/model/violation.hpp"

template <class Factory>
int run_example(int argc, char** argv, Factory make, const cuckoo::audit::ImplementationTraits& traits) {
  std::string out_dir;
  std::string replay_file;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--out" && i + 1 < argc) {
      out_dir = argv[++i];
    } else if (arg == "--replay" && i + 1 < argc) {
      replay_file = argv[++i];
    } else {
      std::cerr << "usage: " << argv[0] << " [--out DIR] [--replay TRACE]\n";
      return 2;
    }
  }
  try {
    if (!replay_file.empty()) {
      std::ifstream in(replay_file, std::ios::binary);
      if (!in) {
        std::cerr << "cannot read " << replay_file << "\n";
        return 2;
      }
      std::ostringstream text;
      text << in.rdbuf();
      const cuckoo::model::Trace trace = cuckoo::model::parse_trace(text.str());
      if (const auto violation = cuckoo::audit::replay_implementation(make, traits, trace)) {
        std::cout << cuckoo::model::format_violation(*violation, trace);
        return 1;
      }
      std::cout << "replay: " << trace.size() << " ops, every claim held\n";
      return 0;
    }
    cuckoo::audit::AuditOptions options;
    options.out_dir = out_dir;
    const cuckoo::audit::Report report = cuckoo::audit::audit_implementation(make, traits, options);
    cuckoo::audit::write_summary(report, std::cout);
    for (const auto& r : report.results) {
      if (r.counterexample) {
        std::cout << "\n" << r.claim << " counterexample (shrunk from " << r.counterexample->original_ops
                  << " to " << r.counterexample->shrunk_ops << " ops):\n"
                  << r.counterexample->explanation;
      }
    }
    if (!out_dir.empty()) {
      for (const auto& path : cuckoo::audit::write_reports(report, out_dir)) {
        std::cout << "wrote " << path.string() << "\n";
      }
    }
    return report.all_passed() ? 0 : 1;
  } catch (const cuckoo::audit::UsageError& e) {
    std::cerr << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 2;
  }
}
