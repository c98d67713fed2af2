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
  double total = 0;   // CPU seconds per visit
  double sample = 0;  // what one sample adds to a cost per visit
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
  r.sample = per;
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

// The weight of each region's vote on the machine factor (region_cost.h,
// step 2): 1 / the variance of log(c_r(g) / BASE's mean c(g)) between the
// runs of each side (pooled over the two sides, so a shift between the
// sides, which is what a regression is, does not count), at least the
// Poisson variance of its sample count. A region whose cost moves on its
// own between runs of one binary (memcached's sendmsg: 3.4 or 0.3 us per
// request, run by run) then has little say, however much of the cost it
// carries; a steady one speaks for the machine.
using Weights = std::map<FnKey, double>;
Weights vote_weights(const std::vector<RunCosts>& base,
                     const std::vector<RunCosts>& next,
                     const std::map<FnKey, double>& base_mean,
                     double base_total) {
  Weights w;
  for (const auto& [k, mean] : base_mean) {
    if (!(mean > 0) || mean < kFactorMinShare * base_total) continue;
    double ss = 0, poisson = 0;
    int runs = 0, dof = 0;
    for (const std::vector<RunCosts>* side : {&base, &next}) {
      std::vector<double> x;
      for (const RunCosts& r : *side) {
        // A run without a sample of it counts half a sample (log of 0).
        double c = std::max(lookup(r.fn, k), r.sample / 2);
        x.push_back(std::log(c / mean));
        poisson += r.sample / c;
        ++runs;
      }
      if (x.size() < 2) continue;
      double m = 0;
      for (double v : x) m += v / static_cast<double>(x.size());
      for (double v : x) ss += (v - m) * (v - m);
      dof += static_cast<int>(x.size()) - 1;
    }
    double var = dof > 0 ? ss / dof : 0;
    w[k] = 1 / std::max(var, poisson / runs);
  }
  return w;
}

// Weighted median of cost ratios against BASE over the voting regions,
// without `leave_out` (the region under test, so that a region carrying
// half the cost cannot drag the median with its own regression).
double machine_factor(const RunCosts& r, const std::map<FnKey, double>& base,
                      const Weights& weights, double base_total,
                      const FnKey* leave_out = nullptr) {
  std::vector<std::pair<double, double>> rw;  // ratio, weight
  double weight = 0;
  for (const auto& [k, w] : weights) {
    if (leave_out != nullptr && k == *leave_out) continue;
    rw.emplace_back(lookup(r.fn, k) / lookup(base, k), w);
    weight += w;
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
  w.dof = experiments::welch_dof(va, na - 1, vb, nb - 1);
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
  const Weights weights = vote_weights(base, next, base_fn, base_total);
  // The filter uses factors every voting region has a say in; each region is
  // tested, and its line named, on runs normalized by factors it has no
  // vote in.
  std::map<FnKey, double> pooled;
  double runs = static_cast<double>(base.size() + next.size());
  for (const std::vector<RunCosts>* side : {&base, &next})
    for (const RunCosts& r : *side) {
      double m = machine_factor(r, base_fn, weights, base_total);
      for (const auto& [k, v] : r.fn) pooled[k] += v / m / runs;
    }

  std::vector<RegionCost> tested;
  std::vector<double> p;
  std::vector<std::pair<std::vector<double>, std::vector<double>>> factors;
  for (const auto& [k, mean] : pooled) {
    if (mean < min_pct / 200.0 * base_total) continue;
    std::vector<double> fa, fb, a, b;
    for (const RunCosts& r : base) {
      fa.push_back(machine_factor(r, base_fn, weights, base_total, &k));
      a.push_back(lookup(r.fn, k) / fa.back());
    }
    for (const RunCosts& r : next) {
      fb.push_back(machine_factor(r, base_fn, weights, base_total, &k));
      b.push_back(lookup(r.fn, k) / fb.back());
    }
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
    factors.emplace_back(std::move(fa), std::move(fb));
    p.push_back(w.p);
  }
  std::vector<double> q = experiments::bh_q_values(p);
  out.tested = static_cast<int>(tested.size());
  for (size_t i = 0; i < tested.size(); ++i) {
    RegionCost& c = tested[i];
    c.q = q[i];
    c.significant = c.q < 1 - level;
    if (!(c.implied_pct > 0)) continue;
    // Name the line of the function whose cost rose most, normalized as the
    // function was tested: with factors every region voted in, a region
    // with most of the cost would be its own machine and no line would rise.
    std::map<LnKey, double> base_line, new_line;
    auto add = [&](const std::vector<RunCosts>& side,
                   const std::vector<double>& f, std::map<LnKey, double>* m) {
      for (size_t r = 0; r < side.size(); ++r)
        for (const auto& [k, v] : side[r].line)
          if (std::get<0>(k) == c.function && std::get<1>(k) == c.file)
            (*m)[k] += v / f[r] / static_cast<double>(side.size());
    };
    add(base, factors[i].first, &base_line);
    add(next, factors[i].second, &new_line);
    double best = 0;
    for (const auto& [k, v] : new_line) {
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
