// statistics.cc: weighted least squares, and Student's t through the
// regularized incomplete beta function (continued fraction, modified Lentz).
//
// No statistics library is available in the build, and the analysis needs
// t quantiles for any degrees of freedom, so they are computed here: the t
// CDF is an incomplete beta function, and the quantile inverts the CDF by
// Newton's method from a Cornish-Fisher start, kept inside a bracket. Speed
// matters: the convergence tracker runs in the profiled program's process
// (its coordinator thread) after every experiment, and bisection (~60 CDF
// evaluations, ~30 us a quantile) was a third of that thread's CPU.
#include "statistics/statistics.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>

namespace andweorc::experiments {
namespace {

constexpr double kTiny = 1e-300;

// The continued fraction of I_x(a, b); converges quickly for
// x < (a + 1) / (a + b + 2).
double beta_fraction(double a, double b, double x) {
  auto guard = [](double v) { return std::fabs(v) < kTiny ? kTiny : v; };
  double c = 1.0;
  double d = 1.0 / guard(1.0 - (a + b) * x / (a + 1.0));
  double h = d;
  for (int m = 1; m <= 10000; ++m) {
    double m2 = 2.0 * m;
    // Even step: m (b - m) x / ((a + 2m - 1)(a + 2m)).
    double num = m * (b - m) * x / ((a + m2 - 1.0) * (a + m2));
    d = 1.0 / guard(1.0 + num * d);
    c = guard(1.0 + num / c);
    h *= d * c;
    // Odd step: -(a + m)(a + b + m) x / ((a + 2m)(a + 2m + 1)).
    num = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1.0));
    d = 1.0 / guard(1.0 + num * d);
    c = guard(1.0 + num / c);
    double step = d * c;
    h *= step;
    if (std::fabs(step - 1.0) < 1e-16) break;
  }
  return h;
}

// The regularized incomplete beta function I_x(a, b), a, b > 0.
double incomplete_beta(double a, double b, double x) {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  double log_front = std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) +
                     a * std::log(x) + b * std::log1p(-x);
  double front = std::exp(log_front);
  if (x < (a + 1.0) / (a + b + 2.0)) return front * beta_fraction(a, b, x) / a;
  return 1.0 - front * beta_fraction(b, a, 1.0 - x) / b;
}

double normal_cdf(double z) { return 0.5 * std::erfc(-z / std::sqrt(2.0)); }

// Inverts a increasing CDF by bisection on [-bound, bound], widening the
// bound until it brackets p.
template <typename Cdf>
double invert(Cdf cdf, double p) {
  double lo = -1.0;
  double hi = 1.0;
  while (cdf(lo) > p && lo > -1e300) lo *= 2;
  while (cdf(hi) < p && hi < 1e300) hi *= 2;
  for (int i = 0; i < 400 && hi - lo > 1e-12 * std::max(1.0, std::fabs(lo));
       ++i) {
    double mid = 0.5 * (lo + hi);
    if (cdf(mid) < p) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  return 0.5 * (lo + hi);
}

}  // namespace

LineFit fit_line(const std::vector<double>& x, const std::vector<double>& y,
                 const std::vector<double>& w) {
  size_t n = std::min({x.size(), y.size(), w.size()});
  std::vector<size_t> use;
  for (size_t i = 0; i < n; ++i) {
    if (std::isfinite(x[i]) && std::isfinite(y[i]) && std::isfinite(w[i]) &&
        w[i] > 0) {
      use.push_back(i);
    }
  }
  LineFit f;
  f.n = static_cast<int>(use.size());
  if (use.empty()) return f;
  double sw = 0, swx = 0, swy = 0;
  for (size_t i : use) {
    sw += w[i];
    swx += w[i] * x[i];
    swy += w[i] * y[i];
  }
  f.weight_sum = sw;
  f.x_mean = swx / sw;
  double y_mean = swy / sw;
  // Centered sums: numerically stable for the small ranges seen here.
  double sxx = 0, sxy = 0, syy = 0;
  for (size_t i : use) {
    double dx = x[i] - f.x_mean;
    double dy = y[i] - y_mean;
    sxx += w[i] * dx * dx;
    sxy += w[i] * dx * dy;
    syy += w[i] * dy * dy;
  }
  f.sxx = sxx;
  bool distinct_x = std::any_of(use.begin(), use.end(),
                                [&](size_t i) { return x[i] != x[use[0]]; });
  if (f.n < 3 || !distinct_x || !(sxx > 0)) return f;
  f.slope = sxy / sxx;
  f.intercept = y_mean - f.slope * f.x_mean;
  double sse = 0;
  for (size_t i : use) {
    double r = y[i] - (f.intercept + f.slope * x[i]);
    sse += w[i] * r * r;
  }
  f.residual_var = sse / (f.n - 2);
  f.slope_se = std::sqrt(f.residual_var / sxx);
  // All y equal: the horizontal line explains everything there is.
  f.r2 = syy > 0 ? std::clamp(1.0 - sse / syy, 0.0, 1.0) : 1.0;
  f.valid = true;
  return f;
}

