// The exact tables against the map model (claim C7): CuckooMap for B in {1, 2, 4, 8}
// (uncapped, and with a small max_capacity), ClassicCuckoo under each failure policy
// (rehash, grow, report; uncapped and capped), SmartCuckoo (tiny table, small stash).
//
// A case draws a tiny table and a sequence of insert, insert_or_assign, find, contains,
// erase, size, clear (and serialize_roundtrip for CuckooMap), recorded as a trace
// (generators.hpp) and run by the model layer's lock-step checker against a fresh table
// built from the trace header, as subjects::replay runs it. The checker judges:
//   C7   every outcome, value, answer and size equals MapModel's, across growth, rehash
//        and stash use; after every op the table's own invariant check passes (every key
//        in one of its candidate buckets or the stash, no key stored twice);
//        kFull only where the configuration allows it (a growth limit, the report
//        policy, a full SmartCuckoo stash);
//   C6   after kFull nothing was lost;
//   C11  CuckooMap's round trip gives an equal map that answers as before.
//
// Each property also checks that its cases reach the paths the claims are about
// (growth, stash, rehash, kFull, ...).
#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <ostream>
#include <set>
#include <stdexcept>
#include <string>

#include "cuckoo/subjects/replay.hpp"
#include "cuckoo/subjects/classic.hpp"
#include "cuckoo/subjects/map.hpp"
#include "cuckoo/subjects/smart.hpp"
#include "cuckoo/classic_cuckoo.hpp"
#include "cuckoo/cuckoo_map.hpp"
#include "cuckoo/model/checker.hpp"
#include "cuckoo/model/map_model.hpp"
#include "cuckoo/properties/generators.hpp"
#include "cuckoo/properties/rc_support.hpp"
#include "cuckoo/smart_cuckoo.hpp"

namespace {

using cuckoo::InsertResult;
namespace model = cuckoo::model;
namespace subjects = cuckoo::subjects;
namespace props = cuckoo::properties;

// The table adapter the checker drives, noting which paths the run reached. It adds no
// check of its own: every verdict is the checker's.
template <class Table>
class ObservedTable : public subjects::MapSubjectAdapter<Table> {
 public:
  using Base = subjects::MapSubjectAdapter<Table>;
  ObservedTable(Table& table, bool has_growth_limit, std::set<std::string>& paths)
      : Base(table, has_growth_limit), paths_(&paths) {}

  InsertResult insert(std::uint64_t key, std::uint64_t value) {
    const Snapshot before = snapshot();
    const InsertResult result = Base::insert(key, value);
    note_insert(before, result);
    return result;
  }
  InsertResult insert_or_assign(std::uint64_t key, std::uint64_t value) {
    const Snapshot before = snapshot();
    const InsertResult result = Base::insert_or_assign(key, value);
    note_insert(before, result);
    return result;
  }
  bool erase(std::uint64_t key) {
    const Snapshot before = snapshot();
    const bool erased = Base::erase(key);
    if (erased && before.stash != 0) paths_->insert("erase_with_stash");
    if constexpr (requires { this->engine().stats().stash_reinsertions; }) {
      if (this->engine().stats().stash_reinsertions != before.reinsertions) {
        paths_->insert("stash_reinsertion");
      }
    }
    return erased;
  }
  bool serialize_roundtrip()
    requires requires(const Table& t) { t.serialize(); }
  {
    if (this->engine().size() != 0) paths_->insert("roundtrip");
    return Base::serialize_roundtrip();
  }

 private:
  struct Snapshot {
    std::size_t capacity = 0;
    std::size_t stash = 0;
    std::uint64_t kicks = 0;
    std::uint64_t rehashes = 0;
    std::uint64_t walk_failures = 0;
    std::uint64_t predicted_failures = 0;
    std::uint64_t kick_bound = 0;
    std::uint64_t reinsertions = 0;
    std::uint64_t longest_path = 0;
  };

