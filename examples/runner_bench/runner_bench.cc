// runner_bench: a benchmark-style binary that finds its own bottleneck.
//
// Two worker threads process records: each one is parsed on its own
// (parse_record, parallel) and then committed to a shared table under one
// mutex (commit_record, serial). Parsing is plenty of CPU time, but the
// lock is saturated: only a faster commit makes the program faster. The
// binary links libandweorc and runs the causal experiments itself, with
// andweorc::Runner, while its workers run; it prints the ranked lines and
// writes a profile `andweorc report` can read.
//
//   ANDWEORC_ENABLED=1 runner_bench [profile.json]
#include <andweorc/runner.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <mutex>
#include <thread>
#include <vector>

namespace {

constexpr uint64_t kMul = 0xBF58476D1CE4E5B9ull;

// Each loop is written out on one line so that its samples have one line.
// clang-format off
__attribute__((noinline)) uint64_t parse_record(uint64_t x) {
  for (int i = 0; i < 40000; ++i) { x = (x ^ (x >> 29)) * kMul + 2; asm volatile("" : "+r"(x)); }  // PARSE_LINE
  return x;
}

__attribute__((noinline)) uint64_t commit_record(uint64_t x) {
  for (int i = 0; i < 100000; ++i) { x = (x ^ (x >> 29)) * kMul + 3; asm volatile("" : "+r"(x)); }  // COMMIT_LINE
  return x;
}
// clang-format on

struct Workload {
  std::mutex table_lock;
  uint64_t table = 1;
  std::atomic<bool> stop{false};
  std::vector<std::thread> workers;

  void start(int threads) {
    for (int t = 0; t < threads; ++t)
      workers.emplace_back([this, t] {
        uint64_t x = uint64_t(t) + 1;
        while (!stop.load(std::memory_order_relaxed)) {
          x = parse_record(x);
          {
            std::lock_guard<std::mutex> lock(table_lock);
            table = commit_record(table ^ x);
          }
          ANDWEORC_PROGRESS("record_done");
        }
      });
  }
  void finish() {
    stop = true;
    for (auto& w : workers) w.join();
  }
};

}  // namespace

int main(int argc, char** argv) {
  andweorc::InitStatus status = andweorc::init();
  if (status == andweorc::InitStatus::kDisabled)
    std::cerr << "runner_bench: profiling is off (set ANDWEORC_ENABLED=1)\n";
  Workload w;
  w.start(2);  // created after init(): profiled automatically

  andweorc::RunnerConfig config;
  config.round_duration = std::chrono::milliseconds(200);
  config.max_lines = 3;
  config.speedups = {25, 50, 75, 100};
  config.repetitions = 3;
  config.seed = 7;
  // runner_bench [PROFILE [GRANULARITY [REPETITIONS]]]: granularity line
  // (default), function or auto; fewer repetitions make a shorter run.
  if (argc > 2) config.granularity = argv[2];
  if (argc > 3) config.repetitions = std::atoi(argv[3]);
  andweorc::Runner runner(config);
  andweorc::Results results = runner.run("record_done");
  w.finish();

  results.print(std::cout);
  if (!results.ok()) return status == andweorc::InitStatus::kDisabled ? 0 : 1;
  std::vector<andweorc::Impact> top = results.significant_impacts();
  if (!top.empty())
    std::cout << "bottleneck: " << top.front().function << " (line "
              << top.front().line << ")\n";
  if (argc > 1) {
    std::string error;
    if (!results.write(argv[1], &error)) {
      std::cerr << "runner_bench: " << error << "\n";
      return 1;
    }
    std::cout << "profile written to " << argv[1] << "\n";
  }
  return 0;
}
