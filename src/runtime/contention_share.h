// contention_share.h: the arithmetic of contention scaling (contention.h),
// kept apart from the /proc reading so that it can be unit-tested.
//
// A thread's run-queue wait (schedstat) has two parts. Waiting after a
// preemption stretches the line the thread was running: a real speed-up of
// that line would save it, so the hit's delay should stand for it too.
// Waiting after a wake-up (the thread blocked, was woken, and waits for a
// CPU) belongs to the block, not to any line's work. schedstat does not
// split them; the context-switch counts in /proc/<tid>/status do split the
// switches, so the wait is shared out in proportion to the involuntary ones.
// A thread pool on an idle machine (many wake-ups, no preemption) then keeps
// scale 1 instead of being inflated by its wake-up latency.
#ifndef ANDWEORC_RUNTIME_CONTENTION_SHARE_H_
#define ANDWEORC_RUNTIME_CONTENTION_SHARE_H_

#include <stdint.h>

namespace andweorc::runtime {

// How contention scaling counts run-queue wait (ANDWEORC_CONTENTION). Off
// by default until measured on the whole known-answer suite, quiet and
// loaded (docs/design.md).
enum class ContentionMode {
  kOff,        // unset, "0", anything else: a hit stands for one period
  kPreempted,  // "1": the preempted share of the wait (see above)
  kAllWait,    // "all": every run-queue wait (wake-up latency included)
};

// Parses ANDWEORC_CONTENTION's value (nullptr: unset).
ContentionMode contention_mode(const char* value);

// The part of `wait_ns` that followed involuntary switches: wait * invol /
// (vol + invol); all of it when the window saw no switch at all.
uint64_t preempted_wait(uint64_t wait_ns, uint64_t voluntary,
                        uint64_t involuntary);

// 1024 * (cpu_ns + counted_ns) / cpu_ns for a window with `cpu_ns` running
// and `wait_ns` runnable but not running, of which `counted_ns` stretched
// the lines the thread ran; `previous` when the window is too short to tell
// (under 2 ms) or the thread did not run. Capped at 8x.
uint32_t contention_scale(uint64_t cpu_ns, uint64_t wait_ns,
                          uint64_t counted_ns, uint32_t previous);

// Reads "voluntary_ctxt_switches:" and "nonvoluntary_ctxt_switches:" from
// the text of /proc/<tid>/status; false when either is missing.
bool parse_ctxt_switches(const char* status, uint64_t* voluntary,
                         uint64_t* involuntary);

}  // namespace andweorc::runtime

#endif  // ANDWEORC_RUNTIME_CONTENTION_SHARE_H_
