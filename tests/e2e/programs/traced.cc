// traced.cc: functions for `andweorc run --trace` whose calls are known by
// construction (trace_test.cc). Built with -fno-optimize-sibling-calls
// -fno-inline-small-functions: each traced function ends with a ret, none
// with a tail call. Modes:
//   count N [paced]  traced_work() N times (paced: 10,000 every 25 ms)
//   fork       traced_work() 100 times, then 200 times in a forked child
//   float      scale(x, y) 1000 times (floating-point arguments, result)
//   sleep      nap() 5 times, each sleeps >= 20 ms
//   recurse    descend(3) 50 times (4 nested calls each)
//   throw      may_throw(i) for i <= 100: odd i throws through it, caught here
//   slow       handle(i) for i < 100: 1 call in 10 takes slow_path()
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

volatile long g_sink;

// Spins for `ns`, all on the line that uses it (a macro: the samples of
// each spinning function land on its own line, not in a shared helper).
#define SPIN_NS(ns, x)                                                      \
  for (timespec t0_{}, t_{}; clock_gettime(CLOCK_MONOTONIC, &t_) == 0 &&   \
                             (t0_.tv_sec != 0 || (t0_ = t_, true)) &&      \
                             (t_.tv_sec - t0_.tv_sec) * 1000000000L +      \
                                     (t_.tv_nsec - t0_.tv_nsec) <          \
                                 (ns);)                                    \
    for (int i_ = 0; i_ < 1000; ++i_) (x) += i_ ^ g_sink

// Arguments and result in xmm registers: the hooks must keep them.
__attribute__((noinline)) double scale(double x, double y) {
  double r = x * y + 0.25;
  g_sink = g_sink + 1;
  return r;
}

__attribute__((noinline)) long traced_work(long i) {
  long v = i * 3 + 1;
  g_sink = g_sink + v;
  return v;
}

__attribute__((noinline)) long nap(long ms) {
  timespec ts{0, ms * 1000000L};
  nanosleep(&ts, nullptr);
  g_sink = g_sink + ms;
  return ms;
}

__attribute__((noinline)) long descend(long depth) {
  long r = depth > 0 ? descend(depth - 1) : 0;
  g_sink = g_sink + r;
  return r + 1;
}

__attribute__((noinline)) long may_throw(long i) {
  if (i % 2 != 0) throw std::runtime_error("odd");
  g_sink = g_sink + i;
  return i;
}

__attribute__((noinline)) long slow_path() {
  long v = 0;
  SPIN_NS(4000000, v);  // SLOW_REASON_LINE
  g_sink = g_sink + v;
  return v;
}

__attribute__((noinline)) long fast_part() {
  long v = 0;
  SPIN_NS(400000, v);  // FAST_WORK_LINE
  g_sink = g_sink + v;
  return v;
}

__attribute__((noinline)) long handle(long i) {
  long v = fast_part();
  if (i % 10 == 3) v += slow_path();
  g_sink = g_sink + v;
  return v;
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "count";
  long calls = 0;
  if (std::strcmp(mode, "count") == 0) {
    long n = argc > 2 ? std::atol(argv[2]) : 1000;
    // "paced": batches of 10,000 calls 25 ms apart, so that the runtime's
    // ring (drained every 20 ms) keeps every call; only the calls are timed.
    bool paced = argc > 3 && std::strcmp(argv[3], "paced") == 0;
    long batch = paced ? 10000 : n;
    double loop_ns = 0;
    while (calls < n) {
      timespec t0, t1;
      long stop = calls + batch < n ? calls + batch : n;
      clock_gettime(CLOCK_MONOTONIC, &t0);
      for (long i = calls; i < stop; ++i) traced_work(i);
      clock_gettime(CLOCK_MONOTONIC, &t1);
      loop_ns += double((t1.tv_sec - t0.tv_sec) * 1000000000L +
                        (t1.tv_nsec - t0.tv_nsec));
      calls = stop;
      if (paced && calls < n) {
        timespec pause{0, 25000000L};
        nanosleep(&pause, nullptr);
      }
    }
    // For bench/probes/trace_cost.sh: the calls' time, ns per call.
    std::printf("ns_per_call %.2f\n", loop_ns / double(n > 0 ? n : 1));
  } else if (std::strcmp(mode, "float") == 0) {
    double acc = 0;
    for (long i = 0; i < 1000; ++i, ++calls) acc += scale(double(i) * 0.5, 1.25);
    std::printf("acc %.3f\n", acc);
  } else if (std::strcmp(mode, "fork") == 0) {
    // 100 calls in the parent, 200 in a child it forks after them.
    for (long i = 0; i < 100; ++i, ++calls) traced_work(i);
    pid_t child = fork();
    if (child == 0) {
      for (long i = 0; i < 200; ++i) traced_work(i);
      std::fflush(stdout);
      _exit(0);
    }
    int status = 0;
    waitpid(child, &status, 0);
  } else if (std::strcmp(mode, "sleep") == 0) {
    for (int i = 0; i < 5; ++i, ++calls) nap(20);
  } else if (std::strcmp(mode, "recurse") == 0) {
    for (int i = 0; i < 50; ++i, calls += 4) descend(3);
  } else if (std::strcmp(mode, "throw") == 0) {
    long caught = 0;
    // 0..100: the last call returns, so every call left by an exception
    // is seen (and dropped) at the next call's entry.
    for (long i = 0; i <= 100; ++i) {
      try {
        may_throw(i);
        ++calls;  // returned
      } catch (const std::runtime_error&) {
        ++caught;
      }
    }
    std::printf("caught %ld\n", caught);
  } else if (std::strcmp(mode, "slow") == 0) {
    for (long i = 0; i < 100; ++i, ++calls) handle(i);
  }
  std::printf("calls %ld\n", calls);
  return 0;
}
