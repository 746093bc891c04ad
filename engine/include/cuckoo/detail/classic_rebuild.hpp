// ClassicCuckoo's rebuild (out-of-line members of ClassicCuckoo, cuckoo/classic_cuckoo.hpp,
// included at its end): the rebuild after a failed walk (rehash with a new seed, or grow):
// a dry-run plan of every item's place under the new layout, committed only when it
// succeeds, so a failed rebuild changes nothing.
#pragma once

#ifndef CUCKOO_CLASSIC
#error "classic_rebuild.hpp holds out-of-line members of ClassicCuckoo: include cuckoo/classic_cuckoo.hpp"
#endif

namespace cuckoo {

CUCKOO_CLASSIC_TEMPLATE
auto CUCKOO_CLASSIC::rebuild_with(Entry& extra) -> bool {
  std::uint32_t size = table_size_;
  std::uint64_t seed = seed_;
  std::uint64_t generation = seed_generation_;
  auto try_fresh_seeds = [&]() {
    for (unsigned r = 0; r < config_.max_rehashes; ++r) {
      seed = derive_seed(seed);
      ++generation;
      ++stats_.rehashes;
      if (try_layout(extra, size, seed, generation)) return true;
    }
    return false;
  };
  if (config_.on_failure == OnInsertFailure::kRehash && try_fresh_seeds()) return true;
  const std::size_t limit = std::min(config_.max_capacity, ClassicCuckooConfig::kMaxCapacity);
  for (unsigned g = 0; g < kMaxGrowthsPerInsert; ++g) {
    if (std::size_t{4} * size > limit) return false;  // the doubled capacity would exceed it
    size *= 2;
    if (try_layout(extra, size, seed, generation) || try_fresh_seeds()) {
      stats_.grows += g + 1;
      return true;
    }
  }
  return false;
}

CUCKOO_CLASSIC_TEMPLATE
inline auto CUCKOO_CLASSIC::try_layout(Entry& extra, std::uint32_t size, std::uint64_t seed,
                                       std::uint64_t generation) -> bool {
  // Item ids: 0..size_-1 the current entries in for_each order, size_ the new one.
  const std::size_t items = size_ + 1;
  std::vector<Entry*> sources;
  sources.reserve(items);
  for (auto& table : tables_) {
    for (auto& s : table) {
      if (s) sources.push_back(&*s);
    }
  }
  sources.push_back(&extra);
  std::vector<std::array<std::uint32_t, kTables>> candidates(items);
  for (std::size_t id = 0; id < items; ++id) {
    const std::uint64_t h = seeded_hash(hash_, sources[id]->key, seed);
    candidates[id] = {pos0(h, size), pos1(h, size)};
  }
  std::array<std::vector<std::uint32_t>, kTables> plan;
  for (auto& p : plan) p.assign(size, kNoItem);
  for (std::size_t id = 0; id < items; ++id) {
    if (!plan_item(static_cast<std::uint32_t>(id), candidates, plan)) return false;
  }
  std::array<Table, kTables> next;
  for (auto& table : next) table.resize(size);
  for (unsigned t = 0; t < kTables; ++t) {
    for (std::uint32_t b = 0; b < size; ++b) {
      if (plan[t][b] != kNoItem) next[t][b].emplace(std::move(*sources[plan[t][b]]));
    }
  }
  tables_ = std::move(next);
  table_size_ = size;
  seed_ = seed;
  seed_generation_ = generation;
  ++size_;
  return true;
}

CUCKOO_CLASSIC_TEMPLATE
inline auto CUCKOO_CLASSIC::plan_item(
    std::uint32_t id, const std::vector<std::array<std::uint32_t, kTables>>& candidates,
    std::array<std::vector<std::uint32_t>, kTables>& plan) -> bool {
  for (unsigned t = 0; t < kTables; ++t) {
    auto& s = plan[t][candidates[id][t]];
    if (s == kNoItem) {
      s = id;
      return true;
    }
  }
  std::uint32_t carried = id;
  unsigned table = 0;
  for (unsigned kicks = 1; kicks <= config_.max_kicks; ++kicks) {
    std::swap(carried, plan[table][candidates[carried][table]]);
    ++stats_.rebuild_kicks;
    table ^= 1U;
    auto& target = plan[table][candidates[carried][table]];
    if (target == kNoItem) {
      target = carried;
      return true;
    }
  }
  return false;
}
}  // namespace cuckoo
