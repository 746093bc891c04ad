// Linearizability checker for histories of multisets, filters and maps (claim C10).
//
// A history (history.hpp) is linearizable against a sequential specification if its
// operations can be put in one sequence that (1) respects real-time order: if A returned
// before B was invoked, A comes first, and (2) is legal: run one after the other on the
// specification, every operation returns what it returned in the history.
//
// Algorithm. Wing & Gong's backtracking search with Lowe's memoization, in the form of
// Lowe, "Testing for linearizability" (2017), and of the Porcupine checker:
//   * the calls and returns are laid out in one doubly linked list in stamp order;
//   * walking the list from its head, any call met before the first return is a
//     candidate to be linearized next; if the specification accepts its result, the
//     operation is "lifted" out of the list (call and return), pushed on a stack with
//     the state before it, and the walk restarts from the head;
//   * reaching a return whose operation is not yet linearized means no candidate is left
//     at this point: pop the last lifted operation, restore its state, put it back and
//     try the next candidate after it;
//   * Lowe's memoization: a configuration is the set of operations linearized so far
//     together with the specification state. Two paths that reach the same configuration
//     have the same futures, so a configuration already in the memo table is not
//     explored again (a cache hit). Lowe keys the table with a bitset of the linearized
//     set; here the set is keyed by its frontier and the few linearized operations still
//     open there (see MemoKey), which is equivalent and costs O(threads) words per entry
//     instead of O(ops / 64), so long partitions do not make the table quadratic.
// The history is linearizable iff the list empties; not linearizable iff the stack
// empties at a return.
//
// Partitioning. Every multiset/map operation but size() names one key, and operations
// on different keys commute, so a history is linearizable iff each key's sub-history is
// linearizable against the per-key specification (Herlihy & Wing's locality, exploited as
// P-compositionality by Horn & Kroening 2015). By default each key is searched on its own,
// which turns one exponential search into many small ones.
//
// size(). size() reads every key, so it belongs to no key's sub-history. With partitioning
// on (the default) each size() result is checked against a necessary condition instead
// (CheckOptions::size_check == SizeCheck::kBounds):
//     lower <= size() <= upper, where
//     lower = adds that returned before size() was invoked
//             - removes (and may-removes) invoked before size() returned
//     upper = adds invoked before size() returned
//             - removes that returned before size() was invoked
// ("adds" are inserts that returned inserted, "removes" erases that returned true; see
// SizeEffect). Every linearizable history passes, but a history can pass and still not be
// linearizable (e.g. size() overlapping an insert/erase of key a followed by an
// insert/erase of key b may not return 2). SizeCheck::kReject instead refuses histories
// with size() (std::invalid_argument). With partition_by_key == false the whole history
// is searched against the product of the per-key specifications and size() is checked
// exactly; that is exponential in the width of the whole history, so it is meant for
// short histories and for cross-checking the partitioned answer.
//
// Bounds. Each search (one per key, or one for the whole history) may take at most
// CheckOptions::max_steps_per_partition steps (one step = one list node visited); past
// that the answer is TooLargeToDecide. The memo table gains at most one entry per step,
// each a state plus a window of at most (operations open at one instant) words, so the
// same bound caps memory. A step costs O(candidates + log ops), the candidates being the
// operations open at the current frontier.
//
// Thread safety: the functions here are pure; concurrent calls on different or the same
// (const) inputs are safe.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <unordered_set>
#include <utility>
#include <variant>
#include <vector>

#include "cuckoo/subjects/history.hpp"
#include "cuckoo/subjects/specs.hpp"

