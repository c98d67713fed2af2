/* real_functions.h: the one table of the libc functions andweorc interposes.
 *
 * Every wrapper (interpose_*.c/cc) and the runtime call the next definition
 * of an interposed symbol through this table, so there is one list, one
 * resolver and one rule: the table is filled eagerly by a constructor that
 * runs before the runtime's (or on the first interposed call, if another
 * library's constructor calls us even earlier). dlsym may allocate, so
 * resolution never happens in a signal handler; handlers only call pointers
 * that were resolved before any handler existed.
 *
 * Plain C so that the C wrappers can use it (see blocking.h for why they are
 * C). Each line: pointer type, name, glibc symbol version (NULL: the default
 * one). pthread_cond_* are taken at GLIBC_2.3.2: plain dlsym could return the
 * 2.2.5 compatibility version, which uses a different condvar layout.
 */
#ifndef ANDWEORC_RUNTIME_REAL_FUNCTIONS_H_
#define ANDWEORC_RUNTIME_REAL_FUNCTIONS_H_

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <mqueue.h>
#include <poll.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

/* clang-format off */
#define ANDWEORC_REAL_FUNCTIONS(X)                                             \
  /* first, the calls busy programs make most: with the resolved flag they */  \
  /* fill the table's first cache lines (see the struct below) */              \
  X(int (*)(pthread_mutex_t*), pthread_mutex_lock, NULL)                       \
  X(int (*)(pthread_mutex_t*), pthread_mutex_trylock, NULL)                    \
  X(int (*)(pthread_mutex_t*), pthread_mutex_unlock, NULL)                     \
  X(ssize_t (*)(int, void*, size_t), read, NULL)                               \
  X(ssize_t (*)(int, const void*, size_t), write, NULL)                        \
  X(ssize_t (*)(int, const struct msghdr*, int), sendmsg, NULL)                \
  X(int (*)(int, struct epoll_event*, int, int), epoll_wait, NULL)             \
  X(ssize_t (*)(int, void*, size_t, int), recv, NULL)                          \
  X(int (*)(pthread_cond_t*), pthread_cond_signal, "GLIBC_2.3.2")              \
  X(int (*)(pthread_cond_t*), pthread_cond_broadcast, "GLIBC_2.3.2")           \
  X(int (*)(pthread_cond_t*, pthread_mutex_t*), pthread_cond_wait,             \
    "GLIBC_2.3.2")                                                             \
  /* threads, processes */                                                     \
  X(int (*)(pthread_t*, const pthread_attr_t*, void* (*)(void*), void*),       \
    pthread_create, NULL)                                                      \
  X(int (*)(pthread_t, void**), pthread_join, NULL)                            \
  X(void (*)(void*), pthread_exit, NULL)                                       \
  X(int (*)(pthread_t, void**, const struct timespec*), pthread_timedjoin_np,  \
    NULL)                                                                      \
  X(int (*)(pthread_t, void**, clockid_t, const struct timespec*),             \
    pthread_clockjoin_np, NULL)                                                \
  X(int (*)(const char*, char* const[], char* const[]), execve, NULL)          \
  X(int (*)(const char*, char* const[]), execv, NULL)                          \
  X(int (*)(const char*, char* const[]), execvp, NULL)                         \
  X(int (*)(const char*, char* const[], char* const[]), execvpe, NULL)         \
  X(void (*)(int), _exit, NULL)                                                \
  X(void (*)(int), _Exit, NULL)                                                \
  X(pid_t (*)(void), fork, NULL)                                               \
  X(int (*)(int, int), daemon, NULL)                                           \
  X(int (*)(void*), dlclose, NULL)                                             \
  /* signals */                                                                \
  X(int (*)(int, const struct sigaction*, struct sigaction*), sigaction, NULL) \
  X(sighandler_t (*)(int, sighandler_t), signal, NULL)                         \
  X(int (*)(int, const sigset_t*, sigset_t*), sigprocmask, NULL)               \
  X(int (*)(int, const sigset_t*, sigset_t*), pthread_sigmask, NULL)           \
  X(int (*)(pthread_attr_t*, const sigset_t*), pthread_attr_setsigmask_np,     \
    NULL)                                                                      \
  /* sleeps and signal waits */                                                \
  X(unsigned (*)(unsigned), sleep, NULL)                                       \
  X(int (*)(useconds_t), usleep, NULL)                                         \
  X(int (*)(const struct timespec*, struct timespec*), nanosleep, NULL)        \
  X(int (*)(clockid_t, int, const struct timespec*, struct timespec*),         \
    clock_nanosleep, NULL)                                                     \
  X(int (*)(const sigset_t*, int*), sigwait, NULL)                             \
  X(int (*)(const sigset_t*, siginfo_t*), sigwaitinfo, NULL)                   \
  X(int (*)(const sigset_t*, siginfo_t*, const struct timespec*),              \
    sigtimedwait, NULL)                                                        \
  /* I/O */                                                                    \
  X(ssize_t (*)(int, void*, size_t, int, struct sockaddr*, socklen_t*),        \
    recvfrom, NULL)                                                            \
  X(ssize_t (*)(int, struct msghdr*, int), recvmsg, NULL)                      \
  X(ssize_t (*)(int, const void*, size_t, int), send, NULL)                    \
  X(ssize_t (*)(int, const void*, size_t, int, const struct sockaddr*,         \
                socklen_t), sendto, NULL)                                      \
  X(int (*)(int, struct sockaddr*, socklen_t*), accept, NULL)                  \
  X(int (*)(int, struct sockaddr*, socklen_t*, int), accept4, NULL)            \
  X(int (*)(struct pollfd*, nfds_t, int), poll, NULL)                          \
  X(int (*)(struct pollfd*, nfds_t, const struct timespec*, const sigset_t*),  \
    ppoll, NULL)                                                               \
  X(int (*)(int, fd_set*, fd_set*, fd_set*, struct timeval*), select, NULL)    \
  X(int (*)(int, fd_set*, fd_set*, fd_set*, const struct timespec*,            \
            const sigset_t*), pselect, NULL)                                   \
  X(int (*)(int, struct epoll_event*, int, int, const sigset_t*),              \
    epoll_pwait, NULL)                                                         \
  X(long (*)(long, long, long, long, long, long, long), syscall, NULL)         \
  X(ssize_t (*)(int, const struct iovec*, int), readv, NULL)                   \
  X(ssize_t (*)(int, const struct iovec*, int), writev, NULL)                  \
  X(ssize_t (*)(int, const struct iovec*, int, off_t, int), preadv2, NULL)     \
  X(ssize_t (*)(int, const struct iovec*, int, off_t, int), pwritev2, NULL)    \
  X(int (*)(int, struct mmsghdr*, unsigned, int, struct timespec*), recvmmsg,  \
    NULL)                                                                      \
  X(int (*)(int, struct mmsghdr*, unsigned, int), sendmmsg, NULL)              \
  X(int (*)(int, eventfd_t*), eventfd_read, NULL)                              \
  X(int (*)(int, eventfd_t), eventfd_write, NULL)                              \
  X(int (*)(int, struct epoll_event*, int, const struct timespec*,             \
            const sigset_t*), epoll_pwait2, NULL)                              \
  X(int (*)(mqd_t, const char*, size_t, unsigned), mq_send, NULL)              \
  X(int (*)(mqd_t, const char*, size_t, unsigned, const struct timespec*),     \
    mq_timedsend, NULL)                                                        \
  X(ssize_t (*)(mqd_t, char*, size_t, unsigned*), mq_receive, NULL)            \
  X(ssize_t (*)(mqd_t, char*, size_t, unsigned*, const struct timespec*),      \
    mq_timedreceive, NULL)                                                     \
  /* descriptors */                                                            \
  X(int (*)(int[2]), pipe, NULL)                                               \
  X(int (*)(int[2], int), pipe2, NULL)                                         \
  X(int (*)(int, int, int, int[2]), socketpair, NULL)                          \
  X(int (*)(unsigned, int), eventfd, NULL)                                     \
  X(int (*)(int, int, int), socket, NULL)                                      \
  X(int (*)(int, const struct sockaddr*, socklen_t), connect, NULL)            \
  X(int (*)(int, const struct sockaddr*, socklen_t), bind, NULL)               \
  X(int (*)(int, int), listen, NULL)                                           \
  X(int (*)(int), close, NULL)                                                 \
  X(int (*)(unsigned, unsigned, int), close_range, NULL)                       \
  X(void (*)(int), closefrom, NULL)                                            \
  X(int (*)(int), dup, NULL)                                                   \
  X(int (*)(int, int), dup2, NULL)                                             \
  X(int (*)(int, int, int), dup3, NULL)                                        \
  X(int (*)(int), epoll_create, NULL)                                          \
  X(int (*)(int), epoll_create1, NULL)                                         \
  X(int (*)(int, int, int, struct epoll_event*), epoll_ctl, NULL)              \
  X(int (*)(int, int, ...), fcntl, NULL)                                       \
  X(int (*)(pid_t*, const char*, const posix_spawn_file_actions_t*,            \
            const posix_spawnattr_t*, char* const[], char* const[]),           \
    posix_spawn, NULL)                                                         \
  X(int (*)(pid_t*, const char*, const posix_spawn_file_actions_t*,            \
            const posix_spawnattr_t*, char* const[], char* const[]),           \
    posix_spawnp, NULL)                                                        \
  X(int (*)(posix_spawn_file_actions_t*, int, int),                            \
    posix_spawn_file_actions_adddup2, NULL)                                    \
  X(FILE* (*)(const char*, const char*), popen, NULL)                          \
  X(int (*)(const char*), system, NULL)                                        \
  /* pthread and semaphore synchronization */                                  \
  X(int (*)(pthread_mutex_t*, const struct timespec*),                         \
    pthread_mutex_timedlock, NULL)                                             \
  X(int (*)(pthread_mutex_t*, clockid_t, const struct timespec*),              \
    pthread_mutex_clocklock, NULL)                                             \
  X(int (*)(pthread_cond_t*, pthread_mutex_t*, const struct timespec*),        \
    pthread_cond_timedwait, "GLIBC_2.3.2")                                     \
  X(int (*)(pthread_cond_t*, pthread_mutex_t*, clockid_t,                      \
            const struct timespec*), pthread_cond_clockwait, NULL)             \
  X(int (*)(pthread_rwlock_t*), pthread_rwlock_rdlock, NULL)                   \
  X(int (*)(pthread_rwlock_t*), pthread_rwlock_wrlock, NULL)                   \
  X(int (*)(pthread_rwlock_t*), pthread_rwlock_tryrdlock, NULL)                \
  X(int (*)(pthread_rwlock_t*), pthread_rwlock_trywrlock, NULL)                \
  X(int (*)(pthread_rwlock_t*, const struct timespec*),                        \
    pthread_rwlock_timedrdlock, NULL)                                          \
  X(int (*)(pthread_rwlock_t*, const struct timespec*),                        \
    pthread_rwlock_timedwrlock, NULL)                                          \
  X(int (*)(pthread_rwlock_t*, clockid_t, const struct timespec*),             \
    pthread_rwlock_clockrdlock, NULL)                                          \
  X(int (*)(pthread_rwlock_t*, clockid_t, const struct timespec*),             \
    pthread_rwlock_clockwrlock, NULL)                                          \
  X(int (*)(pthread_rwlock_t*), pthread_rwlock_unlock, NULL)                   \
  X(int (*)(pthread_barrier_t*), pthread_barrier_wait, NULL)                   \
  X(int (*)(sem_t*), sem_wait, NULL)                                           \
  X(int (*)(sem_t*, const struct timespec*), sem_timedwait, NULL)              \
  X(int (*)(sem_t*, clockid_t, const struct timespec*), sem_clockwait, NULL)   \
  X(int (*)(sem_t*), sem_post, NULL)
