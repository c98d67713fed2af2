// maps_snapshots.cc: a new maps snapshot in the raw file whenever a
// library was loaded or unloaded since the last one (runtime.h:
// raw_write_maps_if_changed), so samples in a dlopened library stay
// attributable even if the process is then killed.
#include <link.h>

#include "runtime/raw_writer.h"
#include "runtime/runtime.h"

namespace andweorc::runtime {

namespace {

// dl_iterate_phdr's counts of objects ever loaded and unloaded at the last
// maps snapshot (start-up's included).
long long g_seen_adds = 0, g_seen_subs = 0;

int read_dl_counts(dl_phdr_info* info, size_t, void* out) {
  auto* counts = static_cast<long long*>(out);
  counts[0] = static_cast<long long>(info->dlpi_adds);
  counts[1] = static_cast<long long>(info->dlpi_subs);
  return 1;  // the first object carries the process-wide counts
}

}  // namespace

void remember_loaded_objects() {
  long long counts[2] = {0, 0};
  dl_iterate_phdr(read_dl_counts, counts);
  g_seen_adds = counts[0];
  g_seen_subs = counts[1];
}

bool raw_write_maps_if_changed() {
  long long counts[2] = {0, 0};
  dl_iterate_phdr(read_dl_counts, counts);
  if (counts[0] == g_seen_adds && counts[1] == g_seen_subs) return false;
  g_seen_adds = counts[0];
  g_seen_subs = counts[1];
  io_lock().lock();
  raw_write_maps();
  io_lock().unlock();
  return true;
}

}  // namespace andweorc::runtime
