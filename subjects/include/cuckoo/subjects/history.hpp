// Histories of concurrent runs: what the linearizability checker reads (claim C10).
//
// A history is the list of completed operations of one run. Each operation carries the
// thread that ran it, its arguments, its result and two stamps drawn from one global
// counter: the invocation stamp, taken just before the call into the subject, and the
// response stamp, taken right after the call returned. Real-time order is read off the
// stamps only:
//
//   A precedes B  <=>  A.response_stamp < B.invoke_stamp
//
// Operations that do not precede one another overlap, and a linearization may order them
// either way. Equal stamps (possible only in hand-written histories) therefore mean
// "overlapping".
//
// A history has a one-line-per-operation text form, used in failure messages and for
// saving a failing history so that it can be re-checked later:
//
//   # comment lines start with '#'; blank lines are ignored
//   t0 1 4 insert 3 17 -> inserted
//   t1 2 3 contains 3 -> false
//   t1 5 6 find 3 -> 17            (find of an absent key: "-> none")
//   t0 7 8 insert_or_assign 3 9 -> updated
//   t1 9 10 erase 3 -> true
//   t0 11 12 size -> 0
//
// Columns: thread ("t" and its index), invocation stamp, response stamp, operation, key
// (absent for size), value (insert and insert_or_assign only), "->", result.
// dump_history() writes this form and parse_history() reads it back exactly.
#pragma once

#include <algorithm>
#include <atomic>
#include <cassert>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "cuckoo/model/insert_result.hpp"

namespace cuckoo::subjects {

// The operations a subject may offer. Filters and multisets use insert, erase, contains
// and size; exact maps add find and insert_or_assign, and the concurrent maps' atomic
// read-modify-write operations, each with a deterministic function so that its effect
// is a function of the state:
//   upsert_add(k, v)    upsert(k, x += v, v): updated (x + v) or inserted (v), or full
//   update_add(k, v)    update_fn(k, x += v): true iff present
//   erase_if_odd(k)     erase_fn(k, erase iff x is odd): true iff present
//   uprase_dec(k, v)    uprase_fn(k, x -= 1, erase iff x becomes 0, v): updated,
//                       inserted (v) or full
enum class OpKind : std::uint8_t {
  kInsert,
  kErase,
  kContains,
  kFind,
  kInsertOrAssign,
  kSize,
  kUpsertAdd,
  kUpdateAdd,
  kEraseIfOdd,
  kUpraseDec,
};

inline constexpr OpKind kAllOpKinds[] = {
    OpKind::kInsert,         OpKind::kErase,     OpKind::kContains,  OpKind::kFind,
    OpKind::kInsertOrAssign, OpKind::kSize,      OpKind::kUpsertAdd, OpKind::kUpdateAdd,
    OpKind::kEraseIfOdd,     OpKind::kUpraseDec};

constexpr std::string_view to_string(OpKind kind) noexcept {
  switch (kind) {
    case OpKind::kInsert: return "insert";
    case OpKind::kErase: return "erase";
    case OpKind::kContains: return "contains";
    case OpKind::kFind: return "find";
    case OpKind::kInsertOrAssign: return "insert_or_assign";
    case OpKind::kSize: return "size";
    case OpKind::kUpsertAdd: return "upsert_add";
    case OpKind::kUpdateAdd: return "update_add";
    case OpKind::kEraseIfOdd: return "erase_if_odd";
    case OpKind::kUpraseDec: return "uprase_dec";
  }
  return "unknown";
}

// Outcome of insert-like operations: the model layer's InsertResult (same names, same
// to_string, found by ADL).
using InsertOutcome = model::InsertResult;
inline constexpr const auto& kAllInsertOutcomes = model::kAllInsertResults;

// Result of size(): its own type so that it cannot be confused with a found value.
struct SizeResult {
  std::uint64_t count = 0;
  friend bool operator==(const SizeResult&, const SizeResult&) = default;
};

// The result of one operation. Which alternative is held depends on the kind:
//   insert, insert_or_assign -> InsertOutcome
//   erase, contains          -> bool
//   find                     -> std::optional<std::uint64_t> (the value, or none)
//   size                     -> SizeResult
using Result = std::variant<InsertOutcome, bool, std::optional<std::uint64_t>, SizeResult>;

// True if `result` holds the alternative that operations of `kind` return.
constexpr bool result_matches_kind(OpKind kind, const Result& result) noexcept {
  switch (kind) {
    case OpKind::kInsert:
    case OpKind::kInsertOrAssign:
    case OpKind::kUpsertAdd:
    case OpKind::kUpraseDec: return std::holds_alternative<InsertOutcome>(result);
    case OpKind::kErase:
    case OpKind::kContains:
    case OpKind::kUpdateAdd:
    case OpKind::kEraseIfOdd: return std::holds_alternative<bool>(result);
    case OpKind::kFind: return std::holds_alternative<std::optional<std::uint64_t>>(result);
    case OpKind::kSize: return std::holds_alternative<SizeResult>(result);
  }
  return false;
}

// True for the kinds whose text form and semantics carry a value argument.
constexpr bool kind_has_value(OpKind kind) noexcept {
  return kind == OpKind::kInsert || kind == OpKind::kInsertOrAssign ||
         kind == OpKind::kUpsertAdd || kind == OpKind::kUpdateAdd || kind == OpKind::kUpraseDec;
}

// True for the kinds that name a key (all but size).
constexpr bool kind_has_key(OpKind kind) noexcept { return kind != OpKind::kSize; }

// One completed operation of a history.
struct Operation {
  std::uint32_t thread = 0;
  OpKind kind = OpKind::kContains;
  std::uint64_t key = 0;    // 0 and ignored for size
  std::uint64_t value = 0;  // the argument of insert / insert_or_assign; 0 otherwise
  Result result = false;
  std::uint64_t invoke_stamp = 0;    // taken just before the call
  std::uint64_t response_stamp = 0;  // taken right after the return; >= invoke_stamp

