// e2e_test.cc: `andweorc run` and `andweorc report` on programs whose answers
// are known by construction, and on programs that end badly.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

#include "profile/attribution.h"
#include "profile/profile_json.h"
#include "run_helpers.h"
#include "symbols/line_cache.h"

namespace andweorc::testing {
namespace {

std::string program(const std::string& name) {
  return std::string(PROGRAMS_DIR) + "/" + name;
}
std::string source(const std::string& name) {
  return std::string(PROGRAMS_SRC) + "/" + name;
}

class E2E : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = temp_dir(); }
  void TearDown() override { std::system(("rm -rf " + dir_).c_str()); }

  // andweorc run -o <dir>/profile.json [extra...] -- argv...
  RunResult run(const std::vector<std::string>& extra,
                const std::vector<std::string>& argv,
                const std::function<void(int)>& during = nullptr) {
    std::vector<std::string> cmd = {ANDWEORC_BIN, "run", "-o", profile_path()};
    cmd.insert(cmd.end(), extra.begin(), extra.end());
    cmd.push_back("--");
    cmd.insert(cmd.end(), argv.begin(), argv.end());
    return run_command(cmd, during);
  }
  std::string profile_path() const { return dir_ + "/profile.json"; }
  profile::Profile load() {
    profile::ReadResult r = profile::read_profile(profile_path());
    EXPECT_TRUE(r.ok()) << r.error;
    return r.ok() ? *r.profile : profile::Profile{};
  }
  // Asserts the top in-scope line is `marker` in `file`.
  void expect_top_line(const profile::Profile& p, const std::string& file,
                       const std::string& marker) {
    profile::Attribution a = profile::attribute(p);
    ASSERT_FALSE(a.lines.empty()) << "no in-scope lines";
    int want = line_of(source(file), marker);
    ASSERT_GT(want, 0);
    EXPECT_NE(a.lines[0].file.find(file), std::string::npos) << a.lines[0].file;
    EXPECT_EQ(a.lines[0].line, want);
  }
  std::string dir_;
};

bool has_warning(const profile::Profile& p, const std::string& needle) {
  return std::any_of(p.warnings.begin(), p.warnings.end(), [&](auto& w) {
    return w.find(needle) != std::string::npos;
  });
}

const profile::ProgressPoint* point(const profile::Profile& p,
                                    const std::string& name) {
  for (const auto& pt : p.points)
    if (pt.name == name) return &pt;
  return nullptr;
}

TEST_F(E2E, HotLineDwarf5PieIsFirstAndStatusPassesThrough) {
  RunResult r = run({}, {program("hot_line"), "600"});
  EXPECT_EQ(r.status, 7);
  EXPECT_EQ(r.out, "hot_line done\n");  // the program's stdout is untouched
  profile::Profile p = load();
  EXPECT_GT(p.samples, 200u);
  expect_top_line(p, "hot_line.cc", "HOT_LINE");
  EXPECT_GT(profile::attribute(p).mapped_share(), 0.9);
  std::string where = "hot_line.cc:" + std::to_string(line_of(
                                           source("hot_line.cc"), "HOT_LINE"));
  EXPECT_NE(r.err.find(where), std::string::npos) << r.err;
  EXPECT_EQ(p.run.exit_status, 7);
}

TEST_F(E2E, HotLineDwarf4) {
  RunResult r = run({}, {program("hot_line_dwarf4"), "400"});
  EXPECT_EQ(r.status, 7);
  expect_top_line(load(), "hot_line.cc", "HOT_LINE");
}

TEST_F(E2E, HotLineNonPie) {
  RunResult r = run({}, {program("hot_line_nopie"), "400"});
  EXPECT_EQ(r.status, 7);
  expect_top_line(load(), "hot_line.cc", "HOT_LINE");
}

TEST_F(E2E, TimerFallbackSamplesAndSaysSo) {
  RunResult r = run({"--sampler", "timer"}, {program("hot_line"), "600"});
  EXPECT_EQ(r.status, 7);
  profile::Profile p = load();
  EXPECT_EQ(p.run.sampler, "timer");
  EXPECT_TRUE(has_warning(p, "timer"));
  EXPECT_GT(p.samples, 200u);  // weights carry the overruns
  expect_top_line(p, "hot_line.cc", "HOT_LINE");
}

