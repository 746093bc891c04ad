// SmartCuckoo: a one-slot cuckoo hash map that knows, before any kick, whether an
// insert can succeed.
//
// Design (Sun et al., "SmartCuckoo: A Fast and Cost-Efficient Hashing Index Scheme for
// Cloud Storage Systems", USENIX ATC'17; seed 000, section 3.2)
//
// Layout. Two tables T0 and T1 of n = ceil(capacity / 2) buckets, one slot per bucket,
// the same layout as ClassicCuckoo. A key x is hashed once, h = hasher(x, seed), and may
// live in T0[p0] or T1[p1] with
//     p0 = reduce32(uint32(h >> 32), n)        p1 = reduce32(uint32(mix64(h)), n).
// A small stash (at most stash_capacity items, scanned linearly) holds the items that
// cannot be placed; lookups and deletes consult it.
//
// The cuckoo graph. Its 2n vertices are the buckets: vertex p0 is T0[p0], vertex n + p1
// is T1[p1]. Every item stored in the tables is an edge between its two buckets,
// directed from the bucket that holds it toward its alternate bucket (the way a kick
// would move it), so every vertex has out-degree 0 (free) or 1 (full). Each connected
// component ("subgraph") therefore has edges <= vertices, i.e. at most one cycle: the
// graph is a directed pseudoforest. A subgraph with edges == vertices is maximal: every
// bucket in it is full and any walk in it cycles forever. A non-maximal subgraph is a
// tree (edges == vertices - 1) with exactly one free bucket, and every directed walk in
// it ends there within vertices - 1 steps. Stashed items are not edges.
//
// Prediction. An item with endpoints a and b can be placed iff, after adding its edge,
// its component still has edges <= vertices. detail::Pseudoforest keeps, per vertex, the
// subgraph ID (a union-find "ID tree" with union by size and path compression) and, per
// subgraph, its vertex and edge counts, so the test takes two finds (Algorithm 2 and the
// case analysis of Algorithm 4):
//   v+2  neither a nor b in a subgraph                 -> new subgraph, direct insert
//   v+1  exactly one of them in a subgraph             -> extend it, direct insert
//   v+0  both in subgraphs, five sub-cases:
//     (1) one non-maximal (same subgraph)    -> kick inside it; it becomes maximal
//     (2) two non-maximal                    -> kick into a's subgraph; union (a tree)
//     (3) one non-maximal and one maximal    -> kick into the non-maximal side; union
//                                               (the result is maximal)
//     (4) two maximal, (5) one maximal       -> predicted failure: no kick at all
// This is exact: insert() predicts a failure iff no placement of the items in the
// tables plus the new one exists (claim C8; stashed items are not part of the question,
// they are already homeless), and a predicted success never fails (with correct
// bookkeeping a kick walk is at most vertices - 1 long; max_kicks is only a safety bound,
// and stats().kick_bound_exhaustions counts the times it was hit, which should be 0).
//
// Where the paper rehashes (Algorithm 4 line 15) this engine, like the paper's prototype
// ("cuckoo hash with a stash"), stashes the item; with the stash full, insert reports
// kFull and changes nothing. Before kicking, an empty candidate bucket on an allowed side
// is always taken (zero kicks); otherwise the kick starts where Algorithm 4 says.
//
// Deletion (Algorithm 5). Removing an edge may split its subgraph in two (or turn a
// maximal one into a tree): the remaining edges of the old subgraph are traversed from
// both endpoints (time proportional to its size, via per-vertex in-edge lists), each
// piece gets a new unique ID recorded in all its vertices, and its counts are recounted.
// Afterwards every stash item whose placement is no longer predicted to fail moves back
// into the tables. Between deletions, subgraphs only grow and maximal ones stay maximal,
// so a stashed item stays unplaceable until some deletion.
//
// Thread safety: none. Const member functions write nothing (they use the
// non-compressing find) and may run concurrently with each other; every non-const call
// needs exclusive access.
#pragma once

#include <array>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "detail/pseudoforest.hpp"
#include "error.hpp"
#include "hash.hpp"
#include "status.hpp"

