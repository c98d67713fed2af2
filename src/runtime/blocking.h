/* blocking.h: the delay-inheritance hooks the interposed blocking calls use.
 *
 * Plain C so that the wrappers can be written in C: glibc declares pthread
 * and I/O functions with C++ exception specifications that a C++ definition
 * would have to repeat exactly. All hooks are no-ops for threads the runtime
 * does not know, cost one inlined load when no experiment runs
 * (andweorc_rt_delays_armed), and never make a syscall unless a delay is owed.
 */
#ifndef ANDWEORC_RUNTIME_BLOCKING_H_
#define ANDWEORC_RUNTIME_BLOCKING_H_

#ifdef __cplusplus
extern "C" {
#endif

/* Non-zero while some delay engine has an experiment running, 0% ones
 * included, so that both arms of a comparison pay for the wrappers alike
 * (delay_engine.cc keeps it). Outside experiments no delay can be owed or
 * inserted, so every wrapper stops at this one inlined load: no call, no
 * thread-local lookup. A wrapper that
 * reads 0 just as an experiment starts behaves as if it ran just before it.
 * Hidden: one RIP-relative load, no GOT. Element 0 is the flag; the array
 * fills one cache line of its own (aligned in delay_engine.cc), so that no
 * variable written at run time shares the line every wrapper reads. */
#define ANDWEORC_RT_ARMED_LINE 16 /* ints: 64 bytes */
extern __attribute__((
    visibility("hidden"))) int andweorc_rt_delays_armed[ANDWEORC_RT_ARMED_LINE];

/* Marks the functions on the wrappers' path during experiments (the hooks
 * below, the lock wrappers, current_thread, delay_engine): gcc puts hot
 * functions in .text.hot, which the linker keeps together, so that path
 * touches one or two code pages instead of five. */
#define ANDWEORC_RT_HOT __attribute__((hot))

static inline int andweorc_rt_armed(void) {
  return __builtin_expect(
      __atomic_load_n(&andweorc_rt_delays_armed[0], __ATOMIC_RELAXED) != 0, 0);
}

/* The hooks proper (blocking.cc); call them through the inline ones, or
 * directly where the caller has just read andweorc_rt_armed() itself. */
void andweorc_rt_pre_block_slow(void);
void andweorc_rt_post_block_slow(int woken_by_thread);
void andweorc_rt_catch_up_slow(void);
/* catch_up, except when the thread owes something and skip(fd) says the
 * wake it is about to make wakes nobody (interpose_common.h's write rule):
 * then the debt is kept. skip runs only when a debt is owed. */
void andweorc_rt_catch_up_unless_slow(int (*skip)(int fd), int fd);

/* About to block until something happens. */
static inline void andweorc_rt_pre_block(void) {
  if (andweorc_rt_armed()) andweorc_rt_pre_block_slow();
}
/* Woken: by another thread of this program (it paid the delays inserted
 * while we waited), or not (timeout, I/O, signal: we pay them). */
static inline void andweorc_rt_post_block(int woken_by_thread) {
  if (andweorc_rt_armed()) andweorc_rt_post_block_slow(woken_by_thread);
}
/* About to wake another thread: pay what we owe first. */
static inline void andweorc_rt_catch_up(void) {
  if (andweorc_rt_armed()) andweorc_rt_catch_up_slow();
}

#ifdef __cplusplus
}
#endif

#endif /* ANDWEORC_RUNTIME_BLOCKING_H_ */
