// detached_session.cc: see detached_session.h.
#include "cli/detached_session.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "cli/exit_codes.h"

namespace andweorc::cli {

std::string read_whole_file(const std::string& path) {
  // read(2), not an ifstream: a /proc file of a process that exits while
  // it is read fails with ESRCH, which libstdc++'s stream buffer throws
  // through an istreambuf_iterator (`stop` died of it).
  std::string out;
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return out;
  char buf[8192];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    out.append(buf, size_t(n));
  }
  ::close(fd);
  return out;
}
namespace {

namespace fs = std::filesystem;
using nlohmann::ordered_json;

// The supervisor's end of the hand-off pipe; -1 once released.
int g_ready_fd = -1;

// The supervisor's disposition outside run_child (which forwards these to
// the program while it runs): a late `andweorc stop` must not kill the tool
// while it writes the profile. A handler, not SIG_IGN, so that the program
// (exec resets handlers, not SIG_IGN) still gets the default.
void ignore_signal(int) {}

std::string slurp_file(const std::string& path) {
  return read_whole_file(path);
}

ordered_json session_json(const Session& s) {
  ordered_json j;
  j["schema"] = 1;
  j["state"] = s.state;
  j["tool_pid"] = s.tool_pid;
  j["pid"] = s.pid;
  j["command"] = s.command;
  j["output"] = s.output;
  j["log"] = s.log;
  j["live"] = s.live.empty() ? ordered_json() : ordered_json(s.live);
  j["started_s"] = s.started_s;
  j["ended_s"] = s.ended_s;
  j["exit_status"] =
      s.exit_status < 0 ? ordered_json() : ordered_json(s.exit_status);
  j["stopped_because"] = s.stopped_because;
  j["profile_written"] = s.profile_written;
  j["experiments"] = s.experiments;
  j["error"] = s.error;
  return j;
}

}  // namespace

bool write_session(const std::string& dir, const Session& s,
                   std::string* error) {
  const std::string path = dir + "/" + kSessionFile;
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::trunc);
    out << session_json(s).dump(2, ' ', false,
                                ordered_json::error_handler_t::replace)
        << "\n";
    if (!out) {
      *error = "cannot write " + tmp;
      return false;
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    *error = "cannot write " + path + ": " + std::strerror(errno);
    return false;
  }
  return true;
}

std::optional<Session> read_session(const std::string& dir,
                                    std::string* error) {
  const std::string path = dir + "/" + kSessionFile;
  std::string text = slurp_file(path);
  if (text.empty()) {
    *error = "no session in " + dir + " (no readable " + kSessionFile + ")";
    return std::nullopt;
  }
  nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object() || j.value("schema", 0) != 1) {
    *error = path + " is not a session file of this version";
    return std::nullopt;
  }
  Session s;
  try {
    s.state = j.value("state", "");
    s.tool_pid = j.value("tool_pid", 0);
    s.pid = j.value("pid", 0);
    s.command = j.value("command", std::vector<std::string>{});
    s.output = j.value("output", "");
    s.log = j.value("log", "");
    if (j["live"].is_string()) s.live = j["live"].get<std::string>();
    s.started_s = j.value("started_s", 0.0);
    s.ended_s = j.value("ended_s", 0.0);
    if (j["exit_status"].is_number_integer())
      s.exit_status = j["exit_status"].get<int>();
    s.stopped_because = j.value("stopped_because", "");
    s.profile_written = j.value("profile_written", false);
    s.experiments = j.value("experiments", size_t(0));
    s.error = j.value("error", "");
  } catch (const nlohmann::json::exception& e) {
    *error = path + ": " + e.what();
    return std::nullopt;
  }
  return s;
}

