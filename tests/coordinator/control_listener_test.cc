// control_listener_test.cc: the coordinator's end of the live controls'
// channel: commands taken once and whole (a torn one is taken at the next
// look, another version never), acknowledged; and the pause loop with an
// injected sleep: no return (so no experiment starts) while paused, a
// resume or a stop ends it.
#include "coordinator/control_listener.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <functional>

namespace andweorc::coordinator {
namespace {

using runtime::ControlAck;
using runtime::ControlBlock;
using runtime::ControlCommand;

uint64_t send_paused(ControlBlock* b, bool paused) {
  ControlCommand c;
  c.paused = paused ? 1 : 0;
  return runtime::control_send(b, c);
}

TEST(ControlListener, TakesEachCommandOnceAndWhole) {
  ControlBlock block;
  runtime::control_init(&block);
  ControlListener l(&block);
  EXPECT_FALSE(l.pending());
  EXPECT_FALSE(l.take());
  uint64_t seq = send_paused(&block, true);
  EXPECT_TRUE(l.pending());
  block.seq = seq - 1;  // the tool is writing it (odd)
  EXPECT_FALSE(l.take());
  block.seq = seq;
  auto c = l.take();
  ASSERT_TRUE(c);
  EXPECT_EQ(c->seq, seq);
  EXPECT_EQ(c->paused, 1u);
  EXPECT_FALSE(l.pending());
  EXPECT_FALSE(l.take());
  ControlAck a;
  a.seq = seq;
  a.paused = 1;
  l.acknowledge(a);
  ControlAck back;
  ASSERT_TRUE(runtime::control_read_ack(&block, &back));
  EXPECT_EQ(back.seq, seq);
}

TEST(ControlListener, RefusesAnotherVersionOnceAndForGood) {
  ControlBlock block;
  runtime::control_init(&block);
  block.version = runtime::kControlVersion + 1;
  ControlListener l(&block);
  send_paused(&block, true);
  std::string refused;
  EXPECT_FALSE(l.take(&refused));
  EXPECT_NE(refused.find("version"), std::string::npos) << refused;
  block.version = runtime::kControlVersion;
  send_paused(&block, true);
  EXPECT_FALSE(l.pending());
  EXPECT_FALSE(l.take());
}

struct Loop : ::testing::Test {
  ControlBlock block;
  std::unique_ptr<ControlListener> listener;
  ControlLoop loop;
  int sleeps = 0;
  int applied = 0;
  std::function<void(int)> on_sleep = [](int) {};
  void SetUp() override {
    runtime::control_init(&block);
    listener = std::make_unique<ControlListener>(&block);
    loop.listener = listener.get();
    loop.apply = [this](const ControlCommand& c) {
      ++applied;
      ControlAck a;
      a.paused = c.paused;
      return a;
    };
    loop.sleep = [this](uint64_t ns) {
      EXPECT_EQ(ns, loop.slice_ns);
      on_sleep(++sleeps);
    };
  }
};

TEST_F(Loop, NoCommandNoWait) {
  bool stop = false;
  EXPECT_TRUE(loop.wait_while_paused(&stop));
  EXPECT_EQ(sleeps, 0);
  EXPECT_EQ(applied, 0);
}

TEST_F(Loop, PausedUntilResumed) {
  bool stop = false;
  uint64_t pause = send_paused(&block, true);
  uint64_t resume = 0;
  // The tool resumes during the fifth slice of the wait.
  on_sleep = [&](int n) {
    ControlAck a;
    ASSERT_TRUE(runtime::control_read_ack(&block, &a));
    EXPECT_EQ(a.seq, pause);  // acknowledged before the first slice
    if (n == 5) resume = send_paused(&block, false);
  };
  EXPECT_TRUE(loop.wait_while_paused(&stop));
  EXPECT_EQ(sleeps, 5);
  EXPECT_EQ(applied, 2);
  EXPECT_FALSE(loop.paused);
  ControlAck a;
  ASSERT_TRUE(runtime::control_read_ack(&block, &a));
  EXPECT_EQ(a.seq, resume);
  EXPECT_EQ(a.paused, 0u);
}

TEST_F(Loop, AStopEndsThePause) {
  bool stop = false;
  send_paused(&block, true);
  on_sleep = [&](int n) {
    if (n == 3) stop = true;
  };
  EXPECT_FALSE(loop.wait_while_paused(&stop));
  EXPECT_EQ(sleeps, 3);
  EXPECT_TRUE(loop.paused);
}

TEST_F(Loop, OnlyTheNewestOfSeveralCommandsIsApplied) {
  bool stop = false;
  send_paused(&block, true);
  uint64_t last = send_paused(&block, false);
  EXPECT_TRUE(loop.wait_while_paused(&stop));
  EXPECT_EQ(applied, 1);
  EXPECT_EQ(sleeps, 0);
  ControlAck a;
  ASSERT_TRUE(runtime::control_read_ack(&block, &a));
  EXPECT_EQ(a.seq, last);
}

// The probe half: a probe command is taken once, handed to the handler
// (the coordinator's: runtime/probe_live.h) and acknowledged with its seq
// and id; it leaves the pause as it was; without a handler it is refused.
int g_probe_calls = 0;
runtime::ProbeAck count_probe(const runtime::ProbeCommand& c) {
  ++g_probe_calls;
  runtime::ProbeAck a;
  a.sites = c.action == runtime::ProbeAction::kAdd ? 2 : 0;
  return a;
}

TEST(ControlListener, ProbeCommandsAreAppliedOnceAndAcknowledged) {
  ControlBlock block;
  runtime::control_init(&block);
  ControlListener l(&block);
  ControlLoop loop;
  loop.listener = &l;
  loop.apply = [](const ControlCommand&) { return ControlAck(); };
  loop.sleep = [](uint64_t) {};
  runtime::ProbeCommand p;
  p.action = runtime::ProbeAction::kAdd;
  p.id = 7;
  std::snprintf(p.lines, sizeof p.lines, "steps\t1\t/bin/x\t10\t10\tplan");
  uint64_t seq = runtime::control_send_probe(&block, p);
  // Without a handler: refused, acknowledged all the same.
  EXPECT_TRUE(l.pending());
  EXPECT_FALSE(loop.poll());  // no pause/pin command was applied
  runtime::ProbeAck back;
  ASSERT_TRUE(runtime::control_read_probe_ack(&block, &back));
  EXPECT_EQ(back.seq, seq);
  EXPECT_EQ(back.id, 7u);
  EXPECT_EQ(back.status, 1);
  EXPECT_NE(std::string(back.error).find("not supported"), std::string::npos);

  l.set_probe_handler(count_probe);
  g_probe_calls = 0;
  seq = runtime::control_send_probe(&block, p);
  block.probe_seq = seq - 1;  // being written: not taken
  EXPECT_FALSE(loop.poll());
  EXPECT_EQ(g_probe_calls, 0);
  block.probe_seq = seq;
  EXPECT_FALSE(loop.poll());
  EXPECT_EQ(g_probe_calls, 1);
  EXPECT_FALSE(l.pending());
  loop.poll();
  EXPECT_EQ(g_probe_calls, 1);  // once
  ASSERT_TRUE(runtime::control_read_probe_ack(&block, &back));
  EXPECT_EQ(back.seq, seq);
  EXPECT_EQ(back.status, 0);
  EXPECT_EQ(back.sites, 2u);
  EXPECT_EQ(loop.applied, 0u);
  EXPECT_FALSE(loop.paused);

  // A pause and a probe together: both applied at one look.
  send_paused(&block, true);
  p.action = runtime::ProbeAction::kRemove;
  runtime::control_send_probe(&block, p);
  EXPECT_TRUE(loop.poll());
  EXPECT_EQ(g_probe_calls, 2);
  EXPECT_TRUE(loop.paused);
}

}  // namespace
}  // namespace andweorc::coordinator