namespace cuckoo {

/// The configuration of a SmartCuckoo: capacity, stash capacity, kick bound and seed.
struct SmartCuckooConfig {
  /// Upper bound of `capacity`: 2^31 buckets (2^30 per table), as for ClassicCuckoo;
  /// vertex numbers then fit in 32 bits.
  static constexpr std::size_t kMaxCapacity = std::size_t{1} << 31;
  /// Upper bound of `stash_capacity`: every lookup of an absent key scans the stash.
  static constexpr std::size_t kMaxStashCapacity = 256;

  /// Total one-slot buckets over the two tables; each table gets ceil(capacity / 2), so
  /// capacity() may exceed this by one. Range [2, kMaxCapacity].
  std::size_t capacity = 64;
  /// Safety bound on the displacements of one kick walk. With correct prediction it is
  /// never hit; if it is, the insert goes to the stash and stats() counts it. >= 1.
  unsigned max_kicks = 500;
  /// Items whose placement is predicted to fail are kept here. [0, kMaxStashCapacity].
  std::size_t stash_capacity = 8;
  /// Hash seed; drawn from random_seed() when empty. Readable through seed().
  std::optional<std::uint64_t> seed;
};

/// The classification of an insert (Algorithm 2, then the five v+0 sub-cases of
/// Algorithm 4), named after the pseudoforest's state before the insert.
enum class SmartCuckooCase : std::uint8_t {
  kVPlus2,                ///< neither candidate bucket is in a subgraph
  kVPlus1,                ///< exactly one candidate bucket is in a subgraph
  kOneNonMaximal,         ///< v+0 (1): both in the same non-maximal subgraph
  kTwoNonMaximal,         ///< v+0 (2): in two different non-maximal subgraphs
  kNonMaximalAndMaximal,  ///< v+0 (3): one in a non-maximal, one in a maximal subgraph
  kTwoMaximal,            ///< v+0 (4): in two different maximal subgraphs -> fails
  kOneMaximal,            ///< v+0 (5): both in the same maximal subgraph  -> fails
};
/// The number of SmartCuckooCase values.
inline constexpr std::size_t kSmartCuckooCaseCount = 7;

/// True for the two cases in which no placement exists.
constexpr bool predicts_failure(SmartCuckooCase c) noexcept {
  return c == SmartCuckooCase::kTwoMaximal || c == SmartCuckooCase::kOneMaximal;
}

/// The case's name, as used in reports.
constexpr std::string_view to_string(SmartCuckooCase c) noexcept {
  switch (c) {
    case SmartCuckooCase::kVPlus2: return "v+2";
    case SmartCuckooCase::kVPlus1: return "v+1";
    case SmartCuckooCase::kOneNonMaximal: return "v+0 one non-maximal";
    case SmartCuckooCase::kTwoNonMaximal: return "v+0 two non-maximal";
    case SmartCuckooCase::kNonMaximalAndMaximal: return "v+0 one non-maximal and one maximal";
    case SmartCuckooCase::kTwoMaximal: return "v+0 two maximal";
    case SmartCuckooCase::kOneMaximal: return "v+0 one maximal";
  }
  return "unknown";
}

/// One subgraph (connected component of the cuckoo graph), as the engine records it.
struct SmartCuckooSubgraph {
  std::size_t id = 0;        ///< its root ID: one of its vertices
  std::size_t vertices = 0;  ///< buckets in it
  std::size_t edges = 0;     ///< items stored in it
  /// Whether the subgraph is maximal (as many items as buckets): no further item fits in
  /// it.
  bool maximal() const noexcept { return edges == vertices; }
  friend bool operator==(const SmartCuckooSubgraph&, const SmartCuckooSubgraph&) = default;
};

/// Counters since construction (clear() keeps them; reset_stats() zeroes them).
struct SmartCuckooStats {
  std::uint64_t inserts = 0;             ///< new keys stored by insert/insert_or_assign
                                         // (in the tables or the stash)
  std::uint64_t total_kicks = 0;         ///< displacements, including stash re-placements
  std::uint64_t last_insert_kicks = 0;   ///< displacements of the last insert call
  std::uint64_t predicted_failures = 0;  ///< inserts classified v+0 (4) or (5)
  std::uint64_t stash_insertions = 0;    ///< items put into the stash
  std::uint64_t stash_reinsertions = 0;  ///< stash items moved back after a deletion
  std::uint64_t max_stash_size = 0;      ///< largest stash size seen
  std::uint64_t full_rejections = 0;     ///< inserts that returned kFull
  std::uint64_t kick_bound_exhaustions = 0;  ///< walks longer than max_kicks (should be 0)
  /// Classifications of the new keys given to insert/insert_or_assign, by case.
  std::array<std::uint64_t, kSmartCuckooCaseCount> case_counts{};

