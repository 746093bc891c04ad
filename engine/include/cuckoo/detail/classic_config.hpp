// ClassicCuckoo's configuration rule (an out-of-line member of ClassicCuckoo,
// cuckoo/classic_cuckoo.hpp, included at its end): validated(), which the constructor runs
// before it allocates.
#pragma once

#ifndef CUCKOO_CLASSIC
#error "classic_config.hpp holds out-of-line members of ClassicCuckoo: include cuckoo/classic_cuckoo.hpp"
#endif

namespace cuckoo {

CUCKOO_CLASSIC_TEMPLATE
inline auto CUCKOO_CLASSIC::validated(const ClassicCuckooConfig& c) -> ClassicCuckooConfig {
  using Cfg = ClassicCuckooConfig;
  if (c.capacity < 2 || c.capacity > Cfg::kMaxCapacity) {
    throw ConfigError("capacity", std::to_string(c.capacity) + " is outside [2, " +
                                      std::to_string(Cfg::kMaxCapacity) + "] (kMaxCapacity)");
  }
  if (c.max_kicks == 0 || c.max_kicks > Cfg::kMaxKicksLimit) {
    throw ConfigError("max_kicks", std::to_string(c.max_kicks) + " is outside [1, " +
                                       std::to_string(Cfg::kMaxKicksLimit) +
                                       "] (kMaxKicksLimit)");
  }
  if (c.on_failure != OnInsertFailure::kRehash && c.on_failure != OnInsertFailure::kGrow &&
      c.on_failure != OnInsertFailure::kReport) {
    throw ConfigError("on_failure", std::to_string(static_cast<unsigned>(c.on_failure)) +
                                        " is not kRehash, kGrow or kReport");
  }
  if (c.max_rehashes > Cfg::kMaxRehashesLimit) {
    throw ConfigError("max_rehashes", std::to_string(c.max_rehashes) + " is outside [0, " +
                                          std::to_string(Cfg::kMaxRehashesLimit) +
                                          "] (kMaxRehashesLimit)");
  }
  if (c.max_capacity < c.capacity || c.max_capacity > Cfg::kMaxCapacity) {
    throw ConfigError("max_capacity", std::to_string(c.max_capacity) + " is outside [capacity = " +
                                          std::to_string(c.capacity) + ", " +
                                          std::to_string(Cfg::kMaxCapacity) +
                                          "] (kMaxCapacity)");
  }
  return c;
}
}  // namespace cuckoo
