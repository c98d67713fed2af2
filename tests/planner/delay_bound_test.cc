// delay_bound_test.cc: the plausibility bound in wall and CPU terms
// (planner/delay_bound.h).
#include "planner/delay_bound.h"

#include <gtest/gtest.h>

namespace andweorc::planner {
namespace {

TEST(CpuDelayShare, IsTheWallShareWhenTheProgramKeepsItsCpuRate) {
  Half ref{1.0, 0, 1.5};     // 1.5 CPU s per wall s
  Half fast{2.0, 0.4, 3.0};  // D/T = 0.2, the same rate
  EXPECT_NEAR(*wall_delay_share(fast), 0.2, 1e-12);
  EXPECT_NEAR(*cpu_delay_share(ref, fast), 0.2, 1e-12);
}

TEST(CpuDelayShare, GrowsWithTheCpuAPausedThreadHandsOver) {
  Half ref{1.0, 0, 1.0};
  Half fast{1.0, 0.2, 1.25};  // 25% more CPU per wall second
  // 1 - (1 - 0.2) / 1.25
  EXPECT_NEAR(*cpu_delay_share(ref, fast), 0.36, 1e-12);
  // Paused threads whose CPU went unused: nothing could speed up.
  Half idle{1.0, 0.2, 0.8};
  EXPECT_NEAR(*cpu_delay_share(ref, idle), 0.0, 1e-12);
}

TEST(CpuDelayShare, UnknownOrMeaninglessInputsSayNothing) {
  Half ref{1.0, 0, 1.0};
  EXPECT_FALSE(cpu_delay_share(ref, Half{1.0, 0.1, -1}));  // not recorded
  EXPECT_FALSE(cpu_delay_share(ref, Half{1.0, 0.1, 0}));   // no samples
  EXPECT_FALSE(cpu_delay_share(Half{1.0, 0, -1}, Half{1.0, 0.1, 1}));
  EXPECT_FALSE(cpu_delay_share(ref, Half{0, 0, 1}));  // no duration
  EXPECT_FALSE(wall_delay_share(Half{0, 0, 1}));
  // Clamped: a delay beyond the wall time is all of it.
  EXPECT_DOUBLE_EQ(*wall_delay_share(Half{1.0, 3.0, 1}), 1.0);
  EXPECT_DOUBLE_EQ(*cpu_delay_share(ref, Half{1.0, 0.5, 0.001}), -1.0);
}

TEST(BoundAccumulator, CpuTermsWhenEveryExperimentKnowsItsCpu) {
  BoundAccumulator a;
  Half ref{1.0, 0, 1.0};
  for (double x : {0.25, 0.5, 0.75}) {
    // D/T = 0.4 x; CPU rate up so that s = 0.6 x exactly.
    double d = 0.4 * x, s = 0.6 * x;
    a.add(x, 1.0, ref, Half{1.0, d, (1 - d) / (1 - s)});
  }
  BoundAccumulator::Bound b = a.bound(0.95, 4);
  EXPECT_TRUE(b.judged);
  EXPECT_TRUE(b.cpu);
  EXPECT_NEAR(b.wall, 0.4, 1e-9);
  EXPECT_NEAR(b.cpu_share, 0.6, 1e-9);
  EXPECT_NEAR(b.high, 0.6, 1e-9);  // exact data: no spread to add
  EXPECT_NEAR(b.low, -1.6, 1e-9);
}

TEST(BoundAccumulator, TheUpperLimitCarriesTheSpreadOfTheMeasuredCpu) {
  BoundAccumulator a;
  Half ref{1.0, 0, 1.0};
  int k = 0;
  for (double x : {0.25, 0.5, 0.75, 0.25, 0.5, 0.75}) {
    double d = 0.3 * x;
    double rate = (k++ % 2 ? 1.05 : 0.95);  // +-5% of sampling noise
    a.add(x, 1.0, ref, Half{1.0, d, (1 - d) * rate});
  }
  BoundAccumulator::Bound b = a.bound(0.95, 1);
  ASSERT_TRUE(b.cpu);
  EXPECT_GT(b.high, b.cpu_share + 0.01);
}

// A region that got almost no delay: its s is the CPU rate's noise, and
// the hand-over cap (N + 1) u keeps its bound near 0.
TEST(BoundAccumulator, TheHandOverCapBoundsARegionWithoutDelay) {
  BoundAccumulator a;
  Half ref{1.0, 0, 1.0};
  int k = 0;
  for (double x : {0.25, 0.5, 0.75, 0.25, 0.5, 0.75}) {
    double rate = (k++ % 2 ? 1.4 : 0.8);  // the load moves the CPU rate
    a.add(x, 1.0, ref, Half{1.0, 0.001 * x, rate});
  }
  BoundAccumulator::Bound uncapped = a.bound(0.95, 0);
  BoundAccumulator::Bound capped = a.bound(0.95, 4);
  EXPECT_GT(uncapped.high, 0.2);
  EXPECT_NEAR(capped.high, 5 * 0.001, 1e-12);
  EXPECT_NEAR(capped.low, -4 * 0.001, 1e-12);
}

TEST(BoundAccumulator, FallsBackToTheWallRuleWithoutCpu) {
  BoundAccumulator a;
  Half ref{1.0, 0, 1.0};
  a.add(0.5, 1.0, ref, Half{1.0, 0.1, 1.0});
  a.add(0.5, 1.0, ref, Half{1.0, 0.1, -1});  // one unknown is enough
  BoundAccumulator::Bound b = a.bound(0.95, 2);
  EXPECT_TRUE(b.judged);
  EXPECT_FALSE(b.cpu);
  EXPECT_NEAR(b.wall, 0.2, 1e-12);
  EXPECT_NEAR(b.high, kWallSlack * 0.2, 1e-12);
  EXPECT_NEAR(b.low, -0.4, 1e-12);
}

TEST(BoundAccumulator, NotJudgedWhenNoExperimentKnowsItsDuration) {
  BoundAccumulator a;
  a.add(0.5, 1.0, Half{}, Half{});  // the preloaded planner's observations
  EXPECT_FALSE(a.bound(0.95, 2).judged);
}

}  // namespace
}  // namespace andweorc::planner
