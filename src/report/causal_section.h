// causal_section.h: the "Causal profile" section of the text report.
//
// Contract: write_causal renders an experiments::Analysis as plain text at
// most `width` columns wide (long words are shortened with "..."):
//   - the heading with the number of experiments, the ranking rule in one
//     sentence, what "impact" means, and the analysis notes (warnings);
//   - per progress point: its baseline, then the top `top` lines (0 = all)
//     in rank order, each with location and function; impact with its 95%
//     interval, R², the experiments behind it and the verdict in plain
//     words; and, for fitted lines, the predicted program speed-up (or
//     latency change) at 10%, 25% and 50% line speed-up with intervals.
// Deterministic: no locale, no clock.
#ifndef ANDWEORC_REPORT_CAUSAL_SECTION_H_
#define ANDWEORC_REPORT_CAUSAL_SECTION_H_

#include <cstddef>
#include <functional>
#include <ostream>
#include <string>
#include <string_view>

#include "experiments/analysis.h"
#include "profile/profile.h"
#include "report/source_paths.h"

namespace andweorc::report {

struct CausalOptions {
  size_t width = 100;
  size_t top = 10;    // lines per progress point; 0 = all
  SourcePaths paths;  // how file names are shown (normalised, relative)
  // Styling of headings and warnings (identity when null).
  std::function<std::string(std::string_view)> heading;
  std::function<std::string(std::string_view)> warning;
};

void write_causal(const profile::Profile& p, const experiments::Analysis& a,
                  std::ostream& out, const CausalOptions& options);

// The line speed-ups the predictions are shown for.
inline constexpr double kPredictionSpeedups[] = {0.10, 0.25, 0.50};

}  // namespace andweorc::report

#endif  // ANDWEORC_REPORT_CAUSAL_SECTION_H_