  /// How many new keys were classified as case c.
  std::uint64_t count(SmartCuckooCase c) const noexcept {
    return case_counts[static_cast<std::size_t>(c)];
  }
  friend bool operator==(const SmartCuckooStats&, const SmartCuckooStats&) = default;
};

template <class K = std::uint64_t, class V = std::uint64_t, class Hasher = DefaultHasher,
          class KeyEqual = std::equal_to<K>>
/// SmartCuckoo (Sun et al., USENIX ATC'17): one-slot cuckoo hashing that keeps the cuckoo
/// graph as a directed pseudoforest and so knows before any kick whether an insert can
/// succeed (claim C8); predicted failures go to a stash without a kick.
/// Thread safety: none; concurrent const calls are safe with each other. See the design
/// comment at the top of smart_cuckoo.hpp.
class SmartCuckoo {
  static_assert(HasherFor<Hasher, K>,
                "Hasher must be a copyable callable (const K&, uint64_t seed) -> uint64_t");

 public:
  /// The key type K.
  using key_type = K;
  /// The value type V.
  using mapped_type = V;
  /// Marks "no subgraph" in recorded_id().
  static constexpr std::size_t kNoSubgraph = static_cast<std::size_t>(-1);

  /// Throws ConfigError naming the field if config is out of range (see
  /// SmartCuckooConfig); nothing is allocated then.
  explicit SmartCuckoo(const SmartCuckooConfig& config = {}, Hasher hasher = Hasher(),
                       KeyEqual key_equal = KeyEqual())
      : config_(validated(config)),
        hasher_(std::move(hasher)),
        key_equal_(std::move(key_equal)),
        seed_(config.seed ? *config.seed : random_seed()),
        n_((config.capacity + 1) / 2) {
    slots_.resize(2 * n_);
    forest_.reset(2 * n_);
    stash_.reserve(config_.stash_capacity);
  }

  // ---- Map operations ------------------------------------------------------------------

  /// Stores key -> value if key is absent. Returns kInserted (in the tables, or in the
  /// stash when its placement is predicted to fail), kExists (key present; nothing
  /// changed) or kFull (predicted failure with the stash full; nothing changed).
  InsertResult insert(K key, V value) { return insert_impl<false>(std::move(key), std::move(value)); }

  /// As insert(), but a present key gets the new value and the result is kUpdated.
  InsertResult insert_or_assign(K key, V value) {
    return insert_impl<true>(std::move(key), std::move(value));
  }

  /// The value stored for key, or nullptr. The pointer is valid until the next non-const
  /// call.
  V* find(const K& key) {
    Entry* e = locate(key);
    return e ? &e->value : nullptr;
  }
  /// The value stored for key, or nullptr; valid until the next non-const call.
  const V* find(const K& key) const {
    const Entry* e = locate(key);
    return e ? &e->value : nullptr;
  }
  /// Whether key is stored (in the tables or the stash).
  bool contains(const K& key) const { return locate(key) != nullptr; }

