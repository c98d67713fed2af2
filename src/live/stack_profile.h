// stack_profile.h: the live flame graph's data: call stacks at function
// granularity (inlined callees as frames of their own, as the written
// profile has them) over the last `window_s` seconds and over the whole
// run, each a StackTree with a node cap.
//
// The window is exact: each add() is kept as the places its weight went
// (at most one entry per node), and taken back out of the window's tree
// when it is window_s old. The whole run's tree only grows; when a stack
// would not fit, its lightest quarter is folded into the parents' cut
// weight (StackTree::compact), so memory stays bounded over hours and the
// heavy stacks keep their frames. The window's tree is not compacted (its
// places must stay valid): a stack beyond its cap is cut, and counted.
// Time is the tool's, as for the flat profile (sample_profile.h).
#ifndef ANDWEORC_LIVE_STACK_PROFILE_H_
#define ANDWEORC_LIVE_STACK_PROFILE_H_

#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "report/stack_tree.h"

namespace andweorc::live {

using report::FlameGraph;
using report::NameTable;
using report::StackTree;

// One poll's samples: function names, outermost first -> weight.
using StackCounts = std::map<std::vector<std::string>, uint64_t>;

class StackProfile {
 public:
  static constexpr size_t kDefaultMaxNodes = 20000;

  explicit StackProfile(double window_s = 10,
                        size_t max_nodes = kDefaultMaxNodes);

  // Samples seen at time_s (the clock only advances).
  void add(double time_s, const StackCounts& stacks);
  // Drops from the window what is window_s old at time_s: what recent()
  // shows is then (time_s - window_s, time_s].
  void advance(double time_s);
  FlameGraph recent(double min_share, size_t max_out) const {
    return window_.graph(min_share, max_out);
  }
  FlameGraph total(double min_share, size_t max_out) const {
    return run_.graph(min_share, max_out);
  }
  double window_s() const { return window_s_; }
  size_t max_nodes() const { return run_.max_nodes(); }
  // The whole run's weight folded by compaction so far (part of its cut).
  uint64_t folded() const { return folded_; }
  // Nodes in use, both trees (the memory bound's measure).
  size_t nodes() const { return window_.nodes() + run_.nodes(); }

 private:
  double window_s_;
  NameTable names_;  // before the trees, which release their names
  StackTree window_, run_;
  // One entry per add(): where its weight went in window_.
  std::deque<std::pair<double, std::map<StackTree::Place, uint64_t>>> added_;
  uint64_t folded_ = 0;
};

}  // namespace andweorc::live

#endif  // ANDWEORC_LIVE_STACK_PROFILE_H_
