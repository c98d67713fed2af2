/* interpose_io_more.c: the less common calls that wake or wait on another
 * thread (vector and multi-message I/O, eventfd helpers, epoll_pwait2,
 * message queues, timed joins), descriptor copies made with fcntl, and
 * children started by posix_spawn, for delay inheritance (issue 12 item 12;
 * the rules are those of interpose_io.c).
 *
 * glibc's eventfd_read/eventfd_write call its internal read/write, which
 * interposing read/write does not see, so they are wrapped themselves.
 *
 * Not wrapped (docs/design.md, "Delay inheritance"): io_uring (liburing
 * makes its system calls inline, not through libc), and preadv/pwritev
 * (files only: a file read is the outside world whether wrapped or not).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <mqueue.h>
#include <pthread.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include "runtime/blocking.h"
#include "runtime/exec_check.h"
#include "runtime/internal_fds.h"
#include "runtime/interpose_common.h"
#include "runtime/real_functions.h"

#define ALIAS(name) __attribute__((visibility("default"), alias(#name)))

/* ---- vector I/O: like read and write ---- */

EXPORT ssize_t readv(int fd, const struct iovec* iov, int n) {
  andweorc_rt_pre_block();
  ssize_t rc = REAL(readv)(fd, iov, n);
  andweorc_net_count_received(fd, rc);
  wait_end(andweorc_fd_internal(fd));
  return rc;
}

EXPORT ssize_t writev(int fd, const struct iovec* iov, int n) {
  catch_up_before_write(fd);
  return counted_write(fd, REAL(writev)(fd, iov, n));
}

/* Offset -1 reads and writes at the current position, pipes included. */
EXPORT ssize_t preadv2(int fd, const struct iovec* iov, int n, off_t offset,
                       int flags) {
  andweorc_rt_pre_block();
  ssize_t rc = REAL(preadv2)(fd, iov, n, offset, flags);
  andweorc_net_count_received(fd, rc);
  wait_end(andweorc_fd_internal(fd));
  return rc;
}
EXPORT ssize_t preadv64v2(int fd, const struct iovec* iov, int n, off_t offset,
                          int flags) ALIAS(preadv2);

EXPORT ssize_t pwritev2(int fd, const struct iovec* iov, int n, off_t offset,
                        int flags) {
  andweorc_rt_catch_up();
  return counted_write(fd, REAL(pwritev2)(fd, iov, n, offset, flags));
}
EXPORT ssize_t pwritev64v2(int fd, const struct iovec* iov, int n, off_t offset,
                           int flags) ALIAS(pwritev2);

/* ---- several messages at once ---- */

/* The bytes of the first rc messages (rc < 0: none). */
static long message_bytes(const struct mmsghdr* v, int rc) {
  long bytes = 0;
  for (int i = 0; i < rc; ++i) bytes += (long)v[i].msg_len;
  return bytes;
}

EXPORT int recvmmsg(int fd, struct mmsghdr* v, unsigned n, int flags,
                    struct timespec* timeout) {
  andweorc_rt_pre_block();
  int rc = REAL(recvmmsg)(fd, v, n, flags, timeout);
  if (!(flags & MSG_PEEK))
    andweorc_net_count_received(fd, message_bytes(v, rc));
  wait_end(andweorc_fd_internal(fd));
  return rc;
}

EXPORT int sendmmsg(int fd, struct mmsghdr* v, unsigned n, int flags) {
  catch_up_before_write(fd);
  int rc = REAL(sendmmsg)(fd, v, n, flags);
  andweorc_net_count_sent(fd, message_bytes(v, rc));
  return rc;
}

/* ---- eventfd helpers (libc reaches read/write internally) ---- */

EXPORT int eventfd_read(int fd, eventfd_t* value) {
  andweorc_rt_pre_block();
  int rc = REAL(eventfd_read)(fd, value);
  wait_end(andweorc_fd_internal(fd));
  return rc;
}

EXPORT int eventfd_write(int fd, eventfd_t value) {
  andweorc_rt_catch_up();
  return REAL(eventfd_write)(fd, value);
}

/* ---- readiness ---- */

EXPORT int epoll_pwait2(int fd, struct epoll_event* ev, int max,
                        const struct timespec* timeout, const sigset_t* mask) {
  andweorc_rt_pre_block();
  int rc = REAL(epoll_pwait2)(fd, ev, max, timeout, mask);
  wait_end(rc > 0 && andweorc_epoll_internal(fd));
  return rc;
}

/* ---- POSIX message queues ----
 * A queue has a name any process may open, so a message is the outside
 * world's (the receiver pays); a sender still pays its debt first, in case
 * its receiver is a thread of ours. */

EXPORT int mq_send(mqd_t q, const char* msg, size_t len, unsigned prio) {
  andweorc_rt_catch_up();
  return REAL(mq_send)(q, msg, len, prio);
}

