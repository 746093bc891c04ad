// GrowingCuckooFilter against the multiset model, for level-0 fingerprint widths f in
// {8, 12, 16} and bucket sizes b in {1, 2, 4, 8}: one property per (f, b), and a
// statistical property of its false-positive bound.
//
// A case draws a tiny level 0 (8..32 slots), an expansion of 1..3 and 2..5 levels, and a
// sequence of ops over a small key range (insert, contains, erase of present and absent
// keys, size, serialize_roundtrip, clear); the model layer's lock-step checker runs it
// against a fresh filter through subjects::GrowingFilterSubjectAdapter, exactly as
// subjects::replay does. The checker judges:
//   C1   every stored item is found, across growth (also before and after round trips);
//   C5   erase removes exactly one copy (count() is compared after every insert and
//        erase); the newest level's copy limit, then kDuplicateLimit and nothing changes;
//   C6   after kFull (level limit reached) the size is unchanged and every stored item is
//        still found;
//   C11  serialize/deserialize inside the sequence gives an equal filter that answers
//        (and counts) as before for every key the trace mentions;
//   and the size after every insert, erase and clear.
// The adapter checks on keys that every level tells apart (subjects/growing.hpp says
// why). Each property also checks that its cases reach growth, the level limit, the
// duplicate limit, round trips of grown filters and erases from older levels.
//
// Aliasing across levels: a second property per b runs the trace's own keys
// (raw_keys=1, subjects::AliasingGrowingFilterSubjectAdapter) on filters with f = 4 or 5
// and a level 0 of 1..8 slots, with an erase-heavy mix, so that keys share items at
// some levels and erase(x) takes another key's copy at a newer level. The checker then
// judges C1 for every stored key, erase of stored keys (C5), sizes and round trips, and
// the adapter's check_invariants() the copy accounting of the erase proof in
// growing_filter.hpp after every op; the property checks that such erases happened.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <optional>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "cuckoo/growing_filter.hpp"
#include "cuckoo/model/checker.hpp"
#include "cuckoo/model/multiset_model.hpp"
#include "cuckoo/properties/generators.hpp"
#include "cuckoo/properties/rc_support.hpp"
#include "cuckoo/subjects/growing.hpp"

namespace {

using cuckoo::GrowingCuckooFilter;
using cuckoo::InsertResult;
namespace model = cuckoo::model;
namespace subjects = cuckoo::subjects;
namespace props = cuckoo::properties;

// The adapter the checker drives, noting which paths the run reached. No check of its
// own: every verdict is the checker's.
class ObservedGrowingFilter : public subjects::GrowingFilterSubjectAdapter<GrowingCuckooFilter> {
 public:
  using Base = subjects::GrowingFilterSubjectAdapter<GrowingCuckooFilter>;
  ObservedGrowingFilter(GrowingCuckooFilter& filter, std::set<std::string>& paths)
      : Base(filter), paths_(&paths) {}

  InsertResult insert(std::uint64_t key) {
    const unsigned levels = engine().level_count();
    const InsertResult result = Base::insert(key);
    if (engine().level_count() != levels) paths_->insert("grew");
    if (result == InsertResult::kFull) paths_->insert("full");
    if (result == InsertResult::kDuplicateLimit) paths_->insert("duplicate_limit");
    return result;
  }
  bool erase(std::uint64_t key) {
    const auto& newest = engine().level(engine().level_count() - 1);
    const std::uint64_t newest_size = newest.size();
    const bool erased = Base::erase(key);
    if (erased && engine().level(engine().level_count() - 1).size() == newest_size) {
      paths_->insert("erase_from_older_level");
    }
    return erased;
  }
  bool serialize_roundtrip() {
    if (engine().level_count() > 1) paths_->insert("roundtrip_grown");
    return Base::serialize_roundtrip();
  }

