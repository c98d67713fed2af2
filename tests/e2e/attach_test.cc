// attach_test.cc: `andweorc attach PID` on a program started without
// andweorc (programs/attach_target.cc): the profile has samples,
// experiments and the hot function; the program keeps its thread count,
// exits 0 and prints its correct result; a thread it starts while attached
// is profiled too; the program's calls go through the runtime's wrappers
// while attached and straight to libc again after; a second attach works;
// attaching
// is refused, before the process is touched, when it cannot work.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <thread>

#include "attach_process.h"
#include "profile/profile_json.h"
#include "run_helpers.h"

namespace andweorc::testing {
namespace {

// The function of the leaf frame with the most samples.
std::string hottest_function(const profile::Profile& p) {
  std::map<std::string, uint64_t> by_function;
  for (const auto& s : p.stacks)
    if (!s.frames.empty())
      by_function[p.frames[s.frames[0]].function] += s.samples;
  std::string best;
  uint64_t most = 0;
  for (const auto& [name, n] : by_function)
    if (n > most) {
      most = n;
      best = name;
    }
  return best;
}

class Attach : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = temp_dir(); }
  void TearDown() override { std::system(("rm -rf " + dir_).c_str()); }
  std::string dir_;
};

TEST_F(Attach, ProfilesTwiceAndLeavesTheProcessAsItWas) {
  AttachTarget t = start_attach_target(dir_);
  ASSERT_GT(t.pid, 0);
  ASSERT_TRUE(wait_for_threads(t.pid, 3));
  const int line = line_of(std::string(PROGRAMS_SRC) + "/attach_target.cc",
                           "ROUND_DONE_LINE");
  ASSERT_GT(line, 0);
  const std::string pid = std::to_string(t.pid);

  // A third worker starts while the tool runs (after the runtime is in,
  // most likely): the runtime finds it within its 0.5 s rescan.
  RunResult first = run_command(
      {ANDWEORC_BIN, "attach", pid, "-q", "--duration", "1500ms",
       "--experiment-time", "50ms", "--progress",
       "rounds=attach_target.cc:" + std::to_string(line), "-o",
       dir_ + "/first.json"},
      [&](int) {
        std::this_thread::sleep_for(std::chrono::milliseconds(400));
        EXPECT_EQ(write(t.stdin_fd, "s", 1), 1);
        // Where does `read` go now? Asked every 100 ms while
        // the attach lasts (it starts after the injection).
        for (int i = 0; i < 10; ++i) {
          std::this_thread::sleep_for(std::chrono::milliseconds(100));
          EXPECT_EQ(write(t.stdin_fd, "g", 1), 1);
        }
      });
  EXPECT_EQ(first.status, 0) << first.err;
  EXPECT_EQ(thread_count(t.pid), 4) << "threads left behind";
  auto p = profile::read_profile(dir_ + "/first.json");
  ASSERT_TRUE(p.ok()) << first.err;
  EXPECT_GT(p.profile->samples, 100u);
  // main, the two workers and the one started during the attach.
  EXPECT_EQ(p.profile->threads, 4u);
  EXPECT_FALSE(p.profile->experiments.empty());
  EXPECT_NE(hottest_function(*p.profile).find("hot_rounds"), std::string::npos)
      << hottest_function(*p.profile);
  uint64_t visits = 0, annotated = 0;
  for (const auto& point : p.profile->points) {
    if (point.name == "rounds") visits = point.visits;
    if (point.name == "annotated") annotated = point.visits;
  }
  EXPECT_GT(visits, 0u);
  // The program's own point, reached (and found dead) long before the
  // attach, counts again: revived by the attach.
  EXPECT_GT(annotated, 0u);
  // The program's calls went through the wrappers, as under `run`.
  bool rerouted = false;
  for (const auto& w : p.profile->warnings)
    rerouted = rerouted || w.find("wrappers were put in") != std::string::npos;
  EXPECT_TRUE(rerouted) << "no note of the wrappers being put in place";
  EXPECT_EQ(write(t.stdin_fd, "g", 1), 1);  // detached: libc's again

  RunResult second =
      run_command({ANDWEORC_BIN, "attach", pid, "-q", "--duration", "500ms",
                   "--no-experiments", "-o", dir_ + "/second.json"});
  EXPECT_EQ(second.status, 0) << second.err;
  EXPECT_EQ(thread_count(t.pid), 4) << "threads left behind";
  auto q = profile::read_profile(dir_ + "/second.json");
  ASSERT_TRUE(q.ok()) << second.err;
  EXPECT_GT(q.profile->samples, 0u);
  // The threads that kept their slots from the first attach count too.
  EXPECT_EQ(q.profile->threads, 4u);

  std::string out;
  EXPECT_EQ(finish_attach_target(t, &out), 0) << out;
  EXPECT_NE(out.find(" correct"), std::string::npos) << out;
  // Rerouted while attached, and back to libc after the detach (the last
  // answer, asked between the two attaches).
  const size_t last = out.rfind("read bound in ");
  ASSERT_NE(last, std::string::npos) << out;
  EXPECT_LT(out.find("libandweorc"), last) << out;
  EXPECT_EQ(out.find("libandweorc", last), std::string::npos) << out;
  EXPECT_NE(out.find("libc.so", last), std::string::npos) << out;
}

