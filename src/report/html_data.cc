// html_data.cc: the HTML report's data: metadata, analysis with the points
// behind each fit, sampling tables, source context.
#include "report/html_data.h"

#include <fmt/format.h>
#include <string.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "experiments/ranking.h"
#include "profile/attribution.h"
#include "profile/derived_warnings.h"
#include "report/causal_section.h"
#include "report/display.h"
#include "report/impact_json.h"
#include "report/source_context.h"
#include "report/source_paths.h"
#include "report/summary.h"

#ifndef ANDWEORC_UPLOT_VERSION
#define ANDWEORC_UPLOT_VERSION "unknown"
#endif

namespace andweorc::report {
namespace {

using OJson = nlohmann::ordered_json;
using experiments::LineImpact;
using profile::PointKind;
using profile::Profile;

// A function as every table of the page names it: its name, short name,
// and file (as recorded, as shown, normalised).
OJson function_json(const std::string& function, const std::string& file,
                    const SourcePaths& paths) {
  return OJson{
      {"function", function},
      {"function_short", short_function_name(function, kPageNameWidth)},
      {"file", file},
      {"file_display", paths.display(file)},
      {"file_path", normalize_path(file)}};
}

// Source requests, deduplicated; lines refer to them by index.
class Sources {
 public:
  size_t add(const std::string& file, int line) {
    auto [it, added] = index_.try_emplace({file, line}, requests_.size());
    if (added) requests_.push_back({file, line});
    return it->second;
  }

