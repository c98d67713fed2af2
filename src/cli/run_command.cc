// run_command.cc: `andweorc run [options] -- command [args...]`.
//
// Runs the command with the runtime preloaded, then turns the raw records it
// left behind into a profile: written atomically to --output and summarized
// on standard error (the program's standard output stays its own).
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <optional>

#include "cli/child_process.h"
#include "cli/commands.h"
#include "cli/duration.h"
#include "cli/exit_codes.h"
#include "cli/progress_display.h"
#include "cli/runtime_locator.h"
#include "cli/terminal.h"
#include "experiments/convergence_summary.h"
#include "ingest/profile_builder.h"
#include "ingest/raw_reader.h"
#include "profile/profile_json.h"
#include "report/coz_writer.h"
#include "report/text_report.h"

#ifndef ANDWEORC_VERSION
#define ANDWEORC_VERSION "unknown"
#endif

namespace andweorc::cli {
namespace {

namespace fs = std::filesystem;

struct RunOptions {
  std::string output = "profile.json";
  std::vector<std::string> binary_scope;
  std::vector<std::string> source_scope;
  std::string sample_period = "1ms";
  std::string sampler = "auto";
  std::string keep_raw;
  size_t top = 10;
  bool quiet = false;
  bool no_progress = false;
  // causal experiments (names as Coz's where Coz has them)
  bool no_experiments = false;
  std::string fixed_line;
  int fixed_speedup = -1;
  bool end_to_end = false;
  std::string experiment_time = "200ms";
  uint64_t seed = 0;
  std::string granularity = "line";
  std::string delay_mode = "sleep";
  std::string format;  // json or coz; default from the output's extension
  bool until_stable = false;
  std::string max_time;  // "" = no limit
};

std::string joined_lines(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += s + "\n";
  return out;
}

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string iso8601_utc(std::chrono::system_clock::time_point t) {
  std::time_t tt = std::chrono::system_clock::to_time_t(t);
  std::tm tm{};
  gmtime_r(&tt, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

// A private directory for the runtime's raw files.
std::string make_data_dir(std::string* error) {
  std::error_code ec;
  fs::path base = fs::temp_directory_path(ec);
  if (ec) base = "/tmp";
  std::string templ = (base / "andweorc-XXXXXX").string();
  if (mkdtemp(templ.data()) == nullptr) {
    *error = "cannot create a temporary directory in " + base.string() + ": " +
             std::strerror(errno);
    return "";
  }
  return templ;
}

std::vector<std::string> runtime_environment(const RunOptions& o,
                                             const std::string& runtime,
                                             const std::string& data_dir,
                                             uint64_t period_ns) {
  std::string preload = runtime;
  if (const char* existing = std::getenv("LD_PRELOAD"); existing && *existing)
    preload += std::string(":") + existing;
  std::vector<std::string> env = {
      "LD_PRELOAD=" + preload,
      "ANDWEORC_DATA_DIR=" + data_dir,
      "ANDWEORC_SAMPLE_PERIOD_NS=" + std::to_string(period_ns),
  };
  if (o.sampler == "timer") env.push_back("ANDWEORC_SAMPLER=timer");
  env.push_back("ANDWEORC_BINARY_SCOPE=" + joined_lines(o.binary_scope));
  env.push_back("ANDWEORC_SOURCE_SCOPE=" + joined_lines(o.source_scope));
  if (!o.no_experiments) {
    env.push_back("ANDWEORC_EXPERIMENTS=1");
    env.push_back("ANDWEORC_EXPERIMENT_TIME_NS=" +
                  std::to_string(*parse_duration_ns(o.experiment_time)));
    env.push_back("ANDWEORC_GRANULARITY=" + o.granularity);
    env.push_back("ANDWEORC_DELAY_MODE=" + o.delay_mode);
    if (o.seed != 0) env.push_back("ANDWEORC_SEED=" + std::to_string(o.seed));
    if (!o.fixed_line.empty())
      env.push_back("ANDWEORC_FIXED_LINE=" + o.fixed_line);
    if (o.fixed_speedup >= 0)
      env.push_back("ANDWEORC_FIXED_SPEEDUP=" +
                    std::to_string(o.fixed_speedup));
    if (o.end_to_end) env.push_back("ANDWEORC_END_TO_END=1");
  }
  return env;
}

// An end-to-end run holds one experiment; estimates need many runs. When the
// output already holds end-to-end runs of the same command, keep their
// experiments so that repeated runs add up (as Coz's appended profile.coz).
void accumulate_end_to_end(const std::string& path, profile::Profile* prof) {
  profile::ReadResult previous = profile::read_profile(path);
  if (!previous.ok() || !previous.profile->settings.end_to_end ||
      previous.profile->run.command != prof->run.command)
    return;
  auto& old = previous.profile->experiments;
  prof->experiments.insert(prof->experiments.begin(), old.begin(), old.end());
}

int run_profile(const RunOptions& o, const std::vector<std::string>& command) {
  if (command.empty()) {
    std::cerr << "andweorc: no command to profile; usage: andweorc run "
                 "[options] -- command [args...]\n";
    return kExitUsage;
  }
  std::optional<uint64_t> period = parse_duration_ns(o.sample_period);
  if (!period || *period < 100000 || *period > 1000000000) {
    std::cerr << "andweorc: --sample-period must be between 100us and 1s "
                 "(e.g. 1ms), got '"
              << o.sample_period << "'\n";
    return kExitUsage;
  }
  std::optional<uint64_t> experiment_ns = parse_duration_ns(o.experiment_time);
  if (!experiment_ns || *experiment_ns < 1000000 ||
      *experiment_ns > 60000000000ull) {
    std::cerr
        << "andweorc: --experiment-time must be between 1ms and 60s, got '"
        << o.experiment_time << "'\n";
    return kExitUsage;
  }
  if (!o.fixed_line.empty()) {
    size_t colon = o.fixed_line.rfind(':');
    if (colon == std::string::npos || colon == 0 ||
        std::atoi(o.fixed_line.c_str() + colon + 1) <= 0) {
      std::cerr
          << "andweorc: --fixed-line must be FILE:LINE, e.g. main.cc:42, got '"
          << o.fixed_line << "'\n";
      return kExitUsage;
    }
  }
  std::optional<uint64_t> max_time_ns;
  if (!o.max_time.empty()) {
    max_time_ns = parse_duration_ns(o.max_time);
    if (!max_time_ns || *max_time_ns < 100000000) {
      std::cerr << "andweorc: --max-time must be a duration of at least "
                   "100ms (e.g. 60s, 2m), got '"
                << o.max_time << "'\n";
      return kExitUsage;
    }
  }
  if (o.until_stable && (o.no_experiments || o.end_to_end)) {
    std::cerr << "andweorc: --until-stable needs causal experiments (not "
                 "with --no-experiments or --end-to-end)\n";
    return kExitUsage;
  }
  std::string format = o.format;
  if (format.empty()) format = ends_with(o.output, ".coz") ? "coz" : "json";
  std::vector<std::string> tried;
  std::string runtime = locate_runtime(&tried);
  if (runtime.empty()) {
    std::cerr << "andweorc: cannot find libandweorc.so (looked for";
    for (const auto& t : tried) std::cerr << " " << t;
    std::cerr << "); set ANDWEORC_RUNTIME to its path\n";
    return kExitUsage;
  }
  std::string error;
  std::string data_dir =
      o.keep_raw.empty() ? make_data_dir(&error) : o.keep_raw;
  if (data_dir.empty()) {
    std::cerr << "andweorc: " << error << "\n";
    return kExitUsage;
  }
  fs::create_directories(data_dir);

  auto start_wall = std::chrono::system_clock::now();
  auto start = std::chrono::steady_clock::now();
  MonitorOptions mo;
  mo.data_dir = data_dir;
  mo.experiments_enabled = !o.no_experiments;
  mo.end_to_end = o.end_to_end;
  mo.draw = !o.quiet && !o.no_progress && is_terminal(2);
  mo.warn = !o.quiet;
  mo.until_stable = o.until_stable;
  mo.max_time_s = max_time_ns ? double(*max_time_ns) / 1e9 : 0;
  // SIGINT, as Ctrl-C: the runtime writes its records and the program may
  // shut down cleanly; SIGTERM if it ignores that.
  mo.stop_program = [](int sig) {
    if (int pid = running_child_pid(); pid > 0) kill(pid, sig);
  };
  std::optional<ProgressDisplay> progress;
  if (mo.draw || mo.until_stable || mo.max_time_s > 0 ||
      (mo.warn && mo.experiments_enabled && !o.end_to_end))
    progress.emplace(mo);
  ChildResult child =
      run_child(command, runtime_environment(o, runtime, data_dir, *period));
  std::string stopped;
  if (progress) {
    progress->stop();
    stopped = progress->stopped_because();
  }
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  if (!child.started) {
    std::cerr << "andweorc: " << child.error << "\n";
    if (o.keep_raw.empty()) fs::remove_all(data_dir);
    return kExitUsage;
  }

  // Whatever happened to the program, write what was collected.
  std::vector<ingest::RawProcess> processes;
  if (!ingest::read_raw_dir(data_dir, &processes, &error))
    std::cerr << "andweorc: " << error << "\n";
  // Descendants still running may still be writing there: their data is
  // left for them (and for a later look), never deleted under them.
  const bool still_written = child.descendants_left > 0;
  if (o.keep_raw.empty() && !still_written) fs::remove_all(data_dir);
  if (still_written)
    std::cerr << "andweorc: raw data of processes still running is kept in "
              << data_dir << "\n";

  profile::Profile prof;
  prof.run.command = command;
  prof.run.start_time = iso8601_utc(start_wall);
  prof.run.duration_s = seconds;
  prof.run.exit_status = child.exit_status;
  prof.run.exit_signal = child.signal;
  prof.run.sample_period_ns = *period;
  prof.run.tool_version = ANDWEORC_VERSION;
  prof.run.sampler = "none";
  for (const auto& p : processes) {
    if (p.sampler == 1) prof.run.sampler = "perf";
    if (p.sampler == 2 && prof.run.sampler == "none")
      prof.run.sampler = "timer";
  }
  prof.settings.enabled = !o.no_experiments;
  prof.settings.fixed_line = o.fixed_line;
  prof.settings.fixed_speedup = o.fixed_speedup;
  prof.settings.end_to_end = o.end_to_end;
  prof.settings.experiment_time_s = double(*experiment_ns) / 1e9;
  prof.settings.seed = o.seed;
  // auto: each experiment records its granularity; the finest is "line".
  prof.settings.coarse_to_fine = o.granularity == "auto";
  prof.settings.granularity = o.granularity == "auto" ? "line" : o.granularity;
  symbols::Symbolizer symbolizer;
  ingest::build_profile(processes, {o.binary_scope, o.source_scope}, symbolizer,
                        &prof);
  if (!o.no_experiments && !o.end_to_end)
    prof.convergence = experiments::convergence_of(prof.experiments);
  if (still_written)
    prof.warnings.push_back(
        std::to_string(child.descendants_left) +
        " process(es) started by the program were still running after the "
        "wait for them (ANDWEORC_DESCENDANT_WAIT_S, default 10 s); the "
        "profile holds their data up to then and their raw files stay in " +
        data_dir);

  int status = shell_status(child);
  if (!stopped.empty()) {
    if (!o.quiet)
      std::cerr << "andweorc: stopped the program: " << stopped << "\n";
    // Stopped by us: the SIGINT is not the program's failure.
    if (child.signal == SIGINT || child.exit_status == 128 + SIGINT) status = 0;
  }
  if (o.end_to_end && format == "json") accumulate_end_to_end(o.output, &prof);
  bool written = format == "coz"
                     ? report::append_coz_file(prof, o.output, &error)
                     : profile::write_profile(prof, o.output, &error);
  if (!written) {
    std::cerr << "andweorc: " << error << "\n";
    return status != 0 ? status : kExitUsage;
  }
  if (!o.quiet) {
    report::TextOptions options;
    options.top = o.top;
    options.color = use_color(2);
    report::write_text(prof, std::cerr, options);
    std::cerr << "Profile written to " << o.output << "\n";
  }
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
                  "perf (perf_event_open), timer (fallback), or auto")
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
                "leader has not changed for 20 experiments and every other "
                "region is below it or tied with it; or flat: no region can "
                "matter")
      ->group(causal);
  cmd->add_option("--max-time", o->max_time,
                  "Stop the program (SIGINT, then SIGTERM) after this long, "
                  "e.g. 60s")
      ->group(causal);
  cmd->add_option("--experiment-time", o->experiment_time,
                  "Initial length of an experiment; then set from the "
                  "progress points' rates (enough visits per experiment)")
      ->capture_default_str()
      ->group(causal);
  cmd->add_option("--seed", o->seed, "Random seed for choosing experiments")
      ->group(causal);
  cmd->add_option("--granularity", o->granularity,
                  "Speed up a single line or a whole function; auto: "
                  "functions first, then the lines of those found significant")
      ->check(CLI::IsMember({"line", "function", "auto"}))
      ->capture_default_str()
      ->group(causal);
  cmd->add_option("--delay-mode", o->delay_mode,
                  "How delayed threads wait: sleep, or spin (keeps their CPU "
                  "share when threads outnumber cores)")
      ->check(CLI::IsMember({"sleep", "spin"}))
      ->capture_default_str()
      ->group(causal);
  return [o, command] { return run_profile(*o, command); };
}

}  // namespace andweorc::cli
