// mutex_heavy: two threads take and release one std::mutex millions of times
// a second. Per unit (one lock/unlock): update shared state inside the lock
// (update, 30 iterations), then local work outside it (local, 200
// iterations). Units are claimed in chunks of 256 from an atomic counter so
// both threads run to the end. Its main use is the overhead benchmark (lock
// and unlock millions of times a second under the profiler).
// True effects are NOT simple here: each collision on the lock costs a futex
// sleep and wake-up (tens of us on these VMs) against a 0.1 us critical
// section, so throughput swings +-15% run to run, and speeding `local` makes
// collisions more frequent (measured from -49% to +13% at s = 0.4), while
// speeding `update` makes them rarer. Hence no declared bottleneck.
// BOTTLENECK:none
#include <andweorc/andweorc.h>

#include <atomic>
#include <mutex>
#include <thread>

#include "common.h"

using accuracy::kMul;

__attribute__((noinline)) static uint64_t update(uint64_t x, uint64_t n) {
  for (uint64_t i = 0; i < n; ++i) { x = (x ^ (x >> 29)) * kMul; asm volatile("" : "+r"(x)); }  // REGION:update
  return x;
}

__attribute__((noinline)) static uint64_t local(uint64_t x, uint64_t n) {
  for (uint64_t i = 0; i < n; ++i) { x = (x ^ (x >> 29)) * kMul; asm volatile("" : "+r"(x)); }  // REGION:local
  return x;
}

int main(int argc, char** argv) {
  const uint64_t units = accuracy::units_arg(argc, argv, 3000000);
  const uint64_t n_update = accuracy::iterations(30, "UPDATE");
  const uint64_t n_local = accuracy::iterations(200, "LOCAL");
  constexpr uint64_t kChunk = 256;
  std::mutex m;
  uint64_t shared = 1;
  std::atomic<uint64_t> next{0};
  std::atomic<uint64_t> sink{0};
  accuracy::Stopwatch sw;
  auto body = [&](uint64_t seed) {
    uint64_t x = seed;
    for (;;) {
      uint64_t begin = next.fetch_add(kChunk, std::memory_order_relaxed);
      if (begin >= units) break;
      uint64_t end = begin + kChunk < units ? begin + kChunk : units;
      for (uint64_t u = begin; u < end; ++u) {
        {
          std::lock_guard<std::mutex> lk(m);
          shared = update(shared + u, n_update);
        }
        x = local(x ^ u, n_local);
        ANDWEORC_PROGRESS("unit");
      }
    }
    sink.fetch_xor(x);
  };
  std::thread t1(body, 17), t2(body, 19);
  t1.join();
  t2.join();
  accuracy::report(units, sw, sink.load() ^ shared);
  return 0;
}
