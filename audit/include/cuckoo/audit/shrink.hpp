// Shrinking a failing trace: delta debugging (Zeller's ddmin, simplified) over the ops
// of a model::Trace, so that a counterexample the auditor reports is short enough to
// read.
//
//   model::Trace small = shrink_trace(failing, [&](const model::Trace& t) {
//     const auto v = replay(t);
//     return v && v->claim == original.claim;
//   });
//
// The predicate says whether a candidate still fails (the same way: callers compare the
// violated claim, so that shrinking does not drift to a different failure). Candidates
// keep the header and drop ops only, so every candidate is a valid trace of the same
// engine; no op is ever invented. The result fails the predicate's way (it is the input
// when nothing smaller does) and has no op whose removal alone still fails, unless the
// attempt bound ran out first.
//
// Passes: chunks of half the trace, then a quarter, ... then single ops; at single ops
// the pass repeats until it removes nothing. Every predicate call counts as an attempt;
// at `max_attempts` the smallest trace found so far is returned.
#pragma once

#include <algorithm>
#include <cstddef>
#include <utility>

#include "cuckoo/model/trace.hpp"

namespace cuckoo::audit {

// Predicate calls one shrink may make. A model check of a trace of a few hundred ops
// takes microseconds to a millisecond, so the bound keeps a shrink well under a second.
inline constexpr std::size_t kDefaultShrinkAttempts = 4000;

struct ShrinkResult {
  model::Trace trace;         // the smallest failing trace found
  std::size_t attempts = 0;   // predicate calls made
  bool minimal = false;       // true when no single op can be removed (1-minimal)
};

// REQUIRES: still_fails(failing) is true (not re-checked).
template <class StillFails>
ShrinkResult shrink_trace(model::Trace failing, StillFails&& still_fails,
                          std::size_t max_attempts = kDefaultShrinkAttempts) {
  ShrinkResult result;
  result.trace = std::move(failing);
  auto& entries = result.trace.entries;
  // Chunk sizes halve each round; at chunk 1 repeat while something was removed.
  std::size_t chunk = entries.size() / 2;
  if (chunk == 0) chunk = 1;
  while (result.attempts < max_attempts && !entries.empty()) {
    bool removed_any = false;
    std::size_t start = 0;
    // bound: each iteration either removes ops or advances `start` by chunk, and each
    // makes one attempt (checked against max_attempts).
    while (start < entries.size() && result.attempts < max_attempts) {
      const std::size_t end = std::min(entries.size(), start + chunk);
      model::Trace candidate;
      candidate.engine = result.trace.engine;
      candidate.parameters = result.trace.parameters;
      candidate.entries.reserve(entries.size() - (end - start));
      candidate.entries.insert(candidate.entries.end(), entries.begin(),
                               entries.begin() + static_cast<std::ptrdiff_t>(start));
      candidate.entries.insert(candidate.entries.end(),
                               entries.begin() + static_cast<std::ptrdiff_t>(end), entries.end());
      ++result.attempts;
      if (still_fails(static_cast<const model::Trace&>(candidate))) {
        result.trace = std::move(candidate);
        removed_any = true;  // retry the same start: new ops moved into it
      } else {
        start = end;
      }
    }
    if (chunk > 1) {
      chunk /= 2;
    } else if (!removed_any) {
      result.minimal = true;  // a whole pass of single ops removed nothing
      break;
    }
  }
  // The recorded results ("=> x") of the original run no longer describe the candidate's
  // run; they are dropped so the trace does not claim outcomes it did not observe.
  for (model::TraceEntry& entry : result.trace.entries) {
    entry.expected.reset();
    entry.line = 0;
  }
  return result;
}

// The trace cut right after op `last_index` (the op at which a violation was seen): what
// follows cannot matter to it.
inline model::Trace cut_after(const model::Trace& trace, std::size_t last_index) {
  model::Trace cut;
  cut.engine = trace.engine;
  cut.parameters = trace.parameters;
  const std::size_t keep = std::min(trace.entries.size(), last_index + 1);
  cut.entries.assign(trace.entries.begin(),
                     trace.entries.begin() + static_cast<std::ptrdiff_t>(keep));
  return cut;
}

}  // namespace cuckoo::audit
