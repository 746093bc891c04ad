// Statistics users read, pinned to exact values on hand-built scenarios (they
// were once checked only for monotonicity, so an off-by-one in a kick counter or a histogram
// bucketed wrong went unnoticed). Keys are placed in chosen buckets by injected hashers;
// every expected value below is derived in the comments from the engine's documented
// algorithm, not read off a run.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <unordered_map>
#include <vector>

#include "cuckoo/classic_cuckoo.hpp"
#include "cuckoo/cuckoo_filter.hpp"
#include "cuckoo/cuckoo_map.hpp"
#include "cuckoo/smart_cuckoo.hpp"
#include "support/placed_hasher.hpp"

namespace {

using cuckoo::InsertResult;

using cuckoo::test::PlacedHasher;
using ClassicLayout = cuckoo::ClassicCuckoo<std::uint64_t, std::uint64_t, PlacedHasher>;

// Puts `key` at candidate buckets (p0, p1) of a two-table layout with `table_size`
// buckets a table (ClassicCuckoo's, which SmartCuckoo shares; 4 unless said).
void place_in_two_tables(const PlacedHasher& hasher, std::uint64_t key, std::uint32_t p0,
                         std::uint32_t p1, std::uint32_t table_size = 4) {
  const std::optional<std::uint64_t> h = ClassicLayout::hash_with_positions(p0, p1, table_size);
  ASSERT_TRUE(h.has_value());
  hasher.place(key, *h);
}

// ClassicCuckoo, table_size 4, max_kicks 5, kReport. Keys A (p0 0, p1 0), B (0, 1),
// C (0, 1), D (0, 1):
//   A: T0[0] empty: placed, 0 kicks.           B: T0[0] full, T1[1] empty: 0 kicks.
//   C: both full: C evicts A from T0[0]; A's T1 slot p1 = 0 is empty: 1 kick.
//   D: both full (T0[0] = C, T1[1] = B): D evicts C, C evicts B (T1[1]), B evicts D
//      (T0[0]), D evicts C (T1[1]), C evicts B (T0[0]): 5 kicks, the bound; undone,
//      kFull. record_walk counts max_kicks for the failed walk.
// Histogram bucket i holds walks of [2^(i-1), 2^i) kicks: 0 kicks -> 0, 1 -> 1, 5 -> 3.
TEST(Statistics, ClassicCuckooKickCountsAndHistogram) {
  cuckoo::ClassicCuckooConfig config;
  config.capacity = 8;
  config.max_kicks = 5;
  config.on_failure = cuckoo::OnInsertFailure::kReport;
  config.seed = 1;
  PlacedHasher hasher;
  ClassicLayout table(config, hasher);
  ASSERT_EQ(table.table_size(), 4U);
  const auto place = [&](std::uint64_t key, std::uint32_t p0, std::uint32_t p1) {
    place_in_two_tables(hasher, key, p0, p1);
  };
  place(1, 0, 0);
  place(2, 0, 1);
  place(3, 0, 1);
  place(4, 0, 1);
  EXPECT_EQ(table.insert(1, 10), InsertResult::kInserted);
  EXPECT_EQ(table.insert(2, 20), InsertResult::kInserted);
  EXPECT_EQ(table.insert(3, 30), InsertResult::kInserted);
  EXPECT_EQ(table.stats().last_insert_kicks, 1U);
  EXPECT_EQ(table.insert(4, 40), InsertResult::kFull);
  const cuckoo::ClassicCuckooStats& s = table.stats();
  EXPECT_EQ(s.insert_calls, 4U);
  EXPECT_EQ(s.inserted, 3U);
  EXPECT_EQ(s.full, 1U);
  EXPECT_EQ(s.total_kicks, 6U);
  EXPECT_EQ(s.last_insert_kicks, 5U);
  EXPECT_EQ(s.max_insert_kicks, 5U);
  EXPECT_EQ(s.failures, 1U);
  EXPECT_EQ(s.rehashes, 0U);
  EXPECT_EQ(s.grows, 0U);
  EXPECT_EQ(s.rebuild_kicks, 0U);
  std::array<std::uint64_t, cuckoo::ClassicCuckooStats::kKickHistogramBuckets> histogram{};
  histogram[0] = 2;
  histogram[1] = 1;
  histogram[3] = 1;
  EXPECT_EQ(s.kick_histogram, histogram);
  // The failed walk was undone: the layout is the one after C.
  EXPECT_EQ(table.positions_of(3), std::make_pair(0U, 1U));
  EXPECT_TRUE(table.check_invariants()) << table.invariant_violation().value_or("");
}

// ClassicCuckoo's rebuild counters, kRehash, table_size 4, max_capacity 8 (growth would
// exceed it), max_rehashes 2, max_kicks 5. The keys and their first three inserts are
// the ones above (A (0,0), B, C, D (0,1); layout T0[0] = C, T1[0] = A, T1[1] = B), and
// their placed hashes ignore the seed, so every fresh seed gives the same candidates.
// D's walk fails (5 kicks, undone). Each rehash plans the items in slot order (C, A, B
// from the layout, then D): C, A and B take T0[0], T1[0], T1[1]; D's planning walk
// swaps through T0[0] and T1[1] for max_kicks = 5 evictions and fails. Two rehashes:
// rehashes 2, rebuild_kicks 10; then growth is refused (4 * 4 > 8): kFull, grows 0.
TEST(Statistics, ClassicCuckooRehashCounters) {
  cuckoo::ClassicCuckooConfig config;
  config.capacity = 8;
  config.max_capacity = 8;
  config.max_kicks = 5;
  config.max_rehashes = 2;
  config.on_failure = cuckoo::OnInsertFailure::kRehash;
  config.seed = 1;
  PlacedHasher hasher;
  ClassicLayout table(config, hasher);
  ASSERT_EQ(table.table_size(), 4U);
  place_in_two_tables(hasher, 1, 0, 0);
  place_in_two_tables(hasher, 2, 0, 1);
  place_in_two_tables(hasher, 3, 0, 1);
  place_in_two_tables(hasher, 4, 0, 1);
  for (std::uint64_t key = 1; key <= 3; ++key) {
    ASSERT_EQ(table.insert(key, key), InsertResult::kInserted) << key;
  }
  EXPECT_EQ(table.insert(4, 4), InsertResult::kFull);
  const cuckoo::ClassicCuckooStats& s = table.stats();
  EXPECT_EQ(s.failures, 1U);
  EXPECT_EQ(s.rehashes, 2U);
  EXPECT_EQ(s.rebuild_kicks, 10U);
  EXPECT_EQ(s.grows, 0U);
  EXPECT_EQ(s.full, 1U);
  EXPECT_EQ(s.inserted, 3U);
  EXPECT_EQ(s.total_kicks, 6U);
  EXPECT_EQ(table.table_size(), 4U);
  EXPECT_TRUE(table.check_invariants()) << table.invariant_violation().value_or("");
}

// ClassicCuckoo's growth counter, kGrow, max_rehashes 0, max_kicks 5, table_size 4 then
// 8. The keys are placed for 8 buckets: A (0,0), B (1,2), C (0,3), D (1,3). Positions are
// multiply-shift reductions, so with 4 buckets each is halved: A (0,0), B, C, D (0,1),
// the scenario above: C kicks once, D's walk fails (5 kicks). Growth to 8 buckets plans
// C, A, B (slot order) and D with no eviction: C T0[0], A T1[0], B T0[1], D T1[3].
// grows 1, rebuild_kicks 0, rehashes 0, and D is in.
TEST(Statistics, ClassicCuckooGrowthCounters) {
  cuckoo::ClassicCuckooConfig config;
  config.capacity = 8;
  config.max_capacity = 16;
  config.max_kicks = 5;
  config.max_rehashes = 0;
  config.on_failure = cuckoo::OnInsertFailure::kGrow;
  config.seed = 1;
  PlacedHasher hasher;
  ClassicLayout table(config, hasher);
  ASSERT_EQ(table.table_size(), 4U);
  place_in_two_tables(hasher, 1, 0, 0, 8);
  place_in_two_tables(hasher, 2, 1, 2, 8);
  place_in_two_tables(hasher, 3, 0, 3, 8);
  place_in_two_tables(hasher, 4, 1, 3, 8);
  ASSERT_EQ(table.positions_of(1), std::make_pair(0U, 0U));
  for (const std::uint64_t key : {2, 3, 4}) {
    ASSERT_EQ(table.positions_of(key), std::make_pair(0U, 1U)) << key;
  }
  for (std::uint64_t key = 1; key <= 3; ++key) {
    ASSERT_EQ(table.insert(key, key), InsertResult::kInserted) << key;
  }
  EXPECT_EQ(table.stats().last_insert_kicks, 1U);
  EXPECT_EQ(table.insert(4, 4), InsertResult::kInserted);
  const cuckoo::ClassicCuckooStats& s = table.stats();
  EXPECT_EQ(s.failures, 1U);
  EXPECT_EQ(s.grows, 1U);
  EXPECT_EQ(s.rehashes, 0U);
  EXPECT_EQ(s.rebuild_kicks, 0U);
  EXPECT_EQ(s.inserted, 4U);
  EXPECT_EQ(s.full, 0U);
  EXPECT_EQ(s.total_kicks, 6U);
  EXPECT_EQ(table.table_size(), 8U);
  for (std::uint64_t key = 1; key <= 4; ++key) EXPECT_NE(table.find(key), nullptr) << key;
  EXPECT_TRUE(table.check_invariants()) << table.invariant_violation().value_or("");
}

// CuckooMap<B = 2>, 4 buckets, may not grow. Buckets 0 and 1 hold two keys each whose
// candidate buckets are both that bucket, so an item with candidates {0, 1} has no cuckoo
// path: each such insert runs one search, which fails, and goes to the stash, until the
// stash (8) is full; the ninth runs one more failed search and is refused (kFull), since
// the table is at max_capacity. Then one update, one erase (which pulls a stashed item
// into the freed slot) and one kExists.
TEST(Statistics, CuckooMapSearchStashAndRejectionCounters) {
  using Map = cuckoo::CuckooMap<std::uint64_t, std::uint64_t, 2, PlacedHasher>;
  cuckoo::CuckooMapConfig config;
  config.initial_capacity = 8;
  config.max_capacity = 8;
  config.seed = 3;
  PlacedHasher hasher;
  Map map(config, hasher);
  const auto place = [&](std::uint64_t key, std::uint32_t a, std::uint32_t b) {
    (*hasher.placed)[key] = Map::hash_for_buckets(a, b, 4);
  };
  for (std::uint64_t k = 0; k < 2; ++k) {
    place(100 + k, 0, 0);
    place(200 + k, 1, 1);
    ASSERT_EQ(map.insert_outcome(100 + k, k), InsertResult::kInserted);
    ASSERT_EQ(map.insert_outcome(200 + k, k), InsertResult::kInserted);
  }
  for (std::uint64_t k = 0; k < Map::kStashSlots + 1; ++k) place(300 + k, 0, 1);
  for (std::uint64_t k = 0; k < Map::kStashSlots; ++k) {
    ASSERT_EQ(map.insert_outcome(300 + k, k), InsertResult::kInserted);
  }
  EXPECT_EQ(map.insert_outcome(300 + Map::kStashSlots, 0), InsertResult::kFull);
  EXPECT_EQ(map.insert_or_assign_outcome(300, 7), InsertResult::kUpdated);
  EXPECT_EQ(map.insert_outcome(300, 8), InsertResult::kExists);
  EXPECT_TRUE(map.erase(200));
  const cuckoo::CuckooMapStats& s = map.stats();
  EXPECT_EQ(s.inserts, 4U + Map::kStashSlots);
  EXPECT_EQ(s.updates, 1U);
  EXPECT_EQ(s.erases, 1U);
  EXPECT_EQ(s.growths, 0U);
  EXPECT_EQ(s.reseeds, 0U);
  EXPECT_EQ(s.bfs_searches, Map::kStashSlots + 1);
  EXPECT_EQ(s.bfs_failures, Map::kStashSlots + 1);
  EXPECT_EQ(s.longest_path, 0U);
  EXPECT_EQ(s.stash_high_water, Map::kStashSlots);
  EXPECT_EQ(s.full_rejections, 1U);
  EXPECT_EQ(map.stash_size(), Map::kStashSlots - 1);
}

// CuckooMap<B = 1>: a path of exactly two moves. Buckets 0..3 of a 4-bucket map; key X
// lives in bucket 0 with alternate 1, key Y in bucket 1 with alternate 2 (bucket 2 is
// free). A new key with candidates {0, 0} finds bucket 0 full; the search moves Y to 2
// and X to 1, then places the key in 0: longest_path 2, one search, no failure.
TEST(Statistics, CuckooMapLongestPath) {
  using Map = cuckoo::CuckooMap<std::uint64_t, std::uint64_t, 1, PlacedHasher>;
  cuckoo::CuckooMapConfig config;
  config.initial_capacity = 4;
  config.max_capacity = 4;
  config.seed = 5;
  PlacedHasher hasher;
  Map map(config, hasher);
  (*hasher.placed)[1] = Map::hash_for_buckets(0, 1, 4);  // X: first bucket 0
  (*hasher.placed)[2] = Map::hash_for_buckets(1, 2, 4);  // Y: first bucket 1
  (*hasher.placed)[3] = Map::hash_for_buckets(0, 0, 4);  // the new key
  ASSERT_EQ(map.insert_outcome(1, 1), InsertResult::kInserted);
  ASSERT_EQ(map.insert_outcome(2, 2), InsertResult::kInserted);
  ASSERT_EQ(map.stats().bfs_searches, 0U);
  ASSERT_EQ(map.insert_outcome(3, 3), InsertResult::kInserted);
  EXPECT_EQ(map.stats().bfs_searches, 1U);
  EXPECT_EQ(map.stats().bfs_failures, 0U);
  EXPECT_EQ(map.stats().longest_path, 2U);
  EXPECT_EQ(map.buckets_of(3).first, 0U);
  EXPECT_EQ(map.check_invariants(), "");
}

// CuckooFilter, one slot per bucket, two buckets, max_kicks 3. Hashes are chosen so that
// every item's candidate buckets are {0, 1} (distinct fingerprints):
//   items 1 and 2: bucket 0, then bucket 1: placed directly, no walk.
//   items 3 .. 2 + kStashSlots: both buckets full and neither resident's alternate has
//     room, so each walk evicts max_kicks = 3 times and ends in the stash (a kick
//     failure; still kInserted).
//   the next item: the stash is full: kFull, before any walk (no kick_walks counted).
//   erasing the item in bucket 0 frees its slot; one stash entry moves in (stash_rehomes).
//   a second filter: one item inserted three times: two copies (2b), then kDuplicateLimit.
TEST(Statistics, CuckooFilterKickWalksStashAndRejections) {
  using Filter = cuckoo::CuckooFilter;
  cuckoo::CuckooFilterConfig config;
  config.capacity = 2;
  config.slots_per_bucket = 1;
  config.fingerprint_bits = 16;
  config.max_kicks = 3;
  config.seed = 11;
  Filter filter(config);
  ASSERT_EQ(filter.bucket_count(), 2U);
  constexpr unsigned kStash = Filter::kStashSlots;
  std::vector<std::uint64_t> hashes;
  std::vector<std::uint32_t> fingerprints;
  for (std::uint64_t h = 1; hashes.size() < kStash + 3 && h < 1'000'000; ++h) {
    const cuckoo::CuckooFilterPlacement p = filter.placement_of_hash(h);
    if (p.bucket1 != 0 || p.bucket2 != 1) continue;
    if (std::find(fingerprints.begin(), fingerprints.end(), p.fingerprint) != fingerprints.end()) continue;
    hashes.push_back(h);
    fingerprints.push_back(p.fingerprint);
  }
  ASSERT_EQ(hashes.size(), kStash + 3U);
  ASSERT_EQ(filter.insert_hash(hashes[0]), InsertResult::kInserted);
  ASSERT_EQ(filter.insert_hash(hashes[1]), InsertResult::kInserted);
  EXPECT_EQ(filter.stats().kick_walks, 0U);
  for (unsigned i = 0; i < kStash; ++i) {
    ASSERT_EQ(filter.insert_hash(hashes[2 + i]), InsertResult::kInserted) << i;
  }
  EXPECT_EQ(filter.insert_hash(hashes[2 + kStash]), InsertResult::kFull);
  cuckoo::CuckooFilterStats expected;
  expected.inserts = 2 + kStash;
  expected.kicks = 3 * kStash;
  expected.max_kicks_in_insert = 3;
  expected.kick_walks = kStash;
  expected.kick_failures = kStash;
  expected.full_rejections = 1;
  EXPECT_EQ(filter.stats(), expected);
  EXPECT_EQ(filter.stash_size(), kStash);
  // Erase the item whose fingerprint sits in bucket 0 now.
  const std::uint32_t in_bucket0 = filter.fingerprint_at(0, 0);
  const auto at = std::find(fingerprints.begin(), fingerprints.end(), in_bucket0);
  ASSERT_NE(at, fingerprints.end());
  ASSERT_TRUE(filter.erase_hash(hashes[static_cast<std::size_t>(at - fingerprints.begin())]));
  expected.stash_rehomes = 1;
  EXPECT_EQ(filter.stats(), expected);
  EXPECT_EQ(filter.stash_size(), kStash - 1);

  Filter copies(config);
  ASSERT_EQ(copies.insert_hash(hashes[0]), InsertResult::kInserted);
  ASSERT_EQ(copies.insert_hash(hashes[0]), InsertResult::kInserted);
  EXPECT_EQ(copies.insert_hash(hashes[0]), InsertResult::kDuplicateLimit);
  EXPECT_EQ(copies.stats().duplicate_rejections, 1U);
  EXPECT_EQ(copies.stats().inserts, 2U);
  EXPECT_EQ(copies.stats().kick_walks, 0U);
}

// SmartCuckoo, table_size 4 (vertices T0 0..3, T1 4..7), stash_capacity 1. Key (p0, p1)
// has candidate vertices a = p0, b = 4 + p1 (the layout is ClassicCuckoo's, so its
// hash_with_positions places keys). Following smart_cuckoo.hpp's place():
//   A (0,0)  v+2: A at 0.                                   subgraph {0,4}
//   B (1,1)  v+2: B at 1.                                   subgraph {1,5}
//   C (0,1)  a=0 in {0,4}, b=5 in {1,5}, both trees: two non-maximal; 0 is full and 5
//            free, so C takes 5 with no kick. Union {0,1,4,5}: 3 edges, a tree.
//   D (0,1)  same tree: one non-maximal; 5 is full, so the walk starts at 0: A moves
//            to 4 (1 kick). 4 edges on 4 vertices: maximal.
//   E (2,2)  v+2: E at 2.                                   subgraph {2,6}
//   F (2,0)  a=2 in the tree {2,6}, b=4 in the maximal one: non-maximal and maximal;
//            the walk enters the tree at 2: E moves to 6 (1 kick). The union is maximal.
//   G (3,3)  v+2: G at 3.        J (3,3): one non-maximal, 7 free: J at 7, no kick.
//   H (1,1)  both in the big maximal subgraph: one maximal, predicted to fail: stashed.
//   K (0,3)  two maximal subgraphs: predicted to fail, stash full: kFull.
// Then erase(B): the big subgraph loses an edge and becomes a tree (6 vertices, 5 edges,
// 1 free), so H is placeable again and moves back: one stash re-insertion, 0 kicks.
TEST(Statistics, SmartCuckooCasesKicksStashAndRejections) {
  using Smart = cuckoo::SmartCuckoo<std::uint64_t, std::uint64_t, PlacedHasher>;
  cuckoo::SmartCuckooConfig config;
  config.capacity = 8;
  config.stash_capacity = 1;
  config.seed = 1;
  PlacedHasher hasher;
  Smart table(config, hasher);
  ASSERT_EQ(table.table_size(), 4U);
  const auto place = [&](std::uint64_t key, std::uint32_t p0, std::uint32_t p1) {
    place_in_two_tables(hasher, key, p0, p1);
    ASSERT_EQ(table.positions_of(key), std::make_pair(std::size_t{p0}, std::size_t{p1}));
  };
  enum : std::uint64_t { A = 1, B, C, D, E, F, G, J, H, K };
  place(A, 0, 0);
  place(B, 1, 1);
  place(C, 0, 1);
  place(D, 0, 1);
  place(E, 2, 2);
  place(F, 2, 0);
  place(G, 3, 3);
  place(J, 3, 3);
  place(H, 1, 1);
  place(K, 0, 3);
  for (const std::uint64_t key : {A, B, C, D, E, F}) {
    EXPECT_EQ(table.insert(key, key * 10), InsertResult::kInserted) << key;
  }
  EXPECT_EQ(table.stats().last_insert_kicks, 1U);  // F
  EXPECT_EQ(table.vertex_holding(A), std::optional<std::size_t>(4));
  EXPECT_EQ(table.vertex_holding(E), std::optional<std::size_t>(6));
  for (const std::uint64_t key : {G, J, H}) {
    EXPECT_EQ(table.insert(key, key * 10), InsertResult::kInserted) << key;
  }
  EXPECT_TRUE(table.in_stash(H));
  EXPECT_EQ(table.insert(K, K * 10), InsertResult::kFull);
  EXPECT_EQ(table.stats().last_insert_kicks, 0U);

  EXPECT_TRUE(table.erase(B));
  EXPECT_FALSE(table.in_stash(H));
  EXPECT_EQ(table.vertex_holding(H), std::optional<std::size_t>(1));

  const cuckoo::SmartCuckooStats& s = table.stats();
  EXPECT_EQ(s.inserts, 9U);  // A..J and H (in the stash); not K
  EXPECT_EQ(s.total_kicks, 2U);  // D and F
  EXPECT_EQ(s.predicted_failures, 2U);  // H and K
  EXPECT_EQ(s.stash_insertions, 1U);
  EXPECT_EQ(s.stash_reinsertions, 1U);
  EXPECT_EQ(s.max_stash_size, 1U);
  EXPECT_EQ(s.full_rejections, 1U);
  EXPECT_EQ(s.kick_bound_exhaustions, 0U);
  using Case = cuckoo::SmartCuckooCase;
  EXPECT_EQ(s.count(Case::kVPlus2), 4U);  // A, B, E, G
  EXPECT_EQ(s.count(Case::kVPlus1), 0U);
  EXPECT_EQ(s.count(Case::kOneNonMaximal), 2U);  // D, J
  EXPECT_EQ(s.count(Case::kTwoNonMaximal), 1U);  // C
  EXPECT_EQ(s.count(Case::kNonMaximalAndMaximal), 1U);  // F
  EXPECT_EQ(s.count(Case::kTwoMaximal), 1U);  // K
  EXPECT_EQ(s.count(Case::kOneMaximal), 1U);  // H
  EXPECT_EQ(table.size(), 8U);  // nine stored, B erased
  EXPECT_TRUE(table.check_invariants()) << table.invariant_violation().value_or("");
}

}  // namespace
