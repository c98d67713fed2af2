// delay_ramp.h: a hit's delay enters the global count over the CPU time
// its samples stand for, not at once.
//
// Why: a sample of the selected line says its thread ran there for about
// one sample period (its weight x the period) *before* the sample. Coz's
// rule, and ours until now, adds that whole delay (period x speed-up, e.g.
// 0.4 ms at 40% and 1 ms) to the global count the instant the sample is
// handled, so every other thread owes it at once and pays it as one sleep.
// In the ideal virtual speed-up the others are paused *while* the line
// runs, at the rate of the speed-up. A lump paid inside a short stretch of
// another thread's work makes that thread the critical path when the
// ideal pause would have fitted in its slack (waiting at a barrier or a
// join), and the program then loses time no real speed-up would cost:
// large effects of fine-grained synchronisation were predicted low (joined
// at 40%: real 31, predicted 22 with 4 ms lumps, 10-17 with the timer
// sampler's tick-sized lumps). A ramp releases the same delay at the
// speed-up's rate over the window the samples stand for: the same total,
// shifted by at most one window, never a lump.
//
// Representation: each thread that hits the selection in an experiment owns
// one DelayRamp of the experiment state (shared by a process tree). Its
// value at time t is `done` (ramps finished or folded) plus the part of the
// current ramp released by t. The global count is the instant count plus
// every ramp's value. A thread posts only into its own ramp, so a ramp has
// one writer at a time, which takes it by moving `seq` from even to odd
// (the coordinator folds every ramp between experiments the same way);
// readers retry while a write is under way (a few dozen nanoseconds) and,
// should a writer stall, count only `done`: a lower bound, never more than
// was released. When every ramp is taken, a hit's delay goes into the
// instant count as before.
//
// Everything here is ANDWEORC_SIGNAL_SAFE: atomics on plain memory (a
// MAP_SHARED segment in a tree), no locks held across calls, no syscalls.
#ifndef ANDWEORC_RUNTIME_DELAY_RAMP_H_
#define ANDWEORC_RUNTIME_DELAY_RAMP_H_

#include <stdint.h>

#include "runtime/signal_safe.h"

namespace andweorc::runtime {

inline constexpr int kDelayRamps = 32;

struct alignas(64) DelayRamp {
  uint32_t seq = 0;    // atomic; odd while a writer holds the ramp
  uint32_t owner = 0;  // claim id of the thread posting into it; 0: free
  uint64_t done = 0;   // released delay of earlier ramps, ns
  uint64_t start_ns = 0;
  uint64_t amount = 0;  // the current ramp's delay, ns
  uint64_t span = 0;    // ns it takes to release it all
};

struct RampSet {
  // ns of wall time one hit stands for (the sample period); 0: no ramps,
  // every hit's delay enters the instant count.
  uint64_t window_per_hit = 0;  // atomic
  // When the running experiment ended (0: it runs): ramps release nothing
  // after it, their rest is dropped when the next experiment starts.
  uint64_t stop_ns = 0;  // atomic
  uint32_t used = 0;     // atomic; ramps[0, used) may be non-zero
  uint32_t claims = 0;   // atomic; source of claim ids
  DelayRamp ramps[kDelayRamps];
};

// The delay every ramp has released by `now` (stop_ns caps it).
ANDWEORC_SIGNAL_SAFE uint64_t ramp_total(const RampSet& set, uint64_t now);

// A thread's handle on its ramp: valid while `epoch` is the experiment's.
struct RampClaim {
  int32_t index = -1;
  uint32_t owner = 0;
  uint32_t epoch = 0;
};

// Adds `amount` ns released over `window` ns from `now` to the thread's
// ramp (claiming one for experiment `epoch` first). False when no ramp
// could take it (all claimed, or one is being folded): the caller adds it
// to the instant count instead.
ANDWEORC_SIGNAL_SAFE bool ramp_post(RampSet& set, RampClaim& claim,
                                    uint32_t epoch, uint64_t amount,
                                    uint64_t window, uint64_t now);

// Coordinator, between experiments: each ramp keeps what it released by
// `now` (or stop_ns if set) and drops the rest; every claim ends. Then
// stop_ns is cleared.
void ramp_fold_all(RampSet& set, uint64_t now);

}  // namespace andweorc::runtime

#endif  // ANDWEORC_RUNTIME_DELAY_RAMP_H_
