// The profiler's handler (installed without SA_ONSTACK) decides from its
// context's uc_stack and its own frame address whether it runs on the
// program's alternate signal stack with too little room, instead of asking
// sigaltstack() at every sample (signal_handlers.h, on_small_altstack_at).
// Checked against the kernel: uc_stack describes the alternate stack in
// every handler (its ss_flags never say SS_ONSTACK: the first version of
// this change read that flag and so never stepped aside), and the handler's
// frame is on it exactly when the interrupted code was.
#include <gtest/gtest.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <ucontext.h>

#include "runtime/signal_handlers.h"

namespace andweorc::runtime {
namespace {

stack_t g_uc_stack;
uintptr_t g_frame = 0;
bool g_small = false;

// Stands in for the profiler's handler: no SA_ONSTACK.
void inner(int, siginfo_t*, void* context) {
  g_uc_stack = static_cast<const ucontext_t*>(context)->uc_stack;
  g_frame = reinterpret_cast<uintptr_t>(__builtin_frame_address(0));
  g_small = on_small_altstack_at(g_uc_stack, g_frame);
}

// Stands in for a program handler on the alternate stack, interrupted there.
void outer(int, siginfo_t*, void*) { raise(SIGUSR2); }

class AltstackContext : public ::testing::TestWithParam<size_t> {};

TEST_P(AltstackContext, SmallOnlyOnTheAlternateStackAndOnlyWhenSmall) {
  const size_t size = GetParam();
  void* mem = malloc(size);
  ASSERT_NE(mem, nullptr);
  const uintptr_t lo = reinterpret_cast<uintptr_t>(mem);
  stack_t ss{}, old_ss{};
  ss.ss_sp = mem;
  ss.ss_size = size;
  ASSERT_EQ(sigaltstack(&ss, &old_ss), 0);

  struct sigaction in {
  }, out{}, old_in{}, old_out{};
  in.sa_sigaction = inner;
  in.sa_flags = SA_SIGINFO;
  sigemptyset(&in.sa_mask);
  out.sa_sigaction = outer;
  out.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigemptyset(&out.sa_mask);
  ASSERT_EQ(sigaction(SIGUSR2, &in, &old_in), 0);
  ASSERT_EQ(sigaction(SIGUSR1, &out, &old_out), 0);

  raise(SIGUSR2);  // interrupts ordinary code on the thread's stack
  EXPECT_EQ(reinterpret_cast<uintptr_t>(g_uc_stack.ss_sp), lo);
  EXPECT_EQ(g_uc_stack.ss_size, size);
  EXPECT_FALSE(g_frame >= lo && g_frame < lo + size);
  EXPECT_FALSE(g_small);

  raise(SIGUSR1);  // outer runs on the alternate stack; inner interrupts it
  EXPECT_EQ(reinterpret_cast<uintptr_t>(g_uc_stack.ss_sp), lo);
  EXPECT_TRUE(g_frame >= lo && g_frame < lo + size);
  // Two signal frames and two small handlers use a few KiB of it.
  EXPECT_EQ(g_small, size <= kHandlerStackRoom);

  sigaction(SIGUSR2, &old_in, nullptr);
  sigaction(SIGUSR1, &old_out, nullptr);
  sigaltstack(&old_ss, nullptr);
  free(mem);
}

// A MINSIGSTKSZ-sized stack a program might use, and a roomy one.
INSTANTIATE_TEST_SUITE_P(Sizes, AltstackContext,
                         ::testing::Values(size_t(12 * 1024),
                                           size_t(256 * 1024)));

TEST(AltstackDecision, DisabledOrDisarmedStackIsNeverOn) {
  alignas(16) static char mem[8192];
  stack_t ss{};
  ss.ss_sp = mem;
  ss.ss_size = sizeof mem;
  const uintptr_t inside = reinterpret_cast<uintptr_t>(mem) + 4096;
  EXPECT_TRUE(on_small_altstack_at(ss, inside));
  EXPECT_FALSE(on_small_altstack_at(ss, reinterpret_cast<uintptr_t>(mem) - 8));
  EXPECT_FALSE(on_small_altstack_at(ss, inside + sizeof mem));
  ss.ss_flags = SS_DISABLE;
  EXPECT_FALSE(on_small_altstack_at(ss, inside));
  ss.ss_flags = 0;
  ss.ss_size = 0;  // SS_AUTODISARM: the kernel zeroes it while in use
  EXPECT_FALSE(on_small_altstack_at(ss, inside));
}

}  // namespace
}  // namespace andweorc::runtime