std::string find_session(const std::string& arg, std::string* error) {
  std::error_code ec;
  if (fs::is_directory(arg, ec)) {
    if (fs::exists(arg + "/" + kSessionFile, ec)) return arg;
    *error = arg + " holds no " + kSessionFile +
             " (not the directory of an `andweorc run --detached`)";
    return "";
  }
  const bool digits =
      !arg.empty() && arg.find_first_not_of("0123456789") == std::string::npos;
  if (!digits) {
    *error = "'" + arg + "' is neither a session directory nor a process id";
    return "";
  }
  const std::string proc = "/proc/" + arg;
  if (!fs::exists(proc, ec)) {
    *error = "no process " + arg +
             " (a finished session is found by its directory, which `run "
             "--detached` printed)";
    return "";
  }
  // A process in the middle of its execve can read as an empty (or, for a
  // moment, unreadable) environment: the close-on-exec pipe that tells
  // `run` the exec succeeded closes before the kernel has laid out the new
  // one, so `status PID` right after `run --detached` returned could find
  // nothing (seen once in CI). Look again for up to a second; what stays
  // so is answered below.
  bool readable = false;
  std::string environ_text;
  for (int i = 0; i < 100 && fs::exists(proc, ec); ++i) {
    readable = access((proc + "/environ").c_str(), R_OK) == 0;
    if (readable) environ_text = read_whole_file(proc + "/environ");
    if (!environ_text.empty()) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  if (!readable) {
    *error =
        "cannot read the environment of process " + arg + " (another user's?)";
    return "";
  }
  std::istringstream in(environ_text);
  const std::string key = "ANDWEORC_DATA_DIR=";
  for (std::string entry; std::getline(in, entry, '\0');) {
    if (entry.rfind(key, 0) != 0) continue;
    std::string dir = entry.substr(key.size());
    if (fs::exists(dir + "/" + kSessionFile, ec)) return dir;
    *error = "process " + arg +
             " is profiled by `andweorc run`, but not detached (no session "
             "in " +
             dir + ")";
    return "";
  }
  *error = "process " + arg + " is not profiled by `andweorc run --detached`";
  return "";
}

bool process_running(int pid) {
  if (pid <= 0) return false;
  std::string stat = slurp_file("/proc/" + std::to_string(pid) + "/stat");
  size_t paren = stat.rfind(')');
  return paren != std::string::npos && paren + 2 < stat.size() &&
         stat[paren + 2] != 'Z' && stat[paren + 2] != 'X';
}

void remove_raw_files(const std::string& dir) {
  std::error_code ec;
  for (auto it = fs::directory_iterator(dir, ec);
       !ec && it != fs::directory_iterator(); it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name == kSessionFile || name == kSessionLog) continue;
    std::error_code ignored;
    fs::remove_all(it->path(), ignored);
  }
}

std::optional<int> detach(const std::string& dir, bool quiet,
                          bool remove_on_failure) {
  int ready[2];
  if (pipe2(ready, O_CLOEXEC) != 0) {
    std::cerr << "andweorc: cannot create a pipe: " << std::strerror(errno)
              << "\n";
    return kExitUsage;
  }
  std::cout.flush();
  std::cerr.flush();
  const std::string log = dir + "/" + kSessionLog;
  pid_t supervisor = fork();
  if (supervisor < 0) {
    std::cerr << "andweorc: cannot fork: " << std::strerror(errno) << "\n";
    return kExitUsage;
  }
  if (supervisor == 0) {
    close(ready[0]);
    g_ready_fd = ready[1];
    // Out of the terminal's session: its hang-up and Ctrl-C are no longer
    // ours; `andweorc stop` is.
    setsid();
    struct sigaction sa {};
    sa.sa_handler = ignore_signal;
    sigemptyset(&sa.sa_mask);
    for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT})
      sigaction(sig, &sa, nullptr);
    int in = open("/dev/null", O_RDONLY | O_CLOEXEC);
    int out =
        open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (in >= 0) dup2(in, 0);
    if (out >= 0) {
      dup2(out, 1);
      dup2(out, 2);
    }
    if (in > 2) close(in);
    if (out > 2) close(out);
    return std::nullopt;
  }
  close(ready[1]);
  char buf[64];
  std::string got;
  for (ssize_t n; (n = read(ready[0], buf, sizeof buf)) != 0;) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    got.append(buf, size_t(n));
  }
  close(ready[0]);
  std::string error;
  std::optional<Session> s;
  if (got == "ready\n") {
    s = read_session(dir, &error);
    if (!s) {
      // The program runs, but its session cannot be read back.
      std::cerr << "andweorc: the program runs, detached, but " << error
                << "\n";
      return kExitUsage;
    }
  }
  if (!s) {
    // The supervisor gave up before the program ran: its messages are in
    // the log; it has ended (or is about to).
    int status = 0;
    waitpid(supervisor, &status, 0);
    std::string said = slurp_file(log);
    std::cerr << (said.empty() ? "andweorc: the detached run did not start\n"
                               : said);
    std::error_code ec;
    if (remove_on_failure) fs::remove_all(dir, ec);
    return WIFEXITED(status) && WEXITSTATUS(status) != 0 ? WEXITSTATUS(status)
                                                         : kExitUsage;
  }
  // The pid alone on standard output, for scripts: pid=$(andweorc run
  // --detached ...).
  std::cout << s->pid << std::endl;
  if (!quiet) {
    std::string command;
    for (const auto& a : s->command)
      command += (command.empty() ? "" : " ") + a;
    std::cerr << "andweorc: profiling process " << s->pid << " (" << command
              << ") in the background\n"
              << "  session: " << dir << "  (andweorc status|stop " << dir
              << ", or the pid)\n"
              << "  profile: " << s->output
              << " (written when the program ends)\n"
              << "  output:  " << s->log
              << " (the program's standard output and error)\n";
    if (!s->live.empty()) std::cerr << "  live view at " << s->live << "\n";
  }
  return kExitOk;
}

void detach_ready(const std::string& dir, const Session& s) {
  if (g_ready_fd < 0) return;
  std::string error;
  if (!write_session(dir, s, &error))
    std::cerr << "andweorc: " << error << "\n";
  static const char kReady[] = "ready\n";
  [[maybe_unused]] ssize_t n = write(g_ready_fd, kReady, sizeof kReady - 1);
  close(g_ready_fd);
  g_ready_fd = -1;
}

}  // namespace andweorc::cli
