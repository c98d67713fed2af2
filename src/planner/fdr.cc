// fdr.cc: see fdr.h.
#include "planner/fdr.h"

#include <algorithm>
#include <cmath>

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

double fcr_level(int selected, int tested, double q) {
  if (selected <= 0 || tested <= 0) return 1 - q;
  return 1 - static_cast<double>(selected) * q / static_cast<double>(tested);
}

}  // namespace andweorc::planner
