// trace_view_test.cc: thresholds (percentiles, durations), the slow and
// fast calls' profiles, and the "traces" section's round trip and checks.
#include "profile/trace_view.h"

#include <gtest/gtest.h>

#include "profile/profile_json.h"

namespace andweorc::profile {
namespace {

Profile traced_profile() {
  Profile p;
  p.frames = {Frame{"slow", "a.cc", 1, "", false, true},
              Frame{"fast", "a.cc", 2, "", false, true}};
  p.stacks = {Stack{{0}, 5, {}}, Stack{{1}, 20, {}}};
  p.samples = 25;
  TracedFunction t;
  t.name = "h";
  for (uint64_t i = 1; i <= 20; ++i) t.durations_ns.push_back(i * 100);
  // Stack 0 only in the two slowest calls; stack 1 in the others.
  t.samples = {TraceSample{0, 1900, 2}, TraceSample{0, 2000, 3},
               TraceSample{1, 100, 10}, TraceSample{1, 1800, 10}};
  p.traces.push_back(t);
  return p;
}

TEST(TraceView, ThresholdsArePercentilesOrDurations) {
  Profile p = traced_profile();
  const TracedFunction& t = p.traces[0];
  std::string error;
  EXPECT_EQ(parse_threshold(t, "p90", &error), 1800u);  // rank 18 of 20
  EXPECT_EQ(parse_threshold(t, "p50", &error), 1000u);
  EXPECT_EQ(parse_threshold(t, "2ms", &error), 2000000u);
  EXPECT_EQ(parse_threshold(t, "1.5us", &error), 1500u);
  EXPECT_EQ(parse_threshold(t, "800ns", &error), 800u);
  for (const char* bad : {"p0", "p100", "px", "5", "5 ms", "-1ms", ""}) {
    error.clear();
    EXPECT_FALSE(parse_threshold(t, bad, &error)) << bad;
    EXPECT_NE(error.find("--slower-than"), std::string::npos) << bad;
  }
  EXPECT_EQ(calls_slower_than(t, 1800), 2u);
}

TEST(TraceView, SlowAndFastProfilesSplitTheSamples) {
  Profile p = traced_profile();
  Profile slow = calls_profile(p, p.traces[0], 1800, true);
  ASSERT_EQ(slow.stacks.size(), 1u);
  EXPECT_EQ(slow.stacks[0].frames, std::vector<uint32_t>{0});
  EXPECT_EQ(slow.samples, 5u);
  Profile fast = calls_profile(p, p.traces[0], 1800, false);
  ASSERT_EQ(fast.stacks.size(), 1u);
  EXPECT_EQ(fast.stacks[0].frames, std::vector<uint32_t>{1});
  EXPECT_EQ(fast.samples, 20u);
}

TEST(TraceView, FindTraceNamesTheCandidates) {
  Profile p = traced_profile();
  std::string error;
  EXPECT_EQ(find_trace(p, "", &error), &p.traces[0]);
  EXPECT_EQ(find_trace(p, "zz", &error), nullptr);
  EXPECT_NE(error.find("traced: h"), std::string::npos) << error;
  Profile none;
  EXPECT_EQ(find_trace(none, "", &error), nullptr);
  EXPECT_NE(error.find("--trace"), std::string::npos);
}

TEST(TraceJson, RoundTripsAndRejectsABadStack) {
  Profile p = traced_profile();
  auto r = parse_profile(dump_profile(p));
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.profile->traces, p.traces);
  p.traces[0].samples[0].stack = 7;  // no such stack
  auto bad = parse_profile(dump_profile(p));
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error.find("traces[0].samples[0][0]"), std::string::npos)
      << bad.error;
}

}  // namespace
}  // namespace andweorc::profile
