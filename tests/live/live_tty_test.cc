// live_tty_test.cc: `andweorc run --live-tty` on a bundled example
// (examples/pipeline) with standard error on a pseudo-terminal: frames are
// drawn while it runs, the last one is the written profile's answer (its
// experiments and point total) and names the pipeline's bottleneck, the
// cursor is shown again at the end (also after a SIGINT to the tool), the
// program's standard output carries none of it, and without a terminal the
// option is refused before anything runs.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "e2e/run_helpers.h"

namespace andweorc {
namespace {

using nlohmann::json;
using testing::run_command;
using testing::temp_dir;

const std::string kHide = "\033[?25l", kShow = "\033[?25h";

struct TtyRun {
  int status = -1;
  std::string tty;  // what the tool wrote to standard error
};

// Runs argv with standard error on a 100x30 pseudo-terminal, standard
// output to `out_path`. `on_output(pid, all so far)` runs whenever the
// terminal gets more output.
// `master_out` (optional) gets the terminal's master side, to type keys.
TtyRun run_on_tty(
    const std::vector<std::string>& argv, const std::string& out_path,
    const std::function<void(pid_t, const std::string&)>& on_output = nullptr,
    int* master_out = nullptr) {
  int master = -1, slave = -1;
  winsize ws{};
  ws.ws_col = 100;
  ws.ws_row = 30;
  TtyRun r;
  if (openpty(&master, &slave, nullptr, nullptr, &ws) != 0) return r;
  pid_t pid = fork();
  if (pid == 0) {
    close(master);
    int out = open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    int in = open("/dev/null", O_RDONLY);
    dup2(in, 0);
    dup2(out, 1);
    dup2(slave, 2);
    setenv("TERM", "xterm", 1);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execv(args[0], args.data());
    _exit(126);
  }
  close(slave);
  if (master_out) *master_out = master;
  // Until every writer has closed the terminal (EIO) or a minute passes.
  char buf[4096];
  for (int waited_ms = 0; waited_ms < 60000;) {
    pollfd p{master, POLLIN, 0};
    int n = poll(&p, 1, 100);
    if (n == 0) {
      waited_ms += 100;
      continue;
    }
    ssize_t got = read(master, buf, sizeof buf);
    if (got <= 0) break;
    r.tty.append(buf, size_t(got));
    if (on_output) on_output(pid, r.tty);
  }
  close(master);
  int status = 0;
  waitpid(pid, &status, 0);
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return r;
}

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

class LiveTty : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = temp_dir(); }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string dir_;
};

// The final frame: from the last "andweorc final:" to the cursor shown.
std::string final_frame(const std::string& tty) {
  size_t at = tty.rfind("andweorc final:");
  if (at == std::string::npos) return "";
  size_t end = tty.find(kShow, at);
  return tty.substr(at, end == std::string::npos ? end : end - at);
}

void expect_cursor_restored(const std::string& tty) {
  size_t hide = tty.rfind(kHide), show = tty.rfind(kShow);
  ASSERT_NE(hide, std::string::npos);
  ASSERT_NE(show, std::string::npos);
  EXPECT_GT(show, hide) << "the cursor is left hidden";
}

// The final frame says the written profile's experiments and point total.
void expect_final_frame_is_the_profile(const std::string& frame,
                                       const std::string& profile) {
  std::ifstream in(profile);
  json written;
  ASSERT_NO_THROW(written = json::parse(in));
  ASSERT_FALSE(written["points"].empty());
  EXPECT_NE(frame.find(", " + std::to_string(written["experiments"].size()) +
                       " experiment"),
            std::string::npos)
      << frame;
  std::string total = "item_written ";
  EXPECT_NE(frame.find(total), std::string::npos) << frame;
  std::smatch m;
  std::string f = frame;
  ASSERT_TRUE(std::regex_search(f, m, std::regex(R"(\((\d+) total\))")))
      << frame;
  EXPECT_EQ(m[1].str(), written["points"][0]["visits"].dump());
}

TEST_F(LiveTty, FramesWhileRunningAndTheProfilesAnswerAtTheEnd) {
  std::string prof = dir_ + "/profile.json", out = dir_ + "/stdout";
  TtyRun r =
      run_on_tty({ANDWEORC_BIN, "run", "--live-tty", "--max-time", "1500ms",
                  "-o", prof, "--", PIPELINE, "items", "1000000000"},
                 out);
  ASSERT_EQ(r.status, 0) << r.tty;
  EXPECT_NE(r.tty.find("andweorc live:"), std::string::npos) << r.tty;
  expect_cursor_restored(r.tty);
  std::string frame = final_frame(r.tty);
  ASSERT_FALSE(frame.empty()) << r.tty;
  // The pipeline's bottleneck: most samples (and, with enough experiments,
  // the top causal line).
  EXPECT_NE(frame.find("transform_item"), std::string::npos) << frame;
  expect_final_frame_is_the_profile(frame, prof);
  // The view was the only status: no one-line progress display under it.
  EXPECT_EQ(r.tty.find("andweorc: 1s"), std::string::npos);
  // The text summary follows the final frame, as without the view.
  EXPECT_NE(r.tty.find("Profile written to", r.tty.rfind(kShow)),
            std::string::npos);
  // Standard output is the program's alone.
  std::string stdout_text = slurp(out);
  EXPECT_EQ(stdout_text.find('\033'), std::string::npos) << stdout_text;
  EXPECT_EQ(stdout_text.find("andweorc"), std::string::npos) << stdout_text;
}

