// Self-tests of the adapter audit (adapter.hpp): a correct exact set and the project's
// own cuckoo filter pass every claim that applies; a set that loses keys, a filter with
// too many false positives and a filter that loses items on a failed insert fail, with
// small counterexamples that still fail on replay_implementation. Then what the audit
// used to miss: results labelled by the claim that broke and checks that go on after a
// size mismatch, declared size modes, refusals at low load (C3), a filter that stores
// nothing (C2), nondeterministic subjects, a wrong identity(), C5 for bool inserts, and
// the report's metadata.
#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <unordered_set>
#include <vector>

#include "cuckoo/audit/adapter.hpp"
#include "cuckoo/audit/exec.hpp"
#include "cuckoo/subjects/filter.hpp"
#include "cuckoo/cuckoo_filter.hpp"
#include "cuckoo/model/trace.hpp"

namespace {

using cuckoo::audit::AuditOptions;
using cuckoo::audit::ClaimResult;
using cuckoo::audit::ImplementationKind;
using cuckoo::audit::ImplementationTraits;
using cuckoo::audit::Report;
using cuckoo::audit::Verdict;

constexpr std::uint64_t kSeed = 20261121;

AuditOptions small_options() {
  AuditOptions o;
  o.seed = kSeed;
  o.traces = 40;
  o.fpr_queries = 20'000;
  return o;
}

const ClaimResult& result_for(const Report& r, const std::string& claim) {
  for (const auto& c : r.results) {
    if (c.claim == claim) return c;
  }
  throw std::runtime_error("no result for " + claim);
}

const cuckoo::audit::Figure& figure_of(const ClaimResult& r, const std::string& name) {
  for (const auto& f : r.figures) {
    if (f.name == name) return f;
  }
  throw std::runtime_error("no figure '" + name + "' in " + r.claim + ": " + r.summary);
}

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

struct SetAdapter {
  std::unordered_set<std::uint64_t> set;
  bool insert(std::uint64_t k) { return set.insert(k).second; }
  bool contains(std::uint64_t k) const { return set.count(k) != 0; }
  bool erase(std::uint64_t k) { return set.erase(k) != 0; }
  std::uint64_t size() const { return set.size(); }
  void clear() { set.clear(); }
};

// Forgets a key when it is erased while 3 or more keys are stored: erases the wrong one.
struct LossySetAdapter : SetAdapter {
  bool erase(std::uint64_t k) {
    if (set.size() >= 3 && set.count(k) != 0) {
      set.erase(k);
      set.erase(set.begin());
      set.insert(k + 1'000'000);  // keep the size right so only lookups see it
      return true;
    }
    return SetAdapter::erase(k);
  }
};

ImplementationTraits set_traits(std::string name) {
  ImplementationTraits t;
  t.name = std::move(name);
  t.kind = ImplementationKind::kExactSet;
  return t;
}

TEST(AdapterAudit, UnorderedSetPassesEveryClaimThatApplies) {
  const Report r = cuckoo::audit::audit_implementation([] { return SetAdapter{}; },
                                                       set_traits("std.unordered_set"),
                                                       small_options());
  EXPECT_TRUE(r.all_passed());
  EXPECT_EQ(result_for(r, "C1").verdict, Verdict::kPass) << result_for(r, "C1").summary;
  EXPECT_EQ(result_for(r, "C7").verdict, Verdict::kPass) << result_for(r, "C7").summary;
  EXPECT_EQ(result_for(r, "C2").verdict, Verdict::kSkipped);
  EXPECT_EQ(r.subject, "std.unordered_set");
}

TEST(AdapterAudit, LossySetFailsWithAShrunkReplayableTrace) {
  const ImplementationTraits traits = set_traits("lossy.set");
  const Report r = cuckoo::audit::audit_implementation([] { return LossySetAdapter{}; }, traits,
                                                       small_options());
  EXPECT_FALSE(r.all_passed());
  const ClaimResult& c7 = result_for(r, "C7");
  ASSERT_EQ(c7.verdict, Verdict::kFail) << "seed " << kSeed;
  ASSERT_TRUE(c7.counterexample.has_value());
  EXPECT_LE(c7.counterexample->shrunk_ops, 8U) << c7.counterexample->trace;
  const cuckoo::model::Trace trace = cuckoo::model::parse_trace(c7.counterexample->trace);
  EXPECT_EQ(trace.engine, "lossy.set");
  EXPECT_TRUE(cuckoo::audit::replay_implementation([] { return LossySetAdapter{}; }, traits, trace));
  EXPECT_FALSE(cuckoo::audit::replay_implementation([] { return SetAdapter{}; }, traits, trace));
  // A deterministic failure replays every time: not marked.
  EXPECT_EQ(c7.summary.find("NOT REPRODUCIBLE"), std::string::npos) << c7.summary;
  EXPECT_EQ(figure_of(c7, "replays of the counterexample that failed").value, 5.0);
}

// A set of byte strings through the adapter: the uint64 trace keys become the byte
// strings `cuckoo-audit exec` sends (encode_key, the mixed family: the empty key, zero
// bytes, words, URLs, 1-4 KiB keys, keys one bit apart). kCString plants the C-string bug:
// the key is cut at its first zero byte.
template <bool kCString>
struct StringSetAdapter {
  std::unordered_set<std::string> set;
  static std::string bytes(std::uint64_t k) {
    std::string b = cuckoo::audit::encode_key(cuckoo::audit::ExecKeys::kMixed, k);
    if (kCString) b.resize(b.find('\0') == std::string::npos ? b.size() : b.find('\0'));
    return b;
  }
  bool insert(std::uint64_t k) { return set.insert(bytes(k)).second; }
  bool contains(std::uint64_t k) const { return set.count(bytes(k)) != 0; }
  bool erase(std::uint64_t k) { return set.erase(bytes(k)) != 0; }
  std::uint64_t size() const { return set.size(); }
  void clear() { set.clear(); }
};

TEST(AdapterAudit, AStringKeyedSetIsAuditedWithTheExecKeyFamilies) {
  const Report good = cuckoo::audit::audit_implementation(
      [] { return StringSetAdapter<false>{}; }, set_traits("string.set"), small_options());
  EXPECT_TRUE(good.all_passed()) << result_for(good, "C7").summary;
  const ImplementationTraits traits = set_traits("cstring.set");
  const Report bad = cuckoo::audit::audit_implementation([] { return StringSetAdapter<true>{}; },
                                                         traits, small_options());
  const ClaimResult& c7 = result_for(bad, "C7");
  ASSERT_EQ(c7.verdict, Verdict::kFail) << "seed " << kSeed << ": " << c7.summary;
  ASSERT_TRUE(c7.counterexample.has_value());
  EXPECT_LE(c7.counterexample->shrunk_ops, 4U) << c7.counterexample->trace;
  const cuckoo::model::Trace trace = cuckoo::model::parse_trace(c7.counterexample->trace);
  EXPECT_TRUE(cuckoo::audit::replay_implementation([] { return StringSetAdapter<true>{}; }, traits, trace));
  EXPECT_FALSE(cuckoo::audit::replay_implementation([] { return StringSetAdapter<false>{}; }, traits, trace));
}

// The project's filter through the adapter, answering InsertResult.
struct EngineFilterAdapter {
  cuckoo::CuckooFilter filter{config()};
  static cuckoo::CuckooFilterConfig config() {
    cuckoo::CuckooFilterConfig c;
    c.capacity = 64;
    c.fingerprint_bits = 8;
    c.slots_per_bucket = 4;
    c.seed = 7;
    return c;
  }
  cuckoo::InsertResult insert(std::uint64_t k) { return filter.insert(k); }
  bool contains(std::uint64_t k) const { return filter.contains(k); }
  bool erase(std::uint64_t k) { return filter.erase(k); }
  std::uint64_t size() const { return filter.size(); }
  // The item a key is to the filter, so the model counts copies per item as it does.
  std::uint64_t identity(std::uint64_t k) const {
    return cuckoo::subjects::filter_identity(filter.placement(k));
  }
  std::uint64_t max_copies(std::uint64_t k) const { return filter.max_copies(k); }
};

ImplementationTraits filter_traits(std::string name) {
  ImplementationTraits t;
  t.name = std::move(name);
  t.kind = ImplementationKind::kApproximateFilter;
  t.fingerprint_bits = 8;
  t.slots_per_bucket = 4;
  t.capacity = 64;
  return t;
}

TEST(AdapterAudit, EngineFilterPassesC1C2C5C6) {
  const Report r = cuckoo::audit::audit_implementation([] { return EngineFilterAdapter{}; },
                                                       filter_traits("cuckoo.filter"),
                                                       small_options());
  for (const char* claim : {"C1", "C2", "C3", "C5", "C6"}) {
    EXPECT_EQ(result_for(r, claim).verdict, Verdict::kPass)
        << claim << ": " << result_for(r, claim).summary;
  }
  EXPECT_EQ(result_for(r, "C7").verdict, Verdict::kSkipped);
  // C1 includes the identity-pair traces.
  EXPECT_NE(result_for(r, "C1").summary.find("identity-pair"), std::string::npos)
      << result_for(r, "C1").summary;
}

// Answers "maybe" for one key in eight: far above 2b/2^f for f = 8, b = 4.
struct LeakyFilterAdapter : EngineFilterAdapter {
  bool contains(std::uint64_t k) const { return (k % 8 == 3) || filter.contains(k); }
};

TEST(AdapterAudit, TooManyFalsePositivesFailC2) {
  const Report r = cuckoo::audit::audit_implementation([] { return LeakyFilterAdapter{}; },
                                                       filter_traits("leaky.filter"),
                                                       small_options());
  EXPECT_EQ(result_for(r, "C2").verdict, Verdict::kFail) << result_for(r, "C2").summary;
  EXPECT_EQ(result_for(r, "C1").verdict, Verdict::kPass);
}

// A bool filter that drops an item whenever an insert is refused (capacity 6 items).
struct DroppingFilterAdapter {
  std::unordered_multiset<std::uint64_t> items;
  bool insert(std::uint64_t k) {
    if (items.size() >= 6) {
      items.erase(items.begin());
      return false;
    }
    items.insert(k);
    return true;
  }
  bool contains(std::uint64_t k) const { return items.count(k) != 0; }
  bool erase(std::uint64_t k) {
    const auto it = items.find(k);
    if (it == items.end()) return false;
    items.erase(it);
    return true;
  }
  std::uint64_t size() const { return items.size(); }
};

TEST(AdapterAudit, LosingAnItemOnAFailedInsertFailsC6) {
  ImplementationTraits traits;
  traits.name = "dropping.filter";
  traits.capacity = 6;
  const Report r = cuckoo::audit::audit_implementation([] { return DroppingFilterAdapter{}; },
                                                       traits, small_options());
  const ClaimResult& c6 = result_for(r, "C6");
  ASSERT_EQ(c6.verdict, Verdict::kFail) << c6.summary;
  ASSERT_TRUE(c6.counterexample.has_value());
  EXPECT_LE(c6.counterexample->shrunk_ops, 10U) << c6.counterexample->trace;
  EXPECT_TRUE(cuckoo::audit::replay_implementation(
      [] { return DroppingFilterAdapter{}; }, traits,
      cuckoo::model::parse_trace(c6.counterexample->trace)));
  // A bool insert shows no copy limit, but C5 still checks erases and sizes.
  const ClaimResult& c5 = result_for(r, "C5");
  EXPECT_NE(c5.verdict, Verdict::kSkipped) << c5.summary;
  EXPECT_NE(c5.summary.find("no copy limit"), std::string::npos) << c5.summary;
}

// The items of the lossy filters below: exact lookups and erases of what they still hold,
// and a size that counts what they lost (a lost item keeps its slot), so that only
// lookups, erases and copy limits can see a loss.
struct LossyItems {
  std::multiset<std::uint64_t> items;
  std::uint64_t lost_slot = 0;
  bool contains(std::uint64_t k) const { return items.count(k) != 0; }
  bool erase(std::uint64_t k) {
    const auto it = items.find(k);
    if (it == items.end()) return false;
    items.erase(it);
    return true;
  }
  std::uint64_t size() const { return items.size() + lost_slot; }
  // Loses the first stored copy that `pick` accepts.
  template <class Pick>
  void lose_first(Pick pick) {
    for (auto it = items.begin(); it != items.end(); ++it) {  // bound: the items
      if (pick(*it)) {
        items.erase(it);
        ++lost_slot;
        return;
      }
    }
  }
};

// A bool filter of 8 items that loses an item either on its 5th successful insert (a
// kick that moves an item where lookups never look, the insert still stored) or on a
// refused insert (an undo that is not done). The size stays right: only lookups see it.
template <bool kOnSuccess>
struct KickLossFilterAdapter : LossyItems {
  std::uint64_t successes = 0;
  bool insert(std::uint64_t k) {
    if (items.size() + lost_slot >= 8) {
      if (!kOnSuccess && lost_slot == 0) lose(k);
      return false;
    }
    items.insert(k);
    if (kOnSuccess && ++successes == 5) lose(k);
    return true;
  }
  void lose(std::uint64_t keep) {
    lose_first([keep](std::uint64_t stored) { return stored != keep; });
  }
};

ImplementationTraits kick_loss_traits() {
  ImplementationTraits t;
  t.name = "kick.loss";
  t.capacity = 8;
  return t;
}

cuckoo::model::Trace fill_then_refuse() {
  cuckoo::model::Trace t;
  t.engine = "kick.loss";
  for (std::uint64_t k = 1; k <= 9; ++k) t.add(cuckoo::model::Op::insert(k));  // 9: full
  return t;
}

TEST(AdapterAttribution, AKeyLostByASuccessfulInsertIsC1NotTheRefusalThatShowedIt) {
  // The refused 9th insert is where the checker sees it (its scan of the stored keys),
  // but key 1 went missing during the 5th insert, which answered inserted.
  const auto v = cuckoo::audit::replay_implementation([] { return KickLossFilterAdapter<true>{}; },
                                                      kick_loss_traits(), fill_then_refuse());
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(v->claim, "C1") << v->expected;
  EXPECT_EQ(v->op_index, 8U);  // still shown where it became visible
  // Op 5 is the trace's fifth op ('insert 5'), numbered from 1 as the trace file and the
  // summary number them (the violation's op_index counts from 0).
  EXPECT_TRUE(has(v->expected, "key 1 was lost during op 5 'insert 5', which answered inserted"))
      << v->expected;
  EXPECT_EQ(cuckoo::model::to_string(fill_then_refuse().entries[4].op), "insert 5");
}

// A filter of at most 2 copies a key that, on its 4th successful insert, loses one copy
// of the key stored twice (a kick that moves it where lookups never look) while the key
// is still found through its other copy. Its limit check counts the copies it can see, so
// a later insert of that key past the limit is stored: the checker sees a C5 answer
// (expected duplicate_limit, got inserted), which the insert that lost the copy caused.
// `kLosing` false: the same filter with no loss and a limit of 3 (a wrong limit, C5).
template <bool kLosing>
struct CopyLossFilterAdapter : LossyItems {
  std::uint64_t successes = 0;
  cuckoo::InsertResult insert(std::uint64_t k) {
    if (items.count(k) >= (kLosing ? 2U : 3U)) return cuckoo::InsertResult::kDuplicateLimit;
    if (size() >= 16) return cuckoo::InsertResult::kFull;
    items.insert(k);
    if (kLosing && ++successes == 4) lose_first([this](std::uint64_t stored) { return items.count(stored) == 2; });
    return cuckoo::InsertResult::kInserted;
  }
};

ImplementationTraits copy_loss_traits() {
  ImplementationTraits t;
  t.name = "copy.loss";
  t.kind = ImplementationKind::kApproximateFilter;
  t.capacity = 16;
  t.max_copies = 2;
  return t;
}

cuckoo::model::Trace copies_then_past_the_limit() {
  cuckoo::model::Trace t;
  t.engine = "copy.loss";
  for (const std::uint64_t k : {1, 1, 2, 3, 1}) t.add(cuckoo::model::Op::insert(k));  // op 4 loses a copy of 1
  return t;
}

TEST(AdapterAttribution, ACopyLostByASuccessfulInsertIsC1NotTheLimitThatShowedIt) {
  const auto v = cuckoo::audit::replay_implementation([] { return CopyLossFilterAdapter<true>{}; },
                                                      copy_loss_traits(), copies_then_past_the_limit());
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(v->claim, "C1") << v->expected;
  EXPECT_EQ(v->op_index, 4U);  // still shown where it became visible: the third insert of 1
  EXPECT_TRUE(has(v->expected, "duplicate_limit")) << v->expected;
  EXPECT_TRUE(has(v->expected, "a copy of key 1 was lost during op 4 'insert 3', which answered inserted")) << v->expected;
  EXPECT_TRUE(has(v->expected, "no longer holds every copy the model holds")) << v->expected;
}

TEST(AdapterAttribution, ALostCopyShownByAFullAnswerAtTheLimitIsC1) {
  // The same loss, then a fill to the filter's 16 slots (the lost copy keeps its slot):
  // the insert of 1 past the limit finds no room and answers full instead of
  // duplicate_limit.
  cuckoo::model::Trace t = copies_then_past_the_limit();
  t.entries.pop_back();
  for (std::uint64_t k = 10; k < 22; ++k) t.add(cuckoo::model::Op::insert(k));
  t.add(cuckoo::model::Op::insert(1));
  const auto v = cuckoo::audit::replay_implementation([] { return CopyLossFilterAdapter<true>{}; },
                                                      copy_loss_traits(), t);
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(v->claim, "C1") << v->expected;
  EXPECT_EQ(v->op_index, 16U);
  EXPECT_EQ(v->actual, "full");
  EXPECT_TRUE(has(v->expected, "a copy of key 1 was lost during op 4 'insert 3', which answered inserted"))
      << v->expected;
}

TEST(AdapterAttribution, AKeyMissedAfterAnEraseIsChargedToTheInsertThatLostACopy) {
  // Key 1 twice; insert 3 loses one of its copies (key 1 still found); erase 1 takes the
  // other; contains 1 answers no while the model holds one copy. The erase only showed
  // it: the loss is insert 3's (C1), not a C5 erase that removed two copies.
  cuckoo::model::Trace t = copies_then_past_the_limit();
  t.entries.pop_back();
  t.add(cuckoo::model::Op::erase(1));
  t.add(cuckoo::model::Op::contains(1));
  const auto v = cuckoo::audit::replay_implementation([] { return CopyLossFilterAdapter<true>{}; },
                                                      copy_loss_traits(), t);
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(v->claim, "C1") << v->expected;
  EXPECT_EQ(v->op_index, 5U);
  EXPECT_TRUE(has(v->expected, "a copy of key 1 was lost during op 4 'insert 3', which answered inserted"))
      << v->expected;
}

// A filter of 4 slots and at most 2 copies a key whose first refused insert (full) stores
// the key all the same (a kick walk that is not undone keeps the new item); its size
// leaves that copy out, so only its copy limit shows it.
struct RefusalStoresFilterAdapter : LossyItems {
  std::uint64_t hidden = 0;
  cuckoo::InsertResult insert(std::uint64_t k) {
    if (items.count(k) >= 2) return cuckoo::InsertResult::kDuplicateLimit;
    if (items.size() >= 4) {
      if (hidden == 0) {
        items.insert(k);
        ++hidden;
      }
      return cuckoo::InsertResult::kFull;
    }
    items.insert(k);
    return cuckoo::InsertResult::kInserted;
  }
  std::uint64_t size() const { return items.size() - hidden; }
};

TEST(AdapterAttribution, ACopyAFullInsertStoredIsChargedToItAsC6) {
  // Keys 1-4 fill it; insert 1 answers full and stores a second copy of 1; after erase 2,
  // insert 1 answers duplicate_limit where the model holds one copy. The refusal stored it.
  cuckoo::model::Trace t;
  t.engine = "copy.loss";
  for (const std::uint64_t k : {1, 2, 3, 4, 1}) t.add(cuckoo::model::Op::insert(k));
  t.add(cuckoo::model::Op::erase(2));
  t.add(cuckoo::model::Op::insert(1));
  ImplementationTraits traits = copy_loss_traits();
  traits.capacity = 4;
  const auto v = cuckoo::audit::replay_implementation([] { return RefusalStoresFilterAdapter{}; }, traits, t);
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(v->claim, "C6") << v->expected;
  EXPECT_EQ(v->op_index, 6U);
  EXPECT_EQ(v->actual, "duplicate_limit");
  EXPECT_TRUE(has(v->expected, "an extra copy of key 1 was stored during op 5 'insert 1', which answered full"))
      << v->expected;
  // The same copy shown by an erase that finds it where the model holds none.
  t.entries.pop_back();
  t.add(cuckoo::model::Op::erase(1));
  t.add(cuckoo::model::Op::erase(1));
  const auto e = cuckoo::audit::replay_implementation([] { return RefusalStoresFilterAdapter{}; }, traits, t);
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->claim, "C6") << e->expected;
  EXPECT_EQ(e->op_index, 7U);
  EXPECT_TRUE(has(e->expected, "an extra copy of key 1 was stored during op 5 'insert 1', which answered full"))
      << e->expected;
}

