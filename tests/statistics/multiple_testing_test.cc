// multiple_testing_test.cc: Benjamini-Hochberg q values by hand.
#include "statistics/multiple_testing.h"

#include <gtest/gtest.h>

#include <cmath>

namespace andweorc::experiments {
namespace {

TEST(BhQvalues, ByHand) {
  // Sorted: 0.005, 0.01, 0.03, 0.04 (m = 4): p * m / rank = 0.02, 0.02,
  // 0.04, 0.04; the running minimum from the top changes nothing here.
  std::vector<double> q = bh_q_values({0.01, 0.04, 0.03, 0.005});
  ASSERT_EQ(q.size(), 4u);
  EXPECT_NEAR(q[0], 0.02, 1e-12);
  EXPECT_NEAR(q[1], 0.04, 1e-12);
  EXPECT_NEAR(q[2], 0.04, 1e-12);
  EXPECT_NEAR(q[3], 0.02, 1e-12);
}

TEST(BhQvalues, MonotoneAndCapped) {
  // Ranks: 0.02 (1), 0.025 (2), 0.9 (3), NaN as 1 (4). 0.02 * 4 / 1 =
  // 0.08, but rank 2 gives 0.025 * 4 / 2 = 0.05: q of rank 1 is the
  // minimum over ranks >= 1, so a smaller p never gets a larger q.
  std::vector<double> q = bh_q_values({0.9, 0.02, 0.025, NAN});
  EXPECT_NEAR(q[1], 0.05, 1e-12);
  EXPECT_NEAR(q[2], 0.05, 1e-12);
  EXPECT_EQ(q[3], 1.0);  // not finite: treated as 1
  EXPECT_EQ(q[0], 1.0);  // 0.9 * 4 / 3 > 1: capped
  EXPECT_TRUE(bh_q_values({}).empty());
}

TEST(BhQvalues, ChanceAmongManyTestsIsNotSignificant) {
  // The case: p = 0.03 among 90 lines with nothing else going on.
  std::vector<double> p(90, 0.5);
  p[17] = 0.03;
  EXPECT_GT(bh_q_values(p)[17], 0.05);
  // One real effect among them stays significant.
  p[17] = 1e-5;
  EXPECT_LT(bh_q_values(p)[17], 0.05);
}

}  // namespace
}  // namespace andweorc::experiments