  friend bool operator==(const Operation&, const Operation&) = default;
};

using History = std::vector<Operation>;

// Real-time order: `a` returned before `b` was invoked.
constexpr bool precedes(const Operation& a, const Operation& b) noexcept {
  return a.response_stamp < b.invoke_stamp;
}

// "found 17", "none", "true", "inserted", "3": the result as the text form writes it.
inline std::string format_result(const Result& result) {
  struct Visitor {
    std::string operator()(InsertOutcome o) const { return std::string(to_string(o)); }
    std::string operator()(bool b) const { return b ? "true" : "false"; }
    std::string operator()(const std::optional<std::uint64_t>& v) const {
      return v ? std::to_string(*v) : "none";
    }
    std::string operator()(SizeResult s) const { return std::to_string(s.count); }
  };
  return std::visit(Visitor{}, result);
}

// "insert(3, 17)", "erase(3)", "size()": the call without thread, stamps or result.
inline std::string format_call(const Operation& op) {
  std::string out(to_string(op.kind));
  out += '(';
  if (kind_has_key(op.kind)) out += std::to_string(op.key);
  if (kind_has_value(op.kind)) {
    out += ", ";
    out += std::to_string(op.value);
  }
  out += ')';
  return out;
}

// One line of the text form, without the newline: "t0 1 4 insert 3 17 -> inserted".
inline std::string format_operation(const Operation& op) {
  // Appended piece by piece: GCC 12 at -O3 warns (-Wrestrict, a false positive) on
  // "t" + std::to_string(...) chains.
  std::string out = "t";
  for (std::uint64_t number : {std::uint64_t{op.thread}, op.invoke_stamp, op.response_stamp}) {
    out += std::to_string(number);
    out += ' ';
  }
  out += to_string(op.kind);
  if (kind_has_key(op.kind)) {
    out += ' ';
    out += std::to_string(op.key);
  }
  if (kind_has_value(op.kind)) {
    out += ' ';
    out += std::to_string(op.value);
  }
  out += " -> ";
  out += format_result(op.result);
  return out;
}

// The whole history in text form, one operation a line in the order given. Each line of
// `comment` (for example the seed and configuration of the run) is written first,
// prefixed with "# ".
inline std::string dump_history(const History& history, std::string_view comment = {}) {
  std::string out = "# cuckoo stress history: thread invoke response op [key [value]] -> result\n";
  while (!comment.empty()) {
    const std::size_t end = std::min(comment.find('\n'), comment.size());
    out += "# ";
    out += comment.substr(0, end);
    out += '\n';
    comment.remove_prefix(std::min(end + 1, comment.size()));
  }
  for (const Operation& op : history) {
    out += format_operation(op);
    out += '\n';
  }
  return out;
}

// Thrown by parse_history for malformed text; line() is 1-based.
class HistoryParseError : public std::runtime_error {
 public:
  HistoryParseError(std::size_t line, const std::string& message)
      : std::runtime_error("history line " + std::to_string(line) + ": " + message), line_(line) {}
  std::size_t line() const noexcept { return line_; }

