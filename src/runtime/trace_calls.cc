// trace_calls.cc: the per-thread shadow stack of traced calls and the ring
// of finished calls (see trace_calls.h).
//
// Decisions:
//  - Returns are seen by patching each exit (the `ret` and the bytes before
//    it), not by swapping the return address (an exception or longjmp
//    unwinding through the call would find a foreign address) nor by perf
//    uretprobes (~20 us a hit, and the kernel swaps the return address).
//  - A call is identified by the stack slot of its return address (`sp`):
//    recursion gives each call its own slot. A call that an exception or a
//    longjmp left has a slot at or below the `sp` of the next traced entry
//    or exit of that thread: it is dropped there and counted (no_return).
//  - One ring for all threads (a bounded multi-producer queue after D.
//    Vyukov: a sequence number per slot, producers claim slots with a CAS),
//    drained by the collector under io_lock: a thread that is descheduled
//    between its claim and its publish only delays the drain of later slots.
#include "runtime/trace_calls.h"

#include <string.h>
#include <time.h>

#include "andweorc/andweorc.h"
#include "runtime/raw_format.h"
#include "runtime/raw_writer.h"
#include "runtime/runtime.h"
#include "runtime/trampoline.h"

extern "C" int andweorc_register_point(int kind, const char* name);

namespace andweorc::runtime {
namespace {

// One hooked address; its index is the hook's argument.
struct Site {
  ProbeEvent line;
  PatchSpec spec;
  uint32_t function;
  bool parsed;
  bool patched;     // its jump was written (trace_patch_done)
  int patch_index;  // code_patch's index (live sites: for the removal)
  uint64_t passes;  // every run of its hook (relaxed atomic): a --progress
                    // point at the same address counts these
};
Site g_sites[kMaxTraceSites];
int g_site_count = 0;

// A function hooked at its entry and exits: `--trace` records each call;
// `--latency NAME=FUNCTION` counts the outermost calls' entries and returns
// as the BEGINs and ENDs of progress point NAME (no clock read, no ring).
enum class Mode : uint8_t { kTrace, kLatency };
struct Function {
  char name[kProbeTextMax];  // the traced function, or the latency point
  bool enabled;  // read by the hooks (release-stored after the setup)
  Mode mode;
  const char* why;
  // kLatency: the point's slots and counts (relaxed atomics; read by
  // probe_hits from any thread or handler).
  int begin_slot, end_slot;
  uint64_t begins, ends;
  uint32_t live_id;  // added from the live page (0: at start-up)
};
Function g_functions[kMaxTracedFunctions];
int g_function_count = 0;  // grows (release) when a live probe is added

struct Slot {
  uint64_t seq;
  raw::TraceCall call;
};
constexpr uint64_t kRing = uint64_t(1) << 15;  // 1.25 MB, ~1.6 M calls/s
Slot g_ring[kRing];
uint64_t g_head = 0;        // next slot to claim (producers)
uint64_t g_tail = 0;        // next slot to drain (under io_lock)
bool g_ring_ready = false;  // reset_ring ran (a ring of zeros refuses all)
raw::TraceStats g_stats = {};

struct Frame {
  uint64_t sp;
  uint64_t start;
  uint32_t function;
  uint32_t counted;  // kLatency: this call's BEGIN was counted (outermost)
};
struct ThreadTrace {
  uint32_t tid;  // 0 until the thread's first traced call
  uint32_t depth;
  uint32_t busy;  // inside a hook (a signal handler may interrupt it)
  Frame frames[kTraceDepth];
};
ANDWEORC_TLS ThreadTrace t_trace = {};

void reset_ring() {
  for (uint64_t i = 0; i < kRing; ++i)
    __atomic_store_n(&g_ring[i].seq, i, __ATOMIC_RELAXED);
  g_head = g_tail = 0;
}

ANDWEORC_SIGNAL_SAFE inline void count(uint64_t* counter) {
  __atomic_add_fetch(counter, 1, __ATOMIC_RELAXED);
}

ANDWEORC_SIGNAL_SAFE void publish(const raw::TraceCall& call) {
  uint64_t pos = __atomic_load_n(&g_head, __ATOMIC_RELAXED);
  Slot* slot;
  for (;;) {
    slot = &g_ring[pos & (kRing - 1)];
    uint64_t seq = __atomic_load_n(&slot->seq, __ATOMIC_ACQUIRE);
    int64_t dif = int64_t(seq - pos);
    if (dif == 0) {
      if (__atomic_compare_exchange_n(&g_head, &pos, pos + 1, true,
                                      __ATOMIC_RELAXED, __ATOMIC_RELAXED))
        break;
    } else if (dif < 0) {
      count(&g_stats.ring_full);  // the drain is behind: drop, never wait
      return;
    } else {
      pos = __atomic_load_n(&g_head, __ATOMIC_RELAXED);
    }
  }
  slot->call = call;
  __atomic_store_n(&slot->seq, pos + 1, __ATOMIC_RELEASE);
}

// Enters the hook for this thread; false if a handler interrupted the
// thread's own hook (its call is dropped, counted once: at its entry).
ANDWEORC_SIGNAL_SAFE inline bool enter_hook(ThreadTrace& t, bool entry) {
  if (t.busy) {
    if (entry) count(&g_stats.reentered);
    return false;
  }
  t.busy = 1;
  __atomic_signal_fence(__ATOMIC_SEQ_CST);
  if (t.tid == 0) t.tid = uint32_t(current_tid());
  return true;
}

// A fork child's raw file is new: it needs the names again (written by the
// child's first drain, once the file is open).
bool g_names_pending = false;

// The kTraceNames records (caller holds io_lock).
ANDWEORC_SIGNAL_SAFE void write_name(int id);
ANDWEORC_SIGNAL_SAFE void write_names() {
  for (int id = 0; id < g_function_count; ++id) write_name(id);
  g_names_pending = false;
}

ANDWEORC_SIGNAL_SAFE inline void leave_hook(ThreadTrace& t) {
  __atomic_signal_fence(__ATOMIC_SEQ_CST);
  t.busy = 0;
}

}  // namespace

namespace {

bool is_entry(int kind) {
  return kind == kKindTraceEntry || kind == kKindLatencyEntry;
}

// A frame that leaves the stack without its own exit (an exception or a
// longjmp went through the call): a latency call is over, so it ends (the
// point's in-flight count must not grow for ever); a traced call has no
// duration and is dropped and counted.
ANDWEORC_SIGNAL_SAFE inline void abandon(const Frame& f) {
  Function& fn = g_functions[f.function];
  if (fn.mode == Mode::kLatency) {
    if (f.counted) count(&fn.ends);
  } else if (__atomic_load_n(&fn.enabled, __ATOMIC_RELAXED)) {
    count(&g_stats.no_return);  // (a removed live trace's calls: silent)
  }
}

// kTraceNames for one traced function (caller holds io_lock); latency
// functions are points, not traces: no record.
ANDWEORC_SIGNAL_SAFE void write_name(int id) {
  const Function& f = g_functions[id];
  if (f.mode != Mode::kTrace) return;
  raw::TraceName rec{uint32_t(id), f.enabled ? 1u : 0u,
                     uint32_t(strlen(f.name)), 0};
  raw_write(raw::kTraceNames, &rec, sizeof rec, f.name, rec.name_len);
}

// "trace: 'f' is not traced: ..." / "probes: latency point 'p' is not
// counted: ..." (caller holds io_lock).
void write_refusal(const Function& f) {
  char text[kProbeTextMax + 200];
  const bool trace = f.mode == Mode::kTrace;
  size_t len = append_str(text, sizeof text, 0,
                          trace ? "trace: '" : "probes: latency point '");
  len = append_str(text, sizeof text, len, f.name);
  len = append_str(text, sizeof text, len,
                   trace ? "' is not traced" : "' is not counted");
  len = append_str(text, sizeof text, len,
                   ": its entry and every exit could not all be patched (");
  len = append_str(text, sizeof text, len, f.why ? f.why : "unknown");
  append_str(text, sizeof text, len, ")");
  raw_write_note(text);
}

}  // namespace

Mode mode_of(int kind) {
  return kind == kKindLatencyEntry || kind == kKindLatencyExit ? Mode::kLatency
                                                               : Mode::kTrace;
}

void trace_add_site(const ProbeEvent& e) {
  if (g_site_count == kMaxTraceSites) return;
  const Mode mode = mode_of(e.kind);
  uint32_t id = 0;
  while (int(id) < g_function_count &&
         (g_functions[id].mode != mode || strcmp(g_functions[id].name, e.name)))
    ++id;
  if (int(id) == g_function_count) {
    if (g_function_count == kMaxTracedFunctions) return;
    Function& f = g_functions[id];
    memcpy(f.name, e.name, sizeof e.name);
    f.mode = mode;
    f.why = nullptr;
    f.begin_slot = f.end_slot = 0;
    ++g_function_count;
  }
  Site& s = g_sites[g_site_count++];
  s.line = e;
  s.function = id;
  s.parsed = parse_patch_spec(e.patch, strlen(e.patch), &s.spec);
  if (!s.parsed && g_functions[id].why == nullptr)
    g_functions[id].why = "a patch plan did not parse";
}

bool trace_wanted() { return g_site_count > 0; }

int trace_patch_requests(PatchRequest* out, int cap) {
  reset_ring();
  g_ring_ready = true;
  int n = 0;
  for (int i = 0; i < g_site_count && n < cap; ++i) {
    Site& s = g_sites[i];
    if (!s.parsed) continue;
    bool entry = is_entry(s.line.kind);
    out[n] = PatchRequest{s.line.vaddr + s.line.bias, &s.spec, -1, nullptr};
    out[n].bias = s.line.bias;
    out[n].hook_fn = entry ? uint64_t(&andweorc_trace_enter)
                           : uint64_t(&andweorc_trace_exit);
    out[n].hook_arg = uint32_t(i);  // the site: hooks find its function
    out[n].hook_at = entry ? kHookAtEntry : kHookBeforeLast;
    ++n;
  }
  // Sites that did not fit are not patched: their functions stay off.
  for (int i = 0; i < g_site_count; ++i)
    if (g_sites[i].parsed && i >= n &&
        g_functions[g_sites[i].function].why == nullptr)
      g_functions[g_sites[i].function].why = "more than 64 patched addresses";
  return n;
}

void trace_patch_done(const PatchRequest* requests, int count) {
  // requests[k] is the k-th parsed site (trace_patch_requests' order).
  bool patched[kMaxTraceSites] = {};
  int k = 0;
  for (int i = 0; i < g_site_count; ++i) {
    if (!g_sites[i].parsed) continue;
    if (k < count) {
      patched[i] = requests[k].index >= 0;
      g_sites[i].patched = patched[i];
      g_sites[i].patch_index = requests[k].index;
      Function& f = g_functions[g_sites[i].function];
      if (!patched[i] && f.why == nullptr) f.why = requests[k].why;
    }
    ++k;
  }
  for (int id = 0; id < g_function_count; ++id) {
    Function& f = g_functions[id];
    bool all = true;
    for (int i = 0; i < g_site_count; ++i)
      if (g_sites[i].function == uint32_t(id)) all = all && patched[i];
    if (all && f.mode == Mode::kLatency) {
      // The point's two halves; their counts are read by probe_hits.
      f.begin_slot = andweorc_register_point(ANDWEORC_KIND_BEGIN, f.name);
      f.end_slot = andweorc_register_point(ANDWEORC_KIND_END, f.name);
      if (f.begin_slot <= 0 || f.end_slot <= 0) {
        all = false;
        f.why = "no room for another progress point";
      }
    }
    // The jumps are already written: a patched entry with an exit left
    // unpatched would record calls that never end, so nothing is recorded.
    __atomic_store_n(&f.enabled, all, __ATOMIC_RELEASE);
  }
  io_lock().lock();
  for (int id = 0; id < g_function_count; ++id) {
    write_name(id);
    const Function& f = g_functions[id];
    if (!f.enabled) {
      write_refusal(f);
    } else if (f.mode == Mode::kLatency) {
      int sites = 0;
      for (int i = 0; i < g_site_count; ++i)
        sites += g_sites[i].function == uint32_t(id);
      char text[kProbeTextMax + 200], num[24];
      size_t len = append_str(text, sizeof text, 0, "probes: latency point '");
      len = append_str(text, sizeof text, len, f.name);
      len = append_str(text, sizeof text, len, "': ");
      num[format_u64(uint64_t(sites), num, sizeof num)] = 0;
      len = append_str(text, sizeof text, len, num);
      append_str(text, sizeof text, len,
                 " entry and exit address(es) patched in process (a hook "
                 "per call and per return; outermost calls only)");
      raw_write_note(text);
    }
  }
  io_lock().unlock();
}

extern "C" ANDWEORC_SIGNAL_SAFE void andweorc_trace_enter(uint64_t site,
                                                          uint64_t sp) {
  if (site >= uint64_t(kMaxTraceSites)) return;
  // Every pass, even of a function that is off: a --progress point at
  // this address counts its visits here.
  count(&g_sites[site].passes);
  const uint32_t id = g_sites[site].function;
  if (!__atomic_load_n(&g_functions[id].enabled, __ATOMIC_ACQUIRE)) return;
  ThreadTrace& t = t_trace;
  if (!enter_hook(t, true)) return;
  Function& fn = g_functions[id];
  // Calls whose return-address slot is at or below this one are gone.
  while (t.depth > 0 && t.frames[t.depth - 1].sp <= sp)
    abandon(t.frames[--t.depth]);
  if (t.depth == kTraceDepth) {
    // Not pushed: a latency call then counts neither its BEGIN nor END.
    if (fn.mode == Mode::kTrace) count(&g_stats.too_deep);
  } else {
    Frame f{sp, 0, id, 0};
    if (fn.mode == Mode::kLatency) {
      // Recursion: only the outermost call of the function is a request.
      bool nested = false;
      for (uint32_t i = 0; i < t.depth && !nested; ++i)
        nested = t.frames[i].function == id;
      if (!nested) {
        f.counted = 1;
        count(&fn.begins);
      }
    } else {
      f.start = monotonic_ns();
    }
    t.frames[t.depth++] = f;
  }
  leave_hook(t);
}

extern "C" ANDWEORC_SIGNAL_SAFE void andweorc_trace_exit(uint64_t site,
                                                         uint64_t sp) {
  if (site >= uint64_t(kMaxTraceSites)) return;
  count(&g_sites[site].passes);  // as at the entry
  const uint32_t id = g_sites[site].function;
  if (!__atomic_load_n(&g_functions[id].enabled, __ATOMIC_ACQUIRE)) return;
  ThreadTrace& t = t_trace;
  if (!enter_hook(t, false)) return;
  Function& fn = g_functions[id];
  const uint64_t now = fn.mode == Mode::kTrace ? monotonic_ns() : 0;
  // Inner calls an exception or longjmp left without their return.
  while (t.depth > 0 && t.frames[t.depth - 1].sp < sp)
    abandon(t.frames[--t.depth]);
  // No match: its entry was dropped (too deep, reentered) or came before
  // the probe (a live one): nothing to end.
  if (t.depth > 0 && t.frames[t.depth - 1].sp == sp &&
      t.frames[t.depth - 1].function == id) {
    const Frame& f = t.frames[--t.depth];
    if (fn.mode == Mode::kLatency) {
      if (f.counted) count(&fn.ends);
    } else {
      publish(raw::TraceCall{t.tid, id, f.start, now, t.depth, 0});
    }
  }
  leave_hook(t);
}

int trace_site_at(uint64_t site) {
  for (int i = 0; i < g_site_count; ++i)
    if (g_sites[i].parsed &&
        g_sites[i].line.vaddr + g_sites[i].line.bias == site)
      return i;
  return -1;
}

bool trace_site_patched(int site) {
  return site >= 0 && site < g_site_count && g_sites[site].patched;
}

ANDWEORC_SIGNAL_SAFE uint64_t trace_site_passes(int site) {
  if (site < 0 || site >= kMaxTraceSites) return 0;
  return __atomic_load_n(&g_sites[site].passes, __ATOMIC_RELAXED);
}

ANDWEORC_SIGNAL_SAFE uint64_t trace_point_hits(int slot) {
  uint64_t total = 0;
  if (slot <= 0) return 0;  // a function not registered has slots 0
  const int n = __atomic_load_n(&g_function_count, __ATOMIC_ACQUIRE);
  for (int id = 0; id < n; ++id) {
    const Function& f = g_functions[id];
    if (f.mode != Mode::kLatency) continue;
    if (f.begin_slot == slot)
      total += __atomic_load_n(&f.begins, __ATOMIC_RELAXED);
    if (f.end_slot == slot) total += __atomic_load_n(&f.ends, __ATOMIC_RELAXED);
  }
  return total;
}

bool trace_live_add(const ProbeEvent* lines, int n, uint32_t live_id,
                    int* begin_slot, const char** why) {
  *begin_slot = 0;
  const int id = g_function_count;
  if (id == kMaxTracedFunctions) {
    *why = "more than 16 traced or latency functions in the process";
    return false;
  }
  if (g_site_count + n > kMaxTraceSites) {
    *why = "more than 48 hooked entries and exits in the process";
    return false;
  }
  static PatchRequest requests[kMaxTraceSites];
  const int first = g_site_count;
  const Mode mode = mode_of(lines[0].kind);
  for (int i = 0; i < n; ++i) {
    Site& s = g_sites[first + i];
    s.line = lines[i];
    s.function = uint32_t(id);
    s.patched = false;
    s.patch_index = -1;
    s.passes = 0;
    s.parsed =
        mode_of(lines[i].kind) == mode &&
        parse_patch_spec(lines[i].patch, strlen(lines[i].patch), &s.spec);
    if (!s.parsed) {
      *why = "a patch plan did not parse";
      return false;
    }
    const bool entry = is_entry(lines[i].kind);
    requests[i] =
        PatchRequest{lines[i].vaddr + lines[i].bias, &s.spec, -1, nullptr};
    requests[i].bias = lines[i].bias;
    requests[i].hook_fn = entry ? uint64_t(&andweorc_trace_enter)
                                : uint64_t(&andweorc_trace_exit);
    requests[i].hook_arg = uint32_t(first + i);
    requests[i].hook_at = entry ? kHookAtEntry : kHookBeforeLast;
  }
  Function& f = g_functions[id];
  memcpy(f.name, lines[0].name, sizeof f.name);
  f.mode = mode;
  f.why = nullptr;
  f.enabled = false;
  f.begins = f.ends = 0;
  f.begin_slot = f.end_slot = 0;
  f.live_id = live_id;
  if (mode == Mode::kLatency) {
    f.begin_slot = andweorc_register_point(ANDWEORC_KIND_BEGIN, f.name);
    f.end_slot = andweorc_register_point(ANDWEORC_KIND_END, f.name);
    if (f.begin_slot <= 0 || f.end_slot <= 0) {
      *why = "no room for another progress point";
      return false;
    }
  } else if (!g_ring_ready) {
    reset_ring();  // no hook has published yet: nothing is lost
    g_ring_ready = true;
  }
  // The sites and the function exist before any jump leads a thread to
  // the hooks; the hooks do nothing until `enabled` (release, below).
  __atomic_store_n(&g_site_count, first + n, __ATOMIC_RELEASE);
  __atomic_store_n(&g_function_count, id + 1, __ATOMIC_RELEASE);
  if (!code_patch_install_live(requests, n, why)) {
    f.why = *why;  // stays off; its slot in the table is spent
    return false;
  }
  for (int i = 0; i < n; ++i) {
    g_sites[first + i].patched = true;
    g_sites[first + i].patch_index = requests[i].index;
  }
  // A thread already inside the function meets an exit with no frame of
  // it: nothing ends (a latency point's in-flight count stays right).
  __atomic_store_n(&f.enabled, true, __ATOMIC_RELEASE);
  if (mode == Mode::kTrace) {
    io_lock().lock();
    write_name(id);
    io_lock().unlock();
  }
  *begin_slot = f.begin_slot;
  return true;
}

bool trace_live_remove(uint32_t live_id, uint32_t* restored, bool* found,
                       const char** name, const char** why) {
  *restored = 0;
  *found = false;
  bool ok = true;
  for (int id = 0; id < g_function_count; ++id) {
    Function& f = g_functions[id];
    if (f.live_id != live_id || !f.enabled) continue;
    *found = true;
    *name = f.name;
    // Calls still open end where their thread meets a hook again (a
    // latency call's end is counted then; a trace's call is dropped).
    __atomic_store_n(&f.enabled, false, __ATOMIC_RELEASE);
    for (int i = 0; i < g_site_count; ++i) {
      Site& s = g_sites[i];
      if (s.function != uint32_t(id) || !s.patched) continue;
      if (code_patch_remove(s.patch_index, why)) {
        s.patched = false;
        ++*restored;
      } else {
        ok = false;
      }
    }
  }
  return ok;
}

ANDWEORC_SIGNAL_SAFE void trace_drain() {
  if (g_function_count == 0) return;
  if (g_names_pending) write_names();
  static raw::TraceCall batch[512];  // only under io_lock
  for (uint64_t budget = kRing; budget > 0;) {
    size_t n = 0;
    while (n < 512 && budget > 0) {
      Slot& slot = g_ring[g_tail & (kRing - 1)];
      if (__atomic_load_n(&slot.seq, __ATOMIC_ACQUIRE) != g_tail + 1) break;
      batch[n++] = slot.call;
      __atomic_store_n(&slot.seq, g_tail + kRing, __ATOMIC_RELEASE);
      ++g_tail;
      --budget;
    }
    if (n > 0) raw_write(raw::kTraceCalls, batch, n * sizeof(raw::TraceCall));
    if (n < 512) break;
  }
}

ANDWEORC_SIGNAL_SAFE void trace_write_final() {
  if (g_function_count == 0) return;
  trace_drain();
  raw::TraceStats stats;
  stats.ring_full = __atomic_load_n(&g_stats.ring_full, __ATOMIC_RELAXED);
  stats.no_return = __atomic_load_n(&g_stats.no_return, __ATOMIC_RELAXED);
  stats.too_deep = __atomic_load_n(&g_stats.too_deep, __ATOMIC_RELAXED);
  stats.reentered = __atomic_load_n(&g_stats.reentered, __ATOMIC_RELAXED);
  raw_write(raw::kTraceStats, &stats, sizeof stats);
}

void trace_after_fork_child() {
  if (g_function_count == 0) return;
  reset_ring();
  g_stats = raw::TraceStats{};
  t_trace.tid = 0;  // this thread's tid is the child's now
  g_names_pending = true;
  // The child's points count from zero: the calls this thread is inside
  // began before, so their returns end nothing here.
  for (int id = 0; id < g_function_count; ++id)
    g_functions[id].begins = g_functions[id].ends = 0;
  for (int i = 0; i < g_site_count; ++i) g_sites[i].passes = 0;
  for (uint32_t i = 0; i < t_trace.depth; ++i) t_trace.frames[i].counted = 0;
}

}  // namespace andweorc::runtime
