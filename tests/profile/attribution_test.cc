// attribution_test.cc: attribution on small hand-built profiles.
#include "profile/attribution.h"

#include <gtest/gtest.h>

namespace andweorc::profile {
namespace {

// Frames used below (index: function, file:line, in scope?):
//   0: work      app.c:10  in     1: work  app.c:11  in
//   2: main      app.c:30  in     3: memcpy (libc, no line) out
//   4: helper    util.h:5  in, inlined into 1
//   5: start     (no line) out    6: qsort libc.c:99 out (has a line)
//   7: work      other.c:3 in (a different static "work")
Profile base() {
  Profile p;
  p.frames = {
      {"work", "/src/app.c", 10, "/bin/app", false, true},
      {"work", "/src/app.c", 11, "/bin/app", false, true},
      {"main", "/src/app.c", 30, "/bin/app", false, true},
      {"memcpy", "", 0, "/lib/libc.so.6", false, false},
      {"helper", "/src/util.h", 5, "/bin/app", true, true},
      {"_start", "", 0, "/bin/app", false, false},
      {"qsort", "/glibc/libc.c", 99, "/lib/libc.so.6", false, false},
      {"work", "/src/other.c", 3, "/bin/app", false, true},
  };
  return p;
}

TEST(Attribution, LeafInScopeGetsTheSamples) {
  Profile p = base();
  p.stacks = {{{0, 2, 5}, 7}};
  Attribution a = attribute(p);
  EXPECT_EQ(a.total, 7u);
  EXPECT_EQ(a.in_scope, 7u);
  EXPECT_EQ(a.mapped, 7u);
  ASSERT_EQ(a.lines.size(), 1u);
  EXPECT_EQ(a.lines[0], (LineCount{"/src/app.c", 10, "work", 7}));
  ASSERT_EQ(a.functions.size(), 1u);
  EXPECT_EQ(a.functions[0], (FunctionCount{"work", "/src/app.c", 7}));
}

TEST(Attribution, LeafOutOfScopeGoesToFirstInScopeCaller) {
  Profile p = base();
  p.stacks = {{{3, 6, 1, 2, 5}, 4}};  // memcpy <- qsort <- work:11 <- main
  Attribution a = attribute(p);
  EXPECT_EQ(first_in_scope(p, p.stacks[0]), 2);
  EXPECT_EQ(a.in_scope, 4u);
  EXPECT_EQ(a.mapped, 0u);  // the leaf (memcpy) has no line
  ASSERT_EQ(a.lines.size(), 1u);
  EXPECT_EQ(a.lines[0], (LineCount{"/src/app.c", 11, "work", 4}));
}

TEST(Attribution, InlinedCalleeComesBeforeItsCaller) {
  Profile p = base();
  p.stacks = {{{4, 1, 2}, 3}};  // helper inlined at work:11
  Attribution a = attribute(p);
  ASSERT_EQ(a.lines.size(), 1u);
  EXPECT_EQ(a.lines[0], (LineCount{"/src/util.h", 5, "helper", 3}));
  EXPECT_EQ(a.functions[0], (FunctionCount{"helper", "/src/util.h", 3}));
}

TEST(Attribution, NoFrameInScopeCountsAsOutOfScope) {
  Profile p = base();
  p.stacks = {{{6, 3, 5}, 5}, {{0, 2}, 15}};
  Attribution a = attribute(p);
  EXPECT_EQ(first_in_scope(p, p.stacks[0]), -1);
  EXPECT_EQ(a.total, 20u);
  EXPECT_EQ(a.in_scope, 15u);
  EXPECT_EQ(a.mapped, 20u);  // qsort's leaf line counts as mapped
  EXPECT_DOUBLE_EQ(a.in_scope_share(), 0.75);
  EXPECT_DOUBLE_EQ(a.mapped_share(), 1.0);
  ASSERT_EQ(a.lines.size(), 1u);
  EXPECT_EQ(a.lines[0].line, 10);
}

TEST(Attribution, EmptyStackIsUnmappedAndOutOfScope) {
  Profile p = base();
  p.stacks = {{{}, 3}, {{0}, 1}};
  Attribution a = attribute(p);
  EXPECT_EQ(a.total, 4u);
  EXPECT_EQ(a.mapped, 1u);
  EXPECT_EQ(a.in_scope, 1u);
  EXPECT_DOUBLE_EQ(a.mapped_share(), 0.25);
}

TEST(Attribution, AggregatesLinesAndFunctions) {
  Profile p = base();
  p.stacks = {
      {{0, 2}, 5},     // work:10
      {{3, 0, 2}, 6},  // memcpy <- work:10
      {{1, 2}, 4},     // work:11
      {{2, 5}, 2},     // main:30
      {{7, 2}, 9},     // other.c work:3
  };
  Attribution a = attribute(p);
  EXPECT_EQ(a.total, 26u);
  EXPECT_EQ(a.in_scope, 26u);
  EXPECT_EQ(a.mapped, 20u);
  ASSERT_EQ(a.lines.size(), 4u);
  EXPECT_EQ(a.lines[0], (LineCount{"/src/app.c", 10, "work", 11}));
  EXPECT_EQ(a.lines[1], (LineCount{"/src/other.c", 3, "work", 9}));
  EXPECT_EQ(a.lines[2], (LineCount{"/src/app.c", 11, "work", 4}));
  EXPECT_EQ(a.lines[3], (LineCount{"/src/app.c", 30, "main", 2}));
  // Same-named functions in different files stay apart.
  ASSERT_EQ(a.functions.size(), 3u);
  EXPECT_EQ(a.functions[0], (FunctionCount{"work", "/src/app.c", 15}));
  EXPECT_EQ(a.functions[1], (FunctionCount{"work", "/src/other.c", 9}));
  EXPECT_EQ(a.functions[2], (FunctionCount{"main", "/src/app.c", 2}));
}

TEST(Attribution, TiesAreOrderedByKey) {
  Profile p = base();
  p.stacks = {{{2}, 3}, {{1}, 3}, {{0}, 3}, {{7}, 3}};
  Attribution a = attribute(p);
  ASSERT_EQ(a.lines.size(), 4u);
  EXPECT_EQ(a.lines[0].line, 10);
  EXPECT_EQ(a.lines[1].line, 11);
  EXPECT_EQ(a.lines[2].line, 30);
  EXPECT_EQ(a.lines[3].file, "/src/other.c");
  ASSERT_EQ(a.functions.size(), 3u);
  EXPECT_EQ(a.functions[0].function, "work");  // 6 samples
  EXPECT_EQ(a.functions[1].function, "main");  // 3: "main" < "work"
  EXPECT_EQ(a.functions[2].file, "/src/other.c");
}

TEST(Attribution, ZeroSampleStacksAddNothingVisible) {
  Profile p = base();
  p.stacks = {{{0}, 0}};
  Attribution a = attribute(p);
  EXPECT_EQ(a.total, 0u);
  EXPECT_EQ(a.mapped_share(), 0.0);
  EXPECT_EQ(a.in_scope_share(), 0.0);
  ASSERT_EQ(a.lines.size(), 1u);
  EXPECT_EQ(a.lines[0].samples, 0u);
}

TEST(Attribution, EmptyProfile) {
  Attribution a = attribute(Profile{});
  EXPECT_EQ(a.total, 0u);
  EXPECT_TRUE(a.lines.empty());
  EXPECT_TRUE(a.functions.empty());
  EXPECT_EQ(a.share(5), 0.0);
}

}  // namespace
}  // namespace andweorc::profile
