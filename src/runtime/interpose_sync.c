/* interpose_sync.c: pthread and semaphore calls, wrapped for delay
 * inheritance (delay_engine.h has the rules; blocking.h the hooks).
 *
 *   blocks until another thread acts   pre_block, call, post_block(1)
 *   takes a lock                        catch_up first (see mutex_lock)
 *   may time out                        pre_block, call, post_block(rc == 0)
 *   wakes other threads                 catch_up, call
 *
 * Written in C: see blocking.h. The real functions come from the one table
 * in real_functions.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <time.h>

#include "runtime/blocking.h"
#include "runtime/real_functions.h"

#define EXPORT __attribute__((visibility("default")))

#define REAL(name) (andweorc_real()->name)
#define REAL_V(name) REAL(name)

/* ---- threads ---- */

EXPORT int pthread_join(pthread_t t, void** result) {
  andweorc_rt_pre_block();
  int rc = REAL(pthread_join)(t, result);
  andweorc_rt_post_block(1); /* the exiting thread caught up before exiting */
  return rc;
}

EXPORT void pthread_exit(void* value) {
  andweorc_rt_catch_up(); /* we are about to wake our joiner */
  REAL(pthread_exit)(value);
  __builtin_unreachable();
}

/* ---- mutexes ---- */

/* Locking pays the caller's debt first, while it holds nothing: paid later,
 * at unlock, the delay would stretch the critical section and hold up every
 * thread waiting for the lock, which a real speed-up would not do.
 *
 * During experiments a free lock is taken with trylock first: a thread that
 * did not wait has nothing to be credited for, so pre_block/post_block
 * (two engine operations) are only paid by a thread that may block. Most
 * locks of a real program are free (memcached: ~5 locks per request, the
 * engine's three operations per lock were most of its 15-20% throughput
 * loss during experiments). Any result but EBUSY is what lock would have
 * returned for this mutex (0, EOWNERDEAD of a robust mutex, EAGAIN of a
 * recursive one at its maximum, EINVAL); EBUSY (held, or an error-checking
 * mutex we hold) goes on to the real lock, which blocks or says EDEADLK. */
#define LOCK_TRY_FIRST(type, name, try_name)        \
  EXPORT ANDWEORC_RT_HOT int name(type* l) {        \
    if (!andweorc_rt_armed()) return REAL(name)(l); \
    andweorc_rt_catch_up_slow();                    \
    int rc = REAL(try_name)(l);                     \
    if (rc != EBUSY) return rc;                     \
    andweorc_rt_pre_block_slow();                   \
    rc = REAL(name)(l);                             \
    andweorc_rt_post_block_slow(1);                 \
    return rc;                                      \
  }
LOCK_TRY_FIRST(pthread_mutex_t, pthread_mutex_lock, pthread_mutex_trylock)

EXPORT int pthread_mutex_timedlock(pthread_mutex_t* m,
                                   const struct timespec* t) {
  andweorc_rt_pre_block();
  int rc = REAL(pthread_mutex_timedlock)(m, t);
  andweorc_rt_post_block(rc == 0);
  return rc;
}

EXPORT int pthread_mutex_clocklock(pthread_mutex_t* m, clockid_t c,
                                   const struct timespec* t) {
  andweorc_rt_pre_block();
  int rc = REAL(pthread_mutex_clocklock)(m, c, t);
  andweorc_rt_post_block(rc == 0);
  return rc;
}

EXPORT ANDWEORC_RT_HOT int pthread_mutex_unlock(pthread_mutex_t* m) {
  andweorc_rt_catch_up();
  return REAL(pthread_mutex_unlock)(m);
}

/* ---- condition variables ---- */

/* Waiting releases the mutex, which may wake a thread; but paying here would
 * mean paying while holding the mutex. The debt is carried into the wait
 * instead, which absorbs it (delay_engine.h). */
EXPORT int pthread_cond_wait(pthread_cond_t* c, pthread_mutex_t* m) {
  andweorc_rt_pre_block();
  int rc = REAL_V(pthread_cond_wait)(c, m);
  andweorc_rt_post_block(1);
  return rc;
}

