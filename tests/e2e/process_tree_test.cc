// process_tree_test.cc: a process tree profiled as one program (issue 15):
// fork children take part in the first process's experiments, the tool
// waits for a double-forked grandchild, and a worker SIGKILLed by its
// master keeps the samples it had written. Programs: programs/fork_tree.cc.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <cstdlib>
#include <functional>
#include <map>
#include <set>
#include <thread>

#include "profile/profile_json.h"
#include "run_helpers.h"

namespace andweorc::testing {
namespace {

std::string fork_tree_program() {
  return std::string(PROGRAMS_DIR) + "/fork_tree";
}
std::string fork_tree_source() {
  return std::string(PROGRAMS_SRC) + "/fork_tree.cc";
}

class ProcessTree : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = temp_dir(); }
  void TearDown() override { std::system(("rm -rf " + dir_).c_str()); }
  profile::Profile run(const std::vector<std::string>& options,
                       const std::vector<std::string>& args,
                       const std::function<void(int)>& on_started = nullptr,
                       int status = 0) {
    std::vector<std::string> cmd = {ANDWEORC_BIN,     "run",    "-q", "-o",
                                    dir_ + "/p.json", "--seed", "7"};
    cmd.insert(cmd.end(), options.begin(), options.end());
    cmd.push_back("--");
    cmd.push_back(fork_tree_program());
    cmd.insert(cmd.end(), args.begin(), args.end());
    RunResult r = run_command(cmd, on_started);
    EXPECT_EQ(r.status, status) << r.err;
    profile::ReadResult p = profile::read_profile(dir_ + "/p.json");
    EXPECT_TRUE(p.ok()) << p.error;
    return p.ok() ? *p.profile : profile::Profile{};
  }
  // Samples whose leaf frame is the marked line of fork_tree.cc.
  static uint64_t samples_at(const profile::Profile& p,
                             const std::string& marker) {
    int line = line_of(fork_tree_source(), marker);
    uint64_t n = 0;
    for (const auto& s : p.stacks) {
      if (s.frames.empty()) continue;
      const profile::Frame& f = p.frames[s.frames[0]];
      if (f.line == line && f.file.find("fork_tree.cc") != std::string::npos)
        n += s.samples;
    }
    return n;
  }
  // The process whose parent is not in the profile: the command itself.
  static int root_pid(const profile::Profile& p) {
    for (const auto& a : p.processes) {
      bool has_parent = false;
      for (const auto& b : p.processes) has_parent |= b.pid == a.parent;
      if (!has_parent) return a.pid;
    }
    return 0;
  }
  std::string worker_line() {
    return "fork_tree.cc:" +
           std::to_string(line_of(fork_tree_source(), "WORKER_LINE"));
  }
  std::string dir_;
};

// The parent only waits; the selected line runs in its workers alone, and
// the progress point is counted in the workers alone. The experiments see
// both (hits and visits), so the workers took part. Before issue 15 the
// coordinator saw neither: no experiment ever started.
TEST_F(ProcessTree, ForkChildrenTakePartInExperiments) {
  profile::Profile p = run({"--fixed-line", worker_line(), "--fixed-speedup",
                            "50", "--experiment-time", "40ms"},
                           {"prefork", "2", "500"});
  EXPECT_EQ(p.processes.size(), 3u);
  int with_hits = 0, with_visits = 0;
  for (const auto& e : p.experiments) {
    if (e.speedup_pct == 50 && e.selected_samples > 0) {
      ++with_hits;
      EXPECT_GT(e.delay_s, 0);  // the workers' hits inserted delays
    }
    for (const auto& d : e.points)
      if (d.name == "request" && d.visits > 0) ++with_visits;
  }
  EXPECT_GT(with_hits, 0);
  EXPECT_GT(with_visits, 0);
  EXPECT_GT(samples_at(p, "WORKER_LINE"), 0u);
  // The process list: two workers, children of the master, each sampled and
  // in experiments.
  int workers = 0, root = root_pid(p);
  for (const auto& proc : p.processes) {
    if (proc.parent != root) continue;
    ++workers;
    EXPECT_GT(proc.samples, 0u);
    EXPECT_GT(proc.experiments, 0);
  }
  EXPECT_EQ(workers, 2);
}

