/* interpose_io.c: sleeps, signal waits, blocking I/O, and futex calls made
 * through syscall(), wrapped for delay inheritance (see interpose_sync.c).
 *
 * A thread woken by a timer, a signal or the outside world (I/O) pays the
 * delays inserted while it waited: post_block(0). Calls that can wake
 * another thread of the program (write, send) first pay what the caller owes.
 *
 * libstdc++ 12's std::barrier, std::latch, std::counting_semaphore and
 * std::atomic::wait use the futex system call directly, through glibc's
 * syscall() function: wrapping syscall() keeps them correct. A futex wait
 * that returns 0 was woken by another thread (FUTEX_WAKE), so it is credited.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <linux/futex.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "runtime/blocking.h"

#define EXPORT __attribute__((visibility("default")))

#define REAL_FUNCTIONS(X)                                                      \
  X(unsigned (*)(unsigned), sleep)                                             \
  X(int (*)(useconds_t), usleep)                                               \
  X(int (*)(const struct timespec*, struct timespec*), nanosleep)              \
  X(int (*)(clockid_t, int, const struct timespec*, struct timespec*),         \
    clock_nanosleep)                                                           \
  X(int (*)(const sigset_t*, int*), sigwait)                                   \
  X(int (*)(const sigset_t*, siginfo_t*), sigwaitinfo)                         \
  X(int (*)(const sigset_t*, siginfo_t*, const struct timespec*),              \
    sigtimedwait)                                                              \
  X(ssize_t (*)(int, void*, size_t), read)                                     \
  X(ssize_t (*)(int, const void*, size_t), write)                              \
  X(ssize_t (*)(int, void*, size_t, int), recv)                                \
  X(ssize_t (*)(int, void*, size_t, int, struct sockaddr*, socklen_t*),        \
    recvfrom)                                                                  \
  X(ssize_t (*)(int, struct msghdr*, int), recvmsg)                            \
  X(ssize_t (*)(int, const void*, size_t, int), send)                          \
  X(ssize_t (*)(int, const void*, size_t, int, const struct sockaddr*,         \
                socklen_t),                                                    \
    sendto)                                                                    \
  X(ssize_t (*)(int, const struct msghdr*, int), sendmsg)                      \
  X(int (*)(int, struct sockaddr*, socklen_t*), accept)                        \
  X(int (*)(int, struct sockaddr*, socklen_t*, int), accept4)                  \
  X(int (*)(struct pollfd*, nfds_t, int), poll)                                \
  X(int (*)(struct pollfd*, nfds_t, const struct timespec*, const sigset_t*),  \
    ppoll)                                                                     \
  X(int (*)(int, fd_set*, fd_set*, fd_set*, struct timeval*), select)          \
  X(int (*)(int, fd_set*, fd_set*, fd_set*, const struct timespec*,            \
            const sigset_t*),                                                  \
    pselect)                                                                   \
  X(int (*)(int, struct epoll_event*, int, int), epoll_wait)                   \
  X(int (*)(int, struct epoll_event*, int, int, const sigset_t*), epoll_pwait) \
  X(long (*)(long, long, long, long, long, long, long), syscall)

#define DECLARE(type, name)                                    \
  static __typeof__(type) real_##name;                         \
  static inline __typeof__(type) get_##name(void) {            \
    if (__builtin_expect(real_##name == NULL, 0))              \
      real_##name = (__typeof__(type))dlsym(RTLD_NEXT, #name); \
    return real_##name;                                        \
  }
REAL_FUNCTIONS(DECLARE)

#define RESOLVE(type, name) \
  real_##name = (__typeof__(type))dlsym(RTLD_NEXT, #name);
__attribute__((constructor(101))) static void resolve_io_functions(void) {
  REAL_FUNCTIONS(RESOLVE)
}

#define REAL(name) get_##name()

/* Blocks until the outside world (or a timer) acts: pays what it missed. */
#define WAIT_OUTSIDE(T, call) \
  andweorc_rt_pre_block();    \
  T rc = call;                \
  int saved_errno = errno;    \
  andweorc_rt_post_block(0);  \
  errno = saved_errno;        \
  return rc;

/* May wake another thread: pay first. */
#define WAKE_FIRST(call)  \
  andweorc_rt_catch_up(); \
  return call;

