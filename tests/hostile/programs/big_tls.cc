// big_tls.cc: 256 KiB of static TLS in the executable (large thread_local
// buffers are common in numeric code). Every thread's stack must hold it,
// the profiler's collector thread included.
#include <stdio.h>
#include <string.h>

#include "common.h"

thread_local char g_scratch[256 * 1024];

int main() {
  memset(g_scratch, 1, sizeof g_scratch);
  unsigned long x = burn_ms(2500);
  printf("scratch %d %lu\n", g_scratch[4096], x & 0);
  return 0;
}
