// impact_json_test.cc: the JSON report's lines, the HTML page's lines and
// the page's summary name a region with the same keys and values.
#include "report/impact_json.h"

#include <gtest/gtest.h>

#include <cmath>
#include <iterator>
#include <string>

#include "causal_fixtures.h"
#include "experiments/analysis.h"
#include "report/html_data.h"
#include "report/json_report.h"

namespace andweorc::report {
namespace {

using OJson = nlohmann::ordered_json;

// The keys impact_json writes for every format, in its order.
const char* const kShared[] = {
    "rank",        "file",    "file_display", "line",        "function",
    "granularity", "verdict", "verdict_text", "significant", "impact",
    "ci_low",      "ci_high", "places"};

void expect_same_region(const OJson& a, const OJson& b) {
  for (const char* key : kShared) {
    ASSERT_TRUE(a.contains(key)) << key << " missing in " << a.dump();
    ASSERT_TRUE(b.contains(key)) << key << " missing in " << b.dump();
    EXPECT_EQ(a[key], b[key]) << key;
  }
}

TEST(ImpactJson, ReportPageAndSummaryAgreeOnEveryRegion) {
  profile::Profile p = testing::causal_profile();
  experiments::Analysis a = experiments::analyze(p);
  OJson json = analysis_to_json(a);
  OJson page = html_data(p, a, HtmlOptions{.read_sources = false});
  ASSERT_EQ(json["points"].size(), page["causal"]["points"].size());
  size_t compared = 0;
  for (size_t i = 0; i < json["points"].size(); ++i) {
    const OJson& jl = json["points"][i]["lines"];
    const OJson& hl = page["causal"]["points"][i]["lines"];
    ASSERT_EQ(jl.size(), hl.size());
    for (size_t k = 0; k < jl.size(); ++k, ++compared) {
      expect_same_region(jl[k], hl[k]);
      EXPECT_EQ(jl[k]["predictions"], hl[k]["predictions"]);
    }
    const OJson& top = page["summary"]["points"][i]["top"];
    if (!top.is_null()) expect_same_region(jl[0], top);
  }
  EXPECT_GT(compared, 3u);
}

TEST(ImpactJson, KeysComeInOneOrderAndThePageAddsItsTwo) {
  profile::Profile p = testing::causal_profile();
  experiments::Analysis a = experiments::analyze(p);
  ASSERT_FALSE(a.impacts.empty());
  const experiments::LineImpact& m = a.impacts[0];
  SourcePaths paths({m.file}, {});
  OJson report = impact_json(m, paths, ImpactFields::kReport);
  size_t i = 0;
  for (auto it = report.begin(); i < std::size(kShared); ++it, ++i) {
    EXPECT_EQ(it.key(), kShared[i]);
  }
  EXPECT_TRUE(report.contains("predictions"));
  OJson line = impact_json(m, paths, ImpactFields::kPageLine);
  EXPECT_EQ(line.size(), report.size() + 2);
  EXPECT_EQ(line["file_path"], normalize_path(m.file));
  EXPECT_TRUE(line.contains("function_short"));
  OJson summary = impact_json(m, paths, ImpactFields::kPageSummary);
  EXPECT_EQ(summary.size(), std::size(kShared) + 2);
}

TEST(ImpactJson, QValuesAndThePlausibilityVerdictAreWritten) {
  experiments::LineImpact m;
  m.fitted = true;
  m.slope = -30;
  m.ci_low = -40;
  m.ci_high = -20;
  m.verdict = experiments::Verdict::kImplausible;
  m.p_value = 0.001;
  m.q_value = 0.004;
  m.plausibility_judged = true;
  m.plausible_low = -0.02;
  m.plausible_high = 0.005;
  m.implausible = true;
  SourcePaths paths({"a.c"}, {});
  OJson j = impact_json(m, paths, ImpactFields::kReport);
  EXPECT_EQ(j["verdict"], "implausible");
  EXPECT_EQ(j["q_value"], 0.004);
  EXPECT_EQ(j["p_value"], 0.001);
  EXPECT_TRUE(j["fcr_low"].is_null());  // not significant
  EXPECT_EQ(j["plausible_low"], -0.02);
  EXPECT_EQ(j["plausible_high"], 0.005);
  EXPECT_EQ(j["implausible"], true);
  // A line that was not tested has no q-value, not a default of 1.
  m.verdict = experiments::Verdict::kNotEnoughData;
  m.plausibility_judged = false;
  m.implausible = false;
  j = impact_json(m, paths, ImpactFields::kReport);
  EXPECT_TRUE(j["q_value"].is_null());
  EXPECT_TRUE(j["p_value"].is_null());
  EXPECT_TRUE(j["plausible_high"].is_null());
  EXPECT_EQ(j["implausible"], false);
}

TEST(ImpactJson, UnfittedAndNonFiniteValuesAreNull) {
  EXPECT_TRUE(number_or_null(false, 1.0).is_null());
  EXPECT_TRUE(number_or_null(true, std::nan("")).is_null());
  EXPECT_EQ(number_or_null(true, 0.5), 0.5);
}

}  // namespace
}  // namespace andweorc::report
