// stack_tree_test.cc: the capped trie of call stacks behind the flame
// graphs: inclusive weights, exact removal, the node cap's cut weight,
// compaction that keeps every sample, and pruning for display.
#include "report/stack_tree.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "support/flame_text.h"

namespace andweorc::report {
namespace {

using ::andweorc::testing::flame_text;

TEST(StackTree, InclusiveWeightsInPreorderSiblingsByName) {
  NameTable names;
  StackTree t(&names, 100);
  t.add({"main", "run", "hash"}, 3);
  t.add({"main", "run"}, 2);  // run's own samples
  t.add({"main", "io"}, 1);
  t.add({"clone3", "worker"}, 4);
  EXPECT_EQ(t.weight(), 10u);
  EXPECT_EQ(t.nodes(), 6u);
  FlameGraph g = t.graph(0, 1000);
  EXPECT_EQ(g.samples, 10u);
  EXPECT_EQ(flame_text(g),
            (std::vector<std::string>{"clone3:4@1", "worker:4@2", "main:6@1",
                                      "io:1@2", "run:5@2", "hash:3@3"}));
  EXPECT_EQ(g.cut, 0u);
  EXPECT_EQ(g.pruned_nodes, 0u);
  // Names are listed once each, in order of first use.
  EXPECT_EQ(g.names.size(), 6u);
}

TEST(StackTree, RecursionIsOneFramePerCall) {
  NameTable names;
  StackTree t(&names, 100);
  t.add({"main", "walk", "walk", "walk"}, 2);
  EXPECT_EQ(flame_text(t.graph(0, 100)),
            (std::vector<std::string>{"main:2@1", "walk:2@2", "walk:2@3",
                                      "walk:2@4"}));
  EXPECT_EQ(names.size(), 2u);  // one name, however often it is used
}

TEST(StackTree, RemoveTakesBackExactlyAndFreesEmptyNodes) {
  NameTable names;
  StackTree t(&names, 100);
  StackTree::Place a = t.add({"main", "run", "hash"}, 3);
  t.add({"main", "io"}, 1);
  StackTree::Place c = t.add({"main", "run", "hash"}, 2);
  EXPECT_EQ(a.node, c.node);
  EXPECT_FALSE(a.cut);
  t.remove(a, 3);
  EXPECT_EQ(
      flame_text(t.graph(0, 100)),
      (std::vector<std::string>{"main:3@1", "io:1@2", "run:2@2", "hash:2@3"}));
  t.remove(c, 2);
  // run and hash have no weight left: gone, with their names.
  EXPECT_EQ(flame_text(t.graph(0, 100)),
            (std::vector<std::string>{"main:1@1", "io:1@2"}));
  EXPECT_EQ(t.nodes(), 2u);
  EXPECT_EQ(names.size(), 2u);
  EXPECT_EQ(names.find("hash"), NameTable::kNone);
  // Freed nodes are reused: the tree never holds more than its live ones.
  t.add({"other", "x"}, 1);
  EXPECT_EQ(t.nodes(), 4u);
  EXPECT_EQ(t.weight(), 2u);
}

TEST(StackTree, BeyondTheNodeCapTheWeightIsCutAndCounted) {
  NameTable names;
  StackTree t(&names, 3);
  StackTree::Place p = t.add({"main", "run", "hash", "mix"}, 2);
  EXPECT_TRUE(p.cut);
  EXPECT_EQ(t.nodes(), 3u);
  EXPECT_EQ(t.missing({"main", "run", "hash", "mix"}), 1u);
  StackTree::Place q = t.add({"worker"}, 5);  // no node for it at all
  EXPECT_TRUE(q.cut);
  EXPECT_EQ(q.node, StackTree::kRoot);
  EXPECT_EQ(t.weight(), 7u);  // nothing lost from the totals
  EXPECT_EQ(t.cut(), 7u);
  FlameGraph g = t.graph(0, 100);
  EXPECT_EQ(g.cut, 7u);
  const std::string cut = kCutFrameName;
  EXPECT_EQ(flame_text(g),
            (std::vector<std::string>{cut + ":5@1", "main:2@1", "run:2@2",
                                      "hash:2@3", cut + ":2@4"}));
  // Taking a cut sample back takes its cut weight back too.
  t.remove(q, 5);
  EXPECT_EQ(t.cut(), 2u);
  EXPECT_EQ(t.weight(), 2u);
}

TEST(StackTree, CompactionFoldsTheLightestSubtreesAndKeepsEveryWeight) {
  NameTable names;
  StackTree t(&names, 100);
  t.add({"main", "hot", "inner"}, 100);
  for (int i = 0; i < 20; ++i)
    t.add({"main", "cold" + std::to_string(i), "leaf"}, 1 + i % 2);
  const uint64_t all = t.weight();
  const size_t before = t.nodes();  // main, hot, inner, 20 x (cold, leaf)
  ASSERT_EQ(before, 43u);
  uint64_t folded = t.compact();
  EXPECT_LE(t.nodes(), before - before / 4);
  EXPECT_EQ(t.weight(), all);
  EXPECT_EQ(t.cut(), folded);
  EXPECT_GT(folded, 0u);
  FlameGraph g = t.graph(0, 1000);
  // The heavy stack keeps its frames and its weight; what was folded shows
  // under main as the cut pseudo-frame, and the graph still adds up.
  std::vector<std::string> f = flame_text(g);
  EXPECT_NE(std::find(f.begin(), f.end(), "hot:100@2"), f.end());
  EXPECT_NE(std::find(f.begin(), f.end(), "inner:100@3"), f.end());
  uint64_t depth2 = 0;
  for (const FlameGraph::Node& n : g.nodes)
    if (n.depth == 2) depth2 += n.value;
  EXPECT_EQ(depth2, all);  // main has no samples of its own
  bool cut_under_main = false;
  for (const FlameGraph::Node& n : g.nodes)
    cut_under_main |= n.depth == 2 && g.names[n.name] == kCutFrameName;
  EXPECT_TRUE(cut_under_main);
}

TEST(StackTree, PruningLeavesOutLightNodesAndSaysHowMany) {
  NameTable names;
  StackTree t(&names, 100);
  t.add({"main", "big"}, 996);
  t.add({"main", "tiny", "deeper"}, 4);  // 0.4%: under a 0.5% threshold
  FlameGraph g = t.graph(0.005, 100);
  EXPECT_EQ(flame_text(g),
            (std::vector<std::string>{"main:1000@1", "big:996@2"}));
  EXPECT_EQ(g.samples, 1000u);
  EXPECT_EQ(g.pruned_nodes, 2u);    // tiny and deeper
  EXPECT_EQ(g.pruned_samples, 4u);  // tiny's subtree, counted once
  EXPECT_EQ(g.names.size(), 2u);    // names of kept nodes only
  // At most max_out nodes: the heaviest.
  FlameGraph one = t.graph(0, 1);
  EXPECT_EQ(flame_text(one), (std::vector<std::string>{"main:1000@1"}));
  EXPECT_EQ(one.pruned_nodes, 3u);
  EXPECT_EQ(one.pruned_samples, 1000u);
}

TEST(StackTree, AnEmptyTreeHasAnEmptyGraph) {
  NameTable names;
  StackTree t(&names, 10);
  FlameGraph g = t.graph(0.005, 10);
  EXPECT_EQ(g.samples, 0u);
  EXPECT_TRUE(g.nodes.empty());
  EXPECT_EQ(t.add({"x"}, 0).node, StackTree::kRoot);  // no weight, no node
  EXPECT_EQ(t.nodes(), 0u);
}

}  // namespace
}  // namespace andweorc::report
