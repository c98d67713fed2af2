// slow_calls_test.cc: the slow-vs-fast report of a traced function (text
// and the HTML report's data) on a profile whose slow calls spend their
// samples on a line the fast calls never reach.
#include "report/slow_calls.h"

#include <gtest/gtest.h>

#include <sstream>

#include "report/json_report.h"

namespace andweorc::report {
namespace {

profile::Profile slow_fast_profile() {
  profile::Profile p;
  p.frames = {profile::Frame{"slow_path()", "/s/a.cc", 10, "", false, true},
              profile::Frame{"fast_part()", "/s/a.cc", 20, "", false, true}};
  p.stacks = {profile::Stack{{0}, 9, {}}, profile::Stack{{1}, 21, {}}};
  p.samples = 30;
  profile::TracedFunction t;
  t.name = "handle";
  for (uint64_t i = 1; i <= 18; ++i) t.durations_ns.push_back(1000);
  t.durations_ns.push_back(9000);
  t.durations_ns.push_back(9000);
  // The two slow calls: 9 samples on line 10 and 2 on line 20; the fast
  // ones: 19 on line 20.
  t.samples = {profile::TraceSample{0, 9000, 9},
               profile::TraceSample{1, 1000, 19},
               profile::TraceSample{1, 9000, 2}};
  p.traces.push_back(t);
  return p;
}

TEST(SlowCalls, TextRanksTheSlowReasonFirstWithNoFastShare) {
  profile::Profile p = slow_fast_profile();
  std::ostringstream out;
  write_slow_calls_text(p, p.traces[0], 1000, "p90", 10, out);
  const std::string text = out.str();
  EXPECT_NE(text.find("2 of 20 calls, 11 samples"), std::string::npos) << text;
  size_t table = text.find("Lines: share of the slow");
  ASSERT_NE(table, std::string::npos) << text;
  size_t row = text.find('\n', text.find('\n', table) + 1) + 1;
  std::string first = text.substr(row, text.find('\n', row) - row);
  EXPECT_NE(first.find("a.cc:10"), std::string::npos) << text;
  EXPECT_NE(first.find("81.8%    0.0%   +81.8"), std::string::npos) << first;
}

TEST(SlowCalls, HtmlDataHasTheHistogramAndTheTable) {
  profile::Profile p = slow_fast_profile();
  nlohmann::ordered_json j = trace_html_json(p, 10);
  ASSERT_EQ(j.size(), 1u);
  EXPECT_EQ(j[0]["calls"], 20);
  EXPECT_EQ(j[0]["p95_ns"], 9000);
  EXPECT_EQ(j[0]["slow_threshold_ns"], 9000);
  EXPECT_EQ(j[0]["slow_calls"], 0);  // none slower than the p95 itself
  uint64_t calls = 0;
  for (const auto& c : j[0]["histogram"]["counts"]) calls += c.get<uint64_t>();
  EXPECT_EQ(calls, 20u);
  EXPECT_EQ(j[0]["histogram"]["bins_ns"].size(), 40u);
  EXPECT_EQ(j[0]["histogram"]["bins_ns"][0], 1000);
}

TEST(SlowCalls, JsonReportHasTheTraceSection) {
  profile::Profile p = slow_fast_profile();
  std::ostringstream out;
  JsonOptions options;
  options.include_analysis = true;
  write_json(p, out, options);
  auto j = nlohmann::json::parse(out.str());
  ASSERT_TRUE(j["analysis"].contains("traces")) << out.str();
  const auto& t = j["analysis"]["traces"][0];
  EXPECT_EQ(t["name"], "handle");
  EXPECT_EQ(t["calls"], 20);
  EXPECT_EQ(t["samples"], 30);
  EXPECT_EQ(t["p50_ns"], 1000);
  EXPECT_EQ(t["max_ns"], 9000);
  EXPECT_EQ(j["traces"][0]["durations_ns"].size(), 20u);  // the data too
}

}  // namespace
}  // namespace andweorc::report
