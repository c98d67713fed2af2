/* internal_fds.c: descriptor marks and the guard around the profiler's own
 * descriptors (see internal_fds.h). Async-signal-safe: raw syscalls and
 * atomics only. */
#define _GNU_SOURCE
#include "runtime/internal_fds.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "runtime/shared_tree_net.h"

#define MAX_FDS 65536
static uint64_t g_internal[MAX_FDS / 64];
static uint64_t g_epoll_external[MAX_FDS / 64];

/* ---- raw system calls: no libc wrapper (ours may be interposed) ---- */

static long sys4(long n, long a, long b, long c, long d) {
  long ret;
  register long r10 __asm__("r10") = d;
  __asm__ volatile("syscall"
                   : "=a"(ret)
                   : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10)
                   : "rcx", "r11", "memory");
  return ret;
}
static long sys5(long n, long a, long b, long c, long d, long e) {
  long ret;
  register long r10 __asm__("r10") = d;
  register long r8 __asm__("r8") = e;
  __asm__ volatile("syscall"
                   : "=a"(ret)
                   : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8)
                   : "rcx", "r11", "memory");
  return ret;
}
static void sys_close(int fd) { sys4(SYS_close, fd, 0, 0, 0); }
static void sys_yield(void) { sys4(SYS_sched_yield, 0, 0, 0, 0); }

/* ---- bits ---- */

static void set_bit(uint64_t* bits, int fd, int on) {
  if (fd < 0 || fd >= MAX_FDS) return;
  uint64_t mask = (uint64_t)1 << (fd % 64);
  if (on)
    __atomic_or_fetch(&bits[fd / 64], mask, __ATOMIC_RELAXED);
  else
    __atomic_and_fetch(&bits[fd / 64], ~mask, __ATOMIC_RELAXED);
}

static int get_bit(const uint64_t* bits, int fd) {
  if (fd < 0 || fd >= MAX_FDS) return 0;
  return (__atomic_load_n(&bits[fd / 64], __ATOMIC_RELAXED) >> (fd % 64)) & 1;
}

/* ---- marks ---- */

/* shared_tree.cc: a process of the tree exec'd since we last asked. */
int andweorc_tree_exec_seen(void);

void andweorc_fd_mark(int fd, int internal) {
  /* Marks only change on a real transition: close() of an unmarked fd (the
   * common case) writes nothing, and makes no getpid call. A vfork child
   * shares our memory but not our descriptor table: its pipe, dup2 or close
   * would change the parent's marks of numbers that mean something else
   * there (a dup2 of a pipe onto 1 marked the parent's stdout). */
  if (!internal) {
    if (get_bit(g_internal, fd) && andweorc_is_original_process())
      set_bit(g_internal, fd, 0);
    return;
  }
  /* Marking is rare (a pipe, a socketpair, a connection of the tree). An
   * exec seen since the last look clears the marks made before it first,
   * not this one (andweorc_fd_internal looks only at marked fds). */
  if (!andweorc_is_original_process()) return;
  if (andweorc_tree_exec_seen()) andweorc_fd_clear_marks();
  if (!get_bit(g_internal, fd)) set_bit(g_internal, fd, 1);
}

int andweorc_fd_internal(int fd) {
  /* A pipe to a process that exec'd leads outside the tree now: whichever
   * it was, every mark made before is suspect (shared_tree.h). Only a mark
   * can be stale (the exec only ever clears), so the exec count is read for
   * a marked fd alone: it lives in the tree's shared segment, and on a
   * server whose syscalls evict the runtime's lines between two wrapper
   * calls that read was a cache miss at every read and write (nginx: 0.4%
   * of a worker's time in andweorc_tree_exec_seen). Marks made after the
   * exec first take it into account (andweorc_fd_mark). */
  if (!get_bit(g_internal, fd)) return 0;
  if (andweorc_tree_exec_seen()) {
    andweorc_fd_clear_marks();
    return 0;
  }
  return 1;
}

int andweorc_fd_peer_has_unread(int fd) {
  /* A TCP connection of the tree: the counts of both ends. */
  int counted = andweorc_net_peer_unread(fd);
  if (counted >= 0) return counted;
  int n = 0;
  /* TIOCOUTQ is SIOCOUTQ; a pipe and an eventfd answer ENOTTY. */
  if (sys4(SYS_ioctl, fd, TIOCOUTQ, (long)&n, 0) == 0) {
    if (n <= 0) return 0;
    int domain = 0;
    socklen_t len = sizeof domain;
    return sys5(SYS_getsockopt, fd, SOL_SOCKET, SO_DOMAIN, (long)&domain,
                (long)&len) == 0 &&
           domain == AF_UNIX;
  }
  /* FIONREAD on a pipe counts its bytes from either end; anything but a
   * pipe here (eventfd) answers ENOTTY. */
  return sys4(SYS_ioctl, fd, FIONREAD, (long)&n, 0) == 0 && n > 0;
}

