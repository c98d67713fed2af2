// merge_test.cc: merging profiles of one program.
#include "profile/merge.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "profile/profile_json.h"

namespace andweorc::profile {
namespace {

Experiment experiment(const std::string& file, int line, int pct,
                      const std::string& granularity = "line") {
  Experiment e;
  e.file = file;
  e.line = line;
  e.function = "f";
  e.granularity = granularity;
  e.speedup_pct = pct;
  e.duration_s = 0.5;
  e.points = {{"p", PointKind::kThroughput, 100, 0, 0, 0, 0}};
  return e;
}

Profile run(const std::string& exe, int pid, uint64_t hot_samples) {
  Profile p;
  p.run.command = {exe, "--fast"};
  p.run.start_time = pid == 1 ? "2024-05-02T00:00:00Z" : "2024-05-01T00:00:00Z";
  p.run.duration_s = 10;
  p.run.sampler = "perf";
  p.run.sample_period_ns = 1000000;
  p.settings.enabled = true;
  p.processes = {{pid, "/build/" + exe, true}};
  p.threads = 2;
  p.frames = {{"f", "/src/a.c", 3, "/build/" + exe, false, true},
              {"main", "/src/a.c", 9, "/build/" + exe, false, true}};
  p.stacks = {{{0, 1}, hot_samples}, {{1}, 10}};
  p.samples = hot_samples + 10;
  p.points = {{"p", PointKind::kThroughput, 1000, 0, 0}};
  p.warnings = {"same warning"};
  p.experiments = {experiment("/src/a.c", 3, 0),
                   experiment("/src/a.c", 3, 50 + pid)};
  return p;
}

TEST(Merge, CombinesExperimentsSamplesAndPoints) {
  Profile a = run("server", 1, 90);
  Profile b = run("server", 2, 40);
  // b lists its frames in another order: the merge goes by content.
  std::swap(b.frames[0], b.frames[1]);
  b.stacks = {{{1, 0}, 40}, {{0}, 10}};
  b.frames.push_back({"g", "/src/b.c", 1, "/build/server", false, true});
  b.stacks.push_back({{2, 0}, 5});
  b.samples += 5;
  MergeResult r = merge_profiles({{"a.json", &a}, {"b.json", &b}});
  ASSERT_TRUE(r.ok()) << r.error;
  const Profile& m = *r.profile;
  // Experiments: the union, in input order.
  ASSERT_EQ(m.experiments.size(), 4u);
  EXPECT_EQ(m.experiments[1].speedup_pct, 51);
  EXPECT_EQ(m.experiments[3].speedup_pct, 52);
  // Frames deduplicated, identical stacks summed.
  EXPECT_EQ(m.frames.size(), 3u);
  ASSERT_EQ(m.stacks.size(), 3u);
  EXPECT_EQ(m.stacks[0].samples, 130u);
  EXPECT_EQ(m.stacks[1].samples, 20u);
  EXPECT_EQ(m.samples, 155u);
  EXPECT_EQ(m.threads, 4u);
  ASSERT_EQ(m.points.size(), 1u);
  EXPECT_EQ(m.points[0].visits, 2000u);
  EXPECT_EQ(m.processes.size(), 2u);
  EXPECT_DOUBLE_EQ(m.run.duration_s, 20);
  EXPECT_EQ(m.run.start_time, "2024-05-01T00:00:00Z");  // the earliest
  EXPECT_EQ(m.warnings,
            (std::vector<std::string>{
                "same warning", "merged from 2 profiles: a.json, b.json"}));
  // The result is a valid profile.
  ReadResult again = parse_profile(dump_profile(m), "m");
  ASSERT_TRUE(again.ok()) << again.error;
}

TEST(Merge, KeepsLabelsAndTheirStacksApart) {
  Profile a = run("server", 1, 90);
  a.labels = {{"endpoint", "search"}, {"endpoint", "put"}};
  a.stacks = {{{0, 1}, 60, {0}}, {{0, 1}, 30, {1}}, {{1}, 10}};
  Profile b = run("server", 2, 40);
  // b numbers its labels the other way round and adds one.
  b.labels = {{"endpoint", "put"}, {"tenant", "t1"}, {"endpoint", "search"}};
  b.stacks = {{{0, 1}, 25, {0, 1}}, {{0, 1}, 15, {2}}, {{1}, 10}};
  MergeResult r = merge_profiles({{"a.json", &a}, {"b.json", &b}});
  ASSERT_TRUE(r.ok()) << r.error;
  const Profile& m = *r.profile;
  ASSERT_EQ(m.labels.size(), 3u);
  auto samples_with = [&](const std::vector<Label>& want) {
    uint64_t n = 0;
    for (const Stack& s : m.stacks) {
      std::vector<Label> got;
      for (uint32_t l : s.labels) got.push_back(m.labels.at(l));
      if (got == want) n += s.samples;
    }
    return n;
  };
  EXPECT_EQ(samples_with({{"endpoint", "search"}}), 60u + 15u);
  EXPECT_EQ(samples_with({{"endpoint", "put"}}), 30u);
  EXPECT_EQ(samples_with({{"endpoint", "put"}, {"tenant", "t1"}}), 25u);
  EXPECT_EQ(samples_with({}), 20u);
  // Still a valid profile: it survives its own JSON round trip.
  ReadResult back = parse_profile(dump_profile(m), "merged");
  ASSERT_TRUE(back.ok()) << back.error;
  EXPECT_EQ(*back.profile, m);
}

TEST(Merge, NotesWhereInputsDiffer) {
  Profile a = run("server", 1, 90);
  Profile b = run("server", 2, 40);
  b.run.sampler = "timer";
  MergeResult r = merge_profiles({{"a", &a}, {"b", &b}});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.profile->run.sampler, "perf");
  EXPECT_NE(std::find(r.profile->warnings.begin(), r.profile->warnings.end(),
                      "the merged profiles differ in sampler; the first "
                      "one's is kept"),
            r.profile->warnings.end());
}

TEST(Merge, RefusesDifferentProgramsUnlessForced) {
  Profile a = run("server", 1, 90);
  Profile b = run("client", 2, 40);
  MergeResult r = merge_profiles({{"a.json", &a}, {"b.json", &b}});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error,
            "a.json and b.json are profiles of different programs (server "
            "and client); use --force to merge them anyway");
  r = merge_profiles({{"a.json", &a}, {"b.json", &b}}, {true});
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.profile->experiments.size(), 4u);
}

