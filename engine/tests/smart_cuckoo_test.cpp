// Tests of SmartCuckoo (smart_cuckoo.hpp): the insert cases of Algorithms 1-4 built one
// by one with a hasher that puts chosen keys in chosen buckets, deletion (Algorithm 5)
// splitting subgraphs and returning stash items, the prediction against two independent
// placement oracles on random workloads (claim C8), agreement with std::unordered_map
// (claim C7), configuration errors and determinism. Every randomized test uses fixed
// seeds and reports the seed of a failure.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdint>
#include <map>
#include <memory>
#include <numeric>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "cuckoo/detail/rng.hpp"
#include "cuckoo/error.hpp"
#include "cuckoo/hash.hpp"
#include "cuckoo/smart_cuckoo.hpp"
#include "cuckoo/status.hpp"

namespace {

using cuckoo::ConfigError;
using cuckoo::InsertResult;
using cuckoo::SmartCuckoo;
using cuckoo::SmartCuckooCase;
using cuckoo::SmartCuckooConfig;
using cuckoo::SmartCuckooSubgraph;
using Key = std::uint64_t;

// ---- A hasher that places chosen keys in chosen buckets --------------------------------

struct Spot {
  std::uint32_t p0;  // bucket in T0
  std::uint32_t p1;  // bucket in T1
};

// A 64-bit hash h with reduce32(h >> 32, n) == p0 and reduce32(uint32(mix64(h)), n) == p1,
// the engine's documented layout. The high half is the smallest value that maps to p0;
// the low half is searched by a deterministic loop (about n tries).
std::uint64_t hash_for(Spot spot, std::uint32_t n) {
  const std::uint64_t high = ((std::uint64_t{spot.p0} << 32) + n - 1) / n;
  constexpr std::uint64_t kMaxSearch = std::uint64_t{1} << 32;
  for (std::uint64_t low = 0; low < kMaxSearch; ++low) {
    const std::uint64_t h = (high << 32) | low;
    if (cuckoo::detail::reduce32(static_cast<std::uint32_t>(h >> 32), n) == spot.p0 &&
        cuckoo::detail::reduce32(static_cast<std::uint32_t>(cuckoo::detail::mix64(h)), n) ==
            spot.p1) {
      return h;
    }
  }
  ADD_FAILURE() << "no hash found for (" << spot.p0 << ", " << spot.p1 << ")";
  return 0;
}

// Keys listed in the map go to their Spot (whatever the seed); other keys are hashed by
// DefaultHasher. Hashes are computed once and shared by copies.
class PlacedHasher {
 public:
  PlacedHasher(std::uint32_t n, const std::map<Key, Spot>& spots)
      : hashes_(std::make_shared<std::map<Key, std::uint64_t>>()) {
    for (const auto& [key, spot] : spots) (*hashes_)[key] = hash_for(spot, n);
  }
  std::uint64_t operator()(Key key, std::uint64_t seed) const {
    const auto it = hashes_->find(key);
    return it != hashes_->end() ? it->second : cuckoo::DefaultHasher{}(key, seed);
  }

