// PlacementOracle. Two independent decision procedures, kept deliberately plain:
//
// 1. Matching (any b). The current items carry a maximum b-matching (placed_in_ and
//    holders_). Adding an item searches for an augmenting path: breadth-first over
//    buckets, from the new item's candidates; from a full bucket every item placed there
//    may move to its other candidate; the search ends at the first bucket with a free
//    slot. Applying the path moves each item one step, which frees the slot the previous
//    step needs. If no path exists the matching stays maximum (an unplaced item has no
//    matched edge, so it cannot open a path for anyone else), and it stays unplaced.
//    Removing a placed item frees a slot, which may open paths for unplaced items, so
//    each is retried once; in bipartite matching a vertex with no augmenting path does
//    not gain one from other augmentations, so one pass restores a maximum matching.
//    Hence fits() == "every item placed" is exact.
//
// 2. Components (b = 1 only). Union-find over the buckets the items touch; per component
//    count vertices and edges (a self-loop is one edge). A component with
//    edges <= vertices is a tree or has one cycle and can be oriented so that each
//    vertex receives at most one edge; with more edges than vertices some bucket must
//    take two items.
#include "cuckoo/model/placement_oracle.hpp"

#include <algorithm>
#include <deque>
#include <numeric>
#include <stdexcept>
#include <string>

namespace cuckoo::model {

namespace {

std::size_t other_bucket(const CandidatePair& item, std::size_t bucket) {
  return item.bucket_a == bucket ? item.bucket_b : item.bucket_a;
}

// Union-find over dense indices with path halving; no ranks needed at this size.
class DisjointSets {
 public:
  explicit DisjointSets(std::size_t count) : parent_(count) {
    std::iota(parent_.begin(), parent_.end(), std::size_t{0});
  }
  std::size_t find(std::size_t x) {
    while (parent_[x] != x) {
      parent_[x] = parent_[parent_[x]];
      x = parent_[x];
    }
    return x;
  }
  void unite(std::size_t x, std::size_t y) { parent_[find(x)] = find(y); }

