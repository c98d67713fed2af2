// Delay ramps (delay_ramp.h): a hit's delay is released over the time its
// samples stand for. Deterministic: an injected clock, and a sleeper that
// advances it by what it sleeps.
#include "runtime/delay_ramp.h"

#include <gtest/gtest.h>

#include <vector>

#include "recording_sleeper.h"
#include "runtime/delay_engine.h"

namespace andweorc::runtime {
namespace {

constexpr uint64_t kRampPeriod = 1000000;  // 1 ms: the window of one hit

uint64_t g_ramp_now = 1000;  // the injected clock
uint64_t ramp_clock() { return g_ramp_now; }

TEST(RampSet, ReleasesItsAmountLinearlyOverTheWindow) {
  RampSet set;
  RampClaim claim;
  ASSERT_TRUE(ramp_post(set, claim, 1, 400000, kRampPeriod, 1000));
  EXPECT_EQ(ramp_total(set, 1000), 0u);
  EXPECT_EQ(ramp_total(set, 1000 + kRampPeriod / 4), 100000u);
  EXPECT_EQ(ramp_total(set, 1000 + kRampPeriod / 2), 200000u);
  EXPECT_EQ(ramp_total(set, 1000 + kRampPeriod), 400000u);
  EXPECT_EQ(ramp_total(set, 1000 + 10 * kRampPeriod), 400000u);
}

TEST(RampSet, ASecondPostContinuesAtTheSameRate) {
  RampSet set;
  RampClaim claim;
  ASSERT_TRUE(ramp_post(set, claim, 1, 400000, kRampPeriod, 0));
  // Half-way, another hit of the same speed-up: the rest (200 us) and the
  // new 400 us go on at 0.4 ns per ns, ending 1.5 windows after the start.
  ASSERT_TRUE(ramp_post(set, claim, 1, 400000, kRampPeriod, kRampPeriod / 2));
  EXPECT_EQ(claim.index, 0);  // the same ramp
  EXPECT_EQ(ramp_total(set, kRampPeriod / 2), 200000u);
  EXPECT_EQ(ramp_total(set, kRampPeriod), 400000u);
  EXPECT_EQ(ramp_total(set, 3 * kRampPeriod / 2), 600000u);
  EXPECT_EQ(ramp_total(set, 2 * kRampPeriod), 800000u);
  EXPECT_EQ(ramp_total(set, 5 * kRampPeriod), 800000u);
}

TEST(RampSet, ThreadsRampInParallel) {
  RampSet set;
  RampClaim a, b;
  ASSERT_TRUE(ramp_post(set, a, 1, 500000, kRampPeriod, 0));
  ASSERT_TRUE(ramp_post(set, b, 1, 500000, kRampPeriod, 0));
  EXPECT_NE(a.index, b.index);
  EXPECT_EQ(ramp_total(set, kRampPeriod / 2), 500000u);
  EXPECT_EQ(ramp_total(set, kRampPeriod), 1000000u);
}

TEST(RampSet, StopCapsTheReleaseAndFoldDropsTheRest) {
  RampSet set;
  RampClaim claim;
  ASSERT_TRUE(ramp_post(set, claim, 1, 400000, kRampPeriod, 0));
  __atomic_store_n(&set.stop_ns, kRampPeriod / 4, __ATOMIC_RELEASE);
  EXPECT_EQ(ramp_total(set, kRampPeriod), 100000u);  // nothing after the end
  ramp_fold_all(set, 2 * kRampPeriod);
  EXPECT_EQ(set.stop_ns, 0u);
  EXPECT_EQ(ramp_total(set, 10 * kRampPeriod), 100000u);  // the rest dropped
  // The claim ended with the experiment: the next one claims again.
  ASSERT_TRUE(ramp_post(set, claim, 2, 400000, kRampPeriod, 10 * kRampPeriod));
  EXPECT_EQ(claim.epoch, 2u);
  EXPECT_EQ(ramp_total(set, 11 * kRampPeriod), 500000u);
}

TEST(RampSet, APostIntoAFoldedRampIsRefusedNotLost) {
  RampSet set;
  RampClaim claim;
  ASSERT_TRUE(ramp_post(set, claim, 1, 1000, kRampPeriod, 0));
  ramp_fold_all(set, kRampPeriod);
  // A late post that still believes it owns the ramp in epoch 1: refused,
  // so the caller counts it at once instead.
  EXPECT_FALSE(ramp_post(set, claim, 1, 1000, kRampPeriod, kRampPeriod));
}

TEST(RampSet, NoWindowOrNoFreeRampMeansAtOnce) {
  RampSet set;
  RampClaim none;
  EXPECT_FALSE(ramp_post(set, none, 1, 1000, 0, 0));
  std::vector<RampClaim> claims(kDelayRamps + 1);
  for (int i = 0; i < kDelayRamps; ++i)
    EXPECT_TRUE(ramp_post(set, claims[i], 1, 1000, kRampPeriod, 0));
  EXPECT_FALSE(ramp_post(set, claims[kDelayRamps], 1, 1000, kRampPeriod, 0));
  EXPECT_EQ(ramp_total(set, kRampPeriod), uint64_t(kDelayRamps) * 1000u);
}

TEST(RampSet, AStalledWriterCountsOnlyWhatIsSurelyReleased) {
  RampSet set;
  RampClaim claim;
  ASSERT_TRUE(ramp_post(set, claim, 1, 400000, kRampPeriod, 0));
  ASSERT_TRUE(ramp_post(set, claim, 1, 400000, kRampPeriod, kRampPeriod));
  set.ramps[0].seq |= 1;  // a writer preempted mid-write
  EXPECT_EQ(ramp_total(set, 2 * kRampPeriod), 400000u);  // `done` only
  set.ramps[0].seq += 1;
  EXPECT_EQ(ramp_total(set, 2 * kRampPeriod), 800000u);
}

TEST(RampSet, FoldingDoesNotWaitForeverForAWriterThatDied) {
  RampSet set;
  RampClaim a, b;
  ASSERT_TRUE(ramp_post(set, a, 1, 400000, kRampPeriod, 0));
  ASSERT_TRUE(ramp_post(set, b, 1, 400000, kRampPeriod, 0));
  set.ramps[a.index].seq |= 1;              // its process was killed mid-write
  ramp_fold_all(set, kRampPeriod / 2);      // returns
  EXPECT_EQ(set.ramps[b.index].owner, 0u);  // the other one was folded
  EXPECT_EQ(set.ramps[b.index].done, 200000u);
  EXPECT_EQ(set.stop_ns, 0u);
}

class DelayRampEngine : public ::testing::Test {
 protected:
  // Sleeping moves the clock: the ramps release while a thread pays.
  RecordingSleeper clock_sleeper{0, &g_ramp_now, {}};
  DelayEngine engine{clock_sleeper.sleeper(), ramp_clock};
  DelayAccount hitter, other;
  void SetUp() override { g_ramp_now = 1000; }
  void start(int speedup_pct) {
    engine.start_experiment(kRampPeriod * uint64_t(speedup_pct) / 100, 0,
                            kRampPeriod);
  }
};

TEST_F(DelayRampEngine, OthersOweTheDelayAsItIsReleased) {
  start(40);
  engine.on_samples(other, 0);  // both synced to the experiment
  engine.on_samples(hitter, 1);
  EXPECT_TRUE(clock_sleeper.asked.empty());  // the hitter is not delayed
  g_ramp_now += kRampPeriod / 2;
  engine.catch_up(other);  // half the window: half the 400 us
  ASSERT_EQ(clock_sleeper.asked.size(), 1u);
  EXPECT_EQ(clock_sleeper.asked[0], 200000u);
  // The sleep itself took 200 us, during which 80 us more were released.
  engine.catch_up(other);
  ASSERT_EQ(clock_sleeper.asked.size(), 2u);
  EXPECT_EQ(clock_sleeper.asked[1], 80000u);
  g_ramp_now += kRampPeriod;
  engine.catch_up(other);  // the rest, and never more than the hit's delay
  uint64_t paid = 0;
  for (uint64_t ns : clock_sleeper.asked) paid += ns;
  EXPECT_EQ(paid, 400000u);
  EXPECT_EQ(other.local, engine.global());
}

TEST_F(DelayRampEngine, AWaiterIsCreditedOnlyWithWhatWasReleasedWhileItWaited) {
  start(40);
  engine.on_samples(other, 0);
  engine.on_samples(hitter, 1);
  g_ramp_now += kRampPeriod / 4;  // 100 us released while other runs
  engine.pre_block(other);
  g_ramp_now += kRampPeriod / 2;  // 200 us released while it waits
  engine.post_block(other, /*woken_by_thread=*/true);
  // The wait absorbs what it owed when it blocked (100 us, waited 500 us),
  // the waker paid the 200 us released meanwhile: nothing owed now...
  EXPECT_EQ(other.local, engine.global());
  EXPECT_TRUE(clock_sleeper.asked.empty());
  // ...but the last quarter is released later and is owed then.
  g_ramp_now += kRampPeriod;
  engine.catch_up(other);
  ASSERT_EQ(clock_sleeper.asked.size(), 1u);
  EXPECT_EQ(clock_sleeper.asked[0], 100000u);
}

TEST_F(DelayRampEngine, AnExperimentsRestIsNotOwedInTheNext) {
  start(40);
  engine.on_samples(other, 0);
  engine.on_samples(hitter, 1);
  g_ramp_now += kRampPeriod / 4;
  engine.end_experiment();
  uint64_t at_end = engine.global();
  g_ramp_now += kRampPeriod;
  EXPECT_EQ(engine.global(), at_end);  // nothing released after the end
  start(40);
  g_ramp_now += kRampPeriod;
  engine.catch_up(other);  // nothing of the old ramp is owed
  EXPECT_TRUE(clock_sleeper.asked.empty());
  EXPECT_EQ(engine.global(), at_end);
}

TEST_F(DelayRampEngine, WithoutAWindowTheDelayIsOwedAtOnce) {
  engine.start_experiment(kRampPeriod * 40 / 100);  // no window: as Coz
  engine.on_samples(other, 0);
  engine.on_samples(hitter, 1);
  engine.catch_up(other);
  ASSERT_EQ(clock_sleeper.asked.size(), 1u);
  EXPECT_EQ(clock_sleeper.asked[0], 400000u);
}

}  // namespace
}  // namespace andweorc::runtime
