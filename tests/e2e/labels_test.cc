// labels_test.cc: the label_server example profiled end to end. Three
// endpoints share one worker pool; each endpoint's work is in its own
// function, so a correct attribution puts (almost) all of a label's samples
// in that function: in the profile, and in the pprof export read back.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>

#include "../report/pprof_check.h"
#include "profile/label_view.h"
#include "profile/profile_json.h"
#include "run_helpers.h"

namespace andweorc::testing {
namespace {

const std::map<std::string, std::string> kWorkOf = {{"search", "search_work"},
                                                    {"index", "index_work"},
                                                    {"stats", "stats_work"}};

class Labels : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override { dir_ = temp_dir(); }
  void TearDown() override { std::system(("rm -rf " + dir_).c_str()); }
  std::string path(const std::string& name) const { return dir_ + "/" + name; }
  RunResult report(std::vector<std::string> args) {
    args.insert(args.begin(), {ANDWEORC_BIN, "report", path("p.json")});
    return run_command(args);
  }
  std::string dir_;
};

// Leaf function -> samples of one (filtered) profile.
std::map<std::string, uint64_t> leaf_functions(const profile::Profile& p) {
  std::map<std::string, uint64_t> out;
  for (const auto& s : p.stacks)
    out[s.frames.empty() ? "" : p.frames[s.frames[0]].function] += s.samples;
  return out;
}

TEST_P(Labels, EachEndpointsSamplesAreInItsOwnFunction) {
  // 3 s, 3 workers on the machine's cores: a few thousand samples.
  RunResult r = run_command({ANDWEORC_BIN, "run", "--no-experiments",
                             "--sampler", GetParam(), "-q", "-o",
                             path("p.json"), "--", LABEL_SERVER, "3", "3"});
  ASSERT_EQ(r.status, 0) << r.err;
  unsigned long long sent = 0;
  ASSERT_EQ(std::sscanf(r.out.c_str(), "sent %llu", &sent), 1) << r.out;
  profile::ReadResult read = profile::read_profile(path("p.json"));
  ASSERT_TRUE(read.ok()) << read.error;
  const profile::Profile& p = *read.profile;
  ASSERT_GT(p.samples, 300u);

  // Request work runs under labels: (nearly) every sample whose leaf is an
  // endpoint's work function carries a label. Not "80% of all samples":
  // the rest is the program's queue hand-off (futex wake and wait outside
  // any label), 15-19% of the samples on a quiet machine and more under
  // load, which failed a CI run at 79.7% with every work sample labelled.
  uint64_t work = 0, work_labelled = 0;
  for (const auto& st : p.stacks) {
    if (st.frames.empty()) continue;
    bool is_work = false;
    for (const auto& [endpoint, function] : kWorkOf)
      is_work = is_work || p.frames[st.frames[0]].function == function;
    if (!is_work) continue;
    work += st.samples;
    if (!st.labels.empty()) work_labelled += st.samples;
  }
  ASSERT_GT(work, 0.5 * double(p.samples)) << "the program is mostly work";
  EXPECT_GE(double(work_labelled), 0.98 * double(work));
  uint64_t requests = 0;
  for (const auto& [endpoint, function] : kWorkOf) {
    profile::Profile only = profile::filter_by_label(p, {"endpoint", endpoint});
    ASSERT_GT(only.samples, 20u) << endpoint;
    auto leaves = leaf_functions(only);
    EXPECT_GE(double(leaves[function]), 0.9 * double(only.samples))
        << endpoint << ": " << leaves[function] << " of " << only.samples
        << " samples in " << function;
    // The batch label is applied outside the endpoint one: nested labels
    // are both on the sample.
    uint64_t nested = 0;
    for (const auto& s : only.stacks)
      if (profile::stack_label(p, s, "batch")) nested += s.samples;
    EXPECT_GE(double(nested), 0.9 * double(only.samples)) << endpoint;
    // The labelled progress point counted exactly this endpoint's requests.
    bool found = false;
    for (const auto& pt : p.points) {
      if (pt.name == "requests{endpoint=" + endpoint + "}") {
        found = true;
        requests += pt.visits;
        EXPECT_GT(pt.visits, 0u);
      }
    }
    EXPECT_TRUE(found) << endpoint;
  }
  EXPECT_EQ(requests, sent);  // every request counted once, under its label

  // The same separation in the pprof export, read back independently.
  RunResult exp = report({"--format", "pprof", "-o", path("p.pb.gz")});
  ASSERT_EQ(exp.status, 0) << exp.err;
  PprofSummary s = check_pprof(read_file(path("p.pb.gz")));
  ASSERT_EQ(s.error, "");
  EXPECT_EQ(uint64_t(s.samples), p.samples);
  for (const auto& [endpoint, function] : kWorkOf) {
    const auto& leaves = s.label_leaf_samples["endpoint=" + endpoint];
    int64_t total = 0;
    for (const auto& [fn, n] : leaves) total += n;
    ASSERT_GT(total, 20) << endpoint;
    auto it = leaves.find(function);
    int64_t in_f = it == leaves.end() ? 0 : it->second;
    EXPECT_GE(double(in_f), 0.9 * double(total))
        << "pprof, endpoint=" << endpoint;
  }

  // The label views of the CLI.
  RunResult only = report({"--label", "endpoint=index", "-n", "3"});
  ASSERT_EQ(only.status, 0) << only.err;
  size_t functions = only.out.find("Top functions:");
  ASSERT_NE(functions, std::string::npos) << only.out;
  EXPECT_NE(only.out.find("index_work", functions), std::string::npos);
  EXPECT_EQ(only.out.find("search_work", functions), std::string::npos);
  RunResult grouped = report({"--group-by", "endpoint"});
  ASSERT_EQ(grouped.status, 0) << grouped.err;
  for (const auto& [endpoint, function] : kWorkOf)
    EXPECT_NE(grouped.out.find("== endpoint=" + endpoint + ":"),
              std::string::npos);
  EXPECT_NE(grouped.out.find("carried a label"), std::string::npos);
  RunResult folded = report({"--format", "folded"});
  ASSERT_EQ(folded.status, 0);
  EXPECT_NE(folded.out.find("[label endpoint=search];"), std::string::npos);
  RunResult speedscope = report({"--format", "speedscope"});
  ASSERT_EQ(speedscope.status, 0);
  EXPECT_NE(speedscope.out.find("\"name\":\"endpoint=stats\""),
            std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(Samplers, Labels, ::testing::Values("perf", "timer"));

TEST(LabelsCli, BadOptionsAreUsageErrors) {
  // Each is rejected, with its own message, before the file is read.
  std::string p = "/nonexistent/profile.json";
  RunResult bad_label =
      run_command({ANDWEORC_BIN, "report", p, "--label", "novalue"});
  EXPECT_EQ(bad_label.status, 2);
  EXPECT_NE(bad_label.err.find("--label must be KEY=VALUE"), std::string::npos)
      << bad_label.err;
  RunResult pprof_stdout =
      run_command({ANDWEORC_BIN, "report", p, "--format", "pprof"});
  EXPECT_EQ(pprof_stdout.status, 2);
  EXPECT_NE(pprof_stdout.err.find("give -o FILE"), std::string::npos)
      << pprof_stdout.err;
  RunResult group_folded = run_command(
      {ANDWEORC_BIN, "report", p, "--format", "folded", "--group-by", "k"});
  EXPECT_EQ(group_folded.status, 2);
  EXPECT_NE(group_folded.err.find("--group-by works with --format text"),
            std::string::npos)
      << group_folded.err;
}

}  // namespace
}  // namespace andweorc::testing