namespace cuckoo::subjects {

// Default bound on the search steps of one partition. A key's sub-history recorded from a
// handful of threads needs about one step per operation (so partitions of up to about a
// million operations are decided); adversarial wide histories need exponentially many.
inline constexpr std::uint64_t kDefaultMaxStepsPerPartition = 2'000'000;

// How many operations of the longest linearizable prefix a violation report lists.
inline constexpr std::size_t kMaxPrefixOpsShown = 24;

enum class SizeCheck : std::uint8_t {
  kBounds,  // partitioned check: each size() must lie within the bounds above
  kReject,  // partitioned check: a history with size() is an error (std::invalid_argument)
};

struct CheckOptions {
  std::uint64_t max_steps_per_partition = kDefaultMaxStepsPerPartition;
  bool partition_by_key = true;
  SizeCheck size_check = SizeCheck::kBounds;
};

// The three verdicts.
struct Linearizable {};

struct NotLinearizable {
  std::optional<std::uint64_t> key;  // the failing key; none for size() or a whole-history search
  bool whole_history = false;        // found by the unpartitioned search (partition_by_key false)
  History ops;                       // the failing sub-history (a key's, or the size() op and
                                     // the adds/removes that bound it), in invocation order
  std::string explanation;           // why: deepest linearizable prefix and what blocks it
};

struct TooLargeToDecide {
  std::optional<std::uint64_t> key;  // the undecided key; none for a whole-history search
  std::uint64_t steps = 0;           // steps spent on it (= the bound)
  std::size_t ops = 0;               // operations in its sub-history
};

using Verdict = std::variant<Linearizable, NotLinearizable, TooLargeToDecide>;

struct CheckStats {
  std::uint64_t ops_checked = 0;             // operations in the history
  std::uint64_t partitions = 0;              // searches run (keys, or 1 for the whole history)
  std::uint64_t steps = 0;                   // search steps, all partitions
  std::uint64_t cache_hits = 0;              // configurations found in the memo table
  std::uint64_t max_partition_steps = 0;     // steps of the most expensive partition
  std::uint64_t largest_partition = 0;       // operations in the largest partition
  std::uint64_t size_ops_bound_checked = 0;  // size() ops checked by the bound check
  // Most operations of one partition open at one instant: 1 means the partitions were
  // sequential and the run exercised no concurrency on any key.
  std::uint64_t max_concurrency = 0;
};

struct CheckResult {
  Verdict verdict;
  CheckStats stats;

  bool linearizable() const noexcept { return std::holds_alternative<Linearizable>(verdict); }
  bool not_linearizable() const noexcept {
    return std::holds_alternative<NotLinearizable>(verdict);
  }
  bool undecided() const noexcept { return std::holds_alternative<TooLargeToDecide>(verdict); }

  // A multi-line report: the verdict, the statistics and, for a violation, the
  // explanation and the failing sub-history in text form (parse_history reads it back).
  std::string describe() const {
    std::string out;
    const std::string stats_line =
        std::to_string(stats.ops_checked) + " ops, " + std::to_string(stats.partitions) +
        " partitions (largest " + std::to_string(stats.largest_partition) + " ops), " +
        std::to_string(stats.max_concurrency) + " ops open at once at most, " +
        std::to_string(stats.steps) + " search steps (most in one partition " +
        std::to_string(stats.max_partition_steps) + "), " + std::to_string(stats.cache_hits) +
        " cache hits, " + std::to_string(stats.size_ops_bound_checked) +
        " size() ops bound-checked";
    if (linearizable()) return "linearizable: " + stats_line + "\n";
    if (const auto* undecided_verdict = std::get_if<TooLargeToDecide>(&verdict)) {
      out = "too large to decide: ";
      out += undecided_verdict->key ? "key " + std::to_string(*undecided_verdict->key)
                                    : std::string("the whole history");
      out += " (" + std::to_string(undecided_verdict->ops) + " ops) needs more than " +
             std::to_string(undecided_verdict->steps) +
             " search steps (CheckOptions::max_steps_per_partition)\n";
      return out + stats_line + "\n";
    }
    const auto& violation = std::get<NotLinearizable>(verdict);
    out = "NOT linearizable: ";
    out += violation.key             ? "key " + std::to_string(*violation.key)
           : violation.whole_history ? std::string("the whole history")
                                     : std::string("size() bound check");
    out += "\n" + violation.explanation + "\n" + stats_line + "\n";
    out += dump_history(violation.ops,
                        "failing sub-history (" + std::to_string(violation.ops.size()) + " ops)");
    return out;
  }
};

namespace detail {

// The product of the per-key specifications over all keys: the specification of the whole
// multiset or map, with size() exact. Used when partition_by_key is false.
template <KeySpec Spec>
class WholeHistorySpec {
 public:
  using KeyState = typename Spec::State;
  // Keys whose state differs from the initial one, sorted by key: a canonical form, so
  // equal multisets/maps have equal states.
  using State = std::vector<std::pair<std::uint64_t, KeyState>>;

