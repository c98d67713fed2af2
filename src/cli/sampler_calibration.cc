// sampler_calibration.cc: see sampler_calibration.h.
#include "cli/sampler_calibration.h"

#include <fmt/format.h>
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>

namespace andweorc::cli {
namespace {

constexpr uint64_t kPeriodNs = 100000;  // 10,000 samples per CPU-second

uint64_t thread_cpu_ns() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return uint64_t(ts.tv_sec) * 1000000000u + uint64_t(ts.tv_nsec);
}

// A fixed amount of dependent arithmetic the compiler cannot drop.
uint64_t work(uint64_t units) {
  volatile uint64_t sink = 0;
  uint64_t h = 0x9E3779B97F4A7C15ull;
  for (uint64_t i = 0; i < units; ++i) {
    h ^= h >> 29;
    h *= 0xBF58476D1CE4E5B9ull;
    if ((i & 1023) == 0) sink = h;
  }
  return sink + h;
}

// CPU time of `units` of work.
uint64_t timed(uint64_t units) {
  uint64_t t0 = thread_cpu_ns();
  work(units);
  return thread_cpu_ns() - t0;
}

}  // namespace

PerfSampleCost measure_perf_sample_cost(int rounds, int ms) {
  PerfSampleCost out;
  perf_event_attr attr;
  std::memset(&attr, 0, sizeof attr);
  attr.size = sizeof attr;
  attr.type = PERF_TYPE_SOFTWARE;
  attr.config = PERF_COUNT_SW_TASK_CLOCK;
  attr.sample_period = kPeriodNs;
  // What the runtime's samples carry, less the call chain.
  attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
  attr.disabled = 1;
  attr.exclude_kernel = 1;  // allowed at perf_event_paranoid 2
  attr.exclude_hv = 1;
  int fd = int(syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0));
  if (fd < 0) {
    out.error = std::string("perf_event_open: ") + std::strerror(errno);
    return out;
  }
  // A small ring that nobody drains: once full the kernel counts lost
  // samples, but the interrupt and the timer's re-arming, the bulk of the
  // cost, happen at every sample either way.
  size_t bytes = size_t(1 + 8) * size_t(sysconf(_SC_PAGESIZE));
  void* ring = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  // Units for about `ms` of CPU, from a short first run.
  uint64_t probe = 200000, probe_ns = std::max<uint64_t>(timed(probe), 1);
  uint64_t units = probe * uint64_t(ms) * 1000000u / probe_ns;
  uint64_t best_off = UINT64_MAX, best_on = UINT64_MAX;
  for (int r = 0; r < rounds; ++r) {
    best_off = std::min(best_off, timed(units));
    ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
    best_on = std::min(best_on, timed(units));
    ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
  }
  if (ring != MAP_FAILED) munmap(ring, bytes);
  close(fd);
  // (on - off) / on is the share of a CPU-second the samples took; there
  // are 1e9 / period of them per CPU-second.
  double share =
      best_on > best_off ? double(best_on - best_off) / double(best_on) : 0.0;
  out.us = share * double(kPeriodNs) / 1000.0;
  out.measured = true;
  return out;
}

void choose_sampler(RunSettings* s) {
  PerfSampleCost cost = measure_perf_sample_cost();
  if (!cost.measured || cost.us <= kTimerAboveUs) return;
  s->timer_chosen = true;
  s->sampler_note = fmt::format(
      "sampler: the CPU-time timer, chosen at start because a perf sample "
      "costs {:.0f} us of CPU on this machine ({:.1f}% of a busy thread at "
      "a {:g} ms period; in a virtual machine each sample is an exit to the "
      "hypervisor), where the timer rides on the scheduler tick. Its samples "
      "come once per tick (4 ms at HZ=250), weighted by the periods they "
      "stand for; --sampler perf for perf's anyway",
      cost.us, cost.us / (double(s->period_ns) / 1000.0) * 100.0,
      double(s->period_ns) / 1e6);
}

}  // namespace andweorc::cli
