// experiment_cpu_test.cc: the CPU time of an experiment's window from the
// samples' time stamps (experiment_cpu.h).
#include "ingest/experiment_cpu.h"

#include <gtest/gtest.h>

namespace andweorc::ingest {
namespace {

TEST(SampleTimeline, SumsTheWeightsInAHalfOpenWindowWhateverTheOrder) {
  SampleTimeline t;
  // Batches come thread by thread: times out of order.
  t.add(300, 1);
  t.add(100, 2);
  t.add(200, 1);
  t.add(150, 0);  // weight 0 is one period, as the reader treats it
  EXPECT_EQ(t.weight_in(100, 300), 4u);
  EXPECT_EQ(t.weight_in(101, 301), 3u);
  EXPECT_EQ(t.weight_in(0, 100), 0u);
  EXPECT_EQ(t.latest(), 300u);
}

TEST(ExperimentCpu, IsTheWeightedSamplesTimesThePeriod) {
  std::vector<RawSample> samples;
  for (uint64_t ms = 0; ms < 100; ++ms) {
    RawSample s;
    s.time_ns = ms * 1000000;
    s.weight = ms % 10 == 0 ? 2 : 1;  // a timer overrun now and then
    samples.push_back(s);
  }
  SampleTimeline t(samples);
  // [10 ms, 30 ms): 20 samples, two of them weight 2, at 1 ms each.
  EXPECT_NEAR(experiment_cpu_s(t, 1000000, 10000000, 20000000), 0.022, 1e-12);
  EXPECT_DOUBLE_EQ(experiment_cpu_s(t, 0, 0, 20000000), -1);  // no sampler
}

TEST(ExperimentCpu, AWindowBeforeTheDroppedPastIsUnknown) {
  SampleTimeline t;
  for (uint64_t i = 0; i < 10; ++i) t.add(i * 10, 1);
  t.drop_before(50);
  EXPECT_EQ(t.weight_in(0, 100), 5u);
  EXPECT_DOUBLE_EQ(experiment_cpu_s(t, 1, 40, 20), -1);
  EXPECT_DOUBLE_EQ(experiment_cpu_s(t, 1, 50, 20), 2e-9);
}

// The streaming sum a finished run's ingest uses gives what the timeline of
// all samples gives, for overlapping windows and samples out of order.
TEST(WindowWeights, SumsWhatTheTimelineSumsWithoutKeepingSamples) {
  std::vector<std::pair<uint64_t, uint64_t>> windows = {
      {500, 900}, {100, 300}, {200, 600}, {250, 260}, {900, 1000}, {0, 0}};
  WindowWeights w(windows);
  SampleTimeline t;
  uint64_t x = 12345;
  for (int i = 0; i < 2000; ++i) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    uint64_t time = (x >> 33) % 1100;
    uint32_t weight = uint32_t((x >> 20) % 3);  // 0 counts as 1
    w.add(time, weight);
    t.add(time, weight);
  }
  for (size_t i = 0; i < windows.size(); ++i)
    EXPECT_EQ(w.weight(i), t.weight_in(windows[i].first, windows[i].second))
        << "window " << i;
  EXPECT_EQ(w.weight(5), 0u);  // empty window
}

}  // namespace
}  // namespace andweorc::ingest
