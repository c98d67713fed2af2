// trace_test.cc: `andweorc run --trace FUNCTION` on programs/traced.cc,
// whose calls are known by construction: exact call counts, durations of a
// function that sleeps (a lower bound only), recursion, exceptions thrown
// through a traced call, and the slow-call profile of calls that are slow
// for a known reason (report --slower-than).
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "profile/profile_json.h"
#include "run_helpers.h"

namespace andweorc::testing {
namespace {

class Trace : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = temp_dir(); }
  void TearDown() override { std::system(("rm -rf " + dir_).c_str()); }

  // Runs traced.cc MODE with --trace FUNCTION (sampling only) and reads the
  // profile; `out` gets the run's result.
  // sampler: "auto" (the tool's default) or one the test needs.
  profile::Profile traced_run(const std::string& function,
                              const std::vector<std::string>& args,
                              RunResult* out, const std::string& period = "1ms",
                              const std::string& sampler = "auto") {
    std::string path = dir_ + "/p.json";
    std::vector<std::string> argv = {ANDWEORC_BIN,
                                     "run",
                                     "-q",
                                     "--no-experiments",
                                     "--sampler",
                                     sampler,
                                     "--trace",
                                     function,
                                     "--sample-period",
                                     period,
                                     "-o",
                                     path,
                                     "--",
                                     std::string(PROGRAMS_DIR) + "/traced"};
    argv.insert(argv.end(), args.begin(), args.end());
    *out = run_command(argv);
    auto r = profile::read_profile(path);
    EXPECT_TRUE(r.ok()) << r.error << "\n" << out->err;
    return r.ok() ? *r.profile : profile::Profile{};
  }

  std::string dir_;
};

const profile::TracedFunction* trace_of(const profile::Profile& p,
                                        const std::string& name) {
  for (const auto& t : p.traces)
    if (t.name == name) return &t;
  return nullptr;
}

TEST_F(Trace, CountsEveryCallExactly) {
  RunResult r;
  profile::Profile p = traced_run("traced_work", {"count", "3000"}, &r);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("calls 3000"), std::string::npos) << r.out;
  const auto* t = trace_of(p, "traced_work");
  ASSERT_NE(t, nullptr) << r.err;
  EXPECT_TRUE(t->traced);
  EXPECT_EQ(t->durations_ns.size(), 3000u);
}

TEST_F(Trace, AForkedChildRecordsItsOwnCalls) {
  RunResult r;
  profile::Profile p = traced_run("traced_work", {"fork"}, &r);
  ASSERT_EQ(r.status, 0) << r.err;
  ASSERT_EQ(p.processes.size(), 2u) << r.err;
  const auto* t = trace_of(p, "traced_work");
  ASSERT_NE(t, nullptr) << r.err;
  EXPECT_EQ(t->durations_ns.size(), 300u);  // 100 + the child's 200
}

TEST_F(Trace, FloatingPointArgumentsAndResultsSurviveTheHooks) {
  RunResult r;
  profile::Profile p = traced_run("scale", {"float"}, &r);
  ASSERT_EQ(r.status, 0) << r.err;
  // sum of (i * 0.5 * 1.25 + 0.25) for i < 1000
  EXPECT_NE(r.out.find("acc 312437.500"), std::string::npos) << r.out;
  const auto* t = trace_of(p, "scale");
  ASSERT_NE(t, nullptr) << r.err;
  EXPECT_EQ(t->durations_ns.size(), 1000u);
}

TEST_F(Trace, DurationsOfASleepingFunctionAreAtLeastTheSleep) {
  RunResult r;
  profile::Profile p = traced_run("nap", {"sleep"}, &r);
  ASSERT_EQ(r.status, 0) << r.err;
  const auto* t = trace_of(p, "nap");
  ASSERT_NE(t, nullptr) << r.err;
  ASSERT_EQ(t->durations_ns.size(), 5u);
  // nanosleep(20 ms) sleeps at least 20 ms: a floor, no upper bound.
  EXPECT_GE(t->durations_ns.front(), 20000000u);
}

