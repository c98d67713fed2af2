// contention.cc: see contention.h.
#include "runtime/contention.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "runtime/thread_state.h"

namespace andweorc::runtime {
namespace {

// Collector-owned, per pool slot.
struct Reader {
  int fd = -1;
  int tid = 0;
  uint64_t cpu = 0, wait = 0;
};
// The first chunk's slots only (a Reader's fd = -1 would put a full-size
// array into the library's data); threads beyond it keep scale 1024.
Reader g_readers[kSlotsPerChunk];

constexpr uint64_t kMinWindowNs = 2000000;  // shorter windows say little

bool read_schedstat(Reader& r, uint64_t* cpu, uint64_t* wait) {
  char buf[96];
  ssize_t n = pread(r.fd, buf, sizeof buf - 1, 0);
  if (n <= 0) return false;
  buf[n] = '\0';
  char* end = nullptr;
  *cpu = strtoull(buf, &end, 10);
  *wait = strtoull(end, nullptr, 10);
  return true;
}

}  // namespace

uint32_t contention_scale(uint64_t cpu_ns, uint64_t wait_ns,
                          uint32_t previous) {
  if (cpu_ns + wait_ns < kMinWindowNs || cpu_ns == 0) return previous;
  uint64_t scale = (cpu_ns + wait_ns) * 1024 / cpu_ns;
  return uint32_t(scale > 8 * 1024 ? 8 * 1024 : scale);
}

void update_contention() {
  int n = thread_slot_count();
  if (n > kSlotsPerChunk) n = kSlotsPerChunk;
  for (int i = 0; i < n; ++i) {
    ThreadState* s = thread_slot(i);
    Reader& r = g_readers[i];
    bool live = __atomic_load_n(&s->status, __ATOMIC_ACQUIRE) == kLive;
    int tid = live ? s->tid : 0;
    if (r.tid != tid) {  // the slot changed hands: start over
      if (r.fd >= 0) close(r.fd);
      r = Reader{};
      if (tid == 0) continue;
      char path[64];
      snprintf(path, sizeof path, "/proc/self/task/%d/schedstat", tid);
      r.fd = open(path, O_RDONLY | O_CLOEXEC);
      r.tid = tid;
      if (r.fd < 0 || !read_schedstat(r, &r.cpu, &r.wait)) r.tid = -1;
      continue;
    }
    if (r.fd < 0) continue;
    uint64_t cpu, wait;
    if (!read_schedstat(r, &cpu, &wait)) continue;
    uint64_t dcpu = cpu - r.cpu, dwait = wait - r.wait;
    uint32_t prev = __atomic_load_n(&s->delay.scale, __ATOMIC_RELAXED);
    uint32_t next = contention_scale(dcpu, dwait, prev);
    if (dcpu + dwait >= kMinWindowNs) r.cpu = cpu, r.wait = wait;
    __atomic_store_n(&s->delay.scale, next, __ATOMIC_RELAXED);
  }
}

}  // namespace andweorc::runtime
