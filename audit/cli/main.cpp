// cuckoo-audit: checks the published claims of cuckoo structures (DESIGN.md section 4)
// on the project's engines and writes the evidence (audit/README.md).
//
//   cuckoo-audit run [--claims C1,C2] [--engines filter,map] [--profile quick|standard|full]
//                    [--seed N] [--jobs N] [--out DIR]
//   cuckoo-audit replay TRACE
//   cuckoo-audit exec [--claims C1,C2] [--profile P] [--seed N] [--out DIR] [--timeout S]
//                     [--keys FAMILY] [--claims-file FILE] [--replay TRACE] -- COMMAND [ARGS...]
//   cuckoo-audit list
//
// Exit status: 0 every claim held; 1 a claim failed (or the replayed trace broke one);
// 2 bad usage or bad input. The parsing here is deliberately strict: an unknown flag, a
// number with trailing junk or a repeated flag is an error, not a guess.
#include <unistd.h>

#include <sys/ioctl.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "cuckoo/audit/audit.hpp"
#include "cuckoo/audit/exec.hpp"
#include "cuckoo/audit/exec_concurrent.hpp"
#include "exec_concurrent_cli.hpp"
#include "cuckoo/subjects/replay.hpp"
#include "cuckoo/audit/report.hpp"
#include "cuckoo/audit/report_writers.hpp"
#include "cuckoo/error.hpp"
#include "cuckoo/model/trace.hpp"
#include "cuckoo/model/violation.hpp"

#ifndef CUCKOO_VERSION
#define CUCKOO_VERSION "unknown"
#endif

namespace {

namespace audit = cuckoo::audit;
namespace model = cuckoo::model;

constexpr int kExitHeld = 0;
constexpr int kExitClaimFailed = 1;
constexpr int kExitUsage = 2;
// exec --time-limit: the audit stopped at its time limit before it was done and found
// nothing (with a finding it is 1).
constexpr int kExitUnfinished = 3;

constexpr const char* kDefaultOutDir = "build/audit";
// --jobs above this cannot be meant (the runner enforces the same limit).
constexpr std::uint64_t kMaxJobs = 1024;
// Traces larger than this are not counterexamples anyone wrote; refuse to slurp them.
constexpr std::uintmax_t kMaxTraceBytes = std::uintmax_t{256} << 20;

const char* const kUsage =
    "usage: cuckoo-audit run [--claims C1,C2,...] [--engines filter,map,...]\n"
    "                        [--profile quick|standard|full] [--seed N] [--jobs N]\n"
    "                        [--out DIR]\n"
    "       cuckoo-audit replay TRACE\n"
    "       cuckoo-audit exec [--claims C1,C2,...] [--profile quick|standard|full]\n"
    "                         [--seed N] [--out DIR] [--timeout SECONDS]\n"
    "                         [--keys mixed|u64le|decimal] [--claims-file FILE]\n"
    "                         [--replay TRACE] [--concurrent N] [--time-limit SECONDS]\n"
    "                         -- COMMAND [ARGS...]\n"
    "       cuckoo-audit list\n"
    "       cuckoo-audit --help | --version\n";

const char* const kHelp =
    "Checks the published claims of cuckoo hashing structures (C1..C12) on the cuckoo\n"
    "engines and writes the evidence.\n"
    "\n"
    "Commands:\n"
    "  run      run the claims; print a summary, write report.md, report.json,\n"
    "           junit.xml and report.html to --out, and each failing claim's shrunk\n"
    "           trace to --out/counterexamples/\n"
    "  replay   check one trace (a counterexample or any trace file) against the engine\n"
    "           its header names and the model\n"
    "  exec     audit a program in any language that serves a filter or a set through\n"
    "           the line protocol of audit/PROTOCOL.md (claims @EXEC_CLAIMS@)\n"
    "  list     the claims, what the audit checks for each, and the engines\n"
    "\n"
    "Options of run:\n"
    "  --claims LIST    comma-separated claim ids, either case (default: all)\n"
    "  --engines LIST   comma-separated engines: filter, map, classic, smart, bloom,\n"
    "                   concurrent-filter, concurrent-map, growing-filter (default:\n"
    "                   all)\n"
    "  --profile NAME   quick (under 3 minutes on 2 cores, the default), standard\n"
    "                   (under 20 minutes), full (the nightly lane)\n"
    "  --seed N         the master seed (default 20261121); every task's seed derives\n"
    "                   from it and its names, so one task reproduces alone\n"
    "  --jobs N         worker threads (default: the number of hardware threads)\n"
    "  --out DIR        where the reports go (default: build/audit)\n"
    "\n"
    "Options of exec (before the '--' that starts the subject's command line):\n"
    "  --claims LIST    @EXEC_CLAIMS@ (default: all that the declarations allow)\n"
    "  --profile, --seed, --out   as for run\n"
    "  --timeout S      seconds to wait for each response (default 10; fractions\n"
    "                   allowed); the handshake gets at least 10 s\n"
    "  --keys FAMILY    how trace keys become byte strings: mixed (the default: decimal,\n"
    "                   words, long words, URLs, binary with zero bytes, keys differing\n"
    "                   in one late byte or one bit, 1-4 KiB keys, the empty key),\n"
    "                   u64le (8 bytes), decimal\n"
    "  --claims-file F  key=value lines that override the subject's declarations\n"
    "  --replay TRACE   replay a counterexample an exec audit wrote, instead of auditing\n"
    "  --concurrent N   C10: drive N sessions at once (1..64) of a subject that declares\n"
    "                   concurrent=M (default: the smaller of M and 4; C10 runs whenever\n"
    "                   the subject declares it)\n"
    "  --time-limit S   stop the audit after S seconds and report what it found; the\n"
    "                   claims not finished are SKIP (default: no limit)\n"
    "  Each finding is printed on stderr as it is made, and the reports in --out are\n"
    "  rewritten with it. Interrupted (SIGINT, SIGTERM, SIGHUP, SIGQUIT), exec stops its\n"
    "  subject, writes the reports with what it found, and ends by that signal; a second\n"
    "  signal ends it at once.\n"
    "\n"
    "Exit status: 0 every claim held, 1 a claim failed (or the replayed trace broke\n"
    "one, or the exec subject misbehaved), 2 bad usage or bad input (for exec also: the\n"
    "command cannot be started, its handshake is missing, malformed or of another\n"
    "protocol version), 3 exec --time-limit stopped the audit before it was done, with\n"
    "no finding.\n";

// "SIGINT" for SIGINT.
std::string signal_name(int sig) {
  const char* abbrev = sigabbrev_np(sig);
  return abbrev != nullptr ? std::string("SIG") + abbrev : "signal " + std::to_string(sig);
}

// ---- argument parsing ----

// Claims an exec audit runs: the adapter's, since an exec audit is audit_implementation
// driving the subject (adapter_detail::kAdapterClaims is the list it validates against).
constexpr const auto& kExecClaims = audit::adapter_detail::kAdapterClaims;

bool is_exec_claim(const std::string& claim) {
  // C10: through concurrent sessions (exec_concurrent.hpp), for a subject declaring them.
  return claim == "C10" || std::find_if(std::begin(kExecClaims), std::end(kExecClaims),
                      [&claim](const char* c) { return claim == c; }) != std::end(kExecClaims);
}

// "C1, C2, C5, C6 and C7".
std::string exec_claims_text() {
  std::string text;
  const std::size_t n = std::size(kExecClaims);
  for (std::size_t i = 0; i < n; ++i) {
    if (i > 0) text += i + 1 == n ? " and " : ", ";
    text += kExecClaims[i];
  }
  return text;
}

// kHelp with the exec claims filled in.
std::string help_text() {
  std::string text = kHelp;
  const std::string mark = "@EXEC_CLAIMS@";
  for (std::size_t at = text.find(mark); at != std::string::npos; at = text.find(mark, at)) {
    text.replace(at, mark.size(), exec_claims_text());
  }
  return text;
}

[[noreturn]] void usage_error(const std::string& message) { throw audit::UsageError(message); }

std::uint64_t parse_u64(std::string_view flag, const std::string& text) {
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos) {
    usage_error(std::string(flag) + ": '" + text + "' is not a non-negative decimal integer");
  }
  std::uint64_t value = 0;
  for (const char c : text) {
    const auto digit = static_cast<std::uint64_t>(c - '0');
    if (value > (UINT64_MAX - digit) / 10) {
      usage_error(std::string(flag) + ": '" + text + "' is larger than 2^64 - 1");
    }
    value = value * 10 + digit;
  }
  return value;
}