  /// Removes key (from its bucket or the stash); false if it was absent. A removal from
  /// the tables updates the pseudoforest (Algorithm 5) and then moves back every stash
  /// item that can now be placed.
  bool erase(const K& key) {
    const auto [a, b] = vertices_for(key);
    for (const Vertex v : {a, b}) {
      if (slots_[v] && key_equal_(slots_[v]->key, key)) {
        remove_from_table(v);
        return true;
      }
    }
    for (std::size_t i = 0; i < stash_.size(); ++i) {
      if (key_equal_(stash_[i].key, key)) {
        stash_.erase(stash_.begin() + static_cast<std::ptrdiff_t>(i));
        return true;
      }
    }
    return false;
  }

  /// Removes every item; keeps configuration, seed and statistics.
  void clear() {
    for (auto& slot : slots_) slot.reset();
    forest_.reset(2 * n_);
    stash_.clear();
    table_items_ = 0;
  }

  /// Number of stored keys, the stash's included.
  std::size_t size() const noexcept { return table_items_ + stash_.size(); }
  /// Whether no key is stored.
  bool empty() const noexcept { return size() == 0; }
  /// Number of keys in the stash.
  std::size_t stash_size() const noexcept { return stash_.size(); }
  /// The stash's capacity (SmartCuckooConfig::stash_capacity).
  std::size_t stash_capacity() const noexcept { return config_.stash_capacity; }
  /// Buckets in the two tables: 2 * table_size().
  std::size_t capacity() const noexcept { return 2 * n_; }
  /// Items in the tables (not the stash) per bucket.
  double load_factor() const noexcept {
    return static_cast<double>(table_items_) / static_cast<double>(capacity());
  }
  /// The seed the keys are hashed with (the configured one, or the one drawn at
  /// construction).
  std::uint64_t seed() const noexcept { return seed_; }
  /// The configuration the table was built with.
  const SmartCuckooConfig& config() const noexcept { return config_; }
  /// The statistics since construction or reset_stats().
  const SmartCuckooStats& stats() const noexcept { return stats_; }
  /// Sets every statistic to zero.
  void reset_stats() noexcept { stats_ = SmartCuckooStats{}; }

  // ---- Prediction ----------------------------------------------------------------------

  /// For a key not present: true iff its placement in the tables is predicted to fail
  /// (v+0 cases (4) and (5)), i.e. iff no placement of the items in the tables plus this
  /// one exists; insert() would then stash it or report kFull, with no kick. False for a
  /// present key (insert() would report kExists). Changes nothing.
  bool would_insert_fail(const K& key) const {
    if (contains(key)) return false;
    return predicts_failure(classify(key));
  }

  /// The case an insert of key would be classified as now (Algorithms 2 and 4). For a
  /// present key this describes adding a second edge between its buckets.
  SmartCuckooCase classify(const K& key) const {
    const auto [a, b] = vertices_for(key);
    return classify_vertices(a, b, [this](Vertex v) { return forest_.find_root(v); }).kase;
  }

  // ---- Introspection for tests and the verification suite ------------------------------

  /// Buckets per table (n). Vertex v < n is T0[v]; vertex n + i is T1[i].
  std::size_t table_size() const noexcept { return n_; }
  /// Vertices of the cuckoo graph: 2 * table_size().
  std::size_t graph_vertices() const noexcept { return 2 * n_; }
  /// The key's candidate buckets (p0 in T0, p1 in T1).
  std::pair<std::size_t, std::size_t> positions_of(const K& key) const {
    const auto [a, b] = vertices_for(key);
    return {a, b - n_};
  }
  /// The key's candidate vertices (p0, n + p1).
  std::pair<std::size_t, std::size_t> vertices_of(const K& key) const {
    const auto [a, b] = vertices_for(key);
    return {a, b};
  }
  /// The key stored in the bucket of `vertex`, or nullptr. REQUIRES: vertex <
  /// graph_vertices().
  const K* key_at(std::size_t vertex) const {
    const auto& slot = slots_[checked_vertex(vertex)];
    return slot ? &slot->key : nullptr;
  }
  /// The vertex whose bucket holds key; nullopt if key is absent or in the stash.
  std::optional<std::size_t> vertex_holding(const K& key) const {
    const auto [a, b] = vertices_for(key);
    for (const Vertex v : {a, b}) {
      if (slots_[v] && key_equal_(slots_[v]->key, key)) return v;
    }
    return std::nullopt;
  }
  /// Whether key is stored in the stash.
  bool in_stash(const K& key) const { return find_in_stash(key) != nullptr; }

