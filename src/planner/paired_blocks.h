// paired_blocks.h: paired 0%/s% experiments ("blocks") and the slope they
// estimate; the statistic shared by the planner, `run`'s monitor and the
// analysis (docs/causal-analysis.md, "Paired blocks").
//
// A block is two experiments of the same region, one at 0% and one at s%,
// run back to back in the same process (adjacent in its record stream). Its
// program speed-up is y = (v0 - vs) / v0, where v is the period (seconds per
// visit) or the latency (Little's law) of a progress point in each half: a
// drift slower than a block (warm-up, a neighbour's build, a growing data
// set) moves v0 and vs alike and cancels in y. The slope through the origin
// over blocks, b = sum(x y) / sum(x^2) with x = s / 100, estimates the
// impact (weighted, see SlopeAccumulator); its interval is Student's t with
// blocks - 1 degrees of freedom.
//
// Pure and dependency-free (no runtime, no I/O): compiled into the preloaded
// library as well as the tool.
#ifndef ANDWEORC_PLANNER_PAIRED_BLOCKS_H_
#define ANDWEORC_PLANNER_PAIRED_BLOCKS_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace andweorc::planner {

// A progress point's change during one experiment.
struct PointCount {
  std::string name;
  bool latency = false;
  uint64_t events = 0;  // visits (throughput) or arrivals (latency)
  int64_t in_flight_start = 0, in_flight_end = 0;  // latency only
};

// One finished experiment, as the planner and the estimators see it.
struct Observation {
  std::string region;  // e.g. "line:src/a.cc:12" or "function:f"
  // Coarse to fine: the regions that hold this one (a line's functions, as
  // the plan's candidate had them); empty for a top-tier region.
  std::vector<std::string> parents;
  int stream = 0;  // process id: blocks never span processes
  int speedup_pct = 0;
  double virtual_s = 0;  // duration minus inserted delay
  std::vector<PointCount> points;
  // For the plausibility bound (delay_bound.h); duration 0 / cpu < 0 when
  // the source does not know them.
  double duration_s = 0;
  double delay_s = 0;
  double cpu_s = -1;
};

// Seconds per visit (throughput) or latency in seconds; nothing when the
// experiment is unusable for the point (no time, never reached). The same
// rule as experiments/analysis.cc's measure().
std::optional<double> point_value(const Observation& o, const PointCount& p);

// A block found in a stream of observations, by their indices.
struct Block {
  size_t baseline = 0;  // the 0% observation
  size_t sped_up = 0;   // the s% observation
};

// Pairs adjacent observations of each stream: an observation pairs with the
// one just before it in its stream when both select the same region, one is
// at 0% and the other is not, and that one is not already in a block.
class BlockPairer {
 public:
  std::optional<Block> add(size_t index, const Observation& o);

 private:
  struct Last {
    size_t index;
    std::string region;
    int speedup_pct;
    bool paired;
  };
  std::map<int, Last> last_;  // by stream
};

// The lowest program speed-up one block counts for: its sped-up half twice
// as slow as its baseline. y = 1 - vs / v0 is at most 1 but unbounded
// below, so a block whose halves straddle a change of the program's regime
// (a write stall, a preemption burst, a phase) counts as a huge slow-down
// (LevelDB: y down to -313 while its regimes differ 300x in rate; barrier
// and joined under load: -15, -26) and one such block drags a region's
// mean negative; 33 of LevelDB's 456 blocks were below -1, against 0-9
// per few hundred on the known-answer suite. Winsorized at -1, a block's
// weight in the mean is bounded on both sides; a real slow-down steeper
// than that (a slope below -1 / x) still shows as the largest negative
// impact the design can report.
inline constexpr double kMinBlockSpeedup = -1.0;

// The program speed-up a block measured at a point (at least
// kMinBlockSpeedup); nothing when either half is unusable for it.
std::optional<double> block_speedup(const Observation& baseline,
                                    const Observation& sped_up,
                                    const PointCount& point);

struct SlopeEstimate {
  int blocks = 0;
  bool valid = false;  // at least 2 blocks: the interval is defined
  double slope = 0, se = 0, low = 0, high = 0;
  double r2 = 0;  // 1 - residual / total sum of squares (centred), >= 0
};

// Weighted regression through the origin of y on x, one point per block.
// The weight is the shorter half's virtual duration (as the regression's
// weights in analysis.cc): a half whose delays took nearly all of its time
// measured almost nothing and must not dominate the slope.
class SlopeAccumulator {
 public:
  void add(double x, double y, double weight = 1);
  SlopeEstimate estimate(double level) const;
  int blocks() const { return n_; }

 private:
  int n_ = 0;
  double sw_ = 0, sxx_ = 0, sxy_ = 0, syy_ = 0, sy_ = 0;
};

}  // namespace andweorc::planner

#endif  // ANDWEORC_PLANNER_PAIRED_BLOCKS_H_
