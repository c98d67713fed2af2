// spin: a producer thread computes items and publishes a count in an atomic;
// the consumer busy-waits on that atomic (polling with a little work between
// loads, as real back-off loops do), then finishes each item.
// Work per item: compute 100k iterations (producer), finish 50k (consumer),
// spin polls every ~200 iterations. One unit = one item finished.
// True effects of speeding by s:
//   compute: s   spin: 0 (polling faster does not make items arrive sooner)
//   finish:  0 (the consumer then only spins longer)
// BOTTLENECK:compute
#include <andweorc/andweorc.h>

#include <atomic>
#include <thread>

#include "common.h"

using accuracy::kMul;

__attribute__((noinline)) static uint64_t compute(uint64_t x, uint64_t n) {
  for (uint64_t i = 0; i < n; ++i) { x = (x ^ (x >> 29)) * kMul; asm volatile("" : "+r"(x)); }  // REGION:compute
  return x;
}

// Items published so far. GCC builtins rather than std::atomic, so that no
// inlined header line sits inside the spin loop's line.
static uint64_t g_produced;

// Waits until more than `done` items were published.
__attribute__((noinline)) static uint64_t spin(uint64_t done, uint64_t x, uint64_t n) {
  while (__atomic_load_n(&g_produced, __ATOMIC_ACQUIRE) <= done) for (uint64_t i = 0; i < n; ++i) { x = (x ^ (x >> 29)) * kMul; asm volatile("" : "+r"(x)); }  // REGION:spin
  return x;
}

__attribute__((noinline)) static uint64_t finish(uint64_t x, uint64_t n) {
  for (uint64_t i = 0; i < n; ++i) { x = (x ^ (x >> 29)) * kMul; asm volatile("" : "+r"(x)); }  // REGION:finish
  return x;
}

int main(int argc, char** argv) {
  const uint64_t units = accuracy::units_arg(argc, argv, 3500);
  const uint64_t n_comp = accuracy::iterations(100000, "COMPUTE");
  const uint64_t n_spin = accuracy::iterations(200, "SPIN");
  const uint64_t n_fin = accuracy::iterations(50000, "FINISH");
  std::atomic<uint64_t> item{0};
  uint64_t sink = 0;
  accuracy::Stopwatch sw;
  std::thread producer([&] {
    uint64_t x = 9;
    for (uint64_t u = 0; u < units; ++u) {
      x = compute(x + u, n_comp);
      item.store(x, std::memory_order_relaxed);
      __atomic_fetch_add(&g_produced, 1, __ATOMIC_RELEASE);
    }
  });
  std::thread consumer([&] {
    uint64_t y = 3;
    for (uint64_t u = 0; u < units; ++u) {
      y = spin(u, y, n_spin);
      y = finish(y ^ item.load(std::memory_order_relaxed), n_fin);
      ANDWEORC_PROGRESS("unit");
    }
    sink = y;
  });
  producer.join();
  consumer.join();
  accuracy::report(units, sw, sink);
  return 0;
}
