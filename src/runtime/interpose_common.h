/* interpose_common.h: what the C interposers share (interpose_io.c,
 * interpose_fds.c, interpose_io_more.c): the export attribute, the real
 * function table, and the two halves of a blocking wait. */
#ifndef ANDWEORC_RUNTIME_INTERPOSE_COMMON_H_
#define ANDWEORC_RUNTIME_INTERPOSE_COMMON_H_

#include <errno.h>

#include "runtime/blocking.h"
#include "runtime/real_functions.h"

#define EXPORT __attribute__((visibility("default")))

#define REAL(name) (andweorc_real()->name)

/* A blocking wait: pre_block before, post_block after (errno preserved). */
static inline void wait_begin(void) { andweorc_rt_pre_block(); }
static inline void wait_end(int woken_by_thread) {
  int saved_errno = errno;
  andweorc_rt_post_block(woken_by_thread);
  errno = saved_errno;
}

#endif /* ANDWEORC_RUNTIME_INTERPOSE_COMMON_H_ */
