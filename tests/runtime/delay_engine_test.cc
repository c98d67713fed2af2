// Deterministic tests of the delay accounting and inheritance rules, with an
// injected sleeper that "sleeps" exactly as asked plus a configurable
// overshoot, and records every sleep.
#include "runtime/delay_engine.h"

#include <gtest/gtest.h>

#include <vector>

namespace andweorc::runtime {
namespace {

struct FakeSleeper {
  uint64_t overshoot = 0;
  std::vector<uint64_t> asked;
  static uint64_t sleep(void* ctx, uint64_t ns) {
    auto* self = static_cast<FakeSleeper*>(ctx);
    self->asked.push_back(ns);
    return ns + self->overshoot;
  }
  Sleeper sleeper() { return Sleeper{&FakeSleeper::sleep, this}; }
};

constexpr uint64_t kPeriod = 1000000;  // 1 ms sample period

uint64_t g_fake_now = 0;  // the injected clock: time passes only when told
uint64_t fake_clock() { return g_fake_now; }

class DelayEngineTest : public ::testing::Test {
 protected:
  FakeSleeper fake;
  DelayEngine engine{fake.sleeper(), fake_clock};
  DelayAccount a, b, c;  // three threads
  void start(int speedup_pct) {
    engine.start_experiment(kPeriod * uint64_t(speedup_pct) / 100);
  }
};

TEST_F(DelayEngineTest, NoExperimentNoDelay) {
  engine.on_samples(a, 5);
  engine.on_samples(b, 0);
  EXPECT_TRUE(fake.asked.empty());
  EXPECT_EQ(engine.global(), 0u);
}

TEST_F(DelayEngineTest, HitsDelayOthersNotTheHitter) {
  start(50);
  engine.on_samples(a, 2);  // a ran the selected line for 2 samples
  EXPECT_EQ(engine.global(), 2 * kPeriod / 2);
  EXPECT_TRUE(fake.asked.empty());  // a itself is not delayed
  engine.on_samples(b, 0);          // b's next sample: pays 1 ms
  ASSERT_EQ(fake.asked.size(), 1u);
  EXPECT_EQ(fake.asked[0], kPeriod);
  EXPECT_EQ(b.local, engine.global());
  engine.on_samples(b, 0);  // nothing more owed
  EXPECT_EQ(fake.asked.size(), 1u);
}

TEST_F(DelayEngineTest, OversleepIsCarriedAsCredit) {
  fake.overshoot = 300000;  // every sleep overshoots by 0.3 ms
  start(100);
  engine.on_samples(b, 0);  // sync b to this experiment
  engine.on_samples(a, 1);  // +1 ms
  engine.on_samples(b, 0);  // pays 1 ms, sleeps 1.3
  ASSERT_EQ(fake.asked.size(), 1u);
  engine.on_samples(a, 1);  // +1 ms: b owes only 0.7 ms now
  engine.on_samples(b, 0);
  ASSERT_EQ(fake.asked.size(), 2u);
  EXPECT_EQ(fake.asked[1], 700000u);
  EXPECT_EQ(b.paid, 1300000u + 1000000u);
}

TEST_F(DelayEngineTest, WokenByAThreadSkipsDelaysItsWakerPaid) {
  start(100);
  engine.on_samples(b, 0);
  engine.pre_block(b);      // b waits on a condition variable
  engine.on_samples(a, 3);  // 3 ms inserted while b is blocked
  engine.on_samples(c, 0);  // c (the waker) pays them...
  EXPECT_EQ(fake.asked.size(), 1u);
  engine.catch_up(c);  // ...and catches up before signalling
  engine.post_block(b, /*woken_by_thread=*/true);
  engine.catch_up(b);
  EXPECT_EQ(fake.asked.size(), 1u);  // b pays nothing
  EXPECT_EQ(b.local, engine.global());
}

TEST_F(DelayEngineTest, WokenByTimeoutPaysWhatItMissed) {
  start(100);
  engine.on_samples(b, 0);
  engine.pre_block(b);
  engine.on_samples(a, 2);
  engine.post_block(b, /*woken_by_thread=*/false);
  ASSERT_EQ(fake.asked.size(), 1u);
  EXPECT_EQ(fake.asked[0], 2 * kPeriod);
}

TEST_F(DelayEngineTest, DebtBeforeAnInstantWaitIsStillOwed) {
  start(100);
  engine.on_samples(b, 0);
  engine.on_samples(a, 1);  // b owes 1 ms before it blocks
  engine.pre_block(b);
  engine.on_samples(a, 1);  // and 1 ms more while blocked
  engine.post_block(b, true);
  engine.catch_up(b);
  ASSERT_EQ(fake.asked.size(), 1u);
  EXPECT_EQ(fake.asked[0], kPeriod);  // only the debt from before blocking
}

TEST_F(DelayEngineTest, NewThreadInheritsItsCreatorsCount) {
  start(100);
  engine.on_samples(b, 0);
  engine.on_samples(a, 4);
  DelayAccount child;
  engine.inherit(child, a);  // a created the thread: it owes nothing
  engine.catch_up(child);
  EXPECT_TRUE(fake.asked.empty());
  DelayAccount child_of_b;
  engine.inherit(child_of_b, b);  // b was behind: so is its child
  engine.catch_up(child_of_b);
  ASSERT_EQ(fake.asked.size(), 1u);
  EXPECT_EQ(fake.asked[0], 4 * kPeriod);
}

TEST_F(DelayEngineTest, HandOffTokenCarriesTheProducersCount) {
  start(100);
  engine.on_samples(b, 0);
  engine.on_samples(c, 0);
  engine.on_samples(a, 2);  // a (producer) is ahead by 2 ms
  uint64_t token = engine.token(a);
  engine.adopt(b, token);  // b runs a's task: inherits a's count
  engine.catch_up(b);
  EXPECT_TRUE(fake.asked.empty());
  engine.adopt(a, engine.token(c));  // an older count never moves a back
  engine.catch_up(a);
  EXPECT_TRUE(fake.asked.empty());
}

TEST_F(DelayEngineTest, DebtDoesNotLeakIntoTheNextExperiment) {
  start(100);
  engine.on_samples(b, 0);
  engine.on_samples(a, 5);  // b owes 5 ms but never runs again here
  engine.end_experiment();
  start(0);  // next experiment
  engine.on_samples(b, 0);
  EXPECT_TRUE(fake.asked.empty());
  engine.on_samples(a, 5);  // 0% speedup: no delay
  EXPECT_EQ(engine.hits(), 5u);
  engine.on_samples(b, 0);
  EXPECT_TRUE(fake.asked.empty());
}

TEST_F(DelayEngineTest, TinyDebtsAreBatched) {
  engine.start_experiment(100);  // 100 ns per hit
  engine.on_samples(b, 0);
  engine.on_samples(a, 3);
  engine.on_samples(b, 0);
  EXPECT_TRUE(fake.asked.empty());  // 300 ns: carried, not slept
  engine.on_samples(a, 20);
  engine.on_samples(b, 0);
  ASSERT_EQ(fake.asked.size(), 1u);
  EXPECT_EQ(fake.asked[0], 2300u);
}

}  // namespace
}  // namespace andweorc::runtime

