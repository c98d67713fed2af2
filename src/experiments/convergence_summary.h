// convergence_summary.h: the experiment plan's convergence state
// (planner/convergence.h) as the profile stores it and as one sentence
// for reports, e.g. "Flat profile: no region's impact exceeds 0.05 with 95%
// confidence after 212 experiments."
#ifndef ANDWEORC_EXPERIMENTS_CONVERGENCE_SUMMARY_H_
#define ANDWEORC_EXPERIMENTS_CONVERGENCE_SUMMARY_H_

#include <string>
#include <vector>

#include "planner/convergence.h"
#include "profile/profile.h"

namespace andweorc::experiments {

profile::Convergence to_profile(const planner::ConvergenceStatus& s,
                                const planner::ConvergenceOptions& options);

// Feeds every experiment, in profile order, to a tracker; state "" when
// there are none.
profile::Convergence convergence_of(
    const std::vector<profile::Experiment>& experiments,
    const planner::ConvergenceOptions& options = {});

// One sentence; "" when the state is absent.
std::string convergence_text(const profile::Convergence& c);

}  // namespace andweorc::experiments

#endif  // ANDWEORC_EXPERIMENTS_CONVERGENCE_SUMMARY_H_
