// experiments_test.cc: causal experiments end to end. These assert robust
// facts (which line matters, which does not, signs), not exact numbers: the
// accuracy benchmark (bench/accuracy) measures the numbers.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <set>
#include <utility>

#include "experiments/analysis.h"
#include "profile/profile_json.h"
#include "run_helpers.h"

namespace andweorc::testing {
namespace {

std::string program() { return std::string(PROGRAMS_DIR) + "/causal_phases"; }
std::string source() { return std::string(PROGRAMS_SRC) + "/causal_phases.cc"; }

class Experiments : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = temp_dir(); }
  void TearDown() override { std::system(("rm -rf " + dir_).c_str()); }
  profile::Profile run(const std::vector<std::string>& options,
                       const std::vector<std::string>& args) {
    std::vector<std::string> cmd = {ANDWEORC_BIN,     "run",    "-q", "-o",
                                    dir_ + "/p.json", "--seed", "7"};
    cmd.insert(cmd.end(), options.begin(), options.end());
    cmd.push_back("--");
    cmd.push_back(program());
    cmd.insert(cmd.end(), args.begin(), args.end());
    RunResult r = run_command(cmd);
    EXPECT_EQ(r.status, 0) << r.err;
    profile::ReadResult p = profile::read_profile(dir_ + "/p.json");
    EXPECT_TRUE(p.ok()) << p.error;
    return p.ok() ? *p.profile : profile::Profile{};
  }
  const experiments::LineImpact* impact(const experiments::Analysis& a,
                                        const std::string& marker) {
    int line = line_of(source(), marker);
    for (const auto& i : a.impacts)
      if (i.line == line &&
          i.file.find("causal_phases.cc") != std::string::npos)
        return &i;
    return nullptr;
  }
  std::string dir_;
};

TEST_F(Experiments, RecordsExperimentsWithBaselinesAndDelays) {
  profile::Profile p = run({"--experiment-time", "50ms"}, {"serial", "3000"});
  ASSERT_GE(p.experiments.size(), 5u);
  EXPECT_TRUE(p.settings.enabled);
  bool saw_baseline = false, saw_speedup = false;
  for (const auto& e : p.experiments) {
    EXPECT_GE(e.speedup_pct, 0);
    EXPECT_LE(e.speedup_pct, 100);
    EXPECT_GT(e.duration_s, 0);
    EXPECT_LT(e.delay_s, e.duration_s);
    ASSERT_EQ(e.points.size(), 1u);
    EXPECT_EQ(e.points[0].name, "unit");
    if (e.speedup_pct == 0) {
      saw_baseline = true;
      EXPECT_EQ(e.delay_s, 0);  // a 0% experiment inserts no delay
    } else if (e.selected_samples > 0) {
      saw_speedup = true;
      EXPECT_GT(e.delay_s, 0);
    }
  }
  EXPECT_TRUE(saw_baseline);
  EXPECT_TRUE(saw_speedup);
}

TEST_F(Experiments, SerialPhaseImpactMatchesItsShare) {
  int a_line = line_of(source(), "PHASE_A_LINE");
  // One thread that never blocks, so all its run-queue wait is preemption
  // by other programs: contention scaling (docs/design.md) turns it back
  // into the wall time the line took. Without it a loaded machine shrinks
  // the slope by the thread's CPU share (0.22-0.43 at load 10 or beside
  // three busy loops, against 0.71 quiet) and this test failed about 1 run
  // in 5 under CI load; with it, 0.43-0.77 there. The accuracy benchmark
  // measures the numbers; this checks the sign, the significance and that
  // the estimate stays within what the share allows.
  setenv("ANDWEORC_CONTENTION", "1", 1);
  profile::Profile p =
      run({"--fixed-line", "causal_phases.cc:" + std::to_string(a_line),
           "--fixed-speedup", "50", "--experiment-time", "50ms"},
          {"serial", "4000"});
  unsetenv("ANDWEORC_CONTENTION");
  experiments::Analysis a = experiments::analyze(p);
  const auto* phase_a = impact(a, "PHASE_A_LINE");
  ASSERT_NE(phase_a, nullptr);
  ASSERT_TRUE(phase_a->fitted);
  // 75% of the work by construction.
  EXPECT_GT(phase_a->slope, 0.3);
  EXPECT_LT(phase_a->slope, 1.0);
  EXPECT_TRUE(phase_a->significant) << phase_a->verdict_text;
}

