// point_speed.cc: see point_speed.h.
#include "compare/point_speed.h"

#include <algorithm>
#include <cmath>

#include "statistics/statistics.h"

namespace andweorc::compare {
namespace {

struct Obs {
  double log_value = 0;
  double weight = 0;  // virtual duration, s
};

// The 0% experiments of one run for the point, in the order they ran.
std::vector<Obs> baseline_observations(const profile::Profile& p,
                                       const std::string& name,
                                       profile::PointKind kind) {
  std::vector<Obs> out;
  for (const profile::Experiment& e : p.experiments) {
    if (e.speedup_pct != 0) continue;
    double d = e.virtual_duration_s();
    if (!(d > 0) || !std::isfinite(d)) continue;
    for (const profile::PointDelta& pd : e.points) {
      if (pd.name != name || pd.kind != kind) continue;
      double value = 0;
      if (kind == profile::PointKind::kThroughput) {
        if (pd.visits == 0) break;
        value = d / static_cast<double>(pd.visits);
      } else {
        if (pd.arrivals == 0) break;
        double in_flight = (static_cast<double>(pd.in_flight_start) +
                            static_cast<double>(pd.in_flight_end)) /
                           2;
        value = in_flight / (static_cast<double>(pd.arrivals) / d);
      }
      if (value > 0 && std::isfinite(value)) {
        out.push_back({std::log(value), d});
      }
      break;
    }
  }
  return out;
}

struct RunEstimate {
  double mean = 0, var = 0, dof = 0;
  int experiments = 0;
};

std::optional<RunEstimate> run_estimate(const std::vector<Obs>& obs) {
  if (obs.size() < 2) return std::nullopt;
  double wsum = 0, sum = 0;
  for (const Obs& o : obs) {
    wsum += o.weight;
    sum += o.weight * o.log_value;
  }
  RunEstimate r;
  r.mean = sum / wsum;
  r.experiments = static_cast<int>(obs.size());
  // Consecutive batches of (nearly) equal experiment counts.
  size_t batches = std::min<size_t>(kBatches, obs.size());
  std::vector<double> bw(batches, 0), bs(batches, 0);
  for (size_t i = 0; i < obs.size(); ++i) {
    size_t b = i * batches / obs.size();
    bw[b] += obs[i].weight;
    bs[b] += obs[i].weight * obs[i].log_value;
  }
  // Batch b's mean has variance sigma^2 / W_b; sum W_b (m_b - m)^2 / (B - 1)
  // estimates sigma^2, and var(m) = sigma^2 / sum W_b.
  double ss = 0;
  for (size_t b = 0; b < batches; ++b) {
    double mb = bs[b] / bw[b];
    ss += bw[b] * (mb - r.mean) * (mb - r.mean);
  }
  r.dof = static_cast<double>(batches - 1);
  r.var = ss / r.dof / wsum;
  return r;
}

}  // namespace

std::optional<SideSpeed> side_speed(
    const std::vector<const profile::Profile*>& runs, const std::string& name,
    profile::PointKind kind) {
  std::vector<RunEstimate> est;
  for (const profile::Profile* p : runs) {
    if (auto r = run_estimate(baseline_observations(*p, name, kind))) {
      est.push_back(*r);
    }
  }
  if (est.empty()) return std::nullopt;
  SideSpeed s;
  double k = static_cast<double>(est.size());
  s.runs = static_cast<int>(est.size());
  double var_sum = 0, var4 = 0;
  for (const RunEstimate& r : est) {
    s.log_mean += r.mean / k;
    s.experiments += r.experiments;
    var_sum += r.var;
    var4 += r.var * r.var / r.dof;
  }
  // Within runs: var(mean of k) = sum var_r / k^2, Satterthwaite dof.
  s.var = var_sum / (k * k);
  s.dof = var4 > 0 ? var_sum * var_sum / var4 : 1;
  if (est.size() >= 2) {
    double ss = 0;
    for (const RunEstimate& r : est) {
      ss += (r.mean - s.log_mean) * (r.mean - s.log_mean);
    }
    double between = ss / (k - 1) / k;
    if (between > s.var) {
      s.var = between;
      s.dof = k - 1;
      s.between_runs = true;
    }
  }
  return s;
}

std::optional<SideSpeed> side_cpu(
    const std::vector<const profile::Profile*>& runs, const std::string& name,
    profile::PointKind kind) {
  std::vector<double> logs;
  for (const profile::Profile* p : runs) {
    double visits = 0;
    for (const profile::ProgressPoint& pp : p->points) {
      if (pp.name != name || pp.kind != kind) continue;
      visits += static_cast<double>(
          kind == profile::PointKind::kLatency ? pp.ends : pp.visits);
    }
    double unit = p->run.sample_period_ns > 0
                      ? 1e-9 * static_cast<double>(p->run.sample_period_ns)
                      : 1;
    double cpu = static_cast<double>(p->samples) * unit;
    if (visits > 0 && cpu > 0) logs.push_back(std::log(cpu / visits));
  }
  if (logs.size() < 2) return std::nullopt;
  SideSpeed s;
  double k = static_cast<double>(logs.size());
  s.runs = static_cast<int>(logs.size());
  for (double v : logs) s.log_mean += v / k;
  double ss = 0;
  for (double v : logs) ss += (v - s.log_mean) * (v - s.log_mean);
  s.var = ss / (k - 1) / k;
  s.dof = k - 1;
  s.between_runs = true;
  return s;
}

std::optional<SpeedChange> compare_speeds(const SideSpeed& base,
                                          const SideSpeed& next, double level) {
  double var = base.var + next.var;
  if (!(var > 0) || !std::isfinite(var)) return std::nullopt;
  SpeedChange c;
  c.delta = next.log_mean - base.log_mean;
  c.se = std::sqrt(var);
  c.dof = experiments::welch_dof(base.var, base.dof, next.var, next.dof);
  double t = c.delta / c.se;
  c.p = std::clamp(2 * (1 - experiments::student_t_cdf(std::fabs(t), c.dof)),
                   0.0, 1.0);
  c.q = c.p;
  double half = experiments::student_t_quantile(0.5 + level / 2, c.dof) * c.se;
  c.slower_pct = 100 * std::expm1(c.delta);
  c.low_pct = 100 * std::expm1(c.delta - half);
  c.high_pct = 100 * std::expm1(c.delta + half);
  c.significant = c.q < 1 - level;
  return c;
}

}  // namespace andweorc::compare
