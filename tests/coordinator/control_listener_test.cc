// control_listener_test.cc: the coordinator's end of the live controls'
// channel: commands taken once and whole (a torn one is taken at the next
// look, another version never), acknowledged; and the pause loop with an
// injected sleep: no return (so no experiment starts) while paused, a
// resume or a stop ends it.
#include "coordinator/control_listener.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace andweorc::coordinator
