// PlacementOracle against brute force: on small random instances every assignment of
// items to one of their two buckets is enumerated, and the oracle must agree exactly,
// both its max-flow answer and, for one slot per bucket, its component answer. The
// incremental interface (add, remove, would_fit_after_adding) is checked the same way
// after every step.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "cuckoo/model/placement_oracle.hpp"
#include "test_support.hpp"

namespace {

using cuckoo::model::CandidatePair;
using cuckoo::model::PlacementOracle;
using cuckoo::model::testing::base_seed;
using cuckoo::model::testing::reproduce_hint;
using cuckoo::model::testing::TestRng;

constexpr std::size_t kMaxItems = 8;
constexpr unsigned kSlotChoices[] = {1, 2, 4};
constexpr std::size_t kRandomInstances = 6000;

// Tries all 2^n choices of bucket_a / bucket_b.
bool brute_force_fits(std::span<const CandidatePair> items, std::size_t bucket_count,
                      unsigned slots) {
  const std::size_t n = items.size();
  for (std::uint64_t choice = 0; choice < (std::uint64_t{1} << n); ++choice) {
    std::vector<unsigned> load(bucket_count, 0);
    bool ok = true;
    for (std::size_t i = 0; i < n && ok; ++i) {
      const bool second = ((choice >> i) & 1U) != 0;
      const std::size_t bucket = second ? items[i].bucket_b : items[i].bucket_a;
      ok = ++load[bucket] <= slots;
    }
    if (ok) return true;
  }
  return false;
}

// A placement is valid when each item is in one of its buckets and no bucket overflows.
bool valid_placement(std::span<const CandidatePair> items, const std::vector<std::size_t>& where,
                     std::size_t bucket_count, unsigned slots, bool allow_unplaced) {
  if (where.size() != items.size()) return false;
  std::vector<unsigned> load(bucket_count, 0);
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (where[i] == PlacementOracle::kUnplaced) {
      if (!allow_unplaced) return false;
      continue;
    }
    if (where[i] != items[i].bucket_a && where[i] != items[i].bucket_b) return false;
    if (++load[where[i]] > slots) return false;
  }
  return true;
}

std::string describe(std::span<const CandidatePair> items, std::size_t buckets, unsigned slots) {
  std::string text = "buckets=" + std::to_string(buckets) + " b=" + std::to_string(slots) + " items:";
  for (const CandidatePair& item : items) {
    text += " (" + std::to_string(item.bucket_a) + "," + std::to_string(item.bucket_b) + ")";
  }
  return text;
}

CandidatePair random_pair(TestRng& rng, std::size_t buckets) {
  return CandidatePair{rng.below(buckets), rng.below(buckets)};
}

TEST(PlacementOracle, SmallCasesByHand) {
  const PlacementOracle one_slot(3, 1);
  const std::vector<CandidatePair> two_on_a_pair = {{0, 1}, {1, 0}};
  const std::vector<CandidatePair> three_on_a_pair = {{0, 1}, {0, 1}, {1, 0}};
  const std::vector<CandidatePair> triangle = {{0, 1}, {1, 2}, {2, 0}};
  const std::vector<CandidatePair> triangle_plus = {{0, 1}, {1, 2}, {2, 0}, {0, 2}};
  const std::vector<CandidatePair> self_loops = {{2, 2}, {2, 2}};
  EXPECT_TRUE(one_slot.fits(std::vector<CandidatePair>{}));
  EXPECT_TRUE(one_slot.fits(two_on_a_pair));
  EXPECT_FALSE(one_slot.fits(three_on_a_pair));
  EXPECT_TRUE(one_slot.fits(triangle));
  EXPECT_FALSE(one_slot.fits(triangle_plus));
  EXPECT_FALSE(one_slot.fits(self_loops));
  EXPECT_FALSE(one_slot.fits_by_components(triangle_plus));
  EXPECT_TRUE(one_slot.fits_by_components(triangle));

  const PlacementOracle two_slots(3, 2);
  EXPECT_TRUE(two_slots.fits(self_loops));
  EXPECT_TRUE(two_slots.fits(triangle_plus));
  const std::vector<CandidatePair> five_on_a_pair(5, CandidatePair{0, 1});
  EXPECT_FALSE(two_slots.fits(five_on_a_pair));
}

