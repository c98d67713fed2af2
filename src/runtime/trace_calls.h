// trace_calls.h: `andweorc run --trace FUNCTION`: each call of a traced
// function, timed from its entry to its return per thread, recorded by the
// hooks the patched entry and exits call (code_patch.h) and written to the
// raw file as kTraceCalls records by the collector.
#ifndef ANDWEORC_RUNTIME_TRACE_CALLS_H_
#define ANDWEORC_RUNTIME_TRACE_CALLS_H_

#include <stdint.h>

#include "runtime/code_patch.h"
#include "runtime/probe_event.h"
#include "runtime/signal_safe.h"

namespace andweorc::runtime {

constexpr int kMaxTracedFunctions = 16;
constexpr int kMaxTraceSites = 48;  // entries and exits together
constexpr int kTraceDepth = 32;     // nested traced calls per thread

// A kKindTraceEntry/Exit (--trace) or kKindLatencyEntry/Exit (--latency
// NAME=FUNCTION) line of ANDWEORC_PROBES (start-up only).
void trace_add_site(const ProbeEvent& e);
bool trace_wanted();

// Appends the patch requests of every traced site to `out` (at most `cap`);
// returns how many. Their specs live in this module; each site's run-time
// address is its vaddr + the bias of its object (ProbeEvent::bias, set
// before trace_add_site).
int trace_patch_requests(PatchRequest* out, int cap);

// After code_patch_install: a function is traced (or counted) only if its
// entry and every exit were patched (an exit left unpatched would leave its
// calls without a return); a latency function's point is registered then.
// Writes the kTraceNames record and a note per function that is not
// traced or counted. Takes io_lock.
void trace_patch_done(const PatchRequest* requests, int count);

// Live probes (probe_live.cc, the coordinator thread only). Adds one
// function hooked at `lines` (its entry and exit lines, one mode: --trace
// or --latency FUNCTION kinds, relocated by the caller), patched all or
// none (code_patch_install_live); a latency function's point is
// registered (`begin_slot`). false with `why` (static) when refused.
bool trace_live_add(const ProbeEvent* lines, int n, uint32_t live_id,
                    int* begin_slot, const char** why);
// Takes out the hooks of live probe `live_id` (original bytes back); its
// counts and recorded calls stay. `found`: it had a function in (`name`).
bool trace_live_remove(uint32_t live_id, uint32_t* restored, bool* found,
                       const char** name, const char** why);

// The hooks (called by the trampolines with every register saved): `site`
// is the hooked address's index (its function's entry or one of its
// exits), `sp` points at the call's return address, the same value at its entry
// and at its return, which pairs them (recursion included). Async-signal-safe,
// no lock, bounded work, never blocks: a call is dropped and counted when the
// ring is full, the thread is nested deeper than kTraceDepth, or a signal
// handler interrupted the hook of the same thread.
extern "C" ANDWEORC_SIGNAL_SAFE void andweorc_trace_enter(uint64_t site,
                                                          uint64_t sp);
extern "C" ANDWEORC_SIGNAL_SAFE void andweorc_trace_exit(uint64_t site,
                                                         uint64_t sp);

// A --progress point at a hooked address (a function's entry or an exit)
// shares the hook (one jump per address): the hooked site at run-time
// address `site`, or -1 (start-up, after trace_add_site); whether its jump
// was written (after trace_patch_done); and the runs of its hook (any
// thread or handler).
int trace_site_at(uint64_t site);
bool trace_site_patched(int site);
ANDWEORC_SIGNAL_SAFE uint64_t trace_site_passes(int site);

// BEGINs or ENDs counted for point `slot` by `--latency NAME=FUNCTION`
// hooks (0 for any other point): loads only, async-signal-safe.
ANDWEORC_SIGNAL_SAFE uint64_t trace_point_hits(int slot);

// Moves the finished calls from the ring to the raw file (caller holds
// io_lock: the collector every 20 ms, and the end).
ANDWEORC_SIGNAL_SAFE void trace_drain();
// The last drain and the kTraceStats record (caller holds io_lock).
ANDWEORC_SIGNAL_SAFE void trace_write_final();

// In a fork child (one thread): the ring may hold slots other threads of
// the parent were writing; it starts empty, the counts from zero.
void trace_after_fork_child();

}  // namespace andweorc::runtime

#endif  // ANDWEORC_RUNTIME_TRACE_CALLS_H_
