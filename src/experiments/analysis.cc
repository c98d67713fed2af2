// analysis.cc: from experiments to per-line impact estimates.
//
// Decisions (also in docs/causal-analysis.md):
//  - Weights are the experiments' virtual durations. The noise of one
//    experiment's measurement shrinks with its length: a count of visits
//    over a window of length d has a relative error of about 1/sqrt(visits)
//    and visits grow with d, and longer windows also average out program
//    phases. Weighting by visits instead would be biased: visits are the
//    outcome, so faster experiments would count more. The duration is chosen
//    by the runtime before the experiment's outcome is known.
//  - Baseline: a line with enough 0% experiments of its own is compared with
//    them (they anchor x = 0 and give the reference period / latency). The
//    runtime picks the line to speed up from recent samples, so a line's
//    experiments cluster in the program phases where it runs, and its own
//    0% experiments ran in the same phases: comparing with them removes the
//    phase from the estimate. A line with too few falls back to the pooled
//    0% experiments of the whole run (any 0% experiment measures the
//    undelayed program, so each is a valid observation at x = 0). Either
//    way the intercept is estimated, not forced to 0: it absorbs the
//    baseline's own noise instead of tilting the slope.
//  - Paired blocks replace both when a line has enough of them: each
//    block's baseline ran just before or after its sped-up half, so a drift
//    of the program slower than a block cancels in the block's difference,
//    which neither a pooled nor a per-line baseline can do.
#include "experiments/analysis.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <tuple>
#include <utility>

#include "experiments/convergence_summary.h"
#include "experiments/measures.h"
#include "experiments/observations.h"
#include "experiments/plausibility.h"
#include "experiments/ranking.h"
#include "planner/paired_blocks.h"
#include "profile/attribution.h"
#include "statistics/statistics.h"

