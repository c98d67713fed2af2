// A program whose hottest line is known by construction (its marker comment says so).
// Optional argv[1]: milliseconds of CPU time to burn (default 600).
#include <time.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>

volatile uint64_t g_sink;

__attribute__((noinline)) uint64_t spin(uint64_t n) {
  uint64_t h = 1;
  for (uint64_t i = 0; i < n; ++i) h = h * 6364136223846793005ull + i;  // HOT_LINE
  return h;
}

int main(int argc, char** argv) {
  long ms = argc > 1 ? std::atol(argv[1]) : 600;
  timespec ts;
  auto cpu_ms = [&ts] {
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
  };
  while (cpu_ms() < ms) g_sink = spin(200000);
  std::printf("hot_line done\n");
  return 7;  // a distinctive status the profiler must pass through
}
