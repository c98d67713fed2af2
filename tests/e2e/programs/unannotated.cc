// A program with no progress point: two threads call unit_of_work() until
// a CPU-time budget is spent and the program prints how many calls it made,
// which `andweorc run --progress units=unit_of_work` must count exactly.
// One thread runs a copy inlined into its loop, the other the out-of-line
// copy through a pointer: a probe on the function must count both.
// `unannotated MS churn N`: instead, N rounds of the two workers one after
// the other (threads that start and exit while the probes count).
#include <time.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <latch>
#include <string>
#include <thread>

volatile uint64_t g_sink;
std::atomic<uint64_t> g_calls{0};

static double cpu_ms() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

// ~20 us of arithmetic: the unit of work.
__attribute__((always_inline)) inline void unit_of_work() {
  uint64_t h = g_sink;  // UNIT_BEGIN_LINE
  for (int i = 0; i < 20000; ++i) h = h * 2862933555777941757ull + 3;  // UNIT_LOOP_LINE
  g_sink = h;
  g_calls.fetch_add(1, std::memory_order_relaxed);  // UNIT_DONE_LINE
}

void (*volatile g_unit)() = &unit_of_work;

__attribute__((noinline)) static void inlined_worker(double ms) {
  double end = cpu_ms() + ms;
  while (cpu_ms() < end) unit_of_work();
}

uint64_t g_pointer_calls = 0;  // calls of the out-of-line copy

__attribute__((noinline)) static void pointer_worker(double ms) {
  double end = cpu_ms() + ms;
  while (cpu_ms() < end) {
    g_unit();
    ++g_pointer_calls;
  }
}

// Too short to patch in process (3 bytes and a ret): a probe on it falls
// back to a perf event (probes_test.cc). Called once.
__attribute__((noinline)) int too_short(int x) { return x + 1; }
int (*volatile g_too_short)(int) = &too_short;

int main(int argc, char** argv) {
  double ms = argc > 1 ? std::atof(argv[1]) : 600;
  if (argc > 3 && std::string(argv[2]) == "churn") {
    int rounds = std::atoi(argv[3]);
    for (int i = 0; i < rounds; ++i) {
      std::thread(inlined_worker, ms / rounds).join();
      std::thread(pointer_worker, ms / rounds).join();
    }
  } else {
    // Neither thread exits before both are done calling: on some kernels
    // (6.18) a thread's exit stops perf uprobe counting for the whole
    // process (docs/probes.md), which would lose the other thread's last
    // calls, as many as the two CPU budgets ran apart in time.
    std::latch done(2);
    std::thread a([&] {
      inlined_worker(ms);
      done.arrive_and_wait();
    });
    std::thread b([&] {
      pointer_worker(ms);
      done.arrive_and_wait();
    });
    a.join();
    b.join();
  }
  if (g_too_short(argc) < 0) return 1;
  std::printf("calls %llu out_of_line %llu\n",
              (unsigned long long)g_calls.load(),
              (unsigned long long)g_pointer_calls);
  return 0;
}
