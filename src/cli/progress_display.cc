// progress_display.cc: see progress_display.h.
#include "cli/progress_display.h"

#include <fmt/format.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <utility>

#include "experiments/convergence_summary.h"
#include "experiments/observations.h"
#include "ingest/experiment_tail.h"
#include "planner/region_key.h"

namespace andweorc::cli {
namespace {

using Clock = std::chrono::steady_clock;

// Redraw and read new experiments often enough for the clock to tick and
// for --until-stable to stop the program within a fraction of a second.
constexpr auto kRedraw = std::chrono::milliseconds(250);

size_t terminal_width(int fd) {
  winsize ws{};
  if (ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) return ws.ws_col;
  return 80;
}

std::string elapsed_text(double s) {
  if (s < 60) return fmt::format("{:.0f}s", s);
  return fmt::format("{}m{:02d}s", int(s) / 60, int(s) % 60);
}

// Best effort: a write cut short by a signal or a full pipe just drops a
// frame of the display.
void write_all(int fd, const std::string& s) {
  [[maybe_unused]] ssize_t n = ::write(fd, s.data(), s.size());
}

}  // namespace

std::string format_progress(const ProgressState& state, size_t width) {
  std::string line = "andweorc: " + elapsed_text(state.elapsed_s);
  if (state.experiments_enabled) {
    line += fmt::format(", {} experiment{}", state.experiments,
                        state.experiments == 1 ? "" : "s");
    if (state.experiments > 0)
      line += fmt::format(" ({:.1f}/s)", state.experiments_per_s);
    if (state.regions > 0)
      line += fmt::format(", {} of {} region{} in play", state.in_play,
                          state.regions, state.regions == 1 ? "" : "s");
    if (!state.leader.empty())
      line += ", leader " + state.leader;
    else if (state.experiments > 0)
      line += ", no leader yet";
    if (!state.state.empty()) line += ", " + state.state;
  } else {
    line += ", sampling";
  }
  // Columns, not bytes: cut at a character boundary (UTF-8 continuation
  // bytes are 10xxxxxx) and never wrap, or the next redraw cannot erase it.
  if (width == 0) return "";
  size_t columns = 0, i = 0;
  for (; i < line.size(); ++i) {
    if ((static_cast<unsigned char>(line[i]) & 0xC0) == 0x80) continue;
    if (columns == width - 1) break;
    ++columns;
  }
  return line.substr(0, i);
}

std::string leader_text(const planner::ConvergenceStatus& s) {
  if (s.leader.empty()) return "";
  std::string where = planner::region_label(s.leader);
  size_t colon = where.rfind(':');
  if (planner::is_line_region_key(s.leader) && colon != std::string::npos)
    where = std::filesystem::path(where.substr(0, colon)).filename().string() +
            where.substr(colon);
  const planner::SlopeEstimate& e = s.leader_estimate;
  return fmt::format("{} {:.2f} [{:.2f}, {:.2f}]", where, e.slope, e.low,
                     e.high);
}

std::string unreached_warning(
    const std::vector<profile::Experiment>& experiments, double seconds) {
  if (experiments.empty())
    return fmt::format(
        "andweorc: no experiment has finished after {:.0f} s: no progress "
        "point has been reached yet, or no sampled line is in scope. Mark "
        "finished work with ANDWEORC_PROGRESS(\"name\") (or COZ_PROGRESS) "
        "where the program does it, build with -g, check --binary-scope and "
        "--source-scope, or use --end-to-end for a program without progress "
        "points.",
        seconds);
  std::map<std::string, bool> reached;  // by point name
  for (const profile::Experiment& e : experiments)
    for (const profile::PointDelta& d : e.points)
      reached[d.name] = reached[d.name] || experiments::point_count(d).events;
  std::string out;
  for (const auto& [name, ok] : reached) {
    if (ok) continue;
    out += fmt::format(
        "andweorc: progress point \"{}\" was not reached in the first {:.0f} "
        "s ({} experiment{}): the code that marks it does not run with this "
        "input, or runs only at the end. Check the workload and the point's "
        "name; its impacts stay empty until it is reached.\n",
        name, seconds, experiments.size(), experiments.size() == 1 ? "" : "s");
  }
  if (!out.empty()) out.pop_back();
  return out;
}

ProgressDisplay::ProgressDisplay(MonitorOptions options)
    : o_(std::move(options)), thread_([this] { loop(); }) {}

void ProgressDisplay::stop() {
  if (stop_.stop() && thread_.joinable()) thread_.join();
}

std::string ProgressDisplay::stopped_because() const {
  std::lock_guard<std::mutex> lock(mu_);
  return stopped_because_;
}

std::optional<profile::Convergence> ProgressDisplay::convergence_at_stop()
    const {
  std::lock_guard<std::mutex> lock(mu_);
  return convergence_at_stop_;
}

void ProgressDisplay::request_stop(
    const std::string& why, double now_s,
    std::optional<profile::Convergence> convergence) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!stopped_because_.empty()) return;
    stopped_because_ = why;
    convergence_at_stop_ = std::move(convergence);
  }
  stop_requested_s_ = now_s;
  if (o_.stop_program) o_.stop_program(SIGINT);
}

