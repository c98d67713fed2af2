// matrix_runner.cc: see matrix_runner.h.
#include "matrix_runner.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace andweorc::hostile {
namespace {

namespace fs = std::filesystem;

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

double now_s() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return double(ts.tv_sec) + double(ts.tv_nsec) / 1e9;
}

// Our children by /proc (orphans reparented to us, and the program).
std::vector<int> children_of_self() {
  std::vector<int> out;
  std::string me = std::to_string(getpid());
  for (const auto& e : fs::directory_iterator("/proc")) {
    std::string name = e.path().filename();
    if (name.empty() || name[0] < '1' || name[0] > '9') continue;
    std::string stat = slurp("/proc/" + name + "/stat");
    size_t close = stat.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream rest(stat.substr(close + 2));
    std::string state, ppid;
    rest >> state >> ppid;
    if (ppid == me) out.push_back(std::stoi(name));
  }
  return out;
}

void collect_files(const fs::path& root, Outcome* o) {
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    if (e.is_regular_file())
      o->files[fs::relative(e.path(), root).string()] =
          slurp(e.path().string());
  }
}

Outcome run_in(const std::vector<std::string>& argv, const RunSpec& spec) {
  Outcome o;
  std::string io = make_temp_dir(), work = make_temp_dir();
  std::string out_path = io + "/out", err_path = io + "/err";
  prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
  double start = now_s();
  pid_t pid = fork();
  if (pid == 0) {
    setpgid(0, 0);
    if (chdir(work.c_str()) != 0) _exit(125);
    int out = open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    int err = open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    int in = open("/dev/null", O_RDONLY);
    dup2(in, 0);
    dup2(out, 1);
    dup2(err, 2);
    close(in);
    close(out);
    close(err);
    if (spec.fsize_limit >= 0) {
      rlimit rl{rlim_t(spec.fsize_limit), rlim_t(spec.fsize_limit)};
      setrlimit(RLIMIT_FSIZE, &rl);
    }
    for (const auto& kv : spec.env) putenv(const_cast<char*>(kv.c_str()));
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execv(args[0], args.data());
    _exit(126);
  }
  // The program, then whatever it left behind, within the timeout.
  int status = 0;
  bool program_done = false;
  for (;;) {
    int st = 0;
    pid_t p = waitpid(-1, &st, WNOHANG);
    if (p == pid) {
      status = st;
      program_done = true;
      continue;
    }
    if (p > 0) continue;
    if (p < 0 && errno == ECHILD) break;
    if (now_s() - start > spec.timeout_s) {
      o.timed_out = true;
      kill(-pid, SIGKILL);
      for (int c : children_of_self()) kill(c, SIGKILL);
      while (waitpid(-1, &st, 0) > 0 || errno == EINTR) {
        if (errno == ECHILD) break;
      }
      break;
    }
    usleep(2000);
  }
  o.seconds = now_s() - start;
  if (program_done)
    o.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  o.out = slurp(out_path);
  o.err = slurp(err_path);
  collect_files(work, &o);
  remove_tree(io);
  remove_tree(work);
  return o;
}

}  // namespace

std::string make_temp_dir() {
  std::string t = (fs::temp_directory_path() / "andweorc-hostile-XXXXXX");
  if (mkdtemp(t.data()) == nullptr) std::abort();
  return t;
}

void remove_tree(const std::string& dir) {
  std::error_code ec;
  fs::remove_all(dir, ec);
}

Outcome run_direct(const RunSpec& spec) { return run_in(spec.argv, spec); }

Outcome run_profiled(const RunSpec& spec, const std::string& profile_path,
                     const std::vector<std::string>& options) {
  // ANDWEORC_TEST_BIN runs the matrix against another build (e.g. to see
  // which cases an older andweorc fails).
  const char* bin = std::getenv("ANDWEORC_TEST_BIN");
  std::vector<std::string> argv = {bin && *bin ? bin : ANDWEORC_BIN, "run",
                                   "-q", "-o", profile_path};
  argv.insert(argv.end(), options.begin(), options.end());
  argv.push_back("--");
  argv.insert(argv.end(), spec.argv.begin(), spec.argv.end());
  return run_in(argv, spec);
}

}  // namespace andweorc::hostile
