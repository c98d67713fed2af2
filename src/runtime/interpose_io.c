/* interpose_io.c: sleeps, signal waits, blocking I/O, and futex calls made
 * through syscall(), wrapped for delay inheritance (see interpose_sync.c).
 *
 * A thread woken by a timer, a signal or the outside world (I/O) pays the
 * delays inserted while it waited: post_block(0); one woken through a pipe,
 * socketpair or eventfd between threads of this program was woken by another
 * thread and is credited: post_block(1) (internal_fds.h tells which; a Unix
 * socket or a loopback TCP connection to a process of the same process tree
 * counts as well, because that process pays the tree's delays before it
 * writes). Calls
 * that can wake another thread of the program (write, send) first pay what
 * the caller owes.
 *
 * libstdc++ 12's std::barrier, std::latch, std::counting_semaphore and
 * std::atomic::wait use the futex system call directly, through glibc's
 * syscall() function: wrapping syscall() keeps them correct. A futex wait
 * that returns 0 was woken by another thread (FUTEX_WAKE), so it is credited.
 *
 * Which descriptors lead to another thread is decided where they are made,
 * copied and closed: interpose_fds.c.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/futex.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "runtime/blocking.h"
#include "runtime/internal_fds.h"
#include "runtime/interpose_common.h"
#include "runtime/real_functions.h"

/* ---- sleeps and signal waits: the outside world (a timer, a signal) ---- */

EXPORT unsigned sleep(unsigned s) {
  wait_begin();
  unsigned rc = REAL(sleep)(s);
  wait_end(0);
  return rc;
}

EXPORT int usleep(useconds_t us) {
  wait_begin();
  int rc = REAL(usleep)(us);
  wait_end(0);
  return rc;
}

EXPORT int nanosleep(const struct timespec* req, struct timespec* rem) {
  wait_begin();
  int rc = REAL(nanosleep)(req, rem);
  wait_end(0);
  return rc;
}

EXPORT int clock_nanosleep(clockid_t c, int flags, const struct timespec* req,
                           struct timespec* rem) {
  wait_begin();
  int rc = REAL(clock_nanosleep)(c, flags, req, rem);
  wait_end(0);
  return rc;
}

EXPORT int sigwait(const sigset_t* set, int* sig) {
  wait_begin();
  int rc = REAL(sigwait)(set, sig);
  wait_end(0);
  return rc;
}

EXPORT int sigwaitinfo(const sigset_t* set, siginfo_t* info) {
  wait_begin();
  int rc = REAL(sigwaitinfo)(set, info);
  wait_end(0);
  return rc;
}

EXPORT int sigtimedwait(const sigset_t* set, siginfo_t* info,
                        const struct timespec* t) {
  wait_begin();
  int rc = REAL(sigtimedwait)(set, info, t);
  wait_end(0);
  return rc;
}

/* ---- reads: credited when another thread of ours is the writer ---- */

EXPORT ssize_t read(int fd, void* buf, size_t n) {
  wait_begin();
  ssize_t rc = REAL(read)(fd, buf, n);
  andweorc_net_count_received(fd, rc);
  wait_end(andweorc_fd_internal(fd));
  return rc;
}

EXPORT ssize_t recv(int fd, void* buf, size_t n, int flags) {
  wait_begin();
  ssize_t rc = REAL(recv)(fd, buf, n, flags);
  if (!(flags & MSG_PEEK)) andweorc_net_count_received(fd, rc);
  wait_end(andweorc_fd_internal(fd));
  return rc;
}

EXPORT ssize_t recvfrom(int fd, void* buf, size_t n, int flags,
                        struct sockaddr* from, socklen_t* len) {
  wait_begin();
  ssize_t rc = REAL(recvfrom)(fd, buf, n, flags, from, len);
  if (!(flags & MSG_PEEK)) andweorc_net_count_received(fd, rc);
  wait_end(andweorc_fd_internal(fd));
  return rc;
}