 private:
  std::size_t line_;
};

namespace detail {

inline std::vector<std::string_view> split_words(std::string_view line) {
  std::vector<std::string_view> words;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r')) ++i;
    const std::size_t start = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t' && line[i] != '\r') ++i;
    if (i > start) words.push_back(line.substr(start, i - start));
  }
  return words;
}

inline std::uint64_t parse_number(std::string_view word, std::size_t line, std::string_view field) {
  std::uint64_t value = 0;
  const auto [end, ec] = std::from_chars(word.data(), word.data() + word.size(), value);
  if (ec != std::errc{} || end != word.data() + word.size()) {
    throw HistoryParseError(line, std::string(field) + ": '" + std::string(word) +
                                      "' is not an unsigned 64-bit decimal number");
  }
  return value;
}

inline Result parse_result(OpKind kind, std::string_view word, std::size_t line) {
  switch (kind) {
    case OpKind::kInsert:
    case OpKind::kInsertOrAssign:
    case OpKind::kUpsertAdd:
    case OpKind::kUpraseDec:
      for (InsertOutcome o : kAllInsertOutcomes) {
        if (word == to_string(o)) return o;
      }
      throw HistoryParseError(line, "result: '" + std::string(word) +
                                        "' is not one of inserted, updated, exists, full, "
                                        "duplicate_limit");
    case OpKind::kErase:
    case OpKind::kContains:
    case OpKind::kUpdateAdd:
    case OpKind::kEraseIfOdd:
      if (word == "true") return true;
      if (word == "false") return false;
      throw HistoryParseError(line, "result: '" + std::string(word) + "' is not true or false");
    case OpKind::kFind:
      if (word == "none") return std::optional<std::uint64_t>{};
      return std::optional<std::uint64_t>{parse_number(word, line, "result")};
    case OpKind::kSize: return SizeResult{parse_number(word, line, "result")};
  }
  throw HistoryParseError(line, "result: unknown operation kind");
}

}  // namespace detail

