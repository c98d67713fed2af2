// run_helpers.cc: see run_helpers.h.
#include "run_helpers.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <thread>

namespace andweorc::testing {

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string temp_dir() {
  std::string t = "/tmp/andweorc-test-XXXXXX";
  if (mkdtemp(t.data()) == nullptr) std::abort();
  return t;
}

bool wait_for_live_url(const std::string& err_path, int* port,
                       std::string* token) {
  const std::string marker = "live view at http://127.0.0.1:";
  for (int i = 0; i < 2000; ++i) {
    std::string err = read_file(err_path);
    size_t at = err.find(marker), q = err.find("/?token=", at),
           nl = err.find('\n', q);
    if (at != std::string::npos && q != std::string::npos &&
        nl != std::string::npos) {
      *port = std::stoi(err.substr(at + marker.size()));
      *token = err.substr(q + 8, nl - q - 8);
      return true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

RunResult run_command(const std::vector<std::string>& argv,
                      const std::function<void(int)>& during) {
  std::string dir = temp_dir();
  std::string out_path = dir + "/out", err_path = dir + "/err";
  pid_t pid = fork();
  if (pid == 0) {
    int out = open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    int err = open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    dup2(out, 1);
    dup2(err, 2);
    int devnull = open("/dev/null", O_RDONLY);
    dup2(devnull, 0);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execv(args[0], args.data());
    _exit(126);
  }
  if (during) during(pid);
  int status = 0;
  waitpid(pid, &status, 0);
  RunResult r;
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = read_file(out_path);
  r.err = read_file(err_path);
  std::system(("rm -rf " + dir).c_str());
  return r;
}

int line_of(const std::string& path, const std::string& marker) {
  std::ifstream in(path);
  std::string line;
  for (int n = 1; std::getline(in, line); ++n)
    if (line.find(marker) != std::string::npos) return n;
  return 0;
}

}  // namespace andweorc::testing