EXPORT int mq_timedsend(mqd_t q, const char* msg, size_t len, unsigned prio,
                        const struct timespec* t) {
  andweorc_rt_catch_up();
  return REAL(mq_timedsend)(q, msg, len, prio, t);
}

EXPORT ssize_t mq_receive(mqd_t q, char* msg, size_t len, unsigned* prio) {
  andweorc_rt_pre_block();
  ssize_t rc = REAL(mq_receive)(q, msg, len, prio);
  wait_end(0);
  return rc;
}

EXPORT ssize_t mq_timedreceive(mqd_t q, char* msg, size_t len, unsigned* prio,
                               const struct timespec* t) {
  andweorc_rt_pre_block();
  ssize_t rc = REAL(mq_timedreceive)(q, msg, len, prio, t);
  wait_end(0);
  return rc;
}

/* ---- joins that may time out (pthread_join: interpose_sync.c) ---- */

EXPORT int pthread_timedjoin_np(pthread_t t, void** result,
                                const struct timespec* abstime) {
  andweorc_rt_pre_block();
  int rc = REAL(pthread_timedjoin_np)(t, result, abstime);
  wait_end(rc == 0); /* the exiting thread caught up before exiting */
  return rc;
}

EXPORT int pthread_clockjoin_np(pthread_t t, void** result, clockid_t c,
                                const struct timespec* abstime) {
  andweorc_rt_pre_block();
  int rc = REAL(pthread_clockjoin_np)(t, result, c, abstime);
  wait_end(rc == 0);
  return rc;
}

/* ---- fcntl: F_DUPFD copies carry the marks, like dup ---- */

EXPORT int fcntl(int fd, int cmd, ...) {
  va_list ap;
  va_start(ap, cmd);
  void* arg = va_arg(ap, void*); /* what glibc itself reads */
  va_end(ap);
  if (cmd != F_DUPFD && cmd != F_DUPFD_CLOEXEC)
    return REAL(fcntl)(fd, cmd, arg);
  if (andweorc_fd_is_ours(fd)) {
    errno = EBADF; /* as dup: ours look closed to the program */
    return -1;
  }
  int copy = REAL(fcntl)(fd, cmd, arg);
  andweorc_fd_mark(copy, andweorc_fd_internal(fd));
  return copy;
}
EXPORT int fcntl64(int fd, int cmd, ...) ALIAS(fcntl);

/* ---- children started without fork ----
 * posix_spawn (and popen/system, through libc's internal posix_spawn)
 * clone without our fork handlers. The child holds every descriptor that is
 * not close-on-exec, and those its file actions dup2: a pipe among them may
 * now lead to another process, so its wakes are the outside world's, as
 * after fork. */

EXPORT int posix_spawn(pid_t* pid, const char* path,
                       const posix_spawn_file_actions_t* actions,
                       const posix_spawnattr_t* attr, char* const argv[],
                       char* const envp[]) {
  andweorc_exec_check_note(path, 0, envp, "spawns");
  int rc = REAL(posix_spawn)(pid, path, actions, attr, argv, envp);
  if (rc == 0) andweorc_fd_unmark_inherited();
  return rc;
}

EXPORT int posix_spawnp(pid_t* pid, const char* file,
                        const posix_spawn_file_actions_t* actions,
                        const posix_spawnattr_t* attr, char* const argv[],
                        char* const envp[]) {
  andweorc_exec_check_note(file, 1, envp, "spawns");
  int rc = REAL(posix_spawnp)(pid, file, actions, attr, argv, envp);
  if (rc == 0) andweorc_fd_unmark_inherited();
  return rc;
}

/* popen's pipe leads to its child, whatever its number was marked with
 * before (a number closed through a path no wrapper sees, e.g. fclose, keeps
 * its old mark): a read from it is the outside world's, never a wake by one
 * of our threads. glibc makes the pipe with its internal pipe2, which the
 * wrapper does not see either. */
EXPORT FILE* popen(const char* command, const char* type) {
  FILE* f = REAL(popen)(command, type);
  if (f != NULL) {
    andweorc_fd_unmark_inherited();
    andweorc_fd_mark(fileno(f), 0);
  }
  return f;
}

/* The child may leave descendants holding what it inherited. */
EXPORT int system(const char* command) {
  int rc = REAL(system)(command);
  if (command != NULL) andweorc_fd_unmark_inherited();
  return rc;
}

/* A descriptor given to a future child on purpose (even a close-on-exec
 * one): from now on its peer may be another process. */
EXPORT int posix_spawn_file_actions_adddup2(posix_spawn_file_actions_t* a,
                                            int fd, int to) {
  int rc = REAL(posix_spawn_file_actions_adddup2)(a, fd, to);
  if (rc == 0) andweorc_fd_mark(fd, 0);
  return rc;
}