EXPORT int pthread_cond_timedwait(pthread_cond_t* c, pthread_mutex_t* m,
                                  const struct timespec* t) {
  andweorc_rt_pre_block();
  int rc = REAL_V(pthread_cond_timedwait)(c, m, t);
  andweorc_rt_post_block(rc == 0);
  return rc;
}

EXPORT int pthread_cond_clockwait(pthread_cond_t* c, pthread_mutex_t* m,
                                  clockid_t clock, const struct timespec* t) {
  andweorc_rt_pre_block();
  int rc = REAL(pthread_cond_clockwait)(c, m, clock, t);
  andweorc_rt_post_block(rc == 0);
  return rc;
}

EXPORT int pthread_cond_signal(pthread_cond_t* c) {
  andweorc_rt_catch_up();
  return REAL_V(pthread_cond_signal)(c);
}

EXPORT int pthread_cond_broadcast(pthread_cond_t* c) {
  andweorc_rt_catch_up();
  return REAL_V(pthread_cond_broadcast)(c);
}

/* ---- reader/writer locks ---- */

/* As pthread_mutex_lock: during experiments a free lock is taken with the
 * try form first. Its answers other than EBUSY are the blocking form's for
 * this lock (EAGAIN: too many readers; EDEADLK: we hold it for writing). */
LOCK_TRY_FIRST(pthread_rwlock_t, pthread_rwlock_rdlock,
               pthread_rwlock_tryrdlock)
LOCK_TRY_FIRST(pthread_rwlock_t, pthread_rwlock_wrlock,
               pthread_rwlock_trywrlock)

#define RWLOCK_TIMED(name)                                         \
  EXPORT int name(pthread_rwlock_t* l, const struct timespec* t) { \
    andweorc_rt_pre_block();                                       \
    int rc = REAL(name)(l, t);                                     \
    andweorc_rt_post_block(rc == 0);                               \
    return rc;                                                     \
  }
RWLOCK_TIMED(pthread_rwlock_timedrdlock)
RWLOCK_TIMED(pthread_rwlock_timedwrlock)

#define RWLOCK_CLOCKED(name)                        \
  EXPORT int name(pthread_rwlock_t* l, clockid_t c, \
                  const struct timespec* t) {       \
    andweorc_rt_pre_block();                        \
    int rc = REAL(name)(l, c, t);                   \
    andweorc_rt_post_block(rc == 0);                \
    return rc;                                      \
  }
RWLOCK_CLOCKED(pthread_rwlock_clockrdlock)
RWLOCK_CLOCKED(pthread_rwlock_clockwrlock)

EXPORT ANDWEORC_RT_HOT int pthread_rwlock_unlock(pthread_rwlock_t* l) {
  andweorc_rt_catch_up();
  return REAL(pthread_rwlock_unlock)(l);
}

/* ---- barriers ---- */

EXPORT int pthread_barrier_wait(pthread_barrier_t* b) {
  andweorc_rt_catch_up(); /* the last arrival wakes everyone */
  andweorc_rt_pre_block();
  int rc = REAL(pthread_barrier_wait)(b);
  andweorc_rt_post_block(1);
  return rc;
}

/* ---- semaphores ---- */

EXPORT int sem_wait(sem_t* s) {
  andweorc_rt_pre_block();
  int rc = REAL(sem_wait)(s);
  andweorc_rt_post_block(rc == 0);
  return rc;
}

EXPORT int sem_timedwait(sem_t* s, const struct timespec* t) {
  andweorc_rt_pre_block();
  int rc = REAL(sem_timedwait)(s, t);
  andweorc_rt_post_block(rc == 0);
  return rc;
}

EXPORT int sem_clockwait(sem_t* s, clockid_t c, const struct timespec* t) {
  andweorc_rt_pre_block();
  int rc = REAL(sem_clockwait)(s, c, t);
  andweorc_rt_post_block(rc == 0);
  return rc;
}

EXPORT int sem_post(sem_t* s) {
  andweorc_rt_catch_up();
  return REAL(sem_post)(s);
}