TEST_F(Trace, RecursiveCallsAreEachTimed) {
  RunResult r;
  profile::Profile p = traced_run("descend", {"recurse"}, &r);
  ASSERT_EQ(r.status, 0) << r.err;
  const auto* t = trace_of(p, "descend");
  ASSERT_NE(t, nullptr) << r.err;
  EXPECT_EQ(t->durations_ns.size(), 200u);  // 50 x depth 3..0
}

TEST_F(Trace, ExceptionsThroughATracedCallAreDroppedAndCounted) {
  RunResult r;
  profile::Profile p = traced_run("may_throw", {"throw"}, &r);
  ASSERT_EQ(r.status, 0) << r.err;  // no crash: unwinding went through
  EXPECT_NE(r.out.find("caught 50"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("calls 51"), std::string::npos) << r.out;
  const auto* t = trace_of(p, "may_throw");
  ASSERT_NE(t, nullptr) << r.err;
  EXPECT_EQ(t->durations_ns.size(), 51u);  // the calls that returned
  bool counted = false;
  for (const auto& w : p.warnings)
    counted = counted || w.find("50 left by an exception") != std::string::npos;
  EXPECT_TRUE(counted) << "warnings do not count the 50 calls without a "
                          "return";
}

// --latency NAME=FUNCTION is hooked like --trace: the outermost calls'
// entries and returns are the point's BEGINs and ENDs.
struct Latency {
  uint64_t begins = 0, ends = 0;
  bool patched = false;  // the profile says the hooks counted it
};

Latency latency_run(const std::string& dir, const std::string& function,
                    const std::vector<std::string>& args, RunResult* out) {
  std::string path = dir + "/lat.json";
  std::vector<std::string> argv = {
      ANDWEORC_BIN, "run",
      "-q",         "--no-experiments",
      "--latency",  "lat=" + function,
      "-o",         path,
      "--",         std::string(PROGRAMS_DIR) + "/traced"};
  argv.insert(argv.end(), args.begin(), args.end());
  *out = run_command(argv);
  Latency l;
  auto r = profile::read_profile(path);
  EXPECT_TRUE(r.ok()) << r.error << "\n" << out->err;
  if (!r.ok()) return l;
  for (const auto& point : r.profile->points)
    if (point.name == "lat") {
      l.begins = point.begins;
      l.ends = point.ends;
    }
  for (const auto& w : r.profile->warnings)
    l.patched =
        l.patched || (w.find("latency point 'lat'") != std::string::npos &&
                      w.find("patched in process") != std::string::npos);
  return l;
}

TEST_F(Trace, LatencyOfAFunctionCountsEachCallsEntryAndReturn) {
  RunResult r;
  Latency l = latency_run(dir_, "traced_work", {"count", "1000"}, &r);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(l.begins, 1000u);
  EXPECT_EQ(l.ends, 1000u);
  EXPECT_TRUE(l.patched) << "the profile does not say how it was counted";
}

TEST_F(Trace, LatencyOfARecursiveFunctionCountsOutermostCalls) {
  RunResult r;
  Latency l = latency_run(dir_, "descend", {"recurse"}, &r);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(l.begins, 50u);  // 50 requests, each 4 nested calls deep
  EXPECT_EQ(l.ends, 50u);
}

TEST_F(Trace, LatencyEndsCallsLeftByAnException) {
  RunResult r;
  Latency l = latency_run(dir_, "may_throw", {"throw"}, &r);
  // Unwinding goes through the call (a uretprobe's swapped return
  // address made the same program abort: std::terminate).
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("caught 50"), std::string::npos) << r.out;
  // Every call ends: 51 at their ret, the 50 thrown through at the next
  // hooked entry, so the point's in-flight count does not grow.
  EXPECT_EQ(l.begins, 101u);
  EXPECT_EQ(l.ends, 101u);
}

