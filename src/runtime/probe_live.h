// probe_live.h: dynamic probes added and removed while the program runs (the
// live page's "Probes", docs/live.md): the coordinator thread applies the
// tool's probe commands (runtime/control_block.h) here.
#ifndef ANDWEORC_RUNTIME_PROBE_LIVE_H_
#define ANDWEORC_RUNTIME_PROBE_LIVE_H_

#include "runtime/control_block.h"

namespace andweorc::runtime {

// Applies one probe command; the acknowledgement to send (seq and id are
// the caller's). Coordinator thread only, never a signal handler: it maps
// memory, writes code and takes the raw file's lock for a note.
//  - kAdd: `lines` are ANDWEORC_PROBES lines of one progress point (a
//    marker line, then one line per address, each with its patch plan),
//    resolved by the tool for this executable. Every address is patched in
//    process or none is (code_patch_install_live: the same checks as at
//    start-up); then the point is registered and counts from now on.
//  - kRemove: the jumps of probe `id` are taken out (the original bytes
//    written back); the point and its count so far stay.
ProbeAck probes_live_apply(const ProbeCommand& c);

// Probes in a shared library the program loads after start-up (dlopen):
// probes_start keeps each line whose library is not loaded yet (false when
// there is no room: the line is then not counted); the collector, after it
// saw a library loaded (raw_write_maps_if_changed), patches every kept
// probe whose library is there now, all of a probe's lines or none, as a
// live probe is (counts from then on; the profile's notes say so). Neither
// is ever called from a signal handler.
bool probes_keep_pending(const char* line, const char* end);
void probes_load_pending();

}  // namespace andweorc::runtime

#endif  // ANDWEORC_RUNTIME_PROBE_LIVE_H_
