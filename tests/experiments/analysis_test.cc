// analysis_test.cc: impact estimation on synthetic experiments with known
// answers (exact lines, pooled baselines, Little's law, skipped data).
#include "experiments/analysis.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "experiment_builders.h"
#include "statistics/statistics.h"

namespace andweorc::experiments {
namespace {

using profile::Experiment;
using profile::PointKind;
using profile::Profile;
using testing::exact_exp;
using testing::latency_exp;
using testing::throughput_exp;

const LineImpact* find(const Analysis& a, const std::string& point,
                       const std::string& file, int line) {
  for (const LineImpact& m : a.impacts) {
    if (m.point == point && m.file == file && m.line == line) return &m;
  }
  return nullptr;
}

Profile with(std::vector<Experiment> experiments) {
  Profile p;
  p.settings.enabled = true;
  p.experiments = std::move(experiments);
  return p;
}

TEST(Analyze, ExactThroughputImpact) {
  // a.c:10 has impact 0.8: sped up by s, the program gets 0.8 s faster.
  Profile p =
      with({exact_exp("a.c", 10, 0, 0.8), exact_exp("a.c", 10, 0, 0.8),
            exact_exp("a.c", 10, 25, 0.8), exact_exp("a.c", 10, 50, 0.8),
            exact_exp("a.c", 10, 75, 0.8)});
  Analysis a = analyze(p);
  ASSERT_EQ(a.points.size(), 1u);
  EXPECT_EQ(a.points[0].name, "done");
  EXPECT_NEAR(a.points[0].baseline, 0.001, 1e-15);
  EXPECT_EQ(a.points[0].baseline_experiments, 2);
  const LineImpact* m = find(a, "done", "a.c", 10);
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(m->fitted);
  EXPECT_NEAR(m->slope, 0.8, 1e-9);
  EXPECT_NEAR(m->intercept, 0.0, 1e-9);
  EXPECT_NEAR(m->r2, 1.0, 1e-9);
  EXPECT_NEAR(m->ci_high - m->ci_low, 0.0, 1e-6);
  EXPECT_EQ(m->experiments, 5);
  EXPECT_EQ(m->speedup_experiments, 3);
  EXPECT_EQ(m->speedup_levels, 3);
  EXPECT_TRUE(m->own_baseline);
  EXPECT_TRUE(m->significant);
  EXPECT_EQ(m->verdict_text, "significant");
  EXPECT_EQ(m->rank, 1);
  EXPECT_EQ(m->function, "fn_10");

  Prediction at25 = predict(*m, 0.25);
  ASSERT_TRUE(at25.valid);
  EXPECT_NEAR(at25.value, 0.2, 1e-9);
  EXPECT_LE(at25.low, at25.value);
  EXPECT_GE(at25.high, at25.value);
}

TEST(Analyze, BaselineIsPooledOverEveryZeroExperiment) {
  // 0% experiments of any line: 3 s for 2500 visits -> 1.2 ms per visit.
  Profile p = with({throughput_exp("a.c", 1, 0, 1.0, 1000),
                    throughput_exp("b.c", 2, 0, 2.0, 1500),
                    throughput_exp("c.c", 3, 50, 1.0, 1000)});
  Analysis a = analyze(p);
  ASSERT_EQ(a.points.size(), 1u);
  EXPECT_NEAR(a.points[0].baseline, 3.0 / 2500, 1e-15);
  EXPECT_EQ(a.points[0].baseline_experiments, 2);
  EXPECT_EQ(a.points[0].reached, 3);
  // c.c:3 has no own 0% experiment, so both pooled ones anchor x = 0.
  const LineImpact* c = find(a, "done", "c.c", 3);
  ASSERT_NE(c, nullptr);
  EXPECT_FALSE(c->own_baseline);
  EXPECT_EQ(c->baseline_experiments, 2);
  EXPECT_EQ(c->experiments, 3);
  // a.c:1 has one own 0% experiment, fewer than min_own_baseline (2).
  const LineImpact* a1 = find(a, "done", "a.c", 1);
  ASSERT_NE(a1, nullptr);
  EXPECT_FALSE(a1->own_baseline);
  EXPECT_EQ(a1->speedup_experiments, 0);
  EXPECT_EQ(a1->verdict, Verdict::kNotEnoughData);
  EXPECT_EQ(a1->verdict_text, "not enough data: run longer");
}

TEST(Analyze, OwnBaselineAbsorbsAPhaseOffset) {
  // x.c:5 runs in a phase where the program is 10% slower than elsewhere;
  // its own 0% experiments ran in that phase too and are its baseline, so
  // the estimate is the true 0.5, not distorted by the phase.
  std::vector<Experiment> ex;
  for (int i = 0; i < 4; ++i)
    ex.push_back(throughput_exp("o.c", 1, 0, 1, 1000));
  for (int pct : {0, 0, 20, 40, 60}) {
    double period = 0.0011 * (1 - 0.5 * pct / 100.0);
    ex.push_back(throughput_exp("x.c", 5, pct, period * 1000, 1000));
  }
  Analysis a = analyze(with(ex));
  const LineImpact* m = find(a, "done", "x.c", 5);
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(m->own_baseline);
  EXPECT_NEAR(m->slope, 0.5, 1e-9);
  EXPECT_NEAR(m->intercept, 0.0, 1e-9);
  // Against the pooled baseline (1.0333 ms) it would have read
  // 0.5 * 1.1 / 1.0333 = 0.532 with an intercept of -0.065.
  EXPECT_NEAR(a.points[0].baseline, 6.2 / 6000, 1e-15);
}

TEST(Analyze, LatencyByLittlesLaw) {
  // 1000 arrivals per second. 10 in flight -> 10 ms latency; sped up by
  // 50% the line halves the latency (5 in flight), at 25% 7.5 in flight.
  Profile p = with({latency_exp("q.c", 7, 0, 1.0, 1000, 10, 10),
                    latency_exp("q.c", 7, 0, 2.0, 2000, 9, 11),
                    latency_exp("q.c", 7, 25, 1.0, 1000, 7, 8),
                    latency_exp("q.c", 7, 50, 1.0, 1000, 5, 5),
                    latency_exp("q.c", 7, 50, 0.5, 500, 4, 6)});
  // An impact of 1 means the line is all of the time: the delays then take
  // x of each experiment's wall time (plausibility.h; the builder's default
  // delay would make an impact of 1 implausible).
  for (Experiment& e : p.experiments) {
    double x = e.speedup_pct / 100.0;
    double virtual_s = e.virtual_duration_s();
    e.delay_s = virtual_s * x / (1 - x);
    e.duration_s = virtual_s + e.delay_s;
  }
  Analysis a = analyze(p);
  ASSERT_EQ(a.points.size(), 1u);
  EXPECT_EQ(a.points[0].kind, PointKind::kLatency);
  EXPECT_NEAR(a.points[0].baseline, 0.010, 1e-12);
  const LineImpact* m = find(a, "query", "q.c", 7);
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->kind, PointKind::kLatency);
  EXPECT_NEAR(m->slope, 1.0, 1e-9);
  EXPECT_NEAR(predict(*m, 0.5).value, 0.5, 1e-9);  // latency halves
  EXPECT_TRUE(m->significant);
}

TEST(Analyze, DurationWeightsTameAShortOutlier) {
  // Exact impact 0.4, plus a 1 ms experiment whose count is way off.
  std::vector<Experiment> ex;
  for (int pct : {0, 0, 0, 20, 40, 60, 80})
    ex.push_back(exact_exp("w.c", 3, pct, 0.4));
  ex.push_back(throughput_exp("w.c", 3, 80, 0.001, 5));  // period 0.2 ms
  Analysis a = analyze(with(ex));
  const LineImpact* m = find(a, "done", "w.c", 3);
  ASSERT_NE(m, nullptr);
  EXPECT_NEAR(m->slope, 0.4, 0.01);
  // Unweighted, the outlier (y = 0.8 at x = 0.8) pulls the slope up: the
  // weighting is what keeps it close.
  std::vector<double> x, y;
  for (int pct : {0, 0, 0, 20, 40, 60, 80}) {
    x.push_back(pct / 100.0);
    y.push_back(0.4 * pct / 100.0);
  }
  x.push_back(0.8);
  y.push_back(0.8);
  EXPECT_GT(fit_line(x, y).slope, 0.5);
}

TEST(Analyze, SkipsUnreachedAndTimelessExperiments) {
  Experiment timeless = exact_exp("a.c", 10, 50, 0.8);
  timeless.delay_s = timeless.duration_s + 0.1;  // virtual duration < 0
  Profile p = with(
      {exact_exp("a.c", 10, 0, 0.8), exact_exp("a.c", 10, 0, 0.8),
       exact_exp("a.c", 10, 25, 0.8), throughput_exp("a.c", 10, 50, 1, 0),
       timeless, exact_exp("a.c", 10, 50, 0.8), exact_exp("a.c", 10, 75, 0.8)});
  Analysis a = analyze(p);
  const LineImpact* m = find(a, "done", "a.c", 10);
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->experiments, 5);
  EXPECT_NEAR(m->slope, 0.8, 1e-9);
  ASSERT_EQ(a.notes.size(), 1u);
  EXPECT_EQ(a.notes[0],
            "1 of 7 experiments were left out: their delays took all of their "
            "time.");
}

