// serial: three serial phases on one thread, one unit = A then B then C.
// Phase shares of a unit's time: A 60%, B 30%, C 10% (by iteration count).
// True effect of speeding a phase by s: program speedup = share * s
// (A: 0.6 s, B: 0.3 s, C: 0.1 s), the textbook Amdahl case.
// BOTTLENECK:phase_a
#include <andweorc/andweorc.h>

#include "common.h"

using accuracy::kMul;

__attribute__((noinline)) static uint64_t phase_a(uint64_t x, uint64_t n) {
  for (uint64_t i = 0; i < n; ++i) { x = (x ^ (x >> 29)) * kMul; asm volatile("" : "+r"(x)); }  // REGION:phase_a
  return x;
}

__attribute__((noinline)) static uint64_t phase_b(uint64_t x, uint64_t n) {
  for (uint64_t i = 0; i < n; ++i) { x = (x ^ (x >> 29)) * kMul; asm volatile("" : "+r"(x)); }  // REGION:phase_b
  return x;
}

__attribute__((noinline)) static uint64_t phase_c(uint64_t x, uint64_t n) {
  for (uint64_t i = 0; i < n; ++i) { x = (x ^ (x >> 29)) * kMul; asm volatile("" : "+r"(x)); }  // REGION:phase_c
  return x;
}

int main(int argc, char** argv) {
  const uint64_t units = accuracy::units_arg(argc, argv, 1200);
  const uint64_t na = accuracy::iterations(180000, "PHASE_A");
  const uint64_t nb = accuracy::iterations(90000, "PHASE_B");
  const uint64_t nc = accuracy::iterations(30000, "PHASE_C");
  accuracy::Stopwatch sw;
  uint64_t x = 1;
  for (uint64_t u = 0; u < units; ++u) {
    x = phase_a(x, na);
    x = phase_b(x, nb);
    x = phase_c(x, nc);
    ANDWEORC_PROGRESS("unit");
  }
  accuracy::report(units, sw, x);
  return 0;
}
