// joined: per unit, two worker threads run in parallel and the main thread
// joins them (mutex + condition variable), then merges serially.
// Work per unit (iterations): slow 400k (worker 1) || fast 160k (worker 2),
// then merge 100k (main). Time per unit = max(slow, fast) + merge = 500k.
// True effects of speeding by s (s <= 0.4 keeps slow well the longer one,
// wake-up latencies included):
//   slow:  400k*s / 500k = 0.8 s      fast: 0 (it only waits longer)
//   merge: 100k*s / 500k = 0.2 s
// BOTTLENECK:slow
#include <andweorc/andweorc.h>

#include <condition_variable>
#include <mutex>
#include <thread>

#include "common.h"

using accuracy::kMul;

__attribute__((noinline)) static uint64_t slow(uint64_t x, uint64_t n) {
  for (uint64_t i = 0; i < n; ++i) { x = (x ^ (x >> 29)) * kMul; asm volatile("" : "+r"(x)); }  // REGION:slow
  return x;
}

__attribute__((noinline)) static uint64_t fast(uint64_t x, uint64_t n) {
  for (uint64_t i = 0; i < n; ++i) { x = (x ^ (x >> 29)) * kMul; asm volatile("" : "+r"(x)); }  // REGION:fast
  return x;
}

__attribute__((noinline)) static uint64_t merge(uint64_t x, uint64_t n) {
  for (uint64_t i = 0; i < n; ++i) { x = (x ^ (x >> 29)) * kMul; asm volatile("" : "+r"(x)); }  // REGION:merge
  return x;
}

namespace {

// Fork/join of the two workers, once per unit.
struct Round {
  std::mutex m;
  std::condition_variable start, done;
  uint64_t generation = 0;
  int pending = 0;
  bool quit = false;
  uint64_t results[2] = {1, 2};
};

void worker(Round& r, int id, uint64_t (*fn)(uint64_t, uint64_t), uint64_t n) {
  uint64_t seen = 0;
  for (;;) {
    {
      std::unique_lock<std::mutex> lk(r.m);
      r.start.wait(lk, [&] { return r.generation != seen || r.quit; });
      if (r.quit) return;
      seen = r.generation;
    }
    uint64_t x = fn(r.results[id] + seen, n);
    std::lock_guard<std::mutex> lk(r.m);
    r.results[id] = x;
    if (--r.pending == 0) r.done.notify_one();
  }
}

}  // namespace

int main(int argc, char** argv) {
  const uint64_t units = accuracy::units_arg(argc, argv, 700);
  const uint64_t n_slow = accuracy::iterations(400000, "SLOW");
  const uint64_t n_fast = accuracy::iterations(160000, "FAST");
  const uint64_t n_merge = accuracy::iterations(100000, "MERGE");
  Round r;
  accuracy::Stopwatch sw;
  std::thread t1(worker, std::ref(r), 0, slow, n_slow);
  std::thread t2(worker, std::ref(r), 1, fast, n_fast);
  uint64_t x = 3;
  for (uint64_t u = 0; u < units; ++u) {
    {
      std::lock_guard<std::mutex> lk(r.m);
      r.pending = 2;
      ++r.generation;
    }
    r.start.notify_all();
    {
      std::unique_lock<std::mutex> lk(r.m);
      r.done.wait(lk, [&] { return r.pending == 0; });
      x ^= r.results[0] ^ r.results[1];
    }
    x = merge(x, n_merge);
    ANDWEORC_PROGRESS("unit");
  }
  {
    std::lock_guard<std::mutex> lk(r.m);
    r.quit = true;
  }
  r.start.notify_all();
  t1.join();
  t2.join();
  accuracy::report(units, sw, x);
  return 0;
}
