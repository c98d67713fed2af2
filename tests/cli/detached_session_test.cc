// detached_session_test.cc: the session file of `run --detached`
// (cli/detached_session.h): written and read back whole, refused when
// foreign or missing; find_session's answers for a directory, a pid that is
// not profiled and text that is neither; what --detached refuses.
#include "cli/detached_session.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "cli/run_options.h"

namespace andweorc::cli {
namespace {

class SessionFile : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string t = "/tmp/andweorc-session-XXXXXX";
    ASSERT_NE(mkdtemp(t.data()), nullptr);
    dir_ = t;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string dir_;
};

TEST_F(SessionFile, IsReadBackAsWritten) {
  Session s;
  s.state = "finished";
  s.tool_pid = 11;
  s.pid = 12;
  s.command = {"./server", "--port", "8080"};
  s.output = "/x/p.json";
  s.log = dir_ + "/output.log";
  s.live = "http://127.0.0.1:1/?token=t";
  s.started_s = 100.5;
  s.ended_s = 200.25;
  s.exit_status = 130;
  s.stopped_because = "andweorc stop";
  s.profile_written = true;
  s.experiments = 42;
  std::string error;
  ASSERT_TRUE(write_session(dir_, s, &error)) << error;
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/session.json.tmp"));
  std::optional<Session> r = read_session(dir_, &error);
  ASSERT_TRUE(r) << error;
  EXPECT_EQ(r->state, "finished");
  EXPECT_EQ(r->tool_pid, 11);
  EXPECT_EQ(r->pid, 12);
  EXPECT_EQ(r->command, s.command);
  EXPECT_EQ(r->output, s.output);
  EXPECT_EQ(r->live, s.live);
  EXPECT_DOUBLE_EQ(r->started_s, 100.5);
  EXPECT_DOUBLE_EQ(r->ended_s, 200.25);
  EXPECT_EQ(r->exit_status, 130);
  EXPECT_EQ(r->stopped_because, "andweorc stop");
  EXPECT_TRUE(r->profile_written);
  EXPECT_EQ(r->experiments, 42u);
  // While running: no exit status, no page.
  Session running;
  running.state = "running";
  ASSERT_TRUE(write_session(dir_, running, &error)) << error;
  r = read_session(dir_, &error);
  ASSERT_TRUE(r) << error;
  EXPECT_EQ(r->exit_status, -1);
  EXPECT_EQ(r->live, "");
}

TEST_F(SessionFile, AMissingOrForeignFileIsRefused) {
  std::string error;
  EXPECT_FALSE(read_session(dir_, &error));
  EXPECT_NE(error.find("no session"), std::string::npos) << error;
  std::ofstream(dir_ + "/session.json") << "{\"schema\": 2}";
  EXPECT_FALSE(read_session(dir_, &error));
  EXPECT_NE(error.find("not a session file of this version"), std::string::npos)
      << error;
  std::ofstream(dir_ + "/session.json") << "{\"schema\": 1, \"pid\": \"x\"}";
  EXPECT_FALSE(read_session(dir_, &error));
}

TEST_F(SessionFile, FindSessionNamesWhatItCannotUse) {
  std::string error;
  EXPECT_EQ(find_session(dir_, &error), "");
  EXPECT_NE(error.find("holds no session.json"), std::string::npos) << error;
  std::ofstream(dir_ + "/session.json") << "{}";
  EXPECT_EQ(find_session(dir_, &error), dir_);
  EXPECT_EQ(find_session(std::to_string(getpid()), &error), "");
  EXPECT_NE(error.find("not profiled"), std::string::npos) << error;
  EXPECT_EQ(find_session("not-a-pid", &error), "");
  EXPECT_NE(error.find("neither a session directory nor a process id"),
            std::string::npos)
      << error;
}

TEST_F(SessionFile, RemovingRawFilesKeepsTheSessionAndTheLog) {
  for (const char* name :
       {"session.json", "output.log", "1234.raw", "control", "stop"})
    std::ofstream(dir_ + "/" + name) << "x";
  std::filesystem::create_directories(dir_ + "/sub");
  remove_raw_files(dir_);
  size_t left = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir_)) {
    const std::string name = e.path().filename().string();
    EXPECT_TRUE(name == "session.json" || name == "output.log") << name;
    ++left;
  }
  EXPECT_EQ(left, 2u);
}

// `stop PID` died (abort, exit 134) when the program exited while its
// /proc files were read: an ifstream read through an istreambuf_iterator
// throws on a read error (ESRCH then). A read error, here a directory's
// EISDIR, must give what was read, never an exception.
TEST(ReadWholeFile, AReadErrorIsNotAnException) {
  std::string text = "unset";
  EXPECT_NO_THROW(text = read_whole_file("/"));
  EXPECT_EQ(text, "");
  EXPECT_EQ(read_whole_file("/no/such/file"), "");
  EXPECT_NE(read_whole_file("/proc/self/cmdline"), "");
}

TEST(DetachedOptions, WhatNeedsTheTerminalIsRefused) {
  RunOptions o;
  o.detached = true;
  std::string error;
  EXPECT_TRUE(check_run_options(o, &error)) << error;
  o.live_tty = true;
  EXPECT_FALSE(check_run_options(o, &error));
  EXPECT_NE(error.find("--live-tty"), std::string::npos) << error;
  o.live_tty = false;
  o.live_json = "-";
  EXPECT_FALSE(check_run_options(o, &error));
  EXPECT_NE(error.find("--live-json -"), std::string::npos) << error;
  o.live_json = "live.jsonl";
  EXPECT_TRUE(check_run_options(o, &error)) << error;
}

}  // namespace
}  // namespace andweorc::cli