// --split-points (issue 15): a point counted by two workers is two points,
// one per process (NAME@PID), or one per executable (NAME@FILE), in the
// totals and in every experiment alike; each worker's count is its own.
TEST_F(ProcessTree, SplitPointsCountEachProcessOrExecutableApart) {
  for (std::string by : {"process", "executable"}) {
    profile::Profile p =
        run({"--split-points", by, "--fixed-line", worker_line(),
             "--fixed-speedup", "50", "--experiment-time", "40ms"},
            {"prefork", "2", "500"});
    std::map<std::string, uint64_t> totals;
    for (const auto& pt : p.points) totals[pt.name] = pt.visits;
    std::set<std::string> expected;
    for (const auto& proc : p.processes)
      if (proc.parent == root_pid(p))
        expected.insert("request@" + (by == "process"
                                          ? std::to_string(proc.pid)
                                          : std::string("fork_tree")));
    ASSERT_EQ(expected.size(), by == "process" ? 2u : 1u);
    EXPECT_EQ(totals.size(), expected.size()) << by;
    for (const auto& name : expected) EXPECT_GT(totals[name], 0u) << name;
    std::map<std::string, uint64_t> in_experiments;
    for (const auto& e : p.experiments)
      for (const auto& d : e.points) in_experiments[d.name] += d.visits;
    for (const auto& name : expected)
      EXPECT_GT(in_experiments[name], 0u) << name;
    for (const auto& [name, visits] : in_experiments)
      EXPECT_TRUE(expected.count(name)) << name << " (" << by << ")";
  }
}

// --no-follow-forks: experiments stay in the first process, which never
// runs the line nor counts the point.
TEST_F(ProcessTree, NoFollowForksKeepsExperimentsInTheFirstProcess) {
  profile::Profile p =
      run({"--no-follow-forks", "--fixed-line", worker_line(),
           "--fixed-speedup", "50", "--experiment-time", "40ms"},
          {"prefork", "2", "300"});
  for (const auto& e : p.experiments) EXPECT_EQ(e.selected_samples, 0u);
  EXPECT_GT(samples_at(p, "WORKER_LINE"), 0u);  // still sampled
  int root = root_pid(p), workers = 0;
  for (const auto& proc : p.processes) {
    if (proc.parent != root) continue;
    ++workers;
    EXPECT_EQ(proc.experiments, 0) << proc.pid;
  }
  EXPECT_EQ(workers, 2);
}

// fork + exec of a profiled binary (here the same one, at other addresses):
// the new image joins the tree instead of running experiments of its own.
// The selected line runs only in it, at addresses translated from the
// first process's table by build-id and offset, and the progress point is
// counted only in it. Before exec'd images joined, the child ran its own
// coordinator: experiments with its pid, the first process's saw nothing.
TEST_F(ProcessTree, AnExecdImageTakesPartInTheTreesExperiments) {
  profile::Profile p = run({"--fixed-line", worker_line(), "--fixed-speedup",
                            "50", "--experiment-time", "40ms"},
                           {"exec", "800"});
  int root = root_pid(p);
  int with_hits = 0, with_visits = 0;
  for (const auto& e : p.experiments) {
    EXPECT_EQ(e.pid, root) << "an experiment of the exec'd image's own";
    // Delays come from hits the engine counted: the exec'd image's
    // handler found the selected line at its own addresses.
    if (e.speedup_pct == 50 && e.selected_samples > 0 && e.delay_s > 0)
      ++with_hits;
    for (const auto& d : e.points)
      if (d.name == "request" && d.visits > 0) ++with_visits;
  }
  EXPECT_GT(with_hits, 0);
  EXPECT_GT(with_visits, 0);
  EXPECT_GT(samples_at(p, "WORKER_LINE"), 0u);
  // The child's pid has two images: the fork copy that exec'd, and the
  // exec'd one, which was sampled and took part in experiments.
  int execd = 0;
  for (const auto& proc : p.processes)
    if (proc.parent == root && proc.samples > 0 && proc.experiments > 0)
      ++execd;
  EXPECT_GE(execd, 1);
}

TEST_F(ProcessTree, WaitsForADoubleForkedGrandchild) {
  profile::Profile p = run({"--no-experiments"}, {"grandchild"});
  EXPECT_EQ(p.processes.size(), 3u);
  for (const auto& proc : p.processes) EXPECT_TRUE(proc.clean_exit);
  EXPECT_GT(samples_at(p, "GRANDCHILD_LINE"), 0u);
}

TEST_F(ProcessTree, AWorkerKilledByItsMasterKeepsItsSamples) {
  profile::Profile p = run({}, {"killed"});
  ASSERT_EQ(p.processes.size(), 2u);
  int killed = 0;
  for (const auto& proc : p.processes) killed += proc.clean_exit ? 0 : 1;
  EXPECT_EQ(killed, 1);
  EXPECT_GT(samples_at(p, "KILLED_LINE"), 0u);
  bool warned = false;
  for (const auto& w : p.warnings)
    warned =
        warned || w.find("did not shut down normally") != std::string::npos;
  EXPECT_TRUE(warned);
}

