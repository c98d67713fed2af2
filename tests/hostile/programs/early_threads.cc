// early_threads.cc: uses a library that started a thread before main (and
// before the profiler's constructor). The profile must say so.
#include <stdio.h>

#include "common.h"

extern "C" void early_pool_stop();

int main() {
  unsigned long x = burn_ms(200);
  early_pool_stop();
  printf("pool stopped %lu\n", x & 0);
  return 0;
}