TEST_F(Trace, LatencyCountsAForkedChildsCallsToo) {
  RunResult r;
  Latency l = latency_run(dir_, "traced_work", {"fork"}, &r);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(l.begins, 300u);  // 100 in the parent, 200 in the child
  EXPECT_EQ(l.ends, 300u);
}

TEST_F(Trace, SlowCallsShowTheirReasonFirstAndFastCallsNever) {
  RunResult r;
  // perf where it is allowed: the CPU-time timer's samples come a 4 ms
  // tick apart whatever the period, each weighted by the 20 periods it
  // stands for, so ten slow calls hold only ~11 of them; beside two busy
  // loops, 2 runs of 10 put fast_part first in the slow calls' table
  // (44.9% of their samples), none of 10 with perf. Where perf is not
  // allowed the run falls back to the timer.
  profile::Profile p = traced_run("handle", {"slow"}, &r, "200us", "perf");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto* t = trace_of(p, "handle");
  ASSERT_NE(t, nullptr) << r.err;
  ASSERT_EQ(t->durations_ns.size(), 100u);
  std::string path = dir_ + "/p.json";
  // An absolute threshold between the fast calls (>= 0.4 ms) and the slow
  // ones (>= 4.4 ms): every slow call is above it whatever the load; a
  // percentile is not (a fast call preempted for 4 ms ranks among them).
  RunResult rep = run_command(
      {ANDWEORC_BIN, "report", path, "--slower-than", "2ms", "handle"});
  ASSERT_EQ(rep.status, 0) << rep.err;
  const std::string source = std::string(PROGRAMS_SRC) + "/traced.cc";
  const std::string reason =
      "traced.cc:" + std::to_string(line_of(source, "SLOW_REASON_LINE"));
  // 10 slow calls, and fast ones the machine delayed past 2 ms.
  const std::string head = "handle slower than 2ms (2.00 ms): ";
  size_t at = rep.out.find(head);
  ASSERT_NE(at, std::string::npos) << rep.out;
  EXPECT_GE(std::stoi(rep.out.substr(at + head.size())), 10) << rep.out;
  // The first row of the slow calls' lines is the slow path's line, and
  // the fast calls have no share of it.
  size_t table = rep.out.find("Lines: share of the slow");
  ASSERT_NE(table, std::string::npos) << rep.out;
  size_t first_row = rep.out.find('\n', rep.out.find('\n', table) + 1) + 1;
  std::string row =
      rep.out.substr(first_row, rep.out.find('\n', first_row) - first_row);
  EXPECT_NE(row.find(reason), std::string::npos) << rep.out;
  EXPECT_NE(row.find("   0.0% "), std::string::npos)
      << "fast calls have a share of the slow path: " << row;
  // The folded stacks of the slow calls hold slow_path.
  RunResult folded = run_command(
      {ANDWEORC_BIN, "report", path, "-f", "folded", "--slower-than", "p90"});
  ASSERT_EQ(folded.status, 0) << folded.err;
  EXPECT_NE(folded.out.find("slow_path"), std::string::npos) << folded.out;
  RunResult speedscope = run_command({ANDWEORC_BIN, "report", path, "-f",
                                      "speedscope", "--slower-than", "2ms"});
  ASSERT_EQ(speedscope.status, 0) << speedscope.err;
  EXPECT_NE(speedscope.out.find("slow_path"), std::string::npos);
  // Formats without a slow-call view refuse rather than ignore the option.
  RunResult html =
      run_command({ANDWEORC_BIN, "report", path, "-f", "html", "-o",
                   dir_ + "/r.html", "--slower-than", "2ms"});
  EXPECT_EQ(html.status, 2) << html.err;
}

TEST_F(Trace, ATailCallingOrUnknownFunctionIsRefusedBeforeTheRun) {
  RunResult r = run_command({ANDWEORC_BIN, "run", "-q", "--trace", "no_such",
                             "--", std::string(PROGRAMS_DIR) + "/traced"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("no_such"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace andweorc::testing
