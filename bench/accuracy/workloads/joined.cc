// joined: per unit, the main thread and one worker thread run in parallel
// (main: slow, worker: fast) and main joins the worker (mutex + condition
// variable), then merges serially. Two threads on two cores: with a third
// (main only coordinating two workers) the scheduler's placement of three
// threads made throughput bimodal on the 2-vCPU machines (±15% run to run).
// Work per unit (iterations): slow 400k (main) || fast 160k (worker), then
// merge 100k (main). Time per unit = max(slow, fast) + merge = 500k.
// True effects of speeding by s (s <= 0.4 keeps slow well the longer one,
// wake-up latencies included):
//   slow:  400k*s / 500k = 0.8 s      fast: 0 (main only waits less long)
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

// Fork/join of the worker, once per unit.
struct Round {
  std::mutex m;
  std::condition_variable start, done;
  uint64_t generation = 0;
  bool pending = false;
  bool quit = false;
  uint64_t result = 2;
};

void worker(Round& r, uint64_t n) {
  uint64_t seen = 0;
  for (;;) {
    {
      std::unique_lock<std::mutex> lk(r.m);
      r.start.wait(lk, [&] { return r.generation != seen || r.quit; });
      if (r.quit) return;
      seen = r.generation;
    }
    uint64_t x = fast(r.result + seen, n);
    {
      std::lock_guard<std::mutex> lk(r.m);
      r.result = x;
      r.pending = false;
    }
    r.done.notify_one();
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
  std::thread t(worker, std::ref(r), n_fast);
  uint64_t x = 3;
  for (uint64_t u = 0; u < units; ++u) {
    {
      std::lock_guard<std::mutex> lk(r.m);
      r.pending = true;
      ++r.generation;
    }
    r.start.notify_one();
    x = slow(x, n_slow);
    {
      std::unique_lock<std::mutex> lk(r.m);
      r.done.wait(lk, [&] { return !r.pending; });
      x ^= r.result;
    }
    x = merge(x, n_merge);
    ANDWEORC_PROGRESS("unit");
  }
  {
    std::lock_guard<std::mutex> lk(r.m);
    r.quit = true;
  }
  r.start.notify_one();
  t.join();
  accuracy::report(units, sw, x);
  return 0;
}