void ProgressDisplay::loop() {
  ingest::ExperimentTail tail(o_.data_dir);
  tail.keep_samples(bool(o_.observe));
  std::vector<profile::Experiment> seen;
  planner::ConvergenceTracker tracker;
  ProgressState state;
  state.experiments_enabled = o_.experiments_enabled;
  auto start = Clock::now();
  bool warned = false, drawn = false;
  while (!stop_.wait_for(kRedraw)) {
    auto now = Clock::now();
    state.elapsed_s = std::chrono::duration<double>(now - start).count();
    std::vector<profile::Experiment> fresh;
    if (o_.experiments_enabled || o_.observe) fresh = tail.poll();
    if (o_.observe) o_.observe(state.elapsed_s, fresh, tail);
    if (o_.experiments_enabled) {
      for (const profile::Experiment& e : fresh)
        tracker.add(experiments::to_observation(e));
      seen.insert(seen.end(), fresh.begin(), fresh.end());
      const planner::ConvergenceStatus& s = tracker.status();
      state.experiments = seen.size();
      state.experiments_per_s =
          state.elapsed_s > 0 ? double(seen.size()) / state.elapsed_s : 0;
      state.in_play = s.in_play;
      state.regions = s.regions;
      state.leader = leader_text(s);
      state.state = s.state == planner::ConvergenceState::kRunning
                        ? ""
                        : planner::state_name(s.state);
      if (!warned && !o_.end_to_end && state.elapsed_s >= o_.warn_after_s) {
        warned = true;
        std::string w = unreached_warning(seen, o_.warn_after_s);
        if (o_.warn && !w.empty())
          write_all(o_.fd, (drawn ? "\r\033[K" : "") + w + "\n");
      }
      if (o_.until_stable && s.state != planner::ConvergenceState::kRunning) {
        profile::Convergence c = experiments::to_profile(s, tracker.options());
        request_stop(experiments::convergence_text(c), state.elapsed_s, c);
      }
    }
    if (o_.max_time_s > 0 && state.elapsed_s >= o_.max_time_s)
      request_stop(fmt::format("--max-time {:g}s reached", o_.max_time_s),
                   state.elapsed_s);
    if (stop_requested_s_ >= 0 && !escalated_ &&
        state.elapsed_s >= stop_requested_s_ + o_.escalate_after_s) {
      escalated_ = true;
      if (o_.stop_program) o_.stop_program(SIGTERM);
    }
    // \r and erase-line: the status always redraws over itself.
    if (o_.draw) {
      write_all(o_.fd,
                "\r\033[K" + format_progress(state, terminal_width(o_.fd)));
      drawn = true;
    }
  }
  if (drawn) write_all(o_.fd, "\r\033[K");
}

}  // namespace andweorc::cli
