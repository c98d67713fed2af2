// child_process.cc: see child_process.h.
#include "cli/child_process.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <map>

extern char** environ;

namespace andweorc::cli {
namespace {

volatile sig_atomic_t g_child_pid = 0;
// The last signal relayed to the child: the wait for its descendants hands
// it on to them (a handler cannot walk /proc).
volatile sig_atomic_t g_relayed_signal = 0;

void forward_signal(int sig, siginfo_t* info, void*) {
  // Keyboard signals come from the kernel to the whole foreground process
  // group, child included; only relay what was sent to us alone (kill).
  bool from_terminal = info != nullptr && info->si_code == SI_KERNEL;
  if (from_terminal) return;
  g_relayed_signal = sig;
  if (g_child_pid > 0) kill(g_child_pid, sig);
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

// How long to wait for the program's descendants (daemons, double forks)
// once the program itself has exited: ANDWEORC_DESCENDANT_WAIT_S, default 10.
double descendant_wait_s() {
  if (const char* v = std::getenv("ANDWEORC_DESCENDANT_WAIT_S")) {
    char* end = nullptr;
    double s = std::strtod(v, &end);
    if (end != v && s >= 0) return s;
  }
  return 10.0;
}

// We are the program's subreaper: its orphaned descendants become our
// children. Reaps them until none is left or the wait runs out; returns how
// many are still running.
int wait_for_descendants(double limit_s) {
  timespec start;
  clock_gettime(CLOCK_MONOTONIC, &start);
  for (;;) {
    // `andweorc stop`, or a kill of the tool, reached the program's first
    // process only: its descendants (a prefork server's workers) get it too.
    if (int sig = g_relayed_signal; sig != 0) {
      g_relayed_signal = 0;
      signal_program_tree(sig);
    }
    int status;
    pid_t p = waitpid(-1, &status, WNOHANG);
    if (p > 0) continue;
    if (p < 0 && errno == EINTR) continue;
    if (p < 0) return 0;  // ECHILD: no descendant left
    timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    double waited = double(now.tv_sec - start.tv_sec) +
                    double(now.tv_nsec - start.tv_nsec) / 1e9;
    if (waited >= limit_s) break;
    timespec pause{0, 5 * 1000 * 1000};
    nanosleep(&pause, nullptr);
  }
  // Still running: count our children (each one an orphaned subtree).
  int left = 0;
  siginfo_t info;
  info.si_pid = 0;
  if (waitid(P_ALL, 0, &info, WEXITED | WNOWAIT | WNOHANG) == 0) left = 1;
  return left;
}

// The pid, parent and process group of a process, from /proc/N/stat
// ("pid (comm) state ppid pgrp ..."; comm may hold spaces and parentheses,
// so the fields are read after its last ')'). False when it is gone.
struct ProcEntry {
  pid_t pid, parent, group;
};
bool read_proc_entry(long pid, ProcEntry* out) {
  char path[64], buf[512];
  std::snprintf(path, sizeof path, "/proc/%ld/stat", pid);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;  // gone meanwhile
  ssize_t n = read(fd, buf, sizeof buf - 1);
  close(fd);
  if (n <= 0) return false;
  buf[n] = '\0';
  const char* rp = std::strrchr(buf, ')');
  char state;
  long parent, group;
  if (rp == nullptr ||
      std::sscanf(rp + 1, " %c %ld %ld", &state, &parent, &group) != 3)
    return false;
  *out = {pid_t(pid), pid_t(parent), pid_t(group)};
  return true;
}

// Every process on the machine: what the tree is found in when the kernel
// has no /proc/N/task/T/children files (CONFIG_PROC_CHILDREN).
std::vector<ProcEntry> all_processes() {
  std::vector<ProcEntry> out;
  for (long pid : numbered_entries("/proc")) {
    ProcEntry p;
    if (read_proc_entry(pid, &p)) out.push_back(p);
  }
  return out;
}

// The children of `pid`, from each of its threads' children file (an
// orphan we reap as subreaper is the child of one of our threads); false
// when the kernel has no such files.
bool children_of(pid_t pid, std::vector<pid_t>* out) {
  char dir[64];
  std::snprintf(dir, sizeof dir, "/proc/%d/task", int(pid));
  bool any = false;
  for (long tid : numbered_entries(dir)) {
    char path[96], buf[4096];
    std::snprintf(path, sizeof path, "/proc/%d/task/%ld/children", int(pid),
                  tid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) continue;
    any = true;
    std::string text;
    for (ssize_t n; (n = read(fd, buf, sizeof buf)) > 0;)
      text.append(buf, size_t(n));
    close(fd);
    const char* c = text.c_str();
    for (char* end = nullptr;; c = end) {
      long child = std::strtol(c, &end, 10);
      if (end == c) break;
      out->push_back(pid_t(child));
    }
  }
  return any;
}

// Our descendants: read from the children files, breadth first (a dozen
// small reads for a program and its threads: the CPU-wait monitor calls
// this four times a second, and a scan of every process on a busy machine
// cost the program ~1% of a core, issue 11); else from a scan of /proc.
std::vector<ProcEntry> descendants() {
  std::vector<ProcEntry> out;
  std::vector<pid_t> frontier = {getpid()};
  bool first = true;
  while (!frontier.empty()) {
    std::vector<pid_t> next;
    for (pid_t f : frontier)
      if (!children_of(f, &next) && first) {
        // No children files: the whole table, filtered by the walk below.
        return all_processes();
      }
    first = false;
    for (pid_t pid : next) {
      ProcEntry p;
      if (read_proc_entry(pid, &p)) out.push_back(p);
    }
    frontier = std::move(next);
  }
  return out;
}

}  // namespace

std::vector<long> numbered_entries(const char* dir) {
  std::vector<long> out;
  DIR* d = opendir(dir);
  if (d == nullptr) return out;
  while (dirent* e = readdir(d)) {
    char* end = nullptr;
    long n = std::strtol(e->d_name, &end, 10);
    if (n > 0 && *end == '\0') out.push_back(n);
  }
  closedir(d);
  return out;
}

std::vector<int> program_tree_pids() {
  std::vector<ProcEntry> procs = descendants();
  pid_t self = getpid();
  pid_t child = pid_t(g_child_pid);
  pid_t child_group = 0;
  for (const ProcEntry& p : procs)
    if (p.pid == child) child_group = p.group;
  // Breadth first from us: our children (the program, and orphans we
  // reaped as subreaper), their children, ...
  std::vector<int> out;
  std::vector<pid_t> frontier = {self};
  while (!frontier.empty()) {
    std::vector<pid_t> next;
    for (const ProcEntry& p : procs)
      for (pid_t f : frontier)
        if (p.parent == f && p.pid != self) next.push_back(p.pid);
    for (pid_t pid : next) {
      for (const ProcEntry& p : procs) {
        if (p.pid != pid) continue;
        // A terminal's Ctrl-C reaches the foreground group: ours, or the
        // one the program made for itself; not daemons in a session of
        // their own.
        if (pid == child || p.group == getpgrp() ||
            (child_group != 0 && p.group == child_group))
          out.push_back(pid);
      }
    }
    frontier = std::move(next);
  }
  return out;
}

void signal_program_tree(int sig) {
  for (int pid : program_tree_pids()) kill(pid, sig);
}

ChildResult run_child(const std::vector<std::string>& argv,
                      const std::vector<std::string>& env, bool wait_for_tree,
                      const std::function<void(int pid)>& on_started) {
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
  struct sigaction old[std::size(kStopSignals)];
  for (size_t i = 0; i < std::size(kStopSignals); ++i)
    sigaction(kStopSignals[i], &sa, &old[i]);
  // Descendants the program leaves behind (daemon(), double fork) become
  // ours rather than init's, so that we can wait for their raw data.
  if (wait_for_tree) prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);

  pid_t pid = fork();
  if (pid == 0) {
    for (size_t i = 0; i < std::size(kStopSignals); ++i)
      sigaction(kStopSignals[i], &old[i], nullptr);
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
  g_relayed_signal = 0;
  int exec_errno = 0;
  ssize_t n;
  do {
    n = read(pipefd[0], &exec_errno, sizeof exec_errno);
  } while (n < 0 && errno == EINTR);
  close(pipefd[0]);
  // EOF without an errno: the exec succeeded.
  if (n == 0 && on_started) on_started(pid);

  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  g_child_pid = 0;
  if (n != sizeof exec_errno && wait_for_tree) {
    double limit = descendant_wait_s();
    result.descendants_left = wait_for_descendants(limit);
    if (result.descendants_left > 0)
      std::fprintf(stderr,
                   "andweorc: processes started by the program were still "
                   "running %g s after it exited; the profile holds their "
                   "data so far (ANDWEORC_DESCENDANT_WAIT_S sets the wait)\n",
                   limit);
  }
  if (wait_for_tree) prctl(PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0);
  for (size_t i = 0; i < std::size(kStopSignals); ++i)
    sigaction(kStopSignals[i], &old[i], nullptr);

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
