// attach_session_test.cc: `andweorc attach PID` on a program started by
// `andweorc run --detached` (examples/pipeline): nothing is injected, the
// attach follows the session (its stream shows the session's experiments),
// its page's controls reach the program (a pause acknowledged by it), a
// release undoes them (the session is running again), it can be attached
// again, and the session's own profile is written at the end as without
// the attaches. A process under a `run` that is not detached is refused.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>

#include "e2e/run_helpers.h"
#include "runtime/control_block.h"

namespace andweorc {
namespace {

using nlohmann::json;
using testing::read_file;
using testing::run_command;

bool session_alive(int pid) {
  std::string stat = read_file("/proc/" + std::to_string(pid) + "/stat");
  size_t paren = stat.rfind(')');
  return paren != std::string::npos && paren + 2 < stat.size() &&
         stat[paren + 2] != 'Z';
}

std::vector<json> json_lines(const std::string& path) {
  std::ifstream in(path);
  std::vector<json> out;
  for (std::string line; std::getline(in, line);)
    out.push_back(json::parse(line, nullptr, false));
  return out;
}

class AttachSession : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = testing::temp_dir(); }
  void TearDown() override {
    if (program_ > 0 && session_alive(program_)) kill(program_, SIGKILL);
    if (!session_.empty()) std::filesystem::remove_all(session_);
    std::filesystem::remove_all(dir_);
  }
  std::string dir_, session_;
  int program_ = 0;
};

TEST_F(AttachSession, FollowsControlsReleasesAndLeavesTheProfileAlone) {
  const std::string prof = dir_ + "/p.json";
  auto r = run_command({ANDWEORC_BIN, "run", "--detached", "-q", "-o", prof,
                        "--", PIPELINE, "items", "1000000000"});
  ASSERT_EQ(r.status, 0) << r.err;
  program_ = std::atoi(r.out.c_str());
  ASSERT_GT(program_, 0) << r.out;
  auto st =
      run_command({ANDWEORC_BIN, "status", std::to_string(program_), "--json"});
  ASSERT_EQ(st.status, 0) << st.err;
  session_ = json::parse(st.out)["directory"].get<std::string>();

  // First attach: the stream follows the session's experiments.
  const std::string a = dir_ + "/a.jsonl";
  auto first = run_command({ANDWEORC_BIN, "attach", std::to_string(program_),
                            "--duration", "800ms", "--live-json", a});
  ASSERT_EQ(first.status, 0) << first.err;
  EXPECT_NE(first.err.find("nothing injected"), std::string::npos) << first.err;
  std::vector<json> lines = json_lines(a);
  ASSERT_GE(lines.size(), 1u);
  EXPECT_EQ(lines.back()["kind"], "final");
  EXPECT_GT(lines.back()["experiments"].get<int>(), 0) << lines.back();
  EXPECT_TRUE(session_alive(program_));

  // Second attach, with the page: a pause reaches the program; the release
  // (SIGINT to the attach) undoes it.
  const std::string err = dir_ + "/attach.err";
  pid_t tool = fork();
  if (tool == 0) {
    int fd = open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    dup2(fd, 2);
    execl(ANDWEORC_BIN, ANDWEORC_BIN, "attach",
          std::to_string(program_).c_str(), "--live", nullptr);
    _exit(126);
  }
  int port = 0;
  std::string token;
  ASSERT_TRUE(testing::wait_for_live_url(err, &port, &token)) << read_file(err);
  httplib::Client client("127.0.0.1", port);
  auto post = client.Post("/control?token=" + token, "{\"action\":\"pause\"}",
                          "application/json");
  ASSERT_TRUE(post);
  ASSERT_EQ(post->status, 200) << post->body;
  json applied;
  for (int i = 0; i < 1000 && applied.is_null(); ++i) {
    auto g = client.Get("/control?token=" + token);
    if (g && g->status == 200) {
      json c = json::parse(g->body, nullptr, false);
      if (!c["applied"].is_null() && c["applied"]["paused"] == true)
        applied = c["applied"];
    }
    if (applied.is_null())
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_FALSE(applied.is_null()) << "the pause was never acknowledged";
  EXPECT_EQ(applied["pid"], program_);
  kill(tool, SIGINT);
  int status = 0;
  waitpid(tool, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << read_file(err);
  EXPECT_NE(read_file(err).find("released the session"), std::string::npos)
      << read_file(err);
  // The release sent the state it found (running): acknowledged by the
  // program, read from the session's control file.
  int fd = open((session_ + "/control").c_str(), O_RDONLY);
  ASSERT_GE(fd, 0);
  void* p =
      mmap(nullptr, runtime::kControlFileSize, PROT_READ, MAP_SHARED, fd, 0);
  close(fd);
  ASSERT_NE(p, MAP_FAILED);
  const auto* block = static_cast<const runtime::ControlBlock*>(p);
  runtime::ControlAck ack{};
  bool resumed = false;
  for (int i = 0; i < 1000 && !resumed; ++i) {
    resumed = runtime::control_read_ack(block, &ack) &&
              ack.seq == __atomic_load_n(&block->seq, __ATOMIC_ACQUIRE) &&
              ack.paused == 0;
    if (!resumed) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  munmap(p, runtime::kControlFileSize);
  EXPECT_TRUE(resumed) << "the release did not undo the pause";

  // The session ends as usual; its profile carries no attach's marks.
  auto stop = run_command({ANDWEORC_BIN, "stop", std::to_string(program_)});
  ASSERT_EQ(stop.status, 0) << stop.err << "\nsession log:\n"
                            << read_file(session_ + "/output.log");
  json written = json::parse(read_file(prof));
  EXPECT_GT(written["experiments"].size(), 0u);
  for (const auto& w : written["warnings"])
    EXPECT_EQ(w.get<std::string>().find("attached"), std::string::npos) << w;
}

TEST_F(AttachSession, ARunThatIsNotDetachedIsRefused) {
  int status = -1;
  std::string message;
  auto r = run_command(
      {ANDWEORC_BIN, "run", "-q", "--max-time", "3s", "--", PIPELINE, "items",
       "1000000000"},
      [&](int tool) {
        // The program: the tool's child, once it has exec'd.
        int program = 0;
        for (int i = 0; i < 500 && program == 0; ++i) {
          for (const auto& e : std::filesystem::directory_iterator("/proc")) {
            std::string name = e.path().filename().string();
            if (name.find_first_not_of("0123456789") != std::string::npos)
              continue;
            std::string stat = read_file(e.path().string() + "/stat");
            size_t paren = stat.rfind(')');
            if (paren == std::string::npos) continue;
            int ppid = std::atoi(stat.c_str() + paren + 4);
            if (ppid == tool &&
                read_file(e.path().string() + "/cmdline").find("items") !=
                    std::string::npos)
              program = std::stoi(name);
          }
          if (program == 0)
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        }
        if (program == 0) return;
        auto a = run_command({ANDWEORC_BIN, "attach", std::to_string(program),
                              "--duration", "1s"});
        status = a.status;
        message = a.err;
        kill(tool, SIGINT);
      });
  EXPECT_EQ(status, 3) << message;  // kExitAttachRefused
  EXPECT_NE(message.find("not detached"), std::string::npos) << message;
}

}  // namespace
}  // namespace andweorc
