// The bookkeeping behind SmartCuckoo (smart_cuckoo.hpp): the cuckoo graph kept as a
// directed pseudoforest, with a union-find "ID tree" of subgraph ids and a vertex and an
// edge count per subgraph (Sun et al., USENIX ATC'17, section 3.2.5 of seed 000).
//
// Vertices are buckets, numbered 0 .. vertex_slots()-1. A stored item is a directed edge
// from the vertex that holds it to its alternate vertex, so every vertex has out-degree
// 0 (free bucket) or 1 (occupied bucket). This class knows nothing of keys: the engine
// keeps the items and calls link()/unlink() whenever an item enters or leaves a bucket,
// and the subgraph operations below at the points where Algorithms 1, 4 and 5 of the
// paper update ids and counts.
//
// Per vertex it keeps:
//   out_        the alternate vertex of the item stored here, kNone if the bucket is free
//   in_head_,   an intrusive doubly linked list of the vertices whose item points here
//   in_next_,   (the in-edges), so that a deletion can traverse a subgraph in time
//   in_prev_    proportional to its size instead of scanning the table
//   id_         the subgraph ID recorded in the bucket: kNone when the vertex is in no
//               subgraph (no incident edge), itself when it is the root of an ID tree,
//               otherwise its parent in the ID tree (the paper's "ID tree": merged
//               subgraphs' IDs are leaves under the ID of the merged subgraph)
//   vertices_,  the vertex and edge counts of the subgraph whose root ID is this vertex
//   edges_      (meaningless for non-root vertices; kept 0 there)
//
// Invariants (SmartCuckoo::check_invariants() recomputes them from scratch):
//   - id_[v] != kNone  iff  v has at least one incident edge;
//   - all vertices of one connected component share one root ID, distinct components
//     have distinct roots, and the root's counts equal the component's vertex and edge
//     counts, with edges <= vertices. A component with edges == vertices is "maximal"
//     (exactly one cycle, every bucket full); one with edges < vertices is a tree with
//     edges == vertices - 1 and exactly one free bucket, toward which every edge points.
//   - ID trees have depth <= kMaxIdDepth: unions link the root of the subgraph with fewer
//     vertices under the other (union by size), find() compresses paths, and a split
//     relabels the pieces flat.
//
// Thread safety: none. Const member functions do not write and may run concurrently
// with each other; anything else needs exclusive access.
#pragma once

#include <cassert>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace cuckoo::detail {

class Pseudoforest {
 public:
  using Vertex = std::uint32_t;

  // "No vertex": a free bucket's out_, the end of an in-list, a vertex in no subgraph.
  static constexpr Vertex kNone = std::numeric_limits<Vertex>::max();
  // Temporary mark of a vertex reached by the traversal of split_after_unlink().
  static constexpr Vertex kVisiting = kNone - 1;
  // Vertex numbers stay below both marks.
  static constexpr std::size_t kMaxVertices = std::size_t{1} << 31;
  // Union by size: an ID tree of depth d holds at least 2^d vertices, so no tree over
  // fewer than 2^31 vertices is deeper than 31.
  static constexpr std::size_t kMaxIdDepth = 32;
  static_assert(kMaxVertices <= (std::size_t{1} << (kMaxIdDepth - 1)));
  static_assert(kMaxVertices < kVisiting);

  Pseudoforest() = default;
  explicit Pseudoforest(std::size_t vertices) { reset(vertices); }

  // Forgets every edge and subgraph; keeps `vertices` isolated vertices.
  // REQUIRES: vertices <= kMaxVertices.
  void reset(std::size_t vertices) {
    assert(vertices <= kMaxVertices);
    out_.assign(vertices, kNone);
    in_head_.assign(vertices, kNone);
    in_next_.assign(vertices, kNone);
    in_prev_.assign(vertices, kNone);
    id_.assign(vertices, kNone);
    vertices_.assign(vertices, 0);
    edges_.assign(vertices, 0);
    scratch_.clear();
  }

  std::size_t vertex_slots() const noexcept { return out_.size(); }

  // ---- The directed graph ------------------------------------------------------------

  bool occupied(Vertex v) const noexcept { return out_[v] != kNone; }
  // The alternate vertex of the item stored at v; kNone if v is free.
  Vertex out(Vertex v) const noexcept { return out_[v]; }
  // The in-edges of v: first_in(v), then next_in(u) until kNone.
  Vertex first_in(Vertex v) const noexcept { return in_head_[v]; }
  Vertex next_in(Vertex u) const noexcept { return in_next_[u]; }

  // An item now sits at v with alternate `target`: adds the edge v -> target.
  // Touches no ID and no count. REQUIRES: !occupied(v), target != v.
  void link(Vertex v, Vertex target) noexcept {
    assert(!occupied(v) && target != v && target < vertex_slots());
    out_[v] = target;
    in_prev_[v] = kNone;
    in_next_[v] = in_head_[target];
    if (in_head_[target] != kNone) in_prev_[in_head_[target]] = v;
    in_head_[target] = v;
  }

