// The exact maps' configuration rule (internal): what makes a CuckooMapConfig valid for a
// map of b slots per bucket, and how it is rounded to buckets. CuckooMap (its
// constructors and deserialize()) and the striped concurrent map check a configuration
// with this one function and nothing else, so both designs accept and refuse the same
// configurations with the same messages; the design supplies only its own limits.
//
// Templates over the configuration type so that this file can come before
// CuckooMapConfig's definition in cuckoo_map.hpp (the public header keeps the struct
// where a reader looks for it).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "cuckoo/error.hpp"
#include "cuckoo/hash.hpp"

namespace cuckoo::detail {

// A configuration refused: the field named in ConfigError and why.
struct MapConfigProblem {
  const char* field;
  std::string message;
};

// What one map design allows.
struct MapConfigLimits {
  unsigned slots_per_bucket;      // b
  std::uint64_t max_capacity;     // the design's kMaxCapacity, in slots
  std::uint64_t max_allocatable;  // the most table slots its storage can allocate
  unsigned max_path_length;       // the longest cuckoo path its search accepts
  unsigned default_load_percent;  // the load it plans for when max_load_percent is 0
  bool load_configurable;         // whether it plans another load (max_load_percent)
};

// The buckets initial_capacity rounds up to (ceil(initial_capacity / b)).
template <class Config>
std::uint64_t map_initial_buckets(const Config& config, unsigned slots_per_bucket) noexcept {
  return config.initial_capacity / slots_per_bucket +
         (config.initial_capacity % slots_per_bucket != 0 ? 1 : 0);
}

// The first rule config breaks, or nullopt if it is valid for these limits.
template <class Config>
std::optional<MapConfigProblem> check_map_config(const Config& config,
                                                 const MapConfigLimits& limits) {
  const auto problem = [](const char* field, const std::string& message) {
    return std::optional<MapConfigProblem>(MapConfigProblem{field, message});
  };
  const std::string b = std::to_string(limits.slots_per_bucket);
  if (config.initial_capacity == 0) return problem("initial_capacity", "is 0, must be >= 1");
  if (config.max_capacity < limits.slots_per_bucket) {
    return problem("max_capacity", "is " + std::to_string(config.max_capacity) +
                                       ", must hold at least one bucket of " + b + " slots");
  }
  if (config.max_capacity > limits.max_capacity) {
    return problem("max_capacity", "is " + std::to_string(config.max_capacity) +
                                       ", must be at most kMaxCapacity = " +
                                       std::to_string(limits.max_capacity) + " slots");
  }
  if (config.max_capacity > limits.max_allocatable) {
    return problem("max_capacity", "is " + std::to_string(config.max_capacity) +
                                       " slots, more bytes than can be allocated");
  }
  if (config.initial_capacity > config.max_capacity) {
    return problem("initial_capacity", "is " + std::to_string(config.initial_capacity) +
                                           ", exceeds max_capacity " +
                                           std::to_string(config.max_capacity));
  }
  if (map_initial_buckets(config, limits.slots_per_bucket) >
      config.max_capacity / limits.slots_per_bucket) {
    return problem("initial_capacity",
                   "is " + std::to_string(config.initial_capacity) + ", rounded up to whole " +
                       b + "-slot buckets it exceeds max_capacity " +
                       std::to_string(config.max_capacity));
  }
  if (config.max_path_length == 0 || config.max_path_length > limits.max_path_length) {
    return problem("max_path_length", "is " + std::to_string(config.max_path_length) +
                                          ", must be in 1.." +
                                          std::to_string(limits.max_path_length));
  }
  if (config.max_load_percent != 0) {
    const std::string most = std::to_string(limits.default_load_percent);
    if (!limits.load_configurable) {
      return problem("max_load_percent",
                     "is " + std::to_string(config.max_load_percent) +
                         ", but this map plans its own load (" + most + " %): leave it 0");
    }
    if (config.max_load_percent < Config::kMinMaxLoadPercent ||
        config.max_load_percent > limits.default_load_percent) {
      return problem("max_load_percent",
                     "is " + std::to_string(config.max_load_percent) + ", must be 0 (the default, " +
                         most + ") or in " + std::to_string(Config::kMinMaxLoadPercent) + ".." +
                         most + " (a cuckoo table of " + b +
                         "-slot buckets cannot plan a higher load)");
    }
  }
  return std::nullopt;
}

// config if it is valid, with a random seed drawn when it has none; otherwise throws
// ConfigError naming the first field at fault. What every map constructor runs before it
// allocates anything.
template <class Config>
Config validated_map_config(Config config, const MapConfigLimits& limits) {
  if (std::optional<MapConfigProblem> problem = check_map_config(config, limits)) {
    throw ConfigError(problem->field, problem->message);
  }
  if (!config.seed.has_value()) config.seed = random_seed();
  return config;
}

}  // namespace cuckoo::detail
