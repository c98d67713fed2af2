// progress_display.cc: see progress_display.h.
#include "cli/progress_display.h"

#include <fmt/format.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>

#include "experiments/analysis.h"
#include "ingest/experiment_tail.h"

namespace andweorc::cli {
namespace {

using Clock = std::chrono::steady_clock;

// Redraw often enough for the clock to tick, re-analyze less often: the
// analysis is linear in the experiments so far.
constexpr auto kRedraw = std::chrono::milliseconds(250);
constexpr auto kReanalyze = std::chrono::seconds(1);
constexpr size_t kLeaders = 2;

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
    if (!state.leaders.empty()) {
      line += ", leading: ";
      for (size_t i = 0; i < state.leaders.size(); ++i)
        line += (i ? ", " : "") + state.leaders[i];
    } else if (state.experiments > 0) {
      line += ", no significant line yet";
    }
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

std::vector<std::string> leading_lines(
    const std::vector<profile::Experiment>& experiments, size_t n) {
  profile::Profile p;
  p.experiments = experiments;
  experiments::Analysis a = experiments::analyze(p);
  // The point the most experiments reached stands for the program.
  const experiments::PointSummary* best = nullptr;
  for (const auto& s : a.points)
    if (!best || s.reached > best->reached) best = &s;
  std::vector<std::string> out;
  if (!best) return out;
  for (const auto& m : a.impacts) {
    if (out.size() == n) break;
    if (m.point != best->name || m.kind != best->kind || !m.significant)
      continue;
    std::string where = std::filesystem::path(m.file).filename().string();
    if (m.line > 0 && m.granularity == "line")
      where += fmt::format(":{}", m.line);
    else if (!m.function.empty())
      where = m.function;
    out.push_back(fmt::format("{} (impact {:.2f})", where, m.slope));
  }
  return out;
}

ProgressDisplay::ProgressDisplay(std::string data_dir, bool experiments_enabled,
                                 int fd)
    : data_dir_(std::move(data_dir)),
      experiments_enabled_(experiments_enabled),
      fd_(fd),
      thread_([this] { loop(); }) {}

void ProgressDisplay::stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_) return;
    stopping_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void ProgressDisplay::loop() {
  ingest::ExperimentTail tail(data_dir_);
  std::vector<profile::Experiment> seen;
  ProgressState state;
  state.experiments_enabled = experiments_enabled_;
  auto start = Clock::now();
  auto next_analysis = start + kReanalyze;
  bool drawn = false;
  std::unique_lock<std::mutex> lock(mu_);
  while (!cv_.wait_for(lock, kRedraw, [this] { return stopping_; })) {
    lock.unlock();
    auto now = Clock::now();
    state.elapsed_s = std::chrono::duration<double>(now - start).count();
    if (experiments_enabled_ && now >= next_analysis) {
      std::vector<profile::Experiment> fresh = tail.poll();
      if (!fresh.empty()) {
        seen.insert(seen.end(), fresh.begin(), fresh.end());
        state.experiments = seen.size();
        state.leaders = leading_lines(seen, kLeaders);
      }
      next_analysis = now + kReanalyze;
    }
    // \r and erase-line: the status always redraws over itself.
    write_all(fd_, "\r\033[K" + format_progress(state, terminal_width(fd_)));
    drawn = true;
    lock.lock();
  }
  if (drawn) write_all(fd_, "\r\033[K");
}

}  // namespace andweorc::cli
