// attach_session.cc: see attach_session.h.
#include "cli/attach_session.h"

#include <chrono>
#include <filesystem>
#include <iostream>
#include <thread>

#include "cli/detached_session.h"
#include "cli/exit_codes.h"
#include "cli/live_options.h"
#include "cli/progress_display.h"
#include "cli/run_ingest.h"
#include "ingest/raw_reader.h"
#include "profile/profile_json.h"

namespace andweorc::cli {

namespace {

// The final state for the live outputs: the session's written profile
// when the program has ended and it is there, else the records so far.
profile::Profile state_at_release(const RunOptions& o,
                                  const RunSettings& settings, const Session& s,
                                  const std::string& dir, double seconds) {
  std::string error;
  if (std::optional<Session> now = read_session(dir, &error))
    if (now->state == "finished" && now->profile_written)
      if (auto read = profile::read_profile(now->output); read.ok())
        return std::move(*read.profile);
  std::vector<ingest::RawProcess> processes;
  ingest::read_raw_dir(dir, &processes, &error);
  RunRecord record{s.command, std::chrono::system_clock::now(), seconds,
                   ChildResult{}, dir};
  record.child.started = true;
  profile::Profile prof = profile_of_run(o, settings, record, processes);
  std::erase_if(prof.warnings, [](const std::string& w) {
    return w.find("did not shut down normally") != std::string::npos;
  });
  return prof;
}

}  // namespace

int follow_detached_session(int pid, const std::string& dir,
                            const RunOptions& o,
                            std::optional<uint64_t> duration_ns,
                            const std::string& duration_text,
                            void (*on_interrupt)(int),
                            volatile sig_atomic_t* interrupted) {
  std::string error;
  std::optional<Session> s = read_session(dir, &error);
  if (!s) {
    std::cerr << "andweorc: cannot attach: " << error << "\n";
    return kExitUsage;
  }
  if (s->state != "running" || !process_running(s->pid)) {
    std::cerr << "andweorc: cannot attach: the detached session in " << dir
              << " is not running (andweorc status " << dir << ")\n";
    return kExitUsage;
  }
  if (!o.probes.progress.empty() || !o.probes.latency.empty() ||
      !o.probes.trace.empty()) {
    std::cerr << "andweorc: attach to a detached run: its probes were set "
                 "when it started; --progress, --latency and --trace do not "
                 "apply (add a progress point from the live page)\n";
    return kExitUsage;
  }
  std::optional<RunSettings> settings = check_run_options(o, &error);
  if (!settings) {
    std::cerr << "andweorc: " << error << "\n";
    return kExitUsage;
  }
  std::error_code ec;
  const std::string exe =
      std::filesystem::read_symlink("/proc/" + std::to_string(pid) + "/exe", ec)
          .string();
  bool live_failed = false;
  std::unique_ptr<live::LiveSession> live =
      start_live(o, *settings, s->command, dir, &live_failed, &error, nullptr,
                 exe, /*join=*/true, /*tty_keys=*/true);
  if (live_failed) {
    std::cerr << "andweorc: " << error << "\n";
    return kExitUsage;
  }
  // After --live-tty's handlers, which would end the tool at once: a
  // release must still undo what this attach changed.
  struct sigaction sa {};
  sa.sa_handler = on_interrupt;
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  auto start = std::chrono::steady_clock::now();
  std::optional<ProgressDisplay> progress;
  follow_raw_files(&progress, live.get(), dir, !o.no_experiments);
  if (!o.quiet)
    std::cerr << "andweorc: following the detached session " << dir
              << " (process " << s->pid << ", profiled since it started; "
              << "nothing injected); "
              << (duration_ns ? "for " + duration_text
                              : std::string("Ctrl-C releases it"))
              << "; its profile is written when the program ends: " << s->output
              << "\n";
  bool ended = false;
  while (!*interrupted) {
    if (!process_running(s->pid)) {
      ended = true;
      break;
    }
    auto elapsed = std::chrono::steady_clock::now() - start;
    if (duration_ns &&
        uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(elapsed)
                     .count()) >= *duration_ns)
      break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  // Leave the session as it was: our probes out, our pause or pin undone.
  int left = 0;
  if (live && !ended) left = live->release_controls();
  if (progress) progress->stop();
  if (live) live->program_ended();
  if (ended) {
    // Said even with -q: the session ended while followed. Its supervisor
    // writes the profile: wait a little for it, for the final state.
    std::cerr << "andweorc: process " << s->pid
              << " ended while followed; the session writes its profile\n";
    for (int i = 0; i < 100; ++i) {
      std::optional<Session> now = read_session(dir, &error);
      if (now && now->state == "finished") break;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  }
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  if (live)
    live->finish(seconds, state_at_release(o, *settings, *s, dir, seconds));
  if (left > 0)
    std::cerr << "andweorc: " << left
              << " probe(s) added from the page could not be removed in time; "
                 "they stay in the program\n";
  if (!o.quiet && !ended)
    std::cerr << "andweorc: released the session " << dir << "; process "
              << s->pid << " runs on under its profiler\n";
  return kExitOk;
}

}  // namespace andweorc::cli
