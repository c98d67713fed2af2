// traced.cc: functions for `andweorc run --trace` whose calls are known by
// construction (trace_test.cc). Built with -fno-optimize-sibling-calls
// -fno-inline-small-functions: each traced function ends with a ret, none
// with a tail call. Modes:
//   count N    traced_work() N times
//   sleep      nap() 5 times, each sleeps >= 20 ms
//   recurse    descend(3) 50 times (4 nested calls each)
//   throw      may_throw(i) for i < 100: odd i throws through it, caught here
//   slow       handle(i) for i < 100: 1 call in 10 takes slow_path()
#include <time.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

volatile long g_sink;

__attribute__((noinline)) long spin_for_ns(long ns) {
  timespec t0, t;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  long x = 0;
  do {
    for (int i = 0; i < 1000; ++i) x += i ^ g_sink;
    clock_gettime(CLOCK_MONOTONIC, &t);
  } while ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) <
           ns);
  return x;
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
  long v = spin_for_ns(4000000);  // SLOW_REASON_LINE
  g_sink = g_sink + v;
  return v;
}

__attribute__((noinline)) long fast_part() {
  long v = spin_for_ns(400000);  // FAST_WORK_LINE
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
    for (long i = 0; i < n; ++i, ++calls) traced_work(i);
  } else if (std::strcmp(mode, "sleep") == 0) {
    for (int i = 0; i < 5; ++i, ++calls) nap(20);
  } else if (std::strcmp(mode, "recurse") == 0) {
    for (int i = 0; i < 50; ++i, calls += 4) descend(3);
  } else if (std::strcmp(mode, "throw") == 0) {
    long caught = 0;
    for (long i = 0; i < 100; ++i) {
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
