// progress_points.cc: progress-point registry, per-thread counters, Coz ABI.
#include "runtime/progress_points.h"

#include <string.h>
#include <sys/mman.h>

#include "andweorc/andweorc.h"
#include "runtime/probe_points.h"
#include "runtime/raw_format.h"
#include "runtime/raw_writer.h"
#include "runtime/runtime.h"
#include "runtime/shared_tree.h"
#include "runtime/thread_state.h"

namespace andweorc::runtime {
namespace {

struct CozCounter {  // Coz's coz_counter_t layout
  size_t count;
  size_t backoff;
};

struct Point {
  int kind;
  uint32_t name_len;
  const char* name;  // points into g_names
  CozCounter coz;    // incremented directly by coz.h programs
};

constexpr int kMaxPoints = ANDWEORC_MAX_COUNTERS;
Point g_points[kMaxPoints];  // slot 0 unused
int g_point_count = 1;       // published with release after a slot is filled
char g_names[64 * 1024];
size_t g_names_used = 0;
SpinLock g_registry_lock;
uint64_t g_retired[kMaxPoints];
// A thread's counts move from its live array into g_retired when it exits.
// Readers sum both, so a read that overlaps a move could see the counts
// twice or not at all, and the next delta (a later total minus this one)
// would wrap to ~1.8e19. The move is bracketed by this sequence number
// (odd while moving); readers retry until they saw none (a seqlock).
uint64_t g_retire_seq = 0;

// Free counter arrays, kept for reuse (threads come and go).
uint64_t* g_free_arrays[kMaxThreads];
int g_free_count = 0;
SpinLock g_arrays_lock;

int find_or_add(int kind, const char* name) {
  if (name == nullptr || kind < ANDWEORC_KIND_THROUGHPUT ||
      kind > ANDWEORC_KIND_END)
    return -1;
  size_t len = strnlen(name, 1024);
  g_registry_lock.lock();
  int count = g_point_count;
  for (int i = 1; i < count; ++i) {
    if (g_points[i].kind == kind && g_points[i].name_len == len &&
        memcmp(g_points[i].name, name, len) == 0) {
      g_registry_lock.unlock();
      return i;
    }
  }
  int slot = -1;
  if (count < kMaxPoints && g_names_used + len <= sizeof g_names) {
    // Copy the name: it may live in a library that is later unloaded.
    memcpy(g_names + g_names_used, name, len);
    g_points[count] =
        Point{kind, uint32_t(len), g_names + g_names_used, {0, 0}};
    g_names_used += len;
    slot = count;
    __atomic_store_n(&g_point_count, count + 1, __ATOMIC_RELEASE);
  }
  g_registry_lock.unlock();
  return slot;
}

}  // namespace

uint64_t* counters_allocate() {
  g_arrays_lock.lock();
  uint64_t* a = g_free_count > 0 ? g_free_arrays[--g_free_count] : nullptr;
  g_arrays_lock.unlock();
  if (a != nullptr) return a;
  void* mem = mmap(nullptr, sizeof(uint64_t) * kMaxPoints,
                   PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  return mem == MAP_FAILED ? nullptr : static_cast<uint64_t*>(mem);
}

void counters_retire(uint64_t** slot) {
  probes_thread_exited();  // uprobe counts may stop after this (kernel)
  uint64_t* counters = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
  if (counters == nullptr) return;
  // Callers serialize (io_lock, or the only thread after fork).
  __atomic_add_fetch(&g_retire_seq, 1, __ATOMIC_ACQ_REL);  // odd: moving
  for (int i = 1; i < kMaxPoints; ++i) {
    uint64_t v = __atomic_load_n(&counters[i], __ATOMIC_RELAXED);
    if (v != 0) {
      __atomic_add_fetch(&g_retired[i], v, __ATOMIC_RELAXED);
      __atomic_store_n(&counters[i], 0, __ATOMIC_RELAXED);
    }
  }
  // Still inside the window: a reader never sees the array gone while its
  // counts are not yet in g_retired, nor the array reused by a new thread
  // while this slot still points to it.
  __atomic_store_n(slot, nullptr, __ATOMIC_RELEASE);
  __atomic_add_fetch(&g_retire_seq, 1, __ATOMIC_RELEASE);  // even: done
  g_arrays_lock.lock();
  if (g_free_count < kMaxThreads) g_free_arrays[g_free_count++] = counters;
  g_arrays_lock.unlock();
}

void counters_reset_all() {
  g_registry_lock.reset_after_fork();
  g_arrays_lock.reset_after_fork();
  g_retire_seq = 0;
  memset(g_retired, 0, sizeof g_retired);
  for (int i = 1; i < g_point_count; ++i) g_points[i].coz.count = 0;
  for (int t = 0, n = thread_slot_count(); t < n; ++t) {
    ThreadState* s = thread_slot(t);
    if (s->counters) memset(s->counters, 0, sizeof(uint64_t) * kMaxPoints);
  }
}

ANDWEORC_SIGNAL_SAFE uint64_t point_total_once(int i) {
  uint64_t total = __atomic_load_n(&g_retired[i], __ATOMIC_RELAXED) +
                   __atomic_load_n(&g_points[i].coz.count, __ATOMIC_RELAXED) +
                   probe_hits(i);  // counted by the kernel (--progress)
  for (int t = 0, n = thread_slot_count(); t < n; ++t) {
    ThreadState* s = thread_slot(t);
    if (__atomic_load_n(&s->status, __ATOMIC_ACQUIRE) != kLive) continue;
    uint64_t* c = __atomic_load_n(&s->counters, __ATOMIC_ACQUIRE);
    if (c) total += __atomic_load_n(&c[i], __ATOMIC_RELAXED);
  }
  return total;
}

// A total no thread exit was half-way through (see g_retire_seq). Bounded:
// from a signal handler that interrupted the mover itself the sequence
// never settles, and the last (possibly inconsistent) read is returned.
// Callers that hold io_lock (snapshots) never wait: movers hold it too.
ANDWEORC_SIGNAL_SAFE uint64_t point_total(int i) {
  uint64_t total = 0;
  for (int attempt = 0; attempt < 100000; ++attempt) {
    uint64_t before = __atomic_load_n(&g_retire_seq, __ATOMIC_ACQUIRE);
    total = point_total_once(i);
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    if (!(before & 1) &&
        __atomic_load_n(&g_retire_seq, __ATOMIC_RELAXED) == before)
      break;
    if (attempt >= 100) raw_syscall(SYS_sched_yield);
  }
  return total;
}

int points_totals(PointTotal* out, int cap) {
  int count = __atomic_load_n(&g_point_count, __ATOMIC_ACQUIRE);
  for (int i = 1; i < count && i - 1 < cap; ++i)
    out[i - 1] = PointTotal{g_points[i].kind, g_points[i].name,
                            g_points[i].name_len, point_total(i)};
  return count - 1;
}

// Local point -> the tree's index of it (0: not looked up yet, -1: the
// tree's table is full; else index + 1). Inherited by a fork child: the
// tree's table is shared, so the indexes stay right.
static int g_tree_index[kMaxPoints];

ANDWEORC_SIGNAL_SAFE void points_publish_to_tree() {
  TreeSegment* t = tree();
  if (t == nullptr) return;
  TreeProcess* mine = tree_my_process(t);
  if (mine == nullptr) return;
  int count = __atomic_load_n(&g_point_count, __ATOMIC_ACQUIRE);
  for (int i = 1; i < count; ++i) {
    int idx = __atomic_load_n(&g_tree_index[i], __ATOMIC_RELAXED);
    if (idx == 0) {
      int found = tree_point_index(t, g_points[i].kind, g_points[i].name,
                                   g_points[i].name_len);
      idx = found < 0 ? -1 : found + 1;
      __atomic_store_n(&g_tree_index[i], idx, __ATOMIC_RELAXED);
    }
    if (idx > 0)
      __atomic_store_n(&mine->totals[idx - 1], point_total(i),
                       __ATOMIC_RELAXED);
  }
}

ANDWEORC_SIGNAL_SAFE void points_write_snapshot() {
  int count = __atomic_load_n(&g_point_count, __ATOMIC_ACQUIRE);
  if (count <= 1) return;
  // Record body: PointsHeader, then per point a PointEntry + padded name.
  alignas(8) static uint8_t buf[sizeof(raw::PointsHeader) +
                                kMaxPoints * sizeof(raw::PointEntry) +
                                sizeof g_names + 8 * kMaxPoints];
  size_t len = sizeof(raw::PointsHeader);
  raw::PointsHeader ph{uint32_t(count - 1), 0};
  memcpy(buf, &ph, sizeof ph);
  for (int i = 1; i < count; ++i) {
    const Point& p = g_points[i];
    raw::PointEntry e{uint32_t(p.kind), p.name_len, point_total(i)};
    memcpy(buf + len, &e, sizeof e);
    len += sizeof e;
    memcpy(buf + len, p.name, p.name_len);
    len += raw::padded8(p.name_len);
  }
  raw_write(raw::kPoints, buf, len);
}

}  // namespace andweorc::runtime

using andweorc::runtime::ThreadState;

extern "C" {

__attribute__((visibility("default"))) int andweorc_register_point(
    int kind, const char* name) {
  return andweorc::runtime::find_or_add(kind, name);
}

// Set in a thread the pool had no slot for: its hits are not counted, and
// asking again on every hit would scan the whole pool under a lock.
ANDWEORC_TLS bool t_no_slot = false;

__attribute__((visibility("default"))) uint64_t* andweorc_thread_counters(
    void) {
  ThreadState* s = andweorc::runtime::current_thread();
  if (s == nullptr && !t_no_slot) {
    s = andweorc::runtime::register_current_thread();
    if (s == nullptr) {
      t_no_slot = true;
      andweorc::runtime::note_unprofiled_thread();
    }
  }
  return s ? s->counters : nullptr;
}

// Coz ABI: coz.h increments the returned counter with an atomic add.
__attribute__((visibility("default"))) void* _coz_get_counter(
    int type, const char* name) {
  int slot = andweorc::runtime::find_or_add(type, name);
  if (slot <= 0) return nullptr;
  return &andweorc::runtime::g_points[slot].coz;
}

}  // extern "C"
