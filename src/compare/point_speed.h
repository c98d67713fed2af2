// point_speed.h: did a progress point get slower, beyond run-to-run noise?
//
// Contract (pure functions of validated profiles):
//  - A run's speed for a point is measured by its 0% experiments (nothing
//    delayed: the program as it is): per experiment, the period (virtual
//    seconds per visit) of a throughput point or the latency (Little's law,
//    as experiments/analysis.h) of a latency point. The run's estimate is
//    the mean of log(value) weighted by virtual duration.
//  - Its uncertainty comes from batch means: the run's 0% experiments, in
//    the order they ran, are cut into up to kBatches consecutive batches;
//    the spread of the batch means (weighted by duration) gives the
//    variance of the run's estimate with batches - 1 degrees of freedom.
//    Batches, not single experiments, because load drifts make neighbouring
//    experiments alike (single experiments would understate the noise).
//  - A side with several runs averages the runs' estimates; its variance is
//    the larger of the runs' own (combined) and the spread between the runs
//    (sample variance / runs, runs - 1 degrees of freedom): repeated runs
//    see offsets that no single run can (placement, frequency, load).
//  - The change is Welch's test on log(NEW) - log(BASE): slower_pct =
//    100 * (exp(delta) - 1) and its interval at `level`, two-sided p.
//  - A run without at least 2 usable 0% experiments for the point gives no
//    estimate; a side without any estimate gives no test.
//  - CPU time per visit (side_cpu): per run, all its samples x the sample
//    period (samples when the period is unknown) over all visits of the
//    point (ends for latency points). Wall time per visit moves with the
//    machine's load (other jobs take the cores); CPU time much less so. A
//    run gives one number, so its noise is only seen between runs: a side
//    needs at least 2 runs (mean of logs, sample variance / runs, runs - 1
//    degrees of freedom).
#ifndef ANDWEORC_COMPARE_POINT_SPEED_H_
#define ANDWEORC_COMPARE_POINT_SPEED_H_

#include <optional>
#include <string>
#include <vector>

#include "profile/profile.h"

namespace andweorc::compare {

inline constexpr int kBatches = 6;

struct SideSpeed {
  double log_mean = 0;  // mean log(seconds per visit, or latency)
  double var = 0;       // variance of log_mean
  double dof = 0;
  int runs = 0;               // runs with an estimate
  int experiments = 0;        // 0% experiments used, all runs
  bool between_runs = false;  // var is the spread between runs
};

struct SpeedChange {
  double delta = 0;  // log(NEW) - log(BASE); > 0: NEW is slower
  double se = 0;
  double dof = 0;
  double p = 1;  // two-sided
  double q = 1;  // Benjamini-Hochberg over the whole diff (profile_diff.h)
  double slower_pct = 0;             // 100 * (exp(delta) - 1)
  double low_pct = 0, high_pct = 0;  // its interval
  bool significant = false;          // q < 1 - level
};

// The speed of point (name, kind) over `runs`; nullopt when no run has an
// estimate.
std::optional<SideSpeed> side_speed(
    const std::vector<const profile::Profile*>& runs, const std::string& name,
    profile::PointKind kind);

// CPU time per visit of point (name, kind) over `runs`; nullopt with fewer
// than 2 runs that have samples and visits.
std::optional<SideSpeed> side_cpu(
    const std::vector<const profile::Profile*>& runs, const std::string& name,
    profile::PointKind kind);

// Welch's comparison of two sides; nullopt when it is undefined (no
// variance on either side).
std::optional<SpeedChange> compare_speeds(const SideSpeed& base,
                                          const SideSpeed& next, double level);

}  // namespace andweorc::compare

#endif  // ANDWEORC_COMPARE_POINT_SPEED_H_
