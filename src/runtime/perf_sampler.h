// perf_sampler.h: per-thread perf_event_open task-clock sampling.
//
// Each thread gets its own software task-clock event (pid = tid, cpu = -1)
// with IP, TID, TIME and a user call chain written into a small mmap'd ring.
// The overflow signal goes to that very thread (F_SETOWN_EX/F_OWNER_TID), whose
// handler moves the records into the thread's SampleRing.
#ifndef ANDWEORC_RUNTIME_PERF_SAMPLER_H_
#define ANDWEORC_RUNTIME_PERF_SAMPLER_H_

#include <stdint.h>

#include "runtime/thread_state.h"

namespace andweorc::runtime {

// Opens, maps and enables the event for the calling thread. On failure
// returns false with *error set to the errno of the failing step, and
// *step naming it ("perf_event_open", "mmap", "fcntl").
bool perf_start(ThreadState* s, uint64_t period_ns, int signal_number,
                int* error, const char** step);
// Disables, unmaps and closes the event. Owning thread only: the owner's
// handler may be reading the mapping.
void perf_stop(ThreadState* s);
// Stops sample generation without unmapping; any thread, any state.
void perf_disable(ThreadState* s);
// Moves every complete record out of the perf ring (owning thread only).
ANDWEORC_SIGNAL_SAFE void perf_drain(ThreadState* s);

}  // namespace andweorc::runtime

#endif  // ANDWEORC_RUNTIME_PERF_SAMPLER_H_
