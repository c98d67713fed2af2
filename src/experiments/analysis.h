// analysis.h: per-line causal impact estimates from a profile's experiments.
//
// Contract (pure function of a validated Profile; never throws but for
// std::bad_alloc):
//  - For each progress point and each selected line (or function, for
//    experiments of "function" granularity), analyze() regresses program
//    speed-up (y) on line speed-up (x = speedup_pct / 100) and returns one
//    LineImpact, ranked as ranking.h states.
//  - Program speed-up of one experiment, against a baseline (P0 or L0):
//      throughput: period = virtual duration / visits, y = (P0 - P) / P0;
//      latency (Little's law): latency = mean in-flight / arrival rate with
//        mean in-flight = (in_flight_start + in_flight_end) / 2 and arrival
//        rate = arrivals / virtual duration, y = (L0 - L) / L0,
//    where P0 and L0 pool 0% experiments: P0 = sum of virtual durations /
//    sum of visits, L0 = sum(in-flight * virtual duration) / sum(arrivals).
//    The pooled run baseline (PointSummary::baseline) uses every 0%
//    experiment of the run, whatever line it selected (at 0% nothing is
//    delayed, so they all measure the same program).
//  - Experiments with virtual duration <= 0, or that never reached the
//    point (0 visits / 0 arrivals), are left out for that point.
//  - A line with at least AnalysisOptions::min_own_baseline 0% experiments
//    of its own uses them: as the points at x = 0 and as the baseline.
//    Otherwise every 0% experiment of the run serves as both (see
//    analysis.cc for why).
//  - Weights: virtual duration (see analysis.cc for why).
//  - Paired blocks (planner/paired_blocks.h): a line with at least
//    AnalysisOptions::min_paired_blocks blocks (a 0% and an s% experiment of
//    it, back to back in one process) for the point is estimated from them
//    alone: y = the block's own difference, regression through the origin,
//    design = "paired", intercept 0, dof = blocks - 1. Its FitPoints are
//    the sped-up halves at their block's y and the 0% halves against their
//    mean (their spread). Lines without enough blocks (Coz's plan, old
//    profiles, Coz imports) use the regression above, design =
//    "regression".
//  - predict(impact, s) is the change of the fitted line between x = 0 and
//    x = s, i.e. slope * s, with the interval of the slope scaled by s. The
//    intercept is left out: it measures how far this line's baseline lies
//    from the pooled one (noise, program phases), not an effect of the
//    speed-up.
#ifndef ANDWEORC_EXPERIMENTS_ANALYSIS_H_
#define ANDWEORC_EXPERIMENTS_ANALYSIS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "profile/profile.h"

namespace andweorc::experiments {

// Ordered from best to worst class; ranking.h sorts by it first.
enum class Verdict {
  kSignificant,     // survives FDR control (q <= 1 - level), enough
                    // sped-up experiments (ranking.h)
  kNotSignificant,  // tested, but q > 1 - level
  kNotEnoughData,   // too few experiments to fit or to trust: run longer
  kImplausible,     // fitted, but the interval lies outside what the
                    // inserted delays can produce (plausibility.h)
  kNoSamples,       // the line was never sampled while sped up
  kNeverReached,    // the progress point was never reached in its experiments
};

struct AnalysisOptions {
  double level = 0.95;  // confidence level of the intervals
  // Experiments with a nonzero speed-up a line needs to be significant.
  int min_speedup_experiments = 3;
  // Own 0% experiments a line needs before they replace the pooled ones.
  int min_own_baseline = 2;
  // Paired blocks a line needs to be estimated from them.
  int min_paired_blocks = 3;
};

// One experiment as a point of a line's regression.
struct FitPoint {
  size_t experiment = 0;  // index into Profile::experiments
  double x = 0;           // line speed-up, 0..1
  double y = 0;           // program speed-up against the line's reference
  double weight = 0;      // virtual duration, s
  // A paired block's sped-up half: its 0% half (index into
  // Profile::experiments); SIZE_MAX outside blocks.
  size_t baseline = SIZE_MAX;
};

struct LineImpact {
  std::string point;  // progress point name
  profile::PointKind kind = profile::PointKind::kThroughput;
  std::string file;
  int line = 0;
  std::string function;
  std::string granularity = "line";  // "line" or "function"

