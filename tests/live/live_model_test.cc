// live_model_test.cc: the live model with synthetic records: its ranking
// and convergence are the analysis's and the planner's for the same
// experiments, and its point rates follow the totals over time.
#include "live/live_model.h"

#include <gtest/gtest.h>

#include "andweorc/andweorc.h"
#include "experiments/convergence_summary.h"
#include "experiments/experiment_builders.h"
#include "live/live_json.h"
#include "report/json_report.h"

namespace andweorc::live {
namespace {

using experiments::testing::exact_exp;

// Alternating 0% / s% experiments of two lines (paired blocks, as the
// planner schedules them), line 10 with impact 0.8, line 20 with 0.
std::vector<profile::Experiment> two_lines(int rounds) {
  std::vector<profile::Experiment> out;
  const int pcts[] = {20, 40, 60};
  for (int i = 0; i < rounds; ++i) {
    int pct = pcts[i % 3];
    out.push_back(exact_exp("a.cc", 10, 0, 0.8));
    out.push_back(exact_exp("a.cc", 10, pct, 0.8));
    out.push_back(exact_exp("a.cc", 20, 0, 0.0));
    out.push_back(exact_exp("a.cc", 20, pct, 0.0));
  }
  return out;
}

TEST(LiveModel, RankingAndConvergenceAreTheAnalysisOfTheSameExperiments) {
  LiveModel m;
  std::vector<profile::Experiment> all = two_lines(6);
  // Fed in three batches, as three polls would.
  size_t third = all.size() / 3;
  m.add_experiments({all.begin(), all.begin() + third}, 1);
  LiveSnapshot first = m.tick(1);
  EXPECT_EQ(first.experiments, third);
  m.add_experiments({all.begin() + third, all.begin() + 2 * third}, 2);
  m.add_experiments({all.begin() + 2 * third, all.end()}, 3);
  LiveSnapshot s = m.tick(3);

  profile::Profile p;
  p.experiments = all;
  p.convergence = experiments::convergence_of(all);
  EXPECT_EQ(s.experiments, all.size());
  EXPECT_EQ(s.convergence, p.convergence);
  EXPECT_EQ(report::analysis_to_json(s.analysis, {}),
            report::analysis_to_json(experiments::analyze(p), {}));
  ASSERT_FALSE(s.analysis.impacts.empty());
  EXPECT_EQ(s.analysis.impacts[0].line, 10);  // the line that matters leads
  // One convergence tick per snapshot, the latest last.
  ASSERT_EQ(s.convergence_history.size(), 2u);
  EXPECT_EQ(s.convergence_history[1].experiments, int(all.size()));
  EXPECT_EQ(s.convergence_history[1].leader, s.convergence.leader);
}

TEST(LiveModel, SetExperimentsReplacesWhatTheTailSaw) {
  LiveModel m;
  std::vector<profile::Experiment> all = two_lines(4);
  m.add_experiments({all.begin(), all.begin() + 5}, 1);
  m.set_experiments(all);
  LiveSnapshot s = m.tick(2);
  EXPECT_EQ(s.experiments, all.size());
  EXPECT_EQ(s.convergence, experiments::convergence_of(all));
}

TEST(LiveModel, NoExperimentsNoConvergenceState) {
  LiveModel m;
  LiveSnapshot s = m.tick(1);
  EXPECT_EQ(s.experiments, 0u);
  EXPECT_EQ(s.convergence.state, "");
  EXPECT_TRUE(s.analysis.impacts.empty());
  EXPECT_EQ(s.experiments_per_s, 0);
}

ingest::RawPoint point(const std::string& name, uint64_t value,
                       uint32_t kind = ANDWEORC_KIND_THROUGHPUT) {
  return ingest::RawPoint{kind, name, value};
}

TEST(LiveModel, RatesFollowTheTotalsPerSecond) {
  LiveModel m;
  // The runtime's snapshots every 0.5 s, seen by polls every 0.25 s: 100
  // visits per snapshot is 200 per second.
  for (int i = 0; i <= 16; ++i) {
    double t = 0.25 * i;
    m.add_point_totals({point("done", uint64_t(100 * (i / 2)))}, t);
    if (i % 4 == 0 && i > 0) {
      LiveSnapshot s = m.tick(t);
      ASSERT_EQ(s.points.size(), 1u);
      EXPECT_EQ(s.points[0].name, "done");
      EXPECT_EQ(s.points[0].kind, "throughput");
      EXPECT_NEAR(s.points[0].rates.back().second, 200, 1e-9) << "t=" << t;
    }
  }
  // A phase change: four times faster from t = 4.
  for (int i = 17; i <= 32; ++i) {
    double t = 0.25 * i;
    m.add_point_totals({point("done", uint64_t(800 + 400 * (i / 2 - 8)))}, t);
  }
  LiveSnapshot s = m.tick(8);
  EXPECT_NEAR(s.points[0].rates.back().second, 800, 1e-9);
  EXPECT_EQ(s.points[0].total, 800u + 400 * 8);
  // Four ticks before, one now: the history keeps them all, in order.
  ASSERT_EQ(s.points[0].rates.size(), 5u);
  EXPECT_EQ(s.points[0].rates.front().first, 1);
}

TEST(LiveModel, AStalledPointDropsToZero) {
  LiveModel m;  // rate window 2 s
  for (int i = 0; i <= 8; ++i)
    m.add_point_totals({point("done", uint64_t(50 * i))}, 0.5 * i);
  EXPECT_NEAR(m.tick(4).points[0].rates.back().second, 100, 1e-9);
  for (int i = 9; i <= 14; ++i)  // no visit for 3 s
    m.add_point_totals({point("done", 400)}, 0.5 * i);
  EXPECT_EQ(m.tick(7).points[0].rates.back().second, 0);
}

TEST(LiveModel, LatencyPointsAreRatesOfArrivalsAndEndsAreSkipped) {
  LiveModel m;
  for (int i = 0; i <= 4; ++i)
    m.add_point_totals({point("query", uint64_t(30 * i), ANDWEORC_KIND_BEGIN),
                        point("query", uint64_t(30 * i), ANDWEORC_KIND_END)},
                       0.5 * i);
  LiveSnapshot s = m.tick(2);
  ASSERT_EQ(s.points.size(), 1u);
  EXPECT_EQ(s.points[0].kind, "latency");
  EXPECT_NEAR(s.points[0].rates.back().second, 60, 1e-9);
}

TEST(LiveJson, SchemaKeysAndTheReportsRanking) {
  LiveModel m;
  m.add_experiments(two_lines(3), 1);
  m.add_point_totals({point("done", 10)}, 1);
  LiveSnapshot s = m.tick(1.5);
  auto j = snapshot_json(s, "update", 7, false, false);
  EXPECT_EQ(j["schema"], kLiveSchemaVersion);
  EXPECT_EQ(j["kind"], "update");
  EXPECT_EQ(j["time_s"], 1.5);
  EXPECT_EQ(j["experiments"], 12);
  EXPECT_EQ(j["dropped"], 7);
  EXPECT_EQ(j["convergence"]["state"], s.convergence.state);
  EXPECT_EQ(j["ranking"], report::analysis_to_json(s.analysis, {}));
  EXPECT_EQ(j["points"][0]["name"], "done");
  EXPECT_EQ(j["points"][0]["total"], 10);
  EXPECT_FALSE(j.contains("history"));
  EXPECT_TRUE(j["flame"].is_null());  // a stream line between flame lines
  auto h = snapshot_json(s, "final", 0, true, true);
  EXPECT_EQ(h["flame"]["window_s"], 10);
  EXPECT_EQ(h["flame"]["recent"]["samples"], 0);
  EXPECT_EQ(h["history"]["convergence"].size(), 1u);
  EXPECT_EQ(h["history"]["points"][0]["rates"].size(), 1u);
  // One line, parseable, ending in a newline.
  std::string line = snapshot_line(j);
  EXPECT_EQ(line.back(), '\n');
  EXPECT_EQ(line.find('\n'), line.size() - 1);
  EXPECT_EQ(nlohmann::ordered_json::parse(line), j);
}

TEST(LiveJson, InvalidUtf8InANameIsReplacedNotThrown) {
  LiveModel m;
  m.add_point_totals({point("bad\xff", 1)}, 0);
  std::string line =
      snapshot_line(snapshot_json(m.tick(1), "update", 0, true, true));
  EXPECT_NO_THROW(nlohmann::json::parse(line));
}

TEST(SampleProfile, LastSecondsAndWholeRun) {
  SampleProfile p(10);
  p.add(1, {{"parse", 30}, {"hash", 10}});
  p.add(6, {{"parse", 10}});
  p.add(12, {{"hash", 50}, {"log", 5}});  // t=1 is now out of the window
  auto recent = p.recent(12, 10);
  ASSERT_EQ(recent.size(), 3u);
  EXPECT_EQ(recent[0].function, "hash");
  EXPECT_EQ(recent[0].samples, 50u);
  EXPECT_EQ(recent[1].function, "parse");
  EXPECT_EQ(recent[1].samples, 10u);
  EXPECT_NEAR(recent[0].share, 50.0 / 65, 1e-12);
  EXPECT_EQ(p.recent_samples(12), 65u);
  auto total = p.total(2);  // the top 2 only
  ASSERT_EQ(total.size(), 2u);
  EXPECT_EQ(total[0].function, "hash");
  EXPECT_EQ(total[0].samples, 60u);
  EXPECT_EQ(total[1].function, "parse");
  EXPECT_EQ(total[1].samples, 40u);
  EXPECT_EQ(p.total_samples(), 105u);
  EXPECT_NEAR(total[1].share, 40.0 / 105, 1e-12);
  // Nothing new for a whole window: the recent profile is empty.
  EXPECT_TRUE(p.recent(30, 10).empty());
  EXPECT_EQ(p.total_samples(), 105u);
}

TEST(LiveModel, SnapshotCarriesTheSamplingProfile) {
  LiveModel m;
  m.add_samples({{"f", 3}, {"g", 1}}, 0.5);
  LiveSnapshot s = m.tick(1);
  EXPECT_EQ(s.total_samples, 4u);
  EXPECT_EQ(s.recent_samples, 4u);
  ASSERT_EQ(s.recent_functions.size(), 2u);
  EXPECT_EQ(s.recent_functions[0].function, "f");
  auto j = snapshot_json(s, "update", 0, false, false);
  EXPECT_EQ(j["samples"]["total_samples"], 4);
  EXPECT_EQ(j["samples"]["recent"][0]["function"], "f");
  EXPECT_EQ(j["samples"]["window_s"], 10);
}

TEST(LiveModel, SnapshotCarriesTheFlameGraphsOfBothSpans) {
  LiveModelOptions o;
  o.samples_window_s = 5;
  LiveModel m(o);
  m.add_stacks({{{"main", "parse"}, 6}, {{"main", "hash"}, 2}}, 1);
  m.add_stacks({{{"main", "hash"}, 4}}, 5);
  LiveSnapshot s = m.tick(6.5);  // the stacks seen at 1 s are out
  EXPECT_EQ(s.recent_flame.samples, 4u);
  EXPECT_EQ(s.total_flame.samples, 12u);
  EXPECT_EQ(s.flame_min_share, 0.005);
  EXPECT_EQ(s.flame_node_limit, StackProfile::kDefaultMaxNodes);
  auto j = snapshot_json(s, "update", 0, false, true);
  const auto& f = j["flame"];
  EXPECT_EQ(f["window_s"], 5);
  EXPECT_EQ(f["node_limit"], StackProfile::kDefaultMaxNodes);
  // [name index, samples, depth] in preorder, siblings by name.
  EXPECT_EQ(f["recent"]["names"], nlohmann::ordered_json({"main", "hash"}));
  EXPECT_EQ(f["recent"]["nodes"],
            nlohmann::ordered_json({{0, 4, 1}, {1, 4, 2}}));
  EXPECT_EQ(f["total"]["names"],
            nlohmann::ordered_json({"main", "hash", "parse"}));
  EXPECT_EQ(f["total"]["nodes"],
            nlohmann::ordered_json({{0, 12, 1}, {1, 6, 2}, {2, 6, 2}}));
  EXPECT_EQ(f["total"]["samples"], 12);
  EXPECT_EQ(f["total"]["cut"], 0);
  EXPECT_EQ(f["total"]["pruned_nodes"], 0);
}

}  // namespace
}  // namespace andweorc::live
