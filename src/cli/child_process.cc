// child_process.cc: see child_process.h.
#include "cli/child_process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <map>

extern char** environ;

namespace andweorc::cli {
namespace {

volatile sig_atomic_t g_child_pid = 0;
constexpr int kForwarded[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};

void forward_signal(int sig, siginfo_t* info, void*) {
  // Keyboard signals come from the kernel to the whole foreground process
  // group, child included; only relay what was sent to us alone (kill).
  bool from_terminal = info != nullptr && info->si_code == SI_KERNEL;
  if (g_child_pid > 0 && !from_terminal) kill(g_child_pid, sig);
}

std::vector<std::string> merged_environment(
    const std::vector<std::string>& env) {
  std::map<std::string, std::string> vars;
  std::vector<std::string> order;
  auto put = [&](const std::string& kv) {
    std::string name = kv.substr(0, kv.find('='));
    if (!vars.count(name)) order.push_back(name);
    vars[name] = kv;
  };
  for (char** e = environ; *e; ++e) put(*e);
  for (const auto& kv : env) put(kv);
  std::vector<std::string> out;
  for (const auto& name : order) out.push_back(vars[name]);
  return out;
}

}  // namespace

ChildResult run_child(const std::vector<std::string>& argv,
                      const std::vector<std::string>& env) {
  ChildResult result;
  std::vector<std::string> envs = merged_environment(env);
  std::vector<char*> cargv, cenv;
  for (const auto& a : argv) cargv.push_back(const_cast<char*>(a.c_str()));
  cargv.push_back(nullptr);
  for (const auto& e : envs) cenv.push_back(const_cast<char*>(e.c_str()));
  cenv.push_back(nullptr);

  // The child reports a failed exec through this close-on-exec pipe.
  int pipefd[2];
  if (pipe2(pipefd, O_CLOEXEC) != 0) {
    result.error = std::string("cannot create a pipe: ") + std::strerror(errno);
    return result;
  }
  struct sigaction sa {};
  sa.sa_sigaction = forward_signal;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&sa.sa_mask);
  struct sigaction old[4];
  for (int i = 0; i < 4; ++i) sigaction(kForwarded[i], &sa, &old[i]);

  pid_t pid = fork();
  if (pid == 0) {
    for (int i = 0; i < 4; ++i) sigaction(kForwarded[i], &old[i], nullptr);
    close(pipefd[0]);
    execvpe(cargv[0], cargv.data(), cenv.data());
    int err = errno;
    ssize_t ignored = write(pipefd[1], &err, sizeof err);
    (void)ignored;
    _exit(127);
  }
  close(pipefd[1]);
  if (pid < 0) {
    result.error = std::string("cannot fork: ") + std::strerror(errno);
    close(pipefd[0]);
    return result;
  }
  g_child_pid = pid;
  int exec_errno = 0;
  ssize_t n;
  do {
    n = read(pipefd[0], &exec_errno, sizeof exec_errno);
  } while (n < 0 && errno == EINTR);
  close(pipefd[0]);

  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  g_child_pid = 0;
  for (int i = 0; i < 4; ++i) sigaction(kForwarded[i], &old[i], nullptr);

  if (n == sizeof exec_errno) {
    result.error = "cannot run '" + argv[0] + "': " + std::strerror(exec_errno);
    return result;
  }
  result.started = true;
  if (WIFEXITED(status)) result.exit_status = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) {
    result.signal = WTERMSIG(status);
    result.exit_status = -1;
  }
  return result;
}

int running_child_pid() { return int(g_child_pid); }

int shell_status(const ChildResult& r) {
  return r.signal != 0 ? 128 + r.signal : r.exit_status;
}

}  // namespace andweorc::cli