std::vector<std::string> parse_list(std::string_view flag, const std::string& text) {
  std::vector<std::string> items;
  std::string item;
  std::istringstream in(text);
  while (std::getline(in, item, ',')) {
    if (item.empty()) usage_error(std::string(flag) + ": empty name in '" + text + "'");
    items.push_back(item);
  }
  if (items.empty() || text.back() == ',') {
    usage_error(std::string(flag) + ": expected a comma-separated list, found '" + text + "'");
  }
  return items;
}

// A --claims list: claim ids are accepted in either case ("c1,C2" is "C1,C2").
std::vector<std::string> parse_claims(std::string_view flag, const std::string& text) {
  std::vector<std::string> claims = parse_list(flag, text);
  for (std::string& claim : claims) {
    for (char& c : claim) {
      if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
    }
  }
  return claims;
}

// --out DIR, checked before any work: DIR (or, when it does not exist yet, its nearest
// existing ancestor, under which the reports will create it) must be a directory this
// process can create files in. A file in the way, a read-only file system or a missing
// permission is bad usage (exit 2) now rather than an I/O error after the whole run.
void check_out_dir(const std::filesystem::path& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path existing = fs::absolute(dir, ec).lexically_normal();
  if (ec) usage_error("--out: '" + dir.string() + "': " + ec.message());
  // The nearest ancestor that exists (the root always does).
  while (!fs::exists(fs::symlink_status(existing, ec)) && existing.has_relative_path()) {
    existing = existing.parent_path();
  }
  const fs::file_status status = fs::status(existing, ec);
  if (!fs::is_directory(status)) {
    if (existing == fs::absolute(dir, ec).lexically_normal()) {
      usage_error("--out: '" + dir.string() + "' exists and is not a directory");
    }
    usage_error("--out: '" + dir.string() + "' cannot be created: '" + existing.string() +
                "' is not a directory");
  }
  // Creating a file is the only reliable test (permissions, read-only mounts, ACLs, root).
  std::string probe = (existing / ".cuckoo-audit-out-XXXXXX").string();
  const int fd = mkstemp(probe.data());
  if (fd < 0) {
    const int error = errno;
    usage_error("--out: '" + dir.string() + "' is not writable: cannot create files in '" +
                existing.string() + "': " + std::strerror(error));
  }
  close(fd);
  unlink(probe.c_str());
}

// "--name value" or "--name=value"; each flag at most once.
class FlagReader {
 public:
  explicit FlagReader(std::vector<std::string> args) : args_(std::move(args)) {}

  bool done() const { return next_ >= args_.size(); }

  // The next argument; when it is "--name=value", the name, with the value kept for
  // value().
  std::string next() {
    std::string arg = args_[next_++];
    pending_.reset();
    if (arg.rfind("--", 0) == 0) {
      const std::size_t eq = arg.find('=');
      if (eq != std::string::npos) {
        pending_ = arg.substr(eq + 1);
        arg.resize(eq);
      }
      if (!seen_.emplace(arg, true).second) usage_error(arg + " given twice");
    }
    return arg;
  }

  std::string value(const std::string& flag) {
    if (pending_) {
      std::string v = *pending_;
      pending_.reset();
      return v;
    }
    if (done()) usage_error(flag + " needs a value");
    return args_[next_++];
  }

  // A flag that takes no value must not get one through "=".
  void no_value(const std::string& flag) const {
    if (pending_) usage_error(flag + " takes no value");
  }

 private:
  std::vector<std::string> args_;
  std::size_t next_ = 0;
  std::optional<std::string> pending_;
  std::map<std::string, bool> seen_;
};

bool is_help(std::string_view arg) { return arg == "--help" || arg == "-h"; }

// ---- progress ----

