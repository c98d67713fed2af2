// html_data.h: everything the HTML report shows, as one JSON document.
//
// Contract: html_data(p, a, options) returns the data the page script
// (src/report/html/report.js) renders; it is a pure function of its inputs
// and of the source files it reads (options.read_sources). Every "file" is
// the path as recorded, with "file_display" next to it: the path as shown
// (source_paths.h: normalised, relative to a source root), and "file_path":
// the whole path normalised (for tooltips); every
// "function" has "function_short" (display.h short_function_name). Keys:
//   summary   the answer first (summary.h): points [{name, kind, regions,
//             significant, fitted, top: the rank-1 region (impact_json.h's
//             keys, then at10: [value, low, high] of predict(top, 0.10)) or
//             null}],
//             busiest_function {function, file, share} or null, and
//             convergence {converged, detail} or null when the profile does
//             not record it;
//   meta      run metadata: title, command, start_time, duration_s, exit,
//             sampler, samples, lost_samples, threads, processes,
//             mapped_share, in_scope_share, experiments, settings, versions;
//   warnings  profile::all_warnings(p);
//   progress_points  the run's points with their counts;
//   causal    {level, ranking_rule, notes, no_curves (a sentence, or null
//             when there are curves), points: [{name, kind, baseline_s,
//             experiments, reached, lines: [...], groups: [...]}]}, where
//             each line carries the analysis (impact_json.h's keys, with
//             the fit's details and predictions), its share of samples, the
//             regression's points [x, y, experiment index, speed-up %, duration
//             s, events, own (false: another line's 0% run as baseline)], and
//             for fitted lines a curve [x, fit, low, high] on a grid of line
//             speed-ups: fit = intercept + slope x, low/high = fit - slope x +
//             the interval of predict(impact, x); groups are the lines by
//             function (and file), in order of their best rank: {function,
//             file, granularity, rank, best and lines (indices into lines),
//             significant (count), samples, sample_share of the function};
//   sampling  {total, mapped, in_scope, lines, functions, more_lines,
//             more_functions, flame}: the top in-scope lines and functions,
//             and every stack's flame graph (flame_json.h);
//   sources   [{file, line, found_as, first_line, lines, error}], referenced
//             by index ("source") from causal and sampling lines;
//   source_roots  the directories file_display is relative to (the
//             --source-root ones, then the common root), each ending in '/';
//   traces    the traced functions (--trace; [] when none): slow_calls.h's
//             trace_html_json (durations' histogram, slow-vs-fast lines,
//             the slow calls' differential flame graph).
// Numbers without a value are null.
#ifndef ANDWEORC_REPORT_HTML_DATA_H_
#define ANDWEORC_REPORT_HTML_DATA_H_

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "experiments/analysis.h"
#include "profile/profile.h"

namespace andweorc::report {

struct HtmlOptions {
  size_t top = 30;           // rows of the sampling tables; 0 = all
  int context_lines = 3;     // source lines shown before and after a line
  bool read_sources = true;  // false: no file is opened (tests)
  // Where to look for sources recorded with a relative path or found
  // elsewhere (source_context.h); "." is the working directory. Files under
  // one of them are also shown relative to it ("." excepted).
  std::vector<std::string> source_roots = {"."};
};

nlohmann::ordered_json html_data(const profile::Profile& p,
                                 const experiments::Analysis& a,
                                 const HtmlOptions& options);

}  // namespace andweorc::report

#endif  // ANDWEORC_REPORT_HTML_DATA_H_
