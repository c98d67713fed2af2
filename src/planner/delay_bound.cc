// delay_bound.cc: see delay_bound.h.
#include "planner/delay_bound.h"

#include <algorithm>
#include <cmath>

namespace andweorc::planner {

std::optional<double> wall_delay_share(const Half& h) {
  if (!(h.duration_s > 0) || !std::isfinite(h.duration_s) ||
      !std::isfinite(h.delay_s))
    return std::nullopt;
  // Clamped: a bad record (delay beyond the wall time) cannot widen the
  // bound past "all of the time was delay".
  return std::clamp(h.delay_s / h.duration_s, 0.0, 1.0);
}

std::optional<double> cpu_delay_share(const Half& reference, const Half& fast) {
  std::optional<double> d = wall_delay_share(fast);
  if (!d || !(reference.duration_s > 0) || !(reference.cpu_s > 0) ||
      !(fast.cpu_s > 0))
    return std::nullopt;
  double c0 = reference.cpu_s / reference.duration_s;
  double c = fast.cpu_s / fast.duration_s;
  double s = 1 - (1 - *d) * c0 / c;
  if (!std::isfinite(s)) return std::nullopt;
  return std::clamp(s, -1.0, 1.0);
}

void BoundAccumulator::add(double x, double w, const Half& reference,
                           const Half& fast) {
  std::optional<double> d = wall_delay_share(fast);
  if (!d || !(x > 0)) return;
  ++known_;
  wall_.add(x, *d, w);
  std::optional<double> s = cpu_delay_share(reference, fast);
  if (s)
    cpu_.add(x, *s, w);
  else
    ++unknown_cpu_;
}

BoundAccumulator::Bound BoundAccumulator::bound(double level,
                                                double threads) const {
  Bound b;
  if (known_ == 0) return b;
  b.judged = true;
  b.wall = wall_.estimate(level).slope;
  b.low = -std::max(threads, 1.0) * b.wall;
  b.cpu = unknown_cpu_ == 0 && cpu_.blocks() > 0;
  if (b.cpu) {
    SlopeEstimate e = cpu_.estimate(level);
    b.cpu_share = e.slope;
    // With one experiment there is no spread to add: its s alone.
    b.high = e.valid ? e.high : e.slope;
    // The hand-over cap: paused threads free at most N D of CPU, so real
    // progress gains at most N D / T and y <= (N + 1) D/T. It keeps a
    // region that got almost no delay bounded near 0 when the CPU rate's
    // own noise makes the fit of s wide.
    if (threads > 0) b.high = std::min(b.high, (threads + 1) * b.wall);
  } else {
    b.high = kWallSlack * b.wall;
  }
  return b;
}

}  // namespace andweorc::planner
