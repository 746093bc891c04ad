// MapModel: exact key/value semantics.
#include <gtest/gtest.h>

#include <cstdint>
#include <optional>

#include "cuckoo/model/map_model.hpp"

namespace {

using cuckoo::model::InsertResult;
using cuckoo::model::MapModel;

TEST(MapModel, InsertKeepsTheFirstValue) {
  MapModel model;
  EXPECT_EQ(model.insert(1, 10), InsertResult::kInserted);
  EXPECT_EQ(model.insert(1, 20), InsertResult::kExists);
  EXPECT_EQ(model.find(1), std::optional<std::uint64_t>(10));
  EXPECT_EQ(model.size(), 1U);
}

TEST(MapModel, InsertOrAssignReplacesTheValue) {
  MapModel model;
  EXPECT_EQ(model.insert_or_assign(2, 5), InsertResult::kInserted);
  EXPECT_EQ(model.insert_or_assign(2, 6), InsertResult::kUpdated);
  EXPECT_EQ(model.find(2), std::optional<std::uint64_t>(6));
  EXPECT_EQ(model.size(), 1U);
}

TEST(MapModel, FindEraseContainsAndClear) {
  MapModel model;
  EXPECT_EQ(model.find(3), std::nullopt);
  EXPECT_FALSE(model.contains(3));
  EXPECT_FALSE(model.erase(3));
  model.insert(3, 0);
  model.insert(4, 1);
  EXPECT_TRUE(model.contains(3));
  EXPECT_EQ(model.find(3), std::optional<std::uint64_t>(0));
  EXPECT_TRUE(model.erase(3));
  EXPECT_FALSE(model.contains(3));
  EXPECT_EQ(model.size(), 1U);
  EXPECT_EQ(model.entries().begin()->first, 4U);
  model.clear();
  EXPECT_TRUE(model.empty());
}

TEST(MapModel, ExtremeKeysAndValues) {
  MapModel model;
  constexpr std::uint64_t kMax = ~std::uint64_t{0};
  EXPECT_EQ(model.insert(kMax, kMax), InsertResult::kInserted);
  EXPECT_EQ(model.insert(0, 0), InsertResult::kInserted);
  EXPECT_EQ(model.find(kMax), std::optional<std::uint64_t>(kMax));
  EXPECT_EQ(model.size(), 2U);
}

}  // namespace
