// trampoline_test.cc: the runtime's half of patching. The plan's text form
// round-trips, the trampoline's bytes decode (Capstone) to the count, the
// relocated instructions with their targets intact, and the jump back; and
// a live patch of functions in this process counts every call exactly,
// from several threads, with the functions' results unchanged.
#include "runtime/trampoline.h"

#include <capstone/capstone.h>
#include <gtest/gtest.h>
#include <link.h>
#include <signal.h>
#include <sys/ucontext.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <thread>
#include <vector>

#include "probes/patch_plan.h"
#include "probes/patch_sites.h"
#include "runtime/code_patch.h"

namespace andweorc {
namespace {

using runtime::PatchSpec;

PatchSpec parsed(const probes::PatchPlan& plan) {
  std::string text = probes::encode_patch(plan);
  PatchSpec spec;
  EXPECT_TRUE(runtime::parse_patch_spec(text.data(), text.size(), &spec))
      << text;
  return spec;
}

struct Insn {
  uint64_t address;
  std::string mnemonic, operands;
};

std::vector<Insn> disassemble(const uint8_t* code, size_t n, uint64_t at) {
  csh h;
  EXPECT_EQ(cs_open(CS_ARCH_X86, CS_MODE_64, &h), CS_ERR_OK);
  cs_insn* insn = nullptr;
  size_t count = cs_disasm(h, code, n, at, 0, &insn);
  std::vector<Insn> out;
  for (size_t i = 0; i < count; ++i)
    out.push_back({insn[i].address, insn[i].mnemonic, insn[i].op_str});
  cs_free(insn, count);
  cs_close(&h);
  return out;
}

TEST(PatchSpecText, RoundTripsAndRejectsBadText) {
  probes::CodeRange f;
  f.vaddr = 0x1000;
  // mov eax,[rip+0x100]; je +2; nop; nop; ret
  f.bytes = {0x8b, 0x05, 0x00, 0x01, 0x00, 0x00, 0x74, 0x02, 0x90, 0x90, 0xc3};
  probes::PatchPlan plan = probes::plan_patch(f, {}, 0x1000);
  ASSERT_TRUE(plan.ok) << plan.refusal;
  PatchSpec spec = parsed(plan);
  EXPECT_EQ(spec.length, 6);
  ASSERT_EQ(spec.count, 1);
  EXPECT_EQ(spec.insns[0].kind, 'r');
  EXPECT_EQ(spec.insns[0].fix, 2);
  EXPECT_EQ(spec.insns[0].target, 0x1106u);
  EXPECT_EQ(std::memcmp(spec.original, f.bytes.data(), 6), 0);
  for (const char* bad :
       {"", "4:90909090:c90", "6:8b0500010000:", "6:8b05000100:c90",
        "6:8b0500010000:x90", "6:8b0500010000:r8b0500010000/9/1106",
        "6:8b0500010000:c9", "6:8b0500010000:c90,"}) {
    PatchSpec s;
    EXPECT_FALSE(runtime::parse_patch_spec(bad, std::strlen(bad), &s)) << bad;
  }
}

std::string fmt_hex(uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%llx", (unsigned long long)v);
  return buf;
}

TEST(Trampoline, CountsThenRunsTheRelocatedCodeAndJumpsBack) {
  probes::CodeRange f;
  f.vaddr = 0x401000;
  // test edi,edi; je +0x10; mov eax,[rip+0x100]; nop...; ret
  f.bytes = {0x85, 0xff, 0x74, 0x10, 0x8b, 0x05, 0x00, 0x01, 0x00, 0x00};
  f.bytes.resize(0x20, 0x90);
  f.bytes.push_back(0xc3);
  probes::PatchPlan plan = probes::plan_patch(f, {}, 0x401000);
  ASSERT_TRUE(plan.ok) << plan.refusal;
  PatchSpec spec = parsed(plan);
  const uint64_t bias = 0x7f0000000000, site = 0x401000 + bias;
  const uint64_t tramp = site - 0x100000, counter = tramp + 0x2000;
  uint8_t out[runtime::kTrampolineBytes];
  size_t n = runtime::build_trampoline(spec, bias, site, counter, out, tramp,
                                       sizeof out);
  ASSERT_GT(n, 0u);
  std::vector<Insn> code = disassemble(out, n, tramp);
  ASSERT_EQ(code.size(), 9u);
  EXPECT_EQ(code[0].mnemonic + " " + code[0].operands, "lea rsp, [rsp - 0x80]");
  EXPECT_EQ(code[1].mnemonic, "pushfq");
  EXPECT_EQ(code[2].mnemonic, "lock add");
  // Capstone shows RIP-relative operands as [rip + disp]: check the target.
  int32_t disp;
  std::memcpy(&disp, out + (code[3].address - tramp) - 5, 4);  // then imm8
  EXPECT_EQ(code[3].address + uint64_t(int64_t(disp)), counter);
  EXPECT_EQ(code[3].mnemonic, "popfq");
  EXPECT_EQ(code[4].mnemonic + " " + code[4].operands, "lea rsp, [rsp + 0x80]");
  EXPECT_EQ(code[5].mnemonic + " " + code[5].operands, "test edi, edi");
  EXPECT_EQ(code[6].mnemonic, "je");  // now rel32, to the same target
  EXPECT_EQ(code[6].operands, fmt_hex(site + 4 + 0x10));
  EXPECT_EQ(code[7].mnemonic, "mov");  // the relocated load
  std::memcpy(&disp, out + (code[8].address - tramp) - 4, 4);
  EXPECT_EQ(code[8].address + uint64_t(int64_t(disp)), site + 10 + 0x100);
  EXPECT_EQ(code[8].mnemonic, "jmp");  // back after the displaced bytes
  EXPECT_EQ(code[8].operands, fmt_hex(site + 10));
  // Too far: the counter more than 2 GB away.
  EXPECT_EQ(runtime::build_trampoline(spec, bias, site, tramp + (3ull << 30),
                                      out, tramp, sizeof out),
            0u);
}

TEST(Trampoline, CallReturnsToTheOriginalCode) {
  probes::CodeRange f;
  f.vaddr = 0x401000;
  f.bytes = {0xe8, 0xfb, 0x0f, 0x00, 0x00, 0xc3};  // call 0x402000; ret
  probes::PatchPlan plan = probes::plan_patch(f, {}, 0x401000);
  ASSERT_TRUE(plan.ok) << plan.refusal;
  PatchSpec spec = parsed(plan);
  const uint64_t bias = 0x555500000000, site = 0x401000 + bias;
  const uint64_t tramp = site + 0x100000;
  uint8_t out[runtime::kTrampolineBytes];
  size_t n = runtime::build_trampoline(spec, bias, site, tramp + 0x2000, out,
                                       tramp, sizeof out);
  std::vector<Insn> code = disassemble(out, n, tramp);
  ASSERT_EQ(code.size(), 10u);
  // lea rsp,[rsp-8]; mov dword [rsp], lo; mov dword [rsp+4], hi; jmp callee
  EXPECT_EQ(code[5].mnemonic + " " + code[5].operands, "lea rsp, [rsp - 8]");
  EXPECT_EQ(code[6].operands,
            "dword ptr [rsp], " + fmt_hex(uint32_t(site + 5)));
  EXPECT_EQ(code[7].operands,
            "dword ptr [rsp + 4], " + fmt_hex(uint32_t((site + 5) >> 32)));
  EXPECT_EQ(code[8].mnemonic + " " + code[8].operands,
            "jmp " + fmt_hex(0x402000 + bias));
}

// Functions of this process, patched for real below.
volatile uint64_t g_salt = 7;

__attribute__((noinline)) uint64_t probe_target(uint64_t x) {
  uint64_t h = x ^ g_salt;
  for (int i = 0; i < 3; ++i) h = h * 0x9E3779B97F4A7C15ull + uint64_t(i);
  return h;
}

__attribute__((noinline)) uint64_t other_target(uint64_t x) {
  uint64_t h = x + g_salt;
  for (int i = 0; i < 3; ++i) h = h * 0xC2B2AE3D27D4EB4Full + uint64_t(i);
  return h;
}

uint64_t expected(uint64_t x) {
  uint64_t h = x ^ 7;
  for (int i = 0; i < 3; ++i) h = h * 0x9E3779B97F4A7C15ull + uint64_t(i);
  return h;
}

int main_object(dl_phdr_info* info, size_t, void* out) {
  *static_cast<uint64_t*>(out) = info->dlpi_addr;
  return 1;
}

TEST(LivePatch, CountsEveryCallFromEveryThread) {
  uint64_t bias = 0;
  dl_iterate_phdr(main_object, &bias);
  const uint64_t site = reinterpret_cast<uint64_t>(&probe_target);
  const uint64_t other = reinterpret_cast<uint64_t>(&other_target);
  std::vector<probes::ProbeSite> sites(2);
  sites[0].path = sites[1].path =
      std::filesystem::canonical("/proc/self/exe").string();
  sites[0].vaddr = site - bias;
  sites[1].vaddr = other - bias;
  probes::plan_patches(sites[0].path, &sites);
  ASSERT_FALSE(sites[0].patch.empty()) << sites[0].patch_refused;
  ASSERT_FALSE(sites[1].patch.empty()) << sites[1].patch_refused;
  PatchSpec spec, stale;
  ASSERT_TRUE(runtime::parse_patch_spec(sites[0].patch.data(),
                                        sites[0].patch.size(), &spec));
  ASSERT_TRUE(runtime::parse_patch_spec(sites[1].patch.data(),
                                        sites[1].patch.size(), &stale));
  // The second plan does not match the code in memory (as if the file had
  // changed since the tool read it): refused, the code left alone.
  stale.original[0] ^= 0xff;
  uint8_t before[8];
  std::memcpy(before, reinterpret_cast<const void*>(other), sizeof before);
  // A third request at the first one's address (a --trace hook on a
  // function a --progress point counts): refused, the first keeps its jump.
  runtime::PatchRequest requests[3] = {{site, &spec, -1, nullptr},
                                       {other, &stale, -1, nullptr},
                                       {site, &spec, -1, nullptr}};
  requests[0].bias = requests[1].bias = requests[2].bias = bias;
  runtime::code_patch_install(requests, 3);
  EXPECT_EQ(requests[2].index, -1);
  ASSERT_NE(requests[2].why, nullptr);
  EXPECT_NE(std::string(requests[2].why).find("overlap"), std::string::npos);
  runtime::PatchRequest& request = requests[0];
  ASSERT_GE(request.index, 0) << request.why;
  EXPECT_EQ(*reinterpret_cast<const uint8_t*>(site), 0xe9);  // jmp rel32
  EXPECT_EQ(requests[1].index, -1);
  ASSERT_NE(requests[1].why, nullptr);
  EXPECT_NE(std::string(requests[1].why).find("differs"), std::string::npos);
  EXPECT_EQ(
      std::memcmp(before, reinterpret_cast<const void*>(other), sizeof before),
      0);
  // Once per process: a second install refuses.
  runtime::PatchRequest again{other, &spec, -1, nullptr};
  again.bias = bias;
  runtime::code_patch_install(&again, 1);
  EXPECT_EQ(again.index, -1);

  uint64_t (*volatile fn)(uint64_t) = &probe_target;
  constexpr int kThreads = 4, kCalls = 100000;
  std::vector<std::thread> threads;
  std::vector<int> wrong(kThreads, 0);
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < kCalls; ++i)
        if (fn(uint64_t(i) * 31 + uint64_t(t)) !=
            expected(uint64_t(i) * 31 + uint64_t(t)))
          ++wrong[t];
    });
  for (auto& th : threads) th.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(wrong[t], 0);
  EXPECT_EQ(runtime::code_patch_count(request.index),
            uint64_t(kThreads) * kCalls);

  // A thread that stopped on the int3 while the jump was being written is
  // sent to the trampoline (the jump's target); other traps are not ours.
  int32_t rel;
  std::memcpy(&rel, reinterpret_cast<const void*>(site + 1), 4);
  ucontext_t uc{};
  uc.uc_mcontext.gregs[REG_RIP] = greg_t(site + 1);
  EXPECT_TRUE(runtime::code_patch_on_trap(&uc));
  EXPECT_EQ(uint64_t(uc.uc_mcontext.gregs[REG_RIP]),
            site + 5 + uint64_t(int64_t(rel)));
  uc.uc_mcontext.gregs[REG_RIP] = greg_t(site + 2);
  EXPECT_FALSE(runtime::code_patch_on_trap(&uc));

  // A fork child keeps the patch and counts from zero.
  runtime::code_patch_reset_counts();
  EXPECT_EQ(runtime::code_patch_count(request.index), 0u);
  EXPECT_EQ(fn(5), expected(5));
  EXPECT_EQ(runtime::code_patch_count(request.index), 1u);
}

}  // namespace
}  // namespace andweorc
