// cuckoo-audit exec: the subject process (spawned with pipes, stopped with SIGTERM then
// SIGKILL, always reaped) and the session that exchanges pipelined batches of requests
// with it. See exec.hpp.
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <system_error>
#include <thread>

#include "cuckoo/audit/audit.hpp"
#include "cuckoo/audit/exec.hpp"
#include "exec_detail.hpp"

extern char** environ;

namespace cuckoo::audit {

using exec_detail::append_protocol_key;
using exec_detail::ExchangeFailure;
using exec_detail::Req;
using exec_detail::Resp;
using exec_detail::Role;
using exec_detail::Slot;
using exec_detail::expected_responses;
using exec_detail::printable;
using exec_detail::req_word;
using exec_detail::resp_text;
using exec_detail::seconds_text;
using exec_detail::takes_key;

namespace {

using Clock = std::chrono::steady_clock;

// ---- writing without SIGPIPE ----

// write(2) with SIGPIPE blocked for the calling thread; a SIGPIPE the write raises is
// consumed, so a subject that closed its stdin yields EPIPE instead of killing us.
ssize_t write_no_sigpipe(int fd, const char* data, std::size_t size) {
  sigset_t pipe_set;
  sigset_t old_set;
  sigemptyset(&pipe_set);
  sigaddset(&pipe_set, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe_set, &old_set);
  sigset_t pending;
  sigpending(&pending);
  const bool was_pending = sigismember(&pending, SIGPIPE) == 1;
  const ssize_t n = ::write(fd, data, size);
  const int saved = errno;
  if (n < 0 && saved == EPIPE && !was_pending) {
    const timespec zero{0, 0};
    while (sigtimedwait(&pipe_set, nullptr, &zero) < 0 && errno == EINTR) {
    }
  }
  pthread_sigmask(SIG_SETMASK, &old_set, nullptr);
  errno = saved;
  return n;
}

int move_above_stdio(int fd) {
  if (fd > 2) return fd;
  const int moved = fcntl(fd, F_DUPFD_CLOEXEC, 3);
  const int saved = errno;
  ::close(fd);
  if (moved < 0) throw std::system_error(saved, std::generic_category(), "fcntl(F_DUPFD_CLOEXEC)");
  return moved;
}

void set_nonblocking(int fd) {
  const int flags = fcntl(fd, F_GETFL);
  if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0) {
    throw std::system_error(errno, std::generic_category(), "fcntl(O_NONBLOCK)");
  }
}

// ---- the running subjects, for a signal handler ----

// The process groups of the subjects running now (0: a free entry). Lock-free atomics, so
// that the handler of stop_subjects_on_fatal_signals() may read them.
constexpr std::size_t kMaxLiveSubjects = 64;
std::atomic<pid_t> live_groups[kMaxLiveSubjects];

void register_group(pid_t group) {
  for (std::atomic<pid_t>& slot : live_groups) {
    pid_t empty = 0;
    if (slot.compare_exchange_strong(empty, group)) return;
  }
  // More subjects than entries: the extra ones are only stopped by their own session.
}

void unregister_group(pid_t group) {
  for (std::atomic<pid_t>& slot : live_groups) {
    pid_t expected = group;
    if (slot.compare_exchange_strong(expected, 0)) return;
  }
}

extern "C" void stop_subjects_and_reraise(int sig) {
  for (std::atomic<pid_t>& slot : live_groups) {
    const pid_t group = slot.load();
    if (group > 0) ::kill(-group, SIGKILL);
  }
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

}  // namespace

void stop_subjects_on_fatal_signals() {
  static_assert(std::atomic<pid_t>::is_always_lock_free);
  struct sigaction action {};
  action.sa_handler = stop_subjects_and_reraise;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESETHAND;
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT}) {
    struct sigaction old {};
    // A signal the caller ignores (nohup) stays ignored.
    if (::sigaction(sig, nullptr, &old) == 0 && old.sa_handler == SIG_IGN) continue;
    ::sigaction(sig, &action, nullptr);
  }
}

