// Tests for compare/region_cost.h: a region made slower is found and named
// even when every run also ran on a faster or slower machine; a machine that
// is slower for a whole run is not a regression.
#include "compare/region_cost.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "compare/diff_fixtures.h"
#include "compare/fail_on.h"
#include "compare/profile_diff.h"
#include "profile/profile.h"

namespace andweorc::compare {
namespace {

// One run: samples per function (each function one line of its own file,
// line 10 + its place in name order: encode 10, hash 11, match 12, tiny 13),
// 1000 visits of "blocks", 1 ms periods.
profile::Profile cost_run(const std::map<std::string, double>& samples) {
  profile::Profile p;
  p.run.command = {"./z"};
  p.run.sample_period_ns = 1000000;
  p.processes = {{7, "/build/z", true}};
  for (const auto& [fn, n] : samples) {
    int index = static_cast<int>(p.frames.size());
    p.frames.push_back(
        {fn, "/src/" + fn + ".c", 10 + index, "/build/z", false, true});
    p.stacks.push_back(
        {{static_cast<uint32_t>(index)}, static_cast<uint64_t>(n + 0.5)});
    p.samples += static_cast<uint64_t>(n + 0.5);
  }
  p.points = {{"blocks", profile::PointKind::kThroughput, 1000, 0, 0}};
  // Experiments give the diff its point (its baseline comes from them).
  testing::add_line(&p, "/src/hash.c", 10, "hash", 0.5);
  for (profile::Experiment& e : p.experiments) e.points[0].name = "blocks";
  return p;
}

// Runs of a program whose functions cost `base` samples per 1000 visits,
// with `slower` of them multiplied, run i on a machine `machine[i]` times as
// slow, and a fixed jitter of about ±1.5% per function so variances are not 0.
std::vector<profile::Profile> cost_runs(
    std::map<std::string, double> base,
    const std::map<std::string, double>& slower,
    const std::vector<double>& machine) {
  static const double jitter[] = {0.012,  -0.009, 0.015,  -0.014, 0.004,
                                  -0.006, 0.011,  -0.002, 0.008,  -0.013};
  for (const auto& [fn, f] : slower) base[fn] *= f;
  std::vector<profile::Profile> out;
  int j = 0;
  for (double m : machine) {
    std::map<std::string, double> s;
    for (const auto& [fn, n] : base) s[fn] = n * m * (1 + jitter[j++ % 10]);
    out.push_back(cost_run(s));
  }
  return out;
}

std::vector<const profile::Profile*> cost_ptrs(
    const std::vector<profile::Profile>& v) {
  std::vector<const profile::Profile*> out;
  for (const auto& p : v) out.push_back(&p);
  return out;
}

// region_cost_changes of two pools of runs, for a throughput point, at a
// 95% level: what every test here asks, but for the point and the floor.
RegionCosts changes(const std::vector<profile::Profile>& base,
                    const std::vector<profile::Profile>& next,
                    double min_pct = 5, const std::string& point = "blocks") {
  return region_cost_changes(cost_ptrs(base), cost_ptrs(next), point,
                             profile::PointKind::kThroughput, min_pct, 0.95);
}

const std::map<std::string, double> kCostProgram = {
    {"hash", 3000}, {"match", 2000}, {"encode", 1000}, {"tiny", 20}};

const RegionCost* find_region(const RegionCosts& c, const std::string& fn) {
  for (const RegionCost& r : c.rose)
    if (r.function == fn) return &r;
  return nullptr;
}

// The regions left alone: absent from `rose`, or there without a finding.
void expect_not_significant(const RegionCosts& c,
                            std::initializer_list<const char*> functions) {
  for (const char* f : functions) {
    const RegionCost* r = find_region(c, f);
    if (r != nullptr) {
      EXPECT_FALSE(r->significant) << f;
    }
  }
}

TEST(RegionCost, AMachineSlowerForWholeRunsIsNotARegression) {
  // NEW ran 15-25% slower everywhere: cpu-slowdown's business, not a region.
  auto base = cost_runs(kCostProgram, {}, {1.0, 0.95, 1.05, 1.02});
  auto next = cost_runs(kCostProgram, {}, {1.15, 1.25, 1.18, 1.22});
  RegionCosts c = changes(base, next);
  EXPECT_EQ(c.base_runs, 4);
  EXPECT_EQ(c.tested, 3);  // hash, match, encode; tiny is below 2.5%
  for (const RegionCost& r : c.rose) {
    EXPECT_FALSE(r.significant) << r.function << " " << r.implied_pct;
    EXPECT_LT(r.implied_pct, 2) << r.function;
  }
}

TEST(RegionCost, ARegionMadeSlowerIsFoundOnNoisyMachines) {
  // match 30% slower: 600 of 6020 samples per 1000 visits, ~10% of the
  // program, while the machine moves every run by up to ±12%.
  auto base = cost_runs(kCostProgram, {}, {1.0, 0.88, 1.12, 0.95});
  auto next = cost_runs(kCostProgram, {{"match", 1.3}}, {1.1, 0.9, 1.05, 0.97});
  RegionCosts c = changes(base, next);
  const RegionCost* m = find_region(c, "match");
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(m->significant) << m->p << " " << m->q;
  EXPECT_NEAR(m->implied_pct, 100.0 * 600 / 6020, 1.5);
  EXPECT_LT(m->low_pct, m->implied_pct);
  EXPECT_GT(m->high_pct, m->implied_pct);
  EXPECT_EQ(m->top_file, "/src/match.c");
  EXPECT_GT(m->top_line, 0);
  ASSERT_FALSE(c.rose.empty());
  EXPECT_EQ(c.rose.front().function, "match");  // most implied first
  expect_not_significant(c, {"hash", "encode"});
}

TEST(RegionCost, ARegionWithMostOfTheCostIsJudgedByTheOthers) {
  // hash carries two thirds of the cost: had it a vote in the machine
  // factor, its own 30% would become the machine's and vanish.
  const std::map<std::string, double> heavy = {
      {"hash", 8000}, {"match", 2000}, {"encode", 2000}};
  auto base = cost_runs(heavy, {}, {1.0, 0.9, 1.1, 0.95});
  auto next = cost_runs(heavy, {{"hash", 1.3}}, {1.05, 0.92, 1.08, 1.0});
  RegionCosts c = changes(base, next);
  const RegionCost* h = find_region(c, "hash");
  ASSERT_NE(h, nullptr);
  EXPECT_TRUE(h->significant) << h->p << " " << h->q;
  EXPECT_NEAR(h->implied_pct, 100.0 * 2400 / 12000, 2);
  // Its line is found on the costs it was tested on: normalized by a factor
  // in which hash voted, hash would be its own machine and no line of it
  // would rise.
  EXPECT_EQ(h->top_file, "/src/hash.c");
  EXPECT_EQ(h->top_line, 11);
  expect_not_significant(c, {"match", "encode"});
}

TEST(RegionCost, ARegionWhoseCostMovesOnItsOwnHasLittleSayOnTheMachine) {
  // A server's `send` (its sendmsg's kernel time: 80% of the samples) costs
  // 10x more per request in some runs of one binary than in others, how the
  // load generator and the workers share the cores (measured on memcached:
  // 3.4 or 0.3 us per request). Weighted by cost, `send` was the machine
  // factor, and the steady `match` made 50% slower (+200 samples, 2.7% of
  // the program) drowned in it. Weighted by how steady each region is
  // between the runs of a side, the steady regions speak for the machine.
  const double machine[] = {1.0, 0.95, 1.05, 1.02, 0.97, 1.03, 0.99, 1.01};
  const double send[] = {1.0, 0.1, 1.0, 0.1, 0.1, 1.0, 0.1, 1.0};
  const double jitter[] = {0.012,  -0.009, 0.015,  -0.014, 0.004,
                           -0.006, 0.011,  -0.002, 0.008,  -0.013};
  std::vector<profile::Profile> base, next;
  int j = 0;
  for (int r = 0; r < 8; ++r) {
    std::map<std::string, double> s = {{"encode", 300},
                                       {"hash", 600},
                                       {"match", r < 4 ? 400 : 600},
                                       {"parse", 200},
                                       {"send", 6000 * send[r]}};
    for (auto& [fn, n] : s) n *= machine[r] * (1 + jitter[j++ % 10]);
    (r < 4 ? base : next).push_back(cost_run(s));
  }
  RegionCosts c = changes(base, next, 1);
  const RegionCost* m = find_region(c, "match");
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(m->significant) << m->p << " " << m->q;
  EXPECT_NEAR(m->base_cost, 400e-6, 20e-6);
  EXPECT_NEAR(m->new_cost, 600e-6, 30e-6);
  expect_not_significant(c, {"encode", "hash", "parse", "send"});
}

TEST(RegionCost, CodeOnlyNewRunsIsARegion) {
  auto base = cost_runs(kCostProgram, {}, {1.0, 0.9, 1.1});
  std::map<std::string, double> with = kCostProgram;
  with["slow_path"] = 900;
  auto next = cost_runs(with, {}, {1.05, 0.92, 1.0});
  RegionCosts c = changes(base, next);
  const RegionCost* s = find_region(c, "slow_path");
  ASSERT_NE(s, nullptr);
  EXPECT_TRUE(s->significant);
  EXPECT_EQ(s->base_cost, 0);
  EXPECT_NEAR(s->implied_pct, 100.0 * 900 / 6020, 2);
}

TEST(RegionCost, OneRunASideTestsNothing) {
  // Between-run noise cannot be seen in one run.
  auto base = cost_runs(kCostProgram, {}, {1.0});
  auto next = cost_runs(kCostProgram, {{"match", 2.0}}, {1.0, 1.0});
  RegionCosts c = changes(base, next);
  EXPECT_EQ(c.tested, 0);
  EXPECT_TRUE(c.rose.empty());
}

TEST(RegionCost, RunsWithoutVisitsOfThePointDoNotCount) {
  auto base = cost_runs(kCostProgram, {}, {1.0, 1.0});
  auto next = cost_runs(kCostProgram, {}, {1.0, 1.0});
  RegionCosts c = changes(base, next, 5, "elsewhere");
  EXPECT_EQ(c.base_runs, 0);
  EXPECT_EQ(c.tested, 0);
}

TEST(RegionCost, TheFilterFollowsTheSmallestSlowdownAskedAbout) {
  // tiny (0.3% of the program) is tested only when a rule asks about 0.5%.
  auto base = cost_runs(kCostProgram, {}, {1.0, 0.9, 1.1});
  auto next = cost_runs(kCostProgram, {}, {1.0, 0.9, 1.1});
  EXPECT_EQ(changes(base, next).tested, 3);
  EXPECT_EQ(changes(base, next, 0.5).tested, 4);
}

}  // namespace
}  // namespace andweorc::compare

