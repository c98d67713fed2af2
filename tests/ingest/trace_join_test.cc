// trace_join_test.cc: samples joined to traced calls by thread and time
// (synthetic calls and samples): the innermost call of a function holds a
// sample, other threads' calls never do, gaps hold none.
#include "ingest/trace_join.h"

#include <gtest/gtest.h>

namespace andweorc::ingest {
namespace {

RawTraceCall call(uint32_t tid, uint32_t fn, uint64_t start, uint64_t end) {
  return RawTraceCall{tid, fn, start, end, 0};
}

TEST(CallIndex, InnermostRecursiveCallHoldsTheSample) {
  // f(100..900) { f(200..500) { f(300..400) } } then f(600..700) inside the
  // outer one, on thread 1; thread 2 has f(0..1000).
  std::vector<RawTraceCall> calls = {call(1, 0, 300, 400), call(1, 0, 200, 500),
                                     call(1, 0, 600, 700), call(1, 0, 100, 900),
                                     call(2, 0, 0, 1000)};
  CallIndex index(calls);
  auto at = [&](uint32_t tid, uint64_t t) {
    const RawTraceCall* c = index.innermost(tid, 0, t);
    return c == nullptr ? std::pair<uint64_t, uint64_t>{0, 0}
                        : std::pair<uint64_t, uint64_t>{c->start_ns, c->end_ns};
  };
  using P = std::pair<uint64_t, uint64_t>;
  EXPECT_EQ(at(1, 350), P(300, 400));
  EXPECT_EQ(at(1, 450), P(200, 500));  // after the innermost ended
  EXPECT_EQ(at(1, 550), P(100, 900));  // between two children
  EXPECT_EQ(at(1, 650), P(600, 700));
  EXPECT_EQ(at(1, 850), P(100, 900));
  EXPECT_EQ(at(1, 950), P(0, 0));  // after every call of thread 1
  EXPECT_EQ(at(1, 50), P(0, 0));   // before
  EXPECT_EQ(at(2, 950), P(0, 1000));
  EXPECT_EQ(index.innermost(3, 0, 500), nullptr);  // no such thread
  EXPECT_EQ(index.innermost(1, 1, 500), nullptr);  // no such function
}

TEST(TraceBuilder, SamplesCarryTheirCallsDuration) {
  RawProcess p;
  p.trace_functions = {{0, "f", true}, {1, "g", true}};
  // f: a 100 ns call and a 1000 ns call on thread 7; g inside the long one.
  p.trace_calls = {call(7, 0, 0, 100), call(7, 1, 500, 600),
                   call(7, 0, 200, 1200)};
  p.trace_stats.no_return = 2;
  TraceBuilder b;
  b.begin_process(p);
  int stack_a = 0, stack_b = 0;  // two distinct stack keys
  RawSample s;
  s.tid = 7;
  s.weight = 1;
  for (uint64_t t : {50u, 300u, 550u, 1100u, 1500u}) {
    s.time_ns = t;
    b.add_sample(s, t == 550 ? &stack_b : &stack_a);
  }
  s.tid = 8;  // another thread at a time inside f's call: not f's
  s.time_ns = 300;
  b.add_sample(s, &stack_a);
  profile::Profile out;
  b.finish([&](const void* k) { return k == &stack_a ? 0u : 1u; }, &out);
  ASSERT_EQ(out.traces.size(), 2u);
  const auto& f = out.traces[0];
  EXPECT_EQ(f.name, "f");
  EXPECT_EQ(f.durations_ns, (std::vector<uint64_t>{100, 1000}));
  // 50 -> the short call; 300 and 1100 -> the long one (stack a), 550 ->
  // the long one (stack b); 1500 and thread 8 -> none.
  ASSERT_EQ(f.samples.size(), 3u);
  EXPECT_EQ(f.samples[0], (profile::TraceSample{0, 100, 1}));
  EXPECT_EQ(f.samples[1], (profile::TraceSample{0, 1000, 2}));
  EXPECT_EQ(f.samples[2], (profile::TraceSample{1, 1000, 1}));
  const auto& g = out.traces[1];
  ASSERT_EQ(g.samples.size(), 1u);
  EXPECT_EQ(g.samples[0], (profile::TraceSample{1, 100, 1}));
  ASSERT_EQ(out.warnings.size(), 1u);
  EXPECT_NE(out.warnings[0].find("2 left by an exception"), std::string::npos);
}

}  // namespace
}  // namespace andweorc::ingest