// ---- the process --------------------------------------------------------------------------------

class SubjectProcess {
 public:
  explicit SubjectProcess(const std::vector<std::string>& command) {
    int in[2] = {-1, -1};
    int out[2] = {-1, -1};
    int err[2] = {-1, -1};
    auto close_all = [&] {
      for (int fd : {in[0], in[1], out[0], out[1], err[0], err[1]}) {
        if (fd >= 0) ::close(fd);
      }
    };
    if (pipe2(in, O_CLOEXEC) != 0 || pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0) {
      const int saved = errno;
      close_all();
      throw std::system_error(saved, std::generic_category(), "pipe2");
    }
    try {
      for (int* fd : {&in[0], &in[1], &out[0], &out[1], &err[0], &err[1]}) *fd = move_above_stdio(*fd);
    } catch (...) {
      close_all();
      throw;
    }
    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attr;
    posix_spawn_file_actions_init(&actions);
    posix_spawnattr_init(&attr);
    posix_spawn_file_actions_adddup2(&actions, in[0], 0);
    posix_spawn_file_actions_adddup2(&actions, out[1], 1);
    posix_spawn_file_actions_adddup2(&actions, err[1], 2);
    sigset_t no_signals;
    sigemptyset(&no_signals);
    posix_spawnattr_setsigmask(&attr, &no_signals);
    sigset_t defaults;
    sigemptyset(&defaults);
    sigaddset(&defaults, SIGPIPE);
    posix_spawnattr_setsigdefault(&attr, &defaults);
    posix_spawnattr_setpgroup(&attr, 0);  // its own group: stopped together with its children
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF |
                                        POSIX_SPAWN_SETPGROUP);
    std::vector<char*> argv;
    for (const std::string& a : command) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    const int rc = posix_spawnp(&pid_, argv[0], &actions, &attr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
    ::close(in[0]);
    ::close(out[1]);
    ::close(err[1]);
    if (rc != 0) {
      ::close(in[1]);
      ::close(out[0]);
      ::close(err[0]);
      pid_ = -1;
      std::string why = std::strerror(rc);
      if (rc == ENOENT && command[0].find('/') == std::string::npos) {
        why = "command not found (looked up in PATH)";
      } else if (rc == ENOENT) {
        why = "no such file";
      } else if (rc == EACCES) {
        why = "permission denied (not an executable file?)";
      }
      throw SubjectError(SubjectFailure::kStart, "cannot be started: '" + printable(command[0]) + "': " + why);
    }
    register_group(pid_);
    in_fd = in[1];
    out_fd = out[0];
    err_fd = err[0];
    set_nonblocking(in_fd);
    set_nonblocking(out_fd);
    set_nonblocking(err_fd);
    (void)fcntl(in_fd, F_SETPIPE_SZ, 1 << 20);  // larger batches in flight; best effort
  }

  ~SubjectProcess() { stop(); }
  SubjectProcess(const SubjectProcess&) = delete;
  SubjectProcess& operator=(const SubjectProcess&) = delete;

  pid_t pid() const { return pid_; }
  bool reaped() const { return reaped_; }

  // Reads what stderr holds now, keeping the last kStderrTailBytes.
  void read_stderr() {
    if (err_fd < 0 || err_eof) return;
    char buffer[16384];
    for (;;) {
      const ssize_t n = ::read(err_fd, buffer, sizeof buffer);
      if (n > 0) {
        err_tail.append(buffer, static_cast<std::size_t>(n));
        if (err_tail.size() > 2 * kStderrTailBytes) {
          err_tail.erase(0, err_tail.size() - kStderrTailBytes);
        }
        continue;
      }
      if (n == 0) err_eof = true;
      if (n < 0 && errno == EINTR) continue;
      return;
    }
  }

  std::string stderr_tail() const {
    if (err_tail.size() <= kStderrTailBytes) return err_tail;
    return err_tail.substr(err_tail.size() - kStderrTailBytes);
  }

