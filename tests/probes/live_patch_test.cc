// live_patch_test.cc: probes added and removed while the program runs
// (code_patch_install_live / code_patch_remove, the live page's probes):
// with other threads calling the function the whole time, a live patch
// counts exactly the calls made after it, a removal restores the original
// bytes and stops the count (which stays readable), a patch again after a
// removal counts anew, and a refused install leaves the code untouched.
#include <gtest/gtest.h>
#include <link.h>
#include <signal.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <thread>
#include <vector>

#include "probes/patch_sites.h"
#include "runtime/code_patch.h"

namespace andweorc {
namespace {

volatile uint64_t g_live_salt = 11;

__attribute__((noinline)) uint64_t live_target(uint64_t x) {
  uint64_t h = x ^ g_live_salt;
  for (int i = 0; i < 3; ++i) h = h * 0x9E3779B97F4A7C15ull + uint64_t(i);
  return h;
}

uint64_t live_expected(uint64_t x) {
  uint64_t h = x ^ 11;
  for (int i = 0; i < 3; ++i) h = h * 0x9E3779B97F4A7C15ull + uint64_t(i);
  return h;
}

// A thread that runs into the patch's int3 while it is being written is
// sent on by code_patch_on_trap, as the runtime's SIGTRAP handler does
// (signal_handlers.cc); without it the test process died of SIGTRAP in most
// runs (the busy threads call the function millions of times a second).
void on_trap(int, siginfo_t*, void* uc) {
  if (!runtime::code_patch_on_trap(uc)) {
    signal(SIGTRAP, SIG_DFL);
    raise(SIGTRAP);
  }
}

int live_main_object(dl_phdr_info* info, size_t, void* out) {
  *static_cast<uint64_t*>(out) = info->dlpi_addr;
  return 1;
}

// The plan for live_target, as the tool makes it.
runtime::PatchSpec live_plan(uint64_t site, uint64_t bias) {
  std::vector<probes::ProbeSite> sites(1);
  sites[0].path = std::filesystem::canonical("/proc/self/exe").string();
  sites[0].vaddr = site - bias;
  probes::plan_patches(sites[0].path, &sites);
  EXPECT_FALSE(sites[0].patch.empty()) << sites[0].patch_refused;
  runtime::PatchSpec spec{};
  EXPECT_TRUE(runtime::parse_patch_spec(sites[0].patch.data(),
                                        sites[0].patch.size(), &spec));
  return spec;
}

TEST(LiveProbePatch, AddedAndRemovedWhileThreadsRunTheCode) {
  struct sigaction sa {};
  sa.sa_sigaction = on_trap;
  sa.sa_flags = SA_SIGINFO;
  sigemptyset(&sa.sa_mask);
  ASSERT_EQ(sigaction(SIGTRAP, &sa, nullptr), 0);
  uint64_t bias = 0;
  dl_iterate_phdr(live_main_object, &bias);
  const uint64_t site = reinterpret_cast<uint64_t>(&live_target);
  runtime::PatchSpec spec = live_plan(site, bias);
  uint8_t original[8];
  std::memcpy(original, reinterpret_cast<const void*>(site), sizeof original);

  // Two threads call the function the whole time: the patch and the
  // restore are written under them.
  uint64_t (*volatile fn)(uint64_t) = &live_target;
  std::atomic<bool> stop{false};
  std::atomic<int> wrong{0};
  std::vector<std::thread> busy;
  for (int t = 0; t < 2; ++t)
    busy.emplace_back([&, t] {
      for (uint64_t i = 0; !stop.load(std::memory_order_relaxed); ++i)
        if (fn(i * 7 + uint64_t(t)) != live_expected(i * 7 + uint64_t(t)))
          wrong.fetch_add(1);
    });

  // A stale plan (the file changed since the tool read it): refused, the
  // code as it was, nothing counted.
  runtime::PatchSpec stale = spec;
  stale.original[0] ^= 0xff;
  runtime::PatchRequest bad{site, &stale, -1, nullptr};
  bad.bias = bias;
  const char* why = nullptr;
  EXPECT_FALSE(runtime::code_patch_install_live(&bad, 1, &why));
  ASSERT_NE(why, nullptr);
  EXPECT_NE(std::string(why).find("differs"), std::string::npos) << why;
  EXPECT_EQ(bad.index, -1);
  EXPECT_EQ(std::memcmp(original, reinterpret_cast<const void*>(site),
                        sizeof original),
            0);

  runtime::PatchRequest req{site, &spec, -1, nullptr};
  req.bias = bias;
  ASSERT_TRUE(runtime::code_patch_install_live(&req, 1, &why)) << why;
  ASSERT_GE(req.index, 0);
  EXPECT_EQ(*reinterpret_cast<const uint8_t*>(site), 0xe9);  // jmp rel32
  // A second probe over the same bytes: refused, the first keeps them.
  runtime::PatchRequest twice{site, &spec, -1, nullptr};
  twice.bias = bias;
  EXPECT_FALSE(runtime::code_patch_install_live(&twice, 1, &why));
  EXPECT_NE(std::string(why).find("overlap"), std::string::npos) << why;

  // The other callers run through the trampoline (waited for: the machine
  // may be busy), then stop: from here every call is ours, counted exactly.
  for (int i = 0; i < 10000 && runtime::code_patch_count(req.index) == 0; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  stop = true;
  for (auto& th : busy) th.join();
  EXPECT_EQ(wrong.load(), 0);
  const uint64_t before = runtime::code_patch_count(req.index);
  EXPECT_GT(before, 0u);
  for (uint64_t i = 0; i < 1000; ++i) ASSERT_EQ(fn(i), live_expected(i));
  EXPECT_EQ(runtime::code_patch_count(req.index), before + 1000);

  // Removed: the original bytes, no more counting, the count kept.
  ASSERT_TRUE(runtime::code_patch_remove(req.index, &why)) << why;
  EXPECT_EQ(std::memcmp(original, reinterpret_cast<const void*>(site),
                        sizeof original),
            0);
  for (uint64_t i = 0; i < 500; ++i) ASSERT_EQ(fn(i), live_expected(i));
  EXPECT_EQ(runtime::code_patch_count(req.index), before + 1000);
  EXPECT_FALSE(runtime::code_patch_remove(req.index, &why));

  // Patched again: a new counter from zero; the old one keeps its count.
  runtime::PatchRequest again{site, &spec, -1, nullptr};
  again.bias = bias;
  ASSERT_TRUE(runtime::code_patch_install_live(&again, 1, &why)) << why;
  EXPECT_NE(again.index, req.index);
  for (uint64_t i = 0; i < 300; ++i) ASSERT_EQ(fn(i), live_expected(i));
  EXPECT_EQ(runtime::code_patch_count(again.index), 300u);
  EXPECT_EQ(runtime::code_patch_count(req.index), before + 1000);
  ASSERT_TRUE(runtime::code_patch_remove(again.index, &why)) << why;
  EXPECT_EQ(std::memcmp(original, reinterpret_cast<const void*>(site),
                        sizeof original),
            0);
}

}  // namespace
}  // namespace andweorc
