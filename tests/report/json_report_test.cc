// json_report_test.cc: the JSON writer emits the readable file format.
#include "report/json_report.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

#include "causal_fixtures.h"
#include "profile/profile_json.h"

namespace andweorc::report {
namespace {

profile::Profile sample() {
  profile::Profile p;
  p.run.command = {"./a"};
  p.run.sampler = "perf";
  p.samples = 3;
  p.frames = {{"main", "/src/a.c", 3, "/bin/a", false, true}};
  p.stacks = {{{0}, 3}};
  return p;
}

TEST(JsonReport, PrettyOutputIsTheProfileFile) {
  std::ostringstream out;
  write_json(sample(), out);
  EXPECT_EQ(out.str(), profile::dump_profile(sample()));
  profile::ReadResult r = profile::parse_profile(out.str());
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(*r.profile, sample());
}

TEST(JsonReport, CompactIsOneLine) {
  std::ostringstream out;
  write_json(sample(), out, JsonOptions{.pretty = false});
  std::string s = out.str();
  EXPECT_EQ(std::count(s.begin(), s.end(), '\n'), 1);
  EXPECT_EQ(s.back(), '\n');
  profile::ReadResult r = profile::parse_profile(s);
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(*r.profile, sample());
}

TEST(JsonReport, AnalysisSectionIsAddedAndIgnoredByTheReader) {
  profile::Profile p = testing::causal_profile();
  for (bool pretty : {true, false}) {
    std::ostringstream out;
    write_json(p, out, JsonOptions{.pretty = pretty, .include_analysis = true});
    std::string s = out.str();
    // The profile part is unchanged, so it reads back as the same Profile.
    profile::ReadResult r = profile::parse_profile(s);
    ASSERT_TRUE(r.ok()) << r.error;
    EXPECT_EQ(*r.profile, p);
    nlohmann::json j = nlohmann::json::parse(s);
    ASSERT_TRUE(j.contains("analysis"));
    const auto& a = j["analysis"];
    EXPECT_EQ(a["level"], 0.95);
    EXPECT_EQ(a["points"].size(), 2u);
    EXPECT_EQ(a["points"][0]["name"], "query");
    EXPECT_EQ(a["points"][1]["name"], "requests");
    const auto& top = a["points"][1]["lines"][0];
    EXPECT_EQ(top["rank"], 1);
    EXPECT_EQ(top["line"], 17);
    EXPECT_EQ(top["verdict"], "significant");
    EXPECT_EQ(top["predictions"].size(), 3u);
    EXPECT_EQ(top["predictions"][1]["line_speedup"], 0.25);
    EXPECT_TRUE(top["impact"].is_number());
    // "query" was never reached by table.c's experiments: no fit, so its
    // numbers are null.
    const auto& last = a["points"][0]["lines"].back();
    EXPECT_EQ(last["verdict"], "never_reached");
    EXPECT_TRUE(last["impact"].is_null());
    EXPECT_TRUE(last["predictions"][0]["value"].is_null());
    if (!pretty) {
      EXPECT_EQ(std::count(s.begin(), s.end(), '\n'), 1);
    }
  }
}

TEST(JsonReport, AnalysisOfAProfileWithoutExperiments) {
  nlohmann::ordered_json j = analysis_to_json(experiments::analyze(sample()));
  EXPECT_TRUE(j["points"].empty());
  EXPECT_EQ(j["notes"].size(), 1u);
  EXPECT_EQ(j["ranking_rule"].get<std::string>().rfind("Lines are ranked", 0),
            0u);
}

TEST(JsonReport, AnalysisShowsPathsNormalisedAndKeepsTheRecordedOnes) {
  profile::Profile p = testing::causal_profile();
  for (auto& e : p.experiments) {
    e.file = "/home/ci/zstd//programs/../lib/" +
             e.file.substr(e.file.rfind('/') + 1);
  }
  nlohmann::ordered_json j = analysis_to_json(experiments::analyze(p));
  EXPECT_EQ(j["source_roots"],
            nlohmann::ordered_json::array({"/home/ci/zstd/lib/"}));
  const auto& line = j["points"][1]["lines"][0];
  EXPECT_EQ(line["file"], "/home/ci/zstd//programs/../lib/hash.c");
  EXPECT_EQ(line["file_display"], "hash.c");
  nlohmann::ordered_json rooted =
      analysis_to_json(experiments::analyze(p), {"/home/ci/zstd"});
  EXPECT_EQ(rooted["points"][1]["lines"][0]["file_display"], "lib/hash.c");
}

}  // namespace
}  // namespace andweorc::report
