// statistics_test.cc: least squares and t quantiles against known values.
//
// Reference numbers were computed independently: exact rational arithmetic
// (Python fractions) for the fits, confirmed with scipy.stats.linregress
// (scipy 1.10), and scipy.stats.t.ppf / norm.ppf for the quantiles, which
// agree with published t tables (12.706, 2.228, 1.960, ...).
#include "statistics/statistics.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

namespace andweorc::experiments {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

TEST(FitLine, ExactLineHasNoUncertainty) {
  // y = 2x + 1 exactly.
  std::vector<double> x = {0, 1, 2, 3, 4};
  std::vector<double> y = {1, 3, 5, 7, 9};
  LineFit f = fit_line(x, y);
  ASSERT_TRUE(f.valid);
  EXPECT_EQ(f.n, 5);
  EXPECT_EQ(f.dof(), 3);
  EXPECT_NEAR(f.slope, 2.0, 1e-12);
  EXPECT_NEAR(f.intercept, 1.0, 1e-12);
  EXPECT_NEAR(f.r2, 1.0, 1e-12);
  EXPECT_NEAR(f.slope_se, 0.0, 1e-12);
  Interval ci = slope_interval(f, 0.95);
  EXPECT_NEAR(ci.high - ci.low, 0.0, 1e-10);
}

TEST(FitLine, NoisyDataMatchesIndependentComputation) {
  // x = 0, 0.1, 0.2, 0.3, 0.4, 0.5; y below. Exact rational arithmetic
  // (Python fractions):
  //   Sxx = 0.175, Sxy = 0.5, slope = 0.5 / 0.175 = 20/7 = 2.857142857142857
  //   intercept = mean(y) - slope * mean(x) = -0.2976190476190476
  //   SSE = 0.004761904761904762, s^2 = SSE / 4 = 0.0011904761904761906
  //   se(slope) = sqrt(s^2 / Sxx) = 0.08247860988423225
  //   Syy = 1.4333.., R^2 = 1 - SSE / Syy = 0.9966777408637874
  //   95% CI: slope -/+ 2.7764451051977987 * se = [2.62814552, 3.08614019]
  std::vector<double> x = {0.0, 0.1, 0.2, 0.3, 0.4, 0.5};
  std::vector<double> y = {-0.30, 0.00, 0.25, 0.55, 0.90, 1.10};
  LineFit f = fit_line(x, y);
  ASSERT_TRUE(f.valid);
  EXPECT_NEAR(f.slope, 2.857142857142857, 1e-12);
  EXPECT_NEAR(f.intercept, -0.2976190476190476, 1e-12);
  EXPECT_NEAR(f.residual_var, 0.0011904761904761906, 1e-12);
  EXPECT_NEAR(f.slope_se, 0.08247860988423225, 1e-12);
  EXPECT_NEAR(f.r2, 0.9966777408637874, 1e-12);
  Interval ci = slope_interval(f, 0.95);
  EXPECT_NEAR(ci.low, 2.628145524446262, 1e-8);
  EXPECT_NEAR(ci.high, 3.0861401898394525, 1e-8);
}

TEST(FitLine, WeightsActLikeRepeatedPoints) {
  // A point with weight 2 has the same slope and intercept as the point
  // given twice (the standard errors differ: n differs).
  std::vector<double> x = {0, 1, 2, 3};
  std::vector<double> y = {0.1, 0.9, 2.3, 2.8};
  LineFit weighted = fit_line(x, y, {1, 2, 1, 1});
  LineFit repeated = fit_line({0, 1, 1, 2, 3}, {0.1, 0.9, 0.9, 2.3, 2.8});
  ASSERT_TRUE(weighted.valid);
  EXPECT_NEAR(weighted.slope, repeated.slope, 1e-12);
  EXPECT_NEAR(weighted.intercept, repeated.intercept, 1e-12);
}

TEST(FitLine, ScalingWeightsChangesNothing) {
  std::vector<double> x = {0, 0, 0.25, 0.5, 0.5, 0.75};
  std::vector<double> y = {0.01, -0.02, 0.1, 0.22, 0.19, 0.3};
  std::vector<double> w = {1, 2, 0.5, 1.5, 1, 3};
  std::vector<double> w1000;
  for (double v : w) w1000.push_back(v * 1000);
  LineFit a = fit_line(x, y, w);
  LineFit b = fit_line(x, y, w1000);
  EXPECT_NEAR(a.slope, b.slope, 1e-12);
  EXPECT_NEAR(a.slope_se, b.slope_se, 1e-12);
  EXPECT_NEAR(a.r2, b.r2, 1e-12);
  Estimate ea = mean_response(a, 0.3, 0.95);
  Estimate eb = mean_response(b, 0.3, 0.95);
  EXPECT_NEAR(ea.interval.low, eb.interval.low, 1e-12);
}

TEST(FitLine, InvalidWithoutEnoughPointsOrSpread) {
  EXPECT_FALSE(fit_line({0, 1}, {0, 1}).valid);              // n = 2
  EXPECT_FALSE(fit_line({0.5, 0.5, 0.5}, {1, 2, 3}).valid);  // one x
  EXPECT_FALSE(fit_line({}, {}).valid);
  // Bad points are dropped, not propagated.
  LineFit f = fit_line({0, 1, 2, NAN, 3}, {0, 1, 2, 5, 3}, {1, 1, 1, 1, 0});
  EXPECT_EQ(f.n, 3);
  EXPECT_TRUE(f.valid);
  EXPECT_NEAR(f.slope, 1.0, 1e-12);
}

TEST(FitLine, MeanResponseIntervalIsNarrowestAtTheMean) {
  std::vector<double> x = {0.0, 0.1, 0.2, 0.3, 0.4, 0.5};
  std::vector<double> y = {-0.30, 0.00, 0.25, 0.55, 0.90, 1.10};
  LineFit f = fit_line(x, y);
  Estimate at_mean = mean_response(f, f.x_mean, 0.95);
  Estimate far = mean_response(f, 1.0, 0.95);
  EXPECT_NEAR(at_mean.value, f.intercept + f.slope * f.x_mean, 1e-12);
  EXPECT_LT(at_mean.interval.high - at_mean.interval.low,
            far.interval.high - far.interval.low);
  // At the mean: t * s / sqrt(n) = 2.7764451052 * sqrt(s^2 / 6).
  EXPECT_NEAR(at_mean.interval.high - at_mean.value,
              2.7764451051977987 * std::sqrt(0.0011904761904761906 / 6), 1e-8);
}

// Two-sided 95% critical values, t_{0.975}(dof), from standard tables
// (scipy.stats.t.ppf(0.975, dof)).
TEST(StudentT, QuantilesMatchTables) {
  EXPECT_NEAR(student_t_quantile(0.975, 1), 12.706204736, 1e-6);
  EXPECT_NEAR(student_t_quantile(0.975, 2), 4.302652730, 1e-6);
  EXPECT_NEAR(student_t_quantile(0.975, 4), 2.776445105, 1e-6);
  EXPECT_NEAR(student_t_quantile(0.975, 5), 2.570581836, 1e-6);
  EXPECT_NEAR(student_t_quantile(0.975, 10), 2.228138852, 1e-6);
  EXPECT_NEAR(student_t_quantile(0.975, 30), 2.042272456, 1e-6);
  EXPECT_NEAR(student_t_quantile(0.975, 1000), 1.962339081, 1e-6);
  EXPECT_NEAR(student_t_quantile(0.975, kInf), 1.959963985, 1e-8);
  EXPECT_NEAR(student_t_quantile(0.995, 3), 5.840909310, 1e-6);
  EXPECT_NEAR(student_t_quantile(0.95, 20), 1.724718243, 1e-6);
}

TEST(StudentT, SymmetricAndMonotone) {
  EXPECT_DOUBLE_EQ(student_t_quantile(0.5, 7), 0.0);
  EXPECT_NEAR(student_t_quantile(0.025, 10), -2.228138852, 1e-6);
  double prev = -kInf;
  for (double p = 0.01; p < 1; p += 0.01) {
    double q = student_t_quantile(p, 3);
    EXPECT_GT(q, prev);
    prev = q;
  }
  EXPECT_TRUE(std::isnan(student_t_quantile(0, 5)));
  EXPECT_TRUE(std::isnan(student_t_quantile(0.5, 0)));
}

TEST(StudentT, CdfInvertsQuantile) {
  for (double dof : {1.0, 2.5, 9.0, 120.0}) {
    for (double p : {0.001, 0.2, 0.6, 0.975, 0.9999}) {
      EXPECT_NEAR(student_t_cdf(student_t_quantile(p, dof), dof), p, 1e-9)
          << "dof " << dof << " p " << p;
    }
  }
  // dof = 1 is the Cauchy distribution: CDF(1) = 3/4.
  EXPECT_NEAR(student_t_cdf(1.0, 1), 0.75, 1e-12);
}

TEST(Normal, Quantiles) {
  EXPECT_NEAR(normal_quantile(0.975), 1.959963985, 1e-8);
  EXPECT_NEAR(normal_quantile(0.5), 0.0, 1e-12);
  EXPECT_NEAR(normal_quantile(0.1), -1.281551566, 1e-8);
}

// Welch-Satterthwaite: equal variances and dofs add their dofs; one
// variance alone keeps its own; undefined (no variance) is 1.
TEST(WelchDof, ByHand) {
  EXPECT_DOUBLE_EQ(welch_dof(0.04, 10, 0.04, 10), 20);
  EXPECT_DOUBLE_EQ(welch_dof(0.04, 7, 0, 30), 7);
  EXPECT_DOUBLE_EQ(welch_dof(0, 5, 0, 5), 1);
  // Between min(dof) and the sum otherwise.
  double d = welch_dof(0.09, 4, 0.01, 20);
  EXPECT_GT(d, 4);
  EXPECT_LT(d, 24);
}

// Welch's test of a difference, one-sided in its question (is a above b?)
// at a two-sided level: the boundary is t(0.975, Welch dof) times the
// difference's standard error.
TEST(SignificantlyGreater, ComparesTheDifferenceWithItsWelchQuantile) {
  const Estimated b{0.10, 0.03, 20};
  const double se = std::sqrt(0.03 * 0.03 + 0.04 * 0.04);
  const double dof = welch_dof(0.04 * 0.04, 20, 0.03 * 0.03, 20);
  const double edge = student_t_quantile(0.975, dof) * se;
  EXPECT_TRUE(significantly_greater({0.10 + edge * 1.01, 0.04, 20}, b, 0.95));
  EXPECT_FALSE(significantly_greater({0.10 + edge * 0.99, 0.04, 20}, b, 0.95));
  EXPECT_FALSE(significantly_greater(b, {0.10 + edge * 1.01, 0.04, 20}, 0.95));
  // Nothing to test with: no spread, or no degrees of freedom.
  EXPECT_FALSE(significantly_greater({1, 0, 20}, {0, 0, 20}, 0.95));
  EXPECT_FALSE(significantly_greater({1, 0.01, 0}, {0, 0.01, 20}, 0.95));
}

}  // namespace
}  // namespace andweorc::experiments
