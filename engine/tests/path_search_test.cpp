// The engine's one cuckoo path search (detail/path_search.hpp), on hand-built bucket
// graphs: shortest paths, the visited set's effect on the node budget, labels, the
// racy-adapter convention, apply()'s backward order, and the prefetching expansion
// (adapters with prefetch()) against the plain one on random graphs.
#include "cuckoo/detail/path_search.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <random>
#include <set>
#include <utility>
#include <vector>

#include "support/test_seed.hpp"

namespace {

using cuckoo::detail::BucketPath;
using cuckoo::detail::BucketPathSearch;
using cuckoo::detail::BucketSlot;

// A table of `contents[bucket][slot]` items: 0 is an empty slot, any other value v is
// an item whose other bucket is alt[v]. Labels report the item value.
struct GraphTable {
  std::vector<std::vector<std::uint32_t>> contents;
  std::map<std::uint32_t, std::uint32_t> alt;
  std::vector<std::pair<BucketSlot, BucketSlot>> moves;

  std::uint32_t bucket_count() const { return static_cast<std::uint32_t>(contents.size()); }
  unsigned slots() const { return static_cast<unsigned>(contents[0].size()); }
  bool occupied(std::uint32_t bucket, unsigned slot) const { return contents[bucket][slot] != 0; }
  std::uint32_t alt_bucket(std::uint32_t bucket, unsigned slot, std::uint32_t& label) const {
    label = contents[bucket][slot];
    return label == 0 ? bucket : alt.at(label);
  }
  void move_item(BucketSlot from, BucketSlot to) {
    ASSERT_EQ(contents[to.bucket][to.slot], 0U) << "a move onto an occupied slot";
    contents[to.bucket][to.slot] = contents[from.bucket][from.slot];
    contents[from.bucket][from.slot] = 0;
    moves.emplace_back(from, to);
  }
};

// Buckets 0..5 of two slots; both items of bucket b < 5 have bucket b + 1 as their
// other bucket; bucket 5 has one free slot. The only paths run 0 -> 1 -> ... -> 5.
GraphTable ladder() {
  GraphTable t;
  std::uint32_t item = 1;
  for (std::uint32_t b = 0; b < 6; ++b) {
    t.contents.push_back({item, b == 5 ? 0U : item + 1});
    t.alt[item] = b + 1;
    t.alt[item + 1] = b + 1;
    item += 2;
  }
  return t;
}

// With a visited set, each bucket is one node: the 6 buckets fit a budget of 6 nodes.
// Without one, the second item of each bucket generates its child again and the budget
// runs out at bucket 2.
TEST(PathSearch, EachBucketIsOneNodeSoTheBudgetReachesTheFreeSlot) {
  const GraphTable t = ladder();
  BucketPathSearch<8> search;
  BucketPath<8> path;
  ASSERT_TRUE(search.find_path(t, 0, 0, 8, 6, path));
  ASSERT_EQ(path.length, 5U);
  for (unsigned k = 0; k <= 5; ++k) EXPECT_EQ(path.hops[k].bucket, k) << k;
  EXPECT_EQ(path.hops[5].slot, 1U) << "the free slot";
  // Labels: the item in hops[k] (slot 0 of bucket k, value 2k + 1).
  for (unsigned k = 0; k < 5; ++k) EXPECT_EQ(path.labels[k], 2 * k + 1) << k;
  EXPECT_FALSE(search.find_path(t, 0, 0, 8, 5, path)) << "5 nodes cannot reach bucket 5";
  EXPECT_FALSE(search.find_path(t, 0, 0, 4, 6, path)) << "the path needs 5 moves";
}

// The first hit ends a shortest path: bucket 0's second item leads straight to a bucket
// with room, bucket 1 leads to the long way round.
TEST(PathSearch, FindsAShortestPath) {
  GraphTable t;
  t.contents = {{1, 2}, {3, 4}, {5, 0}, {6, 7}};
  t.alt = {{1, 1}, {2, 3}, {3, 2}, {4, 2}, {5, 0}, {6, 2}, {7, 2}};
  // Root 0: item 1 -> bucket 1 (full), item 2 -> bucket 3 (full); depth 2: bucket 1's
  // item 3 -> bucket 2 (room). Any path has 2 moves.
  BucketPathSearch<8> search;
  BucketPath<8> path;
  ASSERT_TRUE(search.find_path(t, 0, 0, 8, 16, path));
  EXPECT_EQ(path.length, 2U);
  EXPECT_EQ(path.hops[2], (BucketSlot{2, 1}));
  // Room in a root: length 0.
  ASSERT_TRUE(search.find_path(t, 0, 2, 8, 16, path));
  EXPECT_EQ(path.length, 0U);
  EXPECT_EQ(path.hops[0], (BucketSlot{2, 1}));
}

// apply() moves from the end backwards, so every move lands on an empty slot and hops[0]
// ends empty; every item ends in one of its two buckets.
TEST(PathSearch, ApplyMovesBackwardsOntoEmptySlots) {
  GraphTable t = ladder();
  BucketPathSearch<8> search;
  BucketPath<8> path;
  ASSERT_TRUE(search.find_path(t, 0, 0, 8, 64, path));
  BucketPathSearch<8>::apply(t, path);
  ASSERT_EQ(t.moves.size(), 5U);
  EXPECT_EQ(t.moves.front().second, (BucketSlot{5, 1}));
  EXPECT_EQ(t.contents[0][0], 0U) << "hops[0] is empty for the new item";
  EXPECT_EQ(t.contents[5][1], 9U) << "bucket 4's first item moved to bucket 5";
}

// An adapter over a table that changes answers its own bucket for a slot found empty:
// the search skips it as visited rather than following it.
TEST(PathSearch, ASlotThatEmptiedIsSkipped) {
  struct Racy : GraphTable {
    bool occupied(std::uint32_t, unsigned) const { return true; }  // stale: all full
  };
  Racy t;
  t.contents = {{1, 0}, {2, 3}};
  t.alt = {{1, 1}, {2, 0}, {3, 0}};
  BucketPathSearch<8> search;
  BucketPath<8> path;
  EXPECT_FALSE(search.find_path(t, 0, 0, 8, 16, path));
}

// An adapter with prefetch() gets each node's children computed and prefetched before
// the first is checked; the search must generate the same nodes in the same order, so
// it finds the same path (hops, slots, labels) or fails the same way, under every node
// budget and length bound. Random graphs of 4-slot buckets, almost full, with the free
// slots few and far apart, so that searches run deep and hit both bounds.
TEST(PathSearch, PrefetchingExpansionFindsTheSameNodesInTheSameOrder) {
  struct Prefetching : GraphTable {
    mutable std::set<std::uint32_t> prefetched;
    void prefetch(std::uint32_t bucket) const { prefetched.insert(bucket); }
  };
  const std::uint64_t seed = cuckoo::test::test_seed(7);
  SCOPED_TRACE(cuckoo::test::seed_note(seed, "path_search_test"));
  std::mt19937_64 rng(seed);
  unsigned found = 0;
  unsigned deep = 0;
  for (int round = 0; round < 300; ++round) {
    const auto buckets = static_cast<std::uint32_t>(8 + rng() % 120);
    GraphTable plain;
    std::uint32_t item = 1;
    for (std::uint32_t b = 0; b < buckets; ++b) {
      std::vector<std::uint32_t> bucket(4);
      for (auto& slot : bucket) {
        if (rng() % 40 == 0) continue;  // a free slot, rarely
        slot = item;
        plain.alt[item] = static_cast<std::uint32_t>(rng() % buckets);
        ++item;
      }
      plain.contents.push_back(bucket);
    }
    Prefetching fetching;
    static_cast<GraphTable&>(fetching) = plain;
    const auto first = static_cast<std::uint32_t>(rng() % buckets);
    const auto second = static_cast<std::uint32_t>(rng() % buckets);
    const auto max_length = static_cast<unsigned>(1 + rng() % 8);
    const std::size_t max_nodes = 1 + rng() % 300;
    SCOPED_TRACE("round " + std::to_string(round));
    BucketPathSearch<8> a;
    BucketPathSearch<8> b;
    BucketPath<8> pa;
    BucketPath<8> pb;
    const bool fa = a.find_path(plain, first, second, max_length, max_nodes, pa);
    const bool fb = b.find_path(fetching, first, second, max_length, max_nodes, pb);
    ASSERT_EQ(fa, fb);
    if (!fa) continue;
    ++found;
    if (pa.length >= 2) ++deep;
    ASSERT_EQ(pa.length, pb.length);
    for (unsigned k = 0; k <= pa.length; ++k) {
      ASSERT_EQ(pa.hops[k], pb.hops[k]) << "hop " << k;
      if (k < pa.length) {
        ASSERT_EQ(pa.labels[k], pb.labels[k]) << "label " << k;
      }
    }
    for (unsigned k = 1; k <= pb.length; ++k) {
      EXPECT_TRUE(fetching.prefetched.count(pb.hops[k].bucket))
          << "hop " << k << "'s bucket was checked without a prefetch";
    }
    BucketPathSearch<8>::apply(fetching, pb);  // lands on empty slots only (asserted)
    EXPECT_EQ(fetching.contents[pb.hops[0].bucket][pb.hops[0].slot], 0U);
  }
  EXPECT_GT(found, 50U) << "too few searches succeeded to compare paths";
  EXPECT_GT(deep, 20U) << "too few paths of two moves or more";
}

}  // namespace