// The CPU-time timer (what --sampler auto picks in a VM) for threads that
// were running before the attach: their timers are made by the attaching
// thread, blocked in read here, and must count the sampled thread's CPU
// time, not their maker's (they did: a handful of samples, none at all in
// a second attach).
TEST_F(Attach, TheTimerSamplesThreadsThatWereAlreadyRunning) {
  AttachTarget t = start_attach_target(dir_);
  ASSERT_GT(t.pid, 0);
  ASSERT_TRUE(wait_for_threads(t.pid, 3));
  const std::string pid = std::to_string(t.pid);
  for (int round = 0; round < 2; ++round) {
    const std::string out = dir_ + "/timer" + std::to_string(round) + ".json";
    RunResult r =
        run_command({ANDWEORC_BIN, "attach", pid, "-q", "--duration", "1s",
                     "--sampler", "timer", "--no-experiments", "-o", out});
    EXPECT_EQ(r.status, 0) << r.err;
    auto p = profile::read_profile(out);
    ASSERT_TRUE(p.ok()) << r.err;
    // Two busy workers for 1 s: ~500 ticks of 4 ms, weighted or not.
    EXPECT_GT(p.profile->samples, 100u) << "attach " << round + 1;
  }
  std::string text;
  EXPECT_EQ(finish_attach_target(t, &text), 0) << text;
}

// A library the program loads while attached is rerouted by the
// collector's next pass (0.5 s), and put back at the detach although it is
// still loaded; one loaded and closed meanwhile leaves nothing behind.
TEST_F(Attach, LibrariesLoadedWhileAttachedAreReroutedAndRestored) {
  setenv("ATTACH_TARGET_LIB", GOT_TARGET_LAZY, 1);
  AttachTarget t = start_attach_target(dir_);
  unsetenv("ATTACH_TARGET_LIB");
  ASSERT_GT(t.pid, 0);
  ASSERT_TRUE(wait_for_threads(t.pid, 3));
  auto say = [&](const char* keys) {
    EXPECT_EQ(write(t.stdin_fd, keys, strlen(keys)), ssize_t(strlen(keys)));
  };
  RunResult r = run_command(
      {ANDWEORC_BIN, "attach", std::to_string(t.pid), "-q", "--duration",
       "2500ms", "--no-experiments", "-o", dir_ + "/lib.json"},
      [&](int) {
        // Well after the attach's start, a library comes and goes, then
        // another stays; two collector passes later, where does it go?
        std::this_thread::sleep_for(std::chrono::milliseconds(600));
        say("oc");
        say("o");
        std::this_thread::sleep_for(std::chrono::milliseconds(1200));
        say("w");
      });
  EXPECT_EQ(r.status, 0) << r.err;
  say("w");  // detached, the library still loaded
  say("c");
  std::string out;
  EXPECT_EQ(finish_attach_target(t, &out), 0) << out;
  const size_t during = out.find("lib lock bound in ");
  ASSERT_NE(during, std::string::npos) << out;
  const size_t after = out.find("lib lock bound in ", during + 1);
  ASSERT_NE(after, std::string::npos) << out;
  EXPECT_LT(out.find("libandweorc", during), after) << out;
  EXPECT_NE(out.find("libc.so", after), std::string::npos) << out;
  EXPECT_NE(out.find(" correct"), std::string::npos) << out;
}

TEST_F(Attach, RefusesAProcessThatDoesNotExist) {
  // A child that has been reaped: its pid names no process (until reused).
  pid_t gone = fork();
  if (gone == 0) _exit(0);
  waitpid(gone, nullptr, 0);
  RunResult r = run_command(
      {ANDWEORC_BIN, "attach", std::to_string(gone), "-o", dir_ + "/p.json"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("no process"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/p.json"));
}

TEST_F(Attach, RefusesATracedProcessAndLeavesIt) {
  AttachTarget t = start_attach_target(dir_);
  ASSERT_GT(t.pid, 0);
  ASSERT_TRUE(wait_for_threads(t.pid, 3));
  // We are its tracer now, as a debugger would be.
  ASSERT_EQ(ptrace(PTRACE_SEIZE, t.pid, nullptr, nullptr), 0);
  RunResult r = run_command(
      {ANDWEORC_BIN, "attach", std::to_string(t.pid), "-o", dir_ + "/p.json"});
  EXPECT_EQ(r.status, 3);
  EXPECT_NE(r.err.find("already traced"), std::string::npos) << r.err;
  ptrace(PTRACE_DETACH, t.pid, nullptr, nullptr);
  std::string out;
  EXPECT_EQ(finish_attach_target(t, &out), 0) << out;
  EXPECT_NE(out.find(" correct"), std::string::npos) << out;
}

TEST_F(Attach, RefusesAnotherUsersProcessWithoutPrivilege) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to run the tool as nobody";
  AttachTarget t = start_attach_target(dir_);
  ASSERT_GT(t.pid, 0);
  ASSERT_TRUE(wait_for_threads(t.pid, 3));
  int err[2];
  ASSERT_EQ(pipe(err), 0);
  pid_t tool = fork();
  if (tool == 0) {
    dup2(err[1], 2);
    if (setgid(65534) != 0 || setuid(65534) != 0) _exit(126);
    if (access(ANDWEORC_BIN, X_OK) != 0) _exit(77);  // not reachable
    const std::string pid = std::to_string(t.pid);
    execl(ANDWEORC_BIN, ANDWEORC_BIN, "attach", pid.c_str(), "-o", "/dev/null",
          nullptr);
    _exit(127);
  }
  close(err[1]);
  std::string message;
  char buf[512];
  for (ssize_t n; (n = read(err[0], buf, sizeof buf)) > 0;)
    message.append(buf, size_t(n));
  close(err[0]);
  int status = 0;
  waitpid(tool, &status, 0);
  std::string out;
  const int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  EXPECT_EQ(finish_attach_target(t, &out), 0) << out;
  if (code == 77)
    GTEST_SKIP() << ANDWEORC_BIN << " is not executable by nobody";
  EXPECT_EQ(code, 3) << message;
  EXPECT_NE(message.find("runs as uid 0"), std::string::npos) << message;
}

}  // namespace
}  // namespace andweorc::testing
