// patch_plan_test.cc: the tool's decision to patch a probe address and the
// relocation of the displaced instructions: bytes in, plan (or refusal) out.
#include "probes/patch_plan.h"

#include <gtest/gtest.h>

#include <cstring>

namespace andweorc::probes {
namespace {

constexpr uint64_t kBase = 0x401000;

CodeRange code(std::initializer_list<uint8_t> bytes, uint64_t at = kBase) {
  CodeRange r;
  r.vaddr = at;
  r.bytes = bytes;
  return r;
}

PatchPlan plan(const CodeRange& f, uint64_t site,
               const std::vector<CodeRange>& others = {}) {
  return plan_patch(f, others, site);
}

TEST(PatchPlan, PrologueIsCopiedVerbatim) {
  // push rbp; mov rbp,rsp; sub rsp,0x10; leave; ret
  CodeRange f =
      code({0x55, 0x48, 0x89, 0xe5, 0x48, 0x83, 0xec, 0x10, 0xc9, 0xc3});
  PatchPlan p = plan(f, kBase);
  ASSERT_TRUE(p.ok) << p.refusal;
  EXPECT_EQ(p.length, 8u);  // 1 + 3 + 4: the first boundary >= 5
  ASSERT_EQ(p.insns.size(), 3u);
  for (const auto& i : p.insns) EXPECT_EQ(i.kind, 'c');
  EXPECT_EQ(p.insns[1].bytes, (std::vector<uint8_t>{0x48, 0x89, 0xe5}));
  EXPECT_EQ(p.original,
            std::vector<uint8_t>(f.bytes.begin(), f.bytes.begin() + 8));
  EXPECT_EQ(encode_patch(p), "8:554889e54883ec10:c55,c4889e5,c4883ec10");
}

TEST(PatchPlan, RipRelativeOperandKeepsItsTarget) {
  // mov eax, [rip+0x100]; cmp dword [rip+0x20], 5 (imm after disp); ret
  CodeRange f = code({0x8b, 0x05, 0x00, 0x01, 0x00, 0x00,        //
                      0x83, 0x3d, 0x20, 0x00, 0x00, 0x00, 0x05,  //
                      0xc3});
  PatchPlan p = plan(f, kBase);
  ASSERT_TRUE(p.ok) << p.refusal;
  EXPECT_EQ(p.length, 6u);
  ASSERT_EQ(p.insns.size(), 1u);
  EXPECT_EQ(p.insns[0].kind, 'r');
  EXPECT_EQ(p.insns[0].fix, 2);
  EXPECT_EQ(p.insns[0].target, kBase + 6 + 0x100);

  PatchPlan q = plan(f, kBase + 6);  // the cmp: disp32 then imm8
  ASSERT_TRUE(q.ok) << q.refusal;
  ASSERT_EQ(q.insns.size(), 1u);
  EXPECT_EQ(q.insns[0].fix, 2);
  EXPECT_EQ(q.insns[0].target, kBase + 13 + 0x20);  // from the end
}

TEST(PatchPlan, ShortBranchesBecomeRel32) {
  // test edi,edi; je +0x07; mov eax,1; nop x7 (the je target); ret
  CodeRange f = code({0x85, 0xff, 0x74, 0x0c, 0xb8, 0x01, 0x00, 0x00, 0x00,
                      0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0xc3});
  PatchPlan p = plan(f, kBase);
  ASSERT_TRUE(p.ok) << p.refusal;
  EXPECT_EQ(p.length, 9u);
  ASSERT_EQ(p.insns.size(), 3u);
  EXPECT_EQ(p.insns[1].kind, 'r');
  EXPECT_EQ(p.insns[1].bytes,
            (std::vector<uint8_t>{0x0f, 0x84, 0, 0, 0, 0}));  // je rel32
  EXPECT_EQ(p.insns[1].fix, 2);
  EXPECT_EQ(p.insns[1].target, kBase + 4 + 0x0c);
  // jmp rel8 -> jmp rel32 (the last displaced instruction).
  CodeRange g = code({0x31, 0xc0, 0x31, 0xc9, 0xeb, 0x02, 0x90, 0x90, 0xc3});
  PatchPlan j = plan(g, kBase);
  ASSERT_TRUE(j.ok) << j.refusal;
  EXPECT_EQ(j.insns.back().bytes, (std::vector<uint8_t>{0xe9, 0, 0, 0, 0}));
  EXPECT_EQ(j.insns.back().target, kBase + 8);
}

TEST(PatchPlan, DirectCallIsEmulatedAndLast) {
  // call rel32 (to kBase+0x100); ret
  CodeRange f = code({0xe8, 0xfb, 0x00, 0x00, 0x00, 0xc3});
  PatchPlan p = plan(f, kBase);
  ASSERT_TRUE(p.ok) << p.refusal;
  ASSERT_EQ(p.insns.size(), 1u);
  EXPECT_EQ(p.insns[0].kind, 'C');
  EXPECT_EQ(p.insns[0].target, kBase + 0x100);
  EXPECT_EQ(encode_patch(p), "5:e8fb000000:C401100");
}

TEST(PatchPlan, RefusesABranchIntoTheDisplacedBytes) {
  // site: xor eax,eax; xor ecx,ecx; inc eax; ... jne back to the second xor
  CodeRange f =
      code({0x31, 0xc0, 0x31, 0xc9, 0xff, 0xc0, 0x39, 0xf8, 0x75, 0xf8, 0xc3});
  PatchPlan p = plan(f, kBase);
  EXPECT_FALSE(p.ok);
  EXPECT_NE(p.refusal.find("branches to 0x401002"), std::string::npos)
      << p.refusal;
  // A branch to the site itself is fine (it lands on the jump).
  CodeRange g =
      code({0x31, 0xc0, 0x31, 0xc9, 0xff, 0xc0, 0x39, 0xf8, 0x75, 0xf6, 0xc3});
  EXPECT_TRUE(plan(g, kBase).ok) << plan(g, kBase).refusal;
}

TEST(PatchPlan, ScansTheColdPartToo) {
  CodeRange f = code({0x31, 0xc0, 0x31, 0xc9, 0xff, 0xc0, 0xc3});
  // f.cold elsewhere: jmp rel32 back to kBase+2.
  CodeRange cold = code({0xe9, 0x00, 0x00, 0x00, 0x00}, kBase + 0x1000);
  int32_t rel = int32_t(int64_t(kBase + 2) - int64_t(kBase + 0x1005));
  std::memcpy(&cold.bytes[1], &rel, 4);
  cold.is_entry = false;
  EXPECT_TRUE(plan(f, kBase).ok);
  PatchPlan p = plan(f, kBase, {cold});
  EXPECT_FALSE(p.ok);
  EXPECT_NE(p.refusal.find("0x402000 branches to 0x401002"), std::string::npos)
      << p.refusal;
}

TEST(PatchPlan, IndirectJumpsAllowOnlyTheEntry) {
  // mov eax,1; mov ecx,2; jmp rax; ret
  CodeRange f = code({0xb8, 0x01, 0x00, 0x00, 0x00, 0xb9, 0x02, 0x00, 0x00,
                      0x00, 0xff, 0xe0, 0xc3});
  EXPECT_TRUE(plan(f, kBase).ok) << plan(f, kBase).refusal;
  PatchPlan p = plan(f, kBase + 5);
  EXPECT_FALSE(p.ok);
  EXPECT_NE(p.refusal.find("indirect jump at 0x40100a"), std::string::npos)
      << p.refusal;
  f.is_entry = false;  // a .cold part: its start is no entry
  EXPECT_FALSE(plan(f, kBase).ok);
}

TEST(PatchPlan, RefusesWhatCannotBeRelocated) {
  // loop -2 in the displaced bytes
  CodeRange loop = code({0x31, 0xc0, 0xe2, 0xfc, 0x90, 0x90, 0xc3});
  PatchPlan p = plan(loop, kBase);
  EXPECT_FALSE(p.ok);
  EXPECT_NE(p.refusal.find("loop, jrcxz or xbegin"), std::string::npos)
      << p.refusal;
  // call rax: the callee would return into the trampoline
  CodeRange icall = code({0x31, 0xc0, 0x31, 0xc9, 0xff, 0xd0, 0xc3});
  p = plan(icall, kBase);
  EXPECT_FALSE(p.ok);
  EXPECT_NE(p.refusal.find("indirect call"), std::string::npos) << p.refusal;
  // an int3 already there
  CodeRange trap = code({0xcc, 0x90, 0x90, 0x90, 0x90, 0x90, 0xc3});
  p = plan(trap, kBase);
  EXPECT_FALSE(p.ok);
  EXPECT_NE(p.refusal.find("int3"), std::string::npos) << p.refusal;
}

TEST(PatchPlan, RefusesShortFunctionsAndOddAddresses) {
  // xor eax,eax; ret: 3 bytes, then the function ends
  PatchPlan p = plan(code({0x31, 0xc0, 0xc3}), kBase);
  EXPECT_FALSE(p.ok);
  EXPECT_NE(p.refusal.find("ends the flow"), std::string::npos) << p.refusal;
  p = plan(code({0x31, 0xc0, 0x90}), kBase);
  EXPECT_FALSE(p.ok);
  EXPECT_NE(p.refusal.find("function ends"), std::string::npos) << p.refusal;
  // a call that is not the last displaced instruction: its return address
  // would be inside the jump
  p = plan(code({0xe8, 0x00, 0x00, 0x00, 0x00, 0xc3}, kBase), kBase);
  EXPECT_TRUE(p.ok);
  p = plan(code({0x90, 0xe8, 0x00, 0x00, 0x00, 0x00, 0xc3}), kBase + 1);
  EXPECT_TRUE(p.ok) << p.refusal;  // the call ends exactly at >= 5
  p = plan(code({0x31, 0xc0, 0x31, 0xc9, 0x90, 0xc3}), kBase + 1);
  EXPECT_FALSE(p.ok);
  EXPECT_NE(p.refusal.find("instruction boundary"), std::string::npos)
      << p.refusal;
  // bytes that do not decode
  p = plan(code({0x31, 0xc0, 0x31, 0xc9, 0x90, 0x06}), kBase);
  EXPECT_FALSE(p.ok);
  EXPECT_NE(p.refusal.find("does not decode"), std::string::npos) << p.refusal;
}

}  // namespace
}  // namespace andweorc::probes
