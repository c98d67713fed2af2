// probe_points.h: progress points at addresses the tool resolved (`andweorc
// run --progress NAME=FUNCTION|FILE:LINE`): patched in process (a jump to a
// counting trampoline, code_patch.h) where the tool planned it, else perf
// uprobe or hardware-breakpoint events in counting mode, inherited by every
// thread created later; their counts join the point's totals.
#ifndef ANDWEORC_RUNTIME_PROBE_POINTS_H_
#define ANDWEORC_RUNTIME_PROBE_POINTS_H_

#include <stdint.h>

#include "runtime/signal_safe.h"

namespace andweorc::runtime {

struct ProbeEvent;  // probe_event.h

// Reads ANDWEORC_PROBES / ANDWEORC_PROBE_MECHANISM, relocates each address
// by the load bias of its object (the executable, or a shared library
// loaded now: probe_object_bias), patches the addresses with a plan
// ("patch..." mechanisms), opens one counting event per other address and
// registers the points. Call from the constructor once the
// raw file is open, before the program starts threads (a thread that exists
// already is not counted). Writes a note naming the mechanism, or why a
// point is not counted.
void probes_start();

// Hits counted for point `slot` (0 for a point without probes): one load
// per patched address, one read() per event: async-signal-safe.
ANDWEORC_SIGNAL_SAFE uint64_t probe_hits(int slot);

// A program thread exited (called from counters_retire).
ANDWEORC_SIGNAL_SAFE void probes_thread_exited();

// At the end (caller holds io_lock; may run in a signal handler): if
// uprobes counted and a program thread exited meanwhile, writes a note that
// the counts may be incomplete. Measured on kernel 6.18: after a thread
// that inherited a uprobe counting event exits, the kernel may stop
// counting that uprobe in the whole process (docs/probes.md); hardware
// breakpoints are not affected.
ANDWEORC_SIGNAL_SAFE void probes_write_final_note();

// Live probes (probe_live.cc, coordinator thread only). Room for `n` more
// events?
bool probes_have_room(int n);
// Appends a patched event; readers (probe_hits, from any thread or
// handler) see it whole once it is counted in (release).
void probes_append(const ProbeEvent& e);
// The events so far (the coordinator thread changes only `removed`).
int probes_count();
ProbeEvent* probes_at(int i);

// In a fork child, after the parent's other threads are retired: the
// inherited descriptors count the parent; opens the child's own events,
// counting from zero like its other points.
void probes_after_fork_child();

}  // namespace andweorc::runtime

#endif  // ANDWEORC_RUNTIME_PROBE_POINTS_H_
