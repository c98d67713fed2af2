// summary.h: the answer first: per progress point, the region (line or
// function) to work on, how sure the analysis is, and whether it settled.
//
// Contract: summarize() is a pure function of the analysis (and of the
// convergence state it is given). Per progress point of the analysis it
// takes the rank-1 region (ranking.h puts significant regions first) and
// counts the regions analysed and the significant ones; the prediction is
// predict(top, 0.10). summary_sentences() words it for the text report:
//   "Top region: lib/a.c:191 in f, impact 0.16 [0.09, 0.23]: 10% faster
//    there -> program +1.6%."  then  "3 of 65 regions are significant."
// and, when the convergence state is known, "The answer had converged: ...".
// A rank-1 region that is significant but negative is no answer: the
// summary says no region shows a significant gain yet.
// The HTML report builds the same sentences from html_data's "summary".
#ifndef ANDWEORC_REPORT_SUMMARY_H_
#define ANDWEORC_REPORT_SUMMARY_H_

#include <optional>
#include <string>
#include <vector>

#include "experiments/analysis.h"
#include "profile/profile.h"
#include "report/source_paths.h"

namespace andweorc::report {

// How settled the answer was when the run stopped.
struct Convergence {
  bool converged = false;
  std::string detail;  // one clause, e.g. "top region unchanged for 30 s"
};

// The convergence state the profile records (the planner's, format 1.3),
// when it records one: every report (text, HTML) shows it.
std::optional<Convergence> recorded_convergence(const profile::Profile& p);

struct PointAnswer {
  std::string point;
  profile::PointKind kind = profile::PointKind::kThroughput;
  int regions = 0;      // lines or functions analysed for the point
  int significant = 0;  // of them, significant
  int fitted = 0;       // of them, with an estimate
  // The rank-1 region; nullptr when no region was analysed. Points into
  // the Analysis given to summarize().
  const experiments::LineImpact* top = nullptr;
  experiments::Prediction at10;  // predict(*top, 0.10)
};

struct Summary {
  std::vector<PointAnswer> points;
  std::optional<Convergence> convergence;
};

Summary summarize(const experiments::Analysis& a,
                  std::optional<Convergence> convergence);

// The summary in plain words, one sentence per element, file names shown
// with `paths` and function names cut to `name_width` columns.
std::vector<std::string> summary_sentences(const Summary& s,
                                           const SourcePaths& paths,
                                           size_t name_width = 60);

// "lib/a.c:191 in f", or "function f (lib/a.c)" for a function region.
std::string region_text(const experiments::LineImpact& m,
                        const SourcePaths& paths, size_t name_width = 60);

}  // namespace andweorc::report

#endif  // ANDWEORC_REPORT_SUMMARY_H_
