// runner.h: andweorc as a library, from C++ (C: see runner_c.h).
//
//   int main() {
//     andweorc::init();                  // no-op unless ANDWEORC_ENABLED=1
//     Workload w;                        // threads started after init() are
//     w.start();                         // profiled automatically
//     andweorc::Runner runner;           // causal experiments, in-process
//     andweorc::Results r = runner.run("item_done");
//     for (const andweorc::Impact& i : r.significant_impacts())
//       std::cout << i.file << ":" << i.line << " " << i.slope << "\n";
//     r.write("profile.json");           // `andweorc report profile.json`
//     w.stop();
//   }
//
// Link with the library (CMake: andweorc::andweorc; pkg-config: andweorc).
// Linking it is enough: its pthread, semaphore, sleep and I/O wrappers come
// before libc's in the program's symbol lookup, so delays are inherited as
// under `andweorc run`, without LD_PRELOAD. docs/runner-api.md has details.
#ifndef ANDWEORC_RUNNER_H_
#define ANDWEORC_RUNNER_H_

#include <chrono>
#include <cstdint>
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

#include "andweorc/runner_c.h"

namespace andweorc {

struct Options {
  // Profile even when ANDWEORC_ENABLED is not 1.
  bool enabled = false;
  // CPU time between samples, at least 100 us (0: ANDWEORC_SAMPLE_PERIOD_NS
  // if set, else 1 ms).
  std::chrono::nanoseconds sample_period{0};
};

enum class InitStatus {
  kDisabled = ANDWEORC_INIT_DISABLED,
  kStarted = ANDWEORC_INIT_STARTED,
  kAlreadyRunning = ANDWEORC_INIT_ALREADY,
  kFailed = ANDWEORC_INIT_FAILED,
};

// Starts profiling when ANDWEORC_ENABLED=1 or options.enabled; otherwise
// returns kDisabled having done nothing. Threads created afterwards are
// profiled automatically. Safe to call more than once, and under
// `andweorc run` (which has started profiling already).
ANDWEORC_API InitStatus init(const Options& options = {});
// Profiles the calling thread (for threads that existed before init()).
// False when profiling is off.
ANDWEORC_API bool start_profiling();
// True when profiling is on in this process.
ANDWEORC_API bool enabled();

struct RunnerConfig {
  // The throughput or latency point to optimize for (run(point) overrides).
  std::string progress_point;
  // Length of one experiment; doubled while the point gets fewer than 5
  // visits in one.
  std::chrono::nanoseconds round_duration = std::chrono::milliseconds(200);
  // Sampling before the lines to test are chosen (first run only needs it).
  std::chrono::nanoseconds warmup = std::chrono::seconds(1);
  // Experiments at 0% (nothing sped up): the baseline.
  int baseline_rounds = 10;
  // Virtual speed-ups to test, in percent (1..100).
  std::vector<int> speedups = {25, 50, 75, 100};
  // The most-sampled in-scope lines to test (each with >= 1% of samples).
  int max_lines = 5;
  // How often each (line, speed-up) pair runs.
  int repetitions = 2;
  // Binaries and source files whose lines count, as `andweorc run`'s
  // --binary-scope/--source-scope (empty: the main executable; all sources
  // but system headers). Fixed by the first run in a process.
  std::vector<std::string> binary_scope;
  std::vector<std::string> source_scope;
  uint64_t seed = 0;  // 0: from the clock
  // What an experiment speeds up, as `andweorc run --granularity`: "line",
  // "function", "auto" (functions first, then the lines of the functions
  // that matter; max_lines then caps each of the two tiers) or "adaptive"
  // (lines, or auto when the samples spread over more lines than the plan
  // reaches: `andweorc run`'s default).
  std::string granularity = "line";
};

// One line's causal impact on the progress point.
struct Impact {
  std::string file;
  int line = 0;
  std::string function;
  bool fitted = false;  // slope, interval and R² are meaningful
  double slope = 0;     // program speed-up per unit of line speed-up
  double ci_low = 0;    // 95% confidence interval of the slope
  double ci_high = 0;
  double r2 = 0;
  int experiments = 0;  // in the fit, 0% baselines included
  bool significant = false;
  std::string verdict;  // e.g. "significant", "not enough data: run longer"
  int rank = 0;         // 1-based; significant lines come first
  // "line", or "function" for a whole function (line = its first line).
  std::string granularity = "line";
};

class ANDWEORC_API Results {
 public:
  Results();
  // False when no estimates could be made; error() says why.
  bool ok() const;
  const std::string& error() const;
  const std::string& point() const;
  // Every tested line, by rank.
  const std::vector<Impact>& impacts() const;
  // Only the significant ones, by rank: 95% interval excludes 0 and the
  // line survives false-discovery-rate control (5%) over the tested lines.
  std::vector<Impact> significant_impacts() const;
  int experiments() const;  // recorded in this process so far
  double seconds() const;   // wall time run() took
  // Writes the profile in the format `andweorc run` writes (docs/
  // profile-format.md). False (and *error set) on failure.
  bool write(const std::string& path, std::string* error = nullptr) const;
  // The same experiments analyzed for another progress point (every
  // experiment records every point), e.g. a latency point next to the
  // throughput point the run was for.
  Results for_point(const std::string& point) const;
  // The ranked lines, one per line of text.
  void print(std::ostream& out, size_t top = 10) const;

  struct Data;  // implementation

 private:
  friend class Runner;
  std::shared_ptr<const Data> data_;
};

class ANDWEORC_API Runner {
 public:
  Runner();
  explicit Runner(RunnerConfig config);
  const RunnerConfig& config() const { return config_; }
  RunnerConfig& config() { return config_; }
  // Runs the experiments while the program's threads keep working (blocks
  // for warmup + about (baseline_rounds + max_lines x speedups x
  // repetitions) rounds), then analyzes them.
  Results run();
  Results run(const std::string& point);

 private:
  RunnerConfig config_;
};

}  // namespace andweorc

#endif  // ANDWEORC_RUNNER_H_
