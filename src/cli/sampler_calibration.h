// sampler_calibration.h: what a perf sample costs this machine, measured by
// the tool before it starts the program, so that `run --sampler auto` (the
// default) picks the cheaper sampler (issue 11).
//
// A perf task-clock event interrupts its thread at every sample; in a
// virtual machine the interrupt and the re-arming of the event's timer are
// exits to the hypervisor: 20-35 us of CPU per sample on the project's VMs
// (docs/design.md section 9), 2-3.5% of a busy thread at the 1 ms period,
// against a few us on bare metal. The CPU-time timer sampler rides on the
// scheduler tick (no interrupt of its own) and costs almost nothing, but is
// coarser: one signal per tick (4 ms at HZ=250), weighted by its overruns.
#ifndef ANDWEORC_CLI_SAMPLER_CALIBRATION_H_
#define ANDWEORC_CLI_SAMPLER_CALIBRATION_H_

#include <cstdint>
#include <string>

#include "cli/run_options.h"

namespace andweorc::cli {

struct PerfSampleCost {
  bool measured = false;  // false: perf refused (error says why)
  double us = 0;          // extra CPU per sample, microseconds
  uint64_t signals = 0;   // samples whose signal the handler took
  std::string error;
};

// Busy work timed in the calling thread's CPU time without and with a
// task-clock event that samples every 100 us as the runtime's does (user
// call chains, a signal per sample to this thread, a handler that drains
// the ring), alternated `rounds` times for about `ms` of CPU each; the
// extra CPU per sample, from the fastest run of each kind. About 2 x rounds
// x ms of CPU. Briefly installs a SIGURG handler (restored before return):
// call it before the tool starts threads that might take SIGURG.
PerfSampleCost measure_perf_sample_cost(int rounds = 3, int ms = 15);

// `auto` takes the timer when a perf sample costs more than this: 8 us is
// 0.8% of a busy thread at the default 1 ms period.
inline constexpr double kTimerAboveUs = 8.0;

// --sampler auto, for `run` and `attach`: perf, unless a perf sample costs
// this machine more than kTimerAboveUs of CPU (a VM): then the CPU-time
// timer (settings->timer_chosen), with the reason for the profile
// (settings->sampler_note).
void choose_sampler(RunSettings* settings);

}  // namespace andweorc::cli

#endif  // ANDWEORC_CLI_SAMPLER_CALIBRATION_H_
