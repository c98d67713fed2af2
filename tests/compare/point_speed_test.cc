// point_speed_test.cc: a point's speed from 0% experiments, and its test.
#include "compare/point_speed.h"

#include <gtest/gtest.h>

#include <cmath>

#include "statistics/statistics.h"

namespace andweorc::compare {
namespace {

using profile::PointKind;

// A run whose 0% experiments last `seconds` each with these visit counts,
// plus one sped-up experiment (ignored: not a baseline).
profile::Profile run(const std::vector<uint64_t>& visits, double seconds = 1) {
  profile::Profile p;
  for (uint64_t v : visits) {
    profile::Experiment e;
    e.file = "/a.c";
    e.line = 1;
    e.duration_s = seconds;
    e.points.push_back({"unit", PointKind::kThroughput, v, 0, 0, 0, 0});
    p.experiments.push_back(e);
  }
  profile::Experiment fast = p.experiments.front();
  fast.speedup_pct = 50;
  fast.delay_s = 0.2;
  fast.points[0].visits = 1;  // would be far off if it were used
  p.experiments.push_back(fast);
  return p;
}

TEST(SideSpeed, OneBatchPerExperimentByHand) {
  std::vector<uint64_t> v = {1000, 1100, 900, 1000, 1050, 950};
  profile::Profile p = run(v);
  auto s = side_speed({&p}, "unit", PointKind::kThroughput);
  ASSERT_TRUE(s);
  // Equal weights, 6 experiments = 6 batches of one: the mean of log
  // periods, and the sample variance of them over 6.
  double m = 0;
  for (uint64_t x : v) m += std::log(1.0 / static_cast<double>(x)) / 6;
  double ss = 0;
  for (uint64_t x : v) {
    double d = std::log(1.0 / static_cast<double>(x)) - m;
    ss += d * d;
  }
  EXPECT_NEAR(s->log_mean, m, 1e-12);
  EXPECT_NEAR(s->var, ss / 5 / 6, 1e-12);
  EXPECT_EQ(s->dof, 5);
  EXPECT_EQ(s->runs, 1);
  EXPECT_EQ(s->experiments, 6);
  EXPECT_FALSE(s->between_runs);
}

TEST(SideSpeed, BatchesOfNeighboursSeeDrift) {
  // A slow drift: neighbours alike, so single experiments would understate
  // the noise of the mean; batches of two keep the drift in.
  std::vector<uint64_t> v = {1000, 1001, 1100, 1101, 900, 901,
                             1000, 1001, 1050, 1051, 950, 951};
  profile::Profile p = run(v);
  auto s = side_speed({&p}, "unit", PointKind::kThroughput);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->dof, kBatches - 1);
  double ss = 0;
  for (size_t b = 0; b < 6; ++b) {
    double mb = (std::log(1.0 / static_cast<double>(v[2 * b])) +
                 std::log(1.0 / static_cast<double>(v[2 * b + 1]))) /
                2;
    ss += 2 * (mb - s->log_mean) * (mb - s->log_mean);
  }
  EXPECT_NEAR(s->var, ss / 5 / 12, 1e-12);
}

TEST(SideSpeed, SpreadBetweenRunsWinsWhenLarger) {
  // Each run is steady inside, but the two runs differ by 10%.
  profile::Profile a = run({1000, 1001, 999, 1000});
  profile::Profile b = run({1100, 1101, 1099, 1100});
  auto s = side_speed({&a, &b}, "unit", PointKind::kThroughput);
  ASSERT_TRUE(s);
  EXPECT_TRUE(s->between_runs);
  EXPECT_EQ(s->runs, 2);
  EXPECT_EQ(s->dof, 1);
  double d = std::log(1100.0 / 1000.0) / 2;  // each run's distance from mean
  EXPECT_NEAR(s->var, 2 * d * d / 1 / 2, 1e-6);
}

TEST(SideSpeed, NeedsTwoBaselineExperiments) {
  profile::Profile p = run({1000});
  EXPECT_FALSE(side_speed({&p}, "unit", PointKind::kThroughput));
  profile::Profile q = run({1000, 1000});
  EXPECT_FALSE(side_speed({&q}, "other", PointKind::kThroughput));
}

TEST(CompareSpeeds, WelchOnLogPeriods) {
  profile::Profile base = run({1000, 1100, 900, 1000, 1050, 950});
  // The same visits in 1.5 s: exactly 50% slower, the same noise.
  profile::Profile slow = run({1000, 1100, 900, 1000, 1050, 950}, 1.5);
  auto b = side_speed({&base}, "unit", PointKind::kThroughput);
  auto n = side_speed({&slow}, "unit", PointKind::kThroughput);
  auto c = compare_speeds(*b, *n, 0.95);
  ASSERT_TRUE(c);
  EXPECT_NEAR(c->slower_pct, 50, 1e-9);
  EXPECT_NEAR(c->se, std::sqrt(2 * b->var), 1e-12);
  EXPECT_NEAR(c->dof, 10, 1e-9);  // equal variances: 5 + 5
  double half = experiments::student_t_quantile(0.975, 10) * c->se;
  EXPECT_NEAR(c->low_pct, 100 * std::expm1(std::log(1.5) - half), 1e-9);
  EXPECT_NEAR(c->high_pct, 100 * std::expm1(std::log(1.5) + half), 1e-9);
  EXPECT_LT(c->p, 1e-5);
  EXPECT_TRUE(c->significant);
  // Against itself: no change at all.
  auto same = compare_speeds(*b, *b, 0.95);
  EXPECT_EQ(same->delta, 0);
  EXPECT_NEAR(same->p, 1, 1e-12);
  EXPECT_FALSE(same->significant);
}

TEST(CompareSpeeds, NoiseHidesASmallChange) {
  // 2% slower, with +-10% noise between experiments: not significant.
  profile::Profile base = run({1000, 1100, 900, 1000, 1100, 900});
  profile::Profile slow = run({1000, 1100, 900, 1000, 1100, 900}, 1.02);
  auto c = compare_speeds(*side_speed({&base}, "unit", PointKind::kThroughput),
                          *side_speed({&slow}, "unit", PointKind::kThroughput),
                          0.95);
  ASSERT_TRUE(c);
  EXPECT_NEAR(c->slower_pct, 2, 1e-9);
  EXPECT_FALSE(c->significant);
  EXPECT_LT(c->low_pct, 0);
}

}  // namespace
}  // namespace andweorc::compare