std::string duration_text(double seconds) {
  const auto s = static_cast<long long>(seconds + 0.5);
  char text[32];
  if (s >= 3600) {
    std::snprintf(text, sizeof text, "%lldh%02lldm", s / 3600, (s % 3600) / 60);
  } else if (s >= 60) {
    std::snprintf(text, sizeof text, "%lldm%02llds", s / 60, s % 60);
  } else {
    std::snprintf(text, sizeof text, "%llds", s);
  }
  return text;
}

std::string detail_seconds(double seconds) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f s", seconds);
  return text;
}

std::string task_name(const audit::Progress& p) {
  std::string name = p.claim + " " + p.engine;
  if (!p.configuration.empty()) name += " " + p.configuration;
  return name;
}

// Prints progress to stderr: one updating line on a terminal, else a line per event.
// The runner calls it serialized, so it keeps its state without a lock.
class ProgressPrinter {
 public:
  ProgressPrinter(bool terminal, std::string header)
      : terminal_(terminal), header_(std::move(header)) {}

  void operator()(const audit::Progress& p) {
    if (!header_.empty()) {
      std::cerr << header_ << ", " << p.tasks_total << " task"
                << (p.tasks_total == 1 ? "" : "s") << "\n";
      header_.clear();
    }
    const std::string name = task_name(p);
    if (!p.finished) {
      started_at_[name] = p.seconds_elapsed;
      if (terminal_) {
        draw(p, name);
      } else {
        std::cerr << "start " << name << "\n" << std::flush;
      }
      return;
    }
    const auto it = started_at_.find(name);
    const double took = p.seconds_elapsed - (it == started_at_.end() ? 0.0 : it->second);
    char seconds[32];
    std::snprintf(seconds, sizeof seconds, "%.1f s", took);
    const std::string line = std::string(audit::to_string(p.verdict)) + " " + name + " (" +
                             seconds + ")";
    if (!terminal_) {
      std::cerr << line << "\n" << std::flush;
      return;
    }
    // On a terminal only failures stay on screen; the updating line shows the rest.
    if (p.verdict == audit::Verdict::kFail) std::cerr << "\r\x1b[K" << line << "\n";
    draw(p, name);
  }

  void finish() const {
    if (terminal_) std::cerr << "\r\x1b[K" << std::flush;
  }

 private:
  void draw(const audit::Progress& p, const std::string& name) const {
    std::string line = "[" + std::to_string(static_cast<int>(p.fraction_done * 100)) + "%] " +
                       name + " \u2014 ";
    line += p.tasks_done == 0 ? std::string("estimating time left")
                              : duration_text(p.seconds_left) + " left";
    const std::size_t width = terminal_width();
    if (line.size() >= width) line.resize(width - 1);
    std::cerr << "\r\x1b[K" << line << std::flush;
  }

  static std::size_t terminal_width() {
    winsize size{};
    if (ioctl(STDERR_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col > 10) return size.ws_col;
    return 80;
  }

  bool terminal_;
  std::string header_;
  std::map<std::string, double> started_at_;
};

// An argument as a POSIX shell reads it back.
std::string shell_word(const std::string& arg) {
  if (!arg.empty() && arg.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                            "0123456789_./=:,+-@%") == std::string::npos) {
    return arg;
  }
  std::string out = "'";
  for (const char c : arg) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  return out + "'";
}

std::string shell_line(const std::vector<std::string>& words) {
  std::string line;
  for (const std::string& w : words) {
    if (!line.empty()) line += ' ';
    line += shell_word(w);
  }
  return line;
}

// ---- commands ----

int run_command(const std::vector<std::string>& args) {
  audit::RunOptions options;
  options.jobs = std::max(1u, std::thread::hardware_concurrency());
  std::filesystem::path out_dir = kDefaultOutDir;
  bool seed_given = false;

  FlagReader flags(args);
  while (!flags.done()) {
    const std::string flag = flags.next();
    if (is_help(flag)) {
      flags.no_value(flag);
      std::cout << kUsage << "\n" << help_text();
      return kExitHeld;
    }
    if (flag == "--claims") {
      options.claims = parse_claims(flag, flags.value(flag));
    } else if (flag == "--engines") {
      options.engines = parse_list(flag, flags.value(flag));
    } else if (flag == "--profile") {
      options.profile = audit::profile_from_string(flags.value(flag));
    } else if (flag == "--seed") {
      options.seed = parse_u64(flag, flags.value(flag));
      seed_given = true;
    } else if (flag == "--jobs") {
      const std::uint64_t jobs = parse_u64(flag, flags.value(flag));
      if (jobs < 1 || jobs > kMaxJobs) {
        usage_error("--jobs: " + std::to_string(jobs) + " is outside [1, " +
                    std::to_string(kMaxJobs) + "]");
      }
      options.jobs = static_cast<unsigned>(jobs);
    } else if (flag == "--out") {
      out_dir = flags.value(flag);
      if (out_dir.empty()) usage_error("--out: empty directory name");
    } else if (flag.rfind("-", 0) == 0) {
      usage_error("run: unknown option '" + flag + "'");
    } else {
      usage_error("run: unexpected argument '" + flag + "'");
    }
  }
  options.out_dir = out_dir;
  check_out_dir(out_dir);

  // The command that reproduces this run, with the seed made explicit.
  options.command = "cuckoo-audit run";
  for (const std::string& arg : args) options.command += " " + arg;
  if (!seed_given) options.command += " --seed " + std::to_string(options.seed);

  // Printed with the first progress event, so that a usage error comes alone.
  const std::string header = "cuckoo-audit " + std::string(CUCKOO_VERSION) + ": profile " +
                             to_string(options.profile) + ", seed " +
                             std::to_string(options.seed) + ", " +
                             std::to_string(options.jobs) + " job" +
                             (options.jobs == 1 ? "" : "s");
  ProgressPrinter printer(isatty(STDERR_FILENO) == 1, header);
  options.on_progress = [&printer](const audit::Progress& p) { printer(p); };
  audit::Report report;
  try {
    report = audit::run_audit(options);
  } catch (...) {
    printer.finish();
    throw;
  }
  printer.finish();

  report.environment = audit::collect_run_environment(std::filesystem::current_path());
  audit::write_summary(report, std::cout);
  const std::vector<std::filesystem::path> files = audit::write_reports(report, out_dir);
  std::cout << "reports:";
  for (const std::filesystem::path& file : files) std::cout << " " << file.generic_string();
  std::cout << "\n";
  if (!report.all_passed()) {
    std::cout << "replay a counterexample with: cuckoo-audit replay "
              << (out_dir / "counterexamples" / "<file>.trace").generic_string() << "\n";
  }
  std::cout << std::flush;
  return report.all_passed() ? kExitHeld : kExitClaimFailed;
}