  Snapshot snapshot() {
    Table& t = this->engine();
    Snapshot s;
    s.capacity = t.capacity();
    if constexpr (requires { t.stash_size(); }) s.stash = t.stash_size();
    const auto& stats = t.stats();
    if constexpr (requires { stats.total_kicks; }) s.kicks = stats.total_kicks;
    if constexpr (requires { stats.rehashes; }) s.rehashes = stats.rehashes;
    if constexpr (requires { stats.failures; }) s.walk_failures = stats.failures;
    if constexpr (requires { stats.predicted_failures; }) s.predicted_failures = stats.predicted_failures;
    if constexpr (requires { stats.kick_bound_exhaustions; }) s.kick_bound = stats.kick_bound_exhaustions;
    if constexpr (requires { stats.stash_reinsertions; }) s.reinsertions = stats.stash_reinsertions;
    if constexpr (requires { stats.longest_path; }) s.longest_path = stats.longest_path;
    return s;
  }

  void note_insert(const Snapshot& before, InsertResult result) {
    const Snapshot after = snapshot();
    if (result == InsertResult::kFull) paths_->insert("full");
    if (result == InsertResult::kUpdated) paths_->insert("updated");
    if (after.capacity > before.capacity) paths_->insert("growth");
    if (after.capacity > before.capacity && before.stash != 0) paths_->insert("growth_with_stash");
    if (after.stash != 0) paths_->insert("stash");
    if (after.kicks != before.kicks) paths_->insert("kicks");
    if (after.rehashes != before.rehashes) paths_->insert("rehash");
    if (after.walk_failures != before.walk_failures) paths_->insert("walk_failure");
    if (after.predicted_failures != before.predicted_failures) paths_->insert("predicted_failure");
    if (after.kick_bound != before.kick_bound) paths_->insert("kick_bound");
    if (after.longest_path > 0) paths_->insert("cuckoo_path");
  }

