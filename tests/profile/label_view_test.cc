// label_view_test.cc: label selection and grouping, and labels in the JSON
// format (1.2 writes them; 1.1 files without them still read).
#include "profile/label_view.h"

#include <gtest/gtest.h>

#include "profile/profile_json.h"

namespace andweorc::profile {
namespace {

// Frames: 0 search, 1 index, 2 worker. Labels: 0 endpoint=search,
// 1 endpoint=index, 2 tenant=a.
Profile labelled() {
  Profile p;
  p.run.sample_period_ns = 1000000;
  p.frames = {{"search", "/s.cc", 3, "/bin/s", false, true},
              {"index", "/s.cc", 9, "/bin/s", false, true},
              {"worker", "/s.cc", 20, "/bin/s", false, true}};
  p.labels = {{"endpoint", "search"}, {"endpoint", "index"}, {"tenant", "a"}};
  p.stacks = {{{0, 2}, 30, {0, 2}},  // search inside tenant a
              {{0, 2}, 10, {0}},
              {{1, 2}, 20, {1, 2}},
              {{2}, 5, {}}};
  p.samples = 65;
  return p;
}

TEST(LabelView, ParsesSelectors) {
  EXPECT_EQ(parse_label_selector("endpoint=search"),
            (Label{"endpoint", "search"}));
  EXPECT_EQ(parse_label_selector("k="), (Label{"k", ""}));
  EXPECT_EQ(parse_label_selector("k=a=b"), (Label{"k", "a=b"}));
  EXPECT_FALSE(parse_label_selector("nokey"));
  EXPECT_FALSE(parse_label_selector("=value"));
}

TEST(LabelView, CountsLabelledSamplesAndPerLabel) {
  Profile p = labelled();
  EXPECT_EQ(labelled_samples(p), 60u);
  auto per = samples_per_label(p);
  ASSERT_EQ(per.size(), 3u);
  EXPECT_EQ(per[0], (std::pair<Label, uint64_t>{{"tenant", "a"}, 50}));
  EXPECT_EQ(per[1], (std::pair<Label, uint64_t>{{"endpoint", "search"}, 40}));
  EXPECT_EQ(per[2], (std::pair<Label, uint64_t>{{"endpoint", "index"}, 20}));
}

TEST(LabelView, FilterKeepsOnlyThatLabelsStacks) {
  Profile f = filter_by_label(labelled(), {"endpoint", "search"});
  ASSERT_EQ(f.stacks.size(), 2u);
  EXPECT_EQ(f.samples, 40u);
  EXPECT_EQ(f.frames.size(), 3u);  // tables are kept, indices stay valid
  EXPECT_EQ(filter_by_label(labelled(), {"endpoint", "nope"}).samples, 0u);
}

TEST(LabelView, GroupsByKeyMostSamplesFirstUnlabelledLast) {
  auto groups = group_by_key(labelled(), "endpoint");
  ASSERT_EQ(groups.size(), 3u);
  EXPECT_EQ(groups[0].value, "search");
  EXPECT_EQ(groups[0].profile.samples, 40u);
  EXPECT_EQ(groups[1].value, "index");
  EXPECT_EQ(groups[1].profile.samples, 20u);
  EXPECT_FALSE(groups[2].has_label);
  EXPECT_EQ(groups[2].profile.samples, 5u);
  auto tenants = group_by_key(labelled(), "tenant");
  ASSERT_EQ(tenants.size(), 2u);
  EXPECT_EQ(tenants[0].profile.samples, 50u);
  EXPECT_EQ(tenants[1].profile.samples, 15u);
}

TEST(LabelJson, RoundTripsLabels) {
  Profile p = labelled();
  p.run.sampler = "perf";
  ReadResult r = parse_profile(dump_profile(p), "p.json");
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.profile->labels, p.labels);
  EXPECT_EQ(r.profile->stacks, p.stacks);
  EXPECT_EQ(to_json(p)["version"], "1.8");
  // Unlabelled stacks carry no "labels" key at all.
  EXPECT_FALSE(to_json(p)["stacks"][3].contains("labels"));
}

TEST(LabelJson, Reads11FilesWithoutLabels) {
  Profile p = labelled();
  p.labels.clear();
  for (Stack& s : p.stacks) s.labels.clear();
  auto j = to_json(p);
  j["version"] = "1.1";
  j.erase("labels");
  ReadResult r = parse_profile(j.dump(), "old.json");
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_TRUE(r.profile->labels.empty());
  EXPECT_EQ(r.profile->stacks.size(), 4u);
}

TEST(LabelJson, RejectsALabelIndexOutOfRange) {
  auto j = to_json(labelled());
  j["stacks"][0]["labels"][0] = 7;
  ReadResult r = parse_profile(j.dump(), "bad.json");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error,
            "bad.json: field 'stacks[0].labels[0]' refers to label 7 but "
            "there are 3");
}

}  // namespace
}  // namespace andweorc::profile
