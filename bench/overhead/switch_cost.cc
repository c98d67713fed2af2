// switch_cost: what a per-thread perf task-clock event (the runtime's
// sampler) adds to a context switch, without the runtime: two threads
// ping-pong a byte over two pipes (every round trip = 2 blocking reads, 2
// wake-ups, about 4 context switches), without events, with a task-clock
// event on each thread (1 ms period, like the runtime's), and with a
// CLOCK_THREAD_CPUTIME_ID timer on each thread (the timer sampler).
// Interleaved, `rounds` times; prints the median ns per round trip.
//
//   switch_cost [round_trips] [rounds]
#include <linux/perf_event.h>
#include <signal.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

namespace {

enum Mode { kNone, kPerf, kTimer };

uint64_t now_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return uint64_t(ts.tv_sec) * 1000000000u + uint64_t(ts.tv_nsec);
}

// Arms this thread's sampler stand-in; returns a cleanup token.
struct Armed {
  int fd = -1;
  timer_t timer{};
  bool has_timer = false;
};

Armed arm(Mode mode) {
  Armed a;
  if (mode == kPerf) {
    perf_event_attr attr;
    memset(&attr, 0, sizeof attr);
    attr.size = sizeof attr;
    attr.type = PERF_TYPE_SOFTWARE;
    attr.config = PERF_COUNT_SW_TASK_CLOCK;
    attr.sample_period = 1000000;
    attr.sample_type = PERF_SAMPLE_IP;
    attr.exclude_kernel = 1;
    attr.exclude_hv = 1;
    a.fd = int(syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0));
    if (a.fd < 0) {
      std::perror("perf_event_open");
      std::exit(1);
    }
  } else if (mode == kTimer) {
    sigevent ev{};
    ev.sigev_notify = SIGEV_THREAD_ID;
    ev.sigev_signo = SIGPROF;
    ev._sigev_un._tid = int(syscall(SYS_gettid));
    if (timer_create(CLOCK_THREAD_CPUTIME_ID, &ev, &a.timer) != 0) {
      std::perror("timer_create");
      std::exit(1);
    }
    itimerspec spec{{0, 1000000}, {0, 1000000}};
    timer_settime(a.timer, 0, &spec, nullptr);
    a.has_timer = true;
  }
  return a;
}

void disarm(Armed& a) {
  if (a.fd >= 0) close(a.fd);
  if (a.has_timer) timer_delete(a.timer);
}

double run(Mode mode, int trips) {
  int ab[2], ba[2];
  if (pipe(ab) != 0 || pipe(ba) != 0) std::exit(1);
  std::thread peer([&] {
    Armed a = arm(mode);
    char c;
    for (int i = 0; i < trips; ++i) {
      if (read(ab[0], &c, 1) != 1 || write(ba[1], &c, 1) != 1) std::exit(1);
    }
    disarm(a);
  });
  Armed a = arm(mode);
  char c = 'x';
  uint64_t t0 = now_ns();
  for (int i = 0; i < trips; ++i) {
    if (write(ab[1], &c, 1) != 1 || read(ba[0], &c, 1) != 1) std::exit(1);
  }
  uint64_t t1 = now_ns();
  disarm(a);
  peer.join();
  for (int fd : {ab[0], ab[1], ba[0], ba[1]}) close(fd);
  return double(t1 - t0) / trips;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  int trips = argc > 1 ? std::atoi(argv[1]) : 20000;
  int rounds = argc > 2 ? std::atoi(argv[2]) : 7;
  signal(SIGPROF, SIG_IGN);  // the timer's signals, if any
  std::vector<double> none, perf, timer;
  for (int r = 0; r < rounds; ++r) {
    none.push_back(run(kNone, trips));
    perf.push_back(run(kPerf, trips));
    timer.push_back(run(kTimer, trips));
  }
  double n = median(none), p = median(perf), t = median(timer);
  std::printf("round trip (2 wake-ups, ~4 switches), median of %d x %d:\n",
              rounds, trips);
  std::printf("  no event        %8.0f ns\n", n);
  std::printf("  perf task-clock %8.0f ns  (+%.0f ns per round trip)\n", p,
              p - n);
  std::printf("  cputime timer   %8.0f ns  (+%.0f ns per round trip)\n", t,
              t - n);
  return 0;
}
