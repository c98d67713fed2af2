// cpu_wait_monitor.cc: see cpu_wait_monitor.h.
#include "cli/cpu_wait_monitor.h"

#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "cli/child_process.h"

namespace andweorc::cli {
namespace {

// Waits above this share of the runnable time bend the estimates enough to
// say so (memcached beside its client: 38%).
constexpr double kWarnShare = 0.20;
constexpr uint64_t kMinCpuNs = 1000000000;

// The text of a thread's schedstat file ("" when it is gone).
std::string schedstat(int pid, long tid) {
  char path[96], buf[128];
  std::snprintf(path, sizeof path, "/proc/%d/task/%ld/schedstat", pid, tid);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return "";
  ssize_t n = read(fd, buf, sizeof buf - 1);
  close(fd);
  return n > 0 ? std::string(buf, size_t(n)) : "";
}

}  // namespace

bool parse_schedstat(const std::string& text, uint64_t* cpu_ns,
                     uint64_t* wait_ns) {
  unsigned long long cpu = 0, wait = 0;
  if (std::sscanf(text.c_str(), "%llu %llu", &cpu, &wait) != 2) return false;
  *cpu_ns = cpu;
  *wait_ns = wait;
  return true;
}

std::string cpu_wait_warning(uint64_t cpu_ns, uint64_t wait_ns) {
  if (cpu_ns < kMinCpuNs) return "";
  double share = double(wait_ns) / double(cpu_ns + wait_ns);
  if (share < kWarnShare) return "";
  char buf[400];
  std::snprintf(
      buf, sizeof buf,
      "the program's threads waited for a CPU %.0f%% of the time they could "
      "run (%.1f s of %.1f s): more runnable threads than cores, theirs or "
      "other load's. Virtual speed-ups then underestimate impacts (a delayed "
      "thread's core goes to another thread); give other load a lower "
      "priority or more cores (docs/case-studies.md)",
      100 * share, double(wait_ns) / 1e9, double(cpu_ns + wait_ns) / 1e9);
  return buf;
}

CpuWaitMonitor::CpuWaitMonitor(int period_ms)
    : thread_([this, period_ms] { loop(period_ms); }) {}

CpuWaitMonitor::~CpuWaitMonitor() { stop(); }

void CpuWaitMonitor::stop() {
  if (stop_.stop() && thread_.joinable()) thread_.join();
}

void CpuWaitMonitor::loop(int period_ms) {
  for (;;) {
    bool last = stop_.wait_for(std::chrono::milliseconds(period_ms));
    poll();  // a last reading when stopping: the program may still be there
    if (last) return;
  }
}

void CpuWaitMonitor::poll() {
  uint64_t cpu_add = 0, wait_add = 0;
  for (int pid : program_tree_pids()) {
    const std::string dir = "/proc/" + std::to_string(pid) + "/task";
    for (long tid : numbered_entries(dir.c_str())) {
      uint64_t cpu = 0, wait = 0;
      if (!parse_schedstat(schedstat(pid, tid), &cpu, &wait)) continue;
      auto& last = last_[{pid, int(tid)}];
      // A reused tid starts again from 0: count what it has.
      if (cpu < last.first || wait < last.second) last = {0, 0};
      cpu_add += cpu - last.first;
      wait_add += wait - last.second;
      last = {cpu, wait};
    }
  }
  cpu_ns_ += cpu_add;
  wait_ns_ += wait_add;
}

}  // namespace andweorc::cli
