// sampler_calibration_test.cc: the tool's measurement of what a perf sample
// costs (sampler_calibration.h), on this machine's real perf.
#include "cli/sampler_calibration.h"

#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <cstring>

namespace andweorc::cli {
namespace {

TEST(SamplerCalibration, MeasuresAPlausibleCostOrSaysWhyNot) {
  auto t0 = std::chrono::steady_clock::now();
  PerfSampleCost c = measure_perf_sample_cost(2, 10);
  double s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
          .count();
  if (!c.measured) {
    // perf refused (perf_event_paranoid 3, seccomp): the reason is given.
    EXPECT_NE(c.error.find("perf_event_open"), std::string::npos) << c.error;
    return;
  }
  EXPECT_TRUE(c.error.empty());
  // A sample cannot cost less than nothing, nor more than its period.
  EXPECT_GE(c.us, 0.0);
  EXPECT_LT(c.us, 100.0);
  // 2 x 2 runs of ~10 ms of CPU and a probe: well under a second of wall
  // time unless the machine is starved (a generous bound, not a timing).
  EXPECT_LT(s, 20.0);
}

void own_handler(int) {}

// The cost measured is the runtime's scheme, a signal per sample included
// (the ring alone is about half of it), and the tool's own SIGURG handling
// is what it was before.
TEST(SamplerCalibration, SignalsEverySampleAndRestoresTheHandler) {
  struct sigaction mine, before, after;
  std::memset(&mine, 0, sizeof mine);
  mine.sa_handler = own_handler;
  sigemptyset(&mine.sa_mask);
  ASSERT_EQ(sigaction(SIGURG, &mine, &before), 0);
  PerfSampleCost c = measure_perf_sample_cost(2, 10);
  ASSERT_EQ(sigaction(SIGURG, &before, &after), 0);
  EXPECT_EQ(after.sa_handler, own_handler);
  if (!c.measured) GTEST_SKIP() << c.error;
  // 2 runs of ~10 ms of CPU at one sample per 100 us: ~200 samples; a
  // loaded machine stretches wall time, not the thread's CPU time.
  EXPECT_GT(c.signals, 50u);
}

// The rule is a share of the run's period: the same sample cost keeps perf
// at a longer period.
TEST(SamplerCalibration, PrefersTheTimerAboveAShareOfThePeriod) {
  constexpr uint64_t kMs = 1000000;
  EXPECT_FALSE(timer_preferred(15.0, kMs));  // 1.5%
  EXPECT_FALSE(timer_preferred(25.0, kMs));  // 2.5%: at the bar
  EXPECT_TRUE(timer_preferred(26.0, kMs));
  EXPECT_TRUE(timer_preferred(40.0, kMs));
  EXPECT_FALSE(timer_preferred(40.0, 10 * kMs));  // 0.4%
  EXPECT_TRUE(timer_preferred(15.0, kMs / 2));    // 3% at 500 us
  EXPECT_FALSE(timer_preferred(0.0, kMs));
  EXPECT_FALSE(timer_preferred(40.0, 0));  // no period: nothing to compare
}

}  // namespace
}  // namespace andweorc::cli
