// paired_blocks.cc: see paired_blocks.h.
#include "planner/paired_blocks.h"

#include <algorithm>
#include <cmath>

#include "statistics/statistics.h"

namespace andweorc::planner {

std::optional<double> point_value(const Observation& o, const PointCount& p) {
  double d = o.virtual_s;
  if (!(d > 0) || !std::isfinite(d) || p.events == 0) return std::nullopt;
  if (!p.latency) return d / double(p.events);
  double in_flight = (double(p.in_flight_start) + double(p.in_flight_end)) / 2;
  if (in_flight < 0) return std::nullopt;
  // Little's law: latency = in flight / arrival rate.
  return in_flight / (double(p.events) / d);
}

std::optional<Block> BlockPairer::add(size_t index, const Observation& o) {
  auto it = last_.find(o.stream);
  std::optional<Block> block;
  if (it != last_.end()) {
    const Last& prev = it->second;
    bool one_zero = (prev.speedup_pct == 0) != (o.speedup_pct == 0);
    if (!prev.paired && prev.region == o.region && one_zero) {
      block = o.speedup_pct == 0 ? Block{index, prev.index}
                                 : Block{prev.index, index};
    }
  }
  last_[o.stream] = Last{index, o.region, o.speedup_pct, block.has_value()};
  return block;
}

std::optional<double> block_speedup(const Observation& baseline,
                                    const Observation& sped_up,
                                    const PointCount& point) {
  auto find = [&](const Observation& o) -> const PointCount* {
    for (const PointCount& p : o.points)
      if (p.name == point.name && p.latency == point.latency) return &p;
    return nullptr;
  };
  const PointCount* a = find(baseline);
  const PointCount* b = find(sped_up);
  if (a == nullptr || b == nullptr) return std::nullopt;
  std::optional<double> v0 = point_value(baseline, *a);
  std::optional<double> vs = point_value(sped_up, *b);
  if (!v0 || !vs || !(*v0 > 0)) return std::nullopt;
  return std::max((*v0 - *vs) / *v0, kMinBlockSpeedup);
}

void SlopeAccumulator::add(double x, double y, double w) {
  if (!std::isfinite(x) || !std::isfinite(y) || x <= 0 || !(w > 0) ||
      !std::isfinite(w))
    return;
  ++n_;
  sw_ += w;
  sxx_ += w * x * x;
  sxy_ += w * x * y;
  syy_ += w * y * y;
  sy_ += w * y;
}

SlopeEstimate SlopeAccumulator::estimate(double level) const {
  SlopeEstimate e;
  e.blocks = n_;
  if (n_ < 1 || !(sxx_ > 0)) return e;
  e.slope = sxy_ / sxx_;
  if (n_ < 2) return e;
  // Residual sum of squares of the fit through the origin.
  double rss = std::max(0.0, syy_ - sxy_ * sxy_ / sxx_);
  double s2 = rss / (n_ - 1);
  e.se = std::sqrt(s2 / sxx_);
  double t = experiments::student_t_quantile(0.5 + level / 2, n_ - 1);
  e.low = e.slope - t * e.se;
  e.high = e.slope + t * e.se;
  double tss = syy_ - sy_ * sy_ / sw_;
  e.r2 = tss > 0 ? std::clamp(1 - rss / tss, 0.0, 1.0) : 0;
  e.valid = true;
  return e;
}

}  // namespace andweorc::planner
