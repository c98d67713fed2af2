// sample_hook.cc: see sample_hook.h.
#include "runtime/sample_hook.h"

#include "runtime/address_table.h"
#include "runtime/runtime.h"

namespace andweorc::runtime {

ANDWEORC_SIGNAL_SAFE void on_sample_taken(ThreadState* s,
                                          const uint64_t* frames, int n,
                                          uint32_t weight) {
  const AddressTable* t = address_table();
  if (t == nullptr) return;
  int32_t range = attribute_frames(*t, frames, n);
  if (range < 0) return;
  const AddressRange& r = t->ranges[range];
  __atomic_add_fetch(&t->line_samples[r.line], weight, __ATOMIC_RELAXED);
  __atomic_add_fetch(&t->function_samples[r.function], weight,
                     __ATOMIC_RELAXED);
  if (selection_matches(*t, range)) s->pending_hits += weight;
}

ANDWEORC_SIGNAL_SAFE void after_samples(ThreadState* s) {
  uint64_t hits = s->pending_hits;
  s->pending_hits = 0;
  delay_engine().on_samples(s->delay, hits);
}

}  // namespace andweorc::runtime
