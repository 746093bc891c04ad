// Violation: the first broken claim a checker found, and how to report it so that the
// report is itself a replayable trace.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "cuckoo/model/op.hpp"
#include "cuckoo/model/trace.hpp"

namespace cuckoo::model {

struct Violation {
  // A claim id from DESIGN.md section 4 ("C1", "C5", "C6", "C7", "C11"; "C2" for a
  // false positive from a subject whose traits say it is exact), or one of the checker's
  // own: "size" (a filter's size() disagrees with the model), "invariant" (a filter's
  // check_invariants() failed), "exception" (an op threw).
  std::string claim;
  std::size_t op_index = 0;  // index into Trace::entries of the op after which it failed
  Op op;
  std::string expected;  // what a correct subject does, and why
  std::string actual;    // what the subject did
  std::uint64_t seed = 0;

  friend bool operator==(const Violation&, const Violation&) = default;
};

// The op number every report prints: the 1-based position of the op among the trace's op
// lines (the first op line after the `engine` header is op 1), so op_index + 1. Reports,
// replays and trace comments all number ops this way.
inline std::size_t op_number(const Violation& violation) noexcept { return violation.op_index + 1; }

// A one-line statement of a claim ("no false negatives"), or "" for an unknown id.
std::string_view claim_summary(std::string_view claim) noexcept;

// One line: "C1 (no false negatives) at op 4 'contains 3': expected true, actual false,
// seed 12345" (op_number).
std::string to_string(const Violation& violation);

// A replayable report: the trace format, with the violation (claim, op number and line,
// expected, actual, seed) as comments at the top and the ops cut after the failing one.
// parse_trace() reads it back.
std::string format_violation(const Violation& violation, const Trace& trace);

}  // namespace cuckoo::model