  // Reads what stdout holds now into out_buf. Returns the bytes read.
  std::size_t read_stdout() {
    if (out_eof) return 0;
    std::size_t total = 0;
    char buffer[65536];
    for (;;) {
      const ssize_t n = ::read(out_fd, buffer, sizeof buffer);
      if (n > 0) {
        out_buf.append(buffer, static_cast<std::size_t>(n));
        total += static_cast<std::size_t>(n);
        if (static_cast<std::size_t>(n) < sizeof buffer) return total;
        continue;
      }
      if (n == 0) out_eof = true;
      if (n < 0 && errno == EINTR) continue;
      return total;
    }
  }

  bool try_reap() {
    if (reaped_ || pid_ <= 0) return true;
    const pid_t r = waitpid(pid_, &status_, WNOHANG);
    if (r == pid_ || (r < 0 && errno == ECHILD)) {
      reaped_ = true;
      unregister_group(pid_);
      if (r < 0) status_ = 0;
    }
    return reaped_;
  }

  // Waits up to `seconds` for the process to exit, draining stderr.
  bool wait_exit(double seconds) {
    const auto until = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                          std::chrono::duration<double>(seconds));
    for (;;) {
      read_stderr();
      if (try_reap()) break;
      if (Clock::now() >= until) return false;
      pollfd p{err_fd, POLLIN, 0};
      if (err_fd >= 0 && !err_eof) {
        (void)::poll(&p, 1, 2);
      } else {
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
      }
    }
    // The last words on stderr (a child of the subject may hold it open: bounded).
    const auto drain_until = Clock::now() + std::chrono::milliseconds(100);
    while (err_fd >= 0 && !err_eof && Clock::now() < drain_until) {
      pollfd p{err_fd, POLLIN, 0};
      if (::poll(&p, 1, 10) <= 0) break;
      read_stderr();
    }
    return true;
  }

  // "exited with status 3", "was killed by signal 11 (SIGSEGV)". REQUIRES: reaped().
  std::string status_text() const {
    if (WIFEXITED(status_)) return "exited with status " + std::to_string(WEXITSTATUS(status_));
    if (WIFSIGNALED(status_)) {
      const int sig = WTERMSIG(status_);
      const char* abbrev = sigabbrev_np(sig);
      return "was killed by signal " + std::to_string(sig) +
             (abbrev != nullptr ? " (SIG" + std::string(abbrev) + ")" : std::string());
    }
    return "ended with wait status " + std::to_string(status_);
  }
  bool exited_cleanly() const { return reaped_ && WIFEXITED(status_) && WEXITSTATUS(status_) == 0; }
  bool signaled() const { return reaped_ && WIFSIGNALED(status_); }

  // Closes stdin (a subject that reads EOF exits), then SIGTERM, then SIGKILL; reaps.
  void stop() {
    if (in_fd >= 0) {
      ::close(in_fd);
      in_fd = -1;
    }
    if (pid_ > 0 && !reaped_) {
      if (!wait_exit(0.05)) {
        ::kill(-pid_, SIGTERM);
        ::kill(pid_, SIGTERM);
        if (!wait_exit(0.5)) {
          ::kill(-pid_, SIGKILL);
          ::kill(pid_, SIGKILL);
          while (waitpid(pid_, &status_, 0) < 0 && errno == EINTR) {
          }
          reaped_ = true;
          unregister_group(pid_);
        }
      }
    }
    for (int* fd : {&out_fd, &err_fd}) {
      if (*fd >= 0) {
        ::close(*fd);
        *fd = -1;
      }
    }
  }

  void close_stdin() {
    if (in_fd >= 0) {
      ::close(in_fd);
      in_fd = -1;
    }
  }

  int in_fd = -1;
  int out_fd = -1;
  int err_fd = -1;
  std::string out_buf;
  std::size_t out_pos = 0;  // parsed prefix of out_buf
  bool out_eof = false;
  bool err_eof = false;
  std::string err_tail;

 private:
  pid_t pid_ = -1;
  bool reaped_ = false;
  int status_ = 0;
};