EXPORT ssize_t recvmsg(int fd, struct msghdr* msg, int flags) {
  wait_begin();
  ssize_t rc = REAL(recvmsg)(fd, msg, flags);
  if (!(flags & MSG_PEEK)) andweorc_net_count_received(fd, rc);
  wait_end(andweorc_fd_internal(fd));
  return rc;
}

/* A connection from a process of the tree (or this process) was made by a
 * caller that paid first (connect): the accepted socket is internal, and so
 * is the wake. Unix sockets: SO_PEERCRED; TCP: the tree's table of endpoints
 * (shared_tree_net.h). Other peers are the outside world. */
EXPORT int accept(int fd, struct sockaddr* addr, socklen_t* len) {
  wait_begin();
  int rc = REAL(accept)(fd, addr, len);
  andweorc_fd_mark_peer(rc);
  wait_end(andweorc_fd_internal(rc));
  return rc;
}

EXPORT int accept4(int fd, struct sockaddr* addr, socklen_t* len, int flags) {
  wait_begin();
  int rc = REAL(accept4)(fd, addr, len, flags);
  andweorc_fd_mark_peer(rc);
  wait_end(andweorc_fd_internal(rc));
  return rc;
}

/* ---- readiness: woken by a thread when every ready descriptor is ours ---- */

static int poll_woken_by_thread(const struct pollfd* fds, nfds_t n, int rc) {
  if (rc <= 0) return 0;
  for (nfds_t i = 0; i < n; ++i)
    if (fds[i].revents != 0 && !andweorc_fd_internal(fds[i].fd)) return 0;
  return 1;
}

static int select_woken_by_thread(int n, const fd_set* r, const fd_set* w,
                                  const fd_set* e, int rc) {
  if (rc <= 0) return 0;
  for (int fd = 0; fd < n; ++fd) {
    int ready = (r && FD_ISSET(fd, r)) || (w && FD_ISSET(fd, w)) ||
                (e && FD_ISSET(fd, e));
    if (ready && !andweorc_fd_internal(fd)) return 0;
  }
  return 1;
}

EXPORT int poll(struct pollfd* fds, nfds_t n, int timeout) {
  wait_begin();
  int rc = REAL(poll)(fds, n, timeout);
  wait_end(poll_woken_by_thread(fds, n, rc));
  return rc;
}

EXPORT int ppoll(struct pollfd* fds, nfds_t n, const struct timespec* t,
                 const sigset_t* mask) {
  wait_begin();
  int rc = REAL(ppoll)(fds, n, t, mask);
  wait_end(poll_woken_by_thread(fds, n, rc));
  return rc;
}

EXPORT int select(int n, fd_set* r, fd_set* w, fd_set* e, struct timeval* t) {
  wait_begin();
  int rc = REAL(select)(n, r, w, e, t);
  wait_end(select_woken_by_thread(n, r, w, e, rc));
  return rc;
}

EXPORT int pselect(int n, fd_set* r, fd_set* w, fd_set* e,
                   const struct timespec* t, const sigset_t* mask) {
  wait_begin();
  int rc = REAL(pselect)(n, r, w, e, t, mask);
  wait_end(select_woken_by_thread(n, r, w, e, rc));
  return rc;
}

EXPORT int epoll_wait(int fd, struct epoll_event* ev, int max, int timeout) {
  wait_begin();
  int rc = REAL(epoll_wait)(fd, ev, max, timeout);
  wait_end(rc > 0 && andweorc_epoll_internal(fd));
  return rc;
}

EXPORT int epoll_pwait(int fd, struct epoll_event* ev, int max, int timeout,
                       const sigset_t* mask) {
  wait_begin();
  int rc = REAL(epoll_pwait)(fd, ev, max, timeout, mask);
  wait_end(rc > 0 && andweorc_epoll_internal(fd));
  return rc;
}

/* ---- writes may wake another thread: pay first ---- */

EXPORT ssize_t write(int fd, const void* buf, size_t n) {
  catch_up_before_write(fd);
  return counted_write(fd, REAL(write)(fd, buf, n));
}

EXPORT ssize_t send(int fd, const void* buf, size_t n, int flags) {
  catch_up_before_write(fd);
  return counted_write(fd, REAL(send)(fd, buf, n, flags));
}

