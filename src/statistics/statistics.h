// statistics.h: weighted least squares and Student's t quantiles.
//
// Contract (pure functions, no I/O, never throw):
//  - fit_line fits y = intercept + slope * x by weighted least squares. The
//    weights are relative precisions (observation i has variance
//    sigma^2 / w[i]); scaling all weights by a constant changes nothing.
//    Points with a non-finite value or a weight <= 0 are ignored. The fit is
//    `valid` when at least 3 points remain and x takes at least 2 distinct
//    values (so the slope is defined and has n - 2 >= 1 degrees of freedom
//    for its standard error).
//  - The standard errors use the residual variance estimated from the data
//    (s^2 = sum w r^2 / (n - 2)); the confidence interval is
//    slope +/- t(level, n - 2) * se(slope).
//  - student_t_quantile(p, dof) is the p-quantile of Student's t with `dof`
//    degrees of freedom (dof may be fractional; infinity gives the normal
//    quantile), accurate to about 1e-9.
#ifndef ANDWEORC_STATISTICS_STATISTICS_H_
#define ANDWEORC_STATISTICS_STATISTICS_H_

#include <vector>

namespace andweorc::experiments {

struct LineFit {
  bool valid = false;
  int n = 0;  // points used
  double slope = 0;
  double intercept = 0;
  double slope_se = 0;      // standard error of the slope
  double residual_var = 0;  // s^2, in units of y^2 at weight 1
  double r2 = 0;            // weighted coefficient of determination, 0..1
  double x_mean = 0;        // weighted mean of x
  double sxx = 0;           // sum w (x - x_mean)^2
  double weight_sum = 0;    // sum w
  int dof() const { return n - 2; }
};

// x, y and w must have the same length (extra elements are ignored).
LineFit fit_line(const std::vector<double>& x, const std::vector<double>& y,
                 const std::vector<double>& w);

// Unweighted convenience form (every weight 1).
LineFit fit_line(const std::vector<double>& x, const std::vector<double>& y);

// The two-sided confidence interval of the slope at `level` (e.g. 0.95).
struct Interval {
  double low = 0;
  double high = 0;
  bool contains(double v) const { return low <= v && v <= high; }
};
Interval slope_interval(const LineFit& fit, double level);

// The mean response at x0 (intercept + slope * x0) with its interval.
struct Estimate {
  double value = 0;
  Interval interval;
};
Estimate mean_response(const LineFit& fit, double x0, double level);

// Student's t CDF and quantile; dof > 0 (use infinity for the normal).
double student_t_cdf(double t, double dof);
double student_t_quantile(double p, double dof);

// Welch-Satterthwaite degrees of freedom of var_a + var_b, two variance
// estimates with dof_a and dof_b degrees of freedom (each taken as at least
// 1): what a difference of two means or slopes is tested with. At least 1;
// 1 when undefined.
double welch_dof(double var_a, double dof_a, double var_b, double dof_b);

// One estimate (a slope or a mean) with its standard error and degrees of
// freedom.
struct Estimated {
  double value = 0;
  double se = 0;
  double dof = 0;
};

// Whether a exceeds b at `level`, two-sided: a - b is above the Student-t
// quantile of the Welch-Satterthwaite degrees of freedom times the standard
// error of the difference. False when neither has a spread or either has
// fewer than 1 degree of freedom (nothing to test with).
bool significantly_greater(const Estimated& a, const Estimated& b,
                           double level);

// Standard normal quantile, 0 < p < 1.
double normal_quantile(double p);

}  // namespace andweorc::experiments

#endif  // ANDWEORC_STATISTICS_STATISTICS_H_
