// coarse_to_fine_test.cc: the planner's rule P6 and the stopping rule's R7
// (--granularity auto), on a simulated program with fake time: functions
// first, then the lines of the functions that can still matter.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "fake_program.h"
#include "planner/experiment_planner.h"

namespace andweorc::planner {
namespace {

using testing::FakeProgram;
using testing::FakeRegion;

const std::string kHot = "function\thot\ta.cc";
const std::string kCold = "function\tcold\tb.cc";
const std::string kHotA = "line\ta.cc\t10";
const std::string kHotB = "line\ta.cc\t11";
const std::string kCold1 = "line\tb.cc\t20";
const std::string kWarm = "function\twarm\tc.cc";
const std::string kWarm1 = "line\tc.cc\t30";

// hot (impact 0.6) holds lines 10 (0.45) and 11 (0.15); cold (0) holds 20.
FakeProgram program(uint64_t seed) {
  return FakeProgram({{kHot, 0.6, 600},
                      {kCold, 0.0, 400},
                      {kHotA, 0.45, 450},
                      {kHotB, 0.15, 150},
                      {kCold1, 0.0, 400}},
                     2000, 0.02, seed);
}

// The parent of each line of the tests' programs.
std::string parent_of(const std::string& line) {
  if (line == kCold1) return kCold;
  if (line == kWarm1) return kWarm;
  return kHot;
}

std::vector<Candidate> with_parents(const FakeProgram& prog) {
  std::vector<Candidate> c = prog.candidates();
  for (Candidate& k : c)
    if (k.region.rfind("line\t", 0) == 0) k.parents = {parent_of(k.region)};
  return c;
}

struct Trace {
  std::vector<std::string> regions;  // of every experiment, in order
  std::map<std::string, int> blocks_before_first_child;
  // Whether the line's parent was significant when the line was planned
  // first.
  std::map<std::string, bool> parent_significant_at_first_child;
};

Trace run(ExperimentPlanner* p, FakeProgram* prog, int max, bool settle) {
  Trace t;
  for (int n = 0; n < max; ++n) {
    if (settle && p->tracker().status().state != ConvergenceState::kRunning)
      break;
    std::optional<Plan> plan = p->next(with_parents(*prog));
    if (!plan) break;
    if (plan->region.rfind("line\t", 0) == 0 &&
        !t.blocks_before_first_child.count(plan->region)) {
      std::string parent = parent_of(plan->region);
      t.blocks_before_first_child[plan->region] = p->tracker().blocks(parent);
      t.parent_significant_at_first_child[plan->region] =
          p->tracker().significant(parent);
    }
    t.regions.push_back(plan->region);
    p->record(prog->run(*plan));
  }
  return t;
}

TEST(CoarseToFine, FunctionsComeFirst) {
  ExperimentPlanner p({}, 3);
  FakeProgram prog = program(3);
  Trace t = run(&p, &prog, 400, false);
  // The blocks alternate between the two functions until the first is
  // judged: its lines can join after 2 x min_blocks - 1 blocks.
  int min_blocks = p.tracker().options().min_blocks;
  for (int i = 0; i < 2 * (2 * min_blocks - 1); ++i)
    EXPECT_EQ(t.regions[size_t(i)].rfind("function\t", 0), 0u) << i;
  // No line before its function was judged (significance needs it).
  for (const auto& [line, parent_blocks] : t.blocks_before_first_child)
    EXPECT_GE(parent_blocks, min_blocks) << line;
  // The hot function's lines were refined.
  EXPECT_GT(p.tracker().blocks(kHotA), 0);
  EXPECT_GT(p.tracker().blocks(kHotB), 0);
}

TEST(CoarseToFine, LinesOfAFunctionThatIsNotSignificantGetNoBlocks) {
  ExperimentPlanner p({}, 5);
  FakeProgram prog = program(5);
  run(&p, &prog, 400, false);
  // cold never matters: it is never significant, so its line is never
  // planned, and cold leaves play.
  EXPECT_FALSE(p.tracker().in_play(kCold));
  EXPECT_FALSE(p.tracker().significant(kCold));
  EXPECT_EQ(p.tracker().blocks(kCold1), 0);
  EXPECT_TRUE(p.tracker().significant(kHot));
  EXPECT_GT(p.tracker().blocks(kHotA), 0);
  // A line is not eliminated by its own function (R7: separate tiers):
  // line 10 is still in play against the 0.6 of its function.
  EXPECT_TRUE(p.tracker().in_play(kHotA));
}

TEST(CoarseToFine, ALineWaitsUntilItsFunctionIsSignificant) {
  // Two functions of similar impact measured with 5% noise: after 3 blocks
  // both are judged and in play (neither interval excludes the other) but
  // not yet significant. Their lines must wait for that.
  ExperimentPlanner p({}, 13);
  FakeProgram prog({{kHot, 0.3, 500},
                    {kWarm, 0.25, 400},
                    {kHotA, 0.2, 400},
                    {kWarm1, 0.2, 300}},
                   2000, 0.05, 13);
  Trace t = run(&p, &prog, 600, false);
  ASSERT_FALSE(t.parent_significant_at_first_child.empty());
  for (const auto& [line, parent_significant] :
       t.parent_significant_at_first_child)
    EXPECT_TRUE(parent_significant) << line;
}

TEST(CoarseToFine, SettlesWithTheLineLeaderShown) {
  ExperimentPlanner p({}, 7);
  FakeProgram prog = program(7);
  Trace t = run(&p, &prog, 3000, true);
  const ConvergenceStatus& s = p.tracker().status();
  ASSERT_EQ(s.state, ConvergenceState::kStable) << t.regions.size();
  // The finest tier with a significant leader is shown: line 10.
  EXPECT_EQ(s.leader, kHotA);
  EXPECT_LT(s.leader_estimate.low, 0.45);
  EXPECT_GT(s.leader_estimate.high, 0.45);
}

// R8: hot's 0.6 is spread over eight lines of 0.075 each, none of which
// 10% noise lets stand out for a long time; the answer settles on the
// function once every line has had R8's budget. Without R8 it
// waits until the lines' intervals are ties (+-0.05) with each other.
TEST(CoarseToFine, AnEffectSpreadOverManyLinesSettlesOnTheFunction) {
  std::vector<FakeRegion> regions = {{kHot, 0.6, 600}, {kCold, 0.0, 400}};
  for (int i = 0; i < 8; ++i)
    regions.push_back({"line\ta.cc\t" + std::to_string(40 + i), 0.075, 75});
  auto settle = [&](int spread_blocks, double spread_information) {
    PlannerOptions o;
    o.convergence.spread_blocks = spread_blocks;
    o.convergence.spread_information = spread_information;
    ExperimentPlanner p(o, 17);
    FakeProgram prog(regions, 2000, 0.1, 17);
    Trace t = run(&p, &prog, 6000, true);
    int fewest = 1 << 30, total = 0;
    for (int i = 0; i < 8; ++i) {
      int b = p.tracker().blocks("line\ta.cc\t" + std::to_string(40 + i));
      fewest = std::min(fewest, b);
      total += b;
    }
    return std::make_tuple(p.tracker().status(), fewest, total,
                           t.regions.size());
  };
  const ConvergenceOptions defaults;
  auto [s, fewest, total, experiments] =
      settle(defaults.spread_blocks, defaults.spread_information);
  ASSERT_EQ(s.state, ConvergenceState::kStable) << experiments;
  EXPECT_EQ(s.leader, kHot);  // no line is significant: the function
  // Every line had R8's budget: the information of 8 blocks at 25, 50,
  // 75%, which P2's 75, 50, 75% give in 6.
  EXPECT_GE(fewest, 6);
  // Without R8: far longer, and far more blocks on the lines (in total: a
  // line whose interval noise pushes below useful_impact early leaves play
  // with few, whichever rule).
  auto [late, fewest_late, total_late, experiments_late] = settle(1 << 20, 1e9);
  EXPECT_GT(experiments_late, 2 * experiments);
  EXPECT_GT(total_late, 2 * total);
}

// A line that got a block while it was a candidate of its own (here: an
// early table without functions, as a process tree's first table can be)
// and then stopped being one (its function, cold, is never significant)
// must not hold the answer back: an unjudged region is in play (R3), and
// an nginx run under a shell never settled in 60 s, its 3 such lines "in
// play" with 1 block each. Once its experiments carry its parents, it
// leaves play with cold (R3's parent rule).
TEST(CoarseToFine, ALineStartedEarlyLeavesPlayWithItsFunction) {
  ExperimentPlanner p({}, 20);
  FakeProgram prog = program(20);
  std::vector<Candidate> early;
  for (const Candidate& k : prog.candidates())
    if (k.region == kCold1) early.push_back(k);
  ASSERT_EQ(early.size(), 1u);
  for (int n = 0; n < 4; ++n) {  // one pair of blocks on the line alone
    std::optional<Plan> plan = p.next(early);
    ASSERT_TRUE(plan);
    p.record(prog.run(*plan));
  }
  ASSERT_EQ(p.tracker().blocks(kCold1), 2);
  Trace t = run(&p, &prog, 3000, true);
  EXPECT_EQ(p.tracker().status().state, ConvergenceState::kStable)
      << t.regions.size() << " experiments";
  EXPECT_FALSE(p.tracker().in_play(kCold1));
  EXPECT_FALSE(p.tracker().significant(kCold));
}

// P8 where no parent rule can help (regions without parents: line or
// function granularity): a region that got a block while it was a
// candidate, and then fell below P3's share as the table grew, is
// finished, so that it is judged and the answer can settle.
TEST(CoarseToFine, ARegionStartedEarlyIsFinishedAndTheAnswerSettles) {
  const std::string kRare = "line\tr.cc\t5";
  FakeProgram prog({{kHotA, 0.5, 5000}, {kRare, 0.0, 10}}, 2000, 0.02, 23);
  ExperimentPlanner p({}, 23);
  std::vector<Candidate> early;
  for (const Candidate& k : prog.candidates())
    if (k.region == kRare) early.push_back(k);
  for (int n = 0; n < 2; ++n) {
    std::optional<Plan> plan = p.next(early);
    ASSERT_TRUE(plan);
    p.record(prog.run(*plan));
  }
  ASSERT_EQ(p.tracker().blocks(kRare), 1);
  for (int n = 0; n < 3000; ++n) {
    if (p.tracker().status().state != ConvergenceState::kRunning) break;
    std::optional<Plan> plan = p.next(prog.candidates());
    ASSERT_TRUE(plan);
    p.record(prog.run(*plan));
  }
  EXPECT_EQ(p.tracker().status().state, ConvergenceState::kStable);
  EXPECT_GE(p.tracker().blocks(kRare), p.tracker().options().min_blocks);
}

// P9: the lines of the leading function share its effect (none stands
// out) while the two functions are hard to tell apart: the lines stop at
// spread_blocks meanwhile, the blocks go to the functions, and the run
// settles on the function (R8). In simulations like this one (8 seeds)
// that halved the experiments to a stable answer (median 200 vs 370).
TEST(CoarseToFine, LinesWithoutALeaderWaitWhileTheFunctionsAreUnresolved) {
  const std::string kHotC = "line\ta.cc\t12", kWarm2 = "line\tc.cc\t31";
  FakeProgram prog({{kHot, 0.5, 500},
                    {kWarm, 0.3, 400},
                    {kHotA, 0.06, 100},
                    {kHotB, 0.06, 100},
                    {kHotC, 0.06, 100},
                    {kWarm1, 0.05, 100},
                    {kWarm2, 0.05, 100}},
                   2000, 0.1, 7);
  ExperimentPlanner p({}, 7);
  const int spread = p.tracker().options().spread_blocks;
  int most = 0, n = 0;
  for (; n < 4000; ++n) {
    if (p.tracker().status().state != ConvergenceState::kRunning) break;
    std::vector<Candidate> c = prog.candidates();
    for (Candidate& k : c)
      if (k.region.rfind("line\t", 0) == 0)
        k.parents = {k.region.find("c.cc") != std::string::npos ? kWarm : kHot};
    std::optional<Plan> plan = p.next(c);
    ASSERT_TRUE(plan);
    if (!plan->parents.empty() && !p.tracker().functions_settled() &&
        !p.tracker().line_leader_significant())
      most = std::max(most, p.tracker().blocks(plan->region));
    p.record(prog.run(*plan));
  }
  EXPECT_EQ(p.tracker().status().state, ConvergenceState::kStable) << n;
  EXPECT_EQ(p.tracker().status().leader, kHot);
  // Planned with fewer than spread_blocks done, whenever lines had to wait.
  EXPECT_LT(most, spread);
  EXPECT_GT(most, 0);  // the lines were planned meanwhile
}

TEST(CoarseToFine, WithoutParentsEveryRegionIsTopTier) {
  // The same regions without parents (line or function granularity): P4
  // gives each of the 5 its first pair of blocks (P1) before any gets a
  // second, lines included.
  ExperimentPlanner p({}, 11);
  FakeProgram prog = program(2);
  std::map<std::string, int> first_blocks;
  for (int n = 0; n < 20; ++n) {
    std::optional<Plan> plan = p.next(prog.candidates());
    ASSERT_TRUE(plan);
    if (n % 4 == 0) ++first_blocks[plan->region];
    p.record(prog.run(*plan));
  }
  EXPECT_EQ(first_blocks.size(), 5u);
}

}  // namespace
}  // namespace andweorc::planner
