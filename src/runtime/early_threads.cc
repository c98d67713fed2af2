// early_threads.cc: see early_threads.h.
#include "runtime/early_threads.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "runtime/runtime.h"
#include "runtime/signal_safe.h"
#include "runtime/thread_state.h"

namespace andweorc::runtime {
namespace {

// The live slot of `tid`, or nullptr.
ThreadState* live_slot_of(int tid) {
  for (int i = 0, n = thread_slot_count(); i < n; ++i) {
    ThreadState* s = thread_slot(i);
    if (__atomic_load_n(&s->status, __ATOMIC_ACQUIRE) == kLive && s->tid == tid)
      return s;
  }
  return nullptr;
}

}  // namespace

int prepare_threads_already_running(int pid) {
  int fd = open("/proc/self/task", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return 0;
  alignas(8) char buf[4096];
  int self = current_tid(), missed = 0;
  for (;;) {
    long n = raw_syscall(SYS_getdents64, fd, long(buf), long(sizeof buf));
    if (n <= 0) break;
    for (long pos = 0; pos < n;) {
      auto* d = reinterpret_cast<dirent64*>(buf + pos);
      pos += d->d_reclen;
      int tid = atoi(d->d_name);
      if (tid <= 0 || tid == self || is_runtime_thread(tid)) continue;
      ThreadState* s = prepare_running_thread(tid);
      if (s == nullptr) {
        if (ThreadState* own = live_slot_of(tid)) {
          // It registered itself meanwhile, or kept its slot from an
          // earlier attach whose detach released the samplers: restart,
          // and in the second case this attach's file has yet to hear of
          // it (else the profile counts only the threads born since).
          const bool kept = own->perf_fd < 0 &&
                            !__atomic_load_n(&own->has_timer, __ATOMIC_ACQUIRE);
          start_thread_sampler(own);
          if (kept) note_thread_kept_slot(own);
          continue;
        }
        if (thread_slot_count() >= kMaxThreads) ++missed;  // pool full
        continue;
      }
      start_thread_sampler(s);
      if (s->perf_fd < 0 && !s->has_timer) {
        abandon_prepared_thread(s);
        // A thread that exited meanwhile has no work to miss.
        if (raw_syscall(SYS_tgkill, pid, tid, 0) == 0) ++missed;
      }
    }
  }
  close(fd);
  return missed;
}

}  // namespace andweorc::runtime
