// attach_process.cc: see attach_process.h.
#include "attach_process.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "run_helpers.h"

namespace andweorc::testing {

AttachTarget start_attach_target(const std::string& dir) {
  AttachTarget t;
  t.out_path = dir + "/target.out";
  int in[2];
  // Close-on-exec: the tool the test runs must not hold the target's
  // input open, or closing it would not end the target.
  if (pipe2(in, O_CLOEXEC) != 0) return t;
  t.pid = fork();
  if (t.pid == 0) {
    dup2(in[0], 0);
    int out = open(t.out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(out, 1);
    close(in[0]);
    close(in[1]);
    const std::string path = std::string(PROGRAMS_DIR) + "/attach_target";
    execl(path.c_str(), path.c_str(), nullptr);
    _exit(127);
  }
  close(in[0]);
  t.stdin_fd = in[1];
  return t;
}

int thread_count(pid_t pid) {
  int n = 0;
  std::error_code ec;
  for (auto it = std::filesystem::directory_iterator(
           "/proc/" + std::to_string(pid) + "/task", ec);
       !ec && it != std::filesystem::directory_iterator(); it.increment(ec))
    ++n;
  return n;
}

bool wait_for_threads(pid_t pid, int n) {
  for (int i = 0; i < 500; ++i) {
    if (thread_count(pid) == n) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

int finish_attach_target(AttachTarget& t, std::string* out) {
  if (t.stdin_fd >= 0) close(t.stdin_fd);
  t.stdin_fd = -1;
  int status = 0;
  if (waitpid(t.pid, &status, 0) != t.pid) return -1;
  *out = read_file(t.out_path);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

}  // namespace andweorc::testing
