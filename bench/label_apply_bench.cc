// label_apply_bench: what andweorc::Label::apply adds to a call, with an
// empty function and with ~100 ns of work, on 1 and 2 threads (two threads
// applying the same label at once, as a worker pool does).
//
// Every benchmark calls the same out-of-line function, directly or through
// label.apply, so the difference is apply's cost alone. "apply" passes a
// one-capture lambda (in a register), "apply_wide" a two-capture one (by
// address). "c" is the C API (andweorc_label_apply), whose trampoline calls
// the function itself. At the end a table
// gives ns/op for both, the ns added per apply and the ratio (from the same
// run; pass --benchmark_repetitions=N --benchmark_enable_random_interleaving
// to interleave and repeat on a noisy machine: the table then uses medians).
//
// Built twice: bench_label_apply (runtime linked in: apply goes through a
// trampoline) and bench_label_apply_absent (no runtime: apply calls the
// function directly after one branch).
#include <andweorc/andweorc.h>
#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

namespace {

__attribute__((noinline)) uint64_t empty_work(uint64_t x) {
  benchmark::DoNotOptimize(x);
  return x;
}

// About 100 ns of dependent arithmetic (65 ns on the project machine).
__attribute__((noinline)) uint64_t work_100ns(uint64_t x) {
  for (int i = 0; i < 40; ++i) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    benchmark::DoNotOptimize(x);
  }
  return x;
}

andweorc::Label& shared_label() {
  static andweorc::Label label("bench", "apply");
  return label;
}

template <uint64_t (*Work)(uint64_t)>
void BM_Direct(benchmark::State& state) {
  uint64_t x = uint64_t(state.thread_index()) + 1;
  for (auto _ : state) {
    x = Work(x);
    benchmark::DoNotOptimize(x);
  }
}

template <uint64_t (*Work)(uint64_t)>
void BM_Apply(benchmark::State& state) {
  const andweorc::Label& label = shared_label();
  uint64_t x = uint64_t(state.thread_index()) + 1;
  for (auto _ : state) {
    x = label.apply([x] { return Work(x); });
    benchmark::DoNotOptimize(x);
  }
}

// A callable too big for a register (two captures): apply passes its
// address and the thunk loads the captures from the caller's frame.
template <uint64_t (*Work)(uint64_t)>
void BM_ApplyWide(benchmark::State& state) {
  const andweorc::Label& label = shared_label();
  uint64_t x = uint64_t(state.thread_index()) + 1, zero = 0;
  for (auto _ : state) {
    x = label.apply([x, zero] { return Work(x + zero); });
    benchmark::DoNotOptimize(x);
  }
}

// The C API: the trampoline calls fn(arg) itself (no thunk). The chain
// goes through memory (arg), the same way in both cases.
struct Chain {
  uint64_t x;
};
__attribute__((noinline)) void empty_step(void* arg) {
  Chain* c = static_cast<Chain*>(arg);
  c->x = empty_work(c->x);
}

andweorc_label_t* shared_c_label() {
  static andweorc_label_t* label = andweorc_label_new("bench", "c");
  return label;
}

void BM_CDirect(benchmark::State& state) {
  Chain c{uint64_t(state.thread_index()) + 1};
  for (auto _ : state) {
    empty_step(&c);
    benchmark::DoNotOptimize(c.x);
  }
}

void BM_CApply(benchmark::State& state) {
  const andweorc_label_t* label = shared_c_label();
  Chain c{uint64_t(state.thread_index()) + 1};
  for (auto _ : state) {
    andweorc_label_apply(label, empty_step, &c);
    benchmark::DoNotOptimize(c.x);
  }
}

BENCHMARK(BM_CDirect)->Name("c/direct")->Threads(1)->Threads(2);
BENCHMARK(BM_CApply)->Name("c/apply")->Threads(1)->Threads(2);

BENCHMARK(BM_Direct<empty_work>)->Name("empty/direct")->Threads(1)->Threads(2);
BENCHMARK(BM_Apply<empty_work>)->Name("empty/apply")->Threads(1)->Threads(2);
BENCHMARK(BM_ApplyWide<empty_work>)
    ->Name("empty/apply_wide")
    ->Threads(1)
    ->Threads(2);
BENCHMARK(BM_Direct<work_100ns>)->Name("100ns/direct")->Threads(1)->Threads(2);
BENCHMARK(BM_Apply<work_100ns>)->Name("100ns/apply")->Threads(1)->Threads(2);

// Prints the usual console output, then direct vs apply per case.
class RatioReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const Run& r : runs) {
      // Single runs, or the median of repetitions.
      if (r.run_type == Run::RT_Aggregate && r.aggregate_name != "median")
        continue;
      if (r.run_type == Run::RT_Iteration && r.repetitions > 1) continue;
      std::string name = r.run_name.str();  // e.g. "empty/apply/threads:2"
      ns_[name] = r.GetAdjustedCPUTime();
    }
  }
  void Finalize() override {
    ConsoleReporter::Finalize();
    std::printf("\n%-24s %12s %12s %10s %8s\n", "case (CPU time)",
                "direct ns/op", "apply ns/op", "added ns", "ratio");
    for (const char* work : {"empty", "c", "100ns"}) {
      for (const char* threads : {"threads:1", "threads:2"}) {
        std::string d = std::string(work) + "/direct/" + threads;
        for (const char* how : {"apply", "apply_wide"}) {
          std::string a = std::string(work) + "/" + how + "/" + threads;
          if (!ns_.count(d) || !ns_.count(a)) continue;
          std::printf("%-24s %12.2f %12.2f %10.2f %8.3f\n",
                      (std::string(work) + " " + how + " " + threads).c_str(),
                      ns_[d], ns_[a], ns_[a] - ns_[d], ns_[a] / ns_[d]);
        }
      }
    }
    std::printf("label active (runtime loaded): %s\n",
                shared_label().active() ? "yes" : "no");
  }

 private:
  std::map<std::string, double> ns_;
};

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  RatioReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  return 0;
}
