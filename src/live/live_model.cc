// live_model.cc: see live_model.h.
#include "live/live_model.h"

#include <algorithm>

#include "andweorc/andweorc.h"
#include "experiments/convergence_summary.h"
#include "experiments/observations.h"

namespace andweorc::live {
namespace {

// Experiments per second are counted over this long (experiments last
// from tens of milliseconds to seconds, so a short window would flicker).
constexpr double kExperimentRateWindowS = 10;

}  // namespace

void LiveModel::add_experiments(const std::vector<profile::Experiment>& fresh,
                                double time_s) {
  for (const profile::Experiment& e : fresh) {
    experiments_.push_back(e);
    experiment_times_.push_back(time_s);
    tracker_.add(experiments::to_observation(e));
  }
}

void LiveModel::set_experiments(const std::vector<profile::Experiment>& all) {
  double last = experiment_times_.empty() ? 0 : experiment_times_.back();
  experiments_.clear();
  experiment_times_.clear();
  tracker_ = planner::ConvergenceTracker(tracker_.options());
  add_experiments(all, last);
}

void LiveModel::add_point_totals(const std::vector<ingest::RawPoint>& totals,
                                 double time_s) {
  for (const ingest::RawPoint& p : totals) {
    // A latency point's END count is its BEGIN's departures: its rate is
    // the BEGIN's (arrivals), so only BEGIN and throughput points get a
    // series.
    if (p.kind == ANDWEORC_KIND_END) continue;
    std::string kind = p.kind == ANDWEORC_KIND_BEGIN ? "latency" : "throughput";
    Series& s = series_[{p.name, kind}];
    s.kind = kind;
    if (s.changes.empty() || s.changes.back().total != p.value)
      s.changes.push_back({time_s, p.value});
    // Keep the changes of the window and the one before it.
    size_t keep = 0;
    while (keep + 2 < s.changes.size() &&
           s.changes[keep + 1].time_s < time_s - o_.rate_window_s)
      ++keep;
    s.changes.erase(s.changes.begin(), s.changes.begin() + keep);
  }
}

// Between the newest change seen and the oldest one within the window
// before it (or, when there is none, the one just before it): the
// runtime's totals arrive in steps every 0.5 s, so dividing by the time
// between two observed steps, not by the window, keeps the rate steady.
// No change for a whole window: the point has stalled, 0.
double LiveModel::rate_now(const Series& s, double time_s) const {
  if (s.changes.size() < 2) return 0;
  const Observed& last = s.changes.back();
  if (time_s - last.time_s > o_.rate_window_s) return 0;
  size_t first = s.changes.size() - 2;
  while (first > 0 &&
         s.changes[first - 1].time_s >= last.time_s - o_.rate_window_s)
    --first;
  const Observed& from = s.changes[first];
  double dt = last.time_s - from.time_s;
  return dt > 0 ? double(last.total - from.total) / dt : 0;
}

LiveSnapshot LiveModel::tick(double time_s) {
  LiveSnapshot out;
  out.time_s = time_s;
  out.experiments = experiments_.size();
  double window = std::min(kExperimentRateWindowS, time_s);
  if (window > 0) {
    size_t recent =
        size_t(std::count_if(experiment_times_.begin(), experiment_times_.end(),
                             [&](double t) { return t > time_s - window; }));
    out.experiments_per_s = double(recent) / window;
  }
  if (!experiments_.empty())
    out.convergence =
        experiments::to_profile(tracker_.status(), tracker_.options());
  profile::Profile p;
  p.experiments = experiments_;
  p.threads = threads_;
  p.convergence = out.convergence;
  out.analysis = experiments::analyze(p);

  ConvergenceTick c;
  c.time_s = time_s;
  c.experiments = int(experiments_.size());
  c.state = out.convergence.state;
  c.regions = out.convergence.regions;
  c.in_play = out.convergence.in_play;
  c.leader = out.convergence.leader;
  c.impact = out.convergence.impact;
  c.low = out.convergence.ci_low;
  c.high = out.convergence.ci_high;
  convergence_history_.push_back(c);
  if (convergence_history_.size() > o_.max_history)
    convergence_history_.erase(convergence_history_.begin());
  out.convergence_history = convergence_history_;

  out.samples_window_s = samples_.window_s();
  out.recent_samples = samples_.recent_samples(time_s);
  out.total_samples = samples_.total_samples();
  out.recent_functions = samples_.recent(time_s, o_.top_functions);
  out.total_functions = samples_.total(o_.top_functions);
  stacks_.advance(time_s);
  out.recent_flame = stacks_.recent(o_.flame_min_share, o_.flame_max_out);
  out.total_flame = stacks_.total(o_.flame_min_share, o_.flame_max_out);
  out.flame_min_share = o_.flame_min_share;
  out.flame_node_limit = stacks_.max_nodes();

  for (auto& [key, s] : series_) {
    s.rates.emplace_back(time_s, rate_now(s, time_s));
    if (s.rates.size() > o_.max_history) s.rates.erase(s.rates.begin());
    PointSeries ps;
    ps.name = key.first;
    ps.kind = s.kind;
    ps.total = s.changes.empty() ? 0 : s.changes.back().total;
    ps.rates = s.rates;
    out.points.push_back(std::move(ps));
  }
  return out;
}

}  // namespace andweorc::live
