// profile_diff.h: what changed between two profiles of one program.
//
// Contract (pure function of two validated Profiles and their sources):
//  - Progress points are paired by (name, kind). For each pair the lines of
//    both analyses (experiments::analyze) are matched (line_matching.h) and
//    each line gets one LineChange.
//  - A "bottleneck" is a line whose impact is significant and positive.
//  - Impact change: delta = slope(NEW) - slope(BASE), standard error
//    se = sqrt(se_b^2 + se_n^2), Welch-Satterthwaite degrees of freedom
//    df = se^4 / (se_b^4/df_b + se_n^4/df_n), t = delta / se, two-sided
//    p from Student's t(df). Only for lines fitted on both sides with
//    dof >= 1 and se > 0. A line analysed on one side only is tested
//    against 0 (its own slope test) when the other side has no sample of
//    it at all (the code is new, or gone) and the analysis trusts its fit
//    (verdict significant or not significant); when the other side sampled it
//    but ran no experiment on it, nothing is known about a change: no test.
//  - Multiple comparisons: the p values of every test of the diff (all
//    lines of all points, and every point's speed test) get Benjamini-
//    Hochberg q values (multiple_testing.h); a change is significant when
//    q < 1 - level. So an A/A comparison raises any alarm with probability
//    at most 1 - level, whatever the number of lines.
//  - Status: kNewBottleneck when the impact rose significantly and the line
//    is a bottleneck in NEW but was none in BASE (or is new code);
//    kVanishedBottleneck the reverse; else kIncreased / kDecreased for a
//    significant change; else kUnchanged, or kOnlyBase / kOnlyNew for lines
//    analysed on one side only. An interval that merely crosses 0 on one
//    side is no news.
//  - Point speed: the pooled 0% baselines (seconds per visit, or latency)
//    of both sides; speedup = (BASE - NEW) / BASE (> 0: NEW is faster).
//    The test of the change uses each run's 0% experiments and, with
//    several runs per side, the spread between runs (point_speed.h). With
//    2+ runs per side, CPU time per visit is tested too (cpu_change).
//  - Costs: per point, CPU time (samples x sample period; samples when the
//    period is unknown) per visit of each line, on both sides; the lines
//    whose cost rose most name where a slowdown's time went.
//  - Sample shares: per line (attribution.h rows, matched like impacts)
//    and per function (by function name and file name), as fractions of
//    each profile's samples; sorted by |change|, largest first.
//  - Order: points by name, then kind; lines within a point: bottleneck
//    news first (new, vanished), then significant changes by |delta|, then
//    the rest by NEW rank (then BASE rank).
#ifndef ANDWEORC_COMPARE_PROFILE_DIFF_H_
#define ANDWEORC_COMPARE_PROFILE_DIFF_H_

#include <optional>
#include <string>
#include <vector>

#include "compare/line_matching.h"
#include "compare/line_status.h"
#include "compare/point_speed.h"
#include "compare/region_cost.h"
#include "compare/source_text.h"
#include "experiments/analysis.h"
#include "profile/profile.h"
#include "report/source_paths.h"

