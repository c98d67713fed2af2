// Tests for the run progress line: its text, its width, the leader it names
// and the early warning about progress points that are never reached.
#include "cli/progress_display.h"

#include <gtest/gtest.h>

#include "../experiments/experiment_builders.h"

namespace andweorc::cli {
namespace {

using experiments::testing::exact_exp;

TEST(FormatProgress, ShowsRateRegionsInPlayAndTheLeader) {
  ProgressState s;
  s.elapsed_s = 12.4;
  s.experiments = 31;
  s.experiments_per_s = 2.5;
  s.in_play = 2;
  s.regions = 7;
  s.leader = "main.cc:12 0.91 [0.85, 0.97]";
  EXPECT_EQ(format_progress(s, 200),
            "andweorc: 12s, 31 experiments (2.5/s), 2 of 7 regions in play, "
            "leader main.cc:12 0.91 [0.85, 0.97]");
  s.state = "stable";
  EXPECT_EQ(format_progress(s, 200),
            "andweorc: 12s, 31 experiments (2.5/s), 2 of 7 regions in play, "
            "leader main.cc:12 0.91 [0.85, 0.97], stable");
}

TEST(FormatProgress, SaysWhenThereIsNoLeaderYet) {
  ProgressState s;
  s.elapsed_s = 75;
  s.experiments = 1;
  s.experiments_per_s = 0.01;
  EXPECT_EQ(format_progress(s, 200),
            "andweorc: 1m15s, 1 experiment (0.0/s), no leader yet");
  s.experiments = 0;
  EXPECT_EQ(format_progress(s, 200), "andweorc: 1m15s, 0 experiments");
}

TEST(FormatProgress, SamplingOnlyRunsShowNoExperiments) {
  ProgressState s;
  s.elapsed_s = 3;
  s.experiments_enabled = false;
  EXPECT_EQ(format_progress(s, 80), "andweorc: 3s, sampling");
}

TEST(FormatProgress, NeverFillsTheLastColumnAndCutsWholeCharacters) {
  ProgressState s;
  s.experiments = 5;
  s.leader = "\xc3\xa9t\xc3\xa9.cc:1 0.50 [0.40, 0.60]";  // "été.cc"
  for (size_t width : {1u, 10u, 20u, 41u, 42u, 43u, 60u}) {
    std::string line = format_progress(s, width);
    size_t columns = 0;
    for (unsigned char c : line) columns += (c & 0xC0) != 0x80;
    EXPECT_LE(columns, width - 1) << width;
    // No character is cut in half: the last byte is not a lead byte.
    if (!line.empty()) {
      EXPECT_NE(static_cast<unsigned char>(line.back()) & 0xC0, 0xC0) << width;
    }
  }
  EXPECT_EQ(format_progress(s, 0), "");
}

TEST(LeaderText, BaseNameImpactAndInterval) {
  planner::ConvergenceStatus s;
  EXPECT_EQ(leader_text(s), "");
  s.leader = "line\t/src/dir/b.cc\t20";
  s.leader_estimate.slope = 0.8;
  s.leader_estimate.low = 0.75;
  s.leader_estimate.high = 0.851;
  EXPECT_EQ(leader_text(s), "b.cc:20 0.80 [0.75, 0.85]");
  s.leader = "function\tparse(char const*)\t/src/p.cc";
  EXPECT_EQ(leader_text(s), "parse(char const*) 0.80 [0.75, 0.85]");
}

TEST(UnreachedWarning, NamesThePointThatNoExperimentReached) {
  std::vector<profile::Experiment> exps;
  for (int pct : {0, 20, 0, 40}) {
    profile::Experiment e = exact_exp("/src/a.cc", 10, pct, 0.2);
    profile::PointDelta never = e.points[0];
    never.name = "flushed";
    never.visits = 0;
    e.points.push_back(never);
    exps.push_back(e);
  }
  std::string w = unreached_warning(exps, 2);
  EXPECT_NE(w.find("progress point \"flushed\" was not reached in the first "
                   "2 s (4 experiments)"),
            std::string::npos)
      << w;
  EXPECT_EQ(w.find("\"done\""), std::string::npos) << w;  // reached
  exps.resize(0);
  EXPECT_NE(unreached_warning(exps, 2).find("no experiment has finished"),
            std::string::npos);
}

TEST(UnreachedWarning, SilentWhenEveryPointIsReached) {
  std::vector<profile::Experiment> exps = {exact_exp("/a.cc", 1, 0, 0.1)};
  EXPECT_EQ(unreached_warning(exps, 2), "");
}

}  // namespace
}  // namespace andweorc::cli
