// impact_json.h: one line's (or function's) causal result as JSON, the one
// serialisation the JSON report and the HTML page's tables and summary share.
//
// Contract: impact_json writes the region's identity and its result in one
// fixed key order: rank, file, file_display, [file_path], line, function,
// [function_short], granularity, verdict, verdict_text, significant, impact,
// ci_low, ci_high, then, but for kPageSummary, the fit's details: intercept,
// r2, dof, experiments, speedup_experiments, speedup_levels,
// baseline_experiments, own_baseline, predictions [{line_speedup, value,
// low, high}] at kPredictionSpeedups. The bracketed keys are the page's
// (kPageLine, kPageSummary: a normalised path for tooltips and a shortened
// name for table cells). Fit values are null when the line was not fitted or
// a value is not finite. Callers append the fields only their format has.
#ifndef ANDWEORC_REPORT_IMPACT_JSON_H_
#define ANDWEORC_REPORT_IMPACT_JSON_H_

#include <nlohmann/json.hpp>
#include <string>

#include "experiments/analysis.h"
#include "profile/profile.h"
#include "profile/profile_json.h"
#include "report/source_paths.h"

namespace andweorc::report {

enum class ImpactFields {
  kReport,       // the JSON report's lines
  kPageLine,     // the HTML page's table lines
  kPageSummary,  // the HTML page's summary: no fit details
};

nlohmann::ordered_json impact_json(const experiments::LineImpact& m,
                                   const SourcePaths& paths,
                                   ImpactFields fields);

// A function as every table of the HTML page names it: {function,
// function_short, file, file_display, file_path}.
nlohmann::ordered_json page_function_json(const std::string& function,
                                          const std::string& file,
                                          const SourcePaths& paths);

// A number, or null when `valid` is false or the value is not finite.
nlohmann::ordered_json number_or_null(bool valid, double v);

// A stable machine-readable name per verdict ("significant", ...).
const char* verdict_key(experiments::Verdict v);

// Columns a function name may take in a page's table cell before it is
// shortened (the full name is in the cell's tooltip).
inline constexpr size_t kPageNameWidth = 64;

}  // namespace andweorc::report

#endif  // ANDWEORC_REPORT_IMPACT_JSON_H_