// A finding that attribution must leave where it is: its claim, at the op that showed it.
void expect_not_attributed(const std::optional<cuckoo::model::Violation>& v, const std::string& claim,
                           std::size_t op_index) {
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(v->claim, claim) << v->expected;
  EXPECT_EQ(v->op_index, op_index);
  EXPECT_FALSE(has(v->expected, "was lost during")) << v->expected;
}

TEST(AdapterAttribution, AWrongCopyLimitWithNothingLostStaysC5) {
  expect_not_attributed(cuckoo::audit::replay_implementation([] { return CopyLossFilterAdapter<false>{}; },
                                                             copy_loss_traits(), copies_then_past_the_limit()),
                        "C5", 4);
}

TEST(AdapterAttribution, TheAuditReportsACopyLossUnderC1) {
  AuditOptions o = small_options();
  o.claims = {"C1", "C5"};
  const Report r = cuckoo::audit::audit_implementation([] { return CopyLossFilterAdapter<true>{}; },
                                                       copy_loss_traits(), o);
  const ClaimResult& c1 = result_for(r, "C1");
  EXPECT_EQ(c1.verdict, Verdict::kFail) << c1.summary;
  EXPECT_TRUE(has(c1.summary, "a copy of key")) << c1.summary;
  ASSERT_TRUE(c1.counterexample.has_value());
  EXPECT_TRUE(cuckoo::audit::replay_implementation([] { return CopyLossFilterAdapter<true>{}; }, copy_loss_traits(),
                                                   cuckoo::model::parse_trace(c1.counterexample->trace)));
}

