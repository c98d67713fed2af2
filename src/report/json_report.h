// json_report.h: the profile as JSON on a stream (`andweorc report -f json`).
//
// Contract: write_json writes exactly profile::dump_profile(p) -- the
// documented file format (docs/profile-format.md), so the output can be read
// back with profile::parse_profile -- pretty-printed or as one compact line,
// ending with a newline. With include_analysis, one more top-level key,
// "analysis" (analysis_to_json of experiments::analyze(p)), comes last; the
// profile reader ignores it, so the output still reads back as the same
// Profile. The analysis keys are documented in docs/causal-analysis.md.
#ifndef ANDWEORC_REPORT_JSON_REPORT_H_
#define ANDWEORC_REPORT_JSON_REPORT_H_

#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "experiments/analysis.h"
#include "profile/profile.h"

namespace andweorc::report {

struct JsonOptions {
  bool pretty = true;
  bool include_analysis = false;  // add the "analysis" section
  // --source-root: the analysis's "file_display" is relative to the first
  // of these a file lies under, else to the regions' common directory.
  std::vector<std::string> source_roots = {};
};

void write_json(const profile::Profile& p, std::ostream& out,
                const JsonOptions& options = {});

// The analysis as JSON: numbers that have no value (an impact without a
// fit) are null. Each region keeps its recorded "file" and gets
// "file_display" (source_paths.h: normalised, relative to one of
// "source_roots", which lists the roots used).
nlohmann::ordered_json analysis_to_json(
    const experiments::Analysis& a,
    const std::vector<std::string>& source_roots = {});

}  // namespace andweorc::report

#endif  // ANDWEORC_REPORT_JSON_REPORT_H_
