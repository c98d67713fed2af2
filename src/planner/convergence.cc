// convergence.cc: see convergence.h (rules R1-R6).
#include "planner/convergence.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <tuple>

#include "planner/fdr.h"
#include "planner/region_key.h"
#include "statistics/statistics.h"

namespace andweorc::planner {
namespace {

// R7's tier of a region key: 1 for a function ("function\t..."), 0 for
// anything else (lines, and the tests' plain names).
int tier(const std::string& region) {
  return is_function_region_key(region) ? 1 : 0;
}

Half half(const Observation& o) {
  return Half{o.duration_s, o.delay_s, o.cpu_s};
}

// R2's order, the report's: significant first, then by impact (larger
// keys rank first).
std::tuple<bool, double> rank_key(bool significant, const SlopeEstimate& e) {
  return {significant, e.slope};
}

// The report's ranking of a point's judged, plausible regions, both tiers
// together (R2's order).
std::vector<std::string> rank_order(
    const std::map<std::string, SlopeEstimate>& est,
    const std::map<std::string, bool>& implausible,
    const std::map<std::string, bool>& significant, int min_blocks) {
  auto flag = [](const std::map<std::string, bool>& m, const std::string& r) {
    auto it = m.find(r);
    return it != m.end() && it->second;
  };
  std::vector<std::string> order;
  for (const auto& [region, e] : est)
    if (e.valid && e.blocks >= min_blocks && !flag(implausible, region))
      order.push_back(region);
  std::stable_sort(order.begin(), order.end(),
                   [&](const auto& a, const auto& b) {
                     return rank_key(flag(significant, a), est.at(a)) >
                            rank_key(flag(significant, b), est.at(b));
                   });
  return order;
}

// P13 (see rank_contenders()): the first `depth` of `order` and, when its
// interval reaches the lowest lower bound among them, the region after
// them with the highest upper bound; those with fewer than kTrustedBlocks
// blocks first (fewest first), then the widest interval first.
constexpr int kTrustedBlocks = 8;

std::vector<std::string> boundary_contenders(
    const std::vector<std::string>& order,
    const std::map<std::string, SlopeEstimate>& est, int depth) {
  if (depth <= 0 || order.empty()) return {};
  const auto inside_end =
      order.begin() + std::min<long>(depth, long(order.size()));
  std::vector<std::string> out(order.begin(), inside_end);
  if (inside_end != order.end()) {
    double lowest = HUGE_VAL;
    for (const std::string& r : out) lowest = std::min(lowest, est.at(r).low);
    auto outside = std::max_element(inside_end, order.end(),
                                    [&](const auto& a, const auto& b) {
                                      return est.at(a).high < est.at(b).high;
                                    });
    if (est.at(*outside).high >= lowest) out.push_back(*outside);
  }
  // Regions with few blocks first, fewest first: an interval from 3 or 4
  // blocks can be narrow by chance or by one phase of the program (zstd:
  // ZSTD_encodeSequences_bmi2's 4 blocks gave 0.412 [0.397, 0.427], two of
  // them early in the run with 31 visits in every half whatever the
  // delays) and would never be the widest.
  std::stable_sort(out.begin(), out.end(), [&](const auto& a, const auto& b) {
    const SlopeEstimate& x = est.at(a);
    const SlopeEstimate& y = est.at(b);
    const bool few_x = x.blocks < kTrustedBlocks;
    const bool few_y = y.blocks < kTrustedBlocks;
    if (few_x != few_y) return few_x;
    if (few_x) return x.blocks < y.blocks;
    return x.high - x.low > y.high - y.low;
  });
  return out;
}

}  // namespace

const char* state_name(ConvergenceState s) {
  switch (s) {
    case ConvergenceState::kStable:
      return "stable";
    case ConvergenceState::kFlat:
      return "flat";
    case ConvergenceState::kRunning:
      break;
  }
  return "running";
}

void ConvergenceTracker::add(const Observation& o) {
  size_t index = size_t(experiments_++);
  if (o.virtual_s > 0) elapsed_s_ += o.virtual_s;
  if (!o.parents.empty()) region_parents_[o.region] = o.parents;
  std::optional<Block> block = pairer_.add(index, o);
  if (block) {
    const Observation& prev = last_[o.stream];
    const Observation& base = block->baseline == index ? o : prev;
    const Observation& fast = block->sped_up == index ? o : prev;
    double x = fast.speedup_pct / 100.0;
    RegionBlocks& rb = region_blocks_[o.region];
    ++rb.count;
    rb.information += x * x;
    for (const PointCount& p : fast.points) {
      std::optional<double> y = block_speedup(base, fast, p);
      if (!y) continue;
      PointState& ps = points_[{p.name, p.latency}];
      double w = std::min(base.virtual_s, fast.virtual_s);
      ps.regions[o.region].add(x, *y, w);
      ps.bounds[o.region].add(x, w, half(base), half(fast));
      ++ps.blocks;
    }
  }
  last_[o.stream] = o;
  update();
}

bool ConvergenceTracker::in_play(const std::string& region) const {
  auto it = region_in_play_.find(region);
  return it == region_in_play_.end() || it->second;
}

bool ConvergenceTracker::significant(const std::string& region) const {
  auto it = region_significant_.find(region);
  return it != region_significant_.end() && it->second;
}

bool ConvergenceTracker::implausible(const std::string& region) const {
  auto it = region_implausible_.find(region);
  return it != region_implausible_.end() && it->second;
}

double ConvergenceTracker::leader_weight(const std::string& region) const {
  auto it = region_leader_weight_.find(region);
  return it == region_leader_weight_.end() ? 1.0 : it->second;
}

bool ConvergenceTracker::spent(const std::string& region) const {
  auto it = region_blocks_.find(region);
  if (it == region_blocks_.end()) return false;
  // A hair below, so that the sum of the very squares R8 was set with
  // (8 blocks of 25, 50, 75%) counts as reaching it.
  return it->second.count >= options_.spread_blocks ||
         it->second.information >= options_.spread_information - 1e-9;
}

int ConvergenceTracker::blocks(const std::string& region) const {
  auto it = region_blocks_.find(region);
  return it == region_blocks_.end() ? 0 : it->second.count;
}

void ConvergenceTracker::update() {
  const ConvergenceOptions& opt = options_;
  ConvergenceStatus s;
  s.experiments = experiments_;
  for (const auto& [region, rb] : region_blocks_) s.blocks += rb.count;
  region_in_play_.clear();
  region_significant_.clear();
  region_implausible_.clear();
  region_leader_weight_.clear();
  functions_settled_ = true;
  line_leader_significant_ = false;
  for (const auto& [region, n] : region_blocks_)
    region_in_play_[region] = false;
  auto judged = [&](const SlopeEstimate& e) {
    return e.valid && e.blocks >= opt.min_blocks;  // R1
  };
  // R3's "below the leader": the intervals do not overlap or, with
  // eliminate_by_difference, the difference is significant (Welch: its
  // standard error, and the Welch-Satterthwaite degrees of freedom).
  auto below = [&](const SlopeEstimate& e, const SlopeEstimate& lead) {
    if (e.high < lead.low) return true;
    if (!opt.eliminate_by_difference) return false;
    auto as_estimated = [](const SlopeEstimate& s) {
      return experiments::Estimated{s.slope, s.se, double(s.blocks - 1)};
    };
    return experiments::significantly_greater(as_estimated(lead),
                                              as_estimated(e), opt.level);
  };

  // Pass 1, per point: estimates, R3's plausibility, R2's significance.
  struct PointEval {
    const PointKey* key;
    PointState* ps;
    std::map<std::string, SlopeEstimate> est;
    std::map<std::string, bool> implausible, sig;
    std::map<std::string, double> q_of;
    std::map<int, std::vector<const std::string*>> tiers;  // R7
  };
  std::vector<PointEval> evals;
  evals.reserve(points_.size());  // `tiers` points into each `est`
  for (auto& [key, ps] : points_) {
    if (ps.blocks == 0) continue;
    PointEval& pe =
        evals.emplace_back(PointEval{&key, &ps, {}, {}, {}, {}, {}});
    for (const auto& [region, acc] : ps.regions)
      pe.est[region] = acc.estimate(opt.level);
    // R3's plausibility: the interval lies wholly above the bound.
    for (const auto& [region, e] : pe.est) {
      auto b = ps.bounds.find(region);
      if (!judged(e) || b == ps.bounds.end()) continue;
      // The thread count is not known here: no hand-over cap (the report's
      // bound, with it, can only be tighter).
      BoundAccumulator::Bound bound = b->second.bound(opt.level, 0);
      if (bound.judged && e.low > bound.high) {
        pe.implausible[region] = true;
        region_implausible_[region] = true;
      }
    }
    // R2's "significant": above 0 and a Benjamini-Hochberg q-value <=
    // 1 - level among the point's judged regions (the report's rule,
    // experiments/ranking.h).
    std::vector<const std::string*> tested;
    std::vector<double> p;
    for (const auto& [region, e] : pe.est) {
      if (!judged(e)) continue;
      tested.push_back(&region);
      p.push_back(two_sided_p(e.slope, e.se, e.blocks - 1));
    }
    std::vector<double> q = bh_q_values(p);
    for (size_t i = 0; i < tested.size(); ++i) {
      const std::string& region = *tested[i];
      const SlopeEstimate& e = pe.est[region];
      bool sig = e.low > 0 && q[i] <= 1 - opt.level && !pe.implausible[region];
      pe.sig[region] = sig;
      pe.q_of[region] = q[i];
      if (sig) region_significant_[region] = true;
    }
    for (const auto& [region, e] : pe.est)
      pe.tiers[tier(region)].push_back(&region);
  }

  // Pass 2, per tier from coarse to fine, so that R3's parent rule sees the
  // final state of the functions (in play for some point) before their
  // lines: R2-R5 per tier (R7): a function and the lines inside it are not
  // rivals (the function's impact holds its lines'), so each tier has its
  // own leader, and a line leaves play only against lines, or with its
  // functions.
  struct TierEval {
    std::string leader;
    bool significant = false, flat = true, settled = false, spread = false;
  };
  std::vector<std::map<int, TierEval>> tier_evals(evals.size());
  std::set<int> tier_ids;
  for (const PointEval& pe : evals)
    for (const auto& [t, regions] : pe.tiers) tier_ids.insert(t);
  for (auto t_it = tier_ids.rbegin(); t_it != tier_ids.rend(); ++t_it) {
    const int t = *t_it;
    // R3, parents: a region whose parents were recorded leaves play when
    // none of them is significant and in play (P6's condition for planning
    // it), unless it is significant itself: a function that cannot matter
    // holds lines that cannot either, and such a line gets no more blocks,
    // so in play it would keep the answer from settling for good (an nginx
    // tree's http_load lines, judged with intervals of +-0.8 and +-2.2,
    // below functions that left play).
    std::set<std::string> orphans;
    for (const auto& [region, parents] : region_parents_) {
      if (tier(region) != t || significant(region)) continue;
      bool open = std::any_of(
          parents.begin(), parents.end(),
          [&](const std::string& p) { return significant(p) && in_play(p); });
      if (!open) orphans.insert(region);
    }
    for (size_t i = 0; i < evals.size(); ++i) {
      PointEval& pe = evals[i];
      auto regions_it = pe.tiers.find(t);
      if (regions_it == pe.tiers.end()) continue;
      const std::vector<const std::string*>& regions = regions_it->second;
      // R2: significant first, then by impact; ties by name (map order).
      const std::string* leader = nullptr;
      for (const std::string* region : regions) {
        const SlopeEstimate& e = pe.est[*region];
        if (!judged(e) || pe.implausible[*region]) continue;
        if (leader == nullptr) {
          leader = region;
          continue;
        }
        const SlopeEstimate& l = pe.est[*leader];
        if (rank_key(pe.sig[*region], e) > rank_key(pe.sig[*leader], l))
          leader = region;
      }
      std::string leader_name = leader ? *leader : std::string();
      const SlopeEstimate* lead = leader ? &pe.est[*leader] : nullptr;
      TierEval& te = tier_evals[i][t];
      te.leader = leader_name;
      te.significant = lead != nullptr && pe.sig[leader_name];
      // R4 counts a function's lead from when it became the significant
      // leader: that opens its lines (P6), and they must get their blocks
      // before the answer can stand. Lines open nothing: their lead counts
      // from when they led (counting theirs from significance too cost
      // the known-answer suite 1-2.5 s a workload).
      TierLeader& tl = pe.ps->leaders[t];
      const bool opens_lines = t == 1;
      if (leader_name != tl.name ||
          (opens_lines && te.significant != tl.significant)) {
        tl.name = leader_name;
        tl.significant = te.significant;
        tl.since = experiments_;
        tl.since_s = elapsed_s_;
      }
      bool resolved = true;
      int rivals = 0;  // P10: in play, not the leader, not near 0
      te.spread = true;
      for (const std::string* region : regions) {
        const SlopeEstimate& e = pe.est[*region];
        bool j = judged(e);
        bool below_useful = j && e.high < opt.useful_impact;
        bool below_leader =
            j && te.significant && *region != leader_name && below(e, *lead);
        bool orphan = orphans.count(*region) > 0;
        bool playing = !orphan && (!j || !(below_useful || below_leader ||
                                           pe.implausible[*region]));  // R3
        if (playing) region_in_play_[*region] = true;
        // R5; a line out of play with its functions is below them, and
        // they are in their own tier's test.
        if (!below_useful && !orphan) te.flat = false;
        if (playing && !spent(*region)) te.spread = false;
        if (playing && *region != leader_name) {
          // P10 counts the rivals that the difference test must separate
          // from the leader: one near 0 leaves play by its own interval
          // (below useful_impact), whatever the leader's precision.
          if (j && e.slope >= opt.useful_impact) ++rivals;
          bool tie = j && lead != nullptr &&
                     (e.high - e.low) / 2 <= opt.tie_half_width &&
                     (lead->high - lead->low) / 2 <= opt.tie_half_width;
          if (!tie) resolved = false;
        }
      }
      // P10: the leader is in every rival's comparison (R3's difference),
      // so its standard error is in all of them: it gets sqrt(rivals) as
      // many blocks as each rival (the allocation that minimises the
      // variance of many comparisons with one control).
      if (te.significant && rivals > 1) {
        double& w = region_leader_weight_[leader_name];
        w = std::max(w, std::sqrt(double(rivals)));
      }
      const int led = experiments_ - tl.since;
      const bool led_long_enough =  // R4
          led >= opt.stable_experiments ||
          (led >= opt.stable_min_experiments &&
           elapsed_s_ - tl.since_s >= opt.stable_seconds);
      bool stable = te.significant && resolved && led_long_enough;
      te.settled = te.flat || stable;
      // R8 is for a tier that cannot settle, not for one whose significant
      // leader only has to lead a little longer (R4).
      if (te.significant && resolved) te.spread = false;
    }
  }

  // Pass 3, per point: the status and R6.
  bool all_flat = true, all_settled = true, any_point = false;
  int primary_blocks = -1;
  const PointEval* primary = nullptr;
  for (size_t i = 0; i < evals.size(); ++i) {
    PointEval& pe = evals[i];
    any_point = true;
    const std::map<int, TierEval>& tiers = tier_evals[i];
    // R8: the lines of a settled function tier, every one in play given
    // its budget (spent()) without the tier settling on its own, do not
    // hold the answer back: it is the function.
    bool spread_below = false;
    bool point_flat = true, point_settled = true;
    for (const auto& [t, te] : tiers) {
      bool spread = t == 0 && tiers.size() > 1 && !te.settled && te.spread &&
                    tiers.rbegin()->second.settled;
      spread_below = spread_below || spread;
      point_flat = point_flat && te.flat;
      point_settled = point_settled && (te.settled || spread);
    }
    bool shown_significant = false;
    // The status shows the finest tier with a significant leader, else
    // the coarsest tier with any (tiers go from fine to coarse); a line
    // tier R8 passed over is not the answer.
    for (const auto& [t, te] : tiers) {
      if (t == 0 && spread_below) continue;
      bool has_leader = !te.leader.empty();
      bool show = pe.ps->blocks > primary_blocks ||
                  (pe.ps->blocks == primary_blocks && has_leader &&
                   !shown_significant && (te.significant || t > 0));
      if (!show) continue;
      primary = &pe;
      primary_blocks = pe.ps->blocks;
      s.point = pe.key->first;
      s.point_latency = pe.key->second;
      s.leader = te.leader;
      s.leader_estimate = has_leader ? pe.est[te.leader] : SlopeEstimate{};
      s.leader_q = has_leader ? pe.q_of[te.leader] : 1;
      s.stable_for = has_leader ? experiments_ - pe.ps->leaders[t].since : 0;
      shown_significant = te.significant;
    }
    all_flat = all_flat && point_flat;
    all_settled = all_settled && (point_flat || point_settled);  // R6
    for (const auto& [t, te] : tiers) {
      if (t == 1)
        functions_settled_ = functions_settled_ && (te.settled || point_flat);
      if (t == 0 && te.significant) line_leader_significant_ = true;
    }
  }
  s.regions = int(region_blocks_.size());
  for (const auto& [region, playing] : region_in_play_) s.in_play += playing;
  if (any_point && all_flat)
    s.state = ConvergenceState::kFlat;
  else if (any_point && all_settled)
    s.state = ConvergenceState::kStable;
  status_ = s;
  ranking_.clear();
  rank_contenders_.clear();
  if (primary != nullptr)
    ranking_ = rank_order(primary->est, primary->implausible, primary->sig,
                          options_.min_blocks);
  if (s.state == ConvergenceState::kStable && primary != nullptr)
    rank_contenders_ =
        boundary_contenders(ranking_, primary->est, options_.rank_depth);
}

}  // namespace andweorc::planner
