// profile_diff.cc: see profile_diff.h.
#include "compare/profile_diff.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include "compare/run_spread.h"
#include "compare/share_diff.h"
#include "profile/attribution.h"
#include "profile/merge.h"
#include "statistics/multiple_testing.h"
#include "statistics/statistics.h"

namespace andweorc::compare {
namespace {

using experiments::LineImpact;
using profile::PointKind;

LineKey key_of(const LineImpact& i, SourceText* source) {
  LineKey k{i.file, i.line, i.function, i.granularity, std::nullopt};
  if (source) k.text = source->line(i.file, i.line);
  return k;
}

}  // namespace

LineStatus line_status(const LineChange& c) {
  bool sig = c.change && c.change->significant;
  bool up = sig && c.change->delta > 0, down = sig && c.change->delta < 0;
  if (!c.base || !c.next) {
    if (up && c.next && is_bottleneck(*c.next)) {
      return LineStatus::kNewBottleneck;
    }
    if (down && c.base && is_bottleneck(*c.base)) {
      return LineStatus::kVanishedBottleneck;
    }
    return c.base ? LineStatus::kOnlyBase : LineStatus::kOnlyNew;
  }
  if (!sig) return LineStatus::kUnchanged;
  bool was = is_bottleneck(*c.base), is = is_bottleneck(*c.next);
  if (up && is && !was) return LineStatus::kNewBottleneck;
  if (down && was && !is) return LineStatus::kVanishedBottleneck;
  return up ? LineStatus::kIncreased : LineStatus::kDecreased;
}

namespace {

// True when the other side's samples (`keys`, its attribution's lines)
// include the line `i` names: it ran there, even if no experiment chose it.
bool sampled(const std::vector<LineKey>& keys, const LineImpact& i,
             SourceText* source) {
  if (i.granularity != "line") {
    for (const LineKey& k : keys) {
      if (k.function == i.function) return true;
    }
    return false;
  }
  Matching m = match_lines(keys, {key_of(i, source)});
  return m.base_of_new[0] >= 0;
}

// One side's slope against 0, for a line the other side never ran;
// `sign` -1 when the line is BASE's (delta = 0 - slope).
std::optional<ImpactDelta> versus_zero(const LineImpact& i, double sign) {
  // Only fits the analysis itself trusts (enough sped-up experiments).
  bool trusted = i.verdict == experiments::Verdict::kSignificant ||
                 i.verdict == experiments::Verdict::kNotSignificant;
  if (!trusted || !i.fitted || i.dof < 1 || !(i.slope_se > 0) ||
      !std::isfinite(i.slope_se)) {
    return std::nullopt;
  }
  ImpactDelta d;
  d.delta = sign * i.slope;
  d.se = i.slope_se;
  d.dof = i.dof;
  d.t = d.delta / d.se;
  d.p = std::clamp(2 * (1 - experiments::student_t_cdf(std::fabs(d.t), d.dof)),
                   0.0, 1.0);
  d.versus_zero = true;
  return d;
}

bool change_before(const LineChange& a, const LineChange& b) {
  int oa = status_order(a.status), ob = status_order(b.status);
  if (oa != ob) return oa < ob;
  if (oa == 2) {
    double da = std::fabs(a.change->delta), db = std::fabs(b.change->delta);
    if (da != db) return da > db;
  }
  // Present lines by rank; absent ones after them.
  auto rank = [](const std::optional<LineImpact>& i) {
    return i ? i->rank : 1 << 30;
  };
  return std::make_tuple(rank(a.next), rank(a.base), a.line().file,
                         a.line().line) <
         std::make_tuple(rank(b.next), rank(b.base), b.line().file,
                         b.line().line);
}

// Lines matched and tested; statuses are set later, once q is known.
std::vector<LineChange> diff_lines(const std::vector<LineImpact>& base,
                                   const std::vector<LineImpact>& next,
                                   const std::vector<LineKey>& base_sampled,
                                   const std::vector<LineKey>& new_sampled,
                                   const DiffOptions& o, double level) {
  std::vector<LineKey> bk, nk;
  for (const LineImpact& i : base) bk.push_back(key_of(i, o.base_source));
  for (const LineImpact& i : next) nk.push_back(key_of(i, o.new_source));
  Matching m = match_lines(bk, nk);
  std::vector<LineChange> out;
  std::vector<bool> base_matched(base.size(), false);
  for (size_t i = 0; i < next.size(); ++i) {
    LineChange c;
    c.next = next[i];
    if (int b = m.base_of_new[i]; b >= 0) {
      base_matched[static_cast<size_t>(b)] = true;
      c.base = base[static_cast<size_t>(b)];
      c.match = m.kind_of_new[i];
      c.change = compare_impacts(*c.base, *c.next, level);
    } else if (!sampled(base_sampled, next[i], o.base_source)) {
      c.change = versus_zero(next[i], 1);
    }
    out.push_back(std::move(c));
  }
  for (size_t j = 0; j < base.size(); ++j) {
    if (base_matched[j]) continue;
    LineChange c;
    c.base = base[j];
    if (!sampled(new_sampled, base[j], o.new_source)) {
      c.change = versus_zero(base[j], -1);
    }
    out.push_back(std::move(c));
  }
  return out;
}

std::vector<LineKey> sampled_keys(const profile::Attribution& a,
                                  SourceText* source) {
  std::vector<LineKey> keys;
  for (const auto& l : a.lines) keys.push_back(line_key(l, source));
  return keys;
}

// Sets every test's q value and significance, then the line statuses and
// order (profile_diff.h).
void correct_for_multiplicity(ProfileDiff& d) {
  std::vector<double> p;
  for (const PointChange& pc : d.points) {
    for (const LineChange& c : pc.lines) {
      if (c.change) p.push_back(c.change->p);
    }
    if (pc.speed_change) p.push_back(pc.speed_change->p);
    if (pc.cpu_change) p.push_back(pc.cpu_change->p);
  }
  std::vector<double> q = experiments::bh_q_values(p);
  d.tests = static_cast<int>(p.size());
  size_t k = 0;
  double alpha = 1 - d.level;
  for (PointChange& pc : d.points) {
    for (LineChange& c : pc.lines) {
      if (c.change) {
        c.change->q = q[k++];
        c.change->significant = c.change->q < alpha;
      }
      c.status = line_status(c);
    }
    for (auto* c : {&pc.speed_change, &pc.cpu_change}) {
      if (!*c) continue;
      (*c)->q = q[k++];
      (*c)->significant = (*c)->q < alpha;
    }
    std::stable_sort(pc.lines.begin(), pc.lines.end(), change_before);
  }
}

}  // namespace

report::SourcePaths diff_paths(const profile::Profile& base,
                               const profile::Profile& next) {
  auto files_of = [](const profile::Profile& p) {
    std::vector<std::string> files;
    for (const profile::Frame& f : p.frames) files.push_back(f.file);
    return files;
  };
  std::vector<std::string> base_files = files_of(base);
  std::vector<std::string> new_files = files_of(next);
  // Each side's own common directory first (a named SourcePaths each: the
  // roots are a member, not to be read through a temporary).
  report::SourcePaths base_paths(base_files), new_paths(new_files);
  std::vector<std::string> roots = base_paths.roots();
  roots.insert(roots.end(), new_paths.roots().begin(), new_paths.roots().end());
  base_files.insert(base_files.end(), new_files.begin(), new_files.end());
  return report::SourcePaths(base_files, roots);
}

bool is_bottleneck(const LineImpact& impact) {
  return impact.significant && impact.fitted && impact.slope > 0;
}

std::optional<ImpactDelta> compare_impacts(const LineImpact& base,
                                           const LineImpact& next,
                                           double level) {
  if (!base.fitted || !next.fitted || base.dof < 1 || next.dof < 1 ||
      base.implausible || next.implausible) {
    return std::nullopt;
  }
  double vb = base.slope_se * base.slope_se;
  double vn = next.slope_se * next.slope_se;
  double var = vb + vn;
  if (!std::isfinite(var) || var <= 0) return std::nullopt;
  ImpactDelta d;
  d.delta = next.slope - base.slope;
  d.se = std::sqrt(var);
  d.dof = experiments::welch_dof(vb, base.dof, vn, next.dof);
  d.t = d.delta / d.se;
  d.p = 2 * (1 - experiments::student_t_cdf(std::fabs(d.t), d.dof));
  d.p = std::clamp(d.p, 0.0, 1.0);
  d.significant = d.p < 1 - level;
  return d;
}

ProfileDiff diff_profiles(const profile::Profile& base,
                          const profile::Profile& next, const DiffOptions& o) {
  return diff_runs(base, {}, next, {}, o);
}

ProfileDiff diff_runs(const profile::Profile& base,
                      const std::vector<const profile::Profile*>& base_runs_in,
                      const profile::Profile& next,
                      const std::vector<const profile::Profile*>& new_runs_in,
                      const DiffOptions& o) {
  std::vector<const profile::Profile*> base_runs = base_runs_in;
  std::vector<const profile::Profile*> new_runs = new_runs_in;
  if (base_runs.empty()) base_runs = {&base};
  if (new_runs.empty()) new_runs = {&next};
  ProfileDiff d;
  d.level = o.analysis.level;
  d.base_program = profile::program_name(base);
  d.new_program = profile::program_name(next);
  d.paths = diff_paths(base, next);
  d.base_runs = static_cast<int>(base_runs.size());
  d.new_runs = static_cast<int>(new_runs.size());
  experiments::Analysis ba = experiments::analyze(base, o.analysis);
  experiments::Analysis na = experiments::analyze(next, o.analysis);
  widen_by_run_spread(&ba.impacts, base_runs, o.analysis);
  widen_by_run_spread(&na.impacts, new_runs, o.analysis);
  profile::Attribution bat = profile::attribute(base);
  profile::Attribution nat = profile::attribute(next);
  std::vector<LineKey> base_sampled = sampled_keys(bat, o.base_source);
  std::vector<LineKey> new_sampled = sampled_keys(nat, o.new_source);
  d.lines = diff_line_shares(bat, nat, o);
  d.functions = diff_function_shares(bat, nat);
  // Points keyed by (name, kind); std::map keeps them sorted.
  std::map<std::pair<std::string, PointKind>, PointChange> points;
  auto point = [&](const experiments::PointSummary& s) -> PointChange& {
    PointChange& p = points[{s.name, s.kind}];
    p.name = s.name;
    p.kind = s.kind;
    return p;
  };
  for (const auto& s : ba.points) {
    PointChange& p = point(s);
    p.in_base = true;
    p.base_baseline = s.baseline;
  }
  for (const auto& s : na.points) {
    PointChange& p = point(s);
    p.in_new = true;
    p.new_baseline = s.baseline;
  }
  for (auto& [key, p] : points) {
    if (p.base_baseline > 0 && p.new_baseline > 0) {
      p.speedup = (p.base_baseline - p.new_baseline) / p.base_baseline;
    }
    if (p.in_base) p.base_speed = side_speed(base_runs, p.name, p.kind);
    if (p.in_new) p.new_speed = side_speed(new_runs, p.name, p.kind);
    if (p.base_speed && p.new_speed) {
      p.speed_change = compare_speeds(*p.base_speed, *p.new_speed, d.level);
    }
    if (p.in_base) p.base_cpu = side_cpu(base_runs, p.name, p.kind);
    if (p.in_new) p.new_cpu = side_cpu(new_runs, p.name, p.kind);
    if (p.base_cpu && p.new_cpu) {
      p.cpu_change = compare_speeds(*p.base_cpu, *p.new_cpu, d.level);
    }
    std::vector<LineImpact> bl, nl;
    for (const LineImpact& i : ba.impacts) {
      if (i.point == p.name && i.kind == p.kind) bl.push_back(i);
    }
    for (const LineImpact& i : na.impacts) {
      if (i.point == p.name && i.kind == p.kind) nl.push_back(i);
    }
    p.lines = diff_lines(bl, nl, base_sampled, new_sampled, o, d.level);
    if (p.in_base && p.in_new) {
      p.costs = cost_changes(d.lines, base, bat, next, nat, p);
      p.regions = region_cost_changes(base_runs, new_runs, p.name, p.kind,
                                      o.region_min_pct, d.level);
    }
    d.points.push_back(std::move(p));
  }
  correct_for_multiplicity(d);
  return d;
}

}  // namespace andweorc::compare