  OJson to_json(const HtmlOptions& options, const SourcePaths& paths) const {
    OJson out = OJson::array();
    if (!options.read_sources) {
      for (const SourceRequest& r : requests_) {
        out.push_back(OJson{{"file", r.file},
                            {"file_display", paths.display(r.file)},
                            {"file_path", normalize_path(r.file)},
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
          {"file_display", paths.display(c.file)},
          {"file_path", normalize_path(c.file)},
          {"line", c.line},
          {"found_as", c.found_as.empty() ? OJson(nullptr)
                                          : OJson(normalize_path(c.found_as))},
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
                const profile::Attribution& attr, const SourcePaths& paths,
                Sources* sources) {
  uint64_t samples = impact_samples(m, attr);
  OJson out = impact_json(m, paths, ImpactFields::kPageLine);
  out["samples"] = samples;
  out["sample_share"] = attr.share(samples);
  out["points"] = points_json(p, m);
  out["curve"] = curve_json(m);
  out["source"] = sources->add(m.file, m.line);
  return out;
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

// Samples of a function: its rows of the attribution, paths compared
// normalised (one file may be recorded with and without "//").
uint64_t function_samples(const std::string& function, const std::string& file,
                          const profile::Attribution& attr) {
  std::string want = normalize_path(file);
  uint64_t n = 0;
  for (const auto& f : attr.functions) {
    if (f.function == function && normalize_path(f.file) == want) {
      n += f.samples;
    }
  }
  return n;
}

// A point's regions grouped by function (and file, so same-named statics
// stay apart), in the order of each group's best rank. A function-level
// region is a group of its own. `lines` are indices into the point's lines.
OJson groups_json(const std::vector<const LineImpact*>& rows,
                  const profile::Attribution& attr, const SourcePaths& paths) {
  struct Group {
    const LineImpact* best;
    std::vector<size_t> lines;
    int significant = 0;
  };
  std::vector<Group> groups;
  std::map<std::tuple<std::string, std::string, std::string>, size_t> index;
  for (size_t i = 0; i < rows.size(); ++i) {
    const LineImpact& m = *rows[i];
    auto key =
        std::make_tuple(m.granularity, m.function, normalize_path(m.file));
    auto [it, added] = index.try_emplace(key, groups.size());
    if (added) groups.push_back(Group{&m, {}, 0});
    Group& g = groups[it->second];
    if (m.rank < g.best->rank) g.best = &m;
    g.lines.push_back(i);
    g.significant += m.significant ? 1 : 0;
  }
  std::stable_sort(groups.begin(), groups.end(),
                   [](const Group& a, const Group& b) {
                     return a.best->rank < b.best->rank;
                   });
  OJson out = OJson::array();
  for (const Group& g : groups) {
    const LineImpact& b = *g.best;
    uint64_t samples = function_samples(b.function, b.file, attr);
    OJson group = function_json(b.function, b.file, paths);
    group["granularity"] = b.granularity;
    group["rank"] = b.rank;
    group["best"] = std::find(rows.begin(), rows.end(), g.best) - rows.begin();
    group["lines"] = g.lines;
    group["significant"] = g.significant;
    group["samples"] = samples;
    group["sample_share"] = attr.share(samples);
    out.push_back(std::move(group));
  }
  return out;
}

OJson causal_json(const Profile& p, const experiments::Analysis& a,
                  const profile::Attribution& attr, const SourcePaths& paths,
                  Sources* sources) {
  OJson points = OJson::array();
  for (const auto& s : a.points) {
    OJson lines = OJson::array();
    std::vector<const LineImpact*> rows;
    for (const LineImpact& m : a.impacts) {
      if (m.point == s.name && m.kind == s.kind) {
        lines.push_back(line_json(p, m, attr, paths, sources));
        rows.push_back(&m);
      }
    }
    points.push_back(
        OJson{{"name", s.name},
              {"kind", point_kind_name(s.kind)},
              {"baseline_s", number_or_null(s.baseline > 0, s.baseline)},
              {"experiments", s.experiments},
              {"reached", s.reached},
              {"lines", std::move(lines)},
              {"groups", groups_json(rows, attr, paths)}});
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
                    const HtmlOptions& options, const SourcePaths& paths,
                    Sources* sources) {
  size_t nl = options.top == 0 ? attr.lines.size()
                               : std::min(options.top, attr.lines.size());
  size_t nf = options.top == 0 ? attr.functions.size()
                               : std::min(options.top, attr.functions.size());
  OJson lines = OJson::array();
  for (size_t i = 0; i < nl; ++i) {
    const auto& l = attr.lines[i];
    lines.push_back(OJson{
        {"file", l.file},
        {"file_display", paths.display(l.file)},
        {"file_path", normalize_path(l.file)},
        {"line", l.line},
        {"function", l.function},
        {"function_short", short_function_name(l.function, kPageNameWidth)},
        {"samples", l.samples},
        {"share", attr.share(l.samples)},
        {"source", sources->add(l.file, l.line)}});
  }
  OJson functions = OJson::array();
  for (size_t i = 0; i < nf; ++i) {
    const auto& f = attr.functions[i];
    OJson row = function_json(f.function, f.file, paths);
    row["samples"] = f.samples;
    row["share"] = attr.share(f.samples);
    functions.push_back(std::move(row));
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
                        {"kind", point_kind_name(pt.kind)},
                        {"visits", pt.visits},
                        {"begins", pt.begins},
                        {"ends", pt.ends}});
  }
  return out;
}

// Every file the page names: the causal regions and the sampling tables.
std::vector<std::string> shown_files(const experiments::Analysis& a,
                                     const profile::Attribution& attr,
                                     const HtmlOptions& options) {
  std::vector<std::string> files;
  for (const auto& m : a.impacts) files.push_back(m.file);
  size_t nl = options.top == 0 ? attr.lines.size()
                               : std::min(options.top, attr.lines.size());
  for (size_t i = 0; i < nl; ++i) files.push_back(attr.lines[i].file);
  size_t nf = options.top == 0 ? attr.functions.size()
                               : std::min(options.top, attr.functions.size());
  for (size_t i = 0; i < nf; ++i) files.push_back(attr.functions[i].file);
  return files;
}

OJson or_null(const experiments::Prediction& r) {
  return r.valid ? OJson::array({r.value, r.low, r.high}) : OJson(nullptr);
}

// The answer first: per progress point, the rank-1 region and the counts;
// the sentences are built by the page (text: summary_sentences).
OJson summary_json(const Profile& p, const experiments::Analysis& a,
                   const profile::Attribution& attr, const SourcePaths& paths) {
  Summary s = summarize(a, recorded_convergence(p));
  OJson points = OJson::array();
  for (const PointAnswer& ans : s.points) {
    OJson top = nullptr;
    if (ans.top) {
      top = impact_json(*ans.top, paths, ImpactFields::kPageSummary);
      top["at10"] = or_null(ans.at10);
    }
    points.push_back(OJson{{"name", ans.point},
                           {"kind", point_kind_name(ans.kind)},
                           {"regions", ans.regions},
                           {"significant", ans.significant},
                           {"fitted", ans.fitted},
                           {"top", std::move(top)}});
  }
  // Sampling-only runs: the busiest function is the best there is.
  OJson busiest = nullptr;
  if (!attr.functions.empty() && attr.in_scope > 0) {
    const auto& f = attr.functions.front();
    busiest = function_json(f.function, f.file, paths);
    busiest["share"] = attr.share(f.samples);
  }
  OJson convergence = nullptr;
  if (s.convergence) {
    convergence = OJson{{"converged", s.convergence->converged},
                        {"detail", s.convergence->detail}};
  }
  return OJson{{"points", std::move(points)},
               {"busiest_function", std::move(busiest)},
               {"convergence", std::move(convergence)}};
}

}  // namespace

nlohmann::ordered_json html_data(const Profile& p,
                                 const experiments::Analysis& a,
                                 const HtmlOptions& options) {
  profile::Attribution attr = profile::attribute(p);
  SourcePaths paths(shown_files(a, attr, options),
                    absolute_roots(options.source_roots));
  Sources sources;
  OJson causal = causal_json(p, a, attr, paths, &sources);
  OJson sampling = sampling_json(attr, options, paths, &sources);
  OJson source_json = sources.to_json(options, paths);
  return OJson{
      {"summary", summary_json(p, a, attr, paths)},
      {"meta", meta_json(p, attr)},
      {"warnings", profile::all_warnings(p)},
      {"progress_points", progress_points_json(p)},
      {"causal", std::move(causal)},
      {"sampling", std::move(sampling)},
      {"sources", std::move(source_json)},
      {"source_roots", paths.roots()},
  };
}

}  // namespace andweorc::report
