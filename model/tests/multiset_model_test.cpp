// MultisetModel: multiset semantics, the duplicate limit, and the identity rules.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "cuckoo/model/multiset_model.hpp"

namespace {

using cuckoo::model::InsertResult;
using cuckoo::model::MultisetModel;

TEST(MultisetModel, StartsEmpty) {
  const MultisetModel model;
  EXPECT_TRUE(model.empty());
  EXPECT_EQ(model.size(), 0U);
  EXPECT_FALSE(model.contains(0));
  EXPECT_FALSE(model.has_identity());
  EXPECT_EQ(model.identity_of(42), 42U);
}

TEST(MultisetModel, KeepsDuplicatesAndErasesOneCopyAtATime) {
  MultisetModel model;
  EXPECT_EQ(model.insert(7), InsertResult::kInserted);
  EXPECT_EQ(model.insert(7), InsertResult::kInserted);
  EXPECT_EQ(model.insert(9), InsertResult::kInserted);
  EXPECT_EQ(model.size(), 3U);
  EXPECT_EQ(model.count(7), 2U);
  EXPECT_EQ(model.identity_count(7), 2U);

  EXPECT_TRUE(model.erase(7));
  EXPECT_EQ(model.count(7), 1U);
  EXPECT_TRUE(model.contains(7));
  EXPECT_TRUE(model.erase(7));
  EXPECT_FALSE(model.contains(7));
  EXPECT_FALSE(model.erase(7));
  EXPECT_EQ(model.size(), 1U);
  EXPECT_EQ(model.distinct_keys(), std::vector<std::uint64_t>{9});
}

TEST(MultisetModel, DuplicateLimitCountsCopiesAndChangesNothing) {
  MultisetModel model;
  for (int i = 0; i < 4; ++i) EXPECT_EQ(model.insert(3, 4), InsertResult::kInserted);
  EXPECT_EQ(model.insert(3, 4), InsertResult::kDuplicateLimit);
  EXPECT_EQ(model.count(3), 4U);
  EXPECT_EQ(model.insert(3), InsertResult::kInserted);  // no limit given
  EXPECT_EQ(model.insert(4, 0), InsertResult::kDuplicateLimit);
  EXPECT_EQ(model.size(), 5U);
}

TEST(MultisetModel, ClearRemovesEverything) {
  MultisetModel model;
  model.insert(1);
  model.insert(1);
  model.clear();
  EXPECT_TRUE(model.empty());
  EXPECT_FALSE(model.contains(1));
}

// Identity: keys congruent mod 10 are indistinguishable.
std::uint64_t last_digit(std::uint64_t key) { return key % 10; }

TEST(MultisetModel, IdentityMakesAliasesContained) {
  MultisetModel model(last_digit);
  EXPECT_TRUE(model.has_identity());
  model.insert(13);
  EXPECT_TRUE(model.contains(13));
  EXPECT_TRUE(model.contains(23));  // the filter cannot tell 23 from 13: it must say yes
  EXPECT_FALSE(model.contains(14));
  EXPECT_EQ(model.count(23), 0U);
  EXPECT_EQ(model.identity_count(23), 1U);
}

TEST(MultisetModel, DuplicateLimitIsJudgedPerIdentity) {
  MultisetModel model(last_digit);
  EXPECT_EQ(model.insert(1, 3), InsertResult::kInserted);
  EXPECT_EQ(model.insert(11, 3), InsertResult::kInserted);
  EXPECT_EQ(model.insert(21, 3), InsertResult::kInserted);
  EXPECT_EQ(model.insert(31, 3), InsertResult::kDuplicateLimit);
  EXPECT_EQ(model.insert(1, 3), InsertResult::kDuplicateLimit);
  EXPECT_EQ(model.insert(2, 3), InsertResult::kInserted);
}

TEST(MultisetModel, EraseRemovesTheKeyItselfWhenPresent) {
  MultisetModel model(last_digit);
  model.insert(5);
  model.insert(15);
  EXPECT_TRUE(model.erase(15));
  EXPECT_EQ(model.count(5), 1U);
  EXPECT_EQ(model.count(15), 0U);
}

TEST(MultisetModel, EraseOfAnAbsentKeyRemovesTheSmallestAlias) {
  MultisetModel model(last_digit);
  model.insert(35);
  model.insert(15);
  model.insert(15);
  EXPECT_TRUE(model.erase(25));  // 25 is not stored, but 15 and 35 share its identity
  EXPECT_EQ(model.count(15), 1U);
  EXPECT_EQ(model.count(35), 1U);
  EXPECT_EQ(model.identity_count(5), 2U);
  EXPECT_FALSE(model.erase(26));  // nothing with identity 6
  EXPECT_EQ(model.size(), 2U);
}

TEST(MultisetModel, SetIdentityRejudgesStoredKeys) {
  MultisetModel model;
  model.insert(12);
  EXPECT_FALSE(model.contains(2));
  model.set_identity(last_digit);
  EXPECT_TRUE(model.contains(2));
  EXPECT_EQ(model.identity_of(12), 2U);
  model.set_identity(nullptr);
  EXPECT_FALSE(model.contains(2));
  EXPECT_EQ(model.size(), 1U);
}

}  // namespace
