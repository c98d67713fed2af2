// run_command.cc: `andweorc run [options] -- command [args...]`.
//
// Runs the command with the runtime preloaded, then turns the raw records it
// left behind into a profile: written atomically to --output and summarized
// on standard error (the program's standard output stays its own). The
// options are checked in run_options.h, the runtime's environment is
// run_environment.h's, the profile is made in run_ingest.h. With --detached
// the tool returns once the program runs and a copy of it stays behind to
// do the rest (detached_session.h).
#include <fmt/format.h>
#include <signal.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <filesystem>
#include <functional>
#include <iostream>
#include <optional>

#include "cli/child_process.h"
#include "cli/commands.h"
#include "cli/cpu_wait_monitor.h"
#include "cli/detached_session.h"
#include "cli/exit_codes.h"
#include "cli/finish_guard.h"
#include "cli/line_cache_prefill.h"
#include "cli/live_options.h"
#include "cli/probe_options.h"
#include "cli/progress_display.h"
#include "cli/run_environment.h"
#include "cli/run_ingest.h"
#include "cli/run_options.h"
#include "cli/runtime_locator.h"
#include "cli/sampler_calibration.h"
#include "cli/terminal.h"
#include "ingest/raw_reader.h"
#include "live/control_channel.h"

namespace andweorc::cli {
namespace {

namespace fs = std::filesystem;

double unix_now() {
  return std::chrono::duration<double>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// The detached run's session file: "running" once the program runs (which
// releases the tool the user ran), "finished" with the outcome whatever
// way run_profile returns after that.
class SessionKeeper {
 public:
  SessionKeeper(std::string dir, const std::vector<std::string>& command,
                const std::string& output)
      : dir_(std::move(dir)) {
    s.command = command;
    s.output = fs::absolute(output).string();
    s.log = dir_ + "/" + kSessionLog;
    s.tool_pid = getpid();
  }
  ~SessionKeeper() {
    if (s.state != "running") return;  // never started: nothing to record
    s.state = "finished";
    s.ended_s = unix_now();
    std::string error;
    if (!write_session(dir_, s, &error))
      std::cerr << "andweorc: " << error << "\n";
  }
  void started(int pid) {
    s.state = "running";
    s.pid = pid;
    s.started_s = unix_now();
    detach_ready(dir_, s);
  }
  Session s;

 private:
  std::string dir_;
};

int run_profile(const RunOptions& o, const std::vector<std::string>& command) {
  if (command.empty()) {
    std::cerr << "andweorc: no command to profile; usage: andweorc run "
                 "[options] -- command [args...]\n";
    return kExitUsage;
  }
  std::string error;
  std::optional<RunSettings> settings = check_run_options(o, &error);
  if (!settings) {
    std::cerr << "andweorc: " << error << "\n";
    return kExitUsage;
  }
  if (o.sampler == "auto") choose_sampler(&*settings);
  std::vector<std::string> env;
  if (int rc = probe_environment(o.probes, command, o.quiet, &env)) return rc;
  std::vector<std::string> tried;
  std::string runtime = locate_runtime(&tried);
  if (runtime.empty()) {
    std::cerr << "andweorc: cannot find libandweorc.so (looked for";
    for (const auto& t : tried) std::cerr << " " << t;
    std::cerr << "); set ANDWEORC_RUNTIME to its path\n";
    return kExitUsage;
  }
  std::string data_dir =
      o.keep_raw.empty() ? make_data_dir(&error) : o.keep_raw;
  if (data_dir.empty()) {
    std::cerr << "andweorc: " << error << "\n";
    return kExitUsage;
  }
  fs::create_directories(data_dir);
  // The DWARF read here, before the program runs and before its run time
  // is taken (line_cache_prefill.h).
  prefill_line_cache(o, command[0], &env);

  // Detached: everything from here runs in the supervisor, whose output is
  // the session's log; the user's tool waits only for the program's start.
  std::optional<SessionKeeper> session;
  if (o.detached) {
    // Absolute: `status PID` finds the session from the program's
    // ANDWEORC_DATA_DIR, whatever its own directory.
    data_dir = fs::absolute(data_dir).string();
    if (std::optional<int> code = detach(data_dir, o.quiet, o.keep_raw.empty()))
      return *code;
    session.emplace(data_dir, command, o.output);
  }

  bool live_failed = false;
  // Keys in --live-tty only when the program cannot be reading the same
  // terminal: its standard input (ours) is not one.
  auto live = start_live(o, *settings, command, data_dir, &live_failed, &error,
                         nullptr, "", false, !isatty(0));
  if (live_failed) {
    std::cerr << "andweorc: " << error << "\n";
    // Detached, the tool the user ran prints the log and removes it.
    if (o.keep_raw.empty() && !session) fs::remove_all(data_dir);
    return kExitUsage;
  }
  if (session && live) session->s.live = live->url();

  auto start_wall = std::chrono::system_clock::now();
  auto start = std::chrono::steady_clock::now();
  MonitorOptions mo;
  mo.data_dir = data_dir;
  mo.experiments_enabled = !o.no_experiments;
  mo.end_to_end = o.end_to_end;
  mo.draw = !o.quiet && !o.no_progress && !o.live_tty && is_terminal(2);
  mo.warn = !o.quiet;
  mo.until_stable = o.until_stable;
  mo.max_time_s =
      settings->max_time_ns ? double(*settings->max_time_ns) / 1e9 : 0;
  // SIGINT, as Ctrl-C: the runtime writes its records and the program may
  // shut down cleanly; SIGTERM if it ignores that.
  mo.stop_program = [](int sig) { signal_program_tree(sig); };
  if (live)
    mo.observe = [&live](double t, const auto& fresh, auto& tail) {
      live->observe(t, fresh, tail);
    };
  std::optional<ProgressDisplay> progress;
  if (live || mo.draw || mo.until_stable || mo.max_time_s > 0 ||
      (mo.warn && mo.experiments_enabled && !o.end_to_end))
    progress.emplace(mo);
  auto runtime_env = runtime_environment(o, *settings, runtime, data_dir);
  env.insert(env.begin(), runtime_env.begin(), runtime_env.end());
  for (auto& e : live_control_environment(live.get())) env.push_back(e);
  // Detached without --live: a control file all the same, for an `attach`
  // that follows the session later (attach_session.h).
  std::unique_ptr<live::ControlChannel> detached_controls;
  if (session && (!live || live->control_path().empty()) && !o.no_experiments &&
      !o.end_to_end) {
    std::string why;
    detached_controls =
        live::ControlChannel::create(data_dir + "/control", &why);
    if (detached_controls)
      env.push_back("ANDWEORC_CONTROL=" + detached_controls->path());
    else
      std::cerr << "andweorc: " << why << "\n";
  }
  std::function<void(int)> on_started;
  if (session) on_started = [&session](int pid) { session->started(pid); };
  // Experiments' estimates assume the cores are the program's: measure
  // whether its threads waited for one (cpu_wait_monitor.h).
  std::optional<CpuWaitMonitor> cpu_wait;
  if (!o.no_experiments && !o.end_to_end) cpu_wait.emplace();
  // Once the program has ended (run_child forwards signals to it until
  // then, and restores the guard's handlers when it returns), a stop signal
  // lets the profile be written first.
  FinishGuard finishing;
  ChildResult child = run_child(command, env, o.follow_forks, on_started);
  if (cpu_wait) cpu_wait->stop();
  std::string stopped;
  if (progress) {
    progress->stop();
    stopped = progress->stopped_because();
  }
  if (session && stopped.empty() && fs::exists(data_dir + "/" + kStopFile))
    stopped = "andweorc stop";
  if (live) live->program_ended();
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  if (!child.started) {
    std::cerr << "andweorc: " << child.error << "\n";
    // Detached, the tool the user ran prints the log and removes it.
    if (o.keep_raw.empty() && !session) fs::remove_all(data_dir);
    return kExitUsage;
  }

  // Whatever happened to the program, write what was collected.
  std::vector<ingest::RawProcess> processes;
  if (!ingest::read_raw_dir(data_dir, &processes, &error))
    std::cerr << "andweorc: " << error << "\n";
  // The samples stay in the raw files until the profile is built from them
  // (ingest streams them: a long run's do not fit in memory).
  profile::Profile prof = profile_of_run(
      o, *settings, {command, start_wall, seconds, child, data_dir}, processes);
  // --until-stable: the state it stopped on, not one recomputed over the
  // experiments that ended while the program stopped.
  if (progress)
    if (std::optional<profile::Convergence> c = progress->convergence_at_stop())
      prof.convergence = *c;
  if (cpu_wait && !prof.experiments.empty()) {
    std::string w = cpu_wait_warning(cpu_wait->cpu_ns(), cpu_wait->wait_ns());
    if (!w.empty()) prof.warnings.push_back(w);
  }
  // Descendants still running may still be writing there: their data is
  // left for them (and for a later look), never deleted under them.
  const bool still_written = child.descendants_left > 0;
  // A detached run's directory keeps its session and log for `status`.
  if (o.keep_raw.empty() && !still_written) {
    if (session)
      remove_raw_files(data_dir);
    else
      fs::remove_all(data_dir);
  }
  if (still_written)
    std::cerr << "andweorc: raw data of processes still running is kept in "
              << data_dir << "\n";

  int status = shell_status(child);
  if (session) {
    session->s.exit_status = status;
    session->s.stopped_because = stopped;
    session->s.experiments = prof.experiments.size();
  }
  if (!stopped.empty()) {
    if (!o.quiet)
      std::cerr << "andweorc: stopped the program: " << stopped << "\n";
    // Stopped by us: our SIGINT, or the SIGTERM that follows when the
    // program ignores it (a background job of a shell does), is not the
    // program's failure.
    for (int sig : {SIGINT, SIGTERM})
      if (child.signal == sig || child.exit_status == 128 + sig) status = 0;
  }
  if (o.end_to_end && settings->format == "json")
    accumulate_end_to_end(o.output, &prof);
  bool written = write_run_profile(o, *settings, prof, &error);
  if (!written) {
    std::cerr << "andweorc: " << error << "\n";
    if (session) session->s.error = error;
    return status != 0 ? status : kExitUsage;
  }
  if (session) session->s.profile_written = true;
  if (live) live->finish(seconds, prof);
  print_run_summary(o, prof);
  return status;
}

}  // namespace

CommandRunner add_run_command(CLI::App& app,
                              const std::vector<std::string>& command) {
  auto o = std::make_shared<RunOptions>();
  CLI::App* cmd = app.add_subcommand(
      "run",
      "Profile a command: andweorc run [options] -- command [args...]\n"
      "(Coz's '---' separator is accepted too.) The program's standard "
      "streams pass through; its exit status is returned.");
  cmd->footer(
      "Environment:\n"
      "  ANDWEORC_CACHE_DIR=DIR|off  where the program's source lines are "
      "kept between runs,\n"
      "                              read from its debug info once per build "
      "(default\n"
      "                              ~/.cache/andweorc; off: read them at "
      "every run)\n"
      "  ANDWEORC_RUNTIME=FILE       the libandweorc.so to preload\n"
      "docs/environment.md lists the runtime's own settings.");
  cmd->add_option("-o,--output", o->output, "Where to write the profile (JSON)")
      ->capture_default_str();
  cmd->add_option("-b,--binary-scope", o->binary_scope,
                  "Glob for binaries whose code is profiled; MAIN is the "
                  "main executable (default: MAIN). Repeatable");
  cmd->add_option("-s,--source-scope", o->source_scope,
                  "Glob for source files whose lines are profiled; a leading "
                  "'!' excludes (default: all but /usr/include, /usr/lib). "
                  "Repeatable");
  cmd->add_option("--sample-period", o->sample_period,
                  "CPU time between samples, e.g. 1ms, 500us")
      ->capture_default_str();
  cmd->add_option("--sampler", o->sampler,
                  "perf (perf_event_open), timer (a CPU-time timer), or "
                  "auto: perf, unless perf samples measured at start would "
                  "cost a busy thread more than 2.5% of its CPU at the "
                  "period (25 us a sample at 1 ms: a virtual machine), then "
                  "the timer")
      ->check(CLI::IsMember({"auto", "perf", "timer"}))
      ->capture_default_str();
  cmd->add_option("-n,--top", o->top, "Lines and functions in the summary")
      ->capture_default_str();
  cmd->add_option("--keep-raw", o->keep_raw,
                  "Keep the runtime's raw records in this directory");
  cmd->add_flag("-q,--quiet", o->quiet,
                "Print neither progress nor the summary");
  cmd->add_flag("--no-progress", o->no_progress,
                "Do not show progress (shown only when standard error is a "
                "terminal)");
  cmd->add_flag("--follow-forks,!--no-follow-forks", o->follow_forks,
                "Profile the process tree as one program (default): fork "
                "children take part in the experiments and the tool waits "
                "for every descendant. --no-follow-forks: experiments run "
                "in the first process only (children are still sampled) and "
                "only the direct child is waited for");
  cmd->add_option("--split-points", o->split_points,
                  "Count each progress point per process (NAME@PID) or per "
                  "executable (NAME@FILE) instead of adding it up over the "
                  "process tree; the experiments then measure each apart")
      ->check(CLI::IsMember({"process", "executable"}));
  cmd->add_option("--format", o->format,
                  "Profile format: json, or coz (Coz's profile.coz; appended, "
                  "so runs merge). Default: coz for a .coz output, else json")
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
                  "Only use this speed-up, in percent (0% baselines still run)")
      ->check(CLI::Range(0, 100))
      ->group(causal);
  cmd->add_flag("--end-to-end", o->end_to_end,
                "One experiment over the whole run; needs no progress point. "
                "Repeat the run with the same -o: runs of the same command "
                "accumulate in it")
      ->group(causal);
  cmd->add_flag("--until-stable", o->until_stable,
                "Stop the program (SIGINT, then SIGTERM) once the answer is "
                "stable: the "
                "leader has not changed for 20 experiments (or 1 s of "
                "them, at least 6) and every other "
                "region is below it or tied with it; or flat: no region can "
                "matter")
      ->group(causal);
  cmd->add_option("--max-time", o->max_time,
                  "Stop the program (SIGINT, then SIGTERM) after this long, "
                  "e.g. 60s")
      ->group(causal);
  cmd->add_option("--experiment-time", o->experiment_time,
                  "Initial length of an experiment; then set from the "
                  "progress points' rates (enough visits per experiment), "
                  "never below 50 sample intervals unless this is shorter")
      ->capture_default_str()
      ->group(causal);
  cmd->add_option("--seed", o->seed, "Random seed for choosing experiments")
      ->group(causal);
  cmd->add_option("--granularity", o->granularity,
                  "Speed up a single line or a whole function; auto: "
                  "functions first, then the lines of those found "
                  "significant; adaptive: lines, or auto when the samples "
                  "spread over more lines than experiments can cover")
      ->check(CLI::IsMember({"adaptive", "line", "function", "auto"}))
      ->capture_default_str()
      ->group(causal);
  cmd->add_option("--delay-mode", o->delay_mode,
                  "How delayed threads wait: sleep, or spin (keeps their CPU "
                  "share when threads outnumber cores)")
      ->check(CLI::IsMember({"sleep", "spin"}))
      ->capture_default_str()
      ->group(causal);
  add_probe_options(cmd, &o->probes);
  cmd->add_flag("--detached", o->detached,
                "Return once the program runs, printing its pid (standard "
                "output) and its session directory; the profile is written "
                "when it ends. The program's output goes to the session's "
                "output.log. `andweorc status` and `andweorc stop` take the "
                "directory or the pid (docs/live.md)");
  add_live_options(cmd, o.get());
  return [o, command, cmd] {
    note_live_options(cmd, o.get());
    return run_profile(*o, command);
  };
}

}  // namespace andweorc::cli
