// trace_join.cc: see trace_join.h.
#include "ingest/trace_join.h"

#include <fmt/format.h>

#include <algorithm>

namespace andweorc::ingest {

CallIndex::CallIndex(const std::vector<RawTraceCall>& calls) {
  for (const RawTraceCall& c : calls)
    if (c.end_ns >= c.start_ns)
      lists_[{c.tid, c.function}].push_back(
          Entry{c.start_ns, c.end_ns, -1, &c});
  for (auto& [key, list] : lists_) {
    // Outer calls first when two start together.
    std::sort(list.begin(), list.end(), [](const Entry& a, const Entry& b) {
      return a.start != b.start ? a.start < b.start : a.end > b.end;
    });
    std::vector<int64_t> open;  // entries whose end is not passed yet
    for (size_t i = 0; i < list.size(); ++i) {
      while (!open.empty() && list[size_t(open.back())].end < list[i].start)
        open.pop_back();
      if (!open.empty() && list[size_t(open.back())].end >= list[i].end)
        list[i].parent = open.back();
      open.push_back(int64_t(i));
    }
  }
}

const RawTraceCall* CallIndex::innermost(uint32_t tid, uint32_t function,
                                         uint64_t time_ns) const {
  auto it = lists_.find({tid, function});
  if (it == lists_.end()) return nullptr;
  const auto& list = it->second;
  // The last call that started at or before time_ns; if it ended before,
  // only a call containing it can hold time_ns: walk up the nesting.
  auto after =
      std::upper_bound(list.begin(), list.end(), time_ns,
                       [](uint64_t t, const Entry& e) { return t < e.start; });
  int64_t i = int64_t(after - list.begin()) - 1;
  while (i >= 0) {
    if (list[size_t(i)].end >= time_ns) return list[size_t(i)].call;
    i = list[size_t(i)].parent;
  }
  return nullptr;
}

void TraceBuilder::begin_process(const RawProcess& p) {
  current_.clear();
  index_.reset();
  for (const RawTraceFunction& f : p.trace_functions) {
    auto [it, added] = functions_.try_emplace(f.name);
    if (added) order_.push_back(f.name);
    it->second.traced = it->second.traced || f.enabled;
    current_.emplace_back(f.id, &it->second);
  }
  if (current_.empty()) return;
  for (const RawTraceCall& c : p.trace_calls)
    for (auto& [id, fn] : current_)
      if (id == c.function && c.end_ns >= c.start_ns)
        fn->durations.push_back(c.end_ns - c.start_ns);
  index_ = std::make_unique<CallIndex>(p.trace_calls);
  dropped_.ring_full += p.trace_stats.ring_full;
  dropped_.no_return += p.trace_stats.no_return;
  dropped_.too_deep += p.trace_stats.too_deep;
  dropped_.reentered += p.trace_stats.reentered;
}

void TraceBuilder::add_sample(const RawSample& s, const void* stack_key) {
  if (!index_) return;
  for (auto& [id, fn] : current_)
    if (const RawTraceCall* c = index_->innermost(s.tid, id, s.time_ns))
      fn->samples[{stack_key, c->end_ns - c->start_ns}] += s.weight;
}

void TraceBuilder::finish(const std::function<uint32_t(const void*)>& index_of,
                          profile::Profile* out) {
  for (const std::string& name : order_) {
    Function& fn = functions_[name];
    profile::TracedFunction t;
    t.name = name;
    t.traced = fn.traced;
    std::sort(fn.durations.begin(), fn.durations.end());
    t.durations_ns = std::move(fn.durations);
    for (const auto& [key, weight] : fn.samples)
      t.samples.push_back(
          profile::TraceSample{index_of(key.first), key.second, weight});
    std::sort(t.samples.begin(), t.samples.end(),
              [](const profile::TraceSample& a, const profile::TraceSample& b) {
                return a.stack != b.stack ? a.stack < b.stack
                                          : a.duration_ns < b.duration_ns;
              });
    out->traces.push_back(std::move(t));
  }
  const RawTraceStats& d = dropped_;
  if (d.ring_full + d.no_return + d.too_deep + d.reentered > 0)
    out->warnings.push_back(fmt::format(
        "trace: calls not recorded: {} left by an exception or longjmp (no "
        "return), {} while the runtime's ring was full, {} nested deeper "
        "than 32 traced calls, {} from a signal handler inside the recorder",
        d.no_return, d.ring_full, d.too_deep, d.reentered));
}

}  // namespace andweorc::ingest