// Reads a whole file; a UsageError (exit 2) says why it could not.
std::string read_trace_file(const std::filesystem::path& path) {
  std::error_code ec;
  const std::filesystem::file_status status = std::filesystem::status(path, ec);
  if (ec || !std::filesystem::exists(status)) {
    usage_error("cannot read trace '" + path.string() + "': no such file");
  }
  if (std::filesystem::is_directory(status)) {
    usage_error("cannot read trace '" + path.string() + "': it is a directory");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    usage_error("cannot read trace '" + path.string() + "': " + std::strerror(errno));
  }
  std::string text;
  char buffer[1 << 16];
  // Bound: kMaxTraceBytes / sizeof buffer reads.
  while (in.read(buffer, sizeof buffer) || in.gcount() > 0) {
    text.append(buffer, static_cast<std::size_t>(in.gcount()));
    if (text.size() > kMaxTraceBytes) {
      usage_error("cannot read trace '" + path.string() + "': larger than " +
                  std::to_string(kMaxTraceBytes >> 20) + " MiB");
    }
  }
  if (in.bad()) usage_error("cannot read trace '" + path.string() + "': read error");
  return text;
}

// The engines `replay` builds (subjects/replay.hpp).
constexpr std::string_view kReplayEngines[] = {"filter", "map", "classic", "smart", "bloom",
                                               "growing"};

// The comment an exec counterexample file ends with: the command that replays it.
constexpr std::string_view kExecReplayComment = "# replay with: ";

// A trace whose header names none of the project's engines was written for another
// implementation: an exec subject (its header has keys=, its file says how to replay it)
// or an adapter (a C++ class audited through cuckoo::audit, its header has kind=). Either
// way `replay` cannot build it; say what can (exit 2). The caller prefixes the file name.
void check_replayable_engine(const std::string& file, const std::string& text,
                             const model::Trace& trace) {
  if (std::find(std::begin(kReplayEngines), std::end(kReplayEngines), trace.engine) !=
      std::end(kReplayEngines)) {
    return;
  }
  const std::string engine = "unknown engine '" + trace.engine + "'";
  const std::size_t hint = text.find(kExecReplayComment);
  if (trace.parameters.has("keys") || hint != std::string::npos) {
    std::string message = engine +
                          ": the trace was written by `cuckoo-audit exec` for a program that "
                          "serves '" + trace.engine +
                          "' through audit/PROTOCOL.md; replay it against that program with "
                          "cuckoo-audit exec --replay " + shell_word(file) + " -- COMMAND [ARGS...]";
    if (hint != std::string::npos) {
      const std::size_t from = hint + kExecReplayComment.size();
      message += " (the file names its command: " +
                 text.substr(from, text.find('\n', from) - from) + ")";
    }
    usage_error(message);
  }
  if (trace.parameters.has("kind")) {
    usage_error(engine + ": the trace was written by an audit of your own "
                "implementation '" + trace.engine + "' (cuckoo::audit::audit_implementation); "
                "replay it in your program with cuckoo::audit::replay_implementation(factory, "
                "traits, trace) (the programs in examples/audit do it with --replay TRACE)");
  }
  usage_error(engine + " in the trace header (cuckoo-audit replay builds filter, "
              "map, classic, smart, bloom or growing; a trace of your own implementation replays "
              "through cuckoo::audit::replay_implementation, one written by cuckoo-audit exec "
              "through cuckoo-audit exec --replay TRACE -- COMMAND)");
}

int replay_command(const std::vector<std::string>& args) {
  std::optional<std::string> file;
  for (const std::string& arg : args) {
    if (is_help(arg)) {
      std::cout << "usage: cuckoo-audit replay TRACE\n\n"
                   "Builds the engine the trace's header names, runs the trace's ops on it\n"
                   "and on the model in lock step, and reports the first broken claim.\n"
                   "Exit status: 0 every claim held, 1 a claim broke, 2 bad input.\n";
      return kExitHeld;
    }
    if (arg.size() > 1 && arg[0] == '-') usage_error("replay: unknown option '" + arg + "'");
    if (file) usage_error("replay: expected one trace file, got '" + *file + "' and '" + arg + "'");
    file = arg;
  }
  if (!file) usage_error("replay: missing the trace file");

  const std::string text = read_trace_file(*file);
  if (audit::is_concurrent_trace(text)) {
    const std::size_t hint = text.find(kExecReplayComment);
    const std::size_t from = hint == std::string::npos ? 0 : hint + kExecReplayComment.size();
    usage_error(*file + ": a concurrent trace: the trace was written by `cuckoo-audit exec` (C10) for a "
                "program that serves concurrent sessions through audit/PROTOCOL.md; replay it with "
                "cuckoo-audit exec --replay " + shell_word(*file) + " -- COMMAND [ARGS...]" +
                (hint == std::string::npos ? std::string()
                                           : " (the file names its command: " +
                                                 text.substr(from, text.find('\n', from) - from) + ")"));
  }
  model::Trace trace;
  std::optional<model::Violation> violation;
  try {
    trace = model::parse_trace(text);
    check_replayable_engine(*file, text, trace);
    violation = cuckoo::subjects::replay(trace);
  } catch (const model::TraceError& e) {
    usage_error(*file + ": " + e.what());
  } catch (const cuckoo::ConfigError& e) {
    usage_error(*file + ": " + e.what());
  } catch (const std::invalid_argument& e) {
    usage_error(*file + ": " + e.what());
  }
  if (!violation) {
    std::cout << "OK: " << trace.size() << " ops, every claim held\n";
    return kExitHeld;
  }
  const std::string_view summary = model::claim_summary(violation->claim);
  std::cout << "VIOLATION of " << violation->claim;
  if (!summary.empty()) std::cout << " (" << summary << ")";
  std::cout << " at op " << model::op_number(*violation) << " of " << *file << "\n"
            << model::format_violation(*violation, trace) << std::flush;
  return kExitClaimFailed;
}

