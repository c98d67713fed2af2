// attach_live_test.cc: `andweorc attach PID` with the live outputs
// (docs/live.md): --live-json follows the attached process and ends with
// the written profile's answer; the page's control file reaches the
// attached coordinator (a pause is acknowledged by the process and no
// experiment is recorded after it); a process that exits while attached
// ends the stream with a final line and a profile, and says so.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "attach_process.h"
#include "profile/profile_json.h"
#include "run_helpers.h"
#include "runtime/control_block.h"

namespace andweorc::testing {
namespace {

using nlohmann::json;

std::vector<json> json_lines(const std::string& path) {
  std::ifstream in(path);
  std::vector<json> out;
  std::string line;
  while (std::getline(in, line)) out.push_back(json::parse(line));
  return out;
}

// The round counter of attach_target.cc, as --progress wants it.
std::string rounds_probe() {
  int line = line_of(std::string(PROGRAMS_SRC) + "/attach_target.cc",
                     "ROUND_DONE_LINE");
  return "rounds=attach_target.cc:" + std::to_string(line);
}

class AttachLive : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = temp_dir(); }
  void TearDown() override { std::system(("rm -rf " + dir_).c_str()); }
  std::string dir_;
};

TEST_F(AttachLive, JsonLinesFollowTheAttachAndEndWithTheProfilesAnswer) {
  AttachTarget t = start_attach_target(dir_);
  ASSERT_GT(t.pid, 0);
  ASSERT_TRUE(wait_for_threads(t.pid, 3));
  const std::string stream = dir_ + "/live.jsonl", prof = dir_ + "/p.json";
  RunResult r = run_command({ANDWEORC_BIN, "attach", std::to_string(t.pid),
                             "-q", "--duration", "1500ms", "--experiment-time",
                             "50ms", "--progress", rounds_probe(),
                             "--live-json", stream, "-o", prof});
  ASSERT_EQ(r.status, 0) << r.err;
  std::vector<json> lines;
  ASSERT_NO_THROW(lines = json_lines(stream));
  // One a second while attached, then the final one.
  ASSERT_GE(lines.size(), 2u) << r.err;
  bool counted_while_attached = false;
  for (size_t i = 0; i < lines.size(); ++i) {
    EXPECT_EQ(lines[i]["schema"], 1);
    EXPECT_EQ(lines[i]["kind"], i + 1 == lines.size() ? "final" : "update");
    if (lines[i]["kind"] == "update")
      counted_while_attached =
          counted_while_attached || lines[i]["samples"]["total_samples"] > 0;
  }
  EXPECT_TRUE(counted_while_attached);
  const json& final = lines.back();
  std::ifstream in(prof);
  json written = json::parse(in);
  EXPECT_GT(written["experiments"].size(), 0u);
  EXPECT_EQ(final["experiments"], written["experiments"].size());
  auto report = run_command({ANDWEORC_BIN, "report", "-f", "json", prof});
  ASSERT_EQ(report.status, 0) << report.err;
  EXPECT_EQ(final["ranking"], json::parse(report.out)["analysis"]);

  std::string out;
  EXPECT_EQ(finish_attach_target(t, &out), 0) << out;
  EXPECT_NE(out.find(" correct"), std::string::npos) << out;
}

// The control file `attach --live` makes (in --keep-raw's directory) is
// written here as the page's server would: the attached process's
// coordinator must read it (ANDWEORC_CONTROL comes through the attach
// settings file, not the environment) and acknowledge.
TEST_F(AttachLive, ThePagesControlsReachTheAttachedProcess) {
  AttachTarget t = start_attach_target(dir_);
  ASSERT_GT(t.pid, 0);
  ASSERT_TRUE(wait_for_threads(t.pid, 3));
  const std::string raw = dir_ + "/raw", prof = dir_ + "/p.json";
  runtime::ControlAck ack{};
  bool acknowledged = false;
  uint64_t seq = 0;
  RunResult r = run_command(
      {ANDWEORC_BIN, "attach", std::to_string(t.pid), "-q", "--duration",
       "1800ms", "--experiment-time", "50ms", "--progress", rounds_probe(),
       "--live=127.0.0.1:0", "--keep-raw", raw, "-o", prof},
      [&](int) {
        // Bounded waits: the file, then experiments, then the ack.
        int fd = -1;
        for (int i = 0; i < 200 && fd < 0; ++i) {
          fd = open((raw + "/control").c_str(), O_RDWR);
          if (fd < 0)
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        }
        if (fd < 0) return;
        void* p = mmap(nullptr, runtime::kControlFileSize,
                       PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        close(fd);
        if (p == MAP_FAILED) return;
        auto* block = static_cast<runtime::ControlBlock*>(p);
        std::this_thread::sleep_for(std::chrono::milliseconds(700));
        runtime::ControlCommand c{};
        c.paused = 1;
        seq = runtime::control_send(block, c);
        for (int i = 0; i < 300 && !acknowledged; ++i) {
          runtime::ControlAck a{};
          if (runtime::control_read_ack(block, &a) && a.seq == seq) {
            ack = a;
            acknowledged = true;
          } else {
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
          }
        }
        munmap(p, runtime::kControlFileSize);
      });
  ASSERT_EQ(r.status, 0) << r.err;
  ASSERT_TRUE(acknowledged) << "the attached coordinator never acknowledged";
  EXPECT_EQ(ack.status, 0) << ack.error;
  EXPECT_EQ(ack.paused, 1u);
  EXPECT_EQ(ack.pid, t.pid);
  auto p = profile::read_profile(prof);
  ASSERT_TRUE(p.ok()) << r.err;
  // Paused until the end: nothing recorded after the acknowledgement.
  EXPECT_EQ(p.profile->experiments.size(), ack.experiments);
  EXPECT_GT(p.profile->samples, 0u);

  std::string out;
  EXPECT_EQ(finish_attach_target(t, &out), 0) << out;
  EXPECT_NE(out.find(" correct"), std::string::npos) << out;
}

TEST_F(AttachLive, AProcessThatExitsWhileAttachedEndsTheStreamAndSaysSo) {
  AttachTarget t = start_attach_target(dir_);
  ASSERT_GT(t.pid, 0);
  ASSERT_TRUE(wait_for_threads(t.pid, 3));
  const std::string stream = dir_ + "/live.jsonl", prof = dir_ + "/p.json";
  std::string out;
  int target_status = -1;
  RunResult r = run_command(
      {ANDWEORC_BIN, "attach", std::to_string(t.pid), "-q", "--duration", "20s",
       "--experiment-time", "50ms", "--live-json", stream, "-o", prof},
      [&](int) {
        std::this_thread::sleep_for(std::chrono::milliseconds(1000));
        target_status = finish_attach_target(t, &out);
      });
  EXPECT_EQ(target_status, 0) << out;
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("exited while attached"), std::string::npos) << r.err;
  std::vector<json> lines;
  ASSERT_NO_THROW(lines = json_lines(stream));
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines.back()["kind"], "final");
  auto p = profile::read_profile(prof);
  ASSERT_TRUE(p.ok()) << r.err;
  bool said = false;
  for (const auto& w : p.profile->warnings)
    said = said || w.find("exited while attached") != std::string::npos;
  EXPECT_TRUE(said);
}

}  // namespace
}  // namespace andweorc::testing