// ---- the session --------------------------------------------------------------------------------

ExecSession::ExecSession(ExecOptions options) : options_(std::move(options)) {
  if (options_.command.empty()) throw UsageError("exec: no command to run");
  if (!(options_.timeout_seconds > 0)) throw UsageError("exec: the timeout must be positive");
}

ExecSession::~ExecSession() = default;

pid_t ExecSession::pid() const {
  return process_ && !process_->reaped() ? process_->pid() : -1;
}

namespace {

// The first line of a fresh process's stdout, within the timeout.
std::string read_first_line(SubjectProcess& p, double timeout_seconds) {
  const auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                           std::chrono::duration<double>(timeout_seconds));
  for (;;) {
    const std::size_t nl = p.out_buf.find('\n');
    if (nl != std::string::npos) {
      std::string line = p.out_buf.substr(0, nl);
      p.out_buf.erase(0, nl + 1);
      return line;
    }
    if (p.out_buf.size() > kMaxProtocolLine) {
      throw SubjectError(SubjectFailure::kHandshake,
                         "sent a first line longer than " + std::to_string(kMaxProtocolLine) +
                             " bytes instead of a handshake ('" + printable(p.out_buf) + "')",
                         p.stderr_tail());
    }
    if (p.out_eof) {
      std::string how = p.wait_exit(1.0) ? p.status_text() : "closed its stdout";
      std::string partial = p.out_buf.empty() ? "" : " after writing '" + printable(p.out_buf) + "'";
      throw SubjectError(SubjectFailure::kHandshake,
                         how + partial + " before its handshake line ('" +
                             std::string(kExecHandshakeWord) + " " +
                             std::to_string(kExecProtocolVersion) + " kind=...')",
                         p.stderr_tail());
    }
    const auto now = Clock::now();
    if (now >= deadline) {
      p.stop();
      throw SubjectError(SubjectFailure::kHandshake,
                         "sent no handshake line within " + seconds_text(timeout_seconds) +
                             (p.out_buf.empty() ? "" : " (partial: '" + printable(p.out_buf) + "')"),
                         p.stderr_tail());
    }
    pollfd fds[2] = {{p.out_fd, POLLIN, 0}, {p.err_fd, POLLIN, 0}};
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now).count() + 1;
    const nfds_t n = p.err_eof ? 1 : 2;
    if (::poll(fds, n, static_cast<int>(std::min<long long>(ms, 1000))) < 0 && errno != EINTR) {
      throw std::system_error(errno, std::generic_category(), "poll");
    }
    p.read_stderr();
    p.read_stdout();
  }
}

}  // namespace

void ExecSession::spawn() {
  process_.reset();
  death_.reset();
  auto p = std::make_unique<SubjectProcess>(options_.command);
  ++stats_.starts;
  const double handshake_timeout = options_.handshake_timeout_seconds > 0
                                       ? options_.handshake_timeout_seconds
                                       : std::max(options_.timeout_seconds, kMinHandshakeSeconds);
  std::string line = read_first_line(*p, handshake_timeout);
  if (!line.empty() && line.back() == '\r') line.pop_back();
  if (handshake_.empty()) {
    ExecDeclarations d = parse_handshake(line);
    handshake_ = line;
    declarations_ = std::move(d);
  } else if (line != handshake_) {
    throw SubjectError(SubjectFailure::kHandshake,
                       "restarted with the handshake '" + printable(line) +
                           "', not the first one ('" + printable(handshake_) + "')",
                       p->stderr_tail());
  }
  process_ = std::move(p);
}

void ExecSession::start() {
  if (!handshake_.empty()) return;
  spawn();
  if (options_.claims_file_text) {
    apply_claims_file(declarations_, *options_.claims_file_text, options_.claims_file_name);
  }
}

