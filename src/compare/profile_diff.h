// profile_diff.h: what changed between two profiles of one program.
//
// Contract (pure function of two validated Profiles and their sources):
//  - Progress points are paired by (name, kind). For each pair the lines of
//    both analyses (experiments::analyze) are matched (line_matching.h) and
//    each line gets one LineChange.
//  - A "bottleneck" is a line whose impact is significant and positive.
//    Status: kNewBottleneck (a bottleneck in NEW, not in BASE or absent
//    there), kVanishedBottleneck (the reverse), else kIncreased /
//    kDecreased when the impact change is significant, else kUnchanged;
//    kOnlyBase / kOnlyNew for unmatched lines that are no bottleneck.
//  - Impact change: delta = slope(NEW) - slope(BASE), standard error
//    se = sqrt(se_b^2 + se_n^2), Welch-Satterthwaite degrees of freedom
//    df = se^4 / (se_b^4/df_b + se_n^4/df_n), t = delta / se, two-sided
//    p from Student's t(df). Significant when p < 1 - level. Only for lines
//    fitted on both sides with dof >= 1 and se > 0.
//  - Point speed: the pooled 0% baselines (seconds per visit, or latency)
//    of both sides; speedup = (BASE - NEW) / BASE (> 0: NEW is faster).
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
#include "compare/source_text.h"
#include "experiments/analysis.h"
#include "profile/profile.h"

namespace andweorc::compare {

enum class LineStatus {
  kNewBottleneck,
  kVanishedBottleneck,
  kIncreased,
  kDecreased,
  kUnchanged,
  kOnlyBase,
  kOnlyNew,
};

const char* status_name(LineStatus s);

struct ImpactDelta {
  double delta = 0;  // NEW slope - BASE slope
  double se = 0;
  double dof = 0;  // Welch-Satterthwaite
  double t = 0;
  double p = 1;  // two-sided
  bool significant = false;
};

struct LineChange {
  std::optional<experiments::LineImpact> base;
  std::optional<experiments::LineImpact> next;  // the NEW profile's
  std::optional<MatchKind> match;               // set when both are
  std::optional<ImpactDelta> change;            // set when comparable
  LineStatus status = LineStatus::kUnchanged;
  // The line as NEW names it (else BASE).
  const experiments::LineImpact& line() const { return next ? *next : *base; }
};

struct PointChange {
  std::string name;
  profile::PointKind kind = profile::PointKind::kThroughput;
  bool in_base = false, in_new = false;
  double base_baseline = 0;  // 0: none
  double new_baseline = 0;
  std::optional<double> speedup;  // (base - new) / base
  std::vector<LineChange> lines;
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
};

struct ProfileDiff {
  double level = 0.95;
  std::string base_program, new_program;  // merge.h program_name()
  std::vector<PointChange> points;
  std::vector<ShareChange> lines;
  std::vector<ShareChange> functions;
};

ProfileDiff diff_profiles(const profile::Profile& base,
                          const profile::Profile& next,
                          const DiffOptions& options);

// Welch's two-sample comparison of two fitted slopes (see above); nullopt
// when either is not comparable.
std::optional<ImpactDelta> compare_impacts(const experiments::LineImpact& base,
                                           const experiments::LineImpact& next,
                                           double level);

bool is_bottleneck(const experiments::LineImpact& impact);

}  // namespace andweorc::compare

#endif  // ANDWEORC_COMPARE_PROFILE_DIFF_H_
