// stack_profile_test.cc: the live flame graph's two spans: the window
// takes out exactly what has aged, the whole run keeps every weighted
// sample, and both stay within their node caps, counting what they cut.
#include "live/stack_profile.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "support/flame_text.h"

namespace andweorc::live {
namespace {

using ::andweorc::testing::flame_text;

TEST(StackProfile, TheWindowDropsExactlyWhatIsWindowOld) {
  StackProfile p(10);
  p.add(1, {{{"main", "parse"}, 30}, {{"main", "hash"}, 10}});
  p.add(6, {{{"main", "parse"}, 10}});
  p.add(11, {{{"main", "hash", "mix"}, 50}});
  // At 11 the samples seen at 1 are exactly window_s old: out, as in the
  // flat profile ((time_s - window_s, time_s]).
  p.advance(11);
  FlameGraph r = p.recent(0, 100);
  EXPECT_EQ(r.samples, 60u);
  EXPECT_EQ(flame_text(r),
            (std::vector<std::string>{"main:60@1", "hash:50@2", "mix:50@3",
                                      "parse:10@2"}));
  // The same as a profile that only ever saw the last two.
  StackProfile q(10);
  q.add(6, {{{"main", "parse"}, 10}});
  q.add(11, {{{"main", "hash", "mix"}, 50}});
  EXPECT_EQ(flame_text(q.recent(0, 100)), flame_text(r));
  // Advancing is idempotent and only drops what has aged.
  p.advance(11);
  p.advance(15.999);
  EXPECT_EQ(p.recent(0, 100).samples, 60u);
  p.advance(16);  // the samples seen at 6 go
  EXPECT_EQ(flame_text(p.recent(0, 100)),
            (std::vector<std::string>{"main:50@1", "hash:50@2", "mix:50@3"}));
  // A whole window without samples: nothing recent, the window's nodes
  // freed; the whole run is untouched.
  p.advance(30);
  EXPECT_EQ(p.recent(0, 100).samples, 0u);
  EXPECT_TRUE(p.recent(0, 100).nodes.empty());
  EXPECT_EQ(p.nodes(), 4u);  // main, parse, hash, mix: the run's only
}

TEST(StackProfile, TheWholeRunCountsEverySampleByWeight) {
  StackProfile p(2);
  // A timer overrun or a coarser period: one sample with weight 4 counts 4.
  p.add(1, {{{"main", "work"}, 4}});
  p.add(5, {{{"main", "work"}, 1}, {{"main", "idle"}, 3}});
  p.add(9, {{{"other"}, 2}});
  FlameGraph t = p.total(0, 100);
  EXPECT_EQ(t.samples, 10u);
  EXPECT_EQ(flame_text(t), (std::vector<std::string>{"main:8@1", "idle:3@2",
                                                     "work:5@2", "other:2@1"}));
  p.advance(9);
  EXPECT_EQ(flame_text(p.recent(0, 100)),
            (std::vector<std::string>{"other:2@1"}));
}

// Random deep stacks over many windows: both trees stay within the cap,
// the whole run's weight is all the weight added (what did not fit is
// counted as cut, never lost), and the window's is exactly its span's.
TEST(StackProfile, NodeCapsHoldAndWhatDoesNotFitIsCounted) {
  constexpr size_t kCap = 200;
  StackProfile p(3, kCap);
  std::mt19937 rng(7);
  uint64_t all = 0;
  std::vector<std::pair<double, uint64_t>> by_time;
  for (int tick = 1; tick <= 120; ++tick) {
    StackCounts poll;
    uint64_t in_poll = 0;
    for (int i = 0; i < 30; ++i) {
      std::vector<std::string> stack{"main"};
      int depth = 1 + int(rng() % 6);
      for (int d = 0; d < depth; ++d)
        stack.push_back("f" + std::to_string(rng() % 12));
      uint64_t w = 1 + rng() % 3;
      poll[stack] += w;
      in_poll += w;
    }
    double t = tick * 0.25;
    p.add(t, poll);
    all += in_poll;
    by_time.emplace_back(t, in_poll);
    EXPECT_LE(p.nodes(), 2 * kCap);
  }
  p.advance(30);
  FlameGraph total = p.total(0, 100000);
  EXPECT_EQ(total.samples, all);
  EXPECT_GT(p.folded(), 0u);  // the run outgrew its cap and was compacted
  EXPECT_GE(total.cut, p.folded());
  uint64_t shown_cut = 0, depth1 = 0;
  for (const FlameGraph::Node& n : total.nodes) {
    if (total.names[n.name] == report::kCutFrameName) shown_cut += n.value;
    if (n.depth == 1) depth1 += n.value;
  }
  EXPECT_EQ(shown_cut, total.cut);  // every cut weight is shown, nothing pruned
  EXPECT_EQ(depth1, all);
  uint64_t recent = 0;
  for (const auto& [t, w] : by_time)
    if (t > 30 - 3) recent += w;
  FlameGraph r = p.recent(0, 100000);
  EXPECT_EQ(r.samples, recent);
  EXPECT_GT(r.cut, 0u);  // 12 polls of random stacks do not fit in 200 nodes
}

TEST(StackProfile, AHeavyStackKeepsItsFramesThroughCompactions) {
  StackProfile p(10, 50);
  for (int tick = 0; tick < 40; ++tick) {
    StackCounts poll{{{"main", "hot", "kernel"}, 20}};
    for (int i = 0; i < 10; ++i)
      poll[{"main", "cold" + std::to_string(tick * 10 + i)}] = 1;
    p.add(tick, poll);
  }
  std::vector<std::string> f = flame_text(p.total(0, 1000));
  EXPECT_NE(std::find(f.begin(), f.end(), "hot:800@2"), f.end());
  EXPECT_NE(std::find(f.begin(), f.end(), "kernel:800@3"), f.end());
  EXPECT_EQ(p.total(0, 1000).samples, 1200u);
}

}  // namespace
}  // namespace andweorc::live
