// stack_profile.cc: see stack_profile.h.
#include "live/stack_profile.h"

namespace andweorc::live {

StackProfile::StackProfile(double window_s, size_t max_nodes)
    : window_s_(window_s),
      window_(&names_, max_nodes),
      run_(&names_, max_nodes) {}

void StackProfile::add(double time_s, const StackCounts& stacks) {
  std::map<StackTree::Place, uint64_t> placed;
  for (const auto& [stack, weight] : stacks) {
    if (weight == 0) continue;
    placed[window_.add(stack, weight)] += weight;
    // Room for the whole stack before it is walked: a compaction while it
    // is half added could free the frames it has just passed.
    if (run_.nodes() + stack.size() > run_.max_nodes() &&
        run_.nodes() + run_.missing(stack) > run_.max_nodes())
      folded_ += run_.compact();
    run_.add(stack, weight);
  }
  if (!placed.empty()) added_.emplace_back(time_s, std::move(placed));
  advance(time_s);
}

void StackProfile::advance(double time_s) {
  while (!added_.empty() && added_.front().first <= time_s - window_s_) {
    for (const auto& [place, weight] : added_.front().second)
      window_.remove(place, weight);
    added_.pop_front();
  }
}

}  // namespace andweorc::live
