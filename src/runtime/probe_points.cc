// probe_points.cc: progress points without annotation (see probe_points.h).
//
// Patched addresses (code_patch.h) count in process: ~16 ns a hit, no
// syscall, no signal. The others use kernel counting events, not a handler
// of our own: the kernel counts each hit without a signal, so the program's
// signal state and the runtime's signal rules are untouched. A uprobe
// (root) costs a trap per hit; a hardware breakpoint (any user at
// perf_event_paranoid <= 2) a debug exception per hit and is limited to 4
// addresses. docs/probes.md has the measured costs.
#include "runtime/probe_points.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "andweorc/andweorc.h"
#include "runtime/attach_settings.h"
#include "runtime/code_patch.h"
#include "runtime/internal_fds.h"
#include "runtime/probe_event.h"
#include "runtime/probe_live.h"
#include "runtime/raw_writer.h"
#include "runtime/runtime.h"
#include "runtime/trace_calls.h"

extern "C" int andweorc_register_point(int kind, const char* name);

namespace andweorc::runtime {
namespace {

constexpr int kMaxEvents = 64;

// Filled by probes_start before the coordinator (the reader of totals)
// starts; an event's slot stays 0, which no point has, until its point is
// registered. Afterwards only the descriptors change (eviction, fork),
// through their owner variables.
ProbeEvent g_events[kMaxEvents];
int g_event_count = 0;
bool g_breakpoints = false;
// ANDWEORC_PROBE_MECHANISM "patch[,breakpoint|,uprobe]": patch the sites
// with a plan; the rest (and sites the runtime could not patch) are counted
// by the fallback, or not at all when there is none.
bool g_patching = false;
bool g_fallback = true;
int g_patched = 0;
int g_patch_failed = 0;             // planned, refused here
const char* g_patch_why = nullptr;  // the first reason
int g_uprobe_refused = 0;  // sites counted by breakpoints in uprobe mode
// Read once at start: a fork child (possibly forked from a signal handler,
// with the loader's lock held by a thread that no longer exists) only makes
// perf_event_open calls.
int g_uprobe_type = -1;
uint64_t g_retprobe_config = 1;  // format/retprobe: "config:0"
// Addresses in a shared library the program did not have loaded at
// start-up (dlopen'd later): not counted, said in a note.
int g_not_loaded = 0;
int g_waiting = 0;  // kept for when their library is loaded (probe_live.h)
const char* g_not_loaded_path = nullptr;  // the first such library

// True when the marker line [line, end) ("@program\t0\tPATH\t0\t0") names
// `exe`.
bool marker_names(const char* line, const char* end, const char* exe) {
  const char* p = line + sizeof kProbeProgramMarker - 1;
  while (p < end && *p != '\t') ++p;  // the kind field
  if (p == end) return false;
  const char* path = ++p;
  while (p < end && *p != '\t') ++p;
  size_t len = size_t(p - path);
  return len == strlen(exe) && memcmp(path, exe, len) == 0;
}

void note(const char* text) {
  io_lock().lock();
  raw_write_note(text);
  io_lock().unlock();
}

// Patches every site that has a plan (not a return: it has no address). Sites
// the runtime refuses keep patch_index -1.
void patch_all() {
  static PatchSpec specs[kMaxEvents];
  PatchRequest requests[kMaxPatchSites + kMaxTraceSites];
  int which[kMaxEvents];
  int n = 0;
  for (int i = 0; i < g_event_count; ++i) {
    ProbeEvent& e = g_events[i];
    // Not a return (a uretprobe): no address to patch.
    if (e.kind == ANDWEORC_KIND_END && !e.end_at_address) continue;
    // A hooked address (--trace, --latency FUNCTION): its hook counts.
    e.hooked = trace_site_at(e.vaddr + e.bias);
    if (e.hooked >= 0 || e.patch[0] == '\0') continue;
    if (!parse_patch_spec(e.patch, strlen(e.patch), &specs[n])) {
      ++g_patch_failed;
      if (g_patch_why == nullptr) g_patch_why = "a patch plan did not parse";
      continue;
    }
    bool seen = false;  // an address patched once (see below)
    for (int k = 0; k < n && !seen; ++k)
      seen = requests[k].site == e.vaddr + e.bias;
    if (seen) continue;
    requests[n] = PatchRequest{e.vaddr + e.bias, &specs[n], -1, nullptr};
    requests[n].bias = e.bias;
    which[n++] = i;
  }
  // Hooked sites go last: a count never loses its patch to a hook (a count
  // at a hooked address is that hook's passes instead, above).
  int traced = trace_patch_requests(requests + n, kMaxTraceSites);
  code_patch_install(requests, n + traced);
  if (trace_wanted()) trace_patch_done(requests + n, traced);
  for (int i = 0; i < g_event_count; ++i) {
    ProbeEvent& e = g_events[i];
    if (e.hooked < 0) continue;
    if (trace_site_patched(e.hooked))
      ++g_patched;
    else
      e.hooked = -1;  // the hook's jump is not there: a perf event counts
  }
  for (int k = 0; k < n; ++k) {
    if (requests[k].index >= 0) {
      g_events[which[k]].patch_index = requests[k].index;
      ++g_patched;
    } else {
      ++g_patch_failed;
      if (g_patch_why == nullptr) g_patch_why = requests[k].why;
    }
  }
  // Points sharing an address (a function's entry that is also its first
  // line, a --progress line that ends a --latency pair) share its counter:
  // each hit is one visit of each.
  for (int i = 0; i < g_event_count; ++i) {
    ProbeEvent& e = g_events[i];
    if (e.patch_index >= 0 || e.hooked >= 0 || e.patch[0] == '\0') continue;
    for (int j = 0; j < g_event_count; ++j)
      if (j != i && g_events[j].vaddr + g_events[j].bias == e.vaddr + e.bias &&
          g_events[j].patch_index >= 0) {
        e.patch_index = g_events[j].patch_index;
        ++g_patched;
        break;
      }
  }
}

// Opens every parsed event; returns how many opened. On failure `error`
// holds the first errno and `failed` the event that failed.
int open_all(int* error, int* failed) {
  int type = g_uprobe_type;
  int opened = 0;
  g_uprobe_refused = 0;
  for (int i = 0; i < g_event_count; ++i) {
    ProbeEvent& e = g_events[i];
    e.breakpoint = g_breakpoints;
    if (e.patch_index >= 0 || e.hooked >= 0) continue;  // counted in process
    if (!g_fallback) {  // --probe-mechanism patch found no other way
      if (*error == 0) {
        *error = ENOTSUP;
        *failed = i;
      }
      continue;
    }
    int fd = (!g_breakpoints && type < 0)
                 ? -1
                 : probe_open_event(e, type, e.bias, g_retprobe_config);
    int first_errno = type < 0 && !g_breakpoints ? ENOENT : errno;
    if (fd < 0 && !g_breakpoints &&
        (e.kind != ANDWEORC_KIND_END || e.end_at_address)) {
      // x86 uprobes refuse some instructions (LOCK or segment prefixes:
      // the tool predicted these and checked that breakpoints are allowed).
      // A return probe has no breakpoint equivalent.
      e.breakpoint = true;
      fd = probe_open_event(e, type, e.bias, g_retprobe_config);
      if (fd >= 0) ++g_uprobe_refused;
    }
    if (fd < 0) {
      if (*error == 0) {
        *error = first_errno;
        *failed = i;
      }
      continue;
    }
    andweorc_fd_adopt(fd, &e.fd, 0);
    ++opened;
  }
  return opened;
}

}  // namespace

void probes_start() {
  const char* spec = runtime_setting("ANDWEORC_PROBES");
  if (g_event_count > 0) {
    // A later start (`andweorc attach` again): the first start's probes
    // stay (patched code cannot be patched twice) and counted meanwhile;
    // they count from zero again. A different --progress is not applied.
    code_patch_reset_counts();
    for (int i = 0; i < g_event_count; ++i)
      if (g_events[i].fd >= 0) ioctl(g_events[i].fd, PERF_EVENT_IOC_RESET, 0);
    if (spec != nullptr && *spec != '\0') {
      io_lock().lock();
      raw_write_note(
          "probes: the probes of this process's first attach are kept and "
          "counted again from zero; --progress/--latency of a later attach "
          "are not applied");
      io_lock().unlock();
    }
    return;
  }
  if (spec == nullptr || *spec == '\0') return;
  const char* mech = runtime_setting("ANDWEORC_PROBE_MECHANISM");
  if (mech == nullptr) mech = "";
  g_patching = strncmp(mech, "patch", 5) == 0;
  g_fallback = !g_patching || mech[5] == ',';
  g_breakpoints = strstr(mech, "breakpoint") != nullptr;
  char text[600];
  // The addresses are the tool's reading of one executable and the shared
  // libraries it links: a program that exec'd another keeps the variable,
  // but not the code it names. A line counts when its object is the
  // executable, or a library loaded now in a process of the executable the
  // tool resolved for (the marker line before the library lines says
  // which); each gets its object's load bias.
  char exe[kProbeTextMax] = {};
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  exe[n > 0 ? n : 0] = '\0';
  // Library lines count only after a marker naming this executable (the
  // tool writes one first); the executable's own lines always.
  bool program_ok = false;
  for (const char* line = spec; *line != '\0' && g_event_count < kMaxEvents;) {
    const char* end = strchr(line, '\n');
    if (end == nullptr) end = line + strlen(line);
    ProbeEvent& e = g_events[g_event_count];
    if (strncmp(line, kProbeProgramMarker, sizeof kProbeProgramMarker - 1) ==
        0) {
      program_ok = marker_names(line, end, exe);
    } else if (probe_parse_line(line, end, &e) &&
               (strcmp(e.path, exe) == 0 || program_ok)) {
      if (!probe_object_bias(e.path, exe, &e.bias)) {
        // A library not loaded now (dlopen'd later): patched when it is
        // (the collector, probe_live.h); counted as lost only without room.
        if (probes_keep_pending(line, end)) {
          ++g_waiting;
        } else if (g_not_loaded++ == 0) {
          static char first[kProbeTextMax];
          memcpy(first, e.path, sizeof first);
          g_not_loaded_path = first;
        }
      } else if (e.kind >= kKindTraceEntry && e.kind <= kKindLatencyExit) {
        trace_add_site(e);  // --trace, --latency FUNCTION: hooks
      } else {
        ++g_event_count;
      }
    }
    line = *end ? end + 1 : end;
  }
  if (g_not_loaded > 0) {
    size_t len = 0;
    char num[24];
    num[format_u64(uint64_t(g_not_loaded), num, sizeof num)] = 0;
    len = append_str(text, sizeof text, len, "probes: ");
    len = append_str(text, sizeof text, len, num);
    len = append_str(text, sizeof text, len,
                     " probe address(es) not counted: their library is not "
                     "loaded at start-up and there is no room to wait for "
                     "it (");
    len = append_str(text, sizeof text, len, g_not_loaded_path);
    append_str(text, sizeof text, len, ")");
    note(text);
  }
  if (g_waiting > 0) {
    char num[24];
    num[format_u64(uint64_t(g_waiting), num, sizeof num)] = 0;
    size_t len = append_str(text, sizeof text, 0, "probes: ");
    len = append_str(text, sizeof text, len, num);
    append_str(text, sizeof text, len,
               " probe address(es) wait for their library (not loaded at "
               "start-up): patched in process once the program loads it "
               "(dlopen); never counted if it never does");
    note(text);
  }
  if (g_event_count == 0 && !trace_wanted()) return;
  if (!g_breakpoints) {
    g_uprobe_type = probe_uprobe_type();
    g_retprobe_config = probe_retprobe_config();
  }
  if (g_patching) patch_all();
  if (g_event_count == 0) return;  // --trace only
  int error = 0, failed = -1;
  int opened = open_all(&error, &failed) + g_patched;
  if (failed >= 0) {
    // Built with append_str, not snprintf/strerror: this object also holds
    // probe_hits, which handlers reach (runtime_signal_safe_symbols).
    size_t len = 0;
    char num[24];
    len = append_str(text, sizeof text, len, "probes: ");
    num[format_u64(uint64_t(g_event_count - opened), num, sizeof num)] = 0;
    len = append_str(text, sizeof text, len, num);
    len = append_str(text, sizeof text, len, " of ");
    num[format_u64(uint64_t(g_event_count), num, sizeof num)] = 0;
    len = append_str(text, sizeof text, len, num);
    len = append_str(text, sizeof text, len,
                     " probe address(es) could not be counted (");
    len = append_str(text, sizeof text, len,
                     !g_fallback     ? "not patched, no fallback mechanism"
                     : g_breakpoints ? "hardware breakpoint"
                                     : "uprobe");
    len = append_str(text, sizeof text, len, " in ");
    len = append_str(text, sizeof text, len, g_events[failed].path);
    len = append_str(text, sizeof text, len, ": ");
    const char* name = strerrorname_np(error);
    char code[24] = "errno ";
    if (name == nullptr) {  // kernel-internal codes (524: ENOTSUPP)
      code[6 + format_u64(uint64_t(error), code + 6, sizeof code - 7)] = 0;
      name = code;
    }
    len = append_str(text, sizeof text, len, name);
    append_str(text, sizeof text, len,
               "); progress points without an address are missing");
    note(text);
  }
  // Register only points with at least one counting event: a point that
  // never moves would stall every experiment.
  int registered = 0;
  for (int i = 0; i < g_event_count; ++i) {
    ProbeEvent& e = g_events[i];
    if (e.fd < 0 && e.patch_index < 0 && e.hooked < 0) continue;
    int slot = andweorc_register_point(e.kind, e.name);
    if (slot <= 0) {
      andweorc_fd_release(&e.fd);
      continue;
    }
    e.slot = slot;
    ++registered;
  }
  if (registered == 0) return;
  char num[24];
  size_t len = 0;
  if (g_patching) {
    // "probes: 3 address(es) patched in process (...); 1 planned but not
    // patched here (why)": then what counts the rest.
    num[format_u64(uint64_t(g_patched), num, sizeof num)] = 0;
    len = append_str(text, sizeof text, 0, "probes: ");
    len = append_str(text, sizeof text, len, num);
    len = append_str(text, sizeof text, len,
                     " address(es) patched in process (a jump to a "
                     "trampoline per hit)");
    if (g_patch_failed > 0) {
      num[format_u64(uint64_t(g_patch_failed), num, sizeof num)] = 0;
      len = append_str(text, sizeof text, len, "; ");
      len = append_str(text, sizeof text, len, num);
      len = append_str(text, sizeof text, len,
                       " planned address(es) not patched: ");
      len = append_str(text, sizeof text, len,
                       g_patch_why ? g_patch_why : "unknown");
    }
    if (registered == g_patched) {
      append_str(text, sizeof text, len,
                 " for points without annotation (--progress); costs per hit "
                 "in docs/probes.md");
      note(text);
      return;
    }
    len = append_str(text, sizeof text, len, "; the other ");
    num[format_u64(uint64_t(registered - g_patched), num, sizeof num)] = 0;
  } else {
    num[format_u64(uint64_t(registered), num, sizeof num)] = 0;
    len = append_str(text, sizeof text, 0, "probes: ");
  }
  len = append_str(text, sizeof text, len, num);
  len = append_str(text, sizeof text, len, " address(es) counted by ");
  len = append_str(
      text, sizeof text, len,
      g_breakpoints ? "hardware breakpoint events (a debug exception per hit)"
                    : "perf uprobes (a kernel trap per hit)");
  if (g_uprobe_refused > 0) {
    num[format_u64(uint64_t(g_uprobe_refused), num, sizeof num)] = 0;
    len = append_str(text, sizeof text, len, ", of which ");
    len = append_str(text, sizeof text, len, num);
    len = append_str(text, sizeof text, len,
                     " by hardware breakpoint events (instructions uprobes "
                     "refuse)");
  }
  append_str(text, sizeof text, len,
             " for points without annotation (--progress, --latency); "
             "costs per hit in docs/probes.md");
  note(text);
}

bool probes_have_room(int n) { return g_event_count + n <= kMaxEvents; }

void probes_append(const ProbeEvent& e) {
  int n = g_event_count;
  g_events[n] = e;
  __atomic_store_n(&g_event_count, n + 1, __ATOMIC_RELEASE);
}

int probes_count() { return g_event_count; }

ProbeEvent* probes_at(int i) { return &g_events[i]; }

ANDWEORC_SIGNAL_SAFE uint64_t probe_hits(int slot) {
  uint64_t total = trace_point_hits(slot);  // --latency NAME=FUNCTION
  // Acquire: a live probe's event (probes_append) is read whole.
  const int count = __atomic_load_n(&g_event_count, __ATOMIC_ACQUIRE);
  for (int i = 0; i < count; ++i) {
    if (g_events[i].slot != slot) continue;
    if (g_events[i].hooked >= 0) {
      total += trace_site_passes(g_events[i].hooked);
      continue;
    }
    if (g_events[i].patch_index >= 0) {
      total += code_patch_count(g_events[i].patch_index);
      continue;
    }
    int fd = __atomic_load_n(&g_events[i].fd, __ATOMIC_ACQUIRE);
    uint64_t value = 0;
    if (fd >= 0 && raw_syscall(SYS_read, fd, long(&value), sizeof value) ==
                       long(sizeof value))
      total += value;
  }
  return total;
}

// Thread exits since the events were opened (reset in a fork child).
uint64_t g_thread_exits = 0;

ANDWEORC_SIGNAL_SAFE void probes_thread_exited() {
  if (__atomic_load_n(&g_event_count, __ATOMIC_RELAXED) > 0)
    __atomic_add_fetch(&g_thread_exits, 1, __ATOMIC_RELAXED);
}

ANDWEORC_SIGNAL_SAFE void probes_write_final_note() {
  trace_write_final();  // the last traced calls and what was dropped
  int uprobes = 0;
  for (int i = 0; i < g_event_count; ++i) {
    const ProbeEvent& e = g_events[i];
    if (!e.breakpoint && e.slot > 0 && e.patch_index < 0 && e.hooked < 0 &&
        __atomic_load_n(&e.fd, __ATOMIC_RELAXED) >= 0)
      ++uprobes;
  }
  uint64_t exits = __atomic_load_n(&g_thread_exits, __ATOMIC_RELAXED);
  if (uprobes == 0 || exits == 0) return;
  char text[400], num[24];
  num[format_u64(exits, num, sizeof num)] = 0;
  size_t len = append_str(text, sizeof text, 0, "probes: ");
  len = append_str(text, sizeof text, len, num);
  append_str(text, sizeof text, len,
             " thread(s) exited while perf uprobes counted: on some kernels "
             "(6.18 measured) uprobe counting then stops for the whole "
             "process, so these counts may be INCOMPLETE. Hardware "
             "breakpoints are not affected: --probe-mechanism breakpoint "
             "(at most 4 addresses); see docs/probes.md");
  raw_write_note(text);
}

void probes_after_fork_child() {
  trace_after_fork_child();
  if (g_event_count == 0) return;
  g_thread_exits = 0;
  code_patch_reset_counts();  // the patched code stays: same code, own counts
  for (int i = 0; i < g_event_count; ++i) andweorc_fd_release(&g_events[i].fd);
  int error = 0, failed = -1;
  open_all(&error, &failed);
}

}  // namespace andweorc::runtime
