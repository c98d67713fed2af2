// probes_test.cc: `andweorc run --progress` on a program with no progress
// point. The kernel-counted visits must equal the calls the program itself
// counted (inlined and out-of-line copies alike), and experiments must run
// against the point, with each mechanism the kernel allows; --latency
// counts entries and returns of the out-of-line copy (patched in process,
// or uprobes; a hardware breakpoint cannot see a return).
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <set>
#include <vector>

#include "profile/profile_json.h"
#include "run_helpers.h"

namespace andweorc::testing {
namespace {

class Probes : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override { dir_ = temp_dir(); }
  void TearDown() override { std::system(("rm -rf " + dir_).c_str()); }
  std::string dir_;
};

uint64_t visits_of(const profile::Profile& p, const std::string& name) {
  for (const auto& point : p.points)
    if (point.name == name) return point.visits;
  return 0;
}

TEST_P(Probes, FunctionAndLineProbesCountEveryCallExactly) {
  const std::string source = std::string(PROGRAMS_SRC) + "/unannotated.cc";
  int line = line_of(source, "UNIT_DONE_LINE");
  ASSERT_GT(line, 0);
  std::string profile = dir_ + "/p.json";
  // Returns are seen by patched exits or uretprobes, not by breakpoints.
  const bool latency = GetParam() != "breakpoint";
  std::vector<std::string> argv = {
      ANDWEORC_BIN,
      "run",
      "-q",
      "--probe-mechanism",
      GetParam(),
      "--experiment-time",
      "20ms",
      "--progress",
      "units=unit_of_work",
      "--progress",
      "done=unannotated.cc:" + std::to_string(line),
      "-o",
      profile};
  if (latency) argv.insert(argv.end(), {"--latency", "lat=unit_of_work"});
  // A begin/end line pair (4 addresses: more than the hardware breakpoints).
  const bool pair = GetParam() != "breakpoint";
  int begin_line = line_of(source, "UNIT_BEGIN_LINE");
  ASSERT_GT(begin_line, 0);
  if (pair)
    argv.insert(
        argv.end(),
        {"--latency", "pair=unannotated.cc:" + std::to_string(begin_line) +
                          ",unannotated.cc:" + std::to_string(line)});
  argv.insert(argv.end(),
              {"--", std::string(PROGRAMS_DIR) + "/unannotated", "100"});
  RunResult r = run_command(argv);
  if (r.status == 2 &&
      r.err.find("cannot count probe hits") != std::string::npos)
    GTEST_SKIP() << "the kernel refuses " << GetParam() << ": " << r.err;
  if (r.status == 2 && r.err.find("--probe-mechanism") != std::string::npos)
    GTEST_SKIP() << "the kernel refuses " << GetParam() << ": " << r.err;
  ASSERT_EQ(r.status, 0) << r.err;
  unsigned long long calls = 0, out_of_line = 0;
  ASSERT_EQ(std::sscanf(r.out.c_str(), "calls %llu out_of_line %llu", &calls,
                        &out_of_line),
            2)
      << r.out;
  ASSERT_GT(out_of_line, 0u);
  ASSERT_GT(calls, out_of_line);  // the inlined copy ran too

  profile::ReadResult read = profile::read_profile(profile);
  ASSERT_TRUE(read.ok()) << read.error;
  const profile::Profile& p = *read.profile;
  EXPECT_EQ(visits_of(p, "units"), calls);
  EXPECT_EQ(visits_of(p, "done"), calls);
  if (latency) {
    // Entry and return of the out-of-line copy; the inlined copy has no
    // return to probe (the tool says so) and is not in these counts.
    bool found = false;
    for (const auto& point : p.points) {
      if (point.name != "lat") continue;
      found = true;
      EXPECT_EQ(point.begins, out_of_line);
      EXPECT_EQ(point.ends, out_of_line);
    }
    EXPECT_TRUE(found);
  }

  if (pair) {
    // Every call executes both lines once, inlined copy or not.
    bool found = false;
    for (const auto& point : p.points) {
      if (point.name != "pair") continue;
      found = true;
      EXPECT_EQ(point.begins, calls);
      EXPECT_EQ(point.ends, calls);
    }
    EXPECT_TRUE(found);
  }

  // The profile says how the points were counted.
  bool stated = false;
  const std::string said = GetParam() == "patch"    ? "patched in process"
                           : GetParam() == "uprobe" ? "uprobe"
                                                    : "breakpoint";
  for (const auto& w : p.warnings)
    stated =
        stated || (w.find("probes:") == 0 && w.find(said) != std::string::npos);
  EXPECT_TRUE(stated);

  // Experiments ran, measured against the probed point.
  ASSERT_FALSE(p.experiments.empty());
  uint64_t measured = 0;
  for (const auto& e : p.experiments)
    for (const auto& d : e.points)
      if (d.name == "units") measured += d.visits;
  EXPECT_GT(measured, 0u);
}

INSTANTIATE_TEST_SUITE_P(Mechanisms, Probes,
                         ::testing::Values("uprobe", "breakpoint", "patch"));

// --granularity function with --fixed-line speeds up the functions whose
// code holds the line: for a line of an inlined function, the functions it
// was inlined into (here the worker that runs the inlined copy), not only
// a function of the line's own name (the out-of-line copy). A name match
// once found none for zstd's inlined match finders and ran no experiment.
TEST(FixedFunction, ALineOfAnInlinedFunctionSelectsTheFunctionsHoldingIt) {
  const std::string source = std::string(PROGRAMS_SRC) + "/unannotated.cc";
  int line = line_of(source, "UNIT_LOOP_LINE");
  ASSERT_GT(line, 0);
  std::string dir = temp_dir();
  RunResult r = run_command(
      {ANDWEORC_BIN, "run", "-q", "--experiment-time", "20ms", "--progress",
       "units=unit_of_work", "--granularity", "function", "--fixed-line",
       "unannotated.cc:" + std::to_string(line), "-o", dir + "/p.json", "--",
       std::string(PROGRAMS_DIR) + "/unannotated", "400"});
  ASSERT_EQ(r.status, 0) << r.err;
  profile::ReadResult read = profile::read_profile(dir + "/p.json");
  std::system(("rm -rf " + dir).c_str());
  ASSERT_TRUE(read.ok()) << read.error;
  std::set<std::string> functions;
  for (const auto& e : read.profile->experiments) {
    EXPECT_EQ(e.granularity, "function");
    functions.insert(e.function);
  }
  EXPECT_TRUE(functions.count("inlined_worker")) << r.err;
  // The out-of-line copy is named by its linkage name, demangled.
  for (const std::string& f : functions)
    EXPECT_TRUE(f == "inlined_worker" || f == "unit_of_work()") << f;
}

// An address the tool cannot patch (a function too short for the jump)
// falls back to a perf event, and both the tool and the profile say so;
// the patched points stay exact, also with threads that come and go.
TEST(ProbesPatch, RefusedAddressFallsBackAndIsReported) {
  std::string dir = temp_dir();
  RunResult r = run_command(
      {ANDWEORC_BIN, "run", "--no-experiments", "--probe-mechanism", "patch",
       "--progress", "units=unit_of_work", "--progress", "once=too_short", "-o",
       dir + "/p.json", "--", std::string(PROGRAMS_DIR) + "/unannotated", "60",
       "churn", "3"});
  profile::ReadResult read = profile::read_profile(dir + "/p.json");
  std::system(("rm -rf " + dir).c_str());
  if (r.status == 2 &&
      r.err.find("cannot count probe hits") != std::string::npos)
    GTEST_SKIP() << "no fallback mechanism allowed here: " << r.err;
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("'once' at too_short(int) entry"), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("ends the flow"), std::string::npos) << r.err;
  unsigned long long calls = 0, out_of_line = 0;
  ASSERT_NE(r.out.find("calls "), std::string::npos) << r.out;
  ASSERT_EQ(std::sscanf(r.out.c_str() + r.out.find("calls "),
                        "calls %llu out_of_line %llu", &calls, &out_of_line),
            2)
      << r.out;
  ASSERT_TRUE(read.ok()) << read.error;
  EXPECT_EQ(visits_of(*read.profile, "units"), calls);
  EXPECT_EQ(visits_of(*read.profile, "once"), 1u);
  bool stated = false;
  for (const auto& w : read.profile->warnings)
    stated = stated || (w.find("patched in process") != std::string::npos &&
                        w.find("the other 1 address(es) counted by") !=
                            std::string::npos);
  EXPECT_TRUE(stated);
}

