// address_table.cc: see address_table.h.
#include "runtime/address_table.h"

#include "runtime/shared_tree.h"

namespace andweorc::runtime {
namespace {

SelectionShared g_own;
SelectionShared* g_sel = &g_own;  // &g_own or the tree's segment
// A table outside the tree's arena (the arena was full): this process's
// only; a child forked before it was built could not read it.
const AddressTable* g_private_table = nullptr;
// Joined through exec: g_sel's table is another image's, never ours.
bool g_foreign_table = false;

}  // namespace

void attach_shared_selection(SelectionShared* shared) {
  if (shared == nullptr || shared == g_sel) return;
  __atomic_store_n(&shared->table,
                   __atomic_load_n(&g_sel->table, __ATOMIC_ACQUIRE),
                   __ATOMIC_RELEASE);
  __atomic_store_n(&shared->granularity,
                   __atomic_load_n(&g_sel->granularity, __ATOMIC_ACQUIRE),
                   __ATOMIC_RELEASE);
  __atomic_store_n(&shared->selected,
                   __atomic_load_n(&g_sel->selected, __ATOMIC_ACQUIRE),
                   __ATOMIC_RELEASE);
  __atomic_store_n(&g_sel, shared, __ATOMIC_RELEASE);
}

void join_shared_selection(SelectionShared* shared) {
  if (shared == nullptr) return;
  __atomic_store_n(&g_foreign_table, true, __ATOMIC_RELEASE);
  __atomic_store_n(&g_sel, shared, __ATOMIC_RELEASE);
}

ANDWEORC_SIGNAL_SAFE const AddressTable* address_table() {
  if (const AddressTable* t =
          __atomic_load_n(&g_private_table, __ATOMIC_ACQUIRE))
    return t;
  if (__atomic_load_n(&g_foreign_table, __ATOMIC_ACQUIRE)) return nullptr;
  return __atomic_load_n(&__atomic_load_n(&g_sel, __ATOMIC_ACQUIRE)->table,
                         __ATOMIC_ACQUIRE);
}

void publish_address_table(const AddressTable* t) {
  if (g_sel != &g_own && !tree_holds(tree(), t, sizeof *t))
    __atomic_store_n(&g_private_table, t, __ATOMIC_RELEASE);
  else
    __atomic_store_n(&g_sel->table, t, __ATOMIC_RELEASE);
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
  SelectionShared* shared = __atomic_load_n(&g_sel, __ATOMIC_ACQUIRE);
  int32_t sel = __atomic_load_n(&shared->selected, __ATOMIC_ACQUIRE);
  if (sel < 0 || range < 0 || size_t(range) >= t.range_count) return false;
  // An exec'd image may still use the previous table for a few ms after
  // the coordinator replaced it: its ids mean other lines there. (The
  // generation is stored before `selected`, whose acquire load is above.)
  if (__atomic_load_n(&shared->generation, __ATOMIC_RELAXED) != t.generation)
    return false;
  const AddressRange& r = t.ranges[range];
  if (__atomic_load_n(&shared->granularity, __ATOMIC_RELAXED) ==
      int(Granularity::kFunction))
    return int32_t(r.function) == sel;
  return int32_t(r.line) == sel;
}

void set_selection(int32_t id, Granularity g) {
  // The coordinator selects from the table it published last.
  const AddressTable* t = __atomic_load_n(&g_sel->table, __ATOMIC_ACQUIRE);
  if (const AddressTable* p =
          __atomic_load_n(&g_private_table, __ATOMIC_ACQUIRE))
    t = p;
  __atomic_store_n(&g_sel->generation, t != nullptr ? t->generation : 0u,
                   __ATOMIC_RELAXED);
  __atomic_store_n(&g_sel->granularity, int32_t(g), __ATOMIC_RELAXED);
  __atomic_store_n(&g_sel->selected, id, __ATOMIC_RELEASE);
}

void clear_selection() {
  __atomic_store_n(&g_sel->selected, -1, __ATOMIC_RELEASE);
}

}  // namespace andweorc::runtime
