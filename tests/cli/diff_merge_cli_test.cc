// diff_merge_cli_test.cc: `andweorc diff`, `merge` and `report` as CI
// sees them: exit statuses, one-line errors, output files.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>

#include "../compare/diff_fixtures.h"
#include "profile/profile_json.h"

namespace {

namespace fs = std::filesystem;
using andweorc::profile::Profile;

struct Result {
  int status = -1;
  std::string out, err;
};

class CliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "andweorc-cli-XXXXXX");
    ASSERT_TRUE(mkdtemp(tmpl.data()));
    dir_ = tmpl;
    write("base.json", andweorc::compare::testing::base_profile());
    write("new.json", andweorc::compare::testing::new_profile());
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string path(const std::string& name) { return (dir_ / name).string(); }

  void write(const std::string& name, const Profile& p) {
    std::string error;
    ASSERT_TRUE(andweorc::profile::write_profile(p, path(name), &error))
        << error;
  }

  static std::string slurp(const std::string& p) {
    std::ifstream in(p, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }

  // Runs the tool with `args` (already shell-quoted where needed).
  Result run(const std::string& args) {
    std::string cmd = std::string(ANDWEORC_CLI) + " " + args + " >" +
                      path("stdout") + " 2>" + path("stderr");
    int raw = std::system(cmd.c_str());
    Result r;
    r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
    r.out = slurp(path("stdout"));
    r.err = slurp(path("stderr"));
    return r;
  }

  fs::path dir_;
};

TEST_F(CliTest, DiffExitStatusFollowsFailOn) {
  std::string both = path("base.json") + " " + path("new.json");
  Result r = run("diff " + both);
  EXPECT_EQ(r.status, 0) << r.err;  // no rules: information only
  EXPECT_NE(r.out.find("bottleneck gone"), std::string::npos) << r.out;
  r = run("diff " + both + " --fail-on new-bottleneck");
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_NE(r.out.find("REGRESSION"), std::string::npos);
  r = run("diff " + both + " --fail-on slowdown=5 --fail-on impact-increase=9");
  EXPECT_EQ(r.status, 0) << r.err;
  r = run("diff --fail-on new-bottleneck " + both);  // option first
  EXPECT_EQ(r.status, 1) << r.err;
  // The same profile against itself never regresses.
  r = run("diff " + path("base.json") + " " + path("base.json") +
          " --fail-on new-bottleneck,impact-increase=0,share-increase=0");
  EXPECT_EQ(r.status, 0) << r.out;
}

TEST_F(CliTest, DiffSeveralRunsPerSide) {
  Profile other = andweorc::compare::testing::base_profile();
  for (auto& e : other.experiments) e.duration_s *= 1.01;  // another run
  other.samples = 1020;  // with a little more CPU time
  write("base2.json", other);
  std::string base = path("base.json") + " " + path("base2.json");
  std::string next = path("new.json") + " " + path("new.json");
  // Options may come after the runs of NEW, too.
  Result r = run("diff " + base + " -- " + next +
                 " --fail-on new-bottleneck --format json");
  EXPECT_EQ(r.status, 1) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["base"]["files"].size(), 2u);
  EXPECT_EQ(j["new"]["files"].size(), 2u);
  EXPECT_EQ(j["points"][0]["speed_change"]["base_runs"], 2);
  EXPECT_FALSE(j["points"][0]["cpu_change"].is_null());
  // Runs of one program against themselves: no alarm.
  r = run("diff " + base + " -- " + base +
          " --fail-on new-bottleneck,slowdown=5,cpu-slowdown=5");
  EXPECT_EQ(r.status, 0) << r.out;
  // One side empty, or two separators: usage errors.
  r = run("diff " + base + " --");
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err,
            "andweorc: diff A1 A2 ... -- B1 B2 ...: one '--' with at least "
            "one profile on each side\n");
  r = run("diff -- " + next);
  EXPECT_EQ(r.status, 2);
  r = run("diff " + base + " -- " + next + " -- " + base);
  EXPECT_EQ(r.status, 2);
  // Without '--', exactly two profiles.
  r = run("diff " + base + " " + path("new.json"));
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("BASE and NEW"), std::string::npos) << r.err;
}

