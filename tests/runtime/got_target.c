/* got_target.c: a library whose calls GotRedirect rewrites
 * (got_redirect_test.cc). Built twice: bound at load with RELRO
 * (got_target_now) and bound lazily (got_target_lazy). */
#include <pthread.h>

/* A call through the PLT (a JUMP_SLOT relocation). */
int got_target_lock(pthread_mutex_t* m) {
  int rc = pthread_mutex_lock(m);
  if (rc == 0) pthread_mutex_unlock(m);
  return rc;
}

/* An address taken in position-independent code (a GLOB_DAT relocation). */
void* got_target_trylock_address(void) { return (void*)&pthread_mutex_trylock; }

/* The same for the function the runtime wraps (a manual churn check: a
 * library loaded while attached is rerouted by the collector's pass). */
void* got_target_lock_address(void) { return (void*)&pthread_mutex_lock; }