TEST(AdapterAttribution, AKeyLostByARefusedInsertStaysC6) {
  expect_not_attributed(cuckoo::audit::replay_implementation([] { return KickLossFilterAdapter<false>{}; },
                                                             kick_loss_traits(), fill_then_refuse()),
                        "C6", 8);
}

TEST(AdapterAttribution, TheAuditReportsTheKickLossUnderC1WhicheverTracesFoundIt) {
  AuditOptions o = small_options();
  o.claims = {"C6"};  // only C6's traces run: they find it, C1 is charged
  const Report r = cuckoo::audit::audit_implementation(
      [] { return KickLossFilterAdapter<true>{}; }, kick_loss_traits(), o);
  const ClaimResult& c1 = result_for(r, "C1");
  EXPECT_EQ(c1.verdict, Verdict::kFail) << c1.summary;
  EXPECT_TRUE(has(c1.summary, "of the C6 traces broke C1")) << c1.summary;
  EXPECT_TRUE(has(c1.summary, "which answered inserted")) << c1.summary;
  EXPECT_EQ(result_for(r, "C6").verdict, Verdict::kPass) << result_for(r, "C6").summary;
  ASSERT_TRUE(c1.counterexample.has_value());
  EXPECT_LE(c1.counterexample->shrunk_ops, 10U) << c1.counterexample->trace;
}