// A program that stalls (LevelDB's write stalls): half of its experiments
// at 0% ran at 1% of the rate of the others. The note says so; a steady
// program (5% noise) gets none.
TEST(Analyze, AnUnsteadyRateIsNoted) {
  std::vector<Experiment> stalling, steady;
  for (int i = 0; i < 20; ++i) {
    stalling.push_back(throughput_exp("a.c", 1, 0, 0.05, i % 2 ? 15000 : 150));
    stalling.push_back(exact_exp("a.c", 1, 50, 0.2));
    steady.push_back(throughput_exp("a.c", 1, 0, 0.05, 15000 + 750 * (i % 3)));
    steady.push_back(exact_exp("a.c", 1, 50, 0.2));
  }
  Analysis a = analyze(with(stalling));
  ASSERT_EQ(a.notes.size(), 1u);
  EXPECT_NE(a.notes[0].find("throughput point \"done\"'s rate varies by 98%"),
            std::string::npos)
      << a.notes[0];
  EXPECT_NE(a.notes[0].find("50% of them ran at under a tenth of the median"),
            std::string::npos)
      << a.notes[0];
  EXPECT_TRUE(analyze(with(steady)).notes.empty());
}

TEST(Analyze, NeverReachedPoint) {
  Profile p = with({throughput_exp("a.c", 1, 0, 1, 0, "never"),
                    throughput_exp("a.c", 1, 50, 1, 0, "never")});
  Analysis a = analyze(p);
  ASSERT_EQ(a.impacts.size(), 1u);
  EXPECT_EQ(a.impacts[0].verdict, Verdict::kNeverReached);
  EXPECT_EQ(a.impacts[0].verdict_text, "progress point never reached");
  ASSERT_EQ(a.notes.size(), 1u);
  EXPECT_NE(a.notes[0].find("throughput point \"never\" was never reached"),
            std::string::npos)
      << a.notes[0];
}

