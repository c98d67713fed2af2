// timer_interval_test.cc: the mean interval between timer signals, which
// sets the shortest experiment with the timer sampler.
#include "runtime/timer_interval.h"

#include <gtest/gtest.h>

namespace andweorc::runtime {
namespace {

TEST(TimerIntervals, NothingUntilEnoughSignals) {
  TimerIntervals t;
  EXPECT_EQ(timer_intervals_mean(t, 1), 0);
  timer_intervals_note(t, 4);
  EXPECT_EQ(timer_intervals_mean(t, 2), 0);
  EXPECT_EQ(timer_intervals_mean(t, 1), 4);
}

TEST(TimerIntervals, TheMeanOfThePeriodsEachSignalStoodFor) {
  // 1 ms periods on a 4 ms tick: mostly 4 periods a signal, a few 5
  // (a tick missed) and 1 (a thread that ran briefly).
  TimerIntervals t;
  for (int i = 0; i < 96; ++i) timer_intervals_note(t, 4);
  for (int i = 0; i < 2; ++i) timer_intervals_note(t, 5);
  for (int i = 0; i < 2; ++i) timer_intervals_note(t, 1);
  EXPECT_DOUBLE_EQ(timer_intervals_mean(t, 100), 3.96);
}

}  // namespace
}  // namespace andweorc::runtime
