// Writing the four report files, and the terminal summary.
//
// Each file is rendered to memory first, then written to a temporary file, closed with
// its stream checked and renamed over the report, so an I/O failure names the file, a
// formatting bug cannot leave half a report behind a successful return, and a process
// killed while writing leaves the previous report whole.
#include <algorithm>
#include <fstream>
#include <functional>
#include <iomanip>
#include <map>
#include <ostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <system_error>
#include <vector>

#include "cuckoo/audit/report_writers.hpp"
#include "report_text.hpp"

namespace cuckoo::audit {

namespace {

// Written to PATH.tmp and renamed over PATH, so that a reader (or an auditor killed
// while rewriting its reports as findings come in) sees the previous whole file or the
// new whole file, never a partly written one.
void write_file(const std::filesystem::path& path, const std::string& content) {
  std::filesystem::path temporary = path;
  temporary += ".tmp";
  {
    std::ofstream file(temporary, std::ios::binary | std::ios::trunc);
    if (!file) throw std::runtime_error("cannot open " + temporary.string() + " for writing");
    file.write(content.data(), static_cast<std::streamsize>(content.size()));
    file.close();
    if (!file) throw std::runtime_error("cannot write " + temporary.string());
  }
  std::error_code ec;
  std::filesystem::rename(temporary, path, ec);
  if (ec) {
    std::filesystem::remove(temporary, ec);
    throw std::runtime_error("cannot replace " + path.string() + ": " + ec.message());
  }
}

// Terminal text: no escape sequences or other controls from the report reach the tty.
std::string tty(const std::string& s) { return detail::clean_text(s, "?"); }

std::string one_line(const std::string& s) {
  std::string out = tty(s);
  std::replace(out.begin(), out.end(), '\n', ' ');
  std::replace(out.begin(), out.end(), '\r', ' ');
  std::replace(out.begin(), out.end(), '\t', ' ');
  return out;
}

}  // namespace

std::vector<std::filesystem::path> write_reports(const Report& report,
                                                 const std::filesystem::path& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    throw std::runtime_error("cannot create report directory " + dir.string() + ": " +
                             ec.message());
  }
  struct Format {
    const char* file;
    std::function<void(const Report&, std::ostream&)> write;
  };
  const Format formats[] = {{"report.md", write_markdown},
                            {"report.json", write_json},
                            {"junit.xml", write_junit},
                            {"report.html", write_html}};
  std::vector<std::filesystem::path> paths;
  for (const Format& format : formats) {
    std::ostringstream text;
    format.write(report, text);
    const std::filesystem::path path = dir / format.file;
    write_file(path, text.str());
    paths.push_back(path);
  }
  return paths;
}

void write_summary(const Report& report, std::ostream& out) {
  // The run's environment first (when known), then one line per (claim, engine), failing
  // groups first (then failures that did not reproduce, passes, skips), in claim order then
  // report order of engines within each: the worst verdict of its configurations, how many
  // there were, and for a failure the first failing configuration with its summary and
  // replay command.
  const RunEnvironment& env = report.environment;
  if (!env.compiler.empty() || !env.commit.empty() || !env.cpu.empty()) {
    for (const detail::MetadataRow& row : detail::metadata_rows(report)) {
      if (row.key == "commit" || row.key == "compiler" || row.key == "cpu" || row.key == "rtm" ||
          row.key == "subject_environment") {
        out << row.label << ": " << one_line(row.value) << "\n";
      }
    }
  }
  struct Group {
    std::string claim;
    std::string engine;
    std::vector<const ClaimResult*> results;
  };
  std::vector<Group> groups;
  for (const ClaimResult& r : report.results) {
    auto it = std::find_if(groups.begin(), groups.end(), [&](const Group& g) {
      return g.claim == r.claim && g.engine == r.engine;
    });
    if (it == groups.end()) {
      groups.push_back(Group{r.claim, r.engine, {}});
      it = std::prev(groups.end());
    }
    it->results.push_back(&r);
  }
  const auto rank = [](const Group& g) {
    int best = 3;
    for (const ClaimResult* r : g.results) best = std::min(best, detail::display_rank(*r));
    return best;
  };
  std::stable_sort(groups.begin(), groups.end(), [&](const Group& a, const Group& b) {
    const int ra = rank(a);
    const int rb = rank(b);
    if (ra != rb) return ra < rb;
    return detail::claim_less(a.claim, b.claim);
  });

  std::size_t claim_width = 5;
  std::size_t engine_width = 6;
  for (const Group& g : groups) {
    claim_width = std::max(claim_width, tty(g.claim).size());
    engine_width = std::max(engine_width, tty(g.engine).size());
  }
  for (const Group& g : groups) {
    const detail::Totals t = detail::count_verdicts(g.results);
    const Verdict worst = t.failed ? Verdict::kFail : t.passed ? Verdict::kPass : Verdict::kSkipped;
    out << std::left << std::setw(static_cast<int>(claim_width)) << one_line(g.claim) << "  "
        << std::setw(static_cast<int>(engine_width)) << one_line(g.engine) << "  "
        << to_string(worst) << "  ";
    const std::size_t n = g.results.size();
    const char* noun = n == 1 ? " configuration" : " configurations";
    if (worst == Verdict::kFail) {
      out << t.failed << " of " << n << noun << " failed";
      const std::vector<const ClaimResult*> ordered = detail::failures_first(g.results);
      const ClaimResult& f = *ordered.front();
      if (detail::not_reproducible(f)) out << " (not reproducible)";
      out << "; " << one_line(f.configuration) << ": " << one_line(f.summary);
      if (f.counterexample && f.counterexample->failing_op != 0) {
        out << " [fails at op " << f.counterexample->failing_op << " of the trace file]";
      }
      if (f.counterexample && !f.counterexample->replay_command.empty()) {
        out << "\n" << std::string(claim_width + engine_width + 10, ' ')
            << "replay: " << one_line(f.counterexample->replay_command);
      }
    } else if (worst == Verdict::kSkipped) {
      out << one_line(g.results.front()->summary);
    } else {
      out << t.passed << noun << " passed";
      if (t.skipped) out << ", " << t.skipped << " skipped";
    }
    out << "\n";
  }
  const detail::Totals totals = detail::count_verdicts(report);
  out << totals.passed << " passed, " << totals.failed << " failed, " << totals.skipped
      << " skipped\n";
  if (!report.stopped.empty()) {
    out << "STOPPED EARLY: " << one_line(report.stopped)
        << "; the claims not finished are SKIP, not PASS\n";
  }
}

}  // namespace cuckoo::audit
