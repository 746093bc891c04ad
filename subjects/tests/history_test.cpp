// History recording and the text form: round trip, parse errors, and the recorder's
// stamps under concurrency.
#include "cuckoo/subjects/history.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace cuckoo::subjects {
namespace {

Operation make_op(std::uint32_t thread, std::uint64_t invoke, std::uint64_t response, OpKind kind,
                  std::uint64_t key, std::uint64_t value, Result result) {
  Operation op;
  op.thread = thread;
  op.kind = kind;
  op.key = key;
  op.value = value;
  op.result = result;
  op.invoke_stamp = invoke;
  op.response_stamp = response;
  return op;
}

History every_kind_and_result() {
  History h;
  std::uint64_t stamp = 0;
  for (InsertOutcome outcome : kAllInsertOutcomes) {
    h.push_back(make_op(0, stamp, stamp + 3, OpKind::kInsert, 3, 17, outcome));
    h.push_back(make_op(1, stamp + 1, stamp + 2, OpKind::kInsertOrAssign, 4, 18, outcome));
    stamp += 4;
  }
  h.push_back(make_op(2, 40, 41, OpKind::kErase, 5, 0, true));
  h.push_back(make_op(2, 42, 43, OpKind::kErase, 5, 0, false));
  h.push_back(make_op(3, 44, 45, OpKind::kContains, 6, 0, true));
  h.push_back(make_op(3, 46, 47, OpKind::kContains, UINT64_MAX, 0, false));
  h.push_back(make_op(4, 48, 49, OpKind::kFind, 7, 0, std::optional<std::uint64_t>{}));
  h.push_back(make_op(4, 50, 51, OpKind::kFind, 7, 0, std::optional<std::uint64_t>{UINT64_MAX}));
  h.push_back(make_op(4000000000U, 52, 52, OpKind::kSize, 0, 0, SizeResult{12}));
  return h;
}

TEST(HistoryText, RoundTripsEveryKindAndResult) {
  const History original = every_kind_and_result();
  const std::string text = dump_history(original, "seed=0x2a\nsecond comment line");
  EXPECT_NE(text.find("# seed=0x2a\n# second comment line\n"), std::string::npos) << text;
  EXPECT_NE(text.find("t0 0 3 insert 3 17 -> inserted\n"), std::string::npos) << text;
  EXPECT_NE(text.find("t4 50 51 find 7 -> 18446744073709551615\n"), std::string::npos) << text;
  EXPECT_NE(text.find("t4000000000 52 52 size -> 12\n"), std::string::npos) << text;
  const History parsed = parse_history(text);
  EXPECT_EQ(parsed, original) << text;
  EXPECT_EQ(dump_history(parsed, "seed=0x2a\nsecond comment line"), text);
}

TEST(HistoryText, AcceptsBlankLinesTrailingCommentsAndCarriageReturns) {
  const History parsed = parse_history(
      "\n  # a comment\r\n t1 5 9   erase 3 -> true   # trailing comment\r\n\n"
      "t0 1 2 find 8 -> none");
  ASSERT_EQ(parsed.size(), 2U);
  EXPECT_EQ(parsed[0], make_op(1, 5, 9, OpKind::kErase, 3, 0, true));
  EXPECT_EQ(parsed[1], make_op(0, 1, 2, OpKind::kFind, 8, 0, std::optional<std::uint64_t>{}));
}

TEST(HistoryText, ParseErrorsNameLineAndField) {
  struct Case {
    const char* text;
    std::size_t line;
    const char* fragment;
  };
  const Case cases[] = {
      {"t0 1 2 insert 3 4 -> inserted\nt0 3 4 frobnicate 3 -> true", 2, "op: 'frobnicate'"},
      {"x0 1 2 erase 3 -> true", 1, "thread"},
      {"t0 5 2 erase 3 -> true", 1, "invoke stamp 5 is after response stamp 2"},
      {"t0 1 2 erase 3 => true", 1, "expected '->'"},
      {"t0 1 2 erase 3 -> maybe", 1, "not true or false"},
      {"t0 1 2 erase", 1, "got 4 fields"},
      {"t0 1 2 insert 3 -> inserted", 1, "takes 2 argument(s)"},
      {"t0 1 2 insert 3 4 5 -> inserted", 1, "takes 2 argument(s)"},
      {"t0 1 2 insert 3 4 -> gone", 1, "is not one of inserted"},
      {"t0 1 2 find 3 -> -1", 1, "result: '-1'"},
      {"t0 1 2 size -> 1x", 1, "result: '1x'"},
      {"\n\nt0 1 2 contains 3z -> true", 3, "key: '3z'"},
      {"t0 1 99999999999999999999 contains 3 -> true", 1, "response stamp"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.text);
    try {
      (void)parse_history(c.text);
      ADD_FAILURE() << "parsed without error";
    } catch (const HistoryParseError& e) {
      EXPECT_EQ(e.line(), c.line);
      EXPECT_NE(std::string(e.what()).find(c.fragment), std::string::npos) << e.what();
    }
  }
}

TEST(HistoryText, FormatsCallsAndResults) {
  EXPECT_EQ(format_call(make_op(0, 0, 1, OpKind::kInsertOrAssign, 3, 4, InsertOutcome::kUpdated)),
            "insert_or_assign(3, 4)");
  EXPECT_EQ(format_call(make_op(0, 0, 1, OpKind::kSize, 0, 0, SizeResult{2})), "size()");
  EXPECT_EQ(format_result(Result{InsertOutcome::kDuplicateLimit}), "duplicate_limit");
  EXPECT_EQ(format_result(Result{std::optional<std::uint64_t>{}}), "none");
}

TEST(HistoryRecorder, StampsAreUniqueAndBracketTheCall) {
  constexpr std::uint32_t kThreads = 4;
  constexpr std::uint64_t kOpsPerThread = 2000;
  HistoryRecorder recorder(kThreads, kOpsPerThread);
  std::atomic<std::uint64_t> shared{0};
  std::vector<std::thread> threads;
  for (std::uint32_t t = 0; t < kThreads; ++t) {
    threads.emplace_back([&recorder, &shared, t] {
      HistoryRecorder::ThreadLog& log = recorder.thread(t);
      for (std::uint64_t i = 0; i < kOpsPerThread; ++i) {
        // A linearizable counter: fetch_add returns what it read, so each op's result is
        // the number of ops linearized before it.
        log.record(OpKind::kSize, 0, 0,
                   [&shared] { return shared.fetch_add(1, std::memory_order_relaxed); });
      }
    });
  }
  for (std::thread& th : threads) th.join();
  const History h = recorder.take_history();
  ASSERT_EQ(h.size(), kThreads * kOpsPerThread);
  std::set<std::uint64_t> stamps;
  std::vector<std::uint64_t> last_response(kThreads, 0);
  std::vector<bool> seen(kThreads, false);
  for (std::size_t i = 0; i < h.size(); ++i) {
    const Operation& op = h[i];
    EXPECT_LT(op.invoke_stamp, op.response_stamp);
    EXPECT_TRUE(stamps.insert(op.invoke_stamp).second);
    EXPECT_TRUE(stamps.insert(op.response_stamp).second);
    if (i > 0) {
      EXPECT_LT(h[i - 1].invoke_stamp, op.invoke_stamp) << "merged history is sorted";
    }
    // A thread's ops do not overlap one another.
    if (seen[op.thread]) {
      EXPECT_LT(last_response[op.thread], op.invoke_stamp);
    }
    seen[op.thread] = true;
    last_response[op.thread] = op.response_stamp;
  }
  EXPECT_EQ(*stamps.rbegin(), 2 * kThreads * kOpsPerThread - 1) << "stamps are 0..2n-1";
  // Real-time order: if a precedes b then a's counter value is smaller.
  for (std::size_t i = 0; i < h.size(); i += 97) {
    for (std::size_t j = 0; j < h.size(); j += 89) {
      if (precedes(h[i], h[j])) {
        EXPECT_LT(std::get<SizeResult>(h[i].result).count, std::get<SizeResult>(h[j].result).count);
      }
    }
  }
  EXPECT_TRUE(recorder.take_history().empty()) << "take_history empties the logs";
}

TEST(HistoryRecorder, RecordsArgumentsAndResultsOfEachKind) {
  HistoryRecorder recorder(1);
  HistoryRecorder::ThreadLog& log = recorder.thread(0);
  EXPECT_EQ(log.record(OpKind::kInsert, 3, 7, [] { return InsertOutcome::kFull; }),
            InsertOutcome::kFull);
  EXPECT_TRUE(log.record(OpKind::kErase, 3, 99, [] { return true; }));
  EXPECT_EQ(log.record(OpKind::kFind, 3, 0, [] { return std::optional<std::uint64_t>{5}; }),
            std::optional<std::uint64_t>{5});
  EXPECT_EQ(log.record(OpKind::kSize, 42, 42, [] { return std::uint64_t{9}; }), 9U);
  EXPECT_EQ(log.size(), 4U);
  const History h = recorder.take_history();
  ASSERT_EQ(h.size(), 4U);
  EXPECT_EQ(h[0].value, 7U);
  EXPECT_EQ(h[1].value, 0U) << "erase carries no value";
  EXPECT_EQ(h[3].key, 0U) << "size carries no key";
  EXPECT_EQ(h[3].result, Result{SizeResult{9}});
  EXPECT_EQ(h[2].result, Result{std::optional<std::uint64_t>{5}});
}

}  // namespace
}  // namespace cuckoo::subjects
