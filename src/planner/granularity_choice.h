// granularity_choice.h: lines first, or functions first, from how the
// samples spread over the lines (--granularity adaptive, the default).
//
// Why: a line-level plan reaches at most PlannerOptions::max_regions lines
// with at least min_sample_share of the samples each (P3). In the small
// programs of the known-answer suite those few lines hold all the samples,
// and planning lines at once gives the answer in 2-4 s where functions
// first took 6-34 s. In real programs the samples spread over hundreds of
// lines (zstd: 460-480 sampled lines, the 16 most sampled hold 67-70% of
// the samples; LevelDB 62%; memcached 85%): no line gets enough
// experiments in a minute (zstd: none significant in two 60 s runs), while
// its function does (functions first: significant in both runs). So:
// functions first when the lines a plan can reach hold less than
// `min_reach` of the samples.
#ifndef ANDWEORC_PLANNER_GRANULARITY_CHOICE_H_
#define ANDWEORC_PLANNER_GRANULARITY_CHOICE_H_

#include <cstdint>
#include <vector>

#include "planner/experiment_planner.h"

namespace andweorc::planner {

enum class GranularityChoice { kUndecided, kLines, kFunctionsFirst };

struct GranularityEvidence {
  uint64_t samples = 0;  // in-scope samples with a line
  double reach = 0;      // share of them in the lines a plan can reach
};

// Functions first as soon as `min_samples` samples show the spread; lines
// only once `confirm_samples` still show them concentrated (kUndecided
// before: the caller plans lines meanwhile, so waiting costs nothing). Why
// the asymmetry: the first samples can come from a start-up phase. LevelDB's
// first 500 samples (inserts, before compaction starts) held >= 90% in a
// few lines in one of two runs, which then planned lines for the whole 60 s,
// while over the run the reachable lines held 63-64% in both.
// `line_samples`: samples per line (any order; zeros allowed).
GranularityChoice choose_granularity(const std::vector<uint64_t>& line_samples,
                                     const PlannerOptions& options,
                                     GranularityEvidence* evidence = nullptr,
                                     uint64_t min_samples = 500,
                                     double min_reach = 0.9,
                                     uint64_t confirm_samples = 4000);

}  // namespace andweorc::planner

#endif  // ANDWEORC_PLANNER_GRANULARITY_CHOICE_H_
