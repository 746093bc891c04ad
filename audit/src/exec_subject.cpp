// cuckoo-audit exec: the adapter that audit_implementation drives (ExecSubject: the
// pipelining over the session, the shadow of the checker's model, the restarts that ask
// what was not recorded) and the audit itself. See exec.hpp.
#include <algorithm>
#include <atomic>
#include <limits>
#include <new>
#include <string>
#include <vector>

#include "cuckoo/audit/exec.hpp"
#include "exec_detail.hpp"

namespace cuckoo::audit {

using exec_detail::ExchangeFailure;
using exec_detail::mutating;
using exec_detail::printable;
using exec_detail::Req;
using exec_detail::req_of;
using exec_detail::Resp;
using exec_detail::resp_text;
using exec_detail::Role;
using exec_detail::Slot;
using exec_detail::takes_key;

// ---- the adapter --------------------------------------------------------------------------------

ExecSubject::ExecSubject(ExecSession& session)
    : session_(&session), ask_sizes_(session.declarations().size != SizeMode::kAbsent) {}

bool ExecSubject::ahead() const {
  const std::size_t end = failure_ ? std::min(failure_->index, rec_.size()) : rec_.size();
  for (std::size_t i = cursor_; i < end; ++i) {
    if (rec_[i].role == Role::kOp && mutating(rec_[i].req)) return true;
  }
  return false;
}

void ExecSubject::append_plan(std::vector<Slot>& slots, std::size_t from, bool predict) const {
  // The answers the current recording holds, to place the lookups after each `full`.
  std::vector<Resp> answers;
  std::optional<model::MultisetModel> walk;
  if (predict) {
    answers.assign(ops_.size(), Resp::kNone);
    const std::size_t end = failure_ ? std::min(failure_->index, rec_.size()) : rec_.size();
    for (std::size_t i = 0; i < end; ++i) {
      const Slot& s = rec_[i];
      if (s.role == Role::kOp && s.op < answers.size()) answers[s.op] = s.resp;
    }
    walk = shadow_;
  }
  for (std::size_t i = from; i < ops_.size(); ++i) {  // bound: the prepared ops
    const model::Op& op = ops_[i];
    Slot s;
    s.req = req_of(op.kind);
    s.role = Role::kOp;
    s.op = static_cast<std::uint32_t>(i);
    s.key = op.key;
    // Sizes not asked: the checker answers a trace's size op from its model.
    if (s.req == Req::kSize && !ask_sizes_) continue;
    slots.push_back(s);
    if (mutating(s.req) && ask_sizes_) {
      Slot size;
      size.req = Req::kSize;
      size.role = Role::kExtra;
      slots.push_back(size);
    }
    if (!walk) continue;
    const Resp answer = answers[i];
    if (answer == Resp::kNone) {
      walk.reset();  // nothing recorded from here on: no more predictions
      continue;
    }
    if (s.req == Req::kInsert && answer == Resp::kFull) {
      for (const std::uint64_t key : walk->distinct_keys()) {
        Slot lookup;
        lookup.req = Req::kContains;
        lookup.role = Role::kExtra;
        lookup.key = key;
        slots.push_back(lookup);
      }
    }
    if (s.req == Req::kInsert && answer == Resp::kInserted) walk->insert(op.key);
    if (s.req == Req::kErase && answer == Resp::kYes) walk->erase(op.key);
    if (s.req == Req::kClear) walk->clear();
  }
}

void ExecSubject::push_restart_prefix(std::vector<Slot>& slots) const {
  Slot fresh;
  fresh.req = Req::kNew;
  slots.push_back(fresh);
  for (const Slot& h : history_) {
    Slot replay = h;
    replay.role = Role::kReplay;
    replay.number = static_cast<std::uint64_t>(h.resp);
    replay.resp = Resp::kNone;
    slots.push_back(replay);
  }
}

std::optional<ExchangeFailure> ExecSubject::replay_mismatch(const std::vector<Slot>& slots,
                                                            std::size_t prefix) {
  for (std::size_t i = 0; i < prefix && i < slots.size(); ++i) {
    const Slot& s = slots[i];
    if (s.role != Role::kReplay || s.resp == Resp::kNone) continue;
    if (static_cast<std::uint64_t>(s.resp) == s.number) continue;
    Slot before = s;
    before.resp = static_cast<Resp>(s.number);
    return ExchangeFailure{
        i, SubjectError(SubjectFailure::kNondeterministic,
                        "is not deterministic: after 'new', the same requests again got '" +
                            resp_text(s) + "' for '" + session_->describe_request(s) +
                            "' where it answered '" + resp_text(before) +
                            "' before (the audit replays the ops it has performed to ask "
                            "what it did not record; a counterexample replays only if the "
                            "subject answers alike every time)",
                        session_->stderr_tail())};
  }
  return std::nullopt;
}

void ExecSubject::load(std::vector<Slot> slots, std::size_t prefix) {
  error_texts_.clear();
  std::optional<ExchangeFailure> failure = session_->exchange(slots, 0, error_texts_);
  generation_ = session_->generation();
  started_ = true;
  rec_ = std::move(slots);
  failure_ = std::move(failure);
  if (auto mismatch = replay_mismatch(rec_, prefix)) {
    if (!failure_ || mismatch->index < failure_->index) failure_ = std::move(mismatch);
  }
  cursor_ = prefix;
  if (failure_ && failure_->index < cursor_) cursor_ = failure_->index;
  // A death or hang with later requests sent and unanswered: which one did it is not
  // known yet. Keep the answers before it; the calls from there on go one at a time.
  const SubjectFailure kind = failure_ ? failure_->error.failure() : SubjectFailure::kStart;
  const bool lost_answers = kind == SubjectFailure::kExited || kind == SubjectFailure::kSignaled ||
                            kind == SubjectFailure::kClosedOutput || kind == SubjectFailure::kTimeout;
  if (lost_answers && failure_->index + 1 < rec_.size()) {
    unlocated_ = failure_->error;
    unlocated_ops_.clear();
    unlocated_next_ = 0;
    for (std::size_t i = failure_->index; i < rec_.size(); ++i) {
      if (rec_[i].role == Role::kOp) unlocated_ops_.emplace_back(rec_[i].req, rec_[i].key);
    }
    rec_.resize(failure_->index);
    failure_.reset();
    needs_new_ = true;
  }
}

bool ExecSubject::has_identity() const { return session_->declarations().identity; }

std::uint64_t ExecSubject::identity(std::uint64_t key) { return session_->identity(key); }

void ExecSubject::prepare(const model::Trace& trace) {
  if (has_identity()) {
    // The items of the trace's keys in one batch, before its ops (the checker asks them
    // between ops, where a request would break the pipelined recording). A failure here
    // is thrown by the identity() call that needs the answer, inside the check.
    std::vector<std::uint64_t> keys;
    for (const model::TraceEntry& e : trace.entries) {
      if (model::takes_key(e.op.kind)) keys.push_back(e.op.key);
    }
    try {
      session_->identities(keys);
    } catch (const SubjectError&) {
    }
  }
  ask_sizes_ = session_->declarations().size != SizeMode::kAbsent &&
               trace.parameters.get_string_or(adapter_detail::kSizeChecksParameter, "on") != "off";
  ops_.clear();
  ops_.reserve(trace.entries.size());
  for (const model::TraceEntry& e : trace.entries) {
    if (req_of(e.op.kind) == Req::kClose) break;  // an op the protocol lacks: check() says so
    ops_.push_back(e.op);
  }
  const bool fresh = !started_ || generation_ != session_->generation() || session_->pid() < 0 ||
                     ahead() || needs_new_;
  std::vector<Slot> slots;
  if (fresh) {
    if (started_) session_->count_resync();
    push_restart_prefix(slots);
  }
  const std::size_t prefix = slots.size();
  append_plan(slots, 0, false);
  next_op_ = 0;
  after_full_ = false;
  lookups_at_ = std::numeric_limits<std::size_t>::max();
  sync_ = false;
  needs_new_ = false;
  unlocated_.reset();
  load(std::move(slots), prefix);
}

void ExecSubject::restart(std::size_t from, const std::vector<std::uint64_t>& lookups) {
  session_->count_resync();
  std::vector<Slot> slots;
  push_restart_prefix(slots);
  const std::size_t prefix = slots.size();
  for (const std::uint64_t key : lookups) {
    Slot lookup;
    lookup.req = Req::kContains;
    lookup.role = Role::kExtra;
    lookup.key = key;
    slots.push_back(lookup);
  }
  append_plan(slots, from, true);  // predictions from the recording being replaced
  load(std::move(slots), prefix);
  next_op_ = from;
}

ExecSubject::Slot ExecSubject::consume(const Slot& s, const std::string* error_text) {
  if (s.resp == Resp::kError) {
    throw SubjectError(SubjectFailure::kErrorResponse,
                       "answered 'error" + (error_text != nullptr && !error_text->empty()
                                                ? " " + printable(*error_text)
                                                : std::string()) +
                           "' to '" + session_->describe_request(s) + "'",
                       session_->stderr_tail());
  }
  if (s.role == Role::kExtra || s.role == Role::kLocal) return s;
  if (s.role == Role::kOp) next_op_ = s.op + 1;
  after_full_ = s.req == Req::kInsert && s.resp == Resp::kFull;
  if (mutating(s.req)) history_.push_back(s);
  if (s.req == Req::kInsert && s.resp == Resp::kInserted) shadow_.insert(s.key);
  if (s.req == Req::kErase && s.resp == Resp::kYes) shadow_.erase(s.key);
  if (s.req == Req::kClear) shadow_.clear();
  return s;
}

ExecSubject::Slot ExecSubject::call(Req req, std::uint64_t key) {
  if (!started_ && ops_.empty()) sync_ = true;  // never prepared: one request at a time
  if (!sync_ && generation_ != session_->generation()) restart(next_op_, {});
  if (sync_) return sync_call(req, key);
  for (;;) {
    if (failure_ && cursor_ >= failure_->index) throw failure_->error;
    if (cursor_ < rec_.size()) {
      const Slot& s = rec_[cursor_];
      const bool match = s.req == req && (!takes_key(req) || s.key == key);
      if (s.role != Role::kOp) {
        const std::size_t index = cursor_++;
        if (match && (s.role == Role::kExtra || s.role == Role::kLocal)) {
          const auto it = error_texts_.find(index);
          return consume(s, it == error_texts_.end() ? nullptr : &it->second);
        }
        continue;  // an extra the caller did not ask for
      }
      if (match) {
        const std::size_t index = cursor_++;
        const auto it = error_texts_.find(index);
        Slot answered = consume(s, it == error_texts_.end() ? nullptr : &it->second);
        if (answered.req == Req::kErase && answered.resp == Resp::kNo) {
          // The checker asks no size after an erase that removed nothing.
          while (cursor_ < rec_.size() &&
                 (rec_[cursor_].role == Role::kExtra || rec_[cursor_].role == Role::kLocal) &&
                 (!failure_ || cursor_ < failure_->index)) {
            ++cursor_;
          }
        }
        return answered;
      }
    }
    // At an op this call is not, or past the recording. After `full` the checker looks
    // up every stored key: start again and ask them (and those of later `full`s) -
    // unless a failure is being located, which goes one request at a time.
    if (!unlocated_ && req == Req::kContains && after_full_ && lookups_at_ != next_op_ &&
        shadow_.identity_count(key) > 0) {
      lookups_at_ = next_op_;
      restart(next_op_, shadow_.distinct_keys());
      continue;
    }
    break;
  }
  // Anything else: one request at a time from here on, from the consumed state.
  needs_new_ = needs_new_ || ahead();
  sync_ = true;
  return sync_call(req, key);
}

ExecSubject::Slot ExecSubject::sync_call(Req req, std::uint64_t key) {
  std::map<std::size_t, std::string> errors;
  if (!started_ || needs_new_ || generation_ != session_->generation() || session_->pid() < 0) {
    // The consumed state first, in its own exchange: a crash at the request below is then
    // not blamed on the answers it lost (`ok` to `new`, say).
    if (started_) session_->count_resync();
    std::vector<Slot> prefix;
    push_restart_prefix(prefix);
    std::map<std::size_t, std::string> prefix_errors;
    std::optional<ExchangeFailure> failure = session_->exchange(prefix, 0, prefix_errors);
    generation_ = session_->generation();
    started_ = true;
    if (auto mismatch = replay_mismatch(prefix, prefix.size())) {
      if (!failure || mismatch->index < failure->index) failure = std::move(mismatch);
    }
    if (failure) throw failure->error;  // needs_new_ stays set
    needs_new_ = false;
  }
  std::vector<Slot> slots(1);
  slots[0].req = req;
  slots[0].key = key;
  std::optional<ExchangeFailure> failure = session_->exchange(slots, 0, errors);
  generation_ = session_->generation();
  if (failure) {
    needs_new_ = true;
    throw failure->error;
  }
  const auto it = errors.find(0);
  Slot answered = consume(slots.back(), it == errors.end() ? nullptr : &it->second);
  if (unlocated_ && unlocated_next_ < unlocated_ops_.size() &&
      unlocated_ops_[unlocated_next_].first == req &&
      (!takes_key(req) || unlocated_ops_[unlocated_next_].second == key) &&
      ++unlocated_next_ == unlocated_ops_.size()) {
    // Every op the failed batch left unanswered got its answer this time: the failure
    // depends on pipelining or timing. It is reported at the batch's last op.
    SubjectError error(unlocated_->failure(),
                       unlocated_->message() + " (with " + std::to_string(unlocated_ops_.size()) +
                           " ops pipelined and unanswered; sent again one at a time, each got an "
                           "answer, so the failure depends on pipelining or timing)",
                       unlocated_->stderr_tail());
    unlocated_.reset();
    needs_new_ = true;
    throw error;
  }
  return answered;
}

model::InsertResult ExecSubject::insert(std::uint64_t key) {
  switch (call(Req::kInsert, key).resp) {
    case Resp::kInserted: return model::InsertResult::kInserted;
    case Resp::kExists: return model::InsertResult::kExists;
    case Resp::kDuplicateLimit: return model::InsertResult::kDuplicateLimit;
    default: break;
  }
  return model::InsertResult::kFull;  // parse_response lets nothing else through
}

bool ExecSubject::contains(std::uint64_t key) { return call(Req::kContains, key).resp == Resp::kYes; }

bool ExecSubject::erase(std::uint64_t key) { return call(Req::kErase, key).resp == Resp::kYes; }

void ExecSubject::clear() { (void)call(Req::kClear, 0); }

std::uint64_t ExecSubject::size() {
  // size=absent (or size_checks=off): never asked. The adapter's checks do not call this
  // then; a direct call gets the consumed state's size.
  if (!ask_sizes_) return shadow_.size();
  const Slot s = call(Req::kSize, 0);
  // size=approximate: the adapter holds the number to its tolerance.
  if (s.resp != Resp::kNumber) {
    throw SubjectError(SubjectFailure::kInvalidResponse,
                       std::string("answered 'unknown' to 'size' but declared size=") +
                           to_string(session_->declarations().size),
                       session_->stderr_tail());
  }
  return s.number;
}

// ---- the audit ----------------------------------------------------------------------------------

namespace {

AuditOptions exec_audit_options(ExecSession& session, const AuditOptions& options) {
  AuditOptions o = options;
  if (o.max_shrink_seconds == 0) {
    // A hanging subject costs a timeout per shrinking attempt: bound the shrink.
    o.max_shrink_seconds = std::clamp(10 * session.options().timeout_seconds, 2.0, 30.0);
  }
  o.on_shrinking = [&session, chained = options.on_shrinking](bool shrinking) {
    session.set_shrinking(shrinking);
    if (chained) chained(shrinking);
  };
  return o;
}

// Notes the auditor's failed allocations while an exec audit runs. operator new calls the
// new-handler when it cannot allocate; this one calls the handler installed before it (which
// may free memory and return, so that the allocation is tried again) or throws
// std::bad_alloc, and notes the failure when it throws. The checker turns an exception
// during a trace into a violation and the measurements into a FAIL, both charged to the
// subject; the note lets the audit say what really happened. One watch at a time (the
// exec audit is single-threaded; a nested one only refreshes the note).
class AllocationWatch {
 public:
  AllocationWatch() {
    failed_.store(false);
    if (depth_++ == 0) previous_ = std::set_new_handler(&AllocationWatch::handler);
  }
  ~AllocationWatch() {
    if (--depth_ == 0) std::set_new_handler(previous_);
  }
  AllocationWatch(const AllocationWatch&) = delete;
  AllocationWatch& operator=(const AllocationWatch&) = delete;