ImplementationTraits ExecSession::traits() const {
  const ExecDeclarations& d = declarations_;
  ImplementationTraits t;
  t.name = d.name;
  t.kind = d.kind;
  t.capacity = d.capacity;
  if (d.kind == ImplementationKind::kApproximateFilter) {
    t.fingerprint_bits = d.fingerprint_bits;
    t.slots_per_bucket = d.slots_per_bucket;
    t.max_copies = d.max_copies;
    t.false_positive_rate = d.fpr;
  }
  t.size = d.size;
  t.erase_supported = d.deletes;
  t.clear_supported = d.clear;
  t.notes = std::string("keys=") + to_string(options_.keys);
  t.trace_parameters["keys"] = to_string(options_.keys);
  return t;
}

ExecSubject ExecSession::instance() { return ExecSubject(*this); }

void ExecSession::append_request(std::string& out, const Slot& slot) {
  out += req_word(slot.req);
  if (!takes_key(slot.req)) return;
  out += ' ';
  const std::size_t start = out.size();
  // Long keys are encoded once (C6 asks the same keys many times); short ones each time.
  const auto it = hex_cache_.find(slot.key);
  const auto given = options_.key_bytes.find(slot.key);  // a replayed file's own bytes
  if (given != options_.key_bytes.end()) {
    append_protocol_key(out, given->second);
  } else if (it != hex_cache_.end()) {
    out += it->second;
  } else {
    const std::string bytes = encode_key(options_.keys, slot.key);
    if (bytes.size() <= 64) {
      append_protocol_key(out, bytes);
    } else {
      if (hex_cache_.size() >= (1u << 12)) hex_cache_.clear();
      out += hex_cache_.emplace(slot.key, protocol_key(bytes)).first->second;
    }
  }
  if (exec_detail::upper_case_hex(options_.keys, slot.req, slot.key)) {
    for (std::size_t i = start + 1; i < out.size(); ++i) {
      if (out[i] >= 'a' && out[i] <= 'f') out[i] = static_cast<char>(out[i] - 'a' + 'A');
    }
  }
}

std::string ExecSession::request_line(const Slot& slot) {
  std::string line;
  append_request(line, slot);
  return line;
}

std::string ExecSession::describe_request(const Slot& slot) {
  std::string line = request_line(slot);
  if (line.size() > 72) {
    line = line.substr(0, 64) + "... (a " + std::to_string(encode_key(options_.keys, slot.key).size()) +
           "-byte key)";
  }
  return line + (takes_key(slot.req) ? " [trace key " + std::to_string(slot.key) + "]" : "");
}