  bool fitted = false;  // slope .. r2 are meaningful
  double slope = 0;     // "impact": program speed-up per unit line speed-up
  double intercept = 0;
  double slope_se = 0;
  double ci_low = 0;  // interval of the slope at AnalysisOptions::level
  double ci_high = 0;
  double r2 = 0;
  double level = 0.95;
  int dof = 0;  // experiments - 2

  int experiments = 0;           // points in the regression, baseline included
  int speedup_experiments = 0;   // of them with a nonzero speed-up
  int speedup_levels = 0;        // distinct nonzero speed-ups among them
  int baseline_experiments = 0;  // of them at 0%
  bool own_baseline = false;     // the 0% points are the line's own
  std::string design = "regression";  // or "paired" (see above)
  // The points the regression saw, 0% ones first (plots show them); empty
  // when there was no reference to measure against.
  std::vector<FitPoint> points;

  // Multiplicity control (ranking.h, planner/fdr.h), for the lines tested
  // (fitted, enough sped-up experiments); 1 / 0 for the others.
  double p_value = 1;  // two-sided, of "impact = 0"
  double q_value = 1;  // Benjamini-Hochberg, over the point's tested lines
  // Significant lines only (else fcr_level = 0): the Benjamini-Yekutieli
  // false-coverage-rate interval, at level 1 - R (1 - level) / m.
  double fcr_level = 0;
  double fcr_low = 0;
  double fcr_high = 0;

  // The delay bound (plausibility.h): the impacts the inserted delays can
  // produce, [plausible_low, plausible_high]; judged = false when the
  // profile records no delays (Coz imports). implausible: the interval lies
  // wholly outside (then verdict = kImplausible).
  bool plausibility_judged = false;
  bool plausible_cpu = false;  // the upper bound is in CPU terms
  double plausible_low = 0;
  double plausible_high = 0;
  bool implausible = false;

  Verdict verdict = Verdict::kNotEnoughData;
  bool significant = false;
  std::string verdict_text;  // plain words, e.g. "not enough data: run longer"
  int rank = 0;              // 1-based within the point
  // Where the line's impact can stand among the point's `places` lines
  // ranked by impact (significant and not significant ones), at `level`:
  // place_low = 1 + the lines whose impact is significantly larger,
  // place_high = places - the lines whose impact is significantly smaller
  // (pairwise Welch tests, ranking.h). 0 for lines not ranked by impact.
  int place_low = 0;
  int place_high = 0;
  int places = 0;
};

// What the run says about one progress point.
struct PointSummary {
  std::string name;
  profile::PointKind kind = profile::PointKind::kThroughput;
  int experiments = 0;           // experiments that recorded the point
  int reached = 0;               // of them, with visits / arrivals
  int baseline_experiments = 0;  // usable 0% experiments
  // Pooled baseline: seconds per visit (throughput) or seconds of latency;
  // 0 when there is none.
  double baseline = 0;
};

// A point whose rate (or latency) at 0% has at least this coefficient of
// variation between experiments gets a note (a program with stalls or
// phases: its intervals stay wide).
inline constexpr double kUnsteadyCv = 0.5;

struct Analysis {
  double level = 0.95;
  int min_speedup_experiments = 3;
  std::vector<PointSummary> points;  // sorted by name, then kind
  // Grouped by point (in the order of `points`), then by rank.
  std::vector<LineImpact> impacts;
  std::vector<std::string> notes;  // run-level sentences for the user
  // The plan's convergence state in one sentence (convergence_summary.h);
  // "" when the profile does not record it.
  std::string convergence;
};

Analysis analyze(const profile::Profile& p,
                 const AnalysisOptions& options = {});

struct Prediction {
  bool valid = false;  // the impact has a fit
  double line_speedup = 0;
  double value = 0;  // predicted program speed-up (fraction)
  double low = 0;    // interval at the impact's level
  double high = 0;
};

// The program speed-up predicted when the line gets `line_speedup` (a
// fraction, 0.1 = 10%) faster.
Prediction predict(const LineImpact& impact, double line_speedup);

}  // namespace andweorc::experiments

#endif  // ANDWEORC_EXPERIMENTS_ANALYSIS_H_