// --sampler auto (the default) measures what a perf sample costs before the
// program starts: the timer it chose is said with the measured cost, and
// perf is kept without a word; --sampler perf is never overridden.
TEST_F(E2E, AutoSamplerSaysWhyItChoseTheTimer) {
  RunResult r = run({}, {program("hot_line"), "600"});
  EXPECT_EQ(r.status, 7);
  profile::Profile p = load();
  bool chose_timer = has_warning(p, "CPU-time timer, chosen at start");
  EXPECT_EQ(p.run.sampler, chose_timer ? "timer" : "perf");
  EXPECT_FALSE(has_warning(p, "timer fallback requested"));
  expect_top_line(p, "hot_line.cc", "HOT_LINE");
  r = run({"--sampler", "perf"}, {program("hot_line"), "600"});
  EXPECT_EQ(r.status, 7);
  p = load();
  EXPECT_EQ(p.run.sampler, "perf");
  EXPECT_FALSE(has_warning(p, "chosen at start"));
}

TEST_F(E2E, ThreadsFromPthreadAndStdThreadAreSampled) {
  RunResult r = run({}, {program("threads")});
  EXPECT_EQ(r.status, 0);
  profile::Profile p = load();
  EXPECT_GE(p.threads, 3u);
  EXPECT_GT(p.samples, 300u);
  expect_top_line(p, "threads.cc", "THREAD_HOT_LINE");
}

TEST_F(E2E, CozAndOwnProgressPointsAreCountedExactly) {
  RunResult r = run({}, {program("coz_points")});
  EXPECT_EQ(r.status, 0);
  profile::Profile p = load();
  const auto* coz_item = point(p, "coz_item");
  const auto* coz_txn = point(p, "coz_txn");
  const auto* own_item = point(p, "own_item");
  const auto* own_txn = point(p, "own_txn");
  ASSERT_TRUE(coz_item && coz_txn && own_item && own_txn);
  EXPECT_EQ(coz_item->visits, 2000u);
  EXPECT_EQ(coz_txn->begins, 2000u);
  EXPECT_EQ(coz_txn->ends, 2000u);
  EXPECT_EQ(own_item->visits, 2000u);
  EXPECT_EQ(own_txn->begins, 2000u);
  EXPECT_EQ(own_txn->ends, 2000u);
}

TEST_F(E2E, HeaderWorksFromC) {
  RunResult r = run({}, {program("c_points")});
  EXPECT_EQ(r.status, 0);
  profile::Profile p = load();
  const auto* item = point(p, "c_item");
  const auto* txn = point(p, "c_txn");
  ASSERT_TRUE(item && txn);
  EXPECT_EQ(item->visits, 777u);
  EXPECT_EQ(txn->begins, 777u);
  EXPECT_EQ(txn->ends, 777u);
}

TEST_F(E2E, PointsAreInertWithoutTheRuntime) {
  RunResult r = run_command({program("coz_points")});
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.out, "points done\n");
}

TEST_F(E2E, StrippedBinaryWarnsLoudlyWithTheFix) {
  RunResult r = run({}, {program("hot_line_nodebug"), "300"});
  EXPECT_EQ(r.status, 7);
  profile::Profile p = load();
  EXPECT_TRUE(has_warning(p, "no debug info")) << r.err;
  EXPECT_TRUE(has_warning(p, "-g"));
  EXPECT_NE(r.err.find("-g"), std::string::npos);
}

TEST_F(E2E, SegfaultKeepsStatusAndData) {
  RunResult r = run({}, {program("misbehave"), "segv"});
  EXPECT_EQ(r.status, 128 + SIGSEGV);
  profile::Profile p = load();
  EXPECT_GT(p.samples, 100u);
  EXPECT_EQ(p.run.exit_signal, SIGSEGV);
  expect_top_line(p, "misbehave.cc", "BURN_LINE");
}

