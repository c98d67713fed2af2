// ranking_test.cc: verdicts and the ranking rule, including the property
// that a non-significant line never ranks above a significant one.
#include "experiments/ranking.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "experiment_builders.h"

namespace andweorc::experiments {
namespace {

LineImpact fitted(double slope, double half_width, int sped_up, int line = 1) {
  LineImpact m;
  m.file = "a.c";
  m.line = line;
  m.fitted = true;
  m.slope = slope;
  m.ci_low = slope - half_width;
  m.ci_high = slope + half_width;
  m.speedup_experiments = sped_up;
  m.experiments = sped_up + 2;
  classify(&m, 3, true, true);
  return m;
}

TEST(Classify, Verdicts) {
  EXPECT_EQ(fitted(0.5, 0.1, 3).verdict, Verdict::kSignificant);
  EXPECT_EQ(fitted(-0.5, 0.1, 3).verdict, Verdict::kSignificant);
  EXPECT_EQ(fitted(0.5, 0.6, 3).verdict, Verdict::kNotSignificant);
  EXPECT_EQ(fitted(0.5, 0.1, 2).verdict, Verdict::kNotEnoughData);
  LineImpact m = fitted(0.5, 0.1, 3);
  classify(&m, 3, false, true);
  EXPECT_EQ(m.verdict, Verdict::kNeverReached);
  classify(&m, 3, true, false);
  EXPECT_EQ(m.verdict, Verdict::kNoSamples);
  m.fitted = false;
  classify(&m, 3, true, true);
  EXPECT_EQ(m.verdict, Verdict::kNotEnoughData);
  EXPECT_FALSE(m.significant);
}

TEST(Rank, SignificantFirstThenBySlope) {
  std::vector<LineImpact> v = {
      fitted(0.9, 2.0, 5, 1),   // not significant, large slope
      fitted(0.1, 0.05, 5, 2),  // significant, small slope
      fitted(0.4, 0.1, 5, 3),   // significant
      fitted(2.0, 0.1, 1, 4),   // not enough data
      fitted(0.2, 0.5, 5, 5),   // not significant
  };
  rank_impacts(&v);
  std::vector<int> lines;
  for (const auto& m : v) lines.push_back(m.line);
  EXPECT_EQ(lines, (std::vector<int>{3, 2, 1, 5, 4}));
  for (size_t i = 0; i < v.size(); ++i) EXPECT_EQ(v[i].rank, int(i) + 1);
}

TEST(Rank, TiesAreBrokenByLocation) {
  std::vector<LineImpact> v = {fitted(0.5, 0.1, 4, 9), fitted(0.5, 0.1, 4, 2)};
  rank_impacts(&v);
  EXPECT_EQ(v[0].line, 2);
}

TEST(RankingRule, MentionsK) {
  EXPECT_NE(ranking_rule(3).find("at least 3 experiments"), std::string::npos);
}

// Property: over many random sets, every significant line ranks above every
// non-significant one, and within a class slopes never increase.
TEST(RankProperty, NonSignificantNeverAboveSignificant) {
  std::mt19937 rng(12345);
  std::uniform_real_distribution<double> slope(-1.0, 2.0);
  std::uniform_real_distribution<double> width(0.0, 1.5);
  std::uniform_int_distribution<int> sped(0, 8);
  for (int round = 0; round < 500; ++round) {
    std::vector<LineImpact> v;
    for (int i = 0; i < 12; ++i) {
      v.push_back(fitted(slope(rng), width(rng), sped(rng), i));
    }
    rank_impacts(&v);
    bool seen_other = false;
    for (size_t i = 0; i < v.size(); ++i) {
      if (!v[i].significant) seen_other = true;
      if (seen_other) {
        ASSERT_FALSE(v[i].significant) << "round " << round << " row " << i;
      }
      if (i > 0 && v[i].verdict == v[i - 1].verdict &&
          v[i].verdict != Verdict::kNotEnoughData) {
        ASSERT_LE(v[i].slope, v[i - 1].slope);
      }
    }
  }
}

// The same property end to end, on random noisy experiments.
TEST(RankProperty, HoldsForAnalyzedProfiles) {
  std::mt19937 rng(7);
  std::normal_distribution<double> noise(0.0, 0.05);
  std::uniform_int_distribution<int> level(0, 4);
  std::uniform_real_distribution<double> impact(-0.2, 1.0);
  for (int round = 0; round < 40; ++round) {
    profile::Profile p;
    for (int line = 1; line <= 8; ++line) {
      double true_impact = impact(rng);
      int count = 1 + static_cast<int>(rng() % 8);
      for (int k = 0; k < count; ++k) {
        int pct = 25 * level(rng);
        double y = true_impact * pct / 100.0 + noise(rng);
        double period = 0.001 * (1 - y);
        p.experiments.push_back(
            testing::throughput_exp("r.c", line, pct, period * 1000, 1000));
      }
    }
    Analysis a = analyze(p);
    bool seen_other = false;
    for (const LineImpact& m : a.impacts) {
      if (!m.significant) seen_other = true;
      if (seen_other) {
        ASSERT_FALSE(m.significant) << "round " << round;
      }
    }
  }
}

}  // namespace
}  // namespace andweorc::experiments