// A component can be sparse overall yet hold a dense part: the component rule is exact
// only for one slot, the flow is exact for any.
TEST(PlacementOracle, DenseCoreInsideASparseComponentNeedsTheFlow) {
  const PlacementOracle oracle(6, 2);
  // 5 items on buckets {0,1}: needs 5 slots, has 4, although the component {0..5} with
  // its path has 8 edges <= 2 * 6 slots.
  std::vector<CandidatePair> items(5, CandidatePair{0, 1});
  items.push_back({1, 2});
  items.push_back({2, 3});
  items.push_back({3, 4});
  EXPECT_FALSE(oracle.fits(items));
  EXPECT_FALSE(brute_force_fits(items, 6, 2));
}

TEST(PlacementOracle, AgreesWithBruteForceOnRandomInstances) {
  const std::uint64_t seed = base_seed();
  SCOPED_TRACE(reproduce_hint(seed));
  TestRng rng(seed);
  std::size_t fitting = 0;
  for (std::size_t instance = 0; instance < kRandomInstances; ++instance) {
    const std::size_t buckets = 2 + rng.below(5);  // 2..6
    const unsigned slots = kSlotChoices[rng.below(3)];
    const std::size_t n = rng.below(kMaxItems + 1);
    std::vector<CandidatePair> items;
    for (std::size_t i = 0; i < n; ++i) items.push_back(random_pair(rng, buckets));

    const PlacementOracle oracle(buckets, slots);
    const bool expected = brute_force_fits(items, buckets, slots);
    ASSERT_EQ(oracle.fits(items), expected) << describe(items, buckets, slots);
    const std::optional<std::vector<std::size_t>> placement = oracle.find_placement(items);
    ASSERT_EQ(placement.has_value(), expected);
    if (placement) {
      ASSERT_TRUE(valid_placement(items, *placement, buckets, slots, false))
          << describe(items, buckets, slots);
    }
    if (slots == 1) {
      ASSERT_EQ(oracle.fits_by_components(items), expected) << describe(items, buckets, slots);
    }
    fitting += expected ? 1 : 0;
  }
  // The instance mix exercises both answers.
  EXPECT_GT(fitting, kRandomInstances / 10);
  EXPECT_LT(fitting, kRandomInstances * 9 / 10);
}

TEST(PlacementOracle, IncrementalAnswersMatchBruteForceAfterEveryStep) {
  const std::uint64_t seed = base_seed();
  SCOPED_TRACE(reproduce_hint(seed));
  TestRng rng(seed ^ 0x5eed);
  constexpr std::size_t kSequences = 400;
  constexpr std::size_t kStepsPerSequence = 24;
  for (std::size_t sequence = 0; sequence < kSequences; ++sequence) {
    const std::size_t buckets = 2 + rng.below(5);
    const unsigned slots = kSlotChoices[rng.below(3)];
    PlacementOracle oracle(buckets, slots);
    for (std::size_t step = 0; step < kStepsPerSequence; ++step) {
      const std::vector<CandidatePair> current = oracle.items();
      const CandidatePair probe = random_pair(rng, buckets);
      if (current.size() < kMaxItems) {
        std::vector<CandidatePair> with_probe = current;
        with_probe.push_back(probe);
        ASSERT_EQ(oracle.would_fit_after_adding(probe), brute_force_fits(with_probe, buckets, slots))
            << describe(with_probe, buckets, slots);
        ASSERT_EQ(oracle.items(), current) << "would_fit_after_adding changed the item set";
      }
      const bool remove = !current.empty() && (current.size() >= kMaxItems || rng.percent(35));
      if (remove) {
        const CandidatePair victim = current[rng.below(current.size())];
        // Either order names the same item.
        ASSERT_TRUE(oracle.remove(CandidatePair{victim.bucket_b, victim.bucket_a}));
        ASSERT_EQ(oracle.item_count(), current.size() - 1);
      } else {
        const bool fits_now = oracle.add(probe);
        ASSERT_EQ(fits_now, oracle.fits());
      }
      ASSERT_EQ(oracle.fits(), brute_force_fits(oracle.items(), buckets, slots))
          << describe(oracle.items(), buckets, slots);
      ASSERT_TRUE(valid_placement(oracle.items(), oracle.placement(), buckets, slots, true));
      std::size_t unplaced = 0;
      for (const std::size_t where : oracle.placement()) {
        unplaced += where == PlacementOracle::kUnplaced ? 1 : 0;
      }
      ASSERT_EQ(unplaced, oracle.unplaced_count());
      if (slots == 1) {
        ASSERT_EQ(oracle.fits_by_components(oracle.items()), oracle.fits());
      }
    }
  }
}

