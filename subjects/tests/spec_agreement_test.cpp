// The two checkers judge by one specification (model/key_semantics.hpp): on a sequential
// history, the lock-step checker (model::check) and the linearizability checker with the
// per-key specifications (specs.hpp) must give the same verdict.
//
// A subject backed by a plain std::multiset / std::map misbehaves at random (a lost copy,
// a false negative, a wrong result code, a stale value, a wrong size, ...). The
// lock-step checker drives it through a random trace; every call it makes to the subject
// (the trace's operations and its own verification calls alike) is recorded, one after
// another, as a sequential history. The lock-step checker finds a violation iff that
// history is not linearizable.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <variant>

#include "cuckoo/model/checker.hpp"
#include "cuckoo/model/map_model.hpp"
#include "cuckoo/model/multiset_model.hpp"
#include "cuckoo/model/trace.hpp"
#include "cuckoo/subjects/history.hpp"
#include "cuckoo/subjects/linearizability.hpp"
#include "cuckoo/subjects/specs.hpp"

namespace cuckoo::subjects {
namespace {

constexpr std::uint64_t kKeys = 3;
constexpr std::uint64_t kMaxCopies = 2;
constexpr int kHistories = 1500;
constexpr std::size_t kOpsPerTrace = 24;

// Records every call as the next operation of a sequential history.
class Recorder {
 public:
  void add(OpKind kind, std::uint64_t key, std::uint64_t value, Result result) {
    Operation op;
    op.kind = kind;
    op.key = key;
    op.value = value;
    op.result = result;
    op.invoke_stamp = stamp_++;
    op.response_stamp = stamp_++;
    history_.push_back(op);
  }
  const History& history() const { return history_; }

 private:
  History history_;
  std::uint64_t stamp_ = 1;
};

// Chance that one call misbehaves: a few faults per history, so that both verdicts occur.
bool fault(std::mt19937_64& rng) { return std::uniform_int_distribution<int>(0, 59)(rng) == 0; }

// A filter (approximate multiset with a copy limit) that misbehaves at random.
class FaultyFilter {
 public:
  FaultyFilter(std::mt19937_64& rng, Recorder& recorder) : rng_(&rng), rec_(&recorder) {}

  model::InsertResult insert(std::uint64_t key) {
    model::InsertResult r = items_.count(key) >= kMaxCopies ? model::InsertResult::kDuplicateLimit
                                                             : model::InsertResult::kInserted;
    if (fault(*rng_)) {
      switch (pick(4)) {
        case 0: r = model::InsertResult::kFull; break;             // legal if it would insert
        case 1: r = model::InsertResult::kDuplicateLimit; break;   // early refusal
        case 2: r = model::InsertResult::kInserted; break;         // past the limit
        default: return record_insert(key, model::InsertResult::kInserted);  // lost copy
      }
    }
    if (r == model::InsertResult::kInserted) items_.insert(key);
    return record_insert(key, r);
  }

  bool contains(std::uint64_t key) {
    bool r = items_.count(key) > 0;
    if (fault(*rng_)) r = !r;  // a false negative, or a (legal) false positive
    rec_->add(OpKind::kContains, key, 0, r);
    return r;
  }

  bool erase(std::uint64_t key) {
    auto it = items_.find(key);
    bool r = it != items_.end();
    if (r) items_.erase(it);
    if (fault(*rng_)) {
      if (pick(2) == 0) {
        r = !r;  // wrong answer
      } else {
        items_.erase(key);  // removes every copy
      }
    }
    rec_->add(OpKind::kErase, key, 0, r);
    return r;
  }

  std::uint64_t size() {
    std::uint64_t n = items_.size();
    if (fault(*rng_)) n += 1;
    rec_->add(OpKind::kSize, 0, 0, SizeResult{n});
    return n;
  }

  std::uint64_t max_copies(std::uint64_t) const { return kMaxCopies; }
  void clear() { items_.clear(); }

  model::SubjectTraits traits() const {
    model::SubjectTraits t;
    t.exact = false;
    t.allows_duplicates = true;
    t.max_copies = kMaxCopies;
    return t;
  }

 private:
  int pick(int n) { return std::uniform_int_distribution<int>(0, n - 1)(*rng_); }
  model::InsertResult record_insert(std::uint64_t key, model::InsertResult r) {
    rec_->add(OpKind::kInsert, key, 0, r);
    return r;
  }

  std::mt19937_64* rng_;
  Recorder* rec_;
  std::multiset<std::uint64_t> items_;
};

// An exact map with a growth limit (kFull is legal for absent keys) that misbehaves.
class FaultyMap {
 public:
  FaultyMap(std::mt19937_64& rng, Recorder& recorder) : rng_(&rng), rec_(&recorder) {}

  model::InsertResult insert(std::uint64_t key, std::uint64_t value) {
    return write(OpKind::kInsert, key, value);
  }
  model::InsertResult insert_or_assign(std::uint64_t key, std::uint64_t value) {
    return write(OpKind::kInsertOrAssign, key, value);
  }

  const std::uint64_t* find(std::uint64_t key) {
    auto it = entries_.find(key);
    const std::uint64_t* r = it == entries_.end() ? nullptr : &it->second;
    if (fault(*rng_)) {
      if (r != nullptr) {
        stale_ = *r + 1;
        r = pick(2) == 0 ? nullptr : &stale_;  // missing, or a wrong value
      }
    }
    rec_->add(OpKind::kFind, key, 0, r ? std::optional<std::uint64_t>(*r) : std::nullopt);
    return r;
  }

  bool contains(std::uint64_t key) {
    bool r = entries_.contains(key);
    if (fault(*rng_)) r = !r;
    rec_->add(OpKind::kContains, key, 0, r);
    return r;
  }

