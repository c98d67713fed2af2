/* blocking.h: the delay-inheritance hooks the interposed blocking calls use.
 *
 * Plain C so that the wrappers can be written in C: glibc declares pthread
 * and I/O functions with C++ exception specifications that a C++ definition
 * would have to repeat exactly. All hooks are no-ops for threads the runtime
 * does not know, cost a thread-local load and an atomic load or two when no
 * experiment runs, and never make a syscall unless a delay is owed.
 */
#ifndef ANDWEORC_RUNTIME_BLOCKING_H_
#define ANDWEORC_RUNTIME_BLOCKING_H_

#ifdef __cplusplus
extern "C" {
#endif

/* About to block until something happens. */
void andweorc_rt_pre_block(void);
/* Woken: by another thread of this program (it paid the delays inserted
 * while we waited), or not (timeout, I/O, signal: we pay them). */
void andweorc_rt_post_block(int woken_by_thread);
/* About to wake another thread: pay what we owe first. */
void andweorc_rt_catch_up(void);

#ifdef __cplusplus
}
#endif

#endif /* ANDWEORC_RUNTIME_BLOCKING_H_ */
