// progress_points.h: the registry behind ANDWEORC_PROGRESS/BEGIN/END and
// Coz's _coz_get_counter.
//
// A point is (kind, name) -> a counter slot. Each thread increments its own
// counter array (ThreadState::counters), so threads never share a written
// cache line; totals are the sum over live threads plus `retired` counts
// folded in when threads exit. Coz-annotated programs increment one shared
// coz_counter_t per point (that is Coz's ABI); we add those in too.
#ifndef ANDWEORC_RUNTIME_PROGRESS_POINTS_H_
#define ANDWEORC_RUNTIME_PROGRESS_POINTS_H_

#include <stdint.h>

#include "runtime/signal_safe.h"

namespace andweorc::runtime {

struct ThreadState;

// Allocates a zeroed counter array for a thread (reused across threads).
uint64_t* counters_allocate();
// Adds a dying thread's counts (the array *slot points to) to the retired
// totals, zeroes them and clears *slot, so that concurrent totals never miss
// or double them. Caller holds io_lock.
void counters_retire(uint64_t** slot);
// After fork the child starts counting from zero.
void counters_reset_all();

// Current totals of every registered point, for the coordinator. Fills up to
// `cap` entries; returns how many points exist. `name` points into storage
// that lives as long as the process.
struct PointTotal {
  int kind;  // ANDWEORC_KIND_*
  const char* name;
  uint32_t name_len;
  uint64_t total;
};
int points_totals(PointTotal* out, int cap);

// Publishes this process's totals in its slot of the process tree's shared
// segment (shared_tree.h), where the coordinator adds them up; no-op
// without a segment. The collector calls it every pass, the exit paths
// once more at the end.
ANDWEORC_SIGNAL_SAFE void points_publish_to_tree();

// Writes a kPoints record with current totals. Caller holds io_lock.
ANDWEORC_SIGNAL_SAFE void points_write_snapshot();

}  // namespace andweorc::runtime

#endif  // ANDWEORC_RUNTIME_PROGRESS_POINTS_H_
