// fdr.cc: see fdr.h.
#include "planner/fdr.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "statistics/statistics.h"

namespace andweorc::planner {

double two_sided_p(double estimate, double se, int dof) {
  if (!std::isfinite(estimate) || !std::isfinite(se) || se < 0 || dof < 1)
    return 1;
  if (se == 0) return estimate != 0 ? 0 : 1;
  double t = std::fabs(estimate) / se;
  // The lower tail directly: 1 - cdf(t) would round to 0 for large t.
  double p = 2 * experiments::student_t_cdf(-t, dof);
  return std::clamp(p, 0.0, 1.0);
}

std::vector<double> bh_q_values(const std::vector<double>& p) {
  size_t m = p.size();
  std::vector<size_t> order(m);
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return p[a] < p[b]; });
  std::vector<double> q(m, 1.0);
  double running = 1.0;
  // From the largest p down: the running minimum makes q monotone in p.
  for (size_t k = m; k-- > 0;) {
    double v =
        p[order[k]] * static_cast<double>(m) / static_cast<double>(k + 1);
    running = std::min(running, std::min(v, 1.0));
    q[order[k]] = running;
  }
  return q;
}

double fcr_level(int selected, int tested, double q) {
  if (selected <= 0 || tested <= 0) return 1 - q;
  return 1 - static_cast<double>(selected) * q / static_cast<double>(tested);
}

}  // namespace andweorc::planner
