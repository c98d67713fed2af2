// delay_credit.h: a lump of delay is owed only for the part of the time it
// stands for in which a thread was running.
//
// Why: a sample of the selected line says its thread ran there for about
// one sample period (its weight x the period) *before* the sample, and its
// whole delay (e.g. 0.4 ms at 40% and 1 ms) enters the global count the
// instant the sample is handled. In the ideal virtual speed-up that delay
// is inserted while the line runs, over that window, and a thread that was
// blocked meanwhile and woken by another thread is credited with what was
// inserted while it waited (delay_engine.h's inheritance rule). Paid as a
// lump instead, a thread that had waited most of the window (at a barrier,
// a join, a lock the sped-up thread held) owes it all, pays it inside its
// next short stretch of work and becomes the critical path where the ideal
// pause fitted in its wait: large effects of fine-grained synchronisation
// came out low (barrier heavy at 40%: real 33, predicted 21-27; at 75% and
// 50 ms experiments even negative), the coarser the samples the lower.
//
// Rule: every lump is logged with its window [end - w, end] (w = hits x the
// period a hit stands for x the poster's CPU-share scale). Before a thread
// pays, it credits itself, for each lump posted since it last looked by
// another thread, amount x (its time blocked within the window and ended by
// another thread's wake-up) / w. Lumps posted while it was blocked are
// covered by the wake-up rule already and are not looked at again.
//
// Representation: a LumpLog of the last kLumpSlots lumps in the experiment
// state (shared by a process tree); a slot has a sequence word, odd while
// its writer fills it; readers skip a slot whose word moved. A lump that
// could not be logged (its slot was being written, 64 lumps ago) or that
// was overwritten before a thread looked is simply not credited: the thread
// pays it in full, as before this rule. Each thread keeps its last
// kBlockedSpans blocked spans (BlockedSpans), touched only by its own
// engine operations.
//
// Everything here is ANDWEORC_SIGNAL_SAFE: atomics on plain memory (a
// MAP_SHARED segment in a tree), no locks, no syscalls.
#ifndef ANDWEORC_RUNTIME_DELAY_CREDIT_H_
#define ANDWEORC_RUNTIME_DELAY_CREDIT_H_

#include <stdint.h>

#include "runtime/signal_safe.h"

namespace andweorc::runtime {

inline constexpr int kLumpSlots = 64;
inline constexpr int kBlockedSpans = 8;

struct alignas(64) Lump {
  uint64_t seq = 0;       // atomic; odd while written, 0: never written
  uint64_t start = 0;     // instant count before this lump (monotone)
  uint64_t amount = 0;    // ns
  uint64_t begin_ns = 0;  // the window the lump stands for
  uint64_t end_ns = 0;
  uint32_t owner = 0;  // account id of the poster (it owes none of it)
  uint32_t epoch = 0;  // experiment it belongs to
};

struct LumpLog {
  // ns of wall time one hit stands for (the sample period); 0: lumps are
  // neither logged nor credited (Coz's rule).
  uint64_t window_per_hit = 0;  // atomic
  uint64_t next = 0;            // atomic; lumps logged so far
  uint32_t ids = 0;             // atomic; source of account ids
  Lump slots[kLumpSlots];
};

// A thread's recent blocked spans that ended in a wake-up by another thread.
struct BlockedSpans {
  uint64_t begin[kBlockedSpans] = {};
  uint64_t end[kBlockedSpans] = {};
  uint32_t next = 0;
};

// A fresh account id (never 0), unique across the log's users.
ANDWEORC_SIGNAL_SAFE uint32_t lump_new_id(LumpLog& log);

// Logs a lump of `amount` ns that entered the instant count at `start`,
// standing for [begin_ns, end_ns]. Drops it if its slot is being written.
ANDWEORC_SIGNAL_SAFE void lump_post(LumpLog& log, uint32_t epoch,
                                    uint64_t start, uint64_t amount,
                                    uint64_t begin_ns, uint64_t end_ns,
                                    uint32_t owner);

// Remembers a blocked span (the oldest of kBlockedSpans is forgotten).
ANDWEORC_SIGNAL_SAFE void spans_add(BlockedSpans& s, uint64_t begin_ns,
                                    uint64_t end_ns);

// ns of [begin_ns, end_ns] covered by the spans (spans do not overlap: a
// thread blocks once at a time).
ANDWEORC_SIGNAL_SAFE uint64_t spans_overlap(const BlockedSpans& s,
                                            uint64_t begin_ns, uint64_t end_ns);

// The credit owed to account `owner` with blocked spans `s` for the lumps of
// `epoch` that entered the instant count within [from, to): each one's
// amount x its window's share covered by the spans.
ANDWEORC_SIGNAL_SAFE uint64_t lump_credit(const LumpLog& log, uint32_t epoch,
                                          const BlockedSpans& s, uint32_t owner,
                                          uint64_t from, uint64_t to);

}  // namespace andweorc::runtime

#endif  // ANDWEORC_RUNTIME_DELAY_CREDIT_H_
