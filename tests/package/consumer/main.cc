// A consumer of the installed package. With POINTS_ONLY it uses only the
// progress-point header (run it under `andweorc run`); otherwise it runs a
// short Runner in-process and writes a profile.
//   consumer [profile.json]
#ifdef POINTS_ONLY
#include <andweorc/andweorc.h>
#else
#include <andweorc/runner.h>
#endif

#include <atomic>
#include <cstdint>
#include <iostream>
#include <thread>

namespace {

std::atomic<bool> g_stop{false};

__attribute__((noinline)) uint64_t consumer_work(uint64_t x) {
  for (int i = 0; i < 20000; ++i) {
    x = (x ^ (x >> 31)) * 0x9E3779B97F4A7C15ull + 1;
    asm volatile("" : "+r"(x));
  }
  return x;
}

void work(long units) {
  uint64_t x = 1;
  for (long n = 0; (units == 0 || n < units) && !g_stop; ++n) {
    x = consumer_work(x);
    ANDWEORC_PROGRESS("consumer_unit");
  }
  if (x == 42) std::cout << "unlikely\n";
}

}  // namespace

int main(int argc, char** argv) {
#ifdef POINTS_ONLY
  (void)argc, (void)argv;
  work(3000);
  std::cout << "consumer_points done\n";
  return 0;
#else
  andweorc::Options options;
  options.enabled = true;
  andweorc::InitStatus status = andweorc::init(options);
  std::thread worker(work, 0);
  andweorc::RunnerConfig config;
  config.round_duration = std::chrono::milliseconds(50);
  config.warmup = std::chrono::milliseconds(300);
  config.baseline_rounds = 3;
  config.speedups = {50, 100};
  config.max_lines = 1;
  config.repetitions = 2;
  andweorc::Results results = andweorc::Runner(config).run("consumer_unit");
  g_stop = true;
  worker.join();
  std::cout << "init " << int(status) << " ok " << results.ok() << " impacts "
            << results.impacts().size() << "\n";
  if (!results.ok()) std::cout << results.error() << "\n";
  if (results.ok() && argc > 1 && !results.write(argv[1])) return 1;
  return results.ok() ? 0 : 1;
#endif
}