EXPORT ssize_t sendto(int fd, const void* buf, size_t n, int flags,
                      const struct sockaddr* to, socklen_t len) {
  catch_up_before_write(fd);
  return counted_write(fd, REAL(sendto)(fd, buf, n, flags, to, len));
}

EXPORT ssize_t sendmsg(int fd, const struct msghdr* msg, int flags) {
  catch_up_before_write(fd);
  return counted_write(fd, REAL(sendmsg)(fd, msg, flags));
}

/* ---- syscall(): the guarded calls made by number ---- */

/* close, close_range, dup2, dup3 by number get the same guard as the libc
 * functions; rt_sigaction and rt_sigprocmask go to interpose_signals.cc.
 * Returns 1 when the call was answered (*rc holds the syscall() result). */
int andweorc_guard_signal_syscall(long number, long a1, long a2, long a3,
                                  long a4, long* rc);
static int andweorc_guard_syscall(long number, long a1, long a2, long a3,
                                  long a4, long* rc) {
  switch (number) {
    case SYS_close:
      *rc = close((int)a1);
      return 1;
    case SYS_close_range:
      *rc = close_range((unsigned)a1, (unsigned)a2, (int)a3);
      return 1;
    case SYS_dup2:
      *rc = dup2((int)a1, (int)a2);
      return 1;
    case SYS_dup3:
      *rc = dup3((int)a1, (int)a2, (int)a3);
      return 1;
    default:
      return andweorc_guard_signal_syscall(number, a1, a2, a3, a4, rc);
  }
}

/* ---- futex through syscall() ---- */

/* futex2 calls of Linux 6.7 (futex_waitv is 5.16): numbers newer than these
 * headers. */
#ifndef SYS_futex_waitv
#define SYS_futex_waitv 449
#endif
enum { kSysFutexWake2 = 454, kSysFutexWait2 = 455, kSysFutexRequeue2 = 456 };

EXPORT long syscall(long number, ...) {
  va_list ap;
  va_start(ap, number);
  long a1 = va_arg(ap, long), a2 = va_arg(ap, long), a3 = va_arg(ap, long);
  long a4 = va_arg(ap, long), a5 = va_arg(ap, long), a6 = va_arg(ap, long);
  va_end(ap);
  if (number == SYS_futex_waitv || number == kSysFutexWait2) {
    /* futex2: woken by another thread's wake when it returns >= 0 (waitv:
     * the index of the futex woken); EAGAIN: a value changed, never slept. */
    andweorc_rt_pre_block();
    long rc = REAL(syscall)(number, a1, a2, a3, a4, a5, a6);
    int saved_errno = errno;
    andweorc_rt_post_block(rc >= 0 || saved_errno == EAGAIN);
    errno = saved_errno;
    return rc;
  }
  if (number == kSysFutexWake2 || number == kSysFutexRequeue2) {
    andweorc_rt_catch_up();
    return REAL(syscall)(number, a1, a2, a3, a4, a5, a6);
  }
  if (number != SYS_futex) {
    long rc = 0;
    if (andweorc_guard_syscall(number, a1, a2, a3, a4, &rc)) return rc;
    return REAL(syscall)(number, a1, a2, a3, a4, a5, a6);
  }
  int op = (int)a2 & FUTEX_CMD_MASK;
  if (op == FUTEX_WAIT || op == FUTEX_WAIT_BITSET) {
    andweorc_rt_pre_block();
    long rc = REAL(syscall)(number, a1, a2, a3, a4, a5, a6);
    int saved_errno = errno;
    /* 0: woken by FUTEX_WAKE from another thread; EAGAIN: never slept. */
    andweorc_rt_post_block(rc == 0 || saved_errno == EAGAIN);
    errno = saved_errno;
    return rc;
  }
  if (op == FUTEX_WAKE || op == FUTEX_WAKE_BITSET || op == FUTEX_WAKE_OP ||
      op == FUTEX_REQUEUE || op == FUTEX_CMP_REQUEUE)
    andweorc_rt_catch_up();
  return REAL(syscall)(number, a1, a2, a3, a4, a5, a6);
}
