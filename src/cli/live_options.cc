// live_options.cc: see live_options.h.
#include "cli/live_options.h"

#include <CLI/CLI.hpp>
#include <chrono>
#include <filesystem>
#include <functional>
#include <iostream>
#include <memory>
#include <mutex>

#include "cli/duration.h"
#include "cli/probe_options.h"
#include "cli/run_ingest.h"
#include "ingest/raw_reader.h"
#include "profile/profile_json.h"

namespace andweorc::cli {

void add_live_options(CLI::App* cmd, RunOptions* o) {
  auto* group = "Live view (docs/live.md)";
  cmd->add_option("--live", o->live_address,
                  "Serve a live page of the run on this machine: the "
                  "ranking, convergence, progress-point rates and sampling "
                  "profile, updated every second. Optional ADDR:PORT, "
                  "loopback only "
                  "(default 127.0.0.1 and a free port); the URL, with its "
                  "access token, is printed on standard error")
      ->expected(0, 1)
      ->type_name("[ADDR:PORT]")
      ->group(group);
  cmd->add_option("--live-json", o->live_json,
                  "Write the live state as JSON lines, about one a second, "
                  "to FILE or - (standard output); a slow reader loses "
                  "lines (counted in \"dropped\"), never the profile")
      ->type_name("FILE|-")
      ->group(group);
  cmd->add_flag("--live-tty", o->live_tty,
                "Show a compact live view on standard error, redrawn every "
                "second: experiments, convergence, progress-point rates, "
                "the top causal lines (--top) and the sampling profile of "
                "the last 10 s; replaces the status line. Keys: p "
                "pause/resume, s snapshot, q close the view (when the "
                "program does not read that terminal). Standard error "
                "must be a terminal")
      ->group(group);
}

void note_live_options(CLI::App* cmd, RunOptions* o) {
  o->live = cmd->count("--live") > 0;
}

std::string snapshot_path(const std::string& output, int n) {
  std::filesystem::path p(output);
  std::string ext = p.extension() == ".json" ? ".json" : "";
  std::string stem = ext.empty() && p.extension() != ".coz"
                         ? p.filename().string()
                         : p.stem().string();
  return (p.parent_path() / (stem + ".snapshot-" + std::to_string(n) + ".json"))
      .string();
}

std::vector<std::string> live_control_environment(
    const live::LiveSession* session) {
  if (session == nullptr || session->control_path().empty()) return {};
  return {"ANDWEORC_CONTROL=" + session->control_path()};
}

namespace {

// A profile of the raw records so far, written as `run` writes the final
// one (profile_of_run), the program still running.
std::function<bool(std::string*, std::string*)> snapshot_writer(
    const RunOptions& o, const RunSettings& settings,
    const std::vector<std::string>& command, const std::string& data_dir,
    std::function<void(profile::Profile*)> decorate) {
  auto start_wall = std::chrono::system_clock::now();
  auto start = std::chrono::steady_clock::now();
  auto count = std::make_shared<int>(0);
  return [o, settings, command, data_dir, start_wall, start, count, decorate](
             std::string* path, std::string* error) {
    std::vector<ingest::RawProcess> processes;
    if (!ingest::read_raw_dir(data_dir, &processes, error)) return false;
    ChildResult child;
    child.started = true;
    double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    profile::Profile prof = profile_of_run(
        o, settings, {command, start_wall, seconds, child, data_dir},
        processes);
    // Its processes are still running: their raw files have no end yet,
    // which the ingest reports as an abnormal end (profile_builder.cc).
    std::erase_if(prof.warnings, [](const std::string& w) {
      return w.find("did not shut down normally") != std::string::npos;
    });
    if (decorate) decorate(&prof);
    prof.warnings.push_back(
        "a snapshot taken while the program was running (andweorc --live): "
        "the records up to then; the exit status is not known");
    *path = snapshot_path(o.output, ++*count);
    return profile::write_profile(prof, *path, error);
  };
}

}  // namespace

std::unique_ptr<live::LiveSession> start_live(
    const RunOptions& o, const RunSettings& settings,
    const std::vector<std::string>& command, const std::string& data_dir,
    bool* failed, std::string* error,
    std::function<void(profile::Profile*)> decorate, const std::string& binary,
    bool join, bool tty_keys) {
  *failed = false;
  if (!o.live && o.live_json.empty() && !o.live_tty) return nullptr;
  live::LiveOptions lo;
  lo.json_path = o.live_json;
  lo.tty = o.live_tty;
  lo.tty_fd = 2;
  lo.tty_top = o.top;
  lo.title = command.empty() ? "" : command[0];
  for (size_t i = 1; i < command.size(); ++i) lo.title += " " + command[i];
  lo.tty_keys = o.live_tty && tty_keys;
  if (o.live || lo.tty_keys) {
    if (o.live) {
      lo.http = live::parse_listen_address(o.live_address, error);
      if (!lo.http) {
        *failed = true;
        return nullptr;
      }
    }
    // Pause and pin act on the planner's experiments: none without them.
    if (join) {
      // The session's own file, if its run made one.
      lo.join_control = true;
      if (std::filesystem::exists(data_dir + "/control"))
        lo.control_path = data_dir + "/control";
    } else if (!o.no_experiments && !o.end_to_end) {
      lo.control_path = data_dir + "/control";
    }
    lo.snapshot =
        snapshot_writer(o, settings, command, data_dir, std::move(decorate));
    // The page's sample period: a whole multiple of this run's (a session
    // joined by `attach` keeps its own run's period: not offered there).
    const auto base_ns = parse_duration_ns(o.sample_period);
    if (!join && base_ns && *base_ns > 0)
      lo.sample_period = [base = *base_ns](const std::string& text,
                                           uint32_t* multiple,
                                           std::string* error) {
        return period_multiple(text, base, multiple, error);
      };
    // Probes from the page: resolved here as --progress is, patched by the
    // coordinator (which runs with the controls only).
    const std::string exe = !binary.empty()   ? binary
                            : command.empty() ? std::string()
                                              : find_executable(command[0]);
    if (!lo.control_path.empty() && !exe.empty())
      lo.resolve_probe = [exe](const std::string& kind, const std::string& name,
                               const std::string& target, std::string* lines,
                               size_t* sites, std::string* error) {
        return live_probe_lines(exe, kind, name, target, lines, sites, error);
      };
  }
  auto session = live::LiveSession::start(lo, error);
  if (!session) {
    *failed = true;
    return nullptr;
  }
  if (o.live) std::cerr << "andweorc: live view at " << session->url() << "\n";
  return session;
}

void follow_raw_files(std::optional<ProgressDisplay>* progress,
                      live::LiveSession* live, const std::string& data_dir,
                      bool experiments) {
  if (live == nullptr) return;
  MonitorOptions mo;
  mo.data_dir = data_dir;
  mo.experiments_enabled = experiments;
  mo.warn = false;
  mo.observe = [live](double t, const auto& fresh, auto& tail) {
    live->observe(t, fresh, tail);
  };
  progress->emplace(mo);
}

}  // namespace andweorc::cli
