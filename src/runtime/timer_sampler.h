// timer_sampler.h: the fallback sampler for when perf_event_open is refused.
//
// A per-thread POSIX timer on the thread's CPU clock delivers the profiler
// signal to that thread (SIGEV_THREAD_ID). The kernel only fires it once per
// scheduler tick (4 ms at HZ=250) whatever period we ask, so each sample
// carries weight = 1 + overruns. The handler reads the PC from the signal
// context and walks the frame-pointer chain within the thread's stack bounds.
#ifndef ANDWEORC_RUNTIME_TIMER_SAMPLER_H_
#define ANDWEORC_RUNTIME_TIMER_SAMPLER_H_

#include <stdint.h>
#include <ucontext.h>

#include "runtime/thread_state.h"

namespace andweorc::runtime {

bool timer_start(ThreadState* s, uint64_t period_ns, int signal_number,
                 int* error);
// Deletes the timer (owning thread only).
void timer_stop(ThreadState* s);
// Disarms without deleting; any thread.
void timer_disable(ThreadState* s);
ANDWEORC_SIGNAL_SAFE void timer_sample(ThreadState* s, const ucontext_t* uc);
// timer_start from the owning thread's signal handler (raw system calls; the
// stack bounds must already be known). Used to leave perf for the timer.
ANDWEORC_SIGNAL_SAFE bool timer_start_from_handler(ThreadState* s,
                                                   uint64_t period_ns,
                                                   int signal_number);
// Records the calling thread's stack bounds for the frame-pointer walk. May
// allocate (main thread: reads /proc/self/maps): never from a handler.
void timer_note_stack(ThreadState* s);

}  // namespace andweorc::runtime

#endif  // ANDWEORC_RUNTIME_TIMER_SAMPLER_H_
