// The runner with injected tasks: selection, scheduling, result order, failures, progress,
// plot merging and seeds. None of the project's claim runners is involved.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <map>
#include <mutex>
#include <regex>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "cuckoo/audit/audit.hpp"
#include "cuckoo/audit/runner.hpp"

namespace {

using cuckoo::audit::ClaimResult;
using cuckoo::audit::Plot;
using cuckoo::audit::PlotSeries;
using cuckoo::audit::Progress;
using cuckoo::audit::Report;
using cuckoo::audit::RunOptions;
using cuckoo::audit::run_tasks;
using cuckoo::audit::Task;
using cuckoo::audit::TaskContext;
using cuckoo::audit::TaskList;
using cuckoo::audit::TaskOutput;
using cuckoo::audit::UsageError;
using cuckoo::audit::Verdict;

// A task that passes after sleeping `ms` milliseconds and reports its seed as a figure.
Task passing(std::string claim, std::string engine, std::string configuration, double cost,
             int ms = 0) {
  Task t;
  t.claim = std::move(claim);
  t.engine = std::move(engine);
  t.configuration = std::move(configuration);
  t.cost = cost;
  t.run = [ms](const TaskContext&) {
    if (ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(ms));
    TaskOutput out;
    ClaimResult r;
    r.verdict = Verdict::kPass;
    r.summary = "held";
    r.samples = 1;
    out.results.push_back(r);
    return out;
  };
  return t;
}

std::vector<std::string> keys(const Report& report) {
  std::vector<std::string> out;
  for (const ClaimResult& r : report.results) {
    out.push_back(r.claim + " " + r.engine + " " + r.configuration);
  }
  return out;
}

TaskList mixed_costs() {
  // Costs out of list order, so that largest-first scheduling reorders them; the
  // sleeps make two workers finish them in an order different from the list.
  return {passing("C1", "filter", "small", 1, 5), passing("C2", "filter", "f=8", 9, 60),
          passing("C3", "filter", "b=4", 3, 20), passing("C7", "map", "b=4", 5, 30),
          passing("C9", "classic", "", 2, 10)};
}

TEST(Runner, ResultsFollowTheTaskListWhateverTheScheduling) {
  const std::vector<std::string> expected = {"C1 filter small", "C2 filter f=8", "C3 filter b=4",
                                             "C7 map b=4", "C9 classic "};
  for (unsigned jobs : {1u, 2u, 4u}) {
    RunOptions options;
    options.jobs = jobs;
    const Report report = run_tasks(mixed_costs(), options);
    EXPECT_EQ(keys(report), expected) << "jobs=" << jobs;
    EXPECT_TRUE(report.all_passed());
  }
}

TEST(Runner, StartsTheLargestCostFirst) {
  RunOptions options;
  options.jobs = 1;
  std::vector<std::string> started;
  options.on_progress = [&](const Progress& p) {
    if (!p.finished) started.push_back(p.claim);
  };
  run_tasks(mixed_costs(), options);
  EXPECT_EQ(started, (std::vector<std::string>{"C2", "C7", "C3", "C9", "C1"}));
}

TEST(Runner, RunsTasksInParallel) {
  // Two tasks that each wait for the other to start: only two workers can finish them.
  std::atomic<int> arrived{0};
  auto rendezvous = [&](const TaskContext&) {
    ++arrived;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (arrived.load() < 2 && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::yield();
    }
    TaskOutput out;
    ClaimResult r;
    r.verdict = arrived.load() >= 2 ? Verdict::kPass : Verdict::kFail;
    out.results.push_back(r);
    return out;
  };
  TaskList tasks = {passing("C1", "filter", "a", 1), passing("C1", "filter", "b", 1)};
  tasks[0].run = rendezvous;
  tasks[1].run = rendezvous;
  RunOptions options;
  options.jobs = 2;
  EXPECT_TRUE(run_tasks(std::move(tasks), options).all_passed());
}

TEST(Runner, ATaskThatThrowsIsAFailOfItsClaim) {
  TaskList tasks = mixed_costs();
  tasks[2].run = [](const TaskContext&) -> TaskOutput {
    throw std::runtime_error("the table exploded");
  };
  tasks[3].run = [](const TaskContext&) -> TaskOutput { throw 42; };
  RunOptions options;
  options.jobs = 2;
  options.seed = 7;
  const Report report = run_tasks(std::move(tasks), options);
  ASSERT_EQ(report.results.size(), 5u);
  EXPECT_FALSE(report.all_passed());
  const ClaimResult& thrown = report.results[2];
  EXPECT_EQ(thrown.claim, "C3");
  EXPECT_EQ(thrown.engine, "filter");
  EXPECT_EQ(thrown.configuration, "b=4");
  EXPECT_EQ(thrown.verdict, Verdict::kFail);
  EXPECT_NE(thrown.summary.find("the table exploded"), std::string::npos) << thrown.summary;
  EXPECT_EQ(thrown.seed, cuckoo::audit::task_seed(7, "C3", "filter", "b=4"));
  EXPECT_EQ(report.results[3].verdict, Verdict::kFail);
  EXPECT_NE(report.results[3].summary.find("unknown type"), std::string::npos);
  EXPECT_EQ(report.results[0].verdict, Verdict::kPass);
  EXPECT_EQ(report.results[4].verdict, Verdict::kPass);
}

TEST(Runner, ATaskWithNoResultIsReportedAsSkipped) {
  TaskList tasks = {passing("C1", "filter", "a", 1)};
  tasks[0].run = [](const TaskContext&) { return TaskOutput{}; };
  const Report report = run_tasks(std::move(tasks), RunOptions{});
  ASSERT_EQ(report.results.size(), 1u);
  EXPECT_EQ(report.results[0].verdict, Verdict::kSkipped);
  EXPECT_EQ(report.results[0].claim, "C1");
  EXPECT_FALSE(report.results[0].summary.empty());
}

TEST(Runner, SelectsByClaimAndEngine) {
  RunOptions options;
  options.claims = {"C1", "C7"};
  EXPECT_EQ(keys(run_tasks(mixed_costs(), options)),
            (std::vector<std::string>{"C1 filter small", "C7 map b=4"}));

  options.claims.clear();
  options.engines = {"filter"};
  EXPECT_EQ(keys(run_tasks(mixed_costs(), options)),
            (std::vector<std::string>{"C1 filter small", "C2 filter f=8", "C3 filter b=4"}));

  options.claims = {"C2", "C9"};
  options.engines = {"filter", "classic"};
  EXPECT_EQ(keys(run_tasks(mixed_costs(), options)),
            (std::vector<std::string>{"C2 filter f=8", "C9 classic "}));
}

template <class Fn>
std::string usage_error_of(Fn&& fn) {
  try {
    fn();
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

TEST(Runner, UnknownNamesAreUsageErrorsThatListTheAllowed) {
  RunOptions options;
  options.claims = {"C1", "C13"};
  std::string message = usage_error_of([&] { run_tasks(mixed_costs(), options); });
  EXPECT_NE(message.find("'C13'"), std::string::npos) << message;
  EXPECT_NE(message.find("C12"), std::string::npos) << message;

  options.claims.clear();
  options.engines = {"hopscotch"};
  message = usage_error_of([&] { run_tasks(mixed_costs(), options); });
  EXPECT_NE(message.find("'hopscotch'"), std::string::npos) << message;
  EXPECT_NE(message.find("concurrent-map"), std::string::npos) << message;

  // The engine of a task is a known name even if the project has no such engine.
  TaskList own = {passing("C1", "my-filter", "", 1)};
  options.engines = {"my-filter"};
  EXPECT_EQ(run_tasks(std::move(own), options).results.size(), 1u);
}

TEST(Runner, AnEmptySelectionSaysWhereTheClaimApplies) {
  RunOptions options;
  options.claims = {"C9"};
  options.engines = {"filter"};
  const std::string message = usage_error_of([&] { run_tasks(mixed_costs(), options); });
  EXPECT_NE(message.find("C9 applies to classic"), std::string::npos) << message;
}

TEST(Runner, ZeroJobsIsAUsageError) {
  RunOptions options;
  options.jobs = 0;
  EXPECT_NE(usage_error_of([&] { run_tasks(mixed_costs(), options); }), "");
}

TEST(Runner, ProgressIsSerializedAndMonotonic) {
  RunOptions options;
  options.jobs = 3;
  std::vector<Progress> events;
  std::atomic<bool> inside{false};
  std::atomic<bool> overlapped{false};
  options.on_progress = [&](const Progress& p) {
    if (inside.exchange(true)) overlapped = true;
    events.push_back(p);
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    inside = false;
  };
  run_tasks(mixed_costs(), options);
  EXPECT_FALSE(overlapped);
  ASSERT_EQ(events.size(), 10u);
  std::size_t starts = 0;
  for (std::size_t i = 0; i < events.size(); ++i) {
    const Progress& p = events[i];
    EXPECT_EQ(p.tasks_total, 5u);
    if (!p.finished) ++starts;
    if (i == 0) continue;
    EXPECT_GE(p.fraction_done, events[i - 1].fraction_done);
    EXPECT_GE(p.tasks_done, events[i - 1].tasks_done);
    EXPECT_GE(p.seconds_elapsed, events[i - 1].seconds_elapsed);
  }
  EXPECT_EQ(starts, 5u);
  EXPECT_EQ(events.front().fraction_done, 0.0);
  EXPECT_TRUE(events.back().finished);
  EXPECT_EQ(events.back().tasks_done, 5u);
  EXPECT_DOUBLE_EQ(events.back().fraction_done, 1.0);
  EXPECT_DOUBLE_EQ(events.back().seconds_left, 0.0);
  // Fractions are by cost: the first task to finish alone is its share of the total 20.
  for (const Progress& p : events) {
    if (p.finished && p.tasks_done == 1) {
      const double shares[] = {1.0 / 20, 9.0 / 20, 3.0 / 20, 5.0 / 20, 2.0 / 20};
      bool is_a_share = false;
      for (double s : shares) is_a_share = is_a_share || std::abs(p.fraction_done - s) < 1e-12;
      EXPECT_TRUE(is_a_share) << p.fraction_done;
      if (p.fraction_done < 1) {
        EXPECT_GT(p.seconds_left, 0.0);
      }
    }
  }
}

TEST(Runner, AProgressCallbackThatThrowsStopsTheRun) {
  RunOptions options;
  options.jobs = 1;
  int calls = 0;
  options.on_progress = [&](const Progress&) {
    ++calls;
    throw std::runtime_error("terminal gone");
  };
  std::atomic<int> ran{0};
  TaskList tasks = mixed_costs();
  for (Task& t : tasks) {
    t.run = [&](const TaskContext&) {
      ++ran;
      return TaskOutput{};
    };
  }
  EXPECT_THROW(run_tasks(std::move(tasks), options), std::runtime_error);
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(ran.load(), 0);
}

PlotSeries series(std::string name, double x, double y) {
  PlotSeries s;
  s.name = std::move(name);
  cuckoo::audit::PlotPoint point;
  point.x = x;
  point.y = y;
  s.points.push_back(point);
  return s;
}

Plot plot(std::string id, std::string title, std::vector<PlotSeries> series) {
  Plot p;
  p.id = std::move(id);
  p.claim = "C3";
  p.title = std::move(title);
  p.series = std::move(series);
  return p;
}

TEST(Runner, PlotsWithTheSameIdAreMergedInTaskOrder) {
  auto with_plots = [](Task t, std::vector<Plot> plots) {
    auto inner = t.run;
    t.run = [inner, plots](const TaskContext& c) {
      TaskOutput out = inner(c);
      out.plots = plots;
      return out;
    };
    return t;
  };
  TaskList tasks = {
      with_plots(passing("C3", "filter", "b=1", 1, 40),
                 {plot("c3-load", "load at first failure", {series("b=1", 1, 0.5)})}),
      with_plots(passing("C3", "filter", "b=4", 5),
                 {plot("c3-load", "ignored title",
                       {series("b=4", 4, 0.95), series("b=1", 1, 0.49)}),
                  plot("c3-other", "other", {})}),
  };
  RunOptions options;
  options.jobs = 2;
  const Report report = run_tasks(std::move(tasks), options);
  ASSERT_EQ(report.plots.size(), 2u);
  const Plot& merged = report.plots[0];
  EXPECT_EQ(merged.id, "c3-load");
  EXPECT_EQ(merged.title, "load at first failure");
  ASSERT_EQ(merged.series.size(), 2u);
  EXPECT_EQ(merged.series[0].name, "b=1");
  ASSERT_EQ(merged.series[0].points.size(), 2u);
  EXPECT_EQ(merged.series[0].points[0].y, 0.5);
  EXPECT_EQ(merged.series[0].points[1].y, 0.49);
  EXPECT_EQ(merged.series[1].name, "b=4");
  EXPECT_EQ(report.plots[1].id, "c3-other");
}

TEST(Runner, SeedsAreStableAndDistinct) {
  std::mutex lock;
  std::map<std::string, std::uint64_t> seen;
  auto recording = [&](Task t) {
    const std::string key = t.claim + "/" + t.engine + "/" + t.configuration;
    t.run = [&, key](const TaskContext& c) {
      {
        const std::lock_guard<std::mutex> guard(lock);
        seen[key] = c.seed;
      }
      TaskOutput out;
      ClaimResult r;
      r.verdict = Verdict::kPass;
      out.results.push_back(r);
      return out;
    };
    return t;
  };
  auto tasks = [&] {
    TaskList list;
    for (const Task& t : mixed_costs()) list.push_back(recording(t));
    return list;
  };
  RunOptions options;
  options.seed = 99;
  options.jobs = 2;
  const Report report = run_tasks(tasks(), options);
  const std::map<std::string, std::uint64_t> all = seen;
  ASSERT_EQ(all.size(), 5u);
  std::set<std::uint64_t> distinct;
  for (const auto& [key, seed] : all) distinct.insert(seed);
  EXPECT_EQ(distinct.size(), 5u);
  for (const ClaimResult& r : report.results) {
    EXPECT_EQ(r.seed, cuckoo::audit::task_seed(99, r.claim, r.engine, r.configuration));
    EXPECT_EQ(r.seed, all.at(r.claim + "/" + r.engine + "/" + r.configuration));
  }

  // A task's seed does not depend on which other tasks run, nor on the jobs.
  seen.clear();
  options.claims = {"C3"};
  options.jobs = 1;
  run_tasks(tasks(), options);
  EXPECT_EQ(seen.at("C3/filter/b=4"), all.at("C3/filter/b=4"));

  // Another master seed gives other seeds.
  seen.clear();
  options.seed = 100;
  run_tasks(tasks(), options);
  EXPECT_NE(seen.at("C3/filter/b=4"), all.at("C3/filter/b=4"));
}

TEST(Runner, FillsTheReportHeader) {
  RunOptions options;
  options.profile = cuckoo::audit::Profile::kStandard;
  options.seed = 1234;
  options.command = "cuckoo-audit run --seed 1234";
  const Report report = run_tasks(mixed_costs(), options, "my engines");
  EXPECT_EQ(report.tool, "cuckoo-audit");
  EXPECT_FALSE(report.tool_version.empty());
  EXPECT_EQ(report.subject, "my engines");
  EXPECT_EQ(report.profile, "standard");
  EXPECT_EQ(report.seed, 1234u);
  EXPECT_EQ(report.command, options.command);
  EXPECT_TRUE(std::regex_match(report.started_utc,
                               std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)")))
      << report.started_utc;
  EXPECT_GT(report.seconds, 0.0);
  for (const ClaimResult& r : report.results) EXPECT_GT(r.seconds, 0.0);
}

TEST(Catalog, ListsC1ToC12WithEngines) {
  const auto& catalog = cuckoo::audit::claim_catalog();
  ASSERT_EQ(catalog.size(), 12u);
  for (std::size_t i = 0; i < catalog.size(); ++i) {
    EXPECT_EQ(catalog[i].id, "C" + std::to_string(i + 1));
    EXPECT_FALSE(catalog[i].title.empty());
    EXPECT_FALSE(catalog[i].checks.empty());
    EXPECT_FALSE(catalog[i].engines.empty());
    for (const std::string& engine : catalog[i].engines) {
      bool known = false;
      for (std::string_view name : cuckoo::audit::kEngineNames) known = known || name == engine;
      EXPECT_TRUE(known) << catalog[i].id << ": " << engine;
    }
  }
}

}  // namespace
