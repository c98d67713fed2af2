// sample_profile.cc: see sample_profile.h.
#include "live/sample_profile.h"

#include <algorithm>

namespace andweorc::live {
namespace {

std::vector<FunctionShare> top_of(const std::map<std::string, uint64_t>& by,
                                  size_t top) {
  uint64_t all = 0;
  for (const auto& [f, n] : by) all += n;
  std::vector<FunctionShare> out;
  for (const auto& [f, n] : by)
    out.push_back({f, n, all ? double(n) / double(all) : 0});
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
    return a.samples != b.samples ? a.samples > b.samples
                                  : a.function < b.function;
  });
  if (out.size() > top) out.resize(top);
  return out;
}

}  // namespace

void SampleProfile::add(double time_s,
                        const std::map<std::string, uint64_t>& counts) {
  if (counts.empty()) return;
  for (const auto& [f, n] : counts) {
    total_[f] += n;
    total_samples_ += n;
  }
  recent_.emplace_back(time_s, counts);
  // Keep what a later recent() can still ask for: the clock only advances.
  while (!recent_.empty() && recent_.front().first <= time_s - window_s_)
    recent_.pop_front();
}

std::vector<FunctionShare> SampleProfile::recent(double time_s,
                                                 size_t top) const {
  std::map<std::string, uint64_t> sum;
  for (const auto& [t, counts] : recent_)
    if (t > time_s - window_s_)
      for (const auto& [f, n] : counts) sum[f] += n;
  return top_of(sum, top);
}

uint64_t SampleProfile::recent_samples(double time_s) const {
  uint64_t n = 0;
  for (const auto& [t, counts] : recent_)
    if (t > time_s - window_s_)
      for (const auto& [f, c] : counts) n += c;
  return n;
}

std::vector<FunctionShare> SampleProfile::total(size_t top) const {
  return top_of(total_, top);
}

}  // namespace andweorc::live
