// contention.h: how much of a CPU each thread has been getting lately.
//
// Samples count CPU time, but a preempted thread spends longer (in wall
// time) in a line than its samples say, and a real speed-up of the line
// would save that wall time. The collector reads each live thread's
// /proc/self/task/<tid>/schedstat (CPU time, time spent runnable but
// waiting) every pass and sets DelayAccount::scale = 1024 / CPU share, so
// the delay a hit inserts stands for the line's wall time. Not signal-safe;
// collector thread only.
#ifndef ANDWEORC_RUNTIME_CONTENTION_H_
#define ANDWEORC_RUNTIME_CONTENTION_H_

#include <stdint.h>

namespace andweorc::runtime {

void update_contention();

// 1024 / share for a window with `cpu_ns` running and `wait_ns` runnable but
// not running; 1024 when the window is too short to tell. Capped at 8x.
uint32_t contention_scale(uint64_t cpu_ns, uint64_t wait_ns, uint32_t previous);

}  // namespace andweorc::runtime

#endif  // ANDWEORC_RUNTIME_CONTENTION_H_
