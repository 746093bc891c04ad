// Reading the small parameters of a trace header (model::TraceParameters) that every
// engine's configuration mapping shares.
#pragma once

#include <cstdint>
#include <string_view>

#include "cuckoo/model/trace.hpp"

namespace cuckoo::subjects {

// An optional small unsigned parameter (a bit width, a count of slots or kicks). Values
// past kMaxSmallParameter cannot be meant and would wrap when narrowed, so they are
// rejected here, naming the parameter; the engine checks the real range.
inline constexpr std::uint64_t kMaxSmallParameter = std::uint64_t{1} << 30;

inline unsigned small_parameter(const model::TraceParameters& p, std::string_view name,
                                unsigned fallback) {
  if (!p.has(name)) return fallback;
  return static_cast<unsigned>(p.get_u64_in(name, 0, kMaxSmallParameter));
}

}  // namespace cuckoo::subjects
