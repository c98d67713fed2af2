/* internal_fds.c: see internal_fds.h. */
#include "runtime/internal_fds.h"

#include <stdint.h>

#define MAX_FDS 65536
static uint64_t g_internal[MAX_FDS / 64];
static uint64_t g_epoll_external[MAX_FDS / 64];

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

void andweorc_fd_mark(int fd, int internal) {
  set_bit(g_internal, fd, internal);
}
int andweorc_fd_internal(int fd) { return get_bit(g_internal, fd); }

void andweorc_epoll_created(int epfd) { set_bit(g_epoll_external, epfd, 0); }
void andweorc_epoll_added(int epfd, int fd) {
  if (!andweorc_fd_internal(fd)) set_bit(g_epoll_external, epfd, 1);
}
int andweorc_epoll_internal(int epfd) {
  return epfd >= 0 && epfd < MAX_FDS && !get_bit(g_epoll_external, epfd);
}
