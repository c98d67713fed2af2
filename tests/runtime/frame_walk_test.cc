// Tests for the frame-pointer walk the timer fallback uses.
#include "runtime/frame_walk.h"

#include <gtest/gtest.h>

namespace andweorc::runtime {
namespace {

// A fake stack: frames at increasing addresses, each {saved fp, return}.
struct FakeStack {
  alignas(16) uintptr_t words[64] = {};
  uintptr_t addr(int i) const { return reinterpret_cast<uintptr_t>(&words[i]); }
  uintptr_t lo() const { return addr(0); }
  uintptr_t hi() const { return addr(64); }
};

TEST(FrameWalk, FollowsTheChainToTheOutermostFrame) {
  FakeStack s;
  // frame A at 4 -> frame B at 10 -> frame C at 20 -> end (saved fp 0)
  s.words[4] = s.addr(10);
  s.words[5] = 0x1111;
  s.words[10] = s.addr(20);
  s.words[11] = 0x2222;
  s.words[20] = 0;
  s.words[21] = 0x3333;
  uint64_t out[8];
  int n = walk_frame_pointers(s.addr(4), s.lo(), s.hi(), out, 8);
  ASSERT_EQ(n, 3);
  EXPECT_EQ(out[0], 0x1111u);
  EXPECT_EQ(out[1], 0x2222u);
  EXPECT_EQ(out[2], 0x3333u);
}

TEST(FrameWalk, StopsWhenTheChainGoesBackwards) {
  FakeStack s;
  s.words[10] = s.addr(4);  // points below itself: not a frame chain
  s.words[11] = 0xAAAA;
  s.words[4] = s.addr(10);
  s.words[5] = 0xBBBB;
  uint64_t out[8];
  int n = walk_frame_pointers(s.addr(10), s.lo(), s.hi(), out, 8);
  EXPECT_EQ(n, 1);
  EXPECT_EQ(out[0], 0xAAAAu);
}

TEST(FrameWalk, NeverReadsOutsideTheStack) {
  FakeStack s;
  uint64_t out[8];
  // fp outside bounds, misaligned, or too close to the top: no frames.
  EXPECT_EQ(walk_frame_pointers(s.hi() + 64, s.lo(), s.hi(), out, 8), 0);
  EXPECT_EQ(walk_frame_pointers(s.addr(4) + 3, s.lo(), s.hi(), out, 8), 0);
  EXPECT_EQ(walk_frame_pointers(s.addr(63), s.lo(), s.hi(), out, 8), 0);
  EXPECT_EQ(walk_frame_pointers(0, s.lo(), s.hi(), out, 8), 0);
  // A chain that leaves the stack stops at the edge.
  s.words[4] = s.hi() + 128;
  s.words[5] = 0x1234;
  EXPECT_EQ(walk_frame_pointers(s.addr(4), s.lo(), s.hi(), out, 8), 1);
}

TEST(FrameWalk, RespectsCapacity) {
  FakeStack s;
  for (int i = 0; i < 30; i += 2) {
    s.words[i] = s.addr(i + 2);
    s.words[i + 1] = 0x100 + i;
  }
  uint64_t out[4];
  EXPECT_EQ(walk_frame_pointers(s.addr(0), s.lo(), s.hi(), out, 4), 4);
}

}  // namespace
}  // namespace andweorc::runtime
