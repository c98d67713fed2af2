// region_cost.h: which functions got more expensive per progress-point
// visit, each run measured against the rest of its own program.
//
// Why: on a shared machine the CPU time one run of a binary spends per visit
// moves by about ±10% between runs (zstd, quiet 2-core VM: 4,457 to 5,561
// samples for the same 4,096 blocks), which hides a 20% rise of the
// program's CPU per visit at 4 runs per side (`cpu-slowdown`: 0 of 24 pairs
// detected). A run on a slower machine makes every function slower by about
// the same factor; a regression makes one region slower. So:
//  1. Per run r and function f: c_r(f), CPU seconds per visit spent with f
//     as the first in-scope frame (profile/attribution.h; code outside the
//     scope is one more region, function "").
//  2. The run's machine factor m_r(f) for testing f: the weighted median of
//     c_r(g) / (BASE's mean c(g)) over the OTHER functions g carrying at
//     least 1% of BASE's mean cost per visit (f has no vote, so even a region
//     with most of the cost cannot drag the median with its own regression).
//     g's weight is the inverse of how much its log ratio moves between the
//     runs of one side (variance pooled over both sides; at least its
//     Poisson variance, 1 / samples): a region whose cost moves on its own
//     between runs of one binary has little say, however large it is
//     (memcached: sendmsg's kernel time, 60% of the samples, was 3.4 or 0.3
//     us per request, run by run; weighted by cost it was the "machine",
//     and a region made slower was detected in 13% of pairs at 4 runs a side
//     instead of 100%). A regression of several regions at once needs them
//     to hold less than half of the others' weight.
//  3. Per function, c_r(f) / m_r(f) on each side; Welch's one-sided test that
//     NEW's mean is higher; the program slow-down it implies with the rest
//     unchanged: (mean NEW - mean BASE) / BASE's mean total cost per visit.
//     Its line that rose most is found on the same normalized costs.
//  4. Only functions whose mean normalized cost over all runs reaches
//     `min_pct` / 2 percent of BASE's total are tested: a function below it
//     cannot account for `min_pct`. The filter ignores which side is higher
//     (independent filtering), so it shrinks the Benjamini-Hochberg family
//     over the tested functions without biasing it.
// Needs 2+ runs per side with visits of the point (the noise is seen between
// runs only); otherwise no region is tested.
#ifndef ANDWEORC_COMPARE_REGION_COST_H_
#define ANDWEORC_COMPARE_REGION_COST_H_

#include <string>
#include <vector>

#include "profile/profile.h"

namespace andweorc::compare {

struct RegionCost {
  std::string function;  // "" = code outside the profile's scope
  std::string file;      // the function's source file
  // The function's line whose normalized cost rose most (0: none rose).
  std::string top_file;
  int top_line = 0;
  double base_cost = 0, new_cost = 0;  // normalized CPU seconds per visit
  double base_total = 0;               // BASE's mean CPU seconds per visit
  double implied_pct = 0;              // program slow-down, rest unchanged
  double low_pct = 0, high_pct = 0;    // its interval at the diff's level
  double p = 1, q = 1;                 // one-sided Welch; BH over `tested`
  bool significant = false;            // q < 1 - level
};

struct RegionCosts {
  int base_runs = 0, new_runs = 0;  // runs with visits of the point
  int tested = 0;                   // the BH family
  std::vector<RegionCost> rose;     // tested, NEW higher; most implied first
};

// `min_pct`: the smallest slow-down a rule will ask about (the filter of 4).
RegionCosts region_cost_changes(
    const std::vector<const profile::Profile*>& base_runs,
    const std::vector<const profile::Profile*>& new_runs,
    const std::string& point, profile::PointKind kind, double min_pct,
    double level);

}  // namespace andweorc::compare

#endif  // ANDWEORC_COMPARE_REGION_COST_H_
