// timer_sampler.cc: timer_create fallback sampler (see timer_sampler.h).
#include "runtime/timer_sampler.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>

#include "runtime/frame_walk.h"
#include "runtime/raw_format.h"
#include "runtime/sample_hook.h"
#include "runtime/timer_interval.h"

namespace andweorc::runtime {

// constinit: zero before any constructor runs (a signal may come first).
constinit TimerIntervals g_timer_intervals;
ANDWEORC_SIGNAL_SAFE TimerIntervals& timer_intervals() {
  return g_timer_intervals;
}

namespace {

// A 4-argument system call (the 4th goes in r10; raw_syscall has 3):
// timer_settime's old-value pointer must be null, not whatever r10 holds.
ANDWEORC_SIGNAL_SAFE inline long raw_syscall4(long n, long a, long b, long c,
                                              long d) {
  register long r10 asm("r10") = d;
  long ret;
  asm volatile("syscall"
               : "=a"(ret)
               : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10)
               : "rcx", "r11", "memory");
  return ret;
}

}  // namespace

void timer_note_stack(ThreadState* s) {
  // Only the thread itself can ask for its stack: a thread prepared by
  // another (prepare_running_thread) goes without the frame walk.
  if (s->stack_hi != 0 || s->tid != current_tid()) return;
  // Stack bounds for the frame-pointer walk. pthread_getattr_np may allocate
  // (it reads /proc/self/maps for the main thread): fine here, never in the
  // handler.
  pthread_attr_t attr;
  if (pthread_getattr_np(pthread_self(), &attr) == 0) {
    void* addr = nullptr;
    size_t size = 0;
    if (pthread_attr_getstack(&attr, &addr, &size) == 0) {
      s->stack_lo = reinterpret_cast<uintptr_t>(addr);
      s->stack_hi = s->stack_lo + size;
    }
    pthread_attr_destroy(&attr);
  }
}

ANDWEORC_SIGNAL_SAFE bool timer_start_from_handler(ThreadState* s,
                                                   uint64_t period_ns,
                                                   int signal_number) {
  sigevent ev;
  memset(&ev, 0, sizeof ev);
  ev.sigev_notify = SIGEV_THREAD_ID;
  ev.sigev_signo = signal_number;
  ev._sigev_un._tid = s->tid;
  int kernel_id = -1;
  if (raw_syscall(SYS_timer_create, CLOCK_THREAD_CPUTIME_ID, long(&ev),
                  long(&kernel_id)) != 0)
    return false;
  itimerspec spec;
  spec.it_interval.tv_sec = time_t(period_ns / 1000000000u);
  spec.it_interval.tv_nsec = long(period_ns % 1000000000u);
  spec.it_value = spec.it_interval;
  if (raw_syscall4(SYS_timer_settime, kernel_id, 0, long(&spec), 0) != 0) {
    raw_syscall(SYS_timer_delete, kernel_id);
    return false;
  }
  // glibc (>= 2.34) represents a SIGEV_THREAD_ID timer by its kernel id, so
  // timer_getoverrun/timer_delete work on it as on one made by timer_create.
  s->timer = reinterpret_cast<timer_t>(intptr_t(kernel_id));
  __atomic_store_n(&s->has_timer, true, __ATOMIC_RELEASE);
  return true;
}

bool timer_start(ThreadState* s, uint64_t period_ns, int signal_number,
                 int* error) {
  timer_note_stack(s);
  sigevent ev;
  memset(&ev, 0, sizeof ev);
  ev.sigev_notify = SIGEV_THREAD_ID;
  ev.sigev_signo = signal_number;
  ev._sigev_un._tid = s->tid;
  // A thread started for another (early threads, attach) must count the
  // CPU time of the thread it samples, not the caller's.
  const clockid_t clock = s->tid == current_tid() ? CLOCK_THREAD_CPUTIME_ID
                                                  : thread_cpu_clock(s->tid);
  if (timer_create(clock, &ev, &s->timer) != 0) {
    *error = errno;
    return false;
  }
  itimerspec spec;
  const uint64_t p = period_ns * s->period_multiple;  // sample_period.h
  spec.it_interval.tv_sec = time_t(p / 1000000000u);
  spec.it_interval.tv_nsec = long(p % 1000000000u);
  spec.it_value = spec.it_interval;
  if (timer_settime(s->timer, 0, &spec, nullptr) != 0) {
    *error = errno;
    timer_delete(s->timer);
    return false;
  }
  s->has_timer = true;
  return true;
}

void timer_stop(ThreadState* s) {
  if (!__atomic_exchange_n(&s->has_timer, false, __ATOMIC_ACQ_REL)) return;
  timer_delete(s->timer);
}

void timer_disable(ThreadState* s) {
  if (!__atomic_load_n(&s->has_timer, __ATOMIC_ACQUIRE)) return;
  itimerspec off{};
  timer_settime(s->timer, 0, &off, nullptr);
}

ANDWEORC_SIGNAL_SAFE void timer_sample(ThreadState* s, const ucontext_t* uc) {
  if (!__atomic_load_n(&s->has_timer, __ATOMIC_ACQUIRE) || uc == nullptr)
    return;
  if (s->delay.in_delay) return;  // the profiler's own delay, not the program
  raw::SampleHeader sh{};
  sh.tid = uint32_t(s->tid);
  sh.time_ns = monotonic_ns();
  int overrun = timer_getoverrun(s->timer);
  // Each expiry (and overrun) is one period of the timer's, which is
  // period_multiple of the run's (sample_period.h).
  sh.weight = uint32_t(1 + (overrun > 0 ? overrun : 0)) * s->period_multiple;
  timer_intervals_note(timer_intervals(), sh.weight);
  sh.flags = raw::kSampleFromTimer;
  uint64_t frames[raw::kMaxFrames];
  frames[0] = uint64_t(uc->uc_mcontext.gregs[REG_RIP]);
  int n = 1;
  if (s->stack_hi != 0)
    n += walk_frame_pointers(uintptr_t(uc->uc_mcontext.gregs[REG_RBP]),
                             s->stack_lo, s->stack_hi, frames + 1,
                             raw::kMaxFrames - 1);
  sh.nframes = uint16_t(n);
  s->ring.push(&sh, sizeof sh, frames, size_t(n) * sizeof(uint64_t));
  on_sample_taken(s, frames, n, sh.weight);
}

}  // namespace andweorc::runtime
