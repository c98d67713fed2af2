// profile_diff_test.cc: impact changes, bottleneck news, share changes.
#include "compare/profile_diff.h"

#include <gtest/gtest.h>

#include <cmath>

#include "diff_fixtures.h"
#include "statistics/multiple_testing.h"
#include "statistics/statistics.h"

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

TEST(CompareImpacts, AnImplausibleEstimateIsNotCompared) {
  // LevelDB's Mutex::Lock at -2856 against a plausible 0.1: the report does
  // not rank it (experiments/plausibility.h), so diff must not call the
  // line's change a significant one either.
  LineImpact wild = fitted(-2856, 400, 6, true);
  wild.implausible = true;
  ASSERT_TRUE(compare_impacts(fitted(-2856, 400, 6, true),
                              fitted(0.1, 0.05, 8, true), 0.95));
  EXPECT_FALSE(compare_impacts(wild, fitted(0.1, 0.05, 8, true), 0.95));
  EXPECT_FALSE(compare_impacts(fitted(0.1, 0.05, 8, true), wild, 0.95));
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
  ASSERT_TRUE(d.points[0].speed_change);
  EXPECT_FALSE(d.points[0].speed_change->significant);
  EXPECT_TRUE(d.points[0].costs.empty());
}

// A matched line whose change test has the given outcome.
LineChange matched(const LineImpact& base, const LineImpact& next, double delta,
                   double p, double q) {
  LineChange c;
  c.base = base;
  c.next = next;
  c.match = MatchKind::kSource;
  ImpactDelta d;
  d.delta = delta;
  d.p = p;
  d.q = q;
  d.significant = q < 0.05;
  c.change = d;
  return c;
}

TEST(LineStatus, AnIntervalCrossingZeroIsNoNews) {
  // The A/A case: impact 0.10 [-0.01, 0.21] in BASE (no
  // bottleneck), 0.12 [0.02, 0.22] in NEW (a bottleneck), change +0.02
  // with p = 0.9: nothing happened.
  LineChange c = matched(fitted(0.10, 0.05, 8, false),
                         fitted(0.12, 0.05, 8, true), 0.02, 0.9, 0.95);
  EXPECT_EQ(line_status(c), LineStatus::kUnchanged);
  // The same in reverse is no vanished bottleneck either.
  std::swap(c.base, c.next);
  c.change->delta = -0.02;
  EXPECT_EQ(line_status(c), LineStatus::kUnchanged);
}

TEST(LineStatus, SignificanceIsJudgedByQNotP) {
  // p = 0.01 but q = 0.2 after correcting for the other tests.
  LineChange c = matched(fitted(0.0, 0.05, 8, false),
                         fitted(0.3, 0.05, 8, true), 0.3, 0.01, 0.2);
  EXPECT_EQ(line_status(c), LineStatus::kUnchanged);
  c.change->q = 0.01;
  c.change->significant = true;
  EXPECT_EQ(line_status(c), LineStatus::kNewBottleneck);
  // A bottleneck on both sides that grew is "impact up", not news.
  c.base = fitted(0.2, 0.05, 8, true);
  EXPECT_EQ(line_status(c), LineStatus::kIncreased);
}

TEST(LineStatus, OneSidedLines) {
  LineChange only_new;
  only_new.next = fitted(0.5, 0.05, 8, true);
  EXPECT_EQ(line_status(only_new), LineStatus::kOnlyNew);  // no test: no news
  ImpactDelta d;
  d.delta = 0.5;
  d.q = 0.001;
  d.significant = true;
  d.versus_zero = true;
  only_new.change = d;
  EXPECT_EQ(line_status(only_new), LineStatus::kNewBottleneck);
  LineChange only_base;
  only_base.base = fitted(0.5, 0.05, 8, true);
  d.delta = -0.5;
  only_base.change = d;
  EXPECT_EQ(line_status(only_base), LineStatus::kVanishedBottleneck);
}

// NEW's lookup (impact ~0.6) without experiments on it in BASE.
TEST(DiffProfiles, ALineBaseRanButNeverTestedIsNoNewBottleneck) {
  profile::Profile base = testing::base_profile();
  std::erase_if(base.experiments, [](const profile::Experiment& e) {
    return e.function == "lookup";
  });
  ProfileDiff d = diff_profiles(base, testing::new_profile(), {});
  const LineChange* lookup = find(d.points[0], "lookup");
  ASSERT_TRUE(lookup);
  EXPECT_FALSE(lookup->base);
  // BASE sampled table.c:91 (30% of its samples): the line ran there, it
  // was just not chosen for experiments. Nothing is known about a change.
  EXPECT_FALSE(lookup->change);
  EXPECT_EQ(lookup->status, LineStatus::kOnlyNew);
}

TEST(DiffProfiles, NewCodeIsTestedAgainstZero) {
  profile::Profile base = testing::base_profile();
  std::erase_if(base.experiments, [](const profile::Experiment& e) {
    return e.function == "lookup";
  });
  base.stacks = {{{0}, 1000}};  // and lookup never ran in BASE
  ProfileDiff d = diff_profiles(base, testing::new_profile(), {});
  const LineChange* lookup = find(d.points[0], "lookup");
  ASSERT_TRUE(lookup && lookup->change);
  EXPECT_TRUE(lookup->change->versus_zero);
  EXPECT_NEAR(lookup->change->delta, lookup->next->slope, 1e-12);
  EXPECT_EQ(lookup->status, LineStatus::kNewBottleneck);
}