// Reads the text form written by dump_history. Throws HistoryParseError naming the line
// and the bad field for anything else (unknown operation, missing or extra fields, a
// result of the wrong type for the operation, invoke stamp after response stamp).
inline History parse_history(std::string_view text) {
  History history;
  std::size_t line_number = 0;
  while (!text.empty()) {
    ++line_number;
    const std::size_t end = std::min(text.find('\n'), text.size());
    std::string_view line = text.substr(0, end);
    text.remove_prefix(std::min(end + 1, text.size()));
    if (const std::size_t hash = line.find('#'); hash != std::string_view::npos) {
      line = line.substr(0, hash);
    }
    const std::vector<std::string_view> words = detail::split_words(line);
    if (words.empty()) continue;
    if (words.size() < 6) {
      throw HistoryParseError(line_number,
                              "expected 'tTHREAD INVOKE RESPONSE OP [KEY [VALUE]] "
                              "-> RESULT', got " +
                                  std::to_string(words.size()) + " fields");
    }
    Operation op;
    if (words[0].size() < 2 || words[0][0] != 't') {
      throw HistoryParseError(
          line_number, "thread: '" + std::string(words[0]) + "' does not look like t0, t1, ...");
    }
    const std::uint64_t thread = detail::parse_number(words[0].substr(1), line_number, "thread");
    if (thread > UINT32_MAX) throw HistoryParseError(line_number, "thread: index above 2^32-1");
    op.thread = static_cast<std::uint32_t>(thread);
    op.invoke_stamp = detail::parse_number(words[1], line_number, "invoke stamp");
    op.response_stamp = detail::parse_number(words[2], line_number, "response stamp");
    if (op.invoke_stamp > op.response_stamp) {
      throw HistoryParseError(line_number,
                              "stamps: invoke stamp " + std::to_string(op.invoke_stamp) +
                                  " is after response stamp " + std::to_string(op.response_stamp));
    }
    bool known = false;
    for (OpKind kind : kAllOpKinds) {
      if (words[3] == to_string(kind)) {
        op.kind = kind;
        known = true;
      }
    }
    if (!known) {
      throw HistoryParseError(line_number, "op: '" + std::string(words[3]) +
                                               "' is not one of insert, erase, contains, find, "
                                               "insert_or_assign, size");
    }
    const std::size_t arguments =
        (kind_has_key(op.kind) ? 1 : 0) + (kind_has_value(op.kind) ? 1 : 0);
    if (words.size() != 4 + arguments + 2) {
      throw HistoryParseError(line_number, std::string(to_string(op.kind)) + " takes " +
                                               std::to_string(arguments) +
                                               " argument(s) then '-> RESULT'");
    }
    if (kind_has_key(op.kind)) op.key = detail::parse_number(words[4], line_number, "key");
    if (kind_has_value(op.kind)) op.value = detail::parse_number(words[5], line_number, "value");
    if (words[4 + arguments] != "->") {
      throw HistoryParseError(line_number, "expected '->' before the result, got '" +
                                               std::string(words[4 + arguments]) + "'");
    }
    op.result = detail::parse_result(op.kind, words[5 + arguments], line_number);
    history.push_back(op);
  }
  return history;
}

// Records the operations of a concurrent run into per-thread logs.
//
// Thread safety: thread i calls only thread(i).record(...); the logs share nothing but
// the stamp counter, so recording never contends on a shared vector. take_history() may
// be called only after every recording thread has finished (been joined).
//
// Memory order of the stamps. Both fetch_adds are acq_rel, and that is what real-time
// order needs: if A.response_stamp < B.invoke_stamp then A's response RMW precedes B's
// invoke RMW in the counter's modification order; RMWs extend release sequences, so B's
// acquire synchronizes with A's release and everything A's call did happens-before
// everything B's call does. So "A precedes B" in the history really means that B must
// see A's effects, and a violation the checker reports is the subject's, not the
// recorder's. The release half keeps the call's accesses from sinking below the response
// stamp, the acquire half keeps them from rising above the invocation stamp. relaxed
// would not do (the stamps would still be totally ordered, but B might not see A's
// effects on a weakly ordered machine, a false alarm); seq_cst would add nothing the
// checker uses (and compiles to the same lock xadd on x86-64).
//
// A consequence worth knowing under ThreadSanitizer: the counter orders every pair of
// non-overlapping operations, so TSan cannot report a race between two calls that the
// stamps order; it still sees races between overlapping calls, which is where a stress
// run finds them.
class HistoryRecorder {
 public:
  class ThreadLog {
   public:
    // Calls `call()` between the two stamps and appends the operation to this thread's
    // log; returns what the call returned. `call` returns InsertOutcome (insert,
    // insert_or_assign), bool (erase, contains), std::optional<std::uint64_t> (find) or
    // std::uint64_t (size). If `call` throws, nothing is recorded and the exception
    // propagates.
    // REQUIRES: the return type matches `kind` (checked by assert).
    template <class Call>
    std::invoke_result_t<Call&> record(OpKind kind, std::uint64_t key, std::uint64_t value,
                                       Call&& call) {
      using R = std::remove_cvref_t<std::invoke_result_t<Call&>>;
      Operation op;
      op.thread = thread_;
      op.kind = kind;
      op.key = kind_has_key(kind) ? key : 0;
      op.value = kind_has_value(kind) ? value : 0;
      op.invoke_stamp = clock_->fetch_add(1, std::memory_order_acq_rel);
      if (*real_time_hook_ != nullptr) (*real_time_hook_)();
      R returned = std::invoke(call);
      if (*real_time_hook_ != nullptr) (*real_time_hook_)();
      op.response_stamp = clock_->fetch_add(1, std::memory_order_acq_rel);
      op.result = to_result(returned);
      assert(result_matches_kind(kind, op.result));
      ops_.push_back(op);
      return returned;
    }

