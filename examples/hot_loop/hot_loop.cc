// hot_loop: the example `andweorc run` profiles in the README.
//
// Two worker threads process items. Each item is "parsed" (the expensive
// step, about three quarters of the CPU time) and "checksummed" (the cheap
// step). A progress point marks each finished item, so the causal profiler
// has a throughput to measure.
// Line layout matters here: samples are attributed to lines.
// clang-format off
#include <andweorc/andweorc.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

namespace {

__attribute__((noinline)) uint64_t parse_item(uint64_t seed, int rounds) {
  uint64_t h = seed;
  // One line per loop, so a sample's skid onto the loop branch stays in it.
  for (int i = 0; i < rounds; ++i) h = (h ^ (h >> 31)) * 0x9E3779B97F4A7C15ull;  // the expensive line
  return h;
}

__attribute__((noinline)) uint64_t checksum_item(uint64_t value, int rounds) {
  uint64_t sum = 0;
  for (int i = 0; i < rounds; ++i) sum += (value >> (i & 63)) & 0xff;  // the cheap line
  return sum;
}

}  // namespace

int main(int argc, char** argv) {
  int items = argc > 1 ? std::atoi(argv[1]) : 1500;
  std::vector<std::thread> workers;
  std::vector<uint64_t> results(2);
  for (int t = 0; t < 2; ++t) {
    workers.emplace_back([t, items, &results] {
      uint64_t acc = 0;
      for (int i = 0; i < items; ++i) {
        uint64_t parsed = parse_item(uint64_t(i) * 2 + t, 300000);
        acc += checksum_item(parsed, 100000);
        ANDWEORC_PROGRESS("item_done");
      }
      results[t] = acc;
    });
  }
  for (auto& w : workers) w.join();
  std::printf("processed %d items per thread, checksum %llu\n", items,
              static_cast<unsigned long long>(results[0] ^ results[1]));
  return 0;
}