TEST(DiffProfiles, QValuesCoverEveryTestOfTheDiff) {
  ProfileDiff d =
      diff_profiles(testing::base_profile(), testing::new_profile(), {});
  std::vector<double> p, q;
  for (const PointChange& pc : d.points) {
    for (const LineChange& c : pc.lines) {
      if (!c.change) continue;
      p.push_back(c.change->p);
      q.push_back(c.change->q);
      EXPECT_EQ(c.change->significant, c.change->q < 0.05);
    }
    ASSERT_TRUE(pc.speed_change);
    p.push_back(pc.speed_change->p);
    q.push_back(pc.speed_change->q);
  }
  EXPECT_EQ(d.tests, static_cast<int>(p.size()));
  std::vector<double> want = experiments::bh_q_values(p);
  ASSERT_EQ(q.size(), want.size());
  for (size_t i = 0; i < q.size(); ++i) EXPECT_NEAR(q[i], want[i], 1e-12);
}

TEST(DiffProfiles, SeveralRunsPerSide) {
  profile::Profile a = testing::base_profile();
  profile::Profile b = testing::base_profile();
  for (auto& e : b.experiments) e.duration_s *= 1.02;  // a 2% slower run
  ProfileDiff d = diff_runs(a, {&a, &b}, a, {&a, &b}, {});
  EXPECT_EQ(d.base_runs, 2);
  EXPECT_EQ(d.new_runs, 2);
  const PointChange& p = d.points[0];
  ASSERT_TRUE(p.base_speed && p.speed_change);
  EXPECT_EQ(p.base_speed->runs, 2);
  // The two runs differ by 2%, far more than inside each run: the spread
  // between runs is the noise.
  EXPECT_TRUE(p.base_speed->between_runs);
  EXPECT_EQ(p.speed_change->delta, 0);
}

// Runs whose impacts for a line disagree (as on a loaded machine, where a
// line's impact moves with the load) must not make a "significant" change
// out of the merged fits' small standard errors (run_spread.h).
TEST(DiffProfiles, ALineWhoseRunsDisagreeIsNoSignificantChange) {
  auto run = [](double k) {
    profile::Profile p = testing::base_profile();
    p.experiments.clear();
    testing::add_line(&p, testing::kTable, 91, "lookup", k, 4);
    return p;
  };
  auto merged = [](const profile::Profile& a, const profile::Profile& b) {
    profile::Profile m = a;
    m.experiments.insert(m.experiments.end(), b.experiments.begin(),
                         b.experiments.end());
    return m;
  };
  profile::Profile b1 = run(-0.1), b2 = run(0.3), n1 = run(0.3), n2 = run(0.7);
  profile::Profile bm = merged(b1, b2), nm = merged(n1, n2);
  auto change = [](const ProfileDiff& d) {
    const LineChange* c = find(d.points[0], "lookup");
    EXPECT_NE(c, nullptr);
    return c && c->change ? *c->change : ImpactDelta{};
  };
  // Judged as one run per side, the merged fits call it a change.
  ImpactDelta alone = change(diff_runs(bm, {}, nm, {}, {}));
  EXPECT_TRUE(alone.significant) << alone.p;
  // With the runs given, the spread between them is the noise: dof 1 + 1.
  ImpactDelta runs = change(diff_runs(bm, {&b1, &b2}, nm, {&n1, &n2}, {}));
  EXPECT_NEAR(runs.delta, alone.delta, 1e-9);
  EXPECT_GT(runs.se, alone.se);
  EXPECT_FALSE(runs.significant) << runs.p;
}

TEST(DiffProfiles, CostsNameWhereTheTimeWent) {
  // NEW: lookup's samples rise from 300 to 800 of 1000 for the same
  // visits: +0.5 samples x 1 ms per 40 visits... per visit of 'requests'.
  ProfileDiff d =
      diff_profiles(testing::base_profile(), testing::new_profile(), {});
  const PointChange& p = d.points[0];
  ASSERT_FALSE(p.costs.empty());
  EXPECT_EQ(p.costs[0].function, "lookup");
  EXPECT_TRUE(p.costs[0].in_seconds);
  EXPECT_NEAR(p.costs[0].base_cost, 300 * 1e-3 / 40000, 1e-12);
  EXPECT_NEAR(p.costs[0].new_cost, 800 * 1e-3 / 40000, 1e-12);
}

// Each side is shown relative to its own checkout, and files with one base
// name in two folders stay apart.
TEST(DiffPaths, TwoCheckoutsReadAlikeAndSameNamedFilesStayApart) {
  profile::Profile base, next;
  base.frames = {{"f", "/ci/main/src/lib/a.c", 3, "/bin/x", false, true},
                 {"g", "/ci/main/src/test/a.c", 5, "/bin/x", false, true}};
  next.frames = {{"f", "/ci/pr/src/lib/a.c", 3, "/bin/x", false, true},
                 {"h", "/ci/pr/src/main.c", 9, "/bin/x", false, true}};
  report::SourcePaths paths = diff_paths(base, next);
  EXPECT_EQ(paths.display("/ci/main/src/lib/a.c"), "lib/a.c");
  EXPECT_EQ(paths.display("/ci/main/src/test/a.c"), "test/a.c");
  EXPECT_EQ(paths.display("/ci/pr/src/lib/a.c"), "lib/a.c");
}

}  // namespace
}  // namespace andweorc::compare
