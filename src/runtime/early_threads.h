// early_threads.h: threads that were already running when the profiler
// started. Under LD_PRELOAD another library's constructor can start a pool
// (BLAS, OpenMP) before ours runs; those threads never pass through our
// pthread_create and cannot register themselves.
#ifndef ANDWEORC_RUNTIME_EARLY_THREADS_H_
#define ANDWEORC_RUNTIME_EARLY_THREADS_H_

namespace andweorc::runtime {

// Lists /proc/self/task and, for every thread but the caller, prepares a
// slot and starts a sampler, which the thread takes in its first sample
// (thread_state.h): no extra signal is sent, so no blocked call of the
// program is cut short. Returns how many live threads could not be
// profiled. A thread that has a slot already (a second start after attach's
// detach released the samplers) gets its sampler restarted. At start-up,
// before the collector and coordinator threads exist, and after `andweorc
// attach` from the collector too (threads the program started since did not
// pass through our pthread_create); the runtime's own threads are passed by
// (note_runtime_thread). `pid` is the process's. Not signal-safe.
int prepare_threads_already_running(int pid);

}  // namespace andweorc::runtime

#endif  // ANDWEORC_RUNTIME_EARLY_THREADS_H_
