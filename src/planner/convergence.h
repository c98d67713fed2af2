// convergence.h: which regions are still in play, the leader, and whether
// the answer is stable; fed one finished experiment at a time.
//
// The rules (docs/causal-analysis.md, "Stopping rule"), per progress point,
// from the paired-block estimates of paired_blocks.h:
//  R1 a region is judged once it has min_blocks blocks;
//  R2 the leader is the judged region ranked first: significant (interval
//     above 0 and Benjamini-Hochberg q-value <= 1 - level among the point's
//     judged regions, fdr.h) before not, then by impact (the report's
//     ranking rule);
//  R3 a judged region leaves play when its interval lies below
//     useful_impact (it cannot matter) or it is below the leader (it
//     cannot overtake it: the intervals do not overlap, or the difference
//     is significant at the level, Welch), or above what the blocks' inserted
//     delays can explain (the plausibility bound of delay_bound.h, the report's
//     rule: such an estimate comes from noise or drift, and it is never
//     significant, so never the leader); an unjudged region is in play;
//     besides, a region recorded with parents (coarse to fine: a line and
//     its functions) leaves play when none of its parents is significant
//     and in play, unless it is significant itself: a function's impact
//     holds its lines', and P6 gives such a line no more blocks, so in play
//     it would hold the answer back for good;
//  R4 the point is stable when its leader is significant, has been the
//     leader (a function: the significant leader, since 2026-11-28; a
//     function that turns significant opens its lines to P6, and zstd's
//     runs settled before any line had a block) for
//     stable_experiments experiments or for stable_seconds of
//     experiment time (virtual: durations less inserted delays) over at
//     least stable_min_experiments, and every other region in play is
//     resolved against it: both intervals narrower than +-tie_half_width (a
//     tie to the precision that matters);
//  R5 the point is flat when every region is judged and lies below
//     useful_impact;
//  R6 the run is stable when every point with blocks is stable or flat, and
//     flat when they are all flat;
//  R7 (coarse to fine) functions and lines are two tiers: R2-R5 apply to
//     each tier on its own (a function holds its lines' impact, so they are
//     not rivals), the FDR test of R2 to all judged regions of the point
//     together (as the report), and a point is stable or flat when every
//     tier is. The status shows the finest tier whose leader is
//     significant, else the coarsest tier's leader.
//  R8 (coarse to fine) the line tier does not hold a settled function tier
//     back when every line in play has had its budget (spread_blocks
//     blocks, or their information: spread_information) and the tier
//     has not settled: the function's effect is spread over its lines
//     (zstd's ZSTD_compressBlock_doubleFast, significant at 0.55: its ~15
//     lines had 0.13 and less with intervals of +-0.2 after 33 blocks
//     each, one of them now and then significant, and the run never
//     settled in 60 s). The answer, and the status's leader, is then the
//     function.
// A region is in play when it is in play for some point. Pure and
// deterministic: the preloaded planner and `andweorc run` compute the same
// state from the same experiments.
#ifndef ANDWEORC_PLANNER_CONVERGENCE_H_
#define ANDWEORC_PLANNER_CONVERGENCE_H_

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "planner/delay_bound.h"
#include "planner/paired_blocks.h"