/* shared_tree.cc: pid is this process or a live process of its tree. */
int andweorc_tree_has_pid(int pid);

void andweorc_fd_mark_peer(int fd) {
  if (fd < 0) return;
  /* Unix sockets: the kernel names the peer; others have no peer pid (0). */
  struct ucred cred = {0, 0, 0};
  socklen_t len = sizeof cred;
  long r = sys5(SYS_getsockopt, fd, SOL_SOCKET, SO_PEERCRED, (long)&cred,
                (long)&len);
  if (r == 0 && cred.pid > 0) {
    andweorc_fd_mark(fd, andweorc_tree_has_pid((int)cred.pid));
    return;
  }
  /* IP (TCP, UDP): the tree's table of endpoints (shared_tree_net.h). */
  andweorc_fd_mark(fd, andweorc_net_peer_in_tree(fd) > 0);
}

void andweorc_fd_clear_marks(void) {
  for (int i = 0; i < MAX_FDS / 64; ++i)
    __atomic_store_n(&g_internal[i], 0, __ATOMIC_RELAXED);
}

void andweorc_fd_unmark_inherited(void) {
  for (int w = 0; w < MAX_FDS / 64; ++w) {
    uint64_t bits = __atomic_load_n(&g_internal[w], __ATOMIC_RELAXED);
    while (bits != 0) {
      int fd = w * 64 + __builtin_ctzll(bits);
      bits &= bits - 1;
      long flags = sys4(SYS_fcntl, fd, F_GETFD, 0, 0);
      /* Closed behind our back (flags < 0): no longer a pipe of ours. */
      if (flags < 0 || !(flags & FD_CLOEXEC)) andweorc_fd_mark(fd, 0);
    }
  }
}

void andweorc_epoll_created(int epfd) { set_bit(g_epoll_external, epfd, 0); }
void andweorc_epoll_added(int epfd, int fd) {
  if (!andweorc_fd_internal(fd)) set_bit(g_epoll_external, epfd, 1);
}
int andweorc_epoll_internal(int epfd) {
  return epfd >= 0 && epfd < MAX_FDS && !get_bit(g_epoll_external, epfd);
}

/* ---- our own descriptors ----
 *
 * g_owner[fd] is NULL (not ours), the owner variable's address, or BUSY
 * while one thread moves or closes it; g_ours mirrors "not NULL" as bits so
 * that close_range can skip whole words. Whoever swaps an owner for BUSY
 * has the number to itself until it stores the next value. */
#define BUSY ((int*)1)
static int* g_owner[MAX_FDS];
static uint64_t g_ours[MAX_FDS / 64];
static uint64_t g_io_locked[MAX_FDS / 64];
static int g_count;

/* A free number near the top of the allowed range: F_DUPFD_CLOEXEC returns
 * the lowest free number >= base, so start just under RLIMIT_NOFILE and
 * widen the window downwards while it is full. */
static int high_dup(int fd) {
  struct rlimit rl;
  if (sys4(SYS_prlimit64, 0, RLIMIT_NOFILE, 0, (long)&rl) != 0) return -1;
  long top = rl.rlim_cur > MAX_FDS ? MAX_FDS : (long)rl.rlim_cur;
  for (long window = 64;; window *= 2) {
    long base = top - window;
    if (base < 3) base = 3;
    long r = sys4(SYS_fcntl, fd, F_DUPFD_CLOEXEC, base, 0);
    if (r >= 0) return (int)r;
    if (r != -EMFILE && r != -EINVAL) return -1;
    if (base == 3) return -1;
  }
}

static void set_owner(int fd, int* owner, int io_locked) {
  set_bit(g_io_locked, fd, io_locked);
  set_bit(g_ours, fd, 1);
  __atomic_store_n(&g_owner[fd], owner, __ATOMIC_RELEASE);
}

static void clear_owner(int fd) {
  set_bit(g_ours, fd, 0);
  set_bit(g_io_locked, fd, 0);
  __atomic_store_n(&g_owner[fd], (int*)0, __ATOMIC_RELEASE);
}

int andweorc_fd_adopt(int fd, int* owner, int io_locked) {
  if (fd < 0) return fd;
  int high = high_dup(fd);
  if (high >= 0 && high < MAX_FDS) {
    sys_close(fd);
    fd = high;
  } else if (high >= 0) {
    sys_close(high);
  }
  andweorc_fd_mark(fd, 0);
  if (fd < MAX_FDS) {
    set_owner(fd, owner, io_locked);
    __atomic_add_fetch(&g_count, 1, __ATOMIC_RELAXED);
  }
  __atomic_store_n(owner, fd, __ATOMIC_RELEASE);
  return fd;
}

