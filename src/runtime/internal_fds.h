/* internal_fds.h: which file descriptors connect threads of this program.
 *
 * A thread blocked reading a pipe, a socketpair or an eventfd that only this
 * program holds was woken by another of its threads, which paid its delays
 * before writing (post_block(1)); anything else (files, network sockets,
 * timers, terminals) is the outside world (post_block(0)). The interposed
 * pipe/pipe2/socketpair/eventfd mark their descriptors, close/dup keep the
 * marks right, and epoll sets remember whether any outside descriptor was
 * ever added. Marks are bits in fixed arrays: lock-free, no allocation,
 * descriptors past the arrays count as outside.
 */
#ifndef ANDWEORC_RUNTIME_INTERNAL_FDS_H_
#define ANDWEORC_RUNTIME_INTERNAL_FDS_H_

#ifdef __cplusplus
extern "C" {
#endif

void andweorc_fd_mark(int fd, int internal);
int andweorc_fd_internal(int fd);
/* epoll sets: internal while every descriptor added to them is internal. */
void andweorc_epoll_created(int epfd);
void andweorc_epoll_added(int epfd, int fd);
int andweorc_epoll_internal(int epfd);

#ifdef __cplusplus
}
#endif

#endif /* ANDWEORC_RUNTIME_INTERNAL_FDS_H_ */