TEST_F(LiveTty, ASigintToTheToolEndsTheRunWithTheCursorShown) {
  std::string prof = dir_ + "/profile.json", out = dir_ + "/stdout";
  bool sent = false;
  TtyRun r = run_on_tty(
      {ANDWEORC_BIN, "run", "--live-tty", "--max-time", "20s", "-o", prof, "--",
       PIPELINE, "items", "1000000000"},
      out, [&sent](pid_t pid, const std::string& tty) {
        // After the first frame with experiments, as a user's Ctrl-C.
        if (!sent && tty.find(" experiments (") != std::string::npos) {
          sent = true;
          kill(pid, SIGINT);
        }
      });
  ASSERT_TRUE(sent) << r.tty;
  // The tool forwards SIGINT to the program and reports how it ended.
  EXPECT_TRUE(r.status == 0 || r.status == 128 + SIGINT) << r.status;
  expect_cursor_restored(r.tty);
  expect_final_frame_is_the_profile(final_frame(r.tty), prof);
}

// The keys (the program's standard input is not the terminal): 'p' pauses
// the experiments (acknowledged by the program), 's' writes a snapshot
// next to -o, 'q' closes the view: no final frame, the cursor shown and
// the terminal's modes (line editing, echo) put back.
TEST_F(LiveTty, KeysPauseSnapshotAndCloseTheView) {
  std::string prof = dir_ + "/profile.json", out = dir_ + "/stdout",
              stream = dir_ + "/live.jsonl";
  int master = -1;
  int step = 0;
  termios after{};
  TtyRun r = run_on_tty(
      {ANDWEORC_BIN, "run", "--live-tty", "--live-json", stream, "--max-time",
       "20s", "-o", prof, "--", PIPELINE, "items", "1000000000"},
      out,
      [&](pid_t pid, const std::string& tty) {
        if (step == 0 && tty.find("keys: p pause/resume, s snapshot, q close "
                                  "this view") != std::string::npos) {
          step = 1;
          [[maybe_unused]] ssize_t n = write(master, "ps", 2);
        }
        std::string events = slurp(stream);
        if (step == 1 &&
            events.find("\"event\":\"applied\"") != std::string::npos &&
            events.find("\"event\":\"snapshot\"") != std::string::npos) {
          step = 2;
          [[maybe_unused]] ssize_t n = write(master, "q", 1);
        }
        if (step == 2 && tty.rfind(kShow) != std::string::npos &&
            tty.rfind(kShow) > tty.rfind(kHide)) {
          step = 3;
          tcgetattr(master, &after);  // the terminal's modes, put back
          kill(pid, SIGINT);          // done: end the run now (as Ctrl-C)
        }
      },
      &master);
  EXPECT_TRUE(r.status == 0 || r.status == 128 + SIGINT) << r.status;
  ASSERT_EQ(step, 3) << r.tty;
  EXPECT_TRUE(after.c_lflag & ICANON);
  EXPECT_TRUE(after.c_lflag & ECHO);
  EXPECT_EQ(r.tty.find("andweorc final:"), std::string::npos) << r.tty;
  bool paused = false;
  std::string snapshot;
  std::ifstream in(stream);
  for (std::string line; std::getline(in, line);) {
    json l = json::parse(line);
    if (l["kind"] != "control") continue;
    if (l["event"] == "applied" && l["paused"] == true) paused = true;
    if (l["event"] == "snapshot" && l.contains("path"))
      snapshot = l["path"].get<std::string>();
  }
  EXPECT_TRUE(paused);
  ASSERT_FALSE(snapshot.empty());
  EXPECT_EQ(std::filesystem::path(snapshot).parent_path(),
            std::filesystem::path(prof).parent_path());
  std::ifstream snap(snapshot);
  EXPECT_NO_THROW(json::parse(snap));
}

TEST_F(LiveTty, RefusedWithoutATerminalBeforeAnythingRuns) {
  std::string marker = dir_ + "/ran";
  auto r = run_command({ANDWEORC_BIN, "run", "--live-tty", "-o",
                        dir_ + "/p.json", "--", "/usr/bin/touch", marker});
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("--live-tty needs standard error to be a terminal"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(std::filesystem::exists(marker));
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/p.json"));
}

}  // namespace
}  // namespace andweorc
