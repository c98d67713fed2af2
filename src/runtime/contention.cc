// contention.cc: see contention.h.
#include "runtime/contention.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "runtime/contention_share.h"
#include "runtime/thread_state.h"

namespace andweorc::runtime {
namespace {

// Collector-owned, per pool slot.
struct Reader {
  int fd = -1;         // schedstat
  int status_fd = -1;  // status (context switches); kPreempted only
  int tid = 0;
  uint64_t cpu = 0, wait = 0, vol = 0, invol = 0;
};
// The first chunk's slots only (a Reader's fd = -1 would put a full-size
// array into the library's data); threads beyond it keep scale 1024.
Reader g_readers[kSlotsPerChunk];

constexpr uint64_t kMinWindowNs = 2000000;  // shorter windows say little

bool read_status(Reader& r, uint64_t* vol, uint64_t* invol) {
  char buf[2048];  // status is ~1.4 KB; the switch counts end it
  ssize_t n = pread(r.status_fd, buf, sizeof buf - 1, 0);
  if (n <= 0) return false;
  buf[n] = '\0';
  return parse_ctxt_switches(buf, vol, invol);
}

void close_reader(Reader& r) {
  if (r.fd >= 0) close(r.fd);
  if (r.status_fd >= 0) close(r.status_fd);
  r = Reader{};
}

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

void update_contention(ContentionMode mode) {
  if (mode == ContentionMode::kOff) return;
  bool split = mode == ContentionMode::kPreempted;
  int n = thread_slot_count();
  if (n > kSlotsPerChunk) n = kSlotsPerChunk;
  for (int i = 0; i < n; ++i) {
    ThreadState* s = thread_slot(i);
    Reader& r = g_readers[i];
    bool live = __atomic_load_n(&s->status, __ATOMIC_ACQUIRE) == kLive;
    int tid = live ? s->tid : 0;
    if (r.tid != tid) {  // the slot changed hands: start over
      close_reader(r);
      if (tid == 0) continue;
      char path[64];
      snprintf(path, sizeof path, "/proc/self/task/%d/schedstat", tid);
      r.fd = open(path, O_RDONLY | O_CLOEXEC);
      if (split) {
        snprintf(path, sizeof path, "/proc/self/task/%d/status", tid);
        r.status_fd = open(path, O_RDONLY | O_CLOEXEC);
      }
      r.tid = tid;
      if (r.fd < 0 || !read_schedstat(r, &r.cpu, &r.wait) ||
          (split && (r.status_fd < 0 || !read_status(r, &r.vol, &r.invol))))
        r.tid = -1;  // keeps scale 1024
      continue;
    }
    if (r.fd < 0 || (split && r.status_fd < 0)) continue;
    uint64_t cpu, wait;
    if (!read_schedstat(r, &cpu, &wait)) continue;
    uint64_t dcpu = cpu - r.cpu, dwait = wait - r.wait;
    bool window = dcpu + dwait >= kMinWindowNs;
    // The window is the thread's time on or waiting for a CPU; only the
    // wait that followed preemptions stretches the line it was running.
    // status costs ~6.5 us a read against schedstat's ~0.7 us (here), so it
    // is read only when the split matters: a wait under 2% of the CPU time
    // moves the scale by less than 2% whichever way it is split. The switch
    // counts then cover a longer span than this window; their ratio is
    // what is used.
    uint64_t counted = dwait;
    if (split && window && dwait * 50 > dcpu) {
      uint64_t vol, invol;
      if (!read_status(r, &vol, &invol)) continue;
      counted = preempted_wait(dwait, vol - r.vol, invol - r.invol);
      r.vol = vol, r.invol = invol;
    }
    uint32_t prev = __atomic_load_n(&s->delay.scale, __ATOMIC_RELAXED);
    uint32_t next = contention_scale(dcpu, dwait, counted, prev);
    if (window) r.cpu = cpu, r.wait = wait;
    __atomic_store_n(&s->delay.scale, next, __ATOMIC_RELAXED);
  }
}

}  // namespace andweorc::runtime
