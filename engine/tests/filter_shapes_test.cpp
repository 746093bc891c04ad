// The compiled filter shapes (detail/filter_shapes.hpp) against the generic runtime path:
// a typed suite, one type per compiled (f, b, layout), runs the same seeded random sequence of
// inserts, lookups (one key and batched), erases and clears through a filter that
// dispatches to the compiled shape and through a twin forced onto the generic path
// (use_generic_lookup()), and checks that every answer and the serialized bytes agree
// exactly, and that both agree with a per-slot oracle built from fingerprint_at() and
// stash(). Small tables, so kicks, the stash (which switches lookups to the generic path
// and back) and full refusals all happen. Also: each shape's probe against the slots of
// bucket words built to stress its SWAR test (semi-sorted: buckets encoded slot by slot at
// both bit offsets a bucket can start at), and the dispatch maps each (f, b, layout) to
// the shape compiled for it and every other shape to the generic path.
// Every randomized test prints its seed and the line that replays it on failure.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <tuple>
#include <vector>

#include "cuckoo/cuckoo_filter.hpp"
#include "cuckoo/detail/filter_shapes.hpp"
#include "cuckoo/detail/rng.hpp"
#include "support/test_seed.hpp"

namespace {

using cuckoo::CuckooFilter;
using cuckoo::CuckooFilterConfig;
using cuckoo::InsertResult;
using cuckoo::detail::BucketLayout;
using cuckoo::detail::CompiledFilterShape;
using cuckoo::detail::CompiledSemiShape;
using cuckoo::detail::FilterShapeId;
using cuckoo::detail::Rng;

constexpr const char* kProgram = "engine/tests/filter_shapes_test";

CuckooFilterConfig config_for(unsigned f, unsigned b, std::uint64_t capacity, std::uint64_t seed,
                              bool semi_sorted = false) {
  CuckooFilterConfig c;
  c.semi_sorted = semi_sorted;
  c.capacity = capacity;
  c.fingerprint_bits = f;
  c.slots_per_bucket = b;
  c.max_kicks = 20;  // short walks: the stash fills and empties often
  c.seed = seed;
  return c;
}

// The answer contains() must give, slot by slot: a candidate bucket or a stash entry of
// the pair holds the fingerprint.
bool oracle_contains(const CuckooFilter& f, std::uint64_t key) {
  const auto p = f.placement(key);
  for (const std::uint32_t bucket : {p.bucket1, p.bucket2}) {
    for (unsigned s = 0; s < f.slots_per_bucket(); ++s) {
      if (f.fingerprint_at(bucket, s) == p.fingerprint) return true;
    }
  }
  for (const auto& e : f.stash()) {
    if (e.fingerprint == p.fingerprint && (e.bucket1 == p.bucket1 || e.bucket1 == p.bucket2)) {
      return true;
    }
  }
  return false;
}

// The (f, b, semi-sorted) a shape id dispatches to, as visit_filter_shape() sees it;
// {0, 0, false} for the generic path.
using ShapeParams = std::tuple<unsigned, unsigned, bool>;
ShapeParams dispatched_params(FilterShapeId id) {
  return cuckoo::detail::visit_filter_shape(
      id, [](auto shape) { return ShapeParams(shape.kBits, shape.kSlots, shape.kSemiSorted); },
      [] { return ShapeParams(0, 0, false); });
}

template <class Shape>
constexpr BucketLayout layout_of() {
  return Shape::kSemiSorted ? BucketLayout::kSemiSorted : BucketLayout::kUnsorted;
}

// The fingerprint an adversarial probe trial looks up: random in 1..mask, and every fifth
// trial in turn mask, the top bit alone and `low`.
std::uint64_t trial_fingerprint(Rng& rng, int trial, unsigned f, std::uint64_t mask,
                                std::uint64_t low) {
  switch (trial % 5) {
    case 1: return mask;
    case 2: return std::uint64_t{1} << (f - 1);
    case 3: return low;
    default: return 1 + rng.below(mask);
  }
}

template <class Shape>
class CompiledShapeTest : public ::testing::Test {};

using CompiledShapes =
    ::testing::Types<CompiledFilterShape<8, 2>, CompiledFilterShape<8, 4>,
                     CompiledFilterShape<8, 8>, CompiledFilterShape<12, 2>,
                     CompiledFilterShape<12, 4>, CompiledFilterShape<16, 2>,
                     CompiledFilterShape<16, 4>, CompiledFilterShape<32, 2>,
                     CompiledSemiShape<8>, CompiledSemiShape<12>, CompiledSemiShape<16>>;

class ShapeNames {
 public:
  template <class Shape>
  static std::string GetName(int) {
    return std::string(Shape::kSemiSorted ? "semi_" : "") + "f" + std::to_string(Shape::kBits) +
           "b" + std::to_string(Shape::kSlots);
  }
};
TYPED_TEST_SUITE(CompiledShapeTest, CompiledShapes, ShapeNames);

TYPED_TEST(CompiledShapeTest, DispatchesToItsOwnShape) {
  using Shape = TypeParam;
  const FilterShapeId id =
      cuckoo::detail::filter_shape_id(Shape::kBits, Shape::kSlots, layout_of<Shape>());
  ASSERT_NE(id, FilterShapeId::kGeneric);
  EXPECT_EQ(dispatched_params(id), ShapeParams(Shape::kBits, Shape::kSlots, Shape::kSemiSorted));
  const CuckooFilter filter(
      config_for(Shape::kBits, Shape::kSlots, 64, 1, Shape::kSemiSorted));
  EXPECT_EQ(filter.lookup_shape(), id);
  const auto bytes = filter.serialize();
  EXPECT_EQ(CuckooFilter::deserialize(bytes).lookup_shape(), id);
}

TYPED_TEST(CompiledShapeTest, AgreesWithTheGenericPathOnRandomSequences) {
  using Shape = TypeParam;
  constexpr unsigned f = Shape::kBits;
  constexpr unsigned b = Shape::kSlots;
  const std::uint64_t base_seed = cuckoo::test::test_seed(0x5a4e'0000 + 16 * f + b);
  constexpr int kRounds = 6;
  constexpr int kOpsPerRound = 2000;
  bool saw_stash = false;
  for (int round = 0; round < kRounds; ++round) {
    const std::uint64_t seed = base_seed + static_cast<std::uint64_t>(round);
    SCOPED_TRACE("f=" + std::to_string(f) + " b=" + std::to_string(b) + " round " +
                 std::to_string(round) + " " + cuckoo::test::seed_note(seed, kProgram));
    Rng rng(seed);
    // 16..64 buckets: full often, kicks and a stash within a few hundred inserts.
    const std::uint64_t capacity = b * (16 + rng.below(49));
    CuckooFilter compiled(config_for(f, b, capacity, seed, Shape::kSemiSorted));
    CuckooFilter generic(config_for(f, b, capacity, seed, Shape::kSemiSorted));
    generic.use_generic_lookup();
    ASSERT_NE(compiled.lookup_shape(), FilterShapeId::kGeneric);
    ASSERT_EQ(generic.lookup_shape(), FilterShapeId::kGeneric);

    // Keys from a small range, so duplicates, erases of present keys and lookups of
    // both present and absent keys are all common.
    const std::uint64_t key_range = capacity * 2;
    std::vector<std::uint64_t> inserted;
    for (int op = 0; op < kOpsPerRound; ++op) {
      const std::uint64_t dice = rng.below(1000);
      const std::uint64_t key = rng.below(key_range);
      SCOPED_TRACE("op " + std::to_string(op) + " key " + std::to_string(key));
      if (dice < 500) {
        const InsertResult a = compiled.insert(key);
        ASSERT_EQ(a, generic.insert(key));
        if (a == InsertResult::kInserted) inserted.push_back(key);
      } else if (dice < 750) {
        const bool a = compiled.contains(key);
        ASSERT_EQ(a, generic.contains(key));
        ASSERT_EQ(a, oracle_contains(compiled, key));
      } else if (dice < 950) {
        if (inserted.empty()) continue;
        const std::size_t k = rng.below(inserted.size());
        const std::uint64_t victim = inserted[k];
        inserted[k] = inserted.back();
        inserted.pop_back();
        ASSERT_TRUE(compiled.contains(victim));
        ASSERT_EQ(compiled.erase(victim), generic.erase(victim));
      } else if (dice < 999) {
        // Batched: every key of the range, both filters and the one-key answers.
        std::vector<std::uint64_t> keys(key_range);
        for (std::uint64_t i = 0; i < key_range; ++i) keys[i] = i;
        const std::unique_ptr<bool[]> a(new bool[keys.size()]);
        const std::unique_ptr<bool[]> g(new bool[keys.size()]);
        const std::span<const std::uint64_t> key_span(keys);
        compiled.contains_many(key_span, std::span<bool>(a.get(), keys.size()));
        generic.contains_many(key_span, std::span<bool>(g.get(), keys.size()));
        for (std::uint64_t i = 0; i < key_range; ++i) {
          ASSERT_EQ(a[i], g[i]) << "contains_many, key " << i;
          ASSERT_EQ(a[i], compiled.contains(i)) << "contains_many against contains, key " << i;
          ASSERT_EQ(a[i], oracle_contains(compiled, i))
              << "contains_many against the oracle, key " << i;
        }
      } else {
        compiled.clear();
        generic.clear();
        inserted.clear();
      }
      saw_stash = saw_stash || compiled.stash_size() != 0;
      ASSERT_EQ(compiled.stash_size(), generic.stash_size());
      ASSERT_EQ(compiled.size(), generic.size());
      if (op % 100 == 0) {
        ASSERT_EQ(compiled.serialize(), generic.serialize());
      }
    }
    // Every inserted key is still found (no false negatives on either path).
    for (const std::uint64_t key : inserted) {
      ASSERT_TRUE(compiled.contains(key)) << key;
      ASSERT_TRUE(generic.contains(key)) << key;
    }
    ASSERT_EQ(compiled.serialize(), generic.serialize());
    ASSERT_TRUE(compiled == generic);
    // The bytes read back dispatch to the compiled shape again and answer the same.
    const CuckooFilter copy = CuckooFilter::deserialize(compiled.serialize());
    ASSERT_EQ(copy.lookup_shape(), compiled.lookup_shape());
    for (std::uint64_t key = 0; key < key_range; ++key) {
      ASSERT_EQ(copy.contains(key), generic.contains(key)) << key;
    }
  }
  EXPECT_TRUE(saw_stash) << "no round used the stash";
}

template <class Shape>
class UnsortedShapeTest : public ::testing::Test {};
using UnsortedShapes =
    ::testing::Types<CompiledFilterShape<8, 2>, CompiledFilterShape<8, 4>,
                     CompiledFilterShape<8, 8>, CompiledFilterShape<12, 2>,
                     CompiledFilterShape<12, 4>, CompiledFilterShape<16, 2>,
                     CompiledFilterShape<16, 4>, CompiledFilterShape<32, 2>>;
TYPED_TEST_SUITE(UnsortedShapeTest, UnsortedShapes, ShapeNames);

// The compiled probe's SWAR test against a slot-by-slot reading of the same two words,
// on words built to stress it: slots equal to fp, differing from it in the top bit
// only, one above or below it, 0 and all ones, and every bit of the 8-byte load above
// the bucket (the next bucket's bytes, or padding) random. Both holds_either() (the
// one-key lookup) and holds() (contains_many's probe) are checked.
TYPED_TEST(UnsortedShapeTest, ProbeMatchesTheSlotsOnAdversarialWords) {
  using Shape = TypeParam;
  constexpr unsigned f = Shape::kBits;
  constexpr unsigned b = Shape::kSlots;
  constexpr std::uint64_t kMask = Shape::kFingerprintMask;
  const std::uint64_t seed = cuckoo::test::test_seed(0x5a4e'5a00 + 16 * f + b);
  SCOPED_TRACE(cuckoo::test::seed_note(seed, kProgram));
  Rng rng(seed);
  // Two 8-byte loads: the first bucket's at byte 0, the second's at byte 8.
  std::array<std::uint8_t, 16> bytes{};
  const typename Shape::Probe probe{bytes.data()};
  constexpr int kTrials = 20000;
  for (int trial = 0; trial < kTrials; ++trial) {
    // fp in 1..2^f - 1, its edges often.
    const std::uint64_t fp = trial_fingerprint(rng, trial, f, kMask, 1);
    const std::array<std::uint64_t, 6> near = {
        fp, fp ^ (std::uint64_t{1} << (f - 1)), (fp + 1) & kMask, fp - 1, 0, kMask};
    std::array<bool, 2> held{};
    for (unsigned bucket = 0; bucket < 2; ++bucket) {
      std::uint64_t word = rng.next();  // the bits above the bucket stay random
      for (unsigned s = 0; s < b; ++s) {
        const std::uint64_t value = rng.below(4) == 0 ? rng.next() & kMask : near[rng.below(6)];
        word &= ~(kMask << (s * f));
        word |= value << (s * f);
        held[bucket] = held[bucket] || value == fp;
      }
      for (unsigned i = 0; i < 8; ++i) {
        bytes[8 * bucket + i] = static_cast<std::uint8_t>(word >> (8 * i));
      }
    }
    const auto fp32 = static_cast<std::uint32_t>(fp);
    ASSERT_EQ(probe.holds(0, fp32), held[0]) << "trial " << trial << " fp " << fp;
    ASSERT_EQ(probe.holds(8, fp32), held[1]) << "trial " << trial << " fp " << fp;
    ASSERT_EQ(probe.holds_either(0, 8, fp32), held[0] || held[1])
        << "trial " << trial << " fp " << fp;
  }
}

template <class Shape>
class SemiShapeTest : public ::testing::Test {};
using SemiShapes = ::testing::Types<CompiledSemiShape<8>, CompiledSemiShape<12>, CompiledSemiShape<16>>;
TYPED_TEST_SUITE(SemiShapeTest, SemiShapes, ShapeNames);

// The compiled semi-sorted probe against a slot-by-slot reading of the same buckets: two
// buckets encoded from four slots each (sorted, the nibbles' rank as the code, the high
// parts after it), the first at bit 0 and the second at bit 4 of a byte (the two offsets
// a bucket of 4f - 4 bits starts at), the bits around them random. The slots are chosen
// to stress both halves of the test: equal to fp, the same nibble with another high part
// (its top bit flipped, one more or less), the same high part with another nibble, 0 and
// all ones, and repeated values.
TYPED_TEST(SemiShapeTest, ProbeMatchesTheSlotsOnEncodedBuckets) {
  namespace semi = cuckoo::detail::semi_sorted;
  using Shape = TypeParam;
  constexpr unsigned f = Shape::kBits;
  constexpr unsigned h = Shape::kHighBits;
  constexpr std::uint64_t kMask = Shape::kFingerprintMask;
  const std::uint64_t seed = cuckoo::test::test_seed(0x5e31'5a00 + f);
  SCOPED_TRACE(cuckoo::test::seed_note(seed, kProgram));
  Rng rng(seed);
  constexpr std::uint64_t kBucketMask = (std::uint64_t{1} << Shape::kBucketBits) - 1;
  const std::uint64_t second_bit = 64 + 4;  // bit 4 of byte 8
  std::array<std::uint8_t, 24> bytes{};
  const typename Shape::Probe probe{bytes.data()};
  constexpr int kTrials = 20000;
  for (int trial = 0; trial < kTrials; ++trial) {
    // fp in 1..2^f - 1, its edges often, and a high part of 0.
    const std::uint64_t fp = trial_fingerprint(rng, trial, f, kMask, 1 + rng.below(15));
    const std::uint64_t high_top = std::uint64_t{1} << (f - 1);
    const std::array<std::uint64_t, 8> near = {
        fp, fp ^ high_top, (fp + 16) & kMask, (fp - 16) & kMask, (fp & ~std::uint64_t{15}) | ((fp + 1) & 15),
        fp ^ 8, 0, kMask};
    std::array<std::uint64_t, 3> words{rng.next(), rng.next(), rng.next()};
    std::array<bool, 2> held{};
    for (unsigned bucket = 0; bucket < 2; ++bucket) {
      std::array<std::uint32_t, semi::kSlots> slots{};
      for (auto& slot : slots) {
        slot = static_cast<std::uint32_t>(rng.below(4) == 0 ? rng.next() & kMask : near[rng.below(8)]);
        held[bucket] = held[bucket] || slot == fp;
      }
      semi::sort_slots(slots);
      std::array<std::uint32_t, semi::kSlots> nibbles{};
      std::uint64_t encoded = 0;
      for (unsigned s = 0; s < semi::kSlots; ++s) {
        nibbles[s] = slots[s] & 15U;
        encoded |= std::uint64_t{slots[s] >> 4} << (semi::kCodeBits + s * h);
      }
      encoded |= semi::encode(nibbles);
      // Bucket 0 at bit 0 of words[0]; bucket 1 at bit 4 of words[1] (byte 8), its top
      // bits spilling into words[2] when the bucket is 60 bits long.
      if (bucket == 0) {
        words[0] = (words[0] & ~kBucketMask) | encoded;
      } else {
        const unsigned shift = static_cast<unsigned>(second_bit - 64);
        words[1] = (words[1] & ~(kBucketMask << shift)) | (encoded << shift);
        if (Shape::kBucketBits + shift > 64) {
          const unsigned spill = 64 - shift;
          words[2] = (words[2] & ~(kBucketMask >> spill)) | (encoded >> spill);
        }
      }
    }
    for (unsigned w = 0; w < 3; ++w) {
      for (unsigned i = 0; i < 8; ++i) bytes[8 * w + i] = static_cast<std::uint8_t>(words[w] >> (8 * i));
    }
    const auto fp32 = static_cast<std::uint32_t>(fp);
    ASSERT_EQ(probe.holds(0, fp32), held[0]) << "trial " << trial << " fp " << fp;
    ASSERT_EQ(probe.holds(second_bit, fp32), held[1]) << "trial " << trial << " fp " << fp;
    ASSERT_EQ(probe.holds_either(0, second_bit, fp32), held[0] || held[1])
        << "trial " << trial << " fp " << fp;
  }
}

// Every valid (f, b, layout) other than the compiled ones takes the generic path, and
// each compiled one dispatches to the shape of its own f, b and layout.
TEST(FilterShapeDispatch, EveryShapeMapsToItsCompiledVariantOrTheGenericPath) {
  for (unsigned b : {1U, 2U, 4U, 8U}) {
    for (unsigned f = 4; f <= 32; ++f) {
      bool compiled = false;
      for (const auto& s : cuckoo::detail::kCompiledShapes) compiled |= s.bits == f && s.slots == b;
      const FilterShapeId id = cuckoo::detail::filter_shape_id(f, b, BucketLayout::kUnsorted);
      SCOPED_TRACE("f=" + std::to_string(f) + " b=" + std::to_string(b));
      if (compiled) {
        EXPECT_EQ(dispatched_params(id), ShapeParams(f, b, false));
      } else {
        EXPECT_EQ(id, FilterShapeId::kGeneric);
      }
      bool semi = false;
      for (const auto& s : cuckoo::detail::kCompiledSemiShapes) semi |= s.bits == f && s.slots == b;
      const FilterShapeId semi_id = cuckoo::detail::filter_shape_id(f, b, BucketLayout::kSemiSorted);
      if (semi) {
        EXPECT_EQ(dispatched_params(semi_id), ShapeParams(f, b, true));
      } else {
        EXPECT_EQ(semi_id, FilterShapeId::kGeneric);
      }
    }
  }
}

// A filter whose stash holds items looks up through the generic path (the compiled
// probes read no stash; contains() asserts, in builds with assertions, that it
// dispatches so) and goes back to its compiled shape once the stash is empty.
TEST(FilterShapeDispatch, StashedItemsAreFoundAndTheShapeComesBack) {
  const std::uint64_t seed = cuckoo::test::test_seed(0x5a4e'57a5);
  SCOPED_TRACE(cuckoo::test::seed_note(seed, kProgram));
  CuckooFilter filter(config_for(12, 4, 16, seed));
  const FilterShapeId shape = filter.lookup_shape();
  ASSERT_EQ(shape, cuckoo::detail::filter_shape_id(12, 4, cuckoo::detail::BucketLayout::kUnsorted));
  std::vector<std::uint64_t> keys;
  for (std::uint64_t k = 0; filter.stash_size() == 0 && k < 1000; ++k) {
    if (filter.insert(k) == InsertResult::kInserted) keys.push_back(k);
  }
  ASSERT_GT(filter.stash_size(), 0U);
  for (const std::uint64_t k : keys) ASSERT_TRUE(filter.contains(k)) << k;
  for (const std::uint64_t k : keys) filter.erase(k);
  EXPECT_EQ(filter.stash_size(), 0U);
  EXPECT_EQ(filter.size(), 0U);
  filter.insert(std::uint64_t{7});
  EXPECT_TRUE(filter.contains(std::uint64_t{7}));
  EXPECT_EQ(filter.lookup_shape(), shape);
}

}  // namespace