  bool erase(std::uint64_t key) {
    bool r = entries_.erase(key) == 1;
    if (fault(*rng_)) r = !r;
    rec_->add(OpKind::kErase, key, 0, r);
    return r;
  }

  std::uint64_t size() {
    std::uint64_t n = entries_.size();
    if (fault(*rng_)) n = n == 0 ? 1 : n - 1;
    rec_->add(OpKind::kSize, 0, 0, SizeResult{n});
    return n;
  }

  void clear() { entries_.clear(); }

  model::SubjectTraits traits() const {
    model::SubjectTraits t = model::default_map_traits();
    t.has_growth_limit = true;
    return t;
  }

 private:
  int pick(int n) { return std::uniform_int_distribution<int>(0, n - 1)(*rng_); }

  model::InsertResult write(OpKind kind, std::uint64_t key, std::uint64_t value) {
    const bool present = entries_.contains(key);
    model::InsertResult r;
    if (kind == OpKind::kInsert) {
      r = present ? model::InsertResult::kExists : model::InsertResult::kInserted;
      if (!present) entries_[key] = value;
    } else {
      r = present ? model::InsertResult::kUpdated : model::InsertResult::kInserted;
      entries_[key] = value;
    }
    if (fault(*rng_)) {
      switch (pick(3)) {
        case 0:  // kFull: legal only where the key was absent, and only if nothing changed
          r = model::InsertResult::kFull;
          if (!present && pick(2) == 0) entries_.erase(key);
          break;
        case 1:  // the wrong one of inserted / exists / updated
          r = r == model::InsertResult::kInserted ? model::InsertResult::kUpdated
                                                  : model::InsertResult::kInserted;
          break;
        default:  // says it stored the value but did not
          if (kind == OpKind::kInsertOrAssign && present) entries_[key] = value + 7;
          break;
      }
    }
    rec_->add(kind, key, value, r);
    return r;
  }

  std::mt19937_64* rng_;
  Recorder* rec_;
  std::map<std::uint64_t, std::uint64_t> entries_;
  std::uint64_t stale_ = 0;
};

model::Trace random_trace(std::mt19937_64& rng, bool map) {
  model::Trace trace;
  trace.engine = map ? "map" : "filter";
  std::uniform_int_distribution<std::uint64_t> key(0, kKeys - 1);
  // Filters: inserts half the time, so that keys reach the copy limit.
  std::uniform_int_distribution<int> kind(map ? 0 : -2, map ? 4 : 2);
  for (std::size_t i = 0; i < kOpsPerTrace; ++i) {
    model::Op op;
    switch (std::max(kind(rng), 0)) {
      case 0: op.kind = model::OpKind::kInsert; break;
      case 1: op.kind = model::OpKind::kErase; break;
      case 2: op.kind = model::OpKind::kContains; break;
      case 3: op.kind = model::OpKind::kFind; break;
      default: op.kind = model::OpKind::kInsertOrAssign; break;
    }
    op.key = key(rng);
    if (map && (op.kind == model::OpKind::kInsert || op.kind == model::OpKind::kInsertOrAssign)) {
      op.value = 100 + i;
    }
    model::TraceEntry entry;
    entry.op = op;
    trace.entries.push_back(entry);
  }
  return trace;
}

struct Tally {
  int both_fine = 0;
  int both_violated = 0;
};

template <class Subject, class Model, class Spec>
void check_agreement(bool map, const Spec& spec, Tally& tally) {
  for (int i = 0; i < kHistories; ++i) {
    const std::uint64_t seed = 0x5eed0000u + static_cast<std::uint64_t>(i) + (map ? 1u << 20 : 0u);
    std::mt19937_64 rng(seed);
    const model::Trace trace = random_trace(rng, map);
    Recorder recorder;
    Subject subject(rng, recorder);
    Model model;
    const std::optional<model::Violation> lockstep = model::check(subject, model, trace, seed);
    const CheckResult lin = check_linearizability(recorder.history(), spec);
    const bool linearizable = std::holds_alternative<Linearizable>(lin.verdict);
    ASSERT_FALSE(std::holds_alternative<TooLargeToDecide>(lin.verdict)) << "seed " << seed;
    ASSERT_EQ(!lockstep.has_value(), linearizable)
        << (map ? "map" : "filter") << " seed " << seed
        << " (reproduce: build/dev/subjects/subjects_spec_agreement_test --gtest_filter=SpecAgreement."
        << ::testing::UnitTest::GetInstance()->current_test_info()->name() << ")\n"
        << "lock-step: " << (lockstep ? model::to_string(*lockstep) : std::string("no violation"))
        << "\nhistory:\n" << dump_history(recorder.history());
    ++(linearizable ? tally.both_fine : tally.both_violated);
  }
}

TEST(SpecAgreement, FilterCheckersAgreeOnSequentialHistories) {
  Tally tally;
  check_agreement<FaultyFilter, model::MultisetModel>(false, MultisetSpec::filter(kMaxCopies), tally);
  std::printf("filter: %d histories legal, %d violated, all agreed\n", tally.both_fine,
              tally.both_violated);
  // Both verdicts must occur, or the test compared nothing interesting.
  EXPECT_GT(tally.both_fine, kHistories / 10);
  EXPECT_GT(tally.both_violated, kHistories / 10);
}

TEST(SpecAgreement, MapCheckersAgreeOnSequentialHistories) {
  Tally tally;
  check_agreement<FaultyMap, model::MapModel>(true, MapSpec{}, tally);
  std::printf("map: %d histories legal, %d violated, all agreed\n", tally.both_fine,
              tally.both_violated);
  EXPECT_GT(tally.both_fine, kHistories / 10);
  EXPECT_GT(tally.both_violated, kHistories / 10);
}

}  // namespace
}  // namespace cuckoo::subjects