  // The item at v left: removes the edge v -> out(v). Touches no ID and no count.
  // REQUIRES: occupied(v).
  void unlink(Vertex v) noexcept {
    assert(occupied(v));
    const Vertex target = out_[v];
    if (in_prev_[v] != kNone) {
      in_next_[in_prev_[v]] = in_next_[v];
    } else {
      in_head_[target] = in_next_[v];
    }
    if (in_next_[v] != kNone) in_prev_[in_next_[v]] = in_prev_[v];
    in_next_[v] = kNone;
    in_prev_[v] = kNone;
    out_[v] = kNone;
  }

  // The number of items a kick-out starting at `start` displaces: the directed walk
  // start -> out(start) -> ... to the first free vertex. Returns kNone if that takes more
  // than `bound` displacements (a cycle, or a walk longer than the caller allows).
  Vertex walk_length(Vertex start, std::uint32_t bound) const noexcept {
    Vertex at = start;
    for (std::uint32_t kicks = 0; kicks <= bound; ++kicks) {
      if (!occupied(at)) return kicks;
      at = out_[at];
    }
    return kNone;
  }

  // ---- The ID tree (union-find of subgraph ids) ----------------------------------------

  bool in_forest(Vertex v) const noexcept { return id_[v] != kNone; }
  // The ID recorded at v (its parent in the ID tree, itself for a root, kNone if v is in
  // no subgraph). Exposed so that tests can observe path compression.
  Vertex recorded_id(Vertex v) const noexcept { return id_[v]; }

  // Find without writing: the root ID of v's subgraph. REQUIRES: in_forest(v).
  Vertex find_root(Vertex v) const noexcept {
    assert(in_forest(v));
    Vertex at = v;
    for (std::size_t depth = 0; depth < kMaxIdDepth; ++depth) {
      if (id_[at] == at) return at;
      at = id_[at];
    }
    assert(false && "ID tree deeper than kMaxIdDepth");
    return at;
  }

  // Find with path compression: the root ID of v's subgraph, after which every ID on the
  // path from v records the root directly. REQUIRES: in_forest(v).
  Vertex find(Vertex v) noexcept {
    const Vertex root = find_root(v);
    compress_path(v, root);
    return root;
  }

  std::uint32_t vertex_count(Vertex root) const noexcept { return vertices_[root]; }
  std::uint32_t edge_count(Vertex root) const noexcept { return edges_[root]; }
  // A maximal subgraph has as many edges as vertices: one cycle and no free bucket.
  bool is_maximal(Vertex root) const noexcept { return edges_[root] == vertices_[root]; }

  // ---- Insertion bookkeeping (Algorithms 1 and 4) -------------------------------------

  // Case v+2 (Algorithm 1 line 5): a and b join a new subgraph of 2 vertices and 1 edge,
  // whose unique ID is a. REQUIRES: neither is in a subgraph. Returns the new root.
  Vertex create_subgraph(Vertex a, Vertex b) noexcept {
    assert(!in_forest(a) && !in_forest(b) && a != b);
    id_[a] = a;
    id_[b] = a;
    vertices_[a] = 2;
    edges_[a] = 1;
    return a;
  }

  // Case v+1 (Algorithm 1 line 9, Union(a, b)): the vertex `fresh`, in no subgraph, joins
  // the subgraph rooted at `root` with the new edge. REQUIRES: root is a root.
  void extend_subgraph(Vertex root, Vertex fresh) noexcept {
    assert(id_[root] == root && !in_forest(fresh));
    id_[fresh] = root;
    ++vertices_[root];
    ++edges_[root];
  }

  // Case v+0 with both endpoints in one subgraph: one more edge, no new vertex.
  void add_edge_within(Vertex root) noexcept {
    assert(id_[root] == root && edges_[root] < vertices_[root]);
    ++edges_[root];
  }

  // Case v+0 with endpoints in two subgraphs (Algorithm 4 lines 6 and 13, Union(a, b)):
  // the new edge merges them. The root of the subgraph with fewer vertices is linked
  // under the other (ties: under ra). Returns the root of the merged subgraph.
  Vertex unite(Vertex ra, Vertex rb) noexcept {
    assert(id_[ra] == ra && id_[rb] == rb && ra != rb);
    Vertex parent = ra;
    Vertex child = rb;
    if (vertices_[rb] > vertices_[ra]) {
      parent = rb;
      child = ra;
    }
    id_[child] = parent;
    vertices_[parent] += vertices_[child];
    edges_[parent] += edges_[child] + 1;
    vertices_[child] = 0;
    edges_[child] = 0;
    return parent;
  }

  // ---- Deletion bookkeeping (Algorithm 5 lines 5-7) -----------------------------------

