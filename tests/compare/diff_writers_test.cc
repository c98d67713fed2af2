// diff_writers_test.cc: golden files for the text, markdown and JSON diff,
// plus targeted checks.
//
// Golden files are in tests/compare/golden/. To regenerate after an intended
// change: ANDWEORC_UPDATE_GOLDEN=1 ./compare_test, then review the diff.
#include "compare/diff_writers.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "compare/diff_format.h"
#include "diff_fixtures.h"
#include "support/golden.h"

namespace andweorc::compare {
namespace {

using ::andweorc::testing::expect_golden;

struct Fixture {
  SourceText base_source, new_source;
  ProfileDiff diff;
  DiffReport report;
  Fixture() {
    testing::base_sources(&base_source);
    testing::new_sources(&new_source);
    DiffOptions o;
    o.base_source = &base_source;
    o.new_source = &new_source;
    diff = diff_profiles(testing::base_profile(), testing::new_profile(), o);
    std::string error;
    report.base_name = "main.json";
    report.new_name = "pr.json";
    report.diff = &diff;
    report.rules = *parse_fail_rules({"new-bottleneck,slowdown=5"}, &error);
    report.findings = evaluate_fail_rules(diff, report.rules);
  }
};

TEST(DiffWritersGolden, Text) {
  Fixture f;
  std::ostringstream out;
  write_diff_text(f.report, out);
  expect_golden("diff.txt", out.str());
}

TEST(DiffWritersGolden, Markdown) {
  Fixture f;
  std::ostringstream out;
  write_diff_markdown(f.report, out);
  expect_golden("diff.md", out.str());
}

TEST(DiffWritersGolden, Json) {
  Fixture f;
  std::ostringstream out;
  write_diff_json(f.report, out);
  expect_golden("diff.json", out.str());
}

TEST(DiffWriters, JsonIsParseableAndComplete) {
  Fixture f;
  std::ostringstream out;
  write_diff_json(f.report, out);
  auto j = nlohmann::json::parse(out.str());
  EXPECT_EQ(j["format"], "andweorc-diff");
  EXPECT_EQ(j["version"], "1.1");
  EXPECT_EQ(j["regression"], true);
  ASSERT_EQ(j["points"].size(), 1u);
  const auto& lines = j["points"][0]["lines"];
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0]["status"], "new-bottleneck");
  EXPECT_EQ(lines[0]["new"]["function"], "lookup");
  EXPECT_EQ(lines[1]["status"], "vanished-bottleneck");
  EXPECT_EQ(lines[1]["match"], "source");
  EXPECT_EQ(lines[1]["base"]["line"], 17);
  EXPECT_EQ(lines[1]["new"]["line"], 20);
  EXPECT_TRUE(lines[2]["base"].is_null());
  EXPECT_TRUE(lines[2]["change"].is_null());
  EXPECT_EQ(j["line_shares"].size(), 3u);
  EXPECT_EQ(j["findings"].size(), 1u);
  EXPECT_EQ(j["correction"], "benjamini-hochberg");
  EXPECT_EQ(j["tests"], 3);  // two line changes and the point's speed
  EXPECT_EQ(lines[0]["change"]["q"].is_number(), true);
  EXPECT_EQ(lines[0]["new"]["label"], "table.c:91 lookup");
  EXPECT_FALSE(j["points"][0]["speed_change"].is_null());
  EXPECT_EQ(j["points"][0]["costs"][0]["function"], "lookup");
}

TEST(DiffWriters, MarkdownCellsCannotBreakTheTable) {
  Fixture f;
  for (auto& p : f.diff.points) {
    for (auto& c : p.lines) {
      if (c.next) c.next->function = "operator|<script>`x`";
    }
  }
  std::ostringstream out;
  write_diff_markdown(f.report, out);
  std::string md = out.str();
  // Inside a code span, '<' is shown as is; '|' and '`' would end the cell
  // or the span.
  EXPECT_NE(md.find("`operator\\|<script>'x'`"), std::string::npos) << md;
}

TEST(DiffWriters, TextListsEveryNotableLineButOnlyTopOthers) {
  Fixture f;
  f.report.top = 0;
  std::ostringstream out;
  write_diff_text(f.report, out);
  std::string text = out.str();
  EXPECT_NE(text.find("NEW bottleneck"), std::string::npos);
  EXPECT_NE(text.find("bottleneck gone"), std::string::npos);
  EXPECT_NE(text.find("(1 more lines)"), std::string::npos);
  EXPECT_NE(text.find("REGRESSION"), std::string::npos);
}

// Runs with stalls in some experiments: the pooled periods say 10% slower
// while the test (geometric means of the runs' 0% experiments) says 9%
// faster. The headline shows the tested figures, so the two agree.
TEST(DiffWriters, PointHeadlineShowsTheFiguresItTested) {
  PointChange p;
  p.name = "rows";
  p.in_base = p.in_new = true;
  p.base_baseline = 2.140e-6;
  p.new_baseline = 2.354e-6;
  p.speedup = (p.base_baseline - p.new_baseline) / p.base_baseline;
  p.base_speed = SideSpeed{std::log(2.5e-6), 0.01, 6, 4, 40, true};
  p.new_speed = SideSpeed{std::log(2.2775e-6), 0.01, 6, 4, 40, true};
  SpeedChange c;
  c.delta = p.new_speed->log_mean - p.base_speed->log_mean;
  c.slower_pct = 100 * (std::exp(c.delta) - 1);
  c.low_pct = -40;
  c.high_pct = 45;
  p.speed_change = c;
  std::string text = format::point_speed(p);
  EXPECT_EQ(text.rfind("2.500 us -> 2.277 us per visit (8.9% faster); change "
                       "-8.9% time [-40.0%, +45.0%]",
                       0),
            0u)
      << text;
  // Without a test (no 0% experiments to test), the pooled figures.
  p.speed_change.reset();
  EXPECT_EQ(format::point_speed(p),
            "2.140 us -> 2.354 us per visit (10.0% slower)");
}

}  // namespace
}  // namespace andweorc::compare
