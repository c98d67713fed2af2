// diff_json.cc: the diff for tools (see diff_writers.h, docs/diff.md).
#include <cmath>
#include <nlohmann/json.hpp>

#include "compare/diff_writers.h"
#include "compare/line_label.h"
#include "experiments/ranking.h"

namespace andweorc::compare {
namespace {

using OJson = nlohmann::ordered_json;

// JSON has no NaN or infinity.
OJson number(double v) { return std::isfinite(v) ? OJson(v) : OJson(nullptr); }

OJson impact(const report::SourcePaths& paths,
             const std::optional<experiments::LineImpact>& i) {
  if (!i) return nullptr;
  OJson j;
  j["file"] = i->file;
  j["line"] = i->line;
  j["function"] = i->function;
  // For display: never loses the line number (line_label.h).
  j["label"] = line_label(paths, i->file, i->line, i->function, 60);
  j["granularity"] = i->granularity;
  j["rank"] = i->rank;
  j["fitted"] = i->fitted;
  j["impact"] = number(i->slope);
  j["ci_low"] = number(i->ci_low);
  j["ci_high"] = number(i->ci_high);
  j["se"] = number(i->slope_se);
  j["dof"] = i->dof;
  j["experiments"] = i->experiments;
  j["significant"] = i->significant;
  // The report's own q-value (null when the line was not tested) and the
  // plausibility verdict, so a tool reading the diff sees what the report
  // of each side says.
  using experiments::Verdict;
  bool tested = i->verdict == Verdict::kSignificant ||
                i->verdict == Verdict::kNotSignificant ||
                i->verdict == Verdict::kImplausible;
  j["q_value"] = tested ? number(i->q_value) : OJson(nullptr);
  j["implausible"] = i->implausible;
  j["bottleneck"] = is_bottleneck(*i);
  j["verdict"] = std::string(experiments::verdict_text(i->verdict));
  return j;
}

OJson share(const ShareChange& s, bool line) {
  OJson j;
  j["file"] = s.file;
  if (line) j["line"] = s.line;
  j["function"] = s.function;
  j["base_share"] = s.in_base ? number(s.base_share) : OJson(nullptr);
  j["new_share"] = s.in_new ? number(s.new_share) : OJson(nullptr);
  j["change"] = number(s.change());
  if (line) {
    j["match"] = s.match ? OJson(match_kind_name(*s.match)) : OJson(nullptr);
  }
  return j;
}

}  // namespace

void write_diff_json(const DiffReport& r, std::ostream& out) {
  const ProfileDiff& d = *r.diff;
  OJson j;
  j["format"] = kDiffFormatTag;
  j["version"] = kDiffFormatVersion;
  auto side = [](const std::string& name, const std::vector<std::string>& files,
                 const std::string& program) {
    OJson f = OJson::array();
    for (const std::string& s : files) f.push_back(s);
    if (files.empty()) f.push_back(name);
    return OJson{{"file", name}, {"files", f}, {"program", program}};
  };
  j["base"] = side(r.base_name, r.base_files, d.base_program);
  j["new"] = side(r.new_name, r.new_files, d.new_program);
  j["level"] = d.level;
  j["correction"] = "benjamini-hochberg";
  j["tests"] = d.tests;
  OJson points = OJson::array();
  for (const PointChange& p : d.points) {
    OJson pj;
    pj["name"] = p.name;
    pj["kind"] =
        p.kind == profile::PointKind::kLatency ? "latency" : "throughput";
    pj["in_base"] = p.in_base;
    pj["in_new"] = p.in_new;
    pj["base_baseline_s"] =
        p.base_baseline > 0 ? number(p.base_baseline) : OJson(nullptr);
    pj["new_baseline_s"] =
        p.new_baseline > 0 ? number(p.new_baseline) : OJson(nullptr);
    pj["speedup"] = p.speedup ? number(*p.speedup) : OJson(nullptr);
    OJson lines = OJson::array();
    for (const LineChange& c : p.lines) {
      OJson lj;
      lj["status"] = status_name(c.status);
      lj["match"] = c.match ? OJson(match_kind_name(*c.match)) : OJson(nullptr);
      lj["base"] = impact(d.paths, c.base);
      lj["new"] = impact(d.paths, c.next);
      if (c.change) {
        lj["change"] = {{"delta", number(c.change->delta)},
                        {"se", number(c.change->se)},
                        {"dof", number(c.change->dof)},
                        {"t", number(c.change->t)},
                        {"p", number(c.change->p)},
                        {"q", number(c.change->q)},
                        {"versus_zero", c.change->versus_zero},
                        {"significant", c.change->significant}};
      } else {
        lj["change"] = nullptr;
      }
      lines.push_back(std::move(lj));
    }
    pj["lines"] = std::move(lines);
    auto test = [](const std::optional<SpeedChange>& c,
                   const std::optional<SideSpeed>& b,
                   const std::optional<SideSpeed>& n) -> OJson {
      if (!c) return nullptr;
      return {{"slower_pct", number(c->slower_pct)},
              {"ci_low_pct", number(c->low_pct)},
              {"ci_high_pct", number(c->high_pct)},
              {"log_ratio", number(c->delta)},
              {"se", number(c->se)},
              {"dof", number(c->dof)},
              {"p", number(c->p)},
              {"q", number(c->q)},
              {"significant", c->significant},
              {"base_runs", b->runs},
              {"new_runs", n->runs},
              {"base_experiments", b->experiments},
              {"new_experiments", n->experiments}};
    };
    pj["speed_change"] = test(p.speed_change, p.base_speed, p.new_speed);
    pj["cpu_change"] = test(p.cpu_change, p.base_cpu, p.new_cpu);
    OJson costs = OJson::array();
    for (const CostChange& c : p.costs) {
      costs.push_back(
          {{"file", c.file},
           {"line", c.line},
           {"function", c.function},
           {"label", line_label(d.paths, c.file, c.line, c.function, 60)},
           {"base", number(c.base_cost)},
           {"new", number(c.new_cost)},
           {"unit", c.in_seconds ? "s/visit" : "samples/visit"}});
    }
    pj["costs"] = std::move(costs);
    OJson rose = OJson::array();
    for (const RegionCost& r : p.regions.rose) {
      rose.push_back({{"function", r.function},
                      {"file", r.file},
                      {"top_file", r.top_file},
                      {"top_line", r.top_line},
                      {"base_s_per_visit", number(r.base_cost)},
                      {"new_s_per_visit", number(r.new_cost)},
                      {"base_total_s_per_visit", number(r.base_total)},
                      {"implied_slowdown_pct", number(r.implied_pct)},
                      {"ci_low_pct", number(r.low_pct)},
                      {"ci_high_pct", number(r.high_pct)},
                      {"p", number(r.p)},
                      {"q", number(r.q)},
                      {"significant", r.significant}});
    }
    pj["regions"] = {{"base_runs", p.regions.base_runs},
                     {"new_runs", p.regions.new_runs},
                     {"tested", p.regions.tested},
                     {"rose", std::move(rose)}};
    points.push_back(std::move(pj));
  }
  j["points"] = std::move(points);
  OJson line_shares = OJson::array();
  for (const ShareChange& s : d.lines) line_shares.push_back(share(s, true));
  j["line_shares"] = std::move(line_shares);
  OJson function_shares = OJson::array();
  for (const ShareChange& s : d.functions) {
    function_shares.push_back(share(s, false));
  }
  j["function_shares"] = std::move(function_shares);
  OJson rules = OJson::array();
  for (const FailRule& rule : r.rules) rules.push_back(rule.text);
  OJson findings = OJson::array();
  for (const Finding& f : r.findings) {
    findings.push_back({{"rule", f.rule}, {"reason", f.reason}});
  }
  j["fail_on"] = std::move(rules);
  j["findings"] = std::move(findings);
  j["regression"] = !r.findings.empty();
  out << j.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace)
      << "\n";
}

}  // namespace andweorc::compare
