// signal_safe.h: the marker for async-signal-safe code and the few helpers
// such code may use (raw syscalls, clocks, number formatting, whole writes).
#ifndef ANDWEORC_RUNTIME_SIGNAL_SAFE_H_
#define ANDWEORC_RUNTIME_SIGNAL_SAFE_H_

#include <linux/futex.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

// Tags a function that may run inside a signal handler (see README.md).
#define ANDWEORC_SIGNAL_SAFE
// Initial-exec TLS: no allocation on first access (README.md rule 2).
#define ANDWEORC_TLS __attribute__((tls_model("initial-exec"))) thread_local

namespace andweorc::runtime {

ANDWEORC_SIGNAL_SAFE inline uint64_t monotonic_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return uint64_t(ts.tv_sec) * 1000000000u + uint64_t(ts.tv_nsec);
}

ANDWEORC_SIGNAL_SAFE inline uint64_t realtime_ns() {
  timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return uint64_t(ts.tv_sec) * 1000000000u + uint64_t(ts.tv_nsec);
}

// A system call that bypasses libc, and so bypasses our own interposed
// read/write/nanosleep/syscall wrappers (which may delay the caller).
// Returns -errno on failure, like the kernel.
ANDWEORC_SIGNAL_SAFE inline long raw_syscall(long n, long a = 0, long b = 0,
                                             long c = 0, long d = 0,
                                             long e = 0) {
  long ret;
  // The 4th and 5th arguments go in r10 and r8 (the kernel's convention).
  register long r10 asm("r10") = d;
  register long r8 asm("r8") = e;
  asm volatile("syscall"
               : "=a"(ret)
               : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8)
               : "rcx", "r11", "memory");
  return ret;
}

ANDWEORC_SIGNAL_SAFE inline int current_tid() {
  return int(raw_syscall(SYS_gettid));
}

// A clock's time in ns, straight from the kernel; 0 when it cannot be read
// (the clock of a thread that has ended).
ANDWEORC_SIGNAL_SAFE inline uint64_t clock_ns(clockid_t clock) {
  timespec ts{};
  if (raw_syscall(SYS_clock_gettime, clock, long(&ts)) != 0) return 0;
  return uint64_t(ts.tv_sec) * 1000000000u + uint64_t(ts.tv_nsec);
}

// The CPU-time clock of thread `tid` of this process, as glibc's
// pthread_getcpuclockid makes it (the kernel's MAKE_THREAD_CPUCLOCK with
// CPUCLOCK_SCHED): for a thread other than the caller, whose pthread_t we
// do not have.
ANDWEORC_SIGNAL_SAFE inline clockid_t thread_cpu_clock(int tid) {
  constexpr clockid_t kPerThread = 4, kSched = 2;
  return clockid_t((~clockid_t(tid) << 3) | kPerThread | kSched);
}

// Sleeps until *word is woken, no longer holds `seen`, or `ns` passed (the
// caller looks again in every case). `shared`: the word is in memory other
// processes map (the process tree's segment), else private to this one.
ANDWEORC_SIGNAL_SAFE inline void futex_wait(uint32_t* word, uint32_t seen,
                                            uint64_t ns, bool shared) {
  timespec ts{time_t(ns / 1000000000u), long(ns % 1000000000u)};
  raw_syscall(SYS_futex, long(word), shared ? FUTEX_WAIT : FUTEX_WAIT_PRIVATE,
              long(seen), long(&ts));
}

// Wakes every thread sleeping on *word (futex_wait with the same `shared`).
ANDWEORC_SIGNAL_SAFE inline void futex_wake_all(uint32_t* word, bool shared) {
  raw_syscall(SYS_futex, long(word), shared ? FUTEX_WAKE : FUTEX_WAKE_PRIVATE,
              0x7fffffff);
}

// Writes all of buf, retrying on EINTR and short writes. False on error.
ANDWEORC_SIGNAL_SAFE bool write_all(int fd, const void* buf, size_t len);

// Appends decimal digits of v to out (capacity cap); returns chars written.
ANDWEORC_SIGNAL_SAFE size_t format_u64(uint64_t v, char* out, size_t cap);

// Bounded string copy/append into a fixed buffer; always NUL-terminates.
ANDWEORC_SIGNAL_SAFE size_t append_str(char* out, size_t cap, size_t len,
                                       const char* s);

// A spin lock the signal handler never takes. `try_lock` is safe anywhere;
// `lock` may spin (yielding) and is for ordinary threads only.
class SpinLock {
 public:
  ANDWEORC_SIGNAL_SAFE bool try_lock() {
    return !__atomic_test_and_set(&held_, __ATOMIC_ACQUIRE);
  }
  void lock();
  ANDWEORC_SIGNAL_SAFE void unlock() {
    __atomic_clear(&held_, __ATOMIC_RELEASE);
  }
  // After fork only the forking thread exists: nobody else can hold it.
  void reset_after_fork() { __atomic_clear(&held_, __ATOMIC_RELAXED); }

 private:
  bool held_ = false;
};

}  // namespace andweorc::runtime

#endif  // ANDWEORC_RUNTIME_SIGNAL_SAFE_H_
