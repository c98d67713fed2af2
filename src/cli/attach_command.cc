// attach_command.cc: `andweorc attach PID [options]`: profile a process
// that was not started under andweorc. Loads the runtime into it with
// ptrace (src/attach), lets it run for --duration or until Ctrl-C, stops it
// in the process the same way, and builds the profile from the raw files
// as `run` does. The process runs on, as it was (docs/attach.md). With
// --live/--live-json/--live-tty the tool follows the raw files while
// attached, as `run` does (docs/live.md).
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <thread>

#include "attach/ptrace_permission.h"
#include "attach/runtime_calls.h"
#include "cli/attach_session.h"
#include "cli/commands.h"
#include "cli/detached_session.h"
#include "cli/duration.h"
#include "cli/exit_codes.h"
#include "cli/line_cache_prefill.h"
#include "cli/live_options.h"
#include "cli/probe_options.h"
#include "cli/progress_display.h"
#include "cli/run_environment.h"
#include "cli/run_ingest.h"
#include "cli/run_options.h"
#include "cli/runtime_locator.h"
#include "cli/sampler_calibration.h"
#include "ingest/raw_reader.h"

namespace andweorc::cli {
namespace {

namespace fs = std::filesystem;

struct AttachOptions {
  int pid = 0;
  std::string duration;      // "" = until Ctrl-C (or the process exits)
  RunOptions run;            // the options of `run` that make sense here
  bool no_wrappers = false;  // leave the program's calls bound to libc
};

volatile sig_atomic_t g_interrupted = 0;
void on_interrupt(int) { g_interrupted = 1; }

std::string slurp(const std::string& path) { return read_whole_file(path); }

bool process_alive(int pid) {
  std::string state = slurp("/proc/" + std::to_string(pid) + "/stat");
  size_t paren = state.rfind(')');
  return paren != std::string::npos && paren + 2 < state.size() &&
         state[paren + 2] != 'Z' && state[paren + 2] != 'X';
}

// The process's command line, as `run` records the command it ran.
std::vector<std::string> command_line(int pid) {
  std::string raw = slurp("/proc/" + std::to_string(pid) + "/cmdline");
  std::vector<std::string> out;
  for (size_t pos = 0; pos < raw.size();) {
    size_t end = raw.find('\0', pos);
    if (end == std::string::npos) end = raw.size();
    out.push_back(raw.substr(pos, end - pos));
    pos = end + 1;
  }
  return out;
}

// The runtime's settings as "NAME=value\0" entries (attach_settings.h):
// `run`'s environment without LD_PRELOAD.
bool write_settings(const std::string& path,
                    const std::vector<std::string>& env, std::string* error) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  for (const auto& e : env) {
    if (e.rfind("LD_PRELOAD=", 0) == 0) continue;
    out << e << '\0';
  }
  out.close();
  if (!out) *error = "cannot write " + path;
  return bool(out);
}

// The process may run as another user than we do (root attaching): the
// directory and settings must be its to write and read.
void give_to(const std::string& path, int pid) {
  struct stat st;
  if (geteuid() == 0 &&
      stat(("/proc/" + std::to_string(pid)).c_str(), &st) == 0)
    if (chown(path.c_str(), st.st_uid, st.st_gid) != 0) {
      // Left as it is: the runtime then reports that it cannot write.
    }
}

// What an attached profile (and each live snapshot of one) says it lacks.
void add_attach_warning(profile::Profile* prof, int pid) {
  prof->warnings.push_back(
      "attached to running process " + std::to_string(pid) +
      ": the runtime was loaded late, so coz.h's and labels' progress "
      "points the program reached before the attach are not counted, "
      "function addresses the program stored before it still lead to libc "
      "(no delay is carried through those calls), and fork children are "
      "not followed (docs/attach.md)");
}

int attach_profile(AttachOptions& a) {
  RunOptions& o = a.run;
  std::string error;
  std::optional<RunSettings> settings = check_run_options(o, &error);
  if (!settings) {
    std::cerr << "andweorc: " << error << "\n";
    return kExitUsage;
  }
  // The same sampler `run` would take on this machine.
  if (o.sampler == "auto") choose_sampler(&*settings);
  std::optional<uint64_t> duration_ns;
  if (!a.duration.empty()) {
    duration_ns = parse_duration_ns(a.duration);
    if (!duration_ns || *duration_ns == 0) {
      std::cerr << "andweorc: bad --duration '" << a.duration
                << "' (e.g. 10s, 500ms)\n";
      return kExitUsage;
    }
  }
  const std::string proc = "/proc/" + std::to_string(a.pid);
  // A process started by `andweorc run` (or a descendant of one) has the
  // runtime already: a `run --detached` session is followed, not injected
  // into (attach_session.h); a run that is not detached is refused.
  if (slurp(proc + "/environ").find(std::string("ANDWEORC_DATA_DIR=")) !=
      std::string::npos) {
    std::string why;
    std::string dir = find_session(std::to_string(a.pid), &why);
    if (dir.empty()) {
      std::cerr << "andweorc: cannot attach: " << why
                << "; attach works on a process started without andweorc, "
                   "or by `andweorc run --detached` (followed, not injected "
                   "into)\n";
      return kExitAttachRefused;
    }
    return follow_detached_session(a.pid, dir, o, duration_ns, a.duration,
                                   on_interrupt, &g_interrupted);
  }
  // Refused before the process is touched.
  attach::PtraceFacts facts = attach::read_ptrace_facts(a.pid);
  if (std::string why = attach::ptrace_refusal(facts); !why.empty()) {
    std::cerr << "andweorc: cannot attach: " << why << "\n";
    return facts.exists ? kExitAttachRefused : kExitUsage;
  }
  std::vector<std::string> tried;
  std::string located = locate_runtime(&tried);
  if (located.empty()) {
    std::cerr << "andweorc: cannot find libandweorc.so; set ANDWEORC_RUNTIME "
                 "to its path\n";
    return kExitUsage;
  }
  std::error_code ec;
  const std::string runtime = fs::canonical(located, ec).string();
  const symbols::ProcessMaps maps = attach::target_maps(a.pid);
  for (const auto& m : maps.mappings()) {
    if (m.path != runtime &&
        fs::path(m.path).filename().string().rfind("libandweorc.so", 0) == 0) {
      std::cerr << "andweorc: cannot attach: process " << a.pid
                << " has another andweorc runtime loaded (" << m.path << ")\n";
      return kExitAttachRefused;
    }
  }
  const std::string exe = fs::read_symlink(proc + "/exe", ec).string();
  std::vector<std::string> command = command_line(a.pid);
  std::vector<std::string> env;
  if (int rc = probe_environment(o.probes, {exe}, o.quiet, &env)) return rc;

  std::string data_dir =
      o.keep_raw.empty() ? make_data_dir(&error) : o.keep_raw;
  if (data_dir.empty()) {
    std::cerr << "andweorc: " << error << "\n";
    return kExitUsage;
  }
  fs::create_directories(data_dir, ec);
  give_to(data_dir, a.pid);
  auto cleanup = [&] {
    if (o.keep_raw.empty()) fs::remove_all(data_dir, ec);
  };
  // The live view, before the process is touched: a bad address or a port
  // in use is refused with the process left alone.
  bool live_failed = false;
  const int pid = a.pid;
  std::unique_ptr<live::LiveSession> live = start_live(
      o, *settings, command.empty() ? std::vector<std::string>{exe} : command,
      data_dir, &live_failed, &error,
      [pid](profile::Profile* p) { add_attach_warning(p, pid); }, exe, false,
      /*tty_keys=*/true);
  if (live_failed) {
    std::cerr << "andweorc: " << error << "\n";
    cleanup();
    return kExitUsage;
  }
  auto runtime_env = runtime_environment(o, *settings, runtime, data_dir);
  env.insert(env.begin(), runtime_env.begin(), runtime_env.end());
  // The process's DWARF read here, not on its cores (a running server).
  prefill_line_cache(o, exe, &env);
  // The page's controls: the coordinator maps the file named in the
  // settings (ANDWEORC_CONTROL), which must be the process's to open.
  for (auto& e : live_control_environment(live.get())) env.push_back(e);
  if (a.no_wrappers) env.push_back("ANDWEORC_ATTACH_WRAPPERS=0");
  if (live && !live->control_path().empty())
    give_to(live->control_path(), a.pid);
  const std::string settings_path = data_dir + "/attach.settings";
  if (!write_settings(settings_path, env, &error)) {
    std::cerr << "andweorc: " << error << "\n";
    cleanup();
    return kExitUsage;
  }
  give_to(settings_path, a.pid);

  // Ctrl-C during a visit must not leave the process half-visited: it is
  // only noted, and ends the profiling once the runtime runs. (Installed
  // after --live-tty's handlers, which would end the tool at once.)
  struct sigaction sa {};
  sa.sa_handler = on_interrupt;
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);