namespace andweorc::experiments {
namespace {

using profile::Experiment;
using profile::PointDelta;
using profile::PointKind;
using profile::Profile;

// Experiments of one selected line (or function).
struct Group {
  std::string file;
  int line = 0;
  std::string function;
  std::string granularity;
  std::vector<const Experiment*> experiments;
};

std::vector<Group> group_experiments(const Profile& p) {
  // Functions are keyed by (function, file); lines by (file, line).
  std::map<std::tuple<std::string, std::string, std::string, int>, Group>
      groups;
  for (const Experiment& e : p.experiments) {
    bool by_function = e.granularity == "function";
    auto key =
        by_function
            ? std::make_tuple(e.granularity, e.function, e.file, 0)
            : std::make_tuple(e.granularity, e.file, std::string(), e.line);
    Group& g = groups[key];
    if (g.experiments.empty()) {
      g.file = e.file;
      g.line = e.line;
      g.function = e.function;
      g.granularity = e.granularity;
    }
    if (by_function && e.line > 0 && (g.line == 0 || e.line < g.line)) {
      g.line = e.line;
    }
    if (g.function.empty()) g.function = e.function;
    g.experiments.push_back(&e);
  }
  std::vector<Group> out;
  for (auto& [key, g] : groups) out.push_back(std::move(g));
  return out;
}

// The paired estimate of a line from its blocks; false when it has fewer
// than min_paired_blocks usable ones for the point.
bool analyze_paired(const std::vector<planner::Block>& blocks,
                    const PointKey& key, const Profile& p,
                    const AnalysisOptions& options, LineImpact* m) {
  planner::PointCount point;
  point.name = key.first;
  point.latency = key.second != PointKind::kThroughput;
  planner::SlopeAccumulator acc;
  std::vector<FitPoint> fast, zeros;
  std::vector<Measure> zero_measures;
  std::set<int> levels;
  for (const planner::Block& b : blocks) {
    const Experiment& e0 = p.experiments[b.baseline];
    const Experiment& es = p.experiments[b.sped_up];
    std::optional<double> y =
        planner::block_speedup(to_observation(e0), to_observation(es), point);
    std::optional<Measure> m0 = measure(e0, key);
    if (!y || !m0) continue;
    double x = es.speedup_pct / 100.0;
    acc.add(x, *y, std::min(e0.virtual_duration_s(), es.virtual_duration_s()));
    levels.insert(es.speedup_pct);
    fast.push_back({b.sped_up, x, *y, es.virtual_duration_s(), b.baseline});
    zeros.push_back({b.baseline, 0, 0, m0->weight});
    zero_measures.push_back(*m0);
  }
  if (acc.blocks() < options.min_paired_blocks) return false;
  double reference = pooled_baseline(zero_measures, key.second);
  for (size_t i = 0; i < zeros.size(); ++i)
    zeros[i].y =
        reference > 0 ? (reference - zero_measures[i].value) / reference : 0;
  m->points = zeros;
  m->points.insert(m->points.end(), fast.begin(), fast.end());
  planner::SlopeEstimate est = acc.estimate(options.level);
  m->design = "paired";
  m->own_baseline = true;
  m->speedup_experiments = acc.blocks();
  m->baseline_experiments = acc.blocks();
  m->speedup_levels = static_cast<int>(levels.size());
  m->experiments = 2 * acc.blocks();
  if (est.valid) {
    m->fitted = true;
    m->slope = est.slope;
    m->intercept = 0;
    m->slope_se = est.se;
    m->ci_low = est.low;
    m->ci_high = est.high;
    m->r2 = est.r2;
    m->dof = acc.blocks() - 1;
  }
  return true;
}

LineImpact analyze_group(const Group& g, const PointKey& key,
                         const std::vector<Measure>& pooled_zeros,
                         double baseline, const Profile& p,
                         const std::vector<planner::Block>& blocks,
                         const AnalysisOptions& options) {
  const Experiment* experiments_begin = p.experiments.data();
  LineImpact m;
  m.point = key.first;
  m.kind = key.second;
  m.file = g.file;
  m.line = g.line;
  m.function = g.function;
  m.granularity = g.granularity;
  m.level = options.level;

  std::vector<Measure> own_zeros;
  std::vector<Measure> sped_up;
  for (const Experiment* e : g.experiments) {
    std::optional<Measure> mm = measure(*e, key);
    if (!mm) continue;
    (e->speedup_pct == 0 ? own_zeros : sped_up).push_back(*mm);
  }
  bool reached = !own_zeros.empty() || !sped_up.empty();
  bool sampled = std::any_of(sped_up.begin(), sped_up.end(), [](const auto& s) {
    return s.e->selected_samples > 0;
  });
  if (analyze_paired(blocks, key, p, options, &m)) {
    classify(&m, options.min_speedup_experiments, reached, sampled);
    return m;
  }
  m.own_baseline =
      static_cast<int>(own_zeros.size()) >= options.min_own_baseline;
  const std::vector<Measure>& zeros = m.own_baseline ? own_zeros : pooled_zeros;

  std::set<int> levels;
  for (const Measure& s : sped_up) levels.insert(s.e->speedup_pct);
  m.speedup_experiments = static_cast<int>(sped_up.size());
  m.speedup_levels = static_cast<int>(levels.size());
  m.baseline_experiments = static_cast<int>(zeros.size());

  // The reference: the line's own 0% experiments, pooled the same way.
  double reference =
      m.own_baseline ? pooled_baseline(own_zeros, key.second) : baseline;
  if (reference > 0) {
    std::vector<double> x, y, w;
    const std::vector<Measure>* sets[] = {&zeros, &sped_up};
    for (const std::vector<Measure>* set : sets) {
      for (const Measure& s : *set) {
        x.push_back(s.x);
        y.push_back((reference - s.value) / reference);
        w.push_back(s.weight);
        m.points.push_back({static_cast<size_t>(s.e - experiments_begin),
                            x.back(), y.back(), w.back()});
      }
    }
    LineFit fit = fit_line(x, y, w);
    if (fit.valid) m.experiments = fit.n;
    if (fit.valid) {
      Interval ci = slope_interval(fit, options.level);
      m.fitted = true;
      m.slope = fit.slope;
      m.intercept = fit.intercept;
      m.slope_se = fit.slope_se;
      m.ci_low = ci.low;
      m.ci_high = ci.high;
      m.r2 = fit.r2;
      m.dof = fit.dof();
    }
  }
  if (!m.fitted) m.experiments = static_cast<int>(g.experiments.size());
  classify(&m, options.min_speedup_experiments, reached, sampled);
  return m;
}

std::string point_label(const PointKey& key) {
  return fmt::format(
      "{} point \"{}\"",
      key.second == PointKind::kThroughput ? "throughput" : "latency",
      key.first);
}

void run_notes(const Profile& p, const std::vector<PointKey>& keys,
               Analysis* a) {
  if (p.experiments.empty()) {
    if (profile::attribute(p).in_scope == 0) {
      a->notes.push_back(
          "No experiment ran: no samples in scope, so there was no line to "
          "speed up. Check --binary-scope and --source-scope, and build with "
          "-g.");
    } else {
      a->notes.push_back(
          "No experiment finished: not enough data: run longer (or on a "
          "larger input).");
    }
    return;
  }
  if (keys.empty()) {
    a->notes.push_back(
        "The experiments recorded no progress point, so nothing can be "
        "measured. Mark finished work with ANDWEORC_PROGRESS(\"name\").");
  }
  size_t no_time = 0;
  for (const Experiment& e : p.experiments) {
    if (!(e.virtual_duration_s() > 0)) ++no_time;
  }
  if (no_time > 0) {
    a->notes.push_back(fmt::format(
        "{} of {} experiments were left out: their delays took all of their "
        "time.",
        no_time, p.experiments.size()));
  }
}

// A point whose rate moves far more between experiments at 0% than any
// region's effect (LevelDB's write stalls: 45% of its 50 ms experiments ran
// at ~1% of the median rate, a coefficient of variation of 1.04 where zstd
// and memcached have 0.2) leaves every interval wide however the
// experiments are planned; the report says so instead of only "run longer".
std::string unsteady_note(const std::vector<Measure>& zeros,
                          const PointKey& key) {
  if (zeros.size() < 10) return "";
  std::vector<double> r;  // rate (throughput) or latency
  for (const Measure& m : zeros)
    if (m.value > 0)
      r.push_back(key.second == PointKind::kThroughput ? 1 / m.value : m.value);
  if (r.size() < 10) return "";
  double mean = 0, sq = 0;
  for (double v : r) mean += v;
  mean /= double(r.size());
  for (double v : r) sq += (v - mean) * (v - mean);
  double cv = std::sqrt(sq / double(r.size())) / mean;
  if (!(cv >= kUnsteadyCv)) return "";
  std::vector<double> sorted = r;
  std::nth_element(sorted.begin(), sorted.begin() + long(sorted.size() / 2),
                   sorted.end());
  double median = sorted[sorted.size() / 2];
  size_t low = 0;
  for (double v : r)
    low += key.second == PointKind::kThroughput ? v < median / 10
                                                : v > median * 10;
  std::string stalls =
      low * 20 >= r.size()
          ? fmt::format(" ({:.0f}% of them {}: stalls or phases)",
                        100.0 * double(low) / double(r.size()),
                        key.second == PointKind::kThroughput
                            ? "ran at under a tenth of the median rate"
                            : "had over ten times the median latency")
          : "";
  return fmt::format(
      "The {}'s {} varies by {:.0f}% (coefficient of variation) between the "
      "{} experiments at 0%{}: the program itself moves more than most "
      "regions' effects, so intervals narrow only slowly (as one over the "
      "square root of the run's length). Run much longer, or count progress "
      "where work completes steadily.",
      point_label(key),
      key.second == PointKind::kThroughput ? "rate" : "latency", 100 * cv,
      r.size(), stalls);
}

}  // namespace

Analysis analyze(const Profile& p, const AnalysisOptions& options) {
  Analysis a;
  a.level = options.level;
  a.min_speedup_experiments = options.min_speedup_experiments;
  std::set<PointKey> key_set;
  for (const Experiment& e : p.experiments) {
    for (const PointDelta& d : e.points) key_set.insert({d.name, d.kind});
  }
  std::vector<PointKey> keys(key_set.begin(), key_set.end());
  run_notes(p, keys, &a);
  a.convergence = convergence_text(p.convergence);
  std::vector<Group> groups = group_experiments(p);
  // Blocks of each region, in profile order (each process's records are in
  // time order).
  std::map<std::string, std::vector<planner::Block>> blocks;
  planner::BlockPairer pairer;
  for (size_t i = 0; i < p.experiments.size(); ++i) {
    planner::Observation o = to_observation(p.experiments[i]);
    if (std::optional<planner::Block> b = pairer.add(i, o))
      blocks[o.region].push_back(*b);
  }
  const std::vector<planner::Block> no_blocks;
  const bool delays = records_delays(p);

  for (const PointKey& key : keys) {
    PointSummary s;
    s.name = key.first;
    s.kind = key.second;
    std::vector<Measure> pooled_zeros;
    for (const Experiment& e : p.experiments) {
      if (find_delta(e, key) != nullptr) ++s.experiments;
      std::optional<Measure> m = measure(e, key);
      if (!m) continue;
      ++s.reached;
      if (e.speedup_pct == 0) pooled_zeros.push_back(*m);
    }
    s.baseline = pooled_baseline(pooled_zeros, key.second);
    s.baseline_experiments =
        s.baseline > 0 ? static_cast<int>(pooled_zeros.size()) : 0;
    if (s.reached == 0) {
      a.notes.push_back(fmt::format(
          "The {} was never reached during an experiment: check that the "
          "code with the point runs while the program is profiled.",
          point_label(key)));
    } else if (s.baseline <= 0) {
      a.notes.push_back(fmt::format(
          "The {} has no baseline (no experiment at 0% speed-up measured "
          "it), so no impact can be estimated: not enough data: run longer.",
          point_label(key)));
    } else if (std::string n = unsteady_note(pooled_zeros, key); !n.empty()) {
      a.notes.push_back(n);
    }
    std::vector<LineImpact> impacts;
    for (const Group& g : groups) {
      auto it = blocks.find(region_key(*g.experiments.front()));
      impacts.push_back(
          analyze_group(g, key, pooled_zeros, s.baseline, p,
                        it == blocks.end() ? no_blocks : it->second, options));
    }
    if (delays) {
      for (LineImpact& m : impacts)
        judge_plausibility(
            plausibility_bound(p, m.points, options.level, p.threads), &m);
    }
    control_fdr(&impacts);
    rank_impacts(&impacts);
    for (LineImpact& m : impacts) a.impacts.push_back(std::move(m));
    a.points.push_back(std::move(s));
  }
  return a;
}

Prediction predict(const LineImpact& impact, double line_speedup) {
  Prediction r;
  r.line_speedup = line_speedup;
  if (!impact.fitted) return r;
  r.valid = true;
  // slope * s; the interval of slope * s is the slope's, scaled by s.
  r.value = impact.slope * line_speedup;
  double a = impact.ci_low * line_speedup;
  double b = impact.ci_high * line_speedup;
  r.low = std::min(a, b);
  r.high = std::max(a, b);
  return r;
}

}  // namespace andweorc::experiments
