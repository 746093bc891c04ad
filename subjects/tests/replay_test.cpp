// Replay of traces against the engines their headers name, through the adapters.
#include <gtest/gtest.h>

#include <algorithm>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include "cuckoo/subjects/replay.hpp"
#include "cuckoo/model/trace.hpp"

namespace {

using cuckoo::subjects::replay;
using cuckoo::model::parse_trace;

std::optional<cuckoo::model::Violation> replay_text(const std::string& text) {
  return replay(parse_trace(text));
}

const char* const kOps = R"(
insert 1 10
insert 2 20
insert_or_assign 1 11
find 1
contains 2
erase 2
erase 2
contains 2
insert 3 30
size
clear
size
)";

TEST(Replay, EveryTableEngineAgreesWithTheMapModel) {
  for (const std::string header :
       {"engine map initial_capacity=8 seed=1 slots_per_bucket=2",
        "engine map initial_capacity=8 seed=1 slots_per_bucket=8 max_capacity=64",
        "engine classic capacity=8 seed=2 on_failure=report",
        "engine classic capacity=8 seed=2 on_failure=grow max_kicks=3",
        "engine smart capacity=8 seed=3 stash_capacity=2"}) {
    const auto violation = replay_text(header + std::string(kOps));
    EXPECT_FALSE(violation.has_value()) << header << ": " << to_string(*violation);
  }
}

TEST(Replay, FilterTraceWithDuplicatesAndRoundTrip) {
  std::string text = "engine filter capacity=16 seed=4 fingerprint_bits=8 slots_per_bucket=2\n";
  for (int i = 0; i < 5; ++i) text += "insert 7\n";  // 2b = 4 copies, then the limit
  text += "serialize_roundtrip\ncontains 7\nerase 7\nsize\n";
  for (int k = 100; k < 140; ++k) text += "insert " + std::to_string(k) + "\n";
  text += "serialize_roundtrip\nsize\n";
  const auto violation = replay_text(text);
  EXPECT_FALSE(violation.has_value()) << to_string(*violation);
}

TEST(Replay, BloomTracesReplayAndRefuseErase) {
  std::string text = "engine bloom bits=256 hashes=3 seed=6\n";
  for (int k = 0; k < 60; ++k) text += "insert " + std::to_string(k) + "\n";
  text += "serialize_roundtrip\n";
  for (int k = 0; k < 60; ++k) text += "contains " + std::to_string(k) + "\n";
  text += "size\n";
  const auto violation = replay_text(text);
  EXPECT_FALSE(violation.has_value()) << to_string(*violation);
  // A Bloom filter has no erase: a trace that asks for one is bad input, not a pass.
  EXPECT_THROW(replay_text("engine bloom bits=256 hashes=3 seed=6\ninsert 1\nerase 1\n"),
               cuckoo::model::TraceError);
  // hashes is required: the error names the parameter and the header's line.
  try {
    replay_text("engine bloom bits=256 seed=6\ninsert 1\n");
    FAIL() << "a bloom header without hashes accepted";
  } catch (const cuckoo::model::TraceError& e) {
    EXPECT_EQ(e.line(), 1U);
    EXPECT_NE(e.message().find("parameter 'hashes' of engine bloom is missing"), std::string::npos)
        << e.what();
  }
}

TEST(Replay, FullTablesAreCheckedForLosses) {
  // A classic table of 4 slots with the report policy must fill and refuse, losing nothing.
  std::string text = "engine classic capacity=4 seed=5 on_failure=report max_kicks=2\n";
  for (int k = 0; k < 40; ++k) text += "insert " + std::to_string(k) + " " + std::to_string(k) + "\n";
  const auto violation = replay_text(text);
  EXPECT_FALSE(violation.has_value()) << to_string(*violation);
}

TEST(Replay, BadHeadersAreRejectedNamingTheProblem) {
  EXPECT_THROW(replay_text("engine filter seed=1\ninsert 1\n"), cuckoo::model::TraceError);
  EXPECT_THROW(replay_text("engine filter capacity=8\ninsert 1\n"), cuckoo::model::TraceError);
  EXPECT_THROW(replay_text("engine quantum capacity=8 seed=1\n"), std::invalid_argument);
  EXPECT_THROW(replay_text("engine classic capacity=8 seed=1 on_failure=panic\n"),
               cuckoo::model::TraceError);
  EXPECT_THROW(replay_text("engine filter capacity=8 seed=1 fingerprint_bits=99999999999\n"),
               cuckoo::model::TraceError);
}

// A value the engine refuses is an error naming the parameter, its engine, the header's
// line and the allowed range, as the parser's errors do (not the engine's bare
// ConfigError, which knows no line).
TEST(Replay, AnOutOfRangeValueNamesTheParameterAndTheHeaderLine) {
  const std::pair<std::string, std::string> cases[] = {
      {"engine filter capacity=8 seed=1 fingerprint_bits=33",
       "parameter 'fingerprint_bits' of engine filter is out of range: is 33; allowed range 4..32"},
      {"engine map initial_capacity=8 seed=1 slots_per_bucket=3",
       "parameter 'slots_per_bucket' of engine map is out of range: 3 is not one of 1, 2, 4, 8"},
      {"engine map initial_capacity=8 seed=1 max_capacity=1",
       "parameter 'max_capacity' of engine map is out of range"},
      {"engine classic capacity=1 seed=1", "parameter 'capacity' of engine classic is out of range"},
      {"engine smart capacity=8 seed=1 stash_capacity=100000",
       "parameter 'stash_capacity' of engine smart is out of range"},
      {"engine bloom bits=0 hashes=3 seed=1", "parameter 'bits' of engine bloom is out of range"},
  };
  for (const auto& [header, message] : cases) {
    try {
      replay_text("# cuckoo trace v1\n" + header + "\ninsert 1\n");
      ADD_FAILURE() << header << ": accepted";
    } catch (const cuckoo::model::TraceError& e) {
      EXPECT_EQ(e.line(), 2U) << header << ": " << e.what();
      EXPECT_NE(e.message().find(message), std::string::npos) << header << ": " << e.what();
    }
  }
}