// Threads that start and exit while the points count. Hardware breakpoints
// stay exact; inherited uprobes may lose counts after a thread exits (kernel
// 6.18, docs/probes.md), so there the profile must say so.
TEST(ProbesThreadChurn, BreakpointsStayExactUprobesAreFlagged) {
  for (std::string mechanism : {"breakpoint", "uprobe"}) {
    SCOPED_TRACE(mechanism);
    std::string dir = temp_dir();
    RunResult r = run_command(
        {ANDWEORC_BIN, "run", "-q", "--no-experiments", "--probe-mechanism",
         mechanism, "--progress", "units=unit_of_work", "-o", dir + "/p.json",
         "--", std::string(PROGRAMS_DIR) + "/unannotated", "60", "churn", "3"});
    profile::ReadResult read = profile::read_profile(dir + "/p.json");
    std::system(("rm -rf " + dir).c_str());
    if (r.status == 2) {  // the kernel refuses this mechanism (non-root)
      std::cout << "skipped " << mechanism << ": " << r.err;
      continue;
    }
    ASSERT_EQ(r.status, 0) << r.err;
    unsigned long long calls = 0, out_of_line = 0;
    ASSERT_EQ(std::sscanf(r.out.c_str(), "calls %llu out_of_line %llu", &calls,
                          &out_of_line),
              2)
        << r.out;
    ASSERT_TRUE(read.ok()) << read.error;
    bool flagged = false;
    for (const auto& w : read.profile->warnings)
      flagged = flagged || w.find("may be INCOMPLETE") != std::string::npos;
    if (mechanism == "breakpoint") {
      EXPECT_EQ(visits_of(*read.profile, "units"), calls);
      EXPECT_FALSE(flagged);
    } else {
      EXPECT_TRUE(flagged);
      EXPECT_LE(visits_of(*read.profile, "units"), calls);
    }
  }
}