  explicit WholeHistorySpec(const Spec& spec) : spec_(&spec) {}

  State initial() const { return {}; }

  std::optional<State> apply(const State& state, const Operation& op, std::string* why) const {
    if (op.kind == OpKind::kSize) {
      std::uint64_t stored = 0;
      for (const auto& [key, key_state] : state) stored += spec_->size_of(key_state);
      const std::uint64_t returned = std::get<SizeResult>(op.result).count;
      if (returned == stored) return state;
      return illegal<State>(why, "size returned " + std::to_string(returned) + " but " +
                                     std::to_string(stored) + " items are stored");
    }
    auto it = std::lower_bound(state.begin(), state.end(), op.key,
                               [](const auto& entry, std::uint64_t k) { return entry.first < k; });
    const bool tracked = it != state.end() && it->first == op.key;
    const KeyState current = tracked ? it->second : spec_->initial();
    std::string key_why;
    std::optional<KeyState> next = spec_->apply(current, op, why != nullptr ? &key_why : nullptr);
    if (!next) return illegal<State>(why, "key " + std::to_string(op.key) + ": " + key_why);
    State result = state;
    auto pos = result.begin() + (it - state.begin());
    if (*next == spec_->initial()) {
      if (tracked) result.erase(pos);
    } else if (tracked) {
      pos->second = std::move(*next);
    } else {
      result.insert(pos, {op.key, std::move(*next)});
    }
    return result;
  }

  std::string describe(const State& state) const {
    if (state.empty()) return "every key in its initial state";
    std::string out;
    for (const auto& [key, key_state] : state) {
      if (!out.empty()) out += ", ";
      out += "key " + std::to_string(key) + ": " + spec_->describe(key_state);
    }
    return out;
  }

  std::size_t hash(const State& state) const {
    std::size_t h = static_cast<std::size_t>(0x9e3779b97f4a7c15ULL);
    for (const auto& [key, key_state] : state) {
      h = (h ^ mix_hash(key)) * 31 + spec_->hash(key_state);
    }
    return h;
  }

