// detached_test.cc: `andweorc run --detached` and `andweorc status` /
// `andweorc stop` (docs/live.md "Detached runs"): the tool returns while
// the program runs and the profile appears at its end; `stop` ends it and
// the profile is written; a command that cannot run is reported by the
// tool the user ran; what is not a session is refused clearly.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <thread>

#include "profile/profile_json.h"
#include "run_helpers.h"

namespace andweorc::testing {
namespace {

using nlohmann::json;

bool alive(int pid) {
  std::string stat = read_file("/proc/" + std::to_string(pid) + "/stat");
  size_t paren = stat.rfind(')');
  return paren != std::string::npos && paren + 2 < stat.size() &&
         stat[paren + 2] != 'Z';
}

// `status ARG --json`, parsed (null when it failed).
json status_of(const std::string& arg) {
  RunResult r = run_command({ANDWEORC_BIN, "status", arg, "--json"});
  if (r.status != 0) return json();
  return json::parse(r.out, nullptr, false);
}

// Polls the session (bounded: 60 s) until it says finished.
json wait_finished(const std::string& dir) {
  for (int i = 0; i < 600; ++i) {
    json s = status_of(dir);
    if (s.is_object() && s["state"] == "finished") return s;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return json();
}

class DetachedRun : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = temp_dir(); }
  void TearDown() override {
    // A test that failed half-way must not leave a detached program
    // burning CPU for minutes.
    if (HasFailure() && program_ > 0 && alive(program_))
      kill(program_, SIGKILL);
    if (!session_.empty()) std::filesystem::remove_all(session_);
    std::filesystem::remove_all(dir_);
  }
  std::string dir_, session_;
  int program_ = 0;
};

TEST_F(DetachedRun, ReturnsWhileTheProgramRunsAndWritesTheProfileAtItsEnd) {
  const std::string prof = dir_ + "/p.json";
  // 0.8 s of CPU time: the program cannot have ended when the tool returns
  // unless the tool waited for it.
  RunResult r =
      run_command({ANDWEORC_BIN, "run", "--detached", "-o", prof, "--",
                   std::string(PROGRAMS_DIR) + "/hot_line", "800"});
  ASSERT_EQ(r.status, 0) << r.err;
  const int pid = std::atoi(r.out.c_str());
  ASSERT_GT(pid, 0) << r.out;
  program_ = pid;
  EXPECT_TRUE(alive(pid)) << "the tool waited for the program";
  EXPECT_FALSE(std::filesystem::exists(prof));
  EXPECT_NE(r.err.find("session: "), std::string::npos) << r.err;

  json running = status_of(std::to_string(pid));
  ASSERT_TRUE(running.is_object()) << "status PID failed";
  session_ = running["directory"].get<std::string>();
  EXPECT_EQ(running["pid"], pid);
  EXPECT_EQ(running["output"], std::filesystem::absolute(prof).string());

  json done = wait_finished(session_);
  ASSERT_TRUE(done.is_object()) << "never finished";
  EXPECT_EQ(done["exit_status"], 7);  // hot_line's own status
  EXPECT_EQ(done["profile_written"], true);
  auto p = profile::read_profile(prof);
  ASSERT_TRUE(p.ok());
  EXPECT_GT(p.profile->samples, 0u);
  EXPECT_EQ(done["experiments"], p.profile->experiments.size());
  // The program's output and the tool's report are in the log.
  std::string log = read_file(done["log"].get<std::string>());
  EXPECT_NE(log.find("hot_line done"), std::string::npos) << log;
  EXPECT_NE(log.find("Profile written to"), std::string::npos) << log;
  // Only the session and its log are left of the directory.
  size_t entries = 0;
  for (const auto& e : std::filesystem::directory_iterator(session_)) {
    (void)e;
    ++entries;
  }
  EXPECT_EQ(entries, 2u);
  // Text status of a finished session.
  RunResult text = run_command({ANDWEORC_BIN, "status", session_});
  EXPECT_EQ(text.status, 0);
  EXPECT_NE(text.out.find("finished (exit status 7"), std::string::npos)
      << text.out;
}

TEST_F(DetachedRun, StopEndsTheProgramAndTheProfileIsWritten) {
  const std::string prof = dir_ + "/p.json";
  // Ten minutes of CPU time: only `stop` ends it within the test.
  RunResult r =
      run_command({ANDWEORC_BIN, "run", "--detached", "-q", "-o", prof, "--",
                   std::string(PROGRAMS_DIR) + "/hot_line", "600000"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(r.err.empty()) << r.err;  // -q
  const int pid = std::atoi(r.out.c_str());
  ASSERT_GT(pid, 0) << r.out;
  program_ = pid;
  json running = status_of(std::to_string(pid));
  ASSERT_TRUE(running.is_object());
  session_ = running["directory"].get<std::string>();
  EXPECT_EQ(running["state"], "running");
  std::this_thread::sleep_for(std::chrono::milliseconds(800));

  RunResult stop = run_command({ANDWEORC_BIN, "stop", std::to_string(pid)});
  EXPECT_EQ(stop.status, 0) << stop.err;
  EXPECT_NE(stop.err.find("profile written to"), std::string::npos) << stop.err;
  EXPECT_FALSE(alive(pid));
  json done = status_of(session_);
  ASSERT_TRUE(done.is_object());
  EXPECT_EQ(done["state"], "finished");
  EXPECT_EQ(done["stopped_because"], "andweorc stop");
  auto p = profile::read_profile(prof);
  ASSERT_TRUE(p.ok());
  EXPECT_GT(p.profile->samples, 0u);
  // Stopping again: it has ended, the profile is there.
  RunResult again = run_command({ANDWEORC_BIN, "stop", session_});
  EXPECT_EQ(again.status, 0) << again.err;
  EXPECT_NE(again.err.find("had ended already"), std::string::npos)
      << again.err;
}

TEST_F(DetachedRun, ACommandThatCannotRunIsReportedByTheToolTheUserRan) {
  RunResult r =
      run_command({ANDWEORC_BIN, "run", "--detached", "-o", dir_ + "/p.json",
                   "--", dir_ + "/no-such-program"});
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("cannot run"), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/p.json"));
}

TEST_F(DetachedRun, WhatIsNotASessionIsRefused) {
  RunResult dir = run_command({ANDWEORC_BIN, "status", dir_});
  EXPECT_EQ(dir.status, 2);
  EXPECT_NE(dir.err.find("holds no session.json"), std::string::npos)
      << dir.err;
  // This test's own process: not profiled.
  RunResult self =
      run_command({ANDWEORC_BIN, "stop", std::to_string(getpid())});
  EXPECT_EQ(self.status, 2);
  EXPECT_NE(self.err.find("not profiled"), std::string::npos) << self.err;
  RunResult tty = run_command(
      {ANDWEORC_BIN, "run", "--detached", "--live-tty", "--", "/bin/true"});
  EXPECT_EQ(tty.status, 2);
  EXPECT_NE(tty.err.find("--detached"), std::string::npos) << tty.err;
}

}  // namespace
}  // namespace andweorc::testing
