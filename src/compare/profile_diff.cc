// profile_diff.cc: see profile_diff.h.
#include "compare/profile_diff.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include "experiments/statistics.h"
#include "profile/attribution.h"
#include "profile/merge.h"

namespace andweorc::compare {
namespace {

using experiments::LineImpact;
using profile::PointKind;

LineKey key_of(const LineImpact& i, SourceText* source) {
  LineKey k{i.file, i.line, i.function, i.granularity, std::nullopt};
  if (source) k.text = source->line(i.file, i.line);
  return k;
}

LineKey key_of(const profile::LineCount& l, SourceText* source) {
  LineKey k{l.file, l.line, l.function, "line", std::nullopt};
  if (source) k.text = source->line(l.file, l.line);
  return k;
}

LineStatus status_of(const LineChange& c) {
  bool was = c.base && is_bottleneck(*c.base);
  bool is = c.next && is_bottleneck(*c.next);
  if (is && !was) return LineStatus::kNewBottleneck;
  if (was && !is) return LineStatus::kVanishedBottleneck;
  if (!c.base) return LineStatus::kOnlyNew;
  if (!c.next) return LineStatus::kOnlyBase;
  if (c.change && c.change->significant) {
    return c.change->delta > 0 ? LineStatus::kIncreased
                               : LineStatus::kDecreased;
  }
  return LineStatus::kUnchanged;
}

int status_order(LineStatus s) {
  switch (s) {
    case LineStatus::kNewBottleneck:
      return 0;
    case LineStatus::kVanishedBottleneck:
      return 1;
    case LineStatus::kIncreased:
    case LineStatus::kDecreased:
      return 2;
    default:
      return 3;
  }
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

std::vector<LineChange> diff_lines(const std::vector<LineImpact>& base,
                                   const std::vector<LineImpact>& next,
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
    }
    c.status = status_of(c);
    out.push_back(std::move(c));
  }
  for (size_t j = 0; j < base.size(); ++j) {
    if (base_matched[j]) continue;
    LineChange c;
    c.base = base[j];
    c.status = status_of(c);
    out.push_back(std::move(c));
  }
  std::stable_sort(out.begin(), out.end(), change_before);
  return out;
}

bool share_before(const ShareChange& a, const ShareChange& b) {
  double da = std::fabs(a.change()), db = std::fabs(b.change());
  if (da != db) return da > db;
  return std::tie(a.file, a.line, a.function) <
         std::tie(b.file, b.line, b.function);
}

std::vector<ShareChange> diff_line_shares(const profile::Attribution& base,
                                          const profile::Attribution& next,
                                          const DiffOptions& o) {
  std::vector<LineKey> bk, nk;
  for (const auto& l : base.lines) bk.push_back(key_of(l, o.base_source));
  for (const auto& l : next.lines) nk.push_back(key_of(l, o.new_source));
  Matching m = match_lines(bk, nk);
  std::vector<ShareChange> out;
  std::vector<bool> base_matched(base.lines.size(), false);
  for (size_t i = 0; i < next.lines.size(); ++i) {
    const profile::LineCount& l = next.lines[i];
    ShareChange c{l.file, l.line, l.function,  0, next.share(l.samples),
                  false,  true,   std::nullopt};
    if (int b = m.base_of_new[i]; b >= 0) {
      base_matched[static_cast<size_t>(b)] = true;
      c.base_share = base.share(base.lines[static_cast<size_t>(b)].samples);
      c.in_base = true;
      c.match = m.kind_of_new[i];
    }
    out.push_back(std::move(c));
  }
  for (size_t j = 0; j < base.lines.size(); ++j) {
    if (base_matched[j]) continue;
    const profile::LineCount& l = base.lines[j];
    out.push_back(ShareChange{l.file, l.line, l.function, base.share(l.samples),
                              0, true, false, std::nullopt});
  }
  std::stable_sort(out.begin(), out.end(), share_before);
  return out;
}

std::vector<ShareChange> diff_function_shares(
    const profile::Attribution& base, const profile::Attribution& next) {
  std::map<std::pair<std::string, std::string>, ShareChange> rows;
  for (const auto& f : base.functions) {
    ShareChange& c = rows[{f.function, file_basename(f.file)}];
    c.file = f.file;
    c.function = f.function;
    c.base_share += base.share(f.samples);
    c.in_base = true;
  }
  for (const auto& f : next.functions) {
    ShareChange& c = rows[{f.function, file_basename(f.file)}];
    c.file = f.file;
    c.function = f.function;
    c.new_share += next.share(f.samples);
    c.in_new = true;
  }
  std::vector<ShareChange> out;
  for (auto& [key, c] : rows) out.push_back(std::move(c));
  std::stable_sort(out.begin(), out.end(), share_before);
  return out;
}

}  // namespace

const char* status_name(LineStatus s) {
  switch (s) {
    case LineStatus::kNewBottleneck:
      return "new-bottleneck";
    case LineStatus::kVanishedBottleneck:
      return "vanished-bottleneck";
    case LineStatus::kIncreased:
      return "impact-increased";
    case LineStatus::kDecreased:
      return "impact-decreased";
    case LineStatus::kUnchanged:
      return "unchanged";
    case LineStatus::kOnlyBase:
      return "only-base";
    case LineStatus::kOnlyNew:
      return "only-new";
  }
  return "?";
}

bool is_bottleneck(const LineImpact& impact) {
  return impact.significant && impact.fitted && impact.slope > 0;
}

std::optional<ImpactDelta> compare_impacts(const LineImpact& base,
                                           const LineImpact& next,
                                           double level) {
  if (!base.fitted || !next.fitted || base.dof < 1 || next.dof < 1) {
    return std::nullopt;
  }
  double vb = base.slope_se * base.slope_se;
  double vn = next.slope_se * next.slope_se;
  double var = vb + vn;
  if (!std::isfinite(var) || var <= 0) return std::nullopt;
  ImpactDelta d;
  d.delta = next.slope - base.slope;
  d.se = std::sqrt(var);
  d.dof = var * var / (vb * vb / base.dof + vn * vn / next.dof);
  if (!std::isfinite(d.dof) || d.dof < 1) d.dof = 1;
  d.t = d.delta / d.se;
  d.p = 2 * (1 - experiments::student_t_cdf(std::fabs(d.t), d.dof));
  d.p = std::clamp(d.p, 0.0, 1.0);
  d.significant = d.p < 1 - level;
  return d;
}

ProfileDiff diff_profiles(const profile::Profile& base,
                          const profile::Profile& next, const DiffOptions& o) {
  ProfileDiff d;
  d.level = o.analysis.level;
  d.base_program = profile::program_name(base);
  d.new_program = profile::program_name(next);
  experiments::Analysis ba = experiments::analyze(base, o.analysis);
  experiments::Analysis na = experiments::analyze(next, o.analysis);
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
    std::vector<LineImpact> bl, nl;
    for (const LineImpact& i : ba.impacts) {
      if (i.point == p.name && i.kind == p.kind) bl.push_back(i);
    }
    for (const LineImpact& i : na.impacts) {
      if (i.point == p.name && i.kind == p.kind) nl.push_back(i);
    }
    p.lines = diff_lines(bl, nl, o, d.level);
    d.points.push_back(std::move(p));
  }
  profile::Attribution bat = profile::attribute(base);
  profile::Attribution nat = profile::attribute(next);
  d.lines = diff_line_shares(bat, nat, o);
  d.functions = diff_function_shares(bat, nat);
  return d;
}

}  // namespace andweorc::compare