 private:
  const Spec* spec_;
};

enum class SearchStatus : std::uint8_t { kLinearizable, kNotLinearizable, kBudgetExceeded };

struct SearchReport {
  SearchStatus status = SearchStatus::kLinearizable;
  std::uint64_t steps = 0;
  std::uint64_t cache_hits = 0;
  std::uint64_t max_open = 0;  // most operations open at one instant
  std::string explanation;     // kNotLinearizable only
};

// Pieces of the search below, at namespace scope (GCC 12 crashes on some local classes of
// function templates).
inline constexpr std::size_t kNoNode = std::numeric_limits<std::size_t>::max();

// A node of the event list: an operation's call or return. A node's index is its position
// in stamp order, so comparing indices compares times.
struct SearchNode {
  std::size_t op = 0;
  bool is_call = false;
  std::size_t match = kNoNode;  // call node: its return node
  std::size_t prev = kNoNode;
  std::size_t next = kNoNode;
};

struct SearchEvent {
  std::uint64_t stamp = 0;
  bool is_return = false;
  std::size_t op = 0;
};

// A memo table entry: a set L of linearized operations and the state it leads to, in a
// compact canonical form. Let `frontier` be the first return node (in stamp order) of an
// operation not in L. Every operation returning before the frontier is in L (else its
// return would come first), and every operation in L was called before the frontier (it
// was a candidate when lifted, ahead of every remaining return). So L is exactly
//   {operations returning before the frontier} + {operations in L returning after it},
// and the second part, `window`, holds only operations that are open at the frontier: at
// most one per thread in a recorded history. The key therefore costs O(threads) words
// rather than a bitset of the whole partition, however long the history.
template <class State>
struct MemoKey {
  std::size_t frontier = kNoNode;
  std::vector<std::size_t> window;  // return nodes of L's operations after the frontier, ascending
  State state;
  bool operator==(const MemoKey&) const = default;
};

template <class Spec>
struct MemoKeyHash {
  const Spec* spec = nullptr;
  std::size_t operator()(const MemoKey<typename Spec::State>& key) const {
    std::size_t h = spec->hash(key.state) ^ mix_hash(key.frontier);
    for (std::size_t node : key.window) h = h * 0x100000001b3ULL + mix_hash(node);
    return h;
  }
};

template <class State>
struct SearchFrame {
  std::size_t call = kNoNode;  // the call node of the operation linearized
  State before;                // the state before it
};

// Wing & Gong / Lowe search of `ops` (one partition) against `spec`; at most `max_steps`
// steps. `Spec` provides State, initial(), apply(state, op, why), describe(state) and
// hash(state), as a KeySpec does.
template <class Spec>
SearchReport search_linearization(const History& ops, const Spec& spec, std::uint64_t max_steps) {
  using State = typename Spec::State;
  using Node = SearchNode;
  using Frame = SearchFrame<State>;
  const std::size_t n = ops.size();
  SearchReport report;

  // Node 0 is the head sentinel; then one call node and one return node per operation,
  // in stamp order with calls before returns on equal stamps (equal stamps overlap).
  std::vector<SearchEvent> events;
  events.reserve(2 * n);
  for (std::size_t i = 0; i < n; ++i) {
    events.push_back(SearchEvent{ops[i].invoke_stamp, false, i});
    events.push_back(SearchEvent{ops[i].response_stamp, true, i});
  }
  std::sort(events.begin(), events.end(), [](const SearchEvent& a, const SearchEvent& b) {
    if (a.stamp != b.stamp) return a.stamp < b.stamp;
    if (a.is_return != b.is_return) return !a.is_return;
    return a.op < b.op;
  });
  std::vector<Node> nodes(2 * n + 1);
  std::vector<std::size_t> call_node(n), return_node(n);
  std::uint64_t open = 0;
  for (std::size_t i = 0; i < events.size(); ++i) {
    open = events[i].is_return ? open - 1 : open + 1;
    report.max_open = std::max(report.max_open, open);
    Node& node = nodes[i + 1];
    node.op = events[i].op;
    node.is_call = !events[i].is_return;
    node.prev = i;
    node.next = i + 2 <= events.size() ? i + 2 : kNoNode;
    (node.is_call ? call_node : return_node)[node.op] = i + 1;
  }
  nodes[0].next = n > 0 ? 1 : kNoNode;
  for (std::size_t i = 0; i < n; ++i) nodes[call_node[i]].match = return_node[i];

  // Dancing links: lift() unlinks an operation's call and return; unlift() relinks them,
  // in reverse order, from the pointers the unlinked nodes kept.
  auto lift = [&nodes](std::size_t call) {
    Node& c = nodes[call];
    nodes[c.prev].next = c.next;
    nodes[c.next].prev = c.prev;  // a call is always followed by its own return
    Node& r = nodes[c.match];
    nodes[r.prev].next = r.next;
    if (r.next != kNoNode) nodes[r.next].prev = r.prev;
  };
  auto unlift = [&nodes](std::size_t call) {
    Node& c = nodes[call];
    const std::size_t ret = c.match;
    Node& r = nodes[ret];
    nodes[r.prev].next = ret;
    if (r.next != kNoNode) nodes[r.next].prev = ret;
    nodes[c.prev].next = call;
    nodes[c.next].prev = call;
  };

  // Return nodes of the lifted operations, for the memo keys' windows.
  std::set<std::size_t> lifted_returns;
  // The memo key of "the lifted operations plus the one at `call`, in state `state`";
  // frontier kNoNode means that operation is the last one.
  auto key_after = [&nodes, &lifted_returns](std::size_t call, State state) {
    MemoKey<State> key;
    const std::size_t own_return = nodes[call].match;
    // Bounded by the candidates: only calls precede the first return in the list.
    for (std::size_t x = nodes[0].next; x != kNoNode; x = nodes[x].next) {
      if (!nodes[x].is_call && x != own_return) {
        key.frontier = x;
        break;
      }
    }
    if (key.frontier == kNoNode) return key;
    for (auto it = lifted_returns.upper_bound(key.frontier); it != lifted_returns.end(); ++it) {
      key.window.push_back(*it);
    }
    if (own_return > key.frontier) {
      key.window.insert(std::lower_bound(key.window.begin(), key.window.end(), own_return),
                        own_return);
    }
    key.state = std::move(state);
    return key;
  };
  std::unordered_set<MemoKey<State>, MemoKeyHash<Spec>> memo(64, MemoKeyHash<Spec>{&spec});

  std::vector<Frame> stack;
  stack.reserve(n);

  // The deepest configuration reached, for the explanation of a violation. best_prefix
  // agrees with the stack on its first `best_shared` entries, so a new maximum copies only
  // what was pushed since the stack last dropped below them (amortized O(1) per push).
  std::vector<std::size_t> best_prefix;
  std::size_t best_shared = 0;
  State best_state = spec.initial();

  State state = spec.initial();
  std::size_t entry = nodes[0].next;
  while (nodes[0].next != kNoNode) {
    if (report.steps >= max_steps) {
      report.status = SearchStatus::kBudgetExceeded;
      return report;
    }
    ++report.steps;
    const Node& node = nodes[entry];
    if (node.is_call) {
      std::optional<State> next = spec.apply(state, ops[node.op], nullptr);
      if (next) {
        MemoKey<State> key = key_after(entry, *next);
        if (key.frontier == kNoNode || memo.insert(std::move(key)).second) {
          stack.push_back(Frame{entry, std::move(state)});
          state = std::move(*next);
          lift(entry);
          lifted_returns.insert(nodes[entry].match);
          if (stack.size() > best_prefix.size()) {
            best_prefix.resize(best_shared);
            for (std::size_t i = best_shared; i < stack.size(); ++i) {
              best_prefix.push_back(nodes[stack[i].call].op);
            }
            best_shared = stack.size();
            best_state = state;
          }
          entry = nodes[0].next;
          continue;
        }
        ++report.cache_hits;
      }
      entry = node.next;
    } else {
      if (stack.empty()) {
        report.status = SearchStatus::kNotLinearizable;
        break;
      }
      Frame frame = std::move(stack.back());
      stack.pop_back();
      best_shared = std::min(best_shared, stack.size());
      state = std::move(frame.before);
      lifted_returns.erase(nodes[frame.call].match);
      unlift(frame.call);
      entry = nodes[frame.call].next;
    }
  }
  if (report.status == SearchStatus::kLinearizable) return report;

  // Explain from the deepest configuration: which prefix was linearizable, and why none
  // of the operations that could come next is legal there.
  std::vector<bool> in_prefix(n, false);
  for (std::size_t i : best_prefix) in_prefix[i] = true;
  std::size_t first_return = kNoNode;
  for (std::size_t i = 0; i < n; ++i) {
    if (!in_prefix[i] &&
        (first_return == kNoNode || ops[i].response_stamp < ops[first_return].response_stamp)) {
      first_return = i;
    }
  }
  std::string& text = report.explanation;
  text = "the longest linearizable prefix has " + std::to_string(best_prefix.size()) + " of " +
         std::to_string(n) + " ops and leaves the state: " + spec.describe(best_state) + "\n";
  if (!best_prefix.empty()) {
    text += "  prefix in linearization order";
    const std::size_t skipped =
        best_prefix.size() > kMaxPrefixOpsShown ? best_prefix.size() - kMaxPrefixOpsShown : 0;
    if (skipped > 0) text += " (last " + std::to_string(kMaxPrefixOpsShown) + ")";
    text += ":\n";
    for (std::size_t i = skipped; i < best_prefix.size(); ++i) {
      text += "    " + format_operation(ops[best_prefix[i]]) + "\n";
    }
  }
  text += "  the first remaining op to return is " + format_operation(ops[first_return]) +
          ", so the next op is one invoked before that return; none of them is legal there:\n";
  for (std::size_t i = 0; i < n; ++i) {
    if (in_prefix[i] || ops[i].invoke_stamp > ops[first_return].response_stamp) continue;
    std::string why;
    if (spec.apply(best_state, ops[i], &why)) {
      why = "legal, but every continuation after it was already explored and fails";
    }
    text += "    " + format_operation(ops[i]) + ": " + why + "\n";
  }
  return report;
}

template <KeySpec Spec>
void validate_history(const History& history, const Spec& spec, const CheckOptions& options) {
  for (std::size_t i = 0; i < history.size(); ++i) {
    const Operation& op = history[i];
    auto where = [&] {
      return "operation " + std::to_string(i) + " (" + format_operation(op) + ")";
    };
    if (op.invoke_stamp > op.response_stamp) {
      throw std::invalid_argument(where() + ": invoke_stamp is after response_stamp");
    }
    if (!result_matches_kind(op.kind, op.result)) {
      throw std::invalid_argument(where() + ": result has the wrong type for " +
                                  std::string(to_string(op.kind)));
    }
    if (!spec.supports(op.kind)) {
      throw std::invalid_argument(where() + ": " + std::string(to_string(op.kind)) +
                                  " is not defined by the " + std::string(spec.name()) +
                                  " specification");
    }
    if (op.kind == OpKind::kSize && options.partition_by_key &&
        options.size_check == SizeCheck::kReject) {
      throw std::invalid_argument(where() +
                                  ": size() in a partitioned check with "
                                  "CheckOptions::size_check == SizeCheck::kReject");
    }
  }
}

// The size() bound check (see the top of this file). Returns the first violation.
// O((ops + size ops) log ops): the four counts of each bound come from sorted stamps.
template <KeySpec Spec>
std::optional<NotLinearizable> check_size_bounds(const History& history, const Spec& spec,
                                                 CheckStats& stats) {
  std::vector<std::uint64_t> add_responses, add_invokes, remove_invokes, exact_remove_responses;
  for (const Operation& op : history) {
    if (op.kind == OpKind::kSize) continue;
    switch (spec.size_effect(op)) {
      case SizeEffect::kNone: break;
      case SizeEffect::kAdds:
        add_responses.push_back(op.response_stamp);
        add_invokes.push_back(op.invoke_stamp);
        break;
      case SizeEffect::kRemoves:
        exact_remove_responses.push_back(op.response_stamp);
        remove_invokes.push_back(op.invoke_stamp);
        break;
      case SizeEffect::kMayRemove: remove_invokes.push_back(op.invoke_stamp); break;
    }
  }
  for (auto* stamps : {&add_responses, &add_invokes, &remove_invokes, &exact_remove_responses}) {
    std::sort(stamps->begin(), stamps->end());
  }
  // Stamps strictly below `bound`, or at most `bound`.
  auto below = [](const std::vector<std::uint64_t>& stamps, std::uint64_t bound) {
    return static_cast<std::int64_t>(std::lower_bound(stamps.begin(), stamps.end(), bound) -
                                     stamps.begin());
  };
  auto at_most = [](const std::vector<std::uint64_t>& stamps, std::uint64_t bound) {
    return static_cast<std::int64_t>(std::upper_bound(stamps.begin(), stamps.end(), bound) -
                                     stamps.begin());
  };
  for (const Operation& size_op : history) {
    if (size_op.kind != OpKind::kSize) continue;
    ++stats.size_ops_bound_checked;
    // "Before": returned before size() was invoked (precedes). "May be before": invoked no
    // later than size() returned (size() does not precede it).
    const std::int64_t lower =
        std::max<std::int64_t>(0, below(add_responses, size_op.invoke_stamp) -
                                      at_most(remove_invokes, size_op.response_stamp));
    const std::int64_t upper = at_most(add_invokes, size_op.response_stamp) -
                               below(exact_remove_responses, size_op.invoke_stamp);
    const std::uint64_t returned = std::get<SizeResult>(size_op.result).count;
    if (upper >= 0 && returned >= static_cast<std::uint64_t>(lower) &&
        returned <= static_cast<std::uint64_t>(upper)) {
      continue;
    }
    NotLinearizable violation;
    for (const Operation& op : history) {
      if (op.kind != OpKind::kSize && spec.size_effect(op) != SizeEffect::kNone &&
          !precedes(size_op, op)) {
        violation.ops.push_back(op);
      }
    }
    violation.ops.push_back(size_op);
    std::stable_sort(
        violation.ops.begin(), violation.ops.end(),
        [](const Operation& a, const Operation& b) { return a.invoke_stamp < b.invoke_stamp; });
    violation.explanation =
        format_operation(size_op) + ": wherever size() takes effect, between " +
        std::to_string(lower) + " and " + std::to_string(upper) +
        " items are stored (lower: adds completed before it minus removes invoked before it "
        "returned; upper: adds invoked before it returned minus removes completed before it)";
    return violation;
  }
  return std::nullopt;
}

}  // namespace detail

// Checks `history` against the per-key specification `spec` (MultisetSpec, MapSpec, or
// any KeySpec). Returns Linearizable, NotLinearizable (the first failing key in key order,
// else a failing size()), or TooLargeToDecide (some partition exceeded the step bound and
// no violation was found elsewhere), with statistics.
// Throws std::invalid_argument if an operation has invoke_stamp > response_stamp, a
// result of the wrong type, a kind the specification does not define, or is size() under
// SizeCheck::kReject.
template <KeySpec Spec>
CheckResult check_linearizability(const History& history, const Spec& spec,
                                  const CheckOptions& options = {}) {
  detail::validate_history(history, spec, options);
  CheckResult result{Linearizable{}, CheckStats{}};
  CheckStats& stats = result.stats;
  stats.ops_checked = history.size();

  auto account = [&stats](const detail::SearchReport& report, std::size_t ops) {
    ++stats.partitions;
    stats.steps += report.steps;
    stats.cache_hits += report.cache_hits;
    stats.max_partition_steps = std::max(stats.max_partition_steps, report.steps);
    stats.largest_partition = std::max<std::uint64_t>(stats.largest_partition, ops);
    stats.max_concurrency = std::max(stats.max_concurrency, report.max_open);
  };

  if (!options.partition_by_key) {
    const detail::WholeHistorySpec<Spec> whole(spec);
    detail::SearchReport report =
        detail::search_linearization(history, whole, options.max_steps_per_partition);
    account(report, history.size());
    if (report.status == detail::SearchStatus::kNotLinearizable) {
      result.verdict = NotLinearizable{std::nullopt, true, history, std::move(report.explanation)};
    } else if (report.status == detail::SearchStatus::kBudgetExceeded) {
      result.verdict = TooLargeToDecide{std::nullopt, report.steps, history.size()};
    }
    return result;
  }

  std::map<std::uint64_t, History> partitions;
  for (const Operation& op : history) {
    if (op.kind != OpKind::kSize) partitions[op.key].push_back(op);
  }
  std::optional<TooLargeToDecide> undecided;
  for (auto& [key, ops] : partitions) {
    std::stable_sort(ops.begin(), ops.end(), [](const Operation& a, const Operation& b) {
      return a.invoke_stamp < b.invoke_stamp;
    });
    detail::SearchReport report =
        detail::search_linearization(ops, spec, options.max_steps_per_partition);
    account(report, ops.size());
    if (report.status == detail::SearchStatus::kNotLinearizable) {
      result.verdict = NotLinearizable{key, false, std::move(ops), std::move(report.explanation)};
      return result;
    }
    if (report.status == detail::SearchStatus::kBudgetExceeded && !undecided) {
      undecided = TooLargeToDecide{key, report.steps, ops.size()};
    }
  }
  if (std::optional<NotLinearizable> violation = detail::check_size_bounds(history, spec, stats)) {
    result.verdict = std::move(*violation);
  } else if (undecided) {
    result.verdict = *undecided;
  }
  return result;
}

// Shorthands for the two specifications.
inline CheckResult check_multiset(const History& history, const MultisetSpec& spec = MultisetSpec{},
                                  const CheckOptions& options = {}) {
  return check_linearizability(history, spec, options);
}

inline CheckResult check_map(const History& history, const CheckOptions& options = {}) {
  return check_linearizability(history, MapSpec{}, options);
}

}  // namespace cuckoo::subjects
