// A thread that blocks many times per millisecond of CPU leaves its perf
// task-clock event (which costs at every context switch) for the CPU-time
// timer sampler; a computing thread keeps perf; ANDWEORC_SAMPLER_SWITCH=0
// keeps everyone on perf. programs/switch_probe reports which threads a POSIX
// timer notifies.
#include <gtest/gtest.h>
#include <stdio.h>
#include <stdlib.h>

#include <filesystem>
#include <string>

namespace {

std::string run_profiled(const std::string& extra_env) {
  char dir[] = "/tmp/andweorc-switch-XXXXXX";
  if (mkdtemp(dir) == nullptr) return "mkdtemp failed";
  std::string cmd =
      "env " + extra_env +
      " LD_PRELOAD=" ANDWEORC_RUNTIME_LIB " ANDWEORC_DATA_DIR=" + dir +
      " " SWITCH_PROBE;
  FILE* p = popen(cmd.c_str(), "r");
  std::string out;
  if (p != nullptr) {
    char buf[256];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
    pclose(p);
  }
  std::filesystem::remove_all(dir);
  return out;
}

bool perf_usable() {
  // Where perf is refused every thread uses the timer from the start.
  FILE* f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
  int level = 2;
  if (f) {
    if (fscanf(f, "%d", &level) != 1) level = 2;
    fclose(f);
  }
  return level <= 2 || geteuid() == 0;
}

TEST(SamplerSwitch, SwitchHeavyThreadMovesToTheTimer) {
  if (!perf_usable()) GTEST_SKIP() << "perf_event_open not permitted here";
  std::string out = run_profiled("");
  EXPECT_NE(out.find("blocking thread timer=yes"), std::string::npos) << out;
  EXPECT_NE(out.find("computing thread timer=no"), std::string::npos) << out;
}

// A slot reused after a thread that exited on perf (perf_start once left
// the previous event's "stopping" mark set, so the new thread never moved).
TEST(SamplerSwitch, ThreadInAReusedSlotStillMoves) {
  if (!perf_usable()) GTEST_SKIP() << "perf_event_open not permitted here";
  std::string out = run_profiled("");
  EXPECT_NE(out.find("blocking thread after a computing one timer=yes"),
            std::string::npos)
      << out;
}

TEST(SamplerSwitch, CanBeTurnedOff) {
  if (!perf_usable()) GTEST_SKIP() << "perf_event_open not permitted here";
  std::string out = run_profiled("ANDWEORC_SAMPLER_SWITCH=0");
  EXPECT_NE(out.find("blocking thread timer=no"), std::string::npos) << out;
}

}  // namespace
