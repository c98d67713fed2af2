// Lump credit (delay_credit.h): a lump of delay is owed only for the part of
// its sample's window a thread spent running. Deterministic: an injected
// clock and a sleeper that records what it is asked.
#include "runtime/delay_credit.h"

#include <gtest/gtest.h>

#include <vector>

#include "recording_sleeper.h"
#include "runtime/delay_engine.h"

namespace andweorc::runtime {
namespace {

constexpr uint64_t kWindow = 1000000;  // 1 ms: the window of one hit

uint64_t g_credit_now = 0;  // the injected clock
uint64_t credit_clock() { return g_credit_now; }

class LumpCreditTest : public ::testing::Test {
 protected:
  void SetUp() override { g_credit_now = 10 * kWindow; }
  // An experiment at `pct`% whose lumps are credited (or not: Coz's rule).
  void start(int pct, bool credit = true) {
    engine.start_experiment(kWindow * uint64_t(pct) / 100, 0, 0,
                            credit ? kWindow : 0);
  }
  // `t` blocks from `from` to `to` (ns after now) and is woken by a thread.
  void blocked(DelayAccount& t, uint64_t from, uint64_t to, bool by_thread) {
    uint64_t base = g_credit_now;
    g_credit_now = base + from;
    engine.pre_block(t);
    g_credit_now = base + to;
    engine.post_block(t, by_thread);
  }
  // At 40%: the waiter runs 0.3 ms of a hit's 1 ms window and waits the
  // rest (woken by a thread, or not); the hitter's sample ends the window.
  // Returns what the waiter then sleeps (0: nothing).
  uint64_t owed_after_a_wait(bool credit, bool by_thread) {
    start(40, credit);
    engine.catch_up(waiter);  // synced to the experiment
    blocked(waiter, kWindow * 3 / 10, kWindow, by_thread);
    engine.on_samples(hitter, 1);
    engine.catch_up(waiter);
    return sleeper.asked.size() == 1 ? sleeper.asked[0] : 0;
  }
  RecordingSleeper sleeper;
  DelayEngine engine{sleeper.sleeper(), credit_clock};
  DelayAccount hitter, waiter;
};

// The barrier case: the waiter ran 0.3 ms of the hit's 1 ms window and
// waited the other 0.7 ms for the hitter, which woke it. At 40% the lump is
// 0.4 ms; the waiter owes 0.4 x 0.3 = 0.12 ms of it, not the lump.
TEST_F(LumpCreditTest, AWaiterOwesOnlyTheShareOfTheWindowItRan) {
  EXPECT_EQ(owed_after_a_wait(/*credit=*/true, /*by_thread=*/true), 120000u);
  EXPECT_EQ(engine.global(), 400000u);
  engine.catch_up(waiter);  // credited once, paid once
  EXPECT_EQ(sleeper.asked.size(), 1u);
}

TEST_F(LumpCreditTest, WithoutCreditTheWholeLumpIsOwed) {
  EXPECT_EQ(owed_after_a_wait(/*credit=*/false, /*by_thread=*/true), 400000u);
}

// Woken by a timeout or I/O, the wait was not another thread's doing: no
// credit for it, now or later.
TEST_F(LumpCreditTest, AWaitEndedByTheOutsideIsNotCredited) {
  EXPECT_EQ(owed_after_a_wait(/*credit=*/true, /*by_thread=*/false), 400000u);
}

// A lump whose window lies after the wait owes in full.
TEST_F(LumpCreditTest, AWaitOutsideTheWindowEarnsNothing) {
  start(40);
  engine.catch_up(waiter);
  blocked(waiter, 0, kWindow / 10, true);
  g_credit_now += 2 * kWindow;  // the hit's window began after the wait
  engine.on_samples(hitter, 1);
  engine.catch_up(waiter);
  ASSERT_EQ(sleeper.asked.size(), 1u);
  EXPECT_EQ(sleeper.asked[0], 400000u);
}

// A lump posted while the waiter was blocked is credited by the wake-up
// rule; its window must not credit it a second time.
TEST_F(LumpCreditTest, ALumpPostedDuringTheWaitIsCreditedOnce) {
  start(40);
  engine.catch_up(waiter);
  uint64_t base = g_credit_now;
  engine.pre_block(waiter);
  g_credit_now = base + kWindow;
  engine.on_samples(hitter, 1);  // window [base, base + 1 ms]: all waited
  g_credit_now = base + kWindow + 1000;
  engine.post_block(waiter, true);
  EXPECT_EQ(waiter.local, engine.global());  // credited, not ahead
  engine.catch_up(waiter);
  EXPECT_TRUE(sleeper.asked.empty());
  // The next lump's window begins where the wait ended.
  g_credit_now += kWindow;
  engine.on_samples(hitter, 1);
  engine.catch_up(waiter);
  ASSERT_EQ(sleeper.asked.size(), 1u);
  EXPECT_EQ(sleeper.asked[0], 400000u);
}

// The hitter's own lumps are not delayed and earn it nothing either (its
// waits were its own).
TEST_F(LumpCreditTest, TheHitterGetsNoCreditForItsOwnLumps) {
  start(40);
  engine.catch_up(hitter);
  blocked(hitter, 0, kWindow / 2, true);
  engine.on_samples(hitter, 1);
  EXPECT_EQ(hitter.local, engine.global());
  engine.catch_up(hitter);
  EXPECT_EQ(hitter.local, engine.global());
  EXPECT_TRUE(sleeper.asked.empty());
}

// A debt carried into a wait is absorbed by the wait's first part (as
// before); only the rest of the wait stands in for later lumps.
TEST_F(LumpCreditTest, AWaitThatPaidADebtCoversLessOfTheWindow) {
  start(40);
  engine.catch_up(waiter);
  engine.on_samples(hitter, 1);  // 0.4 ms owed by the waiter...
  g_credit_now += 5 * kWindow;   // (that lump's window is long gone)
  uint64_t base = g_credit_now;
  engine.pre_block(waiter);  // ...carried into a 1 ms wait
  g_credit_now = base + kWindow;
  engine.post_block(waiter, true);  // 0.4 ms absorbed, 0.6 ms of span left
  EXPECT_EQ(waiter.local, engine.global());
  engine.on_samples(hitter, 1);  // window = the whole wait
  engine.catch_up(waiter);
  ASSERT_EQ(sleeper.asked.size(), 1u);
  EXPECT_EQ(sleeper.asked[0], 400000u - 400000u * 6 / 10);
}

// A new experiment starts clean: a lump of the last one earns nothing.
TEST_F(LumpCreditTest, LumpsOfAnEarlierExperimentAreIgnored) {
  LumpLog log;
  BlockedSpans spans;
  spans_add(spans, 0, kWindow);
  lump_post(log, /*epoch=*/1, 0, 400000, 0, kWindow, /*owner=*/7);
  EXPECT_EQ(lump_credit(log, 1, spans, 8, 0, 400000), 400000u);
  EXPECT_EQ(lump_credit(log, 2, spans, 8, 0, 400000), 0u);
  EXPECT_EQ(lump_credit(log, 1, spans, 7, 0, 400000), 0u);  // its own
}

// Only lumps wholly inside [from, to) count: the ones looked at before, and
// one whose count the reader's snapshot does not hold yet, do not.
TEST(LumpLog, CreditsOnlyTheLumpsInTheRange) {
  LumpLog log;
  BlockedSpans spans;
  spans_add(spans, 0, kWindow);
  lump_post(log, 1, 0, 100, 0, kWindow, 1);
  lump_post(log, 1, 100, 200, 0, kWindow, 1);
  lump_post(log, 1, 300, 400, 0, kWindow, 1);
  EXPECT_EQ(lump_credit(log, 1, spans, 2, 0, 700), 700u);
  EXPECT_EQ(lump_credit(log, 1, spans, 2, 100, 700), 600u);
  EXPECT_EQ(lump_credit(log, 1, spans, 2, 100, 300), 200u);
  EXPECT_EQ(lump_credit(log, 1, spans, 2, 100, 299), 0u);
  EXPECT_EQ(lump_credit(log, 1, spans, 2, 700, 700), 0u);
}

// A slot whose writer has not finished (odd word) is skipped, and a poster
// that finds its slot still held drops its lump rather than wait.
TEST(LumpLog, ASlotBeingWrittenIsNeitherReadNorOverwritten) {
  LumpLog log;
  BlockedSpans spans;
  spans_add(spans, 0, kWindow);
  lump_post(log, 1, 0, 100, 0, kWindow, 1);
  log.slots[0].seq |= 1;  // a writer holds it
  EXPECT_EQ(lump_credit(log, 1, spans, 2, 0, 100), 0u);
  for (int i = 1; i < kLumpSlots; ++i)
    lump_post(log, 1, 100 * uint64_t(i), 100, 0, kWindow, 1);
  lump_post(log, 1, 6400, 100, 0, kWindow, 1);  // wraps onto the held slot
  EXPECT_EQ(log.slots[0].start, 0u);            // left alone
  log.slots[0].seq += 1;                        // the writer finishes
  EXPECT_EQ(lump_credit(log, 1, spans, 2, 0, 100), 100u);
}

// The log keeps the newest kLumpSlots lumps: older ones are paid in full.
TEST(LumpLog, KeepsTheNewestLumps) {
  LumpLog log;
  BlockedSpans spans;
  spans_add(spans, 0, kWindow);
  for (int i = 0; i < kLumpSlots + 4; ++i)
    lump_post(log, 1, 100 * uint64_t(i), 100, 0, kWindow, 1);
  uint64_t all = 100 * uint64_t(kLumpSlots + 4);
  EXPECT_EQ(lump_credit(log, 1, spans, 2, 0, all), 100u * kLumpSlots);
}

TEST(BlockedSpans, OverlapAddsTheCoveredParts) {
  BlockedSpans s;
  spans_add(s, 100, 200);
  spans_add(s, 300, 400);
  spans_add(s, 500, 500);  // empty: ignored
  EXPECT_EQ(spans_overlap(s, 0, 1000), 200u);
  EXPECT_EQ(spans_overlap(s, 150, 350), 100u);
  EXPECT_EQ(spans_overlap(s, 200, 300), 0u);
  for (int i = 0; i < kBlockedSpans; ++i)
    spans_add(s, 1000 + 10 * uint64_t(i), 1005 + 10 * uint64_t(i));
  EXPECT_EQ(spans_overlap(s, 0, 1000), 0u);  // the oldest were forgotten
}

}  // namespace
}  // namespace andweorc::runtime