 private:
  std::set<std::string>* paths_;
};

std::optional<model::Violation> check_growing_trace(const model::Trace& trace,
                                                    std::set<std::string>& paths) {
  const cuckoo::GrowingCuckooFilterConfig config = subjects::growing_config_from(trace.parameters);
  GrowingCuckooFilter filter(config);
  ObservedGrowingFilter subject(filter, paths);
  model::MultisetModel model;
  return model::check(subject, model, trace, *config.seed);
}

struct Shape {
  unsigned fingerprint_bits;
  unsigned slots_per_bucket;
};

[[maybe_unused]] void PrintTo(const Shape& shape, std::ostream* os) {
  *os << "f=" << shape.fingerprint_bits << " b=" << shape.slots_per_bucket;
}

std::vector<Shape> all_shapes() {
  std::vector<Shape> shapes;
  for (const unsigned f : {8U, 12U, 16U}) {
    for (const unsigned b : props::kSlotsPerBucket) shapes.push_back({f, b});
  }
  return shapes;
}

class GrowingFilterProperty : public ::testing::TestWithParam<Shape> {};

// Default lane: 12 configurations x 100 cases of up to ~400 ops.
constexpr props::Budget kBudget{100, 400};

TEST_P(GrowingFilterProperty, AgreesWithMultisetModel) {
  const Shape shape = GetParam();
  props::Coverage coverage;
  const props::PropertyRun run = props::check_property(kBudget, [&] {
    const props::TraceHeader header = *props::growing_header(shape.fingerprint_bits, shape.slots_per_bucket);
    props::FilterState initial;
    initial.key_range = (*props::key_range()).count;
    initial.copy_limit = 2ULL * shape.slots_per_bucket;
    const auto commands = *props::op_sequence(initial, props::filter_mix());
    const model::Trace trace = props::record(header, initial, commands);

    std::set<std::string> paths;
    if (const auto violation = check_growing_trace(trace, paths)) props::fail_with(*violation, trace);
    coverage.count_case(paths, trace.size());
  });
  props::expect_exercised(run, coverage,
                          {"grew", "full", "duplicate_limit", "roundtrip_grown",
                           "erase_from_older_level"});
}

// ---- Aliasing keys

class ObservedAliasingFilter
    : public subjects::AliasingGrowingFilterSubjectAdapter<GrowingCuckooFilter> {
 public:
  using Base = subjects::AliasingGrowingFilterSubjectAdapter<GrowingCuckooFilter>;
  ObservedAliasingFilter(GrowingCuckooFilter& filter, std::set<std::string>& paths)
      : Base(filter), paths_(&paths) {}

  InsertResult insert(std::uint64_t key) {
    const unsigned levels = engine().level_count();
    const InsertResult result = Base::insert(key);
    if (engine().level_count() != levels) paths_->insert("grew");
    if (result == InsertResult::kDuplicateLimit) paths_->insert("duplicate_limit");
    return result;
  }
  bool erase(std::uint64_t key) {
    const std::uint64_t before = aliased_erases();
    const bool erased = Base::erase(key);
    if (aliased_erases() != before) paths_->insert("erase_took_an_aliased_copy");
    return erased;
  }

 private:
  std::set<std::string>* paths_;
};

class AliasingGrowingFilterProperty : public ::testing::TestWithParam<unsigned> {};

TEST_P(AliasingGrowingFilterProperty, NoStoredKeyIsLost) {
  const unsigned b = GetParam();
  props::Coverage coverage;
  const props::PropertyRun run = props::check_property(kBudget, [&] {
    const props::TraceHeader header = *props::aliasing_growing_header(b);
    props::FilterState initial;
    initial.key_range = *rc::gen::inRange<std::uint64_t>(8, 65);
    initial.copy_limit = 2ULL * b;
    const auto commands = *props::op_sequence(initial, props::erase_heavy_filter_mix());
    const model::Trace trace = props::record(header, initial, commands);

    const cuckoo::GrowingCuckooFilterConfig config = subjects::growing_config_from(trace.parameters);
    GrowingCuckooFilter filter(config);
    std::set<std::string> paths;
    ObservedAliasingFilter subject(filter, paths);
    model::MultisetModel model;
    if (const auto violation = model::check(subject, model, trace, *config.seed)) {
      props::fail_with(*violation, trace);
    }
    coverage.count_case(paths, trace.size());
  });
  props::expect_exercised(run, coverage, {"grew", "erase_took_an_aliased_copy"});
}

INSTANTIATE_TEST_SUITE_P(AllSlots, AliasingGrowingFilterProperty,
                         ::testing::ValuesIn(props::kSlotsPerBucket),
                         [](const ::testing::TestParamInfo<unsigned>& b) {
                           return "b" + std::to_string(b.param);
                         });

INSTANTIATE_TEST_SUITE_P(AllShapes, GrowingFilterProperty, ::testing::ValuesIn(all_shapes()),
                         [](const ::testing::TestParamInfo<Shape>& shape_info) {
                           return "f" + std::to_string(shape_info.param.fingerprint_bits) + "_b" +
                                  std::to_string(shape_info.param.slots_per_bucket);
                         });

// The bound (1) of growing_filter.hpp, measured: a filter of random shape (f 5..10, any
// b, expansion 1..4, 2..6 levels) filled to its first kFull answers at most
// mean + 6 sqrt(mean) + 30 false positives for 20,000 keys never inserted, mean = 20,000
// times false_positive_bound() (a Chernoff tail far below 1e-9 for a correct filter);
// and the bound is below false_positive_limit().
TEST(GrowingFilterStatistics, FalsePositiveRateBelowTheBoundAtFullLoad) {
  props::check_property(props::Budget{30, 100}, [] {
    const unsigned f = *rc::gen::inRange<unsigned>(5, 11);
    const unsigned b = *rc::gen::elementOf(std::vector<unsigned>{1, 2, 4, 8});
    cuckoo::GrowingCuckooFilterConfig c;
    c.capacity = *rc::gen::inRange<std::uint64_t>(16, 257);
    c.fingerprint_bits = f;
    c.slots_per_bucket = b;
    c.expansion = *rc::gen::inRange<unsigned>(1, 5);
    c.max_levels = *rc::gen::inRange<unsigned>(2, 7);
    c.seed = *props::engine_seed();
    GrowingCuckooFilter filter(c);
    std::uint64_t k = 0;
    while (filter.insert(k) != InsertResult::kFull) ++k;
    RC_ASSERT(filter.level_count() == filter.reachable_levels());
    const double bound = filter.false_positive_bound();
    RC_ASSERT(bound < filter.false_positive_limit());
    constexpr std::uint64_t kProbes = 20'000;
    std::uint64_t positives = 0;
    for (std::uint64_t i = 0; i < kProbes; ++i) positives += filter.contains(k + 1 + i) ? 1 : 0;
    const double mean = bound * static_cast<double>(kProbes);
    RC_ASSERT(static_cast<double>(positives) <= mean + 6.0 * std::sqrt(mean) + 30.0);
  });
}

}  // namespace