  // The edge u -> w has just been unlinked. The subgraph that held it may have split in
  // two: traverses the remaining edges from u and from w (bounded by the old subgraph's
  // vertex count), assigns each piece a new unique ID (u, respectively w: the vertex the
  // traversal started from), records it in every member vertex and recounts vertices and
  // edges. A vertex left with no edge leaves the pseudoforest (ID kNone).
  // REQUIRES: u and w were the endpoints of the unlinked edge (so both are in_forest).
  void split_after_unlink(Vertex u, Vertex w) {
    const Vertex old_root = find(u);
    const std::uint32_t component_bound = vertices_[old_root];
    vertices_[old_root] = 0;
    edges_[old_root] = 0;
    collect_component(u, component_bound);
    const bool still_connected = id_[w] == kVisiting;
    label_collected(u);
    if (!still_connected) {
      collect_component(w, component_bound);
      label_collected(w);
    }
  }

  // Consistency of the link structure alone (out_ against the in-lists); "" if it holds,
  // otherwise the first violation. Subgraph ids and counts are checked by the engine,
  // which recomputes components from the stored items.
  std::string check_links() const {
    const std::size_t n = vertex_slots();
    std::size_t in_edges = 0;
    for (std::size_t w = 0; w < n; ++w) {
      Vertex prev = kNone;
      Vertex u = in_head_[w];
      for (std::size_t steps = 0; u != kNone; ++steps, u = in_next_[u]) {
        if (steps >= n) return "in-list of vertex " + std::to_string(w) + " does not end";
        if (u >= n) return "in-list of vertex " + std::to_string(w) + " holds a bad vertex";
        if (out_[u] != w) {
          return "vertex " + std::to_string(u) + " is in the in-list of vertex " +
                 std::to_string(w) + " but points to " + std::to_string(out_[u]);
        }
        if (in_prev_[u] != prev) return "in-list back link broken at vertex " + std::to_string(u);
        prev = u;
        ++in_edges;
      }
    }
    std::size_t out_edges = 0;
    for (std::size_t v = 0; v < n; ++v) {
      if (out_[v] == kNone) continue;
      if (out_[v] >= n || out_[v] == v) return "vertex " + std::to_string(v) + " has a bad edge";
      ++out_edges;
    }
    if (in_edges != out_edges) {
      return "in-lists hold " + std::to_string(in_edges) + " edges but " +
             std::to_string(out_edges) + " buckets are occupied";
    }
    return {};
  }

 private:
  // Path compression, kept as its own step: every vertex on the ID path from v to root
  // records root directly, so later finds on the path take one step.
  void compress_path(Vertex v, Vertex root) noexcept {
    Vertex at = v;
    for (std::size_t depth = 0; depth < kMaxIdDepth && at != root; ++depth) {
      const Vertex parent = id_[at];
      id_[at] = root;
      at = parent;
    }
  }

  // Breadth-first traversal over the remaining edges (both directions) from `start`;
  // marks each reached vertex kVisiting and lists it in scratch_. Only vertices of the
  // old subgraph are reachable, so at most `component_bound` are visited.
  void collect_component(Vertex start, std::uint32_t component_bound) {
    scratch_.clear();
    scratch_.push_back(start);
    id_[start] = kVisiting;
    const auto visit = [this](Vertex v) {
      if (id_[v] == kVisiting) return;
      assert(id_[v] != kNone);
      id_[v] = kVisiting;
      scratch_.push_back(v);
    };
    for (std::size_t head = 0; head < scratch_.size(); ++head) {
      assert(scratch_.size() <= component_bound);
      const Vertex at = scratch_[head];
      if (out_[at] != kNone) visit(out_[at]);
      Vertex in = in_head_[at];
      for (std::uint32_t degree = 0; in != kNone && degree < component_bound; ++degree) {
        visit(in);
        in = in_next_[in];
      }
    }
  }

  // Gives the vertices listed in scratch_ the new subgraph ID `root` and recounts; a lone
  // vertex (no edge left) leaves the pseudoforest.
  void label_collected(Vertex root) noexcept {
    if (scratch_.size() == 1) {
      assert(!occupied(root) && in_head_[root] == kNone);
      id_[root] = kNone;
      return;
    }
    std::uint32_t edges = 0;
    for (const Vertex v : scratch_) {
      id_[v] = root;
      if (occupied(v)) ++edges;
    }
    vertices_[root] = static_cast<std::uint32_t>(scratch_.size());
    edges_[root] = edges;
  }

  std::vector<Vertex> out_;
  std::vector<Vertex> in_head_;
  std::vector<Vertex> in_next_;
  std::vector<Vertex> in_prev_;
  std::vector<Vertex> id_;
  std::vector<std::uint32_t> vertices_;
  std::vector<std::uint32_t> edges_;
  std::vector<Vertex> scratch_;  // traversal queue of split_after_unlink()
};

}  // namespace cuckoo::detail