  /// The subgraph containing `vertex`, or nullopt if no stored item touches it.
  /// REQUIRES: vertex < graph_vertices().
  std::optional<SmartCuckooSubgraph> subgraph_of(std::size_t vertex) const {
    const Vertex v = checked_vertex(vertex);
    if (!forest_.in_forest(v)) return std::nullopt;
    const Vertex root = forest_.find_root(v);
    return SmartCuckooSubgraph{root, forest_.vertex_count(root), forest_.edge_count(root)};
  }
  /// The subgraph ID recorded at `vertex` (its parent in the ID tree; itself for a root;
  /// kNoSubgraph if none). After a compressing find through vertex it is the root.
  std::size_t recorded_id(std::size_t vertex) const {
    const Vertex id = forest_.recorded_id(checked_vertex(vertex));
    return id == Forest::kNone ? kNoSubgraph : id;
  }
  /// Every subgraph, in increasing order of root ID. O(table_size()).
  std::vector<SmartCuckooSubgraph> subgraphs() const {
    std::vector<SmartCuckooSubgraph> out;
    for (Vertex v = 0; v < graph_vertices(); ++v) {
      if (forest_.in_forest(v) && forest_.recorded_id(v) == v) {
        out.push_back({v, forest_.vertex_count(v), forest_.edge_count(v)});
      }
    }
    return out;
  }

  /// True when every invariant below holds. O(table_size() + stash_capacity^2).
  bool check_invariants() const { return !invariant_violation().has_value(); }

  /// Recomputes the cuckoo graph's components from scratch (breadth-first search over the
  /// stored items) and checks them against the recorded IDs and counts (same members,
  /// distinct IDs per component, vertex and edge counts, edges <= vertices); also checks
  /// that every key sits in one of its candidate buckets with its edge pointing to the
  /// other, that no key is stored twice (tables and stash), the in-edge lists, the item
  /// count, and that every stash item is still predicted to fail (unless the kick bound
  /// was ever hit). Returns a description of the first violation, or nullopt.
  std::optional<std::string> invariant_violation() const;

 private:
  using Forest = detail::Pseudoforest;
  using Vertex = Forest::Vertex;

  struct Entry {
    K key;
    V value;
  };

  /// The outcome of Algorithms 2 and 4's case analysis, with the roots it found
  /// (Forest::kNone for an endpoint in no subgraph).
  struct Classification {
    SmartCuckooCase kase;
    Vertex root_a;
    Vertex root_b;
  };

  enum class PlaceOutcome : std::uint8_t { kPlaced, kPredictedFailure, kKickBoundHit };

  static const SmartCuckooConfig& validated(const SmartCuckooConfig& config);

  Vertex checked_vertex(std::size_t vertex) const {
    assert(vertex < graph_vertices());
    return static_cast<Vertex>(vertex);
  }

  /// The key's two vertices (T0[p0], T1[p1]); the one hash of the design comment.
  std::pair<Vertex, Vertex> vertices_for(const K& key) const {
    const auto h = seeded_hash(hasher_, key, seed_);
    const auto n = static_cast<std::uint32_t>(n_);
    const Vertex p0 = detail::reduce32(static_cast<std::uint32_t>(h >> 32), n);
    const Vertex p1 = detail::reduce32(static_cast<std::uint32_t>(detail::mix64(h)), n);
    return {p0, n + p1};
  }

  const Entry* find_in_stash(const K& key) const {
    for (const Entry& e : stash_) {
      if (key_equal_(e.key, key)) return &e;
    }
    return nullptr;
  }

