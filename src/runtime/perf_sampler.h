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

// Opens, maps and enables the event for the calling thread (also notes its
// stack bounds, in case it moves to the timer sampler). On failure
// returns false with *error set to the errno of the failing step, and
// *step naming it ("perf_event_open", "mmap", "fcntl").
bool perf_start(ThreadState* s, uint64_t period_ns, int signal_number,
                int* error, const char** step);
// Disables, unmaps and closes the event. Owning thread only: the owner's
// handler may be reading the mapping.
void perf_stop(ThreadState* s);
// perf_stop from any thread, once sampling is disabled (attach's detach):
// the page is taken away first and unmapped only when no handler is still
// draining it; waits (sleeps) up to a second for that. Not signal-safe.
void perf_release(ThreadState* s);
// Stops sample generation without unmapping; any thread, any state.
void perf_disable(ThreadState* s);
// Moves every complete record out of the perf ring (owning thread only).
// Returns the number of sample records it found.
ANDWEORC_SIGNAL_SAFE uint32_t perf_drain(ThreadState* s);

// A per-thread task-clock event costs at every context switch of its thread
// (its hrtimer is cancelled and re-armed; in a VM each reprogramming of the
// timer is an exit to the hypervisor): a thread that blocks and wakes many
// times per millisecond of CPU pays more for its event than for its samples
// (bench/overhead: an epoll server lost 40% with perf, ~0% with the timer).
// Called by the handler at each perf signal: once the thread has used a few
// milliseconds of CPU since the last check, compares its context
// switches with that CPU time (getrusage, user + system: a thread that lives
// in system calls gets few user-mode samples but pays at every switch), and
// moves a switch-heavy thread to the CPU-time timer sampler (which costs
// nothing at a switch: the kernel checks CPU timers at the tick). Once
// moved, the thread stays on the timer. Owning thread's handler only.
ANDWEORC_SIGNAL_SAFE void perf_watch_switches(ThreadState* s);

}  // namespace andweorc::runtime

#endif  // ANDWEORC_RUNTIME_PERF_SAMPLER_H_
