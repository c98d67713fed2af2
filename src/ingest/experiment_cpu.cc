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

WindowWeights::WindowWeights(std::vector<std::pair<uint64_t, uint64_t>> windows)
    : sums_(windows.size(), 0) {
  index_.resize(windows.size());
  for (size_t i = 0; i < index_.size(); ++i) index_[i] = i;
  std::stable_sort(index_.begin(), index_.end(), [&](size_t a, size_t b) {
    return windows[a].first < windows[b].first;
  });
  uint64_t max_end = 0;
  for (size_t i : index_) {
    windows_.push_back(windows[i]);
    max_end = std::max(max_end, windows[i].second);
    max_end_.push_back(max_end);
  }
}

void WindowWeights::add(uint64_t time_ns, uint32_t weight) {
  // The windows starting at or before the sample, latest first, until none
  // before can still be open (experiments run one after another, so this
  // is usually one step).
  auto it =
      std::upper_bound(windows_.begin(), windows_.end(), time_ns,
                       [](uint64_t t, const std::pair<uint64_t, uint64_t>& w) {
                         return t < w.first;
                       });
  for (size_t k = size_t(it - windows_.begin()); k-- > 0;) {
    if (max_end_[k] <= time_ns) break;
    if (time_ns < windows_[k].second)
      sums_[index_[k]] += weight == 0 ? 1 : weight;
  }
}

double experiment_cpu_s(SampleTimeline& timeline, uint64_t period_ns,
                        uint64_t start_ns, uint64_t duration_ns) {
  if (period_ns == 0 || start_ns < timeline.horizon()) return -1;
  uint64_t w = timeline.weight_in(start_ns, start_ns + duration_ns);
  return double(w) * double(period_ns) / 1e9;
}

}  // namespace andweorc::ingest