  std::set<std::string>* paths_;
};

template <class Table>
std::optional<model::Violation> check_table(Table& table, bool has_growth_limit,
                                            const model::Trace& trace, std::uint64_t seed,
                                            std::set<std::string>& paths) {
  ObservedTable<Table> subject(table, has_growth_limit, paths);
  model::MapModel model;
  return model::check(subject, model, trace, seed);
}

// Runs the trace against a fresh table built from its header and returns the first
// violation. The tables are built as subjects::replay builds them (same config mapping,
// same growth-limit traits); only the adapter is the observing one.
std::optional<model::Violation> check_map_trace(const model::Trace& trace, std::set<std::string>& paths) {
  const model::TraceParameters& p = trace.parameters;
  if (trace.engine == "map") {
    const cuckoo::CuckooMapConfig config = subjects::map_config_from(p);
    return subjects::with_map_slots(p, [&]<unsigned B>() {
      cuckoo::CuckooMap<std::uint64_t, std::uint64_t, B> table(config);
      const bool capped = config.max_capacity < cuckoo::CuckooMapConfig{}.max_capacity;
      return check_table(table, capped, trace, *config.seed, paths);
    });
  }
  if (trace.engine == "classic") {
    const cuckoo::ClassicCuckooConfig config = subjects::classic_config_from(p);
    cuckoo::ClassicCuckoo<> table(config);
    return check_table(table, subjects::classic_may_report_full(config), trace, *config.seed, paths);
  }
  if (trace.engine == "smart") {
    const cuckoo::SmartCuckooConfig config = subjects::smart_config_from(p);
    cuckoo::SmartCuckoo<> table(config);
    return check_table(table, /*has_growth_limit=*/true, trace, *config.seed, paths);
  }
  throw std::invalid_argument("not a table engine: " + trace.engine);
}

// One case: a header from `header_gen`, a sequence of map ops, the checker's verdict.
props::PropertyRun check_map_property(const props::Budget& budget, props::Coverage& coverage,
                                      const rc::Gen<props::TraceHeader>& header_gen,
                                      bool serializable) {
  return props::check_property(budget, [&] {
    const props::TraceHeader header = *header_gen;
    props::MapState initial;
    initial.key_range = (*props::map_key_range()).count;
    const auto commands = *props::op_sequence(initial, props::map_mix(serializable));
    const model::Trace trace = props::record(header, initial, commands);

    std::set<std::string> paths;
    if (const auto violation = check_map_trace(trace, paths)) props::fail_with(*violation, trace);
    coverage.count_case(paths, trace.size());
  });
}

constexpr props::Budget kBudget{100, 400};

// ---- CuckooMap ---------------------------------------------------------------------

class CuckooMapProperty : public ::testing::TestWithParam<unsigned> {};

TEST_P(CuckooMapProperty, AgreesWithMapModelAcrossGrowth) {
  props::Coverage coverage;
  const auto run = check_map_property(kBudget, coverage, props::cuckoo_map_header(GetParam(), false),
                                      /*serializable=*/true);
  props::expect_exercised(run, coverage, {"growth", "updated", "roundtrip"});
  // A map that may grow grows at kGrowLoadPercent instead of searching, so its stash
  // takes only items whose search failed below that load. At b <= 4 that happens in
  // tiny tables; at b = 8 (95 %) hardly ever, and AgreesWithMapModelWhenCapped covers
  // the stash there. growth_with_stash: a doubling that carries stashed items.
  if (GetParam() <= 4) {
    props::expect_exercised(run, coverage, {"stash", "erase_with_stash", "growth_with_stash"});
  }
}

TEST_P(CuckooMapProperty, AgreesWithMapModelWhenCapped) {
  props::Coverage coverage;
  const auto run = check_map_property(kBudget, coverage, props::cuckoo_map_header(GetParam(), true),
                                      /*serializable=*/true);
  props::expect_exercised(run, coverage, {"full", "stash", "growth", "roundtrip"});
}

INSTANTIATE_TEST_SUITE_P(SlotsPerBucket, CuckooMapProperty,
                         ::testing::ValuesIn(props::kSlotsPerBucket),
                         [](const ::testing::TestParamInfo<unsigned>& slots_info) {
                           return "b" + std::to_string(slots_info.param);
                         });

// ---- ClassicCuckoo -----------------------------------------------------------------

// The failure policy as a test parameter (a struct, so that GoogleTest prints its name).
struct Policy {
  cuckoo::OnInsertFailure value;
};

[[maybe_unused]] void PrintTo(const Policy& policy, std::ostream* os) { *os << subjects::to_string(policy.value); }

class ClassicCuckooProperty : public ::testing::TestWithParam<Policy> {};

TEST_P(ClassicCuckooProperty, AgreesWithMapModel) {
  const cuckoo::OnInsertFailure policy = GetParam().value;
  props::Coverage coverage;
  const auto run = check_map_property(kBudget, coverage, props::classic_header(policy, false),
                                      /*serializable=*/false);
  switch (policy) {
    case cuckoo::OnInsertFailure::kRehash:
      props::expect_exercised(run, coverage, {"kicks", "walk_failure", "rehash", "growth"});
      break;
    case cuckoo::OnInsertFailure::kGrow:
      props::expect_exercised(run, coverage, {"kicks", "walk_failure", "growth"});
      break;
    case cuckoo::OnInsertFailure::kReport:
      props::expect_exercised(run, coverage, {"kicks", "walk_failure", "full"});
      break;
  }
}

TEST_P(ClassicCuckooProperty, AgreesWithMapModelWhenCapped) {
  props::Coverage coverage;
  const auto run = check_map_property(kBudget, coverage, props::classic_header(GetParam().value, true),
                                      /*serializable=*/false);
  props::expect_exercised(run, coverage, {"kicks", "walk_failure", "full"});
}

INSTANTIATE_TEST_SUITE_P(Policies, ClassicCuckooProperty,
                         ::testing::Values(Policy{cuckoo::OnInsertFailure::kRehash},
                                           Policy{cuckoo::OnInsertFailure::kGrow},
                                           Policy{cuckoo::OnInsertFailure::kReport}),
                         [](const ::testing::TestParamInfo<Policy>& policy_info) {
                           return std::string(subjects::to_string(policy_info.param.value));
                         });

// ---- SmartCuckoo -------------------------------------------------------------------

TEST(SmartCuckooProperty, AgreesWithMapModel) {
  props::Coverage coverage;
  const auto run = check_map_property(kBudget, coverage, props::smart_header(/*exact_kicks=*/false),
                                      /*serializable=*/false);
  props::expect_exercised(run, coverage,
                          {"kicks", "stash", "full", "predicted_failure", "stash_reinsertion",
                           "kick_bound"});
}

}  // namespace