/* clang-format on */

#ifdef __cplusplus
extern "C" {
#endif

/* Cache-line aligned, the resolved flag first: an interposed call reads the
 * flag and its function's pointer, and for the most called functions
 * (first in the list above) both are on the table's first line. Between
 * two such calls a server's syscalls evict the runtime's lines, so each
 * line read is a miss (docs/design.md, cost model). */
struct __attribute__((aligned(64))) andweorc_real_functions {
  int resolved; /* filled (andweorc_resolve_real_functions) */
#define ANDWEORC_REAL_FIELD(type, name, version) __typeof__(type) name;
  ANDWEORC_REAL_FUNCTIONS(ANDWEORC_REAL_FIELD)
#undef ANDWEORC_REAL_FIELD
};

/* Filled by andweorc_resolve_real_functions(); read-only afterwards. */
extern struct andweorc_real_functions andweorc_real_table
    __attribute__((visibility("hidden")));
/* Idempotent; not signal-safe (dlsym). */
void andweorc_resolve_real_functions(void)
    __attribute__((visibility("hidden")));

/* The table, resolved on first use if no constructor has run yet. */
static inline const struct andweorc_real_functions* andweorc_real(void) {
  if (__builtin_expect(
          !__atomic_load_n(&andweorc_real_table.resolved, __ATOMIC_ACQUIRE), 0))
    andweorc_resolve_real_functions();
  return &andweorc_real_table;
}

#ifdef __cplusplus
}

namespace andweorc::runtime {

using RealFunctions = andweorc_real_functions;
// The resolved table (resolved on first use if needed).
inline const RealFunctions& real() { return *andweorc_real(); }
inline void resolve_real_functions() { andweorc_resolve_real_functions(); }

}  // namespace andweorc::runtime
#endif

#endif /* ANDWEORC_RUNTIME_REAL_FUNCTIONS_H_ */
