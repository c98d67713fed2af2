// label_resolver.cc: see label_resolver.h.
#include "ingest/label_resolver.h"

#include <algorithm>

namespace andweorc::ingest {

LabelResolver::LabelResolver(const std::vector<RawLabelBinding>& bindings) {
  for (const RawLabelBinding& b : bindings) {
    std::pair<uint64_t, uint64_t> table{b.table_start, b.table_end};
    if (table.first < table.second &&
        std::find(tables_.begin(), tables_.end(), table) == tables_.end())
      tables_.push_back(table);
    Trampoline& t = by_start_[b.start];
    t.end = b.end;
    t.history.push_back(&b);
  }
  for (auto& [start, t] : by_start_)
    std::stable_sort(t.history.begin(), t.history.end(),
                     [](const RawLabelBinding* a, const RawLabelBinding* b) {
                       return a->time_ns < b->time_ns;
                     });
}

bool LabelResolver::is_machinery(uint64_t address) const {
  for (const auto& [start, end] : tables_)
    if (address >= start && address < end) return true;
  return false;
}

const RawLabelBinding* LabelResolver::label_at(uint64_t address,
                                               uint64_t time_ns) const {
  auto it = by_start_.upper_bound(address);
  if (it == by_start_.begin()) return nullptr;
  --it;
  if (address >= it->second.end) return nullptr;
  const auto& h = it->second.history;
  // The last binding at or before time_ns.
  auto after = std::upper_bound(
      h.begin(), h.end(), time_ns,
      [](uint64_t t, const RawLabelBinding* b) { return t < b->time_ns; });
  if (after == h.begin()) return nullptr;
  return *(after - 1);
}

}  // namespace andweorc::ingest
