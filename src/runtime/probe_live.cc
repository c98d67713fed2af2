// probe_live.cc: a progress point added or removed from the live page while
// the program runs (see probe_live.h). Runs on the coordinator thread only.
#include "runtime/probe_live.h"

#include <string.h>
#include <unistd.h>

#include "andweorc/andweorc.h"
#include "runtime/code_patch.h"
#include "runtime/probe_event.h"
#include "runtime/probe_points.h"
#include "runtime/raw_writer.h"
#include "runtime/runtime.h"
#include "runtime/signal_safe.h"
#include "runtime/trace_calls.h"

extern "C" int andweorc_register_point(int kind, const char* name);

namespace andweorc::runtime {
namespace {

// One live add at a time (the coordinator's thread): its parsed addresses.
ProbeEvent g_add[kMaxPatchSites];
PatchSpec g_add_specs[kMaxPatchSites];
PatchRequest g_add_requests[kMaxPatchSites];

ProbeAck refused(const char* why, const char* detail = nullptr) {
  ProbeAck a;
  a.status = 1;
  a.pid = int32_t(getpid());
  a.time_ns = monotonic_ns();
  size_t len = append_str(a.error, sizeof a.error, 0, why);
  if (detail != nullptr) append_str(a.error, sizeof a.error, len, detail);
  return a;
}

// Where an add comes from: the live page, or a library the program loaded
// after start-up (dlopen) that start-up probes waited for.
enum class Origin { kPage, kLoaded };

void live_note(const char* what, const char* name, uint32_t sites,
               Origin origin = Origin::kPage) {
  char text[kProbeTextMax + 300], num[24];
  size_t len = append_str(
      text, sizeof text, 0,
      origin == Origin::kPage ? "probes: live probe '" : "probes: '");
  len = append_str(text, sizeof text, len, name);
  len = append_str(text, sizeof text, len, what);
  num[format_u64(sites, num, sizeof num)] = 0;
  len = append_str(text, sizeof text, len, num);
  append_str(text, sizeof text, len,
             origin == Origin::kPage
                 ? " address(es), from the live page; its count covers only "
                   "the time it was in"
                 : " address(es), once its library was loaded after "
                   "start-up (dlopen): calls before (and within ~20 ms "
                   "after) the load are not counted");
  io_lock().lock();
  raw_write_note(text);
  io_lock().unlock();
}

// One patcher at a time: the coordinator (the page's probes) and the
// collector (probes waiting for a library) both patch; neither is ever a
// signal handler.
SpinLock g_patch_lock;

// True when the marker line names `exe` ("@program\t0\tPATH\t0\t0").
bool marker_is(const char* line, const char* end, const char* exe) {
  ProbeEvent m;
  // The marker parses as a line whose path is the program (kind 0 is not a
  // valid kind, so probe_parse_line says false but fills the path).
  probe_parse_line(line, end, &m);
  return strcmp(m.path, exe) == 0;
}

ProbeAck applied(int slot, uint32_t sites) {
  ProbeAck a;
  a.pid = int32_t(getpid());
  a.slot = slot;
  a.sites = sites;
  a.time_ns = monotonic_ns();
  return a;
}

// A progress point or a line-pair latency point: a counting jump per
// address (an address that is both a begin and an end has one jump, which
// counts for both).
ProbeAck add_counted(int count, Origin origin) {
  static int which[kMaxPatchSites];   // event -> its address's request
  static int shared[kMaxPatchSites];  // event -> an earlier probe's patch
  int requests = 0;
  for (int i = 0; i < count; ++i) {
    const uint64_t site = g_add[i].vaddr + g_add[i].bias;
    which[i] = -1;
    // A library's waiting probes at an address another of them counts
    // already (a function's entry that is also its first line) share that
    // counter, as at start-up. Not the page's: their removal would take
    // the other probe's jump out.
    shared[i] = origin == Origin::kLoaded ? code_patch_counting_at(site) : -1;
    if (shared[i] >= 0) continue;
    for (int k = 0; k < requests && which[i] < 0; ++k)
      if (g_add_requests[k].site == site) which[i] = k;
    if (which[i] >= 0) continue;
    if (!parse_patch_spec(g_add[i].patch, strlen(g_add[i].patch),
                          &g_add_specs[requests]))
      return refused("probe: a patch plan did not parse");
    g_add_requests[requests] =
        PatchRequest{site, &g_add_specs[requests], -1, nullptr};
    g_add_requests[requests].bias = g_add[i].bias;
    which[i] = requests++;
  }
  if (!probes_have_room(count))
    return refused("probe: more than 64 probe addresses in the process");
  const char* why = nullptr;
  if (requests > 0 && !code_patch_install_live(g_add_requests, requests, &why))
    return refused("cannot patch safely: ", why);
  int slots[ANDWEORC_KIND_END + 1] = {};
  for (int i = 0; i < count; ++i) {
    int& slot = slots[g_add[i].kind];
    if (slot == 0) slot = andweorc_register_point(g_add[i].kind, g_add[i].name);
    if (slot <= 0) {
      for (int k = 0; k < requests; ++k)
        code_patch_remove(g_add_requests[k].index, nullptr);
      return refused("probe: no room for another progress point");
    }
  }
  for (int i = 0; i < count; ++i) {
    g_add[i].patch_index =
        shared[i] >= 0 ? shared[i] : g_add_requests[which[i]].index;
    g_add[i].slot = slots[g_add[i].kind];
    probes_append(g_add[i]);
  }
  live_note("' added: ", g_add[0].name, uint32_t(count), origin);
  return applied(slots[g_add[0].kind], uint32_t(count));
}

// Adds the probe of `lines` (ANDWEORC_PROBES lines of one probe, with a
// marker line for library lines) as probe `id` (0: not removable).
ProbeAck add_lines(const char* lines, uint32_t id, Origin origin) {
  char exe[kProbeTextMax] = {};
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  exe[n > 0 ? n : 0] = '\0';
  int count = 0;
  bool program_ok = false, hooked = false, counted = false;
  for (const char* line = lines; *line != '\0';) {
    const char* end = strchr(line, '\n');
    if (end == nullptr) end = line + strlen(line);
    if (strncmp(line, kProbeProgramMarker, sizeof kProbeProgramMarker - 1) ==
        0) {
      program_ok = marker_is(line, end, exe);
    } else if (end > line) {
      if (count == kMaxPatchSites)
        return refused("probe: more than 64 addresses");
      ProbeEvent& e = g_add[count];
      if (!probe_parse_line(line, end, &e))
        return refused("probe: the tool's command did not parse");
      // Hooks (--trace, --latency FUNCTION: an entry and its exits) or
      // counts at addresses; a return probe (a uretprobe) is not live.
      const bool hook = e.kind >= kKindTraceEntry;
      const bool at_address = e.kind == ANDWEORC_KIND_THROUGHPUT ||
                              e.kind == ANDWEORC_KIND_BEGIN ||
                              (e.kind == ANDWEORC_KIND_END && e.end_at_address);
      if (!hook && !at_address)
        return refused("probe: the tool's command did not parse");
      (hook ? hooked : counted) = true;
      if (strcmp(e.path, exe) != 0 && !program_ok)
        return refused("probe: resolved for another executable than ", exe);
      if (!probe_object_bias(e.path, exe, &e.bias))
        return refused("probe: its object is not loaded in this process: ",
                       e.path);
      if (e.patch[0] == '\0')
        return refused("cannot patch safely: the tool has no plan for ",
                       e.path);
      e.live_id = id;
      // The same address of the same kind twice (two inlined copies at one
      // address) is one count.
      bool seen = false;
      for (int k = 0; k < count && !seen; ++k)
        seen = g_add[k].vaddr + g_add[k].bias == e.vaddr + e.bias &&
               g_add[k].kind == e.kind;
      if (!seen) ++count;
    }
    line = *end ? end + 1 : end;
  }
  if (count == 0) return refused("probe: no address to patch");
  if (hooked && counted)
    return refused("probe: the tool's command mixes hooks and counts");
  if (!hooked) return add_counted(count, origin);
  int slot = 0;
  const char* why = nullptr;
  if (!trace_live_add(g_add, count, id, &slot, &why))
    return refused("cannot patch safely: ", why);
  live_note("' added: ", g_add[0].name, uint32_t(count), origin);
  return applied(slot, uint32_t(count));
}

// Start-up probe lines whose library was not loaded then (kept by
// probes_keep_pending, patched by probes_load_pending). Text only: the
// lines are parsed again when their library is there.
constexpr int kMaxPending = 64;
constexpr size_t kPendingText = 32768;
char g_pending_text[kPendingText];
size_t g_pending_used = 0;
struct Pending {
  uint32_t at, len;  // in g_pending_text
  bool done;         // patched (or refused: said in a note) already
};
Pending g_pending[kMaxPending];
int g_pending_count = 0;

// The name, kind and path fields of a kept line.
bool pending_fields(const Pending& p, ProbeEvent* e) {
  const char* line = g_pending_text + p.at;
  return probe_parse_line(line, line + p.len, e);
}

// A kept line's probe class: hooked (--trace, --latency FUNCTION) or counted.
bool is_hook(int kind) { return kind >= kKindTraceEntry; }

ProbeAck remove_probe(const ProbeCommand& c) {
  uint32_t restored = 0, found = 0;
  const char* why = nullptr;
  const char* name = nullptr;
  // A hooked function (--trace, --latency FUNCTION) from the page.
  bool hook_found = false;
  if (!trace_live_remove(c.id, &restored, &hook_found, &name, &why))
    return refused("probe: could not be removed: ", why ? why : "unknown");
  if (hook_found) {
    live_note("' removed: ", name, restored);
    return applied(0, restored);
  }
  for (int i = 0; i < probes_count(); ++i) {
    ProbeEvent* e = probes_at(i);
    if (e->live_id != c.id || e->removed) continue;
    ++found;
    name = e->name;
    // A begin and an end at one address share its jump: taken out once.
    bool shared = false;
    for (int j = 0; j < i && !shared; ++j)
      shared = probes_at(j)->live_id == c.id && probes_at(j)->removed &&
               probes_at(j)->patch_index == e->patch_index;
    if (shared || code_patch_remove(e->patch_index, &why)) {
      e->removed = true;
      ++restored;
    }
  }
  if (found == 0) return refused("probe: no such live probe in this process");
  if (restored < found)
    return refused("probe: could not be removed: ", why ? why : "unknown");
  live_note("' removed: ", name, restored);
  ProbeAck a;
  a.pid = int32_t(getpid());
  a.sites = restored;
  a.time_ns = monotonic_ns();
  return a;
}

}  // namespace

ProbeAck probes_live_apply(const ProbeCommand& c) {
  g_patch_lock.lock();
  ProbeAck a;
  switch (c.action) {
    case ProbeAction::kAdd:
      a = add_lines(c.lines, c.id, Origin::kPage);
      break;
    case ProbeAction::kRemove:
      a = remove_probe(c);
      break;
    case ProbeAction::kNone:
      a = refused("probe: unknown probe command");
      break;
  }
  g_patch_lock.unlock();
  return a;
}

bool probes_keep_pending(const char* line, const char* end) {
  const size_t len = size_t(end - line);
  if (g_pending_count == kMaxPending || g_pending_used + len + 1 > kPendingText)
    return false;
  memcpy(g_pending_text + g_pending_used, line, len);
  g_pending_text[g_pending_used + len] = '\0';
  g_pending[g_pending_count++] =
      Pending{uint32_t(g_pending_used), uint32_t(len), false};
  g_pending_used += len + 1;
  return true;
}

void probes_load_pending() {
  if (g_pending_count == 0) return;
  char exe[kProbeTextMax] = {};
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  exe[n > 0 ? n : 0] = '\0';
  static char text[kControlProbeTextSize * 4];
  g_patch_lock.lock();
  for (int i = 0; i < g_pending_count; ++i) {
    if (g_pending[i].done) continue;
    ProbeEvent first;
    uint64_t bias = 0;
    if (!pending_fields(g_pending[i], &first) ||
        !probe_object_bias(first.path, exe, &bias))
      continue;  // not loaded yet
    // Every kept line of this probe (same name, library and class) at once:
    // one add, patched all or none.
    size_t len = append_str(text, sizeof text, 0, kProbeProgramMarker);
    len = append_str(text, sizeof text, len, "0\t");
    len = append_str(text, sizeof text, len, exe);
    len = append_str(text, sizeof text, len, "\t0\t0\n");
    for (int k = i; k < g_pending_count; ++k) {
      ProbeEvent e;
      if (g_pending[k].done || !pending_fields(g_pending[k], &e) ||
          strcmp(e.name, first.name) != 0 || strcmp(e.path, first.path) != 0 ||
          is_hook(e.kind) != is_hook(first.kind))
        continue;
      if (len + g_pending[k].len + 2 >= sizeof text) break;
      memcpy(text + len, g_pending_text + g_pending[k].at, g_pending[k].len);
      len += g_pending[k].len;
      text[len++] = '\n';
      text[len] = '\0';
      g_pending[k].done = true;
    }
    ProbeAck a = add_lines(text, 0, Origin::kLoaded);
    if (a.status != 0) {
      char note[kControlTextSize + kProbeTextMax + 100];
      size_t l = append_str(note, sizeof note, 0, "probes: '");
      l = append_str(note, sizeof note, l, first.name);
      l = append_str(note, sizeof note, l,
                     "' is not counted: its library was loaded after "
                     "start-up and could not be patched: ");
      append_str(note, sizeof note, l, a.error);
      io_lock().lock();
      raw_write_note(note);
      io_lock().unlock();
    }
  }
  g_patch_lock.unlock();
}

}  // namespace andweorc::runtime
