// experiment_record.h: one experiment as a kExperiment raw record
// (runtime/raw_format.h). The writing side's one home for that encoding;
// ingest/raw_reader.h's decode_experiment is the reading side.
#ifndef ANDWEORC_COORDINATOR_EXPERIMENT_RECORD_H_
#define ANDWEORC_COORDINATOR_EXPERIMENT_RECORD_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace andweorc::coordinator {

struct PointState {  // cumulative totals at one instant
  uint64_t visits = 0, begins = 0, ends = 0;
  bool latency = false;
};
// Progress-point totals by name at one instant.
using PointSnapshot = std::map<std::string, PointState>;

// What one experiment was and measured, apart from the points.
struct ExperimentFacts {
  uint64_t start_ns = 0, duration_ns = 0;
  uint64_t delay_ns = 0;          // delay inserted during it
  uint64_t selected_samples = 0;  // samples in the selected region
  int speedup_pct = 0;
  bool by_function = false;  // the region is a function, not a line
  std::string file;
  int line = 0;
  std::string function;
  // Coarse to fine: the functions that hold the selected line (the plan's
  // parents, as (function, file) of their region keys); empty otherwise.
  struct Parent {
    std::string function, file;
  };
  std::vector<Parent> parents;
};

// The record's payload: the header, file and function (padded to 8), then
// one entry per point with its change from `before` to `after` (a latency
// point: arrivals, departures and the in-flight counts at both ends), and,
// for an end-to-end run, the one visit of the "end-to-end" point; then the
// parents, if any.
std::string encode_experiment(const ExperimentFacts& facts,
                              const PointSnapshot& before,
                              const PointSnapshot& after, bool end_to_end);

// The name of the point an end-to-end run counts.
inline constexpr const char* kEndToEndPoint = "end-to-end";

}  // namespace andweorc::coordinator

#endif  // ANDWEORC_COORDINATOR_EXPERIMENT_RECORD_H_