// Coarse to fine: a line's experiments name the functions that hold it
// (profile 1.7 `parents`), as the functions' own experiments name them, so
// that the report's stopping rule takes the line out of play with them.
TEST_F(Experiments, LineExperimentsOfAutoGranularityNameTheirFunctions) {
  profile::Profile p = run({"--granularity", "auto", "--experiment-time",
                            "50ms", "--max-time", "6s"},
                           {"serial", "1000000"});
  std::set<std::pair<std::string, std::string>> functions;
  for (const auto& e : p.experiments)
    if (e.granularity == "function") functions.insert({e.function, e.file});
  int lines = 0;
  for (const auto& e : p.experiments) {
    if (e.granularity != "line") continue;
    ++lines;
    ASSERT_FALSE(e.parents.empty()) << e.file << ":" << e.line;
    for (const auto& parent : e.parents)
      EXPECT_TRUE(functions.count({parent.function, parent.file}))
          << parent.function << " in " << parent.file;
  }
  // phase_a (75% of the work) is significant within seconds; its line
  // follows.
  EXPECT_GT(lines, 0) << p.experiments.size() << " experiments";
}

TEST_F(Experiments, LockBoundCriticalSectionOutranksParallelWork) {
  int crit = line_of(source(), "CRITICAL_LINE");
  int out = line_of(source(), "OUTSIDE_LINE");
  profile::Profile pc =
      run({"--fixed-line", "causal_phases.cc:" + std::to_string(crit),
           "--fixed-speedup", "40", "--experiment-time", "100ms"},
          {"lock", "8000"});
  profile::Profile po =
      run({"--fixed-line", "causal_phases.cc:" + std::to_string(out),
           "--fixed-speedup", "40", "--experiment-time", "100ms"},
          {"lock", "8000"});
  experiments::Analysis ac = experiments::analyze(pc);
  experiments::Analysis ao = experiments::analyze(po);
  const auto* c = impact(ac, "CRITICAL_LINE");
  const auto* o = impact(ao, "OUTSIDE_LINE");
  ASSERT_TRUE(c && o);
  ASSERT_TRUE(c->fitted && o->fitted);
  // Saturated lock: the critical section is the program's whole pace, and
  // the parallel phase is hidden behind it.
  EXPECT_GT(c->slope, o->slope + 0.3);
  EXPECT_GT(c->slope, 0.5);
  EXPECT_LT(o->slope, 0.25);
  EXPECT_TRUE(c->significant) << c->verdict_text;
}

// More busy threads than cores: the profile says that the threads waited
// for a CPU, and that virtual speed-ups then underestimate.
TEST_F(Experiments, CrowdedCoresAreReported) {
  if (access("/proc/self/schedstat", R_OK) != 0)
    GTEST_SKIP() << "no schedstat in /proc (CONFIG_SCHED_INFO)";
  profile::Profile p = run({"--experiment-time", "50ms"}, {"crowd", "6000"});
  ASSERT_FALSE(p.experiments.empty());
  bool said = false;
  for (const auto& w : p.warnings)
    said |= w.find("waited for a CPU") != std::string::npos;
  EXPECT_TRUE(said);
}

TEST_F(Experiments, NoExperimentsFlagOnlySamples) {
  profile::Profile p = run({"--no-experiments"}, {"serial", "500"});
  EXPECT_TRUE(p.experiments.empty());
  EXPECT_FALSE(p.settings.enabled);
  EXPECT_GT(p.samples, 50u);
}

TEST_F(Experiments, UnknownFixedLineIsReported) {
  profile::Profile p =
      run({"--fixed-line", "no_such_file.cc:12"}, {"serial", "300"});
  EXPECT_TRUE(p.experiments.empty());
  bool said = false;
  for (const auto& w : p.warnings)
    said |= w.find("no_such_file.cc:12") != std::string::npos;
  EXPECT_TRUE(said);
}

// Progress goes to standard error only when it is a terminal: `script` gives
// the run a pseudo-terminal; run_command() gives it pipes.
TEST_F(Experiments, ProgressIsShownOnATerminalOnly) {
  std::string run = std::string(ANDWEORC_BIN) + " run -o " + dir_ +
                    "/tty.json --seed 7 --experiment-time 50ms -- " +
                    program() + " serial 2000";
  RunResult tty = run_command(
      {"/usr/bin/env", "TERM=xterm", "script", "-qefc", run, "/dev/null"});
  EXPECT_EQ(tty.status, 0) << tty.err;
  EXPECT_NE(tty.out.find("\r\033[Kandweorc: "), std::string::npos) << tty.out;
  EXPECT_NE(tty.out.find(" experiments"), std::string::npos) << tty.out;

  RunResult piped = run_command({ANDWEORC_BIN, "run", "-o", dir_ + "/p.json",
                                 "--seed", "7", "--experiment-time", "50ms",
                                 "--", program(), "serial", "300"});
  EXPECT_EQ(piped.status, 0) << piped.err;
  EXPECT_EQ(piped.err.find("\033[K"), std::string::npos);
  EXPECT_EQ(piped.out.find("\033[K"), std::string::npos);
}

}  // namespace
}  // namespace andweorc::testing
