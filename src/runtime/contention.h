// contention.h: how much of a CPU each thread has been getting lately.
//
// Samples count CPU time, but a preempted thread spends longer (in wall
// time) in a line than its samples say, and a real speed-up of the line
// would save that wall time. The collector reads each live thread's
// /proc/self/task/<tid>/schedstat (CPU time, time spent runnable but
// waiting) and status (voluntary and involuntary switches) every pass and
// sets DelayAccount::scale = 1024 * (CPU + preempted wait) / CPU, so the
// delay a hit inserts stands for the line's wall time (contention_share.h
// says which wait counts). Not signal-safe; collector thread only.
#ifndef ANDWEORC_RUNTIME_CONTENTION_H_
#define ANDWEORC_RUNTIME_CONTENTION_H_

#include "runtime/contention_share.h"

namespace andweorc::runtime {

// One pass over the live threads; nothing with ContentionMode::kOff.
void update_contention(ContentionMode mode);

}  // namespace andweorc::runtime

#endif  // ANDWEORC_RUNTIME_CONTENTION_H_
