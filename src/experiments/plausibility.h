// plausibility.h: the range of impacts the delays an experiment inserted can
// produce, and the rule that keeps estimates outside it out of the ranking.
//
// Why: virtual speed-up only ever inserts delays. In an experiment of wall
// length T with D seconds of delay per thread, the analysis measures the
// program over T - D. If the delays do not make the program progress
// faster in real time, the measured program speed-up is at most D / T (the
// period over T - D is at least (1 - D/T) times the undisturbed one). So a
// region's impact (the slope of program speed-up on line speed-up x) is at
// most u, the weighted fit through the origin of D/T on x over the region's
// sped-up experiments:  u = sum(w x D/T) / sum(w x^2), w = virtual
// duration, the analysis' own weights. A region that is rarely sampled gets
// little delay and a small u: this is the "minimum inserted delay" an
// impact needs.
//
// Below: delays can slow the program more than they last (a thread paused
// while holding a lock stalls the others), but with N threads each pausing
// D, by at most N D of critical-path time, so the impact is at least -N u.
//
// Above, in CPU terms (planner/delay_bound.h): "delays do not make real
// progress faster" fails on a busy machine, where a paused thread hands its
// core to the program's other threads (the critical one among them). Since
// profile 1.5 every experiment records the CPU time the program used
// (Experiment::cpu_s), so the bound is the fit of the CPU-normalised delay
// share s = 1 - (1 - D/T) c0 / c on x (c, c0: the program's CPU per wall
// second in the experiment and in its reference 0% experiments), at its
// upper confidence limit. Profiles without CPU data keep the wall-terms
// rule, u with a slack of kWallSlack = 2 (the known-answer workloads'
// true bottlenecks reached 1.5 u at load 7-11: barrier.cc:24, 0.451
// [0.340, 0.561] with u = 0.308).
//
// The rule: an impact whose whole interval lies outside [-N u, high] is
// "implausible" (Verdict::kImplausible): it is kept in the output with the
// bound, never ranked as significant. Profiles that record no delay at all
// (Coz imports) give no bound and are not judged.
#ifndef ANDWEORC_EXPERIMENTS_PLAUSIBILITY_H_
#define ANDWEORC_EXPERIMENTS_PLAUSIBILITY_H_

#include <cstdint>
#include <vector>

#include "experiments/analysis.h"
#include "planner/delay_bound.h"
#include "profile/profile.h"

namespace andweorc::experiments {

inline constexpr double kUpperSlack = planner::kWallSlack;

// u above, from the sped-up points (x > 0) of a fit; 0 without any.
double delay_bound(const profile::Profile& p,
                   const std::vector<FitPoint>& points);

// True when some experiment of `p` recorded an inserted delay, so the bound
// means something.
bool records_delays(const profile::Profile& p);

// The bound of a fit's points: each sped-up point against its paired 0%
// half (FitPoint::baseline) or, outside blocks, against the pool of the
// fit's 0% points. CPU terms when every one of them knows its CPU.
planner::BoundAccumulator::Bound plausibility_bound(
    const profile::Profile& p, const std::vector<FitPoint>& points,
    double level, uint64_t threads);

// Sets m->plausible_low / plausible_high to [b.low, b.high] and
// m->implausible when m has a fit and its interval lies wholly outside; not
// judged when b is not. The verdict is left to control_fdr (ranking.h).
void judge_plausibility(const planner::BoundAccumulator::Bound& b,
                        LineImpact* m);

// The wall-terms rule: [-N u, kUpperSlack u] (N = max(1, threads)).
void judge_plausibility(double bound, uint64_t threads, LineImpact* m);

}  // namespace andweorc::experiments

#endif  // ANDWEORC_EXPERIMENTS_PLAUSIBILITY_H_
