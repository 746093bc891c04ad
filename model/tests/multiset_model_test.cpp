// MultisetModel: multiset semantics, the duplicate limit, and the identity rules.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <set>
#include <vector>

#include "cuckoo/model/multiset_model.hpp"
#include "test_support.hpp"

namespace {

using cuckoo::model::InsertResult;
using cuckoo::model::MultisetModel;
using cuckoo::model::testing::base_seed;
using cuckoo::model::testing::reproduce_hint;
using cuckoo::model::testing::TestRng;

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

// The index (identity -> stored copies) against the definition: a scan of every stored
// key applying the identity, after every op of random sequences that insert with and
// without a copy limit, erase present, aliasing and absent keys, clear, and swap the
// identity function in and out (which rebuilds the index).
class BruteForceMultiset {
 public:
  std::size_t identity_count(std::uint64_t key, const MultisetModel::Identity& identity) const {
    if (!identity) return items_.count(key);
    std::size_t n = 0;
    for (const std::uint64_t stored : items_) n += identity(stored) == identity(key) ? 1 : 0;
    return n;
  }
  InsertResult insert(std::uint64_t key, std::uint64_t limit, const MultisetModel::Identity& identity) {
    if (identity_count(key, identity) >= limit) return InsertResult::kDuplicateLimit;
    items_.insert(key);
    return InsertResult::kInserted;
  }
  // The key itself if stored, else the smallest stored key with its identity.
  bool erase(std::uint64_t key, const MultisetModel::Identity& identity) {
    auto victim = items_.find(key);
    if (victim == items_.end() && identity) {
      victim = std::find_if(items_.begin(), items_.end(),
                            [&](std::uint64_t s) { return identity(s) == identity(key); });
    }
    if (victim == items_.end()) return false;
    items_.erase(victim);
    return true;
  }
  void clear() { items_.clear(); }
  const std::multiset<std::uint64_t>& items() const { return items_; }

 private:
  std::multiset<std::uint64_t> items_;
};

std::uint64_t mod_seven(std::uint64_t key) { return key % 7; }

TEST(MultisetModel, IndexAgreesWithABruteForceRecountUnderRandomOps) {
  const std::uint64_t seed = base_seed();
  TestRng rng(seed);
  constexpr int kSequences = 50;
  constexpr int kOpsPerSequence = 200;
  constexpr std::uint64_t kKeySpace = 40;  // small: keys repeat and alias
  const std::vector<MultisetModel::Identity> identities = {nullptr, last_digit, mod_seven};
  for (int sequence = 0; sequence < kSequences; ++sequence) {
    MultisetModel::Identity identity = identities[rng.below(identities.size())];
    MultisetModel model(identity);
    BruteForceMultiset reference;
    for (int op = 0; op < kOpsPerSequence; ++op) {
      const std::uint64_t key = rng.below(kKeySpace);
      const std::uint64_t choice = rng.below(100);
      if (choice < 45) {
        const std::uint64_t limit = rng.percent(50) ? MultisetModel::kNoCopyLimit : rng.below(5);
        ASSERT_EQ(model.insert(key, limit), reference.insert(key, limit, identity))
            << "insert " << key << " limit " << limit << " at op " << op << "; " << reproduce_hint(seed);
      } else if (choice < 90) {
        ASSERT_EQ(model.erase(key), reference.erase(key, identity))
            << "erase " << key << " at op " << op << "; " << reproduce_hint(seed);
      } else if (choice < 92) {
        model.clear();
        reference.clear();
      } else if (choice < 96) {
        identity = identities[rng.below(identities.size())];
        model.set_identity(identity);
      }
      ASSERT_EQ(model.items(), reference.items()) << "after op " << op << "; " << reproduce_hint(seed);
      for (std::uint64_t k = 0; k < kKeySpace; ++k) {
        const std::size_t expected = reference.identity_count(k, identity);
        ASSERT_EQ(model.identity_count(k), expected)
            << "key " << k << " after op " << op << "; " << reproduce_hint(seed);
        ASSERT_EQ(model.contains(k), expected > 0) << "key " << k << "; " << reproduce_hint(seed);
        ASSERT_EQ(model.count(k), reference.items().count(k)) << reproduce_hint(seed);
      }
    }
  }
}

}  // namespace
