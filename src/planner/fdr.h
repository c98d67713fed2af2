// fdr.h: false-discovery-rate control over the regions of one progress
// point (Benjamini-Hochberg q-values, Benjamini-Yekutieli FCR intervals).
//
// Why: every region gets its own 95% interval, so among 100 regions with
// no effect about 5 exclude 0 by chance. A region is significant only when
// its Benjamini-Hochberg q-value is <= q (default 0.05 = 1 - level): among
// the regions called significant, the expected share of false ones is at
// most q. The selected regions' intervals at level 1 - R q / m (R selected
// of m tested) cover their true impacts with a false-coverage rate <= q
// (Benjamini & Yekutieli 2005); a selected region's FCR interval excludes 0
// exactly when its q-value is <= q. Pure; also runs in the preloaded
// runtime's planner thread (never in a signal handler).
#ifndef ANDWEORC_PLANNER_FDR_H_
#define ANDWEORC_PLANNER_FDR_H_

#include <vector>

#include "statistics/multiple_testing.h"

namespace andweorc::planner {

// Two-sided p-value of H0 "impact = 0" for an estimate with standard error
// `se` and `dof` degrees of freedom (Student's t). se == 0: 0 when the
// estimate is nonzero, else 1. dof < 1 or a non-finite input: 1.
double two_sided_p(double estimate, double se, int dof);

// Benjamini-Hochberg q-values: the one implementation, shared with `diff`.
using experiments::bh_q_values;

// The Benjamini-Yekutieli confidence level for the `selected` of `tested`
// regions at false-coverage rate q: 1 - selected * q / tested (1 - q when
// nothing is selected or tested).
double fcr_level(int selected, int tested, double q);

}  // namespace andweorc::planner

#endif  // ANDWEORC_PLANNER_FDR_H_
