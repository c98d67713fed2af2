// trace_plan_test.cc: --trace's entry and exit patches of a function, from
// its bytes: every ret gets a patch that ends with it; tail calls, short
// exits and indirect jumps are refused with the reason.
#include "probes/trace_plan.h"

#include <gtest/gtest.h>

namespace andweorc::probes {
namespace {

constexpr uint64_t kAt = 0x401000;

CodeRange function_of(std::initializer_list<uint8_t> bytes) {
  CodeRange r;
  r.vaddr = kAt;
  r.bytes = bytes;
  return r;
}

TEST(TracePlan, EveryRetGetsAPatchEndingWithIt) {
  // 0: push rbx; 1: mov ebx,edi; 3: test edi,edi; 5: je +9 (-> 16);
  // 7: add rax,[rip+0x100] (7); 14: pop rbx; 15: ret;
  // 16: mov eax,1 (5); 21: pop rbx; 22: ret
  CodeRange f = function_of({0x53, 0x89, 0xfb, 0x85, 0xff, 0x74, 0x09, 0x48,
                             0x03, 0x05, 0x00, 0x01, 0x00, 0x00, 0x5b, 0xc3,
                             0xb8, 0x01, 0x00, 0x00, 0x00, 0x5b, 0xc3});
  TracePlan p = plan_trace(f, {});
  ASSERT_TRUE(p.ok) << p.refusal;
  EXPECT_EQ(p.entry.length, 5u);  // push, mov, test
  ASSERT_EQ(p.exit_sites, (std::vector<uint64_t>{kAt + 7, kAt + 16}));
  EXPECT_EQ(p.exits[0].length, 9u);  // add (RIP-relative), pop, ret
  EXPECT_EQ(p.exits[0].insns.back().bytes, std::vector<uint8_t>{0xc3});
  EXPECT_EQ(p.exits[0].insns.front().kind, 'r');
  EXPECT_EQ(p.exits[1].length, 7u);  // mov, pop, ret
}

TEST(TracePlan, TailCallIsRefused) {
  // push rbx; mov ebx,edi; mov eax,1; pop rbx; jmp elsewhere
  CodeRange f = function_of({0x53, 0x89, 0xfb, 0xb8, 0x01, 0x00, 0x00, 0x00,
                             0x5b, 0xe9, 0x00, 0x10, 0x00, 0x00});
  TracePlan p = plan_trace(f, {});
  EXPECT_FALSE(p.ok);
  EXPECT_NE(p.refusal.find("tail call"), std::string::npos) << p.refusal;
}

TEST(TracePlan, ShortExitAfterACallIsRefused) {
  // push rbx; mov ebx,edi; call x; pop rbx; ret: 2 bytes after the call
  CodeRange f =
      function_of({0x53, 0x89, 0xfb, 0xe8, 0x00, 0x10, 0x00, 0x00, 0x5b, 0xc3});
  TracePlan p = plan_trace(f, {});
  EXPECT_FALSE(p.ok);
  EXPECT_NE(p.refusal.find("straight-line"), std::string::npos) << p.refusal;
}

TEST(TracePlan, BranchIntoAnExitIsRefused) {
  // 0: test edi,edi; 2: jne +6 (-> 10); 4: mov eax,1; 9: nop; 10: pop rbx..
  // the jne lands inside the exit's bytes (mov, nop, pop, ret)
  CodeRange f = function_of(
      {0x85, 0xff, 0x75, 0x06, 0xb8, 0x01, 0x00, 0x00, 0x00, 0x90, 0x5b, 0xc3});
  TracePlan p = plan_trace(f, {});
  EXPECT_FALSE(p.ok);
  EXPECT_NE(p.refusal.find("inside the"), std::string::npos) << p.refusal;
}

TEST(TracePlan, IndirectJumpIsRefused) {
  // mov eax,1; jmp rax (ff e0); mov eax,2; ret...
  CodeRange f = function_of({0xb8, 0x01, 0x00, 0x00, 0x00, 0xff, 0xe0, 0xb8,
                             0x02, 0x00, 0x00, 0x00, 0xc3});
  TracePlan p = plan_trace(f, {});
  EXPECT_FALSE(p.ok);
  EXPECT_NE(p.refusal.find("indirect jump"), std::string::npos) << p.refusal;
}

}  // namespace
}  // namespace andweorc::probes
