// granularity_choice.cc: see granularity_choice.h.
#include "planner/granularity_choice.h"

#include <algorithm>
#include <functional>

namespace andweorc::planner {

GranularityChoice choose_granularity(const std::vector<uint64_t>& line_samples,
                                     const PlannerOptions& options,
                                     GranularityEvidence* evidence,
                                     uint64_t min_samples, double min_reach,
                                     uint64_t confirm_samples) {
  std::vector<uint64_t> s;
  uint64_t total = 0;
  for (uint64_t n : line_samples)
    if (n != 0) s.push_back(n), total += n;
  GranularityEvidence e;
  e.samples = total;
  if (total < min_samples || total == 0) {
    if (evidence != nullptr) *evidence = e;
    return GranularityChoice::kUndecided;
  }
  size_t k = std::min(s.size(), options.max_regions);
  std::partial_sort(s.begin(), s.begin() + long(k), s.end(),
                    std::greater<uint64_t>());
  uint64_t reached = 0;
  for (size_t i = 0; i < k; ++i)
    if (double(s[i]) >= options.min_sample_share * double(total))
      reached += s[i];
  e.reach = double(reached) / double(total);
  if (evidence != nullptr) *evidence = e;
  if (e.reach < min_reach) return GranularityChoice::kFunctionsFirst;
  return total < confirm_samples ? GranularityChoice::kUndecided
                                 : GranularityChoice::kLines;
}

}  // namespace andweorc::planner
