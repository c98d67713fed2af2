// --granularity adaptive: lines when the lines a plan can reach hold nearly
// all the samples, functions first when the samples spread.
#include "planner/granularity_choice.h"

#include <gtest/gtest.h>

namespace andweorc::planner {
namespace {

TEST(GranularityChoice, UndecidedUntilEnoughSamples) {
  GranularityEvidence e;
  EXPECT_EQ(choose_granularity({100, 50, 0, 20}, PlannerOptions{}, &e),
            GranularityChoice::kUndecided);
  EXPECT_EQ(e.samples, 170u);
  EXPECT_EQ(choose_granularity({}, PlannerOptions{}),
            GranularityChoice::kUndecided);
}

// A known-answer workload: three lines hold everything.
TEST(GranularityChoice, AFewHotLinesArePlannedAsLines) {
  GranularityEvidence e;
  EXPECT_EQ(choose_granularity({6000, 2500, 1200, 3, 1}, PlannerOptions{}, &e),
            GranularityChoice::kLines);
  EXPECT_NEAR(e.reach, 9700.0 / 9704.0, 1e-9);
}

// A real program: 400 lines of 1-2.5% and less; the 16 most sampled hold
// well under 90%.
TEST(GranularityChoice, SamplesSpreadOverManyLinesGoFunctionsFirst) {
  std::vector<uint64_t> lines;
  for (int i = 0; i < 20; ++i) lines.push_back(250);
  for (int i = 0; i < 400; ++i) lines.push_back(10);
  GranularityEvidence e;
  EXPECT_EQ(choose_granularity(lines, PlannerOptions{}, &e),
            GranularityChoice::kFunctionsFirst);
  EXPECT_NEAR(e.reach, 16 * 250.0 / 9000.0, 1e-9);
}

// Lines below P3's share are out of a plan's reach even among the top 16.
TEST(GranularityChoice, LinesBelowTheMinimumShareAreNotReached) {
  std::vector<uint64_t> lines = {8000};
  for (int i = 0; i < 15; ++i) lines.push_back(50);  // 0.5% each
  for (int i = 0; i < 100; ++i) lines.push_back(12);
  GranularityEvidence e;
  EXPECT_EQ(choose_granularity(lines, PlannerOptions{}, &e),
            GranularityChoice::kFunctionsFirst);
  EXPECT_NEAR(e.reach, 8000.0 / 9950.0, 1e-9);
  PlannerOptions o;
  o.min_sample_share = 0.001;  // now the top 16 are reachable: 88%
  EXPECT_EQ(choose_granularity(lines, o, &e, 500, 0.85),
            GranularityChoice::kLines);
}

// A start-up phase in a few lines (LevelDB's inserts before compaction):
// lines are not decided on 1,000 samples; when the spread shows later, it
// goes functions first. A spread seen early is decided at once.
TEST(GranularityChoice, LinesNeedMoreEvidenceThanFunctionsFirst) {
  std::vector<uint64_t> early = {700, 250, 50};  // 1,000 samples, 3 lines
  GranularityEvidence e;
  EXPECT_EQ(choose_granularity(early, PlannerOptions{}, &e),
            GranularityChoice::kUndecided);
  EXPECT_NEAR(e.reach, 1.0, 1e-9);
  std::vector<uint64_t> later = early;  // compaction starts: 400 more lines
  for (int i = 0; i < 400; ++i) later.push_back(10);
  EXPECT_EQ(choose_granularity(later, PlannerOptions{}, &e),
            GranularityChoice::kFunctionsFirst);
  std::vector<uint64_t> spread(60, 10);  // 600 samples over 60 lines
  EXPECT_EQ(choose_granularity(spread, PlannerOptions{}),
            GranularityChoice::kFunctionsFirst);
}

}  // namespace
}  // namespace andweorc::planner