TEST(ProbesRefused, UnknownFunctionStopsBeforeTheProgramStarts) {
  std::string dir = temp_dir();
  RunResult r = run_command({ANDWEORC_BIN, "run", "-q", "--progress",
                             "x=no_such_function", "-o", dir + "/p.json", "--",
                             std::string(PROGRAMS_DIR) + "/unannotated", "10"});
  std::system(("rm -rf " + dir).c_str());
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.out, "");  // the program never ran
  EXPECT_NE(r.err.find("no function named 'no_such_function'"),
            std::string::npos)
      << r.err;
}

TEST(ProbesRefused, LatencyNeedsUprobes) {
  std::string dir = temp_dir();
  RunResult r =
      run_command({ANDWEORC_BIN, "run", "-q", "--probe-mechanism", "breakpoint",
                   "--latency", "lat=unit_of_work", "-o", dir + "/p.json", "--",
                   std::string(PROGRAMS_DIR) + "/unannotated", "10"});
  std::system(("rm -rf " + dir).c_str());
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find("--latency needs uprobes"), std::string::npos) << r.err;
}

TEST(ProbesRefused, LatencyLineNeedsAPair) {
  std::string dir = temp_dir();
  RunResult r =
      run_command({ANDWEORC_BIN, "run", "-q", "--latency",
                   "lat=unannotated.cc:20", "-o", dir + "/p.json", "--",
                   std::string(PROGRAMS_DIR) + "/unannotated", "10"});
  std::system(("rm -rf " + dir).c_str());
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find("NAME=FILE:LINE,FILE:LINE"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace andweorc::testing
