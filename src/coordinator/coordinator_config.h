// coordinator_config.h: experiment settings, read from the environment that
// `andweorc run` sets (ANDWEORC_* variables; see docs/environment.md).
#ifndef ANDWEORC_COORDINATOR_COORDINATOR_CONFIG_H_
#define ANDWEORC_COORDINATOR_COORDINATOR_CONFIG_H_

#include <cstdint>
#include <string>
#include <vector>

#include "planner/convergence.h"
#include "runtime/split_points.h"

namespace andweorc::coordinator {

using runtime::SplitPoints;

struct CoordinatorConfig {
  bool experiments = false;  // ANDWEORC_EXPERIMENTS=1
  std::vector<std::string>
      binary_scope;  // ANDWEORC_BINARY_SCOPE, '\n'-separated
  std::vector<std::string> source_scope;  // ANDWEORC_SOURCE_SCOPE
  std::string fixed_line;                 // ANDWEORC_FIXED_LINE=FILE:LINE
  // ANDWEORC_LINE_CACHE: the line cache's directory (symbols/line_cache.h),
  // set by `andweorc run`; "" reads every object's DWARF in the program.
  std::string line_cache;
  int fixed_speedup = -1;              // ANDWEORC_FIXED_SPEEDUP=PCT
  bool end_to_end = false;             // ANDWEORC_END_TO_END=1
  uint64_t experiment_ns = 200000000;  // ANDWEORC_EXPERIMENT_TIME_NS
  uint64_t cooloff_ns = 10000000;      // ANDWEORC_COOLOFF_NS
  uint64_t seed = 0;                   // ANDWEORC_SEED (0: from the clock)
  bool function_granularity = false;   // ANDWEORC_GRANULARITY=function
  // ANDWEORC_GRANULARITY=auto: functions first, then the lines of those
  // still in play (experiment_planner.h, P6).
  bool auto_granularity = false;
  // ANDWEORC_GRANULARITY=adaptive (and unset): lines while the most sampled
  // lines a plan can reach hold nearly all the samples, else as auto; chosen
  // once, from the first samples (experiment_runner.h, granularity_choice).
  bool adaptive_granularity = false;
  uint64_t period_ns = 1000000;  // ANDWEORC_SAMPLE_PERIOD_NS
  // ANDWEORC_DELAY_RAMP=1: a hit's delay is released over the period its
  // sample stands for (runtime/delay_ramp.h). Off by default: measured, it
  // helps coarse samples on barriers and joins but shifts delay into the
  // next lock holder's critical section (docs/design.md §9, "Delay ramps").
  bool delay_ramps = false;
  // ANDWEORC_DELAY_CREDIT=1: a lump of delay is owed only for the part of
  // its sample's window a thread spent running (a thread blocked then, and
  // woken by another thread, is credited its share: runtime/delay_credit.h).
  // Off by default: on the known-answer suite its effect was within the
  // run-to-run spread of the predictions (docs/design.md §9).
  bool delay_credit = false;
  // ANDWEORC_LEADER_ALLOCATION=1: the planner's P10 (experiment_planner.h;
  // experimental, off by default).
  bool leader_allocation = false;
  // ANDWEORC_VIRTUAL_FLOOR=1: the planner's P11 (experiment_planner.h).
  bool virtual_floor = false;
  // ANDWEORC_MEASURED_LENGTH=1: the planner's P12 (length_search.h).
  bool measured_length = false;
  // ANDWEORC_RANK_DEPTH=N: the planner's P13 resolves the report's first N
  // ranks once the answer is stable (0: off; convergence.h).
  int rank_depth = planner::ConvergenceOptions{}.rank_depth;
  // ANDWEORC_SPEEDUP_LEVELS=50,75: P2's levels in percent (empty: the
  // planner's default). With ANDWEORC_FIXED_SPEEDUP set, that one level.
  std::vector<int> speedup_levels;
  // ANDWEORC_BLOCK_ORDER=random: P1's blocks one at a time in random order
  // (before 2026-11-28) instead of mirrored pairs; to measure.
  bool mirrored_pairs = true;
  // ANDWEORC_SPLIT_POINTS=process|executable (`run --split-points`): in a
  // process tree, each progress point is counted per process ("name@PID")
  // or per executable ("name@FILE") instead of added up over the tree.
  SplitPoints split_points = SplitPoints::kNone;
};

CoordinatorConfig config_from_environment();

}  // namespace andweorc::coordinator

#endif  // ANDWEORC_COORDINATOR_COORDINATOR_CONFIG_H_
