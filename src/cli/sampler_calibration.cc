// sampler_calibration.cc: see sampler_calibration.h.
#include "cli/sampler_calibration.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>

#include "runtime/perf_sample_attr.h"

namespace andweorc::cli {
namespace {

constexpr uint64_t kPeriodNs = 100000;  // 10,000 samples per CPU-second

// The signal the event sends at each sample, as the runtime's does. SIGURG
// because its default action is to ignore it: one that arrives after the
// handler is put back (it cannot, the event is disabled first) is harmless.
constexpr int kSampleSignal = SIGURG;

// The ring being measured; the handler drains it, as the runtime's does.
volatile perf_event_mmap_page* g_ring = nullptr;
volatile uint64_t g_signals = 0;  // written by the handler alone

// Async-signal-safe: two atomic accesses to the mapped ring, errno kept.
void drain_ring(int, siginfo_t*, void*) {
  int saved = errno;
  g_signals = g_signals + 1;
  if (g_ring != nullptr) {
    uint64_t head = __atomic_load_n(&g_ring->data_head, __ATOMIC_ACQUIRE);
    __atomic_store_n(&g_ring->data_tail, head, __ATOMIC_RELEASE);
  }
  errno = saved;
}

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
  // What the runtime asks of each sample (perf_sampler.cc): user call
  // chains and a signal to the sampled thread, whose handler drains the
  // ring. The ring alone (no chain, no signal), measured here before
  // 2026-11-28, is about half of it: 6.5 us against 15.1-16.4 us on one VM
  // (bench/overhead/sample_cost: "ring" 7.3, "sig_cc" 15.7).
  perf_event_attr attr = runtime::perf_sample_attr(kPeriodNs);
  int fd = int(syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0));
  if (fd < 0) {
    out.error = std::string("perf_event_open: ") + std::strerror(errno);
    return out;
  }
  size_t bytes = size_t(1 + 8) * size_t(sysconf(_SC_PAGESIZE));
  void* ring = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  struct sigaction drain, previous;
  std::memset(&drain, 0, sizeof drain);
  drain.sa_sigaction = drain_ring;
  drain.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&drain.sa_mask);
  f_owner_ex owner{F_OWNER_TID, int(syscall(SYS_gettid))};
  bool signalled =
      ring != MAP_FAILED && sigaction(kSampleSignal, &drain, &previous) == 0;
  if (signalled) {
    g_ring = static_cast<perf_event_mmap_page*>(ring);
    g_signals = 0;
    // Without the signal the measurement is the ring's part alone: a lower
    // bound, still worth having.
    if (fcntl(fd, F_SETFL, O_ASYNC) != 0 ||
        fcntl(fd, F_SETSIG, kSampleSignal) != 0 ||
        fcntl(fd, F_SETOWN_EX, &owner) != 0)
      fcntl(fd, F_SETFL, 0);
  }
  // Units for about `ms` of CPU, from a short first run.
  uint64_t probe = 200000, probe_ns = std::max<uint64_t>(timed(probe), 1);
  uint64_t units = probe * uint64_t(ms) * 1000000u / probe_ns;
  uint64_t best_off = UINT64_MAX, best_on = UINT64_MAX;
  for (int r = 0; r < rounds; ++r) {
    best_off = std::min(best_off, timed(units));
    ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
    best_on = std::min(best_on, timed(units));
    // A signal for the last sample is delivered before ioctl returns.
    ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
  }
  close(fd);
  if (signalled) {
    sigaction(kSampleSignal, &previous, nullptr);
    g_ring = nullptr;
    out.signals = g_signals;
  }
  if (ring != MAP_FAILED) munmap(ring, bytes);
  // (on - off) / on is the share of a CPU-second the samples took; there
  // are 1e9 / period of them per CPU-second.
  double share =
      best_on > best_off ? double(best_on - best_off) / double(best_on) : 0.0;
  out.us = share * double(kPeriodNs) / 1000.0;
  out.measured = true;
  return out;
}

bool timer_preferred(double us, uint64_t period_ns) {
  return period_ns > 0 && us * 1000.0 / double(period_ns) > kTimerAboveShare;
}

void choose_sampler(RunSettings* s) {
  PerfSampleCost cost = measure_perf_sample_cost();
  if (!cost.measured || !timer_preferred(cost.us, s->period_ns)) return;
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
