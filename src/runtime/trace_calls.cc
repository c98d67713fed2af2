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

#include "runtime/raw_format.h"
#include "runtime/raw_writer.h"
#include "runtime/runtime.h"
#include "runtime/trampoline.h"

namespace andweorc::runtime {
namespace {

struct Site {
  ProbeEvent line;
  PatchSpec spec;
  uint32_t function;
  bool parsed;
};
Site g_sites[kMaxTraceSites];
int g_site_count = 0;

struct Function {
  char name[kProbeTextMax];
  bool enabled;  // read by the hooks (set before any jump is written)
  const char* why;
};
Function g_functions[kMaxTracedFunctions];
int g_function_count = 0;

struct Slot {
  uint64_t seq;
  raw::TraceCall call;
};
constexpr uint64_t kRing = uint64_t(1) << 15;  // 1.25 MB, ~1.6 M calls/s
Slot g_ring[kRing];
uint64_t g_head = 0;  // next slot to claim (producers)
uint64_t g_tail = 0;  // next slot to drain (under io_lock)
raw::TraceStats g_stats = {};

struct Frame {
  uint64_t sp;
  uint64_t start;
  uint32_t function;
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
ANDWEORC_SIGNAL_SAFE void write_names() {
  for (int id = 0; id < g_function_count; ++id) {
    const Function& f = g_functions[id];
    raw::TraceName rec{uint32_t(id), f.enabled ? 1u : 0u,
                       uint32_t(strlen(f.name)), 0};
    raw_write(raw::kTraceNames, &rec, sizeof rec, f.name, rec.name_len);
  }
  g_names_pending = false;
}

ANDWEORC_SIGNAL_SAFE inline void leave_hook(ThreadTrace& t) {
  __atomic_signal_fence(__ATOMIC_SEQ_CST);
  t.busy = 0;
}

}  // namespace

void trace_add_site(const ProbeEvent& e) {
  if (g_site_count == kMaxTraceSites) return;
  uint32_t id = 0;
  while (int(id) < g_function_count && strcmp(g_functions[id].name, e.name))
    ++id;
  if (int(id) == g_function_count) {
    if (g_function_count == kMaxTracedFunctions) return;
    memcpy(g_functions[id].name, e.name, sizeof e.name);
    g_functions[id].why = nullptr;
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
  int n = 0;
  for (int i = 0; i < g_site_count && n < cap; ++i) {
    Site& s = g_sites[i];
    if (!s.parsed) continue;
    bool entry = s.line.kind == kKindTraceEntry;
    out[n] = PatchRequest{s.line.vaddr + s.line.bias, &s.spec, -1, nullptr};
    out[n].bias = s.line.bias;
    out[n].hook_fn = entry ? uint64_t(&andweorc_trace_enter)
                           : uint64_t(&andweorc_trace_exit);
    out[n].hook_arg = s.function;
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
      Function& f = g_functions[g_sites[i].function];
      if (!patched[i] && f.why == nullptr) f.why = requests[k].why;
    }
    ++k;
  }
  for (int id = 0; id < g_function_count; ++id) {
    bool all = true;
    for (int i = 0; i < g_site_count; ++i)
      if (g_sites[i].function == uint32_t(id)) all = all && patched[i];
    // The jumps are already written: a patched entry with an exit left
    // unpatched would record calls that never end, so nothing is recorded.
    __atomic_store_n(&g_functions[id].enabled, all, __ATOMIC_RELEASE);
  }
  io_lock().lock();
  write_names();
  for (int id = 0; id < g_function_count; ++id) {
    const Function& f = g_functions[id];
    if (!f.enabled) {
      char text[kProbeTextMax + 200];
      size_t len = append_str(text, sizeof text, 0, "trace: '");
      len = append_str(text, sizeof text, len, f.name);
      len = append_str(text, sizeof text, len,
                       "' is not traced: its entry and every exit could not "
                       "all be patched (");
      len = append_str(text, sizeof text, len, f.why ? f.why : "unknown");
      append_str(text, sizeof text, len, ")");
      raw_write_note(text);
    }
  }
  io_lock().unlock();
}

extern "C" ANDWEORC_SIGNAL_SAFE void andweorc_trace_enter(uint64_t id,
                                                          uint64_t sp) {
  if (id >= uint64_t(kMaxTracedFunctions) ||
      !__atomic_load_n(&g_functions[id].enabled, __ATOMIC_ACQUIRE))
    return;
  ThreadTrace& t = t_trace;
  if (!enter_hook(t, true)) return;
  uint64_t now = monotonic_ns();
  // Calls whose return-address slot is at or below this one are gone.
  while (t.depth > 0 && t.frames[t.depth - 1].sp <= sp) {
    --t.depth;
    count(&g_stats.no_return);
  }
  if (t.depth == kTraceDepth)
    count(&g_stats.too_deep);
  else
    t.frames[t.depth++] = Frame{sp, now, uint32_t(id)};
  leave_hook(t);
}

extern "C" ANDWEORC_SIGNAL_SAFE void andweorc_trace_exit(uint64_t id,
                                                         uint64_t sp) {
  if (id >= uint64_t(kMaxTracedFunctions) ||
      !__atomic_load_n(&g_functions[id].enabled, __ATOMIC_ACQUIRE))
    return;
  ThreadTrace& t = t_trace;
  if (!enter_hook(t, false)) return;
  uint64_t now = monotonic_ns();
  // Inner calls an exception or longjmp left without their return.
  while (t.depth > 0 && t.frames[t.depth - 1].sp < sp) {
    --t.depth;
    count(&g_stats.no_return);
  }
  // No match: its entry was dropped (too deep, reentered): nothing to end.
  if (t.depth > 0 && t.frames[t.depth - 1].sp == sp &&
      t.frames[t.depth - 1].function == uint32_t(id)) {
    --t.depth;
    publish(raw::TraceCall{t.tid, uint32_t(id), t.frames[t.depth].start, now,
                           t.depth, 0});
  }
  leave_hook(t);
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
}

}  // namespace andweorc::runtime