namespace andweorc::runtime {
namespace {

TEST(DelayEngineAbsorb, DebtCarriedIntoAWaitIsAbsorbedByTheWait) {
  FakeSleeper fake;
  DelayEngine engine(fake.sleeper(), fake_clock);
  DelayAccount holder, waiter;
  engine.start_experiment(kPeriod);  // 100%
  engine.on_samples(waiter, 0);
  engine.on_samples(holder, 3);  // waiter owes 3 ms...
  g_fake_now = 1000;
  engine.pre_block(waiter);   // ...and blocks on the holder's lock
  g_fake_now += 5 * kPeriod;  // for 5 ms: longer than the debt
  engine.catch_up(holder);
  engine.post_block(waiter, true);
  engine.catch_up(waiter);
  EXPECT_TRUE(fake.asked.empty());  // the wait absorbed the debt
}

TEST(DelayEngineAbsorb, AShortWaitAbsorbsOnlyItsLength) {
  FakeSleeper fake;
  DelayEngine engine(fake.sleeper(), fake_clock);
  DelayAccount holder, waiter;
  engine.start_experiment(kPeriod);
  engine.on_samples(waiter, 0);
  engine.on_samples(holder, 3);
  g_fake_now = 1000;
  engine.pre_block(waiter);
  g_fake_now += kPeriod;  // blocked 1 ms of the 3 owed
  engine.post_block(waiter, true);
  engine.catch_up(waiter);
  ASSERT_EQ(fake.asked.size(), 1u);
  EXPECT_EQ(fake.asked[0], 2 * kPeriod);
}

TEST(DelayEngineAbsorb, PreemptedThreadsHitsCountTheirWallTime) {
  FakeSleeper fake;
  DelayEngine engine(fake.sleeper(), fake_clock);
  DelayAccount hitter, other;
  hitter.scale = 2048;                   // it got half a CPU recently
  engine.start_experiment(kPeriod / 2);  // 50%
  engine.on_samples(other, 0);
  engine.on_samples(hitter, 2);
  EXPECT_EQ(engine.global(), 2 * kPeriod);  // 2 hits x 0.5 ms x 2
}

}  // namespace
}  // namespace andweorc::runtime
