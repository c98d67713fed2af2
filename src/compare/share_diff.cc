// share_diff.cc: sample shares and costs compared (share_diff.h).
#include "compare/share_diff.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

namespace andweorc::compare {
namespace {

using profile::PointKind;

// Visits of the point over the whole profile (ends for latency points).
double total_visits(const profile::Profile& p, const PointChange& pc) {
  double v = 0;
  for (const profile::ProgressPoint& pp : p.points) {
    if (pp.name != pc.name || pp.kind != pc.kind) continue;
    v += static_cast<double>(pc.kind == PointKind::kLatency ? pp.ends
                                                            : pp.visits);
  }
  return v;
}

bool share_before(const ShareChange& a, const ShareChange& b) {
  double da = std::fabs(a.change()), db = std::fabs(b.change());
  if (da != db) return da > db;
  return std::tie(a.file, a.line, a.function) <
         std::tie(b.file, b.line, b.function);
}

}  // namespace

LineKey line_key(const profile::LineCount& l, SourceText* source) {
  LineKey k{l.file, l.line, l.function, "line", std::nullopt};
  if (source) k.text = source->line(l.file, l.line);
  return k;
}

// The lines whose CPU time per visit rose most (profile_diff.h).
std::vector<CostChange> cost_changes(const std::vector<ShareChange>& lines,
                                     const profile::Profile& base,
                                     const profile::Attribution& ba,
                                     const profile::Profile& next,
                                     const profile::Attribution& na,
                                     const PointChange& pc) {
  double bv = total_visits(base, pc), nv = total_visits(next, pc);
  if (!(bv > 0) || !(nv > 0)) return {};
  bool in_seconds =
      base.run.sample_period_ns > 0 && next.run.sample_period_ns > 0;
  double bunit =
      in_seconds ? 1e-9 * static_cast<double>(base.run.sample_period_ns) : 1;
  double nunit =
      in_seconds ? 1e-9 * static_cast<double>(next.run.sample_period_ns) : 1;
  std::vector<CostChange> out;
  for (const ShareChange& s : lines) {
    CostChange c{s.file, s.line, s.function, 0, 0, in_seconds};
    c.base_cost = s.base_share * static_cast<double>(ba.total) * bunit / bv;
    c.new_cost = s.new_share * static_cast<double>(na.total) * nunit / nv;
    if (c.change() > 0) out.push_back(std::move(c));
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const CostChange& a, const CostChange& b) {
                     return a.change() > b.change();
                   });
  if (out.size() > 5) out.resize(5);
  return out;
}

std::vector<ShareChange> diff_line_shares(const profile::Attribution& base,
                                          const profile::Attribution& next,
                                          const DiffOptions& o) {
  std::vector<LineKey> bk, nk;
  for (const auto& l : base.lines) bk.push_back(line_key(l, o.base_source));
  for (const auto& l : next.lines) nk.push_back(line_key(l, o.new_source));
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

}  // namespace andweorc::compare