namespace andweorc::compare {
namespace {

// The rule end to end through diff_runs: the finding names the line and
// carries its evidence; a uniformly slower machine raises nothing.
TEST(RegionCostRule, RegionSlowdownNamesTheLineAndIgnoresTheMachine) {
  std::string error;
  auto rules = parse_fail_rules({"region-slowdown=5"}, &error);
  ASSERT_TRUE(rules) << error;
  auto judge = [&](const std::vector<profile::Profile>& base,
                   const std::vector<profile::Profile>& next) {
    profile::Profile b = base.front(), n = next.front();
    ProfileDiff d = diff_runs(b, cost_ptrs(base), n, cost_ptrs(next), {});
    return evaluate_fail_rules(d, *rules);
  };
  auto base = cost_runs(kCostProgram, {}, {1.0, 0.88, 1.12, 0.95});
  auto slower = cost_runs(kCostProgram, {}, {1.2, 1.25, 1.15, 1.3});
  EXPECT_TRUE(judge(base, slower).empty());
  auto regressed = cost_runs(kCostProgram, {{"match", 1.3}}, {1.1, 0.9, 1.05});
  std::vector<Finding> f = judge(base, regressed);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].rule, "region-slowdown=5");
  EXPECT_NE(f[0].reason.find("function match costs 'blocks'"),
            std::string::npos)
      << f[0].reason;
  EXPECT_NE(f[0].reason.find("q = "), std::string::npos);
  EXPECT_NE(f[0].reason.find("time went to: match.c:12 match"),
            std::string::npos)
      << f[0].reason;
}

}  // namespace
}  // namespace andweorc::compare
