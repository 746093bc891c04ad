// SmartCuckoo's insert and erase algorithms (out-of-line members of SmartCuckoo,
// cuckoo/smart_cuckoo.hpp, included at its end): the case analysis of Algorithms 2 and 4,
// Algorithm 1's insert, the placements of Algorithms 3 and 4 (direct insert, kick-in
// within a subgraph, kick-out walk), Algorithm 5's delete and the stash drain after it.
// The paper's numbering is seed 002's; the design comment of smart_cuckoo.hpp says how
// the pseudoforest predicts a failing insert.
#pragma once

#ifndef CUCKOO_SMART
#error "smart_insert.hpp holds out-of-line members of SmartCuckoo: include cuckoo/smart_cuckoo.hpp"
#endif

namespace cuckoo {

CUCKOO_SMART_TEMPLATE
template <class FindFn>
inline auto CUCKOO_SMART::classify_vertices(Vertex a, Vertex b, FindFn&& find) const
    -> Classification {
  const bool a_in = forest_.in_forest(a);
  const bool b_in = forest_.in_forest(b);
  if (!a_in && !b_in) return {SmartCuckooCase::kVPlus2, Forest::kNone, Forest::kNone};
  const Vertex ra = a_in ? find(a) : Forest::kNone;
  const Vertex rb = b_in ? find(b) : Forest::kNone;
  if (!a_in || !b_in) return {SmartCuckooCase::kVPlus1, ra, rb};
  const bool a_max = forest_.is_maximal(ra);
  const bool b_max = forest_.is_maximal(rb);
  SmartCuckooCase kase;
  if (ra == rb) {
    kase = a_max ? SmartCuckooCase::kOneMaximal : SmartCuckooCase::kOneNonMaximal;
  } else if (!a_max && !b_max) {
    kase = SmartCuckooCase::kTwoNonMaximal;
  } else if (a_max && b_max) {
    kase = SmartCuckooCase::kTwoMaximal;
  } else {
    kase = SmartCuckooCase::kNonMaximalAndMaximal;
  }
  return {kase, ra, rb};
}

CUCKOO_SMART_TEMPLATE
template <bool kAssign>
inline auto CUCKOO_SMART::insert_impl(K&& key, V&& value) -> InsertResult {
  stats_.last_insert_kicks = 0;
  const auto [a, b] = vertices_for(key);
  if (Entry* present = locate(key, a, b)) {
    if constexpr (kAssign) {
      present->value = std::move(value);
      return InsertResult::kUpdated;
    } else {
      return InsertResult::kExists;
    }
  }
  // Algorithm 1.
  Entry entry{std::move(key), std::move(value)};
  const Classification c = classify_for_update(a, b);
  ++stats_.case_counts[static_cast<std::size_t>(c.kase)];
  std::uint64_t kicks = 0;
  const PlaceOutcome outcome = place(c, a, b, entry, kicks);
  stats_.last_insert_kicks = kicks;  // 0 unless placed: a failure changes nothing
  stats_.total_kicks += kicks;
  if (outcome == PlaceOutcome::kPlaced) {
    ++stats_.inserts;
    return InsertResult::kInserted;
  }
  if (outcome == PlaceOutcome::kPredictedFailure) {
    ++stats_.predicted_failures;
  } else {
    ++stats_.kick_bound_exhaustions;
  }
  if (stash_.size() >= config_.stash_capacity) {
    ++stats_.full_rejections;
    return InsertResult::kFull;
  }
  stash_.push_back(std::move(entry));
  ++stats_.stash_insertions;
  ++stats_.inserts;
  if (stash_.size() > stats_.max_stash_size) stats_.max_stash_size = stash_.size();
  return InsertResult::kInserted;
}

CUCKOO_SMART_TEMPLATE
inline auto CUCKOO_SMART::place(const Classification& c, Vertex a, Vertex b, Entry& entry,
                                std::uint64_t& kicks) -> PlaceOutcome {
  kicks = 0;
  switch (c.kase) {
    case SmartCuckooCase::kVPlus2:
      // Algorithm 1 lines 4-7: a unique ID for the new subgraph, then DirectInsert;
      // both buckets are free, so Algorithm 3 takes B[a].
      forest_.create_subgraph(a, b);
      store(a, b, entry);
      return PlaceOutcome::kPlaced;
    case SmartCuckooCase::kVPlus1: {
      // Algorithm 1 lines 9-12: Union(a, b), then DirectInsert (Algorithm 3): B[a] if
      // it is free, otherwise B[b], which then is the new, free vertex.
      const bool a_in = c.root_a != Forest::kNone;
      forest_.extend_subgraph(a_in ? c.root_a : c.root_b, a_in ? b : a);
      if (!forest_.occupied(a)) {
        store(a, b, entry);
      } else {
        store(b, a, entry);
      }
      return PlaceOutcome::kPlaced;
    }
    case SmartCuckooCase::kOneNonMaximal:
      // Algorithm 4 lines 2-3: Kick-out(x, B[a]) inside the one non-maximal subgraph
      // (a free candidate bucket is taken first); it becomes maximal.
      return kick_in(c, a, b, entry, kicks, !forest_.occupied(b) ? b : a);
    case SmartCuckooCase::kTwoNonMaximal:
      // Algorithm 4 lines 4-6: Kick-out(x, B[a]) into a's tree (or B[b] if free), then
      // Union(a, b): the merged subgraph is a tree whose free bucket is the other's.
      return kick_in(c, a, b, entry, kicks,
                     (forest_.occupied(a) && !forest_.occupied(b)) ? b : a);
    case SmartCuckooCase::kNonMaximalAndMaximal:
      // Algorithm 4 lines 7-13: enter at the candidate bucket of the non-maximal
      // subgraph and follow its directed path to its free bucket; never walk into the
      // maximal one. Then Union(a, b): the result is maximal.
      return kick_in(c, a, b, entry, kicks, forest_.is_maximal(c.root_a) ? b : a);
    case SmartCuckooCase::kTwoMaximal:
    case SmartCuckooCase::kOneMaximal:
      // Algorithm 4 lines 14-15: no placement exists. No kick; the caller stashes.
      return PlaceOutcome::kPredictedFailure;
  }
  return PlaceOutcome::kPredictedFailure;
}

CUCKOO_SMART_TEMPLATE
inline auto CUCKOO_SMART::kick_in(const Classification& c, Vertex a, Vertex b, Entry& entry,
                                  std::uint64_t& kicks, Vertex start) -> PlaceOutcome {
  const Vertex walk = forest_.walk_length(start, config_.max_kicks);
  if (walk == Forest::kNone) return PlaceOutcome::kKickBoundHit;
  assert(walk < forest_.vertex_count(forest_.find_root(start)));
  if (c.root_a == c.root_b) {
    forest_.add_edge_within(c.root_a);
  } else {
    forest_.unite(c.root_a, c.root_b);
  }
  kick_out(start, start == a ? b : a, entry);
  kicks = walk;
  return PlaceOutcome::kPlaced;
}

CUCKOO_SMART_TEMPLATE
inline auto CUCKOO_SMART::kick_out(Vertex start, Vertex alternate, Entry& entry) -> void {
  Vertex at = start;
  Vertex carried_alternate = alternate;
  Entry carried = std::move(entry);
  for (std::uint32_t kick = 0; kick <= config_.max_kicks; ++kick) {
    if (!slots_[at]) {
      slots_[at].emplace(std::move(carried));
      forest_.link(at, carried_alternate);
      ++table_items_;
      return;
    }
    const Vertex next = forest_.out(at);
    std::swap(*slots_[at], carried);
    forest_.unlink(at);
    forest_.link(at, carried_alternate);
    carried_alternate = at;
    at = next;
  }
  assert(false && "kick_out ran past the walk that walk_length() measured");
}

CUCKOO_SMART_TEMPLATE
inline auto CUCKOO_SMART::remove_from_table(Vertex v) -> void {
  const Vertex w = forest_.out(v);
  slots_[v].reset();
  --table_items_;
  forest_.unlink(v);
  forest_.split_after_unlink(v, w);
  drain_stash();
}

CUCKOO_SMART_TEMPLATE
inline auto CUCKOO_SMART::drain_stash() -> void {
  const std::size_t stash_bound = stash_.size();
  std::size_t i = 0;
  for (std::size_t examined = 0; examined < stash_bound; ++examined) {
    Entry& e = stash_[i];
    const auto [a, b] = vertices_for(e.key);
    const Classification c = classify_for_update(a, b);
    if (predicts_failure(c.kase)) {
      ++i;
      continue;
    }
    std::uint64_t kicks = 0;
    const PlaceOutcome outcome = place(c, a, b, e, kicks);
    stats_.total_kicks += kicks;
    if (outcome == PlaceOutcome::kPlaced) {
      stash_.erase(stash_.begin() + static_cast<std::ptrdiff_t>(i));
      ++stats_.stash_reinsertions;
    } else {
      ++stats_.kick_bound_exhaustions;
      ++i;
    }
  }
}
}  // namespace cuckoo
