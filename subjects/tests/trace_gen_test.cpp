// The trace generator and the weighted op chooser the whole suite draws op kinds with.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <map>

#include "cuckoo/model/op.hpp"
#include "cuckoo/model/trace.hpp"
#include "cuckoo/subjects/trace_gen.hpp"

namespace {

using cuckoo::model::OpKind;
using cuckoo::model::Trace;
using cuckoo::subjects::OpWeights;

// Every position of the cumulative weights, once: each kind exactly its weight, in
// kOrder's order (so a shrinking draw moves towards the first kinds).
TEST(OpWeights, KindAtGivesEachKindItsWeightInOrder) {
  const OpWeights w{3, 1, 4, 1, 5, 9, 2, 6};
  ASSERT_EQ(w.total(), 31U);
  std::map<OpKind, unsigned> seen;
  std::size_t order_index = 0;
  for (unsigned r = 0; r < w.total(); ++r) {
    const OpKind kind = w.kind_at(r);
    ++seen[kind];
    while (OpWeights::kOrder[order_index] != kind) {
      ++order_index;
      ASSERT_LT(order_index, OpWeights::kOrder.size()) << "kind out of order at r=" << r;
    }
  }
  for (const OpKind kind : OpWeights::kOrder) EXPECT_EQ(seen[kind], w.weight(kind));
  EXPECT_EQ(w.kind_at(0), OpKind::kInsert);
  EXPECT_EQ(w.kind_at(30), OpKind::kFind);
}

TEST(OpWeights, ZeroWeightKindsAreNeverDrawn) {
  OpWeights w = OpWeights::none();
  EXPECT_EQ(w.total(), 0U);
  w.find = 2;
  w.clear = 1;
  EXPECT_EQ(w.kind_at(0), OpKind::kClear);
  EXPECT_EQ(w.kind_at(1), OpKind::kFind);
  EXPECT_EQ(w.kind_at(2), OpKind::kFind);
}

// A generated trace holds each kind about in proportion to its weight, and none of a
// kind whose weight is 0.
TEST(TraceGen, DrawsKindsInProportionToTheirWeights) {
  cuckoo::subjects::TraceShape shape;
  shape.ops = 20000;
  shape.weights = OpWeights{40, 10, 20, 5, 0, 0, 15, 10};
  const Trace t = cuckoo::subjects::generate_trace("map", {}, shape, 7);
  std::map<OpKind, double> count;
  for (const auto& e : t.entries) count[e.op.kind] += 1;
  for (const OpKind kind : OpWeights::kOrder) {
    const double expected = 20000.0 * shape.weights.weight(kind) / shape.weights.total();
    EXPECT_NEAR(count[kind], expected, 0.1 * expected + 1) << cuckoo::model::to_string(kind);
  }
}

TEST(TraceGen, IsDeterministicAndHonoursTheShape) {
  cuckoo::subjects::TraceShape shape;
  shape.ops = 300;
  shape.key_range = 7;
  shape.key_base = 100;
  const Trace a = cuckoo::subjects::generate_trace("filter", {}, shape, 42);
  const Trace b = cuckoo::subjects::generate_trace("filter", {}, shape, 42);
  EXPECT_EQ(a, b);
  ASSERT_EQ(a.size(), 300U);
  for (const auto& e : a.entries) {
    if (cuckoo::model::takes_key(e.op.kind)) {
      EXPECT_GE(e.op.key, 100U);
      EXPECT_LT(e.op.key, 107U);
    }
  }
  // Without insert values (filters take a key only) the ops are the same, values 0.
  shape.insert_values = false;
  const Trace keys_only = cuckoo::subjects::generate_trace("filter", {}, shape, 42);
  ASSERT_EQ(keys_only.size(), a.size());
  std::size_t inserts_with_values = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(keys_only.entries[i].op.kind, a.entries[i].op.kind) << i;
    EXPECT_EQ(keys_only.entries[i].op.key, a.entries[i].op.key) << i;
    if (a.entries[i].op.kind == cuckoo::model::OpKind::kInsert) {
      EXPECT_EQ(keys_only.entries[i].op.value, 0U) << i;
      if (a.entries[i].op.value != 0) ++inserts_with_values;
    }
  }
  EXPECT_GT(inserts_with_values, 0U);
}

}  // namespace
