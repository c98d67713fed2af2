// common.h: helpers shared by the hostile programs (CPU burn, file dump).
#ifndef ANDWEORC_TESTS_HOSTILE_PROGRAMS_COMMON_H_
#define ANDWEORC_TESTS_HOSTILE_PROGRAMS_COMMON_H_

#include <time.h>

// Burns about `ms` of CPU time in the calling thread; returns a value the
// compiler cannot drop.
static inline unsigned long burn_ms(long ms) {
  timespec start, now;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &start);
  unsigned long x = 1;
  for (;;) {
    for (int i = 0; i < 100000; ++i) x = x * 6364136223846793005ul + 1;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
    long elapsed = (now.tv_sec - start.tv_sec) * 1000 +
                   (now.tv_nsec - start.tv_nsec) / 1000000;
    if (elapsed >= ms) return x;
  }
}

#endif  // ANDWEORC_TESTS_HOSTILE_PROGRAMS_COMMON_H_
