// run_spread.h: a merged side's line impacts, widened by the spread of the
// impacts between its runs.
//
// Why: with several runs per side, `diff` fits each line on the merged
// experiments, and the fit's standard error sees only the noise within
// runs. On a shared machine a line's impact itself moves between runs (the
// CPU a paused thread hands to the others depends on the load:
// experiments/plausibility.h), so A/A pairs of 4 runs per side raised "new
// bottleneck" on a line whose merged intervals did not overlap (epoll_server,
// 8 s runs: bench/real/results/2026-11-24-plausibility-and-ab.md). The rule,
// as point_speed.h's for the progress rate: a line fitted in n >= 2 runs
// gets the larger of its merged variance and the sample variance of its n
// per-run impacts / n; when the spread wins, dof = n - 1 and the interval is
// recomputed at the analysis level; a significant line whose widened
// interval covers 0 becomes not significant (its runs disagree, so it is
// no bottleneck to report). Lines fitted in fewer than 2 runs keep
// the merged fit. A side with one run is left alone.
#ifndef ANDWEORC_COMPARE_RUN_SPREAD_H_
#define ANDWEORC_COMPARE_RUN_SPREAD_H_

#include <vector>

#include "experiments/analysis.h"
#include "profile/profile.h"

namespace andweorc::compare {

void widen_by_run_spread(std::vector<experiments::LineImpact>* merged,
                         const std::vector<const profile::Profile*>& runs,
                         const experiments::AnalysisOptions& options);

}  // namespace andweorc::compare

#endif  // ANDWEORC_COMPARE_RUN_SPREAD_H_
