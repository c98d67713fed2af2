// thread_state.cc: the thread pool of profiler state (see thread_state.h).
#include "runtime/thread_state.h"

#include <pthread.h>
#include <sys/mman.h>

#include <new>

#include "runtime/blocking.h"
#include "runtime/internal_fds.h"
#include "runtime/perf_sampler.h"
#include "runtime/progress_points.h"
#include "runtime/raw_format.h"
#include "runtime/raw_writer.h"
#include "runtime/runtime.h"
#include "runtime/timer_sampler.h"

namespace andweorc::runtime {
namespace {

// The pool: chunk 0 is static; chunk c is mapped (under g_claim_lock) when
// every slot before it is taken, and published before g_slot_count covers
// it, so thread_slot(i) for i < g_slot_count always finds its chunk.
ThreadState g_first_chunk[kSlotsPerChunk];
ThreadState* g_chunks[kSlotChunks] = {g_first_chunk};  // atomic
int g_slot_count = 0;  // highest slot ever claimed + 1 (atomic)

ANDWEORC_SIGNAL_SAFE inline ThreadState* slot_at(int index) {
  return __atomic_load_n(&g_chunks[index / kSlotsPerChunk], __ATOMIC_ACQUIRE) +
         index % kSlotsPerChunk;
}

// Maps chunk c (caller holds g_claim_lock). False when memory is short.
bool map_chunk(int c) {
  if (__atomic_load_n(&g_chunks[c], __ATOMIC_ACQUIRE) != nullptr) return true;
  void* mem = mmap(nullptr, sizeof(ThreadState) * kSlotsPerChunk,
                   PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mem == MAP_FAILED) return false;
  auto* chunk = static_cast<ThreadState*>(mem);
  for (int i = 0; i < kSlotsPerChunk; ++i) new (chunk + i) ThreadState();
  __atomic_store_n(&g_chunks[c], chunk, __ATOMIC_RELEASE);
  return true;
}
uint64_t g_registered = 0;
SpinLock g_claim_lock;
ANDWEORC_TLS ThreadState* t_state = nullptr;

pthread_key_t g_exit_key;
pthread_once_t g_key_once = PTHREAD_ONCE_INIT;

// Runs at thread exit (return from the start routine or pthread_exit), after
// the program's own thread_local destructors, so their progress points count.
void on_thread_exit(void*) { unregister_current_thread(); }
void make_key() { pthread_key_create(&g_exit_key, on_thread_exit); }

// Slots prepared for running threads and not yet taken (atomic): the
// handler scans the pool only while this is non-zero.
int g_pending_adoptions = 0;

// Takes a prepared slot for `tid` (adopt_pending 1 -> 0), or false.
ANDWEORC_SIGNAL_SAFE bool take_prepared(ThreadState* s) {
  int one = 1;
  if (!__atomic_compare_exchange_n(&s->adopt_pending, &one, 0, false,
                                   __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
    return false;
  __atomic_sub_fetch(&g_pending_adoptions, 1, __ATOMIC_RELEASE);
  return true;
}

// A free slot, now kLive. With prepare_for > 0, for that running thread
// (nullptr if it has a slot already); else for the caller, whose slot
// prepared by start-up is taken if there is one (*prepared = true). One
// critical section, so a thread being created while start-up enumerates
// threads ends up with exactly one slot.
ThreadState* claim_slot(int prepare_for = 0, bool* prepared = nullptr) {
  int tid = prepare_for > 0 ? prepare_for : current_tid();
  g_claim_lock.lock();
  ThreadState* found = nullptr;
  // Self-registration scans only while slots are prepared (under the lock:
  // preparing one counts it under the same lock).
  int n = prepare_for > 0 ||
                  __atomic_load_n(&g_pending_adoptions, __ATOMIC_ACQUIRE) > 0
              ? thread_slot_count()
              : 0;
  for (int i = 0; i < n; ++i) {
    ThreadState* s = slot_at(i);
    if (__atomic_load_n(&s->status, __ATOMIC_RELAXED) != kLive || s->tid != tid)
      continue;
    if (prepare_for == 0) {
      if (!take_prepared(s)) continue;  // a stale slot of a reused tid
      *prepared = true;
    } else {
      s = nullptr;  // that thread has its slot (or one is prepared)
    }
    g_claim_lock.unlock();
    return s;
  }
  for (int i = 0; i < kMaxThreads; ++i) {
    if (i % kSlotsPerChunk == 0 && !map_chunk(i / kSlotsPerChunk)) break;
    if (__atomic_load_n(&slot_at(i)->status, __ATOMIC_RELAXED) == kFree) {
      found = slot_at(i);
      found->tid = tid;
      if (prepare_for > 0) {
        __atomic_add_fetch(&g_pending_adoptions, 1, __ATOMIC_RELEASE);
        __atomic_store_n(&found->adopt_pending, 1, __ATOMIC_RELEASE);
      }
      __atomic_store_n(&found->status, kLive, __ATOMIC_RELEASE);
      if (i >= g_slot_count)
        __atomic_store_n(&g_slot_count, i + 1, __ATOMIC_RELEASE);
      break;
    }
  }
  g_claim_lock.unlock();
  return found;
}

void write_thread_event(ThreadState* s, uint32_t event) {
  raw::ThreadRecord tr{uint32_t(s->tid), event, monotonic_ns()};
  io_lock().lock();
  raw_write(raw::kThread, &tr, sizeof tr);
  io_lock().unlock();
}

}  // namespace

ANDWEORC_SIGNAL_SAFE ANDWEORC_RT_HOT ThreadState* current_thread() {
  return t_state;
}

ANDWEORC_SIGNAL_SAFE ThreadState* thread_slot(int index) {
  return slot_at(index);
}

ANDWEORC_SIGNAL_SAFE int thread_slot_count() {
  return __atomic_load_n(&g_slot_count, __ATOMIC_ACQUIRE);
}

uint64_t threads_registered() {
  return __atomic_load_n(&g_registered, __ATOMIC_RELAXED);
}

namespace {

// Memory a slot needs before its thread can use it. Not signal-safe.
void provision(ThreadState* s) {
  if (s->ring_memory == nullptr) {
    void* mem = mmap(nullptr, kRingBytes, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mem != MAP_FAILED) s->ring_memory = static_cast<uint8_t*>(mem);
  }
  if (s->ring_memory != nullptr && !s->ring.ready())
    s->ring.init(s->ring_memory, kRingBytes);
  if (s->counters == nullptr)
    __atomic_store_n(&s->counters, counters_allocate(), __ATOMIC_RELEASE);
  s->delay = DelayAccount{};
}

}  // namespace

ThreadState* register_current_thread() {
  if (t_state != nullptr) return t_state;
  bool prepared = false;
  ThreadState* s = claim_slot(0, &prepared);
  if (s == nullptr) return nullptr;
  if (prepared) {
    // Prepared for us by the start-up enumeration (we were being created
    // while it ran): that slot, whose sampler it starts, is ours.
    t_state = s;
    pthread_setspecific(g_exit_key, s);
    return s;
  }
  provision(s);
  t_state = s;
  __atomic_add_fetch(&g_registered, 1, __ATOMIC_RELAXED);

  pthread_once(&g_key_once, make_key);
  pthread_setspecific(g_exit_key, s);
  // The thread's timer slack stays the program's: the delay engine lowers
  // it only around its own sleeps (delay_engine.cc, real_sleep).
  s->stack_lo = s->stack_hi = 0;  // the slot's previous thread's
  if (runtime_active()) {
    write_thread_event(s, raw::kThreadStart);
    start_thread_sampler(s);
  }
  return s;
}

ThreadState* prepare_running_thread(int tid) {
  pthread_once(&g_key_once, make_key);  // adopt_prepared_thread uses the key
  ThreadState* s = claim_slot(tid);
  if (s == nullptr) return nullptr;
  provision(s);
  s->stack_lo = s->stack_hi = 0;  // unknown: no frame walk in timer mode
  __atomic_add_fetch(&g_registered, 1, __ATOMIC_RELAXED);
  if (runtime_active()) write_thread_event(s, raw::kThreadStart);
  return s;
}

void note_thread_kept_slot(ThreadState* s) {
  if (runtime_active()) write_thread_event(s, raw::kThreadStart);
}

void abandon_prepared_thread(ThreadState* s) {
  if (!take_prepared(s)) return;  // its thread took it after all
  counters_retire(&s->counters);
  __atomic_store_n(&s->status, kFree, __ATOMIC_RELEASE);
}

ANDWEORC_SIGNAL_SAFE ThreadState* adopt_prepared_thread() {
  if (t_state != nullptr) return t_state;
  if (__atomic_load_n(&g_pending_adoptions, __ATOMIC_ACQUIRE) == 0)
    return nullptr;
  int tid = current_tid();
  for (int i = 0, n = thread_slot_count(); i < n; ++i) {
    ThreadState* s = slot_at(i);
    if (__atomic_load_n(&s->adopt_pending, __ATOMIC_ACQUIRE) == 0 ||
        s->tid != tid)
      continue;
    if (!take_prepared(s)) return nullptr;  // abandoned meanwhile
    t_state = s;
    // So that the thread's exit unregisters it. glibc's pthread_setspecific
    // is not on POSIX's async-signal-safe list, but for the first 32 keys
    // (PTHREAD_KEY_2NDLEVEL_SIZE; ours is created at start-up, usually
    // among the first) it stores into the thread descriptor: no allocation,
    // no lock. A later key could allocate: then the slot is not given back
    // at the thread's exit (its sampler just stops with the thread).
    if (g_exit_key < 32) pthread_setspecific(g_exit_key, s);
    return s;
  }
  return nullptr;
}

void unregister_current_thread() {
  ThreadState* s = t_state;
  if (s == nullptr) return;
  stop_thread_sampler(s);
  // Hand the remaining samples and counts over before the slot is reused.
  io_lock().lock();
  if (runtime_active()) {
    raw_drain_ring(s);  // only this thread's: the others are the collector's
    raw::ThreadRecord tr{uint32_t(s->tid), raw::kThreadExit, monotonic_ns()};
    raw_write(raw::kThread, &tr, sizeof tr);
  }
  counters_retire(&s->counters);
  t_state = nullptr;
  __atomic_store_n(&s->status, kFree, __ATOMIC_RELEASE);
  io_lock().unlock();
}

void thread_states_after_fork_child() {
  g_claim_lock.reset_after_fork();
  ThreadState* self = t_state;
  for (int i = 0, n = thread_slot_count(); i < n; ++i) {
    ThreadState* s = slot_at(i);
    if (s == self || s->status != kLive) continue;
    // Threads other than the caller do not exist in the child. Their perf
    // fds and mappings are copies of the parent's: drop them.
    perf_event_mmap_page* page = s->perf_page;
    if (page) munmap(page, s->perf_mmap_bytes);
    s->perf_page = nullptr;
    andweorc_fd_release(&s->perf_fd);
    s->has_timer = false;  // POSIX timers are not inherited across fork
    if (s->ring.ready()) s->ring.init(s->ring_memory, kRingBytes);
    counters_retire(&s->counters);
    s->adopt_pending = 0;  // its thread does not exist here
    s->status = kFree;
  }
  g_pending_adoptions = 0;
  if (self != nullptr) {
    if (self->perf_page) munmap(self->perf_page, self->perf_mmap_bytes);
    self->perf_page = nullptr;
    andweorc_fd_release(&self->perf_fd);
    self->has_timer = false;
    self->ring.init(self->ring_memory, kRingBytes);
    self->tid = current_tid();
  }
}

void stop_all_samplers() {
  for (int i = 0, n = thread_slot_count(); i < n; ++i) {
    ThreadState* s = slot_at(i);
    if (__atomic_load_n(&s->status, __ATOMIC_ACQUIRE) == kLive)
      disable_thread_sampler(s);
  }
}

void release_thread_samplers() {
  for (int i = 0, n = thread_slot_count(); i < n; ++i) {
    ThreadState* s = slot_at(i);
    if (__atomic_load_n(&s->status, __ATOMIC_ACQUIRE) != kLive) continue;
    perf_release(s);
    timer_stop(s);
  }
}

}  // namespace andweorc::runtime
