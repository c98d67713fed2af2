// live_run_test.cc: `andweorc run --live-json` on a bundled example
// (examples/pipeline): every line is one JSON object of the documented
// schema, the ranking appears while the program runs, and the final line
// is the written profile's answer (its experiments, its ranking as
// `andweorc report -f json` computes it).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "e2e/run_helpers.h"

namespace andweorc {
namespace {

using nlohmann::json;
using testing::run_command;
using testing::temp_dir;

class LiveRun : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = temp_dir(); }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string dir_;
};

std::vector<json> read_lines(const std::string& path) {
  std::ifstream in(path);
  std::vector<json> out;
  std::string line;
  while (std::getline(in, line)) out.push_back(json::parse(line));
  return out;
}

TEST_F(LiveRun, JsonLinesFollowTheRunAndEndWithTheProfilesAnswer) {
  std::string stream = dir_ + "/live.jsonl", prof = dir_ + "/profile.json";
  // 2.5 s: time for several one-per-second updates and a few dozen
  // experiments (pipeline runs about 15 a second here).
  auto r = run_command({ANDWEORC_BIN, "run", "-q", "--max-time", "2500ms",
                        "--live-json", stream, "-o", prof, "--", PIPELINE,
                        "items", "1000000000"});
  ASSERT_EQ(r.status, 0) << r.err;
  std::vector<json> lines;
  ASSERT_NO_THROW(lines = read_lines(stream));
  ASSERT_GE(lines.size(), 3u);
  double last_time = -1;
  size_t last_experiments = 0;
  bool ranked_while_running = false;
  for (size_t i = 0; i < lines.size(); ++i) {
    const json& l = lines[i];
    for (const char* key :
         {"schema", "kind", "time_s", "experiments", "experiments_per_s",
          "convergence", "ranking", "points", "dropped"})
      EXPECT_TRUE(l.contains(key)) << "line " << i << " lacks " << key;
    EXPECT_EQ(l["schema"], 1);
    EXPECT_EQ(l["kind"], i + 1 == lines.size() ? "final" : "update");
    EXPECT_GT(l["time_s"].get<double>(), last_time);
    last_time = l["time_s"];
    EXPECT_GE(l["experiments"].get<size_t>(), last_experiments);
    last_experiments = l["experiments"];
    EXPECT_EQ(l["dropped"], 0);  // a file never makes the stream drop
    if (l["kind"] == "update")
      for (const json& p : l["ranking"]["points"])
        ranked_while_running = ranked_while_running || !p["lines"].empty();
  }
  EXPECT_TRUE(ranked_while_running);
  // The progress point's rate is seen while the program runs.
  const json& before_end = lines[lines.size() - 2];
  ASSERT_FALSE(before_end["points"].empty());
  EXPECT_EQ(before_end["points"][0]["name"], "item_written");
  EXPECT_GT(before_end["points"][0]["rate"].get<double>(), 0);

  const json& final = lines.back();
  std::ifstream in(prof);
  json written = json::parse(in);
  EXPECT_EQ(final["experiments"], written["experiments"].size());
  EXPECT_EQ(final["points"][0]["total"], written["points"][0]["visits"]);
  auto report = run_command({ANDWEORC_BIN, "report", "-f", "json", prof});
  ASSERT_EQ(report.status, 0) << report.err;
  EXPECT_EQ(final["ranking"], json::parse(report.out)["analysis"]);
}

TEST_F(LiveRun, ANonLoopbackAddressIsRefusedBeforeAnythingRuns) {
  std::string marker = dir_ + "/ran";
  auto r = run_command({ANDWEORC_BIN, "run", "--live=0.0.0.0:8080", "-o",
                        dir_ + "/p.json", "--", "/usr/bin/touch", marker});
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("loopback"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(marker));
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/p.json"));
}

}  // namespace
}  // namespace andweorc
