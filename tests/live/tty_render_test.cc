// tty_render_test.cc: the terminal view's frames as golden text: a snapshot
// with data at 80x24, no data yet, a narrow terminal (the line number
// survives, long names are shortened), a short one (fewer rows, never more
// than height - 1), and every line within width - 1 columns.
#include "live/tty_render.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace andweorc::live {
namespace {

experiments::LineImpact impact(int rank, const std::string& file, int line,
                               const std::string& function, double slope,
                               double low, double high, bool significant) {
  experiments::LineImpact l;
  l.point = "item_written";
  l.file = file;
  l.line = line;
  l.function = function;
  l.fitted = true;
  l.slope = slope;
  l.ci_low = low;
  l.ci_high = high;
  l.significant = significant;
  l.rank = rank;
  l.experiments = 20;
  return l;
}

LiveSnapshot with_data() {
  LiveSnapshot s;
  s.time_s = 75.4;
  s.experiments = 53;
  s.experiments_per_s = 14.82;
  s.convergence.state = "running";
  s.convergence.experiments = 53;
  s.convergence.regions = 5;
  s.convergence.in_play = 2;
  s.convergence.point = "item_written";
  s.convergence.leader = "examples/pipeline/pipeline.cc:40";
  s.convergence.impact = 0.40;
  s.convergence.ci_low = 0.33;
  s.convergence.ci_high = 0.47;
  s.analysis.impacts = {impact(1, "../examples/pipeline/pipeline.cc", 40,
                               "transform_item", 0.40, 0.33, 0.47, true),
                        impact(2, "../examples/pipeline/pipeline.cc", 35,
                               "read_item", 0.04, -0.40, 0.48, false),
                        impact(3, "../examples/pipeline/pipeline.cc", 45,
                               "write_item", -7.93, -29.70, 13.84, false)};
  experiments::LineImpact unfitted;
  unfitted.point = "item_written";
  unfitted.file = "src/a_rather_long_directory_name/and_a_long_file_name.cc";
  unfitted.line = 1234;
  unfitted.function = "std::vector<int>::push_back";
  unfitted.rank = 4;
  unfitted.experiments = 2;
  s.analysis.impacts.push_back(unfitted);
  PointSeries p;
  p.name = "item_written";
  p.kind = "throughput";
  p.total = 13864;
  p.rates = {{74, 3400}, {75, 3541.44}};
  s.points.push_back(p);
  s.samples_window_s = 10;
  s.recent_samples = 1610;
  s.recent_functions = {{"transform_item", 1022, 0.635},
                        {"read_item", 245, 0.152},
                        {"__futex_abstimed_wait_common64", 60, 0.037}};
  return s;
}

std::string joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const std::string& l : lines) out += l + "\n";
  return out;
}

void expect_fits(const std::vector<std::string>& lines, size_t width,
                 size_t height) {
  EXPECT_LE(lines.size(), height - 1);
  for (const std::string& l : lines) EXPECT_LT(l.size(), width) << l;
}

