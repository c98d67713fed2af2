// delay_bound.h: how much program speed-up the delays of an experiment can
// explain, in wall terms and in CPU terms: the plausibility bound shared by
// the analysis (experiments/plausibility.h) and the stopping rule
// (convergence.h). docs/causal-analysis.md, "Plausibility".
//
// An experiment of wall length T that inserted D seconds of delay per
// thread is measured over its virtual time T - D, with program speed-up
// y = 1 - P / P0 (P = (T - D) / visits, P0 the reference period). Let c be
// the CPU the program's sampled threads used per wall second in it and c0
// in the reference (0%) experiments, and k the CPU time per visit. Visits
// are c T / k, so
//     y = 1 - (1 - D/T) (c0 / c) (k / k0).
// Virtual speed-up never makes a visit cheaper in CPU (k >= k0: the delays
// change when threads run, not what they compute), so y is at most
//     s = 1 - (1 - D/T) c0 / c,
// the CPU-normalised delay share of the experiment. When the paused
// threads' CPU is simply not used (an idle machine), c <= c0 and s <= D/T,
// the wall-terms bound; on a busy machine a paused thread hands its core to
// the program's other threads, c rises, and s says by how much real
// progress could speed up. The wall-terms rule needed a slack factor of 2
// for that, measured once on one machine; s measures it in every
// experiment.
//
// A region's bound is the fit through the origin of s on x over its
// sped-up experiments (the analysis' weights), and its upper limit at the
// analysis' level (a measured c carries Poisson noise of its samples, and
// the machine's load moves it), so a true effect is flagged only when its
// own interval lies above that limit. That limit is wide for a region
// that got almost no delay (s is then mostly the CPU rate's noise), so it
// is capped by what a hand-over can give at all: N threads pausing D each
// free at most N D of CPU, real progress gains at most N D / T, and y <=
// (N + 1) D/T, i.e. the bound is at most (N + 1) u (u the fit of D/T on
// x; no cap when N is unknown). Experiments that do not know their CPU
// (profiles before 1.5, Coz imports, the preloaded planner) fall back to the
// wall rule: D/T and a slack of kWallSlack.
//
// Pure and dependency-free: compiled into the preloaded library too.
#ifndef ANDWEORC_PLANNER_DELAY_BOUND_H_
#define ANDWEORC_PLANNER_DELAY_BOUND_H_

#include "planner/paired_blocks.h"

namespace andweorc::planner {

// The wall-terms rule's slack (kept for experiments without CPU data).
inline constexpr double kWallSlack = 2;

// One experiment (or a pool of them) as the bound sees it.
struct Half {
  double duration_s = 0;  // wall time; <= 0: unknown
  double delay_s = 0;     // inserted delay per thread
  double cpu_s = -1;      // CPU time used; < 0: unknown
};

// D / T clamped to [0, 1]; nothing when the duration is unknown.
std::optional<double> wall_delay_share(const Half& h);

// s above, of a sped-up experiment against its reference (clamped to
// [-1, 1]); nothing when either side's CPU is unknown or zero (no samples:
// the program's progress did not come from CPU, and the model says
// nothing).
std::optional<double> cpu_delay_share(const Half& reference, const Half& fast);

// The fits of a region's bound, fed one sped-up experiment at a time.
class BoundAccumulator {
 public:
  // x = the experiment's line speed-up (0..1], w = its fit weight.
  void add(double x, double w, const Half& reference, const Half& fast);
  struct Bound {
    bool judged = false;   // some experiment knew its delay
    bool cpu = false;      // every one knew its CPU: the CPU rule applies
    double wall = 0;       // u: the fit of D/T on x
    double cpu_share = 0;  // the fit of s on x (cpu only)
    double high = 0;       // the upper bound on the impact
    double low = 0;        // -threads * wall
  };
  // threads: N above; <= 0 when unknown (no cap; the lower bound then
  // takes N = 1).
  Bound bound(double level, double threads) const;

 private:
  SlopeAccumulator wall_, cpu_;
  int known_ = 0, unknown_cpu_ = 0;
};

}  // namespace andweorc::planner

#endif  // ANDWEORC_PLANNER_DELAY_BOUND_H_
