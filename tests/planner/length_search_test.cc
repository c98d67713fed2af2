// length_search_test.cc: P12, the length chosen from the measured noise.
#include "planner/length_search.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace andweorc::planner {
namespace {

// Feeds pairs as the planner would: each at the multiplier next() asks,
// with a noise sample of variance(m) times a repeating spread.
template <typename Variance>
int search(LengthSearch* s, Variance variance, int most = 8, int pairs = 200) {
  const std::vector<double> spread = {0.5, 1.5, 0.8, 1.2, 1.0, 0.9, 1.1};
  for (int i = 0; i < pairs && !s->settled(); ++i) {
    const int m = s->next(most);
    s->add(m, variance(m) * spread[size_t(i) % spread.size()]);
  }
  return s->best();
}

// Noise from what crosses an experiment's edges: a block's variance falls
// as 1 / length^2, so per second of experiments longer is better: the
// longest multiplier.
TEST(LengthSearch, LengthensWhenTheNoisePerSecondFalls) {
  LengthSearch s;
  EXPECT_EQ(search(&s, [](int m) { return 1.0 / (m * m); }), 4);
  EXPECT_TRUE(s.settled());
  EXPECT_EQ(s.next(8), 4);
}

// Counting noise (Poisson): variance 1 / length, the same per second: the
// shortest length stays (longer blocks would only slow the block rules).
TEST(LengthSearch, KeepsTheShortestWhenLongerIsNoBetterPerSecond) {
  LengthSearch s;
  EXPECT_EQ(search(&s, [](int m) { return 1.0 / m; }), 1);
  EXPECT_TRUE(s.settled());
  EXPECT_EQ(s.next(8), 1);
}

// A clear gain is taken early (the sequential test), before kMostPairs.
TEST(LengthSearch, AClearGainDecidesEarly) {
  LengthSearch s;
  int pairs = 0;
  while (!s.settled() && pairs < 100) {
    const int m = s.next(8);
    s.add(m, m == 1 ? 1.0 : 0.001);
    ++pairs;
  }
  EXPECT_EQ(s.best(), 4);
  EXPECT_EQ(pairs, 2 * LengthSearch::kLeastPairs);
}

// The two arms alternate (load falls on both alike), the shorter first.
TEST(LengthSearch, AlternatesTheArms) {
  LengthSearch s;
  std::vector<int> asked;
  for (int i = 0; i < 6; ++i) {
    asked.push_back(s.next(8));
    s.add(asked.back(), 1.0);
  }
  EXPECT_EQ(asked, (std::vector<int>{1, 4, 1, 4, 1, 4}));
  EXPECT_FALSE(s.settled());
}

// A cap (the longest experiment over P5's length) below the longer arm ends
// the search; a settled multiplier above a later cap comes down under it.
TEST(LengthSearch, TheCapEndsTheSearchAndBoundsTheAnswer) {
  LengthSearch s;
  EXPECT_EQ(search(
                &s, [](int m) { return 1.0 / (m * m); }, 3),
            1);
  EXPECT_TRUE(s.settled());
  LengthSearch t;
  search(&t, [](int m) { return 1.0 / (m * m); });
  EXPECT_EQ(t.next(8), 4);
  EXPECT_EQ(t.next(3), 1);
}

// Samples of an arm no longer compared (a pair planned before a decision)
// and samples that are not numbers are ignored.
TEST(LengthSearch, IgnoresOldArmsAndNonsense) {
  LengthSearch s;
  s.add(2, 1.0);
  s.add(1, -1.0);
  s.add(1, std::nan(""));
  for (int i = 0; i < LengthSearch::kLeastPairs - 1; ++i) {
    s.add(1, 1.0);
    s.add(4, 0.001);
  }
  EXPECT_EQ(s.best(), 1);  // one sample short in each arm
  s.add(1, 1.0);
  s.add(4, 0.001);
  EXPECT_EQ(s.best(), 4);
}

}  // namespace
}  // namespace andweorc::planner
