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

// `auto` takes the timer when perf's samples would cost a busy thread more
// than this share of its CPU at the run's period (25 us a sample at 1 ms).
// Not lower, although the timer is cheaper wherever a sample costs
// anything: perf's 1 ms samples answer faster, and measured on a VM whose
// samples cost 15 us (1.5%; the known-answer suite 3.5% mean with perf,
// 1.0% with the timer) perf reached a stable answer in half the time or
// less (zstd after 14-23 s of experiments, where two 60 s timer runs did
// not settle) and was closer on a lock-bound bottleneck (docs/design.md
// section 9). The VMs where the timer was chosen before measured 17-27 us
// by the ring alone (25-55 us in sample_cost), and perf cost CPU-bound
// work 5-7% there.
inline constexpr double kTimerAboveShare = 0.025;

// True when `us` of CPU per sample, one sample per `period_ns` of CPU,
// is above kTimerAboveShare.
bool timer_preferred(double us, uint64_t period_ns);

// --sampler auto, for `run` and `attach`: perf, unless timer_preferred
// for this machine's measured cost (a VM): then the CPU-time timer
// (settings->timer_chosen), with the reason for the profile
// (settings->sampler_note).
void choose_sampler(RunSettings* settings);

}  // namespace andweorc::cli

#endif  // ANDWEORC_CLI_SAMPLER_CALIBRATION_H_
