// live_model.h: what `andweorc run --live` / `--live-json` show while the
// program runs: the experiments so far, their ranking and convergence, and
// progress-point rates over time, a flat sampling profile and the flame
// graph of the sampled call stacks.
//
// Fed by the monitor's raw-file tail (ingest/experiment_tail.h): new
// experiments and each poll's progress-point totals, stamped with the time
// the tool saw them. The ranking is experiments::analyze() and the
// convergence is planner::ConvergenceTracker, the same code the final
// report and `run --until-stable` use; nothing is re-estimated here. Not
// thread-safe: one thread feeds it and takes snapshots.
#ifndef ANDWEORC_LIVE_LIVE_MODEL_H_
#define ANDWEORC_LIVE_LIVE_MODEL_H_

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "experiments/analysis.h"
#include "ingest/raw_reader.h"
#include "live/sample_profile.h"
#include "live/stack_profile.h"
#include "planner/convergence.h"
#include "profile/profile.h"

namespace andweorc::live {

// One progress point's rate history, one entry per tick.
struct PointSeries {
  std::string name;
  std::string kind;    // "throughput", or "latency" (rate of arrivals)
  uint64_t total = 0;  // visits (arrivals) so far, all processes
  std::vector<std::pair<double, double>> rates;  // (time s, per second)
};

// The convergence signal at one tick.
struct ConvergenceTick {
  double time_s = 0;
  int experiments = 0;
  std::string state;  // "running", "stable", "flat"
  int regions = 0, in_play = 0;
  std::string leader;  // "FILE:LINE" or a function; "" when none
  double impact = 0, low = 0, high = 0;
};

struct LiveSnapshot {
  double time_s = 0;
  size_t experiments = 0;
  double experiments_per_s = 0;  // over the last rate window
  experiments::Analysis analysis;
  profile::Convergence convergence;  // as the profile would store it
  std::vector<ConvergenceTick> convergence_history;
  std::vector<PointSeries> points;  // sorted by name, then kind
  // The sampling profile: the top functions over the last window_s and
  // over the whole run.
  double samples_window_s = 0;
  uint64_t recent_samples = 0, total_samples = 0;
  std::vector<FunctionShare> recent_functions, total_functions;
  // The flame graphs of the same two spans, pruned for display.
  FlameGraph recent_flame, total_flame;
  double flame_min_share = 0;
  size_t flame_node_limit = 0;  // per tree (StackProfile's cap)
  // The live controls' state in a few words ("experiments paused, pinned
  // to main.cc:42 (1 line)"); "" before any control was applied. Set by
  // the session, not the model (live_session.h).
  std::string controls;
};

struct LiveModelOptions {
  // Rates are measured over about this long: the runtime writes its
  // point totals every 0.5 s and the tool sees them up to a poll late, so
  // a window of several snapshots keeps the rate from jumping.
  double rate_window_s = 2;
  size_t max_history = 3600;     // ticks kept per series (an hour at 1/s)
  double samples_window_s = 10;  // "the last N seconds" of the profile
  size_t top_functions = 20;     // per span, in a snapshot
  // The flame graphs: nodes kept per tree (window, whole run), and what a
  // snapshot shows: nodes of at least this share of the span, at most
  // flame_max_out of them (a page and a stream line stay small).
  size_t stack_max_nodes = StackProfile::kDefaultMaxNodes;
  double flame_min_share = report::kFlameMinShare;
  size_t flame_max_out = report::kFlameMaxFrames;
};

class LiveModel {
 public:
  explicit LiveModel(LiveModelOptions options = {})
      : o_(options),
        samples_(options.samples_window_s),
        stacks_(options.samples_window_s, options.stack_max_nodes) {}

  // New experiments, in the order the tail returned them.
  void add_experiments(const std::vector<profile::Experiment>& fresh,
                       double time_s);
  // Progress-point totals (summed over processes) as seen at time_s.
  void add_point_totals(const std::vector<ingest::RawPoint>& totals,
                        double time_s);
  // Samples seen at time_s, by function.
  void add_samples(const std::map<std::string, uint64_t>& by_function,
                   double time_s) {
    samples_.add(time_s, by_function);
  }
  // Call stacks seen at time_s (function names, outermost first).
  void add_stacks(const StackCounts& stacks, double time_s) {
    stacks_.add(time_s, stacks);
  }
  // Replaces the experiments with the final, complete list (the written
  // profile's), so the last snapshot is the profile's answer.
  void set_experiments(const std::vector<profile::Experiment>& all);
  // Threads of the run so far (the analysis' plausibility bound needs it,
  // as it reads a written profile's `threads`).
  void set_threads(uint64_t threads) { threads_ = threads; }
  // Appends one tick to the histories and returns the state at time_s.
  LiveSnapshot tick(double time_s);

  // A progress point of this name has been seen (any kind).
  bool has_point(const std::string& name) const {
    for (const auto& [key, series] : series_)
      if (key.first == name) return true;
    return false;
  }

  const std::vector<profile::Experiment>& experiments() const {
    return experiments_;
  }

 private:
  uint64_t threads_ = 0;
  struct Observed {  // a point's total when the tool first saw it
    double time_s;
    uint64_t total;
  };
  struct Series {
    std::string kind;
    std::vector<Observed> changes;  // kept for rate_window_s and one more
    std::vector<std::pair<double, double>> rates;
  };
  double rate_now(const Series& s, double time_s) const;

  LiveModelOptions o_;
  std::vector<profile::Experiment> experiments_;
  std::vector<double> experiment_times_;  // when each was seen
  planner::ConvergenceTracker tracker_;
  std::map<std::pair<std::string, std::string>, Series> series_;
  std::vector<ConvergenceTick> convergence_history_;
  SampleProfile samples_;
  StackProfile stacks_;
};

}  // namespace andweorc::live

#endif  // ANDWEORC_LIVE_LIVE_MODEL_H_