TEST(Analyze, NoBaselineMeansNotEnoughData) {
  Profile p = with({exact_exp("a.c", 1, 25, 0.5), exact_exp("a.c", 1, 50, 0.5),
                    exact_exp("a.c", 1, 75, 0.5)});
  Analysis a = analyze(p);
  ASSERT_EQ(a.impacts.size(), 1u);
  EXPECT_FALSE(a.impacts[0].fitted);
  EXPECT_EQ(a.impacts[0].verdict, Verdict::kNotEnoughData);
  ASSERT_EQ(a.notes.size(), 1u);
  EXPECT_NE(a.notes[0].find("no baseline"), std::string::npos);
}

TEST(Analyze, TooFewSpedUpExperimentsIsNotEnoughData) {
  // An exact fit, but only 2 sped-up experiments (K = 3).
  Profile p =
      with({exact_exp("a.c", 1, 0, 0.5), exact_exp("a.c", 1, 0, 0.5),
            exact_exp("a.c", 1, 25, 0.5), exact_exp("a.c", 1, 50, 0.5)});
  Analysis a = analyze(p);
  ASSERT_EQ(a.impacts.size(), 1u);
  EXPECT_TRUE(a.impacts[0].fitted);
  EXPECT_FALSE(a.impacts[0].significant);
  EXPECT_EQ(a.impacts[0].verdict, Verdict::kNotEnoughData);
  AnalysisOptions two;
  two.min_speedup_experiments = 2;
  EXPECT_TRUE(analyze(p, two).impacts[0].significant);
}

TEST(Analyze, NoSamplesWhileSpedUp) {
  std::vector<Experiment> ex = {exact_exp("a.c", 1, 0, 0.5),
                                exact_exp("a.c", 1, 0, 0.5)};
  for (int pct : {25, 50, 75}) {
    ex.push_back(exact_exp("a.c", 1, pct, 0.5));
    ex.back().selected_samples = 0;
  }
  Analysis a = analyze(with(ex));
  EXPECT_EQ(a.impacts[0].verdict, Verdict::kNoSamples);
  EXPECT_EQ(a.impacts[0].verdict_text.rfind("no samples in scope", 0), 0u);
}