TEST(Merge, UnknownProgramMergesWithAnyone) {
  Profile a = run("server", 1, 90);
  Profile coz;  // e.g. imported from Coz: no command, no processes
  coz.experiments = {experiment("/src/a.c", 3, 20)};
  EXPECT_EQ(program_name(coz), "");
  MergeResult r = merge_profiles({{"a", &a}, {"profile.coz", &coz}});
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.profile->experiments.size(), 3u);
}

// --granularity adaptive runs lines until it has decided, then functions
// first: one profile holds both, and so may any set of runs of it.
TEST(Merge, KeepsEachExperimentsGranularity) {
  Profile a = run("server", 1, 90);
  Profile b = run("server", 2, 40);
  b.settings.coarse_to_fine = true;
  b.experiments.push_back(experiment("/src/a.c", 3, 40, "function"));
  MergeResult r = merge_profiles({{"a.json", &a}, {"b.json", &b}});
  ASSERT_TRUE(r.ok()) << r.error;
  std::vector<std::string> granularities;
  for (const Experiment& e : r.profile->experiments)
    granularities.push_back(e.granularity);
  std::vector<std::string> want(a.experiments.size() + b.experiments.size(),
                                "line");
  want.back() = "function";
  EXPECT_EQ(granularities, want);
  EXPECT_TRUE(r.profile->settings.coarse_to_fine);
  // The same inputs the other way round: still coarse to fine.
  r = merge_profiles({{"b.json", &b}, {"a.json", &a}});
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_TRUE(r.profile->settings.coarse_to_fine);
}

TEST(Merge, RefusesOverflowingCounts) {
  Profile a = run("server", 1, 90);
  Profile b = run("server", 2, 40);
  a.samples = UINT64_MAX;
  MergeResult r = merge_profiles({{"a", &a}, {"b", &b}});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error, "the merged sample or thread counts overflow");
}

}  // namespace
}  // namespace andweorc::profile
