// region_cost.cc: machine-normalized cost per visit of each function
// (region_cost.h).
#include "compare/region_cost.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <tuple>
#include <utility>

#include "profile/attribution.h"
#include "statistics/multiple_testing.h"
#include "statistics/statistics.h"

namespace andweorc::compare {
namespace {

using FnKey = std::pair<std::string, std::string>;  // function, file
using LnKey = std::tuple<std::string, std::string, int>;

// A region must carry this share of BASE's cost to vote on the machine
// factor: below it a function's few samples make its ratio noisy.
constexpr double kFactorMinShare = 0.01;

struct RunCosts {
  double total = 0;  // CPU seconds per visit
  std::map<FnKey, double> fn;
  std::map<LnKey, double> line;
};

std::optional<RunCosts> costs_of(const profile::Profile& p,
                                 const std::string& name,
                                 profile::PointKind kind) {
  double visits = 0;
  for (const profile::ProgressPoint& pp : p.points) {
    if (pp.name != name || pp.kind != kind) continue;
    visits += static_cast<double>(
        kind == profile::PointKind::kLatency ? pp.ends : pp.visits);
  }
  if (!(visits > 0)) return std::nullopt;
  // Samples are periods of CPU time; runs with another period still compare.
  double unit = p.run.sample_period_ns > 0
                    ? 1e-9 * static_cast<double>(p.run.sample_period_ns)
                    : 1;
  double per = unit / visits;
  profile::Attribution a = profile::attribute(p);
  if (a.total == 0) return std::nullopt;
  RunCosts r;
  r.total = static_cast<double>(a.total) * per;
  for (const profile::FunctionCount& f : a.functions)
    r.fn[{f.function, f.file}] += static_cast<double>(f.samples) * per;
  if (a.total > a.in_scope)
    r.fn[{"", ""}] += static_cast<double>(a.total - a.in_scope) * per;
  for (const profile::LineCount& l : a.lines)
    r.line[{l.function, l.file, l.line}] +=
        static_cast<double>(l.samples) * per;
  return r;
}

template <typename Map>
double lookup(const Map& m, const typename Map::key_type& k) {
  auto it = m.find(k);
  return it == m.end() ? 0.0 : it->second;
}

template <typename Map>
Map mean_of(const std::vector<RunCosts>& runs, Map RunCosts::*field) {
  Map mean;
  for (const RunCosts& r : runs)
    for (const auto& [k, v] : r.*field)
      mean[k] += v / static_cast<double>(runs.size());
  return mean;
}

// Weighted median of cost ratios against BASE (region_cost.h, step 2),
// without `leave_out` (the region under test, so that a region carrying
// half the cost cannot drag the median with its own regression).
double machine_factor(const RunCosts& r, const std::map<FnKey, double>& base,
                      double base_total, const FnKey* leave_out = nullptr) {
  std::vector<std::pair<double, double>> rw;  // ratio, weight
  double weight = 0;
  for (const auto& [k, mean] : base) {
    if (!(mean > 0) || mean < kFactorMinShare * base_total) continue;
    if (leave_out != nullptr && k == *leave_out) continue;
    rw.emplace_back(lookup(r.fn, k) / mean, mean);
    weight += mean;
  }
  if (rw.empty()) return base_total > 0 ? r.total / base_total : 1;
  std::sort(rw.begin(), rw.end());
  double acc = 0;
  for (const auto& [ratio, w] : rw) {
    acc += w;
    if (acc >= weight / 2) return ratio > 0 ? ratio : 1;
  }
  return 1;
}

struct Welch {
  double diff = 0, se = 0, dof = 1, p = 1;
};

// One-sided: is mean(b) > mean(a)?
Welch welch_greater(const std::vector<double>& a,
                    const std::vector<double>& b) {
  auto moments = [](const std::vector<double>& v, double* mean, double* var) {
    double n = static_cast<double>(v.size());
    *mean = 0;
    for (double x : v) *mean += x / n;
    double ss = 0;
    for (double x : v) ss += (x - *mean) * (x - *mean);
    *var = ss / (n - 1) / n;  // of the mean
  };
  double ma, va, mb, vb;
  moments(a, &ma, &va);
  moments(b, &mb, &vb);
  Welch w;
  w.diff = mb - ma;
  w.se = std::sqrt(va + vb);
  if (!(w.se > 0)) {
    w.p = w.diff > 0 ? 0 : 1;
    return w;
  }
  double na = static_cast<double>(a.size()), nb = static_cast<double>(b.size());
  double denom = va * va / (na - 1) + vb * vb / (nb - 1);
  w.dof = denom > 0 ? (va + vb) * (va + vb) / denom : 1;
  if (!std::isfinite(w.dof) || w.dof < 1) w.dof = 1;
  w.p = 1 - experiments::student_t_cdf(w.diff / w.se, w.dof);
  return w;
}

}  // namespace

RegionCosts region_cost_changes(
    const std::vector<const profile::Profile*>& base_runs,
    const std::vector<const profile::Profile*>& new_runs,
    const std::string& point, profile::PointKind kind, double min_pct,
    double level) {
  std::vector<RunCosts> base, next;
  for (const profile::Profile* p : base_runs)
    if (auto c = costs_of(*p, point, kind)) base.push_back(std::move(*c));
  for (const profile::Profile* p : new_runs)
    if (auto c = costs_of(*p, point, kind)) next.push_back(std::move(*c));
  RegionCosts out;
  out.base_runs = static_cast<int>(base.size());
  out.new_runs = static_cast<int>(next.size());
  if (base.size() < 2 || next.size() < 2) return out;

  std::map<FnKey, double> base_fn = mean_of(base, &RunCosts::fn);
  double base_total = 0;
  for (const RunCosts& r : base) base_total += r.total / double(base.size());
  // Each region is tested on runs normalized by factors it has no vote in;
  // the filter and the naming of lines use factors from every region.
  const std::vector<RunCosts> base_raw = base, next_raw = next;
  for (std::vector<RunCosts>* side : {&base, &next}) {
    for (RunCosts& r : *side) {
      double m = machine_factor(r, base_fn, base_total);
      for (auto& [k, v] : r.fn) v /= m;
      for (auto& [k, v] : r.line) v /= m;
      r.total /= m;
    }
  }
  std::map<FnKey, double> pooled;
  double runs = static_cast<double>(base.size() + next.size());
  for (const std::vector<RunCosts>* side : {&base, &next})
    for (const RunCosts& r : *side)
      for (const auto& [k, v] : r.fn) pooled[k] += v / runs;

  std::vector<RegionCost> tested;
  std::vector<double> p;
  for (const auto& [k, mean] : pooled) {
    if (mean < min_pct / 200.0 * base_total) continue;
    std::vector<double> a, b;
    for (const RunCosts& r : base_raw)
      a.push_back(lookup(r.fn, k) / machine_factor(r, base_fn, base_total, &k));
    for (const RunCosts& r : next_raw)
      b.push_back(lookup(r.fn, k) / machine_factor(r, base_fn, base_total, &k));
    Welch w = welch_greater(a, b);
    RegionCost c;
    c.function = k.first;
    c.file = k.second;
    for (double v : a) c.base_cost += v / double(a.size());
    for (double v : b) c.new_cost += v / double(b.size());
    c.base_total = base_total;
    c.implied_pct = 100 * w.diff / base_total;
    double t = experiments::student_t_quantile(0.5 + level / 2, w.dof);
    c.low_pct = 100 * (w.diff - t * w.se) / base_total;
    c.high_pct = 100 * (w.diff + t * w.se) / base_total;
    c.p = w.p;
    tested.push_back(std::move(c));
    p.push_back(w.p);
  }
  std::vector<double> q = experiments::bh_q_values(p);
  out.tested = static_cast<int>(tested.size());
  std::map<LnKey, double> base_line = mean_of(base, &RunCosts::line);
  std::map<LnKey, double> new_line = mean_of(next, &RunCosts::line);
  for (size_t i = 0; i < tested.size(); ++i) {
    RegionCost& c = tested[i];
    c.q = q[i];
    c.significant = c.q < 1 - level;
    if (!(c.implied_pct > 0)) continue;
    // Name the line of the function whose cost rose most.
    double best = 0;
    for (const auto& [k, v] : new_line) {
      if (std::get<0>(k) != c.function) continue;
      double rise = v - lookup(base_line, k);
      if (rise > best) {
        best = rise;
        c.top_file = std::get<1>(k);
        c.top_line = std::get<2>(k);
      }
    }
    out.rose.push_back(std::move(c));
  }
  std::stable_sort(out.rose.begin(), out.rose.end(),
                   [](const RegionCost& x, const RegionCost& y) {
                     return x.implied_pct > y.implied_pct;
                   });
  return out;
}

}  // namespace andweorc::compare