TEST(Analyze, FunctionGranularityGroupsByFunction) {
  std::vector<Experiment> ex;
  int line = 30;
  for (int pct : {0, 0, 20, 40, 60}) {
    ex.push_back(exact_exp("f.c", line--, pct, 0.3));
    ex.back().granularity = "function";
    ex.back().function = "parse";
  }
  Analysis a = analyze(with(ex));
  ASSERT_EQ(a.impacts.size(), 1u);
  EXPECT_EQ(a.impacts[0].granularity, "function");
  EXPECT_EQ(a.impacts[0].function, "parse");
  EXPECT_EQ(a.impacts[0].line, 26);
  EXPECT_EQ(a.impacts[0].experiments, 5);
  EXPECT_NEAR(a.impacts[0].slope, 0.3, 1e-9);
}

TEST(Analyze, NoExperimentsSaysWhy) {
  Profile p;
  p.settings.enabled = true;
  Analysis a = analyze(p);
  EXPECT_TRUE(a.impacts.empty());
  ASSERT_EQ(a.notes.size(), 1u);
  EXPECT_EQ(a.notes[0].rfind("No experiment ran: no samples in scope", 0), 0u);

  p.frames = {{"main", "/a.c", 3, "/bin/a", false, true}};
  p.stacks = {{{0}, 5}};
  p.samples = 5;
  a = analyze(p);
  ASSERT_EQ(a.notes.size(), 1u);
  EXPECT_NE(a.notes[0].find("not enough data: run longer"), std::string::npos);
}

TEST(Analyze, ImpactsAreGroupedByPointInNameOrder) {
  std::vector<Experiment> ex;
  for (int pct : {0, 0, 50}) {
    Experiment e = exact_exp("a.c", 1, pct, 0.5);
    profile::PointDelta d = e.points[0];
    d.name = "alpha";
    e.points.push_back(d);
    ex.push_back(e);
  }
  Analysis a = analyze(with(ex));
  ASSERT_EQ(a.points.size(), 2u);
  EXPECT_EQ(a.points[0].name, "alpha");
  EXPECT_EQ(a.points[1].name, "done");
  ASSERT_EQ(a.impacts.size(), 2u);
  EXPECT_EQ(a.impacts[0].point, "alpha");
  EXPECT_EQ(a.impacts[1].point, "done");
}

TEST(Analyze, PointsAreTheRegressionsData) {
  // c.c:3 uses the pooled baseline (3 s / 2500 visits = 1.2 ms per visit):
  // its points are both pooled 0% runs, then its own 50% run; refitting
  // them gives the analysis's line.
  Profile p = with({throughput_exp("a.c", 1, 0, 1.0, 1000),
                    throughput_exp("b.c", 2, 0, 2.0, 1500),
                    throughput_exp("c.c", 3, 50, 1.0, 1000),
                    throughput_exp("c.c", 3, 25, 1.0, 900)});
  Analysis a = analyze(p);
  const LineImpact* c = find(a, "done", "c.c", 3);
  ASSERT_NE(c, nullptr);
  ASSERT_TRUE(c->fitted);
  ASSERT_EQ(c->points.size(), 4u);
  EXPECT_EQ(c->points[0].experiment, 0u);
  EXPECT_EQ(c->points[1].experiment, 1u);
  EXPECT_DOUBLE_EQ(c->points[0].x, 0.0);
  // a.c:1's 0% run: 1 ms per visit against 1.2 ms -> 1/6 faster.
  EXPECT_NEAR(c->points[0].y, 1.0 / 6, 1e-12);
  EXPECT_NEAR(c->points[1].y, (0.0012 - 2.0 / 1500) / 0.0012, 1e-12);
  std::vector<double> x, y, w;
  for (const FitPoint& f : c->points) {
    EXPECT_GT(f.weight, 0);
    x.push_back(f.x);
    y.push_back(f.y);
    w.push_back(f.weight);
  }
  LineFit refit = fit_line(x, y, w);
  EXPECT_NEAR(refit.slope, c->slope, 1e-12);
  EXPECT_NEAR(refit.intercept, c->intercept, 1e-12);
}

TEST(Predict, ScalesSlopeAndInterval) {
  LineImpact m;
  m.fitted = true;
  m.slope = 0.6;
  m.ci_low = 0.4;
  m.ci_high = 0.8;
  m.intercept = 0.05;  // ignored: not an effect of the speed-up
  Prediction r = predict(m, 0.5);
  EXPECT_TRUE(r.valid);
  EXPECT_DOUBLE_EQ(r.value, 0.3);
  EXPECT_DOUBLE_EQ(r.low, 0.2);
  EXPECT_DOUBLE_EQ(r.high, 0.4);
  m.fitted = false;
  EXPECT_FALSE(predict(m, 0.5).valid);
}

}  // namespace
}  // namespace andweorc::experiments
