// CuckooFilter against the multiset model, for every fingerprint width f in
// {4, 8, 12, 16, 32} and bucket size b in {1, 2, 4, 8}: one property (one GoogleTest
// case) per (f, b).
//
// A case draws a tiny filter (8..64 slots, often a tiny kick bound) and a sequence of
// ops over a small key range: insert, contains, erase of present and absent keys, size,
// serialize_roundtrip, clear. The sequence is recorded as a trace (generators.hpp) and
// run by the model layer's lock-step checker against a fresh filter built from the
// trace header, exactly as subjects::replay runs it. The checker judges:
//   C1   every stored item is found (also before and after each round trip);
//   C5   erase removes exactly one copy; 2b copies (b when both buckets coincide), then
//        kDuplicateLimit and nothing changes;
//   C6   after kFull the size is unchanged and every stored item is still found;
//   C11  serialize/deserialize inside the sequence gives an equal filter that answers
//        as before for every key the trace mentions;
//   and the size after every insert, erase and clear.
// Keys that alias (same fingerprint and bucket pair) are handled by the model through
// the filter's identity (subjects::filter_identity).
//
// Each property also checks that its cases reach the paths these claims are about:
// kicks, the stash, kFull and kDuplicateLimit.
#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "cuckoo/subjects/replay.hpp"
#include "cuckoo/subjects/filter.hpp"
#include "cuckoo/cuckoo_filter.hpp"
#include "cuckoo/model/checker.hpp"
#include "cuckoo/model/multiset_model.hpp"
#include "cuckoo/properties/generators.hpp"
#include "cuckoo/properties/rc_support.hpp"

namespace {

using cuckoo::CuckooFilter;
using cuckoo::InsertResult;
namespace model = cuckoo::model;
namespace subjects = cuckoo::subjects;
namespace props = cuckoo::properties;

// The filter adapter the checker drives, noting which paths the run reached. It adds
// no check of its own: every verdict is the checker's.
class ObservedFilter : public subjects::FilterSubjectAdapter<CuckooFilter> {
 public:
  using Base = subjects::FilterSubjectAdapter<CuckooFilter>;
  ObservedFilter(CuckooFilter& filter, std::set<std::string>& paths) : Base(filter), paths_(&paths) {}

  InsertResult insert(std::uint64_t key) {
    const std::uint64_t kicks_before = engine().stats().kicks;
    const InsertResult result = Base::insert(key);
    if (engine().stats().kicks != kicks_before) paths_->insert("kicks");
    if (engine().stash_size() != 0) paths_->insert("stash");
    if (result == InsertResult::kFull) paths_->insert("full");
    if (result == InsertResult::kDuplicateLimit) paths_->insert("duplicate_limit");
    return result;
  }
  bool erase(std::uint64_t key) {
    const bool stashed = engine().stash_size() != 0;
    const bool erased = Base::erase(key);
    if (erased && stashed) paths_->insert("erase_with_stash");
    return erased;
  }
  bool serialize_roundtrip() {
    if (engine().size() != 0) paths_->insert("roundtrip");
    return Base::serialize_roundtrip();
  }

 private:
  std::set<std::string>* paths_;
};

// Runs the trace against a fresh filter built from its header (as subjects::replay does)
// and returns the first violation; `paths` receives the paths reached.
std::optional<model::Violation> check_filter_trace(const model::Trace& trace,
                                                   std::set<std::string>& paths) {
  const cuckoo::CuckooFilterConfig config = subjects::filter_config_from(trace.parameters);
  CuckooFilter filter(config);
  ObservedFilter subject(filter, paths);
  model::MultisetModel model;
  return model::check(subject, model, trace, *config.seed);
}

struct Shape {
  unsigned fingerprint_bits;
  unsigned slots_per_bucket;
  bool semi_sorted = false;
};

[[maybe_unused]] void PrintTo(const Shape& shape, std::ostream* os) {
  *os << "f=" << shape.fingerprint_bits << " b=" << shape.slots_per_bucket
      << (shape.semi_sorted ? " semi-sorted" : "");
}

// Every f and b unsorted, and every f >= 5 with b = 4 semi-sorted.
std::vector<Shape> all_shapes() {
  std::vector<Shape> shapes;
  for (const unsigned f : props::kFilterFingerprintBits) {
    for (const unsigned b : props::kSlotsPerBucket) shapes.push_back({f, b});
  }
  for (const unsigned f : props::kFilterFingerprintBits) {
    if (f >= 5) shapes.push_back({f, 4, true});
  }
  return shapes;
}

class FilterProperty : public ::testing::TestWithParam<Shape> {};

// Default lane: 24 configurations (20 unsorted, 4 semi-sorted) x 100 cases of up to ~400
// ops.
constexpr props::Budget kBudget{100, 400};

TEST_P(FilterProperty, AgreesWithMultisetModel) {
  const Shape shape = GetParam();
  props::Coverage coverage;
  const props::PropertyRun run = props::check_property(kBudget, [&] {
    const props::TraceHeader header =
        *props::filter_header(shape.fingerprint_bits, shape.slots_per_bucket, shape.semi_sorted);
    props::FilterState initial;
    initial.key_range = (*props::key_range()).count;
    initial.copy_limit = 2ULL * shape.slots_per_bucket;
    const auto commands = *props::op_sequence(initial, props::filter_mix());
    const model::Trace trace = props::record(header, initial, commands);

    std::set<std::string> paths;
    if (const auto violation = check_filter_trace(trace, paths)) props::fail_with(*violation, trace);
    coverage.count_case(paths, trace.size());
  });
  props::expect_exercised(run, coverage,
                          {"kicks", "stash", "full", "duplicate_limit", "roundtrip",
                           "erase_with_stash"});
}

INSTANTIATE_TEST_SUITE_P(AllShapes, FilterProperty, ::testing::ValuesIn(all_shapes()),
                         [](const ::testing::TestParamInfo<Shape>& shape_info) {
                           return "f" + std::to_string(shape_info.param.fingerprint_bits) + "_b" +
                                  std::to_string(shape_info.param.slots_per_bucket) +
                                  (shape_info.param.semi_sorted ? "_semi" : "");
                         });

}  // namespace