  /// Lookup: the two candidate buckets a and b of key, then the stash.
  const Entry* locate(const K& key, Vertex a, Vertex b) const {
    if (slots_[a] && key_equal_(slots_[a]->key, key)) return &*slots_[a];
    if (slots_[b] && key_equal_(slots_[b]->key, key)) return &*slots_[b];
    if (!stash_.empty()) [[unlikely]] return find_in_stash(key);
    return nullptr;
  }
  const Entry* locate(const K& key) const {
    const auto [a, b] = vertices_for(key);
    return locate(key, a, b);
  }
  Entry* locate(const K& key, Vertex a, Vertex b) {
    return const_cast<Entry*>(std::as_const(*this).locate(key, a, b));
  }
  Entry* locate(const K& key) {
    return const_cast<Entry*>(std::as_const(*this).locate(key));
  }

  /// Algorithm 2 (Determine-v-add) and, for v+0, the case analysis of Algorithm 4.
  /// `find` is Forest::find (inserts: compresses paths) or Forest::find_root (queries).
  template <class FindFn>
  Classification classify_vertices(Vertex a, Vertex b, FindFn&& find) const;

  Classification classify_for_update(Vertex a, Vertex b) {
    return classify_vertices(a, b, [this](Vertex v) { return forest_.find(v); });
  }

  template <bool kAssign>
  InsertResult insert_impl(K&& key, V&& value);

  /// Places `entry` (candidate vertices a, b, classified as c) into the tables and
  /// updates the pseudoforest: Algorithm 1's dispatch, Algorithm 3 (DirectInsert) and
  /// Algorithm 4 (InDirectInsert). Moves from entry only when it returns kPlaced; on any
  /// other outcome nothing changed. `kicks` receives the displacements.
  PlaceOutcome place(const Classification& c, Vertex a, Vertex b, Entry& entry,
                     std::uint64_t& kicks);

  /// The v+0 sub-cases (1)-(3): checks the walk from `start` against max_kicks before
  /// changing anything, then updates the counts (Union or one more edge) and kicks.
  PlaceOutcome kick_in(const Classification& c, Vertex a, Vertex b, Entry& entry,
                       std::uint64_t& kicks, Vertex start);

  /// Kick-out(x, B[start]): x takes B[start]; the item there moves to its alternate
  /// bucket, displacing the next, until a free bucket takes the last one. Each moved
  /// item's edge flips direction (it now points back to the bucket it left). REQUIRES:
  /// walk_length(start) succeeded, so the loop ends at a free bucket.
  void kick_out(Vertex start, Vertex alternate, Entry& entry);

  /// Algorithm 3's B[v] <- x: v is free; the new edge points to `alternate`.
  void store(Vertex v, Vertex alternate, Entry& entry) {
    assert(!slots_[v]);
    slots_[v].emplace(std::move(entry));
    forest_.link(v, alternate);
    ++table_items_;
  }

  /// Algorithm 5: delete the item at v, then reassign IDs and counts of the piece(s) its
  /// subgraph splits into; finally move back the stash items that now fit.
  void remove_from_table(Vertex v);

  /// After a deletion: every stash item whose placement is no longer predicted to fail
  /// is placed (same algorithms as insert). Examines each stash item once.
  void drain_stash();

  SmartCuckooConfig config_;
  Hasher hasher_;
  KeyEqual key_equal_;
  std::uint64_t seed_;
  std::size_t n_;                            ///< buckets per table
  std::vector<std::optional<Entry>> slots_;  ///< indexed by vertex: T0 then T1
  Forest forest_;
  std::vector<Entry> stash_;
  std::size_t table_items_ = 0;
  SmartCuckooStats stats_;
};

}  // namespace cuckoo

// ---- Out-of-line definitions (detail/smart_*.hpp) ---------------------------------------

#define CUCKOO_SMART_TEMPLATE template <class K, class V, class Hasher, class KeyEqual>
#define CUCKOO_SMART SmartCuckoo<K, V, Hasher, KeyEqual>

#include "detail/smart_insert.hpp"
#include "detail/smart_invariants.hpp"

#undef CUCKOO_SMART
#undef CUCKOO_SMART_TEMPLATE