namespace andweorc::planner {

struct ConvergenceOptions {
  double level = 0.95;
  double useful_impact = 0.05;
  int min_blocks = 3;
  // R4's time the leader must have led: 20 experiments, or 1 s of them.
  // The count was set for 50 ms experiments (20 of them: 1 s); with the
  // timer sampler's 200 ms floor it alone made every run last >= 4 s more
  // than the answer needed. Time, not count, is what the evidence grows
  // with; the minimum keeps 3 blocks of a lead however long they are.
  int stable_experiments = 20;
  double stable_seconds = 1.0;
  int stable_min_experiments = 6;
  double tie_half_width = 0.05;
  // R8's budget per line: spread_blocks blocks, or as much of the slope's
  // information as spread_blocks blocks gave at the levels R8 was set with
  // (25, 50, 75% in turn): the sum of s^2 over the line's blocks. P2's 75,
  // 50, 75 reach it in 6 blocks; a fixed 40% still takes 8.
  int spread_blocks = 8;
  double spread_information = 8 * (0.0625 + 0.25 + 0.5625) / 3;
  // R3's "below the leader": also when the leader's slope exceeds the
  // region's by more than the level's t-quantile times the difference's
  // standard error (Welch-Satterthwaite degrees of freedom), not only when
  // the two intervals do not overlap (which asks ~1.4x the margin for
  // equal errors, about twice the blocks). Off only to measure what it
  // saves.
  bool eliminate_by_difference = true;
  // P13's depth: the report's first rank_depth regions (of the status's
  // point, both tiers) are the ranking whose boundary the blocks after a
  // stable answer resolve (rank_contenders()); 0: none.
  int rank_depth = 3;
};

enum class ConvergenceState { kRunning, kStable, kFlat };
const char* state_name(ConvergenceState s);  // "running", "stable", "flat"

struct ConvergenceStatus {
  ConvergenceState state = ConvergenceState::kRunning;
  int experiments = 0;  // observations so far
  int blocks = 0;       // complete blocks so far (all regions)
  int regions = 0;      // regions with at least one block
  int in_play = 0;      // of them, still in play
  std::string point;    // the point the leader is for (most blocks)
  bool point_latency = false;
  std::string leader;  // region key; empty while none is judged
  SlopeEstimate leader_estimate;
  double leader_q = 1;  // its Benjamini-Hochberg q-value (R2)
  int stable_for = 0;   // experiments since the leader (for a function,
                        // or its significance) last changed
};

class ConvergenceTracker {
 public:
  explicit ConvergenceTracker(ConvergenceOptions options = {})
      : options_(options) {}
  void add(const Observation& o);
  const ConvergenceStatus& status() const { return status_; }
  const ConvergenceOptions& options() const { return options_; }
  // Regions never seen are in play.
  bool in_play(const std::string& region) const;
  // Judged and significant (R2's test) for some point.
  bool significant(const std::string& region) const;
  // Judged and above its plausibility bound (R3) for some point.
  bool implausible(const std::string& region) const;
  int blocks(const std::string& region) const;
  // R8's budget is spent (spread_blocks, spread_information).
  bool spent(const std::string& region) const;
  // P10's weight: sqrt(r) for a significant tier leader with r > 1 rivals
  // in play that are judged and not near 0 (those the difference test must
  // separate from it), for the point where that is largest; 1 for every
  // other region.
  double leader_weight(const std::string& region) const;
  // R7: the function tier is settled (stable or flat) for every point that
  // has one; true when none has.
  bool functions_settled() const { return functions_settled_; }
  // The line tier's leader is significant for some point.
  bool line_leader_significant() const { return line_leader_significant_; }
  // P13: while the answer is stable, the regions whose estimates the next
  // blocks should sharpen, those with fewer than 8 blocks first (fewest
  // first), then the widest interval first: the report's first
  // rank_depth (the status's point, both tiers, ranked as R2: significant
  // first, then by impact) and, while its interval reaches the lowest
  // lower bound among them, the region after them with the highest upper
  // bound (the boundary's challenger, as LUCB: Kalyanakrishnan et al.
  // 2012). Empty while the answer is not stable.
  const std::vector<std::string>& rank_contenders() const {
    return rank_contenders_;
  }
  // The status's point's judged, plausible regions in the report's order.
  const std::vector<std::string>& ranking() const { return ranking_; }

 private:
  using PointKey = std::pair<std::string, bool>;  // name, latency
  struct TierLeader {
    std::string name;
    bool significant = false;
    int since = 0;       // experiment count when it became (significant) leader
    double since_s = 0;  // experiment time (elapsed_s_) then
  };
  struct PointState {
    std::map<std::string, SlopeAccumulator> regions;
    std::map<std::string, BoundAccumulator> bounds;  // R3's plausibility
    int blocks = 0;
    std::map<int, TierLeader> leaders;  // by tier (R7)
  };
  void update();

  ConvergenceOptions options_;
  BlockPairer pairer_;
  std::map<int, Observation> last_;  // last observation of each stream
  std::map<PointKey, PointState> points_;
  struct RegionBlocks {
    int count = 0;
    double information = 0;  // the sum of s^2 over them (R8's budget)
  };
  std::map<std::string, RegionBlocks> region_blocks_;
  std::map<std::string, bool> region_in_play_;
  std::map<std::string, bool> region_significant_;
  std::map<std::string, bool> region_implausible_;
  std::map<std::string, double> region_leader_weight_;  // P10
  // R3's parents: the latest an observation of the region carried.
  std::map<std::string, std::vector<std::string>> region_parents_;
  bool functions_settled_ = true;             // R7, over the points
  bool line_leader_significant_ = false;      // for some point
  std::vector<std::string> ranking_;          // the status's point's
  std::vector<std::string> rank_contenders_;  // P13
  int experiments_ = 0;
  double elapsed_s_ = 0;  // the experiments' virtual time so far (R4)
  ConvergenceStatus status_;
};

}  // namespace andweorc::planner

#endif  // ANDWEORC_PLANNER_CONVERGENCE_H_
