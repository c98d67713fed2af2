// sample_cost: where a perf sample's CPU goes, without the runtime. One busy
// thread does fixed units of work under a sequence of sampler stand-ins,
// each adding one piece of what the runtime's sampler does per sample, and
// the CPU per unit of each is compared with no sampler at all (interleaved,
// `rounds` times, medians). The difference per sample is that piece's cost.
//
//   sample_cost [period_us] [rounds] [ms_per_run]
//
//   none        no event
//   count       a task-clock event that counts but never samples
//   ring        samples into the mmap'd ring, no signal (the ring fills and
//               the kernel then only counts lost samples: a lower bound)
//   ring_cc     as ring, with user call chains (the runtime's sample_type)
//   sig         + O_ASYNC signal per sample, empty handler that drains
//   sig_cc      + call chains (what the runtime asks the kernel for)
//   sig_cc_sys  + the two syscalls the runtime's handler made per sample
//               before this change (sigaltstack, getrusage)
//   sig_cc_w4   as sig_cc with wakeup_events = 4: one signal per 4 samples
//   timer       CLOCK_THREAD_CPUTIME_ID timer (the timer sampler) at the
//               same period (fires at most once per tick), empty handler
//   hybrid      ring_cc without a signal per sample, drained by the handler
//               of a CPU-time timer (one signal per scheduler tick)
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

struct Mode {
  const char* name;
  bool perf, sample, callchain, signal, syscalls, timer;
  int wakeup;
};
const Mode kModes[] = {
    {"none", false, false, false, false, false, false, 1},
    {"count", true, false, false, false, false, false, 1},
    {"ring", true, true, false, false, false, false, 1},
    {"ring_cc", true, true, true, false, false, false, 1},
    {"sig", true, true, false, true, false, false, 1},
    {"sig_cc", true, true, true, true, false, false, 1},
    {"sig_cc_sys", true, true, true, true, true, false, 1},
    {"sig_cc_w4", true, true, true, true, false, false, 4},
    {"timer", false, false, false, true, false, true, 1},
    {"hybrid", true, true, true, false, false, true, 1},
};

volatile perf_event_mmap_page* g_page = nullptr;
volatile bool g_syscalls = false;
volatile uint64_t g_signals = 0;

void on_signal(int, siginfo_t*, void*) {
  int saved = errno;
  g_signals = g_signals + 1;
  if (g_syscalls) {
    stack_t ss;
    syscall(SYS_sigaltstack, nullptr, &ss);
    rusage ru;
    syscall(SYS_getrusage, RUSAGE_THREAD, &ru);
  }
  if (g_page != nullptr) {
    uint64_t head = __atomic_load_n(&g_page->data_head, __ATOMIC_ACQUIRE);
    __atomic_store_n(&g_page->data_tail, head, __ATOMIC_RELEASE);
  }
  errno = saved;
}

uint64_t thread_cpu_ns() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return uint64_t(ts.tv_sec) * 1000000000u + uint64_t(ts.tv_nsec);
}

// A few frames deep, with frame pointers, like a program's hot loop.
__attribute__((noinline)) uint64_t leaf(uint64_t x) {
  for (int i = 0; i < 200; ++i)
    x = x * 6364136223846793005u + 1442695040888963407u;
  return x;
}
__attribute__((noinline)) uint64_t mid(uint64_t x) {
  return leaf(x) ^ leaf(x + 1);
}
__attribute__((noinline)) uint64_t top(uint64_t x) {
  return mid(x) + mid(x ^ 7);
}