TEST(AdapterAttribution, C1sFillTracesReachTheKicksThatItsSmallTracesNeverDo) {
  // C1's random traces use a few keys (capacity / 4 at most): only the fill traces, which
  // go to the first refusal, make the 5th successful insert.
  // This one loses an item when an insert makes 6 distinct keys stored (the random
  // traces have at most 5).
  struct LosesAtSixKeys : KickLossFilterAdapter<true> {
    bool insert(std::uint64_t k) {
      if (items.size() + lost_slot >= 8) return false;
      const bool fresh = items.count(k) == 0;
      items.insert(k);
      std::set<std::uint64_t> distinct(items.begin(), items.end());
      if (fresh && distinct.size() == 6 && lost_slot == 0) lose(k);
      return true;
    }
  };
  AuditOptions o = small_options();
  o.claims = {"C1"};
  const Report r = cuckoo::audit::audit_implementation([] { return LosesAtSixKeys{}; },
                                                       kick_loss_traits(), o);
  const ClaimResult& c1 = result_for(r, "C1");
  EXPECT_EQ(c1.verdict, Verdict::kFail) << c1.summary;
  EXPECT_TRUE(has(c1.summary, "of the C1 fill traces broke C1")) << c1.summary;
  EXPECT_TRUE(has(c1.summary, "which answered inserted")) << c1.summary;
}

// A correct filter whose items are key % 2 (keys 0 and 2 are one item to it, as two keys
// with one fingerprint and bucket pair are to a cuckoo filter), at most `limit` copies an
// item, 16 items; no identity(): the audit must find the aliases itself.
template <std::uint64_t kLimit>
struct AliasingFilterAdapter {
  std::multiset<std::uint64_t> items;
  cuckoo::InsertResult insert(std::uint64_t k) {
    if (items.count(k % 2) >= kLimit) return cuckoo::InsertResult::kDuplicateLimit;
    if (items.size() >= 16) return cuckoo::InsertResult::kFull;
    items.insert(k % 2);
    return cuckoo::InsertResult::kInserted;
  }
  bool contains(std::uint64_t k) const { return items.count(k % 2) != 0; }
  bool erase(std::uint64_t k) {
    const auto it = items.find(k % 2);
    if (it == items.end()) return false;
    items.erase(it);
    return true;
  }
  std::uint64_t size() const { return items.size(); }
};

ImplementationTraits aliasing_traits(std::uint64_t max_copies) {
  ImplementationTraits t;
  t.name = "aliasing.filter";
  t.kind = ImplementationKind::kApproximateFilter;
  t.capacity = 16;
  t.max_copies = max_copies;
  return t;
}

TEST(AdapterAliases, KeysTheFilterCannotTellApartAreNotAFindingOfC5) {
  AuditOptions o = small_options();
  o.claims = {"C1", "C5", "C6"};
  const Report r = cuckoo::audit::audit_implementation([] { return AliasingFilterAdapter<4>{}; },
                                                       aliasing_traits(4), o);
  for (const char* claim : {"C1", "C5", "C6"}) {
    EXPECT_EQ(result_for(r, claim).verdict, Verdict::kPass) << claim << ": " << result_for(r, claim).summary;
  }
}

TEST(AdapterAliases, TheProbesOfTheFirstDivergenceCountAliasesAsOneItem) {
  // Items are k % 4, 4 slots. Key 4 is key 0's alias: erase 4 removes 0's copy, which the
  // audit learns by asking the filter. A refused insert then drops item 1: C6, shown by
  // the refusal itself. Probes that took 0 and 4 for two items would see key 0 lost at
  // erase 4 and charge the finding to it (C5).
  struct DropsOnRefusal {
    std::multiset<std::uint64_t> items;
    std::uint64_t dropped = 0;
    cuckoo::InsertResult insert(std::uint64_t k) {
      if (items.count(k % 4) >= 4) return cuckoo::InsertResult::kDuplicateLimit;
      if (items.size() + dropped >= 4) {
        const auto it = items.find(1);
        if (it != items.end() && dropped == 0) {
          items.erase(it);
          ++dropped;
        }
        return cuckoo::InsertResult::kFull;
      }
      items.insert(k % 4);
      return cuckoo::InsertResult::kInserted;
    }
    bool contains(std::uint64_t k) const { return items.count(k % 4) != 0; }
    bool erase(std::uint64_t k) {
      const auto it = items.find(k % 4);
      if (it == items.end()) return false;
      items.erase(it);
      return true;
    }
    std::uint64_t size() const { return items.size() + dropped; }
  };
  cuckoo::model::Trace t;
  t.engine = "aliasing.filter";
  for (const std::uint64_t k : {1, 0}) t.add(cuckoo::model::Op::insert(k));
  t.add(cuckoo::model::Op::erase(4));
  for (const std::uint64_t k : {2, 3, 6, 7}) t.add(cuckoo::model::Op::insert(k));  // 7: full, drops item 1
  ImplementationTraits traits = aliasing_traits(4);
  traits.capacity = 4;
  const auto v = cuckoo::audit::replay_implementation([] { return DropsOnRefusal{}; }, traits, t);
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(v->claim, "C6") << v->expected;
  EXPECT_EQ(v->op_index, 6U) << v->expected;
  EXPECT_FALSE(has(v->expected, "was lost during")) << v->expected;
}

TEST(AdapterAliases, AnAliasDoesNotExcuseAKeyWithNoAlias) {
  // Key 1 inserted once; erasing key 3 (its alias) is fine, erasing key 5 after that is
  // too (an alias as well), but the filter answering true for erase 4 with nothing of
  // item 0 stored is a finding: no key of the trace explains it.
  struct Overeager : AliasingFilterAdapter<4> {
    bool erase(std::uint64_t k) { return k == 4 || AliasingFilterAdapter<4>::erase(k); }
  };
  cuckoo::model::Trace t;
  t.engine = "aliasing.filter";
  t.add(cuckoo::model::Op::insert(1));
  t.add(cuckoo::model::Op::erase(3));
  t.add(cuckoo::model::Op::erase(4));
  const auto v = cuckoo::audit::replay_implementation([] { return Overeager{}; }, aliasing_traits(4), t);
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(v->claim, "C5");
  EXPECT_EQ(v->op_index, 2U) << v->expected;
}

