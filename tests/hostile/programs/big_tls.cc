// big_tls.cc: 256 KiB of static TLS in the executable (large thread_local
// buffers are common in numeric code). Every thread's stack must hold it,
// the profiler's collector thread included.
#include <stdio.h>
#include <string.h>

#include "common.h"

thread_local char g_scratch[256 * 1024];

// Deep call chains make every sample big, so that a ring nobody empties
// (no collector thread) overflows within the run.
__attribute__((noinline)) unsigned long deep(int depth) {
  if (depth == 0) return burn_ms(900);
  unsigned long x = deep(depth - 1);
  asm volatile("" : : "r"(x) : "memory");
  return x + 1;
}

int main() {
  memset(g_scratch, 1, sizeof g_scratch);
  unsigned long x = deep(40);
  printf("scratch %d %lu\n", g_scratch[4096], x & 0);
  return 0;
}