// ---- exec ----

// Now, as report.started_utc wants it (ISO 8601, UTC, whole seconds).
std::string utc_now_iso8601() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}
// --timeout above a day cannot be meant.
constexpr double kMaxTimeoutSeconds = 86400;

// A decimal number of seconds ("10", "0.5"), positive.
double parse_seconds(std::string_view flag, const std::string& text) {
  const std::size_t dot = text.find('.');
  const std::string whole = text.substr(0, dot);
  const std::string fraction = dot == std::string::npos ? "" : text.substr(dot + 1);
  if (whole.empty() || whole.find_first_not_of("0123456789") != std::string::npos ||
      (dot != std::string::npos &&
       (fraction.empty() || fraction.find_first_not_of("0123456789") != std::string::npos)) ||
      whole.size() > 6) {
    usage_error(std::string(flag) + ": '" + text + "' is not a number of seconds (e.g. 10 or 0.5)");
  }
  const double seconds = std::stod(text);
  if (!(seconds > 0) || seconds > kMaxTimeoutSeconds) {
    usage_error(std::string(flag) + ": " + text + " is outside (0, " +
                std::to_string(static_cast<long>(kMaxTimeoutSeconds)) + "]");
  }
  return seconds;
}

struct ExecArgs {
  audit::ExecOptions session;
  audit::AuditOptions audit;
  std::filesystem::path out_dir = kDefaultOutDir;
  std::optional<std::string> replay;
  bool keys_given = false;
  bool timeout_given = false;
  bool seed_given = false;
  unsigned concurrent = 0;  // --concurrent N; 0: not given
  double time_limit = 0;    // --time-limit S; 0: none
  std::optional<std::string> claims_file;
  std::vector<std::string> flags;  // the options as given, for the report's command
};

const char* const kExecUsage =
    "usage: cuckoo-audit exec [--claims C1,C2,...] [--profile quick|standard|full]\n"
    "                         [--seed N] [--out DIR] [--timeout SECONDS]\n"
    "                         [--keys mixed|u64le|decimal] [--claims-file FILE]\n"
    "                         [--replay TRACE] [--concurrent N] [--time-limit SECONDS]\n"
    "                         -- COMMAND [ARGS...]\n";

// The replay command for a counterexample file.
std::string exec_replay_command(const ExecArgs& a, const std::string& trace_path) {
  std::vector<std::string> words = {"cuckoo-audit", "exec"};
  if (a.keys_given) words.insert(words.end(), {"--keys", audit::to_string(a.session.keys)});
  if (a.timeout_given) {
    std::ostringstream t;
    t << a.session.timeout_seconds;
    words.insert(words.end(), {"--timeout", t.str()});
  }
  if (a.claims_file) words.insert(words.end(), {"--claims-file", *a.claims_file});
  words.insert(words.end(), {"--replay", trace_path, "--"});
  words.insert(words.end(), a.session.command.begin(), a.session.command.end());
  return shell_line(words);
}

// A trace replayed against a subject that declares another name, or other parameters,
// than the trace's header records. The main use of --replay is checking a fix, and the
// fixed program may well call itself differently (the examples' --broken modes add
// ".broken.MODE" to the name), so this is a warning on stderr, not an error; a different
// kind (filter against set) is bad usage, checked by the caller.
void warn_on_mismatch(const std::string& file, const model::Trace& trace,
                      const audit::ExecDeclarations& declared) {
  std::vector<std::string> differences;
  if (trace.engine != declared.name) {
    differences.push_back("it was written for '" + trace.engine + "', the subject declares name=" +
                          declared.name);
  }
  const std::pair<const char*, std::uint64_t> numbers[] = {
      {"capacity", declared.capacity},
      {"fingerprint_bits", declared.fingerprint_bits},
      {"slots_per_bucket", declared.slots_per_bucket}};
  for (const auto& [key, value] : numbers) {
    if (!trace.parameters.has(key)) continue;
    const std::string recorded = trace.parameters.get_string(key);
    const std::string now = value == 0 ? "nothing" : key + std::string("=") + std::to_string(value);
    if (recorded != std::to_string(value)) {
      differences.push_back("it records " + std::string(key) + "=" + recorded +
                            ", the subject declares " + now);
    }
  }
  if (differences.empty()) return;
  std::cerr << "cuckoo-audit: warning: " << file << ": ";
  for (std::size_t i = 0; i < differences.size(); ++i) {
    std::cerr << (i == 0 ? "" : "; ") << differences[i];
  }
  std::cerr << "; replaying it anyway (a different subject may not reproduce the failure)\n"
            << std::flush;
}

// Runs of a concurrent trace replayed with exec --replay.
constexpr unsigned kConcurrentReplayRuns = 20;

int exec_replay(const ExecArgs& a, audit::ExecSession& session) {
  const std::string& file = *a.replay;
  const std::string text = read_trace_file(file);
  if (audit::is_concurrent_trace(text)) {
    return audit::cli::replay_concurrent_trace(session, file, text, kConcurrentReplayRuns, std::cout);
  }
  model::Trace trace;
  try {
    trace = model::parse_trace(text);
  } catch (const model::TraceError& e) {
    usage_error(file + ": " + e.what());
  }
  const std::string kind = trace.parameters.get_string_or("kind", "");
  const std::string declared =
      session.declarations().kind == audit::ImplementationKind::kExactSet ? "exact_set" : "filter";
  if (!kind.empty() && kind != declared) {
    usage_error(file + ": the trace is for kind " + kind + ", the subject declares " +
                (declared == "exact_set" ? "a set" : "a filter"));
  }
  warn_on_mismatch(file, trace, session.declarations());
  std::optional<model::Violation> violation;
  try {
    violation = audit::replay_exec(session, trace);
  } catch (const std::invalid_argument& e) {
    usage_error(file + ": " + e.what());
  }
  const std::optional<std::string> note = session.close();
  if (note) std::cerr << "cuckoo-audit: note: " << *note << "\n";
  if (!violation) {
    std::cout << "OK: " << trace.size() << " ops, every claim held\n";
    return kExitHeld;
  }
  // Labelled as the audit labels it: a wrong size or an exact set's wrong answer by the
  // claim it breaks for this kind of subject (C5 for a filter, C7 for a set); anything
  // else (an exception: the process failed) keeps its own label.
  violation->claim = audit::adapter_detail::claim_broken(session.traits(), *violation, violation->claim);
  if (violation->claim == "exception") {
    std::cout << "VIOLATION: the subject process failed (it crashed, exited, hung or answered "
                 "out of protocol)";
  } else {
    const std::string_view summary = model::claim_summary(violation->claim);
    std::cout << "VIOLATION of " << violation->claim;
    if (!summary.empty()) std::cout << " (" << summary << ")";
  }
  std::cout << " at op " << model::op_number(*violation) << " of " << file << "\n"
            << model::format_violation(*violation, trace)
            << audit::key_legend(model::parse_trace(model::format_violation(*violation, trace)),
                                 session.options().keys)
            << std::flush;
  return kExitClaimFailed;
}

