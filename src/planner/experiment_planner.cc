// experiment_planner.cc: see experiment_planner.h (rules P1-P13).
#include "planner/experiment_planner.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <set>
#include <tuple>

namespace andweorc::planner {
namespace {

constexpr uint64_t kFewVisits = 5;
constexpr double kRateSmoothing = 0.3;  // weight of the newest rate

// P11: the share of an s% half that can be inserted delay, at most (a
// region with all the samples at 100%: the floor stops at 5x).
constexpr double kMostDelayed = 0.8;

// P2's levels are speed-ups in percent, 1..100 (0 is the baseline half).
bool is_level(long s) { return s > 0 && s <= 100; }

}  // namespace

uint64_t shortest_experiment_ns(uint64_t period_ns, uint64_t tick_ns,
                                uint64_t initial_length_ns) {
  uint64_t interval = std::max(period_ns, tick_ns);
  return std::min(initial_length_ns,
                  std::max<uint64_t>(50 * interval, 20000000));
}

std::vector<int> parse_levels(const std::string& text) {
  std::vector<int> out;
  size_t i = 0;
  while (i < text.size()) {
    size_t end = std::min(text.find(',', i), text.size());
    const std::string item = text.substr(i, end - i);
    char* rest = nullptr;
    const long v = std::strtol(item.c_str(), &rest, 10);
    if (!item.empty() && *rest == 0 && is_level(v)) out.push_back(int(v));
    i = end + 1;
  }
  return out;
}

ExperimentPlanner::ExperimentPlanner(PlannerOptions options, uint64_t seed)
    : options_(std::move(options)),
      rng_(seed),
      tracker_(options_.convergence),
      length_ns_(options_.initial_length_ns) {
  options_.levels.erase(
      std::remove_if(options_.levels.begin(), options_.levels.end(),
                     [](int s) { return !is_level(s); }),
      options_.levels.end());
  if (options_.levels.empty()) options_.levels = PlannerOptions{}.levels;
}

std::optional<Plan> ExperimentPlanner::next(
    const std::vector<Candidate>& candidates) {
  if (!pending_.empty()) {  // P1: the rest of the open block or pair
    Plan p = pending_.front();
    pending_.pop_front();
    p.length_ns = pair_length_ns_;
    return p;
  }
  // P3: the most sampled regions with a useful share of the samples, per
  // tier (P6); the total is the top tier's (every sample is in one of its
  // regions).
  uint64_t total = 0;
  for (const Candidate& k : candidates)
    if (k.parents.empty()) total += k.samples;
  if (total == 0) return std::nullopt;
  auto top = [&](bool fine) {
    std::vector<const Candidate*> t;
    for (const Candidate& k : candidates)
      if (k.parents.empty() != fine && k.samples > 0 &&
          double(k.samples) >= options_.min_sample_share * double(total))
        t.push_back(&k);
    std::stable_sort(t.begin(), t.end(), [](const auto* a, const auto* b) {
      return a->samples > b->samples;
    });
    if (t.size() > options_.max_regions) t.resize(options_.max_regions);
    return t;
  };
  std::vector<const Candidate*> c = top(false);
  // P6: the lines of the top-tier candidates that are significant (so
  // judged) and in play.
  std::set<std::string> open;
  for (const Candidate* k : c)
    if (tracker_.significant(k->region) && tracker_.in_play(k->region))
      open.insert(k->region);
  for (const Candidate* k : top(true))
    if (std::any_of(k->parents.begin(), k->parents.end(),
                    [&](const std::string& p) { return open.count(p) > 0; }))
      c.push_back(k);
  // P8: a region started and still in play is finished (out of play or
  // resolved against the leader), whether or not it is a candidate by P3/P6
  // now: nothing else can take it out of play.
  for (const Candidate& k : candidates) {
    if (tracker_.blocks(k.region) > 0 && k.samples > 0 &&
        tracker_.in_play(k.region) &&
        std::find(c.begin(), c.end(), &k) == c.end())
      c.push_back(&k);
  }
  if (c.empty()) return std::nullopt;
  // P4: fewest blocks among those in play (all, when none is).
  bool any_in_play = std::any_of(c.begin(), c.end(), [&](const Candidate* k) {
    return tracker_.in_play(k->region);
  });
  // P9: while the function tier is unsettled and no line stands out, a
  // line that has had R8's budget waits: R8 lets such lines pass once
  // the functions settle, so the functions' blocks decide when that is.
  const bool lines_wait =
      !tracker_.functions_settled() && !tracker_.line_leader_significant();
  auto waits = [&](const Candidate* k) {
    return lines_wait && !k->parents.empty() && tracker_.spent(k->region);
  };
  bool any_ready = std::any_of(c.begin(), c.end(), [&](const Candidate* k) {
    return (!any_in_play || tracker_.in_play(k->region)) && !waits(k);
  });
  // P10: a significant leader's blocks count less (leader_weight).
  auto load = [&](const Candidate* k) {
    double n = given_[k->region];
    return options_.leader_allocation ? n / tracker_.leader_weight(k->region)
                                      : n;
  };
  // P13: once the answer is stable, the blocks sharpen what the report
  // shows first: its first ranks and their challenger, in the order
  // rank_contenders() gives (few blocks, then wide intervals). Before, they
  // went round the regions in play: zstd gave the lines under a function R8
  // had passed over 830 of 932 experiments, while the functions ranked 2 to
  // 4 kept 4 blocks each, and the top 3 of two runs never agreed.
  const Candidate* pick = nullptr;
  for (const std::string& r : tracker_.rank_contenders()) {
    for (const Candidate& k : candidates)
      if (k.region == r && k.samples > 0) pick = &k;
    if (pick != nullptr) break;
  }
  if (pick == nullptr) {
    for (const Candidate* k : c) {  // P4
      if (any_in_play && !tracker_.in_play(k->region)) continue;
      if (any_ready && waits(k)) continue;
      if (pick == nullptr || load(k) < load(pick)) pick = k;
    }
  }
  // P1: two blocks of one region and level, mirrored (0%, s% | s%, 0%).
  // What an s% half leaves behind (a delay still being paid, a queue)
  // falls on the next experiment: in the second block on both halves
  // alike (each follows that region's s% half), in the first on neither
  // (each follows a 0% half), so it cancels in every block whatever the
  // regions; a linear drift cancels too. Blocks in random order let it
  // fall on a 0% half three times in four: the known-answer spin's 0%
  // halves after a sped-up one ran 12-22% faster (docs/causal-analysis.md,
  // "Paired blocks"). `mirrored_pairs` off: one block, random order.
  const bool pairs = options_.mirrored_pairs;
  int n = given_[pick->region];
  given_[pick->region] += pairs ? 2 : 1;
  // P2: a fixed speed-up, else the levels in turn (per pair).
  size_t turn = size_t(pairs ? n / 2 : n);
  int s = options_.fixed_speedup >= 0
              ? options_.fixed_speedup
              : options_.levels[turn % options_.levels.size()];
  // P11: every half of the block as long as its s% half needs to keep
  // min_length_ns of virtual time (same length: the mirrored pair cancels
  // a linear drift only between halves of equal length).
  uint64_t block_floor_ns = 0;
  if (options_.virtual_floor && s > 0) {
    double share = double(pick->samples) / double(total);
    double delayed = std::min(kMostDelayed, s / 100.0 * std::min(share, 1.0));
    block_floor_ns =
        std::min(options_.max_length_ns,
                 uint64_t(double(options_.min_length_ns) / (1.0 - delayed)));
  }
  // P12: a measured pair's length is P5's times the search's multiplier.
  const uint64_t base = std::max(length_ns_, block_floor_ns);
  pair_multiplier_ = 0;
  pair_.clear();
  if (options_.measured_length && pairs && s > 0) {
    const uint64_t most = options_.max_length_ns / std::max<uint64_t>(base, 1);
    pair_multiplier_ = search_.next(int(std::min<uint64_t>(
        std::max<uint64_t>(most, 1), LengthSearch::kMostMultiplier)));
  }
  const uint64_t length =
      std::max(base, std::min(options_.max_length_ns,
                              base * uint64_t(std::max(pair_multiplier_, 1))));
  pair_length_ns_ = length;
  Plan zero{pick->region, 0, length, pick->parents};
  Plan fast{pick->region, s, length, pick->parents};
  if (s == 0) return zero;  // --fixed-speedup 0: no block to pair
  if (pairs) {
    pending_ = {fast, fast, zero};
    return zero;
  }
  bool zero_first = (rng_() & 1) != 0;
  pending_ = {zero_first ? fast : zero};
  return zero_first ? zero : fast;
}

void ExperimentPlanner::set_min_length_ns(uint64_t ns) {
  options_.min_length_ns = std::min(ns, options_.max_length_ns);
  length_ns_ = std::max(length_ns_, options_.min_length_ns);
}

void ExperimentPlanner::record(const Observation& o) {
  tracker_.add(o);
  adapt_length(o);
  measure_pair(o);
}

// P12: a mirrored pair (0%, s% | s%, 0%) measures one slope twice; the
// squared difference of its two blocks' program speed-ups is a sample of
// the noise (twice a block's variance), averaged over the points.
void ExperimentPlanner::measure_pair(const Observation& o) {
  if (pair_multiplier_ == 0) return;
  if (!pair_.empty() && o.region != pair_.front().region) {
    pair_multiplier_ = 0;  // not the plan's pair: measure nothing
    return;
  }
  pair_.push_back(o);
  if (pair_.size() < 4) return;
  double sum = 0;
  int n = 0;
  for (const PointCount& p : pair_[0].points) {
    std::optional<double> y1 = block_speedup(pair_[0], pair_[1], p);
    std::optional<double> y2 = block_speedup(pair_[3], pair_[2], p);
    if (!y1 || !y2) continue;
    sum += (*y1 - *y2) * (*y1 - *y2);
    ++n;
  }
  if (n > 0) search_.add(pair_multiplier_, sum / n);
  pair_multiplier_ = 0;
}

void ExperimentPlanner::adapt_length(const Observation& o) {
  if (!(o.virtual_s > 0)) return;
  bool few = false;
  for (const PointCount& p : o.points) {
    std::string key = (p.latency ? "L:" : "T:") + p.name;
    auto it = rate_.find(key);
    if (p.events == 0 && it == rate_.end()) continue;  // never reached
    double r = double(p.events) / o.virtual_s;
    if (it == rate_.end())
      rate_[key] = r;
    else
      it->second = kRateSmoothing * r + (1 - kRateSmoothing) * it->second;
    if (p.events < kFewVisits) few = true;
  }
  if (rate_.empty()) return;
  if (few) {  // P5: too few to measure anything: double
    length_ns_ = std::min(length_ns_ * 2, options_.max_length_ns);
    pair_length_ns_ = std::max(pair_length_ns_, length_ns_);
    return;
  }
  double slowest = HUGE_VAL;
  for (const auto& [key, r] : rate_) slowest = std::min(slowest, r);
  double ns = slowest > 0 ? options_.target_visits / slowest * 1e9
                          : double(options_.max_length_ns);
  length_ns_ = uint64_t(std::clamp(ns, double(options_.min_length_ns),
                                   double(options_.max_length_ns)));
}

}  // namespace andweorc::planner
