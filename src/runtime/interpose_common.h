/* interpose_common.h: what the C interposers share (interpose_io.c,
 * interpose_fds.c, interpose_io_more.c): the export attribute, the real
 * function table, and the two halves of a blocking wait. */
#ifndef ANDWEORC_RUNTIME_INTERPOSE_COMMON_H_
#define ANDWEORC_RUNTIME_INTERPOSE_COMMON_H_

#include <errno.h>

#include "runtime/blocking.h"
#include "runtime/internal_fds.h"
#include "runtime/real_functions.h"
#include "runtime/shared_tree_net.h"

#define EXPORT __attribute__((visibility("default")))

#define REAL(name) (andweorc_real()->name)

/* A blocking wait: pre_block before, post_block after (errno preserved). */
static inline void wait_begin(void) { andweorc_rt_pre_block(); }
static inline void wait_end(int woken_by_thread) {
  int saved_errno = errno;
  andweorc_rt_post_block(woken_by_thread);
  errno = saved_errno;
}

/* About to write to fd (write, send and their kin): pay first, unless fd
 * leads to another thread of the program that still has data of ours to
 * read. Such a write ends nobody's wait: the reader is not waiting for it
 * (a reader blocked in read() is woken only by a write that finds the pipe
 * empty; an edge-triggered epoll reader that left data unread is the
 * exception, and is not told apart). Paying before it would only stall the
 * writer where the ideal speed-up never would. The debt stays owed: paid
 * before the next write that can wake the reader, at a sample, or absorbed
 * by the writer's next wait (delay_engine.h). Paying a lump (1.6 ms for
 * one 4 ms timer sample at 40%) before every write starved a server that
 * its client fed 4 requests at a time: a stall no real speed-up has, and a
 * bottleneck predicted 10 points low. The syscalls run only when a debt
 * would be paid. */
static inline int write_wakes_nobody(int fd) {
  return andweorc_fd_internal(fd) && andweorc_fd_peer_has_unread(fd);
}
static inline void catch_up_before_write(int fd) {
  if (andweorc_rt_armed())
    andweorc_rt_catch_up_unless_slow(write_wakes_nobody, fd);
}
/* A write's result, counted first when fd is an end of a TCP connection of
 * the tree (its reader's unread bytes, shared_tree_net.h). Reads count with
 * andweorc_net_count_received. Neither touches errno. */
static inline ssize_t counted_write(int fd, ssize_t rc) {
  andweorc_net_count_sent(fd, rc);
  return rc;
}

#endif /* ANDWEORC_RUNTIME_INTERPOSE_COMMON_H_ */
