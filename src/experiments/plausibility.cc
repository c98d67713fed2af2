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

void judge_plausibility(double bound, uint64_t threads, LineImpact* m) {
  double n = static_cast<double>(std::max<uint64_t>(threads, 1));
  m->plausibility_judged = true;
  m->plausible_high = kUpperSlack * bound;
  m->plausible_low = -n * bound;
  m->implausible = m->fitted && (m->ci_low > m->plausible_high ||
                                 m->ci_high < m->plausible_low);
}

}  // namespace andweorc::experiments
