// convergence.cc: see convergence.h (rules R1-R6).
#include "planner/convergence.h"

#include <algorithm>
#include <tuple>

#include "planner/fdr.h"

namespace andweorc::planner {
namespace {

// R7's tier of a region key: 1 for a function ("function\t..."), 0 for
// anything else (lines, and the tests' plain names).
int tier(const std::string& region) {
  return region.rfind("function\t", 0) == 0 ? 1 : 0;
}

Half half(const Observation& o) {
  return Half{o.duration_s, o.delay_s, o.cpu_s};
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
  std::optional<Block> block = pairer_.add(index, o);
  if (block) {
    const Observation& prev = last_[o.stream];
    const Observation& base = block->baseline == index ? o : prev;
    const Observation& fast = block->sped_up == index ? o : prev;
    double x = fast.speedup_pct / 100.0;
    ++region_blocks_[o.region];
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

int ConvergenceTracker::blocks(const std::string& region) const {
  auto it = region_blocks_.find(region);
  return it == region_blocks_.end() ? 0 : it->second;
}

void ConvergenceTracker::update() {
  const ConvergenceOptions& opt = options_;
  ConvergenceStatus s;
  s.experiments = experiments_;
  for (const auto& [region, n] : region_blocks_) s.blocks += n;
  region_in_play_.clear();
  region_significant_.clear();
  region_implausible_.clear();
  for (const auto& [region, n] : region_blocks_)
    region_in_play_[region] = false;
  bool all_flat = true, all_settled = true, any_point = false;
  int primary_blocks = -1;
  for (auto& [key, ps] : points_) {
    if (ps.blocks == 0) continue;
    any_point = true;
    std::map<std::string, SlopeEstimate> est;
    for (const auto& [region, acc] : ps.regions)
      est[region] = acc.estimate(opt.level);
    auto judged = [&](const SlopeEstimate& e) {
      return e.valid && e.blocks >= opt.min_blocks;  // R1
    };
    // R3's plausibility: the interval lies wholly above the bound.
    std::map<std::string, bool> implausible;
    for (const auto& [region, e] : est) {
      auto b = ps.bounds.find(region);
      if (!judged(e) || b == ps.bounds.end()) continue;
      // The thread count is not known here: no hand-over cap (the report's
      // bound, with it, can only be tighter).
      BoundAccumulator::Bound bound = b->second.bound(opt.level, 0);
      if (bound.judged && e.low > bound.high) {
        implausible[region] = true;
        region_implausible_[region] = true;
      }
    }
    // R2's "significant": above 0 and a Benjamini-Hochberg q-value <=
    // 1 - level among the point's judged regions (the report's rule,
    // experiments/ranking.h).
    std::vector<const std::string*> tested;
    std::vector<double> p;
    for (const auto& [region, e] : est) {
      if (!judged(e)) continue;
      tested.push_back(&region);
      p.push_back(two_sided_p(e.slope, e.se, e.blocks - 1));
    }
    std::vector<double> q = bh_q_values(p);
    std::map<std::string, bool> sig;
    std::map<std::string, double> q_of;
    for (size_t i = 0; i < tested.size(); ++i) {
      const SlopeEstimate& e = est[*tested[i]];
      sig[*tested[i]] =
          e.low > 0 && q[i] <= 1 - opt.level && !implausible[*tested[i]];
      q_of[*tested[i]] = q[i];
      if (sig[*tested[i]]) region_significant_[*tested[i]] = true;
    }
    // R2-R5 per tier (R7): a function and the lines inside it are not
    // rivals (the function's impact holds its lines'), so each tier has its
    // own leader, and a line leaves play only against lines.
    std::map<int, std::vector<const std::string*>> tiers;
    for (const auto& [region, e] : est) tiers[tier(region)].push_back(&region);
    bool point_flat = true;
    bool shown_significant = false;
    std::map<int, bool> tier_settled, tier_spread;
    for (auto& [t, regions] : tiers) {
      // R2: significant first, then by impact; ties by name (map order).
      const std::string* leader = nullptr;
      for (const std::string* region : regions) {
        const SlopeEstimate& e = est[*region];
        if (!judged(e) || implausible[*region]) continue;
        if (leader == nullptr) {
          leader = region;
          continue;
        }
        const SlopeEstimate& l = est[*leader];
        if (std::make_tuple(sig[*region], e.slope) >
            std::make_tuple(sig[*leader], l.slope))
          leader = region;
      }
      std::string leader_name = leader ? *leader : std::string();
      TierLeader& tl = ps.leaders[t];
      if (leader_name != tl.name) {
        tl.name = leader_name;
        tl.since = experiments_;
      }
      const SlopeEstimate* lead = leader ? &est[*leader] : nullptr;
      bool significant = lead != nullptr && sig[leader_name];
      bool flat = true, resolved = true, spread = !significant;
      for (const std::string* region : regions) {
        const SlopeEstimate& e = est[*region];
        bool j = judged(e);
        bool below_useful = j && e.high < opt.useful_impact;
        bool below_leader =
            j && significant && *region != leader_name && e.high < lead->low;
        bool playing = !j || !(below_useful || below_leader ||
                               implausible[*region]);  // R3
        if (playing) region_in_play_[*region] = true;
        if (!below_useful) flat = false;  // R5
        if (playing && e.blocks < opt.spread_blocks) spread = false;
        if (playing && *region != leader_name) {
          bool tie = j && lead != nullptr &&
                     (e.high - e.low) / 2 <= opt.tie_half_width &&
                     (lead->high - lead->low) / 2 <= opt.tie_half_width;
          if (!tie) resolved = false;
        }
      }
      bool stable = significant && resolved &&
                    experiments_ - tl.since >= opt.stable_experiments;
      point_flat = point_flat && flat;
      tier_settled[t] = flat || stable;
      tier_spread[t] = spread;
      // The status shows the finest tier with a significant leader, else
      // the coarsest tier with any (tiers go from fine to coarse).
      bool show = ps.blocks > primary_blocks ||
                  (ps.blocks == primary_blocks && leader != nullptr &&
                   !shown_significant && (significant || t > 0));
      if (show) {
        primary_blocks = ps.blocks;
        s.point = key.first;
        s.point_latency = key.second;
        s.leader = leader_name;
        s.leader_estimate = lead ? *lead : SlopeEstimate{};
        s.leader_q = lead ? q_of[leader_name] : 1;
        s.stable_for = leader ? experiments_ - tl.since : 0;
        shown_significant = significant;
      }
    }
    // R8: the lines of a settled function tier that share its effect, none
    // standing out after spread_blocks blocks each, do not hold the answer
    // back (it stays at function granularity).
    bool point_settled = true;
    for (const auto& [t, settled] : tier_settled) {
      bool spread_below = t == 0 && tier_settled.size() > 1 && tier_spread[0] &&
                          tier_settled.rbegin()->second;
      point_settled = point_settled && (settled || spread_below);
    }
    all_flat = all_flat && point_flat;
    all_settled = all_settled && (point_flat || point_settled);  // R6
  }
  s.regions = int(region_blocks_.size());
  for (const auto& [region, playing] : region_in_play_) s.in_play += playing;
  if (any_point && all_flat)
    s.state = ConvergenceState::kFlat;
  else if (any_point && all_settled)
    s.state = ConvergenceState::kStable;
  status_ = s;
}

}  // namespace andweorc::planner
