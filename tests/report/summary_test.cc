// summary_test.cc: the answer first: the top region, how many are
// significant, and the convergence clause only when it is known.
#include "report/summary.h"

#include <gtest/gtest.h>

#include "causal_fixtures.h"
#include "experiments/analysis.h"

namespace andweorc::report {
namespace {

TEST(Summary, TopRegionItsImpactAndThePrediction) {
  profile::Profile p = testing::causal_profile();
  experiments::Analysis a = experiments::analyze(p);
  Summary s = summarize(a, std::nullopt);
  ASSERT_EQ(s.points.size(), 2u);  // "query" and "requests", by name
  const PointAnswer& req = s.points[1];
  EXPECT_EQ(req.point, "requests");
  ASSERT_NE(req.top, nullptr);
  EXPECT_EQ(req.top->rank, 1);
  EXPECT_EQ(req.top->function, "hash_bytes");
  EXPECT_EQ(req.regions, 4);
  EXPECT_EQ(req.significant, 1);
  EXPECT_TRUE(req.at10.valid);
  EXPECT_NEAR(req.at10.value, req.top->slope * 0.10, 1e-12);

  SourcePaths paths({"/home/dev/proj/src/hash.c", "/home/dev/proj/src/a.c"});
  std::vector<std::string> lines = summary_sentences(s, paths);
  // Per point: the top region and the count; no convergence clause.
  ASSERT_EQ(lines.size(), 4u);
  const std::string& top = lines[2];
  EXPECT_EQ(
      top.rfind("requests: Top region: hash.c:17 in hash_bytes, impact ", 0),
      0u)
      << top;
  EXPECT_NE(top.find(": 10% faster there \u2192 program +"), std::string::npos)
      << top;
  EXPECT_EQ(lines[3], "1 of 4 regions is significant.");
  for (const auto& l : lines) {
    EXPECT_EQ(l.find("converged"), std::string::npos) << l;
  }
}

TEST(Summary, NumbersAreTheAnalysisRounded) {
  profile::Profile p = testing::causal_profile();
  experiments::Analysis a = experiments::analyze(p);
  Summary s = summarize(a, std::nullopt);
  const experiments::LineImpact& m = *s.points[1].top;
  std::string top = summary_sentences(s, SourcePaths())[2];
  char expect[200];
  std::snprintf(expect, sizeof expect,
                "impact %.2f [%.2f, %.2f]: 10%% faster there \u2192 program "
                "%+.1f%%.",
                m.slope, m.ci_low, m.ci_high, m.slope * 10);
  EXPECT_NE(top.find(expect), std::string::npos) << top << "\n" << expect;
}

TEST(Summary, ConvergenceIsShownWhenKnown) {
  experiments::Analysis a = experiments::analyze(testing::causal_profile());
  std::vector<std::string> yes = summary_sentences(
      summarize(a, Convergence{true, "top region unchanged for 30 s"}),
      SourcePaths());
  EXPECT_EQ(yes.back(),
            "The answer had converged: top region unchanged for 30 s.");
  std::vector<std::string> no =
      summary_sentences(summarize(a, Convergence{false, ""}), SourcePaths());
  EXPECT_EQ(no.back(), "The answer had not converged yet.");
}

TEST(Summary, RecordedConvergenceComesFromTheProfile) {
  profile::Profile p = testing::causal_profile();
  EXPECT_FALSE(recorded_convergence(p).has_value());  // no state recorded
  p.convergence.state = "stable";
  p.convergence.leader = "hot.c:22";
  p.convergence.experiments = 40;
  p.convergence.stable_for = 20;
  auto stable = recorded_convergence(p);
  ASSERT_TRUE(stable.has_value());
  EXPECT_TRUE(stable->converged);
  EXPECT_EQ(stable->detail,
            "hot.c:22 has led for the last 20 of 40 experiments");
  p.convergence.state = "running";
  p.convergence.regions = 5;
  p.convergence.in_play = 3;
  auto running = recorded_convergence(p);
  ASSERT_TRUE(running.has_value());
  EXPECT_FALSE(running->converged);
  EXPECT_EQ(running->detail,
            "after 40 experiments, 3 of 5 regions still in play");
  p.convergence.state = "flat";
  p.convergence.useful_impact = 0.05;
  auto flat = recorded_convergence(p);
  ASSERT_TRUE(flat.has_value());
  EXPECT_TRUE(flat->converged);
  EXPECT_NE(flat->detail.find("no region's impact exceeds 0.05"),
            std::string::npos);
}

TEST(Summary, NothingSignificantSaysRunLonger) {
  profile::Profile p = testing::causal_profile();
  // Only the noise line and the short one are left.
  std::erase_if(p.experiments, [](const profile::Experiment& e) {
    return e.function == "hash_bytes";
  });
  experiments::Analysis a = experiments::analyze(p);
  std::vector<std::string> lines =
      summary_sentences(summarize(a, std::nullopt), SourcePaths());
  ASSERT_FALSE(lines.empty());
  const std::string& req = lines.back();
  // One point left, so no point name in front.
  EXPECT_EQ(req.rfind("No region is significant yet (0 of 3); the best "
                      "estimate so far: ",
                      0),
            0u)
      << req;
  EXPECT_NE(req.find("run longer"), std::string::npos) << req;
}

// A significant negative impact ranks first when nothing else is
// significant (seen on zstd on a loaded machine): it is no "top region".
TEST(Summary, ASignificantNegativeImpactIsNoAnswer) {
  experiments::Analysis a;
  a.points.push_back({"chunk", profile::PointKind::kThroughput, 10, 10, 2, 1});
  experiments::LineImpact m;
  m.point = "chunk";
  m.file = "/p/a.c";
  m.line = 207;
  m.function = "f";
  m.fitted = true;
  m.slope = -5.24;
  m.ci_low = -9.25;
  m.ci_high = -1.24;
  m.significant = true;
  m.rank = 1;
  a.impacts.push_back(m);
  std::vector<std::string> lines =
      summary_sentences(summarize(a, std::nullopt), SourcePaths());
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0],
            "No region shows a significant gain yet; 1 of 1 has a significant "
            "negative impact (faster there, slower program), such as "
            "/p/a.c:207 in f, impact -5.24 [-9.25, -1.24]: run longer for a "
            "clear answer.");
}

TEST(Summary, FunctionRegionsAreNamedAsFunctions) {
  experiments::LineImpact m;
  m.file = "/p//src/a.c";
  m.function = "ZSTD_compressBlock_doubleFast_noDict_generic";
  m.granularity = "function";
  EXPECT_EQ(region_text(m, SourcePaths({"/p/src/a.c", "/p/lib/b.c"})),
            "function ZSTD_compressBlock_doubleFast_noDict_generic (src/a.c)");
  m.granularity = "line";
  m.line = 191;
  EXPECT_EQ(region_text(m, SourcePaths()),
            "/p/src/a.c:191 in ZSTD_compressBlock_doubleFast_noDict_generic");
}

}  // namespace
}  // namespace andweorc::report
