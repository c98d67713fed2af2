// ranking.h: the order in which lines are reported, and their verdicts.
//
// Contract: the ranking rule, stated once (ranking_rule()) and applied here:
//   0. the lines tested are those of one progress point that have a fit and
//      at least K experiments that sped them up (m of them); each gets the
//      two-sided p-value of "impact = 0" and its Benjamini-Hochberg q-value
//      over the m (planner/fdr.h);
//   1. significant lines (q-value <= 1 - level, i.e. they survive a 5%
//      false-discovery rate among the m; their 95% interval then excludes 0
//      too), by impact, largest first. Their reported false-coverage-rate
//      interval is at level 1 - R (1 - level) / m, R of them significant;
//   2. then fitted lines that are not significant, by impact, largest first;
//   3. then lines without enough data, most sped-up experiments first;
//   3b. then tested lines whose interval lies wholly outside the delay bound
//      (plausibility.h: Verdict::kImplausible); they count among the m of
//      rule 0 but are never significant;
//   4. then lines never sampled while sped up, then lines whose experiments
//      never reached the progress point.
// Ties are broken by file, line, function, so the order is deterministic. A
// non-significant line therefore never ranks above a significant one.
//
// The order of rules 1 and 2 is that of point estimates, and it is only as
// sure as the estimates are apart: every line of rules 1-2 also gets the
// places its impact can take among them (LineImpact::place_low/high), from
// the pairwise differences of impacts. Two runs of one program can order
// lines differently within those places and both be right; outside them
// they disagree.
#ifndef ANDWEORC_EXPERIMENTS_RANKING_H_
#define ANDWEORC_EXPERIMENTS_RANKING_H_

#include <string>
#include <string_view>
#include <vector>

#include "experiments/analysis.h"

namespace andweorc::experiments {

// One sentence for reports; K is filled in.
std::string ranking_rule(int min_speedup_experiments);

// Sets verdict, significant and verdict_text from the fit and the counts,
// for the line alone (its raw interval at its level); control_fdr() then
// decides among the lines of a point. `reached` is false when no
// experiment of the line reached the point; `sampled` is false when every
// sped-up experiment had 0 selected samples.
void classify(LineImpact* impact, int min_speedup_experiments, bool reached,
              bool sampled);

// Rule 0 and 1 over the classified lines of ONE progress point: sets
// p_value, q_value and the FCR interval, and keeps kSignificant only for
// the lines whose q-value is <= 1 - level and that are not implausible
// (those become kImplausible, the others kNotSignificant).
void control_fdr(std::vector<LineImpact>* impacts);

// The plain-words text of a verdict.
std::string_view verdict_text(Verdict v);

// Strict weak order of the rule above (within one progress point).
bool ranks_before(const LineImpact& a, const LineImpact& b);

// Sorts `impacts` of one point by the rule and sets rank = 1, 2, ... and
// the places of the lines ranked by impact.
void rank_impacts(std::vector<LineImpact>* impacts);

// Whether a line's impact is ranked by its value (rules 1-2).
bool ranked_by_impact(const LineImpact& m);

}  // namespace andweorc::experiments

#endif  // ANDWEORC_EXPERIMENTS_RANKING_H_