    // Operations recorded so far by this thread. REQUIRES: called by the owning thread,
    // or after it finished.
    std::size_t size() const noexcept { return ops_.size(); }
    std::uint32_t thread() const noexcept { return thread_; }

   private:
    friend class HistoryRecorder;
    template <class R>
    static Result to_result(const R& returned) {
      if constexpr (std::is_same_v<R, InsertOutcome> || std::is_same_v<R, bool> ||
                    std::is_same_v<R, std::optional<std::uint64_t>>) {
        return Result{std::in_place_type<R>, returned};
      } else {
        static_assert(std::is_same_v<R, std::uint64_t>,
                      "a recorded call returns InsertOutcome, bool, "
                      "std::optional<std::uint64_t> or std::uint64_t (size)");
        return Result{SizeResult{returned}};
      }
    }

    std::atomic<std::uint64_t>* clock_ = nullptr;
    void (*const* real_time_hook_)() = nullptr;
    std::uint32_t thread_ = 0;
    std::vector<Operation> ops_;
  };

  // `reserve_per_thread` operations are reserved up front in each log so that the
  // recording window does not allocate in the common case.
  explicit HistoryRecorder(std::uint32_t threads, std::size_t reserve_per_thread = 0)
      : slots_(threads) {
    for (std::uint32_t i = 0; i < threads; ++i) {
      slots_[i].log.clock_ = &clock_;
      slots_[i].log.real_time_hook_ = &real_time_hook_;
      slots_[i].log.thread_ = i;
      slots_[i].log.ops_.reserve(reserve_per_thread);
    }
  }
  HistoryRecorder(const HistoryRecorder&) = delete;
  HistoryRecorder& operator=(const HistoryRecorder&) = delete;

  std::uint32_t threads() const noexcept { return static_cast<std::uint32_t>(slots_.size()); }

  // A function every record() calls right after the invocation stamp and right before
  // the response stamp, for a checker whose memory model does not see the stamp counter
  // (the interleaving explorer's explore::real_time_point, which gives the stamps'
  // real-time order to its model so that stale reads are not blamed on the subject for
  // an order only the stamps provide). nullptr (the default): none.
  // REQUIRES: no thread is recording.
  void set_real_time_hook(void (*hook)()) noexcept { real_time_hook_ = hook; }

  // REQUIRES: index < threads(); only thread `index` records through the returned log.
  ThreadLog& thread(std::uint32_t index) { return slots_.at(index).log; }

  // Merges the per-thread logs into one history sorted by invocation stamp and empties
  // the logs. REQUIRES: no thread is recording.
  History take_history() {
    History merged;
    std::size_t total = 0;
    for (const Slot& slot : slots_) total += slot.log.ops_.size();
    merged.reserve(total);
    for (Slot& slot : slots_) {
      merged.insert(merged.end(), slot.log.ops_.begin(), slot.log.ops_.end());
      slot.log.ops_.clear();
    }
    std::sort(merged.begin(), merged.end(), [](const Operation& a, const Operation& b) {
      return a.invoke_stamp < b.invoke_stamp;
    });
    return merged;
  }

 private:
  // One cache line per log so that threads appending to their own logs do not share
  // lines with each other or with the counter.
  static constexpr std::size_t kCacheLine = 64;
  struct alignas(kCacheLine) Slot {
    ThreadLog log;
  };

  alignas(kCacheLine) std::atomic<std::uint64_t> clock_{0};
  void (*real_time_hook_)() = nullptr;
  std::vector<Slot> slots_;
};

}  // namespace cuckoo::subjects