[[noreturn]] void missing_dashes() {
  usage_error("exec: missing '--' before the subject's command line (cuckoo-audit exec "
              "[options] -- COMMAND [ARGS...])");
}

int exec_command(const std::vector<std::string>& args) {
  const auto dashes = std::find(args.begin(), args.end(), std::string("--"));
  ExecArgs a;
  a.flags.assign(args.begin(), dashes);
  FlagReader flags(a.flags);
  std::optional<std::string> keys_text;
  while (!flags.done()) {
    const std::string flag = flags.next();
    if (is_help(flag)) {
      flags.no_value(flag);
      std::cout << kExecUsage << "\n"
                << "Starts COMMAND, reads its handshake and audits the filter or set it serves\n"
                   "through the line protocol of audit/PROTOCOL.md; see `cuckoo-audit --help`\n"
                   "for the options.\n";
      return kExitHeld;
    }
    if (flag == "--claims") {
      a.audit.claims = parse_claims(flag, flags.value(flag));
      for (const std::string& claim : a.audit.claims) {
        if (!is_exec_claim(claim)) {
          usage_error("exec: unknown claim '" + claim + "' (an exec audit checks " +
                      exec_claims_text() + ")");
        }
      }
    } else if (flag == "--profile") {
      a.audit.profile = audit::profile_from_string(flags.value(flag));
    } else if (flag == "--seed") {
      a.audit.seed = parse_u64(flag, flags.value(flag));
      a.seed_given = true;
    } else if (flag == "--out") {
      a.out_dir = flags.value(flag);
      if (a.out_dir.empty()) usage_error("--out: empty directory name");
    } else if (flag == "--timeout") {
      a.session.timeout_seconds = parse_seconds(flag, flags.value(flag));
      a.timeout_given = true;
    } else if (flag == "--keys") {
      keys_text = flags.value(flag);
      a.session.keys = audit::exec_keys_from_string(*keys_text);
      a.keys_given = true;
    } else if (flag == "--claims-file") {
      a.claims_file = flags.value(flag);
      std::ifstream in(*a.claims_file, std::ios::binary);
      if (!in || std::filesystem::is_directory(*a.claims_file)) {
        usage_error("--claims-file: cannot read '" + *a.claims_file + "'");
      }
      std::ostringstream text;
      text << in.rdbuf();
      a.session.claims_file_text = text.str();
      a.session.claims_file_name = *a.claims_file;
    } else if (flag == "--replay") {
      a.replay = flags.value(flag);
    } else if (flag == "--time-limit") {
      a.time_limit = parse_seconds(flag, flags.value(flag));
    } else if (flag == "--concurrent") {
      const std::uint64_t n = parse_u64(flag, flags.value(flag));
      if (n < 1 || n > audit::kMaxExecSessions) usage_error("--concurrent: " + std::to_string(n) + " is outside 1..64");
      a.concurrent = static_cast<unsigned>(n);
    } else if (flag.rfind("-", 0) == 0) {
      usage_error("exec: unknown option '" + flag + "'");
    } else {
      if (dashes == args.end()) missing_dashes();
      usage_error("exec: unexpected argument '" + flag +
                  "' (the subject's command line goes after '--')");
    }
  }
  if (dashes == args.end()) missing_dashes();
  a.session.command.assign(dashes + 1, args.end());
  if (a.session.command.empty()) usage_error("exec: no command after '--'");
  if (a.replay && !a.keys_given) {
    // The trace says how its keys were encoded.
    try {
      const std::string text = read_trace_file(*a.replay);
      if (audit::is_concurrent_trace(text)) {
        a.session.keys = audit::parse_concurrent_trace(text).keys;
      } else if (const model::Trace header = model::parse_trace(text); header.parameters.has("keys")) {
        a.session.keys = audit::exec_keys_from_string(header.parameters.get_string("keys"));
      }
    } catch (const model::TraceError& e) {
      usage_error(*a.replay + ": " + e.what());
    } catch (const std::invalid_argument& e) {
      usage_error(*a.replay + ": " + e.what());
    }
  }
  if (a.replay) {
    // The file's key legend is what the subject was sent: replay exactly those bytes.
    try {
      a.session.key_bytes = audit::read_key_legend(read_trace_file(*a.replay));
    } catch (const std::invalid_argument& e) {
      usage_error(*a.replay + ": key legend, " + e.what());
    }
  }

  // Before the subject starts: a bad --out is bad usage now, not an I/O error at the end.
  if (!a.replay) check_out_dir(a.out_dir);
  const std::string started_utc = utc_now_iso8601();

  // Interrupted (Ctrl-C, a CI job's timeout): no subject is left running.
  audit::stop_subjects_on_fatal_signals();
  audit::ExecSession session(a.session);
  try {
    session.start();
  } catch (const audit::SubjectError& e) {
    usage_error("exec: the " + std::string(e.what()) + " (command: " +
                shell_line(a.session.command) + ")");
  }
  if (a.replay) return exec_replay(a, session);

  a.audit.out_dir = a.out_dir;
  std::cerr << "cuckoo-audit " << CUCKOO_VERSION << " exec: " << session.declarations().name
            << " (" << session.declarations().text() << "), profile "
            << audit::to_string(a.audit.profile) << ", seed " << a.audit.seed << ", keys "
            << audit::to_string(a.session.keys) << "\n"
            << std::flush;
  // Interrupted from here on: the subject is stopped, the audit returns what it found and
  // the reports are written before the program ends by the same signal.
  audit::stop_audit_on_fatal_signals();
  // Progress on stderr: each step as it starts, with the time so far and the subject's
  // requests (a slow subject's audit takes minutes).
  const auto exec_started = std::chrono::steady_clock::now();
  const auto elapsed = [exec_started] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - exec_started).count();
  };
  a.audit.on_step = [&session, elapsed](const std::string& step) {
    std::cerr << "[" << detail_seconds(elapsed()) << ", " << session.stats().requests
              << " requests] " << step << "\n"
              << std::flush;
  };
  const double time_limit = a.time_limit;
  if (time_limit > 0) audit::stop_audit_after(time_limit);
  a.audit.stop = [] { return audit::audit_stop_signal() != 0; };
  // Why it stopped early, or "" when it ran to its end.
  const auto stop_reason = [elapsed, time_limit]() -> std::string {
    const int sig = audit::audit_stop_signal();
    if (sig == SIGALRM) return "--time-limit " + detail_seconds(time_limit) + " reached";
    if (sig != 0) return std::string("interrupted by ") + signal_name(sig) + " after " + detail_seconds(elapsed());
    return "";
  };
  std::vector<std::string> words = {"cuckoo-audit", "exec"};
  words.insert(words.end(), a.flags.begin(), a.flags.end());
  if (!a.seed_given) words.insert(words.end(), {"--seed", std::to_string(a.audit.seed)});
  words.push_back("--");
  words.insert(words.end(), a.session.command.begin(), a.session.command.end());
  const std::string command = shell_line(words);
  const std::string subject_text = session.declarations().name + " (declares: " +
                                   session.declarations().text() + "; keys=" +
                                   audit::to_string(a.session.keys) + ")";
  // The report's metadata, whatever the library fills: this tool's version, when the
  // audit started (before the subject's start-up) and the command that reproduces it;
  // counterexamples get the bytes of their keys and the command that replays them (also
  // as the file's last comment, which `cuckoo-audit replay` quotes), and are written.
  const auto complete = [&](audit::Report& report) {
    report.tool = "cuckoo-audit";
    report.tool_version = CUCKOO_VERSION;
    report.started_utc = started_utc;
    report.command = command;
    report.environment = audit::collect_run_environment(std::filesystem::current_path());
    report.environment.subject_environment = audit::kExecSubjectEnvironment;
    for (audit::ClaimResult& r : report.results) {
      if (!r.counterexample) continue;
      audit::Counterexample& cx = *r.counterexample;
      const std::string legend = audit::is_concurrent_trace(cx.trace)
                                     ? audit::cli::concurrent_key_legend(cx.trace, a.session.keys)
                                     : audit::key_legend(model::parse_trace(cx.trace), a.session.keys);
      cx.trace += legend;
      cx.explanation += legend;
      if (!cx.trace_file.empty()) {
        const std::filesystem::path path = a.out_dir / cx.trace_file;
        std::filesystem::create_directories(path.parent_path());
        cx.replay_command = exec_replay_command(a, path.generic_string());
        cx.trace += std::string(kExecReplayComment) + cx.replay_command + "\n";
        std::ofstream out(path, std::ios::binary | std::ios::trunc);
        out << cx.trace;
        out.close();
        if (!out) throw std::runtime_error("cannot write counterexample " + path.string());
      }
    }
  };
  // Findings as they are made: a line on stderr, and the reports rewritten with every
  // finding so far, so that an auditor killed outright still leaves them.
  std::vector<audit::ClaimResult> found;
  a.audit.on_finding = [&](const audit::ClaimResult& finding) {
    audit::Report partial;
    partial.subject = subject_text;
    partial.profile = audit::to_string(a.audit.profile);
    partial.seed = a.audit.seed;
    partial.seconds = elapsed();
    const auto same = std::find_if(found.begin(), found.end(), [&](const audit::ClaimResult& r) {
      return r.claim == finding.claim;
    });
    if (same != found.end()) {
      *same = finding;
    } else {
      found.push_back(finding);
    }
    partial.results = found;
    partial.stopped = "in progress: written as each finding is made, the audit had not finished";
    complete(partial);
    // The reports first, then the line: a finding on stderr is already in the reports
    // (an auditor killed as soon as the line appears still leaves it there).
    try {
      (void)audit::write_reports(partial, a.out_dir);
    } catch (const std::exception& e) {
      std::cerr << "cuckoo-audit: note: could not write the reports so far: " << e.what() << "\n";
    }
    std::cerr << "[" << detail_seconds(elapsed()) << ", " << session.stats().requests
              << " requests] FAIL " << finding.claim << ": " << finding.summary << "\n";
    for (const audit::ClaimResult& r : partial.results) {
      if (r.claim == finding.claim && r.counterexample && !r.counterexample->trace_file.empty()) {
        std::cerr << "  counterexample: " << (a.out_dir / r.counterexample->trace_file).generic_string()
                  << "\n";
      }
    }
    std::cerr << std::flush;
  };
  // C10 (concurrent sessions) runs beside the adapter's claims, when the subject declares
  // concurrent=M or C10 is asked for; the adapter's audit runs unless only C10 is asked.
  const std::uint64_t declared_sessions = session.declarations().concurrent;
  if (a.concurrent != 0 && declared_sessions < a.concurrent) {
    usage_error("exec: --concurrent " + std::to_string(a.concurrent) + " needs a subject that declares "
                "concurrent=" + std::to_string(a.concurrent) + " or more (it declares " +
                (declared_sessions == 0 ? std::string("none") : std::to_string(declared_sessions)) +
                "; audit/PROTOCOL.md, Concurrent sessions)");
  }
  const auto c10 = std::find(a.audit.claims.begin(), a.audit.claims.end(), std::string("C10"));
  const bool c10_asked = c10 != a.audit.claims.end();
  const bool run_c10 = c10_asked || (a.audit.claims.empty() && declared_sessions > 0);
  if (c10_asked) a.audit.claims.erase(c10);
  const bool run_adapter = !c10_asked || !a.audit.claims.empty();
  audit::Report report;
  if (run_adapter) {
    report = audit::audit_exec(session, a.audit);
  } else {
    report.subject = subject_text;
    report.profile = audit::to_string(a.audit.profile);
    report.seed = a.audit.seed;
  }
  if (run_c10) {
    audit::ClaimResult c10_result;
    if (a.audit.stop()) {
      c10_result.claim = "C10";
      c10_result.engine = session.declarations().name;
    } else {
      audit::ConcurrentAuditOptions concurrent;
      concurrent.sessions = a.concurrent;
      concurrent.profile = a.audit.profile;
      concurrent.seed = a.audit.seed;
      concurrent.on_step = a.audit.on_step;
      c10_result = audit::audit_exec_concurrent(session, concurrent);
    }
    if (a.audit.stop()) {
      // Not run, or stopped under it (its subject killed): not a finding, not a PASS.
      c10_result.verdict = audit::Verdict::kSkipped;
      c10_result.counterexample.reset();
      c10_result.summary = "not finished: the audit was stopped before C10's histories were all "
                           "checked; it is not a PASS.";
    }
    report.results.push_back(std::move(c10_result));
    report.seconds += report.results.back().seconds;
  }
  const std::string stopped = stop_reason();
  if (!stopped.empty()) report.stopped = stopped;
  const std::optional<std::string> note = stopped.empty() ? session.close() : std::nullopt;
  complete(report);

  audit::write_summary(report, std::cout);
  const std::vector<std::filesystem::path> files = audit::write_reports(report, a.out_dir);
  std::cout << "reports:";
  for (const std::filesystem::path& file : files) std::cout << " " << file.generic_string();
  std::cout << "\n";
  const audit::ExecStats& stats = session.stats();
  char rate[64];
  std::snprintf(rate, sizeof rate, "%.0f", report.seconds > 0 ? static_cast<double>(stats.requests) / report.seconds : 0.0);
  std::cout << "subject: " << stats.requests << " requests in " << detail_seconds(report.seconds)
            << " (" << rate << " requests/s), " << stats.starts << " process start"
            << (stats.starts == 1 ? "" : "s") << ", " << stats.resyncs << " re-run"
            << (stats.resyncs == 1 ? "" : "s") << "\n";
  if (!report.all_passed()) {
    for (const audit::ClaimResult& r : report.results) {
      if (r.counterexample && !r.counterexample->replay_command.empty()) {
        std::cout << "replay a counterexample with: " << r.counterexample->replay_command << "\n";
        break;
      }
    }
  }
  std::cout << std::flush;
  if (note) std::cerr << "cuckoo-audit: note: " << *note << "\n";
  if (const int sig = audit::audit_stop_signal(); sig != 0 && sig != SIGALRM) {
    // The reports are written: end by the signal, as the caller (a shell, CI) expects.
    std::cerr << "cuckoo-audit: " << report.stopped << "; the reports hold what was found\n" << std::flush;
    std::signal(sig, SIG_DFL);
    std::raise(sig);
  }
  if (!report.all_passed()) return kExitClaimFailed;
  return report.stopped.empty() ? kExitHeld : kExitUnfinished;
}