TEST(PlacementOracle, RemoveOfAnUnknownItemChangesNothing) {
  PlacementOracle oracle(4, 1);
  oracle.add({0, 1});
  EXPECT_FALSE(oracle.remove({0, 2}));
  EXPECT_EQ(oracle.item_count(), 1U);
  EXPECT_TRUE(oracle.remove({1, 0}));
  EXPECT_EQ(oracle.item_count(), 0U);
}

TEST(PlacementOracle, RemovingAPlacedItemLetsAnUnplacedOneIn) {
  PlacementOracle oracle(2, 1);
  EXPECT_TRUE(oracle.add({0, 1}));
  EXPECT_TRUE(oracle.add({0, 1}));
  EXPECT_FALSE(oracle.add({1, 1}));
  EXPECT_EQ(oracle.unplaced_count(), 1U);
  EXPECT_FALSE(oracle.would_fit_after_adding({0, 0}));
  // Removing a placed {0,1} frees a slot that the unplaced {1,1} takes.
  EXPECT_TRUE(oracle.remove({0, 1}));
  EXPECT_TRUE(oracle.fits());
  EXPECT_EQ(oracle.unplaced_count(), 0U);
  oracle.clear();
  EXPECT_EQ(oracle.item_count(), 0U);
  EXPECT_TRUE(oracle.fits());
}

TEST(PlacementOracle, RemovePrefersAnUnplacedItem) {
  PlacementOracle oracle(2, 1);
  oracle.add({0, 1});
  oracle.add({0, 1});
  EXPECT_FALSE(oracle.add({1, 0}));
  const std::vector<std::size_t> before = oracle.placement();
  EXPECT_TRUE(oracle.remove({0, 1}));
  EXPECT_TRUE(oracle.fits());
  EXPECT_EQ(oracle.placement(), std::vector<std::size_t>(before.begin(), before.begin() + 2));
}

TEST(PlacementOracle, LongKickChainsAreFound) {
  // A path of 1000 buckets with 999 items, all pushed toward bucket 0 first: adding one
  // more item at the far end must shift the whole chain.
  constexpr std::size_t kBuckets = 1000;
  PlacementOracle oracle(kBuckets, 1);
  for (std::size_t i = 0; i + 1 < kBuckets; ++i) ASSERT_TRUE(oracle.add({i, i + 1}));
  EXPECT_TRUE(oracle.would_fit_after_adding({kBuckets - 1, kBuckets - 1}));
  EXPECT_TRUE(oracle.add({0, 0}));
  EXPECT_FALSE(oracle.would_fit_after_adding({5, 6}));
}

TEST(PlacementOracle, RejectsBadArguments) {
  EXPECT_THROW(PlacementOracle(0, 1), std::invalid_argument);
  EXPECT_THROW(PlacementOracle(4, 0), std::invalid_argument);
  PlacementOracle oracle(4, 2);
  EXPECT_THROW(oracle.add({0, 4}), std::out_of_range);
  EXPECT_THROW((void)oracle.would_fit_after_adding({9, 0}), std::out_of_range);
  EXPECT_EQ(oracle.item_count(), 0U);
  const std::vector<CandidatePair> items = {{0, 1}};
  EXPECT_THROW((void)oracle.fits_by_components(items), std::logic_error);
}

}  // namespace
