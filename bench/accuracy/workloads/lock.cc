// lock: two threads share one mutex; per unit a thread works outside the lock
// (outside, 60k iterations), then inside it (critical, 200k). The lock is
// saturated (critical > outside), so time per unit ~ critical.
// True effects of speeding by s (s <= 0.7 keeps the lock saturated):
//   critical: ~s (minus hand-off latency, which does not shrink)
//   outside:  0 (the other thread holds the lock meanwhile)
// BOTTLENECK:critical
#include <andweorc/andweorc.h>

#include <atomic>
#include <mutex>
#include <thread>

#include "common.h"

using accuracy::kMul;

__attribute__((noinline)) static uint64_t outside(uint64_t x, uint64_t n) {
  for (uint64_t i = 0; i < n; ++i) { x = (x ^ (x >> 29)) * kMul; asm volatile("" : "+r"(x)); }  // REGION:outside
  return x;
}

__attribute__((noinline)) static uint64_t critical(uint64_t x, uint64_t n) {
  for (uint64_t i = 0; i < n; ++i) { x = (x ^ (x >> 29)) * kMul; asm volatile("" : "+r"(x)); }  // REGION:critical
  return x;
}

int main(int argc, char** argv) {
  const uint64_t units = accuracy::units_arg(argc, argv, 1800);
  const uint64_t n_out = accuracy::iterations(60000, "OUTSIDE");
  const uint64_t n_crit = accuracy::iterations(200000, "CRITICAL");
  std::mutex m;
  uint64_t shared = 1;
  std::atomic<uint64_t> next{0};  // units are claimed one at a time
  std::atomic<uint64_t> sink{0};
  accuracy::Stopwatch sw;
  auto body = [&](uint64_t seed) {
    uint64_t x = seed;
    while (next.fetch_add(1, std::memory_order_relaxed) < units) {
      x = outside(x, n_out);
      {
        std::lock_guard<std::mutex> lk(m);
        shared = critical(shared ^ x, n_crit);
      }
      ANDWEORC_PROGRESS("unit");
    }
    sink.fetch_xor(x);
  };
  std::thread t1(body, 11), t2(body, 13);
  t1.join();
  t2.join();
  accuracy::report(units, sw, sink.load() ^ shared);
  return 0;
}
