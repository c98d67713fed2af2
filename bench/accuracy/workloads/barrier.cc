// barrier: two threads run phases of unequal work and meet at a C++20
// std::barrier each phase; the barrier's completion step merges (serial, on
// whichever thread arrives last). A std::latch starts both threads together.
// Work per phase (iterations): heavy 200k (thread 1) || light 80k (thread 2),
// then combine 40k. Time per phase = max(heavy, light) + combine = 240k.
// One unit = one phase. True effects of speeding by s (s <= 0.4):
//   heavy: 200k s / 240k = 0.83 s   light: 0   combine: 40k s / 240k = 0.17 s
// light is well below heavy (also at s = 0.4) because the waiter's wake-up
// latency adds to its path: closer, and light's path would become critical.
// libstdc++ implements std::barrier and std::latch on futexes directly, so a
// profiler that interposes pthread calls does not see these waits.
// BOTTLENECK:heavy
#include <andweorc/andweorc.h>

#include <barrier>
#include <latch>
#include <thread>

#include "common.h"

using accuracy::kMul;

__attribute__((noinline)) static uint64_t heavy(uint64_t x, uint64_t n) {
  for (uint64_t i = 0; i < n; ++i) { x = (x ^ (x >> 29)) * kMul; asm volatile("" : "+r"(x)); }  // REGION:heavy
  return x;
}

__attribute__((noinline)) static uint64_t light(uint64_t x, uint64_t n) {
  for (uint64_t i = 0; i < n; ++i) { x = (x ^ (x >> 29)) * kMul; asm volatile("" : "+r"(x)); }  // REGION:light
  return x;
}

__attribute__((noinline)) static uint64_t combine(uint64_t x, uint64_t n) {
  for (uint64_t i = 0; i < n; ++i) { x = (x ^ (x >> 29)) * kMul; asm volatile("" : "+r"(x)); }  // REGION:combine
  return x;
}

namespace {

uint64_t g_n_combine;
uint64_t g_results[2];
uint64_t g_acc = 1;

struct OnPhaseDone {
  void operator()() noexcept {
    g_acc = combine(g_acc ^ g_results[0] ^ g_results[1], g_n_combine);
    ANDWEORC_PROGRESS("unit");
  }
};

}  // namespace

int main(int argc, char** argv) {
  const uint64_t units = accuracy::units_arg(argc, argv, 1800);
  const uint64_t n_heavy = accuracy::iterations(200000, "HEAVY");
  const uint64_t n_light = accuracy::iterations(80000, "LIGHT");
  g_n_combine = accuracy::iterations(40000, "COMBINE");
  std::barrier<OnPhaseDone> phase_end(2);
  std::latch go(3);
  accuracy::Stopwatch sw;
  auto body = [&](int id, uint64_t (*fn)(uint64_t, uint64_t), uint64_t n) {
    go.arrive_and_wait();
    uint64_t x = uint64_t(id) + 1;
    for (uint64_t u = 0; u < units; ++u) {
      x = fn(x ^ g_acc, n);
      g_results[id] = x;
      phase_end.arrive_and_wait();
    }
  };
  std::thread t1(body, 0, heavy, n_heavy), t2(body, 1, light, n_light);
  go.arrive_and_wait();
  t1.join();
  t2.join();
  accuracy::report(units, sw, g_acc);
  return 0;
}