std::optional<ExchangeFailure> ExecSession::exchange(std::vector<Slot>& slots, std::size_t begin,
                                                     std::map<std::size_t, std::string>& error_texts) {
  const auto started = Clock::now();
  struct Timer {
    ExecStats& stats;
    Clock::time_point start;
    ~Timer() { stats.exchange_seconds += std::chrono::duration<double>(Clock::now() - start).count(); }
  } timer{stats_, started};
  const std::size_t n = slots.size();
  if (begin >= n) return std::nullopt;

  auto fail = [&](std::size_t index, SubjectFailure failure, const std::string& message) {
    std::string tail = process_ ? process_->stderr_tail() : std::string();
    SubjectError error(failure, message, tail);
    if (process_) process_->stop();
    process_.reset();
    return std::optional<ExchangeFailure>(ExchangeFailure{index, std::move(error)});
  };

  if (!process_) {
    if (slots[begin].req != Req::kNew) {
      SubjectError error = death_ ? *death_
                                  : SubjectError(SubjectFailure::kExited,
                                                 "is not running (it failed earlier)");
      return ExchangeFailure{begin, error};
    }
    try {
      spawn();
    } catch (const SubjectError& e) {
      process_.reset();
      return ExchangeFailure{begin, e};
    }
  }
  {
    // Output nobody asked for (after the handshake, or after the last exchange's
    // responses), or an exit since.
    process_->read_stderr();
    process_->read_stdout();
    if (process_->out_pos < process_->out_buf.size()) {
      const std::string_view extra = std::string_view(process_->out_buf).substr(process_->out_pos);
      return fail(begin, SubjectFailure::kUnsolicited,
                  "wrote '" + printable(extra.substr(0, extra.find('\n'))) +
                      "' with no request outstanding (before '" + describe_request(slots[begin]) + "')");
    }
    if (process_->out_eof) {
      SubjectProcess& p = *process_;
      const bool exited = p.wait_exit(1.0);
      const std::string how = exited ? p.status_text() : "closed its stdout";
      return fail(begin, exited && p.signaled() ? SubjectFailure::kSignaled : SubjectFailure::kExited,
                  how + " between requests, before '" + describe_request(slots[begin]) + "'");
    }
  }
  SubjectProcess& p = *process_;
  p.out_buf.clear();
  p.out_pos = 0;

  const auto timeout = std::chrono::duration_cast<Clock::duration>(
      std::chrono::duration<double>(options_.timeout_seconds));
  auto deadline = Clock::now() + timeout;
  std::string out;
  std::size_t out_off = 0;
  std::size_t w = begin;  // next slot to write
  std::size_t r = begin;  // next slot to answer
  bool in_closed = false;
  constexpr std::size_t kWriteChunk = 1 << 16;
  for (std::size_t i = begin; i < n; ++i) {
    if (slots[i].req == Req::kNew) ++generation_;
  }

  while (r < n) {
    if (out_off == out.size()) {
      out.clear();
      out_off = 0;
    } else if (out_off > (1u << 20)) {
      out.erase(0, out_off);
      out_off = 0;
    }
    while (out.size() - out_off < kWriteChunk && w < n) {
      if (slots[w].role != Role::kLocal) {
        append_request(out, slots[w]);
        out += '\n';
        ++stats_.requests;
      }
      ++w;
    }
    while (r < n && slots[r].role == Role::kLocal) ++r;
    if (r == n) break;
    pollfd fds[3];
    nfds_t count = 0;
    int out_index = -1;
    int err_index = -1;
    int in_index = -1;
    if (!p.out_eof) {
      out_index = static_cast<int>(count);
      fds[count++] = pollfd{p.out_fd, POLLIN, 0};
    }
    if (!p.err_eof) {
      err_index = static_cast<int>(count);
      fds[count++] = pollfd{p.err_fd, POLLIN, 0};
    }
    if (!in_closed && out_off < out.size()) {
      in_index = static_cast<int>(count);
      fds[count++] = pollfd{p.in_fd, POLLOUT, 0};
    }
    const auto now = Clock::now();
    if (now >= deadline) {
      return fail(r, SubjectFailure::kTimeout,
                  "did not answer '" + describe_request(slots[r]) + "' within " +
                      seconds_text(options_.timeout_seconds) +
                      " (--timeout); stopped it. A subject must flush its stdout after each "
                      "response (Python: print(..., flush=True) or python3 -u; C: "
                      "fflush(stdout)); one that is only slow needs a longer --timeout SECONDS");
    }
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now).count() + 1;
    const int ready = ::poll(fds, count, static_cast<int>(std::min<long long>(ms, 1000)));
    if (ready < 0) {
      if (errno == EINTR) continue;
      throw std::system_error(errno, std::generic_category(), "poll");
    }
    if (ready == 0) continue;  // the deadline check above decides
    if (in_index >= 0 && (fds[in_index].revents & (POLLOUT | POLLERR | POLLHUP)) != 0) {
      const std::size_t size = std::min<std::size_t>(out.size() - out_off, kWriteChunk);
      const ssize_t written = write_no_sigpipe(p.in_fd, out.data() + out_off, size);
      if (written > 0) {
        out_off += static_cast<std::size_t>(written);
        deadline = Clock::now() + timeout;
      } else if (written < 0 && errno != EAGAIN && errno != EINTR) {
        in_closed = true;  // EPIPE: it closed its stdin; its stdout says the rest
        p.close_stdin();
      }
    }
    if (err_index >= 0 && fds[err_index].revents != 0) p.read_stderr();
    if (out_index >= 0 && fds[out_index].revents != 0) {
      if (p.read_stdout() > 0) deadline = Clock::now() + timeout;
      // Parse the complete lines.
      for (;;) {
        const std::size_t nl = p.out_buf.find('\n', p.out_pos);
        if (nl == std::string::npos) break;
        if (r >= n) break;  // more lines than requests: the next exchange reports them
        std::string_view line(p.out_buf.data() + p.out_pos, nl - p.out_pos);
        p.out_pos = nl + 1;
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        if (line.size() > kMaxProtocolLine ||
            std::any_of(line.begin(), line.end(), [](char c) {
              return static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) > 0x7e;
            })) {
          return fail(r, SubjectFailure::kGarbage,
                      "answered '" + describe_request(slots[r]) + "' with '" + printable(line) +
                          "', not a line of printable ASCII");
        }
        std::string error_text;
        if (!parse_response(slots[r], line, error_text)) {
          std::uint64_t ignored = 0;
          const bool too_large = slots[r].req == Req::kSize &&
                                 exec_detail::parse_decimal(line, ignored) == exec_detail::Decimal::kTooLarge;
          return fail(r, SubjectFailure::kInvalidResponse,
                      "answered '" + describe_request(slots[r]) + "' with '" + printable(line) +
                          (too_large ? "', a number larger than 2^64 - 1" : "'") + " (expected " +
                          expected_responses(slots[r].req) + ", or error TEXT)");
        }
        if (slots[r].resp == Resp::kError) error_texts[r] = std::move(error_text);
        ++stats_.responses;
        ++r;
        while (r < n && slots[r].role == Role::kLocal) ++r;
      }
      if (p.out_pos == p.out_buf.size()) {
        p.out_buf.clear();
        p.out_pos = 0;
      } else if (p.out_pos > (1u << 16)) {
        p.out_buf.erase(0, p.out_pos);
        p.out_pos = 0;
      }
      if (p.out_buf.size() - p.out_pos > kMaxProtocolLine + 2 &&
          p.out_buf.find('\n', p.out_pos) == std::string::npos) {
        return fail(r, SubjectFailure::kGarbage,
                    "answered '" + describe_request(slots[r]) + "' with a line longer than " +
                        std::to_string(kMaxProtocolLine) + " bytes ('" +
                        printable(std::string_view(p.out_buf).substr(p.out_pos), 60) + "')");
      }
    }
    if (p.out_eof && r < n) {
      const bool exited = p.wait_exit(std::min(1.0, options_.timeout_seconds));
      std::string how = exited ? p.status_text() : "closed its stdout (still running: stopped it)";
      const std::string partial = p.out_pos < p.out_buf.size()
                                      ? " after writing the partial line '" +
                                            printable(std::string_view(p.out_buf).substr(p.out_pos)) + "'"
                                      : "";
      const SubjectFailure kind = !exited        ? SubjectFailure::kClosedOutput
                                  : p.signaled() ? SubjectFailure::kSignaled
                                                 : SubjectFailure::kExited;
      auto failure = fail(r, kind,
                          how + partial + " before answering '" + describe_request(slots[r]) + "'");
      death_ = failure->error;
      return failure;
    }
  }
  return std::nullopt;
}

