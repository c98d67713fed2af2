// html_causal.cc: the HTML page's causal data (html_causal.h): lines with
// their experiments and curves, grouped by function.
#include "report/html_causal.h"

#include <algorithm>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "experiments/ranking.h"
#include "report/impact_json.h"

namespace andweorc::report {
namespace {

using OJson = nlohmann::ordered_json;
using experiments::LineImpact;
using profile::PointKind;
using profile::Profile;

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
                HtmlSources* sources) {
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
    OJson group = page_function_json(b.function, b.file, paths);
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

}  // namespace

OJson causal_json(const Profile& p, const experiments::Analysis& a,
                  const profile::Attribution& attr, const SourcePaths& paths,
                  HtmlSources* sources) {
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
              {"kind", profile::point_kind_name(s.kind)},
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

}  // namespace andweorc::report
