// fail_on.h: `andweorc diff --fail-on` rules, so CI can gate on a diff.
//
// Syntax: a comma-separated list (the option may also be repeated) of
//   new-bottleneck          a line's status is kNewBottleneck: its impact
//                           rose significantly (q value, profile_diff.h)
//                           and it is a bottleneck in NEW, not in BASE
//   impact-increase=X       a line's impact rose significantly (q) by at
//                           least X (impact units, e.g. 0.1)
//   share-increase=PP       a line's share of samples rose by at least PP
//                           percentage points (e.g. 5); descriptive, no test
//   slowdown=PCT            a progress point got slower significantly (q of
//                           its speed test, point_speed.h) and by at least
//                           PCT percent by the estimate
//   cpu-slowdown=PCT        the same for CPU time per visit (needs 2+ runs
//                           per side: its noise is seen between runs only)
//   region-slowdown=PCT     a function's CPU time per visit, measured
//                           against the rest of each run (so a machine that
//                           is slower for a whole run does not count), rose
//                           significantly (q over the regions tested) by
//                           enough to slow the program by PCT percent with
//                           the rest unchanged (region_cost.h; 2+ runs per
//                           side)
// Numbers are finite and >= 0. Anything else is a usage error. Each finding
// carries its evidence: effect, interval or standard error, p and q.
#ifndef ANDWEORC_COMPARE_FAIL_ON_H_
#define ANDWEORC_COMPARE_FAIL_ON_H_

#include <optional>
#include <string>
#include <vector>

#include "compare/profile_diff.h"

namespace andweorc::compare {

struct FailRule {
  enum class Kind {
    kNewBottleneck,
    kImpactIncrease,
    kShareIncrease,
    kSlowdown,
    kCpuSlowdown,
    kRegionSlowdown
  };
  Kind kind = Kind::kNewBottleneck;
  double threshold = 0;
  std::string text;  // as the user wrote it, normalized
};

// Parses one or more comma-separated rules; on error returns nullopt and
// sets *error to one line.
std::optional<std::vector<FailRule>> parse_fail_rules(
    const std::vector<std::string>& specs, std::string* error);

struct Finding {
  std::string rule;    // FailRule::text
  std::string reason;  // e.g. "demo.c:42 (stage_a) is a new bottleneck"
};

// Every way `diff` breaks `rules`; empty: no regression.
std::vector<Finding> evaluate_fail_rules(const ProfileDiff& diff,
                                         const std::vector<FailRule>& rules);

}  // namespace andweorc::compare

#endif  // ANDWEORC_COMPARE_FAIL_ON_H_
