// thread_state.h: per-thread profiler state, kept in a fixed pool.
//
// Contract: a ThreadState is claimed by its thread at registration and
// released at thread exit; the pool never frees memory, so the collector may
// read any slot at any time (it checks `status`). Only the owning thread's
// signal handler produces into `ring`; consumers hold io_lock.
#ifndef ANDWEORC_RUNTIME_THREAD_STATE_H_
#define ANDWEORC_RUNTIME_THREAD_STATE_H_

#include <linux/perf_event.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "runtime/delay_engine.h"
#include "runtime/sample_ring.h"
#include "runtime/signal_safe.h"

namespace andweorc::runtime {

// Slots come in chunks: the first is static, the others are mapped when the
// ones before are full (issue 12 item 11: 4096 was a hard limit).
inline constexpr int kSlotsPerChunk = 4096;
inline constexpr int kSlotChunks = 8;
inline constexpr int kMaxThreads = kSlotsPerChunk * kSlotChunks;
inline constexpr size_t kRingBytes = 128 * 1024;

enum ThreadStatus : int { kFree = 0, kLive = 1 };

struct ThreadState {
  int status = kFree;  // atomic; kLive while a thread owns this slot
  int tid = 0;
  uint32_t sampler = 0;  // raw::SamplerKind actually in use for this thread
  // The run's periods each of its samples stands for now (their weight):
  // changed only by its own handler (sample_period.h) or before its
  // sampler starts.
  uint32_t period_multiple = 1;
  // perf sampler
  int perf_fd = -1;
  // Set by perf_stop before it releases perf_fd: the sampler switch in this
  // thread's handler must then leave the event alone (releasing it from a
  // handler that interrupted perf_stop's own release would wait forever).
  bool perf_stopping = false;
  perf_event_mmap_page* perf_page = nullptr;
  size_t perf_mmap_bytes = 0;
  // perf -> timer switch (perf_sampler.h, perf_watch_switches)
  uint64_t switches_at_check = 0;  // voluntary context switches then
  uint64_t cpu_at_check_ns = 0;    // and the thread's CPU time
  // timer sampler
  timer_t timer{};
  bool has_timer = false;
  uintptr_t stack_lo = 0, stack_hi = 0;  // for the frame-pointer walk
  // samples waiting for the collector
  SampleRing ring;
  uint8_t* ring_memory = nullptr;
  // progress-point counters (ANDWEORC_MAX_COUNTERS), owned by this thread
  uint64_t* counters = nullptr;
  // causal experiments: this thread's delay account, and samples of this
  // signal that hit the selection (handler-local scratch)
  DelayAccount delay;
  uint64_t pending_hits = 0;
  // Prepared for a thread that was already running when the profiler
  // started; the thread takes the slot in its first profiler signal.
  int adopt_pending = 0;  // atomic
};

// The calling thread's state, or nullptr. Signal-safe (initial-exec TLS).
ANDWEORC_SIGNAL_SAFE ThreadState* current_thread();

// Claims a slot for the calling thread and starts sampling it (if the runtime
// is active). Returns the existing state if already registered; nullptr when
// the pool is exhausted. Not signal-safe.
ThreadState* register_current_thread();

// Threads already running when the profiler started (another library's
// constructor made them, or a linked program called andweorc::init late)
// cannot register themselves. Another thread prepares a slot for one (ring,
// counters, start record; the caller then starts its sampler, which perf
// and timers allow for any thread of the process) and the thread takes the
// slot in its first profiler signal. nullptr when `tid` already has a slot
// or the pool is full. Not signal-safe.
ThreadState* prepare_running_thread(int tid);
// Gives a prepared slot back (its sampler could not start).
void abandon_prepared_thread(ThreadState* s);
// A thread that kept its slot while no raw file was open (between two
// attaches): its start record for the new file. Not signal-safe.
void note_thread_kept_slot(ThreadState* s);
// The calling thread's prepared slot, now its own (current_thread() returns
// it, and it is unregistered at thread exit), or nullptr. Signal-safe: one
// load when nothing is pending, else a scan of the pool.
ANDWEORC_SIGNAL_SAFE ThreadState* adopt_prepared_thread();

// Stops sampling the calling thread, hands its samples and counts to the
// collector and frees the slot. Not signal-safe.
void unregister_current_thread();

// Pool access for the collector and shutdown (slot may be kFree), for
// index < thread_slot_count(). Signal-safe.
ANDWEORC_SIGNAL_SAFE ThreadState* thread_slot(int index);
ANDWEORC_SIGNAL_SAFE int thread_slot_count();  // highest slot ever used + 1

// Number of threads ever registered in this process (for the report).
uint64_t threads_registered();

// After fork: frees every slot but the caller's and restarts its sampler.
void thread_states_after_fork_child();

// Stops the sampler of every live thread (shutdown).
void stop_all_samplers();
// After stop_all_samplers and once the runtime is inactive (attach's
// detach): closes every live slot's event and unmaps its ring, deletes its
// timer. The slots stay with their threads, so a later start restarts
// their samplers (early_threads.h). Not signal-safe; may sleep.
void release_thread_samplers();

}  // namespace andweorc::runtime

#endif  // ANDWEORC_RUNTIME_THREAD_STATE_H_
