/* interpose_fds.c: descriptors as they are made, copied and closed. Which
 * ones lead to another thread of the program (pipes, socketpairs, eventfds,
 * Unix sockets and loopback TCP/UDP connected within the process tree: a
 * wake through them is a thread's, internal_fds.h, shared_tree_net.h), and
 * the runtime's own
 * descriptors stay the runtime's: they look closed to the program, survive
 * a daemon's close-everything, and move away when the program dup2s onto
 * one. The waits on these descriptors are in interpose_io.c. */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include "runtime/internal_fds.h"
#include "runtime/interpose_common.h"
#include "runtime/shared_tree_net.h"

EXPORT int pipe(int fds[2]) {
  int rc = REAL(pipe)(fds);
  if (rc == 0) {
    andweorc_fd_mark(fds[0], 1);
    andweorc_fd_mark(fds[1], 1);
  }
  return rc;
}

EXPORT int pipe2(int fds[2], int flags) {
  int rc = REAL(pipe2)(fds, flags);
  if (rc == 0) {
    andweorc_fd_mark(fds[0], 1);
    andweorc_fd_mark(fds[1], 1);
  }
  return rc;
}

EXPORT int socketpair(int domain, int type, int protocol, int fds[2]) {
  int rc = REAL(socketpair)(domain, type, protocol, fds);
  if (rc == 0) {
    andweorc_fd_mark(fds[0], 1);
    andweorc_fd_mark(fds[1], 1);
  }
  return rc;
}

EXPORT int eventfd(unsigned initval, int flags) {
  int fd = REAL(eventfd)(initval, flags);
  andweorc_fd_mark(fd, 1);
  return fd;
}

EXPORT int socket(int domain, int type, int protocol) {
  int fd = REAL(socket)(domain, type, protocol);
  andweorc_fd_mark(fd, 0);
  return fd;
}

/* A socket connected to a listener of this process or of its process tree
 * leads to a thread that pays the tree's delays: internal. Unix sockets ask
 * the kernel for the peer (SO_PEERCRED); IP sockets (loopback TCP, UDP) ask
 * the tree's table of endpoints (shared_tree_net.h), where a TCP connect is
 * announced first so that the peer's accept can wait for it. connect may
 * wake that listener's accept, so the caller pays first, like write. */
EXPORT int connect(int fd, const struct sockaddr* addr, socklen_t len) {
  andweorc_rt_catch_up();
  int net = andweorc_net_connect_begin(fd, addr, len);
  int rc = REAL(connect)(fd, addr, len);
  int saved = errno;
  if (net >= 0)
    andweorc_net_connect_end(fd, net, addr, len,
                             rc == 0 || saved == EINPROGRESS);
  else if (rc == 0)
    andweorc_fd_mark_peer(fd);
  errno = saved;
  return rc;
}

/* A TCP listener or a UDP socket of the tree: recorded, so that its peers
 * in the tree know their wakes come from a thread that pays. */
EXPORT int listen(int fd, int backlog) {
  int rc = REAL(listen)(fd, backlog);
  if (rc == 0) {
    int saved = errno;
    andweorc_net_listened(fd);
    errno = saved;
  }
  return rc;
}

EXPORT int bind(int fd, const struct sockaddr* addr, socklen_t len) {
  int rc = REAL(bind)(fd, addr, len);
  if (rc == 0 && addr != NULL &&
      (addr->sa_family == AF_INET || addr->sa_family == AF_INET6)) {
    int saved = errno;
    andweorc_net_bound(fd);
    errno = saved;
  }
  return rc;
}

/* Our own descriptors (internal_fds.h) look closed to the program: closing
 * one fails with EBADF, as it would without the profiler. */
EXPORT int close(int fd) {
  if (andweorc_fd_is_ours(fd)) {
    errno = EBADF;
    return -1;
  }
  /* A vfork child closing its copy must not unmark the parent's. */
  int marked = andweorc_fd_internal(fd), recorded = andweorc_net_recorded(fd);
  if ((marked || recorded) && andweorc_is_original_process()) {
    if (marked) andweorc_fd_mark(fd, 0);
    if (recorded) andweorc_net_closed(fd);
  }
  return REAL(close)(fd);
}

/* Daemons close everything above stderr: ours stay open. */
EXPORT int close_range(unsigned first, unsigned last, int flags) {
  if (first > last) {
    errno = EINVAL;
    return -1;
  }
  return andweorc_close_range_guarded(first, last, flags);
}

EXPORT void closefrom(int lowfd) {
  if (lowfd < 0) lowfd = 0;
  if (andweorc_close_range_guarded((unsigned)lowfd, ~0U, 0) == 0 ||
      errno != ENOSYS)
    return;
  /* A kernel without close_range (< 5.9): one by one, as glibc would. */
  long max = sysconf(_SC_OPEN_MAX);
  for (long fd = lowfd; fd < max; ++fd) close((int)fd);
}

EXPORT int dup(int fd) {
  if (andweorc_fd_is_ours(fd)) {
    errno = EBADF;
    return -1;
  }
  int copy = REAL(dup)(fd);
  andweorc_fd_mark(copy, andweorc_fd_internal(fd));
  return copy;
}

/* dup2/dup3 onto one of ours: ours moves to another number first, then the
 * program gets exactly the number it asked for. */
static int dup_onto(int fd, int to, int flags, int three) {
  if (andweorc_fd_is_ours(fd)) {
    errno = EBADF;
    return -1;
  }
  int moved = fd != to && andweorc_fd_evict(to);
  int copy = three ? REAL(dup3)(fd, to, flags) : REAL(dup2)(fd, to);
  /* EBUSY: `to` is the lowest free number, reserved by an open in another
   * thread and not yet installed. Without the profiler that thread would not
   * exist; ours (a new thread's perf event, a raw file) take the lowest free
   * number for a moment before moving high. The reservation lasts one
   * system call, so trying again soon succeeds (seen in the hostile matrix:
   * "dup onto 5 failed" about once in 100 runs). */
  for (int tries = 0; copy < 0 && errno == EBUSY && tries < 1000; ++tries) {
    sched_yield();
    copy = three ? REAL(dup3)(fd, to, flags) : REAL(dup2)(fd, to);
  }
  if (copy < 0 && moved) {
    int saved = errno;
    andweorc_fd_drop_copy(to); /* without us, `to` was not open */
    errno = saved;
  }
  /* `to` no longer holds the socket recorded under its number. */
  if (copy >= 0 && fd != to && andweorc_net_recorded(to) &&
      andweorc_is_original_process())
    andweorc_net_closed(to);
  andweorc_fd_mark(copy, andweorc_fd_internal(fd));
  return copy;
}

EXPORT int dup2(int fd, int to) { return dup_onto(fd, to, 0, 0); }

EXPORT int dup3(int fd, int to, int flags) {
  return dup_onto(fd, to, flags, 1);
}

EXPORT int epoll_create(int size) {
  int fd = REAL(epoll_create)(size);
  andweorc_fd_mark(fd, 0);
  andweorc_epoll_created(fd);
  return fd;
}

EXPORT int epoll_create1(int flags) {
  int fd = REAL(epoll_create1)(flags);
  andweorc_fd_mark(fd, 0);
  andweorc_epoll_created(fd);
  return fd;
}

EXPORT int epoll_ctl(int epfd, int op, int fd, struct epoll_event* ev) {
  if (op == EPOLL_CTL_ADD) andweorc_epoll_added(epfd, fd);
  return REAL(epoll_ctl)(epfd, op, fd, ev);
}
