// sample_period.h: the sampling period changed while the program runs (the
// live page's "sample period" control, docs/live.md): a whole multiple of
// the run's period (--sample-period), so that every sample still stands for
// a whole number of the run's periods (its weight, raw_format.h): the delay
// a sample owes in an experiment, the CPU time it stands for and the
// profile's counts all stay in the run's unit.
#ifndef ANDWEORC_RUNTIME_SAMPLE_PERIOD_H_
#define ANDWEORC_RUNTIME_SAMPLE_PERIOD_H_

#include <stdint.h>

#include "runtime/control_block.h"
#include "runtime/signal_safe.h"

namespace andweorc::runtime {

struct ThreadState;

constexpr uint32_t kMaxPeriodMultiple = kMaxControlPeriodMultiple;

// The multiple every thread's sampler should run at (1 at the start).
ANDWEORC_SIGNAL_SAFE uint32_t sample_period_multiple();

// Asks every thread to sample at `multiple` times the run's period (1 ..
// kMaxPeriodMultiple; others are clamped). Each thread follows at its next
// sample (sample_period_follow): only a thread's own handler may reprogram
// its event or timer (another thread's ioctl would race the owner closing
// it). The coordinator thread; no signal handler.
void sample_period_set_multiple(uint32_t multiple);

// In thread `s`'s own profiler-signal handler, after its samples were
// taken: reprograms its perf event (PERF_EVENT_IOC_PERIOD) or its CPU-time
// timer when the wanted multiple changed, and records the multiple its next
// samples stand for (ThreadState::period_multiple). A failed reprogram
// leaves the old period (and its weight) in force; the next sample tries
// again. Async-signal-safe: two loads and at most one system call.
ANDWEORC_SIGNAL_SAFE void sample_period_follow(ThreadState* s);

}  // namespace andweorc::runtime

#endif  // ANDWEORC_RUNTIME_SAMPLE_PERIOD_H_