// A pipeline of two programs started by a shell (issue 15): the shell, the
// first process, has no code of its own, so its coordinator runs the
// experiments of the programs it starts, from a table of both executables
// (each read from its file, translated into each image by build-id). Either
// stage's line can be selected, the hits come from the process that runs
// it, and both stages take part in every experiment. Before, each program
// ran experiments of its own, and a line of one never delayed the other.
TEST_F(ProcessTree, APipelineOfTwoProgramsStartedByAShellIsOneProgram) {
  std::string programs = PROGRAMS_DIR;
  std::string source = std::string(PROGRAMS_SRC) + "/pipe_stage.cc";
  std::string pipeline =
      programs + "/pipe_produce 6000 | " + programs + "/pipe_consume";
  for (const char* marker : {"PRODUCE_LINE", "CONSUME_LINE"}) {
    std::string fixed =
        "pipe_stage.cc:" + std::to_string(line_of(source, marker));
    // A run of about a second: 50 ms experiments (the timer sampler's
    // floor is 200 ms, P5), so that it holds several.
    std::vector<std::string> cmd = {ANDWEORC_BIN,
                                    "run",
                                    "-q",
                                    "-o",
                                    dir_ + "/p.json",
                                    "--seed",
                                    "7",
                                    "--fixed-line",
                                    fixed,
                                    "--fixed-speedup",
                                    "50",
                                    "--experiment-time",
                                    "50ms",
                                    "--",
                                    "sh",
                                    "-c",
                                    pipeline};
    RunResult r = run_command(cmd);
    ASSERT_EQ(r.status, 0) << r.err;
    profile::ReadResult read = profile::read_profile(dir_ + "/p.json");
    ASSERT_TRUE(read.ok()) << read.error;
    const profile::Profile& p = *read.profile;
    uint64_t hits = 0, visits = 0;
    for (const auto& e : p.experiments) {
      EXPECT_EQ(e.line, line_of(source, marker)) << marker;
      hits += e.selected_samples;
      for (const auto& pt : e.points)
        if (pt.name == "record") visits += pt.visits;
    }
    EXPECT_GE(p.experiments.size(), 3u) << marker;
    EXPECT_GT(hits, 0u) << marker;
    EXPECT_GT(visits, 0u) << marker;
    int stages = 0;
    for (const auto& proc : p.processes)
      if (proc.executable.find("pipe_") != std::string::npos &&
          proc.samples > 0) {
        ++stages;
        EXPECT_GT(proc.experiments, 0) << proc.executable << " " << marker;
      }
    EXPECT_EQ(stages, 2) << marker;
  }
}

// A program started by the shell that forks its worker at once, before
// the coordinator has built the table of the programs' lines (a prefork
// server does that): the worker's lines are still selected, and it takes
// part in the experiments.
TEST_F(ProcessTree, AWorkerForkedBeforeTheTableArrivesIsSelectedToo) {
  std::string programs = PROGRAMS_DIR;
  std::string source = std::string(PROGRAMS_SRC) + "/pipe_stage.cc";
  std::string pipeline =
      programs + "/pipe_produce 6000 | " + programs + "/pipe_consume fork";
  const int line = line_of(source, "CONSUME_LINE");
  std::vector<std::string> cmd = {
      ANDWEORC_BIN, "run", "-q", "-o", dir_ + "/p.json", "--seed", "7",
      "--fixed-line", "pipe_stage.cc:" + std::to_string(line),
      "--fixed-speedup", "50",
      // A short run: see above.
      "--experiment-time", "50ms", "--", "sh", "-c", pipeline};
  RunResult r = run_command(cmd);
  ASSERT_EQ(r.status, 0) << r.err;
  profile::ReadResult read = profile::read_profile(dir_ + "/p.json");
  ASSERT_TRUE(read.ok()) << read.error;
  const profile::Profile& p = *read.profile;
  uint64_t hits = 0;
  for (const auto& e : p.experiments) hits += e.selected_samples;
  EXPECT_GE(p.experiments.size(), 3u);
  EXPECT_GT(hits, 0u) << "the forked worker's line was never selected";
  int consumers = 0;
  for (const auto& proc : p.processes)
    if (proc.executable.find("pipe_consume") != std::string::npos &&
        proc.samples > 100) {
      ++consumers;
      EXPECT_GT(proc.experiments, 0);
    }
  EXPECT_EQ(consumers, 1) << "one consumer (the child) does the work";
}

