// ranking.h: the order in which lines are reported, and their verdicts.
//
// Contract: the ranking rule, stated once (kRankingRule) and applied here:
//   1. significant lines (the interval of the impact excludes 0 and at least
//      K experiments sped the line up), by impact, largest first;
//   2. then fitted lines that are not significant, by impact, largest first;
//   3. then lines without enough data, most sped-up experiments first;
//   4. then lines never sampled while sped up, then lines whose experiments
//      never reached the progress point.
// Ties are broken by file, line, function, so the order is deterministic. A
// non-significant line therefore never ranks above a significant one.
#ifndef ANDWEORC_EXPERIMENTS_RANKING_H_
#define ANDWEORC_EXPERIMENTS_RANKING_H_

#include <string>
#include <string_view>
#include <vector>

#include "experiments/analysis.h"

namespace andweorc::experiments {

// One sentence for reports; K is filled in.
std::string ranking_rule(int min_speedup_experiments);

// Sets verdict, significant and verdict_text from the fit and the counts.
// `reached` is false when no experiment of the line reached the point;
// `sampled` is false when every sped-up experiment had 0 selected samples.
void classify(LineImpact* impact, int min_speedup_experiments, bool reached,
              bool sampled);

// The plain-words text of a verdict.
std::string_view verdict_text(Verdict v);

// Strict weak order of the rule above (within one progress point).
bool ranks_before(const LineImpact& a, const LineImpact& b);

// Sorts `impacts` of one point by the rule and sets rank = 1, 2, ...
void rank_impacts(std::vector<LineImpact>* impacts);

}  // namespace andweorc::experiments

#endif  // ANDWEORC_EXPERIMENTS_RANKING_H_
