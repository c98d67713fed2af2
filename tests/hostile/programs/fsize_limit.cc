// fsize_limit.cc: a program that caps the size of the files it writes
// (RLIMIT_FSIZE, as `ulimit -f` does) and stays within the cap itself. A
// profiler file that grows past it would draw SIGXFSZ, which kills.
#include <fcntl.h>
#include <stdio.h>
#include <sys/resource.h>
#include <unistd.h>

#include "common.h"

// Deep call chains make samples big, so the raw file outgrows the cap.
__attribute__((noinline)) unsigned long deep(int depth) {
  if (depth == 0) return burn_ms(600);
  unsigned long x = deep(depth - 1);
  asm volatile("" : : "r"(x) : "memory");
  return x + 1;
}

int main() {
  rlimit rl{128 * 1024, RLIM_INFINITY};
  setrlimit(RLIMIT_FSIZE, &rl);
  int fd = open("small.txt", O_WRONLY | O_CREAT | O_TRUNC, 0644);
  for (int i = 0; i < 100; ++i)
    if (write(fd, "0123456789\n", 11) != 11) return 1;
  close(fd);
  unsigned long x = deep(40);
  printf("done %lu\n", x & 0);
  return 0;
}
