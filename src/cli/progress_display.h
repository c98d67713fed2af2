// progress_display.h: watches a `run` while it runs: the one-line status on
// the terminal, the stopping rule (--until-stable, --max-time) and the
// early warning about a progress point that is never reached.
//
// It reads the experiments from the raw files the runtime streams
// (ingest/experiment_tail.h) and feeds them to the planner's convergence
// tracker (planner/convergence.h), the same rules the preloaded planner
// applies. The status line shows elapsed time, experiments per second, the
// regions still in play and the leader with its interval. It writes only to
// standard error: the status line only when that is a terminal, warnings
// unless quiet. The program's standard output is never touched.
#ifndef ANDWEORC_CLI_PROGRESS_DISPLAY_H_
#define ANDWEORC_CLI_PROGRESS_DISPLAY_H_

#include <atomic>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "cli/stop_wait.h"
#include "ingest/experiment_tail.h"
#include "planner/convergence.h"
#include "profile/profile.h"

namespace andweorc::cli {

struct ProgressState {
  double elapsed_s = 0;
  bool experiments_enabled = true;
  size_t experiments = 0;        // completed so far
  double experiments_per_s = 0;  // since the first one
  int in_play = 0;               // regions still in play
  int regions = 0;               // regions with a paired block
  std::string leader;  // e.g. "main.cc:12 0.91 [0.85, 0.97]"; "" if none
  std::string state;   // "stable", "flat" or "" while running
};

// The status line, at most `width` columns (no newline, no escapes).
std::string format_progress(const ProgressState& state, size_t width);

// The state's leader in a few columns: "FILE:LINE IMPACT [LOW, HIGH]" with
// the file's base name; "" when there is no leader.
std::string leader_text(const planner::ConvergenceStatus& s);

// The early warning about progress points (empty when all is well):
// `points` lists each point seen in `experiments` and whether any of them
// reached it.
std::string unreached_warning(
    const std::vector<profile::Experiment>& experiments, double seconds);

struct MonitorOptions {
  std::string data_dir;
  bool experiments_enabled = true;
  bool end_to_end = false;
  int fd = 2;
  bool draw = false;          // the status line (a terminal)
  bool warn = true;           // warnings on fd (not --quiet)
  bool until_stable = false;  // stop when the state is stable or flat
  double max_time_s = 0;      // stop after this long; 0: never
  double warn_after_s = 2;    // when to check that points are reached
  // Asks the program to stop: first SIGINT, then, if it still runs
  // escalate_after_s later (SIGINT is ignored by jobs a script starts in
  // the background), SIGTERM.
  std::function<void(int signal)> stop_program;
  double escalate_after_s = 3;
  // Called after each poll of the raw files (the live view, src/live):
  // seconds since the start, the new experiments, and the tail (point
  // totals, samples: it keeps them when observe is set).
  std::function<void(double, const std::vector<profile::Experiment>&,
                     ingest::ExperimentTail&)>
      observe;
};

class ProgressDisplay {
 public:
  explicit ProgressDisplay(MonitorOptions options);
  ~ProgressDisplay() { stop(); }
  ProgressDisplay(const ProgressDisplay&) = delete;
  ProgressDisplay& operator=(const ProgressDisplay&) = delete;
  // Stops watching and erases the status line.
  void stop();
  // Why the program was stopped ("" when it was not).
  std::string stopped_because() const;
  // The convergence state that made --until-stable stop the program; the
  // profile keeps it: experiments that end while the program stops (3 s
  // and more when it ignores SIGINT) can bring in new regions, and the
  // state over all of them may be "running" again (memcached: stable at
  // 96 experiments, stopped, written as "not stable" at 110).
  std::optional<profile::Convergence> convergence_at_stop() const;

 private:
  void loop();
  void request_stop(const std::string& why, double now_s,
                    std::optional<profile::Convergence> convergence = {});

  MonitorOptions o_;
  StopWait stop_;
  mutable std::mutex mu_;  // guards stopped_because_, convergence_at_stop_
  std::string stopped_because_;
  std::optional<profile::Convergence> convergence_at_stop_;
  double stop_requested_s_ = -1;
  bool escalated_ = false;
  std::thread thread_;
};

}  // namespace andweorc::cli

#endif  // ANDWEORC_CLI_PROGRESS_DISPLAY_H_