// Words of `text` wrapped at `width` columns, each line indented by `indent`.
std::string wrap(const std::string& text, std::size_t indent, std::size_t width) {
  std::istringstream words(text);
  std::string word;
  std::string out;
  std::size_t column = 0;
  while (words >> word) {
    if (column > indent && column + 1 + word.size() > width) {
      out += "\n";
      column = 0;
    }
    if (column == 0) {
      out.append(indent, ' ');
      column = indent;
    } else {
      out += ' ';
      ++column;
    }
    out += word;
    column += word.size();
  }
  return out + "\n";
}

int list_command(const std::vector<std::string>& args) {
  for (const std::string& arg : args) {
    if (is_help(arg)) {
      std::cout << "usage: cuckoo-audit list\n\nThe claims, what the audit checks, and the "
                   "engines each applies to.\n";
      return kExitHeld;
    }
    usage_error("list: unexpected argument '" + arg + "'");
  }
  for (const audit::ClaimInfo& claim : audit::claim_catalog()) {
    std::string engines;
    for (const std::string& engine : claim.engines) {
      engines += (engines.empty() ? "" : ", ") + engine;
    }
    std::cout << claim.id << (claim.id.size() < 3 ? "  " : " ") << claim.title << "\n"
              << "    engines: " << engines << "\n"
              << wrap(claim.checks, 4, 88) << "\n";
  }
  std::string engines;
  for (const std::string_view engine : audit::kEngineNames) {
    engines += (engines.empty() ? "" : ", ") + std::string(engine);
  }
  std::cout << "engines:  " << engines << "\n"
            << "exec:     any program that serves a filter or a set through audit/PROTOCOL.md "
               "(cuckoo-audit exec -- COMMAND): "
            << exec_claims_text() << "\n"
            << "profiles: quick (under 3 minutes on 2 cores), standard (under 20 minutes), "
               "full (nightly)\n";
  return kExitHeld;
}