  int code = attach::start_in_process(a.pid, runtime, settings_path, &error);
  // The window is the runtime's: the visit itself (dlopen, start) may take
  // a while on a loaded machine.
  auto start_wall = std::chrono::system_clock::now();
  auto start = std::chrono::steady_clock::now();
  if (code != 0) {
    std::cerr << "andweorc: cannot attach to process " << a.pid << ": "
              << (code < 0 ? error : attach::describe_start_result(code))
              << "\n";
    cleanup();
    return kExitAttachRefused;
  }
  std::optional<ProgressDisplay> progress;
  follow_raw_files(&progress, live.get(), data_dir, !o.no_experiments);
  if (!o.quiet)
    std::cerr << "andweorc: attached to process " << a.pid << " ("
              << (command.empty() ? exe : command[0]) << "); "
              << (duration_ns ? "profiling for " + a.duration
                              : std::string("Ctrl-C ends the profiling"))
              << "\n";
  bool exited = false;
  while (!g_interrupted) {
    if (!process_alive(a.pid)) {
      exited = true;
      break;
    }
    auto elapsed = std::chrono::steady_clock::now() - start;
    if (duration_ns &&
        uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(elapsed)
                     .count()) >= *duration_ns)
      break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  if (progress) progress->stop();
  if (live) live->program_ended();
  int status = kExitOk;
  if (!exited) {
    int stopped = attach::stop_in_process(a.pid, runtime, &error);
    if (stopped < 0) {
      std::cerr << "andweorc: could not stop the profiler in process " << a.pid
                << ": " << error << "\n";
      status = kExitAttachRefused;
    }
  } else {
    // Said even with -q: the profile is shorter than asked for.
    std::cerr << "andweorc: process " << a.pid
              << " exited while attached; writing the profile up to then\n";
  }
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();

