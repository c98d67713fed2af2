// Tests for the run progress line: its text, its width, and the lines it
// calls leading.
#include "cli/progress_display.h"

#include <gtest/gtest.h>

#include "../experiments/experiment_builders.h"

namespace andweorc::cli {
namespace {

using experiments::testing::exact_exp;

TEST(FormatProgress, CountsExperimentsAndNamesLeaders) {
  ProgressState s;
  s.elapsed_s = 12.4;
  s.experiments = 31;
  s.leaders = {"main.cc:12 (impact 0.91)", "main.cc:40 (impact 0.20)"};
  EXPECT_EQ(format_progress(s, 200),
            "andweorc: 12s, 31 experiments, leading: main.cc:12 (impact "
            "0.91), main.cc:40 (impact 0.20)");
}

TEST(FormatProgress, SaysWhenNothingIsSignificantYet) {
  ProgressState s;
  s.elapsed_s = 75;
  s.experiments = 1;
  EXPECT_EQ(format_progress(s, 200),
            "andweorc: 1m15s, 1 experiment, no significant line yet");
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
  s.leaders = {"\xc3\xa9t\xc3\xa9.cc:1 (impact 0.50)"};  // "été.cc"
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

TEST(LeadingLines, RanksSignificantLinesOnly) {
  std::vector<profile::Experiment> exps;
  for (int pct : {0, 0, 0, 10, 20, 30, 40, 50}) {
    exps.push_back(exact_exp("/src/a.cc", 10, pct, 0.2));
    exps.push_back(exact_exp("/src/b.cc", 20, pct, 0.8));
  }
  // A line with too few experiments is never called leading.
  exps.push_back(exact_exp("/src/c.cc", 30, 50, 1.0));
  std::vector<std::string> lines = leading_lines(exps, 5);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0], "b.cc:20 (impact 0.80)");
  EXPECT_EQ(lines[1], "a.cc:10 (impact 0.20)");
  EXPECT_EQ(leading_lines(exps, 1).size(), 1u);
  EXPECT_TRUE(leading_lines({}, 2).empty());
}

}  // namespace
}  // namespace andweorc::cli
