// json_report.cc: the profile JSON, pretty or compact, on a stream, and the
// analysis section.
#include "report/json_report.h"

#include <string>

#include "experiments/ranking.h"
#include "profile/profile_json.h"
#include "report/causal_section.h"
#include "report/impact_json.h"
#include "report/slow_calls.h"
#include "report/source_paths.h"

namespace andweorc::report {
namespace {

using OJson = nlohmann::ordered_json;
using experiments::LineImpact;

}  // namespace

nlohmann::ordered_json analysis_to_json(
    const experiments::Analysis& a,
    const std::vector<std::string>& source_roots) {
  std::vector<std::string> files;
  for (const LineImpact& m : a.impacts) files.push_back(m.file);
  SourcePaths paths(files, absolute_roots(source_roots));
  OJson points = OJson::array();
  for (const auto& s : a.points) {
    OJson lines = OJson::array();
    for (const LineImpact& m : a.impacts) {
      if (m.point == s.name && m.kind == s.kind)
        lines.push_back(impact_json(m, paths, ImpactFields::kReport));
    }
    points.push_back(
        OJson{{"name", s.name},
              {"kind", profile::point_kind_name(s.kind)},
              {"experiments", s.experiments},
              {"reached", s.reached},
              {"baseline_experiments", s.baseline_experiments},
              {"baseline_s", number_or_null(s.baseline > 0, s.baseline)},
              {"lines", std::move(lines)}});
  }
  OJson notes = OJson::array();
  for (const auto& n : a.notes) notes.push_back(n);
  return OJson{
      {"level", a.level},
      {"min_speedup_experiments", a.min_speedup_experiments},
      {"ranking_rule", experiments::ranking_rule(a.min_speedup_experiments)},
      {"source_roots", paths.roots()},
      {"notes", std::move(notes)},
      {"points", std::move(points)},
  };
}

void write_json(const profile::Profile& p, std::ostream& out,
                const JsonOptions& options) {
  std::string text = profile::dump_profile(p, options.pretty ? 2 : -1);
  if (!options.include_analysis) {
    out << text;
    return;
  }
  // Splice "analysis" in before the closing brace, so the profile part stays
  // byte-for-byte what dump_profile writes (its one-record-per-line layout).
  constexpr auto kReplace = OJson::error_handler_t::replace;
  OJson analysis =
      analysis_to_json(experiments::analyze(p), options.source_roots);
  if (!p.traces.empty()) analysis["traces"] = trace_summary_json(p);
  size_t close = text.rfind('}');
  text.erase(close);
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) {
    text.pop_back();
  }
  if (options.pretty) {
    std::string nested;
    for (char c : analysis.dump(2, ' ', false, kReplace)) {
      nested += c;
      if (c == '\n') nested += "  ";
    }
    out << text << ",\n  \"analysis\": " << nested << "\n}\n";
  } else {
    out << text << ",\"analysis\":" << analysis.dump(-1, ' ', false, kReplace)
        << "}\n";
  }
}

}  // namespace andweorc::report
