// address_table.cc: see address_table.h.
#include "runtime/address_table.h"

namespace andweorc::runtime {
namespace {

const AddressTable* g_table = nullptr;
int32_t g_selected = -1;
int g_granularity = int(Granularity::kLine);

}  // namespace

ANDWEORC_SIGNAL_SAFE const AddressTable* address_table() {
  return __atomic_load_n(&g_table, __ATOMIC_ACQUIRE);
}

void publish_address_table(const AddressTable* t) {
  __atomic_store_n(&g_table, t, __ATOMIC_RELEASE);
}

ANDWEORC_SIGNAL_SAFE int32_t table_lookup(const AddressTable& t,
                                          uint64_t addr) {
  size_t lo = 0, hi = t.range_count;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (t.ranges[mid].hi <= addr)
      lo = mid + 1;
    else
      hi = mid;
  }
  if (lo < t.range_count && t.ranges[lo].lo <= addr && addr < t.ranges[lo].hi)
    return int32_t(lo);
  return -1;
}

ANDWEORC_SIGNAL_SAFE int32_t attribute_frames(const AddressTable& t,
                                              const uint64_t* frames, int n) {
  for (int i = 0; i < n; ++i) {
    uint64_t addr = i == 0 ? frames[i] : frames[i] - 1;
    int32_t range = table_lookup(t, addr);
    if (range >= 0) return range;
  }
  return -1;
}

ANDWEORC_SIGNAL_SAFE bool selection_matches(const AddressTable& t,
                                            int32_t range) {
  int32_t sel = __atomic_load_n(&g_selected, __ATOMIC_ACQUIRE);
  if (sel < 0 || range < 0 || size_t(range) >= t.range_count) return false;
  const AddressRange& r = t.ranges[range];
  if (__atomic_load_n(&g_granularity, __ATOMIC_RELAXED) ==
      int(Granularity::kFunction))
    return int32_t(r.function) == sel;
  return int32_t(r.line) == sel;
}

void set_selection(int32_t id, Granularity g) {
  __atomic_store_n(&g_granularity, int(g), __ATOMIC_RELAXED);
  __atomic_store_n(&g_selected, id, __ATOMIC_RELEASE);
}

void clear_selection() { __atomic_store_n(&g_selected, -1, __ATOMIC_RELEASE); }

}  // namespace andweorc::runtime
