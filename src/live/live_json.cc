// live_json.cc: see live_json.h.
#include "live/live_json.h"

#include <cmath>

#include "experiments/convergence_summary.h"
#include "report/flame_json.h"
#include "report/json_report.h"

namespace andweorc::live {
namespace {

using OJson = nlohmann::ordered_json;

// JSON has no NaN or infinity: a value that is not finite is null.
OJson number(double v) { return std::isfinite(v) ? OJson(v) : OJson(); }

OJson convergence_json(const profile::Convergence& c) {
  if (c.state.empty()) return OJson();  // no experiment yet
  return OJson{{"state", c.state},
               {"experiments", c.experiments},
               {"regions", c.regions},
               {"in_play", c.in_play},
               {"point", c.point},
               {"leader", c.leader},
               {"impact", number(c.impact)},
               {"ci_low", number(c.ci_low)},
               {"ci_high", number(c.ci_high)},
               {"q_value", number(c.q_value)},
               {"stable_for", c.stable_for},
               {"text", experiments::convergence_text(c)}};
}

OJson history_json(const LiveSnapshot& s) {
  OJson conv = OJson::array();
  for (const ConvergenceTick& t : s.convergence_history)
    conv.push_back(OJson{{"time_s", t.time_s},
                         {"experiments", t.experiments},
                         {"state", t.state},
                         {"regions", t.regions},
                         {"in_play", t.in_play},
                         {"leader", t.leader},
                         {"impact", number(t.impact)},
                         {"ci_low", number(t.low)},
                         {"ci_high", number(t.high)}});
  OJson points = OJson::array();
  for (const PointSeries& p : s.points) {
    OJson rates = OJson::array();
    for (const auto& [t, r] : p.rates)
      rates.push_back(OJson::array({t, number(r)}));
    points.push_back(
        OJson{{"name", p.name}, {"kind", p.kind}, {"rates", std::move(rates)}});
  }
  return OJson{{"convergence", std::move(conv)}, {"points", std::move(points)}};
}

OJson functions_json(const std::vector<FunctionShare>& v) {
  OJson out = OJson::array();
  for (const FunctionShare& f : v)
    out.push_back(OJson{
        {"function", f.function}, {"samples", f.samples}, {"share", f.share}});
  return out;
}

OJson flames_json(const LiveSnapshot& s) {
  return OJson{{"window_s", s.samples_window_s},
               {"min_share", s.flame_min_share},
               {"node_limit", s.flame_node_limit},
               {"recent", report::flame_json(s.recent_flame)},
               {"total", report::flame_json(s.total_flame)}};
}

}  // namespace

OJson snapshot_json(const LiveSnapshot& s, const std::string& kind,
                    uint64_t dropped, bool history, bool flame) {
  OJson points = OJson::array();
  for (const PointSeries& p : s.points)
    points.push_back(OJson{
        {"name", p.name},
        {"kind", p.kind},
        {"total", p.total},
        {"rate", p.rates.empty() ? OJson() : number(p.rates.back().second)}});
  OJson j{{"schema", kLiveSchemaVersion},
          {"kind", kind},
          {"time_s", s.time_s},
          {"experiments", s.experiments},
          {"experiments_per_s", s.experiments_per_s},
          {"convergence", convergence_json(s.convergence)},
          {"ranking", report::analysis_to_json(s.analysis, {})},
          {"points", std::move(points)},
          {"samples", OJson{{"window_s", s.samples_window_s},
                            {"recent_samples", s.recent_samples},
                            {"total_samples", s.total_samples},
                            {"recent", functions_json(s.recent_functions)},
                            {"total", functions_json(s.total_functions)}}},
          {"flame", flame ? flames_json(s) : OJson()},
          {"dropped", dropped}};
  if (history) j["history"] = history_json(s);
  return j;
}

std::string snapshot_line(const OJson& j) {
  return j.dump(-1, ' ', false, OJson::error_handler_t::replace) + "\n";
}

}  // namespace andweorc::live
