// fail_on.h: `andweorc diff --fail-on` rules, so CI can gate on a diff.
//
// Syntax: a comma-separated list (the option may also be repeated) of
//   new-bottleneck          a line is a significant bottleneck in NEW but
//                           was not in BASE
//   impact-increase=X       a matched line's impact rose significantly by
//                           at least X (impact units, e.g. 0.1)
//   share-increase=PP       a line's share of samples rose by at least PP
//                           percentage points (e.g. 5)
//   slowdown=PCT            a progress point's baseline (time per visit, or
//                           latency) got at least PCT percent slower
// Numbers are finite and >= 0. Anything else is a usage error.
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
    kSlowdown
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
