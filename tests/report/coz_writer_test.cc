// coz_writer_test.cc: Coz's profile.coz format: golden output, the record
// grammar Coz's viewer parses, skipped experiments, and appending.
#include "report/coz_writer.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "causal_fixtures.h"

namespace andweorc::report {
namespace {

std::string coz(const profile::Profile& p) {
  std::ostringstream out;
  write_coz(p, out);
  return out.str();
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)),
                     std::istreambuf_iterator<char>());
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  std::istringstream in(s);
  while (std::getline(in, cur, sep)) out.push_back(cur);
  return out;
}

TEST(CozWriter, Golden) {
  std::string actual = coz(testing::causal_profile());
  std::string path = std::string(ANDWEORC_GOLDEN_DIR) + "/causal.coz";
  const char* update = std::getenv("ANDWEORC_UPDATE_GOLDEN");
  if (update && std::string(update) == "1") {
    std::ofstream(path, std::ios::binary) << actual;
    return;
  }
  EXPECT_EQ(actual, slurp(path));
}

TEST(CozWriter, RecordsHaveCozFields) {
  // The fields Coz's runtime writes and its viewer reads, per record type.
  const std::map<std::string, std::vector<std::string>> fields = {
      {"startup", {"time"}},
      {"experiment", {"selected", "speedup", "duration", "selected-samples"}},
      {"throughput-point", {"name", "delta"}},
      {"latency-point", {"name", "arrivals", "departures", "difference"}},
      {"samples", {"location", "count"}},
      {"runtime", {"time"}},
  };
  std::istringstream in(coz(testing::causal_profile()));
  std::string line;
  std::map<std::string, int> seen;
  while (std::getline(in, line)) {
    std::vector<std::string> parts = split(line, '\t');
    ASSERT_FALSE(parts.empty());
    auto it = fields.find(parts[0]);
    ASSERT_NE(it, fields.end()) << line;
    ++seen[parts[0]];
    ASSERT_EQ(parts.size(), it->second.size() + 1) << line;
    for (size_t i = 0; i < it->second.size(); ++i) {
      EXPECT_EQ(parts[i + 1].rfind(it->second[i] + "=", 0), 0u) << line;
    }
  }
  EXPECT_EQ(seen["startup"], 1);
  EXPECT_EQ(seen["experiment"], 16);
  EXPECT_EQ(seen["throughput-point"], 16);
  EXPECT_EQ(seen["latency-point"], 6);
  EXPECT_EQ(seen["samples"], 3);
  EXPECT_EQ(seen["runtime"], 1);
}

TEST(CozWriter, ExperimentUsesVirtualDurationInNanoseconds) {
  profile::Profile p;
  p.experiments = {
      testing::exp("/s/a.c", 3, "f", 25, 0.5, 100)};  // 0.525 s - 0.025 s
  std::string text = coz(p);
  EXPECT_NE(text.find("experiment\tselected=/s/a.c:3\tspeedup=0.25\t"
                      "duration=500000000\tselected-samples=20\n"
                      "throughput-point\tname=requests\tdelta=100\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.rfind("startup\ttime=0\n", 0), 0u);  // no start_time
}

TEST(CozWriter, SkipsTimelessExperimentsAndCleansNames) {
  profile::Profile p;
  profile::Experiment bad = testing::exp("/s/a.c", 3, "f", 50, 0.5, 100);
  bad.delay_s = bad.duration_s + 1;
  profile::Experiment odd = testing::exp("/s/tab\there.c", 4, "f", 0, 1, 9);
  odd.points[0].name = "new\nline";
  odd.points.push_back(
      {"q", profile::PointKind::kLatency, 0, 4, 3, 2, -1});  // negative
  p.experiments = {bad, odd};
  std::string text = coz(p);
  EXPECT_EQ(text.find("speedup=0.50"), std::string::npos) << text;
  EXPECT_NE(text.find("selected=/s/tab here.c:4\tspeedup=0.00\t"
                      "duration=1000000000"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("throughput-point\tname=new line\tdelta=9\n"),
            std::string::npos);
  EXPECT_NE(text.find("latency-point\tname=q\tarrivals=4\tdepartures=3\t"
                      "difference=0\n"),
            std::string::npos);
}

TEST(CozWriter, AppendMergesRuns) {
  char tmpl[] = "/tmp/andweorc-coz-XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  std::string path = std::string(tmpl) + "/profile.coz";
  std::string error;
  profile::Profile p = testing::causal_profile();
  ASSERT_TRUE(append_coz_file(p, path, &error)) << error;
  ASSERT_TRUE(append_coz_file(p, path, &error)) << error;
  EXPECT_EQ(slurp(path), coz(p) + coz(p));
  unlink(path.c_str());
  rmdir(tmpl);

  EXPECT_FALSE(append_coz_file(p, "/nonexistent-dir/p.coz", &error));
  EXPECT_EQ(error,
            "cannot write /nonexistent-dir/p.coz: No such file or "
            "directory");
}

}  // namespace
}  // namespace andweorc::report
