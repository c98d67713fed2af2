// sample_period.cc: see sample_period.h.
//
// Why a multiple, not any period: a sample's weight is an integer count of
// the run's periods (timer overruns already use it), which the delay engine
// (pending hits), the experiments' CPU time and the ingest sum as they
// are; a finer period than the run's would need fractional weights.
#include "runtime/sample_period.h"

#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <time.h>

#include "runtime/runtime.h"
#include "runtime/shared_tree.h"
#include "runtime/signal_safe.h"
#include "runtime/thread_state.h"

namespace andweorc::runtime {
namespace {

// Relaxed atomics, read by every handler: the tree's word when the process
// is part of a tree (so every process follows the coordinator's command),
// else this one.
uint32_t g_multiple = 1;

ANDWEORC_SIGNAL_SAFE uint32_t* multiple_word() {
  TreeSegment* t = tree();
  return t != nullptr ? &t->period_multiple : &g_multiple;
}

}  // namespace

ANDWEORC_SIGNAL_SAFE uint32_t sample_period_multiple() {
  const uint32_t m = __atomic_load_n(multiple_word(), __ATOMIC_RELAXED);
  return m == 0 ? 1 : m;
}

void sample_period_set_multiple(uint32_t multiple) {
  if (multiple < 1) multiple = 1;
  if (multiple > kMaxPeriodMultiple) multiple = kMaxPeriodMultiple;
  __atomic_store_n(multiple_word(), multiple, __ATOMIC_RELAXED);
}

ANDWEORC_SIGNAL_SAFE void sample_period_follow(ThreadState* s) {
  const uint32_t want = sample_period_multiple();
  if (want == s->period_multiple) return;
  const uint64_t period_ns = config().period_ns * want;
  if (s->has_timer) {
    itimerspec spec;
    spec.it_interval.tv_sec = time_t(period_ns / 1000000000u);
    spec.it_interval.tv_nsec = long(period_ns % 1000000000u);
    spec.it_value = spec.it_interval;
    // The timer's kernel id (timer_sampler.cc: glibc represents a
    // SIGEV_THREAD_ID timer by it); the raw call is async-signal-safe.
    if (raw_syscall(SYS_timer_settime, long(intptr_t(s->timer)), 0, long(&spec),
                    0) != 0)
      return;
  } else {
    const int fd = __atomic_load_n(&s->perf_fd, __ATOMIC_ACQUIRE);
    if (fd < 0 || s->perf_stopping) return;
    // For task-clock the kernel restarts the event's timer with the new
    // period at once: the samples already drained were all of the old one.
    uint64_t p = period_ns;
    if (raw_syscall(SYS_ioctl, fd, long(PERF_EVENT_IOC_PERIOD), long(&p)) != 0)
      return;
  }
  s->period_multiple = want;
}

}  // namespace andweorc::runtime
