// Causal experiments on programs whose answer is known by construction.
//   serial: one thread, per unit phase A (75% of the work) then phase B
//           (25%): speeding A by s speeds the program by 0.75 s.
//   lock:   two threads; per unit a short phase outside a mutex, then a
//           long one inside it. The lock is saturated, so only the critical
//           section matters: speeding the outside phase does nothing.
//   crowd:  serial's units in three threads per core.
// argv: mode, units.
#include <andweorc/andweorc.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <thread>
#include <vector>

// Each loop is on one line with its arithmetic written out: a shared inline
// helper would have a line of its own, and the phases' samples would land
// there.
constexpr uint64_t kMul = 0xBF58476D1CE4E5B9ull;

__attribute__((noinline)) uint64_t phase_a(uint64_t x) {
  for (int i = 0; i < 150000; ++i) { x = (x ^ (x >> 29)) * kMul; asm volatile("" : "+r"(x)); }  // PHASE_A_LINE
  return x;
}

__attribute__((noinline)) uint64_t phase_b(uint64_t x) {
  for (int i = 0; i < 50000; ++i) { x = (x ^ (x >> 29)) * kMul + 1; asm volatile("" : "+r"(x)); }  // PHASE_B_LINE
  return x;
}

__attribute__((noinline)) uint64_t outside(uint64_t x) {
  for (int i = 0; i < 30000; ++i) { x = (x ^ (x >> 29)) * kMul + 2; asm volatile("" : "+r"(x)); }  // OUTSIDE_LINE
  return x;
}

__attribute__((noinline)) uint64_t critical(uint64_t x) {
  for (int i = 0; i < 100000; ++i) { x = (x ^ (x >> 29)) * kMul + 3; asm volatile("" : "+r"(x)); }  // CRITICAL_LINE
  return x;
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "serial";
  long units = argc > 2 ? std::atol(argv[2]) : 5000;
  uint64_t x = 1;
  if (!std::strcmp(mode, "serial")) {
    for (long u = 0; u < units; ++u) {
      x = phase_b(phase_a(x));
      ANDWEORC_PROGRESS("unit");
    }
  } else if (!std::strcmp(mode, "crowd")) {
    // Three busy threads per core: they wait for a CPU most of the time.
    unsigned n = 3 * std::max(1u, std::thread::hardware_concurrency());
    std::vector<std::thread> crowd;
    for (unsigned t = 0; t < n; ++t)
      crowd.emplace_back([per = units / long(n)] {
        uint64_t y = 1;
        for (long u = 0; u < per; ++u) {
          y = phase_b(phase_a(y));
          ANDWEORC_PROGRESS("unit");
        }
      });
    for (auto& t : crowd) t.join();
  } else {
    std::mutex m;
    uint64_t shared = 1;
    auto body = [&](long n) {
      uint64_t y = uint64_t(n);
      for (long u = 0; u < n; ++u) {
        y = outside(y);
        {
          std::lock_guard<std::mutex> lock(m);
          shared = critical(shared ^ y);
        }
        ANDWEORC_PROGRESS("unit");
      }
    };
    std::thread a(body, units / 2), b(body, units / 2);
    a.join();
    b.join();
    x = shared;
  }
  std::printf("%s done %llu\n", mode, static_cast<unsigned long long>(x & 1));
  return 0;
}
