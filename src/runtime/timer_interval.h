// timer_interval.h: how far apart a thread's CPU-time timer signals really
// come, measured.
//
// Why: the kernel checks CPU-time timers at the scheduler tick, so a
// thread's timer fires at most once per tick whatever period is asked (4 ms
// at HZ=250, 1 ms at HZ=1000), and each signal stands for 1 + overruns of
// its periods (its weight). A thread's delays come that far apart too, so
// the coordinator's shortest experiment is 50 of these intervals
// (planner::shortest_experiment_ns). Measured rather than assumed: a
// kernel with a faster tick gets the shorter experiments it can afford.
//
// ANDWEORC_SIGNAL_SAFE: two relaxed atomic adds on static memory. A reader
// may see one add without the other: a mean off by one signal in hundreds.
#ifndef ANDWEORC_RUNTIME_TIMER_INTERVAL_H_
#define ANDWEORC_RUNTIME_TIMER_INTERVAL_H_

#include <stdint.h>

#include "runtime/signal_safe.h"

namespace andweorc::runtime {

struct TimerIntervals {
  uint64_t signals = 0;  // atomic; timer signals that took a sample
  uint64_t periods = 0;  // atomic; the run's periods they stood for
};

// Counts one timer signal that stood for `periods` of the run's periods.
ANDWEORC_SIGNAL_SAFE inline void timer_intervals_note(TimerIntervals& t,
                                                      uint64_t periods) {
  __atomic_add_fetch(&t.signals, 1, __ATOMIC_RELAXED);
  __atomic_add_fetch(&t.periods, periods, __ATOMIC_RELAXED);
}

// The mean number of the run's periods between two timer signals of a
// thread; 0 until `min_signals` signals were counted.
inline double timer_intervals_mean(const TimerIntervals& t,
                                   uint64_t min_signals) {
  uint64_t n = __atomic_load_n(&t.signals, __ATOMIC_RELAXED);
  uint64_t p = __atomic_load_n(&t.periods, __ATOMIC_RELAXED);
  if (n == 0 || n < min_signals) return 0;
  return double(p) / double(n);
}

// The process's counts (timer_sampler.cc adds to them).
ANDWEORC_SIGNAL_SAFE TimerIntervals& timer_intervals();

}  // namespace andweorc::runtime

#endif  // ANDWEORC_RUNTIME_TIMER_INTERVAL_H_
