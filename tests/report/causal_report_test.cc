// causal_report_test.cc: the causal section of the text report (golden
// files in tests/report/golden/, regenerated with ANDWEORC_UPDATE_GOLDEN=1).
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>

#include "causal_fixtures.h"
#include "report/display.h"
#include "report/text_report.h"
#include "support/golden.h"

namespace andweorc::report {
namespace {

std::string render(const profile::Profile& p, TextOptions options = {}) {
  std::ostringstream out;
  write_text(p, out, options);
  return out.str();
}

using ::andweorc::testing::expect_golden;

TEST(CausalReportGolden, Experiments) {
  expect_golden("causal.txt", render(testing::causal_profile(), {.top = 5}));
}

TEST(CausalReportGolden, ExperimentsAt60ColumnsTop2) {
  expect_golden("causal_60.txt",
                render(testing::causal_profile(), {.top = 2, .width = 60}));
}

TEST(CausalReportGolden, AskedForButNoneRan) {
  profile::Profile p = testing::causal_profile();
  p.experiments.clear();
  expect_golden("causal_none.txt", render(p));
}

TEST(CausalReport, SectionComesBeforeTheSamplingTables) {
  std::string text = render(testing::causal_profile());
  size_t causal = text.find("Causal profile (16 experiments):");
  size_t lines = text.find("Top lines");
  ASSERT_NE(causal, std::string::npos);
  ASSERT_NE(lines, std::string::npos);
  EXPECT_LT(causal, lines);
  EXPECT_LT(text.find("Progress points:"), causal);
}

TEST(CausalReport, SamplingOnlyRunHasNoSection) {
  profile::Profile p = testing::causal_profile();
  p.experiments.clear();
  p.settings = {};
  EXPECT_EQ(render(p).find("Causal profile"), std::string::npos);
}

TEST(CausalReport, PlainWordsAndPredictions) {
  std::string text = render(testing::causal_profile(), {.top = 0});
  EXPECT_NE(text.find("not enough data: run longer"), std::string::npos);
  EXPECT_NE(text.find("not significant"), std::string::npos);
  EXPECT_NE(text.find("no samples in scope"), std::string::npos);
  EXPECT_NE(text.find("progress point never reached"), std::string::npos);
  EXPECT_NE(text.find("predicted program speed-up if the line is faster by"),
            std::string::npos);
  EXPECT_NE(text.find("predicted latency change if the line is faster by"),
            std::string::npos);
  EXPECT_NE(text.find("Lines are ranked by impact"), std::string::npos);
}

TEST(CausalReport, LinesNeverExceedWidth) {
  for (size_t width : {60u, 80u, 100u, 140u}) {
    for (bool color : {false, true}) {
      std::istringstream in(render(testing::causal_profile(),
                                   {.top = 0, .color = color, .width = width}));
      std::string line;
      while (std::getline(in, line)) {
        if (color) continue;  // escapes take no columns but count here
        EXPECT_LE(display_width(line), width) << line;
        EXPECT_TRUE(line.empty() || line.back() != ' ') << "[" << line << "]";
      }
    }
  }
}

}  // namespace
}  // namespace andweorc::report
