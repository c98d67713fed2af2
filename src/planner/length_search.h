// length_search.h: P12, the experiment length chosen from the noise it
// measures (docs/causal-analysis.md, "Experiment plan").
//
// P5 sets a length from the visits it wants (50 of the slowest point) and a
// floor of 50 sample intervals; what a block of that length then measures
// is left to chance. Where the noise comes from the experiment's edges
// (work that crosses them, delays still owed) a longer block is worth more
// per second; where it is the program's own, white, it is not: zstd
// (2026-11-28, perf, bench/real/pair_noise.py) had a block's y spread 0.24-
// 0.31 at 50 ms and 0.10-0.13 at 200 ms, about the same per second (the
// 2-6x first read from the timer sampler's runs did not hold). So the
// length is measured, not assumed: every mirrored pair (P1: two blocks
// of one region and level) gives a sample of the noise, (y1 - y2)^2, whose
// expectation is twice a block's variance whatever the region's impact
// (both blocks measure the same slope). The search compares two multiples
// of P5's length, m and 4m, in alternate pairs (so that the machine's load
// falls on both alike). Its measure is the noise per second of
// experiments, mean(noise) x multiplier, and the test sequential: with n1
// and n2 pairs (at least kLeastPairs each) the log of 4m's cost over m's
// is uncertain by about sqrt(2/n1 + 2/n2) (one degree of freedom a pair);
// 4m wins when the log ratio is below 0 by kZ of that, m stays when it is
// above log(kBetter) by kZStay (a stricter bar: one-degree samples are
// skewed, and staying ends the search); at kMostPairs each, 4m wins when
// the ratio is below kBetter. Steps of 4, not 2: a pair carries one degree
// of freedom, so 16 pairs an arm tell a ratio only to within a factor of
// about 1.6, which separates the 4x that edge noise gives over 4 times the
// length (and zstd's 2.3-6x) from 1 but not the 2x over a doubling (in
// simulation a doubling search stopped early in 5 to 13 of 20 programs).
// The longest is kMostMultiplier: P5's 50 ms become 200 ms, the timer
// sampler's 200 ms 800 ms.
//
// Pure and deterministic, no clock; part of the planner (compiled into the
// preloaded library, used from the coordinator's thread only).
#ifndef ANDWEORC_PLANNER_LENGTH_SEARCH_H_
#define ANDWEORC_PLANNER_LENGTH_SEARCH_H_

#include <vector>

namespace andweorc::planner {

class LengthSearch {
 public:
  static constexpr int kLeastPairs = 4;
  static constexpr int kMostPairs = 16;
  static constexpr int kStep = 4;
  static constexpr int kMostMultiplier = 4;
  static constexpr double kZ = 1.0;      // 4m wins early
  static constexpr double kZStay = 2.0;  // m stays early
  // Without a decision, 4m must have cut the noise per second by 30%: a
  // longer length that is only as good costs answer time in the rules
  // that count blocks (R1, R8). A wrong call costs time, not accuracy.
  static constexpr double kBetter = 0.7;
  // A sample counts at most this many times its arm's median (a block that
  // straddled a phase of the program must not decide alone).
  static constexpr double kWildSample = 10;

  // The multiplier of P5's length for the next pair. `most` caps it (the
  // planner's longest experiment over P5's length); a cap below the arm
  // being tried ends the search at the best so far.
  int next(int most);
  // A finished pair at `multiplier` and its noise sample (see above).
  void add(int multiplier, double noise);
  bool settled() const { return settled_; }
  int best() const { return best_; }

 private:
  std::vector<double>& arm(int multiplier);
  double cost(int multiplier);  // mean noise x multiplier
  void decide();

  int best_ = 1;
  bool settled_ = false;
  std::vector<double> shorter_, longer_;  // at best_ and kStep * best_
};

}  // namespace andweorc::planner

#endif  // ANDWEORC_PLANNER_LENGTH_SEARCH_H_
