// The load a CuckooMap plans for (CuckooMapConfig::max_load_percent, max_load_factor):
// reserve(n) and rehash() size the table for it, inserts grow the table at it instead of
// searching cuckoo paths, the setter rounds and clamps, copies and swaps carry it, bad
// values are refused naming the field, and the striped concurrent map refuses any value
// it would not honour.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>

#include "cuckoo/concurrent_map.hpp"
#include "cuckoo/cuckoo_map.hpp"

namespace {

using cuckoo::ConfigError;
using cuckoo::CuckooMap;
using cuckoo::CuckooMapConfig;
using Map = CuckooMap<std::uint64_t, std::uint64_t>;

CuckooMapConfig planned(unsigned percent) {
  CuckooMapConfig c;
  c.seed = 7;
  c.max_load_percent = percent;
  return c;
}

// The field a construction with config throws ConfigError for, or "" if it does not.
template <class M>
std::string refused_field(const CuckooMapConfig& config) {
  try {
    const M m(config);
    return "";
  } catch (const ConfigError& e) {
    return e.field();
  }
}

TEST(MapPlannedLoad, DefaultIsTheReserveLoad) {
  const Map m(planned(0));
  EXPECT_EQ(m.config().max_load_percent, 0U);
  EXPECT_EQ(m.max_load_percent(), Map::kReserveLoadPercent);
  EXPECT_FLOAT_EQ(m.max_load_factor(), static_cast<float>(Map::kReserveLoadPercent) / 100.0F);
}

// reserve(n) leaves exactly the buckets that hold n items at the planned load.
TEST(MapPlannedLoad, ReserveSizesTheTableForThePlannedLoad) {
  constexpr std::size_t n = 100'000;
  for (const unsigned percent : {0U, 10U, 60U, 75U, 90U}) {
    SCOPED_TRACE("max_load_percent " + std::to_string(percent));
    Map m(planned(percent));
    ASSERT_TRUE(m.reserve(n));
    const unsigned load = percent == 0 ? Map::kReserveLoadPercent : percent;
    const std::uint64_t slots = (std::uint64_t{n} * 100 + load - 1) / load;
    EXPECT_EQ(m.bucket_count(), (slots + 3) / 4);
    const std::uint32_t buckets = m.bucket_count();
    for (std::uint64_t k = 0; k < n; ++k) ASSERT_TRUE(m.insert({k, k}).second) << k;
    EXPECT_EQ(m.bucket_count(), buckets) << "n inserts after reserve(n) grew the table";
    EXPECT_LE(m.load_factor(), load / 100.0);
    // rehash(0) keeps the table that holds size() at the planned load.
    m.rehash(0);
    EXPECT_EQ(m.bucket_count(), buckets);
  }
}

// Filling a map one insert at a time: no growth comes below the planned load, and once
// the table has a few thousand buckets every growth comes within a few points above it
// (at the first insert that finds both its buckets full), where the default plan lets
// the table reach 90 %. (A small table at a low plan can fill further before an insert
// finds both buckets full: 64 slots planned at 30 % grew at 59 %.)
TEST(MapPlannedLoad, InsertsGrowTheTableAtThePlannedLoad) {
  for (const unsigned percent : {30U, 60U, 90U}) {
    SCOPED_TRACE("max_load_percent " + std::to_string(percent));
    Map m(planned(percent));
    int large_growths = 0;
    for (std::uint64_t k = 0; k < 200'000; ++k) {
      const double before = m.load_factor();
      const std::uint32_t buckets = m.bucket_count();
      ASSERT_TRUE(m.insert({k, k}).second) << k;
      if (m.bucket_count() == buckets) continue;
      EXPECT_GE(before * 100.0, percent - 1.0) << "grew early, at key " << k;
      if (buckets >= 4096) {
        ++large_growths;
        EXPECT_LE(before * 100.0, percent + 6.0) << "grew late, at key " << k;
      }
    }
    EXPECT_GE(large_growths, 2);
  }
}

TEST(MapPlannedLoad, TheSetterRoundsClampsAndIgnoresNaN) {
  Map m(planned(0));
  m.max_load_factor(0.6F);
  EXPECT_EQ(m.max_load_percent(), 60U);
  EXPECT_EQ(m.config().max_load_percent, 60U);
  EXPECT_FLOAT_EQ(m.max_load_factor(), 0.6F);
  m.max_load_factor(0.755F);
  EXPECT_EQ(m.max_load_percent(), 76U);
  m.max_load_factor(2.0F);
  EXPECT_EQ(m.max_load_percent(), Map::kReserveLoadPercent);
  m.max_load_factor(0.001F);
  EXPECT_EQ(m.max_load_percent(), CuckooMapConfig::kMinMaxLoadPercent);
  m.max_load_factor(-1.0F);
  EXPECT_EQ(m.max_load_percent(), CuckooMapConfig::kMinMaxLoadPercent);
  m.max_load_factor(0.5F);
  m.max_load_factor(std::numeric_limits<float>::quiet_NaN());
  EXPECT_EQ(m.max_load_percent(), 50U);
  // reserve() plans for what the setter set.
  ASSERT_TRUE(m.reserve(1000));
  EXPECT_EQ(m.bucket_count(), 500U);  // 1000 items at 50 %: 2000 slots
}

TEST(MapPlannedLoad, CopiesMovesAndSwapsCarryIt) {
  Map a(planned(60));
  Map b(planned(0));
  Map copy(a);
  EXPECT_EQ(copy.max_load_percent(), 60U);
  Map assigned(planned(0));
  assigned = a;
  EXPECT_EQ(assigned.max_load_percent(), 60U);
  Map moved(std::move(copy));
  EXPECT_EQ(moved.max_load_percent(), 60U);
  swap(a, b);
  EXPECT_EQ(a.max_load_percent(), Map::kReserveLoadPercent);
  EXPECT_EQ(b.max_load_percent(), 60U);
  // Not serialized: a deserialized map plans the default.
  b.insert({1, 1});
  EXPECT_EQ(Map::deserialize(b.serialize()).config().max_load_percent, 0U);
}

TEST(MapPlannedLoad, ValuesOutsideTheRangeAreRefusedNamingTheField) {
  EXPECT_EQ(refused_field<Map>(planned(CuckooMapConfig::kMinMaxLoadPercent - 1)),
            "max_load_percent");
  EXPECT_EQ(refused_field<Map>(planned(Map::kReserveLoadPercent + 1)), "max_load_percent");
  EXPECT_EQ(refused_field<Map>(planned(1000)), "max_load_percent");
  EXPECT_EQ(refused_field<Map>(planned(CuckooMapConfig::kMinMaxLoadPercent)), "");
  EXPECT_EQ(refused_field<Map>(planned(Map::kReserveLoadPercent)), "");
  // The limit is the map's own: two-slot buckets plan at most 80 %.
  using Map2 = CuckooMap<std::uint64_t, std::uint64_t, 2>;
  EXPECT_EQ(Map2::kReserveLoadPercent, 80U);
  EXPECT_EQ(refused_field<Map2>(planned(81)), "max_load_percent");
  EXPECT_EQ(refused_field<Map2>(planned(80)), "");
  try {
    const Map m(planned(95));
    ADD_FAILURE() << "max_load_percent 95 was accepted";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("10..90"), std::string::npos) << e.what();
  }
}

// The striped map grows when an insert finds no path, not at a load: it refuses a
// planned load it would not honour instead of ignoring it.
TEST(MapPlannedLoad, TheStripedMapRefusesAPlannedLoad) {
  using Striped = cuckoo::StripedConcurrentMap<std::uint64_t, std::uint64_t>;
  EXPECT_EQ(refused_field<Striped>(planned(60)), "max_load_percent");
  EXPECT_EQ(refused_field<Striped>(planned(0)), "");
}

}  // namespace