 private:
  std::shared_ptr<std::map<Key, std::uint64_t>> hashes_;
};

using PlacedTable = SmartCuckoo<Key, Key, PlacedHasher>;

// A table of n buckets per table (2n vertices) with the given key placements.
PlacedTable placed_table(std::uint32_t n, const std::map<Key, Spot>& spots,
                         std::size_t stash_capacity = 4, unsigned max_kicks = 500) {
  SmartCuckooConfig config;
  config.capacity = 2 * std::size_t{n};
  config.stash_capacity = stash_capacity;
  config.max_kicks = max_kicks;
  config.seed = 1;
  return PlacedTable(config, PlacedHasher(n, spots));
}

// Vertex numbers of the documented graph: T0[i] is i, T1[j] is n + j.
std::size_t t0(std::size_t i) { return i; }
std::size_t t1(std::size_t n, std::size_t j) { return n + j; }

template <class Table>
SmartCuckooSubgraph subgraph(const Table& t, std::size_t vertex) {
  const auto s = t.subgraph_of(vertex);
  EXPECT_TRUE(s.has_value()) << "vertex " << vertex << " is in no subgraph";
  return s.value_or(SmartCuckooSubgraph{});
}

// The value stored for key; a test failure (and V{}) if it is missing.
template <class Table, class K>
typename Table::mapped_type value_of(const Table& t, const K& key) {
  const auto* v = t.find(key);
  if (v == nullptr) {
    ADD_FAILURE() << "key missing";
    return {};
  }
  return *v;
}

// The engine's first invariant violation, "" if none.
template <class Table>
std::string violation(const Table& t) {
  return t.invariant_violation().value_or("");
}

// Every bucket's key plus one (0 for an empty bucket).
template <class Table>
std::vector<Key> layout(const Table& t) {
  std::vector<Key> out;
  for (std::size_t v = 0; v < t.graph_vertices(); ++v) {
    const Key* k = t.key_at(v);
    out.push_back(k ? *k + 1 : 0);
  }
  return out;
}

// ---- Independent placement oracles -----------------------------------------------------

// (1) For one slot per bucket: every item can be placed iff every connected component
// of the cuckoo graph has edges <= vertices. Computed with a fresh union-find.
bool union_find_says_fits(std::size_t vertex_count,
                          const std::vector<std::pair<std::size_t, std::size_t>>& edges) {
  std::vector<std::size_t> parent(vertex_count);
  std::iota(parent.begin(), parent.end(), std::size_t{0});
  const auto root = [&parent](std::size_t v) {
    while (parent[v] != v) v = parent[v];
    return v;
  };
  for (const auto& [a, b] : edges) {
    const std::size_t ra = root(a);
    const std::size_t rb = root(b);
    if (ra != rb) parent[ra] = rb;
  }
  std::vector<std::size_t> vertices(vertex_count, 0);
  std::vector<std::size_t> edge_count(vertex_count, 0);
  std::vector<bool> touched(vertex_count, false);
  for (const auto& [a, b] : edges) touched[a] = touched[b] = true;
  for (std::size_t v = 0; v < vertex_count; ++v) {
    if (touched[v]) ++vertices[root(v)];
  }
  for (const auto& [a, b] : edges) ++edge_count[root(a)];
  for (std::size_t v = 0; v < vertex_count; ++v) {
    if (edge_count[v] > vertices[v]) return false;
  }
  return true;
}

// (2) Bipartite matching (Kuhn's augmenting paths): every item gets its own bucket.
bool matching_says_fits(std::size_t vertex_count,
                        const std::vector<std::pair<std::size_t, std::size_t>>& edges) {
  std::vector<std::size_t> owner(vertex_count, edges.size());  // item in each bucket
  std::vector<bool> visited;
  const auto augment = [&](auto&& self, std::size_t item) -> bool {
    for (const std::size_t bucket : {edges[item].first, edges[item].second}) {
      if (visited[bucket]) continue;
      visited[bucket] = true;
      if (owner[bucket] == edges.size() || self(self, owner[bucket])) {
        owner[bucket] = item;
        return true;
      }
    }
    return false;
  };
  for (std::size_t item = 0; item < edges.size(); ++item) {
    visited.assign(vertex_count, false);
    if (!augment(augment, item)) return false;
  }
  return true;
}

// The documented layout, recomputed here: p0 from the high half of h, p1 from mix64(h).
std::pair<std::size_t, std::size_t> expected_vertices(Key key, std::uint64_t seed,
                                                      std::size_t n) {
  const std::uint64_t h = cuckoo::DefaultHasher{}(key, seed);
  const auto n32 = static_cast<std::uint32_t>(n);
  return {cuckoo::detail::reduce32(static_cast<std::uint32_t>(h >> 32), n32),
          n + cuckoo::detail::reduce32(static_cast<std::uint32_t>(cuckoo::detail::mix64(h)),
                                       n32)};
}

std::string seed_note(std::uint64_t seed) {
  return "seed=" + std::to_string(seed) + " (the test's seeds are fixed; rerun it to reproduce)";
}

// ---- v+2 and v+1 ------------------------------------------------------------------------

TEST(SmartCuckooCases, VPlus2CreatesASubgraphAndVPlus1ExtendsIt) {
  constexpr std::uint32_t n = 4;
  auto t = placed_table(n, {{1, {0, 0}}, {2, {0, 1}}, {3, {2, 1}}});
  ASSERT_EQ(t.table_size(), n);
  EXPECT_FALSE(t.subgraph_of(t0(0)).has_value());

  EXPECT_EQ(t.classify(1), SmartCuckooCase::kVPlus2);
  ASSERT_EQ(t.insert(1, 10), InsertResult::kInserted);
  EXPECT_EQ(t.vertex_holding(1), t0(0));  // Algorithm 3: B[a] is free
  EXPECT_EQ(subgraph(t, t0(0)), (SmartCuckooSubgraph{t0(0), 2, 1}));
  EXPECT_EQ(subgraph(t, t1(n, 0)), subgraph(t, t0(0)));

  // T0[0] is in the subgraph and full, T1[1] is new: v+1 puts key 2 in B[b].
  EXPECT_EQ(t.classify(2), SmartCuckooCase::kVPlus1);
  ASSERT_EQ(t.insert(2, 20), InsertResult::kInserted);
  EXPECT_EQ(t.vertex_holding(2), t1(n, 1));
  EXPECT_EQ(subgraph(t, t1(n, 1)).vertices, 3u);
  EXPECT_EQ(subgraph(t, t1(n, 1)).edges, 2u);

  // T0[2] is new and free: v+1 puts key 3 in B[a].
  EXPECT_EQ(t.classify(3), SmartCuckooCase::kVPlus1);
  ASSERT_EQ(t.insert(3, 30), InsertResult::kInserted);
  EXPECT_EQ(t.vertex_holding(3), t0(2));
  const auto s = subgraph(t, t0(2));
  EXPECT_EQ(s.vertices, 4u);
  EXPECT_EQ(s.edges, 3u);
  EXPECT_FALSE(s.maximal());
  EXPECT_EQ(t.subgraphs().size(), 1u);

  EXPECT_EQ(t.stats().count(SmartCuckooCase::kVPlus2), 1u);
  EXPECT_EQ(t.stats().count(SmartCuckooCase::kVPlus1), 2u);
  EXPECT_EQ(t.stats().total_kicks, 0u);
  EXPECT_EQ(violation(t), "");
}

// ---- The five v+0 sub-cases --------------------------------------------------------------

TEST(SmartCuckooCases, OneNonMaximalKicksAlongThePathAndBecomesMaximal) {
  constexpr std::uint32_t n = 4;
  // A path T0[0]-T1[0]-T0[1]-T1[1]-T0[2]-T1[2] whose free bucket is T1[0].
  auto t = placed_table(n, {{1, {0, 0}}, {2, {1, 0}}, {3, {1, 1}}, {4, {2, 1}}, {5, {2, 2}},
                            {6, {2, 2}}});
  for (Key k = 1; k <= 5; ++k) ASSERT_EQ(t.insert(k, k), InsertResult::kInserted) << k;
  EXPECT_EQ(t.vertex_holding(2), t0(1));
  EXPECT_EQ(t.vertex_holding(3), t1(n, 1));
  EXPECT_EQ(t.vertex_holding(4), t0(2));
  EXPECT_EQ(t.vertex_holding(5), t1(n, 2));
  EXPECT_EQ(subgraph(t, t0(0)), (SmartCuckooSubgraph{t0(0), 6, 5}));

  // Key 6: both buckets full, same non-maximal subgraph. Kick-out(x, B[a]) walks
  // T0[2] -> T1[1] -> T0[1] -> T1[0] (free): three displacements.
  EXPECT_EQ(t.classify(6), SmartCuckooCase::kOneNonMaximal);
  EXPECT_FALSE(t.would_insert_fail(6));
  ASSERT_EQ(t.insert(6, 6), InsertResult::kInserted);
  EXPECT_EQ(t.stats().last_insert_kicks, 3u);
  EXPECT_EQ(t.vertex_holding(6), t0(2));
  EXPECT_EQ(t.vertex_holding(4), t1(n, 1));
  EXPECT_EQ(t.vertex_holding(3), t0(1));
  EXPECT_EQ(t.vertex_holding(2), t1(n, 0));
  EXPECT_EQ(t.vertex_holding(1), t0(0));
  const auto s = subgraph(t, t1(n, 2));
  EXPECT_EQ(s.vertices, 6u);
  EXPECT_EQ(s.edges, 6u);
  EXPECT_TRUE(s.maximal());
  EXPECT_EQ(t.stats().count(SmartCuckooCase::kOneNonMaximal), 1u);
  EXPECT_EQ(violation(t), "");
}

TEST(SmartCuckooCases, OneNonMaximalTakesAFreeCandidateWithoutKicks) {
  constexpr std::uint32_t n = 4;
  auto t = placed_table(n, {{1, {0, 0}}, {2, {0, 0}}});
  ASSERT_EQ(t.insert(1, 1), InsertResult::kInserted);
  EXPECT_EQ(t.classify(2), SmartCuckooCase::kOneNonMaximal);
  ASSERT_EQ(t.insert(2, 2), InsertResult::kInserted);
  EXPECT_EQ(t.stats().last_insert_kicks, 0u);
  EXPECT_EQ(t.vertex_holding(2), t1(n, 0));
  EXPECT_EQ(subgraph(t, t0(0)), (SmartCuckooSubgraph{t0(0), 2, 2}));
  EXPECT_EQ(violation(t), "");
}

TEST(SmartCuckooCases, TwoNonMaximalKicksIntoAsTreeAndMerges) {
  constexpr std::uint32_t n = 4;
  // Tree {T0[0], T1[0]} (free T1[0]) and tree {T0[1], T1[1], T1[2]} (free T1[1]).
  auto t = placed_table(n, {{1, {0, 0}}, {2, {1, 1}}, {3, {1, 2}}, {4, {0, 2}}});
  for (Key k = 1; k <= 3; ++k) ASSERT_EQ(t.insert(k, k), InsertResult::kInserted);
  ASSERT_EQ(t.vertex_holding(3), t1(n, 2));
  EXPECT_NE(subgraph(t, t0(0)).id, subgraph(t, t0(1)).id);

  // Key 4: T0[0] and T1[2] both full, in two non-maximal subgraphs. Algorithm 4 line 5:
  // Kick-out(x, B[a]) moves key 1 to T1[0]; line 6 merges the two.
  EXPECT_EQ(t.classify(4), SmartCuckooCase::kTwoNonMaximal);
  ASSERT_EQ(t.insert(4, 4), InsertResult::kInserted);
  EXPECT_EQ(t.stats().last_insert_kicks, 1u);
  EXPECT_EQ(t.vertex_holding(4), t0(0));
  EXPECT_EQ(t.vertex_holding(1), t1(n, 0));
  const auto s = subgraph(t, t0(0));
  EXPECT_EQ(s.vertices, 5u);
  EXPECT_EQ(s.edges, 4u);
  EXPECT_FALSE(s.maximal());
  EXPECT_EQ(subgraph(t, t1(n, 1)), s);
  EXPECT_EQ(t.subgraphs().size(), 1u);
  EXPECT_EQ(t.stats().count(SmartCuckooCase::kTwoNonMaximal), 1u);
  EXPECT_EQ(violation(t), "");
}

TEST(SmartCuckooCases, NonMaximalAndMaximalWalksIntoTheNonMaximalSideFromB) {
  constexpr std::uint32_t n = 4;
  // Maximal {T0[0], T1[0]} (two keys on one pair of buckets); tree {T0[1], T1[1], T1[3]}
  // with its free bucket T1[1] and T1[3] full.
  auto t = placed_table(n, {{1, {0, 0}}, {2, {0, 0}}, {3, {1, 1}}, {4, {1, 3}}, {5, {0, 3}}});
  for (Key k = 1; k <= 4; ++k) ASSERT_EQ(t.insert(k, k), InsertResult::kInserted);
  ASSERT_TRUE(subgraph(t, t0(0)).maximal());
  ASSERT_EQ(t.vertex_holding(4), t1(n, 3));

  // Key 5: a = T0[0] maximal, b = T1[3] non-maximal. Entering at a would cycle; the
  // walk goes T1[3] -> T0[1] -> T1[1] (free).
  EXPECT_EQ(t.classify(5), SmartCuckooCase::kNonMaximalAndMaximal);
  ASSERT_EQ(t.insert(5, 5), InsertResult::kInserted);
  EXPECT_EQ(t.stats().last_insert_kicks, 2u);
  EXPECT_EQ(t.vertex_holding(5), t1(n, 3));
  EXPECT_EQ(t.vertex_holding(4), t0(1));
  EXPECT_EQ(t.vertex_holding(3), t1(n, 1));
  EXPECT_EQ(t.vertex_holding(1), t0(0));  // the maximal side did not move
  EXPECT_EQ(t.vertex_holding(2), t1(n, 0));
  const auto s = subgraph(t, t0(1));
  EXPECT_EQ(s.vertices, 5u);
  EXPECT_EQ(s.edges, 5u);
  EXPECT_TRUE(s.maximal());
  EXPECT_EQ(subgraph(t, t0(0)), s);
  EXPECT_EQ(violation(t), "");
}

TEST(SmartCuckooCases, NonMaximalAndMaximalWalksIntoTheNonMaximalSideFromA) {
  constexpr std::uint32_t n = 4;
  // Maximal {T0[0], T1[0]}; tree {T0[1], T1[1]} with T0[1] full. Key 5 = (T0[1], T1[0]).
  auto t = placed_table(n, {{1, {0, 0}}, {2, {0, 0}}, {3, {1, 1}}, {5, {1, 0}}});
  for (Key k = 1; k <= 3; ++k) ASSERT_EQ(t.insert(k, k), InsertResult::kInserted);
  EXPECT_EQ(t.classify(5), SmartCuckooCase::kNonMaximalAndMaximal);
  ASSERT_EQ(t.insert(5, 5), InsertResult::kInserted);
  EXPECT_EQ(t.stats().last_insert_kicks, 1u);
  EXPECT_EQ(t.vertex_holding(5), t0(1));
  EXPECT_EQ(t.vertex_holding(3), t1(n, 1));
  EXPECT_EQ(subgraph(t, t0(0)), (SmartCuckooSubgraph{subgraph(t, t0(0)).id, 4, 4}));
  EXPECT_EQ(t.stats().count(SmartCuckooCase::kNonMaximalAndMaximal), 1u);
  EXPECT_EQ(violation(t), "");
}

TEST(SmartCuckooCases, TwoMaximalIsAPredictedFailureWithNoKick) {
  constexpr std::uint32_t n = 4;
  auto t = placed_table(n, {{1, {0, 0}}, {2, {0, 0}}, {3, {1, 1}}, {4, {1, 1}}, {5, {0, 1}}});
  for (Key k = 1; k <= 4; ++k) ASSERT_EQ(t.insert(k, k), InsertResult::kInserted);
  const auto before = layout(t);
  const auto subgraphs_before = t.subgraphs();
  const auto kicks_before = t.stats().total_kicks;

  EXPECT_EQ(t.classify(5), SmartCuckooCase::kTwoMaximal);
  EXPECT_TRUE(t.would_insert_fail(5));
  ASSERT_EQ(t.insert(5, 50), InsertResult::kInserted);
  EXPECT_TRUE(t.in_stash(5));
  EXPECT_EQ(t.stash_size(), 1u);
  EXPECT_EQ(t.size(), 5u);
  EXPECT_EQ(value_of(t, 5), 50u);
  EXPECT_EQ(t.stats().last_insert_kicks, 0u);
  EXPECT_EQ(t.stats().total_kicks, kicks_before);
  EXPECT_EQ(t.stats().predicted_failures, 1u);
  EXPECT_EQ(t.stats().stash_insertions, 1u);
  EXPECT_EQ(t.stats().count(SmartCuckooCase::kTwoMaximal), 1u);
  EXPECT_EQ(layout(t), before);
  EXPECT_EQ(t.subgraphs(), subgraphs_before);
  EXPECT_EQ(violation(t), "");
}

TEST(SmartCuckooCases, OneMaximalIsAPredictedFailureWithNoKick) {
  constexpr std::uint32_t n = 4;
  // A 4-cycle T0[0]-T1[0]-T0[1]-T1[1]-T0[0], then key 5 on two of its buckets.
  auto t = placed_table(n, {{1, {0, 0}}, {2, {1, 0}}, {3, {1, 1}}, {4, {0, 1}}, {5, {1, 0}}});
  for (Key k = 1; k <= 4; ++k) ASSERT_EQ(t.insert(k, k), InsertResult::kInserted);
  ASSERT_EQ(subgraph(t, t0(0)).vertices, 4u);
  ASSERT_TRUE(subgraph(t, t0(0)).maximal());
  const auto before = layout(t);

  EXPECT_EQ(t.classify(5), SmartCuckooCase::kOneMaximal);
  EXPECT_TRUE(t.would_insert_fail(5));
  ASSERT_EQ(t.insert(5, 50), InsertResult::kInserted);
  EXPECT_TRUE(t.in_stash(5));
  EXPECT_EQ(t.stats().last_insert_kicks, 0u);
  EXPECT_EQ(t.stats().predicted_failures, 1u);
  EXPECT_EQ(t.stats().count(SmartCuckooCase::kOneMaximal), 1u);
  EXPECT_EQ(layout(t), before);
  EXPECT_EQ(violation(t), "");
}

TEST(SmartCuckooCases, FullStashReportsFullAndChangesNothing) {
  constexpr std::uint32_t n = 4;
  auto t = placed_table(n, {{1, {0, 0}}, {2, {0, 0}}, {3, {1, 1}}, {4, {1, 1}}, {5, {0, 1}},
                            {6, {1, 0}}},
                        /*stash_capacity=*/1);
  for (Key k = 1; k <= 5; ++k) ASSERT_EQ(t.insert(k, k), InsertResult::kInserted);
  ASSERT_EQ(t.stash_size(), 1u);
  const auto before = layout(t);
  const auto subgraphs_before = t.subgraphs();

  EXPECT_TRUE(t.would_insert_fail(6));
  EXPECT_EQ(t.insert(6, 6), InsertResult::kFull);
  EXPECT_EQ(t.insert_or_assign(6, 7), InsertResult::kFull);
  EXPECT_FALSE(t.contains(6));
  EXPECT_EQ(t.size(), 5u);
  EXPECT_EQ(t.stash_size(), 1u);
  EXPECT_EQ(layout(t), before);
  EXPECT_EQ(t.subgraphs(), subgraphs_before);
  for (Key k = 1; k <= 5; ++k) EXPECT_EQ(value_of(t, k), k);
  EXPECT_EQ(t.stats().full_rejections, 2u);
  EXPECT_EQ(t.stats().predicted_failures, 3u);
  EXPECT_EQ(t.stats().total_kicks, 0u);
  EXPECT_EQ(violation(t), "");

  // Without a stash, the first predicted failure is already kFull.
  auto bare = placed_table(n, {{1, {0, 0}}, {2, {0, 0}}, {3, {0, 0}}}, /*stash_capacity=*/0);
  ASSERT_EQ(bare.insert(1, 1), InsertResult::kInserted);
  ASSERT_EQ(bare.insert(2, 2), InsertResult::kInserted);
  EXPECT_EQ(bare.insert(3, 3), InsertResult::kFull);
  EXPECT_EQ(bare.size(), 2u);
  EXPECT_TRUE(bare.check_invariants());
}

// ---- The ID tree ---------------------------------------------------------------------------

TEST(SmartCuckooIds, FindCompressesThePathOnInsertButNotOnQueries) {
  constexpr std::uint32_t n = 8;
  auto t = placed_table(n, {{1, {0, 0}}, {2, {1, 1}}, {3, {0, 1}}, {4, {3, 1}}});
  ASSERT_EQ(t.insert(1, 1), InsertResult::kInserted);  // subgraph ID T0[0]
  ASSERT_EQ(t.insert(2, 2), InsertResult::kInserted);  // subgraph ID T0[1]
  EXPECT_EQ(t.recorded_id(t1(n, 1)), t0(1));
  ASSERT_EQ(t.insert(3, 3), InsertResult::kInserted);  // union: T0[1] under T0[0]
  EXPECT_EQ(t.recorded_id(t0(1)), t0(0));
  EXPECT_EQ(t.recorded_id(t1(n, 1)), t0(1));  // depth 2 in the ID tree
  EXPECT_EQ(subgraph(t, t1(n, 1)).id, t0(0));
  EXPECT_EQ(t.recorded_id(t0(5)), PlacedTable::kNoSubgraph);

  // Queries write nothing...
  EXPECT_EQ(t.classify(4), SmartCuckooCase::kVPlus1);
  EXPECT_FALSE(t.would_insert_fail(4));
  EXPECT_EQ(t.recorded_id(t1(n, 1)), t0(1));
  // ...the insert's find compresses T1[1]'s path to the root.
  ASSERT_EQ(t.insert(4, 4), InsertResult::kInserted);
  EXPECT_EQ(t.recorded_id(t1(n, 1)), t0(0));
  EXPECT_EQ(t.recorded_id(t0(3)), t0(0));
  EXPECT_EQ(subgraph(t, t0(3)), (SmartCuckooSubgraph{t0(0), 5, 4}));
  EXPECT_EQ(violation(t), "");
}

TEST(SmartCuckooIds, UnionBySizeKeepsIdTreesShallow) {
  // Forty merges, each of a fresh two-vertex tree into the growing one: linking the
  // bigger root under the smaller would make a chain forty deep.
  constexpr std::uint32_t n = 64;
  constexpr std::uint32_t kMerges = 40;
  std::map<Key, Spot> spots{{1000, {0, 0}}};
  for (std::uint32_t i = 1; i <= kMerges; ++i) {
    spots[1000 + i] = {i, i};      // a new tree {T0[i], T1[i]}
    spots[2000 + i] = {i, i - 1};  // joins it to the big tree
  }
  auto t = placed_table(n, spots);
  ASSERT_EQ(t.insert(1000, 0), InsertResult::kInserted);
  for (Key i = 1; i <= kMerges; ++i) {
    ASSERT_EQ(t.insert(1000 + i, i), InsertResult::kInserted);
    ASSERT_EQ(t.classify(2000 + i), SmartCuckooCase::kTwoNonMaximal) << i;
    ASSERT_EQ(t.insert(2000 + i, i), InsertResult::kInserted);
  }
  const auto s = subgraph(t, t0(0));
  ASSERT_EQ(s.vertices, 2u * (kMerges + 1));
  std::size_t deepest = 0;
  for (std::size_t v = 0; v < t.graph_vertices(); ++v) {
    if (!t.subgraph_of(v)) continue;
    std::size_t depth = 0;
    for (std::size_t at = v; t.recorded_id(at) != at && depth <= kMerges; ++depth) {
      at = t.recorded_id(at);
    }
    deepest = std::max(deepest, depth);
  }
  EXPECT_LE(deepest, 7u) << "ID tree deeper than log2(" << s.vertices << ")";
  EXPECT_EQ(violation(t), "");
}

// ---- Deletion (Algorithm 5) ------------------------------------------------------------------

TEST(SmartCuckooErase, BreakingAPathInTheMiddleSplitsTheSubgraph) {
  constexpr std::uint32_t n = 8;
  // Path T0[0]-T1[0]-T0[1]-T1[1]-T0[2]-T1[2] with keys 1..5 on its edges.
  auto t = placed_table(n, {{1, {0, 0}}, {2, {1, 0}}, {3, {1, 1}}, {4, {2, 1}}, {5, {2, 2}}});
  for (Key k = 1; k <= 5; ++k) ASSERT_EQ(t.insert(k, k), InsertResult::kInserted);
  ASSERT_EQ(t.subgraphs().size(), 1u);

  ASSERT_TRUE(t.erase(3));  // the middle edge T0[1]-T1[1]
  EXPECT_FALSE(t.contains(3));
  EXPECT_EQ(violation(t), "");
  const auto left = subgraph(t, t0(0));
  const auto right = subgraph(t, t1(n, 2));
  EXPECT_NE(left.id, right.id);
  EXPECT_EQ(left.vertices, 3u);
  EXPECT_EQ(left.edges, 2u);
  EXPECT_EQ(right.vertices, 3u);
  EXPECT_EQ(right.edges, 2u);
  EXPECT_EQ(subgraph(t, t0(1)), left);
  EXPECT_EQ(subgraph(t, t1(n, 0)), left);
  EXPECT_EQ(subgraph(t, t1(n, 1)), right);
  EXPECT_EQ(subgraph(t, t0(2)), right);
  EXPECT_EQ(t.subgraphs().size(), 2u);

  ASSERT_TRUE(t.erase(1));  // a leaf edge: T0[0] leaves the pseudoforest
  EXPECT_FALSE(t.subgraph_of(t0(0)).has_value());
  EXPECT_EQ(t.recorded_id(t0(0)), PlacedTable::kNoSubgraph);
  EXPECT_EQ(subgraph(t, t1(n, 0)).vertices, 2u);
  EXPECT_EQ(subgraph(t, t1(n, 0)).edges, 1u);
  EXPECT_EQ(violation(t), "");

  ASSERT_TRUE(t.erase(2));  // the last edge of that piece: both ends leave
  EXPECT_FALSE(t.subgraph_of(t1(n, 0)).has_value());
  EXPECT_FALSE(t.subgraph_of(t0(1)).has_value());
  EXPECT_EQ(t.subgraphs().size(), 1u);
  EXPECT_FALSE(t.erase(2));
  EXPECT_EQ(violation(t), "");
}

TEST(SmartCuckooErase, MaximalSubgraphLosesItsTailThenItsCycle) {
  constexpr std::uint32_t n = 8;
  // 4-cycle T0[0]-T1[0]-T0[1]-T1[1] (keys 1-4) with a tail T1[1]-T0[2]-T1[2] (keys 5, 6).
  auto t = placed_table(
      n, {{1, {0, 0}}, {2, {1, 0}}, {3, {1, 1}}, {4, {0, 1}}, {5, {2, 1}}, {6, {2, 2}}});
  for (Key k = 1; k <= 6; ++k) ASSERT_EQ(t.insert(k, k), InsertResult::kInserted);
  ASSERT_EQ(subgraph(t, t0(0)), (SmartCuckooSubgraph{subgraph(t, t0(0)).id, 6, 6}));

  ASSERT_TRUE(t.erase(5));  // the bridge: a maximal cycle and a tree remain
  EXPECT_EQ(violation(t), "");
  const auto cycle = subgraph(t, t0(0));
  const auto tail = subgraph(t, t0(2));
  EXPECT_NE(cycle.id, tail.id);
  EXPECT_EQ(cycle.vertices, 4u);
  EXPECT_TRUE(cycle.maximal());
  EXPECT_EQ(tail.vertices, 2u);
  EXPECT_EQ(tail.edges, 1u);

  ASSERT_TRUE(t.erase(2));  // an edge of the cycle: one tree, no longer maximal
  EXPECT_EQ(violation(t), "");
  const auto tree = subgraph(t, t1(n, 1));
  EXPECT_EQ(tree.vertices, 4u);
  EXPECT_EQ(tree.edges, 3u);
  EXPECT_FALSE(tree.maximal());
  EXPECT_EQ(subgraph(t, t0(0)), tree);
  EXPECT_EQ(subgraph(t, t0(1)), tree);
  for (const Key k : {1, 3, 4, 6}) EXPECT_EQ(value_of(t, k), k);
}

TEST(SmartCuckooErase, StashItemMovesBackWhenItsSubgraphStopsBeingMaximal) {
  constexpr std::uint32_t n = 4;
  auto t = placed_table(n, {{1, {0, 0}}, {2, {0, 0}}, {3, {1, 1}}, {4, {1, 1}}, {5, {0, 1}},
                            {6, {1, 0}}});
  for (Key k = 1; k <= 6; ++k) ASSERT_EQ(t.insert(k, k * 10), InsertResult::kInserted);
  ASSERT_EQ(t.stash_size(), 2u);  // keys 5 and 6: two maximal subgraphs each
  ASSERT_EQ(violation(t), "");

  // Erasing key 1 turns {T0[0], T1[0]} into a tree: key 5 (T0[0], T1[1]) is now case
  // (3) and moves back; key 6 (T0[1], T1[0]) then meets a maximal merged subgraph.
  ASSERT_TRUE(t.erase(1));
  EXPECT_EQ(violation(t), "");
  EXPECT_EQ(t.stash_size(), 1u);
  EXPECT_TRUE(t.vertex_holding(5).has_value());
  EXPECT_TRUE(t.in_stash(6));
  EXPECT_EQ(t.stats().stash_reinsertions, 1u);
  EXPECT_EQ(t.size(), 5u);

  // Erasing key 3 frees a bucket of key 6's subgraph: it moves back too.
  ASSERT_TRUE(t.erase(3));
  EXPECT_EQ(violation(t), "");
  EXPECT_EQ(t.stash_size(), 0u);
  EXPECT_TRUE(t.vertex_holding(6).has_value());
  EXPECT_EQ(t.stats().stash_reinsertions, 2u);
  for (const Key k : {2, 4, 5, 6}) EXPECT_EQ(value_of(t, k), k * 10);
  EXPECT_EQ(t.stats().max_stash_size, 2u);
}

TEST(SmartCuckooErase, ErasingAStashItemLeavesTheGraphAlone) {
  constexpr std::uint32_t n = 4;
  auto t = placed_table(n, {{1, {0, 0}}, {2, {0, 0}}, {5, {0, 0}}});
  for (const Key k : {1, 2, 5}) ASSERT_EQ(t.insert(k, k), InsertResult::kInserted);
  ASSERT_TRUE(t.in_stash(5));
  const auto before = layout(t);
  const auto subgraphs_before = t.subgraphs();
  EXPECT_TRUE(t.erase(5));
  EXPECT_FALSE(t.contains(5));
  EXPECT_EQ(t.stash_size(), 0u);
  EXPECT_EQ(layout(t), before);
  EXPECT_EQ(t.subgraphs(), subgraphs_before);
  EXPECT_EQ(violation(t), "");
}

// ---- The kick bound ---------------------------------------------------------------------------

TEST(SmartCuckooKickBound, AWalkLongerThanMaxKicksChangesNothingAndIsCounted) {
  constexpr std::uint32_t n = 4;
  // The path of OneNonMaximalKicksAlongThePath: key 6 needs three displacements.
  auto t = placed_table(n,
                        {{1, {0, 0}}, {2, {1, 0}}, {3, {1, 1}}, {4, {2, 1}}, {5, {2, 2}},
                         {6, {2, 2}}},
                        /*stash_capacity=*/2, /*max_kicks=*/2);
  for (Key k = 1; k <= 5; ++k) ASSERT_EQ(t.insert(k, k), InsertResult::kInserted);
  const auto before = layout(t);
  const auto subgraphs_before = t.subgraphs();
  EXPECT_FALSE(t.would_insert_fail(6));  // a placement exists...
  ASSERT_EQ(t.insert(6, 6), InsertResult::kInserted);
  EXPECT_TRUE(t.in_stash(6));  // ...but the bound refused the walk
  EXPECT_EQ(t.stats().kick_bound_exhaustions, 1u);
  EXPECT_EQ(t.stats().predicted_failures, 0u);
  EXPECT_EQ(t.stats().last_insert_kicks, 0u);
  EXPECT_EQ(layout(t), before);
  EXPECT_EQ(t.subgraphs(), subgraphs_before);
  EXPECT_EQ(violation(t), "");
}

// ---- Map semantics ---------------------------------------------------------------------------

TEST(SmartCuckooMap, ExistsAndUpdatedInTablesAndStash) {
  constexpr std::uint32_t n = 4;
  auto t = placed_table(n, {{1, {0, 0}}, {2, {0, 0}}, {5, {0, 0}}});
  for (const Key k : {1, 2, 5}) ASSERT_EQ(t.insert(k, k), InsertResult::kInserted);
  ASSERT_TRUE(t.in_stash(5));
  const auto stats_before = t.stats();
  for (const Key k : {1, 5}) {
    EXPECT_EQ(t.insert(k, 99), InsertResult::kExists);
    EXPECT_EQ(value_of(t, k), k);
    EXPECT_FALSE(t.would_insert_fail(k));  // present: insert would not fail
    EXPECT_EQ(t.insert_or_assign(k, 77), InsertResult::kUpdated);
    EXPECT_EQ(value_of(t, k), 77u);
  }
  EXPECT_EQ(t.size(), 3u);
  EXPECT_EQ(t.stats().inserts, stats_before.inserts);
  EXPECT_EQ(t.stats().case_counts, stats_before.case_counts);
  EXPECT_EQ(t.insert_or_assign(9, 9), InsertResult::kInserted);
  if (Key* v = t.find(9)) {
    *v = 10;
  } else {
    ADD_FAILURE() << "key 9 missing";
  }
  EXPECT_EQ(value_of(std::as_const(t), 9), 10u);
  EXPECT_EQ(t.find(12345), nullptr);
  EXPECT_EQ(violation(t), "");

  t.clear();
  EXPECT_EQ(t.size(), 0u);
  EXPECT_TRUE(t.subgraphs().empty());
  EXPECT_FALSE(t.contains(1));
  EXPECT_EQ(violation(t), "");
  EXPECT_EQ(t.insert(1, 1), InsertResult::kInserted);
  EXPECT_EQ(t.classify(2), SmartCuckooCase::kOneNonMaximal);
}

TEST(SmartCuckooMap, StringKeys) {
  SmartCuckooConfig config;
  config.capacity = 64;
  config.seed = 7;
  SmartCuckoo<std::string, int> t(config);
  for (int i = 0; i < 20; ++i) {
    EXPECT_TRUE(cuckoo::succeeded(t.insert("key-" + std::to_string(i), i))) << i;
  }
  EXPECT_EQ(t.size(), 20u);
  EXPECT_EQ(value_of(t, "key-7"), 7);
  EXPECT_TRUE(t.erase("key-7"));
  EXPECT_FALSE(t.contains("key-7"));
  EXPECT_EQ(violation(t), "");
}

TEST(SmartCuckooMap, DocumentedLayout) {
  SmartCuckooConfig config;
  config.capacity = 37;  // odd: each table gets 19 buckets
  config.seed = 0xabcdef;
  SmartCuckoo<> t(config);
  EXPECT_EQ(t.table_size(), 19u);
  EXPECT_EQ(t.capacity(), 38u);
  EXPECT_EQ(t.graph_vertices(), 38u);
  EXPECT_EQ(t.seed(), 0xabcdefu);
  for (Key k = 0; k < 200; ++k) {
    const auto expected = expected_vertices(k, t.seed(), t.table_size());
    EXPECT_EQ(t.vertices_of(k), expected) << k;
    EXPECT_EQ(t.positions_of(k), std::make_pair(expected.first, expected.second - 19)) << k;
  }
  for (Key k = 0; k < 10; ++k) ASSERT_TRUE(cuckoo::succeeded(t.insert(k, k)));
  EXPECT_DOUBLE_EQ(t.load_factor(), static_cast<double>(t.size() - t.stash_size()) / 38.0);
}

// ---- Configuration -------------------------------------------------------------------------

TEST(SmartCuckooConfigTest, InvalidConfigurationsNameTheField) {
  const auto field_of = [](const SmartCuckooConfig& config) -> std::string {
    try {
      SmartCuckoo<> t(config);
    } catch (const ConfigError& e) {
      EXPECT_NE(std::string(e.what()).find(e.field()), std::string::npos);
      return e.field();
    }
    return "(accepted)";
  };
  SmartCuckooConfig c;
  c.capacity = 0;
  EXPECT_EQ(field_of(c), "capacity");
  c.capacity = 1;
  EXPECT_EQ(field_of(c), "capacity");
  c.capacity = SmartCuckooConfig::kMaxCapacity + 1;
  EXPECT_EQ(field_of(c), "capacity");
  c = {};
  c.max_kicks = 0;
  EXPECT_EQ(field_of(c), "max_kicks");
  c = {};
  c.stash_capacity = SmartCuckooConfig::kMaxStashCapacity + 1;
  EXPECT_EQ(field_of(c), "stash_capacity");

  c = {};
  c.capacity = 2;
  c.stash_capacity = 0;
  EXPECT_EQ(field_of(c), "(accepted)");
  c.stash_capacity = SmartCuckooConfig::kMaxStashCapacity;
  EXPECT_EQ(field_of(c), "(accepted)");
  c = {};
  EXPECT_NE(SmartCuckoo<>(c).seed(), SmartCuckoo<>(c).seed());  // drawn per table
}

// ---- Randomized: prediction against the oracles (C8), and the model (C7) ---------------

struct WorkloadResult {
  std::size_t predictions = 0;
  std::size_t predicted_failures = 0;
};

// One random workload on a tiny table. Before every insert of an absent key, compares
// would_insert_fail() and classify() with both oracles; after every operation, checks
// the invariants and the model.
WorkloadResult run_oracle_workload(std::uint64_t seed) {
  cuckoo::detail::Rng rng(seed);
  SmartCuckooConfig config;
  config.capacity = 4 + rng.below(61);  // 4 .. 64 buckets
  config.stash_capacity = rng.below(4);
  config.seed = seed;
  SmartCuckoo<> t(config);
  const std::size_t n = t.table_size();
  const std::size_t key_range = 2 * t.capacity() / 3 + 2;
  std::unordered_map<Key, Key> model;
  WorkloadResult result;

  const auto table_edges = [&] {
    std::vector<std::pair<std::size_t, std::size_t>> edges;
    for (const auto& [key, value] : model) {
      if (!t.in_stash(key)) edges.push_back(expected_vertices(key, seed, n));
    }
    return edges;
  };

  constexpr std::size_t kOps = 160;
  for (std::size_t op = 0; op < kOps; ++op) {
    SCOPED_TRACE("op " + std::to_string(op));
    const Key key = rng.below(key_range);
    const std::uint64_t choice = rng.below(100);
    if (choice < 60) {
      const bool assign = choice >= 50;
      const bool present = model.count(key) != 0;
      bool predicted = false;
      if (!present) {
        auto edges = table_edges();
        EXPECT_TRUE(union_find_says_fits(2 * n, edges)) << "the tables hold an impossible set";
        edges.push_back(expected_vertices(key, seed, n));
        const bool fits = union_find_says_fits(2 * n, edges);
        EXPECT_EQ(fits, matching_says_fits(2 * n, edges)) << "the two oracles disagree";
        predicted = t.would_insert_fail(key);
        EXPECT_EQ(predicted, !fits) << "key " << key;
        EXPECT_EQ(cuckoo::predicts_failure(t.classify(key)), predicted) << "key " << key;
        ++result.predictions;
        if (predicted) ++result.predicted_failures;
      }
      const std::size_t stash_before = t.stash_size();
      const std::size_t size_before = t.size();
      const InsertResult r = assign ? t.insert_or_assign(key, op) : t.insert(key, op);
      if (present) {
        EXPECT_EQ(r, assign ? InsertResult::kUpdated : InsertResult::kExists);
        if (assign) model[key] = op;
      } else if (predicted) {
        EXPECT_EQ(t.stats().last_insert_kicks, 0u) << "a predicted failure kicked";
        if (stash_before < config.stash_capacity) {
          EXPECT_EQ(r, InsertResult::kInserted);
          EXPECT_TRUE(t.in_stash(key));
          model[key] = op;
        } else {
          EXPECT_EQ(r, InsertResult::kFull);
          EXPECT_EQ(t.size(), size_before);
        }
      } else {
        EXPECT_EQ(r, InsertResult::kInserted);
        EXPECT_TRUE(t.vertex_holding(key).has_value()) << "predicted success not placed";
        model[key] = op;
      }
    } else if (choice < 85) {
      EXPECT_EQ(t.erase(key), model.erase(key) == 1) << "key " << key;
    } else {
      const Key* v = t.find(key);
      const auto it = model.find(key);
      EXPECT_EQ(v != nullptr, it != model.end()) << "key " << key;
      if (v && it != model.end()) {
        EXPECT_EQ(*v, it->second);
      }
    }
    EXPECT_EQ(t.size(), model.size());
    const std::string broken = violation(t);
    EXPECT_EQ(broken, "");
    if (!broken.empty() || ::testing::Test::HasFailure()) return result;
  }
  for (const auto& [key, value] : model) {
    const Key* v = t.find(key);
    EXPECT_TRUE(v && *v == value) << "key " << key;
  }
  EXPECT_EQ(t.stats().kick_bound_exhaustions, 0u);
  return result;
}

TEST(SmartCuckooRandom, PredictionMatchesPlacementOraclesOnTinyTables) {
  constexpr std::uint64_t kSeeds = 400;
  WorkloadResult total;
  for (std::uint64_t seed = 1; seed <= kSeeds; ++seed) {
    SCOPED_TRACE(seed_note(seed));
    const WorkloadResult r = run_oracle_workload(seed);
    total.predictions += r.predictions;
    total.predicted_failures += r.predicted_failures;
    if (HasFailure()) return;
  }
  // The workloads must exercise both answers, or the comparison proves little.
  EXPECT_GT(total.predicted_failures, 100u);
  EXPECT_GT(total.predictions - total.predicted_failures, 1000u);
}

TEST(SmartCuckooRandom, AgreesWithUnorderedMapAndCoversEveryCase) {
  for (const std::uint64_t seed : {11u, 12u, 13u}) {
    SCOPED_TRACE(seed_note(seed));
    cuckoo::detail::Rng rng(seed);
    SmartCuckooConfig config;
    config.capacity = 2048;
    config.stash_capacity = 4;
    config.seed = seed;
    SmartCuckoo<> t(config);
    std::unordered_map<Key, Key> model;
    constexpr std::size_t kOps = 20000;
    constexpr Key kKeyRange = 1700;  // the live set hovers above the ~50% threshold
    for (std::size_t op = 0; op < kOps; ++op) {
      const Key key = rng.below(kKeyRange);
      const std::uint64_t choice = rng.below(100);
      if (choice < 45) {
        const InsertResult r = t.insert(key, op);
        if (model.count(key)) {
          ASSERT_EQ(r, InsertResult::kExists) << "op " << op;
        } else if (r == InsertResult::kInserted) {
          model[key] = op;
        } else {
          ASSERT_EQ(r, InsertResult::kFull) << "op " << op;
          ASSERT_TRUE(t.would_insert_fail(key)) << "op " << op;
        }
      } else if (choice < 55) {
        const InsertResult r = t.insert_or_assign(key, op);
        if (model.count(key)) {
          ASSERT_EQ(r, InsertResult::kUpdated) << "op " << op;
          model[key] = op;
        } else if (r == InsertResult::kInserted) {
          model[key] = op;
        } else {
          ASSERT_EQ(r, InsertResult::kFull) << "op " << op;
        }
      } else if (choice < 85) {
        ASSERT_EQ(t.erase(key), model.erase(key) == 1) << "op " << op;
      } else {
        const Key* v = t.find(key);
        const auto it = model.find(key);
        ASSERT_EQ(v != nullptr, it != model.end()) << "op " << op;
        if (v) {
          ASSERT_EQ(*v, it->second) << "op " << op;
        }
      }
      ASSERT_EQ(t.size(), model.size()) << "op " << op;
      if (op % 500 == 0) {
        ASSERT_EQ(violation(t), "") << "op " << op;
      }
    }
    ASSERT_EQ(violation(t), "");
    for (const auto& [key, value] : model) ASSERT_EQ(value_of(t, key), value);
    const auto& s = t.stats();
    for (std::size_t c = 0; c < cuckoo::kSmartCuckooCaseCount; ++c) {
      EXPECT_GT(s.case_counts[c], 0u)
          << "case " << cuckoo::to_string(static_cast<SmartCuckooCase>(c)) << " never met";
    }
    EXPECT_GT(s.stash_reinsertions, 0u);
    EXPECT_GT(s.full_rejections, 0u);
    EXPECT_EQ(s.kick_bound_exhaustions, 0u);
    std::printf("seed %llu: load %.3f, size %zu, stash max %llu, predicted failures %llu, full %llu, reinsertions %llu, kicks %llu\n",
                static_cast<unsigned long long>(seed), t.load_factor(), t.size(),
                static_cast<unsigned long long>(s.max_stash_size),
                static_cast<unsigned long long>(s.predicted_failures),
                static_cast<unsigned long long>(s.full_rejections),
                static_cast<unsigned long long>(s.stash_reinsertions),
                static_cast<unsigned long long>(s.total_kicks));
  }
}

TEST(SmartCuckooRandom, FillsToAboutHalfBeforeTheFirstFullAndLosesNothing) {
  for (const std::uint64_t seed : {21u, 22u}) {
    SCOPED_TRACE(seed_note(seed));
    SmartCuckooConfig config;
    config.capacity = 1 << 14;
    config.stash_capacity = 8;
    config.seed = seed;
    SmartCuckoo<> t(config);
    cuckoo::detail::Rng rng(seed);
    std::vector<std::pair<Key, Key>> stored;
    constexpr std::size_t kMaxAttempts = 1 << 14;
    for (std::size_t i = 0; i < kMaxAttempts; ++i) {
      const Key key = rng.next();
      const bool predicted = t.would_insert_fail(key);
      const auto kicks_before = t.stats().total_kicks;
      const InsertResult r = t.insert(key, i);
      if (predicted) {
        ASSERT_EQ(t.stats().total_kicks, kicks_before);
      }
      if (r == InsertResult::kFull) break;
      ASSERT_EQ(r, InsertResult::kInserted);
      stored.emplace_back(key, i);
    }
    std::printf("seed %llu: load %.4f\n", static_cast<unsigned long long>(seed), t.load_factor());
    EXPECT_EQ(t.stash_size(), 8u);
    // One slot per bucket: the pseudoforest stops taking most edges past about half
    // load (claim C3); the stash of 8 lets a little more in.
    EXPECT_GT(t.load_factor(), 0.40);
    EXPECT_LT(t.load_factor(), 0.65);
    EXPECT_EQ(t.stats().predicted_failures, 9u);
    EXPECT_EQ(t.stats().kick_bound_exhaustions, 0u);
    for (const auto& [key, value] : stored) ASSERT_EQ(value_of(t, key), value);
    EXPECT_EQ(violation(t), "");
  }
}

TEST(SmartCuckooRandom, SameSeedSameLayoutAndStats) {
  const auto build = [](std::uint64_t seed) {
    SmartCuckooConfig config;
    config.capacity = 256;
    config.seed = seed;
    SmartCuckoo<> t(config);
    cuckoo::detail::Rng rng(99);
    for (int i = 0; i < 3000; ++i) {
      const Key key = rng.below(200);
      if (rng.below(3) == 0) {
        t.erase(key);
      } else {
        t.insert(key, key);
      }
    }
    return t;
  };
  const auto a = build(5);
  const auto b = build(5);
  EXPECT_EQ(layout(a), layout(b));
  EXPECT_EQ(a.stats(), b.stats());
  EXPECT_EQ(a.subgraphs(), b.subgraphs());
  for (Key k = 0; k < 200; ++k) EXPECT_EQ(a.in_stash(k), b.in_stash(k));
  EXPECT_GT(a.stats().total_kicks, 0u);
  const auto c = build(6);
  EXPECT_NE(layout(a), layout(c));
}

}  // namespace
