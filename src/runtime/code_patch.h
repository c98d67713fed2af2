// code_patch.h: in-process probes: a `jmp rel32` written over a probe
// address sends each hit to a trampoline (trampoline.h) that counts it in a
// counter of our own; ~ns per hit instead of a kernel trap.
#ifndef ANDWEORC_RUNTIME_CODE_PATCH_H_
#define ANDWEORC_RUNTIME_CODE_PATCH_H_

#include <stdint.h>

#include "runtime/signal_safe.h"
#include "runtime/trampoline.h"

namespace andweorc::runtime {

constexpr int kMaxPatchSites = 64;

// One address to patch: `site` is a run-time address (the ELF vaddr +
// `bias`, the load bias of the object that holds it: the main executable or
// a shared library), `spec` the tool's plan. On return `index` is the
// site's counter index, or -1 with `why` a static reason (the caller counts
// the address some other way).
// `hook_fn` non-zero: a trace hook (build_hook_trampoline: calls
// hook_fn(hook_arg, sp) at `hook_at`) instead of a counter.
struct PatchRequest {
  uint64_t site;
  const PatchSpec* spec;
  int index;
  const char* why;
  uint64_t hook_fn = 0;
  uint32_t hook_arg = 0;
  int hook_at = 0;
  uint64_t bias = 0;  // added to the plan's targets (ELF vaddrs)
};

// Patches the code at each request (in any loaded object). Start-up only,
// once (not signal-safe; live probes: code_patch_install_live). Maps the
// trampolines within +-2 GB of the code (one area per object far from the
// others: a shared library loads far from the executable), checks that the code
// holds the bytes the tool planned from and that no request overlaps the bytes
// of an earlier one (the earlier keeps the address), builds every trampoline
// and makes them read+exec, then writes each jump in the "int3 first" order:
// int3 on byte 0, bytes 1..4, byte 0 (a thread that runs the site meanwhile
// sees the old first instruction, an int3 that code_patch_on_trap sends to the
// trampoline, or the finished jump, never half of one), and restores the page's
// protection.
void code_patch_install(PatchRequest* requests, int count);

// A live probe (docs/live.md "Probes from the page"): patches every request
// while the program runs, from the coordinator thread (never a signal
// handler; one patching thread at a time), or none: every check first (code
// of a loaded object, the planned bytes, no overlap with an active patch,
// room), then trampolines in areas of this install only (an area other
// threads may be running is never made writable again), then the jumps in
// the int3-first order. false with *why (static) when refused: the
// program's code is then as it was.
bool code_patch_install_live(PatchRequest* requests, int count,
                             const char** why);

// Writes the original bytes back over the jump at site `index` (same
// int3-first order; the trampoline and its counter stay mapped: a thread
// may be inside it, and the count so far stays readable). Coordinator
// thread only. false with *why (when not null) if it was not patched or
// the code cannot be made writable.
bool code_patch_remove(int index, const char** why);

// The index of the active counting patch at exactly `site`, or -1 (a
// probe added later at the same address shares its counter; patching
// threads only).
int code_patch_counting_at(uint64_t site);

// Hits counted at a patched site (relaxed load of its counter).
ANDWEORC_SIGNAL_SAFE uint64_t code_patch_count(int index);

// In a fork child: the patched code and the trampolines are inherited (the
// child runs the same code), the counters are a copy of the parent's; they
// restart from zero like the child's other points.
void code_patch_reset_counts();

// From the SIGTRAP handler: if the thread stopped at the int3 of a site
// being patched, moves it to that site's trampoline and returns true (the
// handler returns and the thread goes on, the hit counted); false for any
// other trap.
ANDWEORC_SIGNAL_SAFE bool code_patch_on_trap(void* ucontext);

}  // namespace andweorc::runtime

#endif  // ANDWEORC_RUNTIME_CODE_PATCH_H_
