// PlacementOracle: decides exactly whether a set of items can all be placed in a
// bucketed cuckoo table, whatever order or kick strategy is used. It is the ground truth
// for "this insert had to fail" (C8: SmartCuckoo's predictions; C9: false failures of
// the random walk).
//
// An item is the unordered pair of its candidate buckets (bucket_a == bucket_b is
// allowed: the item then has one candidate). Every bucket holds at most
// slots_per_bucket items. A placement exists iff the bipartite graph items -> buckets
// has a b-matching that covers every item, i.e. iff the max flow
//     source -(1)-> item -(1)-> each candidate bucket -(b)-> sink
// equals the number of items. The oracle computes it with augmenting paths (Kuhn's
// algorithm with bucket capacities): moving an item along an augmenting path is exactly
// a cuckoo kick, with an unbounded breadth-first search.
//
// For b = 1 there is a second, independent test (the one SmartCuckoo's pseudoforest
// bookkeeping is built on): the cuckoo graph has buckets as vertices and items as edges,
// and a placement exists iff every connected component has edges <= vertices.
// fits_by_components() computes it with union-find; both tests must agree.
//
// The oracle also keeps a current item set with a maximum matching, so that harnesses can
// ask before each insert whether it can succeed (would_fit_after_adding) in time
// proportional to the part of the graph the search reaches.
//
// Errors: a bucket index >= bucket_count() throws std::out_of_range; a zero bucket count
// or slot count throws std::invalid_argument. Thread safety: none.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <span>
#include <vector>

namespace cuckoo::model {

struct CandidatePair {
  std::size_t bucket_a = 0;
  std::size_t bucket_b = 0;

  friend bool operator==(const CandidatePair&, const CandidatePair&) = default;
};

// True when the pairs have the same two buckets, in either order.
inline bool same_buckets(const CandidatePair& x, const CandidatePair& y) noexcept {
  return (x.bucket_a == y.bucket_a && x.bucket_b == y.bucket_b) ||
         (x.bucket_a == y.bucket_b && x.bucket_b == y.bucket_a);
}

class PlacementOracle {
 public:
  // Marks an item that holds no slot in placement().
  static constexpr std::size_t kUnplaced = static_cast<std::size_t>(-1);

  // REQUIRES: bucket_count > 0, slots_per_bucket > 0 (else std::invalid_argument).
  PlacementOracle(std::size_t bucket_count, unsigned slots_per_bucket);

  std::size_t bucket_count() const noexcept { return bucket_count_; }
  unsigned slots_per_bucket() const noexcept { return slots_per_bucket_; }

  // ---- Stateless questions (the current item set is not used or changed) ----

  // Can all `items` be placed at once? Any slots_per_bucket (max flow).
  bool fits(std::span<const CandidatePair> items) const;
  // The same question answered by the component rule.
  // REQUIRES: slots_per_bucket() == 1 (else std::logic_error).
  bool fits_by_components(std::span<const CandidatePair> items) const;
  // A witness: for each item, the bucket it is placed in, or nothing when no placement
  // of all `items` exists.
  std::optional<std::vector<std::size_t>> find_placement(
      std::span<const CandidatePair> items) const;

  // ---- The current item set ----

  // Adds an item to the current set and places it if any sequence of moves can make
  // room. Returns fits() afterwards. An item that cannot be placed stays in the set,
  // unplaced (so fits() is false until enough items are removed).
  bool add(CandidatePair item);
  // Removes one item with the same two buckets (either order), preferring an unplaced
  // one, and places unplaced items where the freed slot allows. False when no such item.
  bool remove(CandidatePair item);
  // Would every current item and `item` fit? The set is not changed.
  bool would_fit_after_adding(CandidatePair item) const;
  // Can every current item be placed?
  bool fits() const noexcept { return unplaced_count_ == 0; }
  void clear() noexcept;

  std::size_t item_count() const noexcept { return items_.size(); }
  std::size_t unplaced_count() const noexcept { return unplaced_count_; }
  // The current items, in the order they were added (removal moves the last item into
  // the removed one's position).
  const std::vector<CandidatePair>& items() const noexcept { return items_; }
  // For each current item, its bucket in a maximum placement, or kUnplaced.
  const std::vector<std::size_t>& placement() const noexcept { return placed_in_; }

 private:
  // One step of an augmenting path: `item` moves into `bucket`.
  struct Move {
    std::size_t item;
    std::size_t bucket;
  };

  void check_bucket(std::size_t bucket) const;
  // Breadth-first search for a bucket with a free slot reachable from `start`'s buckets
  // by moving placed items to their other candidate. Returns the moves, free end first,
  // ending with the move of `start_item` itself; nothing when no free slot is reachable.
  std::optional<std::vector<Move>> find_augmenting_path(CandidatePair start,
                                                        std::size_t start_item) const;
  void apply(const std::vector<Move>& path);
  bool try_place(std::size_t item);
  void unplace(std::size_t item);

  std::size_t bucket_count_;
  unsigned slots_per_bucket_;
  std::vector<CandidatePair> items_;
  std::vector<std::size_t> placed_in_;             // per item: its bucket or kUnplaced
  // Per occupied bucket: the items placed in it. A map, so that memory follows the
  // number of items, not the number of buckets.
  std::map<std::size_t, std::vector<std::size_t>> holders_;
  std::size_t unplaced_count_ = 0;
};

}  // namespace cuckoo::model