std::optional<std::string> ExecSession::close() {
  if (!process_) return std::nullopt;
  std::vector<Slot> slots(1);
  slots[0].req = Req::kClose;
  std::map<std::size_t, std::string> errors;
  if (auto failure = exchange(slots, 0, errors)) return failure->error.what();
  std::optional<std::string> note;
  if (slots[0].resp != Resp::kBye) {
    note = "the subject answered '" + resp_text(slots[0]) + "' to close, not bye";
  }
  SubjectProcess& p = *process_;
  p.close_stdin();
  if (!p.wait_exit(options_.timeout_seconds)) {
    note = "the subject did not exit within " + seconds_text(options_.timeout_seconds) +
           " after close; stopped it";
  } else if (!p.exited_cleanly()) {
    note = "the subject " + p.status_text() + " after close (expected status 0)";
  }
  process_.reset();
  return note;
}

std::string ExecSession::stderr_tail() const { return process_ ? process_->stderr_tail() : std::string(); }

void ExecSession::count_resync() { ++stats_.resyncs; }

// ---- free-form line I/O, for the concurrent audit (exec_concurrent.cpp) --------------------------

std::optional<SubjectError> ExecSession::pump_lines(std::string& out, std::vector<std::string>& lines,
                                                    int wait_ms) {
  if (!process_ || process_->reaped()) {
    return death_ ? *death_ : SubjectError(SubjectFailure::kExited, "is not running (it failed earlier)");
  }
  SubjectProcess& p = *process_;
  auto fail = [&](SubjectFailure failure, const std::string& message) {
    SubjectError error(failure, message, p.stderr_tail());
    process_->stop();
    process_.reset();
    death_ = error;
    return std::optional<SubjectError>(error);
  };
  pollfd fds[3];
  nfds_t count = 0;
  fds[count++] = pollfd{p.out_fd, POLLIN, 0};
  const int err_index = p.err_eof ? -1 : static_cast<int>(count);
  if (!p.err_eof) fds[count++] = pollfd{p.err_fd, POLLIN, 0};
  const int in_index = out.empty() || p.in_fd < 0 ? -1 : static_cast<int>(count);
  if (in_index >= 0) fds[count++] = pollfd{p.in_fd, POLLOUT, 0};
  if (::poll(fds, count, std::max(wait_ms, 0)) < 0 && errno != EINTR) {
    throw std::system_error(errno, std::generic_category(), "poll");
  }
  if (in_index >= 0 && (fds[in_index].revents & (POLLOUT | POLLERR | POLLHUP)) != 0) {
    const ssize_t written = write_no_sigpipe(p.in_fd, out.data(), std::min<std::size_t>(out.size(), 1 << 16));
    if (written > 0) {
      stats_.requests += static_cast<std::uint64_t>(std::count(out.data(), out.data() + written, '\n'));
      out.erase(0, static_cast<std::size_t>(written));
    } else if (written < 0 && errno != EAGAIN && errno != EINTR) {
      p.close_stdin();  // EPIPE: it closed its stdin; its stdout says the rest
    }
  }
  if (err_index >= 0 && fds[err_index].revents != 0) p.read_stderr();
  if ((fds[0].revents & (POLLIN | POLLHUP | POLLERR)) != 0) p.read_stdout();
  for (;;) {
    const std::size_t nl = p.out_buf.find('\n', p.out_pos);
    if (nl == std::string::npos) break;
    std::string_view line(p.out_buf.data() + p.out_pos, nl - p.out_pos);
    p.out_pos = nl + 1;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.size() > kMaxProtocolLine ||
        std::any_of(line.begin(), line.end(), [](char c) {
          return static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) > 0x7e;
        })) {
      return fail(SubjectFailure::kGarbage, "wrote '" + printable(line) + "', not a line of printable ASCII");
    }
    lines.emplace_back(line);
    ++stats_.responses;
  }
  p.out_buf.erase(0, p.out_pos);
  p.out_pos = 0;
  if (p.out_buf.size() > kMaxProtocolLine + 2) {
    return fail(SubjectFailure::kGarbage, "wrote a line longer than " + std::to_string(kMaxProtocolLine) +
                                              " bytes ('" + printable(p.out_buf, 60) + "')");
  }
  if (p.out_eof) {
    const bool exited = p.wait_exit(std::min(1.0, options_.timeout_seconds));
    const SubjectFailure kind = !exited        ? SubjectFailure::kClosedOutput
                                : p.signaled() ? SubjectFailure::kSignaled
                                               : SubjectFailure::kExited;
    return fail(kind, exited ? p.status_text() : "closed its stdout (still running: stopped it)");
  }
  return std::nullopt;
}

void ExecSession::stop_subject(const SubjectError& why) {
  if (process_) process_->stop();
  process_.reset();
  death_ = why;
}

}  // namespace cuckoo::audit
