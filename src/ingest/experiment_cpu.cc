// experiment_cpu.cc: see experiment_cpu.h.
#include "ingest/experiment_cpu.h"

#include <algorithm>

namespace andweorc::ingest {

SampleTimeline::SampleTimeline(const std::vector<RawSample>& samples) {
  entries_.reserve(samples.size());
  for (const RawSample& s : samples) add(s.time_ns, s.weight);
}

void SampleTimeline::add(uint64_t time_ns, uint32_t weight) {
  // Batches come thread by thread, so times are only nearly in order.
  if (!entries_.empty() && time_ns < entries_.back().first) sorted_ = false;
  entries_.emplace_back(time_ns, weight == 0 ? 1 : weight);
  latest_ = std::max(latest_, time_ns);
}

void SampleTimeline::sort() {
  if (sorted_) return;
  std::stable_sort(
      entries_.begin(), entries_.end(),
      [](const auto& a, const auto& b) { return a.first < b.first; });
  sorted_ = true;
}

uint64_t SampleTimeline::weight_in(uint64_t begin, uint64_t end) {
  sort();
  auto by_time = [](const std::pair<uint64_t, uint32_t>& e, uint64_t t) {
    return e.first < t;
  };
  auto lo = std::lower_bound(entries_.begin(), entries_.end(), begin, by_time);
  auto hi = std::lower_bound(lo, entries_.end(), end, by_time);
  uint64_t sum = 0;
  for (auto it = lo; it != hi; ++it) sum += it->second;
  return sum;
}

void SampleTimeline::drop_before(uint64_t time_ns) {
  sort();
  auto it = std::lower_bound(entries_.begin(), entries_.end(), time_ns,
                             [](const std::pair<uint64_t, uint32_t>& e,
                                uint64_t t) { return e.first < t; });
  entries_.erase(entries_.begin(), it);
  horizon_ = std::max(horizon_, time_ns);
}

double experiment_cpu_s(SampleTimeline& timeline, uint64_t period_ns,
                        uint64_t start_ns, uint64_t duration_ns) {
  if (period_ns == 0 || start_ns < timeline.horizon()) return -1;
  uint64_t w = timeline.weight_in(start_ns, start_ns + duration_ns);
  return double(w) * double(period_ns) / 1e9;
}

}  // namespace andweorc::ingest