int dispatch(const std::vector<std::string>& args) {
  if (args.empty()) usage_error("missing a command (run, replay, exec or list)");
  const std::string& command = args[0];
  const std::vector<std::string> rest(args.begin() + 1, args.end());
  if (is_help(command) || command == "help") {
    std::cout << kUsage << "\n" << help_text();
    return kExitHeld;
  }
  if (command == "--version") {
    std::cout << "cuckoo-audit " << CUCKOO_VERSION << "\n";
    return kExitHeld;
  }
  if (command == "run") return run_command(rest);
  if (command == "replay") return replay_command(rest);
  if (command == "list") return list_command(rest);
  if (command == "exec") return exec_command(rest);
  if (command.rfind("-", 0) == 0) usage_error("unknown option '" + command + "'");
  usage_error("unknown command '" + command + "' (expected run, replay, exec or list)");
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  try {
    return dispatch(args);
  } catch (const audit::UsageError& e) {
    std::cerr << "cuckoo-audit: " << e.what() << "\n"
              << "(cuckoo-audit --help shows the usage)\n";
    return kExitUsage;
  } catch (const std::exception& e) {
    // I/O failures (an unwritable --out) and the like: the input, not a claim, is at fault.
    std::cerr << "cuckoo-audit: error: " << e.what() << "\n";
    return kExitUsage;
  }
}