/* ---- sleeps and signal waits ---- */
EXPORT unsigned sleep(unsigned s){WAIT_OUTSIDE(unsigned, REAL(sleep)(s))} EXPORT
    int usleep(useconds_t us){WAIT_OUTSIDE(int, REAL(usleep)(us))} EXPORT
    int nanosleep(const struct timespec* req, struct timespec* rem){
        WAIT_OUTSIDE(int, REAL(nanosleep)(req, rem))} EXPORT
    int clock_nanosleep(clockid_t c, int flags, const struct timespec* req,
                        struct timespec* rem){
        WAIT_OUTSIDE(int, REAL(clock_nanosleep)(c, flags, req, rem))} EXPORT
    int sigwait(const sigset_t* set,
                int* sig){WAIT_OUTSIDE(int, REAL(sigwait)(set, sig))} EXPORT
    int sigwaitinfo(const sigset_t* set, siginfo_t* info){
        WAIT_OUTSIDE(int, REAL(sigwaitinfo)(set, info))} EXPORT
    int sigtimedwait(const sigset_t* set, siginfo_t* info,
                     const struct timespec* t){
        WAIT_OUTSIDE(int, REAL(sigtimedwait)(set, info, t))}

/* ---- I/O ---- */
EXPORT ssize_t read(int fd, void* buf, size_t n){
    WAIT_OUTSIDE(ssize_t, REAL(read)(fd, buf, n))} EXPORT ssize_t
    recv(int fd, void* buf, size_t n, int flags){
        WAIT_OUTSIDE(ssize_t, REAL(recv)(fd, buf, n, flags))} EXPORT ssize_t
    recvfrom(int fd, void* buf, size_t n, int flags, struct sockaddr* from,
             socklen_t* len){
        WAIT_OUTSIDE(ssize_t, REAL(recvfrom)(fd, buf, n, flags, from,
                                             len))} EXPORT ssize_t
    recvmsg(int fd, struct msghdr* msg, int flags){
        WAIT_OUTSIDE(ssize_t, REAL(recvmsg)(fd, msg, flags))} EXPORT
    int accept(int fd, struct sockaddr* addr, socklen_t* len){
        WAIT_OUTSIDE(int, REAL(accept)(fd, addr, len))} EXPORT
    int accept4(int fd, struct sockaddr* addr, socklen_t* len, int flags){
        WAIT_OUTSIDE(int, REAL(accept4)(fd, addr, len, flags))} EXPORT
    int poll(struct pollfd* fds, nfds_t n,
             int timeout){WAIT_OUTSIDE(int, REAL(poll)(fds, n, timeout))} EXPORT
    int ppoll(struct pollfd* fds, nfds_t n, const struct timespec* t,
              const sigset_t* mask){
        WAIT_OUTSIDE(int, REAL(ppoll)(fds, n, t, mask))} EXPORT
    int select(int n, fd_set* r, fd_set* w, fd_set* e, struct timeval* t){
        WAIT_OUTSIDE(int, REAL(select)(n, r, w, e, t))} EXPORT
    int pselect(int n, fd_set* r, fd_set* w, fd_set* e,
                const struct timespec* t, const sigset_t* mask){
        WAIT_OUTSIDE(int, REAL(pselect)(n, r, w, e, t, mask))} EXPORT
    int epoll_wait(int fd, struct epoll_event* ev, int max, int timeout){
        WAIT_OUTSIDE(int, REAL(epoll_wait)(fd, ev, max, timeout))} EXPORT
    int epoll_pwait(int fd, struct epoll_event* ev, int max, int timeout,
                    const sigset_t* mask){
        WAIT_OUTSIDE(int, REAL(epoll_pwait)(fd, ev, max, timeout,
                                            mask))} EXPORT ssize_t
    write(int fd, const void* buf,
          size_t n){WAKE_FIRST(REAL(write)(fd, buf, n))} EXPORT ssize_t
    send(int fd, const void* buf, size_t n,
         int flags){WAKE_FIRST(REAL(send)(fd, buf, n, flags))} EXPORT ssize_t
    sendto(int fd, const void* buf, size_t n, int flags,
           const struct sockaddr* to, socklen_t len){
        WAKE_FIRST(REAL(sendto)(fd, buf, n, flags, to, len))} EXPORT ssize_t
    sendmsg(int fd, const struct msghdr* msg,
            int flags){WAKE_FIRST(REAL(sendmsg)(fd, msg, flags))}

/* ---- futex through syscall() ---- */
EXPORT long syscall(long number, ...) {
  va_list ap;
  va_start(ap, number);
  long a1 = va_arg(ap, long), a2 = va_arg(ap, long), a3 = va_arg(ap, long);
  long a4 = va_arg(ap, long), a5 = va_arg(ap, long), a6 = va_arg(ap, long);
  va_end(ap);
  if (number != SYS_futex) return REAL(syscall)(number, a1, a2, a3, a4, a5, a6);
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
