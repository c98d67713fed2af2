// html_causal.h: the causal part of the HTML page's data (internal to
// report/; the keys are documented in html_data.h under "causal").
#ifndef ANDWEORC_REPORT_HTML_CAUSAL_H_
#define ANDWEORC_REPORT_HTML_CAUSAL_H_

#include <nlohmann/json.hpp>

#include "experiments/analysis.h"
#include "profile/attribution.h"
#include "profile/profile.h"
#include "report/html_sources.h"
#include "report/source_paths.h"

namespace andweorc::report {

// Per progress point its ranked lines (with the points behind each fit and
// the fitted curve) and the lines grouped by function; source context is
// requested from `sources`.
nlohmann::ordered_json causal_json(const profile::Profile& p,
                                   const experiments::Analysis& a,
                                   const profile::Attribution& attr,
                                   const SourcePaths& paths,
                                   HtmlSources* sources);

}  // namespace andweorc::report

#endif  // ANDWEORC_REPORT_HTML_CAUSAL_H_
