// A program whose hottest line is known by construction (marked HOT_LINE).
// Optional argv[1]: milliseconds of work (default 600).
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

volatile uint64_t g_sink;

__attribute__((noinline)) uint64_t spin(uint64_t n) {
  uint64_t h = 1;
  for (uint64_t i = 0; i < n; ++i) {
    h = h * 6364136223846793005ull + i;  // HOT_LINE
  }
  return h;
}

int main(int argc, char** argv) {
  long ms = argc > 1 ? std::atol(argv[1]) : 600;
  auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
  while (std::chrono::steady_clock::now() < end) g_sink = spin(200000);
  std::printf("hot_line done\n");
  return 7;  // a distinctive status the profiler must pass through
}
