// Replay of traces against the engines their headers name, through the adapters.
#include <gtest/gtest.h>

#include <string>

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
  // hashes is required: the engine names the field.
  EXPECT_THROW(replay_text("engine bloom bits=256 seed=6\ninsert 1\n"), cuckoo::ConfigError);
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
  try {
    replay_text("engine filter capacity=8 seed=1 fingerprint_bits=33\n");
    FAIL() << "fingerprint_bits=33 accepted";
  } catch (const cuckoo::ConfigError& e) {
    EXPECT_EQ(e.field(), "fingerprint_bits");
  }
  try {
    replay_text("engine map initial_capacity=8 seed=1 slots_per_bucket=3\n");
    FAIL() << "slots_per_bucket=3 accepted";
  } catch (const cuckoo::ConfigError& e) {
    EXPECT_EQ(e.field(), "slots_per_bucket");
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
