/* internal_fds.h: which file descriptors connect threads of this program,
 * and which are the profiler's own.
 *
 * Marks. A thread blocked reading a pipe, a socketpair or an eventfd that
 * only this program holds was woken by another of its threads, which paid
 * its delays before writing (post_block(1)); anything else (files, network
 * sockets, timers, terminals) is the outside world (post_block(0)). The
 * interposed pipe/pipe2/socketpair/eventfd mark their descriptors, close/dup
 * keep the marks right, and epoll sets remember whether any outside
 * descriptor was ever added. A fork clears every mark: a pipe that existed
 * at fork time may now connect to the child, another process. Marks are
 * bits in fixed arrays: lock-free, no allocation, descriptors past the
 * arrays count as outside. A child started without fork (posix_spawn)
 * unmarks what it inherits; a vfork child, which shares our memory but not
 * our descriptor table, never marks (its numbers are not ours) and clears
 * every mark when it execs (what it hands on is unknown).
 *
 * Our own descriptors (the raw file, per-thread perf events, /proc reads).
 * They are moved to high numbers (F_DUPFD_CLOEXEC just under RLIMIT_NOFILE,
 * so out of FD_SETSIZE range and away from the low numbers programs expect
 * open() to return) and guarded: the interposed close/closefrom/close_range
 * treat them as never opened (EBADF / skipped), and dup2/dup3 onto one first
 * moves ours to another number (evict). Each is registered with the address
 * of the variable that holds it (its owner), which eviction updates; an
 * owner flagged io_locked is only moved while io_lock is held, so a record
 * being written can never land in the program's file. All functions here
 * are async-signal-safe (syscalls and atomics only).
 */
#ifndef ANDWEORC_RUNTIME_INTERNAL_FDS_H_
#define ANDWEORC_RUNTIME_INTERNAL_FDS_H_

#ifdef __cplusplus
extern "C" {
#endif

void andweorc_fd_mark(int fd, int internal);
int andweorc_fd_internal(int fd);
/* A connected socket (accept, connect): internal when its peer is this
 * process or a live process of its process tree, which pays the tree's
 * delays before it writes; else the outside world. Unix sockets: the peer
 * is SO_PEERCRED's pid; IP sockets (loopback TCP): the process that
 * recorded the peer's endpoint in the tree's table (shared_tree_net.h).
 * The peer is the process that connected (or listened) at that time: a
 * descriptor later handed to another process (SCM_RIGHTS) is not followed. */
void andweorc_fd_mark_peer(int fd);
/* A write to internal descriptor fd would end nobody's wait: the reader
 * still has data to read that was written before. A pipe (FIONREAD on
 * either end counts the bytes in it; the kernel wakes a pipe's readers only
 * when a write finds it empty), a Unix socket (SIOCOUTQ: what we sent that
 * the peer has not read yet) or a TCP connection of the tree (the bytes
 * both ends counted, shared_tree_net.h: TCP's SIOCOUTQ counts
 * unacknowledged bytes, not unread ones). 0 for anything else (eventfds)
 * and on error: the caller then pays first, as always. Two syscalls at
 * most. */
int andweorc_fd_peer_has_unread(int fd);
/* Forgets every mark (after fork: descriptors may be shared with a child). */
void andweorc_fd_clear_marks(void);
/* After a child was started without fork (posix_spawn): unmarks every
 * marked descriptor that is not close-on-exec (the child holds it now). */
void andweorc_fd_unmark_inherited(void);
/* epoll sets: internal while every descriptor added to them is internal. */
void andweorc_epoll_created(int epfd);
void andweorc_epoll_added(int epfd, int fd);
int andweorc_epoll_internal(int epfd);

/* Takes fd as the profiler's: moves it to a high number (closing the
 * original), guards it, stores the number in *owner and returns it. When
 * no high number is free the original number is kept (still guarded). */
int andweorc_fd_adopt(int fd, int* owner, int io_locked);
/* Closes the descriptor in *owner if it is still ours; *owner becomes -1.
 * Never closes a number the program has taken over. */
void andweorc_fd_release(int* owner);
/* True for a guarded descriptor. Waits while another thread is moving or
 * closing it, so the answer is never about a half-done change. */
int andweorc_fd_is_ours(int fd);
/* The program wants number fd (dup2/dup3 onto it): moves ours elsewhere.
 * Returns 1 when something was moved (the old number still holds a copy of
 * our file until the caller's dup2 replaces it or it calls
 * andweorc_fd_drop_copy), else 0. */
int andweorc_fd_evict(int fd);
/* Closes the stale copy an eviction left behind (the dup2 failed). */
void andweorc_fd_drop_copy(int fd);
/* Calls real close_range on [first, last] minus our descriptors. */
int andweorc_close_range_guarded(unsigned first, unsigned last, int flags);
/* Number of guarded descriptors (tests, notes). */
int andweorc_fd_count_ours(void);

/* False in a vfork child (runtime.cc). */
int andweorc_is_original_process(void);
/* io_lock for C (runtime.cc): a bounded try (a few ms, then 0) and release. */
int andweorc_io_lock_bounded(void);
void andweorc_io_unlock(void);

#ifdef __cplusplus
}
#endif

#endif /* ANDWEORC_RUNTIME_INTERNAL_FDS_H_ */
