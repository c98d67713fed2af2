// experiment_planner.h: the one experiment schedule, used by the preloaded
// coordinator (experiment_runner.h) and the in-process Runner (src/api).
//
// Pure and deterministic: no clock, no runtime; the caller passes the
// candidates (regions with their samples so far), the seed, and every
// finished experiment. The rules (docs/causal-analysis.md, "Experiment
// plan"):
//  P1 experiments come in blocks of two back-to-back halves on the same
//     region, one at 0% and one at s%, so slow drift cancels in the
//     block's difference (paired_blocks.h); blocks come in mirrored pairs
//     of one region and level (0%, s%, s%, 0%), so that what an s% half
//     leaves behind for the next experiment cancels in every block;
//  P2 s cycles over a few large levels, per pair of blocks (default 75, 50,
//     75%; one level with a fixed speed-up): a block's slope has a variance of
//     noise / s^2, and the noise measured per block does not grow with s (262
//     regions of real runs: 0.27, 0.23, 0.24 at 25, 50, 75%), so two thirds of
//     the blocks go to the largest level; a third at 50% keeps a second point
//     of the curve, so that a saturating one still shows;
//  P3 candidates are the regions with at least min_sample_share of the
//     samples, at most max_regions of them, most sampled first;
//  P4 successive elimination: the next block goes to the candidate in play
//     (convergence.h, R3) with the fewest blocks, most samples on ties; when
//     none is in play, to the candidate with the fewest blocks;
//  P5 length: initial_length until a point has been measured; then the time
//     the slowest point that was ever reached needs for target_visits
//     visits (or arrivals), at its recent rate, within [min_length,
//     max_length]; a point that got fewer than 5 visits doubles it;
//  P6 coarse to fine (--granularity auto): a candidate with parents (a line,
//     its parents the functions whose code holds it) is a candidate only
//     once one of its parents is (P3 among the candidates without parents)
//     and is significant (convergence.h R2, FDR-controlled) and in play
//     (R3); P3's share and cap apply to the two tiers separately, with the
//     same total. So the blocks go to the functions until one is known to
//     matter, and only its lines then share them; lines of functions that
//     are not significant (yet) or out of play get no blocks. Candidates
//     without parents (line or function granularity) are planned exactly
//     as before;
//  P8 a candidate that has blocks and is in play (convergence.h R3) is a
//     candidate whatever P3 and P6 say, so P4 finishes it: a region in play
//     keeps the answer from settling, and only more blocks take it out.
//     Such regions come from a table that changed under the run (a process
//     tree's table grows as programs start; the first may have had lines
//     without functions) or from a share of the samples that fell below
//     P3's as the run went on (nginx's ngx_unix_recv: 3 blocks, judged, an
//     interval neither below 0.05 nor below the leader, and no more blocks
//     for 800 experiments).
//  P9 (coarse to fine) while the function tier is not settled
//     (convergence.h R7) and no line leads significantly, a line that has
//     had R8's budget waits (unless nothing else is in play): R8
//     lets such lines pass once the functions settle, so the functions'
//     blocks decide when the run settles (zstd: 8 lines in play had 27
//     blocks each, no line significant, and the functions, 28 each, were
//     still unresolved after 60 s). A significant line leader keeps the
//     lines going: a line answer is what users act on.
//  P10 (opt-in, leader_allocation) a significant tier leader's blocks count
//     divided by sqrt(r) in P4 (r its rivals in play that are not near 0,
//     convergence.h leader_weight): every such rival's R3 test holds the
//     leader's standard error, so the leader gets sqrt(r) times the blocks
//     of each rival (the allocation that minimises the variance of many
//     comparisons with one control).
//  P11 (opt-in, virtual_floor) a block on a region with a share h of the
//     samples lasts min_length / (1 - s h): P5's floor in virtual time.
//  P12 (measured_length) a mirrored pair lasts P5's length times a
//     multiplier that length_search.h chooses from the noise the pairs
//     measure: 4 when 4 times the length measurably cut the noise per
//     second of experiments, else 1.
//  P13 (rank_depth in ConvergenceOptions) while the answer is stable, the
//     next block goes to the report's first 3 regions and the region after
//     them that could still enter them, one with fewer than 8 blocks first,
//     else the widest interval (convergence.h, rank_contenders): a run that
//     goes on after its answer settles sharpens what the report shows
//     first.
#ifndef ANDWEORC_PLANNER_EXPERIMENT_PLANNER_H_
#define ANDWEORC_PLANNER_EXPERIMENT_PLANNER_H_

#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "planner/convergence.h"
#include "planner/length_search.h"

