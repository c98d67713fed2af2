// shared_tree.cc: see shared_tree.h.
#include "runtime/shared_tree.h"

#include <linux/futex.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

namespace andweorc::runtime {
namespace {

TreeSegment* g_tree = nullptr;
int g_slot = -1;  // this process's TreeProcess; -1: not claimed yet

// Waits (boundedly) while another process writes entry `p`.
ANDWEORC_SIGNAL_SAFE uint32_t settled_state(const TreePoint& p) {
  uint32_t s = __atomic_load_n(&p.state, __ATOMIC_ACQUIRE);
  for (int i = 0; s == 1 && i < 100000; ++i) {
    if (i >= 100) raw_syscall(SYS_sched_yield);
    s = __atomic_load_n(&p.state, __ATOMIC_ACQUIRE);
  }
  return s;
}

bool g_joined = false;       // this image joined through exec
intptr_t g_arena_shift = 0;  // our arena address - the first process's

}  // namespace

void tree_install(TreeSegment* t, bool joined, intptr_t arena_shift) {
  g_joined = joined;
  g_arena_shift = arena_shift;
  __atomic_store_n(&g_tree, t, __ATOMIC_RELEASE);
}

ANDWEORC_SIGNAL_SAFE bool tree_joined_by_exec() { return g_joined; }

const void* tree_arena_local(const TreeSegment* t, const void* p) {
  if (t == nullptr || p == nullptr) return nullptr;
  return static_cast<const char*>(p) + g_arena_shift;
}

ANDWEORC_SIGNAL_SAFE TreeSegment* tree() {
  return __atomic_load_n(&g_tree, __ATOMIC_ACQUIRE);
}

void tree_forget() {
  __atomic_store_n(&g_tree, nullptr, __ATOMIC_RELEASE);
  g_slot = -1;
}

void* tree_alloc(TreeSegment* t, size_t bytes) {
  // An exec'd image sees the arena elsewhere: what it would store there
  // would be garbage to the others.
  if (t == nullptr || t->arena == nullptr || g_joined) return nullptr;
  bytes = (bytes + 63) & ~size_t(63);  // cache lines: no false sharing
  uint64_t at = __atomic_fetch_add(&t->arena_used, bytes, __ATOMIC_ACQ_REL);
  if (at + bytes > t->arena_size) return nullptr;
  return t->arena + at;
}

bool tree_holds(const TreeSegment* t, const void* p, size_t bytes) {
  if (t == nullptr || t->arena == nullptr || g_joined) return false;
  auto a = reinterpret_cast<uintptr_t>(p);
  auto lo = reinterpret_cast<uintptr_t>(t->arena);
  return a >= lo && a - lo <= t->arena_size &&
         bytes <= t->arena_size - (a - lo);
}

ANDWEORC_SIGNAL_SAFE int tree_point_index(TreeSegment* t, int kind,
                                          const char* name, uint32_t len) {
  if (len > kTreeNameMax) len = kTreeNameMax;  // long names: by prefix
  for (int i = 0; i < kTreePoints; ++i) {
    TreePoint& p = t->points[i];
    uint32_t s = settled_state(p);
    if (s == 0) {
      uint32_t expected = 0;
      if (__atomic_compare_exchange_n(&p.state, &expected, 1, false,
                                      __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
        p.kind = kind;
        p.name_len = len;
        memcpy(p.name, name, len);
        __atomic_store_n(&p.state, 2, __ATOMIC_RELEASE);
        return i;
      }
      s = settled_state(p);  // another process took it: is it ours?
    }
    if (s == 2 && p.kind == kind && p.name_len == len &&
        memcmp(p.name, name, len) == 0)
      return i;
  }
  __atomic_store_n(&t->points_full, 1, __ATOMIC_RELAXED);
  return -1;
}

ANDWEORC_SIGNAL_SAFE TreeProcess* tree_my_process(TreeSegment* t) {
  int slot = __atomic_load_n(&g_slot, __ATOMIC_ACQUIRE);
  if (slot >= 0) return &t->processes[slot];
  if (slot == -2) return nullptr;  // all taken
  int32_t pid = int32_t(raw_syscall(SYS_getpid));
  for (int i = 0; i < kTreeProcesses; ++i) {
    int32_t expected = 0;
    if (__atomic_compare_exchange_n(&t->processes[i].pid, &expected, pid, false,
                                    __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
      tree_exe_name(t->processes[i].exe);
      __atomic_store_n(&t->processes[i].named, 1u, __ATOMIC_RELEASE);
      __atomic_store_n(&g_slot, i, __ATOMIC_RELEASE);
      return &t->processes[i];
    }
  }
  __atomic_store_n(&t->processes_full, 1, __ATOMIC_RELAXED);
  __atomic_store_n(&g_slot, -2, __ATOMIC_RELEASE);
  return nullptr;
}

void tree_after_fork_child() {
  g_slot = -1;
  // Claimed now, not at the first publication: from here on the
  // coordinator waits for this process's answers, so counts it makes before
  // its collector first runs are not missed at a snapshot.
  if (TreeSegment* t = tree()) tree_my_process(t);
}

uint32_t tree_wait_for_request(TreeSegment* t, uint64_t ns) {
  uint32_t seen = __atomic_load_n(&t->publish_request, __ATOMIC_ACQUIRE);
  TreeProcess* mine = tree_my_process(t);
  // A request already pending (it came while we published): answer now.
  if (mine != nullptr &&
      __atomic_load_n(&mine->served, __ATOMIC_ACQUIRE) != seen)
    return seen;
  // Woken, timed out, or the word changed: all mean "look".
  futex_wait(&t->publish_request, seen, ns, /*shared=*/true);
  return __atomic_load_n(&t->publish_request, __ATOMIC_ACQUIRE);
}

ANDWEORC_SIGNAL_SAFE void tree_served(TreeSegment* t, uint32_t n, bool final) {
  TreeProcess* mine = tree_my_process(t);
  if (mine == nullptr) return;
  __atomic_store_n(&mine->served, n, __ATOMIC_RELEASE);
  if (final) __atomic_store_n(&mine->exited, 1, __ATOMIC_RELEASE);
}

int tree_request_totals(TreeSegment* t, int32_t self_pid,
                        uint64_t max_wait_ns) {
  uint32_t n = __atomic_add_fetch(&t->publish_request, 1, __ATOMIC_ACQ_REL);
  futex_wake_all(&t->publish_request, /*shared=*/true);
  uint64_t deadline = monotonic_ns() + max_wait_ns;
  for (;;) {
    int waiting = 0;
    for (int i = 0; i < kTreeProcesses; ++i) {
      const TreeProcess& p = t->processes[i];
      int32_t pid = __atomic_load_n(&p.pid, __ATOMIC_ACQUIRE);
      if (pid == 0 || pid == self_pid ||
          __atomic_load_n(&p.exited, __ATOMIC_ACQUIRE))
        continue;
      if (int32_t(__atomic_load_n(&p.served, __ATOMIC_ACQUIRE) - n) < 0)
        ++waiting;
    }
    if (waiting == 0 || monotonic_ns() >= deadline) return waiting;
    timespec pause{0, 50 * 1000};
    raw_syscall(SYS_nanosleep, long(&pause), 0);
  }
}

ANDWEORC_SIGNAL_SAFE void tree_exe_name(char* out) {
  char path[1024];
  long n = raw_syscall(SYS_readlink, long("/proc/self/exe"), long(path),
                       long(sizeof path - 1));
  size_t len = n > 0 ? size_t(n) : 0, base = 0;
  for (size_t i = 0; i < len; ++i)
    if (path[i] == '/') base = i + 1;
  size_t copy = len - base < kTreeExeMax - 1 ? len - base : kTreeExeMax - 1;
  memcpy(out, path + base, copy);
  out[copy] = '\0';
}

ANDWEORC_SIGNAL_SAFE void tree_note_exec() {
  if (TreeSegment* t = tree())
    __atomic_add_fetch(&t->execs, 1, __ATOMIC_RELEASE);
}

bool tree_register_image(TreeSegment* t, const char* path) {
  size_t len = strlen(path);
  if (t == nullptr || len == 0 || len >= kTreeImagePathMax) return false;
  for (int i = 0; i < kTreeImages; ++i) {
    TreeImage& e = t->images[i];
    uint32_t state = __atomic_load_n(&e.state, __ATOMIC_ACQUIRE);
    // One being written may be this path too: wait for it (a writer
    // finishes within microseconds; one killed meanwhile is given 10 ms).
    for (int spin = 0; state == 1 && spin < 1000; ++spin) {
      timespec pause{0, 10 * 1000};
      raw_syscall(SYS_nanosleep, long(&pause), 0);
      state = __atomic_load_n(&e.state, __ATOMIC_ACQUIRE);
    }
    if (state == 2) {
      if (e.path_len == len && memcmp(e.path, path, len) == 0) return true;
      continue;
    }
    if (state != 0) continue;
    uint32_t expected = 0;
    if (!__atomic_compare_exchange_n(&e.state, &expected, 1u, false,
                                     __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
      --i;  // taken meanwhile: look at it again
      continue;
    }
    memcpy(e.path, path, len);
    e.path[len] = '\0';
    e.path_len = uint32_t(len);
    __atomic_store_n(&e.state, 2u, __ATOMIC_RELEASE);
    return true;
  }
  __atomic_store_n(&t->images_full, 1u, __ATOMIC_RELAXED);
  return false;
}

int tree_registered_images(const TreeSegment& t, char (*out)[kTreeImagePathMax],
                           int max) {
  int n = 0;
  for (int i = 0; i < kTreeImages && n < max; ++i) {
    const TreeImage& e = t.images[i];
    if (__atomic_load_n(&e.state, __ATOMIC_ACQUIRE) != 2) continue;
    uint32_t len = e.path_len < kTreeImagePathMax ? e.path_len : 0;
    memcpy(out[n], e.path, len);
    out[n][len] = '\0';
    ++n;
  }
  return n;
}

uint64_t tree_total_except(const TreeSegment& t, int index, int32_t skip_pid) {
  if (index < 0 || index >= kTreePoints) return 0;
  uint64_t total = 0;
  for (int i = 0; i < kTreeProcesses; ++i) {
    int32_t pid = __atomic_load_n(&t.processes[i].pid, __ATOMIC_ACQUIRE);
    if (pid == 0 || pid == skip_pid) continue;
    total += __atomic_load_n(&t.processes[i].totals[index], __ATOMIC_RELAXED);
  }
  return total;
}

}  // namespace andweorc::runtime

namespace {
uint64_t g_execs_seen = 0;  // the tree's exec count this process acted on
}

extern "C" int andweorc_tree_exec_seen(void) {
  andweorc::runtime::TreeSegment* t = andweorc::runtime::tree();
  if (t == nullptr) return 0;
  uint64_t n = __atomic_load_n(&t->execs, __ATOMIC_ACQUIRE);
  if (n == __atomic_load_n(&g_execs_seen, __ATOMIC_RELAXED)) return 0;
  __atomic_store_n(&g_execs_seen, n, __ATOMIC_RELAXED);
  return 1;
}

extern "C" int andweorc_tree_has_pid(int pid) {
  if (pid == int(andweorc::runtime::raw_syscall(SYS_getpid))) return 1;
  return andweorc_tree_has_other_pid(pid);
}

extern "C" int andweorc_tree_has_other_pid(int pid) {
  andweorc::runtime::TreeSegment* t = andweorc::runtime::tree();
  if (t == nullptr) return 0;
  // A pid may hold two slots: the image before an exec (exited) and the one
  // after it, which joined the tree again.
  bool seen = false;
  for (const andweorc::runtime::TreeProcess& p : t->processes) {
    if (__atomic_load_n(&p.pid, __ATOMIC_ACQUIRE) != pid) continue;
    // Exited, exec'd without joining again, or not profiled (it never
    // pays the tree's delays): outside.
    if (__atomic_load_n(&p.exited, __ATOMIC_ACQUIRE) == 0) return 1;
    seen = true;
  }
  if (seen) return 0;
  // The first process claims its slot when its collector first runs.
  return pid == t->root_pid;
}
