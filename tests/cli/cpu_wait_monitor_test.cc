// cpu_wait_monitor_test.cc: reading schedstat and when a run's profile
// says that the program's threads waited for a CPU.
#include "cli/cpu_wait_monitor.h"

#include <gtest/gtest.h>

#include <thread>

namespace andweorc::cli {
namespace {

TEST(Schedstat, ReadsCpuAndWait) {
  uint64_t cpu = 0, wait = 0;
  ASSERT_TRUE(parse_schedstat("123456789 98765 42\n", &cpu, &wait));
  EXPECT_EQ(cpu, 123456789u);
  EXPECT_EQ(wait, 98765u);
  EXPECT_FALSE(parse_schedstat("", &cpu, &wait));
  EXPECT_FALSE(parse_schedstat("12", &cpu, &wait));
}

TEST(CpuWaitWarning, OnlyWhenTheWaitIsLargeAndThereIsEnoughToTell) {
  const uint64_t s = 1000000000;
  EXPECT_EQ(cpu_wait_warning(10 * s, 2 * s), "");   // 17%
  std::string w = cpu_wait_warning(10 * s, 6 * s);  // 38%, memcached's
  EXPECT_NE(w.find("38%"), std::string::npos) << w;
  EXPECT_NE(w.find("underestimate"), std::string::npos) << w;
  EXPECT_EQ(cpu_wait_warning(s / 2, s), "");  // half a second: too little
  EXPECT_EQ(cpu_wait_warning(0, 0), "");
}

// The monitor sums what the kernel counts for the program's threads; with
// no program running there is nothing to count, and stopping is clean
// (twice too).
TEST(CpuWaitMonitor, CountsNothingWithoutAProgramAndStops) {
  CpuWaitMonitor m(10);
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  m.stop();
  m.stop();
  EXPECT_EQ(m.cpu_ns(), 0u);
  EXPECT_EQ(m.wait_ns(), 0u);
}

}  // namespace
}  // namespace andweorc::cli
