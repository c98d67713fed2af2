// A program driven step by step by live_probe_test.cc: it reads a count N
// from the FIFO argv[1], calls step() exactly N times, checks every result
// against the closed form and answers "done ok N" (or "done wrong") on the
// FIFO argv[2]; end of file ends it. A negative N answers "cpu_ms M",
// the CPU time this (only) thread has used so far. The test adds and removes a
// probe on step() from the live page between the batches, so it knows exactly
// which calls a probe must count. tiny() is too short to patch (refused).
#include <andweorc/andweorc.h>
#include <time.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>

volatile uint64_t g_step_salt = 5;

__attribute__((noinline)) uint64_t step(uint64_t x) {
  uint64_t h = x ^ g_step_salt;  // STEP_FIRST_LINE
  for (int i = 0; i < 4; ++i) h = h * 0x9E3779B97F4A7C15ull + uint64_t(i);
  return h;  // STEP_LAST_LINE
}

uint64_t step_expected(uint64_t x) {
  uint64_t h = x ^ 5;
  for (int i = 0; i < 4; ++i) h = h * 0x9E3779B97F4A7C15ull + uint64_t(i);
  return h;
}

__attribute__((noinline)) int tiny(int x) { return x + 1; }

uint64_t (*volatile g_step)(uint64_t) = &step;
int (*volatile g_tiny)(int) = &tiny;

int main(int argc, char** argv) {
  if (argc < 3) return 2;
  // A progress point of its own, unless LIVE_PROBE_NO_POINT is set: then
  // the page's probe is its first.
  if (std::getenv("LIVE_PROBE_NO_POINT") == nullptr)
    ANDWEORC_PROGRESS("started");
  FILE* in = std::fopen(argv[1], "r");
  FILE* out = std::fopen(argv[2], "w");
  if (in == nullptr || out == nullptr) return 2;
  long n = 0;
  while (std::fscanf(in, "%ld", &n) == 1) {
    if (n < 0) {
      timespec t{};
      clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
      std::fprintf(out, "cpu_ms %ld\n", t.tv_sec * 1000 + t.tv_nsec / 1000000);
      std::fflush(out);
      continue;
    }
    bool ok = g_tiny(1) == 2;
    for (long i = 0; i < n; ++i)
      ok = ok && g_step(uint64_t(i)) == step_expected(uint64_t(i));
    std::fprintf(out, "done %s %ld\n", ok ? "ok" : "wrong", n);
    std::fflush(out);
  }
  return 0;
}
