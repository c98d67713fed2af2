// plausibility_test.cc: the delay bound on impacts (plausibility.h) and the
// rule that keeps estimates beyond it out of the ranking.
#include "experiments/plausibility.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "experiment_builders.h"
#include "experiments/analysis.h"

namespace andweorc::experiments {
namespace {

using profile::Experiment;
using profile::Profile;
using testing::throughput_exp;

// An experiment of file:line at pct% with `share` of its wall time as
// delay, 1000 visits and a program speed-up of exactly impact * pct / 100
// against a 1 ms period.
Experiment with_share(const std::string& file, int line, int pct, double impact,
                      double share) {
  double virtual_s = 1.0 * (1 - impact * pct / 100.0);
  Experiment e = throughput_exp(file, line, pct, virtual_s, 1000);
  e.duration_s = virtual_s / (1 - share);
  e.delay_s = e.duration_s - virtual_s;
  return e;
}

TEST(DelayBound, WeightedFitThroughTheOriginOfTheDelayShare) {
  Profile p;
  Experiment a = throughput_exp("a.c", 1, 20, 1.0, 100);
  a.duration_s = 1.25;  // 0.25 of it delay: share 0.2
  a.delay_s = 0.25;
  Experiment b = throughput_exp("a.c", 1, 40, 2.0, 100);
  b.duration_s = 2.5;  // share 0.2
  b.delay_s = 0.5;
  p.experiments = {a, b};
  std::vector<FitPoint> pts = {{0, 0.2, 0.1, 1.0}, {1, 0.4, 0.2, 2.0}};
  // sum(w x d) / sum(w x^2) = (0.04 + 0.16) / (0.04 + 0.32).
  EXPECT_NEAR(delay_bound(p, pts), 0.2 / 0.36, 1e-12);
}

TEST(DelayBound, IgnoresBaselinesAndClampsBadRecords) {
  Profile p;
  Experiment zero = throughput_exp("a.c", 1, 0, 1.0, 100);
  zero.delay_s = 0.5;  // a 0% experiment's delay says nothing
  zero.duration_s = 1.5;
  Experiment bad = throughput_exp("a.c", 1, 50, 1.0, 100);
  bad.delay_s = 9;  // more delay than wall time: counts as share 1
  bad.duration_s = 2;
  p.experiments = {zero, bad};
  EXPECT_DOUBLE_EQ(delay_bound(p, {{0, 0, 0, 1}}), 0);
  EXPECT_NEAR(delay_bound(p, {{0, 0, 0, 1}, {1, 0.5, 0, 1}}), 0.5 / 0.25,
              1e-12);
  // An index outside the profile is skipped, not read.
  EXPECT_DOUBLE_EQ(delay_bound(p, {{7, 0.5, 0, 1}}), 0);
}

TEST(JudgePlausibility, OnlyAWholeIntervalOutsideIsImplausible) {
  LineImpact m;
  m.fitted = true;
  auto judge = [&](double low, double high, uint64_t threads) {
    m.ci_low = low;
    m.ci_high = high;
    judge_plausibility(0.1, threads, &m);
    return m.implausible;
  };
  EXPECT_TRUE(judge(0.25, 0.4, 4));     // wholly above 2 u
  EXPECT_FALSE(judge(0.15, 0.4, 4));    // above u, within the slack
  EXPECT_FALSE(judge(0.05, 0.4, 4));    // reaches into [-0.4, 0.2]
  EXPECT_FALSE(judge(-0.39, -0.2, 4));  // slower, but within N u
  EXPECT_TRUE(judge(-0.9, -0.41, 4));   // below -N u
  EXPECT_TRUE(judge(-0.9, -0.11, 0));   // no thread count: N = 1
  EXPECT_DOUBLE_EQ(m.plausible_low, -0.1);
  EXPECT_DOUBLE_EQ(m.plausible_high, 0.2);
  EXPECT_TRUE(m.plausibility_judged);
  m.fitted = false;
  EXPECT_FALSE(judge(5, 6, 1));  // no estimate, nothing to judge
}

// Two lines measured equally well with impact 0.5: hot.c got the delay an
// impact of 0.5 needs (share = x), cold.c almost none (share 0.002, like
// LevelDB's Mutex::Lock in bench/real/results), so its 0.5 cannot come from
// its own speed-up.
Profile two_lines() {
  Profile p;
  p.settings.enabled = true;
  p.threads = 4;
  int k = 0;
  for (const char* file : {"hot.c", "cold.c"}) {
    for (int b = 0; b < 12; ++b) {
      int pct = 25 * (1 + b % 3);
      double share = std::string(file) == "hot.c" ? pct / 100.0 : 0.002;
      // A little noise so the fit has an interval.
      double impact = 0.5 + ((k++ % 2) ? 0.02 : -0.02);
      p.experiments.push_back(with_share(file, 1, 0, 0, 0));
      p.experiments.push_back(with_share(file, 1, pct, impact, share));
    }
  }
  return p;
}

const LineImpact& line_of(const Analysis& a, const std::string& file) {
  for (const LineImpact& m : a.impacts)
    if (m.file == file) return m;
  ADD_FAILURE() << file;
  return a.impacts.front();
}

TEST(PlausibilityRule, AnImpactWithoutTheDelayForItIsNotRanked) {
  Analysis a = analyze(two_lines());
  ASSERT_EQ(a.impacts.size(), 2u);
  const LineImpact& hot = line_of(a, "hot.c");
  const LineImpact& cold = line_of(a, "cold.c");
  EXPECT_NEAR(hot.slope, 0.5, 0.05);
  EXPECT_NEAR(cold.slope, 0.5, 0.05);
  EXPECT_TRUE(hot.significant);
  EXPECT_FALSE(hot.implausible);
  EXPECT_NEAR(hot.plausible_high, 2.0, 1e-9);
  EXPECT_NEAR(hot.plausible_low, -4.0, 1e-9);
  EXPECT_FALSE(cold.significant);
  EXPECT_TRUE(cold.implausible);
  EXPECT_EQ(cold.verdict, Verdict::kImplausible);
  EXPECT_LT(cold.plausible_high, 0.02);
  EXPECT_EQ(hot.rank, 1);
  EXPECT_EQ(cold.rank, 2);
  // It was tested: it has a p-value and counts among the m of BH.
  EXPECT_LT(cold.q_value, 0.05);
  EXPECT_LT(cold.p_value, 0.05);
}

TEST(PlausibilityRule, HugeSlowdownsFromTinyDelaysAreImplausible) {
  // bench/real: LevelDB's Mutex::Lock at -2856 from 0.2% of delay.
  Profile p;
  p.settings.enabled = true;
  p.threads = 4;
  for (int b = 0; b < 10; ++b) {
    int pct = 25 * (1 + b % 3);
    double impact = -30 + (b % 2 ? 3 : -3);
    p.experiments.push_back(with_share("lock.c", 5, 0, 0, 0));
    Experiment e = with_share("lock.c", 5, pct, 0, 0.002);
    // Program speed-up impact * x: the period grows by -impact * x.
    e.points[0].visits = static_cast<uint64_t>(
        1000 / (1 - impact * pct / 100.0) * (1 - 0.002) + 0.5);
    p.experiments.push_back(e);
  }
  Analysis a = analyze(p);
  ASSERT_EQ(a.impacts.size(), 1u);
  const LineImpact& m = a.impacts.front();
  EXPECT_LT(m.ci_high, 0);
  EXPECT_EQ(m.verdict, Verdict::kImplausible);
  EXPECT_FALSE(m.significant);
}

TEST(PlausibilityRule, ProfilesWithoutDelaysAreNotJudged) {
  // Coz imports record no delay: no bound, the old verdicts stand.
  Profile p = two_lines();
  for (Experiment& e : p.experiments) {
    e.duration_s = e.virtual_duration_s();
    e.delay_s = 0;
  }
  Analysis a = analyze(p);
  for (const LineImpact& m : a.impacts) {
    EXPECT_FALSE(m.plausibility_judged) << m.file;
    EXPECT_FALSE(m.implausible) << m.file;
    EXPECT_TRUE(m.significant) << m.file;
  }
}

// One line with impact `impact` (+-0.02 of noise) whose sped-up experiments
// inserted `share` x of delay and ran at the CPU rate (the 0% experiments: 1
// CPU s per wall s) whose CPU-normalised delay share is s = `cpu` x:
// 1 - (1 - share x) / rate = cpu x. Paired blocks, or all 0% experiments
// first (the regression against their pool).
Profile cpu_line(double impact, double share, double cpu, bool paired,
                 bool with_cpu = true) {
  Profile p;
  p.settings.enabled = true;
  p.threads = 4;
  std::vector<Experiment> zeros, fast;
  for (int b = 0; b < 12; ++b) {
    int pct = 25 * (1 + b % 3);
    double noisy = impact + ((b % 2) ? 0.02 : -0.02);
    Experiment z = with_share("l.c", 1, 0, 0, 0);
    z.cpu_s = with_cpu ? z.duration_s : -1;
    Experiment f = with_share("l.c", 1, pct, noisy, share * pct / 100.0);
    double x = pct / 100.0;
    double rate = (1 - share * x) / (1 - cpu * x);
    f.cpu_s = with_cpu ? f.duration_s * rate : -1;
    if (paired) {
      p.experiments.push_back(z);
      p.experiments.push_back(f);
    } else {
      zeros.push_back(z);
      fast.push_back(f);
    }
  }
  p.experiments.insert(p.experiments.end(), zeros.begin(), zeros.end());
  p.experiments.insert(p.experiments.end(), fast.begin(), fast.end());
  return p;
}

TEST(PlausibilityRuleCpu, KeepsATrueBottleneckBeyondTheWallSlack) {
  // barrier.cc:24 on a loaded machine: 0.5 from a delay share of 0.2 x,
  // because the paused threads' cores went to the critical thread. The
  // wall rule (2 u = 0.4) flags it; its CPU shows the hand-over (s = 0.55
  // x) and the CPU rule keeps it.
  Profile with = cpu_line(0.5, 0.2, 0.55, true);
  Profile without = cpu_line(0.5, 0.2, 0.55, true, false);
  LineImpact m = analyze(with).impacts.front();
  EXPECT_TRUE(m.plausible_cpu);
  EXPECT_FALSE(m.implausible);
  EXPECT_TRUE(m.significant);
  EXPECT_GT(m.plausible_high, 0.5);
  LineImpact old = analyze(without).impacts.front();
  EXPECT_FALSE(old.plausible_cpu);
  EXPECT_NEAR(old.plausible_high, 0.4, 1e-9);
  EXPECT_TRUE(old.implausible);
}

TEST(PlausibilityRuleCpu, DropsAnImpactTheDelaysCannotExplainInCpuTerms) {
  // 0.35 from a delay share of 0.2 x at an unchanged CPU rate: within the
  // wall rule's 2 u = 0.4, but nothing handed the program more CPU, so at
  // most 0.2 can come from the delays. Both designs.
  for (bool paired : {true, false}) {
    LineImpact m = analyze(cpu_line(0.35, 0.2, 0.2, paired)).impacts.front();
    EXPECT_EQ(m.design, paired ? "paired" : "regression");
    EXPECT_TRUE(m.plausible_cpu) << paired;
    EXPECT_NEAR(m.plausible_high, 0.2, 0.02) << paired;
    EXPECT_TRUE(m.implausible) << paired;
    EXPECT_EQ(m.verdict, Verdict::kImplausible) << paired;
    LineImpact old =
        analyze(cpu_line(0.35, 0.2, 0.2, paired, false)).impacts.front();
    EXPECT_FALSE(old.implausible) << paired;
  }
}

TEST(PlausibilityRuleCpu, TheLowerBoundStaysMinusNTimesTheWallShare) {
  LineImpact m = analyze(cpu_line(0.1, 0.2, 0.2, true)).impacts.front();
  EXPECT_NEAR(m.plausible_low, -4 * 0.2, 1e-9);
  EXPECT_FALSE(m.implausible);
}

}  // namespace
}  // namespace andweorc::experiments