namespace andweorc::compare {

struct ImpactDelta {
  double delta = 0;  // NEW slope - BASE slope
  double se = 0;
  double dof = 0;  // Welch-Satterthwaite
  double t = 0;
  double p = 1;              // two-sided
  double q = 1;              // Benjamini-Hochberg, over every test of the diff
  bool significant = false;  // q < 1 - level
  bool versus_zero = false;  // one side only: its slope tested against 0
};

struct LineChange {
  std::optional<experiments::LineImpact> base;
  std::optional<experiments::LineImpact> next;  // the NEW profile's
  std::optional<MatchKind> match;               // set when both are
  std::optional<ImpactDelta> change;            // set when tested
  LineStatus status = LineStatus::kUnchanged;
  // The line as NEW names it (else BASE).
  const experiments::LineImpact& line() const { return next ? *next : *base; }
};

// A line's CPU time per visit of a point on both sides.
struct CostChange {
  std::string file;  // as NEW names it (else BASE)
  int line = 0;
  std::string function;
  double base_cost = 0, new_cost = 0;  // seconds (or samples) per visit
  bool in_seconds = true;              // false: samples per visit
  double change() const { return new_cost - base_cost; }
};

struct PointChange {
  std::string name;
  profile::PointKind kind = profile::PointKind::kThroughput;
  bool in_base = false, in_new = false;
  double base_baseline = 0;  // 0: none
  double new_baseline = 0;
  std::optional<double> speedup;  // (base - new) / base
  std::optional<SideSpeed> base_speed, new_speed;
  std::optional<SpeedChange> speed_change;  // wall time per visit
  // CPU time per visit (point_speed.h side_cpu), with 2+ runs per side.
  std::optional<SideSpeed> base_cpu, new_cpu;
  std::optional<SpeedChange> cpu_change;
  std::vector<LineChange> lines;
  std::vector<CostChange> costs;  // cost rose, most first (at most 5)
  // Functions more expensive per visit against the rest of the program,
  // machine-normalized, 2+ runs per side (region_cost.h).
  RegionCosts regions;
};

struct ShareChange {
  std::string file;  // as NEW names it (else BASE)
  int line = 0;      // 0 for function rows
  std::string function;
  double base_share = 0;  // fraction of the profile's samples
  double new_share = 0;
  bool in_base = false, in_new = false;
  std::optional<MatchKind> match;  // line rows matched on both sides
  double change() const { return new_share - base_share; }
};

struct DiffOptions {
  experiments::AnalysisOptions analysis;
  SourceText* base_source = nullptr;  // may be null: texts unknown
  SourceText* new_source = nullptr;
  // The smallest program slow-down region tests ask about (region_cost.h);
  // `diff` sets it from --fail-on region-slowdown=PCT.
  double region_min_pct = 5;
};

struct ProfileDiff {
  double level = 0.95;
  std::string base_program, new_program;  // merge.h program_name()
  int base_runs = 1, new_runs = 1;
  int tests = 0;  // the family the q values correct for
  std::vector<PointChange> points;
  std::vector<ShareChange> lines;
  std::vector<ShareChange> functions;
  // How the writers show a file: relative to each side's common source
  // directory (diff_paths), so same-named files in two folders stay apart.
  report::SourcePaths paths;
};

ProfileDiff diff_profiles(const profile::Profile& base,
                          const profile::Profile& next,
                          const DiffOptions& options);

// Several runs per side: `base` / `next` are their merge (profile/merge.h,
// or the single run), used for the line analyses and sample shares; the
// runs themselves give the point speed tests. Empty runs: {&base}.
ProfileDiff diff_runs(const profile::Profile& base,
                      const std::vector<const profile::Profile*>& base_runs,
                      const profile::Profile& next,
                      const std::vector<const profile::Profile*>& new_runs,
                      const DiffOptions& options);

// Welch's two-sample comparison of two fitted slopes (see above); nullopt
// when either is not comparable (no fit, or an implausible estimate:
// experiments/plausibility.h, which the report does not rank either).
// `significant` here is p < 1 - level; the diff replaces it by its q value
// test.
std::optional<ImpactDelta> compare_impacts(const experiments::LineImpact& base,
                                           const experiments::LineImpact& next,
                                           double level);

bool is_bottleneck(const experiments::LineImpact& impact);

// The paths of both profiles as the diff shows them: every frame's file,
// shown relative to the common directory of its own side's files (BASE and
// NEW may be two checkouts: /ci/main/src/a.c and /ci/pr/src/a.c both read
// "src/a.c"), so "lib/a.c" and "test/a.c" no longer both read "a.c".
report::SourcePaths diff_paths(const profile::Profile& base,
                               const profile::Profile& next);

// The status rules above, for a line whose change (if any) already has its
// q value and `significant` set.
LineStatus line_status(const LineChange& c);

}  // namespace andweorc::compare

#endif  // ANDWEORC_COMPARE_PROFILE_DIFF_H_