TEST(AdapterAliases, AnUnknownCopyLimitIsNotChecked) {
  // A limit of 3 copies, not 2b = 8: declared unknown, C5 holds and says it did not check.
  AuditOptions o = small_options();
  o.claims = {"C5"};
  ImplementationTraits t = aliasing_traits(cuckoo::audit::kUnknownCopyLimit);
  t.slots_per_bucket = 4;
  const Report r = cuckoo::audit::audit_implementation([] { return AliasingFilterAdapter<3>{}; }, t, o);
  const ClaimResult& c5 = result_for(r, "C5");
  EXPECT_EQ(c5.verdict, Verdict::kPass) << c5.summary;
  EXPECT_TRUE(has(c5.summary, "the copy limit is unknown")) << c5.summary;
  EXPECT_TRUE(has(c5.configuration, "max_copies=unknown")) << c5.configuration;
  // Declared 2b, the same filter fails: the limit is checked then.
  t.max_copies = 0;
  const Report checked = cuckoo::audit::audit_implementation([] { return AliasingFilterAdapter<3>{}; }, t, o);
  EXPECT_EQ(result_for(checked, "C5").verdict, Verdict::kFail) << result_for(checked, "C5").summary;
  // Unknown, but duplicate_limit for a key with no copies at all is still a finding.
  cuckoo::model::Trace first;
  first.engine = t.name;
  first.add(cuckoo::model::Op::insert(0));
  struct RefusesFirst : AliasingFilterAdapter<3> {
    cuckoo::InsertResult insert(std::uint64_t) { return cuckoo::InsertResult::kDuplicateLimit; }
  };
  t.max_copies = cuckoo::audit::kUnknownCopyLimit;
  const auto v = cuckoo::audit::replay_implementation([] { return RefusesFirst{}; }, t, first);
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(v->claim, "C5");
}

// Loses one stored key in 20 and answers "maybe" for one key in eight: both findings.
struct LossyLeakyFilterAdapter : EngineFilterAdapter {
  bool contains(std::uint64_t k) const {
    if (k % 20 == 7) return false;
    return (k % 8 == 3) || filter.contains(k);
  }
};

TEST(AdapterAttribution, C2IsMeasuredOnTheKeysStillPresentWhenKeysAreLost) {
  AuditOptions o = small_options();
  o.claims = {"C2"};
  const Report r = cuckoo::audit::audit_implementation([] { return LossyLeakyFilterAdapter{}; },
                                                       filter_traits("lossy.leaky"), o);
  const ClaimResult& c2 = result_for(r, "C2");
  EXPECT_EQ(c2.verdict, Verdict::kFail) << c2.summary;
  EXPECT_TRUE(has(c2.summary, "false positives in 20000 queries")) << c2.summary;
  EXPECT_TRUE(has(c2.summary, "reported under C1")) << c2.summary;
  EXPECT_GT(figure_of(c2, "false-positive rate").value, 0.1) << c2.summary;
  EXPECT_GT(figure_of(c2, "stored keys not found").value, 0.0) << c2.summary;
  const ClaimResult& c1 = result_for(r, "C1");
  EXPECT_EQ(c1.verdict, Verdict::kFail) << c1.summary;
}

// Throws from insert once 6 keys are stored.
struct ThrowingSetAdapter : SetAdapter {
  bool insert(std::uint64_t k) {
    if (set.size() >= 6) throw std::runtime_error("boom: table corrupted");
    return SetAdapter::insert(k);
  }
};

TEST(AdapterAudit, AnExceptionFromTheAdapterIsAFindingWithItsMessage) {
  const ImplementationTraits traits = set_traits("throwing.set");
  const Report r = cuckoo::audit::audit_implementation([] { return ThrowingSetAdapter{}; }, traits,
                                                       small_options());
  const ClaimResult& c1 = result_for(r, "C1");
  ASSERT_EQ(c1.verdict, Verdict::kFail);
  EXPECT_NE(c1.summary.find("boom: table corrupted"), std::string::npos) << c1.summary;
  ASSERT_TRUE(c1.counterexample.has_value());
  EXPECT_LE(c1.counterexample->shrunk_ops, 8U) << c1.counterexample->trace;
  EXPECT_TRUE(cuckoo::audit::replay_implementation(
      [] { return ThrowingSetAdapter{}; }, traits,
      cuckoo::model::parse_trace(c1.counterexample->trace)));
}

struct ThrowingQueriesFilterAdapter : EngineFilterAdapter {
  std::uint64_t queries = 0;
  bool contains(std::uint64_t k) {
    if (++queries > 1000) throw std::runtime_error("lost connection");
    return filter.contains(k);
  }
};

TEST(AdapterAudit, AnExceptionDuringTheC2MeasurementFailsC2) {
  AuditOptions o = small_options();
  o.claims = {"C2"};
  const Report r = cuckoo::audit::audit_implementation(
      [] { return ThrowingQueriesFilterAdapter{}; }, filter_traits("throwing.filter"), o);
  ASSERT_EQ(r.results.size(), 1U);
  EXPECT_EQ(r.results[0].verdict, Verdict::kFail);
  EXPECT_NE(r.results[0].summary.find("lost connection"), std::string::npos) << r.results[0].summary;
}

// A factory that throws: every trace fails, the audit does not throw.
TEST(AdapterAudit, AFactoryThatThrowsFailsTheTracesInsteadOfTheAudit) {
  AuditOptions o = small_options();
  o.claims = {"C1", "C7"};
  const Report r = cuckoo::audit::audit_implementation(
      []() -> SetAdapter { throw std::runtime_error("cannot connect"); }, set_traits("absent.set"), o);
  ASSERT_EQ(r.results.size(), 2U);
  for (const ClaimResult& c : r.results) {
    EXPECT_EQ(c.verdict, Verdict::kFail) << c.claim;
    EXPECT_NE(c.summary.find("cannot connect"), std::string::npos) << c.summary;
  }
}

TEST(AdapterAudit, ClaimsSelectsWhatRunsAndRejectsOthers) {
  AuditOptions o = small_options();
  o.claims = {"C7"};
  const Report r = cuckoo::audit::audit_implementation([] { return SetAdapter{}; },
                                                       set_traits("std.unordered_set"), o);
  ASSERT_EQ(r.results.size(), 1U);
  EXPECT_EQ(r.results[0].claim, "C7");
  o.claims = {"C4"};
  EXPECT_THROW(cuckoo::audit::audit_implementation([] { return SetAdapter{}; },
                                                   set_traits("std.unordered_set"), o),
               cuckoo::audit::UsageError);
}

// A set that refuses inserts past 2000 keys: C6 above kSmallCapacity fills with distinct
// keys and runs within its lookup budget.
struct BoundedSetAdapter : SetAdapter {
  bool full = false;
  cuckoo::model::InsertResult insert(std::uint64_t k) {
    if (set.count(k) != 0) return cuckoo::model::InsertResult::kExists;
    if (set.size() >= 2000) return cuckoo::model::InsertResult::kFull;
    set.insert(k);
    return cuckoo::model::InsertResult::kInserted;
  }
};

