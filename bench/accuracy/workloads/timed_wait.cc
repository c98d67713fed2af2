// timed_wait: a loop whose bottleneck sits between timed waits, as in a
// poller or a rate-limited event loop. Per unit the main thread prepares a
// batch (CPU), waits 300 us on a condition variable nobody notifies (a pure
// timeout: cv.wait_for -> pthread_cond_clockwait), then checksums (CPU). A
// housekeeping thread wakes every 1 ms by timeout (cv.wait_for) and does a
// little work of its own, independent of the units.
// Work per unit: prepare 120k iterations (~0.25 ms on an idle machine here),
// wait 300 us + the thread's timer slack (50 us by default: the profiler must
// not change it, issue 18), checksum 60k (~0.13 ms).
// True effects of speeding by s: the region's share of the unit's wall time
// times s, about prepare 0.34 s, checksum 0.17 s; housekeep 0 (its thread
// never holds up a unit, on 2 cores).
// BOTTLENECK:prepare
#include <andweorc/andweorc.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "common.h"

using accuracy::kMul;

__attribute__((noinline)) static uint64_t prepare(uint64_t x, uint64_t n) {
  for (uint64_t i = 0; i < n; ++i) { x = (x ^ (x >> 29)) * kMul; asm volatile("" : "+r"(x)); }  // REGION:prepare
  return x;
}

__attribute__((noinline)) static uint64_t checksum(uint64_t x, uint64_t n) {
  for (uint64_t i = 0; i < n; ++i) { x = (x ^ (x >> 29)) * kMul; asm volatile("" : "+r"(x)); }  // REGION:checksum
  return x;
}

__attribute__((noinline)) static uint64_t housekeep(uint64_t x, uint64_t n) {
  for (uint64_t i = 0; i < n; ++i) { x = (x ^ (x >> 29)) * kMul; asm volatile("" : "+r"(x)); }  // REGION:housekeep
  return x;
}

int main(int argc, char** argv) {
  const uint64_t units = accuracy::units_arg(argc, argv, 1600);
  const uint64_t n_prep = accuracy::iterations(120000, "PREPARE");
  const uint64_t n_sum = accuracy::iterations(60000, "CHECKSUM");
  const uint64_t n_house = accuracy::iterations(20000, "HOUSEKEEP");
  std::atomic<bool> done{false};
  std::mutex house_m;
  std::condition_variable house_cv;  // notified only to stop
  uint64_t house_x = 1;
  std::thread keeper([&] {
    std::unique_lock<std::mutex> lk(house_m);
    while (!done.load()) {
      house_cv.wait_for(lk, std::chrono::milliseconds(1));
      house_x = housekeep(house_x, n_house);
    }
  });
  std::mutex m;
  std::condition_variable never;  // nobody notifies it: every wait times out
  accuracy::Stopwatch sw;
  uint64_t x = 1;
  for (uint64_t u = 0; u < units; ++u) {
    x = prepare(x + u, n_prep);
    {
      std::unique_lock<std::mutex> lk(m);
      never.wait_for(lk, std::chrono::microseconds(300));
    }
    x = checksum(x, n_sum);
    ANDWEORC_PROGRESS("unit");
  }
  accuracy::report(units, sw, x);
  {
    std::lock_guard<std::mutex> lk(house_m);
    done = true;
  }
  house_cv.notify_one();
  keeper.join();
  return house_x == 0 ? 3 : 0;
}
