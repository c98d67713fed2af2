// multiple_testing.cc: see multiple_testing.h.
#include "statistics/multiple_testing.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace andweorc::experiments {

std::vector<double> bh_q_values(const std::vector<double>& p) {
  const size_t m = p.size();
  std::vector<double> clean(m);
  for (size_t i = 0; i < m; ++i) {
    clean[i] = std::isfinite(p[i]) ? std::clamp(p[i], 0.0, 1.0) : 1.0;
  }
  std::vector<size_t> order(m);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return clean[a] < clean[b]; });
  std::vector<double> q(m, 1.0);
  double running = 1.0;
  // From the largest p down: the running minimum makes q monotone in p.
  for (size_t k = m; k-- > 0;) {
    double v =
        clean[order[k]] * static_cast<double>(m) / static_cast<double>(k + 1);
    running = std::min(running, v);
    q[order[k]] = running;
  }
  return q;
}

}  // namespace andweorc::experiments
