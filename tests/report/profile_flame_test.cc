// profile_flame_test.cc: the HTML report's flame graphs from a written
// profile: frames named as the exports name them, inlined callees as
// frames, an empty stack as [unknown]; the differential graph of a traced
// function's slow calls carries the other calls' samples at each path.
#include "report/profile_flame.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "profile/trace_view.h"
#include "report/flame_json.h"
#include "report/slow_calls.h"
#include "support/flame_text.h"

namespace andweorc::report {
namespace {

using ::andweorc::testing::flame_text;

profile::Frame named_frame(const std::string& function, bool inlined = false) {
  profile::Frame f;
  f.function = function;
  f.module = "/usr/bin/prog";
  f.inlined = inlined;
  return f;
}

// main -> run -> hash (inlined into run: a frame of its own), main -> io in
// a library without symbols, and a stack with no frame at all.
profile::Profile profile_with_stacks() {
  profile::Profile p;
  p.frames = {named_frame("hash", true), named_frame("run"),
              named_frame("main"), named_frame(""), named_frame("io")};
  p.frames[3].module = "/lib/libz.so.1";
  p.stacks = {profile::Stack{{0, 1, 2}, 6, {}},  // leaf first
              profile::Stack{{1, 2}, 2, {}}, profile::Stack{{3, 4, 2}, 3, {}},
              profile::Stack{{}, 1, {}}};
  p.samples = 12;
  return p;
}

TEST(ProfileFlame, FramesAreTheExportsFunctionsOutermostFirst) {
  FlameGraph g = profile_flame(profile_with_stacks(), 0, 100);
  EXPECT_EQ(g.samples, 12u);
  EXPECT_EQ(flame_text(g), (std::vector<std::string>{
                               "[unknown]:1@1", "main:11@1", "io:3@2",
                               "[libz.so.1]:3@3", "run:8@2", "hash:6@3"}));
  EXPECT_TRUE(g.base.empty());
  EXPECT_FALSE(flame_json(g).contains("base_samples"));
}

TEST(ProfileFlame, TheDifferentialGraphCarriesTheBaseAtEachPath) {
  profile::Profile slow = profile_with_stacks();
  profile::Profile fast;
  fast.frames = slow.frames;
  fast.stacks = {profile::Stack{{1, 2}, 10, {}},  // main -> run
                 profile::Stack{{4, 2}, 5, {}}};  // main -> io
  FlameGraph g = profile_flame_against(slow, fast, 0, 100);
  ASSERT_EQ(g.base.size(), g.nodes.size());
  EXPECT_EQ(g.base_samples, 15u);
  // [unknown] 0, main 15, io 5, [libz.so.1] 0 (under io only in slow),
  // run 10, hash 0.
  EXPECT_EQ(g.base, (std::vector<uint64_t>{0, 15, 5, 0, 10, 0}));
  auto j = flame_json(g);
  EXPECT_EQ(j["base_samples"], 15);
  EXPECT_EQ(j["nodes"][1], nlohmann::ordered_json({1, 11, 1, 15}));
}

TEST(ProfileFlame, TheHtmlTraceDataHasTheSlowCallsGraph) {
  profile::Profile p;
  p.frames = {named_frame("slow_path"), named_frame("handle"),
              named_frame("fast_part")};
  p.stacks = {profile::Stack{{0, 1}, 9, {}}, profile::Stack{{2, 1}, 21, {}}};
  p.samples = 30;
  profile::TracedFunction t;
  t.name = "handle";
  // 19 calls of 1 us, one of 9 us: the p95 is 1 us, the slow call is
  // the 9 us one, with 9 samples in slow_path and 2 in fast_part.
  for (int i = 0; i < 19; ++i) t.durations_ns.push_back(1000);
  t.durations_ns.push_back(9000);
  t.samples = {profile::TraceSample{0, 9000, 9},
               profile::TraceSample{1, 1000, 19},
               profile::TraceSample{1, 9000, 2}};
  p.traces.push_back(t);
  auto j = trace_html_json(p, 10);
  const auto& f = j[0]["flame"];
  EXPECT_EQ(j[0]["slow_threshold_ns"], 1000);
  EXPECT_EQ(f["samples"], 11);
  EXPECT_EQ(f["base_samples"], 19);
  EXPECT_EQ(f["names"],
            nlohmann::ordered_json({"handle", "fast_part", "slow_path"}));
  // handle: 11 in slow calls, 19 in the others; fast_part 2 vs 19;
  // slow_path 9 vs none.
  EXPECT_EQ(f["nodes"], nlohmann::ordered_json(
                            {{0, 11, 1, 19}, {1, 2, 2, 19}, {2, 9, 2, 0}}));
}

}  // namespace
}  // namespace andweorc::report
