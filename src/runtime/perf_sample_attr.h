// perf_sample_attr.h: the perf event the runtime samples each thread with,
// in one place: the runtime opens it (perf_sampler.cc), and the tool
// measures what one of its samples costs this machine before choosing a
// sampler (cli/sampler_calibration.cc), so both must ask the kernel for the
// same work per sample. Header-only, no allocation: safe wherever the
// runtime opens events.
#ifndef ANDWEORC_RUNTIME_PERF_SAMPLE_ATTR_H_
#define ANDWEORC_RUNTIME_PERF_SAMPLE_ATTR_H_

#include <linux/perf_event.h>
#include <string.h>
#include <time.h>

#include <cstdint>

#include "runtime/raw_format.h"

namespace andweorc::runtime {

// A disabled task-clock event sampling every `period_ns` of the thread's
// CPU time: instruction, thread, time and the user call chain. One wakeup
// per sample (the runtime asks for a signal at each).
inline perf_event_attr perf_sample_attr(uint64_t period_ns) {
  perf_event_attr attr;
  memset(&attr, 0, sizeof attr);
  attr.size = sizeof attr;
  attr.type = PERF_TYPE_SOFTWARE;
  attr.config = PERF_COUNT_SW_TASK_CLOCK;
  attr.sample_period = period_ns;
  attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
                     PERF_SAMPLE_CALLCHAIN;
  attr.disabled = 1;
  attr.exclude_kernel = 1;  // required at perf_event_paranoid=2 for non-root
  attr.exclude_hv = 1;
  attr.exclude_callchain_kernel = 1;
  attr.sample_max_stack = raw::kMaxFrames;
  attr.wakeup_events = 1;
  attr.use_clockid = 1;
  attr.clockid = CLOCK_MONOTONIC;  // comparable with clock_gettime
  return attr;
}

}  // namespace andweorc::runtime

#endif  // ANDWEORC_RUNTIME_PERF_SAMPLE_ATTR_H_
