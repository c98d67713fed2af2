// contention_share_test.cc: which run-queue wait contention scaling counts.
#include "runtime/contention_share.h"

#include <gtest/gtest.h>

namespace andweorc::runtime {
namespace {

constexpr uint64_t kMs = 1000000;

TEST(ContentionShare, ModeFromEnvironment) {
  EXPECT_EQ(contention_mode(nullptr), ContentionMode::kOff);
  EXPECT_EQ(contention_mode(""), ContentionMode::kOff);
  EXPECT_EQ(contention_mode("0"), ContentionMode::kOff);
  EXPECT_EQ(contention_mode("1"), ContentionMode::kPreempted);
  EXPECT_EQ(contention_mode("all"), ContentionMode::kAllWait);
}

TEST(ContentionShare, WakeUpLatencyIsNotCounted) {
  // A pool thread on an idle machine: 100 wake-ups, no preemption.
  EXPECT_EQ(preempted_wait(5 * kMs, 100, 0), 0u);
  // A CPU-bound thread on a loaded machine: preempted only.
  EXPECT_EQ(preempted_wait(5 * kMs, 0, 40), 5 * kMs);
  // Mixed: the wait is shared out by switch counts.
  EXPECT_EQ(preempted_wait(4 * kMs, 30, 10), 1 * kMs);
  // No switch in the window: the thread ran or waited throughout.
  EXPECT_EQ(preempted_wait(3 * kMs, 0, 0), 3 * kMs);
  // Large values do not overflow.
  EXPECT_EQ(preempted_wait(uint64_t(1) << 62, 1 << 20, 1 << 20), uint64_t(1)
                                                                     << 61);
}

TEST(ContentionShare, ScaleIsWallPerCpu) {
  // Half the window preempted: the line took twice its CPU time.
  EXPECT_EQ(contention_scale(10 * kMs, 10 * kMs, 10 * kMs, 1024), 2048u);
  // Waits that followed wake-ups leave the scale at 1.
  EXPECT_EQ(contention_scale(10 * kMs, 10 * kMs, 0, 3000), 1024u);
  // Too short a window, or no CPU at all: the previous scale stays.
  EXPECT_EQ(contention_scale(1 * kMs, 0, 0, 3000), 3000u);
  EXPECT_EQ(contention_scale(0, 50 * kMs, 50 * kMs, 3000), 3000u);
  // Capped at 8x, and the counted wait never exceeds the wait.
  EXPECT_EQ(contention_scale(1 * kMs, 100 * kMs, 100 * kMs, 1024), 8192u);
  EXPECT_EQ(contention_scale(10 * kMs, 5 * kMs, 50 * kMs, 1024), 1536u);
}

TEST(ContentionShare, ParsesStatusSwitchCounts) {
  const char* status =
      "Name:\tworker\nState:\tR (running)\nCpus_allowed_list:\t0-1\n"
      "voluntary_ctxt_switches:\t1234\nnonvoluntary_ctxt_switches:\t56\n";
  uint64_t vol = 0, invol = 0;
  ASSERT_TRUE(parse_ctxt_switches(status, &vol, &invol));
  EXPECT_EQ(vol, 1234u);  // not the tail of "nonvoluntary_..."
  EXPECT_EQ(invol, 56u);
  // Order does not matter, missing fields are refused.
  ASSERT_TRUE(parse_ctxt_switches(
      "nonvoluntary_ctxt_switches:\t7\nvoluntary_ctxt_switches:\t8\n", &vol,
      &invol));
  EXPECT_EQ(vol, 8u);
  EXPECT_EQ(invol, 7u);
  EXPECT_FALSE(
      parse_ctxt_switches("voluntary_ctxt_switches:\t8\n", &vol, &invol));
  EXPECT_FALSE(parse_ctxt_switches("", &vol, &invol));
}

}  // namespace
}  // namespace andweorc::runtime
