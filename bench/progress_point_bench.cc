// progress_point_bench: cost of one ANDWEORC_PROGRESS, with and without the
// runtime, at 1 and 2 threads; and next to ~100 ns of work, where a point
// must be cheap. A Coz-style shared atomic counter is measured alongside to
// show what a cache line written by every thread costs.
//
// Built twice: bench_progress_point (runtime linked in, inactive sampling:
// points count as in a profiled run) and bench_progress_point_absent (no
// runtime: each point is one predictable branch).
#include <andweorc/andweorc.h>
#include <benchmark/benchmark.h>

#include <atomic>
#include <cstdint>

namespace {

// About 100 ns of dependent arithmetic.
__attribute__((noinline)) uint64_t work_100ns(uint64_t x) {
  for (int i = 0; i < 40; ++i) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    benchmark::DoNotOptimize(x);
  }
  return x;
}

void BM_Point(benchmark::State& state) {
  for (auto _ : state) ANDWEORC_PROGRESS("bench_point");
}
BENCHMARK(BM_Point)->Threads(1)->Threads(2)->UseRealTime();

void BM_LatencyScope(benchmark::State& state) {
  for (auto _ : state) {
    ANDWEORC_LATENCY_SCOPE("bench_scope");
  }
}
BENCHMARK(BM_LatencyScope)->Threads(1)->Threads(2)->UseRealTime();

std::atomic<uint64_t> g_shared{0};
void BM_SharedAtomicCounter(benchmark::State& state) {
  for (auto _ : state) g_shared.fetch_add(1, std::memory_order_relaxed);
}
BENCHMARK(BM_SharedAtomicCounter)->Threads(1)->Threads(2)->UseRealTime();

void BM_Work100ns(benchmark::State& state) {
  uint64_t x = 1;
  for (auto _ : state) x = work_100ns(x);
  benchmark::DoNotOptimize(x);
}
BENCHMARK(BM_Work100ns)->Threads(1)->Threads(2)->UseRealTime();

void BM_Work100nsWithPoint(benchmark::State& state) {
  uint64_t x = 1;
  for (auto _ : state) {
    x = work_100ns(x);
    ANDWEORC_PROGRESS("bench_work_point");
  }
  benchmark::DoNotOptimize(x);
}
BENCHMARK(BM_Work100nsWithPoint)->Threads(1)->Threads(2)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
