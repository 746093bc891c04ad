// SmartCuckoo's checks (out-of-line members of SmartCuckoo, cuckoo/smart_cuckoo.hpp,
// included at its end): validated(), the configuration rule the constructor runs before
// it allocates, and invariant_violation(), the verification suite's check of the tables
// against the pseudoforest. Both only read.
#pragma once

#ifndef CUCKOO_SMART
#error "smart_invariants.hpp holds out-of-line members of SmartCuckoo: include cuckoo/smart_cuckoo.hpp"
#endif

namespace cuckoo {

CUCKOO_SMART_TEMPLATE
inline auto CUCKOO_SMART::validated(const SmartCuckooConfig& config) -> const SmartCuckooConfig& {
  if (config.capacity < 2 || config.capacity > SmartCuckooConfig::kMaxCapacity) {
    throw ConfigError("capacity", "got " + std::to_string(config.capacity) +
                                      "; must be in [2, kMaxCapacity = " +
                                      std::to_string(SmartCuckooConfig::kMaxCapacity) + "]");
  }
  if (config.max_kicks == 0) {
    throw ConfigError("max_kicks", "got 0; must be at least 1");
  }
  if (config.stash_capacity > SmartCuckooConfig::kMaxStashCapacity) {
    throw ConfigError("stash_capacity",
                      "got " + std::to_string(config.stash_capacity) +
                          "; must be in [0, kMaxStashCapacity = " +
                          std::to_string(SmartCuckooConfig::kMaxStashCapacity) + "]");
  }
  return config;
}

CUCKOO_SMART_TEMPLATE
std::optional<std::string> CUCKOO_SMART::invariant_violation() const {
  const std::size_t vertex_total = graph_vertices();
  const auto at = [](std::size_t v) { return "vertex " + std::to_string(v); };
  if (slots_.size() != vertex_total || forest_.vertex_slots() != vertex_total) {
    return "table and pseudoforest sizes differ from 2 * table_size()";
  }
  if (std::string links = forest_.check_links(); !links.empty()) return links;
  // Each return below names the first violation found.

  // Items: each at one of its candidate vertices, its edge toward the other, once.
  std::size_t occupied = 0;
  for (Vertex v = 0; v < vertex_total; ++v) {
    if (slots_[v].has_value() != forest_.occupied(v)) {
      return at(v) + ": bucket occupancy and pseudoforest edge disagree";
    }
    if (!slots_[v]) continue;
    ++occupied;
    const auto [a, b] = vertices_for(slots_[v]->key);
    if (v != a && v != b) return at(v) + ": holds a key whose candidates are elsewhere";
    const Vertex other = v == a ? b : a;
    if (forest_.out(v) != other) return at(v) + ": edge does not point to the alternate bucket";
    if (slots_[other] && key_equal_(slots_[other]->key, slots_[v]->key)) {
      return at(v) + ": its key is stored in both candidate buckets";
    }
    if (find_in_stash(slots_[v]->key)) return at(v) + ": its key is also in the stash";
  }
  if (occupied != table_items_) {
    return "table holds " + std::to_string(occupied) + " items but counts " +
           std::to_string(table_items_);
  }

  // Components from scratch: breadth-first search over an adjacency list of the items.
  std::vector<std::size_t> degree(vertex_total + 1, 0);
  for (Vertex v = 0; v < vertex_total; ++v) {
    if (!forest_.occupied(v)) continue;
    ++degree[v];
    ++degree[forest_.out(v)];
  }
  std::vector<std::size_t> begin(vertex_total + 1, 0);
  for (std::size_t v = 0; v < vertex_total; ++v) begin[v + 1] = begin[v] + degree[v];
  std::vector<Vertex> adjacent(begin[vertex_total]);
  std::vector<std::size_t> fill(begin.begin(), begin.end() - 1);
  for (Vertex v = 0; v < vertex_total; ++v) {
    if (!forest_.occupied(v)) continue;
    adjacent[fill[v]++] = forest_.out(v);
    adjacent[fill[forest_.out(v)]++] = v;
  }
  std::vector<bool> seen(vertex_total, false);
  std::vector<bool> root_used(vertex_total, false);
  std::vector<Vertex> queue;
  for (Vertex s = 0; s < vertex_total; ++s) {
    if (seen[s]) continue;
    if (degree[s] == 0) {
      if (forest_.in_forest(s)) return at(s) + ": has no edge but records a subgraph ID";
      continue;
    }
    queue.assign(1, s);
    seen[s] = true;
    std::size_t edges = 0;
    for (std::size_t head = 0; head < queue.size(); ++head) {  // bound: each vertex once
      const Vertex x = queue[head];
      if (forest_.occupied(x)) ++edges;
      for (std::size_t k = begin[x]; k < begin[x + 1]; ++k) {
        if (!seen[adjacent[k]]) {
          seen[adjacent[k]] = true;
          queue.push_back(adjacent[k]);
        }
      }
    }
    const std::size_t vertices = queue.size();
    if (edges > vertices) {
      return "component of " + at(s) + " has " + std::to_string(edges) + " edges but " +
             std::to_string(vertices) + " vertices";
    }
    for (const Vertex x : queue) {
      if (!forest_.in_forest(x)) return at(x) + ": has an edge but no subgraph ID";
    }
    const Vertex root = forest_.find_root(s);
    if (forest_.recorded_id(root) != root) return at(root) + ": find() ended at a non-root";
    for (const Vertex x : queue) {
      if (forest_.find_root(x) != root) {
        return at(x) + ": subgraph ID " + std::to_string(forest_.find_root(x)) +
               " differs from " + std::to_string(root) + " of its component";
      }
    }
    if (root_used[root]) return "subgraph ID " + std::to_string(root) + " names two components";
    root_used[root] = true;
    if (forest_.vertex_count(root) != vertices || forest_.edge_count(root) != edges) {
      return "subgraph " + std::to_string(root) + " records " +
             std::to_string(forest_.vertex_count(root)) + " vertices and " +
             std::to_string(forest_.edge_count(root)) + " edges; recomputed " +
             std::to_string(vertices) + " and " + std::to_string(edges);
    }
  }

  // Stash: within capacity, keys distinct, each still unplaceable.
  if (stash_.size() > config_.stash_capacity) return "stash exceeds its capacity";
  for (std::size_t i = 0; i < stash_.size(); ++i) {
    for (std::size_t j = i + 1; j < stash_.size(); ++j) {
      if (key_equal_(stash_[i].key, stash_[j].key)) return "a key is in the stash twice";
    }
    const auto [a, b] = vertices_for(stash_[i].key);
    if (stats_.kick_bound_exhaustions == 0 &&
        !predicts_failure(
            classify_vertices(a, b, [this](Vertex v) { return forest_.find_root(v); }).kase)) {
      return "stash item " + std::to_string(i) + " could be placed in the tables";
    }
  }
  return std::nullopt;
}

}  // namespace cuckoo