// --progress NAME=PROGRAM:FUNCTION with the path of a program the first
// process starts (here the shell starts both stages): the probe is
// resolved in that program's file and counted in its process, once per
// call (the shell, which has no such code, counts nothing).
TEST_F(ProcessTree, AProbeCountsInAProgramTheShellStarts) {
  std::string programs = PROGRAMS_DIR;
  std::string pipeline =
      programs + "/pipe_produce 300 | " + programs + "/pipe_consume";
  RunResult r = run_command(
      {ANDWEORC_BIN, "run", "-q", "-o", dir_ + "/p.json", "--no-experiments",
       "--progress", "consumed=" + programs + "/pipe_consume:consume_work",
       "--", "sh", "-c", pipeline});
  ASSERT_EQ(r.status, 0) << r.err;
  profile::ReadResult read = profile::read_profile(dir_ + "/p.json");
  ASSERT_TRUE(read.ok()) << read.error;
  uint64_t consumed = 0, records = 0;
  for (const auto& point : read.profile->points) {
    if (point.name == "consumed") consumed = point.visits;
    if (point.name == "record") records = point.visits;
  }
  EXPECT_EQ(records, 300u);
  EXPECT_EQ(consumed, 300u) << r.err;
}

// Images the loader will not preload the runtime into leave the profile,
// and the profile says which and why (issue 15): a statically linked
// program (exec'd by a child, and posix_spawn'ed by the parent) and
// /bin/true exec'd with an environment that lost LD_PRELOAD. Each note
// names the process that started the image.
TEST_F(ProcessTree, ImagesThatLeaveTheProfileAreNamedWithTheReason) {
  profile::Profile p = run({"--no-experiments"}, {"leave", STATIC_CHILD});
  auto count = [&](const std::string& verb, const std::string& path,
                   const std::string& reason) {
    int n = 0;
    for (const auto& w : p.warnings)
      if (w.find(verb + " " + path + ", which runs without the profiler") !=
              std::string::npos &&
          w.find(reason) != std::string::npos)
        ++n;
    return n;
  };
  EXPECT_EQ(count("execs", STATIC_CHILD, "statically linked"), 1);
  EXPECT_EQ(count("spawns", STATIC_CHILD, "statically linked"), 1);
  EXPECT_EQ(count("execs", "/bin/true", "no LD_PRELOAD"), 1);
  // Nothing else was said of an exec: the profiled processes (fork_tree
  // and its forked children) are not named.
  int notes = 0;
  for (const auto& w : p.warnings)
    notes += w.find("which runs without the profiler") != std::string::npos;
  EXPECT_EQ(notes, 3);
}

// --max-time (and --until-stable) stop the program as Ctrl-C would: the
// workers get SIGINT too. Before, only the parent did; the workers ran on,
// the tool waited for them until the descendant wait ran out (10 s by
// default: the prefork workload stopped 12.7 s after a start whose answer
// was stable at 3 s) and then left them running.
TEST_F(ProcessTree, StoppingTheProgramStopsItsWorkers) {
  setenv("ANDWEORC_DESCENDANT_WAIT_S", "30", 1);
  profile::Profile p =
      run({"--no-experiments", "--max-time", "1s"}, {"prefork", "2", "60000"});
  unsetenv("ANDWEORC_DESCENDANT_WAIT_S");
  ASSERT_EQ(p.processes.size(), 3u);
  for (const auto& proc : p.processes) {
    // Gone (reaped by the tool), not left running or waited for 30 s.
    EXPECT_NE(kill(proc.pid, 0), 0) << "process " << proc.pid << " still runs";
    if (kill(proc.pid, 0) == 0) kill(proc.pid, SIGKILL);
  }
  EXPECT_GT(samples_at(p, "WORKER_LINE"), 0u);
  EXPECT_LT(p.run.duration_s, 20.0);  // the 30 s wait was not needed
}

// A SIGTERM sent to the tool (`andweorc stop` sends SIGINT the same way)
// reaches the workers too, once their master has died of it.
TEST_F(ProcessTree, ASignalToTheToolReachesTheWorkers) {
  setenv("ANDWEORC_DESCENDANT_WAIT_S", "30", 1);
  profile::Profile p = run(
      {"--no-experiments"}, {"prefork", "2", "60000"},
      [](int pid) {
        std::this_thread::sleep_for(std::chrono::milliseconds(800));
        kill(pid, SIGTERM);
      },
      128 + SIGTERM);
  unsetenv("ANDWEORC_DESCENDANT_WAIT_S");
  ASSERT_EQ(p.processes.size(), 3u);
  for (const auto& proc : p.processes) {
    EXPECT_NE(kill(proc.pid, 0), 0) << "process " << proc.pid << " still runs";
    if (kill(proc.pid, 0) == 0) kill(proc.pid, SIGKILL);
  }
  EXPECT_LT(p.run.duration_s, 20.0);  // the 30 s wait was not needed
}

}  // namespace
}  // namespace andweorc::testing
