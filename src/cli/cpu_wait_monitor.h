// cpu_wait_monitor.h: how long the program's threads waited for a CPU.
//
// Virtual speed-ups assume that a delayed thread's core would otherwise
// stand idle for the delay. When the program's threads (or they and other
// load) outnumber the cores, the scheduler gives that core to someone else
// and the delays cost the program less than the model says: impacts come
// out too small (docs/case-studies.md: memcached beside its load generator
// on 2 cores, 9% predicted for 22-25% real). The tool cannot see other
// processes' share, but the kernel counts, per thread, the time it was
// runnable and waited for a CPU (/proc/PID/task/TID/schedstat, field 2).
// The monitor reads it for the program's process tree four times a second,
// from the tool (never from the program), and the run's profile says so
// when the wait was large.
#ifndef ANDWEORC_CLI_CPU_WAIT_MONITOR_H_
#define ANDWEORC_CLI_CPU_WAIT_MONITOR_H_

#include <atomic>
#include <cstdint>
#include <map>
#include <string>
#include <thread>
#include <utility>

#include "cli/stop_wait.h"

namespace andweorc::cli {

// CPU time and run-queue wait of one thread, ns, from the text of its
// schedstat file ("cpu_ns wait_ns timeslices"). False when unreadable.
bool parse_schedstat(const std::string& text, uint64_t* cpu_ns,
                     uint64_t* wait_ns);

// The profile's warning for `cpu_ns` of CPU time and `wait_ns` of waiting
// for a CPU, summed over the program's threads; "" when the wait is below
// 20% of the time they could run, or there is too little to tell (< 1 s
// of CPU time).
std::string cpu_wait_warning(uint64_t cpu_ns, uint64_t wait_ns);

class CpuWaitMonitor {
 public:
  // Starts polling the tree of `program_tree_pids()` every `period_ms`.
  explicit CpuWaitMonitor(int period_ms = 250);
  ~CpuWaitMonitor();
  // Takes a last reading and stops; idempotent.
  void stop();
  // Totals over every thread seen so far (a thread's last second before it
  // exited is not seen).
  uint64_t cpu_ns() const { return cpu_ns_.load(); }
  uint64_t wait_ns() const { return wait_ns_.load(); }

 private:
  void poll();
  void loop(int period_ms);

  std::atomic<uint64_t> cpu_ns_{0}, wait_ns_{0};
  // (pid, tid) -> last reading, to sum the increments.
  std::map<std::pair<int, int>, std::pair<uint64_t, uint64_t>> last_;
  StopWait stop_;
  std::thread thread_;
};

}  // namespace andweorc::cli

#endif  // ANDWEORC_CLI_CPU_WAIT_MONITOR_H_
