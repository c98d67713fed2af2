// sleep_precision: how precisely, and at what cost, a thread can wait for a
// few hundred microseconds without changing the program's timer slack (the
// delay engine's choice, docs/design.md "What the runtime changes").
//
//   sleep_precision [repetitions]
// For each target delay, prints the median / p90 / p99 of (actual - target)
// and the CPU time the waiting thread used, for:
//   slack50    nanosleep with the default 50 us timer slack
//   slack1     prctl(PR_SET_TIMERSLACK, 1) around nanosleep, restored after
//              (what the delay engine does), plus the cost of the prctls
//   spin_tail  nanosleep(target - 60 us) with the default slack, then spin
//              on the vDSO clock until the target
//   spin       spin on the vDSO clock for the whole delay
#include <sys/prctl.h>
#include <time.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

uint64_t now_ns(clockid_t c = CLOCK_MONOTONIC) {
  timespec ts;
  clock_gettime(c, &ts);
  return uint64_t(ts.tv_sec) * 1000000000u + uint64_t(ts.tv_nsec);
}

void sleep_ns(uint64_t ns) {
  timespec ts{time_t(ns / 1000000000u), long(ns % 1000000000u)};
  nanosleep(&ts, nullptr);
}

void spin_until(uint64_t deadline) {
  while (now_ns() < deadline) __builtin_ia32_pause();
}

void wait_slack50(uint64_t ns) { sleep_ns(ns); }

void wait_slack1(uint64_t ns) {
  long old = prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);
  prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
  sleep_ns(ns);
  prctl(PR_SET_TIMERSLACK, static_cast<unsigned long>(old), 0, 0, 0);
}

void wait_spin_tail(uint64_t ns) {
  uint64_t deadline = now_ns() + ns;
  constexpr uint64_t kTail = 60000;
  if (ns > kTail) sleep_ns(ns - kTail);
  spin_until(deadline);
}

void wait_spin(uint64_t ns) { spin_until(now_ns() + ns); }

void measure(const char* name, void (*wait)(uint64_t), uint64_t target,
             int reps) {
  std::vector<double> excess;
  uint64_t cpu0 = now_ns(CLOCK_THREAD_CPUTIME_ID);
  for (int i = 0; i < reps; ++i) {
    uint64_t t0 = now_ns();
    wait(target);
    excess.push_back((double(now_ns() - t0) - double(target)) / 1000.0);
  }
  double cpu = double(now_ns(CLOCK_THREAD_CPUTIME_ID) - cpu0) / reps / 1000.0;
  std::sort(excess.begin(), excess.end());
  auto q = [&](double p) { return excess[size_t(p * (excess.size() - 1))]; };
  std::printf(
      "%-10s %6.0f us  excess median %6.1f  p90 %6.1f  p99 %7.1f us"
      "   cpu %6.1f us/wait\n",
      name, target / 1000.0, q(0.5), q(0.9), q(0.99), cpu);
}

}  // namespace

int main(int argc, char** argv) {
  int reps = argc > 1 ? std::atoi(argv[1]) : 400;
  // Cost of the slack save/set/restore alone.
  constexpr int kPrctlReps = 200000;
  uint64_t t0 = now_ns();
  for (int i = 0; i < kPrctlReps; ++i) {
    long old = prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);
    prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
    prctl(PR_SET_TIMERSLACK, static_cast<unsigned long>(old), 0, 0, 0);
  }
  std::printf("prctl get+set+restore: %.0f ns\n",
              double(now_ns() - t0) / kPrctlReps);
  for (uint64_t target : {20000ull, 100000ull, 500000ull}) {
    measure("slack50", wait_slack50, target, reps);
    measure("slack1", wait_slack1, target, reps);
    measure("spin_tail", wait_spin_tail, target, reps);
    measure("spin", wait_spin, target, reps);
  }
  return 0;
}
