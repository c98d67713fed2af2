// convergence_summary.cc: see convergence_summary.h.
#include "experiments/convergence_summary.h"

#include <fmt/format.h>

#include "experiments/observations.h"
#include "planner/region_key.h"

namespace andweorc::experiments {

profile::Convergence to_profile(const planner::ConvergenceStatus& s,
                                const planner::ConvergenceOptions& options) {
  profile::Convergence c;
  c.state = planner::state_name(s.state);
  c.experiments = s.experiments;
  c.regions = s.regions;
  c.in_play = s.in_play;
  c.point = s.point;
  c.leader = planner::region_label(s.leader);
  if (!s.leader.empty()) {
    c.impact = s.leader_estimate.slope;
    c.ci_low = s.leader_estimate.low;
    c.ci_high = s.leader_estimate.high;
    c.q_value = s.leader_q;
  }
  c.stable_for = s.stable_for;
  c.useful_impact = options.useful_impact;
  return c;
}

profile::Convergence convergence_of(
    const std::vector<profile::Experiment>& experiments,
    const planner::ConvergenceOptions& options) {
  if (experiments.empty()) return {};
  planner::ConvergenceTracker t(options);
  for (const profile::Experiment& e : experiments) t.add(to_observation(e));
  return to_profile(t.status(), options);
}

std::string convergence_text(const profile::Convergence& c) {
  if (c.state.empty()) return "";
  std::string n = fmt::format("{} experiment{}", c.experiments,
                              c.experiments == 1 ? "" : "s");
  if (c.state == "flat")
    return fmt::format(
        "Flat profile: no region's impact exceeds {:.2f} with 95% confidence "
        "after {} (no line is worth optimizing for this progress point).",
        c.useful_impact, n);
  std::string leader =
      c.leader.empty()
          ? std::string("no region has enough paired experiments yet")
          : fmt::format("leader {} (impact {:.2f}, 95% CI {:.2f} to {:.2f})",
                        c.leader, c.impact, c.ci_low, c.ci_high);
  if (c.state == "stable")
    return fmt::format(
        "Answer stable after {}: {}, leading for the last {} experiments; "
        "every other region is ranked below it or tied with it.",
        n, leader, c.stable_for);
  return fmt::format(
      "Not stable yet after {}: {}; {} of {} region{} still in play. Run "
      "longer (andweorc run --until-stable stops when the answer is stable).",
      n, leader, c.in_play, c.regions, c.regions == 1 ? "" : "s");
}

}  // namespace andweorc::experiments
