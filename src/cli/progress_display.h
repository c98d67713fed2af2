// progress_display.h: a one-line status on the terminal while `run` runs.
//
// Shows elapsed time, experiments done and the lines leading so far, read
// from the raw files the runtime streams (ingest/experiment_tail.h). It
// writes only to standard error, and only when that is a terminal: the
// program's standard output is never touched, and logs stay clean.
#ifndef ANDWEORC_CLI_PROGRESS_DISPLAY_H_
#define ANDWEORC_CLI_PROGRESS_DISPLAY_H_

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "profile/profile.h"

namespace andweorc::cli {

struct ProgressState {
  double elapsed_s = 0;
  bool experiments_enabled = true;
  size_t experiments = 0;            // completed so far
  std::vector<std::string> leaders;  // e.g. "main.cc:12 (impact 0.91)"
};

// The status line, at most `width` columns (no newline, no escapes).
std::string format_progress(const ProgressState& state, size_t width);

// Up to `n` lines whose impact is significant so far, best first.
std::vector<std::string> leading_lines(
    const std::vector<profile::Experiment>& experiments, size_t n);

// Redraws the status line on `fd` until stop() (or destruction), which
// erases it so the summary starts on a clean line.
class ProgressDisplay {
 public:
  ProgressDisplay(std::string data_dir, bool experiments_enabled, int fd);
  ~ProgressDisplay() { stop(); }
  ProgressDisplay(const ProgressDisplay&) = delete;
  ProgressDisplay& operator=(const ProgressDisplay&) = delete;
  void stop();

 private:
  void loop();

  std::string data_dir_;
  bool experiments_enabled_;
  int fd_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace andweorc::cli

#endif  // ANDWEORC_CLI_PROGRESS_DISPLAY_H_