LineFit fit_line(const std::vector<double>& x, const std::vector<double>& y) {
  return fit_line(x, y, std::vector<double>(x.size(), 1.0));
}

Interval slope_interval(const LineFit& fit, double level) {
  if (!fit.valid) return {};
  double t = student_t_quantile(0.5 + level / 2, fit.dof());
  return {fit.slope - t * fit.slope_se, fit.slope + t * fit.slope_se};
}

Estimate mean_response(const LineFit& fit, double x0, double level) {
  Estimate e;
  if (!fit.valid) return e;
  e.value = fit.intercept + fit.slope * x0;
  double dx = x0 - fit.x_mean;
  double se =
      std::sqrt(fit.residual_var * (1.0 / fit.weight_sum + dx * dx / fit.sxx));
  double t = student_t_quantile(0.5 + level / 2, fit.dof());
  e.interval = {e.value - t * se, e.value + t * se};
  return e;
}

double student_t_cdf(double t, double dof) {
  if (std::isnan(t) || !(dof > 0))
    return std::numeric_limits<double>::quiet_NaN();
  if (std::isinf(dof)) return normal_cdf(t);
  if (std::isinf(t)) return t > 0 ? 1.0 : 0.0;
  // P(T <= -|t|) = I_{dof/(dof+t^2)}(dof/2, 1/2) / 2.
  double tail = 0.5 * incomplete_beta(dof / 2, 0.5, dof / (dof + t * t));
  return t >= 0 ? 1.0 - tail : tail;
}

double welch_dof(double var_a, double dof_a, double var_b, double dof_b) {
  double var = var_a + var_b;
  double denom = var_a * var_a / std::max(dof_a, 1.0) +
                 var_b * var_b / std::max(dof_b, 1.0);
  double dof = denom > 0 ? var * var / denom : 1;
  return std::isfinite(dof) && dof >= 1 ? dof : 1;
}

bool significantly_greater(const Estimated& a, const Estimated& b,
                           double level) {
  const double va = a.se * a.se, vb = b.se * b.se;
  if (!(va + vb > 0) || !(a.dof >= 1) || !(b.dof >= 1)) return false;
  const double dof = welch_dof(va, a.dof, vb, b.dof);
  return a.value - b.value >
         student_t_quantile(0.5 + level / 2, dof) * std::sqrt(va + vb);
}

namespace {

// Student's t density.
double student_t_pdf(double t, double dof) {
  return std::exp(std::lgamma((dof + 1) / 2) - std::lgamma(dof / 2) -
                  0.5 * std::log(dof * std::numbers::pi) -
                  (dof + 1) / 2 * std::log1p(t * t / dof));
}

// The upper-half quantile (p > 0.5): Newton's steps on the CDF from the
// Cornish-Fisher expansion around the normal quantile, each kept inside
// the bracket [lo, hi] the evaluations so far establish (a step outside it
// bisects instead), so it converges wherever the start is; 3-5 CDF
// evaluations for the levels used here. Bisection as the last resort.
double upper_t_quantile(double p, double dof) {
  const double z = normal_quantile(p);
  const double z2 = z * z;
  const double g1 = (z2 + 1) * z / 4;
  const double g2 = ((5 * z2 + 16) * z2 + 3) * z / 96;
  const double g3 = (((3 * z2 + 19) * z2 + 17) * z2 - 15) * z / 384;
  double t = z + (g1 + (g2 + g3 / dof) / dof) / dof;
  if (!(t > 0) || !std::isfinite(t)) t = 1;
  double lo = 0, hi = HUGE_VAL;  // cdf(lo) <= p <= cdf(hi)
  for (int i = 0; i < 100; ++i) {
    const double f = student_t_cdf(t, dof) - p;
    if (f == 0) return t;
    (f < 0 ? lo : hi) = t;
    const double d = student_t_pdf(t, dof);
    double next = d > 0 ? t - f / d : HUGE_VAL;
    if (!(next > lo && next < hi))
      next = std::isinf(hi) ? 2 * std::max(t, 1.0) : (lo + hi) / 2;
    if (std::fabs(next - t) <= 1e-13 * std::max(1.0, std::fabs(t))) return next;
    t = next;
  }
  return invert([dof](double x) { return student_t_cdf(x, dof); }, p);
}

}  // namespace

double student_t_quantile(double p, double dof) {
  if (!(p > 0 && p < 1) || !(dof > 0)) {
    return std::numeric_limits<double>::quiet_NaN();
  }
  if (std::isinf(dof)) return normal_quantile(p);
  // Symmetric: solve in the upper half, where the CDF is computed from the
  // small tail and keeps its precision.
  if (p < 0.5) return -student_t_quantile(1 - p, dof);
  if (p == 0.5) return 0;
  return upper_t_quantile(p, dof);
}

double normal_quantile(double p) {
  if (!(p > 0 && p < 1)) return std::numeric_limits<double>::quiet_NaN();
  if (p < 0.5) return -normal_quantile(1 - p);
  return invert(normal_cdf, p);
}

}  // namespace andweorc::experiments