// --max-time stops the program with SIGINT, then SIGTERM when it ignores
// that (a background job of a shell does): either way the tool stopped it,
// so the run succeeds (exit 0) and the profile says which signal ended it.
TEST_F(E2E, MaxTimeStopsAProgramThatIgnoresSigintAndSucceeds) {
  RunResult r =
      run({"--no-experiments", "--max-time", "300ms"},
          {"sh", "-c",
           "trap '' INT; exec " + program("misbehave") + " until-signal"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("stopped the program: --max-time"), std::string::npos)
      << r.err;
  profile::Profile p = load();
  EXPECT_EQ(p.run.exit_signal, SIGTERM);
  EXPECT_GT(p.samples, 100u);
}

TEST_F(E2E, AbortKeepsStatusAndData) {
  RunResult r = run({}, {program("misbehave"), "abort"});
  EXPECT_EQ(r.status, 128 + SIGABRT);
  EXPECT_GT(load().samples, 100u);
}

TEST_F(E2E, ExitFromAThread) {
  RunResult r = run({}, {program("misbehave"), "thread-exit"});
  EXPECT_EQ(r.status, 3);
  profile::Profile p = load();
  EXPECT_GT(p.samples, 100u);
  ASSERT_EQ(p.processes.size(), 1u);
  EXPECT_TRUE(p.processes[0].clean_exit);
}

// The profiler's threads carry names (top -H, perf, a program that lists
// its threads tell them apart); the collector's and the coordinator's.
TEST_F(E2E, TheProfilersThreadsAreNamed) {
  RunResult r = run({}, {program("misbehave"), "thread-names"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "andweorc-coord\nandweorc-drain\n");
}

// `run` reads the program's DWARF into the line cache before it starts it
// (symbols/line_cache.h), and the coordinator inside the program takes the
// program's lines from there instead of its DWARF: a line only the cache
// knows (the numbers moved by 1000 here) is one the experiments select.
TEST_F(E2E, TheProgramsLinesComeFromTheLineCache) {
  std::string cache = dir_ + "/cache";
  struct Env {
    explicit Env(const std::string& v) {
      setenv("ANDWEORC_CACHE_DIR", v.c_str(), 1);
    }
    ~Env() { unsetenv("ANDWEORC_CACHE_DIR"); }
  } env(cache);
  int hot = line_of(source("causal_phases.cc"), "PHASE_A_LINE");
  ASSERT_GT(hot, 0);
  RunResult first =
      run({"--fixed-line", "causal_phases.cc:" + std::to_string(hot),
           "--experiment-time", "50ms"},
          {program("causal_phases"), "serial", "400"});
  ASSERT_EQ(first.status, 0) << first.err;
  ASSERT_FALSE(load().experiments.empty());
  std::vector<std::string> entries;
  for (const auto& e : std::filesystem::directory_iterator(cache + "/lines"))
    entries.push_back(e.path().string());
  ASSERT_EQ(entries.size(), 1u);  // the program's, and no temporary file

  symbols::ModuleLines lines;
  std::string error;
  ASSERT_TRUE(symbols::read_line_cache(entries[0], &lines, &error)) << error;
  for (auto& l : lines.lines) l.line += 1000;
  ASSERT_TRUE(symbols::write_line_cache(entries[0], lines, &error)) << error;
  RunResult second =
      run({"--fixed-line", "causal_phases.cc:" + std::to_string(hot + 1000),
           "--experiment-time", "50ms"},
          {program("causal_phases"), "serial", "400"});
  ASSERT_EQ(second.status, 0) << second.err;
  profile::Profile p = load();
  ASSERT_FALSE(p.experiments.empty());
  EXPECT_EQ(p.experiments[0].line, hot + 1000);
}

TEST_F(E2E, ForkedChildIsProfiledToo) {
  RunResult r = run({}, {program("misbehave"), "fork"});
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.out, "child exited 0\n");
  profile::Profile p = load();
  ASSERT_EQ(p.processes.size(), 2u);
  EXPECT_NE(p.processes[0].pid, p.processes[1].pid);
  EXPECT_GT(p.samples, 300u);  // 300 ms of CPU in each process
  // Each process measured its own CPU and its profiler threads' (a fork
  // child restarts them): some, and far less than the 300 ms of work.
  for (const profile::Process& pr : p.processes) {
    EXPECT_GT(pr.cpu_s, 0.25) << pr.pid;
    EXPECT_GT(pr.profiler_cpu_s, 0) << pr.pid;
    EXPECT_LT(pr.profiler_cpu_s, 0.5 * pr.cpu_s) << pr.pid;
  }
}

TEST_F(E2E, ExecedProgramIsProfiledToo) {
  RunResult r =
      run({}, {program("misbehave"), "exec", program("hot_line"), "300"});
  EXPECT_EQ(r.status, 7);
  profile::Profile p = load();
  ASSERT_EQ(p.processes.size(), 2u);
  EXPECT_EQ(p.processes[0].pid, p.processes[1].pid);
  profile::Attribution a = profile::attribute(p);
  int hot = line_of(source("hot_line.cc"), "HOT_LINE");
  int burn = line_of(source("misbehave.cc"), "BURN_LINE");
  bool saw_hot = false, saw_burn = false;
  for (const auto& l : a.lines) {
    saw_hot |= l.line == hot && l.file.find("hot_line.cc") != std::string::npos;
    saw_burn |=
        l.line == burn && l.file.find("misbehave.cc") != std::string::npos;
  }
  EXPECT_TRUE(saw_hot);
  EXPECT_TRUE(saw_burn);
}

void stop_after(int pid, int sig, int ms) {
  std::this_thread::sleep_for(std::chrono::milliseconds(ms));
  kill(pid, sig);
}

TEST_F(E2E, SigtermIsForwardedAndProfileWritten) {
  RunResult r = run({}, {program("misbehave"), "until-signal"},
                    [](int pid) { stop_after(pid, SIGTERM, 800); });
  EXPECT_EQ(r.status, 128 + SIGTERM);
  profile::Profile p = load();
  EXPECT_GT(p.samples, 100u);
  EXPECT_EQ(p.run.exit_signal, SIGTERM);
}

TEST_F(E2E, SigintIsForwardedAndProfileWritten) {
  RunResult r = run({}, {program("misbehave"), "until-signal"},
                    [](int pid) { stop_after(pid, SIGINT, 800); });
  EXPECT_EQ(r.status, 128 + SIGINT);
  EXPECT_GT(load().samples, 100u);
}

TEST_F(E2E, ProgramCannotBlockOrStealTheProfilerSignal) {
  RunResult r = run({}, {program("misbehave"), "hostile-signals"});
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.out, "sigprof seen as ignored\n");  // it sees what it set
  EXPECT_GT(load().samples, 150u);
}

