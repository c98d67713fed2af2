// html_data.cc: the HTML report's data: metadata, analysis with the points
// behind each fit, sampling tables, source context.
#include "report/html_data.h"

#include <fmt/format.h>
#include <string.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "experiments/ranking.h"
#include "profile/attribution.h"
#include "profile/derived_warnings.h"
#include "report/causal_section.h"
#include "report/display.h"
#include "report/source_context.h"

#ifndef ANDWEORC_UPLOT_VERSION
#define ANDWEORC_UPLOT_VERSION "unknown"
#endif

namespace andweorc::report {
namespace {

using OJson = nlohmann::ordered_json;
using experiments::LineImpact;
using profile::PointKind;
using profile::Profile;

OJson number_or_null(bool valid, double v) {
  return valid && std::isfinite(v) ? OJson(v) : OJson(nullptr);
}

const char* kind_name(PointKind k) {
  return k == PointKind::kLatency ? "latency" : "throughput";
}

// Source requests, deduplicated; lines refer to them by index.
class Sources {
 public:
  size_t add(const std::string& file, int line) {
    auto [it, added] = index_.try_emplace({file, line}, requests_.size());
    if (added) requests_.push_back({file, line});
    return it->second;
  }

  OJson to_json(const HtmlOptions& options) const {
    OJson out = OJson::array();
    if (!options.read_sources) {
      for (const SourceRequest& r : requests_) {
        out.push_back(OJson{{"file", r.file},
                            {"line", r.line},
                            {"found_as", nullptr},
                            {"first_line", 0},
                            {"lines", OJson::array()},
                            {"error", "source not read"}});
      }
      return out;
    }
    for (const SourceContext& c : read_source_contexts(
             requests_, options.context_lines, options.source_roots)) {
      out.push_back(OJson{
          {"file", c.file},
          {"line", c.line},
          {"found_as", c.found_as.empty() ? OJson(nullptr) : OJson(c.found_as)},
          {"first_line", c.first_line},
          {"lines", c.lines},
          {"error", c.error.empty() ? OJson(nullptr) : OJson(c.error)}});
    }
    return out;
  }