TEST(AdapterAudit, C6AboveSmallCapacitiesFillsAndStaysWithinItsBudget) {
  ImplementationTraits traits = set_traits("bounded.set");
  traits.capacity = 2000;
  AuditOptions o = small_options();
  o.claims = {"C6"};
  const Report r = cuckoo::audit::audit_implementation([] { return BoundedSetAdapter{}; }, traits, o);
  ASSERT_EQ(r.results.size(), 1U);
  const ClaimResult& c6 = r.results[0];
  EXPECT_EQ(c6.verdict, Verdict::kPass) << c6.summary;
  const double traces = c6.figures.at(0).value;
  EXPECT_GE(traces, 1);
  EXPECT_LE(traces, static_cast<double>(cuckoo::audit::adapter_detail::kC6LookupBudget /
                                        cuckoo::audit::adapter_detail::c6_trace_cost(2000)) + 1);
  EXPECT_GE(c6.samples, 2000U);  // the fill alone
}

// prepare() sees each trace before its ops are performed, and the C2 plan in chunks.
struct PreparingFilterAdapter : EngineFilterAdapter {
  std::vector<std::size_t>* plans;
  explicit PreparingFilterAdapter(std::vector<std::size_t>* p) : plans(p) {}
  void prepare(const cuckoo::model::Trace& t) { plans->push_back(t.size()); }
};

