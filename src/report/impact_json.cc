// impact_json.cc: one region's causal result as JSON (impact_json.h), shared
// by the JSON report and the HTML page.
#include "report/impact_json.h"

#include <cmath>

#include "experiments/ranking.h"
#include "report/causal_section.h"
#include "report/display.h"

namespace andweorc::report {

using OJson = nlohmann::ordered_json;

OJson number_or_null(bool valid, double v) {
  return valid && std::isfinite(v) ? OJson(v) : OJson(nullptr);
}

const char* verdict_key(experiments::Verdict v) {
  using experiments::Verdict;
  switch (v) {
    case Verdict::kSignificant:
      return "significant";
    case Verdict::kNotSignificant:
      return "not_significant";
    case Verdict::kNotEnoughData:
      return "not_enough_data";
    case Verdict::kImplausible:
      return "implausible";
    case Verdict::kNoSamples:
      return "no_samples";
    case Verdict::kNeverReached:
      return "never_reached";
  }
  return "";
}

OJson page_function_json(const std::string& function, const std::string& file,
                         const SourcePaths& paths) {
  return OJson{
      {"function", function},
      {"function_short", short_function_name(function, kPageNameWidth)},
      {"file", file},
      {"file_display", paths.display(file)},
      {"file_path", normalize_path(file)}};
}

OJson impact_json(const experiments::LineImpact& m, const SourcePaths& paths,
                  ImpactFields fields) {
  const bool page = fields != ImpactFields::kReport;
  OJson out = {{"rank", m.rank},
               {"file", m.file},
               {"file_display", paths.display(m.file)}};
  if (page) out["file_path"] = normalize_path(m.file);
  out["line"] = m.line;
  out["function"] = m.function;
  if (page) {
    out["function_short"] = short_function_name(m.function, kPageNameWidth);
  }
  out["granularity"] = m.granularity;
  out["verdict"] = verdict_key(m.verdict);
  out["verdict_text"] = m.verdict_text;
  out["significant"] = m.significant;
  out["impact"] = number_or_null(m.fitted, m.slope);
  out["ci_low"] = number_or_null(m.fitted, m.ci_low);
  out["ci_high"] = number_or_null(m.fitted, m.ci_high);
  // The places the impact can take (ranking.h); null for lines not ranked
  // by impact.
  out["places"] = experiments::ranked_by_impact(m)
                      ? OJson{{"low", m.place_low},
                              {"high", m.place_high},
                              {"of", m.places}}
                      : OJson();
  if (fields == ImpactFields::kPageSummary) return out;
  out["intercept"] = number_or_null(m.fitted, m.intercept);
  out["r2"] = number_or_null(m.fitted, m.r2);
  out["dof"] = m.dof;
  out["experiments"] = m.experiments;
  out["speedup_experiments"] = m.speedup_experiments;
  out["speedup_levels"] = m.speedup_levels;
  out["baseline_experiments"] = m.baseline_experiments;
  out["own_baseline"] = m.own_baseline;
  // Multiplicity and plausibility (ranking.h, plausibility.h): null where
  // the line was not tested / not judged, so a tool never reads a default
  // as a result.
  const bool tested = m.verdict == experiments::Verdict::kSignificant ||
                      m.verdict == experiments::Verdict::kNotSignificant ||
                      m.verdict == experiments::Verdict::kImplausible;
  out["p_value"] = number_or_null(tested, m.p_value);
  out["q_value"] = number_or_null(tested, m.q_value);
  const bool fcr = m.significant && m.fcr_level > 0;
  out["fcr_level"] = number_or_null(fcr, m.fcr_level);
  out["fcr_low"] = number_or_null(fcr, m.fcr_low);
  out["fcr_high"] = number_or_null(fcr, m.fcr_high);
  out["plausible_low"] = number_or_null(m.plausibility_judged, m.plausible_low);
  out["plausible_high"] =
      number_or_null(m.plausibility_judged, m.plausible_high);
  out["plausible_basis"] =
      m.plausibility_judged ? OJson(m.plausible_cpu ? "cpu" : "wall") : OJson();
  out["implausible"] = m.implausible;
  OJson predictions = OJson::array();
  for (double s : kPredictionSpeedups) {
    experiments::Prediction r = experiments::predict(m, s);
    predictions.push_back(OJson{{"line_speedup", s},
                                {"value", number_or_null(r.valid, r.value)},
                                {"low", number_or_null(r.valid, r.low)},
                                {"high", number_or_null(r.valid, r.high)}});
  }
  out["predictions"] = std::move(predictions);
  return out;
}

}  // namespace andweorc::report