namespace andweorc::planner {

struct PlannerOptions {
  std::vector<int> levels = {75, 50, 75};  // nonzero speed-ups, percent
  int fixed_speedup = -1;                  // >= 0: the only s of P2
  uint64_t initial_length_ns = 200000000;
  uint64_t min_length_ns = 50000000;
  uint64_t max_length_ns = 4000000000ull;
  double target_visits = 50;
  size_t max_regions = 16;
  double min_sample_share = 0.01;
  // P10 (opt-in): a significant leader gets sqrt(rivals) times the blocks
  // of each rival (ConvergenceTracker::leader_weight). Off by default: on
  // the known-answer suite it settled threadpool and io_sleep sooner and
  // barrier later, and it did not move memcached's or zstd's time
  // (docs/causal-analysis.md, P10).
  bool leader_allocation = false;
  // P1: blocks come in mirrored pairs of one region and level (false: one
  // block at a time in random order, as before 2026-11-28; to measure).
  bool mirrored_pairs = true;
  // P11 (opt-in): a block's halves last at least min_length_ns /
  // (1 - s x share), share the region's part of the samples: the shortest
  // experiment in *virtual* time (what the throughput is divided by),
  // since an s% half of a region that holds most of the samples is mostly
  // inserted delay. Off by default: on zstd the leader's intervals came
  // out a little narrower, the known-answer suite took 0.5-1 s longer to
  // settle (docs/causal-analysis.md, P11).
  bool virtual_floor = false;
  // P12: the length multiplied by what the measured noise asks
  // (length_search.h); mirrored pairs only.
  bool measured_length = false;
  ConvergenceOptions convergence;
};

struct Candidate {
  std::string region;
  uint64_t samples = 0;
  // P6: the coarser regions that contain this one (empty: a top tier).
  std::vector<std::string> parents;
};

struct Plan {
  std::string region;
  int speedup_pct = 0;
  uint64_t length_ns = 0;
  // The candidate's parents: the caller records them with the experiment
  // (Observation::parents, and the profile), so that R3's parent rule is
  // computed alike wherever the experiments are replayed.
  std::vector<std::string> parents;
};

// P5's shortest experiment: 50 of a thread's sample intervals, at least
// 20 ms, and not above `initial_length_ns` (--experiment-time, the user's
// floor). Shorter, the delays still owed when an experiment ends (up to an
// interval per thread) weigh more than a percent. The interval is the
// period, or `tick_ns` when longer: the CPU-time timer fires once per
// scheduler tick whatever period is asked, so its samples, and their
// delays, come a tick apart (50 periods of 1 ms were 12 ticks of 4 ms,
// and the known-answer spin's lines without effect measured +5.5 to +7.5%
// at 40%; docs/causal-analysis.md, P5). The coordinator measures that
// interval (runtime/timer_interval.h).
uint64_t shortest_experiment_ns(uint64_t period_ns, uint64_t tick_ns,
                                uint64_t initial_length_ns);

// P2's levels from text ("75,50,75", ANDWEORC_SPEEDUP_LEVELS), in order,
// repeats kept; entries that are not whole numbers in 1..100 are dropped
// (nothing left: the caller keeps the default).
std::vector<int> parse_levels(const std::string& text);

class ExperimentPlanner {
 public:
  ExperimentPlanner(PlannerOptions options, uint64_t seed);
  // The next experiment; nothing while no candidate has samples.
  std::optional<Plan> next(const std::vector<Candidate>& candidates);
  // Whether next() will finish an open block or pair (P1): it then reads
  // no candidates, and the caller need not build them.
  bool block_open() const { return !pending_.empty(); }
  // A finished experiment (recorded as the plan said).
  void record(const Observation& o);
  // The last plan was not carried out: its block (and pair) is abandoned.
  void discard() {
    pending_.clear();
    pair_multiplier_ = 0;
  }
  const ConvergenceTracker& tracker() const { return tracker_; }
  uint64_t length_ns() const { return length_ns_; }
  // P12's multiplier so far (1 until a longer length has won).
  int length_multiplier() const { return search_.best(); }
  bool length_settled() const { return search_.settled(); }
  // P5's floor, when the caller has measured it anew (the timer sampler's
  // interval, timer_interval.h); the current length rises to it at once.
  void set_min_length_ns(uint64_t ns);

 private:
  void adapt_length(const Observation& o);
  void measure_pair(const Observation& o);

  PlannerOptions options_;
  std::mt19937_64 rng_;
  ConvergenceTracker tracker_;
  std::deque<Plan> pending_;  // the rest of the open block (or pair, P1)
  // Every half of the open block or pair (P1; P5's length with P11's floor
  // and P12's multiplier, fixed when it was planned).
  uint64_t pair_length_ns_ = 0;
  // P12: the open pair's multiplier and the observations of it so far.
  LengthSearch search_;
  int pair_multiplier_ = 0;  // 0: the open plan is not a measured pair
  std::vector<Observation> pair_;
  std::map<std::string, int> given_;    // blocks started per region
  std::map<std::string, double> rate_;  // events per virtual s, by point
  uint64_t length_ns_;
};

}  // namespace andweorc::planner

#endif  // ANDWEORC_PLANNER_EXPERIMENT_PLANNER_H_
