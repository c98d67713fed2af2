// html_data.cc: the HTML report's data: summary, metadata, sampling tables;
// the causal part is html_causal.h's, the source context html_sources.h's.
#include "report/html_data.h"

#include <fmt/format.h>
#include <string.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "profile/attribution.h"
#include "profile/derived_warnings.h"
#include "profile/profile_json.h"
#include "report/display.h"
#include "report/flame_json.h"
#include "report/html_causal.h"
#include "report/html_sources.h"
#include "report/impact_json.h"
#include "report/profile_flame.h"
#include "report/slow_calls.h"
#include "report/source_paths.h"
#include "report/summary.h"

#ifndef ANDWEORC_UPLOT_VERSION
#define ANDWEORC_UPLOT_VERSION "unknown"
#endif

namespace andweorc::report {
namespace {

using OJson = nlohmann::ordered_json;
using profile::Profile;

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

OJson sampling_json(const profile::Attribution& attr,
                    const HtmlOptions& options, const SourcePaths& paths,
                    HtmlSources* sources) {
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
    OJson row = page_function_json(f.function, f.file, paths);
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
    out.push_back(profile::point_json(pt));
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
                           {"kind", profile::point_kind_name(ans.kind)},
                           {"regions", ans.regions},
                           {"significant", ans.significant},
                           {"fitted", ans.fitted},
                           {"top", std::move(top)}});
  }
  // Sampling-only runs: the busiest function is the best there is.
  OJson busiest = nullptr;
  if (!attr.functions.empty() && attr.in_scope > 0) {
    const auto& f = attr.functions.front();
    busiest = page_function_json(f.function, f.file, paths);
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
  HtmlSources sources;
  OJson causal = causal_json(p, a, attr, paths, &sources);
  OJson sampling = sampling_json(attr, options, paths, &sources);
  sampling["flame"] =
      flame_json(profile_flame(p, kFlameMinShare, kFlameMaxFrames));
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
      {"traces", trace_html_json(p, options.top)},
  };
}

}  // namespace andweorc::report
