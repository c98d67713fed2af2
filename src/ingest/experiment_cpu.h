// experiment_cpu.h: the CPU time a process used during each experiment,
// from its samples' time stamps (profile::Experiment::cpu_s).
//
// A sample stands for `weight` sample periods of one thread's CPU time
// (perf task-clock or the CPU-time timer), time-stamped with
// CLOCK_MONOTONIC like the experiment's start. The samples whose time falls
// in [start, start + duration) times the period are the CPU time the
// process's sampled threads used in that window; samples taken while a
// thread paid a delay are dropped by the runtime, so delays do not count.
#ifndef ANDWEORC_INGEST_EXPERIMENT_CPU_H_
#define ANDWEORC_INGEST_EXPERIMENT_CPU_H_

#include <cstdint>
#include <utility>
#include <vector>

#include "ingest/raw_reader.h"

namespace andweorc::ingest {

// Sample weights by time, for window sums.
class SampleTimeline {
 public:
  SampleTimeline() = default;
  explicit SampleTimeline(const std::vector<RawSample>& samples);
  void add(uint64_t time_ns, uint32_t weight);
  // Weighted samples with time in [begin, end).
  uint64_t weight_in(uint64_t begin, uint64_t end);
  // Drops the samples before `time_ns` (a tail keeps only what pending
  // experiments may still need); windows starting before it are unknown.
  void drop_before(uint64_t time_ns);
  uint64_t latest() const { return latest_; }
  uint64_t horizon() const { return horizon_; }

 private:
  void sort();
  std::vector<std::pair<uint64_t, uint32_t>> entries_;  // (time, weight)
  bool sorted_ = true;
  uint64_t latest_ = 0;
  uint64_t horizon_ = 0;
};

// Weighted samples per window [begin, end), summed as samples stream by in
// any order: memory per window, not per sample (a finished run's ingest,
// where every window is known before the samples are read). Windows may
// overlap.
class WindowWeights {
 public:
  explicit WindowWeights(std::vector<std::pair<uint64_t, uint64_t>> windows);
  void add(uint64_t time_ns, uint32_t weight);
  // Weighted samples in window i (in the constructor's order).
  uint64_t weight(size_t i) const { return sums_[i]; }

 private:
  std::vector<std::pair<uint64_t, uint64_t>> windows_;  // by begin
  std::vector<size_t> index_;      // windows_[k] is window index_[k]
  std::vector<uint64_t> max_end_;  // max end of windows_[0..k]
  std::vector<uint64_t> sums_;     // by the caller's index
};

// cpu_s of an experiment of the process: -1 (unknown) when the process had
// no sampler (period 0) or the window starts before the timeline's horizon.
double experiment_cpu_s(SampleTimeline& timeline, uint64_t period_ns,
                        uint64_t start_ns, uint64_t duration_ns);

}  // namespace andweorc::ingest

#endif  // ANDWEORC_INGEST_EXPERIMENT_CPU_H_
