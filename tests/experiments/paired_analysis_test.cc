// paired_analysis_test.cc: lines with paired 0%/s% blocks are estimated from
// the blocks' own differences, so that a slow drift of the program cancels;
// and the convergence sentence of reports.
#include <gtest/gtest.h>

#include "experiment_builders.h"
#include "experiments/analysis.h"
#include "experiments/convergence_summary.h"

namespace andweorc::experiments {
namespace {

using profile::Experiment;
using profile::Profile;
using testing::throughput_exp;

// Blocks on a.cc:10 (true impact 0.5) while the program slows down by 1.5%
// per experiment: 60% over the run.
Profile drifting_blocks() {
  Profile p;
  p.settings.enabled = true;
  int levels[] = {20, 40, 60};
  int k = 0;
  for (int b = 0; b < 20; ++b) {
    int s = levels[b % 3];
    bool zero_first = b % 2 == 0;
    for (int half = 0; half < 2; ++half) {
      int pct = (half == 0) == zero_first ? 0 : s;
      double base = 0.001 * (1 + 0.015 * k++);
      double period = base * (1 - 0.5 * pct / 100.0);
      p.experiments.push_back(
          throughput_exp("/src/a.cc", 10, pct, period * 1000, 1000));
    }
  }
  return p;
}

const LineImpact& only(const Analysis& a) {
  EXPECT_EQ(a.impacts.size(), 1u);
  return a.impacts.front();
}
// A reference into a temporary Analysis would dangle (ASan caught it).
const LineImpact& only(Analysis&&) = delete;

TEST(PairedAnalysis, DriftCancelsInsideBlocks) {
  Profile p = drifting_blocks();
  Analysis a = analyze(p);
  const LineImpact& m = only(a);
  EXPECT_EQ(m.design, "paired");
  EXPECT_TRUE(m.significant);
  EXPECT_EQ(m.speedup_experiments, 20);
  EXPECT_EQ(m.experiments, 40);
  EXPECT_EQ(m.speedup_levels, 3);
  EXPECT_DOUBLE_EQ(m.intercept, 0);
  EXPECT_NEAR(m.slope, 0.5, 0.02);
  EXPECT_LT(m.ci_high - m.ci_low, 0.1);
  EXPECT_LT(m.ci_low, 0.5);
  EXPECT_GT(m.ci_high, 0.5);
  // Every experiment is a plotted point: 20 baselines, 20 sped-up.
  EXPECT_EQ(m.points.size(), 40u);

  // The regression against the line's pooled baselines (what the analysis
  // did before blocks) sees the drift as noise: a far wider interval.
  AnalysisOptions regression;
  regression.min_paired_blocks = 1000;
  Analysis ra = analyze(p, regression);  // `only` returns into it
  const LineImpact& r = only(ra);
  EXPECT_EQ(r.design, "regression");
  EXPECT_GT(r.ci_high - r.ci_low, 3 * (m.ci_high - m.ci_low));
}

TEST(PairedAnalysis, FewBlocksKeepTheRegression) {
  // Coz's plan: lines in random order, 0% experiments anywhere; here two
  // adjacent 0%/s% pairs only.
  Profile p;
  for (int pct : {0, 0, 10, 20, 30, 0, 40, 50})
    p.experiments.push_back(throughput_exp(
        "/src/a.cc", 10, pct, 1.0 * (1 - 0.5 * pct / 100.0), 1000));
  Analysis a = analyze(p);  // `only` returns into it
  const LineImpact& m = only(a);
  EXPECT_EQ(m.design, "regression");
  EXPECT_NEAR(m.slope, 0.5, 1e-9);
}

TEST(ConvergenceSummary, FlatProfileIsSaidPlainly) {
  profile::Convergence c;
  c.state = "flat";
  c.experiments = 212;
  c.useful_impact = 0.05;
  EXPECT_EQ(convergence_text(c).rfind(
                "Flat profile: no region's impact exceeds 0.05 with 95% "
                "confidence after 212 experiments",
                0),
            0u)
      << convergence_text(c);
  c.state = "";
  EXPECT_EQ(convergence_text(c), "");
}

TEST(ConvergenceSummary, StableAndRunningNameTheLeader) {
  Profile p = drifting_blocks();
  planner::ConvergenceOptions o;
  o.stable_experiments = 10;
  profile::Convergence c = convergence_of(p.experiments, o);
  EXPECT_EQ(c.state, "stable");
  EXPECT_EQ(c.leader, "/src/a.cc:10");
  EXPECT_EQ(c.point, "done");
  EXPECT_NEAR(c.impact, 0.5, 0.02);
  EXPECT_EQ(c.experiments, 40);
  EXPECT_NE(convergence_text(c).find("Answer stable after 40 experiments: "
                                     "leader /src/a.cc:10 (impact 0.5"),
            std::string::npos)
      << convergence_text(c);
  p.convergence = c;
  EXPECT_EQ(analyze(p).convergence, convergence_text(c));

  c.state = "running";
  EXPECT_NE(convergence_text(c).find("Not stable yet after 40 experiments"),
            std::string::npos);
  EXPECT_TRUE(convergence_of({}).state.empty());
}

// A function's experiment block at `impact`, with tiny noise.
void function_block(Profile* p, const std::string& function,
                    const std::string& file, double impact, int b) {
  double noise = (b % 3 - 1) * 1e-6;
  for (int pct : {0, 40}) {
    double period =
        (0.001 + (pct ? -noise : noise)) * (1 - impact * pct / 100.0);
    Experiment e = throughput_exp(file, 1, pct, period * 1000, 1000);
    e.granularity = "function";
    e.function = function;
    p->experiments.push_back(e);
  }
}

// R3's parent rule computed from a profile: the line's experiments carry
// their function (1.7), which left play; the line, judged and wide, then
// does not keep the answer from being stable, as in the run that wrote it.
TEST(ConvergenceSummary, ALineLeavesPlayWithTheFunctionItsExperimentsName) {
  Profile p;
  p.settings.enabled = true;
  for (int b = 0; b < 4; ++b)
    for (int pct : {0, 40}) {
      double swing = pct == 0 ? 1 : (b % 2 ? 1.4 : 0.6);
      Experiment e = throughput_exp("/src/a.cc", 10, pct, swing, 1000);
      e.parents = {{"f", "/src/a.cc"}};
      p.experiments.push_back(e);
    }
  for (int b = 0; b < 20; ++b) {
    function_block(&p, "g", "/src/b.cc", 0.5, b);
    function_block(&p, "f", "/src/a.cc", 0.01, b);
  }
  planner::ConvergenceOptions o;
  o.stable_experiments = 10;
  profile::Convergence c = convergence_of(p.experiments, o);
  EXPECT_EQ(c.state, "stable");
  EXPECT_EQ(c.leader, "g");
  EXPECT_EQ(c.in_play, 1);  // g alone
  for (Experiment& e : p.experiments) e.parents.clear();
  EXPECT_EQ(convergence_of(p.experiments, o).state, "running");
}

}  // namespace
}  // namespace andweorc::experiments