TEST_F(E2E, MissingCommandIsAOneLineError) {
  RunResult r = run({}, {"/nonexistent/program"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("cannot run '/nonexistent/program'"), std::string::npos);
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

TEST_F(E2E, NoCommandIsAUsageError) {
  RunResult r = run_command({ANDWEORC_BIN, "run"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("no command"), std::string::npos);
}

TEST_F(E2E, UnknownOptionIsAUsageError) {
  RunResult r = run_command({ANDWEORC_BIN, "run", "--no-such-option"});
  EXPECT_EQ(r.status, 2);
}

TEST_F(E2E, HelpAndVersion) {
  RunResult help = run_command({ANDWEORC_BIN, "--help"});
  EXPECT_EQ(help.status, 0);
  EXPECT_NE(help.out.find("run"), std::string::npos);
  EXPECT_NE(help.out.find("report"), std::string::npos);
  // `run --help` names the environment the tool reads.
  RunResult run_help = run_command({ANDWEORC_BIN, "run", "--help"});
  EXPECT_EQ(run_help.status, 0);
  EXPECT_NE(run_help.out.find("ANDWEORC_CACHE_DIR"), std::string::npos);
  RunResult version = run_command({ANDWEORC_BIN, "--version"});
  EXPECT_EQ(version.status, 0);
  EXPECT_EQ(version.out.rfind("andweorc ", 0), 0u);
}

TEST_F(E2E, ReportReprintsASavedProfile) {
  ASSERT_EQ(run({"-q"}, {program("hot_line"), "300"}).status, 7);
  RunResult text = run_command({ANDWEORC_BIN, "report", profile_path()});
  EXPECT_EQ(text.status, 0);
  EXPECT_NE(text.out.find("hot_line.cc:"), std::string::npos);
  RunResult json =
      run_command({ANDWEORC_BIN, "report", profile_path(), "--format", "json"});
  EXPECT_EQ(json.status, 0);
  EXPECT_TRUE(profile::parse_profile(json.out).ok());
  std::string html_path = dir_ + "/report.html";
  RunResult html = run_command({ANDWEORC_BIN, "report", profile_path(),
                                "--format", "html", "-o", html_path});
  EXPECT_EQ(html.status, 0) << html.err;
  std::ifstream in(html_path);
  std::string page((std::istreambuf_iterator<char>(in)), {});
  EXPECT_EQ(page.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(page.find("hot_line.cc"), std::string::npos);
  // A page on a terminal helps no one: html asks for -o.
  RunResult no_output =
      run_command({ANDWEORC_BIN, "report", profile_path(), "--format", "html"});
  EXPECT_EQ(no_output.status, 2);
  EXPECT_NE(no_output.err.find("needs -o FILE"), std::string::npos);
}

TEST_F(E2E, CorruptOrMissingProfileIsAOneLineError) {
  ASSERT_EQ(run({"-q"}, {program("hot_line"), "200"}).status, 7);
  std::ifstream in(profile_path());
  std::string full((std::istreambuf_iterator<char>(in)), {});
  std::string cut = dir_ + "/cut.json";
  std::ofstream(cut) << full.substr(0, full.size() / 2);
  for (const std::string& path : {cut, dir_ + "/missing.json"}) {
    RunResult r = run_command({ANDWEORC_BIN, "report", path});
    EXPECT_EQ(r.status, 2) << path;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_EQ(r.err.find("terminate"), std::string::npos);
  }
}

}  // namespace
}  // namespace andweorc::testing
