// profile_diff_test.cc: impact changes, bottleneck news, share changes.
#include "compare/profile_diff.h"

#include <gtest/gtest.h>

#include <cmath>

#include "diff_fixtures.h"
#include "experiments/statistics.h"

namespace andweorc::compare {
namespace {

using experiments::LineImpact;

LineImpact fitted(double slope, double se, int dof, bool significant) {
  LineImpact i;
  i.fitted = true;
  i.slope = slope;
  i.slope_se = se;
  i.dof = dof;
  i.significant = significant;
  return i;
}

TEST(CompareImpacts, WelchByHand) {
  // se = sqrt(0.1^2 + 0.2^2) = 0.22361; df = se^4 / (0.1^4/8 + 0.2^4/4)
  //    = 0.0025 / (1.25e-5 + 4e-4) = 6.0606; t = 0.5 / 0.22361 = 2.2361.
  auto d = compare_impacts(fitted(0.2, 0.1, 8, true), fitted(0.7, 0.2, 4, true),
                           0.95);
  ASSERT_TRUE(d);
  EXPECT_NEAR(d->delta, 0.5, 1e-12);
  EXPECT_NEAR(d->se, 0.2236068, 1e-6);
  EXPECT_NEAR(d->dof, 6.0606, 1e-3);
  EXPECT_NEAR(d->t, 2.236068, 1e-6);
  double p = 2 * (1 - experiments::student_t_cdf(d->t, d->dof));
  EXPECT_NEAR(d->p, p, 1e-12);
  EXPECT_NEAR(d->p, 0.0663, 1e-3);
  // t(0.975, 6.06) is about 2.44 > 2.24: not significant at 95%.
  EXPECT_FALSE(d->significant);
  EXPECT_TRUE(compare_impacts(fitted(0.2, 0.1, 8, true),
                              fitted(0.7, 0.2, 4, true), 0.90)
                  ->significant);
}

TEST(CompareImpacts, NeedsTwoFits) {
  LineImpact unfit;
  EXPECT_FALSE(compare_impacts(unfit, fitted(1, 0.1, 5, true), 0.95));
  EXPECT_FALSE(compare_impacts(fitted(1, 0, 5, true), fitted(1, 0, 5, true),
                               0.95));  // no error: nothing to test with
  EXPECT_FALSE(
      compare_impacts(fitted(1, 0.1, 0, true), fitted(1, 0.1, 5, true), 0.95));
}

const LineChange* find(const PointChange& p, const std::string& function) {
  for (const LineChange& c : p.lines) {
    if (c.line().function == function) return &c;
  }
  return nullptr;
}

TEST(DiffProfiles, FixedAndNewBottlenecksAcrossShiftedLines) {
  SourceText bs, ns;
  testing::base_sources(&bs);
  testing::new_sources(&ns);
  DiffOptions o;
  o.base_source = &bs;
  o.new_source = &ns;
  ProfileDiff d =
      diff_profiles(testing::base_profile(), testing::new_profile(), o);
  ASSERT_EQ(d.points.size(), 1u);
  const PointChange& p = d.points[0];
  EXPECT_EQ(p.name, "requests");
  ASSERT_TRUE(p.speedup);
  EXPECT_NEAR(*p.speedup, 0.0, 0.01);  // same baselines by construction

  const LineChange* hash = find(p, "hash_bytes");
  ASSERT_TRUE(hash && hash->base && hash->next);
  EXPECT_EQ(hash->base->line, 17);
  EXPECT_EQ(hash->next->line, 20);
  EXPECT_EQ(hash->match, MatchKind::kSource);
  EXPECT_EQ(hash->status, LineStatus::kVanishedBottleneck);
  ASSERT_TRUE(hash->change);
  EXPECT_LT(hash->change->delta, -0.6);
  EXPECT_TRUE(hash->change->significant);

  const LineChange* lookup = find(p, "lookup");
  ASSERT_TRUE(lookup && lookup->base && lookup->next);
  EXPECT_EQ(lookup->status, LineStatus::kNewBottleneck);
  EXPECT_GT(lookup->change->delta, 0.4);

  const LineChange* handle = find(p, "handle");
  ASSERT_TRUE(handle);
  EXPECT_FALSE(handle->base);
  EXPECT_EQ(handle->status, LineStatus::kOnlyNew);
  // News first: the new bottleneck, then the vanished one.
  EXPECT_EQ(p.lines[0].status, LineStatus::kNewBottleneck);
  EXPECT_EQ(p.lines[1].status, LineStatus::kVanishedBottleneck);
}

TEST(DiffProfiles, WithoutSourcesShiftedLinesMatchByFunction) {
  ProfileDiff d =
      diff_profiles(testing::base_profile(), testing::new_profile(), {});
  const LineChange* hash = find(d.points[0], "hash_bytes");
  ASSERT_TRUE(hash && hash->match);
  EXPECT_EQ(*hash->match, MatchKind::kFunction);
}

TEST(DiffProfiles, SampleShares) {
  ProfileDiff d =
      diff_profiles(testing::base_profile(), testing::new_profile(), {});
  // hash: 70% -> 10% (largest change first), lookup 30% -> 80%.
  ASSERT_EQ(d.lines.size(), 3u);
  EXPECT_EQ(d.lines[0].function, "hash_bytes");
  EXPECT_NEAR(d.lines[0].change(), -0.6, 1e-12);
  EXPECT_EQ(d.lines[0].line, 20);  // as NEW names it
  EXPECT_EQ(d.lines[1].function, "lookup");
  EXPECT_NEAR(d.lines[1].base_share, 0.3, 1e-12);
  EXPECT_NEAR(d.lines[1].new_share, 0.8, 1e-12);
  EXPECT_EQ(d.lines[2].function, "handle");
  EXPECT_FALSE(d.lines[2].in_base);
  ASSERT_EQ(d.functions.size(), 3u);
  EXPECT_EQ(d.functions[0].function, "hash_bytes");
}

TEST(DiffProfiles, IdenticalProfilesHaveNoNews) {
  ProfileDiff d =
      diff_profiles(testing::base_profile(), testing::base_profile(), {});
  for (const LineChange& c : d.points[0].lines) {
    EXPECT_EQ(c.status, LineStatus::kUnchanged) << c.line().function;
    ASSERT_TRUE(c.change);
    EXPECT_EQ(c.change->delta, 0);
  }
}

}  // namespace
}  // namespace andweorc::compare