  bool failed() const noexcept { return failed_.load(); }

 private:
  static void handler() {
    if (previous_ != nullptr) {
      try {
        previous_();
        return;
      } catch (...) {
        failed_.store(true);
        throw;
      }
    }
    failed_.store(true);
    throw std::bad_alloc();
  }

  static inline std::atomic<bool> failed_{false};
  static inline std::new_handler previous_ = nullptr;
  static inline int depth_ = 0;
};

[[noreturn]] void out_of_memory(const ExecSession& session) {
  const std::uint64_t capacity = session.declarations().capacity;
  throw AuditorResourceError(
      "the auditor ran out of memory" +
      (capacity != 0 ? " auditing a subject that declares capacity=" + std::to_string(capacity)
                     : std::string()) +
      " (its own traces, models and recordings of the answers did not fit): this is a limit "
      "of the auditor, not a finding about the subject; audit an instance built for fewer "
      "items, or run the auditor with more memory");
}

}  // namespace

Report audit_exec(ExecSession& session, const AuditOptions& options) {
  session.start();
  const ImplementationTraits traits = session.traits();
  const AllocationWatch watch;
  AuditOptions o = exec_audit_options(session, options);
  // Stop at the next step once an allocation has failed: what follows would be judged on
  // a failure of the auditor.
  o.on_step = [&watch, &session, on_step = options.on_step](const std::string& step) {
    if (watch.failed()) out_of_memory(session);
    if (on_step) on_step(step);
  };
  Report report;
  try {
    // The metadata (version, start time, command) come from audit_implementation; the
    // command line is the CLI's to fill.
    report = audit_implementation([&session] { return session.instance(); }, traits, o);
  } catch (const std::bad_alloc&) {
    out_of_memory(session);
  }
  if (watch.failed()) out_of_memory(session);
  report.subject = traits.name + " (declares: " + session.declarations().text() +
                   "; keys=" + to_string(session.options().keys) + ")";
  return report;
}

std::optional<model::Violation> replay_exec(ExecSession& session, const model::Trace& trace) {
  session.start();
  const AllocationWatch watch;
  std::optional<model::Violation> violation;
  try {
    violation = replay_implementation([&session] { return session.instance(); }, session.traits(), trace);
  } catch (const std::bad_alloc&) {
    out_of_memory(session);
  }
  if (watch.failed()) out_of_memory(session);
  return violation;
}

}  // namespace cuckoo::audit
