// probe_event.h: one probe address as the tool hands it to the runtime (a
// line of ANDWEORC_PROBES), and the kernel counting event that counts it
// when it is not patched in process. Used by probe_points.cc only.
#ifndef ANDWEORC_RUNTIME_PROBE_EVENT_H_
#define ANDWEORC_RUNTIME_PROBE_EVENT_H_

#include <stdint.h>

namespace andweorc::runtime {

constexpr int kProbeTextMax = 256;
constexpr int kProbePatchTextMax = 400;

struct ProbeEvent {
  int slot;  // progress point
  int fd;    // guarded (internal_fds.h); -1 when not open
  uint64_t offset, vaddr;
  char path[kProbeTextMax];
  char name[kProbeTextMax];
  int kind;
  bool breakpoint;  // a hardware breakpoint, else a uprobe
  // In-process patching (code_patch.h): the tool's plan (sixth field of the
  // line, "" when the tool refused the address), and once patched the
  // counter's index (-1: counted by a perf event, or not at all).
  char patch[kProbePatchTextMax];
  int patch_index;
  // An END counted at an address (`--latency NAME=FILE:LINE,FILE:LINE`,
  // kind 4 on the line), not at a function's return (a uretprobe).
  bool end_at_address;
  // The load bias of the object `path` names (the main executable or a
  // shared library it links): vaddr + bias is the run-time address. Set by
  // probe_object_bias at start-up, before anything is patched or opened.
  uint64_t bias;
  // A probe added from the live page (probe_live.h): the tool's id for it
  // (0: a start-up probe), and whether it was removed since (its jump is
  // gone, its count so far stays in the point's total).
  uint32_t live_id;
  bool removed;
  // A --progress address that a hook also patches (the entry or an exit of
  // a --trace or --latency NAME=FUNCTION function): one jump per address,
  // so the hook's passes (trace_site_passes) are its count; the hooked
  // site, or -1.
  int hooked;
};

// The kind field's value for an END at an address (probes/probe_spec.h).
constexpr int kKindEndAtAddress = 4;
// --trace FUNCTION (probes/probe_spec.h): a function's entry, one of its exits
// (the planned bytes end with its `ret`); recorded by trace_calls.h.
constexpr int kKindTraceEntry = 5;
constexpr int kKindTraceExit = 6;
// --latency NAME=FUNCTION patched in process: the entry and exits of one
// out-of-line copy, hooked like a trace (trace_calls.h); the outermost
// calls' entries and returns are the BEGINs and ENDs of point NAME.
constexpr int kKindLatencyEntry = 7;
constexpr int kKindLatencyExit = 8;

// Parses one "NAME\tKIND\tPATH\tOFFSET\tVADDR[\tPATCH]" line into e;
// false if bad.
bool probe_parse_line(const char* line, const char* end, ProbeEvent* e);

// The line that names the executable the tool resolved the probes for:
// "@program\t0\tPATH\t0\t0" (probes/probe_spec.h). The lines after it
// that name a shared library apply only in a process of that executable.
constexpr char kProbeProgramMarker[] = "@program\t";

// The load bias of the object whose file is `path`: the main executable
// when `path` is `exe` (/proc/self/exe), else the loaded shared library
// that is the same file (same device and inode, so a symlink such as
// libfoo.so -> libfoo.so.1 matches). false when no loaded object is that
// file (a library that is not loaded at start-up: dlopen'd later, or a
// program that exec'd another). Start-up only (dl_iterate_phdr, stat).
bool probe_object_bias(const char* path, const char* exe, uint64_t* bias);

// The uprobe PMU's type (sysfs), or -1 when the kernel has none.
int probe_uprobe_type();

// The config bit that makes a uprobe a return probe ("config:N").
uint64_t probe_retprobe_config();

// Opens e's counting event (a hardware breakpoint at e.vaddr + bias, else
// a uprobe of PMU `type`, a return probe with `retprobe_config`), inherited
// by the threads created later; the descriptor, or -1 with errno set.
int probe_open_event(const ProbeEvent& e, int type, uint64_t bias,
                     uint64_t retprobe_config);

}  // namespace andweorc::runtime

#endif  // ANDWEORC_RUNTIME_PROBE_EVENT_H_