void andweorc_fd_release(int* owner) {
  for (;;) {
    int fd = __atomic_load_n(owner, __ATOMIC_ACQUIRE);
    if (fd < 0) return;
    if (fd >= MAX_FDS) {
      if (__atomic_compare_exchange_n(owner, &fd, -1, 0, __ATOMIC_ACQ_REL,
                                      __ATOMIC_ACQUIRE))
        sys_close(fd);
      return;
    }
    int* cur = __atomic_load_n(&g_owner[fd], __ATOMIC_ACQUIRE);
    if (cur == BUSY) {
      sys_yield(); /* being moved: *owner changes, try again */
      continue;
    }
    if (cur != owner) {
      /* Not ours any more (an eviction gave it up): forget it, close
       * nothing. If *owner moved meanwhile, release the new number. */
      if (__atomic_compare_exchange_n(owner, &fd, -1, 0, __ATOMIC_ACQ_REL,
                                      __ATOMIC_ACQUIRE))
        return;
      continue;
    }
    if (!__atomic_compare_exchange_n(&g_owner[fd], &cur, BUSY, 0,
                                     __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
      continue;
    __atomic_store_n(owner, -1, __ATOMIC_RELEASE);
    sys_close(fd); /* still BUSY: the program's close/dup2 of it waits */
    clear_owner(fd);
    __atomic_sub_fetch(&g_count, 1, __ATOMIC_RELAXED);
    return;
  }
}

int andweorc_fd_is_ours(int fd) {
  if (fd < 0 || fd >= MAX_FDS || !get_bit(g_ours, fd)) return 0;
  int* cur;
  while ((cur = __atomic_load_n(&g_owner[fd], __ATOMIC_ACQUIRE)) == BUSY)
    sys_yield();
  return cur != (int*)0;
}

int andweorc_fd_evict(int fd) {
  if (fd < 0 || fd >= MAX_FDS) return 0;
  for (;;) {
    if (!get_bit(g_ours, fd)) return 0;
    int* cur = __atomic_load_n(&g_owner[fd], __ATOMIC_ACQUIRE);
    if (cur == (int*)0) return 0;
    if (cur == BUSY) {
      sys_yield();
      continue;
    }
    int io_locked = get_bit(g_io_locked, fd);
    int locked = io_locked ? andweorc_io_lock_bounded() : 0;
    if (!__atomic_compare_exchange_n(&g_owner[fd], &cur, BUSY, 0,
                                     __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
      if (locked) andweorc_io_unlock();
      continue;
    }
    int high = high_dup(fd);
    if (high >= 0 && high < MAX_FDS) {
      set_owner(high, cur, io_locked);
      __atomic_store_n(cur, high, __ATOMIC_RELEASE);
    } else {
      /* Nowhere to go: the program gets its number, we lose the file. */
      if (high >= 0) sys_close(high);
      __atomic_store_n(cur, -1, __ATOMIC_RELEASE);
      __atomic_sub_fetch(&g_count, 1, __ATOMIC_RELAXED);
    }
    clear_owner(fd);
    if (locked) andweorc_io_unlock();
    return 1;
  }
}

void andweorc_fd_drop_copy(int fd) { sys_close(fd); }

int andweorc_close_range_guarded(unsigned first, unsigned last, int flags) {
  int rc = 0, err = 0;
  if (!(flags & CLOSE_RANGE_CLOEXEC))
    for (unsigned fd = first; fd <= last && fd < MAX_FDS; fd += 64 - fd % 64)
      if (__atomic_load_n(&g_internal[fd / 64], __ATOMIC_RELAXED))
        for (unsigned b = fd; b <= last && b < (fd / 64 + 1) * 64; ++b)
          andweorc_fd_mark((int)b, 0);
  unsigned cur = first;
  unsigned stop = last < MAX_FDS - 1 ? last : MAX_FDS - 1;
  /* CLOSE_RANGE_UNSHARE once is enough: later calls act on the new table. */
  for (unsigned fd = first; fd <= stop && cur <= last;) {
    uint64_t word = __atomic_load_n(&g_ours[fd / 64], __ATOMIC_RELAXED);
    word >>= fd % 64;
    if (word == 0) {
      fd = (fd / 64 + 1) * 64;
      continue;
    }
    fd += (unsigned)__builtin_ctzll(word);
    if (fd > stop) break;
    if (andweorc_fd_is_ours((int)fd)) {
      if (fd > cur) {
        long r = sys4(SYS_close_range, cur, fd - 1, flags, 0);
        if (r < 0 && !err) rc = -1, err = (int)-r;
        flags &= ~CLOSE_RANGE_UNSHARE;
      }
      cur = fd + 1;
    }
    if (fd == 0xffffffffu) break;
    ++fd;
  }
  if (cur <= last && cur >= first) {
    long r = sys4(SYS_close_range, cur, last, flags, 0);
    if (r < 0 && !err) rc = -1, err = (int)-r;
  }
  if (rc != 0) errno = err;
  return rc;
}

int andweorc_fd_count_ours(void) {
  return __atomic_load_n(&g_count, __ATOMIC_RELAXED);
}