TEST(AdapterAudit, PrepareIsCalledWithWhatFollows) {
  std::vector<std::size_t> plans;
  AuditOptions o = small_options();
  o.claims = {"C1", "C2"};
  o.fpr_queries = 70'000;
  const Report r = cuckoo::audit::audit_implementation(
      [&plans] { return PreparingFilterAdapter(&plans); }, filter_traits("preparing.filter"), o);
  EXPECT_TRUE(r.all_passed());
  // 4 C1 identity-pair traces (64 pairs, 16 a trace) and 40 C1 traces, the C1 fill
  // probe (2.3 times 64 inserts) and 10 C1 fill traces, then C2: the inserts (95% of
  // 64), the lookups of those keys, then 65536 + 4464 queries.
  ASSERT_EQ(plans.size(), 4U + 40U + 1U + 10U + 4U);
  EXPECT_EQ(plans[0], 48U);  // 16 inserts, 32 lookups
  EXPECT_EQ(plans[44], 2U * 64U + 16U + 4U + 1U);
  EXPECT_EQ(plans[55], 60U);
  EXPECT_EQ(plans[56], 60U);
  EXPECT_EQ(plans[57], 65'536U);
  EXPECT_EQ(plans[58], 70'000U - 65'536U);
}

TEST(AdapterAudit, RejectsANameThatIsNotATraceName) {
  EXPECT_THROW(cuckoo::audit::audit_implementation([] { return SetAdapter{}; },
                                                   set_traits("has space"), small_options()),
               cuckoo::audit::UsageError);
}

// A capacity the auditor cannot fill (its fills hold about 2.3 capacity requests in
// memory; its C6 cost overflows 64 bits) is refused before anything runs, naming the
// limit, instead of ending in a length error or an allocation failure.
TEST(AdapterAudit, RejectsACapacityAboveTheAuditorsLimit) {
  for (const std::uint64_t capacity : {cuckoo::audit::kMaxAuditCapacity + 1,
                                       std::uint64_t{18446744073709551615ULL}}) {
    ImplementationTraits t = set_traits("huge.set");
    t.capacity = capacity;
    try {
      cuckoo::audit::audit_implementation([] { return SetAdapter{}; }, t, small_options());
      ADD_FAILURE() << "capacity " << capacity << " accepted";
    } catch (const cuckoo::audit::UsageError& e) {
      EXPECT_NE(std::string(e.what()).find("ImplementationTraits::capacity " +
                                           std::to_string(capacity) + " is above 4194304"),
                std::string::npos)
          << e.what();
    }
  }
}

// ---- what the audit used to miss -------------------------------------------------------

// A cuckoo-filter-like multiset (b = 4, no copy limit: insert returns bool) with a victim
// slot: the 9th copy of one key goes to the victim slot, and from then on every insert is
// refused. Its size() leaves the victim out unless `count_victim`. Everything else is right.
template <bool kCountVictim>
struct VictimFilterAdapter {
  std::unordered_multiset<std::uint64_t> items;
  std::optional<std::uint64_t> victim;
  bool insert(std::uint64_t k) {
    if (victim) return false;
    if (items.size() >= 64) return false;
    if (items.count(k) >= 8) {
      victim = k;
      return true;
    }
    items.insert(k);
    return true;
  }
  bool contains(std::uint64_t k) const { return items.count(k) != 0 || victim == k; }
  bool erase(std::uint64_t k) {
    if (victim == k) {
      victim.reset();
      return true;
    }
    const auto it = items.find(k);
    if (it == items.end()) return false;
    items.erase(it);
    return true;
  }
  std::uint64_t size() const { return items.size() + (kCountVictim && victim ? 1 : 0); }
};

ImplementationTraits victim_traits(cuckoo::audit::SizeMode size) {
  ImplementationTraits t = filter_traits("victim.filter");
  t.size = size;
  return t;
}

TEST(AdapterGaps, ASizeMismatchFailsTheSizeClaimAndTheOtherClaimsAreStillChecked) {
  const Report r = cuckoo::audit::audit_implementation(
      [] { return VictimFilterAdapter<false>{}; }, victim_traits(cuckoo::audit::SizeMode::kExact),
      small_options());
  // The size claim of a filter is C5 (sizes count stored copies).
  const ClaimResult& c5 = result_for(r, "C5");
  ASSERT_EQ(c5.verdict, Verdict::kFail) << c5.summary;
  EXPECT_TRUE(has(c5.summary, "broke C5 (size:")) << c5.summary;
  ASSERT_TRUE(c5.counterexample.has_value());
  EXPECT_LE(c5.counterexample->shrunk_ops, 10U) << c5.counterexample->trace;
  // C1 and C6 were checked after it, with sizes set aside, and held.
  for (const char* claim : {"C1", "C6"}) {
    const ClaimResult& c = result_for(r, claim);
    EXPECT_EQ(c.verdict, Verdict::kPass) << claim << ": " << c.summary;
    EXPECT_GT(figure_of(c, "traces checked").value, 0) << claim;
  }
  EXPECT_TRUE(has(result_for(r, "C6").summary, "size_checks=off")) << result_for(r, "C6").summary;
  // Refusing everything once the victim slot is taken: C3.
  EXPECT_EQ(result_for(r, "C3").verdict, Verdict::kFail) << result_for(r, "C3").summary;
}

TEST(AdapterGaps, AViolationIsReportedUnderTheClaimThatBrokeNotTheTracesThatFoundIt) {
  // Declares a copy limit of 2 but stores any number of copies.
  struct OverCopyingFilter {
    std::unordered_multiset<std::uint64_t> items;
    cuckoo::model::InsertResult insert(std::uint64_t k) {
      items.insert(k);
      return cuckoo::model::InsertResult::kInserted;
    }
    bool contains(std::uint64_t k) const { return items.count(k) != 0; }
    bool erase(std::uint64_t k) {
      const auto it = items.find(k);
      if (it == items.end()) return false;
      items.erase(it);
      return true;
    }
    std::uint64_t size() const { return items.size(); }
  };
  ImplementationTraits traits = filter_traits("overcopying.filter");
  traits.max_copies = 2;
  AuditOptions o = small_options();
  o.claims = {"C1"};
  const Report r = cuckoo::audit::audit_implementation([] { return OverCopyingFilter{}; }, traits, o);
  ASSERT_EQ(r.results.size(), 2U);
  const ClaimResult& c1 = result_for(r, "C1");
  EXPECT_EQ(c1.verdict, Verdict::kPass) << c1.summary;
  EXPECT_TRUE(has(c1.summary, "stopped early at a violation of C5")) << c1.summary;
  const ClaimResult& c5 = result_for(r, "C5");
  ASSERT_EQ(c5.verdict, Verdict::kFail) << c5.summary;
  EXPECT_TRUE(has(c5.summary, "of the C1 traces broke C5")) << c5.summary;
  EXPECT_TRUE(has(c5.summary, "duplicate_limit")) << c5.summary;
}

TEST(AdapterGaps, ApproximateAndAbsentSizesAreNotHeldExactly) {
  AuditOptions o = small_options();
  o.claims = {"C1", "C5", "C6"};
  // Off by one (the victim): within the tolerance of size=approximate.
  const Report approximate = cuckoo::audit::audit_implementation(
      [] { return VictimFilterAdapter<false>{}; },
      victim_traits(cuckoo::audit::SizeMode::kApproximate), o);
  EXPECT_TRUE(approximate.all_passed());
  for (const auto& c : approximate.results) {
    EXPECT_EQ(c.verdict, Verdict::kPass) << c.claim << ": " << c.summary;
    EXPECT_TRUE(has(c.configuration, "size=approximate")) << c.configuration;
  }
  // Twice the truth is outside it: a size finding, whose explanation gives the tolerance.
  struct DoubleSizeSet : SetAdapter {
    std::uint64_t size() const { return 2 * set.size(); }
  };
  ImplementationTraits doubled = set_traits("doubling.set");
  doubled.size = cuckoo::audit::SizeMode::kApproximate;
  AuditOptions so = small_options();
  so.claims = {"C7"};
  const Report wrong = cuckoo::audit::audit_implementation([] { return DoubleSizeSet{}; }, doubled, so);
  const ClaimResult& c7 = result_for(wrong, "C7");
  ASSERT_EQ(c7.verdict, Verdict::kFail) << c7.summary;
  EXPECT_TRUE(has(c7.summary, "size=approximate: within")) << c7.summary;
  // Absent: an adapter without size() at all is never asked.
  struct NoSizeFilter {
    std::unordered_multiset<std::uint64_t> items;
    bool insert(std::uint64_t k) {
      items.insert(k);
      return true;
    }
    bool contains(std::uint64_t k) const { return items.count(k) != 0; }
    bool erase(std::uint64_t k) {
      const auto it = items.find(k);
      if (it == items.end()) return false;
      items.erase(it);
      return true;
    }
  };
  ImplementationTraits absent = filter_traits("nosize.filter");
  absent.size = cuckoo::audit::SizeMode::kAbsent;
  absent.capacity = 0;
  const Report none = cuckoo::audit::audit_implementation([] { return NoSizeFilter{}; }, absent, o);
  EXPECT_TRUE(none.all_passed());
  absent.size = cuckoo::audit::SizeMode::kExact;
  EXPECT_THROW(cuckoo::audit::audit_implementation([] { return NoSizeFilter{}; }, absent, o),
               cuckoo::audit::UsageError);
}

TEST(AdapterGaps, RefusingAtLowLoadFailsC3WithAShortReplayableTrace) {
  AuditOptions o = small_options();
  o.claims = {"C3"};
  // After a burst of duplicates fills the victim slot, everything is refused.
  const ImplementationTraits traits = victim_traits(cuckoo::audit::SizeMode::kExact);
  const Report r = cuckoo::audit::audit_implementation([] { return VictimFilterAdapter<true>{}; },
                                                       traits, o);
  ASSERT_EQ(r.results.size(), 1U);
  const ClaimResult& c3 = r.results[0];
  ASSERT_EQ(c3.verdict, Verdict::kFail) << c3.summary;
  EXPECT_TRUE(has(c3.summary, "after a burst of 9 inserts of one key")) << c3.summary;
  EXPECT_LT(figure_of(c3, "load reached (lowest)").value, 0.5);
  EXPECT_GE(figure_of(c3, "load at first refusal (lowest)").value, 0.0);
  ASSERT_TRUE(c3.counterexample.has_value());
  EXPECT_LE(c3.counterexample->shrunk_ops, 9U + 8U) << c3.counterexample->trace;
  const cuckoo::model::Trace trace = cuckoo::model::parse_trace(c3.counterexample->trace);
  EXPECT_TRUE(trace.parameters.has("refusal_floor"));
  const auto v = cuckoo::audit::replay_implementation([] { return VictimFilterAdapter<true>{}; },
                                                      traits, trace);
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(v->claim, "C3");
  // A filter that refuses from a tenth of its capacity on, without any burst.
  struct EarlyFullFilter : EngineFilterAdapter {
    std::uint64_t stored = 0;
    cuckoo::InsertResult insert(std::uint64_t k) {
      if (filter.size() >= 6) return cuckoo::InsertResult::kFull;
      return filter.insert(k);
    }
  };
  const Report early = cuckoo::audit::audit_implementation([] { return EarlyFullFilter{}; },
                                                           filter_traits("early.filter"), o);
  EXPECT_EQ(early.results[0].verdict, Verdict::kFail) << early.results[0].summary;
  EXPECT_NEAR(figure_of(early.results[0], "load at first refusal (mean)").value, 6.0 / 64, 1e-9);
  // A set that refuses only at its capacity passes.
  ImplementationTraits bounded = set_traits("bounded.set");
  bounded.capacity = 2000;
  const Report fine = cuckoo::audit::audit_implementation([] { return BoundedSetAdapter{}; }, bounded, o);
  EXPECT_EQ(fine.results[0].verdict, Verdict::kPass) << fine.results[0].summary;
  EXPECT_DOUBLE_EQ(figure_of(fine.results[0], "load at first refusal (lowest)").value, 1.0);
}

TEST(AdapterGaps, AFilterThatStoresNothingFailsC2InsteadOfPassingWithNoFalsePositives) {
  struct HollowFilter {
    std::uint64_t n = 0;
    bool insert(std::uint64_t) {
      ++n;
      return true;
    }
    bool contains(std::uint64_t) const { return false; }
    bool erase(std::uint64_t) { return false; }
    std::uint64_t size() const { return n; }
  };
  AuditOptions o = small_options();
  o.claims = {"C2"};
  const Report r = cuckoo::audit::audit_implementation([] { return HollowFilter{}; },
                                                       filter_traits("hollow.filter"), o);
  const ClaimResult& c2 = result_for(r, "C2");
  EXPECT_EQ(c2.verdict, Verdict::kFail) << c2.summary;
  EXPECT_TRUE(has(c2.summary, "does not find 60 of the 60 keys")) << c2.summary;
  EXPECT_EQ(figure_of(c2, "stored keys not found").value, 60.0);
  // The lost keys are C1's finding, with a trace from C2's fill.
  const ClaimResult& c1 = result_for(r, "C1");
  EXPECT_EQ(c1.verdict, Verdict::kFail) << c1.summary;
  EXPECT_TRUE(has(c1.summary, "C1 C2-fill traces broke C1")) << c1.summary;
}

// Every third instance forgets what it holds once 3 keys are stored (a failing check
// builds a second instance to find the op that lost the key).
int g_flaky_instances = 0;
struct FlakySetAdapter : SetAdapter {
  bool broken = (++g_flaky_instances % 3) == 0;
  bool contains(std::uint64_t k) const { return !(broken && set.size() >= 3) && SetAdapter::contains(k); }
};

TEST(AdapterGaps, ACounterexampleThatDoesNotFailEveryTimeIsMarkedNotReproducible) {
  AuditOptions o = small_options();
  o.claims = {"C1"};
  const Report r = cuckoo::audit::audit_implementation([] { return FlakySetAdapter{}; },
                                                       set_traits("flaky.set"), o);
  const ClaimResult& c1 = result_for(r, "C1");
  ASSERT_EQ(c1.verdict, Verdict::kFail) << c1.summary;  // it did answer wrongly
  EXPECT_TRUE(has(c1.summary, "NOT REPRODUCIBLE")) << c1.summary;
  EXPECT_TRUE(has(c1.summary, "nondeterministic")) << c1.summary;
  const auto& replays = figure_of(c1, "replays of the counterexample that failed");
  EXPECT_LT(replays.value, 5.0);
  EXPECT_GT(replays.value, 0.0);
  ASSERT_TRUE(c1.counterexample.has_value());
  EXPECT_TRUE(has(c1.counterexample->trace, "# NOT REPRODUCIBLE"));
}

TEST(AdapterGaps, AnIdentityThatClaimsAliasesTheFilterDoesNotHaveFailsC1) {
  // identity() says keys equal mod 4096 are one item; the filter tells them apart.
  struct WrongIdentityFilter : EngineFilterAdapter {
    std::uint64_t identity(std::uint64_t k) const { return k % 4096; }
  };
  AuditOptions o = small_options();
  o.claims = {"C1"};
  const Report r = cuckoo::audit::audit_implementation([] { return WrongIdentityFilter{}; },
                                                       filter_traits("wrong.identity"), o);
  const ClaimResult& c1 = result_for(r, "C1");
  ASSERT_EQ(c1.verdict, Verdict::kFail) << c1.summary;
  EXPECT_TRUE(has(c1.summary, "C1 identity-pair traces broke C1")) << c1.summary;
  EXPECT_TRUE(has(c1.summary, "its identity is what is wrong")) << c1.summary;
  ASSERT_TRUE(c1.counterexample.has_value());
  EXPECT_LE(c1.counterexample->shrunk_ops, 2U) << c1.counterexample->trace;
}

TEST(AdapterGaps, TheReportCarriesVersionStartTimeAndAReproducingCommand) {
  AuditOptions o = small_options();
  o.claims = {"C7"};
  const Report r = cuckoo::audit::audit_implementation([] { return SetAdapter{}; },
                                                       set_traits("std.unordered_set"), o);
  EXPECT_FALSE(r.tool_version.empty());
  EXPECT_NE(r.tool_version, "unknown");
  ASSERT_EQ(r.started_utc.size(), 20U) << r.started_utc;  // 2026-11-21T10:00:00Z
  EXPECT_EQ(r.started_utc[10], 'T');
  EXPECT_EQ(r.started_utc.back(), 'Z');
  EXPECT_TRUE(has(r.command, "audit_implementation(std.unordered_set")) << r.command;
  EXPECT_TRUE(has(r.command, "seed=20261121")) << r.command;
  EXPECT_TRUE(has(r.command, "traces=40")) << r.command;
  EXPECT_TRUE(has(r.command, "claims=C7")) << r.command;
  o.command = "my_audit --seed 20261121";
  EXPECT_EQ(cuckoo::audit::audit_implementation([] { return SetAdapter{}; },
                                                set_traits("std.unordered_set"), o)
                .command,
            "my_audit --seed 20261121");
}

// ---- exact maps ----

// A map of at most `kCapacity` keys (0: unbounded); Stale: insert_or_assign does not
// replace the value of a key it holds; Lossy: a refused insert drops the smallest key.
template <std::uint64_t kCapacity, bool kStale = false, bool kLossy = false>
struct MapAdapter {
  std::map<std::uint64_t, std::uint64_t> m;
  bool room() const { return kCapacity == 0 || m.size() < kCapacity; }
  cuckoo::model::InsertResult insert(std::uint64_t k, std::uint64_t v) {
    if (m.count(k) != 0) return cuckoo::model::InsertResult::kExists;
    if (!room()) {
      if (kLossy) m.erase(m.begin());
      return cuckoo::model::InsertResult::kFull;
    }
    m.emplace(k, v);
    return cuckoo::model::InsertResult::kInserted;
  }
  cuckoo::model::InsertResult insert_or_assign(std::uint64_t k, std::uint64_t v) {
    const auto it = m.find(k);
    if (it != m.end()) {
      if (!kStale) it->second = v;
      return cuckoo::model::InsertResult::kUpdated;
    }
    return insert(k, v);
  }
  std::optional<std::uint64_t> find(std::uint64_t k) const {
    const auto it = m.find(k);
    if (it == m.end()) return std::nullopt;
    return it->second;
  }
  bool erase(std::uint64_t k) { return m.erase(k) != 0; }
  std::uint64_t size() const { return m.size(); }
  void clear() { m.clear(); }
};

ImplementationTraits map_traits(std::string name, std::uint64_t capacity) {
  ImplementationTraits t;
  t.name = std::move(name);
  t.kind = ImplementationKind::kExactMap;
  t.capacity = capacity;
  return t;
}

TEST(AdapterMaps, ABoundedMapPassesC3C6C7) {
  const Report r = cuckoo::audit::audit_implementation([] { return MapAdapter<48>{}; },
                                                       map_traits("std.map", 48), small_options());
  for (const char* claim : {"C3", "C6", "C7"}) {
    EXPECT_EQ(result_for(r, claim).verdict, Verdict::kPass) << claim << ": " << result_for(r, claim).summary;
  }
  for (const char* claim : {"C1", "C2", "C5"}) {
    EXPECT_EQ(result_for(r, claim).verdict, Verdict::kSkipped) << claim;
  }
  EXPECT_TRUE(has(result_for(r, "C7").summary, "insert_or_assign, find")) << result_for(r, "C7").summary;
  EXPECT_TRUE(has(result_for(r, "C7").configuration, "exact map")) << result_for(r, "C7").configuration;
}

TEST(AdapterMaps, AStaleAssignFailsC7WithAShrunkReplayableTrace) {
  const ImplementationTraits traits = map_traits("stale.map", 0);
  const Report r = cuckoo::audit::audit_implementation([] { return MapAdapter<0, true>{}; }, traits,
                                                       small_options());
  const ClaimResult& c7 = result_for(r, "C7");
  ASSERT_EQ(c7.verdict, Verdict::kFail) << c7.summary;
  ASSERT_TRUE(c7.counterexample.has_value());
  EXPECT_LE(c7.counterexample->shrunk_ops, 3U) << c7.counterexample->trace;
  const cuckoo::model::Trace trace = cuckoo::model::parse_trace(c7.counterexample->trace);
  EXPECT_EQ(trace.parameters.get_string("kind"), "exact_map");
  EXPECT_TRUE(cuckoo::audit::replay_implementation([] { return MapAdapter<0, true>{}; }, traits, trace));
  EXPECT_FALSE(cuckoo::audit::replay_implementation([] { return MapAdapter<0>{}; }, traits, trace));
}

TEST(AdapterMaps, LosingAnEntryOnARefusedInsertFailsC6) {
  AuditOptions o = small_options();
  o.claims = {"C6"};
  const Report r = cuckoo::audit::audit_implementation([] { return MapAdapter<8, false, true>{}; },
                                                       map_traits("lossy.map", 8), o);
  const ClaimResult& c6 = result_for(r, "C6");
  ASSERT_EQ(c6.verdict, Verdict::kFail) << c6.summary;
  EXPECT_LE(c6.counterexample->shrunk_ops, 10U) << c6.counterexample->trace;
}

TEST(AdapterMaps, TheKindMustMatchTheAdapter) {
  EXPECT_THROW(cuckoo::audit::audit_implementation([] { return MapAdapter<0>{}; },
                                                   set_traits("map.as.set"), small_options()),
               cuckoo::audit::UsageError);
  EXPECT_THROW(cuckoo::audit::audit_implementation([] { return SetAdapter{}; },
                                                   map_traits("set.as.map", 0), small_options()),
               cuckoo::audit::UsageError);
}

}  // namespace
