// plausibility.cc: the delay bound on a region's impact (plausibility.h).
#include "experiments/plausibility.h"

#include <algorithm>
#include <cmath>

namespace andweorc::experiments {

double delay_bound(const profile::Profile& p,
                   const std::vector<FitPoint>& points) {
  double num = 0;
  double den = 0;
  for (const FitPoint& f : points) {
    if (!(f.x > 0) || f.experiment >= p.experiments.size()) continue;
    const profile::Experiment& e = p.experiments[f.experiment];
    if (!(e.duration_s > 0)) continue;
    // Clamped: a bad record (delay beyond the wall time) cannot widen the
    // bound past "all of the time was delay".
    double share = std::clamp(e.delay_s / e.duration_s, 0.0, 1.0);
    num += f.weight * f.x * share;
    den += f.weight * f.x * f.x;
  }
  return den > 0 && std::isfinite(num / den) ? num / den : 0;
}

bool records_delays(const profile::Profile& p) {
  return std::any_of(
      p.experiments.begin(), p.experiments.end(),
      [](const profile::Experiment& e) { return e.delay_s > 0; });
}

namespace {

planner::Half half_of(const profile::Experiment& e) {
  return planner::Half{e.duration_s, e.delay_s, e.cpu_s};
}

}  // namespace

planner::BoundAccumulator::Bound plausibility_bound(
    const profile::Profile& p, const std::vector<FitPoint>& points,
    double level, uint64_t threads) {
  // The pool of the fit's 0% points: their CPU per wall second.
  planner::Half pool{0, 0, 0};
  for (const FitPoint& f : points) {
    if (f.x > 0 || f.experiment >= p.experiments.size()) continue;
    const profile::Experiment& e = p.experiments[f.experiment];
    pool.duration_s += e.duration_s;
    if (e.cpu_s < 0 || pool.cpu_s < 0)
      pool.cpu_s = -1;  // one unknown makes the pool unknown
    else
      pool.cpu_s += e.cpu_s;
  }
  planner::BoundAccumulator acc;
  for (const FitPoint& f : points) {
    if (!(f.x > 0) || f.experiment >= p.experiments.size()) continue;
    planner::Half reference = pool;
    if (f.baseline < p.experiments.size())
      reference = half_of(p.experiments[f.baseline]);
    acc.add(f.x, f.weight, reference, half_of(p.experiments[f.experiment]));
  }
  return acc.bound(level, static_cast<double>(threads));  // 0: unknown
}

void judge_plausibility(const planner::BoundAccumulator::Bound& b,
                        LineImpact* m) {
  if (!b.judged) return;
  m->plausibility_judged = true;
  m->plausible_cpu = b.cpu;
  m->plausible_high = b.high;
  m->plausible_low = b.low;
  m->implausible = m->fitted && (m->ci_low > m->plausible_high ||
                                 m->ci_high < m->plausible_low);
}

void judge_plausibility(double bound, uint64_t threads, LineImpact* m) {
  planner::BoundAccumulator::Bound b;
  b.judged = true;
  b.wall = bound;
  b.high = kUpperSlack * bound;
  b.low = -static_cast<double>(std::max<uint64_t>(threads, 1)) * bound;
  judge_plausibility(b, m);
}

}  // namespace andweorc::experiments