// Runs units for `ms` of thread CPU; returns CPU ns per unit.
double run(const Mode& m, uint64_t period_ns, int ms, uint64_t* samples) {
  int fd = -1;
  void* mem = nullptr;
  size_t bytes = size_t(sysconf(_SC_PAGESIZE)) * 5;
  timer_t timer{};
  g_signals = 0;
  g_syscalls = m.syscalls;
  if (m.perf) {
    perf_event_attr attr;
    memset(&attr, 0, sizeof attr);
    attr.size = sizeof attr;
    attr.type = PERF_TYPE_SOFTWARE;
    attr.config = PERF_COUNT_SW_TASK_CLOCK;
    attr.sample_period = m.sample ? period_ns : 0;
    attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
                       (m.callchain ? PERF_SAMPLE_CALLCHAIN : 0);
    attr.disabled = 1;
    attr.exclude_kernel = 1;
    attr.exclude_hv = 1;
    attr.exclude_callchain_kernel = 1;
    attr.sample_max_stack = 64;
    attr.wakeup_events = uint32_t(m.wakeup);
    attr.use_clockid = 1;
    attr.clockid = CLOCK_MONOTONIC;
    fd = int(syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0));
    if (fd < 0) {
      std::perror("perf_event_open");
      std::exit(1);
    }
    if (m.sample) {
      mem = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
      if (mem == MAP_FAILED) {
        std::perror("mmap");
        std::exit(1);
      }
    }
    g_page = static_cast<perf_event_mmap_page*>(mem);
    if (m.signal) {
      f_owner_ex owner{F_OWNER_TID, int(syscall(SYS_gettid))};
      fcntl(fd, F_SETFL, O_ASYNC);
      fcntl(fd, F_SETSIG, SIGPROF);
      fcntl(fd, F_SETOWN_EX, &owner);
    }
    ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
  }
  if (m.timer) {
    sigevent ev{};
    ev.sigev_notify = SIGEV_THREAD_ID;
    ev.sigev_signo = SIGPROF;
    ev._sigev_un._tid = int(syscall(SYS_gettid));
    timer_create(CLOCK_THREAD_CPUTIME_ID, &ev, &timer);
    itimerspec its{};
    its.it_interval.tv_nsec = long(period_ns);
    its.it_value.tv_nsec = long(period_ns);
    timer_settime(timer, 0, &its, nullptr);
  }
  uint64_t units = 0, x = 1, t0 = thread_cpu_ns(),
           end = t0 + uint64_t(ms) * 1000000u, t = t0;
  while (t < end) {
    for (int i = 0; i < 64; ++i) x = top(x);
    units += 64;
    t = thread_cpu_ns();
  }
  if (x == 42) std::puts("");  // keep the work
  if (fd >= 0) {
    ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
    if (mem != nullptr) munmap(mem, bytes);
    g_page = nullptr;
    close(fd);
  }
  if (m.timer) timer_delete(timer);
  *samples = g_signals;
  return double(t - t0) / double(units);
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  uint64_t period_us = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 100;
  int rounds = argc > 2 ? std::atoi(argv[2]) : 7;
  int ms = argc > 3 ? std::atoi(argv[3]) : 300;
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_signal;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigaction(SIGPROF, &sa, nullptr);
  const size_t n = sizeof kModes / sizeof kModes[0];
  std::vector<std::vector<double>> ratio(n), per_unit(n), sig_rate(n);
  for (int r = 0; r < rounds; ++r) {
    std::vector<double> ns(n);
    for (size_t k = 0; k < n; ++k) {
      size_t i = (k + size_t(r)) % n;
      uint64_t samples = 0;
      ns[i] = run(kModes[i], period_us * 1000, ms, &samples);
      sig_rate[i].push_back(double(samples) / (ms / 1000.0));
    }
    for (size_t i = 0; i < n; ++i) {
      per_unit[i].push_back(ns[i]);
      ratio[i].push_back(ns[i] / ns[0]);
    }
  }
  std::printf(
      "period %llu us, %d rounds of %d ms CPU each; CPU per unit vs none\n",
      (unsigned long long)period_us, rounds, ms);
  std::printf("%-11s %10s %9s %11s %14s\n", "mode", "ns/unit", "ratio",
              "signals/s", "us/sample(*)");
  double samples_per_s = 1e6 / double(period_us);
  for (size_t i = 0; i < n; ++i) {
    double rt = median(ratio[i]);
    // Extra CPU per second of work, divided by the samples the kernel takes
    // in that second (one per period of task clock; timer: signals seen).
    double per_s = kModes[i].timer && !kModes[i].perf ? median(sig_rate[i])
                                                      : samples_per_s;
    double us = (kModes[i].sample || kModes[i].timer) && per_s > 0
                    ? (1.0 - 1.0 / rt) * 1e6 / per_s
                    : 0;
    std::printf("%-11s %10.1f %9.4f %11.0f %14.2f\n", kModes[i].name,
                median(per_unit[i]), rt, median(sig_rate[i]), us);
  }
  std::printf(
      "(*) extra CPU per CPU-second (1 - 1/ratio) / samples per CPU-second\n");
  return 0;
}
