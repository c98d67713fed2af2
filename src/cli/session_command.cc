// session_command.cc: `andweorc status SESSION|PID` and `andweorc stop
// SESSION|PID`: look at, and end, a run started with `run --detached`
// (detached_session.h, docs/live.md "Detached runs").
#include <fmt/format.h>
#include <signal.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <thread>

#include "cli/commands.h"
#include "cli/detached_session.h"
#include "cli/duration.h"
#include "cli/exit_codes.h"
#include "ingest/experiment_tail.h"

namespace andweorc::cli {
namespace {

namespace fs = std::filesystem;

double seconds_since(double unix_s) {
  double now = std::chrono::duration<double>(
                   std::chrono::system_clock::now().time_since_epoch())
                   .count();
  return now - unix_s;
}

std::string command_text(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "" : " ") + w;
  return out;
}

// "running", "finished", or "lost": the session says running but the tool
// that stayed with the program is gone (killed): no profile will come.
std::string effective_state(const Session& s) {
  if (s.state == "running" && !process_running(s.tool_pid)) return "lost";
  return s.state;
}

std::string describe(const std::string& dir, const Session& s,
                     const std::string& state, size_t experiments_so_far) {
  std::string out = fmt::format("session {}: ", dir);
  if (state == "running") {
    out += fmt::format("running for {:.0f} s\n", seconds_since(s.started_s));
  } else if (state == "lost") {
    out += fmt::format(
        "lost: the tool that stayed with the program (process {}) is gone; "
        "no profile will be written\n",
        s.tool_pid);
  } else {
    out += "finished";
    if (s.exit_status >= 0)
      out += fmt::format(" (exit status {}", s.exit_status);
    if (!s.stopped_because.empty())
      out += (s.exit_status >= 0 ? "; " : " (") + std::string("stopped: ") +
             s.stopped_because;
    if (s.exit_status >= 0 || !s.stopped_because.empty()) out += ")";
    out += fmt::format(", {:.0f} s ago\n", seconds_since(s.ended_s));
  }
  out += fmt::format("  process: {} ({})\n", s.pid, command_text(s.command));
  if (state == "running") {
    out += fmt::format("  experiments so far: {}\n", experiments_so_far);
    out += fmt::format("  profile: {} (written when the program ends)\n",
                       s.output);
    if (!s.live.empty()) out += fmt::format("  live view at {}\n", s.live);
  } else if (state == "finished") {
    if (s.profile_written)
      out += fmt::format("  profile: {} ({} experiments)\n", s.output,
                         s.experiments);
    else
      out += fmt::format("  profile: not written ({})\n",
                         s.error.empty() ? "see the log" : s.error);
  }
  out += fmt::format("  log: {}\n", s.log);
  return out;
}

std::optional<Session> open_session(const std::string& arg, std::string* dir) {
  std::string error;
  *dir = find_session(arg, &error);
  if (dir->empty()) {
    std::cerr << "andweorc: " << error << "\n";
    return std::nullopt;
  }
  std::optional<Session> s = read_session(*dir, &error);
  if (!s) std::cerr << "andweorc: " << error << "\n";
  return s;
}

int status_command(const std::string& arg, bool json) {
  std::string dir;
  std::optional<Session> s = open_session(arg, &dir);
  if (!s) return kExitUsage;
  const std::string state = effective_state(*s);
  size_t so_far = 0;
  if (state == "running") {
    // The raw files so far, as run's own status line reads them.
    ingest::ExperimentTail tail(dir);
    so_far = tail.poll().size();
  }
  if (json) {
    std::ifstream in(dir + "/" + kSessionFile);
    nlohmann::ordered_json j =
        nlohmann::ordered_json::parse(in, nullptr, false);
    if (j.is_discarded()) return kExitUsage;
    j["state"] = state;
    j["directory"] = fs::absolute(dir).string();
    if (state == "running") j["experiments"] = so_far;
    std::cout << j.dump(-1, ' ', false,
                        nlohmann::ordered_json::error_handler_t::replace)
              << "\n";
  } else {
    std::cout << describe(dir, *s, state, so_far);
  }
  return kExitOk;
}

// Waits (sleeping 50 ms at a time) until `done` or `limit_s` has passed.
template <typename F>
bool wait_until(F done, double limit_s) {
  auto end =
      std::chrono::steady_clock::now() + std::chrono::duration<double>(limit_s);
  while (!done()) {
    if (std::chrono::steady_clock::now() >= end) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return true;
}

// The session once its tool has written "finished" (or has died), waiting
// up to `limit_s`; nullopt when it has not finished by then.
std::optional<Session> wait_finished(const std::string& dir, int tool_pid,
                                     double limit_s) {
  std::string error;
  wait_until(
      [&] {
        std::optional<Session> now = read_session(dir, &error);
        return (now && now->state == "finished") || !process_running(tool_pid);
      },
      limit_s);
  std::optional<Session> now = read_session(dir, &error);
  if (!now || now->state != "finished") return std::nullopt;
  return now;
}

int stop_command(const std::string& arg, bool wait, const std::string& timeout,
                 bool quiet) {
  std::optional<uint64_t> timeout_ns = parse_duration_ns(timeout);
  if (!timeout_ns || *timeout_ns == 0) {
    std::cerr << "andweorc: bad --timeout '" << timeout << "' (e.g. 60s)\n";
    return kExitUsage;
  }
  std::string dir;
  std::optional<Session> s = open_session(arg, &dir);
  if (!s) return kExitUsage;
  const std::string state = effective_state(*s);
  if (state == "lost") {
    std::cerr << "andweorc: the tool of session " << dir << " (process "
              << s->tool_pid
              << ") is gone: nothing can write the profile any more\n";
    return kExitUsage;
  }
  // Running and the program still there (not already on its way out).
  const bool ask = state == "running" && process_running(s->pid);
  if (ask) {
    // Marked first, so the tool records the end as asked for; then SIGINT
    // to the tool, which hands it to the program (as Ctrl-C under `run`).
    std::ofstream(dir + "/" + kStopFile).put('\n');
    if (kill(s->tool_pid, SIGINT) != 0) {
      std::cerr << "andweorc: cannot signal the tool (process " << s->tool_pid
                << "): " << std::strerror(errno) << "\n";
      return kExitUsage;
    }
    if (!wait) {
      if (!quiet)
        std::cerr << "andweorc: asked process " << s->pid
                  << " to stop; the profile will be written to " << s->output
                  << "\n";
      return kExitOk;
    }
    // SIGTERM 3 s later if the program ignores SIGINT (as --max-time).
    const int pid = s->pid;
    if (!wait_until([pid] { return !process_running(pid); }, 3.0))
      kill(s->tool_pid, SIGTERM);
  }
  if (state == "running") {
    std::optional<Session> done =
        wait_finished(dir, s->tool_pid, double(*timeout_ns) / 1e9);
    if (!done) {
      std::cerr << "andweorc: session " << dir << " has not finished after "
                << timeout << "; `andweorc status " << dir << "` shows it\n";
      return kExitUsage;
    }
    s = done;
  }
  if (!s->profile_written) {
    std::cerr << "andweorc: the program has ended but no profile was written"
              << (s->error.empty() ? "" : ": " + s->error)
              << " (log: " << s->log << ")\n";
    return kExitUsage;
  }
  if (!quiet)
    std::cerr << "andweorc: process " << s->pid
              << (ask ? " stopped" : " had ended already")
              << "; profile written to " << s->output << " (" << s->experiments
              << " experiments)\n";
  return kExitOk;
}

}  // namespace

CommandRunner add_status_command(CLI::App& app) {
  struct Args {
    std::string session;
    bool json = false;
  };
  auto a = std::make_shared<Args>();
  CLI::App* cmd = app.add_subcommand(
      "status",
      "Show a run started with `run --detached`: andweorc status "
      "SESSION|PID\n"
      "SESSION is the directory `run --detached` printed, PID the "
      "program's. Running: experiments so far, the live page; finished: "
      "exit status, the profile.");
  cmd->add_option("session", a->session, "The session directory or the pid")
      ->required();
  cmd->add_flag("--json", a->json, "Print the session as one JSON object");
  return [a] { return status_command(a->session, a->json); };
}

CommandRunner add_stop_command(CLI::App& app) {
  struct Args {
    std::string session;
    bool no_wait = false;
    bool quiet = false;
    std::string timeout = "60s";
  };
  auto a = std::make_shared<Args>();
  CLI::App* cmd = app.add_subcommand(
      "stop",
      "End a run started with `run --detached`: andweorc stop SESSION|PID\n"
      "Stops the program as Ctrl-C would under `run` (SIGINT, then SIGTERM "
      "3 s later) and waits until the profile is written.");
  cmd->add_option("session", a->session, "The session directory or the pid")
      ->required();
  cmd->add_flag("--no-wait", a->no_wait,
                "Return once the program is asked to stop");
  cmd->add_option("--timeout", a->timeout, "How long to wait for the profile")
      ->capture_default_str();
  cmd->add_flag("-q,--quiet", a->quiet, "Print nothing but errors");
  return [a] {
    return stop_command(a->session, !a->no_wait, a->timeout, a->quiet);
  };
}

}  // namespace andweorc::cli