  std::vector<ingest::RawProcess> processes;
  if (!ingest::read_raw_dir(data_dir, &processes, &error))
    std::cerr << "andweorc: " << error << "\n";
  RunRecord record{command, start_wall, seconds, ChildResult{}, data_dir};
  record.child.started = true;
  // After the build: it streams the samples from the raw files.
  profile::Profile prof = profile_of_run(o, *settings, record, processes);
  cleanup();
  add_attach_warning(&prof, a.pid);
  if (exited)
    prof.warnings.push_back("process " + std::to_string(a.pid) +
                            " exited while attached: the profile ends there");
  bool written = write_run_profile(o, *settings, prof, &error);
  if (!written) {
    std::cerr << "andweorc: " << error << "\n";
    return status != kExitOk ? status : kExitUsage;
  }
  if (live) live->finish(seconds, prof);
  print_run_summary(o, prof);
  return status;
}

}  // namespace

CommandRunner add_attach_command(CLI::App& app) {
  auto a = std::make_shared<AttachOptions>();
  RunOptions* o = &a->run;
  CLI::App* cmd = app.add_subcommand(
      "attach",
      "Profile a running process: andweorc attach PID [options]\n"
      "Loads the profiler into it with ptrace, profiles for --duration or "
      "until Ctrl-C, then unloads it and writes the profile. The process "
      "runs on. See docs/attach.md for what an attached profile lacks.");
  cmd->add_option("pid", a->pid, "The process to profile")->required();
  cmd->add_option("-d,--duration", a->duration,
                  "How long to profile, e.g. 10s (default: until Ctrl-C or "
                  "the process exits)");
  cmd->add_option("-o,--output", o->output, "Where to write the profile (JSON)")
      ->capture_default_str();
  cmd->add_option("-b,--binary-scope", o->binary_scope,
                  "Glob for binaries whose code is profiled; MAIN is the "
                  "main executable (default: MAIN). Repeatable");
  cmd->add_option("-s,--source-scope", o->source_scope,
                  "Glob for source files whose lines are profiled; a leading "
                  "'!' excludes. Repeatable");
  cmd->add_option("--sample-period", o->sample_period,
                  "CPU time between samples, e.g. 1ms, 500us")
      ->capture_default_str();
  cmd->add_option("--sampler", o->sampler,
                  "perf (perf_event_open), timer (a CPU-time timer), or "
                  "auto: as `run` chooses")
      ->check(CLI::IsMember({"auto", "perf", "timer"}))
      ->capture_default_str();
  cmd->add_option("-n,--top", o->top, "Lines and functions in the summary")
      ->capture_default_str();
  cmd->add_option("--keep-raw", o->keep_raw,
                  "Keep the runtime's raw records in this directory");
  cmd->add_flag("-q,--quiet", o->quiet,
                "Print neither progress nor the summary");
  cmd->add_option("--format", o->format,
                  "Profile format: json, or coz. Default: coz for a .coz "
                  "output, else json")
      ->check(CLI::IsMember({"json", "coz"}));
  auto* causal = "Causal experiments";
  cmd->add_flag("--no-experiments", o->no_experiments,
                "Only sample; run no causal experiments")
      ->group(causal);
  cmd->add_option(
         "--fixed-line", o->fixed_line,
         "Only speed up this line, FILE:LINE (FILE may be a path suffix)")
      ->group(causal);
  cmd->add_option("--fixed-speedup", o->fixed_speedup,
                  "Only use this speed-up, in percent")
      ->check(CLI::Range(0, 100))
      ->group(causal);
  cmd->add_option("--experiment-time", o->experiment_time,
                  "Initial length of an experiment")
      ->capture_default_str()
      ->group(causal);
  cmd->add_option("--seed", o->seed, "Random seed for choosing experiments")
      ->group(causal);
  cmd->add_option("--granularity", o->granularity,
                  "Speed up a single line or a whole function; auto: "
                  "functions first, then their lines; adaptive: lines, or "
                  "auto when the samples spread over many lines")
      ->check(CLI::IsMember({"adaptive", "line", "function", "auto"}))
      ->capture_default_str()
      ->group(causal);
  cmd->add_option("--delay-mode", o->delay_mode,
                  "How delayed threads wait: sleep, or spin")
      ->check(CLI::IsMember({"sleep", "spin"}))
      ->capture_default_str()
      ->group(causal);
  cmd->add_flag("--no-wrappers", a->no_wrappers,
                "Leave the program's calls bound to libc instead of "
                "rerouting them through the runtime's wrappers (no delay "
                "is then carried across locks, pipes or sockets)")
      ->group(causal);
  add_probe_options(cmd, &o->probes);
  add_live_options(cmd, o);
  return [a, cmd] {
    note_live_options(cmd, &a->run);
    // A fork child of the process is not part of the attach.
    a->run.follow_forks = false;
    return attach_profile(*a);
  };
}

}  // namespace andweorc::cli