 private:
  std::vector<std::size_t> parent_;
};

}  // namespace

PlacementOracle::PlacementOracle(std::size_t bucket_count, unsigned slots_per_bucket)
    : bucket_count_(bucket_count), slots_per_bucket_(slots_per_bucket) {
  if (bucket_count == 0) throw std::invalid_argument("PlacementOracle: bucket_count must be > 0");
  if (slots_per_bucket == 0) {
    throw std::invalid_argument("PlacementOracle: slots_per_bucket must be > 0");
  }
}

void PlacementOracle::check_bucket(std::size_t bucket) const {
  if (bucket >= bucket_count_) {
    throw std::out_of_range("PlacementOracle: bucket " + std::to_string(bucket) +
                            " is out of range; bucket_count is " +
                            std::to_string(bucket_count_));
  }
}

bool PlacementOracle::fits(std::span<const CandidatePair> items) const {
  return find_placement(items).has_value();
}

std::optional<std::vector<std::size_t>> PlacementOracle::find_placement(
    std::span<const CandidatePair> items) const {
  PlacementOracle scratch(bucket_count_, slots_per_bucket_);
  for (const CandidatePair& item : items) {
    if (!scratch.add(item)) return std::nullopt;
  }
  return scratch.placed_in_;
}

bool PlacementOracle::fits_by_components(std::span<const CandidatePair> items) const {
  if (slots_per_bucket_ != 1) {
    throw std::logic_error("PlacementOracle::fits_by_components needs slots_per_bucket == 1");
  }
  // Renumber the touched buckets densely so the union-find is sized by the items.
  std::map<std::size_t, std::size_t> vertex_of;
  for (const CandidatePair& item : items) {
    check_bucket(item.bucket_a);
    check_bucket(item.bucket_b);
    vertex_of.try_emplace(item.bucket_a, vertex_of.size());
    vertex_of.try_emplace(item.bucket_b, vertex_of.size());
  }
  DisjointSets components(vertex_of.size());
  for (const CandidatePair& item : items) {
    components.unite(vertex_of.at(item.bucket_a), vertex_of.at(item.bucket_b));
  }
  std::vector<std::size_t> vertices(vertex_of.size(), 0);
  std::vector<std::size_t> edges(vertex_of.size(), 0);
  for (const auto& [bucket, vertex] : vertex_of) ++vertices[components.find(vertex)];
  for (const CandidatePair& item : items) ++edges[components.find(vertex_of.at(item.bucket_a))];
  for (std::size_t root = 0; root < vertex_of.size(); ++root) {
    if (edges[root] > vertices[root]) return false;
  }
  return true;
}

std::optional<std::vector<PlacementOracle::Move>> PlacementOracle::find_augmenting_path(
    CandidatePair start, std::size_t start_item) const {
  // reached_by[bucket] = the item that would move into `bucket` on the path to it.
  std::map<std::size_t, std::size_t> reached_by;
  std::deque<std::size_t> frontier;
  for (const std::size_t bucket : {start.bucket_a, start.bucket_b}) {
    if (reached_by.try_emplace(bucket, start_item).second) frontier.push_back(bucket);
  }
  // Each bucket enters the frontier at most once: the search is bounded by the number
  // of distinct buckets the current items touch, plus two.
  while (!frontier.empty()) {
    const std::size_t bucket = frontier.front();
    frontier.pop_front();
    const auto holders = holders_.find(bucket);
    const std::size_t used = holders == holders_.end() ? 0 : holders->second.size();
    if (used < slots_per_bucket_) {
      // Walk back: the item reaching `bucket` moves in; it leaves the bucket it is placed
      // in, which the item reaching that bucket moves into, and so on to start_item.
      std::vector<Move> path;
      std::size_t target = bucket;
      while (true) {
        const std::size_t mover = reached_by.at(target);
        path.push_back(Move{mover, target});
        if (mover == start_item) break;
        target = placed_in_[mover];
      }
      return path;
    }
    for (const std::size_t item : holders->second) {
      const std::size_t next = other_bucket(items_[item], bucket);
      if (reached_by.try_emplace(next, item).second) frontier.push_back(next);
    }
  }
  return std::nullopt;
}

void PlacementOracle::apply(const std::vector<Move>& path) {
  // Free end first: each move empties the slot that the following move fills.
  for (const Move& move : path) {
    if (placed_in_[move.item] == kUnplaced) {
      --unplaced_count_;
    } else {
      unplace(move.item);
    }
    placed_in_[move.item] = move.bucket;
    holders_[move.bucket].push_back(move.item);
  }
}

void PlacementOracle::unplace(std::size_t item) {
  const auto holders = holders_.find(placed_in_[item]);
  std::vector<std::size_t>& list = holders->second;
  list.erase(std::find(list.begin(), list.end(), item));
  if (list.empty()) holders_.erase(holders);
  placed_in_[item] = kUnplaced;
}

bool PlacementOracle::try_place(std::size_t item) {
  const std::optional<std::vector<Move>> path = find_augmenting_path(items_[item], item);
  if (!path) return false;
  apply(*path);
  return true;
}

bool PlacementOracle::add(CandidatePair item) {
  check_bucket(item.bucket_a);
  check_bucket(item.bucket_b);
  items_.push_back(item);
  placed_in_.push_back(kUnplaced);
  ++unplaced_count_;
  try_place(items_.size() - 1);
  return fits();
}

bool PlacementOracle::would_fit_after_adding(CandidatePair item) const {
  check_bucket(item.bucket_a);
  check_bucket(item.bucket_b);
  if (!fits()) return false;
  // A start index no current item has, so the walk back stops at the new item.
  return find_augmenting_path(item, items_.size()).has_value();
}

bool PlacementOracle::remove(CandidatePair item) {
  std::size_t victim = items_.size();
  for (std::size_t i = 0; i < items_.size(); ++i) {
    if (!same_buckets(items_[i], item)) continue;
    if (victim == items_.size() || placed_in_[i] == kUnplaced) victim = i;
    if (placed_in_[i] == kUnplaced) break;
  }
  if (victim == items_.size()) return false;

  const bool freed_a_slot = placed_in_[victim] != kUnplaced;
  if (freed_a_slot) {
    unplace(victim);
  } else {
    --unplaced_count_;
  }
  // Swap-and-pop: the last item takes the victim's index; fix its holder entry.
  const std::size_t last = items_.size() - 1;
  if (victim != last) {
    items_[victim] = items_[last];
    placed_in_[victim] = placed_in_[last];
    if (placed_in_[victim] != kUnplaced) {
      std::vector<std::size_t>& list = holders_.at(placed_in_[victim]);
      *std::find(list.begin(), list.end(), last) = victim;
    }
  }
  items_.pop_back();
  placed_in_.pop_back();

  if (freed_a_slot) {
    for (std::size_t i = 0; i < items_.size() && unplaced_count_ > 0; ++i) {
      if (placed_in_[i] == kUnplaced) try_place(i);
    }
  }
  return true;
}

void PlacementOracle::clear() noexcept {
  items_.clear();
  placed_in_.clear();
  holders_.clear();
  unplaced_count_ = 0;
}

}  // namespace cuckoo::model
