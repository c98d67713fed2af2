// convergence_test.cc: paired blocks, their slope estimate, and the
// stopping rule R1-R6 on hand-made observations.
#include "planner/convergence.h"

#include <gtest/gtest.h>

#include <cmath>

#include "planner/paired_blocks.h"

namespace andweorc::planner {
namespace {

// An observation of `region` at s% whose point "done" has the period
// base * (1 - impact * s / 100) (1000 visits).
Observation obs(const std::string& region, int s, double impact,
                double base = 0.001, int stream = 1) {
  Observation o;
  o.region = region;
  o.stream = stream;
  o.speedup_pct = s;
  o.virtual_s = base * (1 - impact * s / 100.0) * 1000;
  o.points = {{"done", false, 1000}};
  return o;
}

TEST(PointValue, ThroughputAndLittlesLaw) {
  Observation o;
  o.virtual_s = 2;
  PointCount t{"t", false, 400};
  EXPECT_DOUBLE_EQ(*point_value(o, t), 0.005);
  PointCount l{"l", true, 100, 4, 6};  // 5 in flight, 50 arrivals/s
  EXPECT_DOUBLE_EQ(*point_value(o, l), 0.1);
  EXPECT_FALSE(point_value(o, {"z", false, 0}).has_value());
  o.virtual_s = 0;
  EXPECT_FALSE(point_value(o, t).has_value());
}

TEST(BlockPairer, PairsAdjacentZeroAndSpeedUpOfOneRegionOnce) {
  BlockPairer p;
  EXPECT_FALSE(p.add(0, obs("a", 0, 0)));
  std::optional<Block> b = p.add(1, obs("a", 40, 0));
  ASSERT_TRUE(b);
  EXPECT_EQ(b->baseline, 0u);
  EXPECT_EQ(b->sped_up, 1u);
  EXPECT_FALSE(p.add(2, obs("a", 0, 0)));  // 1 is already in a block
  b = p.add(3, obs("a", 20, 0));           // s% first is fine too
  ASSERT_TRUE(b);
  b = p.add(4, obs("a", 60, 0));
  EXPECT_FALSE(b);  // two sped-up halves
  EXPECT_FALSE(p.add(5, obs("b", 0, 0)));
  EXPECT_FALSE(p.add(6, obs("a", 20, 0)));  // another region in between
  // Streams (processes) never mix.
  EXPECT_FALSE(p.add(7, obs("c", 0, 0, 0.001, 1)));
  EXPECT_FALSE(p.add(8, obs("c", 20, 0, 0.001, 2)));
  EXPECT_TRUE(p.add(9, obs("c", 20, 0, 0.001, 1)));
}

TEST(SlopeAccumulator, ExactBlocksGiveTheSlopeWithANarrowInterval) {
  SlopeAccumulator a;
  for (double x : {0.2, 0.4, 0.6, 0.2}) a.add(x, 0.5 * x);
  SlopeEstimate e = a.estimate(0.95);
  EXPECT_TRUE(e.valid);
  EXPECT_EQ(e.blocks, 4);
  EXPECT_NEAR(e.slope, 0.5, 1e-12);
  EXPECT_NEAR(e.low, 0.5, 1e-9);
  EXPECT_NEAR(e.high, 0.5, 1e-9);
}

TEST(SlopeAccumulator, IntervalMatchesStudentT) {
  // y = 0.5 x + e, e = +-0.01: b = 0.5, rss = 4 * 1e-4 (x symmetric).
  SlopeAccumulator a;
  a.add(0.5, 0.26);
  a.add(0.5, 0.24);
  a.add(0.5, 0.26);
  a.add(0.5, 0.24);
  SlopeEstimate e = a.estimate(0.95);
  double se = std::sqrt(4e-4 / 3 / 1.0);  // sxx = 4 * 0.25
  EXPECT_NEAR(e.se, se, 1e-12);
  EXPECT_NEAR(e.high - e.slope, 3.182446305 * se, 1e-6);  // t(0.975, 3)
  EXPECT_FALSE(SlopeAccumulator().estimate(0.95).valid);
}

TEST(BlockSpeedup, DriftCancelsWithinTheBlock) {
  // The program is 30% slower than at the start, in both halves alike.
  std::optional<double> y = block_speedup(
      obs("a", 0, 0.5, 0.0013), obs("a", 40, 0.5, 0.0013), {"done", false});
  ASSERT_TRUE(y);
  EXPECT_NEAR(*y, 0.2, 1e-12);
}

// A block whose sped-up half fell into a stall (a write stall: its rate
// 300x lower) counts as -1, not -299: one such block cannot outweigh a
// hundred ordinary ones.
TEST(BlockSpeedup, ASlowDownCountsForAtMostMinusOne) {
  Observation base = obs("a", 0, 0, 0.001);
  Observation stalled = obs("a", 50, 0, 0.3);
  std::optional<double> y = block_speedup(base, stalled, {"done", false});
  ASSERT_TRUE(y);
  EXPECT_DOUBLE_EQ(*y, kMinBlockSpeedup);
  // Within the bound, unchanged: 1.5x slower is -0.5.
  y = block_speedup(base, obs("a", 50, 0, 0.0015), {"done", false});
  ASSERT_TRUE(y);
  EXPECT_NEAR(*y, -0.5, 1e-12);
  // The other way round (the baseline stalled) is at most 1 anyway.
  y = block_speedup(obs("a", 0, 0, 0.3), obs("a", 50, 0, 0.001),
                    {"done", false});
  ASSERT_TRUE(y);
  EXPECT_NEAR(*y, 1 - 0.001 / 0.3, 1e-12);
}

TEST(ConvergenceTracker, StableOnlyAfterTheLeaderLedForNExperiments) {
  ConvergenceOptions o;
  o.stable_experiments = 10;
  o.stable_seconds = 1e9;  // the count alone
  ConvergenceTracker t(o);
  int levels[] = {20, 40, 60};
  for (int i = 0; i < 30; ++i) {
    const char* r = i % 2 ? "a" : "b";
    double impact = i % 2 ? 0.8 : 0.3;
    // Tiny deterministic noise so that the intervals are not empty.
    double noise = (i % 3 - 1) * 0.00001;
    t.add(obs(r, 0, impact, 0.001 + noise));
    t.add(obs(r, levels[i % 3], impact, 0.001 - noise));
    if (t.status().state == ConvergenceState::kStable) {
      EXPECT_GE(t.status().stable_for, 10);
      break;
    }
  }
  const ConvergenceStatus& s = t.status();
  EXPECT_EQ(s.state, ConvergenceState::kStable);
  EXPECT_EQ(s.leader, "a");
  EXPECT_EQ(s.point, "done");
  EXPECT_FALSE(t.in_play("b"));  // its interval lies below a's
  EXPECT_TRUE(t.in_play("never seen"));
}

// R4 in time: a leader must lead for 20 experiments or for 1 s of them,
// and for 6 experiments (3 blocks) at least. Returns how long the leader
// had led when the point became stable (0: never in 200 experiments),
// observations of `seconds` virtual time each.
int led_when_stable(double seconds) {
  ConvergenceTracker t;  // the defaults: 20 experiments, 1 s, 6
  int levels[] = {20, 40, 60};
  for (int i = 0; i < 100; ++i) {
    const char* r = i % 2 ? "a" : "b";
    double impact = i % 2 ? 0.8 : 0.3;
    double base = seconds / 1000, noise = (i % 3 - 1) * base / 100;
    t.add(obs(r, 0, impact, base + noise));
    t.add(obs(r, levels[i % 3], impact, base - noise));
    if (t.status().state == ConvergenceState::kStable)
      return t.status().stable_for;
  }
  return 0;
}

TEST(ConvergenceTracker, TheLeaderLeadsForASecondOfExperimentsOrTwenty) {
  const ConvergenceOptions d;
  ASSERT_EQ(d.stable_experiments, 20);
  ASSERT_EQ(d.stable_seconds, 1.0);
  ASSERT_EQ(d.stable_min_experiments, 6);
  // 50 ms experiments: 1 s is 20 of them either way.
  int fifty_ms = led_when_stable(0.05);
  EXPECT_GE(fifty_ms, 20);
  // 200 ms experiments (the timer sampler's floor): 1 s is 5, the minimum
  // 6, long before 20.
  int two_hundred_ms = led_when_stable(0.2);
  EXPECT_GE(two_hundred_ms, 6);
  EXPECT_LT(two_hundred_ms, 20);
  // Experiments of a second: still 6 (three blocks) at least.
  int one_s = led_when_stable(1.0);
  EXPECT_GE(one_s, 6);
  EXPECT_LT(one_s, 20);
}

// R3 below the leader, by the difference: a (0.5) and b (0.3), +-0.2 a
// block; after 12 blocks each their intervals still overlap, but the
// difference is significant: b leaves play. With the old rule (no overlap)
// it stays.
TEST(ConvergenceTracker, ARegionLeavesPlayWhenTheLeaderIsSignificantlyAbove) {
  auto run = [](bool by_difference) {
    ConvergenceOptions o;
    o.eliminate_by_difference = by_difference;
    ConvergenceTracker t(o);
    for (int i = 0; i < 12; ++i)
      for (const auto& [region, impact] :
           {std::pair{"a", 0.5}, std::pair{"b", 0.3}}) {
        Observation base = obs(region, 0, impact);
        Observation fast = obs(region, 40, impact);
        fast.virtual_s *= 1 + (i % 3 - 1) * 0.1;
        t.add(base);
        t.add(fast);
      }
    return t.in_play("b");
  };
  EXPECT_FALSE(run(true));
  EXPECT_TRUE(run(false));
}

// obs() with what the plausibility bound reads (delay_bound.h): a delay
// share of `share` x s / 100 of the wall time, and CPU at `rate` CPU seconds
// per wall second.
Observation timed(const std::string& region, int s, double impact, double share,
                  double rate, double base = 0.001) {
  Observation o = obs(region, s, impact, base);
  double d = share * s / 100.0;
  o.duration_s = o.virtual_s / (1 - d);
  o.delay_s = o.duration_s - o.virtual_s;
  o.cpu_s = o.duration_s * rate;
  return o;
}

// "a" has the larger estimate, but its experiments inserted almost no delay
// at an unchanged CPU rate, so nothing in them can have sped the program up
// (LevelDB's Mutex::Lock in bench/real/results): it must not lead, and the
// run must not stop on it. "b" had the delay (and the CPU) for its 0.3.
TEST(ConvergenceTracker, AnImplausibleLeaderNeverMakesTheRunStable) {
  ConvergenceOptions o;
  o.stable_experiments = 10;
  ConvergenceTracker t(o);
  int levels[] = {20, 40, 60};
  for (int i = 0; i < 60; ++i) {
    bool a = i % 2;
    double impact = a ? 0.8 : 0.3;
    double noise = (i % 3 - 1) * 0.00001;
    t.add(timed(a ? "a" : "b", 0, impact, 0, 1.0, 0.001 + noise));
    t.add(timed(a ? "a" : "b", levels[i % 3], impact, a ? 0.01 : 0.3,
                a ? 1.0 : 1.1, 0.001 - noise));
  }
  const ConvergenceStatus& s = t.status();
  EXPECT_EQ(s.leader, "b");
  EXPECT_EQ(s.state, ConvergenceState::kStable);
  EXPECT_TRUE(t.implausible("a"));
  EXPECT_FALSE(t.significant("a"));
  EXPECT_FALSE(t.in_play("a"));
  EXPECT_FALSE(t.implausible("b"));
}

// Alone, an implausible region leaves nothing to stop on.
TEST(ConvergenceTracker, NoStopWhenTheOnlyCandidateIsImplausible) {
  ConvergenceOptions o;
  o.stable_experiments = 4;
  ConvergenceTracker t(o);
  for (int i = 0; i < 30; ++i) {
    double noise = (i % 3 - 1) * 0.00001;
    t.add(timed("a", 0, 0.8, 0, 1.0, 0.001 + noise));
    t.add(timed("a", 40, 0.8, 0.01, 1.0, 0.001 - noise));
  }
  EXPECT_EQ(t.status().state, ConvergenceState::kRunning);
  EXPECT_EQ(t.status().leader, "");
}

// Without durations (the preloaded planner's observations) nothing is
// judged: the region leads as before.
TEST(ConvergenceTracker, ObservationsWithoutDurationsAreNotJudged) {
  ConvergenceOptions o;
  o.stable_experiments = 4;
  ConvergenceTracker t(o);
  for (int i = 0; i < 30; ++i) {
    double noise = (i % 3 - 1) * 0.00001;
    t.add(obs("a", 0, 0.8, 0.001 + noise));
    t.add(obs("a", 40, 0.8, 0.001 - noise));
  }
  EXPECT_EQ(t.status().leader, "a");
  EXPECT_FALSE(t.implausible("a"));
}

TEST(ConvergenceTracker, NeedsMinBlocksBeforeJudging) {
  ConvergenceTracker t;
  t.add(obs("a", 0, 0.8));
  t.add(obs("a", 40, 0.8));
  t.add(obs("a", 0, 0.8));
  t.add(obs("a", 40, 0.8));
  EXPECT_EQ(t.status().leader, "");  // 2 blocks < 3
  EXPECT_EQ(t.status().state, ConvergenceState::kRunning);
  EXPECT_TRUE(t.in_play("a"));
}

TEST(ConvergenceTracker, TiesWithinTheIndifferenceZoneAreResolved) {
  ConvergenceOptions o;
  o.stable_experiments = 6;
  ConvergenceTracker t(o);
  for (int i = 0; i < 40 && t.status().state == ConvergenceState::kRunning;
       ++i) {
    // Both lines see the same measurements: equal estimates, equal
    // (overlapping) intervals, about +-0.03 wide.
    const char* r = i % 2 ? "a" : "b";
    double noise = ((i / 2) % 4 - 1.5) * 0.00001;
    t.add(obs(r, 0, 0.5, 0.001 + noise));
    t.add(obs(r, 40, 0.5, 0.001 - noise));
  }
  EXPECT_EQ(t.status().state, ConvergenceState::kStable);
  EXPECT_EQ(t.status().in_play, 2);  // tied: both stay in play
}

TEST(ConvergenceTracker, FlatWhenEveryRegionIsBelowTheUsefulImpact) {
  ConvergenceTracker t;
  for (int i = 0; i < 12; ++i) {
    const char* r = i % 2 ? "a" : "b";
    double noise = (i % 3 - 1) * 0.000005;
    t.add(obs(r, 0, 0.0, 0.001 + noise));
    t.add(obs(r, 60, 0.01, 0.001 - noise));
  }
  EXPECT_EQ(t.status().state, ConvergenceState::kFlat);
  EXPECT_EQ(t.status().in_play, 0);
  EXPECT_STREQ(state_name(t.status().state), "flat");
}

TEST(ConvergenceTracker, EveryPointMustSettle) {
  // Point "done" is settled, point "other" is still noisy: running.
  ConvergenceOptions o;
  o.stable_experiments = 4;
  ConvergenceTracker t(o);
  for (int i = 0; i < 20; ++i) {
    for (int s : {0, 40}) {
      Observation x = obs("a", s, 0.8);
      x.virtual_s *= 1 + (i % 3 - 1) * 1e-5;
      // "other" measures a program speed-up of +-30% in turn: its interval
      // stays wide around 0.
      x.points.push_back({"other", false,
                          uint64_t(s == 0  ? 1000
                                   : i % 2 ? 523
                                           : 971)});
      t.add(x);
    }
  }
  EXPECT_EQ(t.status().state, ConvergenceState::kRunning);
  EXPECT_EQ(t.status().leader, "a");
}

// R3's parent rule, coarse to fine: function g matters (0.5), function f
// does not (0.01, judged below the useful impact); f's line had blocks
// (from an early table, or while f looked significant) that measured
// nothing precise: its interval is wide around 0.2.
const std::string kG = "function\tg\tb.cc";
const std::string kF = "function\tf\ta.cc";
const std::string kLine = "line\ta.cc\t10";

void feed_functions(ConvergenceTracker* t, int i) {
  double noise = (i % 3 - 1) * 0.00001;
  t->add(obs(kG, 0, 0.5, 0.001 + noise));
  t->add(obs(kG, 40, 0.5, 0.001 - noise));
  t->add(obs(kF, 0, 0.01, 0.001 + noise));
  t->add(obs(kF, 40, 0.01, 0.001 - noise));
}

// A block of the line whose program speed-up swings by +-40% around
// impact x 40%.
void feed_noisy_line(ConvergenceTracker* t, int i, double impact,
                     const std::vector<std::string>& parents) {
  Observation base = obs(kLine, 0, impact);
  Observation fast = obs(kLine, 40, impact);
  fast.virtual_s *= i % 2 ? 1.4 : 0.6;
  base.parents = fast.parents = parents;
  t->add(base);
  t->add(fast);
}

TEST(ConvergenceTracker, ALineLeavesPlayWithItsFunctions) {
  ConvergenceOptions o;
  o.stable_experiments = 10;
  ConvergenceTracker with(o), without(o);
  for (int i = 0; i < 4; ++i) {
    feed_noisy_line(&with, i, 0.2, {kF});
    feed_noisy_line(&without, i, 0.2, {});
  }
  for (int i = 0; i < 20; ++i) {
    feed_functions(&with, i);
    feed_functions(&without, i);
  }
  ASSERT_TRUE(with.significant(kG));
  ASSERT_FALSE(with.in_play(kF));
  // Judged, wide, and no more blocks coming (P6): only the parent rule
  // takes it out of play and lets the answer settle.
  EXPECT_FALSE(with.in_play(kLine));
  EXPECT_EQ(with.status().state, ConvergenceState::kStable);
  EXPECT_EQ(with.status().leader, kG);
  EXPECT_TRUE(without.in_play(kLine));
  EXPECT_EQ(without.status().state, ConvergenceState::kRunning);
}

TEST(ConvergenceTracker, ALineStaysInPlayWhileAParentIsSignificantAndInPlay) {
  ConvergenceTracker t;
  for (int i = 0; i < 4; ++i) feed_noisy_line(&t, i, 0.2, {kF, kG});
  for (int i = 0; i < 20; ++i) feed_functions(&t, i);
  EXPECT_TRUE(t.in_play(kLine));  // through g
  EXPECT_EQ(t.status().state, ConvergenceState::kRunning);
}

TEST(ConvergenceTracker, ASignificantLineStaysInPlayWithoutItsFunctions) {
  ConvergenceTracker t;
  for (int i = 0; i < 6; ++i) {
    double noise = (i % 3 - 1) * 0.00001;
    Observation base = obs(kLine, 0, 0.3, 0.001 + noise);
    Observation fast = obs(kLine, 40, 0.3, 0.001 - noise);
    base.parents = fast.parents = {kF};
    t.add(base);
    t.add(fast);
  }
  for (int i = 0; i < 20; ++i) feed_functions(&t, i);
  ASSERT_FALSE(t.in_play(kF));
  EXPECT_TRUE(t.significant(kLine));
  EXPECT_TRUE(t.in_play(kLine));
}

// A function flat, its line noisy: the point is flat (the line is below
// its function), not held back by the line.
TEST(ConvergenceTracker, ALineBelowAFlatFunctionLeavesTheProfileFlat) {
  ConvergenceTracker t;
  for (int i = 0; i < 4; ++i) feed_noisy_line(&t, i, 0.0, {kF});
  for (int i = 0; i < 6; ++i) {
    double noise = (i % 3 - 1) * 0.000001;
    t.add(obs(kF, 0, 0.01, 0.001 + noise));
    t.add(obs(kF, 40, 0.01, 0.001 - noise));
  }
  ASSERT_FALSE(t.in_play(kF));
  EXPECT_FALSE(t.in_play(kLine));
  EXPECT_EQ(t.status().state, ConvergenceState::kFlat);
}

// R8: g is settled (0.5, narrow); its two lines share the effect (0.25 and
// 0.2, +-0.08 after 8 blocks each): the first is significant, but neither
// is below the other nor tied to the precision that matters. The line tier
// does not hold the answer back, and the answer shown is the function.
TEST(ConvergenceTracker, LinesThatShareTheirFunctionsEffectDoNotHoldItBack) {
  ConvergenceOptions o;
  o.stable_experiments = 10;
  ConvergenceTracker t(o);
  const std::string kLine2 = "line\tb.cc\t11";
  const std::string kLine1 = "line\tb.cc\t10";
  for (int i = 0; i < 20; ++i) {
    double noise = (i % 3 - 1) * 0.000001;
    t.add(obs(kG, 0, 0.5, 0.001 + noise));
    t.add(obs(kG, 40, 0.5, 0.001 - noise));
  }
  for (int i = 0; i < 8; ++i)
    for (const auto& [line, impact] :
         {std::pair{kLine1, 0.25}, std::pair{kLine2, 0.2}}) {
      Observation base = obs(line, 0, impact);
      Observation fast = obs(line, 40, impact);
      fast.virtual_s *= i % 2 ? 1.04 : 0.96;
      base.parents = fast.parents = {kG};
      t.add(base);
      t.add(fast);
    }
  ASSERT_TRUE(t.significant(kLine1));
  ASSERT_TRUE(t.in_play(kLine2));  // not below kLine1: unresolved
  EXPECT_EQ(t.status().state, ConvergenceState::kStable);
  EXPECT_EQ(t.status().leader, kG);
}

// R8's budget: 8 blocks, or the information (sum of s^2) that 8 blocks
// at 25, 50, 75% gave: 6 at P2's 75, 50, 75%, still 8 at a fixed 40%.
TEST(ConvergenceTracker, R8sBudgetIsEightBlocksOrTheirInformation) {
  auto blocks_to_spend = [](std::vector<int> levels) {
    ConvergenceTracker t;
    for (int k = 0; k < 20; ++k) {
      t.add(obs("a", 0, 0.3));
      t.add(obs("a", levels[size_t(k) % levels.size()], 0.3));
      if (t.spent("a")) return k + 1;
    }
    return -1;
  };
  EXPECT_EQ(blocks_to_spend({75, 50, 75}), 6);
  EXPECT_EQ(blocks_to_spend({25, 50, 75}), 8);
  EXPECT_EQ(blocks_to_spend({40}), 8);
  EXPECT_EQ(blocks_to_spend({100}), 3);
  EXPECT_FALSE(ConvergenceTracker().spent("never seen"));
}

// R4's lead of a function counts from when it became significant: a
// function that led for long while not significant does not settle the
// answer the moment it turns significant (that opens its lines, P6). A
// line's lead counts from when it led.
TEST(ConvergenceTracker, AFunctionsLeadCountsFromWhenItBecameSignificant) {
  // Experiments from f turning significant to the stable state.
  auto wait_after_significance = [](const std::string& f,
                                    const std::string& g) {
    ConvergenceTracker t;
    auto block = [&](const std::string& r, double impact, double noise) {
      t.add(obs(r, 0, 0));
      t.add(obs(r, 75, impact, 0.001 * (1 + noise)));
    };
    for (int k = 0; k < 3; ++k) block(g, 0, 0);  // out of play at once
    // f leads from its third block but scatters too much to be
    // significant.
    const double scatter[] = {0.4, -0.4, 0.35, -0.3, 0.3, -0.3};
    for (double n : scatter) block(f, 0.4, n);
    EXPECT_EQ(t.status().leader, f);
    EXPECT_FALSE(t.significant(f));
    int turned = -1;
    for (int k = 0; k < 40; ++k) {
      block(f, 0.4, 0);
      if (turned < 0 && t.significant(f)) turned = t.status().experiments;
      if (t.status().state == ConvergenceState::kStable)
        return turned < 0 ? -1 : t.status().experiments - turned;
    }
    return -1;
  };
  EXPECT_GE(wait_after_significance("function\tf\ta.c", "function\tg\ta.c"),
            ConvergenceOptions{}.stable_min_experiments);
  EXPECT_EQ(wait_after_significance("f", "g"), 0);  // lines: as before
}

}  // namespace
}  // namespace andweorc::planner