// A parameter the engine's mapping does not read would be ignored, and the trace replayed
// with the default instead (a misspelt fingerprint_bit: the filter built with 12-bit
// fingerprints, the replay OK). Every engine's header rejects it, naming the parameter,
// the line, the accepted names and the closest one.
TEST(Replay, AnUnknownParameterIsAnErrorForEveryEngine) {
  const std::pair<std::string, std::string> cases[] = {
      {"engine filter capacity=8 seed=1 fingerprint_bit=4",
       "unknown parameter 'fingerprint_bit' in the header of engine filter (it accepts capacity, "
       "seed, fingerprint_bits, slots_per_bucket, max_kicks, semi_sorted); did you mean "
       "'fingerprint_bits'?"},
      {"engine map initial_capacity=8 seed=1 slot_per_bucket=2",
       "unknown parameter 'slot_per_bucket' in the header of engine map (it accepts "
       "initial_capacity, seed, slots_per_bucket, max_capacity, max_path_length); did you mean "
       "'slots_per_bucket'?"},
      {"engine classic capacity=8 seed=1 on_fail=report",
       "unknown parameter 'on_fail' in the header of engine classic (it accepts capacity, seed, "
       "max_kicks, on_failure, max_rehashes, max_capacity); did you mean 'on_failure'?"},
      {"engine smart capacity=8 seed=1 stash=2",
       "unknown parameter 'stash' in the header of engine smart (it accepts capacity, seed, "
       "max_kicks, stash_capacity); did you mean 'stash_capacity'?"},
      {"engine bloom bits=256 hashes=3 seed=1 hash=4",
       "unknown parameter 'hash' in the header of engine bloom (it accepts bits, hashes, seed); "
       "did you mean 'hashes'?"},
  };
  for (const auto& [header, message] : cases) {
    try {
      replay_text("# cuckoo trace v1\n\n" + header + "\ninsert 1\ncontains 1\n");
      ADD_FAILURE() << header << ": accepted";
    } catch (const cuckoo::model::TraceError& e) {
      EXPECT_EQ(e.line(), 3U) << header << ": " << e.what();
      EXPECT_EQ(e.message(), message) << header;
    }
  }
  // Parameters a harness writes for its own replay (the exhaustive checker's injected
  // hashes) are no configuration of the engine: replay refuses them too.
  EXPECT_THROW(replay_text("engine filter capacity=8 seed=1 hasher=placed\ninsert 1\n"),
               cuckoo::model::TraceError);
}

// What parameters_of writes, replay accepts: the accepted names cover every mapping.
TEST(Replay, EveryParameterAMappingWritesIsAccepted) {
  using namespace cuckoo::subjects;
  const auto accepts = [](const cuckoo::model::TraceParameters& p,
                          std::span<const std::string_view> names) {
    for (const auto& [name, value] : p.entries()) {
      EXPECT_NE(std::find(names.begin(), names.end(), name), names.end()) << name;
    }
  };
  cuckoo::CuckooFilterConfig filter;
  filter.semi_sorted = true;
  accepts(parameters_of(filter), kFilterParameters);
  accepts(parameters_of(cuckoo::CuckooMapConfig{}, 4), kMapParameters);
  accepts(parameters_of(cuckoo::ClassicCuckooConfig{}), kClassicParameters);
  accepts(parameters_of(cuckoo::SmartCuckooConfig{}), kSmartParameters);
  accepts(parameters_of(cuckoo::BloomFilterConfig{}), kBloomParameters);
  // And every accepted name is read: setting it to junk is an error.
  const std::pair<std::string, std::span<const std::string_view>> engines[] = {
      {"engine filter capacity=8 seed=1", kFilterParameters},
      {"engine map initial_capacity=8 seed=1", kMapParameters},
      {"engine classic capacity=8 seed=1", kClassicParameters},
      {"engine smart capacity=8 seed=1", kSmartParameters},
      {"engine bloom bits=256 hashes=3 seed=1", kBloomParameters},
  };
  for (const auto& [header, names] : engines) {
    for (const std::string_view name : names) {
      cuckoo::model::Trace t = cuckoo::model::parse_trace(header + "\ninsert 1\n");
      t.parameters.set(std::string(name), "junk");
      EXPECT_THROW(replay(t), cuckoo::model::TraceError) << header << " " << name << "=junk";
    }
  }
}

TEST(Replay, ParametersRoundTripThroughTheHeader) {
  cuckoo::ClassicCuckooConfig classic;
  classic.capacity = 12;
  classic.seed = 9;
  classic.on_failure = cuckoo::OnInsertFailure::kGrow;
  const auto back = cuckoo::subjects::classic_config_from(cuckoo::subjects::parameters_of(classic));
  EXPECT_EQ(back.capacity, 12U);
  EXPECT_EQ(back.seed, 9U);
  EXPECT_EQ(back.on_failure, cuckoo::OnInsertFailure::kGrow);

  cuckoo::CuckooFilterConfig filter;
  filter.capacity = 100;
  filter.fingerprint_bits = 5;
  filter.slots_per_bucket = 8;
  filter.seed = 3;
  const auto f = cuckoo::subjects::filter_config_from(cuckoo::subjects::parameters_of(filter));
  EXPECT_EQ(f.fingerprint_bits, 5U);
  EXPECT_EQ(f.slots_per_bucket, 8U);
  EXPECT_EQ(f.capacity, 100U);
}

}  // namespace