TEST_F(CliTest, DiffFormatsAndOutputFile) {
  std::string both = path("base.json") + " " + path("new.json");
  Result r = run("diff " + both + " --format json -o " + path("d.json"));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "");
  auto j = nlohmann::json::parse(slurp(path("d.json")));
  EXPECT_EQ(j["format"], "andweorc-diff");
  EXPECT_EQ(j["points"][0]["lines"][0]["status"], "new-bottleneck");
  r = run("diff " + both + " --format markdown");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out.rfind("### andweorc diff:", 0), 0u) << r.out;
}

TEST_F(CliTest, DiffUsageAndInputErrorsExitTwoWithOneLine) {
  std::string both = path("base.json") + " " + path("new.json");
  Result r = run("diff " + both + " --fail-on nonsense");
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err,
            "andweorc: unknown --fail-on rule 'nonsense' (expected "
            "new-bottleneck, impact-increase=X, share-increase=PP, "
            "slowdown=PCT, cpu-slowdown=PCT or region-slowdown=PCT)\n");
  r = run("diff " + path("base.json") + " " + path("missing.json"));
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err, "andweorc: cannot read " + path("missing.json") +
                       ": No such file or directory\n");
  std::string text = slurp(path("new.json"));
  std::ofstream(path("cut.json")) << text.substr(0, text.size() / 2);
  r = run("diff " + path("base.json") + " " + path("cut.json"));
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err.rfind("andweorc: " + path("cut.json") + ": ", 0), 0u)
      << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1);
  std::ofstream(path("cut.coz")) << "startup\ttime=1\nexperiment\tselected=a";
  r = run("report " + path("cut.coz"));
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(
      r.err,
      "andweorc: " + path("cut.coz") +
          ": line 2: 'selected' must be FILE:LINE, not 'a' (the file looks "
          "truncated)\n");
  r = run("diff " + path("base.json"));
  EXPECT_EQ(r.status, 2);
}

TEST_F(CliTest, MergeWritesTheUnionAndRefusesOtherPrograms) {
  Result r = run("merge " + path("base.json") + " " + path("new.json") +
                 " -o " + path("all.json"));
  ASSERT_EQ(r.status, 0) << r.err;
  auto merged = andweorc::profile::read_profile(path("all.json"));
  ASSERT_TRUE(merged.ok()) << merged.error;
  EXPECT_EQ(merged.profile->experiments.size(),
            andweorc::compare::testing::base_profile().experiments.size() +
                andweorc::compare::testing::new_profile().experiments.size());

  Profile other = andweorc::compare::testing::base_profile();
  other.processes[0].executable = "/build/client";
  other.run.command = {"./client"};
  write("client.json", other);
  r = run("merge " + path("base.json") + " " + path("client.json") + " -o " +
          path("bad.json"));
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err, "andweorc: " + path("base.json") + " and " +
                       path("client.json") +
                       " are profiles of different programs (server and "
                       "client); use --force to merge them anyway\n");
  EXPECT_FALSE(fs::exists(path("bad.json")));
  r = run("merge --force " + path("base.json") + " " + path("client.json") +
          " -o " + path("forced.json"));
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(fs::exists(path("forced.json")));
  r = run("merge " + path("base.json"));  // no -o
  EXPECT_EQ(r.status, 2);
}

TEST_F(CliTest, CozFilesAreAcceptedEverywhere) {
  std::ofstream(path("p.txt"))
      << "experiment\tselected=/src/hash.c:17\tspeedup=0.00\tduration=500000000"
         "\n"
         "throughput-point\tname=requests\tdelta=1000\n"
         "samples\tlocation=/src/hash.c:17\tcount=5\n";
  Result r = run("report " + path("p.txt"));
  EXPECT_EQ(r.status, 0) << r.err;
  r = run("diff " + path("p.txt") + " " + path("base.json"));
  EXPECT_EQ(r.status, 0) << r.err;
  r = run("merge " + path("p.txt") + " " + path("base.json") + " -o " +
          path("m.json"));
  EXPECT_EQ(r.status, 0) << r.err;
}

}  // namespace