TEST(TtyRender, AFrameWithData) {
  TtyFrameOptions o;  // 80x24
  auto lines = render_tty(with_data(), o);
  expect_fits(lines, 80, 24);
  EXPECT_EQ(joined(lines),
            R"(andweorc live: 1m15s, 53 experiments (14.8/s), still changing
Not stable yet after 53 experiments: leader examples/pipeline/pipeline.cc:40 (i
points: item_written 3541.4/s (13864 total)

causal lines for 'item_written' (impact, 95% interval; * significant):
 1 * pipeline.cc:40                 +0.40  [+0.33, +0.47]      transform_item
 2   pipeline.cc:35                 +0.04  [-0.40, +0.48]      read_item
 3   pipeline.cc:45                 -7.93  [-29.70, +13.84]    write_item
 4   and_a_long_file_name.cc:1234       -  2 exp.              std::vector<i...

samples, last 10 s (1610 samples):
   63.5%  transform_item
   15.2%  read_item
    3.7%  __futex_abstimed_wait_common64
)");
}

TEST(TtyRender, TheControlsStateIsOneLineUnderThePoints) {
  LiveSnapshot s = with_data();
  s.controls = "experiments paused, pinned to pipeline.cc:45 (1 line)";
  TtyFrameOptions o;
  o.width = 40;
  auto lines = render_tty(s, o);
  expect_fits(lines, 40, 24);
  ASSERT_GE(lines.size(), 4u);
  EXPECT_EQ(lines[2], "points: item_written 3541.4/s (13864 to");
  EXPECT_EQ(lines[3], "controls: experiments paused, pinned to");
  // Without a control applied, no line (the other frames are unchanged).
  s.controls.clear();
  for (const std::string& l : render_tty(s, o))
    EXPECT_EQ(l.find("controls"), std::string::npos) << l;
}

TEST(TtyRender, NoDataYet) {
  LiveSnapshot s;
  s.time_s = 0.25;
  s.samples_window_s = 10;
  auto lines = render_tty(s, {});
  expect_fits(lines, 80, 24);
  EXPECT_EQ(joined(lines),
            R"(andweorc live: 0s, 0 experiments, no experiments yet
points: none seen yet

causal lines: no experiments yet

samples, last 10 s (0 samples):
   none yet
)");
}

TEST(TtyRender, ANarrowTerminalKeepsTheLineNumber) {
  TtyFrameOptions o;
  o.width = 36;
  auto lines = render_tty(with_data(), o);
  expect_fits(lines, 36, 24);
  EXPECT_EQ(joined(lines), R"(andweorc live: 1m15s, 53 experiment
Not stable yet after 53 experiments
points: item_written 3541.4/s (1386

causal lines for 'item_written' (im
 1 * pipeline.cc:40           +0.40
 2   pipeline.cc:35           +0.04
 3   pipeline.cc:45           -7.93
 4   ...g_file_name.cc:1234       -

samples, last 10 s (1610 samples):
   63.5%  transform_item
   15.2%  read_item
    3.7%  __futex_abstimed_wait_...
)");
}

TEST(TtyRender, AVeryNarrowTerminalStillShowsLineNumbers) {
  // 16 columns: the labels get 2 and ":1234" does not fit in them.
  TtyFrameOptions o;
  o.width = 16;
  auto lines = render_tty(with_data(), o);
  expect_fits(lines, 16, 24);
  EXPECT_EQ(joined(lines), R"(andweorc live:
Not stable yet
points: item_wr

causal lines fo
 1 * 40   +0.40
 2   35   +0.04
 3   45   -7.93
 4   1234

samples, last 1
   63.5%  tr...
   15.2%  re...
    3.7%  __...
)");
}

TEST(TtyRender, AShortTerminalShowsFewerRows) {
  TtyFrameOptions o;
  o.height = 12;
  auto lines = render_tty(with_data(), o);
  expect_fits(lines, 80, 12);
  EXPECT_EQ(joined(lines),
            R"(andweorc live: 1m15s, 53 experiments (14.8/s), still changing
Not stable yet after 53 experiments: leader examples/pipeline/pipeline.cc:40 (i
points: item_written 3541.4/s (13864 total)

causal lines for 'item_written' (impact, 95% interval; * significant):
 1 * pipeline.cc:40   +0.40  [+0.33, +0.47]      transform_item
 2   pipeline.cc:35   +0.04  [-0.40, +0.48]      read_item

samples, last 10 s (1610 samples):
   63.5%  transform_item
   15.2%  read_item
)");
}

TEST(TtyRender, TopLimitsTheRankingAndFinalSaysSo) {
  TtyFrameOptions o;
  o.top = 2;
  o.final = true;
  auto lines = render_tty(with_data(), o);
  EXPECT_EQ(joined(lines), R"(andweorc final: 1m15s, 53 experiments, not stable
Not stable yet after 53 experiments: leader examples/pipeline/pipeline.cc:40 (i
points: item_written 3541.4/s (13864 total)

causal lines for 'item_written' (impact, 95% interval; * significant):
 1 * pipeline.cc:40   +0.40  [+0.33, +0.47]      transform_item
 2   pipeline.cc:35   +0.04  [-0.40, +0.48]      read_item

samples, last 10 s (1610 samples):
   63.5%  transform_item
   15.2%  read_item
    3.7%  __futex_abstimed_wait_common64
)");
}

TEST(TtyRender, ShortenLabel) {
  EXPECT_EQ(shorten_label("pipeline.cc:40", 20), "pipeline.cc:40");
  EXPECT_EQ(shorten_label("and_a_long_file_name.cc:1234", 15),
            "...name.cc:1234");
  EXPECT_EQ(shorten_label("and_a_long_file_name.cc:1234", 6), "1234");
  EXPECT_EQ(shorten_label("std::vector<int>::push_back", 12), "std::vect...");
  EXPECT_EQ(shorten_label("transform_item", 2), "tr");
}

}  // namespace
}  // namespace andweorc::live
