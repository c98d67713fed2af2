// fdr_test.cc: p-values, Benjamini-Hochberg q-values and the FCR level
// against hand-computed values.
#include "planner/fdr.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "statistics/statistics.h"

namespace andweorc::planner {
namespace {

// QValuesByHand lives with bh_q_values in tests/statistics.
TEST(Fdr, QValuesAreMonotoneAndCapped) {
  // Sorted: 0.02 (1), 0.03 (2), 0.8 (3), 0.9 (4); m p / j = 0.08, 0.06,
  // 1.07 (capped at 1), 0.9; the minimum from above gives 0.06 to 0.02 and
  // 0.9 to 0.8.
  std::vector<double> q = bh_q_values({0.02, 0.03, 0.9, 0.8});
  EXPECT_NEAR(q[0], 0.06, 1e-12);
  EXPECT_NEAR(q[1], 0.06, 1e-12);
  EXPECT_NEAR(q[3], 0.9, 1e-12);
  EXPECT_NEAR(q[2], 0.9, 1e-12);
  EXPECT_EQ(bh_q_values({1.0, 1.0})[0], 1.0);
  EXPECT_TRUE(bh_q_values({}).empty());
}

TEST(Fdr, OneTestIsItsOwnP) { EXPECT_DOUBLE_EQ(bh_q_values({0.03})[0], 0.03); }

TEST(Fdr, PValueMatchesTheInterval) {
  // The 95% interval at dof 5 touches 0 exactly when |estimate| / se is the
  // t quantile; just inside and just outside give p on either side of 0.05.
  double t = experiments::student_t_quantile(0.975, 5);
  EXPECT_NEAR(two_sided_p(t, 1, 5), 0.05, 1e-9);
  EXPECT_LT(two_sided_p(-1.01 * t, 1, 5), 0.05);
  EXPECT_GT(two_sided_p(0.99 * t, 1, 5), 0.05);
  EXPECT_NEAR(two_sided_p(0, 1, 5), 1.0, 1e-12);
  // Far in the tail the p-value is tiny, not rounded to 0 by 1 - cdf.
  double far = two_sided_p(40, 1, 30);
  EXPECT_GT(far, 0);
  EXPECT_LT(far, 1e-20);
}

TEST(Fdr, PValueEdgeCases) {
  EXPECT_EQ(two_sided_p(0.3, 0, 4), 0.0);
  EXPECT_EQ(two_sided_p(0, 0, 4), 1.0);
  EXPECT_EQ(two_sided_p(0.3, 0.1, 0), 1.0);
  EXPECT_EQ(two_sided_p(NAN, 0.1, 4), 1.0);
  EXPECT_EQ(two_sided_p(0.3, -1, 4), 1.0);
}

TEST(Fdr, FcrLevel) {
  EXPECT_DOUBLE_EQ(fcr_level(2, 100, 0.05), 0.999);
  EXPECT_DOUBLE_EQ(fcr_level(1, 1, 0.05), 0.95);
  EXPECT_DOUBLE_EQ(fcr_level(0, 10, 0.05), 0.95);
}

}  // namespace
}  // namespace andweorc::planner