 private:
  std::map<std::pair<std::string, int>, size_t> index_;
  std::vector<SourceRequest> requests_;
};

std::string exit_text(const Profile& p) {
  if (p.run.exit_signal > 0) {
    const char* abbrev = sigabbrev_np(p.run.exit_signal);
    return abbrev ? fmt::format("killed by signal {} (SIG{})",
                                p.run.exit_signal, abbrev)
                  : fmt::format("killed by signal {}", p.run.exit_signal);
  }
  return fmt::format("exit status {}", p.run.exit_status);
}

OJson meta_json(const Profile& p, const profile::Attribution& attr) {
  OJson executables = OJson::array();
  for (const auto& proc : p.processes) executables.push_back(proc.executable);
  const auto& s = p.settings;
  return OJson{
      {"title", p.run.command.empty() ? std::string("(unknown command)")
                                      : shell_join(p.run.command)},
      {"command", p.run.command},
      {"start_time", p.run.start_time},
      {"duration_s", number_or_null(p.run.duration_s > 0, p.run.duration_s)},
      {"exit", exit_text(p)},
      {"sampler", sampler_text(p)},
      {"samples", p.samples},
      {"lost_samples", p.lost_samples},
      {"threads", p.threads},
      {"processes", p.processes.size()},
      {"executables", std::move(executables)},
      {"mapped_share", number_or_null(attr.total > 0, attr.mapped_share())},
      {"in_scope_share", number_or_null(attr.total > 0, attr.in_scope_share())},
      {"experiments", p.experiments.size()},
      {"settings",
       OJson{{"experiments", s.enabled},
             {"granularity", s.granularity},
             {"fixed_line", s.fixed_line},
             {"fixed_speedup",
              s.fixed_speedup >= 0 ? OJson(s.fixed_speedup) : OJson(nullptr)},
             {"end_to_end", s.end_to_end},
             {"seed", s.seed}}},
      {"tool_version", p.run.tool_version},
      {"uplot_version", ANDWEORC_UPLOT_VERSION},
  };
}

// Samples attributed to an impact's line (or function).
uint64_t impact_samples(const LineImpact& m, const profile::Attribution& a) {
  uint64_t n = 0;
  if (m.granularity == "function") {
    for (const auto& f : a.functions) {
      if (f.function == m.function && f.file == m.file) n += f.samples;
    }
    return n;
  }
  for (const auto& l : a.lines) {
    if (l.file == m.file && l.line == m.line) n += l.samples;
  }
  return n;
}

// Visits (throughput) or arrivals (latency) of the impact's point.
uint64_t events(const profile::Experiment& e, const LineImpact& m) {
  for (const auto& d : e.points) {
    if (d.name == m.point && d.kind == m.kind) {
      return m.kind == PointKind::kThroughput ? d.visits : d.arrivals;
    }
  }
  return 0;
}

OJson points_json(const Profile& p, const LineImpact& m) {
  OJson out = OJson::array();
  for (const experiments::FitPoint& f : m.points) {
    const profile::Experiment& e = p.experiments.at(f.experiment);
    // A 0% experiment of another line stands in for a missing own baseline.
    bool own = m.granularity == "function"
                   ? e.function == m.function && e.file == m.file
                   : e.file == m.file && e.line == m.line;
    out.push_back(OJson::array({f.x, f.y, f.experiment, e.speedup_pct,
                                e.duration_s, events(e, m), own}));
  }
  return out;
}

// The fitted line and its interval on a grid from 0 to the largest tested
// speed-up; the interval is predict()'s, so it matches the text report.
OJson curve_json(const LineImpact& m) {
  OJson out = OJson::array();
  if (!m.fitted) return out;
  double top = 0.1;
  for (const auto& f : m.points) top = std::max(top, f.x);
  constexpr int kSteps = 20;
  for (int i = 0; i <= kSteps; ++i) {
    double x = top * i / kSteps;
    experiments::Prediction r = experiments::predict(m, x);
    out.push_back(OJson::array(
        {x, m.intercept + r.value, m.intercept + r.low, m.intercept + r.high}));
  }
  return out;
}

OJson line_json(const Profile& p, const LineImpact& m,
                const profile::Attribution& attr, Sources* sources) {
  OJson predictions = OJson::array();
  for (double s : kPredictionSpeedups) {
    experiments::Prediction r = experiments::predict(m, s);
    predictions.push_back(OJson::array({s, number_or_null(r.valid, r.value),
                                        number_or_null(r.valid, r.low),
                                        number_or_null(r.valid, r.high)}));
  }
  uint64_t samples = impact_samples(m, attr);
  return OJson{
      {"rank", m.rank},
      {"file", m.file},
      {"line", m.line},
      {"function", m.function},
      {"granularity", m.granularity},
      {"verdict_text", m.verdict_text},
      {"significant", m.significant},
      {"impact", number_or_null(m.fitted, m.slope)},
      {"ci_low", number_or_null(m.fitted, m.ci_low)},
      {"ci_high", number_or_null(m.fitted, m.ci_high)},
      {"intercept", number_or_null(m.fitted, m.intercept)},
      {"r2", number_or_null(m.fitted, m.r2)},
      {"experiments", m.experiments},
      {"speedup_experiments", m.speedup_experiments},
      {"baseline_experiments", m.baseline_experiments},
      {"own_baseline", m.own_baseline},
      {"samples", samples},
      {"sample_share", attr.share(samples)},
      {"predictions", std::move(predictions)},
      {"points", points_json(p, m)},
      {"curve", curve_json(m)},
      {"source", sources->add(m.file, m.line)},
  };
}

std::string no_curves_reason(const Profile& p, const experiments::Analysis& a) {
  if (p.experiments.empty() && !p.settings.enabled) {
    return "This run only sampled (it was started with --no-experiments), so "
           "there are no causal experiments and no curves. Run it without "
           "--no-experiments to see how much each line's speed-up would "
           "speed up the program.";
  }
  bool any_points = false;
  for (const auto& m : a.impacts) any_points |= !m.points.empty();
  if (any_points) return "";
  std::string why =
      "No curve can be drawn: no experiment measured a progress "
      "point against a baseline.";
  for (const auto& n : a.notes) why += " " + n;
  return why;
}

OJson causal_json(const Profile& p, const experiments::Analysis& a,
                  const profile::Attribution& attr, Sources* sources) {
  OJson points = OJson::array();
  for (const auto& s : a.points) {
    OJson lines = OJson::array();
    for (const LineImpact& m : a.impacts) {
      if (m.point == s.name && m.kind == s.kind) {
        lines.push_back(line_json(p, m, attr, sources));
      }
    }
    points.push_back(
        OJson{{"name", s.name},
              {"kind", kind_name(s.kind)},
              {"baseline_s", number_or_null(s.baseline > 0, s.baseline)},
              {"experiments", s.experiments},
              {"reached", s.reached},
              {"lines", std::move(lines)}});
  }
  std::string no_curves = no_curves_reason(p, a);
  return OJson{
      {"level", a.level},
      {"ranking_rule", experiments::ranking_rule(a.min_speedup_experiments)},
      {"notes", a.notes},
      {"no_curves", no_curves.empty() ? OJson(nullptr) : OJson(no_curves)},
      {"points", std::move(points)},
  };
}

OJson sampling_json(const profile::Attribution& attr,
                    const HtmlOptions& options, Sources* sources) {
  size_t nl = options.top == 0 ? attr.lines.size()
                               : std::min(options.top, attr.lines.size());
  size_t nf = options.top == 0 ? attr.functions.size()
                               : std::min(options.top, attr.functions.size());
  OJson lines = OJson::array();
  for (size_t i = 0; i < nl; ++i) {
    const auto& l = attr.lines[i];
    lines.push_back(OJson{{"file", l.file},
                          {"line", l.line},
                          {"function", l.function},
                          {"samples", l.samples},
                          {"share", attr.share(l.samples)},
                          {"source", sources->add(l.file, l.line)}});
  }
  OJson functions = OJson::array();
  for (size_t i = 0; i < nf; ++i) {
    const auto& f = attr.functions[i];
    functions.push_back(OJson{{"function", f.function},
                              {"file", f.file},
                              {"samples", f.samples},
                              {"share", attr.share(f.samples)}});
  }
  return OJson{{"total", attr.total},
               {"mapped", attr.mapped},
               {"in_scope", attr.in_scope},
               {"lines", std::move(lines)},
               {"functions", std::move(functions)},
               {"more_lines", attr.lines.size() - nl},
               {"more_functions", attr.functions.size() - nf}};
}

OJson progress_points_json(const Profile& p) {
  OJson out = OJson::array();
  for (const auto& pt : p.points) {
    out.push_back(OJson{{"name", pt.name},
                        {"kind", kind_name(pt.kind)},
                        {"visits", pt.visits},
                        {"begins", pt.begins},
                        {"ends", pt.ends}});
  }
  return out;
}

std::string shown_common_dir(const OJson& sources) {
  std::vector<std::string> files;
  for (const auto& s : sources) {
    const std::string& f = s["file"].get_ref<const std::string&>();
    if (!f.empty()) files.push_back(f);
  }
  return common_dir(files);
}

}  // namespace

nlohmann::ordered_json html_data(const Profile& p,
                                 const experiments::Analysis& a,
                                 const HtmlOptions& options) {
  profile::Attribution attr = profile::attribute(p);
  Sources sources;
  OJson causal = causal_json(p, a, attr, &sources);
  OJson sampling = sampling_json(attr, options, &sources);
  OJson source_json = sources.to_json(options);
  std::string common = shown_common_dir(source_json);
  return OJson{
      {"meta", meta_json(p, attr)},
      {"warnings", profile::all_warnings(p)},
      {"progress_points", progress_points_json(p)},
      {"causal", std::move(causal)},
      {"sampling", std::move(sampling)},
      {"sources", std::move(source_json)},
      {"common_dir", common},
  };
}

}  // namespace andweorc::report
