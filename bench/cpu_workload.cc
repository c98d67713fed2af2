// cpu_workload: a CPU-bound workload for the overhead benchmark. Runs a fixed
// amount of work on N threads (argv[1], default 1) and prints work items per
// second of wall time, measured inside the program so start-up is excluded.
// Line layout matters here: samples are attributed to lines.
// clang-format off
#include <andweorc/andweorc.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

static volatile uint64_t g_sink;

__attribute__((noinline)) static uint64_t item(uint64_t x) {
  for (int i = 0; i < 20000; ++i) x = (x ^ (x >> 29)) * 0xBF58476D1CE4E5B9ull;
  return x;
}

int main(int argc, char** argv) {
  int threads = argc > 1 ? std::atoi(argv[1]) : 1;
  int items = argc > 2 ? std::atoi(argv[2]) : 40000;
  auto start = std::chrono::steady_clock::now();
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([items, t] {
      uint64_t x = uint64_t(t) + 1;
      for (int i = 0; i < items; ++i) {
        x = item(x);
        ANDWEORC_PROGRESS("item");
      }
      g_sink = x;
    });
  for (auto& th : pool) th.join();
  double s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  std::printf("%.1f\n", double(items) * threads / s);
  return 0;
}
