// experiment_runner.h: the experiment loop of the coordinator thread.
//
// Coz's method: pick a line at random in proportion to its samples (random
// choice avoids bias), pick a speed-up (0% often enough for a solid
// baseline, else 5..100% in steps of 5), let the handler insert delays for
// `length`, then record the virtual duration and every progress point's
// change. The length doubles while some progress point that has been reached
// before gets fewer than kTargetVisits visits per experiment.
#ifndef ANDWEORC_COORDINATOR_EXPERIMENT_RUNNER_H_
#define ANDWEORC_COORDINATOR_EXPERIMENT_RUNNER_H_

#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "coordinator/coordinator_config.h"
#include "coordinator/line_catalog.h"
#include "runtime/delay_engine.h"

namespace andweorc::coordinator {

struct PointState {  // cumulative totals at one instant
  uint64_t visits = 0, begins = 0, ends = 0;
  bool latency = false;
};
using PointSnapshot = std::map<std::string, PointState>;
PointSnapshot snapshot_points();

class ExperimentRunner {
 public:
  ExperimentRunner(const CoordinatorConfig& config, const LineCatalog& catalog,
                   runtime::DelayEngine& engine);
  // Runs experiments until *stop becomes true. Returns a note for the report
  // when it could not run any (e.g. the fixed line is not in scope).
  std::string run(const bool* stop);
  // One experiment of a given selection and speed-up (the Runner API's
  // schedule), recorded unless *stop cuts it short, then the cool-off.
  // Returns false when *stop became true.
  bool run_one(uint32_t selection, int speedup, const bool* stop);
  uint64_t length_ns() const { return length_ns_; }

 private:
  static constexpr uint64_t kTargetVisits = 5;
  static constexpr int kZeroSpeedupPercent = 30;

  // Picks what to speed up: a line id, or a function id with
  // --granularity function; false while nothing has been sampled.
  bool choose_selection(uint32_t* id);

  // One experiment from start to end: begin() selects and starts inserting
  // delays; finish() stops, and records it when `keep`.
  struct Running {
    uint32_t selection;
    int speedup;
    PointSnapshot before;
    uint64_t start;
    uint64_t g0;  // global delay count at the start
  };
  Running begin(uint32_t selection, int speedup);
  PointSnapshot finish(const Running& r, bool end_to_end, bool keep = true);
  int choose_speedup();
  // Sleeps up to ns in short slices; false if asked to stop meanwhile.
  bool sleep_unless_stopped(uint64_t ns, const bool* stop);
  void record(uint32_t selection, int speedup, uint64_t start, uint64_t end,
              uint64_t delay, uint64_t hits, const PointSnapshot& before,
              const PointSnapshot& after, bool end_to_end);
  void adapt_length(const PointSnapshot& before, const PointSnapshot& after);
  std::string run_end_to_end(const bool* stop);

  const CoordinatorConfig& config_;
  const LineCatalog& catalog_;
  runtime::DelayEngine& engine_;
  std::mt19937_64 rng_;
  uint64_t length_ns_;
  uint64_t experiments_ = 0;
  std::vector<uint32_t> fixed_lines_;
  std::map<std::string, bool> ever_visited_;
};

}  // namespace andweorc::coordinator

#endif  // ANDWEORC_COORDINATOR_EXPERIMENT_RUNNER_H_
